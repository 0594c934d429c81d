"""Scene for save-results: a two-channel z-stack, its label image and a measurement table.

A (C, Z, Y, X) = (2, 6, 96, 700) uint16 stack at spacing (0.8, 0.2, 0.2) µm, channels "DAPI" and
"GFP", 12-bit data (100-3000 counts); wider than 512 px, so the OME-Zarr gets a second pyramid
level. Its label image (Z, Y, X) holds 300 small boxes with ids 1-300, more than uint8 can hold,
so a writer that narrows the dtype loses objects. A table with one row per object (label, volume
in µm³). All is written into a fresh temporary directory.

Variants: a 2-D float64 image with 70,000 labels (more than uint16 holds: ImageJ opens no uint32,
so its label TIFF must be float32) and the user's own scale bar; a single-channel 2-D image at
0.065 µm pixels. Refusals: a spacing given in nm, a scale bar longer than half the image, label
ids beyond what ImageJ's float32 holds exactly.

Ground truth: the arrays, calibration and table themselves; the check reads every file back
with other readers than the procedure used (tifffile's XML and ImageJ parse, zarr, Pillow, csv).
"""

from __future__ import annotations

import atexit
import csv
import json
import os
import shutil
import tempfile

import numpy as np
import tifffile
import zarr
from PIL import Image

from ._cache import seeded_in

TRUTH: dict[str, object] = {}
IMAGEJ_DTYPES = {np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.float32)}


def _inputs(image, axes, labels, spacing, channels, table=None, bar_um=None, name="sample1"):
    TRUTH.clear()
    TRUTH.update(image=image, axes=axes, labels=labels, spacing=spacing, channels=channels, table=table)
    folder = tempfile.mkdtemp(prefix="save-scene-")
    atexit.register(shutil.rmtree, folder, True)
    return {
        "result_image": image,
        "result_axes": axes,
        "result_labels": labels,
        "result_table": table,
        "spacing_um": spacing,
        "channel_names": channels,
        "result_dir": folder,
        "result_name": name,
        "result_bar_um": bar_um,
    }


def scene(seed: int = 4) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    image = rng.integers(100, 3000, (2, 6, 96, 700), dtype=np.uint16)
    labels = np.zeros((6, 96, 700), np.uint16)
    for i in range(300):
        row, col = divmod(i, 50)
        labels[1:5, 4 + 15 * row : 14 + 15 * row, 4 + 14 * col : 12 + 14 * col] = i + 1
    spacing = (0.8, 0.2, 0.2)
    table = {
        "label": np.arange(1, 301),
        "volume_um3": np.bincount(labels.ravel())[1:] * float(np.prod(spacing)),
    }
    return _inputs(image, "CZYX", labels, spacing, ["DAPI", "GFP"], table)


def _many_labels(bar_um=20.0):
    """A 2-D float image with 70,000 two-pixel labels: ids beyond uint16."""
    rng = np.random.default_rng(5)
    image = rng.normal(100.0, 10.0, (300, 500))
    labels = np.zeros((300, 500), np.uint32)
    ids = np.arange(1, 70_001, dtype=np.uint32)
    labels.ravel()[: 2 * ids.size] = np.repeat(ids, 2)
    return _inputs(image, "YX", labels, (0.1, 0.1), [], bar_um=bar_um)


def _fine_pixels():
    image = np.random.default_rng(6).integers(0, 255, (1, 120, 400), dtype=np.uint8)
    return _inputs(image, "CYX", None, (0.065, 0.065), ["AF647"])


def _planes(image, axes):
    """(C, Y, X) maximum projection over z, as float64, for the windows the check expects."""
    planes = np.asarray(image, dtype=np.float64)
    if "C" not in axes:
        planes = planes[None]
    return planes.max(axis=1) if "Z" in axes else planes


