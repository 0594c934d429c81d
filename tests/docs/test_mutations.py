"""The procedure gate must see a wrong procedure: deliberate mistakes in the docs' code make it fail.

Each doc's scene module lists its mistakes in ``MUTATIONS``: what the mistake is, an exact text of
the doc's code (it must occur once, so an edit of the doc cannot make a mutation silently stop
applying) and its replacement, and optionally the name of one of the scene's ``VARIANTS`` to run
on (a mistake that only shows on, say, a fading background). The mutated doc runs on that scene
and the scene's ``check``; the run must stop on an ``AssertionError``: one of the doc's own
validate-and-gate checkpoints, or the check against the planted truth. Any other exception would
be the mutation breaking the code rather than the method, and fails this test too.

A gate loosened names one of the scene's ``REFUSALS`` with a check in ``REFUSAL_TRUTH``: there the
mutated doc must run to the end (the gate no longer stops it) and its result fail that check.
"""

from __future__ import annotations

import pytest

from .running import doc_blocks, mutated, run_doc
from .seed_docs import procedure_ids, runnable_ids, scene_module

# Each procedure's unit conversions, thresholds, connectivity and background handling get rows.
MIN_ROWS_PER_PROCEDURE = 3


def _rows() -> list[tuple[str, str, str, str, str | None]]:
    rows = []
    for doc_id in runnable_ids():
        for row in getattr(scene_module(doc_id), "MUTATIONS", []):
            what, old, new, *variant = row
            rows.append((doc_id, what, old, new, variant[0] if variant else None))
    return rows


MUTATIONS = _rows()


@pytest.mark.parametrize("doc_id", procedure_ids())
def test_every_procedure_has_mutation_rows(doc_id):
    count = sum(1 for row in MUTATIONS if row[0] == doc_id)
    assert count >= MIN_ROWS_PER_PROCEDURE, (
        f"{doc_id} has {count} mutation rows; list at least {MIN_ROWS_PER_PROCEDURE} in its scene "
        "module's MUTATIONS (its unit conversions, thresholds, connectivity, background handling)"
    )


@pytest.mark.parametrize("doc_id", sorted(set(runnable_ids()) - set(procedure_ids())))
def test_every_banked_doc_that_runs_has_a_mutation_row(doc_id):
    assert any(row[0] == doc_id for row in MUTATIONS), f"{doc_id} has no mutation row"


@pytest.mark.parametrize(
    ("doc_id", "what", "old", "new", "variant"),
    MUTATIONS,
    ids=[f"{m[0]}: {m[1]}" + (f" [{m[4]}]" if m[4] else "") for m in MUTATIONS],
)
def test_the_gate_fails_on_a_mutated_procedure(doc_id, what, old, new, variant):
    module = scene_module(doc_id)
    blocks = mutated(doc_blocks(doc_id), old, new)  # refuses text that is not there exactly once
    if variant in getattr(module, "REFUSAL_TRUTH", {}):
        namespace = run_doc(doc_id, inputs=module.REFUSALS[variant][0](), blocks=blocks)  # gate passed
        with pytest.raises(AssertionError):
            module.REFUSAL_TRUTH[variant](namespace)
        return
    make, check = (module.scene, module.check) if variant is None else module.VARIANTS[variant]
    with pytest.raises(AssertionError):
        check(run_doc(doc_id, inputs=make(), blocks=blocks))
