"""Bench cases as data: ``[{"id", "request", "expect": [doc ids, any one counts]}]``.

``expect: []`` means the right behaviour is to read no procedure. A file is checked whole before
anything runs, and a bad one is refused with the case and the field that is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..core.ids import is_valid_doc_id
from .errors import BenchError

FIELDS = ("id", "request", "expect")


@dataclass(frozen=True)
class Case:
    id: str
    request: str
    expect: tuple[str, ...]

    def passes(self, read: Iterable[str], procedures: frozenset[str]) -> bool:
        """Whether reading ``read`` (in order) is right: an expected doc, or, for ``expect: []``,
        no procedure at all (``procedures`` says which ids are procedures)."""
        read = set(read)
        return bool(read & set(self.expect)) if self.expect else not read & procedures

    def first_pick_right(self, read: Iterable[str], procedures: frozenset[str]) -> bool:
        """Whether the first doc read (the index hop aside) is an expected one; for ``expect: []``,
        whether nothing read is a procedure."""
        picks = [doc_id for doc_id in read if doc_id != "index"]
        if not self.expect:
            return not set(picks) & procedures
        return bool(picks) and picks[0] in self.expect


def _refuse(source: str, where: str, problem: str) -> BenchError:
    return BenchError(f"{source}: {where}: {problem} Fix the cases file and run again; nothing was run.")


def parse_cases(data: object, source: str = "cases") -> tuple[Case, ...]:
    """The cases in ``data`` (parsed JSON), or a BenchError naming the first bad case and field."""
    if not isinstance(data, list) or not data:
        raise _refuse(source, "the file", 'must be a non-empty JSON list of {"id", "request", "expect"}.')
    cases: list[Case] = []
    seen: set[str] = set()
    for number, item in enumerate(data, start=1):
        label = f"case {number}"
        if not isinstance(item, dict):
            raise _refuse(
                source, label, f'must be an object with "id", "request" and "expect", got {item!r}.'
            )
        if isinstance(item.get("id"), str) and item["id"].strip():
            label = f"case {number} ({item['id']!r})"
        for field in FIELDS:
            if field not in item:
                raise _refuse(source, label, f'has no "{field}" field.')
        case_id, request, expect = item["id"], item["request"], item["expect"]
        if not isinstance(case_id, str) or not case_id.strip():
            raise _refuse(source, label, f'field "id" must be a non-empty string, got {case_id!r}.')
        if case_id in seen:
            raise _refuse(source, label, 'field "id" repeats an earlier case; ids must be unique.')
        if not isinstance(request, str) or not request.strip():
            raise _refuse(source, label, f'field "request" must be a non-empty string, got {request!r}.')
        if not isinstance(expect, list):
            raise _refuse(source, label, f'field "expect" must be a list of doc ids, got {expect!r}.')
        for doc_id in expect:
            if not isinstance(doc_id, str) or not is_valid_doc_id(doc_id):
                raise _refuse(source, label, f'field "expect" holds {doc_id!r}, which is not a doc id.')
        seen.add(case_id)
        cases.append(Case(case_id, request, tuple(expect)))
    return tuple(cases)


def load_cases(path: Path) -> tuple[Case, ...]:
    """The cases of a JSON file, checked whole."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise BenchError(f"Cannot read the cases file {path}: {err}. Give --cases a JSON file.") from err
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise _refuse(
            str(path), f"line {err.lineno}, column {err.colno}", f"is not JSON ({err.msg})."
        ) from err
    return parse_cases(data, str(path))
