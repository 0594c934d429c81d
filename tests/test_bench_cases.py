"""Bench cases as data: the shared set loads and covers the seed; a bad file is refused, naming
the case and the field, before anything runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from biopb_kernel_docs.bench.cases import Case, load_cases, parse_cases
from biopb_kernel_docs.bench.errors import BenchError
from biopb_kernel_docs.bench.tree import procedure_ids

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "benchmarks" / "ablation" / "cases.json"


def test_the_committed_cases_cover_every_seed_procedure_and_some_that_need_none():
    cases = load_cases(CASES)
    assert len(cases) >= 30
    expected = {doc_id for case in cases for doc_id in case.expect}
    seed_procedures = procedure_ids((ROOT / "seed" / "index.md").read_text(encoding="utf-8"))
    assert set(seed_procedures) <= expected
    assert sum(not case.expect for case in cases) >= 3


def test_a_case_passes_on_any_expected_doc_and_a_none_case_on_no_procedure():
    procedures = frozenset({"flatfield", "stitch-tiles"})
    case = Case("c", "darker corners", ("flatfield", "stitch-tiles"))
    assert case.passes(["data", "stitch-tiles"], procedures)
    assert not case.passes(["data"], procedures)
    assert case.first_pick_right(["index", "flatfield"], procedures)
    assert not case.first_pick_right(["data", "flatfield"], procedures)
    none = Case("n", "order pipette tips", ())
    assert none.passes(["kernel", "index"], procedures)
    assert not none.passes(["flatfield"], procedures)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"id": "x"}, "cases: the file: must be a non-empty JSON list"),
        ([], "cases: the file: must be a non-empty JSON list"),
        (["text"], "cases: case 1: must be an object"),
        ([{"id": "a", "request": "r"}], """cases: case 1 ('a'): has no "expect" field."""),
        ([{"id": "", "request": "r", "expect": []}], 'cases: case 1: field "id" must be a non-empty string'),
        (
            [{"id": "a", "request": "r", "expect": []}, {"id": "b", "request": " ", "expect": []}],
            """cases: case 2 ('b'): field "request" must be a non-empty string""",
        ),
        (
            [{"id": "a", "request": "r", "expect": "flatfield"}],
            """case 1 ('a'): field "expect" must be a list""",
        ),
        (
            [{"id": "a", "request": "r", "expect": ["../up"]}],
            """field "expect" holds '../up', which is not a doc id""",
        ),
        (
            [{"id": "a", "request": "r", "expect": []}, {"id": "a", "request": "s", "expect": []}],
            """case 2 ('a'): field "id" repeats an earlier case""",
        ),
    ],
)
def test_a_malformed_cases_file_is_refused_naming_the_case_and_field(data, message):
    with pytest.raises(BenchError) as refused:
        parse_cases(data)
    assert message in str(refused.value)
    assert str(refused.value).endswith("Fix the cases file and run again; nothing was run.")


def test_extra_fields_are_allowed_and_ignored():
    assert parse_cases([{"id": "a", "request": "r", "expect": [], "note": "why"}]) == (Case("a", "r", ()),)


def test_bench_run_refuses_a_bad_file_before_starting_anything(tmp_path):
    bad = tmp_path / "cases.json"
    bad.write_text(json.dumps([{"id": "ok", "request": "r", "expect": []}, {"id": "b", "request": "r"}]))
    results = tmp_path / "results"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "biopb_kernel_docs",
            "bench",
            "run",
            "--cases",
            str(bad),
            "--results",
            str(results),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert f"""{bad}: case 2 ('b'): has no "expect" field.""" in done.stderr
    assert not results.exists()
    broken = tmp_path / "broken.json"
    broken.write_text('[{"id": "a",\n "request": }]')
    done = subprocess.run(
        [sys.executable, "-m", "biopb_kernel_docs", "bench", "run", "--cases", str(broken)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert f"{broken}: line 2, column 13: is not JSON" in done.stderr
