"""Scene for the banked ``_ratiometric-fret`` procedure: a FRET biosensor time-lapse with controls.

Simulates a 128 x 128 px field (0.2 µm/px), 3 frames, holding 6 round cells of a CFP/YFP-type
sensor whose true ratio (corrected FRET over donor) is 0.2, 0.5 or 1.0, two cells each, and the
same in every pixel of a cell. Expression falls from the centre of each cell to a tenth at its
edge, so the dim rim holds pixels where a low ratio is hard to read. Channels: donor = D;
acceptor (direct excitation) = A; FRET = ratio x D + 0.4 D (donor bleed-through) + 0.1 A (acceptor
cross-excitation). Donor-only and acceptor-only control fields give the two coefficients. Every
channel gets a camera offset of 100 counts, 20 photons of background and Poisson noise.

Ground truth planted: ``TRUE_RATIO`` per cell label, bleed-through 0.4, cross-excitation 0.1.
``check`` asserts the coefficients and every cell's ratio, the low ones included: a validity mask
that selects pixels on the FRET signal keeps only those noise pushed up, and biases them high.
"""

from __future__ import annotations

from functools import cache

import numpy as np

SHAPE, N_FRAMES = (128, 128), 3
BLEED, CROSS = 0.4, 0.1
TRUE_RATIO = {1: 0.2, 2: 0.2, 3: 0.5, 4: 0.5, 5: 1.0, 6: 1.0}


def _cells(rng, levels):
    """A label image of 6 round cells on a 2 x 3 grid, and each cell's expression profile."""
    yy, xx = np.mgrid[: SHAPE[0], : SHAPE[1]]
    labels = np.zeros(SHAPE, dtype=np.int32)
    profile = np.zeros(SHAPE)
    for label, (gy, gx) in enumerate(np.ndindex(2, 3), start=1):
        cy, cx = 32 + 64 * gy + rng.uniform(-3, 3), 22 + 42 * gx + rng.uniform(-3, 3)
        r2 = ((yy - cy) ** 2 + (xx - cx) ** 2) / 16.0**2
        inside = r2 <= 1
        labels[inside] = label
        profile[inside] = levels[label - 1] * (1 - 0.9 * r2[inside])
    return labels, profile


def _camera(rng, photons):
    return (rng.poisson(photons + 20.0) + 100).astype(np.uint16)


@cache
def _build(seed: int = 4) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    labels, donor_level = _cells(rng, rng.uniform(150, 300, 6))
    ratio = np.zeros(SHAPE)
    for label, value in TRUE_RATIO.items():
        ratio[labels == label] = value
    acceptor_level = 0.8 * donor_level
    fret_level = ratio * donor_level + BLEED * donor_level + CROSS * acceptor_level
    _, donor_only = _cells(rng, rng.uniform(200, 400, 6))
    _, acceptor_only = _cells(rng, rng.uniform(1500, 3000, 6))  # bright: 0.1 A must stand above noise
    return {
        "donor": np.stack([_camera(rng, donor_level) for _ in range(N_FRAMES)]),
        "fret": np.stack([_camera(rng, fret_level) for _ in range(N_FRAMES)]),
        "acceptor": np.stack([_camera(rng, acceptor_level) for _ in range(N_FRAMES)]),
        "donor_only_donor": _camera(rng, donor_only),
        "donor_only_fret": _camera(rng, BLEED * donor_only),
        "acceptor_only_fret": _camera(rng, CROSS * acceptor_only),
        "acceptor_only_acceptor": _camera(rng, acceptor_only),
        "pixel_size_um": 0.2,
        "labels": labels,
        "background_mask": None,
        "baseline_frames": 1,
        "structure_um": None,
    }


def scene() -> dict[str, object]:
    return _build()


def check(namespace: dict) -> None:
    # each control field holds ~3000 cell pixels of 100-400 photons: slopes good to ~1 %
    assert abs(namespace["fret_bt"] - BLEED) < 0.02, (
        f"expected bleed-through {BLEED}, got {namespace['fret_bt']:.3f}"
    )
    assert abs(namespace["fret_dx"] - CROSS) < 0.02, (
        f"expected cross-excitation {CROSS}, got {namespace['fret_dx']:.3f}"
    )
    cell_ratio = namespace["fret_cell_ratio"]  # (t, cells), cells in label order
    want = np.array([TRUE_RATIO[k] for k in sorted(TRUE_RATIO)])
    # a ratio of sums over a few hundred valid pixels: shot noise leaves ~1 %, the coefficients' error
    # moves a ratio by about 0.02 x (1 + 0.08 / 0.4)
    error = np.abs(cell_ratio - want).max(axis=0)
    assert np.all(error < 0.04), (
        f"expected cell ratios {want} within 0.04; got {np.round(cell_ratio.mean(0), 3)}"
    )


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""
    return (lambda: _build(seed), check)


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "validity gated on the corrected FRET signal again",
        "fret_valid = fret_dd_c > fret_donor_needed[:, None, None]",
        "fret_valid = (fret_dd_c > fret_donor_needed[:, None, None])"
        " & (fret_fc > 14 * fret_noise_fc[:, None, None])",
    ),
    (
        "donor bleed-through not subtracted from the FRET channel",
        "fret_fc = fret_da_c - fret_bt * fret_dd_c",
        "fret_fc = fret_da_c",
    ),
]
