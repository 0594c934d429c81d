"""Scene for read-vendor-formats: three real files in three formats, each with a metadata trap.

Written with the writers this machine has (tifffile for TIFF and OME-TIFF, pylibCZIrw for CZI):

- ``series.ome.tif``: an OME-TIFF of two series (two scenes), T C Z Y X. Scene 0 is calibrated
  in µm (0.2 µm, z step 1 µm, 30 s a frame); scene 1 in nm (130 nm), which bioio passes through as
  130 "µm" unless the unit is read.
- ``stack.czi``: a CZI, C Z Y X, scales written in metres (0.1 µm, z 0.5 µm), three named channels.
- ``export.tif``: a plain TIFF with no calibration, which bioio reads as 1.0 µm with placeholder
  channel names; the user supplies its pixel size (0.65 µm) through ``vendor_pixel_size_um``.

ND2 and LIF have no writer here: those branches are not exercised (the doc says so).
Ground truth: the arrays and calibrations written, in ``TRUTH``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import numpy as np
import tifffile
import zarr
from pylibCZIrw import czi as pyczi

TRUTH: dict[tuple[str, int], dict[str, object]] = {}


def scene() -> dict[str, object]:
    rng = np.random.default_rng(11)
    folder = tempfile.mkdtemp(prefix="vendor-scene-")
    atexit.register(shutil.rmtree, folder, True)
    TRUTH.clear()

    ome_path = os.path.join(folder, "series.ome.tif")
    calibrations = [
        (
            {"PhysicalSizeX": 0.2, "PhysicalSizeY": 0.2, "PhysicalSizeZ": 1.0},
            (1.0, 0.2, 0.2),
            (2, 2, 4, 96, 80),
        ),
        (
            {
                "PhysicalSizeX": 130.0,
                "PhysicalSizeXUnit": "nm",
                "PhysicalSizeY": 130.0,
                "PhysicalSizeYUnit": "nm",
                "PhysicalSizeZ": 0.5,
            },
            (0.5, 0.13, 0.13),
            (2, 2, 3, 640, 600),  # larger than one 512 px tile: the pyramid gets a second level
        ),
    ]
    with tifffile.TiffWriter(ome_path, ome=True) as writer:
        for index, (sizes, zyx_um, shape) in enumerate(calibrations):
            pixels = rng.integers(100, 4000, shape, dtype=np.uint16)
            writer.write(
                pixels,
                metadata={
                    "axes": "TCZYX",
                    **sizes,
                    "TimeIncrement": 30.0,
                    "TimeIncrementUnit": "s",
                    "Channel": {"Name": ["DAPI", "GFP"]},
                },
            )
            TRUTH[(ome_path, index)] = {
                "pixels": pixels,
                "pixel_um": zyx_um,
                "channels": ["DAPI", "GFP"],
                "frame_s": 30.0,
                "levels": 2 if max(shape[3:]) > 512 else 1,
            }

    czi_path = os.path.join(folder, "stack.czi")
    czi_pixels = rng.integers(0, 16000, (3, 5, 64, 72), dtype=np.uint16)  # C Z Y X
    with pyczi.create_czi(czi_path, exist_ok=True) as writer:
        for c in range(czi_pixels.shape[0]):
            for z in range(czi_pixels.shape[1]):
                writer.write(czi_pixels[c, z], plane={"C": c, "Z": z, "T": 0})
        writer.write_metadata(
            channel_names={0: "Hoechst", 1: "AF488", 2: "AF647"},
            scale_x=0.1e-6,
            scale_y=0.1e-6,
            scale_z=0.5e-6,
        )
    TRUTH[(czi_path, 0)] = {
        "pixels": czi_pixels[None],
        "pixel_um": (0.5, 0.1, 0.1),
        "channels": ["Hoechst", "AF488", "AF647"],
        "frame_s": None,
        "levels": 1,
    }

    plain_path = os.path.join(folder, "export.tif")
    plain_pixels = rng.integers(0, 255, (50, 70), dtype=np.uint8)
    tifffile.imwrite(plain_path, plain_pixels)
    TRUTH[(plain_path, 0)] = {
        "pixels": plain_pixels[None, None, None],
        "pixel_um": (None, 0.65, 0.65),
        "channels": None,
        "frame_s": None,
        "levels": 1,
    }

    out_dir = os.path.join(folder, "zarr")
    os.mkdir(out_dir)
    return {
        "vendor_paths": [ome_path, czi_path, plain_path],
        "vendor_zarr_dir": out_dir,
        "vendor_pixel_size_um": {plain_path: (None, 0.65, 0.65)},
    }


def check(namespace: dict) -> None:
    rows = {(row["path"], row["index"]): row for row in namespace["vendor_table"]}
    assert set(rows) == set(TRUTH), f"expected scenes {sorted(TRUTH)}, the table lists {sorted(rows)}"
    for key, truth in TRUTH.items():
        row = rows[key]
        got = [None if v is None else round(v, 6) for v in row["pixel_um"]]
        assert got == [None if v is None else round(v, 6) for v in truth["pixel_um"]], (
            f"{key}: expected pixel size {truth['pixel_um']} µm, the table says {row['pixel_um']}"
        )
        if truth["channels"] is not None:
            assert row["channels"] == truth["channels"], (
                f"{key}: expected channels {truth['channels']}, got {row['channels']}"
            )
        else:
            assert row["placeholder_names"], (
                f"{key}: expected the placeholder channel names flagged, got {row}"
            )
            assert row["pixel_source"] == "user", f"{key}: expected the user's pixel size used, got {row}"
        assert row["frame_s"] == truth["frame_s"], (
            f"{key}: expected frame time {truth['frame_s']} s, got {row['frame_s']}"
        )
        # the OME-Zarr output, read with zarr alone, against the planted pixels and calibration
        group = zarr.open_group(namespace["vendor_zarr_paths"][(row["path"], row["scene"])], mode="r")
        multiscale = group.attrs["ome"]["multiscales"][0]
        assert len(multiscale["datasets"]) == truth["levels"], (
            f"{key}: expected {truth['levels']} pyramid levels, the output has {len(multiscale['datasets'])}"
        )
        scale = multiscale["datasets"][0]["coordinateTransformations"][0]["scale"]
        assert np.allclose(scale[3:], truth["pixel_um"][1:]), (
            f"{key}: expected yx scale {truth['pixel_um'][1:]}, got {scale[3:]}"
        )
        if truth["pixel_um"][0] is not None:
            assert np.isclose(scale[2], truth["pixel_um"][0]), (
                f"{key}: expected z scale {truth['pixel_um'][0]}, got {scale[2]}"
            )
        stored = group["0"][...]
        assert stored.shape == truth["pixels"].shape, (
            f"{key}: expected OME-Zarr level 0 of shape {truth['pixels'].shape}, got {stored.shape}"
        )
        assert np.array_equal(stored, truth["pixels"]), (
            f"{key}: OME-Zarr level 0 differs from the pixels written"
        )
