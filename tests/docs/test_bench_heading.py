"""§6: the bench switch names one index heading from outside the index, ``## Procedures``; the
seed must carry it, with the seed's procedures under it and the reference docs outside it."""

from __future__ import annotations

from biopb_kernel_docs.bench.tree import PROCEDURES_HEADING, ablate_index, non_procedure_ids, procedure_ids
from biopb_kernel_docs.core.index import parse_index

from .seed_docs import SEED_DIR, reference_ids, seed_index


def test_the_bench_names_the_seeds_procedures_heading_exactly():
    assert PROCEDURES_HEADING == "## Procedures"
    assert seed_index().lines.count(PROCEDURES_HEADING) == 1


def test_the_heading_holds_the_procedures_and_the_switch_keeps_every_reference():
    text = (SEED_DIR / "index.md").read_text(encoding="utf-8")
    assert len(procedure_ids(text)) >= 12
    assert non_procedure_ids(text) == reference_ids()
    ablated = parse_index(ablate_index(text))
    assert [entry.doc_id for entry in ablated.entries] == reference_ids()
    assert ablated.ignored == set(procedure_ids(text))
