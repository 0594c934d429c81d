"""Store benchmark: each operation beside the bare floor it cannot avoid, measured in one run.

    .venv/bin/python benchmarks/bench_store.py [--repeat N]

The store sits at the index cap: 200 entries, 65 shipped docs (60 listed, 5 new in this release:
the new-docs tail), 20 of them shadowed by local copies (5 of those changed by the release: the
stale tail), 140 local docs. Each floor is the bare system calls the operation cannot avoid, done
with plain ``os`` calls on strings, and nothing of ours: no lock, no pathlib, no hashing, no
parsing. Operation and floor are sampled alternately so both see the same machine and disk load.
Targets: render <= 2x, read <= 2x, write old/new <= 1.3x, create <= 1.5x (of two floor writes);
render flat from 10 to 10,000 unindexed local files; a section read (§7) within 1.2x of a whole
read of the same doc, both measured here; the history adds at most 20% to a write (the same write
on a copy of the store that keeps no history, sampled alternately, the two copies swapping roles
halfway). The history rows come in two regimes: each doc's history at its bound of 100 versions
(every write drops the oldest, whose file then holds the new version; a created doc's first
version is a record appended to ``.history/firsts``, and its first edit makes the doc's folder and
a file), and below the bound (every version a new file, the index's too); the run also times
making a file and a folder in the local tier, what those regimes pay for. Every read still reads
the file's bytes (§1); what is derived from them is kept only for identical bytes. The stores live
in a temporary directory (``TMPDIR`` moves it). Prints markdown; commit it as benchmarks/RESULTS-
store.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.core.values import Author
from biopb_kernel_docs.core.version_file import State, encode
from biopb_kernel_docs.core.version_folders import HistoryLimits
from biopb_kernel_docs.text.render import index_text

LISTED_SHIPPED = 60
NEW_SHIPPED = 5
SHADOWED = 20
STALE = 5
LOCAL_DOCS = 140
DOC_LINES = 150

FLOORS = {
    "render": "read index.md and the manifest; one os.stat per entry in each tier; list the shipped "
    "tier; read each tail item's file",
    "read": "open, fstat (to size the read), read and close one file (for a section read too; the "
    "last two section rows compare with a whole read_doc instead); a shadowing local copy's read "
    "adds the lstat of the shipped file it shadows",
    "write old/new": "read the file; write a temp file, fsync it, rename it, fsync the directory",
    "create": "two such writes (the doc and index.md)",
}


def _doc(title: str, n: int) -> str:
    """A procedure of ``n`` prose lines under a title and seven sections, as the seed's are."""
    lines = [f"---\ndescription: how to do {title} well\n---\n# {title}\n"]
    for i in range(n):
        if i % (n // 7) == 0 and i // (n // 7) < 7:
            lines.append(f"\n## Section {i // (n // 7) + 1}\n")
        lines.append(f"Line {i} of {title}: some prose about step {i} and its checkpoint.")
    return "\n".join(lines) + "\n"


def build(root: Path, unindexed: int = 10) -> tuple[Path, Path, list[str]]:
    """The store at the cap, after a release; returns the tiers and the entry ids."""
    shipped, local = root / "shipped", root / "local"
    shipped.mkdir(parents=True)
    (local / "lab").mkdir(parents=True)
    listed = [f"procedure-{n:02d}" for n in range(LISTED_SHIPPED)]
    new = [f"procedure-new-{n}" for n in range(NEW_SHIPPED)]
    notes = [f"note-{n:03d}" for n in range(LOCAL_DOCS)]
    for doc_id in listed + new:
        (shipped / f"{doc_id}.md").write_text(_doc(doc_id, DOC_LINES))
    for doc_id in notes + listed[:SHADOWED]:
        (local / f"{doc_id}.md").write_text(_doc(doc_id + " (mine)", DOC_LINES))
    entries = "".join(f"- {doc_id}: when the user asks about {doc_id}\n" for doc_id in listed + notes)
    index = f"# Docs\n\n## Everything\n{entries}\nignored:\n"
    (shipped / "index.md").write_text(index)
    (local / "index.md").write_text(index)
    junk = local / "unindexed"
    junk.mkdir()
    for n in range(unindexed):
        (junk / f"stray-{n:05d}.md").write_text("# stray\n")
    # The last version saw older text of 5 shadowed docs and none of the new ones.
    Docs(Store(shipped, local, "1.0", None)).index()
    manifest = json.loads((local / ".shipped-manifest.json").read_text())
    for doc_id in new:
        del manifest["hashes"][doc_id]
    for doc_id in listed[:STALE]:
        manifest["hashes"][doc_id] = "0" * 64
    manifest["version"] = "0.9"
    (local / ".shipped-manifest.json").write_text(json.dumps(manifest))
    docs = Docs(Store(shipped, local, "1.0", None))
    view = docs.index()  # the version bump: the manifest records what changed
    assert len(view.entries) == 200
    assert (len(view.new_shipped), len(view.stale)) == (NEW_SHIPPED, STALE)
    return shipped, local, listed + notes


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
    operation: Callable[[], object], floor: Callable[[], object], repeat: int, *, swap: bool = False
):
    """An operation and its floor, sampled alternately; ``swap`` also alternates which of the two
    goes first, so neither always pays for what the other left to the disk."""
    op_samples, floor_samples = sample_pair(operation, floor, repeat, swap=swap)
    return _stats(op_samples), _stats(floor_samples)


