"""``./dev start`` as a new user runs it: flags reach JupyterLab, verbs reach the command line."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest
from playwright.sync_api import expect, sync_playwright

from .kernels import kernel_env

ROOT = Path(__file__).resolve().parents[1]
VENV = Path(sys.executable).parent.parent


def _dev_env(home: Path) -> dict[str, str]:
    env = kernel_env(home)
    env["BIOPB_DOCS_VENV"] = str(VENV)  # the venv the suite runs in: `start` adds nothing it lacks
    env["BIOPB_DOCS_WORKSPACE"] = str(home / "workspace")
    return env


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_dev_start_passes_verbs_to_the_command_line(tmp_path):
    done = subprocess.run(
        [str(ROOT / "dev"), "start", "config", "--docs-local-dir", str(tmp_path / "docs")],
        env=_dev_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert re.search(
        rf"^docs_local_dir +{re.escape(str(tmp_path / 'docs'))}    \(the command line\)$", done.stdout, re.M
    )


def test_dev_start_knows_every_verb_of_the_command_line():
    import argparse

    from biopb_kernel_docs.surfaces.cli import build_parser

    [subparsers] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    script = (ROOT / "dev").read_text()
    [listed] = re.findall(r'^verbs=" (.*) "$', script, re.M)
    assert sorted(listed.split()) == sorted(subparsers.choices)  # restore, skills, bench, ... all pass
    [usage] = re.findall(r"usage: \./dev start \[JUPYTERLAB ARGS\.\.\. \| ([a-z|]+) ARGS", script)
    assert usage.split("|") == listed.split()


# tests/test_handlers.py loads pytest-jupyter for the whole session; two of its autouse fixtures
# would close the event loop Playwright's sync API keeps running. This module starts no
# pytest-jupyter server, so both stand down here (as in test_panel_browser).
@pytest.fixture(autouse=True)
def jp_asyncio_loop():
    return None


@pytest.fixture(autouse=True)
def jp_server_cleanup():
    return None


def _check_first_layout(url: str) -> None:
    """In Debian's chromium: the getting-started notebook is the open document and the Kernel Docs
    panel is shown in the left sidebar, with no click. A screenshot goes to test-artifacts/."""
    with sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=shutil.which("chromium") or "/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu"],
        )
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.goto(url)
            notebook_tab = page.locator("li.lm-TabBar-tab.lm-mod-current", has_text="getting-started.ipynb")
            notebook_tab.wait_for(state="visible", timeout=120_000)
            expect(page.locator(".jp-NotebookPanel:visible")).to_have_count(1)
            page.locator(".jp-NotebookPanel .jp-MarkdownCell").first.wait_for(timeout=60_000)
            expect(page.locator("#biopb-kernel-docs-panel")).to_be_visible()
            panel_tab = page.locator('li.lm-TabBar-tab[data-id="biopb-kernel-docs-panel"]')
            expect(panel_tab).to_have_class(re.compile("lm-mod-current"))
            (ROOT / "test-artifacts").mkdir(exist_ok=True)
            page.screenshot(path=str(ROOT / "test-artifacts" / "dev-start-first-layout.png"))
        finally:
            browser.close()


def _stop(server: subprocess.Popen, home: Path) -> None:
    """Stop JupyterLab as a terminal would (SIGTERM), then make sure nothing it started is left:
    its process group, and the kernels it started in sessions of their own (their command lines
    name a connection file under ``home``)."""
    os.killpg(server.pid, signal.SIGTERM)
    try:
        # a clean stop takes a second or two; about half the stops here hang in the interpreter's
        # exit instead, joining an idle anyio worker thread of Jupyter Server's that never returns
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=30)
    for process in psutil.process_iter(["cmdline"]):
        if any(str(home) in part for part in process.info["cmdline"] or ()):
            with contextlib.suppress(psutil.Error):
                process.kill()


def test_dev_start_opens_jupyterlab_with_its_flags_on_a_workspace_outside_the_tree(tmp_path):
    port = _free_port()
    log = tmp_path / "server.log"
    # The output goes to a file, not a pipe: a kernel the server started inherits it and can hold a
    # pipe open long after the server is gone (this test then waited out its whole timeout).
    with open(log, "w") as output:
        server = subprocess.Popen(
            [str(ROOT / "dev"), "start", "--no-browser", f"--port={port}", "--ServerApp.token=test-token"],
            env=_dev_env(tmp_path),
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 300
        status = None
        while time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/api/status?token=test-token", timeout=2
                ) as reply:
                    status = reply.status
                    break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.2)  # polling a port that is still closed: the condition is the answer
        assert status == 200, "JupyterLab did not answer on the port given to ./dev start"
        with urllib.request.urlopen(
            f"http://127.0.0.1:{port}/biopb-kernel-docs/api/index?token=test-token", timeout=10
        ) as reply:
            assert reply.status == 200  # the server extension is there
        assert (tmp_path / "workspace" / "getting-started.ipynb").is_file()
        assert not (ROOT / "getting-started.ipynb").exists()
        _check_first_layout(f"http://127.0.0.1:{port}/lab?token=test-token")
    finally:
        _stop(server, tmp_path)
    (line,) = [line for line in log.read_text().splitlines() if line.startswith("biopb docs: ")]
    assert line.startswith("biopb docs: local docs in ")
    assert "attach an agent with %docs_connect" in line


# -- what a first start says (rough edge 6) -----------------------------------------------------------

FAKE_PYTHON = """#!/usr/bin/env bash
# A venv's python, as far as ./dev uses it: pip prints this machine's configuration warnings.
if [ "$1" = -m ] && [ "$2" = pip ]; then
  echo "WARNING: Location 'file:///opt/pypi/simple/tqdm/' is ignored: it is neither a file nor a dir." >&2
  [ -n "${FAIL_PIP:-}" ] && { echo "ERROR: No matching distribution found for jupyterlab>=4.6" >&2; exit 1; }
  echo "Successfully installed biopb-kernel-docs-0.1.0"
  exit 0
