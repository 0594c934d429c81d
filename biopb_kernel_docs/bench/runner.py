"""Run cases through the real ``biopb-kernel-docs mcp`` server, one fresh isolated tree per case,
arm, budget and trial, with every agent of the run on it.

Session agents (the offline ones, a model) share the unit's server session, each starting from the
handshake; reads do not change the tree, so none sees another's traces. A command agent starts its
own server on the unit's tree through the relay. Offline agents are deterministic and run on the
first trial only.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client, types

from .._version import __version__
from ..core.store import Store
from .agents import AgentRun
from .cases import Case
from .errors import BenchError
from .tree import BenchTree, non_procedure_ids, setup_tree

CLIENT_NAME = "biopb-bench"
UNIT_ATTEMPTS = 3


@dataclass(frozen=True)
class Outcome:
    """One agent's run on one unit: a record of the report, plus what only offline agents have."""

    case: str
    arm: str
    budget: int | None
    agent: str
    trial: int
    read: tuple[str, ...]
    passed: bool
    first_pick: bool
    ranked: tuple[str, ...] = ()
    note: str = ""
    chars: int | None = None  # the handshake plus every tool result it read; None: not seen

    def record(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "arm": self.arm,
            "budget": self.budget,
            "agent": self.agent,
            "trial": self.trial,
            "read": list(self.read),
            "passed": self.passed,
            "chars": self.chars,
        }


@dataclass
class Plan:
    cases: Sequence[Case]
    arms: Sequence[str]
    budgets: Sequence[int | None]
    session_agents: Sequence[Any] = ()
    command_agents: Sequence[Any] = ()
    trials: int = 3
    shipped_dir: Path | None = None
    jobs: int = 1
    keep_trees: bool = False
    # A spawn answers in ~2 s; a start that stalls (see _with_retries) is given up on well before.
    unit_timeout: float = 45.0
    skipped: dict[str, str] = field(default_factory=dict)

    def units(self) -> list[tuple[Case, str, int | None, int]]:
        repeated = bool(self.command_agents) or any(
            not getattr(a, "deterministic", False) for a in self.session_agents
        )
        trials = range(1, (self.trials if repeated else 1) + 1)
        return [(c, a, b, t) for t in trials for c in self.cases for a in self.arms for b in self.budgets]


class SessionReader:
    """The MCP session as agents use it: tool calls with their text and error flag."""

    def __init__(self, session: ClientSession, tools: list[types.Tool]) -> None:
        self.session = session
        self.tools = [tool.model_dump(by_alias=True, exclude_none=True) for tool in tools]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        result = await self.session.call_tool(name, arguments)
        text = "".join(block.text for block in result.content if isinstance(block, types.TextContent))
        return text, bool(result.is_error)

    async def read_doc(self, doc_id: str) -> tuple[str, bool]:
        return await self.call_tool("read_doc", {"id": doc_id})


class CountingReader:
    """One agent's view of the session that counts the characters of every tool result it got."""

    def __init__(self, reader: SessionReader) -> None:
        self.reader = reader
        self.tools = reader.tools
        self.chars = 0

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        text, failed = await self.reader.call_tool(name, arguments)
        self.chars += len(text)
        return text, failed

    async def read_doc(self, doc_id: str) -> tuple[str, bool]:
        return await self.call_tool("read_doc", {"id": doc_id})


