"""The shipped seed as the §6 gates see it: its docs, its index, its code blocks and links."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import ModuleType

from biopb_kernel_docs.core.frontmatter import parse_frontmatter, prose_lines
from biopb_kernel_docs.core.ids import ID_PATTERN, id_from_relative_path, is_banked
from biopb_kernel_docs.core.index import ParsedIndex, parse_index, section_entries

SEED_DIR = Path(__file__).resolve().parents[2] / "seed"
PROCEDURES_HEADING = "## Procedures"
REFERENCES_HEADING = "## References"
LINK = re.compile(rf"\[\[({ID_PATTERN}(?:#[^\[\]\n]+)?)\]\]")  # [[id]] or [[id#heading]]
_FENCE_OPEN = re.compile(r"[ ]{0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)")


@cache
def seed_ids() -> tuple[str, ...]:
    """Every shipped doc id, banked ones included (the index excluded)."""
    ids = (id_from_relative_path(path.relative_to(SEED_DIR)) for path in SEED_DIR.rglob("*.md"))
    return tuple(sorted(i for i in ids if i and i != "index"))


def seed_text(doc_id: str) -> str:
    return (SEED_DIR / f"{doc_id}.md").read_text(encoding="utf-8")


@cache
def seed_index() -> ParsedIndex:
    return parse_index((SEED_DIR / "index.md").read_text(encoding="utf-8"))


def procedure_ids() -> list[str]:
    return [entry.doc_id for entry in section_entries(seed_index(), PROCEDURES_HEADING)]


def banked_ids() -> list[str]:
    return [doc_id for doc_id in seed_ids() if is_banked(doc_id)]


def runnable_ids() -> list[str]:
    """The docs whose code the gate runs on a scene: every procedure, and every banked doc."""
    return [*procedure_ids(), *banked_ids()]


def reference_ids() -> list[str]:
    return [entry.doc_id for entry in section_entries(seed_index(), REFERENCES_HEADING)]


def code_blocks(text: str) -> list[tuple[int, str, str]]:
    """``(first line number, info string, code)`` for every fenced block, in order."""
    lines = text.split("\n")
    blocks: list[tuple[int, str, str]] = []
    prose = {number for number, _ in prose_lines(lines)}
    number = 0
    while number < len(lines):
        match = _FENCE_OPEN.match(lines[number])
        if match and number not in prose:
            fence, info = match.group(1), match.group(2)
            end = number + 1
            while end < len(lines) and not (
                lines[end].strip().startswith(fence[0] * len(fence))
                and not lines[end].strip().strip(fence[0])
            ):
                end += 1
            blocks.append((number + 2, info, "\n".join(lines[number + 1 : end])))
            number = end
        number += 1
    return blocks


def python_blocks(text: str) -> list[tuple[int, str]]:
    return [(line, code) for line, info, code in code_blocks(text) if info == "python"]


def links(text: str) -> list[str]:
    """Every ``[[id]]`` in the doc, code included."""
    return LINK.findall(text)


def body_of(doc_id: str) -> str:
    return parse_frontmatter(seed_text(doc_id)).body


def scene_module(doc_id: str) -> ModuleType:
    """The synthetic-data module of a runnable doc: ``tests/docs/scenes/<id with '-' -> '_'>.py``.

    It exposes ``scene() -> dict`` (the doc's inputs) and ``check(namespace) -> None``, which
    asserts the doc's results in the namespace against the ground truth the scene planted.
    """
    return importlib.import_module(f"tests.docs.scenes.{doc_id.replace('-', '_').replace('/', '.')}")


def scene_for(doc_id: str) -> Callable[[], dict[str, object]]:
    return scene_module(doc_id).scene
