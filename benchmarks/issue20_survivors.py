"""Issue 20's mutation survivors, each applied again with the test written for it (red expected).

The issue listed 44 single changes the suite once let through. Each row of issue20_rows.py is that
change, as the exact text it replaces in today's code, and the test that now pins the behaviour. The run
checks that every named test passes on the code as it is, then applies each mutant alone in a copy
of the repository (as fresh_mutants.py does) and runs its test, which must fail:

    .venv/bin/python benchmarks/issue20_survivors.py [--jobs 2] [--only 3,17]

It prints one row a mutant (red, or STILL GREEN) and exits 1 if any test stays green.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fresh_mutants import ROOT, workers
from issue20_rows import SURVIVORS, Survivor
from mutation_sites import Mutant


def _mutant(survivor: Survivor) -> Mutant:
    source = (ROOT / survivor.path).read_text(encoding="utf-8")
    count = source.count(survivor.old)
    if count != 1:
        raise SystemExit(f"#{survivor.number}: the text to replace occurs {count} times in {survivor.path}")
    start = source.index(survivor.old)
    line = source.count("\n", 0, start) + 1
    return Mutant(survivor.path, line, start, start + len(survivor.old), survivor.new, survivor.what)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", default="", help="these survivors only: 3,11.b")
    parser.add_argument("--rows", type=Path, help="a Python file whose SURVIVORS replace the ones here")
    args = parser.parse_args()
    survivors = SURVIVORS
    if args.rows:
        scope = {"Survivor": Survivor}
        exec(args.rows.read_text(encoding="utf-8"), scope)
        survivors = scope["SURVIVORS"]
    chosen = [s for s in survivors if not args.only or s.number in args.only.split(",")]
    mutants = [(survivor, _mutant(survivor)) for survivor in chosen]

    tests = sorted({survivor.test for survivor in chosen})
    green = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider", *tests],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if green.returncode != 0:
        raise SystemExit(f"the tests are not green on the code as it is:\n{green.stdout[-3000:]}")
    print(f"{len(tests)} tests green on the code as it is", flush=True)

    def one(pair: tuple[Survivor, Mutant]) -> tuple[Survivor, Mutant, str, str]:
        survivor, mutant = pair
        verdict, by = run(mutant, [survivor.test], 600)
        shown = "red" if verdict == "killed" else "STILL GREEN" if verdict == "SURVIVED" else verdict
        print(f"{survivor.number:6} {shown:11} {survivor.path}:{mutant.line} {survivor.what}", flush=True)
        return survivor, mutant, shown, by

    with workers(args.jobs, "HEAD") as run, ThreadPoolExecutor(max_workers=args.jobs) as pool:
        rows = list(pool.map(one, mutants))

    print("\n| # | the mutant | module:line | the test | on the mutant |")
    print("|---|---|---|---|---|")
    for survivor, mutant, shown, _ in rows:
        where = f"{survivor.path.removeprefix('biopb_kernel_docs/')}:{mutant.line}"
        print(
            f"| {survivor.number} | {survivor.what} | {where} | {survivor.test.split('::')[-1]} | {shown} |"
        )
    red = sum(shown == "red" for _, _, shown, _ in rows)
    print(f"\n{red} of {len(rows)} red on their mutant")
    sys.exit(0 if red == len(rows) else 1)


if __name__ == "__main__":
    main()