def check(namespace: dict) -> None:
    image, axes, labels = TRUTH["image"], TRUTH["axes"], TRUTH["labels"]
    spacing, channels = (
        dict(zip([a for a in axes if a in "ZYX"], TRUTH["spacing"], strict=True)),
        TRUTH["channels"],
    )
    paths = namespace["save_paths"]
    ranges = [np.percentile(p, [0.1, 99.9]) for p in _planes(image, axes)]
    # OME-TIFF: tifffile's own OME-XML parse, not the reader the procedure used
    with tifffile.TiffFile(paths["ome_tiff"]) as tif:
        pixels = tifffile.xml2dict(tif.ome_metadata)["OME"]["Image"]["Pixels"]
        stored = tif.series[0].asarray()
    for axis, value in spacing.items():
        got = float(pixels[f"PhysicalSize{axis}"])
        unit = pixels.get(f"PhysicalSize{axis}Unit", "µm")
        assert np.isclose(got, value), f"OME-TIFF: expected PhysicalSize{axis} {value} µm, got {got} {unit}"
        assert unit == "µm", f"OME-TIFF: expected PhysicalSize{axis}Unit µm, got {unit}"
    if channels:
        found = pixels["Channel"] if isinstance(pixels["Channel"], list) else [pixels["Channel"]]
        names = [c["Name"] for c in found]
        assert names == channels, f"OME-TIFF: expected channels {channels}, got {names}"
    assert np.array_equal(np.squeeze(stored), np.squeeze(image)), (
        f"OME-TIFF: pixels differ (stored {stored.shape} {stored.dtype})"
    )
    # the ImageJ TIFF Fiji opens with its scale: tifffile's ImageJ parse
    assert "imagej_tiff" in paths, f"no ImageJ TIFF among {sorted(paths)}: Fiji's File > Open gets no scale"
    with tifffile.TiffFile(paths["imagej_tiff"]) as tif:
        assert tif.is_imagej, "ImageJ TIFF: the file is not ImageJ-flavoured"
        meta, ij_axes = tif.imagej_metadata, tif.series[0].axes
        ij_pixels, x_res = tif.series[0].asarray(), tif.pages[0].resolution[0]
    assert ij_pixels.dtype in IMAGEJ_DTYPES, f"ImageJ TIFF: {ij_pixels.dtype} is a type ImageJ cannot open"
    assert meta.get("unit") in ("um", "micron", "µm"), f"ImageJ TIFF: unit {meta.get('unit')!r}, not µm"
    assert np.isclose(1 / x_res, spacing["X"], rtol=1e-6), (
        f"ImageJ TIFF: a pixel of {1 / x_res:.6g} µm from the resolution tag, expected {spacing['X']} µm"
    )
    if "Z" in spacing:
        assert np.isclose(meta.get("spacing", np.nan), spacing["Z"]), (
            f"ImageJ TIFF: z spacing {meta.get('spacing')} µm, expected {spacing['Z']} µm"
        )
    order = [axes.index(a) for a in "ZCYX" if a in axes]  # ImageJ's order; it drops length-1 axes
    assert np.allclose(np.squeeze(ij_pixels), np.squeeze(np.transpose(image, order))), (
        f"ImageJ TIFF: pixels ({ij_axes} {ij_pixels.shape}) differ from the image"
    )
    assert np.allclose(meta.get("Ranges", ()), np.ravel(ranges)), (
        f"ImageJ TIFF: display ranges {meta.get('Ranges')}, expected percentiles {np.ravel(ranges)}"
    )
    if labels is not None:
        ome_labels = tifffile.imread(paths["labels_tiff"])
        n_ids = len(np.unique(labels)) - 1
        assert ome_labels.dtype.kind == "u", f"label OME-TIFF: {ome_labels.dtype}, not unsigned integers"
        assert np.array_equal(ome_labels, labels), f"label OME-TIFF: ids differ from the {n_ids} planted"
        assert "labels_imagej_tiff" in paths, f"no ImageJ label TIFF among {sorted(paths)}"
        with tifffile.TiffFile(paths["labels_imagej_tiff"]) as tif:
            ij_labels, x_res = tif.asarray(), tif.pages[0].resolution[0]
        assert ij_labels.dtype in IMAGEJ_DTYPES, (
            f"ImageJ label TIFF: {ij_labels.dtype}, which ImageJ cannot open ({n_ids} ids)"
        )
        assert np.array_equal(ij_labels, labels), f"ImageJ label TIFF: ids differ from the {n_ids} planted"
        assert np.isclose(1 / x_res, spacing["X"], rtol=1e-6), "ImageJ label TIFF: pixel size lost"
    # OME-Zarr: scale per level from zarr alone, display windows, the NGFF labels group
    root = zarr.open_group(paths["ome_zarr"], mode="r")
    datasets = root.attrs["ome"]["multiscales"][0]["datasets"]
    n_levels = 1 + int(np.ceil(np.log2(max(image.shape[-2:]) / 512))) if max(image.shape[-2:]) > 512 else 1
    assert len(datasets) == n_levels, f"OME-Zarr: expected {n_levels} levels, got {len(datasets)}"
    for level, dataset in enumerate(datasets):
        scale = dataset["coordinateTransformations"][0]["scale"]
        expected = [1.0 if a == "C" else spacing[a] * (2**level if a in "YX" else 1) for a in axes]
        assert np.allclose(scale, expected), f"OME-Zarr level {level}: expected scale {expected}, got {scale}"
    assert np.array_equal(root["0"][...], image), "OME-Zarr: level 0 pixels differ from the image"
    if channels:
        windows = [(c["window"]["start"], c["window"]["end"]) for c in root.attrs["ome"]["omero"]["channels"]]
        assert np.allclose(windows, ranges), (
            f"OME-Zarr: windows {windows}, expected 0.1-99.9th percentiles {np.round(ranges, 1).tolist()}"
        )
    if labels is not None:
        assert root["labels"].attrs["ome"]["labels"] == ["labels"], "OME-Zarr: expected a labels group"
        label_group = root["labels"]["labels"]
        assert "image-label" in label_group.attrs["ome"], "OME-Zarr labels: expected 'image-label' metadata"
        assert np.array_equal(label_group["0"][...], labels), "OME-Zarr labels: level 0 differs"
        for level in range(1, len(label_group.attrs["ome"]["multiscales"][0]["datasets"])):
            coarse = label_group[str(level)][...]
            assert set(np.unique(coarse)) <= set(np.unique(labels)), (
                f"OME-Zarr labels: level {level} holds ids that are not in the label image (interpolated)"
            )
    # figure: the scale bar, measured in the saved PNG
    with Image.open(paths["figure"]) as figure:
        rgb = np.asarray(figure.convert("RGB"))
    assert rgb.shape[:2] == image.shape[-2:], (
        f"figure: expected one image pixel per figure pixel {image.shape[-2:]}, got {rgb.shape[:2]}"
    )
    bar_um = namespace["save_bar_um"]
    if namespace.get("result_bar_um") is not None:
        assert bar_um == namespace["result_bar_um"], (
            f"figure: the user asked for a {namespace['result_bar_um']} µm bar"
        )
    bar_px = (rgb == 255).all(axis=2).sum(axis=1).max()
    expected_px = bar_um / spacing["X"]
    assert abs(bar_px - expected_px) <= 1, (
        f"figure: expected a {bar_um} µm bar of {expected_px:.0f} px at {spacing['X']} µm/px, got {bar_px} px"
    )
    assert f"{bar_um:g} µm" in namespace["save_caption"], "figure: the caption must state the bar length"
    # table and sidecar
    if TRUTH["table"] is not None:
        with open(paths["table"], newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        assert len(rows) == len(TRUTH["table"]["label"]), f"table: expected 300 rows, got {len(rows)}"
        volumes = [float(r["volume_um3"]) for r in rows]
        assert np.allclose(volumes, TRUTH["table"]["volume_um3"]), (
            "table: volumes differ from the planted ones"
        )
    with open(paths["sidecar"], encoding="utf-8") as handle:
        sidecar = json.load(handle)
    assert sidecar["spacing_um"] == list(TRUTH["spacing"]), f"sidecar: expected spacing {TRUTH['spacing']}"
    assert sidecar["channel_names"] == channels, f"sidecar: expected channels {channels}, got {sidecar}"
    assert os.path.dirname(paths["figure"]) == namespace["result_dir"], "every file belongs in result_dir"


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""
    return seeded_in(TRUTH, lambda: scene(seed), check)


VARIANTS = {
    "2-D float64 image, 70,000 labels (beyond uint16), the user's 20 µm scale bar": (_many_labels, check),
    "one channel at 0.065 µm pixels, no labels": (_fine_pixels, check),
}


def _in_nm():
    inputs = scene()
    return inputs | {"spacing_um": (800.0, 200.0, 200.0)}


def _ids_beyond_float32():
    labels = np.zeros((40, 60), np.uint32)
    labels[5:10, 5:10], labels[20:25, 30:35] = 1, 2**24 + 1
    return _inputs(np.ones((40, 60), np.uint16), "YX", labels, (0.2, 0.2), [])


REFUSALS = {
    "spacing given in nm": (_in_nm, r"spacing_um.*unit"),
    "a scale bar longer than half the image": (lambda: _many_labels(bar_um=40.0), r"40 µm bar.*half"),
    "label ids beyond float32's exact integers (ImageJ)": (_ids_beyond_float32, r"16,?777,?216.*relabel"),
}

# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
_MANY = "2-D float64 image, 70,000 labels (beyond uint16), the user's 20 µm scale bar"
MUTATIONS = [
    (
        "OME-TIFF pixel sizes labelled nm",
        '**{f"PhysicalSize{a}Unit": "µm" for a in save_spacing}',
        '**{f"PhysicalSize{a}Unit": "nm" for a in save_spacing}',
    ),
    (
        "ImageJ resolution written as µm per pixel instead of pixels per µm",
        'save_resolution = (1 / save_spacing["X"], 1 / save_spacing["Y"])',
        'save_resolution = (save_spacing["X"], save_spacing["Y"])',
    ),
    (
        "ImageJ z spacing left at 1",
        '"unit": "um", "spacing": save_spacing.get("Z", 1.0),\n',
        '"unit": "um", "spacing": 1.0,\n',
    ),
    (
        "scale bar length taken as pixels, not µm",
        'save_bar_px = round(save_bar_um / save_spacing["X"])',
        "save_bar_px = round(save_bar_um)",
    ),
    (
        "ImageJ labels squeezed into uint16",
        "else save_labels.astype(np.float32), imagej=True",
        "else save_labels.astype(np.uint16), imagej=True",
        _MANY,
    ),
    (
        "display window over the full range",
        "save_ranges = [np.percentile(p, [0.1, 99.9]) for p in save_planes]",
        "save_ranges = [np.percentile(p, [0, 100]) for p in save_planes]",
    ),
    (
        "the user's scale bar ignored",
        "save_bar_um = result_bar_um or max(",
        "save_bar_um = max(",
        _MANY,
    ),
]
