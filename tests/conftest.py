from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store

# An idle OpenBLAS thread spins for 2**28 cycles before it sleeps: with a worker per core and one
# more, numpy's pool in each worker spins on cores other workers need (the three procedure-gate
# modules on 3 workers, 2 cores: 100 s -> 74-86 s). 4 (2**4 cycles) is OpenBLAS's least. One
# thread per worker saved as much, but then every product runs in the calling thread, and in one
# full run spectral-unmixing stopped twice on "invalid value encountered in matmul", which its
# inputs never raised again in isolation (a floating-point flag left by an OpenBLAS kernel, as far
# as we could tell; this suite makes warnings errors). Set before anything imports numpy (zarr's
# pytest plugin would: see addopts); what the tests start inherits it.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto``: a worker per core and one more (up to ``--maxprocesses``), since much of the
    suite waits on kernels, servers, browsers and pip rather than computing (measured on 2 cores:
    389 s with 3 workers, 442 s with 2)."""
    return len(os.sched_getaffinity(0)) + 1


SEED_INDEX = """\
# Test docs

## References
- data: how arrays are laid out

## Procedures
- flatfield: correct uneven illumination
- stitch-tiles: assemble a grid of tiles

ignored: old-method
"""

SHIPPED = {
    "data": "---\ndescription: arrays, axes and units\n---\n# Data\n\nHow arrays are laid out.\n",
    "flatfield": "---\ndescription: fix shading\nupdated: 2026-01-02\n---\n# Flatfield\n\nStep one.\n",
    "stitch-tiles": "# Stitch tiles\n\nAssemble overlapping tiles into one canvas.\n",
    "old-method": "# Old method\n\nSuperseded.\n",
    "segment-nuclei": "---\ndescription: find the nuclei\n---\n# Nuclei\n\nNew in this release.\n",
    "_banked": "# Banked\n\nThin evidence.\n",
}


@dataclass
class Tiers:
    """A small shipped tier and an empty local tier under a test's tmp_path."""

    shipped: Path
    local: Path
    version: str = "1.0"

    def store(self, version: str | None = None) -> Store:
        return Store(self.shipped, self.local, version or self.version)

    def docs(self, version: str | None = None) -> Docs:
        return Docs(self.store(version))

    def ship(self, doc_id: str, text: str) -> Path:
        path = self.shipped / f"{doc_id}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def put_local(self, doc_id: str, text: str | bytes) -> Path:
        path = self.local / f"{doc_id}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    def local_text(self, doc_id: str) -> str:
        return (self.local / f"{doc_id}.md").read_text(encoding="utf-8")

    def seed(self) -> None:
        """Seed the local index as the first write does (a read creates nothing)."""
        from biopb_kernel_docs.core.seeding import index_file

        index_file(self.store())


@pytest.fixture(autouse=True)
def _hermetic_home(tmp_path_factory, monkeypatch):
    """Nothing a test runs may touch the real ~/.config, ~/.jupyter or ~/.ipython."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("IPYTHONDIR", str(home / ".ipython"))
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(home / ".jupyter"))
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(home / ".local/share/jupyter"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(home / ".local/share/jupyter/runtime"))


def build_tiers(root: Path) -> Tiers:
    """The small test store under ``root``: SEED_INDEX and SHIPPED shipped, the local tier empty."""
    made = Tiers(root / "shipped", root / "local")
    made.shipped.mkdir(parents=True)
    (made.shipped / "index.md").write_text(SEED_INDEX, encoding="utf-8")
    for doc_id, text in SHIPPED.items():
        made.ship(doc_id, text)
    return made


@pytest.fixture
def tiers(tmp_path) -> Tiers:
    return build_tiers(tmp_path)


@pytest.fixture
def docs(tiers) -> Docs:
    return tiers.docs()


def open_files() -> list[str]:
    """The files and folders this process holds open, by path. Sockets, pipes and event descriptors
    are left out: other tests' kernels and servers open and close those at any moment."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # closed since the listing (or the listing's own descriptor)
            continue
        if target.startswith("/"):
            found.append(target)
    return sorted(found)
