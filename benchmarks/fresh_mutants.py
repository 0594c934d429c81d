"""Sample fresh mutants of the package and run the tests that reach each one (issue 20).

A mutation run chosen by hand finds what its author thought of; this one draws its mutants at
random, with a seed chosen before the run, from every site of the chosen folders, so a run can be
repeated and nobody steers it away from the places the suite is weak. Each mutant is one change a
real edit could make (mutation_sites.py lists the kinds).

The tests run on a mutant are those whose coverage context reached its line, from a run of the
whole suite under coverage with this configuration (``COVERAGE_RCFILE=rc coverage run -m pytest``,
then ``coverage combine``)::

    [run]
    source = biopb_kernel_docs
    parallel = true
    data_file = /tmp/contexts/.coverage
    dynamic_context = test_function
    patch = subprocess

A line run at import (a constant, a default, a table) takes the tests that reach any line of its
module. Outside ``core/``, code also runs in kernels, servers' own tasks and command-line
processes, which coverage sees without a test's name: there the test modules that name the module
and those of the surfaces it serves (SURFACE_TESTS) run too. The module's own tests run first and
the slow gates (procedures, install, browser, stress) only where nothing else reaches the line;
``-x`` stops at the first red test.

Each worker mutates its own copy of the repository (a ``git worktree`` at ``--revision``), placed
first on ``PYTHONPATH`` so the kernels and servers the tests start load the mutant too.

    .venv/bin/pip install coverage
    .venv/bin/python benchmarks/fresh_mutants.py --contexts /tmp/contexts/.coverage --count 60 \
        --seed 20261207 --after 20261206

prints a row a mutant (killed by which test, or SURVIVED) and the share killed. Every draw is
recorded in ``benchmarks/mutants-drawn/SEED.txt`` (one line a mutant: module, change, the changed
line), and ``--after`` leaves out every mutant those records name, so a new sample holds no mutant a
test was written against. A record names the mutant by its text, not its line number, so it still
matches after the code around it moves. ``--modules core/blame.py --count 0`` takes every fresh site
of the modules named: a survey of a module, not a sample of the package.
Equivalent mutants (no behaviour any caller can see changes) are for a person to strike from the
count afterwards, with the reason.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from mutation_sites import Mutant, apply, mutants_of

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "benchmarks" / "mutants-drawn"
PACKAGE = "biopb_kernel_docs"
DEFAULT_FOLDERS = ("core", "surfaces", "bridge", "text")

# core code runs in the test's own process, where coverage names the test; the other folders also
# run in kernels, servers' own tasks and command-line processes, which coverage sees without a
# test's name: there the tests of the surfaces a folder serves run too, named or not
IN_PROCESS = f"{PACKAGE}/core/"
SURFACE_TESTS = {
    "surfaces": (
        "tests/test_handlers.py",
        "tests/test_mcp_server.py",
        "tests/test_magics.py",
        "tests/test_cli.py",
    ),
    "bridge": ("tests/test_bridge.py", "tests/test_bridge_client.py", "tests/test_mcp_server.py"),
    "text": ("tests/test_render.py", "tests/test_magics.py", "tests/test_mcp_server.py", "tests/test_cli.py"),
}
# ./dev in a copy of the repository reinstalls the shared venv's package from that copy
NEVER_IN_A_COPY = ("tests/test_dev_script.py",)
SLOW_TESTS = (
    "tests/docs/",
    "tests/test_install.py",
    "tests/test_panel_browser.py",
    "tests/test_bridge_stress.py",
    "tests/test_history_crash.py",
    "tests/test_bench_run.py",
    "tests/test_mcp_inspector.py",
)


@functools.cache
def _source(relative: str) -> str:
    return (ROOT / relative).read_text(encoding="utf-8")


def _changed_line(mutant: Mutant) -> str:
    return apply(_source(mutant.path), mutant).splitlines()[mutant.line - 1]


def _records(sites: list[Mutant]) -> dict[Mutant, str]:
    """Each site's record line: where it is, the change, the line before and after it, and which
    of the sites alike in all that it is (two functions may hold the same line)."""
    alike: dict[tuple[str, ...], int] = {}
    records = {}
    for mutant in sorted(sites, key=lambda mutant: (mutant.path, mutant.start)):
        original = _source(mutant.path).splitlines()[mutant.line - 1]
        text = (mutant.path, mutant.description, original.strip(), _changed_line(mutant).strip())
        ordinal = alike[text] = alike.get(text, -1) + 1
        records[mutant] = "\t".join((f"{mutant.path}:{mutant.line}", *text[1:], str(ordinal)))
    return records


def _identity(record_line: str) -> tuple[str, ...]:
    # the line number is left out, so a mutant is the same one after the code above it moves
    where, *text = record_line.split("\t")
    return (where.rpartition(":")[0], *text)


def _drawn_before(seeds: list[str]) -> set[tuple[str, str, str]]:
    drawn = set()
    for seed in seeds:
        record = RECORDS / f"{seed}.txt"
        if not record.is_file():
            raise SystemExit(
                f"No record of seed {seed}: {record} is missing. Run that seed with --list first."
            )
        drawn |= {_identity(line) for line in record.read_text(encoding="utf-8").splitlines() if line}
    return drawn


def _node_id(context: str) -> str | None:
    # coverage names a test by its dotted module path and function: tests.test_x.test_y
    # (a method as tests.test_x.Class.test_y); pytest wants tests/test_x.py::test_y
    parts = context.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = ROOT.joinpath(*parts[:cut]).with_suffix(".py")
        if module.is_file():
            return f"{module.relative_to(ROOT)}::{'::'.join(parts[cut:])}"
    return None


@functools.cache
def _import_time_lines(path: Path) -> frozenset[int]:
    """The lines of a module that run when it is imported: all but the bodies of its functions."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    in_functions = {
        line
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for inner in (node.body if isinstance(node.body, list) else [node.body])
        for line in range(inner.lineno, inner.end_lineno + 1)
    }
    return frozenset(range(1, len(source.splitlines()) + 1)) - in_functions


