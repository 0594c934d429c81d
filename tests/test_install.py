"""Installing as a user would: build the sdist and wheel, then a fresh environment from the wheel;
and the §6 packaging gate: the wheel carries every shipped doc, banked ones included, and the index.

One module, so one test process builds the distributions while the others run other tests (a
second module would have a process wait on the first one's build)."""

from __future__ import annotations

import json
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from .distributions import SDIST, WHEEL, built_distributions
from .docs.seed_docs import SEED_DIR, seed_ids
from .kernels import kernel_env

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    return built_distributions(tmp_path_factory)


@pytest.fixture(scope="module")
def wheel(dist) -> zipfile.ZipFile:
    with zipfile.ZipFile(dist / WHEEL) as archive:
        yield archive


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
    # pip from this environment installs into the new one (--python): the same resolver and the same
    # install, without seeding a copy of pip into it first (4 s of the test's CPU)
    venv.create(environment, with_pip=False)
    python = environment / "bin" / "python"
    (wheel,) = dist.glob("*.whl")
    # --no-compile: byte-compiling every dependency is a third of the install, and the doctor
    # below imports only a few modules
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    install = [*pip, "install", "--quiet", "--no-compile", str(wheel)]
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


# -- the §6 packaging gate ------------------------------------------------------------------------------


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
    assert "biopb-kernel-docs = biopb_kernel_docs.surfaces.cli:main" in wheel.read(entry_points).decode()


# -- the JupyterLab panel: `pip install` is all a user does, no `jupyter lab build` ------------------

LABEXTENSION = "share/jupyter/labextensions/biopb-kernel-docs"


def _data(wheel: zipfile.ZipFile, path: str) -> str:
    """The name of a shared-data file inside the wheel (``<name>-<version>.data/data/<path>``)."""
    matches = [n for n in wheel.namelist() if n.endswith(f".data/data/{path}")]
    assert matches, f"{path} is not in the wheel's shared data"
    return matches[0]


def test_the_wheel_carries_the_prebuilt_panel(wheel):
    names = set(wheel.namelist())
    manifest = json.loads(wheel.read(_data(wheel, f"{LABEXTENSION}/package.json")))
    assert manifest["name"] == "biopb-kernel-docs"
    assert manifest["jupyterlab"]["extension"] is True
    # the bundle JupyterLab loads, and every static asset beside it
    build = manifest["jupyterlab"]["_build"]
    entry = _data(wheel, f"{LABEXTENSION}/{build['load']}")
    assert wheel.read(entry), "the panel's remoteEntry is empty"
    statics = [n for n in names if f"{LABEXTENSION}/static/" in n]
    assert any(n.endswith("/static/style.js") for n in statics)
    scripts = [n for n in statics if n.endswith(".js")]
    assert len(scripts) >= 3, scripts  # remoteEntry, style.js and at least one chunk of the panel
    assert any(b"biopb-kernel-docs:plugin" in wheel.read(n) for n in scripts)
    # a production build: its license list is there and no source maps are
    assert any(n.endswith("/static/third-party-licenses.json") for n in statics)
    assert not [n for n in statics if n.endswith(".map")]


def test_the_wheel_installs_the_panel_as_a_python_managed_extension(wheel):
    install = json.loads(wheel.read(_data(wheel, f"{LABEXTENSION}/install.json")))
    assert install["packageManager"] == "python"
    assert install["packageName"] == "biopb-kernel-docs"
    assert "uninstall" in install["uninstallInstructions"]
    server = json.loads(
        wheel.read(_data(wheel, "etc/jupyter/jupyter_server_config.d/biopb_kernel_docs.json"))
    )
    assert server["ServerApp"]["jpserver_extensions"]["biopb_kernel_docs"] is True
