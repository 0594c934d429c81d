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
with its share of the given foreground in µm², and that the large and the capsule-shaped single
nuclei stay whole; an object the doc leaves to the user (``split_undecided``, at most 3) is not
held against it. The variants
change the sampling (0.65 and 0.25 µm pixels), the outlines' roughness (low light) and drop the
clumps; the refusals give it a dense colony, a pixel size in nm and no objects.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import ndimage as ndi
from skimage import measure
from skimage.segmentation import expand_labels

from ._shapes import ellipse_mask
from ._truth import best_iou

PIXEL_SIZE_UM = 0.5
DIAMETER_UM = 10.0
CELL = 64


LAYOUT = ("single",) * 6 + ("large", "capsule") + ("pair",) * 4 + ("triple",) + ("empty",) * 3


def _capsule(shape, centre, half_length, half_width, angle):
    yy, xx = np.mgrid[: shape[0], : shape[1]]
    dy, dx = yy - centre[0], xx - centre[1]
    c, s = np.cos(angle), np.sin(angle)
    u, v = c * dx + s * dy, -s * dx + c * dy
    along = np.clip(u, -half_length, half_length)
    return (u - along) ** 2 + v**2 <= half_width**2


@cache
def _build(
    seed: int = 3,
    *,
    pixel_size_um: float = PIXEL_SIZE_UM,
    layout: tuple[str, ...] = LAYOUT,
    light: float = 1.0,
) -> tuple[dict[str, object], np.ndarray]:
    """One arrangement of ``layout`` per cell of a 4 x 4 grid, nuclei ``DIAMETER_UM`` across at
    ``pixel_size_um``; ``light`` scales the photons of the image the labels are thresholded from
    (fewer photons, rougher outlines)."""
    rng = np.random.default_rng(seed)
    r = DIAMETER_UM / 2 / pixel_size_um
    cell = 6.4 * r  # the 64 px grid cell at 0.5 µm/px
    shape = (round(4 * cell),) * 2
    layout = list(layout)
    rng.shuffle(layout)
    nuclei: list[np.ndarray] = []
    for index, kind in enumerate(layout):
        centre = (np.array(divmod(index, 4)) + 0.5) * cell + rng.uniform(-0.4, 0.4, 2) * r
        angle = rng.uniform(0, np.pi)
        if kind == "single":
            aspect = rng.uniform(1.0, 1.4)
            radius = r * rng.uniform(0.85, 1.15)
            nuclei.append(
                ellipse_mask(shape, centre, (radius * np.sqrt(aspect), radius / np.sqrt(aspect)), angle)
            )
        elif kind == "large":
            nuclei.append(ellipse_mask(shape, centre, (1.4 * r, 1.2 * r), angle))
        elif kind == "capsule":
            nuclei.append(_capsule(shape, centre, 1.3 * r, 0.8 * r, angle))
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
                nuclei.append(ellipse_mask(shape, c, (radius * 1.1, radius / 1.1), rng.uniform(0, np.pi)))
    truth = np.zeros(shape, dtype=np.int32)
    signal = np.zeros(shape)
    for number, nucleus in enumerate(nuclei, start=1):
        truth[nucleus & (truth == 0)] = number
        signal = np.maximum(signal, nucleus * rng.uniform(500.0, 900.0))
    image = _expose(signal, rng, light)
    inputs = {
        "labels": _threshold(image, light),
        "image": image,
        "pixel_size_um": pixel_size_um,
        "object_diameter_um": DIAMETER_UM,
    }
    return inputs, truth


def _expose(signal: np.ndarray, rng: np.random.Generator, light: float) -> np.ndarray:
    blurred = ndi.gaussian_filter(signal, 1.0)
    return (rng.poisson(light * (blurred + 30.0)) + 100.0 + rng.normal(0.0, 3.0, signal.shape)).astype(
        np.uint16
    )


def _threshold(image: np.ndarray, light: float) -> np.ndarray:
    """Labels as a threshold at half the nuclear brightness gives them: rough edges, touching = merged."""
    mask = ndi.gaussian_filter(image.astype(float), 1.0) > 100.0 + light * (30.0 + 220.0)
    return measure.label(ndi.binary_fill_holes(mask), connectivity=1).astype(np.int32)


def scene() -> dict[str, object]:
    return _build()[0]


def _check_against(namespace: dict, truth: np.ndarray, clumps: int, pixel_size_um: float) -> None:
    found = namespace["split_labels"]
    # an object whose waist the doc says it cannot judge goes to the user: right if it is flagged,
    # not counted against the doc; a doc that flagged most of the 7 candidates would be refusing
    undecided = set(namespace["split_undecided"])
    assert len(undecided) <= 3, f"expected at most 3 objects left to the user, got {sorted(undecided)}"
    home = ndi.labeled_comprehension(found, truth, np.arange(1, truth.max() + 1), _mode, int, 0)
    flagged = {t + 1 for t, f in enumerate(home) if f in undecided}  # true nuclei in flagged objects
    left_merged = len(flagged) - len({int(home[t - 1]) for t in flagged})
    flagged_clumps = sum(1 for f in undecided if np.count_nonzero(home == f) >= 2)
    assert clumps - flagged_clumps <= namespace["split_count"] <= clumps, (
        f"expected the {clumps} clumps cut ({flagged_clumps} left to the user), "
        f"{namespace['split_count']} were"
    )
    assert int(found.max()) + left_merged == int(truth.max()), (
        f"expected {int(truth.max())} objects after splitting ({left_merged} fewer left to the user), "
        f"got {int(found.max())}"
    )
    truth = np.where(np.isin(truth, list(flagged)), 0, truth)
    best = best_iou(found, truth)
    # the input outlines come from a threshold of a blurred, noisy image and the cut follows the
    # waist of the outline: a pixel or two off along each edge, IoU about 0.8 for a 10 px radius
    ious = np.array([iou for _, iou in best.values()])
    message = (
        f"expected every nucleus in its own piece (IoU > 0.6, median >= 0.8); got min {ious.min():.2f}, "
        f"median {np.median(ious):.2f}"
    )
    assert ious.min() > 0.6, message
    assert np.median(ious) >= 0.8, message
    assert len({f for f, _ in best.values()}) == len(best), "expected no piece shared by two nuclei"
    # in physical units: each piece's area against its nucleus's share of the foreground it was
    # given (the input threshold, 24-44 % of the nuclei's plateaus, makes it 8-14 % larger than the
    # true nuclei, and the split keeps the foreground): each pixel to its nearest true nucleus
    share = np.where(found > 0, expand_labels(truth, 3), 0)
    areas = np.bincount(found.ravel())[1:] * pixel_size_um**2
    true_areas = np.bincount(share.ravel())[1:] * pixel_size_um**2
    ratio = np.array([areas[f - 1] / true_areas[t - 1] for t, (f, _) in best.items()])
    assert 0.9 <= np.median(ratio) <= 1.1, (
        "expected piece areas within 10 % of their nuclei's share of the foreground, "
        f"median {np.median(ratio):.2f}"
    )


