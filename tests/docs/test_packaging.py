"""§6 packaging gate: the wheel carries every shipped doc, banked ones included, and the index."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from .seed_docs import SEED_DIR, seed_ids

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        timeout=600,
    )
    (built,) = out.glob("biopb_kernel_docs-*.whl")
    with zipfile.ZipFile(built) as archive:
        yield archive


@pytest.mark.parametrize("doc_id", [*seed_ids(), "index"])
def test_every_doc_reaches_the_wheel_whole(wheel, doc_id):
    packed = wheel.read(f"biopb_kernel_docs/seed/{doc_id}.md")
    assert packed, f"{doc_id} is empty in the wheel"
    assert packed == (SEED_DIR / f"{doc_id}.md").read_bytes()


def test_banked_docs_ship(wheel):
    names = set(wheel.namelist())
    banked = [doc_id for doc_id in seed_ids() if doc_id.startswith("_")]
    assert banked
    assert all(f"biopb_kernel_docs/seed/{doc_id}.md" in names for doc_id in banked)


def test_wheel_carries_the_typed_package_and_the_command(wheel):
    names = set(wheel.namelist())
    assert "biopb_kernel_docs/py.typed" in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "biopb-kernel-docs = biopb_kernel_docs.cli:main" in wheel.read(entry_points).decode()
