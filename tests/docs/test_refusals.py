"""Outside its validity a procedure stops with its own message: a plausible wrong number is the
worst outcome this package can produce.

Each procedure's scene module lists, in ``REFUSALS``, scenes outside the doc's validity (dense
nuclei, a cytoplasm stain, two-rate bleaching, an nm calibration, a 12-bit camera, PMT gain...)
with a pattern of the message the doc must stop with. The doc's blocks run on that scene; the run
must end in an ``AssertionError`` raised by the doc's own code (not the scene's, not a library's)
whose message matches the pattern. Finishing with results, or failing in any other way, fails.
"""

from __future__ import annotations

import re
import traceback

import pytest

from .running import run_doc
from .seed_docs import procedure_ids, runnable_ids, scene_module


def _refusals() -> list[tuple[str, str]]:
    return [
        (doc_id, name) for doc_id in runnable_ids() for name in getattr(scene_module(doc_id), "REFUSALS", {})
    ]


@pytest.mark.parametrize("doc_id", procedure_ids())
def test_every_procedure_has_a_refusal_scene(doc_id):
    assert getattr(scene_module(doc_id), "REFUSALS", {}), (
        f"{doc_id}'s scene module has no REFUSALS: add a scene outside the doc's validity on which "
        "its own gate must stop with its message"
    )


@pytest.mark.parametrize(("doc_id", "name"), _refusals(), ids=[f"{d}: {n}" for d, n in _refusals()])
def test_procedure_stops_with_its_own_message_outside_its_validity(doc_id, name):
    make, pattern = scene_module(doc_id).REFUSALS[name]
    try:
        namespace = run_doc(doc_id, inputs=make())
    except AssertionError as err:
        refused = err
    else:
        outputs = sorted(name for name in namespace if not name.startswith("_"))
        pytest.fail(f"{doc_id} ran to the end on {name!r} instead of refusing; it bound {outputs[:20]}")
    raised_in = traceback.extract_tb(refused.__traceback__)[-1].filename
    assert raised_in.startswith(f"seed/{doc_id}.md"), (
        f"{doc_id} on {name!r} stopped in {raised_in}, not in its own code: {refused}"
    )
    message = str(refused)
    assert re.search(pattern, message, re.I | re.S), (
        f"{doc_id} on {name!r} stopped, but its message does not match {pattern!r}: {message}"
    )
    assert len(message.split()) >= 6, f"{doc_id}'s refusal says too little to act on: {message!r}"
