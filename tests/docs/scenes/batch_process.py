"""Scene for batch-process: plates of OME-TIFF fields, with the faults a real run meets.

The main plate: 12 wells (rows B-D, columns 2-5) x 3 fields = 36 OME-TIFFs named
``plate1_<well>_f<field>.ome.tif``, each 128 x 128 px at 0.65 µm/px with channels "DAPI" and "GFP".
The DAPI channel holds 4-12 round nuclei (radius 6 px), planted per field, blurred by a Gaussian
(SD 1 px), on an offset with shot noise. Three faults are planted: one file is truncated
(unreadable), one field is out of focus (blur SD 6 px), one is saturated (gain x 200, clipped at the
camera's ceiling). The analysis handed to the procedure (``batch_analyse``) is a small
threshold-and-label counter with two settings, which also reports the mean nucleus area in µm².

Variants and refusals vary what a real plate varies: the calibration written in nm (650 nm, which
bioio passes on as 650 "µm"), a 12-bit camera in uint16 (clipped at 4095, with and without
``SignificantBits`` declared), a 12-file run (one bad file is within the 10 % rule, two are not), a
plain TIFF export with no calibration (the reader's 1.0 placeholder), a user's pixel size that
disagrees with the files'.

Ground truth: per field, the nuclei planted, the fault, and the analysis' own result on the
written pixels at the true pixel size (so a wrong calibration shows in ``mean_area_um2``).
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

from ._cache import seeded_in

PIXEL_SIZE_UM = 0.65
TRUTH: dict[str, object] = {}
SETTINGS = {"threshold_sd": 5.0, "min_area_um2": 20.0}


def count_nuclei(image, pixel_size_um, threshold_sd, min_area_um2):
    """The user's validated analysis of one field: nuclei above a noise threshold, by area."""
    smooth = ndi.gaussian_filter(image, 1.0)
    level = np.median(smooth)
    sd = 1.4826 * np.median(np.abs(smooth - level))
    regions = measure.regionprops(measure.label(smooth > level + threshold_sd * sd))
    areas = [r.area * pixel_size_um**2 for r in regions if r.area * pixel_size_um**2 >= min_area_um2]
    return {"n_objects": len(areas), "mean_area_um2": float(np.mean(areas)) if areas else float("nan")}


def _field(rng, n, size, blur, gain, ceiling):
    yy, xx = np.mgrid[:size, :size]
    signal = np.zeros((size, size))
    centres: list[np.ndarray] = []
    while len(centres) < n:
        c = rng.uniform(10, size - 10, 2)
        if all(np.hypot(*(c - o)) > 22 for o in centres):  # gaps of 10 px: the counter never merges
            centres.append(c)
            signal[np.hypot(yy - c[0], xx - c[1]) <= 6] = 400.0
    dapi = rng.poisson(gain * (ndi.gaussian_filter(signal, blur) + 20)) + 100
    gfp = rng.poisson(np.full((size, size), 60.0)) + 100
    return np.clip(np.stack([dapi, gfp]), 0, ceiling).astype(np.uint16)


