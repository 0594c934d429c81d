"""bench run: cases through the real MCP server in fresh trees, a report for machines and people."""

from __future__ import annotations

import json
import subprocess
import sys

from biopb_kernel_docs.bench.tree import ablate_index
from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.surfaces.settings import default_shipped_dir
from biopb_kernel_docs.text.handshake import compose_instructions
from biopb_kernel_docs.text.render import text

from .kernels import kernel_env

CASES = [
    {
        "id": "dark-corners",
        "request": "my images are darker in the corners than the middle",
        "expect": ["flatfield"],
    },
    {"id": "not-shipped", "request": "unmix my overlapping fluorophores", "expect": ["spectral-unmixing-x"]},
]
RUN = (sys.executable, "-m", "biopb_kernel_docs", "bench", "run")
RECORD_FIELDS = ["case", "arm", "budget", "agent", "trial", "read", "passed", "chars"]


def test_bench_run_writes_one_record_per_case_arm_budget_and_trial(tmp_path):
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps(CASES))
    (tmp_path / "home").mkdir()
    done = subprocess.run(
        [
            *RUN,
            "--cases",
            str(cases),
            "--agents",
            "lexical",
            *("--budgets", "none,2048", "--jobs", "2"),
            "--results",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=240,
        env={**kernel_env(tmp_path / "home"), "ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": ""},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "8/8" in done.stderr  # the progress bar reached the end: 2 cases x 2 arms x 2 budgets
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    records = report["records"]
    assert all(list(record) == RECORD_FIELDS for record in records)
    assert len(records) == 2 * 2 * 2 * 2  # cases x arms x budgets x (hop off, hop on)
    assert {(r["arm"], r["budget"], r["agent"]) for r in records} == {
        (arm, budget, agent)
        for arm in ("catalog", "ablated")
        for budget in (None, 2048)
        for agent in ("lexical", "lexical+hop")
    }
    by = {(r["case"], r["arm"], r["budget"], r["agent"]): r for r in records}
    for budget in (None, 2048):
        assert by[("dark-corners", "catalog", budget, "lexical")]["read"] == ["flatfield"]
        assert by[("dark-corners", "catalog", budget, "lexical")]["passed"]
        assert by[("dark-corners", "catalog", budget, "lexical+hop")]["read"] == ["index", "flatfield"]
        assert by[("dark-corners", "ablated", budget, "lexical")]["read"] == []
        assert not by[("not-shipped", "catalog", budget, "lexical")]["passed"]
    assert report["bench"]["unanswerable"] == {"not-shipped": ["spectral-unmixing-x"]}
    assert report["bench"]["answerable"] == ["dark-corners"]
    # Characters read: the handshake the agent got plus the text of every read, as served.
    seed_index = (default_shipped_dir() / "index.md").read_text(encoding="utf-8")
    arms = {}
    for arm, index in (("catalog", seed_index), ("ablated", ablate_index(seed_index))):
        (tmp_path / arm).mkdir()
        (tmp_path / arm / "index.md").write_text(index, encoding="utf-8")
        arms[arm] = Docs(Store(default_shipped_dir(), tmp_path / arm, "1"))
    read_chars = len(text(arms["catalog"].read_doc("flatfield")))
    for budget in (None, 2048):
        catalog = len(compose_instructions(arms["catalog"].index(), budget)) + read_chars
        assert by[("dark-corners", "catalog", budget, "lexical")]["chars"] == catalog
        ablated = len(compose_instructions(arms["ablated"].index(), budget))  # it read nothing
        assert by[("dark-corners", "ablated", budget, "lexical")]["chars"] == ablated
    full_chars = by[("dark-corners", "catalog", None, "lexical")]["chars"]
    summary = {(s["agent"], s["budget"], s["arm"], s["scope"]): s for s in report["summary"]}
    assert summary[("lexical", None, "catalog", "answerable")] == {
        "agent": "lexical",
        "budget": None,
        "arm": "catalog",
        "scope": "answerable",
        "records": 1,
        "passed": 1,
        "failed": 0,
        "top1": 1,
        "read_a_procedure": 1,
        "top3": 1,
        "chars_median": full_chars,
        "chars_p90": full_chars,
    }
    assert summary[("lexical", None, "catalog", "all")]["failed"] == 1
    comparison = next(
        c for c in report["comparisons"] if (c["agent"], c["budget"], c["scope"]) == ("lexical", None, "all")
    )
    assert (comparison["catalog_only"], comparison["ablated_only"], comparison["mcnemar_p"]) == (1, 0, 1.0)
    markdown = (tmp_path / "out" / "report.md").read_text()
    assert (
        f"| lexical | full | 1/0 vs 0/1 | 1/1 (100%) | 1/1 (100%) | {full_chars:,} ({full_chars:,}) | 0/1 "
        "| p = 1; +1.00 [+1.00, +1.00] |" in markdown
    )
    assert "1 expect only docs this tree does not ship (spectral-unmixing-x)" in markdown
    assert "| dark-corners | flatfield | ✓ flatfield | ✓ flatfield | ✗ — | ✗ — |" in markdown
