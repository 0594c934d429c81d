"""Annotated sample images from the stardist 0.9.2 wheel on PyPI, read out of the wheel (never imported).

``stardist/data/images`` holds img2d.tif + mask2d.tif (125 annotated nuclei, from the 2018 Data
Science Bowl) and img3d.tif + mask3d.tif (51 nuclei, a synthetic 3-D stack). The wheel is
downloaded once with pip into a cache directory (``BIOPB_DOCS_TEST_CACHE``, else
``~/.cache/biopb-kernel-docs-tests``); the data files are never committed.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile
from functools import cache
from pathlib import Path

import numpy as np
import tifffile

VERSION = "0.9.2"


def _cache_dir() -> Path:
    default = Path.home() / ".cache" / "biopb-kernel-docs-tests"
    return Path(os.environ.get("BIOPB_DOCS_TEST_CACHE", default)) / f"stardist-{VERSION}"


@cache
def _wheel() -> Path:
    where = _cache_dir()
    found = sorted(where.glob(f"stardist-{VERSION}-*.whl"))
    if not found:
        where.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                f"stardist=={VERSION}",
                "-d",
                str(where),
            ],
            check=True,
        )
        found = sorted(where.glob(f"stardist-{VERSION}-*.whl"))
    assert found, f"pip left no stardist {VERSION} wheel in {where}"
    return found[0]


@cache
def sample(name: str) -> np.ndarray:
    """``img2d``, ``mask2d``, ``img3d`` or ``mask3d`` as an array (read-only)."""
    with zipfile.ZipFile(_wheel()) as wheel:
        array = tifffile.imread(io.BytesIO(wheel.read(f"stardist/data/images/{name}.tif")))
    array.flags.writeable = False
    return array