def _plate(
    rows="BCD",
    cols=range(2, 6),
    fields=(1, 2, 3),
    size=128,
    faults=(("C03_f1", "unreadable"), ("B04_f2", "focus"), ("D05_f1", "saturated")),
    unit="µm",
    bits=16,
    declare_bits=False,
    user_um=None,
    seed=17,
):
    """Write a plate of fields and return the procedure's inputs; ``TRUTH`` gets what was planted.

    ``unit`` is the calibration's unit in the OME-XML ("µm", "nm"), or None for plain TIFFs with no
    calibration; ``bits`` the camera's bit depth (pixels clip at 2**bits - 1), written as OME
    ``SignificantBits`` when ``declare_bits``.
    """
    rng = np.random.default_rng(seed)
    folder = tempfile.mkdtemp(prefix="batch-scene-")
    atexit.register(shutil.rmtree, folder, True)
    faults = dict(faults)
    paths, planted = [], {}
    for row in rows:
        for col in cols:
            for field in fields:
                key = f"{row}{col:02d}_f{field}"
                n = int(rng.integers(4, 13 if size >= 128 else 8))
                fault = faults.get(key)
                pixels = _field(
                    rng,
                    n,
                    size,
                    6.0 if fault == "focus" else 1.0,
                    200.0 if fault == "saturated" else 1.0,
                    2**bits - 1,
                )
                suffix = ".tif" if unit is None else ".ome.tif"
                path = os.path.join(folder, f"plate1_{key}{suffix}")
                if unit is None:
                    tifffile.imwrite(path, pixels, metadata={"axes": "CYX"})  # no calibration
                else:
                    size_nm = PIXEL_SIZE_UM * 1000 if unit == "nm" else PIXEL_SIZE_UM
                    metadata = {
                        "axes": "CYX",
                        "PhysicalSizeX": size_nm,
                        "PhysicalSizeXUnit": unit,
                        "PhysicalSizeY": size_nm,
                        "PhysicalSizeYUnit": unit,
                        "Channel": {"Name": ["DAPI", "GFP"]},
                    }
                    if declare_bits:
                        metadata["SignificantBits"] = bits
                    tifffile.imwrite(path, pixels, metadata=metadata)
                expected = count_nuclei(pixels[0].astype(np.float32), PIXEL_SIZE_UM, **SETTINGS)
                if fault == "unreadable":
                    with open(path, "r+b") as handle:
                        handle.truncate(300)
                paths.append(path)
                planted[path] = (f"{row}{col:02d}", n, fault, expected["mean_area_um2"])
    TRUTH.clear()
    TRUTH.update(planted=planted)
    out_dir = os.path.join(folder, "results")
    os.mkdir(out_dir)
    return {
        "batch_paths": paths,
        "batch_pattern": r"_(?P<well>[A-P]\d{2})_f(?P<field>\d+)\.(ome\.)?tif$",
        "batch_channel": "DAPI" if unit is not None else "Channel:0:0",
        "batch_analyse": count_nuclei,
        "batch_settings": dict(SETTINGS),
        "batch_out_dir": out_dir,
        "batch_pixel_size_um": user_um,
    }


def scene() -> dict[str, object]:
    return _plate()


