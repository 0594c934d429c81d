"""Scene for split-touching-objects: a nuclear label image in which touching nuclei share one label.

Simulates a 256 x 256 px DAPI field at 0.5 µm/px with nuclei about 10 µm across (radius 10 px),
one arrangement per cell of a 4 x 4 grid:
- 6 single round or oval nuclei, which must be left alone;
- 1 large single nucleus (1.7 x the typical area, like a G2 or polyploid nucleus) and 1 long
  capsule-shaped single nucleus (1.6 x the typical area, parallel sides): both are split candidates
  by size, and splitting either one is the over-splitting the procedure must refuse;
- 4 touching pairs and 1 bent chain of three, overlapping enough to leave a waist, each given one
  label.
The labels are what a threshold of the blurred, noisy image gives (rough outlines), so touching
nuclei come out as one object, as from segment-nuclei. ``image`` is the matching intensity image.

Ground truth planted: 19 nuclei in 14 labelled objects (``_build()[1]`` is the true label image).
``check`` asserts that the five clumps are cut into their 11 nuclei, each matching its true outline,
and that the large and the capsule-shaped single nuclei stay whole.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import ndimage as ndi
from skimage import measure

from ._shapes import ellipse_mask
from ._truth import best_iou

SHAPE = (256, 256)
PIXEL_SIZE_UM = 0.5
DIAMETER_UM = 10.0
CELL = 64


def _capsule(centre, half_length, half_width, angle):
    yy, xx = np.mgrid[: SHAPE[0], : SHAPE[1]]
    dy, dx = yy - centre[0], xx - centre[1]
    c, s = np.cos(angle), np.sin(angle)
    u, v = c * dx + s * dy, -s * dx + c * dy
    along = np.clip(u, -half_length, half_length)
    return (u - along) ** 2 + v**2 <= half_width**2


@cache
def _build(seed: int = 3) -> tuple[dict[str, object], np.ndarray]:
    rng = np.random.default_rng(seed)
    r = DIAMETER_UM / 2 / PIXEL_SIZE_UM
    layout = ["single"] * 6 + ["large", "capsule"] + ["pair"] * 4 + ["triple"] + ["empty"] * 3
    rng.shuffle(layout)
    nuclei: list[np.ndarray] = []
    for index, kind in enumerate(layout):
        centre = (np.array(divmod(index, 4)) + 0.5) * CELL + rng.uniform(-4, 4, 2)
        angle = rng.uniform(0, np.pi)
        if kind == "single":
            aspect = rng.uniform(1.0, 1.4)
            radius = r * rng.uniform(0.85, 1.15)
            nuclei.append(
                ellipse_mask(SHAPE, centre, (radius * np.sqrt(aspect), radius / np.sqrt(aspect)), angle)
            )
        elif kind == "large":
            nuclei.append(ellipse_mask(SHAPE, centre, (1.4 * r, 1.2 * r), angle))
        elif kind == "capsule":
            nuclei.append(_capsule(centre, 1.3 * r, 0.8 * r, angle))
        elif kind in ("pair", "triple"):
            # centre-to-centre distance: overlapping enough to touch, not so much as to lose the waist
            spread = rng.uniform(1.5, 1.8) * r
            if kind == "pair":
                centres = [
                    centre + spread / 2 * np.array([np.sin(a), np.cos(a)]) for a in (angle, angle + np.pi)
                ]
            else:  # a bent chain: the middle nucleus touches both others at 120 degrees
                centres = [centre] + [
                    centre + spread * np.array([np.sin(a), np.cos(a)]) for a in (angle, angle + 2.1)
                ]
            for c in centres:
                radius = r * rng.uniform(0.85, 1.05)
                nuclei.append(ellipse_mask(SHAPE, c, (radius * 1.1, radius / 1.1), rng.uniform(0, np.pi)))
    truth = np.zeros(SHAPE, dtype=np.int32)
    signal = np.zeros(SHAPE)
    for number, nucleus in enumerate(nuclei, start=1):
        truth[nucleus & (truth == 0)] = number
        signal = np.maximum(signal, nucleus * rng.uniform(500.0, 900.0))
    blurred = ndi.gaussian_filter(signal, 1.0)
    image = (rng.poisson(blurred + 30.0) + 100.0 + rng.normal(0.0, 3.0, SHAPE)).astype(np.uint16)
    # labels as a threshold at half the nuclear brightness gives them: rough edges, touching = merged
    mask = ndi.gaussian_filter(image.astype(float), 1.0) > 100.0 + 30.0 + 220.0
    labels = measure.label(ndi.binary_fill_holes(mask), connectivity=1).astype(np.int32)
    inputs = {
        "labels": labels,
        "image": image,
        "pixel_size_um": PIXEL_SIZE_UM,
        "object_diameter_um": DIAMETER_UM,
    }
    return inputs, truth


def scene() -> dict[str, object]:
    return _build()[0]


def check(namespace: dict) -> None:
    truth = _build()[1]
    found = namespace["split_labels"]
    assert namespace["n_split"] == 5, (
        f"expected the 4 pairs and the chain of three cut, {namespace['n_split']} were"
    )
    assert int(found.max()) == int(truth.max()), (
        f"expected {int(truth.max())} objects after splitting, got {int(found.max())}"
    )
    best = best_iou(found, truth)
    # the input outlines come from a threshold of a blurred, noisy image and the cut follows the
    # waist of the outline: a pixel or two off along each edge, IoU about 0.8 for a 10 px radius
    ious = np.array([iou for _, iou in best.values()])
    assert ious.min() > 0.6, (
        f"expected every nucleus in its own piece (IoU > 0.6, median >= 0.8); got min {ious.min():.2f}, "
        f"median {np.median(ious):.2f}"
    )
    assert np.median(ious) >= 0.8, (
        f"expected every nucleus in its own piece (IoU > 0.6, median >= 0.8); got min {ious.min():.2f}, "
        f"median {np.median(ious):.2f}"
    )
    assert len({f for f, _ in best.values()}) == len(best), "expected no piece shared by two nuclei"


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    ("neck rule loosened past 1 (every cut kept)", "neck_ratio = 0.9", "neck_ratio = 1.2"),
    (
        "marker spacing x4",
        "min_distance_px = max(int(round(radius_px / 2)), 1)",
        "min_distance_px = max(int(round(radius_px * 2)), 1)",
    ),
]
