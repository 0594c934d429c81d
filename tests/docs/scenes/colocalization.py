"""Scene for colocalization: two channels of punctate staining, with a cell mask.

Simulates a 256 x 256 px confocal field at 0.1 µm/px holding 6 elliptical cells (about 6 x 5 µm)
with their label image. Channel A shows 40-60 puncta per cell (Gaussian spots, sigma 1.3 px, about
0.3 µm FWHM) on a dim diffuse cytoplasm. Channel B has as many puncta: 60 % at the places of A's,
with independent brightness, the rest at places of their own, on its own diffuse level. Each raw
channel gets a camera offset, a gentle background gradient of its own and shot noise, and is read
by a 12-bit camera (values clip at 4095): three of A's shared puncta clip at their centres. The
channels handed over are background-subtracted (float32), as background-subtraction returns them,
so the saturation masks are computed on the raw channels.

Ground truth planted: ``_build()[1]`` holds per cell the noise-free Pearson's r, the r shot noise
leaves of it, and the share of each channel's puncta on shared ones (Manders' ideal). ``check``
asserts r, its control, the thresholds (under the dimmest punctum) and Manders' M against them.
VARIANTS hand over the raw counts, a fifth of the light (M must then be not interpretable), a
measured bleed-through of A into B, touching cells, 0.9 % clipped pixels and independent puncta;
REFUSALS: 6 % clipped, an unmeasured bleed-through, a 0.2 µm chromatic shift, an nm pixel size.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import ndimage as ndi

from ._shapes import ellipse_mask

SHAPE = (256, 256)
PIXEL_SIZE_UM = 0.1
STRUCTURE_SIZE_UM = 0.3
SPOT_SIGMA_PX = 1.3
SHARED = 0.6
CEILING = 2**12 - 1  # 12-bit camera


def _spots(shape, points, amplitudes):
    """Sum of Gaussian spots, each drawn in a small window around its centre."""
    image = np.zeros(shape)
    half = int(np.ceil(4 * SPOT_SIGMA_PX))
    for (r, c), amp in zip(points, amplitudes, strict=True):
        r0, c0 = int(np.rint(r)), int(np.rint(c))
        ys = slice(max(r0 - half, 0), min(r0 + half + 1, shape[0]))
        xs = slice(max(c0 - half, 0), min(c0 + half + 1, shape[1]))
        yy, xx = np.mgrid[ys, xs]
        image[ys, xs] += amp * np.exp(-((yy - r) ** 2 + (xx - c) ** 2) / (2 * SPOT_SIGMA_PX**2))
    return image


def _share(flags: np.ndarray) -> float:
    """The share of True, NaN for none (a cell whose A puncta all clip)."""
    return float(flags.mean()) if flags.size else np.nan


@cache
def _build(
    seed: int = 5,
    shared: float = SHARED,
    photons: float = 1.0,
    raw: bool = False,
    bleed: float = 0.0,
    bleed_given: bool = True,
    touching: bool = False,
    shift_px: int = 0,
    clipped: int = 3,
) -> tuple[dict[str, object], dict[str, float]]:
    """The field; ``photons`` scales the light, ``raw`` hands over the raw counts (offset and gradient
    left in), ``bleed`` leaks that share of A's light into B's channel (measured and given to the doc
    unless ``bleed_given`` is False), ``touching`` packs the cells edge to edge, ``shift_px`` moves B
    (a chromatic shift), ``clipped`` is the number of A puncta bright enough to clip."""
    rng = np.random.default_rng(seed)
    cell_labels = np.zeros(SHAPE, dtype=np.int32)
    diffuse_a = np.zeros(SHAPE)
    diffuse_b = np.zeros(SHAPE)
    points_a, points_b = [], []
    first_of_cell = []  # index in points_a of each cell's first punctum (a shared one)
    for label, (gy, gx) in enumerate(np.ndindex(2, 3), start=1):
        centre = np.array([64 + 128 * gy, 43 + 85 * gx]) + rng.uniform(-3, 3, 2)
        semi = (rng.uniform(34, 40), rng.uniform(26, 32))
        if touching:  # closer together and a little larger: each meets its neighbours
            centre = np.array([72 + 100 * gy, 60 + 68 * gx]) + (centre - [64 + 128 * gy, 43 + 85 * gx])
            semi = (semi[0] * 1.15, semi[1] * 1.15)
        cell = ellipse_mask(SHAPE, centre, semi, rng.uniform(0, np.pi)) & (cell_labels == 0)
        cell_labels[cell] = label
        diffuse_a[cell] = rng.uniform(15, 30)
        diffuse_b[cell] = rng.uniform(20, 40)
        inner = ellipse_mask(SHAPE, centre, (semi[0] - 4, semi[1] - 4), 0.0) & cell
        if touching:
            inner = ndi.binary_erosion(cell, iterations=4)
        rows, cols = np.nonzero(inner)
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
    if clipped > 3:  # more clipped puncta, each over a dozen pixels
        amplitudes_a[: clipped - 3] = 20000.0
    spots_a = photons * _spots(SHAPE, points_a, amplitudes_a)
    spots_b = photons * _spots(
        SHAPE, np.array(points_b) + np.array([0, shift_px]), rng.uniform(100, 300, len(points_b))
    )
    diffuse_a, diffuse_b = photons * diffuse_a, photons * diffuse_b
    yy, xx = np.mgrid[: SHAPE[0], : SHAPE[1]] / SHAPE[0]
    background_a = 100.0 + photons * (12.0 + 8.0 * yy + 5.0 * xx)  # camera offset, a gentle gradient
    background_b = 100.0 + photons * (25.0 + 9.0 * yy + 6.0 * xx)
    clean_a, clean_b = diffuse_a + spots_a, diffuse_b + spots_b
    raw_a = np.clip(rng.poisson(background_a + clean_a), 0, CEILING).astype(np.uint16)
    leak = bleed * (clean_a + background_a - 100.0)  # A's light (not the offset) seen through B's filter
    raw_b = np.clip(rng.poisson(background_b + clean_b + leak), 0, CEILING).astype(np.uint16)
    inputs = {
        "channel_a": raw_a if raw else (raw_a - background_a).astype(np.float32),
        "channel_b": raw_b
        if raw
        else (raw_b - background_b - bleed * (background_a - 100.0)).astype(np.float32),
        "channel_a_saturated": raw_a >= CEILING,
        "channel_b_saturated": raw_b >= CEILING,
        "cell_labels": cell_labels,
        "pixel_size_um": PIXEL_SIZE_UM,
        "structure_size_um": STRUCTURE_SIZE_UM,
        "bleed_through": bleed if bleed_given else None,
    }
    n_shared_total = len(points_a) + len(points_b) - len({tuple(p) for p in [*points_a, *points_b]})
    # per cell, from the noise-free images: Pearson's r over the unclipped cell pixels (and the r
    # that photon noise leaves of it, r x sqrt(var / (var + noise var)) in each channel), and the
    # share of each channel's punctate light on puncta the other channel shares (Manders' ideal)
    usable = (cell_labels > 0) & (raw_a < CEILING) & (raw_b < CEILING)
    shared_a = {tuple(p) for p in points_b}
    on_shared_a = np.array([tuple(p) in shared_a for p in points_a])
    on_shared_b = np.array([tuple(p) in {tuple(q) for q in points_a} for p in points_b])
    cell_of_a = cell_labels[tuple(np.rint(np.array(points_a)).astype(int).T)]
    cell_of_b = cell_labels[tuple(np.rint(np.array(points_b)).astype(int).T)]
    unclipped = amplitudes_a < CEILING / photons
    pearson, attenuated = [], []
    for k in range(1, 7):
        here = usable & (cell_labels == k)
        a, b = clean_a[here], clean_b[here]
        noise_a = np.mean(a + background_a[here])  # Poisson: variance = mean (the pedestal drawn too)
        noise_b = np.mean(b + leak[here] + background_b[here])  # the leak's shot noise stays
        r = np.corrcoef(a, b)[0, 1]
        pearson.append(r)
        attenuated.append(r * np.sqrt(a.var() / (a.var() + noise_a) * b.var() / (b.var() + noise_b)))
    truth = {
        "a_with_b": n_shared_total / len(points_a),
        "b_with_a": n_shared_total / len(points_b),
        "clipped_a_px": int(np.count_nonzero(raw_a >= CEILING)),
        "pearson": np.array(pearson),
        "pearson_noisy": np.array(attenuated),
        "m1": np.array([_share(on_shared_a[(cell_of_a == k) & unclipped]) for k in range(1, 7)]),
        "m2": np.array([on_shared_b[cell_of_b == k].mean() for k in range(1, 7)]),
    }
    return inputs, truth


def scene() -> dict[str, object]:
    return _build()[0]


def _check(namespace: dict, **params) -> None:
    truth = _build(**params)[1]
    r, r_true = namespace["coloc_pearson"], truth["pearson"]
    r_noisy = truth["pearson_noisy"]
    # shot noise is independent between the channels: it lowers r by a known factor per cell
    assert np.all(np.abs(r - r_noisy) < 0.06 + 0.1 * np.abs(r_noisy)), (
        f"expected r per cell near {np.round(r_noisy, 2)} (noise-free {np.round(r_true, 2)} less what shot "
        f"noise takes), got {np.round(r, 2)}"
    )
    assert abs(np.median(namespace["coloc_pearson_control"])) < 0.05, (
        f"expected the shifted control near r = 0, got {np.median(namespace['coloc_pearson_control']):.2f}"
    )
    if params.get("photons", 1.0) < 0.5:  # puncta 4-7 noise SDs up: under the doc's limit for Manders
        assert not namespace["coloc_manders_interpretable"], (
            "expected M not interpretable: structures too noisy"
        )
        assert np.all(np.isnan(namespace["coloc_m1"])), f"expected M1 NaN, got {namespace['coloc_m1']}"
        return
    if params.get("shared", SHARED) == 0:
        assert not namespace["coloc_manders_interpretable"], "expected M not interpretable: nothing is shared"
        assert np.all(np.isnan(namespace["coloc_m1"])), f"expected M1 NaN, got {namespace['coloc_m1']}"
        return
    # thresholds are counts above background: each must let the dimmest planted punctum through
    photons = params.get("photons", 1.0)
    for channel, dimmest in (("a", 150 * photons), ("b", 100 * photons)):
        threshold = namespace[f"coloc_threshold_{channel}"]
        assert threshold < dimmest, (
            f"expected channel {channel.upper()}'s threshold under its dimmest punctum, {dimmest:.0f} counts "
            f"above background; got {threshold:.0f}"
        )
    assert np.all(namespace["coloc_pearson"] - namespace["coloc_pearson_control"] > 0.15), (
        "expected r above its shifted control in every cell: "
        f"{np.round(namespace['coloc_pearson'] - namespace['coloc_pearson_control'], 2)}"
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


def check(namespace: dict) -> None:
    _check(namespace)


def _variant(**params):
    return (lambda: _build(**params)[0], lambda namespace: _check(namespace, **params))


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""
    return _variant(seed=seed)


# The same field on data its authors did not shape: each checked against its own planted truth.
VARIANTS = {
    "raw counts: camera offset and background left in": _variant(raw=True),
    "low photon counts (a fifth of the light)": _variant(photons=0.2),
    "bleed-through of A into B, measured on an A-only sample": _variant(bleed=0.25),
    "touching cells": _variant(touching=True),
    "12-bit camera: 0.9 % of the cell pixels clipped": _variant(clipped=14),
    "independent puncta: nothing shared": _variant(shared=0.0),
}

# Data outside the doc's validity: its own gate must stop with a message matching the pattern.
REFUSALS = {
    "saturated channel: 6 % of the cell pixels clipped": (
        lambda: _build(clipped=80)[0],
        r"clipped|saturat",
    ),
    "bleed-through not measured": (lambda: _build(bleed=0.25, bleed_given=False)[0], r"bleed-through"),
    "chromatic shift of 0.2 µm between the channels": (lambda: _build(shift_px=2)[0], r"misregistered"),
    "pixel size given in nm": (
        lambda: {**_build()[0], "pixel_size_um": 1000 * PIXEL_SIZE_UM},
        r"pixel_size_um",
    ),
}


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "control shift x1/4 (control overlaps the structures)",
        "coloc_shift_px = int(np.ceil(2 * coloc_structure_px))",
        "coloc_shift_px = int(np.ceil(0.5 * coloc_structure_px))",
    ),
    (
        "Costes thresholds replaced by the noise floor",
        "if coloc_correlated and coloc_cov[0, 1] > 0:",
        "if False:",
    ),
    (
        "background not subtracted (camera offset left in the raw counts)",
        "coloc_a = coloc_a_raw - coloc_bg_a",
        "coloc_a = coloc_a_raw",
        "raw counts: camera offset and background left in",
    ),
    (
        "measured bleed-through not subtracted",
        " - (bleed_through or 0.0) * coloc_a",
        "",
        "bleed-through of A into B, measured on an A-only sample",
    ),
    (
        "clipped pixels kept",
        "coloc_analysed = np.where(coloc_clipped, 0, coloc_cells)",
        "coloc_analysed = coloc_cells",
        "12-bit camera: 0.9 % of the cell pixels clipped",
    ),
    (
        "Manders reported on structures a few noise SDs up",
        "coloc_correlated and coloc_snr >= coloc_min_snr",
        "coloc_correlated",
        "low photon counts (a fifth of the light)",
    ),
]
