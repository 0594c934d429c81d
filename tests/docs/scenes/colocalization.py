"""Scene for colocalization: two background-subtracted channels of punctate staining, with a cell mask.

Simulates a 256 x 256 px confocal field at 0.1 µm/px holding 6 elliptical cells (about 6 x 5 µm)
with their label image. Channel A shows 40-60 puncta per cell (Gaussian spots, sigma 1.3 px, about
0.3 µm FWHM) on a dim diffuse cytoplasm. Channel B has as many puncta: 60 % at the places of A's,
with independent brightness, the rest at places of their own, on its own diffuse level.
Each raw channel gets a camera offset, a gentle background gradient of its own and shot noise, and
is read by a 12-bit camera (values clip at 4095). Three of A's shared puncta are bright enough to
clip at their centres. The channels handed to the procedure are background-subtracted (raw minus
the true offset and gradient, float32), as background-subtraction would return them: their clipped
pixels no longer share one value, so the saturation masks are computed on the raw channels. The
channels are registered and free of bleed-through.

Ground truth planted: ``_build()[1]`` holds the share of A puncta that have a B partner and the share
of B puncta that have an A partner (both 0.6), the number of clipped pixels in A, and per cell the
noise-free Pearson's r and the share of each channel's puncta on shared ones. ``check`` asserts the
procedure's r, its control, Costes' test and Manders' M against them. ``_build(shared=0.0)`` is
the independent case (no punctum shared), where M must come out not interpretable.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ._shapes import ellipse_mask

SHAPE = (256, 256)
PIXEL_SIZE_UM = 0.1
STRUCTURE_SIZE_UM = 0.3
SPOT_SIGMA_PX = 1.3
SHARED = 0.6
CEILING = 2**12 - 1  # 12-bit camera


def _spots(points, amplitudes):
    """Sum of Gaussian spots, each drawn in a small window around its centre."""
    image = np.zeros(SHAPE)
    half = int(np.ceil(4 * SPOT_SIGMA_PX))
    for (r, c), amp in zip(points, amplitudes, strict=True):
        r0, c0 = int(np.rint(r)), int(np.rint(c))
        ys = slice(max(r0 - half, 0), min(r0 + half + 1, SHAPE[0]))
        xs = slice(max(c0 - half, 0), min(c0 + half + 1, SHAPE[1]))
        yy, xx = np.mgrid[ys, xs]
        image[ys, xs] += amp * np.exp(-((yy - r) ** 2 + (xx - c) ** 2) / (2 * SPOT_SIGMA_PX**2))
    return image


@cache
def _build(seed: int = 5, shared: float = SHARED) -> tuple[dict[str, object], dict[str, float]]:
    rng = np.random.default_rng(seed)
    cell_labels = np.zeros(SHAPE, dtype=np.int32)
    diffuse_a = np.zeros(SHAPE)
    diffuse_b = np.zeros(SHAPE)
    points_a, points_b = [], []
    first_of_cell = []  # index in points_a of each cell's first punctum (a shared one)
    for label, (gy, gx) in enumerate(np.ndindex(2, 3), start=1):
        centre = np.array([64 + 128 * gy, 43 + 85 * gx]) + rng.uniform(-3, 3, 2)
        semi = (rng.uniform(34, 40), rng.uniform(26, 32))
        cell = ellipse_mask(SHAPE, centre, semi, rng.uniform(0, np.pi))
        cell_labels[cell] = label
        diffuse_a[cell] = rng.uniform(15, 30)
        diffuse_b[cell] = rng.uniform(20, 40)
        rows, cols = np.nonzero(ellipse_mask(SHAPE, centre, (semi[0] - 4, semi[1] - 4), 0.0) & cell)
        n = int(rng.integers(40, 61))
        pick = rng.choice(rows.size, size=2 * n, replace=False)
        here = np.column_stack([rows[pick], cols[pick]]) + rng.uniform(-0.5, 0.5, (2 * n, 2))
        n_shared = int(np.rint(shared * n))
        first_of_cell.append(len(points_a))
        points_a.extend(here[:n])
        points_b.extend(here[:n_shared])
        points_b.extend(here[n : 2 * n - n_shared])  # B's own puncta
    amplitudes_a = rng.uniform(150, 400, len(points_a))
    amplitudes_a[first_of_cell[::2]] = 5000.0  # three shared puncta bright enough to clip
    spots_a = _spots(points_a, amplitudes_a)
    spots_b = _spots(points_b, rng.uniform(100, 300, len(points_b)))
    yy, xx = np.mgrid[: SHAPE[0], : SHAPE[1]] / SHAPE[0]
    background_a = 100.0 + 12.0 + 8.0 * yy + 5.0 * xx  # camera offset plus a gentle gradient
    background_b = 100.0 + 25.0 + 9.0 * yy + 6.0 * xx
    raw_a = np.clip(rng.poisson(background_a + diffuse_a + spots_a), 0, CEILING).astype(np.uint16)
    raw_b = np.clip(rng.poisson(background_b + diffuse_b + spots_b), 0, CEILING).astype(np.uint16)
    inputs = {
        "channel_a": (raw_a - background_a).astype(np.float32),
        "channel_b": (raw_b - background_b).astype(np.float32),
        "channel_a_saturated": raw_a >= CEILING,
        "channel_b_saturated": raw_b >= CEILING,
        "cell_labels": cell_labels,
        "pixel_size_um": PIXEL_SIZE_UM,
        "structure_size_um": STRUCTURE_SIZE_UM,
    }
    n_shared_total = len(points_a) + len(points_b) - len({tuple(p) for p in [*points_a, *points_b]})
    # per cell, from the noise-free images: Pearson's r over the unclipped cell pixels, and the
    # share of each channel's punctate light on puncta the other channel shares (Manders' ideal)
    clean_a, clean_b = diffuse_a + spots_a, diffuse_b + spots_b
    usable = (cell_labels > 0) & (raw_a < CEILING) & (raw_b < CEILING)
    shared_a = {tuple(p) for p in points_b}
    on_shared_a = np.array([tuple(p) in shared_a for p in points_a])
    on_shared_b = np.array([tuple(p) in {tuple(q) for q in points_a} for p in points_b])
    cell_of_a = cell_labels[tuple(np.rint(np.array(points_a)).astype(int).T)]
    cell_of_b = cell_labels[tuple(np.rint(np.array(points_b)).astype(int).T)]
    unclipped = amplitudes_a < CEILING
    truth = {
        "a_with_b": n_shared_total / len(points_a),
        "b_with_a": n_shared_total / len(points_b),
        "clipped_a_px": int(np.count_nonzero(raw_a >= CEILING)),
        "pearson": np.array(
            [
                np.corrcoef(clean_a[usable & (cell_labels == k)], clean_b[usable & (cell_labels == k)])[0, 1]
                for k in range(1, 7)
            ]
        ),
        "m1": np.array([on_shared_a[(cell_of_a == k) & unclipped].mean() for k in range(1, 7)]),
        "m2": np.array([on_shared_b[cell_of_b == k].mean() for k in range(1, 7)]),
    }
    return inputs, truth


def scene() -> dict[str, object]:
    return _build()[0]


def check(namespace: dict) -> None:
    truth = _build()[1]
    r, r_true = namespace["coloc_pearson"], truth["pearson"]
    # shot noise is independent between the channels: it lowers r, by under 15 % at these counts
    assert np.all((r >= 0.85 * r_true) & (r <= r_true + 0.05)), (
        f"expected r per cell within 0.85-1.0x of the noise-free {np.round(r_true, 2)}, got {np.round(r, 2)}"
    )
    assert abs(np.median(namespace["coloc_pearson_control"])) < 0.05, (
        f"expected the shifted control near r = 0, got {np.median(namespace['coloc_pearson_control']):.2f}"
    )
    assert np.all(namespace["coloc_costes_p"] >= 0.95), (
        f"expected Costes' P >= 0.95 in every cell, got {namespace['coloc_costes_p']}"
    )
    assert namespace["coloc_manders_interpretable"], "expected Manders' M reported: r beats its control"
    for name, want in (("m1", truth["m1"]), ("m2", truth["m2"])):
        # M counts chance overlap too: M = f + (1 - f) c, with c the control's M, for a share f
        m, c = namespace[f"coloc_{name}"], namespace[f"coloc_{name}_control"]
        share = (m - c) / (1 - c)
        assert abs(np.median(share) - np.median(want)) < 0.15, (
            f"expected {name.upper()} corrected for chance, (M - control) / (1 - control), near the "
            f"planted share {np.median(want):.2f}; got {np.round(share, 2)}"
        )


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "control shift x1/4 (control overlaps the structures)",
        "control_shift_px = int(np.ceil(2 * structure_px))",
        "control_shift_px = int(np.ceil(0.5 * structure_px))",
    ),
    ("Costes thresholds replaced by the noise floor", "if correlated and cov > 0:", "if False:"),
]