class Progress:
    """A one-line progress bar on stderr (redrawn in place on a terminal, one line per tenth if not)."""

    def __init__(self, total: int, stream: TextIO = sys.stderr) -> None:
        self.total, self.done, self.stream = total, 0, stream
        self.started = time.monotonic()
        self.interactive = stream.isatty()

    def step(self, label: str) -> None:
        self.done += 1
        tenth = max(1, self.total // 10)
        if not self.interactive and self.done % tenth and self.done != self.total:
            return
        filled = round(30 * self.done / self.total)
        elapsed = time.monotonic() - self.started
        left = elapsed / self.done * (self.total - self.done)
        bar = f"[{'#' * filled}{'.' * (30 - filled)}]"
        line = f"{bar} {self.done}/{self.total} {label[:40]:40s} ~{left:.0f}s left"
        self.stream.write(("\r" + line) if self.interactive else line + "\n")
        if self.interactive and self.done == self.total:
            self.stream.write("\n")
        self.stream.flush()


def shipped_ids_of(shipped_dir: Path) -> frozenset[str]:
    """Every doc of the shipped tier, banked ones included (no local tier is touched)."""
    nowhere = Path(tempfile.gettempdir()) / "biopb-bench-no-local-tier"
    return frozenset(Store(shipped_dir, nowhere, __version__).all_shipped_ids())


def procedure_ids_of(shipped_dir: Path, cases: Sequence[Case]) -> frozenset[str]:
    """Every doc that is not one of the seed's reference entries, and every id a case expects."""
    seed_index = (shipped_dir / "index.md").read_text(encoding="utf-8")
    expected = {doc_id for case in cases for doc_id in case.expect}
    return frozenset((shipped_ids_of(shipped_dir) | expected) - set(non_procedure_ids(seed_index)))


async def run_unit(
    plan: Plan, work: Path, unit: tuple[Case, str, int | None, int], procedures: frozenset[str]
) -> list[Outcome]:
    case, arm, budget, trial = unit
    label = f"{case.id}.{arm}.{budget or 'full'}.{trial}"
    runs: list[tuple[str, AgentRun]] = []
    agents = [a for a in plan.session_agents if trial == 1 or not getattr(a, "deterministic", False)]
    if agents:
        runs += await _with_retries(
            plan, work, label, arm, lambda tree: _session_runs(tree, budget, case, agents)
        )
    for agent in plan.command_agents:
        runs += await _with_retries(
            plan,
            work,
            f"{label}.{agent.name}",
            arm,
            lambda tree, agent=agent: _one(
                agent.name, agent.run_in_tree(tree, budget, case.request, f"{trial}")
            ),
        )
    return [
        Outcome(
            case.id,
            arm,
            budget,
            name,
            trial,
            run.read,
            case.passes(run.read, procedures),
            case.first_pick_right(run.read, procedures),
            run.ranked,
            run.note,
            run.chars,
        )
        for name, run in runs
    ]


async def _one(name: str, run) -> list[tuple[str, AgentRun]]:
    return [(name, await run)]


async def _with_retries(plan: Plan, work: Path, label: str, arm: str, attempt) -> list[tuple[str, AgentRun]]:
    """``attempt(tree)`` in a fresh tree, again in another if the server fails or stalls (a kernel
    that dies while starting is not the agent's doing); the last failure is reported."""
    problem = ""
    for number in range(1, UNIT_ATTEMPTS + 1):
        tree = setup_tree(work / f"{label}.{number}", arm, plan.shipped_dir)
        try:
            with anyio.fail_after(plan.unit_timeout):
                return await attempt(tree)
        except Exception as err:  # an MCP error, a broken pipe, a stalled start; not a bench refusal
            refusal = _bench_error_in(err)
            if refusal is not None:
                raise refusal from None
            log_file = tree.root / "server.log"
            tail = log_file.read_text(encoding="utf-8", errors="replace")[-600:] if log_file.exists() else ""
            problem = f"{type(err).__name__}: {err}; the server's log ended:\n{tail}"
            if number < UNIT_ATTEMPTS:
                print(
                    f"{label}: attempt {number} failed ({type(err).__name__}); again in a fresh tree",
                    file=sys.stderr,
                )
        finally:
            if not plan.keep_trees:
                shutil.rmtree(tree.root, ignore_errors=True)
    raise BenchError(f"{label} failed {UNIT_ATTEMPTS} times, each in a fresh tree. {problem}")


def _bench_error_in(err: BaseException) -> BenchError | None:
    if isinstance(err, BenchError):
        return err
    if isinstance(err, BaseExceptionGroup):
        return next((found for e in err.exceptions if (found := _bench_error_in(e))), None)
    return None


async def _session_runs(
    tree: BenchTree, budget: int | None, case: Case, agents
) -> list[tuple[str, AgentRun]]:
    command, *args = tree.argv(budget)
    params = StdioServerParameters(command=command, args=args, env=tree.env, cwd=tree.root)
    client_info = types.Implementation(name=CLIENT_NAME, version=__version__)
    # The server's and its kernel's stderr go to the tree, not over the progress bar.
    with (tree.root / "server.log").open("a", encoding="utf-8") as errlog:
        return await _converse(params, errlog, client_info, case, agents)


async def _converse(params, errlog, client_info, case: Case, agents) -> list[tuple[str, AgentRun]]:
    async with (
        stdio_client(params, errlog=errlog) as (read, write),
        ClientSession(read, write, client_info=client_info) as session,
    ):
        init = await session.initialize()
        reader = SessionReader(session, (await session.list_tools()).tools)
        instructions = init.instructions or ""
        runs = []
        for agent in agents:
            counting = CountingReader(reader)
            run = await agent.run(counting, instructions, case.request)
            runs.append((agent.name, replace(run, chars=len(instructions) + counting.chars)))
        return runs


async def run_plan(plan: Plan, work: Path, progress: Progress | None = None) -> list[Outcome]:
    """Every unit of ``plan``, ``plan.jobs`` at a time; outcomes in the plan's order."""
    from ..surfaces.settings import default_shipped_dir

    plan.shipped_dir = (plan.shipped_dir or default_shipped_dir()).resolve()
    if not (plan.shipped_dir / "index.md").is_file():
        raise BenchError(f"{plan.shipped_dir} has no index.md; give --shipped-dir the shipped tier.")
    procedures = procedure_ids_of(plan.shipped_dir, plan.cases)
    units = plan.units()
    results: list[list[Outcome]] = [[] for _ in units]
    limiter = anyio.CapacityLimiter(max(1, plan.jobs))

    async def one(n: int) -> None:
        async with limiter:
            results[n] = await run_unit(plan, work, units[n], procedures)
        if progress:
            case, arm, budget, trial = units[n]
            progress.step(f"{case.id} {arm} {budget or 'full'} #{trial}")

    async with anyio.create_task_group() as tasks:
        for n in range(len(units)):
            tasks.start_soon(one, n)
    return [outcome for unit in results for outcome in unit]
