"""The bridge's client against real kernels: failed starts, dead kernels and writes in flight.

One kernel of the client's own serves the module: a test that kills it leaves the next call to
start another, which is itself one of the behaviours pinned here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest

from biopb_kernel_docs.bridge import client as bridge_client
from biopb_kernel_docs.bridge.client import KernelDocsClient
from biopb_kernel_docs.core.errors import KernelDied, KernelUnavailable
from biopb_kernel_docs.core.lock import TierLock
from biopb_kernel_docs.core.values import IndexView, WriteResult

from .conftest import build_tiers

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(not Path("/proc").is_dir(), reason="watches the kernel process through /proc"),
]
CALL_TIMEOUT_SECONDS = 30.0
NOTICED_WITHIN_SECONDS = 10.0  # a death must be seen well before the call timeout


@pytest.fixture(scope="module")
def anyio_backend():
    return "asyncio"


@pytest.fixture(scope="module")
def module_tiers(tmp_path_factory):
    return build_tiers(tmp_path_factory.mktemp("client-tiers"))


def _store_args(tiers) -> tuple[str, ...]:
    return (f"--DocStore.docs_local_dir={tiers.local}", f"--DocStore.shipped_dir={tiers.shipped}")


@pytest.fixture(scope="module")
async def owned(module_tiers):
    """A client whose kernel it started itself."""
    client = KernelDocsClient(kernel_args=_store_args(module_tiers), call_timeout=CALL_TIMEOUT_SECONDS)
    yield client
    await client.close()


def _pid(client: KernelDocsClient) -> int:
    assert client._manager is not None
    assert client._manager.provisioner is not None
    return client._manager.provisioner.process.pid


def _gone(pid: int) -> bool:
    """Whether the kernel (a child of this process) has exited so that its exit can be collected.

    A zombie in /proc is not enough: a multi-threaded process shows 'Z' while its other threads are
    still exiting, and waitpid, which the bridge's liveness check uses, does not report it yet."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True  # already collected


def _holds_open(pid: int, path: Path) -> bool:
    try:
        descriptors = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for descriptor in descriptors:
        try:
            if os.readlink(descriptor) == str(path):
                return True
        except OSError:
            continue
    return False


def _bridge_warnings(caplog) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == bridge_client.log.name]


async def _until(condition, within: float = 20.0) -> None:
    with anyio.fail_after(within):
        while not condition():
            await anyio.sleep(0.02)


async def _kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    await _until(lambda: _gone(pid))


@dataclass(frozen=True)
class InFlight:
    outcome: object  # what the call returned or raised
    answered_after: float  # seconds from the kill to the outcome
    doc: Path


@pytest.fixture(scope="module")
async def write_in_flight_when_the_kernel_dies(owned, module_tiers) -> InFlight:
    """A write the kernel cannot finish (this process holds the tier's lock); the kernel is killed
    once the write waits on that lock, then the lock is freed."""
    module_tiers.seed()  # a read creates nothing: the local tier and its lock file exist first
    assert isinstance(await owned.call("index"), IndexView)  # a live kernel, its channel open
    pid = _pid(owned)
    outcome: list[object] = []

    async def write() -> None:
        try:
            outcome.append(await owned.call("write_doc", id="lab/in-flight", body="# In flight\n"))
        except Exception as err:
            outcome.append(err)

    lock = TierLock(str(module_tiers.local / ".lock"), 1.0)
    async with anyio.create_task_group() as tasks:
        with lock.held():
            tasks.start_soon(write)
            await _until(lambda: _holds_open(pid, module_tiers.local / ".lock"))  # waiting in the kernel
            killed = time.monotonic()
            await _kill(pid)
        with anyio.fail_after(CALL_TIMEOUT_SECONDS + 30):
            while not outcome:
                await anyio.sleep(0.02)
        answered_after = time.monotonic() - killed
    return InFlight(outcome[0], answered_after, module_tiers.local / "lab/in-flight.md")