def sample_pair(
    operation: Callable[[], object], floor: Callable[[], object], repeat: int, *, swap: bool = False
) -> tuple[list[float], list[float]]:
    """``measure_pair``'s samples, in microseconds, after a short warm-up."""
    for _ in range(min(10, repeat)):
        operation()
        floor()
    op_samples: list[float] = []
    floor_samples: list[float] = []
    for n in range(repeat):
        pair = ((operation, op_samples), (floor, floor_samples))
        for function, samples in reversed(pair) if swap and n % 2 else pair:
            start = time.perf_counter_ns()
            function()
            samples.append((time.perf_counter_ns() - start) / 1000)
    return op_samples, floor_samples


# -- floors: bare system calls, on strings ---------------------------------------------------------


def _read(path: str) -> bytes:
    """open, fstat (to size the one read), read, close: what reading a whole file takes."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, os.fstat(fd).st_size + 1)
    finally:
        os.close(fd)


def _stat_or_none(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None


def floor_render(shipped: Path, local: Path, entry_ids: list[str], tail_ids: list[str]) -> Callable[[], None]:
    s, loc = str(shipped), str(local)

    def run() -> None:
        _read(f"{loc}/index.md")
        _read(f"{loc}/.shipped-manifest.json")
        for doc_id in entry_ids:
            _stat_or_none(f"{loc}/{doc_id}.md")
            _stat_or_none(f"{s}/{doc_id}.md")
        os.listdir(s)
        for doc_id in tail_ids:
            _read(f"{s}/{doc_id}.md")

    return run


def floor_read(path: str) -> Callable[[], None]:
    return lambda: _read(path)


def floor_shadowed_read(local_path: str, shipped_path: str) -> Callable[[], None]:
    """A local copy's read, and the one lstat that finds the shipped text it shadows: the read's
    header says "shadows shipped", which no read of the local file alone can know."""

    def run() -> None:
        _read(local_path)
        os.lstat(shipped_path)

    return run


_TEMP_NUMBERS = iter(range(10**9))


def _bare_write(path: str, data: bytes) -> None:
    directory = os.path.dirname(path)
    temp = f"{directory}/.floor-{next(_TEMP_NUMBERS)}.part"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.write(fd, data)
    os.fsync(fd)
    os.close(fd)
    os.rename(temp, path)
    fd = os.open(directory, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def floor_edit(path: str) -> Callable[[], None]:
    return lambda: _bare_write(path, _read(path))


def floor_create(local: Path) -> Callable[[], None]:
    counter = iter(range(10**9))
    index = f"{local}/index.md"

    def run() -> None:
        _bare_write(f"{local}/lab/floor-{next(counter)}.md", b"# New\n\nA new doc.\n")
        _bare_write(index, _read(index))

    return run


# -- the operations ---------------------------------------------------------------------------------


def op_edit(docs: Docs, doc_id: str, flip: list[int] | None = None) -> Callable[[], None]:
    """Toggle one line of a doc; ``flip`` counts the toggles of that doc (shared by every ``Docs``
    that edits the same file, so each quotes the text the file holds)."""
    flip = [0] if flip is None else flip

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
    """Create a doc (auto-filed) on an index one entry below the cap, put back after each create.

    Putting it back is one unsynced write, inside the timing: the ratio is slightly pessimistic.
    """
    counter = iter(range(10**9))
    index_path = local / "index.md"
    lines = index_path.read_text().split("\n")
    last_entry = max(n for n, line in enumerate(lines) if line.startswith("- "))
    below_cap = "\n".join(lines[:last_entry] + lines[last_entry + 1 :]).encode()
    index_path.write_bytes(below_cap)

    def run() -> None:
        n = next(counter)
        docs.write_doc(f"lab/fresh-{n}", body=f"# Fresh {n}\n\nA new doc about {n}.\n")
        index_path.write_bytes(below_cap)

    return run


def history_pairs(root: Path, repeat: int) -> tuple[list[str], tuple[float, float]]:
    """The same writes with and without history, on two copies of the store at the cap that swap
    roles halfway: each copy keeps history for half the samples and none for the other half. The
    file system may put two copies where making a file costs differently (ext4 without a journal
    skips the inodes freed in the last minute in a copy's block group, and other processes free
    them too), and neither arm may keep the cheaper place. First with every history at its bound,
    then on stores whose bounds are never reached."""
    copies = [build(root / name) for name in ("copy-a", "copy-b")]

    def stores(limits: HistoryLimits | None) -> list[Docs]:
        return [Docs(Store(shipped, local, "1.0", limits)) for shipped, local, _ in copies]

    kept, bare = stores(HistoryLimits()), stores(None)
    growing = stores(HistoryLimits(max_versions=10**6, max_bytes=1 << 40))
    flips = {doc_id: [[0], [0]] for doc_id in ("note-007", "note-008")}
    at_bound = HistoryLimits().max_versions + 1
    for copy in (0, 1):  # each history at its bound: the doc's, the shadowed doc's, the index's
        steps = (
            op_edit(kept[copy], "note-007", flips["note-007"][copy]),
            op_body(kept[copy], SHADOW),
            op_edit_index(kept[copy]),
        )
        for step in steps:
            for _ in range(at_bound):
                step()
    for copy in (0, 1):
        fill_firsts(kept[copy])
    pairs = repeat // 3
    creates = min(pairs, CREATES)

    def swapped(make: Callable[[Docs, int, str], Callable[[], None]], keeping: list[Docs], count: int):
        """Half the samples with copy a keeping history and copy b none, half the other way round;
        each op is made just before its half (what it reads first is read outside the timing)."""
        history: list[float] = []
        without: list[float] = []
        for kept_copy, bare_copy in ((0, 1), (1, 0)):
            op_samples, floor_samples = sample_pair(
                make(keeping[kept_copy], kept_copy, "kept"),
                make(bare[bare_copy], bare_copy, "bare"),
                count // 2,
                swap=True,
            )
            history += op_samples
            without += floor_samples
        return _stats(history), _stats(without)

    def edits(doc_id: str):
        return lambda docs, copy, role: op_edit(docs, doc_id, flips[doc_id][copy])

    def creates_named(name: str):
        return lambda docs, copy, role: op_create_below_cap(docs, f"{name}-{role}")

    def first_edits(name: str):
        """Edits of the docs ``creates_named(name)`` made in this copy, in this role, one each."""
        return lambda docs, copy, role: op_first_edit(docs, f"{name}-{role}")

    rows = [
        row(
            "write_doc old/new, with history against without",
            swapped(edits("note-007"), kept, pairs),
            "<= 1.2x",
        ),
        row(
            "write_doc body, with history against without",
            swapped(lambda docs, copy, role: op_body(docs, SHADOW), kept, pairs),
            "<= 1.2x",
        ),
        row(
            "write_doc create (+ filing), with history against without",
            swapped(creates_named("at-bound"), kept, creates),
            "<= 1.2x",
        ),
        row(
            "write_doc old/new, the first edit of a created doc (its folder and file made now)",
            swapped(first_edits("at-bound"), kept, creates),
            "—",
        ),
        row(
            "write_doc old/new, below the bound (each version a new file)",
            swapped(edits("note-008"), growing, pairs),
            "—",
        ),
        row(
            "write_doc create (+ filing), below the bound (the index's versions new files too)",
            swapped(creates_named("below"), growing, creates),
            "—",
        ),
    ]
    return rows, making_files(copies[0][1], pairs)


EARLIER_CREATES = 200


def fill_firsts(docs: Docs, count: int = EARLIER_CREATES, size: int = 5000) -> None:
    """The first versions of ``count`` docs created before (``size`` bytes each), as a store whose
    docs were all created through it holds them in ``.history/firsts``: about 1 MB to keep in step."""
    history = docs.store.history
    assert history is not None
    text = "# Earlier\n\n" + "a line of an earlier doc.\n" * (size // 26)
    data = text.encode()
    state = State(data, text, hashlib.sha256(data).hexdigest(), local=True)
    lines = text.count("\n")
    for n in range(count):
        _, version = encode(1, time.time(), Author("cli"), None, False, state, lines, 0, None, 1 << 30)
        _, fd = history.files.firsts.append(f"earlier/doc-{n}", version)
        os.close(fd)


def making_files(directory: Path, repeat: int) -> tuple[float, float]:
    """What making an empty file, and a folder, costs in ``directory`` now (medians, in
    microseconds; each removed after its timing): the price of a version that cannot take over a
    dropped version's file, and of a created doc's first version (its folder and its file)."""
    files: list[float] = []
    folders: list[float] = []
    for n in range(repeat):
        path = f"{directory}/.probe-{n}"
        start = time.perf_counter_ns()
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        files.append((time.perf_counter_ns() - start) / 1000)
        start = time.perf_counter_ns()
        os.mkdir(path + "-folder")
        folders.append((time.perf_counter_ns() - start) / 1000)
        os.unlink(path)
        os.rmdir(path + "-folder")
    return statistics.median(files), statistics.median(folders)


SHADOW = "procedure-30"  # a shipped doc with a local copy: body writes append a line to it


def op_body(docs: Docs, doc_id: str) -> Callable[[], None]:
    """Body writes of a doc, each its text read now plus one more line (a new one every time)."""
    text = docs.read_doc(doc_id).text  # read first: a body write is checked against what was read
    flip = [0]

    def run() -> None:
        flip[0] += 1
        docs.write_doc(doc_id, body=text + f"A line of mine, number {flip[0]}.\n")

    return run


def op_edit_index(docs: Docs) -> Callable[[], None]:
    """A body write of the index that changes its title and back (each one a version)."""
    index = docs.read_doc("index").text
    assert index.startswith("# Docs\n")
    flip = [0]

    def run() -> None:
        flip[0] += 1
        docs.write_doc("index", body=index if flip[0] % 2 == 0 else index.replace("# Docs", "# The docs", 1))

    return run


CREATES = 150  # timed creates at most, so the index never reaches its cap of 200


def op_create_below_cap(docs: Docs, name: str = "kept") -> Callable[[], None]:
    """Create docs one after another (each filed), on an index first cut well below the cap
    through the store (the index is not put back between creates: that would be an outside edit)."""
    index = docs.read_doc("index").text
    lines = index.split("\n")
    entries = [n for n, line in enumerate(lines) if line.startswith("- ")]
    cut = set(entries[: CREATES + 20])  # room for the warm-up and every timed create
    docs.write_doc("index", body="\n".join(line for n, line in enumerate(lines) if n not in cut))
    counter = iter(range(10**9))

    def run() -> None:
        n = next(counter)
        docs.write_doc(f"lab/{name}-{n}", body=f"# Kept {n}\n\nA new doc about {n}.\n")

    return run


def op_first_edit(docs: Docs, name: str) -> Callable[[], None]:
    """The first edit of each doc ``op_create_below_cap(docs, name)`` created, in creation order."""
    counter = iter(range(10**9))

    def run() -> None:
        n = next(counter)
        docs.write_doc(f"lab/{name}-{n}", old="A new doc about", new="An edited doc about")

    return run


def row(name: str, pair, target: str, floor_scale: float = 1.0) -> str:
    (op_median, op_p95), (floor_median, floor_p95) = pair
    ratio = op_median / (floor_median * floor_scale)
    times = f"{op_median:.0f} | {op_p95:.0f} | {floor_median:.0f} | {floor_p95:.0f}"
    return f"| {name} | {times} | {ratio:.2f}x | {target} |"


def startup(runs: int) -> list[tuple[str, float]]:
    """Wall time of whole commands, in ms (median of ``runs``)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "XDG_CONFIG_HOME": tmp, "JUPYTER_CONFIG_DIR": f"{tmp}/jupyter"}
        commands = {
            "python -c pass (the interpreter alone)": [sys.executable, "-c", "pass"],
            "biopb-kernel-docs read kernel": [sys.executable, "-m", "biopb_kernel_docs", "read", "kernel"],
            "biopb-kernel-docs index": [sys.executable, "-m", "biopb_kernel_docs", "index"],
        }
        results = []
        for name, command in commands.items():
            samples = []
            for _ in range(runs):
                start = time.perf_counter()
                subprocess.run(command, env=env, check=True, capture_output=True)
                samples.append((time.perf_counter() - start) * 1000)
            results.append((name, statistics.median(samples)))
        loaded = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys, biopb_kernel_docs.surfaces.cli; "
                "print(sorted({m.split('.')[0] for m in sys.modules}))",
            ],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        heavy = [
            name
            for name in ("traitlets", "IPython", "mcp", "jupyter_server", "tornado")
            if f"'{name}'" in loaded
        ]
        results.append((f"heavy modules imported by the command line: {heavy or 'none'}", float("nan")))
        return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--startup-runs", type=int, default=20)
    arguments = parser.parse_args()
    repeat = arguments.repeat
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shipped, local, entry_ids = build(root / "cap")
        docs = Docs(Store(shipped, local, "1.0"))
        view = docs.index()
        tail_ids = [item.id for item in view.new_shipped + view.stale]
        render_floor = floor_render(shipped, local, entry_ids, tail_ids)
        shadow = "procedure-05"
        rows = [
            row(
                "render the index: values (Docs.index)",
                measure_pair(docs.index, render_floor, repeat),
                "<= 2x",
            ),
            row(
                "render the index: values + the agent's text",
                measure_pair(lambda: index_text(docs.index()), render_floor, repeat),
                "<= 2x",
            ),
            row(
                "read_doc shipped",
                measure_pair(
                    lambda: docs.read_doc("procedure-40"), floor_read(f"{shipped}/procedure-40.md"), repeat
                ),
                "<= 2x",
            ),
            row(
                "read_doc local copy (shadow), against a read and the shipped file's lstat",
                measure_pair(
                    lambda: docs.read_doc(shadow),
                    floor_shadowed_read(f"{local}/{shadow}.md", f"{shipped}/{shadow}.md"),
                    repeat,
                ),
                "<= 2x",
            ),
            row(
                "read_doc one section (#Section 4), against the floor",
                measure_pair(
                    lambda: docs.read_doc("procedure-40#Section 4"),
                    floor_read(f"{shipped}/procedure-40.md"),
                    repeat,
                ),
                "<= 2x",
            ),
            row(
                "read_doc one section, against a whole read_doc of it",
                measure_pair(
                    lambda: docs.read_doc("procedure-40#Section 4"),
                    lambda: docs.read_doc("procedure-40"),
                    repeat,
                ),
                "<= 1.2x",
            ),
            row(
                "read_doc outline (procedure-40#), against a whole read_doc",
                measure_pair(
                    lambda: docs.read_doc("procedure-40#"), lambda: docs.read_doc("procedure-40"), repeat
                ),
                "—",
            ),
            row(
                "write_doc old/new (lock + fsync)",
                measure_pair(op_edit(docs, "note-007"), floor_edit(f"{local}/note-007.md"), repeat // 3),
                "<= 1.3x",
            ),
            row(
                "write_doc create (+ filing), against two writes",
                measure_pair(op_create(docs, local), floor_create(local), repeat // 3),
                "<= 1.5x",
            ),
        ]
        history_rows, (make_file, make_folder) = history_pairs(root, repeat)
        flat = []
        for unindexed in (10, 10_000):
            _, local_n, _ = build(root / f"unindexed-{unindexed}", unindexed)
            flat_docs = Docs(Store(root / f"unindexed-{unindexed}" / "shipped", local_n, "1.0"))
            flat.append((unindexed, measure(flat_docs.index, repeat)))
    print(
        f"Store benchmark, {time.strftime('%Y-%m-%d')}, Python {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} cores, repeat={repeat}. Times in microseconds.\n"
    )
    print("Floors (bare system calls on strings; nothing of ours: no lock, no pathlib, no hashing):\n")
    for name, floor in FLOORS.items():
        print(f"- {name}: {floor}")
    print("\n| operation | median | p95 | floor median | floor p95 | ratio (median) | target |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(
        "\nThe history's cost: the same write with and without history, alternately, in the same run "
        "(the 'floor' columns are the write without history):\n"
    )
    print("| operation | median | p95 | without history median | p95 | ratio (median) | target |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(history_rows))
    print(
        f"\nMaking a file in the local tier took {make_file:.0f} us in this run, and a folder "
        f"{make_folder:.0f} us (medians): a version below its bound pays the first, a created doc's "
        "first edit both."
    )
    print("\n| render the index with unindexed local files | median | p95 |")
    print("|---|---|---|")
    for unindexed, (median, p95) in flat:
        print(f"| {unindexed:,} | {median:.0f} | {p95:.0f} |")
    print(f"\nrender, 10,000 vs 10 unindexed files: {flat[1][1][0] / flat[0][1][0]:.2f}x (target: flat, ~1x)")
    print(f"\n| start-up, whole command (median of {arguments.startup_runs}) | ms |")
    print("|---|---|")
    for name, ms in startup(arguments.startup_runs):
        print(f"| {name} | {'' if ms != ms else f'{ms:.0f}'} |")


if __name__ == "__main__":
    main()
