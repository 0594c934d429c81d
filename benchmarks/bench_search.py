"""search_docs benchmark (§7): p95 against its floor, over the seed and over 2,000 docs, in one run.

    .venv/bin/python benchmarks/bench_search.py [--repeat N]

Two stores: the seed as shipped (its index and 23 listed docs), and 2,000 local docs of 200 lines
under one listed collection (``lab/``). The floor is what any search of the same files cannot
avoid: open, fstat, read and close each file, decode it, and one bare ``str.find`` per line; it
keeps nothing between runs. search_docs reads a file again only when its (mtime_ns, size, inode)
moved, so a repeated search pays one stat per file. Operation and floor are sampled alternately.
Targets: p95 <= 5 ms over the seed, <= 50 ms over 2,000 docs. Prints markdown; commit it as
benchmarks/RESULTS-search.md.
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

from biopb_kernel_docs.core.ids import DOC_SUFFIX
from biopb_kernel_docs.core.index import parse_index
from biopb_kernel_docs.core.search import scope_ids, search_docs
from biopb_kernel_docs.core.store import Store, Tier
from biopb_kernel_docs.surfaces.settings import default_shipped_dir

DOCS = 2000
LINES = 200


def build_large(root: Path) -> Store:
    shipped, local = root / "shipped", root / "local"
    shipped.mkdir(parents=True)
    (local / "lab").mkdir(parents=True)
    (shipped / "index.md").write_text("# Docs\n\n## Lab\n- lab/: the lab's notes\n", encoding="utf-8")
    (local / "index.md").write_text("# Docs\n\n## Lab\n- lab/: the lab's notes\n", encoding="utf-8")
    for n in range(DOCS):
        lines = [f"# Note {n}", "", "## Steps", ""]
        lines += [
            f"Line {i} of note {n}: the prose of step {i}, with its settings." for i in range(LINES - 6)
        ]
        lines += ["", "## Failure modes" if n % 100 else "## Failure modes: KeyError 'pixel_size'"]
        (local / "lab" / f"note-{n:04d}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Store(shipped, local, "1")


def files_in_scope(store: Store) -> list[str]:
    """The paths a search of ``store`` covers (resolved as search_docs resolves them)."""
    index = store.read(Tier.LOCAL, "index") or store.read(Tier.SHIPPED, "index")
    assert index is not None
    paths = [index.path]
    for doc_id in scope_ids(store, parse_index(index.text)):
        for tier in (Tier.LOCAL, Tier.SHIPPED):
            path = os.path.join(str(store.root(tier)), doc_id + DOC_SUFFIX)
            if os.path.exists(path):
                paths.append(path)
                break
    return paths


def floor(paths: list[str], needle: str) -> Callable[[], int]:
    """Read, decode and split each file, and one bare str.find per line."""

    def run() -> int:
        found = 0
        for path in paths:
            fd = os.open(path, os.O_RDONLY)
            try:
                text = os.read(fd, os.fstat(fd).st_size + 1).decode("utf-8")
            finally:
                os.close(fd)
            for line in text.split("\n"):
                if line.find(needle) != -1:
                    found += 1
        return found

    return run


def measure_pair(operation: Callable[[], object], bare: Callable[[], object], repeat: int):
    for _ in range(3):
        operation()
        bare()
    samples: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for function, into in ((operation, samples[0]), (bare, samples[1])):
            start = time.perf_counter_ns()
            function()
            into.append((time.perf_counter_ns() - start) / 1e6)
    return tuple((statistics.median(s), sorted(s)[int(0.95 * (len(s) - 1))]) for s in samples)


def row(name: str, files: int, pair, target: str) -> str:
    (median, p95), (floor_median, floor_p95) = pair
    return (
        f"| {name} | {files:,} | {median:.2f} | {p95:.2f} | {floor_median:.2f} | {floor_p95:.2f} | "
        f"{p95 / floor_p95:.2f}x | {target} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=100)
    repeat = parser.parse_args().repeat
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        seed = Store(default_shipped_dir(), Path(tmp) / "seed-local", "1")
        seed_files = files_in_scope(seed)
        for query, regex, name in (
            ("pixel size", False, "seed: literal 'pixel size'"),
            ("ImportError", False, "seed: literal 'ImportError' (case-sensitive)"),
            (r"np\.\w+\(", True, r"seed: regex 'np\.\w+\('"),
        ):
            pair = measure_pair(
                lambda q=query, r=regex: search_docs(seed, q, r), floor(seed_files, "pixel size"), repeat
            )
            rows.append(row(name, len(seed_files), pair, "p95 <= 5 ms"))
        large = build_large(Path(tmp) / "large")
        large_files = files_in_scope(large)
        assert len(large_files) == DOCS + 1
        for query, regex, name in (
            ("keyerror", False, "2,000 docs: literal 'keyerror'"),
            ("KeyError 'pixel_size'", False, "2,000 docs: literal, case-sensitive"),
            (r"step 1\d\d,", True, r"2,000 docs: regex 'step 1\d\d,'"),
        ):
            pair = measure_pair(
                lambda q=query, r=regex: search_docs(large, q, r),
                floor(large_files, "keyerror"),
                max(10, repeat // 5),
            )
            rows.append(row(name, len(large_files), pair, "p95 <= 50 ms"))
    print(
        f"search_docs benchmark, {time.strftime('%Y-%m-%d')}, Python {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} cores, repeat={repeat} (the 2,000-doc rows "
        f"{max(10, repeat // 5)}). Times in milliseconds; load average at the start "
        f"{os.getloadavg()[0]:.1f}.\n"
    )
    print(
        "Floor: open, fstat, read, close and decode every file in scope, and one bare str.find per line "
        "(nothing kept between runs). search_docs keeps each file's text until its stat moves.\n"
    )
    print("| search | files | median | p95 | floor median | floor p95 | p95 ratio | target |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
