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
diameter (µm), integrated intensity above background (corrected counts), the part of it the blur
leaves inside the label, and its clipped voxel count. ``check`` asserts each whole nucleus against
them, that the cut one is left out and the clipped one flagged, and the background level.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import ndimage as ndi

SHAPE = (28, 160, 160)
SPACING_UM = (0.5, 0.2, 0.2)
OFFSET = 100.0  # camera offset (counts)
BACKGROUND = 30.0  # background light (counts at full illumination)
CEILING = 2**12 - 1  # 12-bit camera


@cache
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
    blurred = ndi.gaussian_filter(density, psf_sigma_px, mode="constant")
    light = BACKGROUND + blurred
    r2 = ((yy - yy.mean()) ** 2 + (xx - xx.mean()) ** 2) / (yy.max() ** 2 + xx.max() ** 2) * 4
    gain = 1.0 - 0.2 * r2 / r2.max()  # illumination: 1 at the centre, 0.8 in the corners
    raw = np.clip(OFFSET + rng.poisson(gain * light), 0, CEILING).astype(np.uint16)
    clipped = raw >= CEILING
    for label in truth:
        truth[label]["clipped_voxels"] = int(np.count_nonzero(clipped & (labels == label)))
        truth[label]["integrated_in_label"] = float(blurred[labels == label].sum())
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


def check(namespace: dict) -> None:
    truth = _build()[1]
    table = namespace["measure_table"]
    labels = table["label"].tolist()
    assert labels == [1, 2, 3, 4], f"expected the 4 whole nuclei (5 is cut by the edge), got {labels}"
    # background: 30 counts of light, flatfield-corrected exactly; the median of ~10^5 voxels of
    # Poisson noise (SD 5.5) is good to about 0.1 count
    assert abs(namespace["measure_background"] - BACKGROUND) < 0.5, (
        f"expected background {BACKGROUND} counts, got {namespace['measure_background']:.2f}"
    )
    for i, label in enumerate(labels):
        want = truth[label]
        # voxel counting of a smooth ellipsoid over ~10^4 voxels: well under 1 % off
        volume = table["volume_um3"][i] / want["volume_um3"]
        assert abs(volume - 1) < 0.01, (
            f"nucleus {label}: expected volume {want['volume_um3']:.1f} µm³, got {volume:.3f}x"
        )
        diameter = table["equivalent_diameter_um"][i] / want["equivalent_diameter_um"]
        assert abs(diameter - 1) < 0.005, f"nucleus {label}: equivalent diameter off by {diameter - 1:+.2%}"
        assert table["saturated_px"][i] == want["clipped_voxels"], (
            f"nucleus {label}: expected {want['clipped_voxels']} saturated voxels, "
            f"got {table['saturated_px'][i]}"
        )
        if want["clipped_voxels"]:
            continue  # a lower bound, flagged
        # shot noise over ~10^4 voxels and the background's error: well under 1 % of the sum
        got = table["integrated_above_background"][i]
        assert abs(got / want["integrated_in_label"] - 1) < 0.01, (
            f"nucleus {label}: expected {want['integrated_in_label']:.4g} counts inside the label, "
            f"got {got:.4g}"
        )
        # and the doc's claim: a tight confocal mask misses 10-20 % of the light to blur
        assert 0.8 <= got / want["integrated_counts"] <= 0.9, (
            f"nucleus {label}: the label holds {got / want['integrated_counts']:.0%} of the light, "
            "not the 80-90 % the doc states"
        )


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    ("voxel spacing dropped", "properties=measure_props, spacing=spacing)", "properties=measure_props)"),
    (
        "background removal dropped",
        "measure_background = float(np.median(measure_img[far]))",
        "measure_background = 0.0",
    ),
]
