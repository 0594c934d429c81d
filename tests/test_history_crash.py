"""The history survives a SIGKILL anywhere, and writers in eight processes: every version once.

A killed writer is a forked child that SIGKILLs itself at the Nth system call of one write (every
N, until the write completes), or that is SIGKILLed by the test at a random moment of a loop of
writes (hundreds of times). After each kill, the state on disk is checked as a new process would
find it: the doc is whole (its old text or its new one), the history agrees with it (the write's
version is recorded and the doc is new, or neither), no version fails its checksum, no outside
edit is made up, and the files stay within the bounds.
"""

from __future__ import annotations

import hashlib
import itertools
import multiprocessing
import os
import random
import re
import shutil
import signal
import time
from pathlib import Path

import pytest

from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.core.values import Author
from biopb_kernel_docs.core.version_folders import HistoryLimits

from .conftest import Tiers, build_tiers

WRITER = Author("python", name="crash-test")
WRAPPED = ("open", "write", "pwrite", "ftruncate", "fsync", "replace", "unlink", "makedirs")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _docs(tiers: Tiers, limits: HistoryLimits) -> Docs:
    return Docs(Store(tiers.shipped, tiers.local, "1.0", limits), author=WRITER)


def _state(tiers: Tiers, doc_id: str) -> bytes | None:
    path = tiers.local / f"{doc_id}.md"
    return path.read_bytes() if path.exists() else None


def _pending(path: Path) -> bool:
    """Whether a version file says its write has not landed: by its name (format 1), or by the
    ``landed`` digit its header starts with (format 2)."""
    with open(path, "rb") as file:
        return path.name.endswith(".pending") or file.read(12) == b'{"landed":0,'


def _check_history(tiers: Tiers, doc_id: str, limits: HistoryLimits, outside_edits: int = 0) -> list:
    """The checks every kill must pass; returns the settled versions, oldest first."""
    folder = tiers.local / ".history" / f"{doc_id}@"
    names = os.listdir(folder) if folder.is_dir() else []
    versions_on_disk = [n for n in names if re.fullmatch(r"\d{8}(\.pending)?", n)]
    temps = [n for n in names if n.startswith(".tmp-")]
    assert len(versions_on_disk) + len(temps) == len(names), f"unexpected files: {names}"
    assert len(temps) <= 1
    assert sum(_pending(folder / n) for n in versions_on_disk) <= 1
    assert len(versions_on_disk) <= limits.max_versions
    assert sum((folder / n).stat().st_size for n in versions_on_disk) <= limits.max_bytes
    # What any new process sees (it settles first, under the lock):
    store = Store(tiers.shipped, tiers.local, "1.0", limits)
    headers = store.versions(doc_id)
    current = _state(tiers, doc_id)
    if headers:
        assert headers[-1].state == (_sha(current) if current is not None else None)
    for earlier, later in itertools.pairwise(headers):
        assert later.number == earlier.number + 1
        assert later.before == earlier.after
    for header in headers:
        _, data = store.version(doc_id, header.number)
        assert data is None or _sha(data) == header.after  # each kept text verifies
    assert sum(h.author.surface == "outside" for h in headers) == outside_edits
    return headers


# -- a kill at every system call of one write -----------------------------------------------------------


def _arm(crash_at: int) -> None:
    """In the child: SIGKILL this process just before its ``crash_at``-th wrapped system call."""
    calls = itertools.count(1)

    def wrap(function):
        def wrapped(*args, **kwargs):
            if next(calls) == crash_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return function(*args, **kwargs)

        return wrapped

    for name in WRAPPED:
        setattr(os, name, wrap(getattr(os, name)))


def _run_killed(template: Path, work: Path, crash_at: int, write) -> bool:
    """Run ``write`` in a child killed at its ``crash_at``-th call; True when it was killed."""
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(template, work, symlinks=True)
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 1
        try:
            tiers = Tiers(work / "shipped", work / "local")
            docs = _docs(tiers, LIMITS)
            _arm(crash_at)
            write(docs)
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        assert os.WTERMSIG(status) == signal.SIGKILL
        return True
    assert os.WEXITSTATUS(status) == 0, "the write failed in the child without being killed"
    return False


LIMITS = HistoryLimits(max_versions=4, max_bytes=64 * 1024)
LONG = "# Notes\n\n" + "a line of the procedure\n" * 40