async def test_a_write_in_flight_when_the_kernel_dies_errors_and_is_never_resent(
    write_in_flight_when_the_kernel_dies, module_tiers
):
    scene = write_in_flight_when_the_kernel_dies
    assert isinstance(scene.outcome, KernelDied), scene.outcome
    assert "died" in str(scene.outcome)
    assert not scene.doc.exists()
    assert "lab/in-flight" not in module_tiers.local_text("index")


async def test_a_kernel_that_dies_during_a_call_is_noticed_within_seconds_not_at_the_timeout(
    write_in_flight_when_the_kernel_dies,
):
    scene = write_in_flight_when_the_kernel_dies
    assert bridge_client.LIVENESS_CHECK_SECONDS == 1.0
    assert isinstance(scene.outcome, KernelDied), scene.outcome
    assert scene.answered_after < NOTICED_WITHIN_SECONDS, (
        f"the death was noticed {scene.answered_after:.1f} s after the kill"
    )


async def test_the_owned_kernel_is_restarted_before_a_write_not_only_a_read(owned, module_tiers, caplog):
    assert isinstance(await owned.call("index"), IndexView)
    dead = _pid(owned)
    await _kill(dead)
    caplog.clear()  # what the call logs, not what came before
    with caplog.at_level("WARNING", logger=bridge_client.log.name):
        result = await owned.call("write_doc", id="lab/after-restart", body="# After a restart\n")
    assert _bridge_warnings(caplog) == ["the bridge's kernel died; starting a new one"]
    assert isinstance(result, WriteResult)
    assert _pid(owned) != dead
    assert module_tiers.local_text("lab/after-restart") == "# After a restart\n"


async def test_a_failed_attach_is_forgotten_and_the_next_call_attaches(tmp_path, owned):
    assert isinstance(await owned.call("index"), IndexView)
    later = tmp_path / "kernel-later.json"
    client = KernelDocsClient(connection_file=str(later), call_timeout=CALL_TIMEOUT_SECONDS)
    try:
        with pytest.raises(KernelUnavailable, match=str(later)):
            await client.call("index")
        assert owned._manager is not None
        shutil.copy(owned._manager.connection_file, later)  # the kernel's connection file appears
        assert isinstance(await client.call("index"), IndexView)
    finally:
        await client.close()  # detaches; the kernel is the owning client's


async def test_a_write_that_times_out_says_it_may_still_land_and_it_does(module_tiers):
    module_tiers.seed()
    client = KernelDocsClient(kernel_args=_store_args(module_tiers), call_timeout=2.0)
    try:
        assert isinstance(await client.call("index"), IndexView)  # started: the timeout is the write's
        lock = TierLock(str(module_tiers.local / ".lock"), 1.0)  # the kernel's write waits on it
        with lock.held(), pytest.raises(KernelUnavailable) as timed_out:
            await client.call("write_doc", id="lab/late", body="# Late\n")
        assert str(timed_out.value) == (
            "The kernel did not answer write_doc within 2 s, although it is alive: something in it holds "
            "the interpreter. Retry shortly. A write_doc that timed out may still land: read_doc before "
            "retrying."
        )
        await _until(lambda: (module_tiers.local / "lab/late.md").is_file())
    finally:
        await client.close()


OUTLIVING_KERNEL_SCRIPT = """
import subprocess, sys
from biopb_kernel_docs.bridge.client import _filtered_stderr
stderr = _filtered_stderr()
kernel = subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(60)"], stdout=subprocess.DEVNULL, stderr=stderr
)
print(kernel.pid, flush=True)
"""


