"""The report: ``report.json`` (every record, the summaries, the paired tests) and ``report.md``.

Passed/failed is given in the seed's own form ("17/3 vs 12/8"), per agent, budget and arm, on the
cases this tree can answer (an expected doc ships, or nothing is expected) and on all of them, with
the characters each record put in the agent's context (the handshake plus every tool result). For
paired arms: an exact McNemar p and a bootstrap interval of the difference in pass rate, pairing
each case's outcomes (with several trials, a case passes an arm when most of its trials do).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .cases import Case
from .runner import Outcome
from .stats import bootstrap_difference, discordant, mcnemar_exact

OFFLINE_MEASURES = (
    "An offline agent measures whether the handshake leads to the right doc: it ranks the entries "
    "it was shown (ids and hooks) against the request and reads the best one it is confident "
    "about. It cannot measure whether a model chooses to read at all, takes the hop, follows a "
    "procedure's checkpoints, or guesses an id it never saw; only a model run can."
)


def _budget_label(budget: int | None) -> str:
    return "full" if budget is None else f"{budget:,}"


def _rate(hits: int, n: int) -> str:
    return f"{hits}/{n} ({100 * hits / n:.0f}%)" if n else "—"


def build_report(
    outcomes: Sequence[Outcome],
    cases: Sequence[Case],
    shipped: frozenset[str],
    procedures: frozenset[str],
    meta: dict[str, Any],
) -> dict[str, Any]:
    by_id = {case.id: case for case in cases}
    answerable = [c.id for c in cases if not c.expect or set(c.expect) & shipped]
    unanswerable = {c.id: list(c.expect) for c in cases if c.id not in set(answerable)}
    scopes = {"answerable": set(answerable), "all": set(by_id)}
    groups: dict[tuple[str, int | None, str], list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        groups[(outcome.agent, outcome.budget, outcome.arm)].append(outcome)
    summary = []
    for (agent, budget, arm), group in groups.items():
        for scope, ids in scopes.items():
            chosen = [o for o in group if o.case in ids]
            passed = sum(o.passed for o in chosen)
            entry = {
                "agent": agent,
                "budget": budget,
                "arm": arm,
                "scope": scope,
                "records": len(chosen),
                "passed": passed,
                "failed": len(chosen) - passed,
                "top1": sum(o.first_pick for o in chosen),
                "read_a_procedure": sum(bool(set(o.read) & procedures) for o in chosen),
            }
            if any(o.ranked for o in chosen):
                entry["top3"] = sum(_top3(o, by_id[o.case]) for o in chosen)
            counted = sorted(o.chars for o in chosen if o.chars is not None)
            if counted:
                entry["chars_median"] = _percentile(counted, 50)
                entry["chars_p90"] = _percentile(counted, 90)
            summary.append(entry)
    comparisons = []
    for agent, budget in dict.fromkeys((a, b) for a, b, _ in groups):
        for other in ("ablated", "inline"):
            if (agent, budget, "catalog") not in groups or (agent, budget, other) not in groups:
                continue
            for scope, ids in scopes.items():
                first = _case_outcomes(groups[(agent, budget, "catalog")], ids)
                second = _case_outcomes(groups[(agent, budget, other)], ids)
                pairs = [(first[c], second[c]) for c in first if c in second]
                if not pairs:
                    continue
                b, c = discordant(pairs)
                difference, low, high = bootstrap_difference(pairs)
                comparisons.append(
                    {
                        "agent": agent,
                        "budget": budget,
                        "scope": scope,
                        "arms": ["catalog", other],
                        "cases": len(pairs),
                        "catalog_only": b,
                        f"{other}_only": c,
                        "mcnemar_p": mcnemar_exact(b, c),
                        "difference": difference,
                        "interval_95": [low, high],
                    }
                )
    return {
        "bench": {
            **meta,
            "written": datetime.now(UTC).isoformat(timespec="seconds"),
            "cases": len(cases),
            "answerable": answerable,
            "unanswerable": unanswerable,
            "offline_agents_measure": OFFLINE_MEASURES,
        },
        "records": [o.record() for o in outcomes],
        "rankings": [
            {
                **{k: v for k, v in o.record().items() if k in ("case", "arm", "budget", "agent", "trial")},
                "ranked": list(o.ranked[:5]),
            }
            for o in outcomes
            if o.ranked
        ],
        "notes": [
            {"case": o.case, "arm": o.arm, "agent": o.agent, "trial": o.trial, "note": o.note}
            for o in outcomes
            if o.note
        ],
        "summary": summary,
        "comparisons": comparisons,
    }


def _percentile(ordered: Sequence[int], percent: int) -> int:
    """The nearest-rank percentile of sorted counts (the median of an even count: the lower one)."""
    rank = max(1, -(-percent * len(ordered) // 100))
    return ordered[rank - 1]


def _chars(entry: dict[str, Any] | None) -> str:
    if not entry or "chars_median" not in entry:
        return "—"
    return f"{entry['chars_median']:,} ({entry['chars_p90']:,})"


def _top3(outcome: Outcome, case: Case) -> bool:
    if not case.expect:
        return outcome.passed
    return bool(set(outcome.ranked[:3]) & set(case.expect))


def _case_outcomes(group: Sequence[Outcome], ids: set[str]) -> dict[str, bool]:
    """Each case's outcome: passed when most of its trials passed."""
    trials: dict[str, list[bool]] = defaultdict(list)
    for outcome in group:
        if outcome.case in ids:
            trials[outcome.case].append(outcome.passed)
    return {case: 2 * sum(passes) > len(passes) for case, passes in trials.items()}