def _prepare(root: Path, scenario: str) -> Tiers:
    tiers = build_tiers(root)
    docs = _docs(tiers, LIMITS)
    if scenario in ("edit", "restore", "outside", "prune", "shrink"):
        for n in range(4 if scenario == "prune" else 1):
            docs.write_doc("notes", body=f"{LONG}written {n}\n")
    if scenario == "restore":
        docs.write_doc("notes", body="# Notes\n\nshort\n")
    if scenario == "outside":
        tiers.put_local("notes", "# Notes\n\nchanged in an editor\n")
    if scenario == "earlier":
        tiers.put_local("notes", "# Notes\n\nfrom before history\n")
    if scenario == "drop":
        docs.write_doc("flatfield", old="Step one.", new="Step one, mine.")
        docs.write_doc("flatfield", old="Step one, mine.", new="Step one.")
    if scenario in ("create", "index"):
        docs.write_doc("index", old="# Test docs", new="# Test docs")  # changes nothing, seeds the index
    return tiers


SCENARIOS = {
    "create": ("fresh", lambda docs: docs.write_doc("fresh", body="# Fresh\n\nnew\n")),
    "edit": ("notes", lambda docs: docs.write_doc("notes", old="written 0", new="edited")),
    "shrink": ("notes", lambda docs: docs.write_doc("notes", body="# Notes\n\nshorter\n")),
    "shadow": ("flatfield", lambda docs: docs.write_doc("flatfield", old="Step one.", new="Step one, mine.")),
    "restore": ("notes", lambda docs: docs.restore_doc("notes", 1)),
    "prune": ("notes", lambda docs: docs.write_doc("notes", body="# Notes\n\nthe fifth\n")),
    "outside": ("notes", lambda docs: docs.write_doc("notes", old="changed in an editor", new="merged")),
    "earlier": ("notes", lambda docs: docs.write_doc("notes", old="from before history", new="now")),
    "drop": ("flatfield", lambda docs: docs.drop_local_copy("flatfield")),
    "index": ("index", lambda docs: docs.write_doc("index", old="- data: how", new="- data: where")),
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_a_sigkill_at_any_system_call_of_a_write_leaves_doc_and_history_consistent(tmp_path, scenario):
    doc_id, write = SCENARIOS[scenario]
    template = tmp_path / "template"
    before = _prepare(template, scenario)
    old = _state(before, doc_id)
    finished = tmp_path / "finished"
    assert not _run_killed(template, finished, 0, write)  # the write, never killed: what it leaves
    new = _state(Tiers(finished / "shipped", finished / "local"), doc_id)
    assert new != old
    outside = 1 if scenario == "outside" else 0
    written = _check_history(Tiers(finished / "shipped", finished / "local"), doc_id, LIMITS, outside)[-1]
    kills = 0
    for crash_at in itertools.count(1):
        work = tmp_path / "work"
        if not _run_killed(template, work, crash_at, write):
            break
        kills += 1
        tiers = Tiers(work / "shipped", work / "local")
        now = _state(tiers, doc_id)
        assert now in (old, new), f"a torn doc after a kill at call {crash_at}"
        headers = _check_history(tiers, doc_id, LIMITS, outside)
        _check_history(tiers, "index", LIMITS)
        recorded = bool(headers) and (headers[-1].number, headers[-1].author, headers[-1].after) == (
            written.number,
            WRITER,
            written.after,
        )
        assert recorded == (now == new), f"history and doc disagree after a kill at call {crash_at}"
    assert kills >= 8  # the write has that many system calls to die at, at least


# -- hundreds of kills at random moments ---------------------------------------------------------------------

RANDOM_KILLS = 300
BODY = re.compile(r"# Churn\n\nwrite (\d+)\n(?:filler line\n){30,120}end (\d+)\n")


def _churn(tiers: Tiers, seed: int) -> None:
    """In the child: write forever (bodies, restores, edits, creates) until killed."""
    rng = random.Random(seed)
    docs = _docs(tiers, RANDOM_LIMITS)
    for n in itertools.count():
        tag = f"{seed}{n:05d}"
        choice = rng.random()
        if choice < 0.6:
            body = f"# Churn\n\nwrite {tag}\n" + "filler line\n" * rng.randint(30, 120) + f"end {tag}\n"
            docs.write_doc("churn", body=body)
        elif choice < 0.8:
            versions = [v.number for v in docs.history("churn").versions if v.kept]
            if versions:
                docs.restore_doc("churn", rng.choice(versions))
        elif choice < 0.97:
            docs.write_doc("counter", body=f"# Counter\n\n{tag}\n")
        else:
            docs.write_doc(f"made/doc-{tag}", body=f"# Made {tag}\n")


RANDOM_LIMITS = HistoryLimits(max_versions=20, max_bytes=40 * 1024)


def _mid_write(tiers: Tiers) -> bool:
    """Whether a kill left a write half done on disk: a pending version or a temp file."""
    left = [
        p.name for p in tiers.local.rglob("*") if p.name.endswith(".part") or (p.is_file() and _pending(p))
    ]
    return bool(left)


def test_hundreds_of_random_sigkills_leave_no_torn_doc_and_no_inconsistent_version(tmp_path):
    tiers = build_tiers(tmp_path)
    first = "# Churn\n\nwrite 0\n" + "filler line\n" * 30 + "end 0\n"
    _docs(tiers, RANDOM_LIMITS).write_doc("churn", body=first)
    rng = random.Random(18)
    half_done = 0
    for kill in range(RANDOM_KILLS):
        pid = os.fork()
        if pid == 0:
            try:
                _churn(tiers, kill)
            finally:
                os._exit(1)
        time.sleep(rng.uniform(0.0, 0.05))  # a random moment inside the loop, not a wait for a condition
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status), "the writer stopped by itself: it failed"
        half_done += _mid_write(tiers)
        churn = tiers.local_text("churn")
        match = BODY.fullmatch(churn)
        assert match is not None, f"a torn doc after kill {kill}"
        assert match.group(1) == match.group(2), f"a torn doc after kill {kill}"
        _check_history(tiers, "churn", RANDOM_LIMITS)
        _check_history(tiers, "index", RANDOM_LIMITS)
        if (tiers.local / "counter.md").exists():
            assert re.fullmatch(r"# Counter\n\n\d+\n", tiers.local_text("counter"))
            _check_history(tiers, "counter", RANDOM_LIMITS)
    assert half_done >= RANDOM_KILLS // 10, f"only {half_done} kills landed inside a write"
    landed = _docs(tiers, RANDOM_LIMITS).history("churn").versions[0].number - 1
    assert landed >= 5, f"only {landed} writes landed between the kills"


