"""Scene for segment-cells: a membrane-stained field of touching and isolated cells, with nuclei.

A 256 x 256 px field at 0.5 µm/px. 22 nuclei (radius 4.5-5.5 µm) are placed at least 16 µm
apart; each cell is the part of the nuclei's Voronoi tessellation within 9-12 µm of its nucleus,
so neighbours closer than their two radii touch along a straight wall and the rest stand alone on
background; a few are cut by the image border. The membrane stain is a line on every cell
outline (cell-cell and cell-background) over a dim cytoplasmic glow. Two channels are measured:
"tf", with a nuclear/cytoplasmic ratio planted per cell (0.3-4), and "cyto", cytoplasmic only.
Everything is blurred (Gaussian SD 1.2 px: FWHM 1.4 µm, the `resolution_um` given), put on a
camera offset plus autofluorescence, and given shot and read noise.

Ground truth: the cell and nucleus label images, the per-cell N/C ratio and per-cell levels.
The gate exercises the membrane branch of the procedure (not the cytoplasm-stain branch).
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import ndimage as ndi
from skimage.segmentation import find_boundaries

from ._cache import built_when_run

SHAPE = (256, 256)
PIXEL_SIZE_UM = 0.5
BLUR_PX = 1.2
OFFSET = 100.0
TRUTH: dict[str, object] = {}


def _build(seed: int = 5) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    centres: list[np.ndarray] = []
    while len(centres) < 22:
        c = rng.uniform(-10, np.array(SHAPE) + 10)
        if all(np.hypot(*(c - o)) >= 16 / PIXEL_SIZE_UM for o in centres):
            centres.append(c)
    yy, xx = np.mgrid[: SHAPE[0], : SHAPE[1]]
    dist = np.stack([np.hypot(yy - c[0], xx - c[1]) for c in centres])
    owner = dist.argmin(axis=0)
    cell_r = rng.uniform(9, 12, len(centres)) / PIXEL_SIZE_UM
    nuc_r = rng.uniform(4.5, 5.5, len(centres)) / PIXEL_SIZE_UM
    cells = np.where(dist.min(axis=0) <= cell_r[owner], owner + 1, 0).astype(np.int32)
    nuclei = np.zeros(SHAPE, np.int32)
    for i, c in enumerate(centres):
        nuclei[(np.hypot(yy - c[0], xx - c[1]) <= nuc_r[i]) & (cells == i + 1)] = i + 1
    # the outline: 1 px against background, 2 px (one on each side) where two cells meet
    outline = (ndi.grey_dilation(cells, 3) != ndi.grey_erosion(cells, 3)) & (cells > 0)
    cyto_level = rng.uniform(150, 400, len(centres))
    nc_ratio = np.exp(rng.uniform(np.log(0.3), np.log(4.0), len(centres)))
    other_level = rng.uniform(200, 600, len(centres))
    ids = np.arange(1, len(centres) + 1)
    inside = cells > 0
    in_nucleus = nuclei > 0
    lut = np.concatenate([[0], cyto_level])
    tf = np.where(inside, lut[cells], 0.0)
    tf[in_nucleus] *= nc_ratio[nuclei[in_nucleus] - 1]
    cyto = np.where(inside & ~in_nucleus, np.concatenate([[0], other_level])[cells], 0.0)
    membrane = np.where(inside, 60.0, 0.0) + np.where(outline, 600.0, 0.0)

    def camera(signal):
        counts = rng.poisson(ndi.gaussian_filter(signal, BLUR_PX) + 20.0) + OFFSET + rng.normal(0, 3, SHAPE)
        return np.clip(counts, 0, 65535).astype(np.uint16)

    TRUTH.update(
        cells=cells,
        nuclei=nuclei,
        nc_ratio=dict(zip(ids, nc_ratio, strict=True)),
        tf_cyto=dict(zip(ids, cyto_level, strict=True)),
        pixel_size_um=PIXEL_SIZE_UM,
        background=20 + OFFSET,
    )
    return {
        "cell_stain": camera(membrane),
        "cell_stain_kind": "membrane",
        "nuclei_labels": nuclei,
        "cell_channels": {"tf": camera(tf), "cyto": camera(cyto)},
        "pixel_size_um": PIXEL_SIZE_UM,
        "cell_diameter_um": 21.0,
        "resolution_um": 2.355 * BLUR_PX * PIXEL_SIZE_UM,
    }


def scene() -> dict[str, object]:
    return _build()


def _check_measurements(namespace: dict, truth: dict) -> None:
    """Per measured cell: area in µm² and the tf N/C ratio and cytoplasm level, against the truth."""
    cells, table = truth["cells"], namespace["cellseg_table"]
    pixel_um2 = truth["pixel_size_um"] ** 2
    for row, label in enumerate(table["label"]):
        true_cell = cells == label
        perimeter = np.count_nonzero(true_cell & ~ndi.binary_erosion(true_cell))
        true_um2 = true_cell.sum() * pixel_um2
        # a wall up to 3 px off all round (a bright cell's blur halo above a threshold set for the
        # dimmest cells) moves about three perimeters of pixels
        assert abs(table["area_um2"][row] - true_um2) <= 3 * perimeter * pixel_um2, (
            f"cell {label}: expected an area of {true_um2:.0f} ± {3 * perimeter * pixel_um2:.0f} µm², "
            f"got {table['area_um2'][row]:.0f}"
        )
    _check_no_ratio(namespace, truth)
    # N/C ratio: shot noise over the measured compartments, plus 3 % for the blur left past the margin
    for row, label in enumerate(table["label"]):
        if label in namespace["cellseg_no_ratio"]:
            continue
        ratio = truth["nc_ratio"][label]
        cyto = truth["tf_cyto"][label]
        n_nuc, n_cyt = table["nucleus_px"][row], table["cytoplasm_px"][row]
        # a ratio over fewer pixels has no finite tolerance: the doc must list the cell instead
        assert n_nuc > 0, f"cell {label}: a ratio from no nuclear pixels"
        assert n_cyt >= 20, f"cell {label}: a ratio from {n_cyt} cytoplasm pixels"
        background = truth["background"]
        var_nuc = (ratio * cyto + background + 9) / n_nuc / (ratio * cyto) ** 2
        var_cyt = (cyto + background + 9) / n_cyt / cyto**2
        # the background is a median of integer counts: up to 1 count off
        tolerance = ratio * (4 * np.sqrt(var_nuc + var_cyt) + 0.03 + 1 / (ratio * cyto) + 1 / cyto)
        got = table["tf_nc_ratio"][row]
        assert abs(got - ratio) <= tolerance, (
            f"cell {label}: expected tf N/C ratio {ratio:.3f} ± {tolerance:.3f}, got {got:.3f}"
        )
        got_cyto = table["tf_cytoplasm_mean"][row]
        assert abs(got_cyto - cyto) <= cyto * (4 * np.sqrt(var_cyt) + 0.03) + 1, (
            f"cell {label}: expected tf cytoplasm {cyto:.1f} counts above background, got {got_cyto:.1f}"
        )


def _measurable_px(truth: dict, label: int, margin: int) -> int:
    """Pixels of the true cytoplasm more than ``margin`` px from the cell's nucleus, and from its wall
    moved 2 px in (as far off as the IoU floor lets the doc's wall be)."""
    cells, nuclei = truth["cells"], truth["nuclei"]
    off_nucleus = ndi.distance_transform_edt(~find_boundaries(nuclei, mode="thick")) > margin
    off_wall = ndi.distance_transform_edt(~find_boundaries(cells, mode="thick")) > margin + 2
    return int(np.count_nonzero((cells == label) & (nuclei == 0) & off_nucleus & off_wall))


def _check_no_ratio(namespace: dict, truth: dict) -> None:
    """A NaN ratio only with its reason, and only for a cell whose true cytoplasm is too thin to measure."""
    table, no_ratio = namespace["cellseg_table"], namespace["cellseg_no_ratio"]
    for row, label in enumerate(table["label"].tolist()):
        ratio = table["tf_nc_ratio"][row]
        assert np.isfinite(ratio) == (label not in no_ratio), (
            f"cell {label}: N/C ratio {ratio} but cellseg_no_ratio says {no_ratio.get(label, 'nothing')}"
        )
        if label in no_ratio:
            least = max(20, table["nucleus_px"][row] / 4)
            true_px = _measurable_px(truth, label, namespace["cellseg_margin_px"])
            assert true_px < least, (
                f"cell {label}: {true_px} px of its true cytoplasm are measurable (ratio needs {least:.0f}), "
                f"yet it has no ratio: {no_ratio[label]}"
            )


def _check_clear_cells_measured(namespace: dict, truth: dict) -> None:
    measured = set(namespace["cellseg_table"]["label"].tolist())
    frame = truth["cells"].copy()
    frame[3:-3, 3:-3] = 0  # cells 3 px or more from the border must be measured
    clear = set(np.unique(truth["cells"]).tolist()) - set(np.unique(frame).tolist()) - {0}
    # a cell 1-2 px from the border may reach it (walls 2 px off), and a neighbour can carry a cell to
    # it (a bright cell's blur halo, or a border cell whose nucleus lies outside the field): left out
    assert len(clear - measured) <= max(2, 0.1 * len(clear)), (
        f"expected 90 % of the cells clear of the border measured; missing {sorted(clear - measured)}"
    )


def check(namespace: dict) -> None:
    cells, labels = TRUTH["cells"], namespace["cellseg_labels"]
    table = namespace["cellseg_table"]
    measured = table["label"].tolist()
    assert set(measured) <= set(_interior(cells)), (
        f"expected the table to list cells clear of the border {_interior(cells)}, got {sorted(measured)}"
    )
    _check_clear_cells_measured(namespace, TRUTH)
    for i in measured:
        true_cell, found = cells == i, labels == i
        perimeter = np.count_nonzero(true_cell & ~ndi.binary_erosion(true_cell))
        # a wall placed up to 2 px off along the whole outline (the membrane line is 1-2 px wide):
        # each pixel of offset all round moves about one perimeter of pixels, so IoU >= 1 - 2 P / A
        floor = 1 - 2 * perimeter / true_cell.sum()
        iou = np.count_nonzero(true_cell & found) / np.count_nonzero(true_cell | found)
        assert iou >= floor, f"cell {i}: expected IoU with the true cell >= {floor:.2f}, got {iou:.2f}"
    _check_measurements(namespace, TRUTH)


# -- a cytoplasm stain: touching cells filled evenly, bright and dim side by side (issue 16) ------------


@cache
def _cytoplasm_geometry(seed: int, pixel_size_um: float, shape: tuple[int, int]):
    """Touching cells whose borders are not halfway between their nuclei.

    Nuclei at least 15 µm apart; each pixel belongs to the nucleus minimising d² - w (a power
    diagram: a cell with a larger weight pushes its borders towards its neighbours), within
    10-13 µm of it. Returns (cells, nuclei) label images.
    """
    rng = np.random.default_rng(seed)
    centres: list[np.ndarray] = []
    for _ in range(3000):
        c = rng.uniform(-8 / pixel_size_um, np.array(shape) + 8 / pixel_size_um)
        if all(np.hypot(*(c - o)) >= 15 / pixel_size_um for o in centres):
            centres.append(c)
    yy, xx = np.mgrid[: shape[0], : shape[1]]
    dist = np.stack([np.hypot(yy - c[0], xx - c[1]) for c in centres])
    cell_r = rng.uniform(10, 13, len(centres)) / pixel_size_um
    weight = rng.uniform(-1, 1, len(centres)) * (4 / pixel_size_um) ** 2
    owner = (dist**2 - weight[:, None, None]).argmin(axis=0)
    within = np.take_along_axis(dist, owner[None], 0)[0] <= cell_r[owner]
    cells = np.where(within, owner + 1, 0).astype(np.int32)
    nuc_r = rng.uniform(4.0, 5.0, len(centres)) / pixel_size_um
    nuclei = np.zeros(shape, np.int32)
    for i in range(len(centres)):
        own = (dist[i] <= nuc_r[i]) & (cells == i + 1)
        if own.sum() >= 0.8 * np.pi * nuc_r[i] ** 2:
            nuclei[own] = i + 1
        else:  # a nucleus cut by a neighbour or the border is no clean seed: leave the cell out
            cells[cells == i + 1] = 0
    return cells, nuclei


@cache
def _cytoplasm(
    seed: int = 11,
    pixel_size_um: float = 0.5,
    spread: float = 4.0,
    photons: float = 1.0,
    shape: tuple[int, int] = (256, 256),
    in_nucleus: float = 0.8,
):
    """A cytoplasm stain filling each cell evenly, its level drawn over a ``spread``-fold range.

    ``photons`` scales every level (0.1: a dim, shot-noise-limited field); ``in_nucleus`` is the
    stain's level in the nucleus relative to the cytoplasm. Returns (inputs, truth).
    """
    cells, nuclei = _cytoplasm_geometry(seed, pixel_size_um, shape)
    rng = np.random.default_rng(seed + 1)
    n = int(cells.max())
    level = np.exp(rng.uniform(np.log(150), np.log(150 * spread), n + 1)) * photons
    level[0] = 0
    stain = level[cells] * np.where(nuclei > 0, in_nucleus, 1.0)
    nc_ratio = np.exp(rng.uniform(np.log(0.3), np.log(4.0), n + 1))
    tf_cyto = rng.uniform(150, 400, n + 1) * photons
    tf = np.where(cells > 0, tf_cyto[cells], 0.0)
    tf[nuclei > 0] *= nc_ratio[nuclei[nuclei > 0]]
    blur = BLUR_PX * PIXEL_SIZE_UM / pixel_size_um  # the same optics at another pixel size

    def camera(signal):
        mean = ndi.gaussian_filter(signal, blur) + 20.0 * photons
        counts = rng.poisson(mean) + OFFSET + rng.normal(0, 3, shape)
        return np.clip(counts, 0, 65535).astype(np.uint16)

    ids = np.unique(cells)[1:]
    truth = {
        "cells": cells,
        "nuclei": nuclei,
        "pixel_size_um": pixel_size_um,
        "nc_ratio": {int(i): nc_ratio[i] for i in ids},
        "tf_cyto": {int(i): tf_cyto[i] for i in ids},
        "background": 20.0 * photons + OFFSET,
    }
    inputs = {
        "cell_stain": camera(stain),
        "cell_stain_kind": "cytoplasm",
        "nuclei_labels": nuclei,
        "cell_channels": {"tf": camera(tf)},
        "pixel_size_um": pixel_size_um,
        "cell_diameter_um": 20.0,
        "resolution_um": 2.355 * blur * pixel_size_um,
    }
    return inputs, truth


def _interior(cells):
    edge = np.concatenate([cells[0], cells[-1], cells[:, 0], cells[:, -1]])
    return sorted(set(np.unique(cells).tolist()) - set(np.unique(edge).tolist()) - {0})


def cytoplasm_ious(namespace: dict, truth: dict) -> np.ndarray:
    cells, labels = truth["cells"], namespace["cellseg_labels"]
    return np.array(
        [
            np.count_nonzero((cells == i) & (labels == i)) / np.count_nonzero((cells == i) | (labels == i))
            for i in _interior(cells)
        ]
    )


def _check_cytoplasm(truth: dict):
    def check_cytoplasm(namespace: dict) -> None:
        ious = cytoplasm_ious(namespace, truth)
        # borders between cells of equal brightness fall by distance, up to ~2 px off a power-diagram
        # wall; the review's flooded cells had median IoU 0.55 and 4.5 % of cells above 0.8
        got = f"median {np.median(ious):.2f}, {np.mean(ious >= 0.8):.0%} >= 0.8, worst {ious.min():.2f}"
        assert np.median(ious) >= 0.88, f"expected median IoU >= 0.88; got {got}"
        assert np.mean(ious >= 0.8) >= 0.9, f"expected 90 % of cells with IoU >= 0.8; got {got}"
        _check_clear_cells_measured(namespace, truth)
        _check_measurements(namespace, truth)

    return check_cytoplasm


def _cytoplasm_variant(**kwargs):
    return built_when_run(lambda: _cytoplasm(**kwargs), _check_cytoplasm)


VARIANTS = {
    # issue 16: a bright cell flooded its dim neighbours (median IoU 0.55) and no gate fired
    "cytoplasm stain, cells 4x apart in brightness": _cytoplasm_variant(),
    "cytoplasm stain, cells 8x apart in brightness": _cytoplasm_variant(spread=8.0, seed=5),
    "cytoplasm stain, all cells equally bright": _cytoplasm_variant(spread=1.0),
    "cytoplasm stain filling the nuclei too": _cytoplasm_variant(in_nucleus=1.0, seed=7),
    "cytoplasm stain, 10x fewer photons": _cytoplasm_variant(photons=0.1),
    "cytoplasm stain at 0.325 µm/px": _cytoplasm_variant(pixel_size_um=0.325),
    # a cell squeezed by its neighbours has no cytoplasm a margin clear of its nucleus and wall: its
    # ratio was NaN with no reason given (seeds 6, 9, 12), and this scene's tolerance for it infinite
    "membrane stain, seed 9": (lambda: _build(seed=9), check),
    "membrane stain, seed 12": (lambda: _build(seed=12), check),
    # a gap between three cells, enclosed by their membranes, was flooded by one of them (IoU, cytoplasm low)
    "membrane stain, seed 10": (lambda: _build(seed=10), check),
    # the border-step gate refused: a small cell's larger share of membrane read as a brightness step
    "membrane stain, seed 13": (lambda: _build(seed=13), check),
    # a background gap between three cells, blurred into their membranes, went to one: its cytoplasm read low
    "membrane stain, seed 20": (lambda: _build(seed=20), check),
}


def _with(make, **changes):
    def changed() -> dict[str, object]:
        inputs = dict(make())
        inputs.update(
            {key: change(inputs) if callable(change) else change for key, change in changes.items()}
        )
        return inputs

    return changed


def _drop_every_third_nucleus(inputs) -> np.ndarray:
    nuclei = inputs["nuclei_labels"]
    return np.where(np.isin(nuclei, np.unique(nuclei)[1::3]), 0, nuclei)


_CYTOPLASM_4X = VARIANTS["cytoplasm stain, cells 4x apart in brightness"][0]

REFUSALS = {
    # issue 22: "mean GFP per cell" with one stain reached this doc; it needs nuclei to grow from
    "one stain, no nuclear labels": (
        _with(_CYTOPLASM_4X, nuclei_labels=lambda inputs: np.zeros_like(inputs["nuclei_labels"])),
        r"no nucleus.*trained model",
    ),
    "pixel size given in nm": (_with(_CYTOPLASM_4X, pixel_size_um=500.0), r"pixel_size_um \(µm, not nm\)"),
    # widefield blur (FWHM 2 µm): most cells' cytoplasm lies within a blur width of nucleus or wall
    "resolution too coarse for most cells' cytoplasm": (
        _with(lambda: _build(seed=12), resolution_um=2.0),
        r"cells have no N/C ratio.*cytoplasm thinner than two blur widths",
    ),
    "a membrane stain called a cytoplasm stain": (
        _with(scene, cell_stain_kind="cytoplasm"),
        r"does not fit a cytoplasm stain",
    ),
    # a cell with no seed is taken by its neighbour: areas far from the median, borders off the steps
    "a third of the nuclei missing": (
        _with(_CYTOPLASM_4X, nuclei_labels=_drop_every_third_nucleus),
        r"took part of a neighbour|nucleus missing|nuclei lie mostly outside",
    ),
}

MUTATIONS = [
    ("cell area in µm instead of µm²", "* pixel_size_um**2", "* pixel_size_um"),
    (
        "membrane stain: gaps between cells left to the watershed",
        "cellseg_foreground & ~cellseg_gap,",
        "cellseg_foreground,",
        "membrane stain, seed 10",
    ),
    (
        "membrane stain: borders tested for brightness steps",
        '(0, 0) if cell_stain_kind == "membrane" else',
        "(0, 0) if False else",
        "membrane stain, seed 13",
    ),
    (
        "a cell with too little cytoplasm gets a ratio, or a NaN with no reason",
        "if cellseg_a < 1 or cellseg_b < cellseg_m}",
        "if False}",
        "membrane stain, seed 12",
    ),
    (
        "cytoplasm cells flooded by brightness (the old branch)",
        "cellseg_climb = cellseg_from_nuc / cellseg_radius_px + cellseg_edge_weight * cellseg_edge",
        "cellseg_climb = -cellseg_smooth",
        "cytoplasm stain, cells 4x apart in brightness",
    ),
    (
        "cytoplasm foreground at Otsu's threshold (dim cells lost)",
        "cellseg_cut = min(cellseg_otsu,",
        "cellseg_cut = max(cellseg_otsu,",
        "cytoplasm stain, cells 4x apart in brightness",
    ),
    (
        "membrane stain: cytoplasm measured on a ridge-enclosed gap a cell took",
        'cellseg_dark > 0 if cell_stain_kind == "membrane" else True',
        "True",
        "membrane stain, seed 20",
    ),
    (
        "channels measured without subtracting the background",
        "cellseg_above = cellseg_values - cellseg_background[cellseg_name]",
        "cellseg_above = cellseg_values",
    ),
]
