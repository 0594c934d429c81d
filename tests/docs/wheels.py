"""Wheels of packages that cannot be installed here, fetched from PyPI to be read, never imported.

A doc's model block may import a package too heavy to install where the docs are tested
(cellpose needs torch, stardist tensorflow). The contract gate still reads such a package: the
newest release inside the doc's declared range is fetched once as a wheel, without its
dependencies (``pip download --no-deps --only-binary=:all:``, from PyPI, as CI can), into a cache
outside the repository, and its Python source and metadata are read out of the archive. The cache
is reused while it holds a wheel inside the range (empty it to check a newer release);
``BIOPB_DOCS_DATA_CACHE`` moves it, as for ``scenes/_stardist_data.py``.
"""

from __future__ import annotations

import email.parser
import os
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename

from .fetch_once import fetch_once

CACHE = (
    Path(os.environ.get("BIOPB_DOCS_DATA_CACHE") or Path.home() / ".cache" / "biopb-kernel-docs") / "wheels"
)


class WheelUnavailable(Exception):
    """No wheel inside the range could be fetched (no such release, or PyPI unreachable)."""


@dataclass(frozen=True)
class Wheel:
    path: Path
    name: str  # the canonical distribution name
    version: str


def _cached(requirement: Requirement) -> list[Wheel]:
    wheels = []
    for path in CACHE.glob("*.whl"):
        try:
            name, version, _, _ = parse_wheel_filename(path.name)
        except InvalidWheelFilename:
            continue
        if name == canonicalize_name(requirement.name) and requirement.specifier.contains(
            version, prereleases=True
        ):
            wheels.append(Wheel(path, name, str(version)))
    return sorted(wheels, key=lambda wheel: parse_wheel_filename(wheel.path.name)[1], reverse=True)


@cache
def newest_wheel(requirement: str) -> Wheel:
    """The newest wheel of ``requirement`` (``"cellpose>=4.0"``): from the cache, else from PyPI."""
    parsed = Requirement(requirement)
    parsed.marker = None

    def fetch() -> None:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet"]
        done = subprocess.run(
            [*command, "--dest", str(CACHE), str(parsed)], capture_output=True, text=True, timeout=900
        )
        if done.returncode != 0:
            said = " ".join(done.stderr.strip().splitlines()[-2:])
            raise WheelUnavailable(
                f"pip found no wheel of {parsed} on PyPI ({said}): check that a release exists inside "
                "that range, and correct the doc's packages: entry if none does"
            )

    fetch_once(CACHE, lambda: bool(_cached(parsed)), fetch)
    found = _cached(parsed)
    if not found:
        raise WheelUnavailable(f"pip reported success but left no wheel of {parsed} in {CACHE}")
    return found[0]


@cache
def python_sources(wheel: Wheel) -> dict[str, tuple[str, bool]]:
    """Module name -> (its source, whether it is a package's ``__init__``)."""
    sources = {}
    with zipfile.ZipFile(wheel.path) as archive:
        for member in archive.namelist():
            top = member.split("/")[0]
            if not member.endswith(".py") or top.endswith((".dist-info", ".data")):
                continue
            parts = member.removesuffix(".py").split("/")
            is_package = parts[-1] == "__init__"
            name = ".".join(parts[:-1] if is_package else parts)
            sources[name] = (archive.read(member).decode("utf-8", errors="replace"), is_package)
    return sources


def top_level_modules(wheel: Wheel) -> frozenset[str]:
    return frozenset(name.split(".")[0] for name in python_sources(wheel))


@cache
def run_requirements(wheel: Wheel) -> tuple[Requirement, ...]:
    """The wheel's ``Requires-Dist`` that apply here without an extra (its METADATA)."""
    with zipfile.ZipFile(wheel.path) as archive:
        metadata = next(m for m in archive.namelist() if m.endswith(".dist-info/METADATA"))
        headers = email.parser.Parser().parsestr(archive.read(metadata).decode("utf-8"))
    environment = {**default_environment(), "extra": ""}
    requirements = (Requirement(line) for line in headers.get_all("Requires-Dist") or [])
    return tuple(r for r in requirements if r.marker is None or r.marker.evaluate(environment))
