"""Seed sweep (§6, issue 16): does each shipped procedure stay right on its own scene drawn with other
random seeds?

    .venv/bin/python benchmarks/seed_sweep.py [--seeds 10 | --first 11 --last 30] [--docs a,b]
                                              [--jsonl results.jsonl] [--markdown results.jsonl]

Every runnable doc's scene module offers ``seeded(seed) -> (make, check)``: its main scene built with
another seed, and its main check against the truth that seed planted. For each seed the doc's python
blocks run on the scene (``tests/docs/running.py::run_doc``) and the outcome is one of:

- right: the doc finished and the check passed;
- refused: the doc stopped with an ``AssertionError`` raised in its own code (a gate), message kept;
- wrong: the doc finished but the check failed against the planted truth (a plausible wrong number,
  the worst outcome);
- crashed: anything else raised, in the doc's code, a library, the scene's generator or the check.

One row per doc is printed as soon as the doc is done; ``--jsonl`` appends it to a file too, so a
long sweep can be run doc by doc and ``--markdown FILE`` renders every row kept there as the table
of benchmarks/RESULTS-seed-sweep.md (the last row of a doc wins).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.docs.running import run_doc  # noqa: E402
from tests.docs.seed_docs import runnable_ids, scene_module  # noqa: E402

Pair = tuple[Callable[[], dict], Callable[[dict], None]]


def _segment_3d(seed: int) -> Pair:
    """segment-3d's module predates ``seeded``: its ``_build`` returns the truth the check takes."""
    module = scene_module("segment-3d")
    return (
        lambda: module._build(seed=seed)[0],
        lambda namespace: module.check(namespace, module._build(seed=seed)[1]),
    )


def _segment_cells(seed: int) -> Pair:
    """segment-cells' module predates ``seeded``: its ``_build`` fills the ``TRUTH`` its check reads."""
    module = scene_module("segment-cells")
    built: dict[str, object] = {}

    def make() -> dict:
        if not built:
            built["inputs"] = module._build(seed)
            built["truth"] = dict(module.TRUTH)
        module.TRUTH.clear()
        module.TRUTH.update(built["truth"])
        return dict(built["inputs"])

    def check(namespace: dict) -> None:
        make()
        module.check(namespace)

    return make, check


FALLBACK = {"segment-3d": _segment_3d, "segment-cells": _segment_cells}


def seeded(doc_id: str, seed: int) -> Pair | None:
    module = scene_module(doc_id)
    if hasattr(module, "seeded"):
        return module.seeded(seed)
    if doc_id in FALLBACK:
        return FALLBACK[doc_id](seed)
    return None


def _short(err: BaseException, words: int = 24) -> str:
    text = " ".join(str(err).split())
    cut = text.split(" ")
    return " ".join(cut[:words]) + (" ..." if len(cut) > words else "")


def run_seed(doc_id: str, seed: int) -> tuple[str, str]:
    """``(outcome, what)`` of ``doc_id`` on its scene drawn with ``seed``."""
    pair = seeded(doc_id, seed)
    if pair is None:
        return "unseeded", "the scene module has no seeded(seed)"
    make, check = pair
    try:
        inputs = make()
    except Exception as err:  # the generator itself failed: not the doc's fault, reported as a crash
        return "crashed", f"scene: {type(err).__name__}: {_short(err)}"
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # the doc's own report lines
            namespace = run_doc(doc_id, inputs=inputs)
    except AssertionError as err:
        where = traceback.extract_tb(err.__traceback__)[-1].filename
        if where.startswith(f"seed/{doc_id}.md"):
            return "refused", _short(err)
        return "crashed", f"AssertionError in {Path(where).name}: {_short(err)}"
    except Exception as err:
        where = traceback.extract_tb(err.__traceback__)[-1]
        return "crashed", f"{type(err).__name__} in {Path(where.filename).name}:{where.lineno}: {_short(err)}"
    try:
        check(namespace)
    except AssertionError as err:
        return "wrong", _short(err)
    except Exception as err:
        return "crashed", f"check: {type(err).__name__}: {_short(err)}"
    return "right", ""


def sweep(doc_id: str, seeds: list[int]) -> dict[str, object]:
    outcomes: dict[int, tuple[str, str]] = {}
    start = time.perf_counter()
    for seed in seeds:
        outcomes[seed] = run_seed(doc_id, seed)
        print(f"  {doc_id} seed {seed}: {outcomes[seed][0]} {outcomes[seed][1]}", file=sys.stderr, flush=True)
    return {
        "doc": doc_id,
        "seeds": seeds,
        "outcomes": {str(s): list(o) for s, o in outcomes.items()},
        "seconds": round(time.perf_counter() - start, 1),
    }


def _seed_list(seeds: list[int]) -> str:
    return ", ".join(str(s) for s in seeds)


def _grouped(row: dict, outcome: str) -> str:
    """The seeds with this outcome, grouped by what happened: ``3, 7: message; 5: other``."""
    by_what: dict[str, list[int]] = {}
    for seed, (got, what) in row["outcomes"].items():
        if got == outcome:
            by_what.setdefault(what, []).append(int(seed))
    parts = [f"{_seed_list(s)}: {what}".rstrip(": ") for what, s in by_what.items()]
    return "; ".join(parts).replace("|", "\\|")


def markdown(rows: list[dict]) -> str:
    lines = [
        "| doc | seeds | right | refused (seeds: the doc's message) | wrong (seeds: the check's failure) "
        "| crashed (seeds: error) | s |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        seeds = row["seeds"]
        count = {k: sum(1 for got, _ in row["outcomes"].values() if got == k) for k in ("right",)}
        span = (
            f"{seeds[0]}-{seeds[-1]}" if seeds == list(range(seeds[0], seeds[-1] + 1)) else _seed_list(seeds)
        )
        crashed = "; ".join(filter(None, (_grouped(row, "crashed"), _grouped(row, "unseeded"))))
        lines.append(
            f"| {row['doc']} | {span} | {count['right']}/{len(seeds)} | {_grouped(row, 'refused')} "
            f"| {_grouped(row, 'wrong')} | {crashed} "
            f"| {row['seconds']:.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10, help="seeds 1..N (default 10)")
    parser.add_argument("--first", type=int, help="first seed (with --last: a held-out range)")
    parser.add_argument("--last", type=int, help="last seed")
    parser.add_argument("--docs", help="comma-separated doc ids (default: every runnable doc)")
    parser.add_argument("--jsonl", type=Path, help="append each doc's row to this file")
    parser.add_argument(
        "--markdown", type=Path, help="render the rows kept in this file as a table, and stop"
    )
    args = parser.parse_args()
    if args.markdown:
        rows: dict[tuple[str, str], dict] = {}
        for line in args.markdown.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            rows[(row["doc"], str(row["seeds"]))] = row
        print(markdown(list(rows.values())))
        return
    seeds = (
        list(range(args.first, args.last + 1)) if args.first is not None else list(range(1, args.seeds + 1))
    )
    docs = args.docs.split(",") if args.docs else runnable_ids()
    unknown = set(docs) - set(runnable_ids())
    if unknown:
        parser.error(f"not runnable docs: {sorted(unknown)}; choose from {runnable_ids()}")
    warnings.simplefilter("ignore")
    rows_done = []
    for doc_id in docs:
        row = sweep(doc_id, seeds)
        rows_done.append(row)
        if args.jsonl:
            with args.jsonl.open("a", encoding="utf-8") as out:
                out.write(json.dumps(row) + "\n")
        print(markdown([row]).splitlines()[-1], flush=True)
    print()
    print(markdown(rows_done))


if __name__ == "__main__":
    main()
