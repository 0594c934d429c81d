"""Scene for segment-3d: an anisotropic confocal stack of nuclei, with touching pairs.

A (z, y, x) = 30 x 160 x 160 stack at spacing (1.0, 0.25, 0.25) µm, 4x coarser in z than in y
and x. 14 ellipsoidal nuclei of 7-9 µm (semi-axes drawn per nucleus, aspect up to 1.3, a random
orientation in the y-x plane) in two loose layers; four pairs touch, their centres 0.8-0.9 of
their summed radii apart, so a neck joins them. Each nucleus has a dim nucleolus. Blurred by an
anisotropic Gaussian PSF (SD 0.12 µm laterally, 0.5 µm axially), on a camera offset with shot
and read noise.

Ground truth: the label image (``TRUTH["labels"]``), one id per nucleus, and the voxel volume.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage as ndi

SHAPE = (30, 160, 160)
SPACING_UM = (1.0, 0.25, 0.25)
DIAMETER_UM = 8.0
TRUTH: dict[str, object] = {}


def _ellipsoid(centre_um, semi_um, angle):
    zz, yy, xx = (np.arange(n) * s for n, s in zip(SHAPE, SPACING_UM, strict=True))
    dz = zz[:, None, None] - centre_um[0]
    dy = yy[None, :, None] - centre_um[1]
    dx = xx[None, None, :] - centre_um[2]
    c, s = np.cos(angle), np.sin(angle)
    u, v = c * dx + s * dy, -s * dx + c * dy
    return (u / semi_um[2]) ** 2 + (v / semi_um[1]) ** 2 + (dz / semi_um[0]) ** 2 <= 1.0


def _build(seed: int = 3) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    extent = np.array(SHAPE) * np.array(SPACING_UM)
    labels = np.zeros(SHAPE, np.int32)
    signal = np.zeros(SHAPE)
    placed: list[tuple[np.ndarray, float]] = []
    pairs = 0
    while len(placed) < 14:
        radius = rng.uniform(7.0, 9.0) / 2
        if pairs < 4 and placed and len(placed) % 2 == 1:  # a partner touching the last nucleus
            anchor, r0 = placed[-1]
            direction = rng.normal(size=3) * np.array([0.3, 1, 1])
            direction /= np.linalg.norm(direction)
            centre = anchor + direction * rng.uniform(0.8, 0.9) * (r0 + radius)
            touching = True
        else:
            centre = rng.uniform([3, -2, -2], extent - [3, -2, -2])
            touching = False
        others = [(c, r) for c, r in placed[:-1]] if touching else placed
        if any(np.linalg.norm(centre - c) < r + radius + 0.75 for c, r in others):
            continue
        aspect = rng.uniform(1.0, 1.3)
        semi = (radius * 0.9, radius * np.sqrt(aspect), radius / np.sqrt(aspect))
        nucleus = _ellipsoid(centre, semi, rng.uniform(0, np.pi)) & (labels == 0)
        if nucleus.sum() < 0.3 * 4 / 3 * np.pi * radius**3 / np.prod(SPACING_UM):
            continue
        placed.append((centre, radius))
        pairs += touching
        labels[nucleus] = len(placed)
        nucleolus = _ellipsoid(centre + rng.normal(0, 0.5, 3), (1.2, 1.2, 1.2), 0.0)
        signal[nucleus] = rng.uniform(400, 900)
        signal[nucleus & nucleolus] *= 0.35
    blurred = ndi.gaussian_filter(signal, (0.5 / SPACING_UM[0], 0.12 / SPACING_UM[1], 0.12 / SPACING_UM[2]))
    counts = rng.poisson(blurred + 30.0) + 100.0 + rng.normal(0, 3, SHAPE)
    TRUTH.update(labels=labels, pairs=pairs)
    return {
        "stack": np.clip(counts, 0, 65535).astype(np.uint16),
        "spacing_um": SPACING_UM,
        "object_diameter_um": DIAMETER_UM,
    }


def scene() -> dict[str, object]:
    return _build()


def _cut(labels):
    faces = np.concatenate(
        [labels[[0, -1]].ravel(), labels[:, [0, -1]].ravel(), labels[:, :, [0, -1]].ravel()]
    )
    return set(np.unique(faces)) - {0}


def _band(volume_um3):
    """IoU of an object of this volume with itself shrunk by half a plane in z and one pixel in y and x.

    The boundary error the stack's sampling allows: Otsu's level on a blurred edge lands within
    about half a z step axially and one pixel laterally of the true edge.
    """
    r = np.cbrt(3 * volume_um3 / (4 * np.pi))
    return (1 - SPACING_UM[0] / 2 / r) * (1 - SPACING_UM[2] / r) ** 2


def check(namespace: dict) -> None:
    truth, found = TRUTH["labels"], namespace["seg3d_labels"]
    voxel_um3 = float(np.prod(SPACING_UM))
    n_truth, n_found = len(np.unique(truth)) - 1, len(np.unique(found)) - 1
    assert n_found == n_truth, (
        f"expected {n_truth} nuclei ({TRUTH['pairs']} touching pairs split), the procedure found {n_found}"
    )
    table = namespace["seg3d_table"]
    whole = len(set(np.unique(truth)) - {0} - _cut(truth))
    assert table["label"].size >= whole - 1, (
        f"expected about {whole} whole nuclei in the table, got {table['label'].size}"
    )
    for row, label in enumerate(table["label"]):
        true_id = np.bincount(truth[found == label]).argmax()
        assert true_id > 0, f"object {label} lies on background, not on a planted nucleus"
        true, hit = truth == true_id, found == label
        true_volume = np.count_nonzero(true) * voxel_um3
        floor = _band(true_volume)
        iou = np.count_nonzero(true & hit) / np.count_nonzero(true | hit)
        assert iou >= floor, (
            f"object {label}: expected IoU with nucleus {true_id} >= {floor:.2f}, got {iou:.2f}"
        )
        got = table["volume_um3"][row]
        assert abs(got / true_volume - 1) <= 1 - floor, (
            f"object {label}: expected volume {true_volume:.0f} µm³ within {1 - floor:.0%}, got {got:.0f}"
        )