def test_a_kernel_still_running_never_holds_up_the_exit_of_the_process_that_started_it():
    # the stderr forwarder reads until the kernel closes its end; the process must not wait for it
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", OUTLIVING_KERNEL_SCRIPT], capture_output=True, text=True, timeout=50
    )
    took = time.monotonic() - started
    os.kill(int(done.stdout.split()[0]), signal.SIGKILL)
    assert done.returncode == 0, done.stderr
    assert took < 30, f"the process took {took:.0f} s to exit: it waited on the kernel's stderr"


async def test_a_kernel_of_its_own_gives_the_client_a_subshell_at_the_first_request(module_tiers, caplog):
    # a subshell asked for before the kernel's main shell is up is never answered (ipykernel 7.4):
    # the client then warns and falls back to the main shell, which a running cell blocks
    client = KernelDocsClient(kernel_args=_store_args(module_tiers), call_timeout=CALL_TIMEOUT_SECONDS)
    try:
        with caplog.at_level("WARNING", logger=bridge_client.log.name):
            assert isinstance(await client.call("index"), IndexView)
        assert client.has_subshells
        assert client._subshell is not None
        assert not caplog.records, [record.getMessage() for record in caplog.records]
    finally:
        await client.close()


def _reader_behind_the_lock(tmp_path: Path):
    """A client whose first read seeds the local tier under its lock: while the test holds the lock,
    each kernel the read starts waits on it. Returns the client, the read (its outcome, value or
    error, lands in the list) and the lock's path."""
    tiers = build_tiers(tmp_path)
    tiers.local.mkdir()
    client = KernelDocsClient(kernel_args=_store_args(tiers), call_timeout=CALL_TIMEOUT_SECONDS)
    outcome: list[object] = []

    async def read() -> None:
        try:
            outcome.append(await client.call("index"))
        except Exception as err:
            outcome.append(err)

    return client, read, outcome, tiers.local / ".lock"


async def test_a_read_whose_kernel_dies_twice_fails_with_kernel_died_after_one_retry(tmp_path):
    client, read, outcome, lock_path = _reader_behind_the_lock(tmp_path)
    try:
        with TierLock(str(lock_path), 1.0).held():
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(read)
                killed: list[int] = []
                for _ in range(2):
                    await _until(lambda: client._manager is not None and _pid(client) not in killed)
                    await _until(lambda: _holds_open(_pid(client), lock_path), within=CALL_TIMEOUT_SECONDS)
                    killed.append(_pid(client))
                    await _kill(killed[-1])
                await _until(lambda: bool(outcome), within=CALL_TIMEOUT_SECONDS + 30)
        assert isinstance(outcome[0], KernelDied), outcome[0]
        assert "died" in str(outcome[0])
    finally:
        await client.close()


FORWARDED_STDERR_SCRIPT = """
import os, subprocess, sys, threading
from biopb_kernel_docs.bridge.client import UNACTIONABLE_KERNEL_WARNINGS, _filtered_stderr
stderr = _filtered_stderr()
said = "import sys; sys.stderr.write(sys.argv[1] + '\\\\n' + sys.argv[2] + '\\\\n')"
warning = UNACTIONABLE_KERNEL_WARNINGS[0].decode()
subprocess.run([sys.executable, "-c", said, warning, "a traceback the user must see"], stderr=stderr)
os.close(stderr)
for thread in threading.enumerate():
    if thread.name == "kernel-stderr":
        thread.join(10)  # the copy ends at the kernel's EOF
"""


