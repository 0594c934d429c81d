"""Scene for segment-3d: an anisotropic confocal stack of nuclei, with touching pairs.

A (z, y, x) = 30 x 160 x 160 stack at spacing (1.0, 0.25, 0.25) µm, 4x coarser in z than in y
and x. 14 ellipsoidal nuclei of 7-9 µm (semi-axes drawn per nucleus, aspect up to 1.3, a random
orientation in the y-x plane) in two loose layers; four pairs touch, their centres 0.8-0.9 of
their summed reaches along the line between them apart, so a neck joins them, and each pair keeps a
waist at the stack's sampling (a pair pressed along z has none at a 1 µm step: it is redrawn, as is
a nucleus mostly outside the stack). The rest stay clear of each other. Each nucleus has a dim
nucleolus, some cut open by a face of the stack. Blurred by an anisotropic Gaussian PSF (SD 0.12 µm
laterally, 0.5 µm axially), on a camera offset with shot and read noise.

Ground truth: the label image (``TRUTH["labels"]``), one id per nucleus, and the voxel volume.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import ndimage as ndi

from ._stardist_data import sample

SHAPE = (30, 160, 160)
SPACING_UM = (1.0, 0.25, 0.25)
DIAMETER_UM = 8.0
TRUTH: dict[str, object] = {}


def _reach(semi_um, angle, direction):
    """Distance (µm) from an ellipsoid's centre to its surface along the unit vector ``direction``."""
    c, s = np.cos(angle), np.sin(angle)
    dz, dy, dx = direction
    u, v = c * dx + s * dy, -s * dx + c * dy
    return 1 / np.sqrt((u / semi_um[2]) ** 2 + (v / semi_um[1]) ** 2 + (dz / semi_um[0]) ** 2)


def _ellipsoid(centre_um, semi_um, angle, shape=SHAPE, spacing=SPACING_UM):
    zz, yy, xx = (np.arange(n) * s for n, s in zip(shape, spacing, strict=True))
    dz = zz[:, None, None] - centre_um[0]
    dy = yy[None, :, None] - centre_um[1]
    dx = xx[None, None, :] - centre_um[2]
    c, s = np.cos(angle), np.sin(angle)
    u, v = c * dx + s * dy, -s * dx + c * dy
    return (u / semi_um[2]) ** 2 + (v / semi_um[1]) ** 2 + (dz / semi_um[0]) ** 2 <= 1.0


def _waist(first, second, spacing):
    """How deep the waist between two touching nuclei is, as a fraction of the shallower one's depth.

    On the distance map of their union (µm): how far the highest path between their two maxima dips
    below the lower maximum. Two spheres 1.6 radii apart leave 0.4; a pair with no waist, 0.
    """
    box = ndi.find_objects((first | second).astype(np.uint8))[0]
    box = tuple(slice(max(b.start - 1, 0), b.stop + 1) for b in box)
    first, second = first[box], second[box]
    distance = ndi.distance_transform_edt(first | second, sampling=spacing)
    peaks = [
        np.unravel_index(np.argmax(np.where(part, distance, -1)), distance.shape) for part in (first, second)
    ]
    low = min(distance[peak] for peak in peaks)
    levels = np.unique(distance[distance > 0])
    lo, hi = 0, np.searchsorted(levels, low, side="right") - 1  # the saddle is the highest level joining both
    while lo < hi:
        mid = (lo + hi + 1) // 2
        joined = ndi.label(distance >= levels[mid], structure=np.ones((3, 3, 3)))[0]
        lo, hi = (mid, hi) if joined[peaks[0]] == joined[peaks[1]] else (lo, mid - 1)
    return (low - levels[lo]) / low


