"""Writers in several processes at once: every edit is kept (the local tier's lock)."""

from __future__ import annotations

import multiprocessing
import random
import subprocess
import sys
import time

from biopb_kernel_docs.core.index import parse_index
from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store

PROCESSES = 4
EDITS_EACH = 15


def _writer(shipped: str, local: str, worker: int, start) -> None:
    docs = Docs(Store(shipped, local, "1.0"))
    start.wait()
    for n in range(EDITS_EACH):
        docs.write_doc(f"w{worker}-doc{n}", body=f"# Doc {n} of writer {worker}\n")
        docs.write_doc("shared", old=f"- slot {worker}-{n}: open\n", new=f"- slot {worker}-{n}: done\n")
        docs.write_doc("index", old="# Test docs\n", new=f"# Test docs\n- w{worker}-note{n}: hand-filed\n")


def test_writers_in_several_processes_keep_every_edit(tiers):
    slots = "".join(f"- slot {w}-{n}: open\n" for w in range(PROCESSES) for n in range(EDITS_EACH))
    tiers.put_local("shared", "# Shared\n" + slots)
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    workers = [
        context.Process(target=_writer, args=(str(tiers.shipped), str(tiers.local), w, start))
        for w in range(PROCESSES)
    ]
    for process in workers:
        process.start()
    start.set()
    for process in workers:
        process.join(timeout=120)
        assert process.exitcode == 0

    assert "open" not in tiers.local_text("shared")
    entry_ids = parse_index(tiers.local_text("index")).entry_ids
    for w in range(PROCESSES):
        for n in range(EDITS_EACH):
            assert f"w{w}-doc{n}" in entry_ids, f"auto-filed entry of w{w}-doc{n} was lost"
            assert f"w{w}-note{n}" in entry_ids, f"index edit w{w}-note{n} was lost"
            assert tiers.local_text(f"w{w}-doc{n}") == f"# Doc {n} of writer {w}\n"


KILLS = 60
WRITER_SCRIPT = """
import sys
from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store
docs = Docs(Store(sys.argv[1], sys.argv[2], "1.0"))
docs.index()
print("ready", flush=True)
n = 0
while True:
    n += 1
    docs.write_doc("churn", body="# Churn\\n\\n" + "a line of text\\n" * 200 + str(n) + "\\n")
"""


def test_writers_killed_mid_write_leave_a_bounded_number_of_temp_files(tiers):
    """Each new writer sweeps what killed ones left, so kills never pile temp files up."""
    rng = random.Random(7)
    most = 0
    for _ in range(KILLS):
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER_SCRIPT, str(tiers.shipped), str(tiers.local)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert writer.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, 0.03))  # a random point inside the write loop, not a wait for a condition
        writer.kill()
        writer.wait(30)
        writer.stdout.close()
        most = max(most, len(list(tiers.local.glob(".tmp-*.part"))))
    assert most <= 2, f"temp files piled up: {most} after {KILLS} kills"
    Docs(Store(tiers.shipped, tiers.local, "1.0")).write_doc("after", body="# After\n")
    assert list(tiers.local.glob(".tmp-*.part")) == []
    assert tiers.local_text("churn").startswith("# Churn\n")  # never torn: the old file or a whole new one
