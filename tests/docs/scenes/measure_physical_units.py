"""Scene for measure-physical-units: a confocal z-stack of nuclei with their 3-D labels.

Simulates a (z, y, x) = (28, 160, 160) stack with voxels of 0.5 x 0.2 x 0.2 µm (z step 2.5 times the
lateral pixel, as on a typical confocal). It holds 5 ellipsoidal nuclei, 8-10 µm across and 5-6 µm
high, one of them cut by the image edge. Each nucleus has a uniform DNA density of its own; the stack
is blurred by an anisotropic Gaussian PSF (sigma 0.2 µm laterally, 0.6 µm axially), offset by a
camera and background level, and given shot noise (uint16). The label image is the true ellipsoids,
as a perfect segmentation would return them.

Ground truth planted: ``_build()[1]`` maps each label to its true volume (µm³), equivalent
diameter (µm) and integrated intensity above background (counts).
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage as ndi

SHAPE = (28, 160, 160)
SPACING_UM = (0.5, 0.2, 0.2)
BACKGROUND = 130.0


def _build(seed: int = 3) -> tuple[dict[str, object], dict[int, dict[str, float]]]:
    rng = np.random.default_rng(seed)
    z, y, x = (np.arange(n) * s for n, s in zip(SHAPE, SPACING_UM, strict=True))
    zz, yy, xx = np.meshgrid(z, y, x, indexing="ij")  # voxel centres in µm
    labels = np.zeros(SHAPE, dtype=np.int32)
    density = np.zeros(SHAPE)
    truth: dict[int, dict[str, float]] = {}
    centres_yx = [(7.0, 7.0), (7.0, 20.0), (20.0, 7.0), (20.0, 20.0), (13.5, 31.0)]  # the last is cut
    for label, (cy, cx) in enumerate(centres_yx, start=1):
        semi = (rng.uniform(2.5, 3.0), rng.uniform(4.0, 5.0), rng.uniform(3.5, 4.5))  # z, y, x in µm
        centre = (7.0 + rng.uniform(-0.5, 0.5), cy + rng.uniform(-0.5, 0.5), cx + rng.uniform(-0.5, 0.5))
        inside = (
            ((zz - centre[0]) / semi[0]) ** 2
            + ((yy - centre[1]) / semi[1]) ** 2
            + ((xx - centre[2]) / semi[2]) ** 2
        ) <= 1.0
        inside &= labels == 0
        labels[inside] = label
        level = rng.uniform(150.0, 400.0)
        density[inside] = level
        volume = 4 / 3 * np.pi * np.prod(semi)
        truth[label] = {
            "volume_um3": volume,
            "equivalent_diameter_um": (6 * volume / np.pi) ** (1 / 3),
            "integrated_counts": level * inside.sum(),
        }
    psf_sigma_px = (0.6 / SPACING_UM[0], 0.2 / SPACING_UM[1], 0.2 / SPACING_UM[2])
    expected = BACKGROUND + ndi.gaussian_filter(density, psf_sigma_px, mode="constant")
    stack = np.clip(rng.poisson(expected), 0, 65535).astype(np.uint16)
    inputs = {
        "labels": labels,
        "intensity_image": stack,
        "spacing_um": SPACING_UM,
        "expected_diameter_um": 9.0,
        "background_counts": None,
    }
    return inputs, truth


def scene() -> dict[str, object]:
    return _build()[0]
