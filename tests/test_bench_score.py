"""bench score: any agent's reads, scored in the report bench run writes (issue 19)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from biopb_kernel_docs.bench.cases import load_cases
from biopb_kernel_docs.bench.errors import BenchError
from biopb_kernel_docs.bench.runner import procedure_ids_of
from biopb_kernel_docs.bench.score import Source, read_ran, score
from biopb_kernel_docs.surfaces.settings import default_shipped_dir

from .kernels import ROOT

ABLATION = ROOT / "benchmarks" / "ablation"
MODEL_RUN = ABLATION / "model-2026-12-01"
SCORE = (sys.executable, "-m", "biopb_kernel_docs", "bench", "score")
# The committed offline runs; each keeps the case set it ran on beside its report, since the
# case files grow after a run.
OFFLINE = (
    "offline",
    "offline-heldout",
    "sections-before",
    "sections-after",
    "sections-after-heldout",
    "seed3-tuned",
    "seed3-heldout",
)


def _score(*args: str, results: Path) -> dict:
    done = subprocess.run(
        [*SCORE, *args, "--results", str(results)], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    return json.loads((results / "report.json").read_text(encoding="utf-8"))


def _numbers(report: dict) -> tuple[dict, dict]:
    """The summary and the paired tests, keyed so that order does not matter."""
    summary = {(s["agent"], s["budget"], s["arm"], s["scope"]): s for s in report["summary"]}
    paired = {(c["agent"], c["budget"], c["scope"], tuple(c["arms"])): c for c in report["comparisons"]}
    return summary, paired


@pytest.mark.parametrize("run", OFFLINE)
def test_scoring_a_runs_own_records_reproduces_its_committed_numbers(run, tmp_path):
    committed = json.loads((ABLATION / run / "report.json").read_text(encoding="utf-8"))
    cases = f"benchmarks/ablation/{run}/cases.json"
    scored = _score("--cases", cases, "--reads", f"benchmarks/ablation/{run}/report.json", results=tmp_path)
    assert _numbers(scored) == _numbers(committed)
    assert len(scored["summary"]) == len(committed["summary"]) > 0


def test_the_same_reads_as_a_json_lines_log_score_the_same(tmp_path):
    """The held-out run's records written as a relay would log them: a line per read, and a line
    with no id for a case that read nothing. Only top-3 may differ: a log has no rankings, so it
    counts the first three reads instead of the three best-ranked entries."""
    committed = json.loads((ABLATION / "offline-heldout" / "report.json").read_text(encoding="utf-8"))
    log = tmp_path / "reads.jsonl"
    with log.open("w", encoding="utf-8") as lines:
        for record in committed["records"]:
            unit = {k: record[k] for k in ("case", "arm", "agent", "budget", "trial")}
            lines.write(json.dumps(unit) + "\n")
            for doc_id in record["read"]:
                lines.write(json.dumps({**unit, "id": doc_id, "ok": True}) + "\n")
            lines.write(json.dumps({**unit, "id": "no-such-doc", "ok": False}) + "\n")
    scored = _score(
        "--cases", "benchmarks/ablation/cases-heldout.json", "--reads", str(log), results=tmp_path
    )
    (summary, paired), (want_summary, want_paired) = _numbers(scored), _numbers(committed)
    assert paired == want_paired
    assert summary.keys() == want_summary.keys()
    for key, entry in summary.items():
        assert {k: v for k, v in entry.items() if k != "top3"} == {
            k: v for k, v in want_summary[key].items() if k != "top3"
        }, key


def test_the_committed_model_run_report_is_reproduced_from_its_inputs(tmp_path):
    scored = _score(
        "--cases",
        "benchmarks/ablation/cases-heldout.json",
        *("--reads", str(MODEL_RUN / "reads-catalog.jsonl")),
        *("--reads", str(MODEL_RUN / "reads-ablated.jsonl")),
        *("--reads", f"noinstructions={MODEL_RUN / 'reads-noinstructions.jsonl'}"),
        *("--ran", str(MODEL_RUN / "cases-run.json"), "--agent", "model", "--budget", "2048"),
        results=tmp_path,
    )
    committed = json.loads((MODEL_RUN / "report.json").read_text(encoding="utf-8"))
    assert _numbers(scored) == _numbers(committed)
    summary, paired = _numbers(committed)
    catalog = summary[("model", 2048, "catalog", "all")]
    assert (catalog["records"], catalog["passed"], catalog["top1"]) == (42, 42, 42)
    ablated = summary[("model", 2048, "ablated", "all")]
    assert (ablated["records"], ablated["passed"], ablated["read_a_procedure"]) == (20, 2, 2)
    blind = summary[("model", 2048, "noinstructions", "all")]
    assert (blind["records"], blind["passed"], blind["top1"]) == (10, 10, 10)
    test = paired[("model", 2048, "all", ("catalog", "ablated"))]
    assert (test["cases"], test["catalog_only"], test["ablated_only"]) == (20, 18, 0)
    assert paired[("model", 2048, "all", ("catalog", "noinstructions"))]["cases"] == 10
    markdown = (MODEL_RUN / "report.md").read_text(encoding="utf-8")
    assert "| model | 2,048 | 42/0 vs 2/18 vs 10/0 | 42/42 (100%) |" in markdown


CASES = [
    {"id": "c1", "request": "darker corners", "expect": ["flatfield"]},
    {"id": "c2", "request": "stitch my tiles", "expect": ["stitch-tiles"]},
    {"id": "none", "request": "what time is it", "expect": []},
]


def _scored(tmp_path: Path, lines: list, ran: dict | None = None, arm: str | None = None):
    (tmp_path / "cases.json").write_text(json.dumps(CASES))
    log = tmp_path / "log.jsonl"
    log.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    cases = load_cases(tmp_path / "cases.json")
    if ran is not None:
        (tmp_path / "ran.json").write_text(json.dumps(ran))
    return score(
        [Source(log, arm)],
        cases,
        procedure_ids_of(default_shipped_dir(), cases),
        read_ran(tmp_path / "ran.json" if ran is not None else None),
    )


def test_a_log_scores_first_read_top3_and_no_procedure_cases(tmp_path):
    outcomes = _scored(
        tmp_path,
        [
            {"instructions": "the relay's copy of the handshake: not a read"},
            {"case": "c1", "id": "index"},
            {"case": "c1", "id": "kernel"},
            {"case": "c1", "id": "flatfield"},
            {"case": "c1", "id": "flatfield"},
            {"case": "c2", "id": "stitch-tiles", "ok": False},
            {"case": "none", "id": "kernel"},
        ],
    )
    by_case = {o.case: o for o in outcomes}
    assert by_case["c1"].read == ("index", "kernel", "flatfield")  # a repeated read counts once
    assert (by_case["c1"].passed, by_case["c1"].first_pick) == (True, False)  # kernel came first
    assert (by_case["c2"].read, by_case["c2"].passed) == ((), False)  # a failed read is no read
    assert (by_case["none"].passed, by_case["none"].first_pick) == (True, True)  # a reference is fine


def test_a_log_that_does_not_fit_the_cases_is_refused_naming_the_line(tmp_path):
    with pytest.raises(BenchError, match=r"log\.jsonl, line 2: is not JSON"):
        _scored(tmp_path, [{"case": "c1", "id": "flatfield"}, "{not json"])
    with pytest.raises(BenchError, match="cases the cases file does not have: c9"):
        _scored(tmp_path, [{"case": "c9", "id": "flatfield"}])
    with pytest.raises(BenchError, match="case 'c2' in arm 'ablated', which --ran does not list"):
        _scored(tmp_path, [{"case": "c2", "id": "x"}], ran={"catalog": ["c1", "c2"]}, arm="ablated")
    with pytest.raises(BenchError, match=r'line 1: "case" must be a non-empty string'):
        _scored(tmp_path, [{"case": 3, "id": "flatfield"}])


def test_ran_says_which_cases_an_arm_ran_even_with_no_reads(tmp_path):
    outcomes = _scored(
        tmp_path, [{"case": "c1", "id": "flatfield"}], ran={"catalog": ["c1"], "ablated": ["c1", "none"]}
    )
    assert [(o.arm, o.case, o.passed) for o in outcomes] == [
        ("catalog", "c1", True),
        ("ablated", "c1", False),
        ("ablated", "none", True),
    ]