class TestsReaching:
    """Which tests reach a line, from a coverage run with test-function contexts."""

    def __init__(self, data_file: Path) -> None:
        from coverage import CoverageData

        self.data = CoverageData(basename=str(data_file))
        self.data.read()
        self._by_file: dict[str, dict[int, list[str]]] = {}

    def of(self, relative: str, line: int) -> list[str]:
        """Node ids of the tests whose context reached the line."""
        path = str(ROOT / relative)
        if path not in self._by_file:
            self._by_file[path] = self.data.contexts_by_lineno(path)
        by_line = self._by_file[path]
        # a line run at import (a constant, a default, a table of operations) carries the name of
        # whichever test imported the module first, or none: the tests reaching any line of the
        # module are the ones it can change
        contexts = [context for context in by_line.get(line, []) if context]
        if not contexts or line in _import_time_lines(ROOT / relative):
            contexts = [context for at_line in by_line.values() for context in at_line if context]
        return sorted({node for context in contexts for node in [_node_id(context)] if node})


def _quick_first(tests: list[str], relative: str) -> list[str]:
    # the module's own tests first; the slow gates (procedures, install, browser, stress) only where
    # nothing else reaches the line, so a surviving mutant does not rerun half the suite on one core
    stem = Path(relative).stem
    tests = [test for test in tests if not test.startswith(NEVER_IN_A_COPY)]
    quick = [test for test in tests if not test.startswith(SLOW_TESTS)] or tests
    return sorted(quick, key=lambda test: stem not in test.split("::")[0])


@functools.cache
def _modules_naming(relative: str) -> tuple[str, ...]:
    """The test modules named after the module, then those whose text names it."""
    stem = Path(relative).stem
    naming = []
    for test_file in sorted(
        (ROOT / "tests").rglob("test_*.py"), key=lambda path: path.stem != f"test_{stem}"
    ):
        if test_file.stem == f"test_{stem}" or re.search(
            rf"\b{re.escape(stem)}\b", test_file.read_text(encoding="utf-8")
        ):
            naming.append(str(test_file.relative_to(ROOT)))
    naming = [module for module in naming if not module.startswith(NEVER_IN_A_COPY)]
    return tuple(module for module in naming if not module.startswith(SLOW_TESTS)) or tuple(naming)


@dataclass
class Outcome:
    number: int
    mutant: Mutant
    verdict: str  # "killed", "SURVIVED" or "UNDECIDED" (its tests ran past --timeout)
    by: str
    tests_run: int
    seconds: float


