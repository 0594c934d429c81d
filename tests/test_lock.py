"""The local tier's inter-process lock: a writer held up by another process gives up with its message."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from biopb_kernel_docs.core import store as store_module
from biopb_kernel_docs.core.errors import StoreUnavailable
from biopb_kernel_docs.core.lock import TierLock

from .conftest import open_files

HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o666)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()  # until the test closes our stdin
"""


def test_the_lock_wait_is_thirty_seconds():
    assert store_module.LOCK_TIMEOUT_SECONDS == 30


@pytest.mark.skipif(sys.platform == "win32", reason="the holder takes the lock with flock")
def test_a_write_held_up_by_another_process_gives_up_with_its_message(tiers):
    docs = tiers.docs()
    tiers.seed()  # the holder below takes the lock file of an existing local tier
    docs.store._lock.timeout = 0.5  # the production wait, 30 s, is pinned above
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tiers.local / ".lock")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        outcome: list[BaseException | object] = []

        def write() -> None:
            try:
                outcome.append(docs.write_doc("lab/blocked", body="# Blocked\n"))
            except Exception as err:
                outcome.append(err)

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        writer.join(10)  # a wait that never times out shows as a thread still waiting here
        assert not writer.is_alive(), "the write still waits on a lock another process holds"
        (error,) = outcome
        assert isinstance(error, StoreUnavailable)
        assert "Another process has held the lock" in str(error)
        assert "for over 0.5 s. Retry; if it persists, look for a stuck writer" in str(error)
        assert not (tiers.local / "lab/blocked.md").exists()
    finally:
        holder.stdin.close()
        holder.wait(30)
        holder.stdout.close()


BRIEF_HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o666)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(0.3)
os.close(fd)  # releases the lock on its own
sys.stdin.read()
"""

PROBE = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o666)
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
except BlockingIOError:
    print("busy")
else:
    print("free")
"""


def _probe(path) -> str:
    """Whether another process can take the lock at ``path`` right now: 'free' or 'busy'."""
    return subprocess.run(
        [sys.executable, "-c", PROBE, str(path)], capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.mark.skipif(sys.platform == "win32", reason="the holder takes the lock with flock")
def test_a_lock_held_briefly_by_another_process_is_waited_for_not_refused(tmp_path):
    path = tmp_path / ".lock"
    lock = TierLock(str(path), 30)
    holder = subprocess.Popen(
        [sys.executable, "-c", BRIEF_HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with lock.held():  # the holder lets go by itself: the wait ends in the lock, not an error
            assert _probe(path) == "busy"
    finally:
        holder.stdin.close()
        holder.wait(30)
        holder.stdout.close()


@pytest.mark.skipif(sys.platform == "win32", reason="the probe takes the lock with flock")
def test_the_lock_excludes_other_processes_only_while_held_and_again_on_the_next_hold(tmp_path):
    path = tmp_path / ".lock"
    lock = TierLock(str(path), 5)
    for _ in range(2):  # a second hold on the same thread locks afresh
        assert _probe(path) == "free"
        with lock.held():
            assert _probe(path) == "busy"
            for _ in range(2):  # re-entrant within the thread, any number of times
                with lock.held():
                    assert _probe(path) == "busy"
            assert _probe(path) == "busy"
        assert _probe(path) == "free"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        lock.timeout = 0.2
        with pytest.raises(StoreUnavailable, match="Another process has held the lock"), lock.held():
            pass
    finally:
        holder.stdin.close()
        holder.wait(30)
        holder.stdout.close()


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.isdir("/proc/self/fd"), reason="a FIFO, /proc")
def test_a_fifo_where_the_lock_file_should_be_is_refused_without_leaking_a_descriptor(tmp_path):
    path = tmp_path / ".lock"
    os.mkfifo(path)
    lock = TierLock(str(path), 30)
    before = open_files()
    for _ in range(5):
        with (
            pytest.raises(StoreUnavailable, match="is not a regular file, so the store cannot lock") as err,
            lock.held(),
        ):
            pass
        assert "Remove it; the store recreates it on the next write." in str(err.value)
    assert open_files() == before