@cache
def _build(seed: int = 3, spacing: tuple = SPACING_UM, photons: float = 1.0) -> tuple[dict, dict]:
    """The stack and its truth; ``spacing`` changes the sampling of the same 30 x 40 x 40 µm volume
    (the same nuclei, unless a pair has no waist at that sampling and is redrawn), ``photons`` scales
    the signal (0.015: about 8 photons per voxel in a nucleus over 0.5 of background)."""
    rng = np.random.default_rng(seed)
    shape = tuple(round(e / s) for e, s in zip((30.0, 40.0, 40.0), spacing, strict=True))
    extent = np.array(shape) * np.array(spacing)
    labels = np.zeros(shape, np.int32)
    signal = np.zeros(shape)
    placed: list[tuple[np.ndarray, tuple, float]] = []
    pairs = 0
    while len(placed) < 14:
        radius = rng.uniform(7.0, 9.0) / 2
        touching = pairs < 4 and len(placed) % 2 == 1  # a partner touching the last nucleus
        if touching:
            direction = rng.normal(size=3) * np.array([0.3, 1, 1])
            direction /= np.linalg.norm(direction)
            closeness = rng.uniform(0.8, 0.9)
        else:
            centre = rng.uniform([3, -2, -2], extent - [3, -2, -2])
        aspect = rng.uniform(1.0, 1.3)
        semi = (radius * 0.9, radius * np.sqrt(aspect), radius / np.sqrt(aspect))
        angle = rng.uniform(0, np.pi)
        if touching:  # surfaces overlap along the line of centres, as spheres 0.8-0.9 radii apart
            anchor, anchor_semi, anchor_angle = placed[-1]
            reach = _reach(anchor_semi, anchor_angle, direction) + _reach(semi, angle, direction)
            centre = anchor + direction * closeness * reach
        others = placed[:-1] if touching else placed
        if any(np.linalg.norm(centre - c) < max(semi) + max(s) + 0.75 for c, s, _ in others):
            continue
        nucleus = _ellipsoid(centre, semi, angle, shape, spacing) & (labels == 0)
        if nucleus.sum() < 0.5 * 4 / 3 * np.pi * radius**3 / np.prod(spacing):
            continue  # mostly outside the stack: a sliver under a quarter of a nucleus is debris to the doc
        if touching and _waist(labels == len(placed), nucleus, spacing) < 0.25:
            continue  # pressed along a short or the z axis: no waist at this sampling, one object
        placed.append((centre, semi, angle))
        pairs += touching
        labels[nucleus] = len(placed)
        nucleolus = _ellipsoid(centre + rng.normal(0, 0.5, 3), (1.2, 1.2, 1.2), 0.0, shape, spacing)
        signal[nucleus] = rng.uniform(400, 900)
        signal[nucleus & nucleolus] *= 0.35
    blurred = ndi.gaussian_filter(signal, (0.5 / spacing[0], 0.12 / spacing[1], 0.12 / spacing[2]))
    counts = rng.poisson((blurred + 30.0) * photons) + 100.0 + rng.normal(0, 3, shape)
    truth = {"labels": labels, "pairs": pairs, "spacing": spacing}
    inputs = {
        "stack": np.clip(counts, 0, 65535).astype(np.uint16),
        "spacing_um": spacing,
        "object_diameter_um": DIAMETER_UM,
    }
    return inputs, truth


def scene() -> dict[str, object]:
    inputs, truth = _build()
    TRUTH.update(truth)
    return inputs


def _cut(labels):
    faces = np.concatenate(
        [labels[[0, -1]].ravel(), labels[:, [0, -1]].ravel(), labels[:, :, [0, -1]].ravel()]
    )
    return set(np.unique(faces)) - {0}


def _band(volume_um3, spacing=SPACING_UM):
    """IoU of an object of this volume with itself shrunk by half a plane in z and one pixel in y and x.

    The boundary error the stack's sampling allows: Otsu's level on a blurred edge lands within
    about half a z step axially and one pixel laterally of the true edge.
    """
    r = np.cbrt(3 * volume_um3 / (4 * np.pi))
    return (1 - spacing[0] / 2 / r) * (1 - spacing[2] / r) ** 2


