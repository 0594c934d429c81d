"""Where a module can be mutated: one change a real edit could make, found in its syntax tree.

A comparison turned (``<`` to ``<=``, ``==`` to ``!=``, ``in`` to ``not in``), ``and`` and ``or``
swapped, a ``not`` dropped, a number off by one, ``True`` and ``False`` swapped, ``+`` and ``-``
swapped, a call statement removed; docstrings and annotations are left alone. Used by
fresh_mutants.py.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

# a comparison's token, and the one a mutant turns it into
COMPARISONS = {
    ast.Eq: ("==", "!="),
    ast.NotEq: ("!=", "=="),
    ast.Lt: ("<", "<="),
    ast.LtE: ("<=", "<"),
    ast.Gt: (">", ">="),
    ast.GtE: (">=", ">"),
    ast.In: ("in", "not in"),
    ast.NotIn: ("not in", "in"),
    ast.Is: ("is", "is not"),
    ast.IsNot: ("is not", "is"),
}


@dataclass(frozen=True)
class Mutant:
    path: str  # relative to the repository
    line: int  # 1-based
    start: int  # offset of the changed text in the file
    end: int
    replacement: str
    description: str


def _offsets(source: str) -> list[int]:
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _annotation_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        annotations = []
        if isinstance(node, (ast.AnnAssign, ast.arg)) and node.annotation is not None:
            annotations.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            annotations.append(node.returns)
        for annotation in annotations:
            ids.update(id(inner) for inner in ast.walk(annotation))
    return ids


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def mutants_of(path: Path, root: Path) -> list[Mutant]:
    """Every mutant the module at ``path`` offers, in source order; paths relative to ``root``."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    starts = _offsets(source)
    relative = str(path.relative_to(root))
    skipped = _docstring_nodes(tree) | _annotation_nodes(tree)
    found: list[Mutant] = []

    def at(line: int, col: int) -> int:
        # ast columns count UTF-8 bytes; convert to a character offset within the line
        text = source[starts[line - 1] : starts[line]]
        return starts[line - 1] + len(text.encode("utf-8")[:col].decode("utf-8"))

    def span(node: ast.AST) -> tuple[int, int]:
        return at(node.lineno, node.col_offset), at(node.end_lineno, node.end_col_offset)

    def token_between(left: ast.AST, right: ast.AST, token: str) -> tuple[int, int] | None:
        gap_start, gap_end = span(left)[1], span(right)[0]
        gap = source[gap_start:gap_end]
        pattern = r"\s+".join(re.escape(word) for word in token.split())
        match = re.search(rf"(?<![=<>!\w]){pattern}(?![=<>\w])", gap)
        if match is None:
            return None
        return gap_start + match.start(), gap_start + match.end()

    def add(node: ast.AST, start: int, end: int, replacement: str, description: str) -> None:
        found.append(Mutant(relative, node.lineno, start, end, replacement, description))

    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            token, turned = COMPARISONS[type(node.ops[0])]
            where = token_between(node.left, node.comparators[0], token)
            if where:
                add(node, *where, turned, f"`{token}` -> `{turned}`")
        elif isinstance(node, ast.BoolOp):
            token, other = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            where = token_between(node.values[0], node.values[1], token)
            if where:
                add(node, *where, other, f"`{token}` -> `{other}`")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            start, end = span(node)
            operand_start, operand_end = span(node.operand)
            operand = source[operand_start:operand_end]
            if "\n" not in operand:
                add(node, start, end, f"({operand})", "`not` dropped")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            if any(_is_text(side) for side in (node.left, node.right)):
                continue  # joining text: `-` only raises
            token, other = ("+", "-") if isinstance(node.op, ast.Add) else ("-", "+")
            where = token_between(node.left, node.right, token)
            if where:
                add(node, *where, other, f"`{token}` -> `{other}`")
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            start, end = span(node)
            add(node, start, end, str(not node.value), f"`{node.value}` -> `{not node.value}`")
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            start, end = span(node)
            text = source[start:end]
            if text.isdigit():
                add(node, start, end, str(node.value + 1), f"`{text}` -> `{node.value + 1}`")
        elif isinstance(node, ast.Expr) and isinstance(node.value, (ast.Call, ast.Await)):
            start, end = span(node)
            call = source[start:end].split("(")[0].strip()
            add(node, start, end, "pass", f"call `{call}(...)` removed")
    return sorted(found, key=lambda mutant: mutant.start)


def apply(source: str, mutant: Mutant) -> str:
    return source[: mutant.start] + mutant.replacement + source[mutant.end :]
