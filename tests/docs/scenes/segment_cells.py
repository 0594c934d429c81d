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

import numpy as np
from scipy import ndimage as ndi

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


def check(namespace: dict) -> None:
    cells, labels = TRUTH["cells"], namespace["cellseg_labels"]
    table = namespace["cellseg_table"]
    interior = [
        i
        for i in np.unique(cells[1:-1, 1:-1])
        if i and not np.isin(i, np.concatenate([cells[0], cells[-1], cells[:, 0], cells[:, -1]]))
    ]
    assert sorted(table["label"].tolist()) == sorted(interior), (
        f"expected the table to list the cells clear of the border {sorted(interior)}, "
        f"got {sorted(table['label'])}"
    )
    for i in interior:
        true_cell, found = cells == i, labels == i
        perimeter = np.count_nonzero(true_cell & ~ndi.binary_erosion(true_cell))
        # a wall placed up to 2 px off along the whole outline (the membrane line is 1-2 px wide):
        # each pixel of offset all round moves about one perimeter of pixels, so IoU >= 1 - 2 P / A
        floor = 1 - 2 * perimeter / true_cell.sum()
        iou = np.count_nonzero(true_cell & found) / np.count_nonzero(true_cell | found)
        assert iou >= floor, f"cell {i}: expected IoU with the true cell >= {floor:.2f}, got {iou:.2f}"
    # N/C ratio: shot noise over the measured compartments, plus 3 % for the blur left past the margin
    for row, label in enumerate(table["label"]):
        truth = TRUTH["nc_ratio"][label]
        cyto = TRUTH["tf_cyto"][label]
        n_nuc, n_cyt = table["nucleus_px"][row], table["cytoplasm_px"][row]
        background = 20 + OFFSET
        var_nuc = (truth * cyto + background + 9) / n_nuc / (truth * cyto) ** 2
        var_cyt = (cyto + background + 9) / n_cyt / cyto**2
        tolerance = truth * (4 * np.sqrt(var_nuc + var_cyt) + 0.03)
        got = table["tf_nc_ratio"][row]
        assert abs(got - truth) <= tolerance, (
            f"cell {label}: expected tf N/C ratio {truth:.3f} ± {tolerance:.3f}, got {got:.3f}"
        )
        got_cyto = table["tf_cytoplasm_mean"][row]
        assert abs(got_cyto - cyto) <= cyto * (4 * np.sqrt(var_cyt) + 0.03), (
            f"cell {label}: expected tf cytoplasm {cyto:.1f} counts above background, got {got_cyto:.1f}"
        )
