"""Scene for batch-process: a small plate of OME-TIFF fields, with the faults a real run meets.

12 wells (rows B-D, columns 2-5) x 3 fields = 36 OME-TIFFs named ``plate1_<well>_f<field>.ome.tif``,
each 128 x 128 px at 0.65 µm/px with channels "DAPI" and "GFP". The DAPI channel holds 4-12 round
nuclei (radius 6 px), planted per field, blurred by a Gaussian (SD 1 px), on an offset with shot
noise. Three faults are planted: one file is truncated (unreadable), one field is out of focus
(blur SD 6 px), one is saturated (gain x 200, clipped at 65535). The analysis handed to the
procedure (``batch_analyse``) is a small threshold-and-label counter with two settings.

Ground truth: the nuclei planted per field, and which file carries which fault.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import tempfile

import numpy as np
import tifffile
from scipy import ndimage as ndi
from skimage import measure

PIXEL_SIZE_UM = 0.65
TRUTH: dict[str, object] = {}


def count_nuclei(image, pixel_size_um, threshold_sd, min_area_um2):
    """The user's validated analysis of one field: nuclei above a noise threshold, by area."""
    smooth = ndi.gaussian_filter(image, 1.0)
    level = np.median(smooth)
    sd = 1.4826 * np.median(np.abs(smooth - level))
    regions = measure.regionprops(measure.label(smooth > level + threshold_sd * sd))
    areas = [r.area * pixel_size_um**2 for r in regions if r.area * pixel_size_um**2 >= min_area_um2]
    return {"n_objects": len(areas), "mean_area_um2": float(np.mean(areas)) if areas else float("nan")}


def _field(rng, n, blur, gain):
    yy, xx = np.mgrid[:128, :128]
    signal = np.zeros((128, 128))
    centres: list[np.ndarray] = []
    while len(centres) < n:
        c = rng.uniform(10, 118, 2)
        if all(np.hypot(*(c - o)) > 22 for o in centres):  # gaps of 10 px: the counter never merges
            centres.append(c)
            signal[np.hypot(yy - c[0], xx - c[1]) <= 6] = 400.0
    dapi = rng.poisson(gain * (ndi.gaussian_filter(signal, blur) + 20)) + 100
    gfp = rng.poisson(np.full((128, 128), 60.0)) + 100
    return np.clip(np.stack([dapi, gfp]), 0, 65535).astype(np.uint16)


def scene() -> dict[str, object]:
    rng = np.random.default_rng(17)
    folder = tempfile.mkdtemp(prefix="batch-scene-")
    atexit.register(shutil.rmtree, folder, True)
    paths, planted = [], {}
    faults = {"C03_f1": "unreadable", "B04_f2": "focus", "D05_f1": "saturated"}
    for row in "BCD":
        for col in range(2, 6):
            for field in (1, 2, 3):
                key = f"{row}{col:02d}_f{field}"
                n = int(rng.integers(4, 13))
                fault = faults.get(key)
                pixels = _field(
                    rng, n, 6.0 if fault == "focus" else 1.0, 200.0 if fault == "saturated" else 1.0
                )
                path = os.path.join(folder, f"plate1_{key}.ome.tif")
                tifffile.imwrite(
                    path,
                    pixels,
                    metadata={
                        "axes": "CYX",
                        "PhysicalSizeX": PIXEL_SIZE_UM,
                        "PhysicalSizeY": PIXEL_SIZE_UM,
                        "Channel": {"Name": ["DAPI", "GFP"]},
                    },
                )
                if fault == "unreadable":
                    with open(path, "r+b") as handle:
                        handle.truncate(300)
                paths.append(path)
                planted[path] = (f"{row}{col:02d}", n, fault)
    TRUTH.update(planted=planted)
    out_dir = os.path.join(folder, "results")
    os.mkdir(out_dir)
    return {
        "batch_paths": paths,
        "batch_pattern": r"_(?P<well>[A-P]\d{2})_f(?P<field>\d+)\.ome\.tif$",
        "batch_channel": "DAPI",
        "batch_analyse": count_nuclei,
        "batch_settings": {"threshold_sd": 5.0, "min_area_um2": 20.0},
        "batch_out_dir": out_dir,
    }


def check(namespace: dict) -> None:
    planted = TRUTH["planted"]
    rows = {row["path"]: row for row in namespace["batch_rows"]}
    assert set(rows) == set(planted), f"expected one row per file ({len(planted)}), got {len(rows)}"
    for path, (_, n, fault) in planted.items():
        row, name = rows[path], os.path.basename(path)
        if fault == "unreadable":
            assert row["status"] == "failed", (
                f"{name}: expected status 'failed' (truncated file), got {row['status']!r}"
            )
        elif fault == "focus":
            assert "out of focus" in row["flags"], (
                f"{name}: expected the flag 'out of focus', got {row['flags']}"
            )
        elif fault == "saturated":
            assert "saturated" in row["flags"], f"{name}: expected the flag 'saturated', got {row['flags']}"
        else:
            assert row["status"] == "ok", f"{name}: expected status ok, got {row['status']} ({row['error']})"
            assert not row["flags"], f"{name}: expected no QC flag, got {row['flags']}"
            assert row["n_objects"] == n, (
                f"{name}: expected {n} nuclei, the batch recorded {row['n_objects']}"
            )
    wells = namespace["batch_wells"]
    for well in sorted({w for w, _, _ in planted.values()}):
        good = [n for w, n, fault in planted.values() if w == well and fault is None]
        assert wells[well]["fields"] == len(good), (
            f"{well}: expected {len(good)} fields used, got {wells[well]['fields']}"
        )
        assert wells[well]["n_objects"] == sum(good), (
            f"{well}: expected {sum(good)} nuclei, got {wells[well]['n_objects']}"
        )
    with open(namespace["batch_record_path"], encoding="utf-8") as handle:
        record = json.load(handle)
    assert record["settings"] == {"threshold_sd": 5.0, "min_area_um2": 20.0}, (
        f"record: settings are {record['settings']}"
    )
    assert {"numpy", "bioio"} <= set(record["versions"]), (
        f"record: versions cover only {sorted(record['versions'])}"
    )
    for entry in record["files"]:
        with open(entry["path"], "rb") as handle:
            digest = hashlib.sha256(handle.read()).hexdigest()
        assert entry["sha256"] == digest, f"record: the checksum of {entry['path']} does not match the file"
    with open(namespace["batch_table_path"], encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    assert len(lines) == len(planted) + 1, (
        f"table: expected a header and {len(planted)} rows, got {len(lines)} lines"
    )
