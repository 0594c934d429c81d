"""Past the design (§6): every shipped procedure's python blocks run, in order, on synthetic data,
and their results are checked against the truth the data was made from.

Each runnable doc (every procedure, and every banked doc) names the variables it expects in its
``## Inputs`` section; its scene module (``tests/docs/scenes/<id with '-' -> '_'>.py``) provides
them through ``scene()``, small and synthetic, and plants a ground truth that its
``check(namespace)`` compares the doc's results with, after all the doc's blocks ran, within
tolerances derived from the scene. A procedure that no longer runs, or runs to a wrong answer,
fails the build. Banked docs' checks may be softer; their code must run.

A scene module may add ``VARIANTS``, ``{"name": (scene, check)}``: the same doc on data its authors
did not shape (other units, bit depths, noise models, densities, anisotropic voxels), each checked
against its own planted truth.
"""

from __future__ import annotations

import re

import pytest

from .running import run_doc
from .seed_docs import body_of, runnable_ids, scene_for, scene_module


@pytest.mark.parametrize("doc_id", runnable_ids())
def test_doc_code_runs_and_its_results_match_the_scene_truth(doc_id):
    module = scene_module(doc_id)
    assert callable(getattr(module, "check", None)), (
        f"tests/docs/scenes/{module.__name__.rsplit('.', 1)[-1]}.py has no check(namespace): every scene "
        "must assert the doc's results against the truth it planted"
    )
    namespace = run_doc(doc_id, inputs=_named(doc_id, scene_for(doc_id)()))
    module.check(namespace)


def _variants() -> list[tuple[str, str]]:
    return [
        (doc_id, name) for doc_id in runnable_ids() for name in getattr(scene_module(doc_id), "VARIANTS", {})
    ]


@pytest.mark.parametrize(("doc_id", "variant"), _variants(), ids=[f"{d}: {v}" for d, v in _variants()])
def test_doc_results_match_the_truth_of_each_variant_scene(doc_id, variant):
    make, check = scene_module(doc_id).VARIANTS[variant]
    check(run_doc(doc_id, inputs=_named(doc_id, make())))


def _inputs_section(doc_id: str) -> str:
    found = re.search(r"^## Inputs\n(.*?)(?=^## )", body_of(doc_id), re.S | re.M)
    assert found, f"{doc_id} has no '## Inputs' section naming the variables it expects"
    return found.group(1)


def _named(doc_id: str, inputs: dict[str, object]) -> dict[str, object]:
    """``inputs``, each of which the doc names under ``## Inputs`` (checked where a test builds a
    scene anyway: building every scene once more only to list its names cost half a minute)."""
    section = _inputs_section(doc_id)
    for name in inputs:
        assert f"`{name}`" in section, f"{doc_id}: input `{name}` is not named under ## Inputs"
    return inputs


@pytest.mark.parametrize("doc_id", runnable_ids())
def test_doc_has_an_inputs_section(doc_id):
    _inputs_section(doc_id)