def render_markdown(report: dict[str, Any], cases: Sequence[Case]) -> str:
    bench = report["bench"]
    lines = [f"# Ablation run, {bench['written'][:10]}", ""]
    lines.append(
        f"{bench['cases']} cases from `{bench.get('cases_file', '?')}`; "
        f"{len(bench['answerable'])} are answerable in this tree (an expected doc ships, or nothing "
        "is expected)."
    )
    if bench["unanswerable"]:
        missing = sorted({i for ids in bench["unanswerable"].values() for i in ids})
        lines.append(
            f"{len(bench['unanswerable'])} expect only docs this tree does not ship ({', '.join(missing)}); "
            "they fail in every arm and count only under *all cases*."
        )
    lines += ["", f"Agents: {', '.join(bench.get('agents', []))}."]
    for agent, reason in bench.get("skipped", {}).items():
        lines.append(f"- {agent}: {reason}")
    lines += ["", OFFLINE_MEASURES, ""]
    for scope, title in (("answerable", "answerable cases"), ("all", "all cases")):
        lines += [f"## Results, {title}", ""]
        lines += _results_table(report, scope)
        lines.append("")
    lines += _per_case_tables(report, cases)
    return "\n".join(lines).rstrip("\n") + "\n"


def _comparison_cell(comparison: dict[str, Any] | None) -> str:
    if not comparison:
        return "—"
    low, high = comparison["interval_95"]
    return f"p = {comparison['mcnemar_p']:.2g}; {comparison['difference']:+.2f} [{low:+.2f}, {high:+.2f}]"


def _results_table(report: dict[str, Any], scope: str) -> list[str]:
    summary = {(s["agent"], s["budget"], s["arm"]): s for s in report["summary"] if s["scope"] == scope}
    arms = [arm for arm in ("catalog", "ablated", "inline") if any(key[2] == arm for key in summary)]
    others = [arm for arm in arms if arm != "catalog"]
    compared = {
        (c["agent"], c["budget"], c["arms"][1]): c for c in report["comparisons"] if c["scope"] == scope
    }
    rows = [
        f"| agent | budget | passed/failed, {' vs '.join(arms)} | catalog read the right doc first | "
        "catalog top-3 | catalog characters read per case, median (p90) | "
        "ablated records that read a procedure | "
        + " | ".join(f"catalog vs {arm}: McNemar p; difference [95% bootstrap]" for arm in others)
        + " |",
        "|---|---|---|---|---|---|---|" + "---|" * len(others),
    ]
    for agent, budget in dict.fromkeys((a, b) for a, b, _ in summary):
        row = {arm: summary.get((agent, budget, arm)) for arm in arms}
        catalog, ablated = row.get("catalog"), row.get("ablated")
        cells = [
            agent,
            _budget_label(budget),
            " vs ".join(f"{r['passed']}/{r['failed']}" if r else "—" for r in row.values()),
            _rate(catalog["top1"], catalog["records"]) if catalog else "—",
            _rate(catalog["top3"], catalog["records"]) if catalog and "top3" in catalog else "—",
            _chars(catalog),
            f"{ablated['read_a_procedure']}/{ablated['records']}" if ablated else "—",
            *(_comparison_cell(compared.get((agent, budget, arm))) for arm in others),
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def _per_case_tables(report: dict[str, Any], cases: Sequence[Case]) -> list[str]:
    cells: dict[tuple[str, str], dict[tuple[str, int | None], list[str]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for record in report["records"]:
        mark = "✓" if record["passed"] else "✗"
        cells[(record["agent"], record["case"])][(record["arm"], record["budget"])].append(
            f"{mark} {', '.join(record['read']) or '—'}"
        )
    lines: list[str] = []
    for agent in dict.fromkeys(r["agent"] for r in report["records"]):
        columns = list(
            dict.fromkeys((r["arm"], r["budget"]) for r in report["records"] if r["agent"] == agent)
        )
        lines += [f"## What each case read: {agent}", ""]
        lines.append(
            "| case | expect | " + " | ".join(f"{arm} {_budget_label(b)}" for arm, b in columns) + " |"
        )
        lines.append("|---|---|" + "---|" * len(columns))
        for case in cases:
            row = cells.get((agent, case.id))
            if not row:
                continue
            expect = ", ".join(case.expect) or "(none)"
            lines.append(
                f"| {case.id} | {expect} | "
                + " | ".join(" / ".join(row.get(col, ["—"])) for col in columns)
                + " |"
            )
        lines.append("")
    return lines


def _dump(report: dict[str, Any]) -> str:
    """JSON with one record per line: diffable, and small enough to commit."""
    parts = []
    for key, value in report.items():
        if isinstance(value, list):
            items = ",\n  ".join(json.dumps(item, ensure_ascii=False) for item in value)
            parts.append(f"{json.dumps(key)}: [\n  {items}\n ]" if value else f"{json.dumps(key)}: []")
        else:
            parts.append(f"{json.dumps(key)}: {json.dumps(value, indent=1, ensure_ascii=False)}")
    return "{\n " + ",\n ".join(parts) + "\n}\n"


def write_report(directory: Path, report: dict[str, Any], cases: Sequence[Case]) -> tuple[Path, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    json_path, md_path = directory / "report.json", directory / "report.md"
    json_path.write_text(_dump(report), encoding="utf-8")
    md_path.write_text(render_markdown(report, cases), encoding="utf-8")
    return json_path, md_path