# -- eight writers at once ---------------------------------------------------------------------------------

WRITERS = 8
EDITS_EACH = 20


def _writer(shipped: str, local: str, worker: int, start, results) -> None:
    docs = Docs(
        Store(shipped, local, "1.0", HistoryLimits(max_versions=1000)),
        author=Author("python", name=f"w{worker}"),
    )
    start.wait()
    recorded = []
    for n in range(EDITS_EACH):
        result = docs.write_doc(
            "shared", old=f"- slot {worker}-{n}: open\n", new=f"- slot {worker}-{n}: done\n"
        )
        recorded.append(("shared", result.changes[0].version, result.sha256))
        result = docs.write_doc(
            "index", old="# Test docs\n", new=f"# Test docs\n- w{worker}-note{n}: hand-filed\n"
        )
        recorded.append(("index", result.changes[0].version, result.sha256))
    results.put((worker, recorded))


def test_eight_writers_at_once_record_every_version_exactly_once(tiers):
    slots = "".join(f"- slot {w}-{n}: open\n" for w in range(WRITERS) for n in range(EDITS_EACH))
    docs = Docs(Store(tiers.shipped, tiers.local, "1.0", HistoryLimits(max_versions=1000)))
    docs.write_doc("shared", body="# Shared\n" + slots)
    context = multiprocessing.get_context("spawn")
    start, results = context.Event(), context.Queue()
    workers = [
        context.Process(target=_writer, args=(str(tiers.shipped), str(tiers.local), w, start, results))
        for w in range(WRITERS)
    ]
    for process in workers:
        process.start()
    start.set()
    recorded = dict(results.get(timeout=300) for _ in workers)
    for process in workers:
        process.join(timeout=120)
        assert process.exitcode == 0
    for doc_id, first in (("shared", 2), ("index", 3)):  # after the creation (and the seeding, filing)
        history = list(reversed(docs.history(doc_id).versions))
        by_number = {v.number: v for v in history}
        claimed = [(number, sha) for worker in recorded.values() for d, number, sha in worker if d == doc_id]
        assert len(claimed) == WRITERS * EDITS_EACH
        assert sorted(number for number, _ in claimed) == list(range(first, first + WRITERS * EDITS_EACH))
        for number, sha in claimed:  # each write's version is in the history once, with its text
            assert by_number[number].after_sha256 == sha
        writers = {v.author.name for v in history if v.number >= first}
        assert writers == {f"w{w}" for w in range(WRITERS)}
        for earlier, later in itertools.pairwise(history):
            assert later.before_sha256 == earlier.after_sha256
        assert not any(v.author.surface == "outside" for v in history)
    assert "open" not in tiers.local_text("shared")
