"""``bench score``: a log of reads scored against a cases file, in the report ``bench run`` writes.

A log is JSON lines, one read each, in the order they were made: ``{"case", "id"}``, with
``"arm"``, ``"agent"``, ``"budget"``, ``"trial"`` where present and ``"ok": false`` for a read
that failed (not a read). That is what the command agent's relay writes, and what a run made by
hand with any agent can log. A line with a ``"case"`` but no ``"id"`` says that case ran (and may
have read nothing); a line without ``"case"`` (the relay's copy of the instructions) is skipped.
A source given as ``ARM=FILE`` puts all its reads in that arm. A ``report.json`` of ``bench run``
is read as a log too, with the rankings its offline agents made, so scoring it reproduces
that report's numbers: passed/failed per arm, first read, top-3, McNemar.

Which cases ran comes from ``--ran`` (``{"<arm>": [case ids]}``): a case that ran and read nothing
has no line in a log. Without it, every case of the cases file counts as run in every arm the log
names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .cases import Case
from .errors import BenchError
from .runner import Outcome

SCORED_MEASURES = (
    "A scored log says what the logged agent read, in the order it read: a case passes when an "
    "expected doc was read (a case expecting none: when no procedure was), the right doc came first "
    "when its first read other than the index is an expected one, and top-3 counts an expected doc "
    "among its first three reads other than the index (for an offline agent: among its three "
    "best-ranked entries). It says nothing about what the agent did after reading."
)
_ARM = re.compile(r"[a-z][a-z0-9_-]*")


@dataclass(frozen=True)
class Source:
    path: Path
    arm: str | None  # every read of the file goes to this arm


def parse_source(text: str) -> Source:
    """``FILE`` or ``ARM=FILE`` (a file whose own name holds '=' is taken whole when it exists)."""
    arm, equals, path = text.partition("=")
    if equals and _ARM.fullmatch(arm) and not Path(text).exists():
        return Source(Path(path), arm)
    return Source(Path(text), None)


@dataclass(frozen=True)
class Unit:
    case: str
    arm: str
    budget: int | None
    agent: str
    trial: int


def _refuse(where: str, problem: str) -> BenchError:
    return BenchError(f"{where}: {problem} Fix it and score again; nothing was written.")


def _budget(value: object, where: str) -> int | None:
    if value is None or value == "none":
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    raise _refuse(where, f'"budget" must be a number of characters or null, not {value!r}.')


def read_source(
    source: Source, agent: str, budget: int | None
) -> tuple[dict[Unit, list[str]], dict[Unit, Any]]:
    """The reads of one file by unit, in order; and, for a report.json, each unit's record and
    ranking (``{"chars", "ranked"}``)."""
    try:
        text = source.path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise BenchError(f"Cannot read the reads file {source.path}: {err}.") from None
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict) and isinstance(whole.get("records"), list):
        return _report_reads(source, whole)
    reads: dict[Unit, list[str]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        where = f"{source.path}, line {number}"
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as err:
            raise _refuse(where, f"is not JSON ({err.msg}).") from None
        if not isinstance(entry, dict):
            raise _refuse(where, 'must be a JSON object such as {"case": "c1", "id": "flatfield"}.')
        if "case" not in entry:
            continue  # not a read: the relay's copy of the instructions, say
        case, doc_id = entry["case"], entry.get("id", "")
        if not isinstance(case, str) or not case or not isinstance(doc_id, str):
            raise _refuse(where, '"case" must be a non-empty string and "id" a doc id.')
        arm = source.arm or entry.get("arm") or "catalog"
        trial = entry.get("trial", 1)
        if not isinstance(arm, str) or not isinstance(trial, int) or isinstance(trial, bool):
            raise _refuse(where, '"arm" must be a string and "trial" a whole number.')
        unit = Unit(
            case, arm, _budget(entry.get("budget", budget), where), str(entry.get("agent", agent)), trial
        )
        unit_reads = reads.setdefault(unit, [])  # a line without "id" says the unit ran
        if doc_id and entry.get("ok", True) is not False:
            unit_reads.append(doc_id)
    return reads, {}


def _report_reads(source: Source, report: dict[str, Any]) -> tuple[dict[Unit, list[str]], dict[Unit, Any]]:
    reads: dict[Unit, list[str]] = {}
    extra: dict[Unit, Any] = {}

    def unit_of(record: dict[str, Any]) -> Unit:
        arm = source.arm or record["arm"]
        return Unit(record["case"], arm, record["budget"], record["agent"], record["trial"])

    try:
        for record in report["records"]:
            unit = unit_of(record)
            reads[unit] = list(record["read"])
            extra[unit] = {"chars": record.get("chars"), "ranked": ()}
        for ranking in report.get("rankings", []):
            extra[unit_of(ranking)]["ranked"] = tuple(ranking["ranked"])
    except (KeyError, TypeError) as err:
        raise _refuse(str(source.path), f"is a report.json without the record field {err}.") from None
    return reads, extra


def read_ran(path: Path | None) -> dict[str, list[str]] | None:
    if path is None:
        return None
    try:
        ran = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise BenchError(f"Cannot read --ran {path}: {err}.") from None
    if not isinstance(ran, dict) or not all(
        isinstance(ids, list) and all(isinstance(i, str) for i in ids) for ids in ran.values()
    ):
        raise _refuse(
            str(path), 'must be a JSON object of arm -> list of case ids, {"catalog": ["c1", ...]}.'
        )
    return ran


def score(
    sources: Sequence[Source],
    cases: Sequence[Case],
    procedures: frozenset[str],
    ran: dict[str, list[str]] | None,
    agent: str = "agent",
    budget: int | None = None,
) -> list[Outcome]:
    """Every unit's outcome: the reads of the log (or report) sources, scored against ``cases``."""
    by_id = {case.id: case for case in cases}
    reads: dict[Unit, list[str]] = {}
    extra: dict[Unit, Any] = {}
    for source in sources:
        more, more_extra = read_source(source, agent, budget)
        for unit, ids in more.items():
            reads.setdefault(unit, []).extend(ids)
        extra.update(more_extra)
    unknown = sorted({unit.case for unit in reads} - set(by_id))
    if unknown:
        raise BenchError(f"The reads name cases the cases file does not have: {', '.join(unknown[:5])}.")
    # Runs in the order the sources first name them (a report's own order, the first file's arm first).
    runs = list(dict.fromkeys((u.arm, u.budget, u.agent, u.trial) for u in reads))
    if ran is not None:
        listed = {(arm, case) for arm, ids in ran.items() for case in ids}
        stray = sorted({(u.arm, u.case) for u in reads} - listed)
        if stray:
            arm, case = stray[0]
            raise BenchError(f"The reads have case {case!r} in arm {arm!r}, which --ran does not list.")
        missing = sorted({case for _, case in listed} - set(by_id))
        if missing:
            raise BenchError(f"--ran names cases the cases file does not have: {', '.join(missing[:5])}.")
        runs += [(arm, budget, agent, 1) for arm in ran if not any(run[0] == arm for run in runs)]
    if not runs:
        runs = [("catalog", budget, agent, 1)]
    units = [
        Unit(case.id, arm, run_budget, run_agent, trial)
        for arm, run_budget, run_agent, trial in runs
        for case in cases
        if ran is None or case.id in ran.get(arm, ())
    ]
    outcomes = []
    for unit in units:
        case = by_id[unit.case]
        read = tuple(dict.fromkeys(reads.get(unit, ())))
        info = extra.get(unit, {})
        outcomes.append(
            Outcome(
                unit.case,
                unit.arm,
                unit.budget,
                unit.agent,
                unit.trial,
                read,
                case.passes(read, procedures),
                case.first_pick_right(read, procedures),
                info.get("ranked", ()),
                chars=info.get("chars"),
            )
        )
    return outcomes
