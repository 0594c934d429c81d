"""Scene for read-vendor-formats: real files in three formats, each with a metadata trap.

Written with the writers this machine has (tifffile for TIFF, OME-TIFF and ImageJ TIFF, pylibCZIrw
for CZI):

- ``series.ome.tif``: an OME-TIFF of two series (two scenes), T C Z Y X, channels with their dye
  and excitation/emission wavelengths. Scene 0 is calibrated in µm (0.2 µm, z step 1 µm, 30 s a
  frame); scene 1 in nm (130 nm), which bioio passes on as 130 "µm" unless the unit is read, with
  a frame time in ms (500 ms).
- ``stack.czi``: a CZI, C Z Y X, scales written in metres (0.1 µm, z 0.5 µm), three named channels.
- ``export.tif``: a plain TIFF with no calibration, which bioio reads as 1.0 µm with a placeholder
  channel name; the user supplies its pixel size (0.65 µm) and channel through ``vendor_user_meta``.

Variants: an ImageJ hyperstack calibrated in nm with a frame interval in ms (bioio reads neither
the interval nor the channel names), a 2-D CZI (bioio reports a z step of 0.0), channels named by
laser line with the dye in ``Fluor``. Refusals: channels that say nothing, a z step or a lateral
pixel in nm written without its unit, a time series with no time step, a user's pixel size the
file contradicts.

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

from ._cache import seeded_in

TRUTH: dict[tuple[str, int], dict[str, object]] = {}


def _folder() -> tuple[str, str]:
    folder = tempfile.mkdtemp(prefix="vendor-scene-")
    atexit.register(shutil.rmtree, folder, True)
    out_dir = os.path.join(folder, "zarr")
    os.mkdir(out_dir)
    TRUTH.clear()
    return folder, out_dir


def _truth(path, index, pixels, pixel_um, channels, frame_s=None, light=None, levels=1):
    TRUTH[(path, index)] = {
        "pixels": pixels,
        "pixel_um": pixel_um,
        "channels": channels,
        "frame_s": frame_s,
        "light": light,
        "levels": levels,
    }


def _czi(path, pixels, names, scale_z):
    """Write (C, Z, Y, X) pixels as a CZI with metre scales of 0.1 µm (and ``scale_z``)."""
    with pyczi.create_czi(path, exist_ok=True) as writer:
        for c in range(pixels.shape[0]):
            for z in range(pixels.shape[1]):
                writer.write(pixels[c, z], plane={"C": c, "Z": z, "T": 0})
        writer.write_metadata(
            channel_names=dict(enumerate(names)), scale_x=0.1e-6, scale_y=0.1e-6, scale_z=scale_z
        )


def scene(seed: int = 11) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    folder, out_dir = _folder()

    ome_path = os.path.join(folder, "series.ome.tif")
    light = {
        "ExcitationWavelength": [405.0, 488.0],
        "EmissionWavelength": [450.0, 520.0],
        "Fluor": ["DAPI", "EGFP"],
    }
    calibrations = [
        (
            {"PhysicalSizeX": 0.2, "PhysicalSizeY": 0.2, "PhysicalSizeZ": 1.0, "TimeIncrement": 30.0},
            (1.0, 0.2, 0.2),
            30.0,
            (2, 2, 4, 96, 80),
        ),
        (
            {
                "PhysicalSizeX": 130.0,
                "PhysicalSizeXUnit": "nm",
                "PhysicalSizeY": 130.0,
                "PhysicalSizeYUnit": "nm",
                "PhysicalSizeZ": 0.5,
                "TimeIncrement": 500.0,
                "TimeIncrementUnit": "ms",
            },
            (0.5, 0.13, 0.13),
            0.5,
            (2, 2, 3, 640, 600),  # larger than one 512 px tile: the pyramid gets a second level
        ),
    ]
    with tifffile.TiffWriter(ome_path, ome=True) as writer:
        for index, (sizes, zyx_um, frame_s, shape) in enumerate(calibrations):
            pixels = rng.integers(100, 4000, shape, dtype=np.uint16)
            writer.write(
                pixels,
                metadata={"axes": "TCZYX", **sizes, "Channel": {"Name": ["DAPI", "GFP"], **light}},
            )
            _truth(
                ome_path,
                index,
                pixels,
                zyx_um,
                ["DAPI", "GFP"],
                frame_s,
                [(405.0, 450.0, "DAPI"), (488.0, 520.0, "EGFP")],
                2 if max(shape[3:]) > 512 else 1,
            )

    czi_path = os.path.join(folder, "stack.czi")
    czi_pixels = rng.integers(0, 16000, (3, 5, 64, 72), dtype=np.uint16)  # C Z Y X
    _czi(czi_path, czi_pixels, ["Hoechst", "AF488", "AF647"], 0.5e-6)
    _truth(czi_path, 0, czi_pixels[None], (0.5, 0.1, 0.1), ["Hoechst", "AF488", "AF647"])

    plain_path = os.path.join(folder, "export.tif")
    plain_pixels = rng.integers(0, 255, (50, 70), dtype=np.uint8)
    tifffile.imwrite(plain_path, plain_pixels)
    _truth(plain_path, 0, plain_pixels[None, None, None], (None, 0.65, 0.65), ["GFP"])

    return {
        "vendor_paths": [ome_path, czi_path, plain_path],
        "vendor_zarr_dir": out_dir,
        "vendor_user_meta": {plain_path: {"pixel_um": (None, 0.65, 0.65), "channels": ["GFP"]}},
    }


def _one_file(name, write, user=None):
    """Inputs for one file written by ``write(path)`` into a fresh folder."""
    folder, out_dir = _folder()
    path = os.path.join(folder, name)
    write(path)
    return {
        "vendor_paths": [path],
        "vendor_zarr_dir": out_dir,
        "vendor_user_meta": {path: user} if user else {},
    }


def _imagej_in_nm() -> dict[str, object]:
    pixels = np.random.default_rng(2).integers(100, 4000, (3, 2, 2, 40, 50), dtype=np.uint16)  # TZCYX

    def write(path):
        tifffile.imwrite(
            path,
            pixels,
            imagej=True,
            resolution=(1 / 162.5, 1 / 162.5),
            metadata={"axes": "TZCYX", "spacing": 500, "unit": "nm", "finterval": 250, "tunit": "ms"},
        )
        _truth(path, 0, pixels.transpose(0, 2, 1, 3, 4), (0.5, 0.1625, 0.1625), ["DAPI", "GFP"], 0.25)

    # ImageJ stores no channel names bioio reads: the user names them
    return _one_file("hyperstack.tif", write, {"channels": ["DAPI", "GFP"]})


def _czi_2d() -> dict[str, object]:
    pixels = np.random.default_rng(3).integers(0, 4000, (2, 1, 30, 40), dtype=np.uint16)

    def write(path):
        _czi(path, pixels, ["DAPI", "GFP"], 0.0)
        _truth(path, 0, pixels[None], (None, 0.1, 0.1), ["DAPI", "GFP"])

    return _one_file("single_plane.czi", write)


def _ome(pixels, axes, **metadata):
    def write(path):
        tifffile.imwrite(path, pixels, metadata={"axes": axes, **metadata})

    return write


def _laser_lines() -> dict[str, object]:
    pixels = np.random.default_rng(4).integers(100, 4000, (2, 3, 40, 50), dtype=np.uint16)  # CZYX
    inputs = _one_file(
        "lines.ome.tif",
        _ome(
            pixels,
            "CZYX",
            PhysicalSizeX=0.1,
            PhysicalSizeY=0.1,
            PhysicalSizeZ=2000.0,
            PhysicalSizeZUnit="nm",
            Channel={
                "Name": ["405", "488"],
                "Fluor": ["Hoechst 33342", "AF488"],
                "ExcitationWavelength": [405.0, 488.0],
                "EmissionWavelength": [461.0, 519.0],
            },
        ),
    )
    path = inputs["vendor_paths"][0]
    _truth(
        path,
        0,
        pixels[None],
        (2.0, 0.1, 0.1),
        ["Hoechst 33342", "AF488"],
        light=[(405.0, 461.0, "Hoechst 33342"), (488.0, 519.0, "AF488")],
    )
    return inputs


def _pixels(shape):
    return np.random.default_rng(5).integers(100, 4000, shape, dtype=np.uint16)


def check(namespace: dict) -> None:
    rows = {(row["path"], row["index"]): row for row in namespace["vendor_table"]}
    assert set(rows) == set(TRUTH), f"expected scenes {sorted(TRUTH)}, the table lists {sorted(rows)}"
    for key, truth in TRUTH.items():
        row = rows[key]
        got = [None if v is None else round(v, 6) for v in row["pixel_um"]]
        assert got == [None if v is None else round(v, 6) for v in truth["pixel_um"]], (
            f"{key}: expected pixel size {truth['pixel_um']} µm (z None for one plane), the table says "
            f"{row['pixel_um']}"
        )
        assert row["channels"] == truth["channels"], (
            f"{key}: expected channels {truth['channels']}, got {row['channels']}"
        )
        assert row["frame_s"] == truth["frame_s"], (
            f"{key}: expected frame time {truth['frame_s']} s, got {row['frame_s']}"
        )
        if truth["light"] is not None:
            light = [row.get(k) for k in ("excitation_nm", "emission_nm", "fluor")]
            light = list(zip(*light, strict=True)) if None not in light else None
            assert light == truth["light"], (
                f"{key}: expected (excitation nm, emission nm, fluor) {truth['light']}, got {light}"
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
        if truth["frame_s"] is not None:
            assert np.isclose(scale[0], truth["frame_s"]), (
                f"{key}: expected a time scale of {truth['frame_s']} s, got {scale[0]}"
            )
        stored = group["0"][...]
        assert stored.shape == truth["pixels"].shape, (
            f"{key}: expected OME-Zarr level 0 of shape {truth['pixels'].shape}, got {stored.shape}"
        )
        assert np.array_equal(stored, truth["pixels"]), (
            f"{key}: OME-Zarr level 0 differs from the pixels written"
        )
        # display windows: the 0.1th-99.9th percentile of each channel's first time point (as save-results)
        for c, channel in enumerate(group.attrs["ome"]["omero"]["channels"]):
            lo, hi = np.percentile(truth["pixels"][0, c].max(axis=0), [0.1, 99.9])
            window = channel["window"]
            got = (window["start"], window["end"])
            assert np.allclose(got, (lo, hi)), (
                f"{key} channel {c}: window should be {lo:.0f}-{hi:.0f}, got {got[0]:.0f}-{got[1]:.0f}"
            )


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""
    return seeded_in(TRUTH, lambda: scene(seed), check)


VARIANTS = {
    "ImageJ hyperstack in nm with a frame interval in ms": (_imagej_in_nm, check),
    "a 2-D CZI (bioio reports z 0.0)": (_czi_2d, check),
    "channels named by laser line, the dye in Fluor, z step in nm": (_laser_lines, check),
}

REFUSALS = {
    "two channels that say nothing (Channel:0:N, no dye, no wavelength)": (
        lambda: _one_file(
            "unnamed.ome.tif", _ome(_pixels((2, 40, 50)), "CYX", PhysicalSizeX=0.2, PhysicalSizeY=0.2)
        ),
        r"Channel:0:0.*say nothing.*ask the user",
    ),
    "a z step in nm written without its unit (2000 read as µm)": (
        lambda: _one_file(
            "z_nm.ome.tif",
            _ome(
                _pixels((3, 40, 50)),
                "ZYX",
                PhysicalSizeX=0.2,
                PhysicalSizeY=0.2,
                PhysicalSizeZ=2000.0,
                Channel={"Name": ["DAPI"]},
            ),
        ),
        r"z step of 2000.*outside",
    ),
    "a lateral pixel in nm written without its unit (130 read as µm)": (
        lambda: _one_file(
            "xy_nm.ome.tif",
            _ome(
                _pixels((40, 50)), "YX", PhysicalSizeX=130.0, PhysicalSizeY=130.0, Channel={"Name": ["DAPI"]}
            ),
        ),
        r"130.*outside.*unit error",
    ),
    "a time series with no time step": (
        lambda: _one_file(
            "movie.ome.tif",
            _ome(
                _pixels((4, 40, 50)), "TYX", PhysicalSizeX=0.2, PhysicalSizeY=0.2, Channel={"Name": ["GCaMP"]}
            ),
        ),
        r"4 time points but no time step.*ask the user",
    ),
    "the user's pixel size contradicts the file's": (
        lambda: _one_file(
            "given.ome.tif",
            _ome(_pixels((40, 50)), "YX", PhysicalSizeX=0.2, PhysicalSizeY=0.2, Channel={"Name": ["DAPI"]}),
            {"pixel_um": (None, 0.65, 0.65)},
        ),
        r"0\.65.*0\.2.*ask",
    ),
}

# Mistakes the gate must catch (tests/docs/test_mutations.py): what the mistake is, the exact
# text in the doc's code, and its replacement; a 4th element names a VARIANT to run on.
MUTATIONS = [
    (
        "the OME length unit ignored (130 nm taken as 130 µm)",
        "v * vendor_to_um[u]",
        "v",
    ),
    (
        "the OME time unit ignored (500 ms taken as 500 s)",
        "vendor_pixels.time_increment * vendor_to_s[vendor_pixels.time_increment_unit.value]",
        "vendor_pixels.time_increment",
    ),
    (
        "ImageJ's frame interval taken in seconds whatever its tunit",
        'float(vendor_ij["finterval"]) * vendor_to_s[vendor_ij.get("tunit", "sec")]',
        'float(vendor_ij["finterval"])',
        "ImageJ hyperstack in nm with a frame interval in ms",
    ),
    (
        "a 2-D CZI's z step of 0.0 kept",
        "vendor_zyx[0] = vendor_zyx[0] or None",
        "vendor_zyx[0] = vendor_zyx[0]",
        "a 2-D CZI (bioio reports z 0.0)",
    ),
    (
        "channels named by laser line kept (the fluor not used)",
        'fl or (f"em {em:g} nm" if em else n) if vendor_blank.fullmatch(n)',
        "n if vendor_blank.fullmatch(n)",
        "channels named by laser line, the dye in Fluor, z step in nm",
    ),
    (
        "display window over the full range (16-bit data shows flat)",
        "np.percentile(vendor_planes, [0.1, 99.9]",
        "np.percentile(vendor_planes, [0, 100]",
    ),
]