def check(namespace: dict) -> None:
    planted = TRUTH["planted"]
    rows = {row["path"]: row for row in namespace["batch_rows"]}
    assert set(rows) == set(planted), f"expected one row per file ({len(planted)}), got {len(rows)}"
    for path, (_, n, fault, area_um2) in planted.items():
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
            assert "saturated" in row["flags"], (
                f"{name}: expected the flag 'saturated' (clipped at the camera's ceiling), got "
                f"{row['flags']} with {row.get('saturated', 0):.2%} of pixels counted as saturated"
            )
        else:
            assert row["status"] == "ok", f"{name}: expected status ok, got {row['status']} ({row['error']})"
            assert not row["flags"], f"{name}: expected no QC flag, got {row['flags']}"
            assert row["n_objects"] == n, (
                f"{name}: expected {n} nuclei, the batch recorded {row['n_objects']}"
            )
            # the analysis at the true 0.65 µm gives this mean area; a wrong unit scales it by 10^6
            assert np.isclose(row["mean_area_um2"], area_um2, rtol=1e-6), (
                f"{name}: expected a mean nucleus area of {area_um2:.1f} µm² (pixel {PIXEL_SIZE_UM} µm), "
                f"the batch recorded {row['mean_area_um2']:.4g} µm² at pixel {row.get('pixel_um')} µm"
            )
    wells = namespace["batch_wells"]
    for well in sorted({w for w, *_ in planted.values()}):
        good = [n for w, n, fault, _ in planted.values() if w == well and fault is None]
        assert wells[well]["fields"] == len(good), (
            f"{well}: expected {len(good)} fields used, got {wells[well]['fields']}"
        )
        assert wells[well]["n_objects"] == sum(good), (
            f"{well}: expected {sum(good)} nuclei, got {wells[well]['n_objects']}"
        )
    with open(namespace["batch_record_path"], encoding="utf-8") as handle:
        record = json.load(handle)
    assert record["settings"] == SETTINGS, f"record: settings are {record['settings']}"
    assert np.isclose(record["pixel_um"], PIXEL_SIZE_UM), (
        f"record: expected pixel size {PIXEL_SIZE_UM} µm, got {record['pixel_um']}"
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


def _nm_without_unit() -> dict[str, object]:
    """A plate whose writer put the nm value in PhysicalSizeX but no unit, so it reads as 650 µm."""
    inputs = _plate(**_SMALL, faults=())
    for path in inputs["batch_paths"]:
        with tifffile.TiffFile(path) as tif:
            pixels = tif.asarray()
        tifffile.imwrite(
            path,
            pixels,
            metadata={
                "axes": "CYX",
                "PhysicalSizeX": 650.0,
                "PhysicalSizeY": 650.0,
                "Channel": {"Name": ["DAPI", "GFP"]},
            },
        )
    return inputs


# A 12-file run: 4 wells x 3 fields of 96 px, a 12-bit camera clipped at 4095 in uint16.
_SMALL = {"rows": "BC", "cols": (2, 3), "size": 96}
_ONE_CLIPPED = (("B03_f2", "saturated"),)
_TWO_BAD = (("B03_f2", "saturated"), ("C02_f1", "focus"))


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""
    return seeded_in(TRUTH, lambda: _plate(seed=seed), check)


VARIANTS = {
    "calibration in nm": (lambda: _plate(unit="nm"), check),
    "12-bit camera, SignificantBits declared, 12 files with one clipped": (
        lambda: _plate(**_SMALL, faults=_ONE_CLIPPED, bits=12, declare_bits=True),
        check,
    ),
    "12-bit camera, bit depth not declared, 12 files with one clipped": (
        lambda: _plate(**_SMALL, faults=_ONE_CLIPPED, bits=12, seed=5),
        check,
    ),
    "plain TIFFs with no calibration, the user's pixel size": (
        lambda: _plate(**_SMALL, faults=_ONE_CLIPPED, unit=None, user_um=PIXEL_SIZE_UM),
        check,
    ),
}

REFUSALS = {
    "plain TIFFs with no calibration, no pixel size from the user": (
        lambda: _plate(**_SMALL, faults=(), unit=None),
        r"no pixel size.*batch_pixel_size_um",
    ),
    "the user's pixel size disagrees with the files'": (
        lambda: _plate(**_SMALL, faults=(), user_um=1.3),
        r"1\.3 µm.*0\.65 µm.*ask",
    ),
    "a calibration in nm written without its unit (650 read as µm)": (
        _nm_without_unit,
        r"650.*outside.*unit",
    ),
    "12 files, two bad (a 12-bit clipped field and a blurred one): over the 10 % rule": (
        lambda: _plate(**_SMALL, faults=_TWO_BAD, bits=12),
        r"2 of 12 files failed or were flagged",
    ),
}


# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
_DECLARED = "12-bit camera, SignificantBits declared, 12 files with one clipped"
_UNDECLARED = "12-bit camera, bit depth not declared, 12 files with one clipped"
_PLAIN = "plain TIFFs with no calibration, the user's pixel size"
MUTATIONS = [
    (
        "the OME unit ignored (650 nm taken as 650 µm)",
        "batch_x *= batch_to_um[batch_pixels.physical_size_x_unit.value]",
        "batch_x *= 1.0",
        "calibration in nm",
    ),
    (
        "the reader's 1.0 placeholder taken as a calibration",
        "elif batch_x == 1.0:",
        "elif False:",
        _PLAIN,
    ),
    (
        "the declared significant bits ignored (ceiling 65535 for a 12-bit camera)",
        "2**batch_bits - 1 if",
        "2**16 - 1 if",
        _DECLARED,
    ),
    (
        "the dtype's maximum instead of the plate's highest value",
        'batch_row["ceiling"] or batch_plate_top',
        'batch_row["ceiling"] or 65535',
        _UNDECLARED,
    ),
    (
        "saturation threshold 10 % of a field instead of 0.1 %",
        "batch_max_saturated, batch_max_bad = 0.001, 0.1",
        "batch_max_saturated, batch_max_bad = 0.1, 0.1",
    ),
    (
        "defocus cut-off at 0.3 x the median instead of 0.7",
        "batch_focus_mid + np.log(0.7)",
        "batch_focus_mid + np.log(0.3)",
    ),
]
