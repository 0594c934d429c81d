"""The sdist and the wheel, built once per test run and shared by the tests that need them.

``python -m build`` makes the sdist, then the wheel from it (so a file the sdist leaves out fails
the wheel's build), as a user's build would; without build isolation, since the test extra
already installs the build backend and its panel hook. pytest-xdist workers share one build: the
first to ask builds it, the others wait on its lock and reuse it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .docs.fetch_once import fetch_once

ROOT = Path(__file__).resolve().parents[1]
WHEEL = "biopb_kernel_docs-0.1.0-py3-none-any.whl"
SDIST = "biopb_kernel_docs-0.1.0.tar.gz"


def _run_root(factory: pytest.TempPathFactory) -> Path:
    """A folder of this test run alone: under xdist each worker's temp folder sits in the run's."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_distributions(factory: pytest.TempPathFactory) -> Path:
    """The folder holding this run's sdist and wheel (built by the first test that asks)."""
    out = _run_root(factory) / "dist"

    # the panel's build hook runs jlpm, which sits beside this interpreter (jupyter-builder)
    path = os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", "")))

    def build() -> None:
        done = subprocess.run(
            [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
            capture_output=True,
            text=True,
            timeout=900,
            env={**os.environ, "PATH": path},
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    fetch_once(out, lambda: (out / WHEEL).is_file() and (out / SDIST).is_file(), build)
    return out
