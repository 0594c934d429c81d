"""Installing as a user would: build the sdist and wheel, then a fresh environment from the wheel."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pytest

from .distributions import SDIST, WHEEL, built_distributions
from .kernels import kernel_env

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    return built_distributions(tmp_path_factory)


def test_python_m_build_makes_an_sdist_and_a_wheel_that_twine_accepts(dist):
    built = sorted(dist.glob("biopb_kernel_docs-*"))
    assert [path.name for path in built] == [WHEEL, SDIST]
    done = subprocess.run(
        [str(Path(sys.executable).with_name("twine")), "check", "--strict", *map(str, built)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2


def test_a_fresh_environment_from_the_wheel_passes_every_doctor_check_but_jupyterlab(dist, tmp_path):
    """Without the lab extra there is no JupyterLab: the doctor says so, and names the extra."""
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    (wheel,) = dist.glob("*.whl")
    # --no-compile: byte-compiling every dependency is a third of the install, and the doctor
    # below imports only a few modules
    install = [str(python), "-m", "pip", "install", "--quiet", "--no-compile", str(wheel)]
    subprocess.run(install, check=True, timeout=900)
    done = subprocess.run(
        [str(environment / "bin" / "biopb-kernel-docs"), "doctor"],
        env={**kernel_env(tmp_path / "home"), "PATH": f"{environment / 'bin'}:/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    for check in ("kernel config", "server extension", "panel", "local docs", "shipped seed", "kernel"):
        assert f"ok   {check}:" in done.stdout, done.stdout
    assert f"FAIL jupyterlab: JupyterLab is not installed in {environment}" in done.stdout
    assert 'fix: pip install "biopb-kernel-docs[lab]"' in done.stdout
    assert "1 check failed" in done.stdout
    assert str(environment / "share/jupyter/labextensions/biopb-kernel-docs") in done.stdout
