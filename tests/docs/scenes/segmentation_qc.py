"""Scene for segmentation-qc: a nuclear segmentation with a few planted errors, and its reference.

Simulates a 320 x 320 px DAPI field at 0.5 µm/px with 40 nuclei about 10 µm across (radius
10 px), placed at random with small gaps (some cut by the image border), plus one pair of nuclei
pressed together. ``reference_labels`` is the true label image, as a careful hand annotation would
give it. ``labels`` is a plausible automatic result with three kinds of error planted:
- every outline 1 px wider than the truth (a boundary convention, not an error the QC should flag);
- the pressed-together pair given one label (a merge);
- one interior nucleus cut in two, 40/60, by a straight line (a split).
``image`` is the matching intensity image (blur, offset, shot and read noise, uint16).

Ground truth: 40 reference nuclei; ``labels`` holds 40 objects of which 38 match at IoU > 0.5
(the merged pair matches neither of its nuclei; the larger half of the split one still matches).
``check`` asserts those scores, that the merged label is the one merge suspect and the smaller half
the one split suspect (the wider outlines flag nothing), and that nothing is reported missed.
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
def _build(seed: int = 11) -> tuple[dict[str, object], np.ndarray]:
    rng = np.random.default_rng(seed)
    r = DIAMETER_UM / 2 / PIXEL_SIZE_UM
    truth = np.zeros(SHAPE, dtype=np.int32)
    # the pressed pair first, away from the border: two ovals whose long sides meet
    pair_centre = rng.uniform(0.3, 0.7, 2) * np.array(SHAPE)
    for number, side in enumerate((-1, 1), start=1):
        centre = pair_centre + side * np.array([0.0, 0.95 * r])
        truth[ellipse_mask(SHAPE, centre, (1.1 * r, 0.95 * r), np.pi / 2) & (truth == 0)] = number
    placed = 2
    while placed < N_NUCLEI:
        radius = r * rng.uniform(0.85, 1.15)
        aspect = rng.uniform(1.0, 1.4)
        centre = rng.uniform(-0.4 * r, np.array(SHAPE) + 0.4 * r)
        nucleus = ellipse_mask(
            SHAPE, centre, (radius * np.sqrt(aspect), radius / np.sqrt(aspect)), rng.uniform(0, np.pi)
        )
        if (
            nucleus.sum() < 0.3 * np.pi * r**2
            or (ndi.binary_dilation(nucleus, iterations=3) & (truth > 0)).any()
        ):
            continue
        placed += 1
        truth[nucleus] = placed

    signal = np.zeros(SHAPE)
    for number in range(1, placed + 1):
        signal[truth == number] = rng.uniform(500.0, 900.0)
    blurred = ndi.gaussian_filter(signal, 1.0)
    image = (rng.poisson(blurred + 30.0) + 100.0 + rng.normal(0.0, 3.0, SHAPE)).astype(np.uint16)

    labels = segmentation.expand_labels(truth, 1)
    labels[labels == 2] = 1  # merge the pressed pair
    # split the interior nucleus nearest the field centre with a straight cut 40 % across it
    interior = np.unique(segmentation.clear_border(truth))[1:]
    interior = interior[interior > 2]
    centroids = np.array(ndi.center_of_mass(truth > 0, truth, interior))
    victim = interior[np.argmin(np.abs(centroids - np.array(SHAPE) / 2).sum(axis=1))]
    ys, xs = np.nonzero(labels == victim)
    cut = np.quantile(xs, 0.4)
    labels[ys[xs < cut], xs[xs < cut]] = placed + 1
    labels = segmentation.relabel_sequential(labels)[0].astype(np.int32)

    inputs = {
        "labels": labels,
        "image": image,
        "pixel_size_um": PIXEL_SIZE_UM,
        "object_diameter_um": DIAMETER_UM,
        "reference_labels": truth,
    }
    return inputs, truth


def scene() -> dict[str, object]:
    return _build()[0]


def check(namespace: dict) -> None:
    truth, labels = _build()[1], _build()[0]["labels"]
    qc = namespace["qc"]
    n_true, n_labels = int(truth.max()), int(labels.max())
    expected_f1 = 2 * (N_NUCLEI - 2) / (n_true + n_labels)  # all but the merged pair match
    assert abs(qc["f1"] - expected_f1) < 1e-9, f"expected F1 {expected_f1:.3f}, got {qc['f1']:.3f}"
    assert abs(qc["recall"] - (N_NUCLEI - 2) / n_true) < 1e-9, (
        f"expected recall 38/40, got {qc['recall']:.3f}"
    )
    # the wider outlines (1 px) cost about 2/radius of IoU, so matches average 0.8-0.9
    assert 0.8 <= qc["mean_matched_iou"] <= 0.95, (
        f"expected mean IoU 0.8-0.95, got {qc['mean_matched_iou']:.2f}"
    )
    pair = set(np.unique(labels[(truth == 1) | (truth == 2)])) - {0}
    assert pair == set(namespace["merge_suspects"].tolist()), (
        f"expected the merged pair {sorted(pair)} as the only merge suspect, got "
        f"{namespace['merge_suspects'].tolist()}"
    )
    cover = {t: set(np.unique(labels[truth == t])) - {0} for t in range(3, n_true + 1)}
    halves = next(sorted(found) for found in cover.values() if len(found) == 2)
    smaller = min(halves, key=lambda f: np.count_nonzero(labels == f))
    assert [smaller] == namespace["split_suspects"].tolist(), (
        f"expected the smaller half of the cut nucleus, label {smaller}, as the only split "
        f"suspect, got {namespace['split_suspects'].tolist()}"
    )
    assert qc["missed"] == 0, f"expected no bright blob reported missed, got {qc['missed']}"
    assert qc["phantom"] == 0, f"expected no label reported phantom, got {qc['phantom']}"


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    ("IoU match threshold lowered to 0.3", "tp = int(np.sum(iou > 0.5))", "tp = int(np.sum(iou > 0.3))"),
    (
        "split-suspect area rule x1/4",
        "(area < expected_area_px / 2) & touches_other",
        "(area < expected_area_px / 8) & touches_other",
    ),
]
