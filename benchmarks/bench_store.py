"""Store benchmark: each operation beside the filesystem floor it cannot avoid, measured in one run.

    .venv/bin/python benchmarks/bench_store.py [--repeat N]

The store is built at the index cap: 200 entries, 60 shipped docs (20 of them shadowed by local
copies), 140 local docs. The floor of an operation is the bare I/O it must do (reads, stats,
listings, the lock, temp-file writes with fsync and rename), done with plain os calls. Targets:
read_doc <= 2x its floor, render_index <= 3x its floor, render cost flat in unindexed local files.
Prints a markdown table; commit it as benchmarks/RESULTS-store.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import filelock

from biopb_kernel_docs.ops import Docs
from biopb_kernel_docs.store import Store

SHIPPED_DOCS = 60
SHADOWED = 20
LOCAL_DOCS = 140
DOC_LINES = 150


def _doc(title: str, n: int) -> str:
    lines = [f"---\ndescription: how to do {title} well\n---\n# {title}\n"]
    lines += [f"Line {i} of {title}: some prose about step {i} and its checkpoint." for i in range(n)]
    return "\n".join(lines) + "\n"


def build(root: Path, unindexed: int = 10) -> tuple[Path, Path]:
    shipped, local = root / "shipped", root / "local"
    shipped.mkdir(parents=True)
    local.mkdir()
    shipped_ids = [f"procedure-{n:02d}" for n in range(SHIPPED_DOCS)]
    local_ids = [f"lab/note-{n:03d}" for n in range(LOCAL_DOCS)]
    for doc_id in shipped_ids:
        (shipped / f"{doc_id}.md").write_text(_doc(doc_id, DOC_LINES))
    (local / "lab").mkdir()
    for doc_id in local_ids + shipped_ids[:SHADOWED]:
        (local / f"{doc_id}.md").write_text(_doc(doc_id + " (mine)", DOC_LINES))
    entries = "".join(
        f"- {doc_id}: when the user asks about {doc_id}\n" for doc_id in shipped_ids + local_ids
    )
    index = f"# Docs\n\n## Everything\n{entries}\nignored:\n"
    (shipped / "index.md").write_text(index)
    (local / "index.md").write_text(index)
    junk = local / "unindexed"
    junk.mkdir()
    for n in range(unindexed):
        (junk / f"stray-{n:05d}.md").write_text("# stray\n")
    return shipped, local


def _stats(samples: list[float]) -> tuple[float, float]:
    samples = sorted(samples)
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]


def measure(operation: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median and p95 in microseconds, after a short warm-up."""
    for _ in range(min(10, repeat)):
        operation()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        operation()
        samples.append((time.perf_counter_ns() - start) / 1000)
    return _stats(samples)


def measure_pair(
    operation: Callable[[], object], floor: Callable[[], object], repeat: int
) -> tuple[tuple[float, float], tuple[float, float]]:
    """An operation and its floor, sampled alternately so both see the same machine and disk load."""
    for _ in range(min(10, repeat)):
        operation()
        floor()
    op_samples: list[float] = []
    floor_samples: list[float] = []
    for _ in range(repeat):
        for function, samples in ((operation, op_samples), (floor, floor_samples)):
            start = time.perf_counter_ns()
            function()
            samples.append((time.perf_counter_ns() - start) / 1000)
    return _stats(op_samples), _stats(floor_samples)


# -- floors: the bare I/O each operation cannot avoid ----------------------------------------------


def floor_render(shipped: Path, local: Path, entry_ids: list[str]) -> Callable[[], None]:
    def run() -> None:
        (local / "index.md").read_bytes()
        for _ in os.walk(shipped):
            pass
        for doc_id in entry_ids:
            os.path.isfile(local / f"{doc_id}.md")
            os.path.isfile(shipped / f"{doc_id}.md")
        (local / ".shipped-manifest.json").read_bytes()

    return run


def floor_read(shipped: Path, local: Path, doc_id: str) -> Callable[[], None]:
    """Is the index there; read the local copy, or else the shipped file; the mtime for the header;
    for a local copy, whether it shadows a shipped doc (the header says so)."""

    def run() -> None:
        os.path.isfile(local / "index.md")
        try:
            with open(local / f"{doc_id}.md", "rb") as handle:
                handle.read()
                os.fstat(handle.fileno())
            os.path.isfile(shipped / f"{doc_id}.md")
        except FileNotFoundError:
            with open(shipped / f"{doc_id}.md", "rb") as handle:
                handle.read()
                os.fstat(handle.fileno())

    return run


def _bare_atomic_write(path: Path, data: bytes) -> None:
    fd, temp = tempfile.mkstemp(dir=path.parent)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, path)
    directory = os.open(path.parent, os.O_RDONLY)
    os.fsync(directory)
    os.close(directory)


