"""Scene for count-foci: a widefield γH2AX field with nuclei segmented beforehand.

Simulates a 256 x 256 px field at 0.2 µm/px (60x objective, 13 µm camera pixel) holding 16 elliptical
nuclei, 7-10 µm across, with their label image as segment-nuclei would return it. One nucleus is cut
by the image border. Each nucleus carries a diffuse nuclear signal and a number of diffraction-limited
foci (0-6 Gaussian spots, sigma 1.1 px, i.e. about 0.5 µm FWHM, at least 6 px apart) of random
brightness. One nucleus is pan-nuclear (bright diffuse signal and no foci), one is crowded with foci
packed 3 px apart. A smooth illumination gradient, a camera offset and shot noise complete the field
(uint16).

Ground truth planted: ``_build()[1]`` maps each label to its true number of foci (the crowded nucleus
is -1: too dense to count), ``_build()[2]`` holds the true spot centres (row, col) by kind (bright,
at the limit, below it) and the limit's peak height in counts. ``check`` asserts the detection
rate of each kind, the false detections, the stated limit, the crowded, pan-nuclear and border
nuclei, and the near-limit warning.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import ndimage as ndi

from ._shapes import ellipse_mask
from ._truth import nearest_pairs

SHAPE = (256, 256)
PIXEL_SIZE_UM = 0.2
SPOT_DIAMETER_UM = 0.6
SPOT_SIGMA_PX = 1.1


def _place_spots(rng, inside, n, min_gap_px):
    """Up to n spot centres drawn uniformly inside a mask, each at least min_gap_px from the others."""
    rows, cols = np.nonzero(inside)
    spots: list[tuple[float, float]] = []
    for _ in range(4000):
        if len(spots) == n:
            break
        i = rng.integers(rows.size)
        p = (rows[i] + rng.uniform(-0.5, 0.5), cols[i] + rng.uniform(-0.5, 0.5))
        if all((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 >= min_gap_px**2 for q in spots):
            spots.append(p)
    return spots


@cache
def _build(
    seed: int = 11, dim: bool = True
) -> tuple[dict[str, object], dict[int, int], dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    labels = np.zeros(SHAPE, dtype=np.int32)
    diffuse = np.zeros(SHAPE)
    truth: dict[int, int] = {}
    bright: list[tuple[float, float]] = []
    faint: list[tuple[float, float]] = []  # 2 at the 90 % limit and 1 at half of it, per nucleus
    amplitudes: list[float] = []
    yy, xx = np.mgrid[: SHAPE[0], : SHAPE[1]]
    # a 4 x 4 grid of 64 px cells, one nucleus per cell, jittered; the first is pushed over the border
    for label, (gy, gx) in enumerate(np.ndindex(4, 4), start=1):
        radius = rng.uniform(7.0, 10.0) / 2 / PIXEL_SIZE_UM
        aspect = rng.uniform(1.0, 1.3)
        semi = (min(radius * np.sqrt(aspect), 29.0), radius / np.sqrt(aspect))
        centre = np.array([64 * gy + 32, 64 * gx + 32]) + rng.uniform(-2, 2, 2)
        if label == 1:
            centre = np.array([32.0, 8.0])
        nucleus = ellipse_mask(SHAPE, centre, semi, rng.uniform(0, np.pi)) & (labels == 0)
        labels[nucleus] = label
        if label == 6:  # pan-nuclear: bright, diffuse, no foci
            diffuse[nucleus] = 450.0
            truth[label] = 0
            continue
        diffuse[nucleus] = rng.uniform(40.0, 90.0)
        inner = ellipse_mask(SHAPE, centre, (semi[0] - 2, semi[1] - 2), 0.0) & nucleus
        if label == 11:  # crowded: foci packed closer than they can be resolved
            spots = _place_spots(rng, inner, 70, 3.0)
            truth[label] = -1
            bright.extend(spots)
            amplitudes.extend(rng.uniform(70.0, 260.0, len(spots)))
            continue
        n_dim = 3 if dim and label != 1 else 0
        spots = _place_spots(rng, inner, int(rng.integers(0, 5)) + n_dim, 6.0)
        truth[label] = len(spots)
        bright.extend(spots[n_dim:])
        amplitudes.extend(rng.uniform(110.0, 260.0, len(spots) - n_dim))
        faint.extend(spots[:n_dim])
    gradient = 30.0 * (xx + yy) / (SHAPE[0] + SHAPE[1])
    # the diffuse nuclear signal is blurred by the same PSF as the spots
    base = 100.0 + 20.0 + gradient + ndi.gaussian_filter(diffuse, SPOT_SIGMA_PX)
    # the procedure's stated 90 % limit: peak / pixel noise = (k + 1.28) / (1.25 sigma), k ~ 4.2,
    # with its noise read from the nucleus's MAD, which the foci and their blur raise by ~15 %
    limit_snr = 1.15 * (4.2 + 1.28) / (1.25 * SPOT_DIAMETER_UM / 2.355 / PIXEL_SIZE_UM)
    faint_amp = [
        limit_snr * np.sqrt(base[int(r), int(c)]) * (0.5 if i % 3 == 2 else 1.0)
        for i, (r, c) in enumerate(faint)
    ]
    spot_image = np.zeros(SHAPE)
    for (r, c), amplitude in zip([*bright, *faint], [*amplitudes, *faint_amp], strict=True):
        spot_image += amplitude * np.exp(-((yy - r) ** 2 + (xx - c) ** 2) / (2 * SPOT_SIGMA_PX**2))
    foci_image = np.clip(rng.poisson(base + spot_image), 0, 65535).astype(np.uint16)
    inputs = {
        "foci_image": foci_image,
        "nuclei_labels": labels,
        "pixel_size_um": PIXEL_SIZE_UM,
        "spot_diameter_um": SPOT_DIAMETER_UM,
    }
    spots = {
        "bright": np.array(bright),
        "limit": np.array([f for i, f in enumerate(faint) if i % 3 != 2]).reshape(-1, 2),
        "below": np.array([f for i, f in enumerate(faint) if i % 3 == 2]).reshape(-1, 2),
        "limit_counts": np.array([a for i, a in enumerate(faint_amp) if i % 3 != 2]),
    }
    return inputs, truth, spots


def scene() -> dict[str, object]:
    return _build()[0]


def check(namespace: dict) -> None:
    inputs, _, spots = _build()
    ids = namespace["foci_nucleus_ids"].tolist()
    crowded = dict(zip(ids, namespace["foci_crowded"].tolist(), strict=True))
    counts = dict(zip(ids, namespace["foci_per_nucleus"].tolist(), strict=True))
    assert 1 not in ids, "expected the nucleus cut by the border left out"
    assert crowded[11], f"expected only nucleus 11 flagged crowded, got {crowded}"
    assert sum(crowded.values()) == 1, f"expected only nucleus 11 flagged crowded, got {crowded}"
    assert counts[6] == 0, f"expected no foci in the pan-nuclear nucleus 6, got {counts[6]}"
    labels = inputs["nuclei_labels"]
    found = namespace["foci_spots"]
    found = found[labels[tuple(found.T)] != 11]
    rate = {}
    for kind in ("bright", "limit", "below"):
        true = spots[kind][~np.isin(labels[tuple(np.rint(spots[kind]).astype(int).T)], (1, 11))]
        rate[kind] = len(nearest_pairs(found, true, 2.0)) / len(true)
    # bright foci stand over 2x the limit: missing 3 % would already be far from Gaussian statistics
    assert rate["bright"] >= 0.97, f"expected bright foci found >= 97 % of the time, got {rate['bright']:.0%}"
    # at the stated 90 % limit, with 26 foci: 0.9 minus 3 binomial SEs (0.06 each)
    assert rate["limit"] >= 0.72, (
        f"expected foci at the stated limit found ~90 % of the time, got {rate['limit']:.0%}"
    )
    # at half the limit the filtered peak sits 1.5 noise SDs under the threshold: ~7 %
    assert rate["below"] <= 0.35, (
        f"expected foci at half the limit mostly missed (~7 %), got {rate['below']:.0%}"
    )
    every = np.vstack([spots["bright"], spots["limit"], spots["below"]])
    false = len(found) - len(nearest_pairs(found, every, 2.0))
    # 0.05 false spots per nucleus over 14 nuclei: 0.7 expected; 3 or more has probability ~3 %
    assert false <= 3, f"expected at most 3 detections away from every true focus, got {false}"
    stated = np.median(namespace["foci_limit_counts"])
    planted = np.median(spots["limit_counts"])
    assert abs(stated / planted - 1) < 0.2, (
        f"expected the stated 90 % limit near the {planted:.0f} counts planted there, got {stated:.0f}"
    )
    assert namespace["foci_near_limit"], (
        "expected the near-limit warning: a third of the foci sit at the limit"
    )


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "LoG sign flipped (dark spots sought)",
        "response = -(log_sigma_px**2) * ndi.gaussian_laplace",
        "response = (log_sigma_px**2) * ndi.gaussian_laplace",
    ),
    (
        "LoG sigma x4",
        "log_sigma_px = spot_diameter_um / 2.355 / pixel_size_um",
        "log_sigma_px = 4 * spot_diameter_um / 2.355 / pixel_size_um",
    ),
    (
        "threshold x1.3",
        "foci_threshold = centre + k_noise * foci_noise[counted]",
        "foci_threshold = centre + 1.3 * k_noise * foci_noise[counted]",
    ),
    (
        "rim bands dropped (one baseline per nucleus)",
        "distance_transform_edt(counted > 0)), rim_px)",
        "distance_transform_edt(counted > 0)), 1)",
    ),
    (
        "excess-noise crowding test dropped",
        "foci_crowded = (occupancy > max_occupancy) | (excess_noise > max_excess_noise)",
        "foci_crowded = occupancy > max_occupancy",
    ),
]
