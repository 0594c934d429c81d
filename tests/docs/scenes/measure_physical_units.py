"""Scene for measure-physical-units: a flatfield-corrected confocal z-stack of nuclei with 3-D labels.

Simulates a (z, y, x) = (28, 160, 160) stack with voxels of 0.5 x 0.2 x 0.2 µm (z step 2.5 times the
lateral pixel, as on a typical confocal). It holds 5 ellipsoidal nuclei, 8-10 µm across and 5-6 µm
high, one of them cut by the image edge. Each nucleus has a uniform DNA density of its own; nucleus 2
also holds a bright chromocentre (a 0.6 µm sphere). The stack is blurred by an anisotropic Gaussian
PSF (sigma 0.2 µm laterally, 0.6 µm axially), dimmed towards the corners by a smooth illumination
gain (0.8-1.0), given shot noise and a camera offset, and read by a 12-bit camera: the chromocentre
clips at 4095. The intensity image handed to the procedure is flatfield-corrected (raw minus the
offset, divided by the gain, float32), so its clipped voxels no longer share one value; the
saturation mask is computed on the raw stack. The label image is the true ellipsoids, as a perfect
segmentation would return them.

Ground truth planted: ``_build()[1]`` maps each label to its true volume (µm³), equivalent
diameter (µm), integrated intensity above background (corrected counts) and clipped voxel count.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage as ndi

SHAPE = (28, 160, 160)
SPACING_UM = (0.5, 0.2, 0.2)
OFFSET = 100.0  # camera offset (counts)
BACKGROUND = 30.0  # background light (counts at full illumination)
CEILING = 2**12 - 1  # 12-bit camera


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
        if label == 2:  # a chromocentre bright enough to clip the camera
            dist2 = (zz - centre[0]) ** 2 + (yy - centre[1]) ** 2 + (xx - centre[2]) ** 2  # µm²
            density[inside & (dist2 <= 0.6**2)] = 12000.0
        volume = 4 / 3 * np.pi * np.prod(semi)
        truth[label] = {
            "volume_um3": volume,
            "equivalent_diameter_um": (6 * volume / np.pi) ** (1 / 3),
            "integrated_counts": float(density[inside].sum()),
        }
    psf_sigma_px = (0.6 / SPACING_UM[0], 0.2 / SPACING_UM[1], 0.2 / SPACING_UM[2])
    light = BACKGROUND + ndi.gaussian_filter(density, psf_sigma_px, mode="constant")
    r2 = ((yy - yy.mean()) ** 2 + (xx - xx.mean()) ** 2) / (yy.max() ** 2 + xx.max() ** 2) * 4
    gain = 1.0 - 0.2 * r2 / r2.max()  # illumination: 1 at the centre, 0.8 in the corners
    raw = np.clip(OFFSET + rng.poisson(gain * light), 0, CEILING).astype(np.uint16)
    clipped = raw >= CEILING
    for label in truth:
        truth[label]["clipped_voxels"] = int(np.count_nonzero(clipped & (labels == label)))
    inputs = {
        "labels": labels,
        "intensity_image": ((raw - OFFSET) / gain).astype(np.float32),
        "intensity_saturated": clipped,
        "spacing_um": SPACING_UM,
        "expected_diameter_um": 9.0,
        "background_counts": None,
    }
    return inputs, truth


def scene() -> dict[str, object]:
    return _build()[0]
