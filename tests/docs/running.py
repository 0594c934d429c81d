"""Run a doc's python blocks on its scene, in one namespace, as a session would (§6 gates).

The scene's arrays are handed over read-only: a procedure promises to leave its inputs untouched,
and an in-place write into one raises instead of passing silently. A scene may name blocks that
cannot run here (a model whose weights this machine cannot download) in ``STAND_INS``: a text
that marks the block, and what to leave in the namespace in its place.
"""

from __future__ import annotations

import numpy as np

from .seed_docs import body_of, python_blocks, scene_for, scene_module

Blocks = list[tuple[int, str]]


def doc_blocks(doc_id: str) -> Blocks:
    """``(body line, code)`` of every python block of the shipped doc, in order."""
    return python_blocks(body_of(doc_id))


def mutated(blocks: Blocks, old: str, new: str) -> Blocks:
    """The blocks with the one occurrence of ``old`` replaced by ``new``.

    Refuses text that occurs zero or several times, so an edit of the doc cannot make a mutation
    silently stop applying.
    """
    found = sum(code.count(old) for _, code in blocks)
    assert found == 1, f"mutation text occurs {found} times in the doc's code, not once: {old!r}"
    return [(line, code.replace(old, new)) for line, code in blocks]


def read_only(value: object) -> object:
    if isinstance(value, np.ndarray):
        value = value.view()
        value.flags.writeable = False
    return value


def run_doc(doc_id: str, inputs: dict[str, object] | None = None, blocks: Blocks | None = None) -> dict:
    """The namespace after every python block of ``doc_id`` ran on ``inputs`` (default: its scene)."""
    inputs = scene_for(doc_id)() if inputs is None else inputs
    namespace: dict[str, object] = {"__name__": f"procedure_{doc_id.replace('-', '_')}"}
    namespace.update({name: read_only(value) for name, value in inputs.items()})
    stand_ins = getattr(scene_module(doc_id), "STAND_INS", {})
    for line, code in doc_blocks(doc_id) if blocks is None else blocks:
        stand_in = next((make for marker, make in stand_ins.items() if marker in code), None)
        if stand_in is not None:
            namespace.update(stand_in())
            continue
        exec(compile(code, f"seed/{doc_id}.md (block at body line {line})", "exec"), namespace)
    return namespace