class Worker:
    """A copy of the repository that one mutant at a time is applied to."""

    def __init__(self, number: int, scratch: Path, revision: str) -> None:
        self.copy = scratch / f"worker-{number}"
        subprocess.run(
            ["git", "worktree", "add", "--detach", "-q", str(self.copy), revision], cwd=ROOT, check=True
        )
        for built in ("labextension", "seed"):
            if (ROOT / PACKAGE / built).exists():
                shutil.copytree(ROOT / PACKAGE / built, self.copy / PACKAGE / built, symlinks=True)

    def run(self, mutant: Mutant, tests: list[str], timeout: float) -> tuple[str, str]:
        target = self.copy / mutant.path
        original = target.read_text(encoding="utf-8")
        target.write_text(apply(original, mutant), encoding="utf-8")
        try:
            pytest = ["-m", "pytest", "-n", "0", "-x", "-q", "-p", "no:cacheprovider", "--timeout", "120"]
            command = [sys.executable, *pytest, *tests]
            env = {**os.environ, "PYTHONPATH": str(self.copy), "PYTHONDONTWRITEBYTECODE": "1"}
            # a session of its own, ended whole afterwards: a mutant can leave a server its tests
            # started spinning (an await removed from a loop), which would eat a core for hours
            tests_run = subprocess.Popen(
                command,
                cwd=self.copy,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
            try:
                stdout, _ = tests_run.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                return "UNDECIDED", f"(its tests ran over {timeout:.0f} s)"
            finally:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(tests_run.pid, signal.SIGKILL)
                tests_run.communicate()
            if tests_run.returncode == 0:
                return "SURVIVED", ""
            if tests_run.returncode == 5:
                return "SURVIVED", "(no test collected)"
            failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", stdout, flags=re.MULTILINE)
            if failed:  # a test failed, or a test module no longer imports
                return "killed", failed[0]
            # pytest itself refused (a test the contexts name that this revision lacks, say)
            return "UNDECIDED", f"(pytest exit {tests_run.returncode}: {stdout.strip()[-200:]})"
        finally:
            target.write_text(original, encoding="utf-8")
            for cached in (target.parent / "__pycache__").glob(f"{target.stem}.*.pyc"):
                cached.unlink()

    def remove(self) -> None:
        subprocess.run(["git", "worktree", "remove", "--force", str(self.copy)], cwd=ROOT, check=False)


@contextlib.contextmanager
def workers(jobs: int, revision: str) -> Iterator[Callable[[Mutant, list[str], float], tuple[str, str]]]:
    """``jobs`` copies of the repository at ``revision``; yields run(mutant, tests, timeout), which
    takes a free copy (a call per thread at most ``jobs`` at once)."""
    scratch = Path(tempfile.mkdtemp(prefix="fresh-mutants-"))
    made: list[Worker] = []
    try:
        made.extend(Worker(number, scratch, revision) for number in range(jobs))
        free = list(made)

        def run(mutant: Mutant, tests: list[str], timeout: float) -> tuple[str, str]:
            worker = free.pop()
            try:
                return worker.run(mutant, tests, timeout)
            finally:
                free.append(worker)

        yield run
    finally:
        for worker in made:
            worker.remove()
        shutil.rmtree(scratch, ignore_errors=True)


def _draw(sites: list[Mutant], seed: int, count: int) -> list[Mutant]:
    chosen = random.Random(seed).sample(sites, min(count, len(sites)))
    return sorted(chosen, key=lambda mutant: (mutant.path, mutant.start))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--contexts",
        type=Path,
        help="combined coverage data of a suite run with test-function contexts",
    )
    parser.add_argument(
        "--tests",
        default="",
        help="run these test files on every mutant instead of the tests coverage names (a quick "
        "survey of a module against its own tests; a survivor may still die to another module's)",
    )
    parser.add_argument("--count", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--folders",
        default=",".join(DEFAULT_FOLDERS),
        help=f"package folders to draw from (default {','.join(DEFAULT_FOLDERS)})",
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=600, help="seconds for one mutant's tests")
    parser.add_argument(
        "--revision", default="HEAD", help="the commit whose tests judge the mutants (default HEAD)"
    )
    parser.add_argument("--list", action="store_true", help="print the drawn mutants and stop")
    parser.add_argument(
        "--after",
        default="",
        help="seeds of earlier runs (recorded in mutants-drawn/) whose mutants this one leaves out; "
        "'all': every recorded seed but this one",
    )
    parser.add_argument(
        "--modules",
        default="",
        help="draw only from these modules (core/blame.py,core/review.py); --count 0 takes every fresh site",
    )
    parser.add_argument("--only", default="", help="run only these of the drawn mutants: 3,17,42")
    parser.add_argument(
        "--family",
        type=int,
        choices=(1, 2),
        default=1,
        help="which family of changes to draw from (mutation_sites.py names both; default 1)",
    )
    args = parser.parse_args()

    sites = [
        mutant
        for folder in args.folders.split(",")
        for module in sorted((ROOT / PACKAGE / folder).glob("*.py"))
        for mutant in mutants_of(module, ROOT)
        if mutant.family == args.family
    ]
    after = [seed for seed in args.after.split(",") if seed]
    if after == ["all"]:
        after = sorted(record.stem for record in RECORDS.glob("*.txt") if record.stem != str(args.seed))
    elif str(args.seed) in after:
        parser.error(f"--after names seed {args.seed} itself, whose record this run writes: leave it out")
    earlier = _drawn_before(after)
    records = _records(sites)
    fresh = [mutant for mutant in sites if _identity(records[mutant]) not in earlier]
    if args.modules:
        wanted = {f"{PACKAGE}/{module}" for module in args.modules.split(",")}
        fresh = [mutant for mutant in fresh if mutant.path in wanted]
    drawn = _draw(fresh, args.seed, args.count or len(fresh))
    print(
        f"{len(sites)} sites in {args.folders}, {len(fresh)} fresh"
        + (f" in {args.modules}" if args.modules else "")
        + (f" (leaving out the {len(earlier)} that {len(after)} earlier seeds drew)" if earlier else "")
        + f"; drew {len(drawn)} with seed {args.seed}",
        flush=True,
    )
    record, drawn_text = RECORDS / f"{args.seed}.txt", "".join(f"{records[mutant]}\n" for mutant in drawn)
    if record.is_file() and record.read_text(encoding="utf-8") != drawn_text:
        # the sites are the working tree's: once the code changes, a seed draws other mutants
        raise SystemExit(
            f"{record} records another draw of seed {args.seed}: the code has changed since that run. "
            "List or rerun it from a checkout of the revision it ran on, or choose a new seed."
        )
    RECORDS.mkdir(exist_ok=True)
    record.write_text(drawn_text, encoding="utf-8")
    if args.list:
        for number, mutant in enumerate(drawn, 1):
            print(f"{number:3} {mutant.path}:{mutant.line} {mutant.description}")
            print(f"      {_changed_line(mutant).strip()}")
        return

    numbered = list(enumerate(drawn, 1))
    if args.only:
        chosen = {int(number) for number in args.only.split(",")}
        numbered = [(number, mutant) for number, mutant in numbered if number in chosen]
    if not args.tests and not args.contexts:
        parser.error("give --contexts (the tests coverage names for each mutant) or --tests FILES")
    reaching = TestsReaching(args.contexts) if not args.tests else None

    def one(numbered_mutant: tuple[int, Mutant]) -> Outcome:
        number, mutant = numbered_mutant
        if reaching is None:
            return judged(number, mutant, args.tests.split(","))
        tests = _quick_first(reaching.of(mutant.path, mutant.line), mutant.path)
        # a test that only inspects what a module built at import (a table, a class's flags) runs
        # none of its lines, so coverage never names it: the modules naming the module run too
        at_import = mutant.line in _import_time_lines(ROOT / mutant.path)
        for module in [*_modules_naming(mutant.path), *SURFACE_TESTS.get(mutant.path.split("/")[1], ())]:
            if module not in tests and (not tests or at_import or not mutant.path.startswith(IN_PROCESS)):
                tests.append(module)
        if not tests:
            return Outcome(number, mutant, "SURVIVED", "(no test reaches the line)", 0, 0.0)
        return judged(number, mutant, tests)

    def judged(number: int, mutant: Mutant, tests: list[str]) -> Outcome:
        started = time.perf_counter()
        verdict, by = run(mutant, tests, args.timeout)
        outcome = Outcome(number, mutant, verdict, by, len(tests), time.perf_counter() - started)
        print(f"{number:3} {verdict:8} {mutant.path}:{mutant.line} {mutant.description}  {by}", flush=True)
        return outcome

    with workers(args.jobs, args.revision) as run, ThreadPoolExecutor(max_workers=args.jobs) as pool:
        outcomes = list(pool.map(one, numbered))

    print("\n| # | module:line | change | verdict | first red test | tests run | s |")
    print("|---|---|---|---|---|---|---|")
    for outcome in outcomes:
        mutant = outcome.mutant
        where = f"{mutant.path.removeprefix(PACKAGE + '/')}:{mutant.line}"
        print(
            f"| {outcome.number} | {where} | {mutant.description} "
            f"| {outcome.verdict} | {outcome.by} | {outcome.tests_run} | {outcome.seconds:.0f} |"
        )
    killed = sum(outcome.verdict == "killed" for outcome in outcomes)
    print(f"\nkilled {killed} of {len(outcomes)} ({100 * killed / len(outcomes):.0f} %)")


if __name__ == "__main__":
    main()
