"""A kernel the server starts can exit before it answers; the bridge starts another, a bounded number
of times, and says why when none comes up.

The kernels here are real ipykernels behind a kernelspec whose launcher first takes the kernel's
control port, as another process may between jupyter_client picking the ports and the kernel
binding them: that kernel exits with "Address already in use".
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import anyio
import pytest

from biopb_kernel_docs.bridge import client as bridge_client
from biopb_kernel_docs.bridge.client import KernelDocsClient
from biopb_kernel_docs.core.errors import KernelDied
from biopb_kernel_docs.core.values import IndexView

from .kernels import kernel_env

pytestmark = pytest.mark.anyio

LAUNCHER = """\
import json, socket, sys
connection_file, starts_file, taken = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(starts_file, "a") as starts:
    starts.write("start\\n")
with open(starts_file) as starts:
    number = len(starts.read().split())
if number <= taken:  # another process holds this kernel's control port
    port = json.load(open(connection_file))["control_port"]
    held = socket.socket()
    held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    held.bind(("127.0.0.1", port))
    held.listen()
from ipykernel.kernelapp import launch_new_instance
launch_new_instance(["-f", connection_file, *sys.argv[4:]])
"""


@pytest.fixture
def anyio_backend():
    return "asyncio"


def _kernelspec(tmp_path: Path, monkeypatch, taken: int) -> Path:
    """A kernelspec ``contested`` whose first ``taken`` starts find their control port taken."""
    home = tmp_path / "home"
    for name, value in kernel_env(home).items():
        monkeypatch.setenv(name, value)
    launcher = tmp_path / "launcher.py"
    launcher.write_text(LAUNCHER)
    starts = tmp_path / "starts"
    spec = tmp_path / "kernels-path" / "kernels" / "contested"
    spec.mkdir(parents=True)
    argv = [sys.executable, str(launcher), "{connection_file}", str(starts), str(taken)]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "contested"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "kernels-path"))
    return starts


def _client(tiers) -> KernelDocsClient:
    return KernelDocsClient(
        kernel_name="contested",
        kernel_args=(f"--DocStore.docs_local_dir={tiers.local}", f"--DocStore.shipped_dir={tiers.shipped}"),
        call_timeout=60,
    )


async def test_a_kernel_that_exits_at_start_is_started_again_and_the_call_answers(
    tmp_path, monkeypatch, tiers
):
    starts = _kernelspec(tmp_path, monkeypatch, taken=1)
    docs = _client(tiers)
    try:
        view = await docs.call("index")
    finally:
        await docs.close()
    assert isinstance(view, IndexView)
    assert "# Test docs" in view.text
    assert starts.read_text().split() == ["start", "start"]


async def test_a_kernel_that_never_comes_up_is_reported_after_the_attempts_not_the_start_timeout(
    tmp_path, monkeypatch, tiers
):
    starts = _kernelspec(tmp_path, monkeypatch, taken=bridge_client.START_ATTEMPTS)
    # Were a death waited out rather than seen, this start would wait an hour and miss the deadline.
    monkeypatch.setattr(bridge_client, "START_TIMEOUT_SECONDS", 3600.0)
    docs = _client(tiers)
    try:
        with anyio.fail_after(300):
            with pytest.raises(KernelDied, match=r"exited before answering .*python -m ipykernel --version"):
                await docs.call("index")
    finally:
        await docs.close()
    assert len(starts.read_text().split()) == 3
    assert bridge_client.START_ATTEMPTS == 3


def test_the_launcher_really_takes_the_port(tmp_path):
    # The scene must be what it claims: a bound control port makes ipykernel's bind fail.
    held = socket.socket()
    held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    held.bind(("127.0.0.1", 0))
    held.listen()
    try:
        import zmq

        context = zmq.Context.instance()
        probe = context.socket(zmq.ROUTER)
        with pytest.raises(zmq.ZMQError, match="Address already in use"):
            probe.bind(f"tcp://127.0.0.1:{held.getsockname()[1]}")
        probe.close(0)
    finally:
        held.close()
