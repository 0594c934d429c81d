"""Writers in several processes at once: every edit is kept (the local tier's lock)."""

from __future__ import annotations

import multiprocessing

from biopb_kernel_docs.index import parse_index
from biopb_kernel_docs.ops import Docs
from biopb_kernel_docs.store import Store

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
