"""Scene for the banked ``_measure-smlm-resolution`` procedure: a simulated dSTORM localization table.

2000 fluorophores sit along 12 straight filaments crossing a 2 x 2 µm field (a 1 nm labelling
jitter across each). Over 20000 frames each one blinks 4 times at random moments, each burst
lasting 1-3 frames (`on_frames` = 2), and every frame of a burst gives one localization scattered
by a Gaussian precision of 10 nm per axis. Drift is nil; columns are (x, y) in nm.

Ground truth planted: precision 10 nm. Its FRC resolution is not a planted number (it also depends
on labelling density), so ``check`` asserts what FRC must give here: a value between twice the
precision and the filaments' spacing scale, stable across splits, with the curve falling through
1/7 once.
"""

from __future__ import annotations

from functools import cache

import numpy as np

PRECISION_NM, FIELD_NM, N_FRAMES = 10.0, 2000.0, 20000


@cache
def _build(seed: int = 8) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    starts = rng.uniform(0, FIELD_NM, (12, 2))
    angles = rng.uniform(0, np.pi, 12)
    along = rng.uniform(-FIELD_NM, FIELD_NM, 4000)
    which = rng.integers(0, 12, 4000)
    points = starts[which] + along[:, None] * np.column_stack([np.cos(angles[which]), np.sin(angles[which])])
    points += rng.normal(0, 1.0, points.shape)
    inside = np.all((points >= 0) & (points <= FIELD_NM), axis=1)
    emitters = points[inside][:2000]
    positions, frames = [], []
    for xy in emitters:
        for start in rng.integers(0, N_FRAMES - 3, 4):
            for frame in range(start, start + int(rng.integers(1, 4))):
                positions.append(xy + rng.normal(0, PRECISION_NM, 2))
                frames.append(frame)
    return {
        "localizations": np.array(positions),
        "frame_index": np.array(frames),
        "precision_nm": PRECISION_NM,
        "on_frames": 2,
    }


def scene() -> dict[str, object]:
    return _build()


def check(namespace: dict) -> None:
    resolution = namespace["frc_resolution_nm"]
    # FRC cannot beat about twice the precision (2.35 x is the FWHM of a localization cloud), and
    # 12 filaments in 2 µm leave structure down to tens of nm
    assert 2 * PRECISION_NM <= resolution <= 80, (
        f"expected an FRC resolution between {2 * PRECISION_NM:.0f} and 80 nm for {PRECISION_NM:.0f} nm "
        f"precision, got {resolution:.1f} nm"
    )
    assert namespace["frc_spread_nm"] < 0.1 * resolution, (
        f"expected the splits to agree within 10 %, got {resolution:.1f} ± "
        f"{namespace['frc_spread_nm']:.1f} nm"
    )


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""
    return (lambda: _build(seed), check)


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement.
MUTATIONS = [
    (
        "render pixel from the precision inverted (4x too coarse)",
        "frc_render_px_nm = precision_nm / 2",
        "frc_render_px_nm = precision_nm * 2",
    ),
]
