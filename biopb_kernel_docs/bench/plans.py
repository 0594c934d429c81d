"""From ``bench run``'s options to plans, and from the plans' outcomes to the written report."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._version import __version__
from ..surfaces.settings import default_shipped_dir
from .agents import OFFLINE_RANKERS, OfflineAgent
from .cases import Case, load_cases
from .command_agent import CommandAgent, command_template
from .errors import BenchError
from .model_agent import ModelAgent, model_config
from .report import _results_table, build_report, render_markdown, write_report
from .runner import Outcome, Plan, Progress, procedure_ids_of, run_plan, shipped_ids_of
from .score import SCORED_MEASURES, parse_source, read_ran, score
from .tree import ARMS

AGENTS = ("lexical", "embedding", "model", "command")
MODEL_UNIT_TIMEOUT = 1800.0  # a model's turns, three arms' worth of API latency at worst
HOPS = {"off": (False,), "on": (True,), "both": (False, True)}


def _names(text: str, allowed: tuple[str, ...], option: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in allowed]
    if unknown:
        raise BenchError(f"--{option} {', '.join(unknown)}: not known; choose from {', '.join(allowed)}.")
    return list(dict.fromkeys(names))


def parse_budgets(text: str) -> list[int | None]:
    budgets: list[int | None] = []
    for token in (t.strip() for t in text.split(",") if t.strip()):
        if token.lower() == "none":
            budgets.append(None)
        elif token.isdigit() and int(token) > 0:
            budgets.append(int(token))
        else:
            raise BenchError(f"--budgets {token!r}: give 'none' or a number of characters, e.g. none,2048.")
    if not budgets:
        raise BenchError("--budgets is empty; give e.g. none,2048.")
    return list(dict.fromkeys(budgets))


def _embedding_missing() -> str | None:
    try:
        import wordllama  # noqa: F401
    except ImportError:
        return "embedding agent skipped: wordllama is not installed (pip install 'biopb-kernel-docs[bench]')."
    return None


def build_plans(
    *,
    cases_path: Path,
    agents: str,
    arms: str,
    budgets: str,
    hop: str,
    trials: int,
    jobs: int,
    shipped_dir: Path | None,
    keep_trees: bool,
    env: Mapping[str, str],
) -> tuple[list[Plan], dict[str, str], tuple[Case, ...]]:
    """Check every option and the whole cases file before anything runs."""
    cases = load_cases(cases_path)
    wanted = _names(agents, AGENTS, "agents")
    chosen_arms = _names(arms, ARMS, "arms")
    chosen_budgets = parse_budgets(budgets)
    if hop not in HOPS:
        raise BenchError(f"--hop {hop!r}: choose on, off or both.")
    if trials < 1 or jobs < 1:
        raise BenchError("--trials and --jobs must be at least 1.")
    skipped: dict[str, str] = {}
    offline = []
    for name in (n for n in wanted if n in OFFLINE_RANKERS):
        missing = _embedding_missing() if name == "embedding" else None
        if missing:
            skipped[name] = missing
            continue
        offline += [OfflineAgent(OFFLINE_RANKERS[name](), hop=h) for h in HOPS[hop]]
    model_agents, command_agents = [], []
    if "model" in wanted:
        config, reason = model_config(env)
        model_agents = [ModelAgent(config)] if config else []
        if not config:
            skipped["model"] = reason
    if "command" in wanted:
        template, reason = command_template(env)
        command_agents = [CommandAgent(template)] if template else []
        if not template:
            skipped["command"] = reason
    common = {"budgets": chosen_budgets, "shipped_dir": shipped_dir, "jobs": jobs, "keep_trees": keep_trees}
    plans = []
    if offline:
        plans.append(
            Plan(cases, chosen_arms or ["catalog", "ablated"], session_agents=offline, trials=1, **common)
        )
    if model_agents or command_agents:
        plans.append(
            Plan(
                cases,
                chosen_arms or list(ARMS),
                session_agents=model_agents,
                command_agents=command_agents,
                trials=trials,
                unit_timeout=MODEL_UNIT_TIMEOUT,
                **common,
            )
        )
    if not plans:
        raise BenchError("No agent can run: " + " ".join(skipped.values()))
    return plans, skipped, cases


async def finish(
    plans: list[Plan],
    skipped: dict[str, str],
    cases: tuple[Case, ...],
    cases_path: Path,
    work: Path,
    results: Path | None,
) -> str:
    """Run the plans, build the report, write it under ``results``; the summary for the terminal."""
    progress = Progress(sum(len(plan.units()) for plan in plans))
    outcomes = []
    for plan in plans:
        outcomes += await run_plan(plan, work, progress)
    shipped_dir = plans[0].shipped_dir or default_shipped_dir()
    agents = [a.name for plan in plans for a in (*plan.session_agents, *plan.command_agents)]
    meta: dict[str, Any] = {
        "cases_file": str(cases_path),
        "shipped_dir": str(shipped_dir),
        "version": __version__,
        "agents": agents,
        "skipped": skipped,
        "budgets": plans[0].budgets,
        "trials": {
            a.name: (1 if getattr(a, "deterministic", False) else plan.trials)
            for plan in plans
            for a in (*plan.session_agents, *plan.command_agents)
        },
    }
    return _written(outcomes, cases, shipped_dir, meta, results)


def _written(
    outcomes: list[Outcome],
    cases: tuple[Case, ...],
    shipped_dir: Path,
    meta: dict[str, Any],
    results: Path | None,
) -> str:
    """The report of ``outcomes``, written under ``results``; the summary for the terminal."""
    report = build_report(
        outcomes, cases, shipped_ids_of(shipped_dir), procedure_ids_of(shipped_dir, cases), meta
    )
    lines = _results_table(report, "answerable")
    if results:
        json_path, md_path = write_report(results, report, cases)
        lines += ["", f"Wrote {json_path} and {md_path}."]
    else:
        lines += ["", render_markdown(report, cases)]
    return "\n".join(lines)


def score_reads(
    *,
    cases_path: Path,
    reads: list[str],
    ran: Path | None,
    agent: str,
    budget: str,
    title: str,
    shipped_dir: Path | None,
    results: Path | None,
) -> str:
    """``bench score``: the reads scored and reported as ``bench run`` reports its own."""
    cases = load_cases(cases_path)
    if "," in budget:
        raise BenchError(f"--budget {budget!r}: give one budget, 'none' or a number of characters.")
    [chosen_budget] = parse_budgets(budget)
    shipped_dir = (shipped_dir or default_shipped_dir()).resolve()
    sources = [parse_source(text) for text in reads]
    outcomes = score(
        sources, cases, procedure_ids_of(shipped_dir, cases), read_ran(ran), agent, chosen_budget
    )
    meta: dict[str, Any] = {
        "title": title,
        "measures": SCORED_MEASURES,
        "cases_file": str(cases_path),
        "reads": [f"{s.arm}={s.path}" if s.arm else str(s.path) for s in sources],
        "ran_file": str(ran) if ran else None,
        "scored_per_arm": {
            arm: len({o.case for o in outcomes if o.arm == arm})
            for arm in dict.fromkeys(o.arm for o in outcomes)
        },
        "shipped_dir": str(shipped_dir),
        "version": __version__,
        "agents": list(dict.fromkeys(o.agent for o in outcomes)),
        "skipped": {},
        "budgets": list(dict.fromkeys(o.budget for o in outcomes)),
        "trials": {o.agent: max(x.trial for x in outcomes if x.agent == o.agent) for o in outcomes},
    }
    return _written(outcomes, cases, shipped_dir, meta, results)