def _mode(values: np.ndarray) -> int:
    return int(np.bincount(values).argmax())


def check(namespace: dict) -> None:
    _check_against(namespace, _build()[1], 5, PIXEL_SIZE_UM)


def _variant(clumps: int, **options):
    def make() -> dict[str, object]:
        return _build(**options)[0]

    def check_variant(namespace: dict) -> None:
        inputs, truth = _build(**options)
        _check_against(namespace, truth, clumps, inputs["pixel_size_um"])

    return make, check_variant


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""
    return _variant(5, seed=seed)


VARIANTS = {
    # nuclei 7.7 px across in radius: the same rules, at a coarser sampling
    "0.65 µm pixels (10x)": _variant(5, pixel_size_um=0.65, seed=4),
    "0.25 µm pixels (40x)": _variant(5, pixel_size_um=0.25, seed=5),
    "no touching nuclei: nothing to cut": _variant(
        0, layout=("single",) * 10 + ("large", "capsule") + ("empty",) * 4
    ),
    "low light: ragged outlines from a quarter of the photons": _variant(5, light=0.25, seed=6),
    # a pair of unlike nuclei whose waist the threshold fills to 0.914 (left whole, unflagged, before)
    "seed 21": _variant(5, seed=21),
    # a foreground 14 % larger than the true nuclei (piece areas read 1.16 x against the true ones)
    "seed 30": _variant(5, seed=30),
}


def _colony() -> dict[str, object]:
    """A dense colony: nuclei on a jittered hexagonal grid, centres 1.2 radii apart (no waist)."""
    rng = np.random.default_rng(8)
    r = DIAMETER_UM / 2 / PIXEL_SIZE_UM
    shape = (256, 256)
    signal = np.zeros(shape)
    for row, y in enumerate(np.arange(40.0, 216.0, 1.2 * r * np.sqrt(3) / 2)):
        for x in np.arange(40.0 + (row % 2) * 0.6 * r, 216.0, 1.2 * r):
            nucleus = ellipse_mask(
                shape, np.array([y, x]) + rng.normal(0.0, 1.0, 2), (1.1 * r, r / 1.1), rng.uniform(0, np.pi)
            )
            signal = np.maximum(signal, nucleus * rng.uniform(500.0, 900.0))
    for _ in range(6):  # and a few single nuclei around it
        centre = rng.choice([20.0, 236.0], 2)
        signal = np.maximum(signal, ellipse_mask(shape, centre + rng.normal(0, 3, 2), (r, r), 0.0) * 700.0)
    image = _expose(signal, rng, 1.0)
    labels = _threshold(image, 1.0)
    return {
        "labels": labels,
        "image": image,
        "pixel_size_um": PIXEL_SIZE_UM,
        "object_diameter_um": DIAMETER_UM,
    }


REFUSALS = {
    "a dense colony: nuclei overlap without a waist": (_colony, r"packed\s+too densely"),
    "pixel size in nm (500 for 0.5 µm)": (lambda: {**_build()[0], "pixel_size_um": 500.0}, r"µm, not nm"),
    "no objects at all": (
        lambda: {**_build()[0], "labels": np.zeros_like(_build()[0]["labels"])},
        r"or there are no objects",
    ),
}


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    ("neck rule loosened past 1 (every cut kept)", "split_neck_ratio = 0.9", "split_neck_ratio = 1.2"),
    (
        "a cut undone just over the neck ratio not left to the user",
        "failing[a, b] <= split_neck_ratio + 0.05",
        "failing[a, b] <= split_neck_ratio + 0.0",
        "seed 21",
    ),
    (
        "marker spacing x4",
        "split_min_distance_px = max(int(round(split_radius_px / 2)), 1)",
        "split_min_distance_px = max(int(round(split_radius_px * 2)), 1)",
    ),
    (
        "radius taken as the diameter in pixels (unit conversion)",
        "split_radius_px = object_diameter_um / 2 / pixel_size_um",
        "split_radius_px = object_diameter_um / pixel_size_um",
    ),
    (
        "candidates only above 3x a nucleus, not 1.5x",
        'split_is_candidate = (split_props["area"] > 1.5 * split_area_px)',
        'split_is_candidate = (split_props["area"] > 3 * split_area_px)',
    ),
    (
        "distance transform of the unpadded box (its edge not background)",
        "ndi.distance_transform_edt(np.pad(split_mask, 1))[1:-1, 1:-1]",
        "ndi.distance_transform_edt(split_mask)",
    ),
]
