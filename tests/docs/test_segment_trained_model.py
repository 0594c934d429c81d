"""segment-trained-model: its code parses, and every step but the model's runs.

The model step imports cellpose or stardist, whose weights download at run time, which the build
machine cannot do; the scene's stand-in takes its place (the planted nuclei plus fragments), and
the scene's check holds the clean-up, the threshold comparison and the measurements to the truth.
"""

from __future__ import annotations

import ast

from .seed_docs import body_of, python_blocks

DOC_ID = "segment-trained-model"
MODEL_MODULES = {"cellpose", "stardist", "csbdeep"}


def _imports(code: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            found |= {name.name.split(".")[0] for name in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_every_block_parses_and_exactly_one_runs_the_model():
    blocks = python_blocks(body_of(DOC_ID))
    model_blocks = [line for line, code in blocks if _imports(code) & MODEL_MODULES]
    assert len(blocks) >= 5, f"{DOC_ID} has {len(blocks)} python blocks"
    assert len(model_blocks) == 1, f"expected one model block, found them at body lines {model_blocks}"
