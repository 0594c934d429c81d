"""Scene for segment-nuclei: a widefield DAPI field of separate nuclei.

Simulates a 256 x 256 px field at 0.325 µm/px (a 20x objective on a 6.5 µm camera pixel) holding
16 elliptical nuclei, 8-12 µm across, placed at random without touching; some are cut by the image
border. Each nucleus has a DNA content drawn at random (bright and dim nuclei side by side), a
chromatin texture, and a dim nucleolus that leaves a hole in a naive threshold. Eight bright specks
of debris (1-2 µm across) lie between them, to be dropped by the size filter. The whole field is
blurred by a Gaussian PSF and given a camera offset, shot noise and read noise (uint16 counts).

Ground truth planted: 16 nuclei (``_build()[1]`` is the true label image), typical diameter 10 µm.
``check`` asserts that each is found once, outlined closely (IoU), without its nucleolar hole,
that no debris survives, and that the border nuclei are left out of ``nuclei_interior``.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import ndimage as ndi
from skimage import segmentation

from ._shapes import ellipse_mask
from ._truth import best_iou

SHAPE = (256, 256)
PIXEL_SIZE_UM = 0.325
DIAMETER_UM = 10.0
N_NUCLEI = 16


@cache
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
    debris = 0
    while debris < 8:  # specks well under min_area_px, away from the nuclei
        speck = ellipse_mask(SHAPE, rng.uniform(5, np.array(SHAPE) - 5), rng.uniform(1.5, 3.0, 2), 0.0)
        if (ndi.binary_dilation(speck, iterations=4) & (truth > 0)).any():
            continue
        signal[speck] = rng.uniform(600.0, 900.0)
        debris += 1
    blurred = ndi.gaussian_filter(signal, 1.2)
    counts = rng.poisson(blurred + 40.0) + 100.0 + rng.normal(0.0, 4.0, SHAPE)
    image = np.clip(counts, 0, 65535).astype(np.uint16)
    inputs = {"image": image, "pixel_size_um": PIXEL_SIZE_UM, "nucleus_diameter_um": DIAMETER_UM}
    return inputs, truth


def scene() -> dict[str, object]:
    return _build()[0]


def check(namespace: dict) -> None:
    truth = _build()[1]
    found = namespace["nuclei_labels"]
    assert namespace["n_nuclei"] == N_NUCLEI, (
        f"expected {N_NUCLEI} nuclei (no debris, none merged or split), found {namespace['n_nuclei']}"
    )
    best = best_iou(found, truth)
    inside = {t for t in best if segmentation.clear_border(truth == t).any()}
    ious = np.array([best[t][1] for t in inside])
    # the PSF (sigma 1.2 px) and a threshold between background and the dimmest nucleus move an
    # outline by about a pixel: IoU 1 - 2/radius, about 0.87 for a 15 px radius. A nucleus cut by
    # the border may lose a nucleolus open to the edge (not a hole): it need only be found.
    assert ious.min() >= 0.8, (
        f"expected every interior nucleus outlined with IoU >= 0.8 (median >= 0.88); got min "
        f"{ious.min():.2f}, median {np.median(ious):.2f}"
    )
    assert np.median(ious) >= 0.88, (
        f"expected every interior nucleus outlined with IoU >= 0.8 (median >= 0.88); got min "
        f"{ious.min():.2f}, median {np.median(ious):.2f}"
    )
    cut = [best[t][1] for t in set(best) - inside]
    assert min(cut) > 0.5, f"expected every border nucleus found (IoU > 0.5); worst IoU {min(cut):.2f}"
    assert len({f for f, _ in best.values()}) == N_NUCLEI, "expected each nucleus in a label of its own"
    for label in range(1, int(found.max()) + 1):
        own = found == label
        holes = int((ndi.binary_fill_holes(own) & ~own).sum())
        assert holes == 0, f"expected nucleolar holes filled; label {label} keeps {holes} px of holes"
    interior = {best[t][0] for t in inside}
    kept = set(np.unique(namespace["nuclei_interior"])) - {0}
    assert kept == interior, (
        f"expected nuclei_interior to hold the {len(interior)} nuclei clear of the border, got {len(kept)}"
    )


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    ("smoothing sigma x4", "sigma_px = max(radius_px / 8, 1.0)", "sigma_px = max(radius_px / 2, 1.0)"),
    ("holes left unfilled", "small_hole[0] = False", "small_hole[:] = False"),
    ("debris filter dropped", "big_enough[0] = False", "big_enough[:] = True; big_enough[0] = False"),
]
