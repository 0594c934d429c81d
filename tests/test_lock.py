"""The local tier's inter-process lock: a writer held up by another process gives up with its message."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from biopb_kernel_docs.core import store as store_module
from biopb_kernel_docs.core.errors import StoreUnavailable

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
