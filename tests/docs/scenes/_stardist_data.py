"""Real annotated nuclei that nobody on this project drew or tuned to: the sample images the
``stardist`` 0.9.2 distribution ships (``stardist/data/images/``): ``img2d.tif`` with
``mask2d.tif`` (a 512 x 512 widefield nuclear stain, 125 annotated nuclei) and ``img3d.tif`` with
``mask3d.tif`` (51 nuclei).

The distribution is fetched once with pip (``pip download --no-deps``, from PyPI, as CI can) into
a cache directory outside the repository, and the images are read out of the archive; stardist is
never imported or installed, and no image is committed here. ``BIOPB_DOCS_DATA_CACHE`` moves the
cache.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
import zipfile
from functools import cache
from pathlib import Path

import numpy as np
import tifffile

from ..fetch_once import fetch_once

VERSION = "0.9.2"
CACHE = Path(os.environ.get("BIOPB_DOCS_DATA_CACHE") or Path.home() / ".cache" / "biopb-kernel-docs") / (
    f"stardist-{VERSION}"
)


@cache
def _archive() -> Path:
    def found() -> list[Path]:
        wheels, sources = CACHE.glob(f"stardist-{VERSION}*.whl"), CACHE.glob(f"stardist-{VERSION}*.tar.gz")
        return sorted(wheels) + sorted(sources)

    def fetch() -> None:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", f"stardist=={VERSION}"]
        subprocess.run([*command, "--dest", str(CACHE)], check=True, capture_output=True, timeout=600)

    fetch_once(CACHE, lambda: bool(found()), fetch)
    assert found(), f"pip left no stardist {VERSION} archive in {CACHE}"
    return found()[0]


@cache
def image(name: str) -> np.ndarray:
    """One of the archive's ``stardist/data/images/<name>`` files as an array (read-only)."""
    archive = _archive()
    if archive.suffix == ".whl":
        data = zipfile.ZipFile(archive).read(f"stardist/data/images/{name}")
    else:
        with tarfile.open(archive) as tar:
            member = next(m for m in tar.getmembers() if m.name.endswith(f"/stardist/data/images/{name}"))
            data = tar.extractfile(member).read()
    array = tifffile.imread(io.BytesIO(data))
    array.flags.writeable = False
    return array


def sample(stem: str) -> np.ndarray:
    """``img2d``, ``mask2d``, ``img3d`` or ``mask3d`` (read-only)."""
    return image(f"{stem}.tif")
