"""Scene for save-results: a two-channel z-stack, its label image and a measurement table.

A (C, Z, Y, X) = (2, 6, 96, 700) uint16 stack at spacing (0.8, 0.2, 0.2) µm, channels "DAPI" and
"GFP"; wider than 512 px, so the OME-Zarr gets a second pyramid level. Its label image
(Z, Y, X) holds 300 small boxes with ids 1-300, more than uint8 can hold, so a writer that
narrows the dtype loses objects. A table with one row per object (label, volume in µm³). All is
written into a fresh temporary directory.

Ground truth: the arrays, calibration and table themselves; the check reads every file back
with other readers than the procedure used (tifffile's XML parse, zarr, Pillow, csv).
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

SPACING_UM = (0.8, 0.2, 0.2)
CHANNELS = ["DAPI", "GFP"]
TRUTH: dict[str, object] = {}


def scene() -> dict[str, object]:
    rng = np.random.default_rng(4)
    image = rng.integers(100, 3000, (2, 6, 96, 700), dtype=np.uint16)
    labels = np.zeros((6, 96, 700), np.uint16)
    for i in range(300):
        row, col = divmod(i, 50)
        labels[1:5, 4 + 15 * row : 14 + 15 * row, 4 + 14 * col : 12 + 14 * col] = i + 1
    ids = np.arange(1, 301)
    table = {"label": ids, "volume_um3": np.bincount(labels.ravel())[1:] * float(np.prod(SPACING_UM))}
    TRUTH.update(image=image, labels=labels, table=table)
    folder = tempfile.mkdtemp(prefix="save-scene-")
    atexit.register(shutil.rmtree, folder, True)
    return {
        "result_image": image,
        "result_axes": "CZYX",
        "result_labels": labels,
        "result_table": table,
        "spacing_um": SPACING_UM,
        "channel_names": CHANNELS,
        "result_dir": folder,
        "result_name": "sample1",
    }


def check(namespace: dict) -> None:
    paths = namespace["save_paths"]
    # OME-TIFF: tifffile's own OME-XML parse, not the reader the procedure used
    with tifffile.TiffFile(paths["ome_tiff"]) as tif:
        pixels = tifffile.xml2dict(tif.ome_metadata)["OME"]["Image"]["Pixels"]
        stored = tif.series[0].asarray()
    for axis, value in zip("ZYX", SPACING_UM, strict=True):
        got = float(pixels[f"PhysicalSize{axis}"])
        unit = pixels.get(f"PhysicalSize{axis}Unit", "µm")
        assert np.isclose(got, value), f"OME-TIFF: expected PhysicalSize{axis} {value} µm, got {got} {unit}"
        assert unit == "µm", f"OME-TIFF: expected PhysicalSize{axis}Unit µm, got {unit}"
    names = [c["Name"] for c in pixels["Channel"]]
    assert names == CHANNELS, f"OME-TIFF: expected channels {CHANNELS}, got {names}"
    assert np.array_equal(stored, TRUTH["image"]), (
        f"OME-TIFF: pixels differ (stored {stored.shape} {stored.dtype})"
    )
    labels = tifffile.imread(paths["labels_tiff"])
    n_ids = len(np.unique(labels)) - 1
    assert labels.dtype.itemsize >= 2, (
        f"label OME-TIFF: expected uint16 or wider, got {labels.dtype} ({n_ids} ids)"
    )
    assert np.array_equal(labels, TRUTH["labels"]), (
        f"label OME-TIFF: ids differ from the 300 planted ({n_ids} ids)"
    )
    # OME-Zarr: scale per level from zarr alone, and the NGFF labels group
    root = zarr.open_group(paths["ome_zarr"], mode="r")
    datasets = root.attrs["ome"]["multiscales"][0]["datasets"]
    assert len(datasets) == 2, f"OME-Zarr: expected 2 levels for a 700 px wide image, got {len(datasets)}"
    for level, dataset in enumerate(datasets):
        scale = dataset["coordinateTransformations"][0]["scale"]
        expected = [1.0, SPACING_UM[0], SPACING_UM[1] * 2**level, SPACING_UM[2] * 2**level]
        assert np.allclose(scale, expected), f"OME-Zarr level {level}: expected scale {expected}, got {scale}"
    assert np.array_equal(root["0"][...], TRUTH["image"]), "OME-Zarr: level 0 pixels differ from the image"
    assert root["labels"].attrs["ome"]["labels"] == ["labels"], (
        "OME-Zarr: expected a labels group listing 'labels'"
    )
    label_group = root["labels"]["labels"]
    assert "image-label" in label_group.attrs["ome"], "OME-Zarr labels: expected 'image-label' metadata"
    stored_labels = label_group["0"][...]
    assert np.array_equal(stored_labels, TRUTH["labels"]), (
        f"OME-Zarr labels: level 0 differs ({stored_labels.dtype}, {len(np.unique(stored_labels)) - 1} ids)"
    )
    coarse = label_group["1"][...]
    assert set(np.unique(coarse)) <= set(np.unique(TRUTH["labels"])), (
        "OME-Zarr labels: level 1 holds ids that are not in the label image (interpolated, not subsampled)"
    )
    # figure: the scale bar, measured in the saved PNG
    with Image.open(paths["figure"]) as figure:
        rgb = np.asarray(figure.convert("RGB"))
    assert rgb.shape[:2] == TRUTH["image"].shape[2:], (
        f"figure: expected one image pixel per figure pixel {TRUTH['image'].shape[2:]}, got {rgb.shape[:2]}"
    )
    bar_um = namespace["save_bar_um"]
    white_rows = (rgb == 255).all(axis=2).sum(axis=1)
    bar_px = white_rows.max()
    expected_px = bar_um / SPACING_UM[2]
    assert abs(bar_px - expected_px) <= 1, (
        f"figure: expected a {bar_um} µm bar of {expected_px:.0f} px, got {bar_px} px"
    )
    assert f"{bar_um:g} µm" in namespace["save_caption"], "figure: the caption must state the bar length"
    # table and sidecar
    with open(paths["table"], newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 300, f"table: expected 300 rows, got {len(rows)}"
    volumes = [float(r["volume_um3"]) for r in rows]
    assert np.allclose(volumes, TRUTH["table"]["volume_um3"]), "table: volumes differ from the planted ones"
    with open(paths["sidecar"], encoding="utf-8") as handle:
        sidecar = json.load(handle)
    assert sidecar["spacing_um"] == list(SPACING_UM), f"sidecar: expected spacing {SPACING_UM}, got {sidecar}"
    assert sidecar["channel_names"] == CHANNELS, f"sidecar: expected channels {CHANNELS}, got {sidecar}"
    assert os.path.dirname(paths["figure"]) == namespace["result_dir"], "every file belongs in result_dir"