def floor_edit(local: Path, doc_id: str) -> Callable[[], None]:
    path = local / f"{doc_id}.md"

    def run() -> None:
        with filelock.FileLock(local / ".lock"):
            data = path.read_bytes()
            _bare_atomic_write(path, data)

    return run


def floor_create(local: Path) -> Callable[[], None]:
    counter = iter(range(10**9))

    def run() -> None:
        with filelock.FileLock(local / ".lock"):
            _bare_atomic_write(local / f"floor-{next(counter)}.md", b"# New\n\nA new doc.\n")
            index = (local / "index.md").read_bytes()
            _bare_atomic_write(local / "index.md", index)

    return run


# -- the operations ---------------------------------------------------------------------------------


def op_edit(docs: Docs, doc_id: str) -> Callable[[], None]:
    flip = [0]

    def run() -> None:
        a, b = ("step 3 and", "step three and") if flip[0] % 2 == 0 else ("step three and", "step 3 and")
        flip[0] += 1
        docs.write_doc(
            doc_id,
            old=f"Line 3 of {doc_id} (mine): some prose about {a}",
            new=f"Line 3 of {doc_id} (mine): some prose about {b}",
        )

    return run


def op_create(docs: Docs, local: Path) -> Callable[[], None]:
    """Create a new doc (auto-filed) on an index one entry below the cap.

    The index is put back to 199 entries after each create; that plain, unsynced write is inside
    the timing and makes the ratio slightly pessimistic.
    """
    counter = iter(range(10**9))
    index_path = local / "index.md"
    lines = index_path.read_text().split("\n")
    last_entry = max(n for n, line in enumerate(lines) if line.startswith("- "))
    below_cap = "\n".join(lines[:last_entry] + lines[last_entry + 1 :]).encode()
    index_path.write_bytes(below_cap)

    def run() -> None:
        n = next(counter)
        docs.write_doc(f"fresh/doc-{n}", body=f"# Fresh {n}\n\nA new doc about {n}.\n")
        index_path.write_bytes(below_cap)

    return run


def row(name: str, pair: tuple[tuple[float, float], tuple[float, float]], target: str) -> str:
    op, floor = pair
    ratio = op[0] / floor[0]
    return (
        f"| {name} | {op[0]:.0f} | {op[1]:.0f} | {floor[0]:.0f} | {floor[1]:.0f} | {ratio:.2f}x | {target} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=300)
    repeat = parser.parse_args().repeat
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shipped, local = build(root / "cap")
        entry_ids = [f"procedure-{n:02d}" for n in range(SHIPPED_DOCS)] + [
            f"lab/note-{n:03d}" for n in range(LOCAL_DOCS)
        ]
        docs = Docs(Store(shipped, local, "1.0"))
        docs.render_index()  # first run: manifest written, index seeded
        rows = [
            row(
                "render_index (200 entries)",
                measure_pair(docs.render_index, floor_render(shipped, local, entry_ids), repeat),
                "<= 3x",
            ),
            row(
                "read_doc shipped",
                measure_pair(
                    lambda: docs.read_doc("procedure-40"), floor_read(shipped, local, "procedure-40"), repeat
                ),
                "<= 2x",
            ),
            row(
                "read_doc local copy (shadow)",
                measure_pair(
                    lambda: docs.read_doc("procedure-05"), floor_read(shipped, local, "procedure-05"), repeat
                ),
                "<= 2x",
            ),
            row(
                "write_doc old/new (lock + fsync)",
                measure_pair(op_edit(docs, "lab/note-007"), floor_edit(local, "lab/note-007"), repeat // 3),
                "-",
            ),
            row(
                "write_doc create (+ filing)",
                measure_pair(op_create(docs, local), floor_create(local), repeat // 3),
                "-",
            ),
        ]
        flat = []
        for unindexed in (10, 10_000):
            shipped_n, local_n = build(root / f"unindexed-{unindexed}", unindexed)
            flat_docs = Docs(Store(shipped_n, local_n, "1.0"))
            flat_docs.render_index()
            flat.append((unindexed, measure(flat_docs.render_index, repeat)))

    print(
        f"Store benchmark, {time.strftime('%Y-%m-%d')}, Python {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} cores, repeat={repeat}. Times in microseconds.\n"
    )
    print("| operation | median | p95 | floor median | floor p95 | ratio (median) | target |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("\n| render_index with unindexed local files | median | p95 |")
    print("|---|---|---|")
    for unindexed, (median, p95) in flat:
        print(f"| {unindexed:,} | {median:.0f} | {p95:.0f} |")
    growth = flat[1][1][0] / flat[0][1][0]
    print(f"\nrender_index, 10,000 vs 10 unindexed files: {growth:.2f}x (target: flat, ~1x)")


if __name__ == "__main__":
    main()
