"""Where a module can be mutated: one change a real edit could make, found in its syntax tree.

The first family: a comparison turned (``<`` to ``<=``, ``==`` to ``!=``, ``in`` to ``not in``),
``and`` and ``or`` swapped, a ``not`` dropped, a number one up, ``True`` and ``False`` swapped, ``+``
and ``-`` swapped, a call statement removed.

The second family, for samples drawn after the first was used up by surveys: a value returned
turned to ``None``, a keyword argument dropped from a call, a number one down, ``min``/``max`` and
``any``/``all`` swapped, ``break`` and ``continue`` swapped, ``+=`` and ``-=`` swapped, ``//``
turned to ``/``, a unary minus dropped, a one- or two-character string (a separator, a marker)
emptied.

Docstrings, annotations and the text inside f-strings are left alone. Used by fresh_mutants.py.
"""

from __future__ import annotations

import ast
import itertools
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
    family: int = 1


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

    def add(node: ast.AST, start: int, end: int, replacement: str, description: str, family: int = 1) -> None:
        found.append(Mutant(relative, node.lineno, start, end, replacement, description, family))

    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            skipped.update(id(part) for part in node.values if isinstance(part, ast.Constant))
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        for start, end, replacement, description in _second_family(node, source, span, token_between):
            add(node, start, end, replacement, description, family=2)
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


SWAPPED_CALLS = {"min": "max", "max": "min", "any": "all", "all": "any"}


def _second_family(node, source, span, token_between):
    """The second family's changes at ``node``: (start, end, replacement, description)."""
    if isinstance(node, ast.Return) and node.value is not None:
        value = node.value
        if not (isinstance(value, ast.Constant) and value.value is None):
            start, end = span(value)
            yield start, end, "None", "value returned -> `None`"
    elif isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id in SWAPPED_CALLS:
            start, end = span(node.func)
            yield (
                start,
                end,
                SWAPPED_CALLS[node.func.id],
                f"`{node.func.id}` -> `{SWAPPED_CALLS[node.func.id]}`",
            )
        arguments = sorted([*node.args, *node.keywords], key=lambda a: (a.lineno, a.col_offset))
        for before, argument in itertools.pairwise(arguments):
            if isinstance(argument, ast.keyword) and argument.arg is not None:
                start, end = span(before)[1], span(argument)[1]
                yield start, end, "", f"keyword `{argument.arg}=` dropped"
    elif isinstance(node, (ast.Break, ast.Continue)):
        start, end = span(node)
        token, other = ("break", "continue") if isinstance(node, ast.Break) else ("continue", "break")
        yield start, end, other, f"`{token}` -> `{other}`"
    elif isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.Sub)):
        token, other = ("+=", "-=") if isinstance(node.op, ast.Add) else ("-=", "+=")
        if not _is_text(node.value):
            where = token_between(node.target, node.value, token)
            if where:
                yield *where, other, f"`{token}` -> `{other}`"
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv):
        where = token_between(node.left, node.right, "//")
        if where:
            yield *where, "/", "`//` -> `/`"  # (not `/` -> `//`: a `/` joins paths as often as it divides)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        start = span(node)[0]
        yield start, start + 1, "", "unary `-` dropped"  # the sign alone: the operand may be in brackets
    elif isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 1:
        start, end = span(node)
        text = source[start:end]
        if text.isdigit():
            yield start, end, str(node.value - 1), f"`{text}` -> `{node.value - 1}`"
    elif isinstance(node, ast.Constant) and isinstance(node.value, str) and 1 <= len(node.value) <= 2:
        start, end = span(node)
        quote = source[start]
        if quote in "'\"" and source[end - 1] == quote:
            yield start, end, quote * 2, f"`{source[start:end]}` -> `{quote * 2}`"


def apply(source: str, mutant: Mutant) -> str:
    return source[: mutant.start] + mutant.replacement + source[mutant.end :]
