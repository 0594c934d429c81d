"""Scene for segmentation-qc: a nuclear segmentation with a few planted errors, and its reference.

Simulates a 320 x 320 px DAPI field at 0.5 µm/px with 40 nuclei about 10 µm across (radius
10 px), placed at random with small gaps (some cut by the image border), plus one pair of nuclei
pressed together. ``reference_labels`` is the true label image, as a careful hand annotation would
give it. ``labels`` is a plausible automatic result with three kinds of error planted:
- every outline 1 px wider than the truth (a boundary convention, not an error the QC should flag);
- the pressed-together pair given one label (a merge);
- one interior nucleus cut in two, 30/70, by a straight line (a split).
``image`` is the matching intensity image (blur, offset, shot and read noise, uint16).

Ground truth: 40 reference nuclei; ``labels`` holds 40 objects of which 38 match at IoU > 0.5
(the merged pair matches neither of its nuclei; the larger half of the split one still matches).
``check`` asserts those scores, that the merged label is the one merge suspect and the smaller half
the one split suspect (the wider outlines flag nothing), that nothing is reported missed, and the
median area against the true areas in µm². The variants drop the reference and change the pixel
size and the light; the refusals state a wrong size, lose half the nuclei, or score against the
annotation of another field.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import ndimage as ndi
from skimage import segmentation

from ._shapes import ellipse_mask

SHAPE = (320, 320)
PIXEL_SIZE_UM = 0.5
DIAMETER_UM = 10.0
N_NUCLEI = 40


@cache
def _build(
    seed: int = 11, *, pixel_size_um: float = PIXEL_SIZE_UM, light: float = 1.0, top: int = 65535
) -> tuple[dict[str, object], np.ndarray]:
    """``light`` scales the image's photons; ``top`` is the camera's largest count (4095: 12 bits)."""
    rng = np.random.default_rng(seed)
    r = DIAMETER_UM / 2 / pixel_size_um
    shape = (round(32 * r),) * 2  # 320 px at 0.5 µm/px: the same field of view at any pixel size
    truth = np.zeros(shape, dtype=np.int32)
    # the pressed pair first, away from the border: two ovals whose long sides meet
    pair_centre = rng.uniform(0.3, 0.7, 2) * np.array(shape)
    for number, side in enumerate((-1, 1), start=1):
        centre = pair_centre + side * np.array([0.0, 0.95 * r])
        truth[ellipse_mask(shape, centre, (1.1 * r, 0.95 * r), np.pi / 2) & (truth == 0)] = number
    placed = 2
    while placed < N_NUCLEI:
        radius = r * rng.uniform(0.85, 1.15)
        aspect = rng.uniform(1.0, 1.4)
        centre = rng.uniform(-0.4 * r, np.array(shape) + 0.4 * r)
        nucleus = ellipse_mask(
            shape, centre, (radius * np.sqrt(aspect), radius / np.sqrt(aspect)), rng.uniform(0, np.pi)
        )
        if (
            nucleus.sum() < 0.3 * np.pi * r**2
            or (ndi.binary_dilation(nucleus, iterations=max(round(0.3 * r), 2)) & (truth > 0)).any()
        ):
            continue
        placed += 1
        truth[nucleus] = placed

    signal = np.zeros(shape)
    for number in range(1, placed + 1):
        signal[truth == number] = rng.uniform(500.0, 900.0)
    blurred = ndi.gaussian_filter(signal, 1.0)
    counts = rng.poisson(light * (blurred + 30.0)) + 100.0 + rng.normal(0.0, 3.0, shape)
    image = np.clip(counts, 0, top).astype(np.uint16)

    labels = segmentation.expand_labels(truth, 1)
    labels[labels == 2] = 1  # merge the pressed pair
    # split the interior nucleus nearest the field centre with a straight cut 30 % across it
    interior = np.unique(segmentation.clear_border(truth))[1:]
    interior = interior[interior > 2]
    centroids = np.array(ndi.center_of_mass(truth > 0, truth, interior))
    victim = interior[np.argmin(np.abs(centroids - np.array(shape) / 2).sum(axis=1))]
    ys, xs = np.nonzero(labels == victim)
    cut = np.quantile(xs, 0.3)
    labels[ys[xs < cut], xs[xs < cut]] = placed + 1
    labels = segmentation.relabel_sequential(labels)[0].astype(np.int32)

    inputs = {
        "labels": labels,
        "image": image,
        "pixel_size_um": pixel_size_um,
        "object_diameter_um": DIAMETER_UM,
        "reference_labels": truth,
    }
    return inputs, truth


def scene() -> dict[str, object]:
    return _build()[0]


def _check_against(namespace: dict, inputs: dict, truth: np.ndarray, scored: bool = True) -> None:
    labels = inputs["labels"]
    qc = namespace["qc_report"]
    n_true, n_labels = int(truth.max()), int(labels.max())
    if scored:
        expected_f1 = 2 * (N_NUCLEI - 2) / (n_true + n_labels)  # all but the merged pair match
        assert abs(qc["f1"] - expected_f1) < 1e-9, f"expected F1 {expected_f1:.3f}, got {qc['f1']:.3f}"
        assert abs(qc["recall"] - (N_NUCLEI - 2) / n_true) < 1e-9, (
            f"expected recall 38/40, got {qc['recall']:.3f}"
        )
        # the wider outlines (1 px) cost about 2/radius of IoU, so matches average 0.8-0.9
        assert 0.75 <= qc["mean_matched_iou"] <= 0.95, (
            f"expected mean IoU 0.75-0.95, got {qc['mean_matched_iou']:.2f}"
        )
    else:
        assert "f1" not in qc, "expected no F1 without a reference"
    pair = set(np.unique(labels[(truth == 1) | (truth == 2)])) - {0}
    assert pair == set(namespace["qc_merge_suspects"].tolist()), (
        f"expected the merged pair {sorted(pair)} as the only merge suspect, got "
        f"{namespace['qc_merge_suspects'].tolist()}"
    )
    cover = {t: set(np.unique(labels[truth == t])) - {0} for t in range(3, n_true + 1)}
    halves = next(sorted(found) for found in cover.values() if len(found) == 2)
    smaller = min(halves, key=lambda f: np.count_nonzero(labels == f))
    assert [smaller] == namespace["qc_split_suspects"].tolist(), (
        f"expected the smaller half of the cut nucleus, label {smaller}, as the only split "
        f"suspect, got {namespace['qc_split_suspects'].tolist()}"
    )
    assert qc["missed"] == 0, f"expected no bright blob reported missed, got {qc['missed']}"
    assert qc["phantom"] == 0, f"expected no label reported phantom, got {qc['phantom']}"
    # in physical units: the median of the objects the labels hold clear of the border (the merged
    # pair one object, the cut nucleus two), counted here from the planted labels, over a 10 µm
    # disc; the truth's median is another set (seed 26: a 13 % gap at it, one object moved it)
    labels = inputs["labels"]
    interior = np.unique(segmentation.clear_border(labels))[1:]
    area_um2 = np.median(np.bincount(labels.ravel())[interior]) * inputs["pixel_size_um"] ** 2
    expected = area_um2 / (np.pi * (DIAMETER_UM / 2) ** 2)
    assert abs(qc["median_area_ratio"] / expected - 1) < 0.02, (
        f"expected a median area ratio of {expected:.2f} (the labels' interior objects in µm² over "
        f"a {DIAMETER_UM} µm disc), got {qc['median_area_ratio']:.2f}"
    )


def check(namespace: dict) -> None:
    _check_against(namespace, *_build())


def _variant(scored: bool = True, **options):
    def make() -> dict[str, object]:
        inputs = _build(**options)[0]
        return inputs if scored else {**inputs, "reference_labels": None}

    def check_variant(namespace: dict) -> None:
        _check_against(namespace, *_build(**options), scored=scored)

    return make, check_variant


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""
    return _variant(seed=seed)


VARIANTS = {
    "no reference annotation (the image-only checks)": _variant(scored=False),
    "0.65 µm pixels (10x)": _variant(pixel_size_um=0.65, seed=12),
    "0.325 µm pixels (20x)": _variant(pixel_size_um=0.325, seed=13),
    "12-bit camera, a fifth of the light": _variant(light=0.2, top=4095, seed=14),
    # the check once compared the labels' median with the truth's, across a 13 % gap at it
    "seed 26": _variant(seed=26),
}


def _half_missed() -> dict[str, object]:
    """No reference, and a segmentation that lost every other nucleus (a threshold set too high)."""
    inputs, truth = _build()
    labels = np.where(truth % 2 == 1, truth, 0)
    return {**inputs, "labels": labels, "reference_labels": None}


REFUSALS = {
    "stated diameter twice the real one": (
        lambda: {**_build()[0], "object_diameter_um": 2 * DIAMETER_UM},
        r"median object area is 0\.\d+ x expected",
    ),
    "pixel size in nm (500 for 0.5 µm)": (
        lambda: {**_build()[0], "pixel_size_um": 500.0},
        r"µm, not nm",
    ),
    "half the nuclei unlabelled, no reference": (_half_missed, r"bright blobs have no label"),
    "annotation of another field": (
        lambda: {**_build()[0], "reference_labels": _build(seed=99)[1]},
        r"F1 at IoU 0.5 is 0\.[0-4]",
    ),
}

# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "median area over every object, border ones (cut) included",
        "np.percentile(qc_area[qc_inside], [25, 50, 75])",
        "np.percentile(qc_area, [25, 50, 75])",
    ),
    (
        "IoU match threshold lowered to 0.3",
        "qc_tp = int(np.sum(qc_iou > qc_match_iou))",
        "qc_tp = int(np.sum(qc_iou > 0.3))",
    ),
    (
        "split-suspect area rule x1/4",
        "(qc_area < qc_area_px / 2) & qc_touches_other",
        "(qc_area < qc_area_px / 8) & qc_touches_other",
    ),
    (
        "expected area from the diameter, not the radius (unit conversion)",
        "qc_radius_px = object_diameter_um / 2 / pixel_size_um",
        "qc_radius_px = object_diameter_um / pixel_size_um",
    ),
    (
        "a label is phantom unless wholly on the foreground (not half)",
        'qc_foreground, qc_labels, qc_props["label"])) < 0.5))',
        'qc_foreground, qc_labels, qc_props["label"])) < 1.01))',
    ),
    (
        "touching neighbours never found: the halves of a cut nucleus go unflagged",
        "qc_meet = (qc_left != qc_right) & (qc_left > 0) & (qc_right > 0)",
        "qc_meet = (qc_left != qc_right) & (qc_left > 0) & (qc_right < 0)",
    ),
]
