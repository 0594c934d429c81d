"""Scene for count-foci: a widefield γH2AX field with nuclei segmented beforehand.

Simulates a 256 x 256 px field at 0.2 µm/px (60x objective, 13 µm camera pixel) holding 16 elliptical
nuclei, 7-10 µm across, with their label image as segment-nuclei would return it. One nucleus is cut
by the image border. Each nucleus carries a diffuse nuclear signal and a number of diffraction-limited
foci (0-6 Gaussian spots, sigma 1.1 px, i.e. about 0.5 µm FWHM, at least 6 px apart) of random
brightness. One nucleus is pan-nuclear (bright diffuse signal and no foci), one is crowded with foci
packed 3 px apart. A smooth illumination gradient, a camera offset and shot noise complete the field
(uint16).

Ground truth planted: ``_build()[1]`` maps each label to its true number of foci (the crowded nucleus
is -1: too dense to count), ``_build()[2]`` lists the true spot centres (row, col).
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage as ndi

from ._shapes import ellipse_mask

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


def _build(seed: int = 11) -> tuple[dict[str, object], dict[int, int], np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = np.zeros(SHAPE, dtype=np.int32)
    diffuse = np.zeros(SHAPE)
    truth: dict[int, int] = {}
    all_spots: list[tuple[float, float]] = []
    yy, xx = np.mgrid[: SHAPE[0], : SHAPE[1]]
    spot_image = np.zeros(SHAPE)
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
        else:
            spots = _place_spots(rng, inner, int(rng.integers(0, 7)), 6.0)
            truth[label] = len(spots)
        for r, c in spots:
            amplitude = rng.uniform(70.0, 260.0)
            spot_image += amplitude * np.exp(-((yy - r) ** 2 + (xx - c) ** 2) / (2 * SPOT_SIGMA_PX**2))
        all_spots.extend(spots)
    gradient = 30.0 * (xx + yy) / (SHAPE[0] + SHAPE[1])
    # the diffuse nuclear signal is blurred by the same PSF as the spots
    expected = 100.0 + 20.0 + gradient + ndi.gaussian_filter(diffuse, SPOT_SIGMA_PX) + spot_image
    foci_image = np.clip(rng.poisson(expected), 0, 65535).astype(np.uint16)
    inputs = {
        "foci_image": foci_image,
        "nuclei_labels": labels,
        "pixel_size_um": PIXEL_SIZE_UM,
        "spot_diameter_um": SPOT_DIAMETER_UM,
    }
    return inputs, truth, np.array(all_spots)


def scene() -> dict[str, object]:
    return _build()[0]