def test_what_the_kernel_prints_on_stderr_reaches_ours_less_the_warnings_nobody_can_act_on():
    done = subprocess.run(
        [sys.executable, "-c", FORWARDED_STDERR_SCRIPT], capture_output=True, text=True, timeout=50
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == "a traceback the user must see\n"


def _closed_ports(count: int) -> list[int]:
    probes = [socket.socket() for _ in range(count)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]
    finally:
        for probe in probes:
            probe.close()


async def test_attaching_to_a_kernel_that_no_longer_runs_says_nothing_answers_there(tmp_path, monkeypatch):
    monkeypatch.setattr(bridge_client, "START_TIMEOUT_SECONDS", 3.0)  # the wait under test, shortened
    shell, iopub, stdin, control, heartbeat = _closed_ports(5)
    gone = tmp_path / "kernel-gone.json"
    gone.write_text(
        json.dumps(
            {
                "shell_port": shell,
                "iopub_port": iopub,
                "stdin_port": stdin,
                "control_port": control,
                "hb_port": heartbeat,
                "ip": "127.0.0.1",
                "key": "0" * 32,
                "transport": "tcp",
                "signature_scheme": "hmac-sha256",
                "kernel_name": "python3",
            }
        )
    )
    client = KernelDocsClient(connection_file=str(gone), call_timeout=CALL_TIMEOUT_SECONDS)
    try:
        with pytest.raises(KernelUnavailable) as unanswered, anyio.fail_after(30):  # a bounded wait
            await client.call("index")
        assert str(unanswered.value) == (
            f"No kernel answered at {gone} within 3 s. Is the notebook's kernel running? Run "
            "%docs_connect in it for the current connection file and command."
        )
    finally:
        await client.close()


async def test_a_channel_that_does_not_answer_is_given_up_once_and_calls_go_by_execute_requests(
    module_tiers, caplog
):
    # The kernel names an endpoint nothing listens on (as a firewall between the two would leave it).
    dead_end = (
        "import biopb_kernel_docs.bridge.kernel_side as side; side.open_channel = lambda: 'tcp://127.0.0.1:9'"
    )
    module_tiers.seed()
    client = KernelDocsClient(
        kernel_args=(*_store_args(module_tiers), f"--IPKernelApp.exec_lines={dead_end}"),
        call_timeout=CALL_TIMEOUT_SECONDS,
    )
    try:
        with caplog.at_level("WARNING", logger=bridge_client.log.name):
            assert isinstance(await client.call("index"), IndexView)
            assert isinstance(await client.call("index"), IndexView)
        given_up = [r for r in caplog.records if "does not answer; using execute requests" in r.getMessage()]
        assert len(given_up) == 1, [r.getMessage() for r in caplog.records]  # one probe waited out
    finally:
        await client.close()


def _subshells_of(connection_file: str) -> list[str]:
    """The subshells the kernel has now, asked over its control channel."""
    from jupyter_client import BlockingKernelClient

    asker = BlockingKernelClient(connection_file=connection_file)
    asker.load_connection_file()
    asker.start_channels(shell=False, iopub=False, stdin=False, hb=False, control=True)
    try:
        request = asker.session.msg("list_subshell_request", {})
        asker.control_channel.send(request)
        while True:
            reply = asker.control_channel.get_msg(timeout=10)
            if reply["parent_header"].get("msg_id") == request["header"]["msg_id"]:
                return reply["content"]["subshell_id"]
    finally:
        asker.stop_channels()


async def test_an_attached_client_that_closes_deletes_the_subshell_it_made_in_the_users_kernel(owned):
    assert isinstance(await owned.call("index"), IndexView)
    assert owned._manager is not None
    connection_file = owned._manager.connection_file
    before = _subshells_of(connection_file)
    client = KernelDocsClient(connection_file=connection_file, call_timeout=CALL_TIMEOUT_SECONDS)
    try:
        assert isinstance(await client.call("index"), IndexView)
        made = client._subshell
        assert made is not None
        assert _subshells_of(connection_file) == [*before, made]
    finally:
        await client.close()
    await _until(lambda: _subshells_of(connection_file) == before)  # the user's kernel keeps none of ours


# -- the kernel's stderr, forwarded ----------------------------------------------------------------

RAW_STDERR_SCRIPT = """
import os, subprocess, sys, tempfile, threading
from biopb_kernel_docs.bridge.client import _filtered_stderr
ours = tempfile.TemporaryFile()
os.dup2(ours.fileno(), 2)  # this process's stderr is now a file it can read back while it runs
sys.stderr = open(2, "w", closefd=False)  # over a buffered byte layer, as a host may set it up
stderr = _filtered_stderr()
said = "import os; os.write(2, b'caf\\\\xe9 in latin-1\\\\n')"
subprocess.run([sys.executable, "-c", said], stderr=stderr)
os.close(stderr)
for thread in threading.enumerate():
    if thread.name == "kernel-stderr":
        thread.join(10)  # the copy ends at the kernel's EOF
ours.seek(0)
print(repr(ours.read()), flush=True)  # what reached our stderr before this process exits
"""


def test_the_kernels_stderr_reaches_ours_byte_for_byte_as_it_comes_not_at_exit():
    done = subprocess.run(
        [sys.executable, "-c", RAW_STDERR_SCRIPT], capture_output=True, text=True, timeout=50
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == repr(b"caf\xe9 in latin-1\n") + "\n"


TEXT_STDERR_SCRIPT = """
import io, os, subprocess, sys, threading
from biopb_kernel_docs.bridge.client import _filtered_stderr
sys.stderr = io.StringIO()  # a text stream with no byte buffer under it
stderr = _filtered_stderr()
said = "import sys; sys.stderr.write('a traceback the user must see\\\\n')"
subprocess.run([sys.executable, "-c", said], stderr=stderr)
os.close(stderr)
for thread in threading.enumerate():
    if thread.name == "kernel-stderr":
        thread.join(10)
print(repr(sys.stderr.getvalue()), flush=True)
"""


def test_a_stderr_of_text_only_gets_the_kernels_lines_as_text():
    done = subprocess.run(
        [sys.executable, "-c", TEXT_STDERR_SCRIPT], capture_output=True, text=True, timeout=50
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == repr("a traceback the user must see\n") + "\n"


def _forwarders() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name == "kernel-stderr"}


async def test_a_closed_client_leaves_no_stderr_forwarder_running(module_tiers):
    before = _forwarders()
    client = KernelDocsClient(kernel_args=_store_args(module_tiers), call_timeout=CALL_TIMEOUT_SECONDS)
    try:
        assert isinstance(await client.call("index"), IndexView)
        started = _forwarders() - before
        assert len(started) == 1
    finally:
        await client.close()
    await _until(lambda: not any(thread.is_alive() for thread in started))


# -- starts that fail --------------------------------------------------------------------------------


async def test_a_connection_file_that_cannot_be_read_is_reported_at_once_with_the_next_step(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(bridge_client, "START_TIMEOUT_SECONDS", 3.0)  # were it waited on, briefly
    missing = tmp_path / "kernel-missing.json"
    garbled = tmp_path / "kernel-garbled.json"
    garbled.write_text("{not json")
    for path, err in (
        (missing, f"[Errno 2] No such file or directory: '{missing}'"),
        (garbled, "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    ):
        client = KernelDocsClient(connection_file=str(path), call_timeout=CALL_TIMEOUT_SECONDS)
        try:
            with pytest.raises(KernelUnavailable) as unreadable:
                await client.call("index")
            assert str(unreadable.value) == (
                f"Cannot read the kernel connection file {path}: {err}. Run %docs_connect in the "
                "notebook for the current file and the command that uses it."
            )
            assert not client.has_subshells  # it never reached a kernel
        finally:
            await client.close()


def _kernels_under(runtime: Path) -> list[int]:
    """Live processes whose command line names ``runtime`` (the kernels' connection files are there)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
            state = (proc / "stat").read_text().split(") ", 1)[1][:1]
        except OSError:
            continue
        if str(runtime) in cmdline and state != "Z":
            pids.append(int(proc.name))
    return pids


async def test_a_kernel_of_its_own_that_does_not_answer_in_time_is_stopped_and_the_next_call_starts_another(
    tmp_path, monkeypatch
):
    runtime = tmp_path / "runtime"
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(runtime))
    monkeypatch.setattr(bridge_client, "START_TIMEOUT_SECONDS", 3.0)
    stalled = tmp_path / "stalled"
    stalled.touch()
    stall = f"import os, time; os.path.exists({str(stalled)!r}) and time.sleep(60)"
    tiers = build_tiers(tmp_path / "store")
    client = KernelDocsClient(
        kernel_args=(*_store_args(tiers), f"--IPKernelApp.exec_lines={stall}"),
        call_timeout=CALL_TIMEOUT_SECONDS,
    )
    try:
        with pytest.raises(KernelUnavailable) as not_started:
            await client.call("index")
        assert str(not_started.value) == (
            "The bridge's kernel did not start within 3 s. Check that ipykernel is installed."
        )
        assert _kernels_under(runtime) == []  # the stalled kernel was stopped, not left running
        stalled.unlink()
        monkeypatch.setattr(bridge_client, "START_TIMEOUT_SECONDS", 60.0)
        assert isinstance(await client.call("index"), IndexView)
        assert len(_kernels_under(runtime)) == 1
        (connection_file,) = runtime.iterdir()  # `jupyter console --existing` finds it by this name
        assert re.fullmatch(r"kernel-biopb-docs-[0-9a-f]{12}\.json", connection_file.name)
    finally:
        await client.close()


async def test_a_kernel_that_exits_at_its_first_start_is_reported_with_its_exit_status_and_started_again(
    tmp_path, caplog
):
    started_once = tmp_path / "started-once"
    exit_first = (
        f"import os; p = {str(started_once)!r}; os.path.exists(p) or (open(p, 'w').close(), os._exit(3))"
    )
    tiers = build_tiers(tmp_path / "store")
    client = KernelDocsClient(
        kernel_args=(*_store_args(tiers), f"--IPKernelApp.exec_lines={exit_first}"),
        call_timeout=CALL_TIMEOUT_SECONDS,
    )
    try:
        with caplog.at_level("WARNING", logger=bridge_client.log.name):
            assert isinstance(await client.call("index"), IndexView)
        assert _bridge_warnings(caplog) == [
            "The kernel this server started exited before answering (exit status 3; its error is on the "
            "server's stderr). Check that ipykernel starts: python -m ipykernel --version. "
            "(attempt 1 of 3); starting another"
        ]
    finally:
        await client.close()


REFUSE_SUBSHELLS = """
kernel = get_ipython().kernel
def refuse(stream, ident, parent):
    with open({asked!r}, "a") as asked:
        asked.write("asked\\n")
    with open({asked!r}) as asked:
        first = len(asked.read().split()) == 1
    content = (
        {{"status": "ok"}}  # a reply that names no subshell
        if first
        else {{"status": "error", "ename": "RuntimeError", "evalue": "no more subshells"}}
    )
    kernel.session.send(stream, "create_subshell_reply", content, parent, ident)
kernel.control_handlers["create_subshell_request"] = refuse
"""


async def test_a_kernel_that_makes_no_subshell_is_asked_three_times_then_served_on_its_main_shell(
    tmp_path, caplog
):
    asked = tmp_path / "asked"
    refusing = tmp_path / "refuse_subshells.py"
    refusing.write_text(REFUSE_SUBSHELLS.format(asked=str(asked)))
    tiers = build_tiers(tmp_path / "store")
    client = KernelDocsClient(
        kernel_args=(*_store_args(tiers), f"--IPKernelApp.exec_lines=exec(open({str(refusing)!r}).read())"),
        call_timeout=CALL_TIMEOUT_SECONDS,
    )
    try:
        with caplog.at_level("WARNING", logger=bridge_client.log.name):
            assert isinstance(await client.call("index"), IndexView)
        assert asked.read_text().split() == ["asked"] * 3
        assert _bridge_warnings(caplog) == [
            "The kernel did not create a subshell for the docs (no more subshells) during start. The docs "
            "fall back to requests on the main shell, which wait while a cell runs. Retry; if it persists, "
            "restart the kernel."
        ]
    finally:
        await client.close()


async def test_an_attached_call_that_waits_seconds_on_the_store_is_answered_not_taken_for_a_death(
    owned, module_tiers
):
    # past the first liveness check, the attached kernel is judged by its heartbeat
    module_tiers.seed()
    assert isinstance(await owned.call("index"), IndexView)
    assert owned._manager is not None
    pid, lock_path = _pid(owned), module_tiers.local / ".lock"
    client = KernelDocsClient(
        connection_file=owned._manager.connection_file, call_timeout=CALL_TIMEOUT_SECONDS
    )
    outcome: list[object] = []

    async def write() -> None:
        try:
            outcome.append(await client.call("write_doc", id="lab/waited", body="# Waited\n"))
        except Exception as err:
            outcome.append(err)

    try:
        assert isinstance(await client.call("index"), IndexView)  # attached, its channel open
        async with anyio.create_task_group() as tasks:
            with TierLock(str(lock_path), 1.0).held():
                tasks.start_soon(write)
                await _until(lambda: _holds_open(pid, lock_path))  # the write waits in the kernel
                await anyio.sleep(2.5)  # through two liveness checks
            await _until(lambda: bool(outcome), within=CALL_TIMEOUT_SECONDS)
        assert isinstance(outcome[0], WriteResult), outcome[0]
        assert module_tiers.local_text("lab/waited") == "# Waited\n"
    finally:
        await client.close()


async def test_a_read_whose_kernel_dies_once_is_answered_by_a_new_kernel(tmp_path):
    client, read, outcome, lock_path = _reader_behind_the_lock(tmp_path)
    try:
        async with anyio.create_task_group() as tasks:
            with TierLock(str(lock_path), 1.0).held():
                tasks.start_soon(read)
                await _until(lambda: client._manager is not None)
                first = _pid(client)
                await _until(lambda: _holds_open(first, lock_path), within=CALL_TIMEOUT_SECONDS)
                await _kill(first)
            await _until(lambda: bool(outcome), within=CALL_TIMEOUT_SECONDS + 30)
        assert isinstance(outcome[0], IndexView), outcome[0]
        assert "# Test docs" in outcome[0].text
        assert _pid(client) != first
    finally:
        await client.close()


async def test_attaching_puts_nothing_on_the_users_kernel_output_stream(owned):
    # a notebook or `jupyter console --existing` shows every execute_input on the kernel's iopub
    from jupyter_client import BlockingKernelClient

    assert isinstance(await owned.call("index"), IndexView)
    assert owned._manager is not None
    user = BlockingKernelClient(connection_file=owned._manager.connection_file)
    user.load_connection_file()
    user.start_channels(shell=True, iopub=True, stdin=False, hb=False, control=False)
    client = KernelDocsClient(
        connection_file=owned._manager.connection_file, call_timeout=CALL_TIMEOUT_SECONDS
    )
    try:
        user.wait_for_ready(timeout=CALL_TIMEOUT_SECONDS)
        assert isinstance(await client.call("index"), IndexView)  # its first call runs an execute request
        cell = user.execute("1 + 1")
        published: list[dict] = []
        while not (
            published
            and published[-1]["msg_type"] == "status"
            and published[-1]["content"]["execution_state"] == "idle"
            and published[-1]["parent_header"].get("msg_id") == cell
        ):
            published.append(user.get_iopub_msg(timeout=CALL_TIMEOUT_SECONDS))
        inputs = [
            message["content"]["code"] for message in published if message["msg_type"] == "execute_input"
        ]
        assert inputs == ["1 + 1"]  # the user's cell, and nothing of the bridge's
    finally:
        await client.close()
        user.stop_channels()