def check(namespace: dict, planted: dict | None = None) -> None:
    planted = TRUTH if planted is None else planted
    truth, found, spacing = planted["labels"], namespace["seg3d_labels"], planted["spacing"]
    voxel_um3 = float(np.prod(spacing))
    n_truth, n_found = len(np.unique(truth)) - 1, len(np.unique(found)) - 1
    assert n_found == n_truth, (
        f"expected {n_truth} nuclei ({planted['pairs']} touching pairs split), the procedure found {n_found}"
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
        floor = _band(true_volume, spacing)
        iou = np.count_nonzero(true & hit) / np.count_nonzero(true | hit)
        assert iou >= floor, (
            f"object {label}: expected IoU with nucleus {true_id} >= {floor:.2f}, got {iou:.2f}"
        )
        got = table["volume_um3"][row]
        assert abs(got / true_volume - 1) <= 1 - floor, (
            f"object {label}: expected volume {true_volume:.0f} µm³ within {1 - floor:.0%}, got {got:.0f}"
        )
        true_diameter = np.cbrt(6 * true_volume / np.pi)
        assert abs(table["diameter_um"][row] / true_diameter - 1) <= (1 - floor) / 3 + 0.02, (
            f"object {label}: expected an equivalent diameter of {true_diameter:.2f} µm, "
            f"got {table['diameter_um'][row]:.2f}"
        )


def _variant(**kwargs):
    return (lambda: _build(**kwargs)[0], lambda namespace: check(namespace, _build(**kwargs)[1]))


VARIANTS = {
    # the smoothing of radius / 8 merged a small nucleus pressed on a large one at these samplings
    "z step 0.5 µm (2x the pixel)": _variant(spacing=(0.5, 0.25, 0.25)),
    "z step 1.5 µm (6x the pixel)": _variant(spacing=(1.5, 0.25, 0.25)),
    "isotropic 0.5 µm voxels": _variant(spacing=(0.5, 0.5, 0.5)),
    # other seeds (issue: 6 of seeds 1-10 came out wrong, silently). Seed 1: a nucleolus cut open by a face
    # of the stack was left unfilled, hollowed the distance map and merged its nucleus with its neighbour
    "seed 1": _variant(seed=1),
    # seed 10: two voxels tying for one nucleus's distance maximum made two seeds and split it
    "seed 10": _variant(seed=10),
    # seed 2 at 0.5 µm: seeds a fifth of a radius deep merged a pair whose waist the threshold made shallow
    "isotropic 0.5 µm voxels, seed 2": _variant(seed=2, spacing=(0.5, 0.5, 0.5)),
}


def _empty() -> dict[str, object]:
    rng = np.random.default_rng(4)
    noise = rng.poisson(30.0, SHAPE) + 100.0 + rng.normal(0, 3, SHAPE)
    return {"stack": noise.astype(np.uint16), "spacing_um": SPACING_UM, "object_diameter_um": DIAMETER_UM}


def _stardist_stack() -> dict[str, object]:
    """stardist's img3d: 51 nuclei packed in 31 x 61 x 57 voxels. The stack carries no calibration;
    its nuclei span ~7 planes and ~15 px, so a z step twice the pixel is assumed (1.0, 0.5, 0.5 µm)."""
    return {"stack": sample("img3d"), "spacing_um": (1.0, 0.5, 0.5), "object_diameter_um": 7.5}


# 8 photons per voxel in a nucleus (issue 16: once refused by a single-voxel contrast gate, then run):
# right on 23 of seeds 1-30, a touching pair merged silently on the other 7 (noise moved a dim nucleus's
# top, bottom or neck by a plane); with more light (photons 0.03-0.05) seeds 20, 28 and 37 still did, the
# dimmest nucleus 4.1-6.8 noise SDs above the threshold (a gate at 6 let seed 20 at 0.05 through)
_FEW_PHOTONS = {
    "8 photons per voxel in a nucleus, seed 5": _variant(seed=5, photons=0.015),
    "8 photons per voxel in a nucleus, seed 28, 2.7x the light": _variant(seed=28, photons=0.04),
    "8 photons per voxel in a nucleus, seed 20, 3.3x the light": _variant(seed=20, photons=0.05),
}

REFUSALS = {
    "an empty stack (noise only)": (_empty, r"noise SDs above background"),
    # 4 planes per nucleus: touching pairs merge in z
    "z step 2 µm for 8 µm nuclei": (lambda: _build(spacing=(2.0, 0.25, 0.25))[0], r"fewer than 5 planes"),
    "spacing given in nm": (
        lambda: {**scene(), "spacing_um": tuple(1000 * s for s in SPACING_UM)},
        r"spacing_um \(µm, z first\)",
    ),
    # the real annotated stack: dense packing, outside the doc's validity (F1 0.28 without this gate)
    "densely packed nuclei (stardist img3d, 51 nuclei)": (_stardist_stack, r"densely packed"),
    **{name: (make, r"noise SDs above the threshold") for name, (make, _) in _FEW_PHOTONS.items()},
}
# what the doc would have returned on a refused scene: a gate's mutation runs there and must come out wrong
REFUSAL_TRUTH = {name: truth_check for name, (_, truth_check) in _FEW_PHOTONS.items()}

MUTATIONS = [
    (
        "smoothing of radius / 8 (fills the necks)",
        "seg3d_sigma_px = (seg3d_radius_um / 16) / seg3d_spacing",
        "seg3d_sigma_px = (seg3d_radius_um / 8) / seg3d_spacing",
        "z step 0.5 µm (2x the pixel)",
    ),
    (
        "equivalent diameter from the radius formula",
        'np.cbrt(6 * seg3d_table["volume_um3"] / np.pi)',
        'np.cbrt(3 * seg3d_table["volume_um3"] / (4 * np.pi))',
    ),
    (
        "distance transform in voxels, not µm",
        "ndi.distance_transform_edt(seg3d_mask, sampling=seg3d_spacing)",
        "ndi.distance_transform_edt(seg3d_mask)",
        "z step 1.5 µm (6x the pixel)",
    ),
    (
        "voxel volume taken as 1 µm³",
        "seg3d_voxel_um3 = float(np.prod(seg3d_spacing))",
        "seg3d_voxel_um3 = 1.0",
    ),
    (
        "dimmest object's margin of 6 noise SDs (a pair merged at 6.3)",
        "assert seg3d_margin >= 8",
        "assert seg3d_margin >= 6",
        "8 photons per voxel in a nucleus, seed 20, 3.3x the light",
    ),
    (
        "dimmest object's margin counted from the background, not the threshold",
        "float(seg3d_dimmest - seg3d_threshold)",
        "float(seg3d_dimmest - np.median(seg3d_bg))",
        "8 photons per voxel in a nucleus, seed 28, 2.7x the light",
    ),
    (
        "seeds from the peak voxels only (h_maxima: voxels tying for a peak make two seeds)",
        "seg3d_label_fn(local_maxima(seg3d_tops) & seg3d_mask)",
        "seg3d_label_fn((seg3d_distance - seg3d_tops >= seg3d_h_um) & seg3d_mask)",
        "seed 10",
    ),
    (
        "holes a face of the stack cuts open left unfilled",
        "seg3d_holes = (seg3d_pockets > 0) & (seg3d_pocket_um3 <= seg3d_hole_um3)[seg3d_pockets]",
        "seg3d_holes = ndi.binary_fill_holes(seg3d_mask) & ~seg3d_mask",
        "seed 1",
    ),
    (
        "seed depth of a fifth of a radius (the old rule)",
        "seg3d_h_um = seg3d_radius_um / 8",
        "seg3d_h_um = seg3d_radius_um / 5",
        "isotropic 0.5 µm voxels, seed 2",
    ),
]
