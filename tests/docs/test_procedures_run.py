"""Past the design (§6): every shipped procedure's python blocks run, in order, on synthetic data.

Each procedure names the variables it expects in its ``## Inputs`` section; its scene
(``tests/docs/scenes/<id>.py``) provides them, small and synthetic, built so that a correct
procedure passes its own checkpoints. A procedure that no longer runs fails the build.
"""

from __future__ import annotations

import re
import sys

import pytest

from .seed_docs import body_of, procedure_ids, python_blocks, scene_for


@pytest.mark.parametrize("doc_id", procedure_ids())
def test_procedure_code_runs_and_its_checkpoints_hold(doc_id):
    scene = scene_for(doc_id)()
    blocks = python_blocks(body_of(doc_id))
    assert blocks, f"{doc_id} has no python block to run"
    namespace: dict[str, object] = {"__name__": f"procedure_{doc_id.replace('-', '_')}", **scene}
    for line, code in blocks:
        exec(compile(code, f"seed/{doc_id}.md (block at body line {line})", "exec"), namespace)
    check = getattr(sys.modules[scene_for(doc_id).__module__], "check", None)
    if check is not None:  # the scene's ground truth against what the procedure left behind
        check(namespace)


@pytest.mark.parametrize("doc_id", procedure_ids())
def test_procedure_names_every_input_its_scene_provides(doc_id):
    body = body_of(doc_id)
    inputs = re.search(r"^## Inputs\n(.*?)(?=^## )", body, re.S | re.M)
    assert inputs, f"{doc_id} has no '## Inputs' section naming the variables it expects"
    for name in scene_for(doc_id)():
        assert f"`{name}`" in inputs.group(1), f"{doc_id}: input `{name}` is not named under ## Inputs"
