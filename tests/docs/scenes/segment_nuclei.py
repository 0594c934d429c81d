"""Scene for segment-nuclei: a widefield DAPI field of separate nuclei.

Simulates a 256 x 256 px field at 0.325 µm/px (a 20x objective on a 6.5 µm camera pixel) holding
16 elliptical nuclei, 8-12 µm across, placed at random without touching; some are cut by the image
border. Each nucleus has a DNA content drawn at random (bright and dim nuclei side by side), a
chromatin texture, and a dim nucleolus that leaves a hole in a naive threshold. The whole field is
blurred by a Gaussian PSF and given a camera offset, shot noise and read noise (uint16 counts).

Ground truth planted: 16 nuclei (``_build()[1]`` is the true label image), typical diameter 10 µm.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage as ndi

from ._shapes import ellipse_mask

SHAPE = (256, 256)
PIXEL_SIZE_UM = 0.325
DIAMETER_UM = 10.0
N_NUCLEI = 16


def _build(seed: int = 7) -> tuple[dict[str, object], np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = np.zeros(SHAPE, dtype=np.int32)
    signal = np.zeros(SHAPE, dtype=np.float64)
    texture = ndi.gaussian_filter(rng.normal(size=SHAPE), 1.5)
    texture /= texture.std()
    placed = 0
    while placed < N_NUCLEI:
        radius_px = rng.uniform(8.0, 12.0) / 2 / PIXEL_SIZE_UM
        aspect = rng.uniform(1.0, 1.35)
        semi = (radius_px * np.sqrt(aspect), radius_px / np.sqrt(aspect))
        centre = rng.uniform(-0.3 * radius_px, np.array(SHAPE) + 0.3 * radius_px)
        nucleus = ellipse_mask(SHAPE, centre, semi, rng.uniform(0, np.pi))
        if nucleus.sum() < 0.3 * np.pi * radius_px**2:
            continue
        # keep a gap of at least 3 px to every nucleus already placed
        if (ndi.binary_dilation(nucleus, iterations=3) & (truth > 0)).any():
            continue
        placed += 1
        truth[nucleus] = placed
        brightness = rng.uniform(350.0, 900.0)
        nucleolus = ellipse_mask(SHAPE, centre + rng.normal(0, 2, 2), (semi[0] / 3, semi[1] / 3.5), 0.3)
        signal[nucleus] = brightness * (1.0 + 0.15 * texture[nucleus])
        signal[nucleus & nucleolus] *= 0.3
    blurred = ndi.gaussian_filter(signal, 1.2)
    counts = rng.poisson(blurred + 40.0) + 100.0 + rng.normal(0.0, 4.0, SHAPE)
    image = np.clip(counts, 0, 65535).astype(np.uint16)
    inputs = {"image": image, "pixel_size_um": PIXEL_SIZE_UM, "nucleus_diameter_um": DIAMETER_UM}
    return inputs, truth


def scene() -> dict[str, object]:
    return _build()[0]
