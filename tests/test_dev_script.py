"""``./dev start`` as a new user runs it: flags reach JupyterLab, verbs reach the command line."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

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


def test_dev_start_opens_jupyterlab_with_its_flags_on_a_workspace_outside_the_tree(tmp_path):
    port = _free_port()
    server = subprocess.Popen(
        [str(ROOT / "dev"), "start", "--no-browser", f"--port={port}", "--ServerApp.token=test-token"],
        env=_dev_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
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
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        output = server.communicate(timeout=60)[0]
    (line,) = [line for line in output.splitlines() if line.startswith("biopb docs: ")]
    assert line.startswith("biopb docs: local docs in ")
    assert "attach an agent with %docs_connect" in line