fi
exec {real_python} "$@"
"""
FAKE_JLPM = """#!/usr/bin/env bash
# jlpm as build.sh uses it: yarn's usual peer-dependency warnings, then success.
echo "➤ YN0060: │ @jupyterlab/services is listed by your project with version 7.6.6, which doesn't satisfy"
case "$1" in
  install) mkdir -p node_modules ;;
  build) out=../biopb_kernel_docs/labextension/static; mkdir -p $out && touch $out/style.js ;;
esac
"""
FAKE_BUILDER = """#!/usr/bin/env bash
echo "(Deprecated) 'jupyter labextension build' is deprecated, use 'jupyter-builder build'" >&2
"""


def _fake_venv(tmp_path: Path) -> Path:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    scripts = {
        "python": FAKE_PYTHON.replace("{real_python}", sys.executable),
        "jlpm": FAKE_JLPM,
        "jupyter-builder": FAKE_BUILDER,
        "biopb-kernel-docs": '#!/usr/bin/env bash\necho "biopb-kernel-docs $*"\n',
    }
    for name, text in scripts.items():
        (venv / "bin" / name).write_text(text)
        (venv / "bin" / name).chmod(0o755)
    return venv


def test_a_first_start_says_what_it_installs_and_shows_no_pip_or_yarn_warnings(tmp_path):
    venv = _fake_venv(tmp_path)
    env = {**_dev_env(tmp_path), "BIOPB_DOCS_VENV": str(venv)}
    done = subprocess.run(
        [str(ROOT / "dev"), "start", "config"], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    said = done.stderr.splitlines()
    assert said[0] == f"./dev: updating pip in {venv}..."
    assert (
        f"./dev: installing biopb-kernel-docs with its lab extras into {venv} (pip; the first time" in said[2]
    )
    assert "./dev: linking the panel into" in done.stderr
    assert done.stderr.count("./dev: done in ") == 3
    assert "WARNING" not in done.stderr  # pip's configuration warnings stay in its log
    assert "Deprecated" not in done.stderr
    assert "is ignored" in (venv / "pip.log").read_text()
    assert done.stdout == "biopb-kernel-docs config\n"


def test_a_failing_install_shows_the_end_of_its_log(tmp_path):
    venv = _fake_venv(tmp_path)
    env = {**_dev_env(tmp_path), "BIOPB_DOCS_VENV": str(venv), "FAIL_PIP": "1"}
    done = subprocess.run(
        [str(ROOT / "dev"), "start", "config"], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    assert f"./dev: that failed. The end of its log ({venv}/pip.log):" in done.stderr
    assert "ERROR: No matching distribution found for jupyterlab>=4.6" in done.stderr


def test_the_panel_build_says_what_it_does_and_keeps_yarn_warnings_in_its_log(tmp_path):
    root = tmp_path / "checkout"
    (root / "labextension").mkdir(parents=True)
    for name in ("build.sh", "package.json", "yarn.lock", "tsconfig.json"):
        shutil.copy2(ROOT / "labextension" / name, root / "labextension" / name)
    for folder in ("src", "style"):
        shutil.copytree(ROOT / "labextension" / folder, root / "labextension" / folder)
    venv = _fake_venv(tmp_path)
    env = {**_dev_env(tmp_path), "BIOPB_DOCS_VENV": str(venv)}
    done = subprocess.run(
        [str(root / "labextension" / "build.sh")], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0].startswith("./dev: installing the panel's JavaScript packages (jlpm")
    assert "./dev: building the Kernel Docs panel (jlpm build)..." in done.stderr
    assert "YN0060" not in done.stderr + done.stdout
    assert "YN0060" in (venv / "panel-build.log").read_text()
