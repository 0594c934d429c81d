"""The quoted-API list of a doc, derived from the doc itself (§6 contract gate).

Every ``python`` block is parsed; its imports give an alias map (``np`` -> ``numpy``,
``threshold_otsu`` -> ``skimage.filters.threshold_otsu``). Every call or attribute chain rooted
in an alias is a quoted API, with the keywords and the number of positional arguments it is
called with. Inline code spans in the prose (```skimage.util.img_as_float(image)```) count too
when they are rooted in an alias or in a declared package. Nothing is listed by hand, so a new
doc cannot slip past.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from dataclasses import dataclass
from functools import cache
from importlib import metadata

from biopb_kernel_docs.frontmatter import parse_frontmatter, prose_lines

from .seed_docs import python_blocks

_INLINE_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")


@dataclass(frozen=True)
class QuotedApi:
    dotted: str
    where: str
    keywords: tuple[str, ...] = ()
    positional: int = 0
    is_call: bool = False
    open_ended: bool = False  # *args or **kwargs at the call site: arity is not checkable


@cache
def import_names_of(distribution: str) -> frozenset[str]:
    """Top-level import names a distribution provides (``scikit-image`` -> ``skimage``)."""
    names = {name for name, dists in metadata.packages_distributions().items() if distribution in dists}
    return frozenset(names or {distribution.replace("-", "_")})


def declared_requirements(text: str) -> list[str]:
    return list(parse_frontmatter(text).items("packages"))


def _aliases(trees: list[ast.AST]) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for name in node.names:
                    if name.asname:
                        aliases[name.asname] = name.name
                    else:
                        root = name.name.split(".")[0]
                        aliases[root] = root
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for name in node.names:
                    aliases[name.asname or name.name] = f"{node.module}.{name.name}"
    return aliases


def _dotted(node: ast.AST) -> list[str] | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return None


def _apis_in(tree: ast.AST, aliases: dict[str, str], where: str) -> list[QuotedApi]:
    found: list[QuotedApi] = []
    call_funcs: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            parts = _dotted(node.func)
            if parts and parts[0] in aliases:
                call_funcs.add(id(node.func))
                found.append(
                    QuotedApi(
                        ".".join([aliases[parts[0]], *parts[1:]]),
                        where,
                        tuple(k.arg for k in node.keywords if k.arg is not None),
                        sum(not isinstance(a, ast.Starred) for a in node.args),
                        True,
                        any(isinstance(a, ast.Starred) for a in node.args)
                        or any(k.arg is None for k in node.keywords),
                    )
                )
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            inner.add(id(node.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in call_funcs and id(node) not in inner:
            parts = _dotted(node)
            if parts and parts[0] in aliases:
                found.append(QuotedApi(".".join([aliases[parts[0]], *parts[1:]]), where))
    return found


def quoted_apis(text: str) -> list[QuotedApi]:
    """Every API the doc quotes in its python blocks and its inline code spans."""
    body = parse_frontmatter(text).body
    trees = [(line, ast.parse(code)) for line, code in python_blocks(body)]
    aliases = _aliases([tree for _, tree in trees])
    apis = [api for line, tree in trees for api in _apis_in(tree, aliases, f"code block at body line {line}")]
    roots = dict(aliases)
    for requirement in declared_requirements(text):
        distribution = re.split(r"[~<>=!]", requirement, maxsplit=1)[0].strip()
        for name in import_names_of(distribution):
            roots.setdefault(name, name)
    for number, line in prose_lines(body.split("\n")):
        for span in _INLINE_CODE.findall(line):
            try:
                tree = ast.parse(span.strip(), mode="eval")
            except SyntaxError:
                continue
            apis += _apis_in(tree, roots, f"inline code at body line {number + 1}")
    return apis


def imported_top_level_modules(text: str) -> set[str]:
    body = parse_frontmatter(text).body
    modules: set[str] = set()
    for _, code in python_blocks(body):
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Import):
                modules.update(name.name.split(".")[0] for name in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                modules.add(node.module.split(".")[0])
    return modules


def resolve(dotted: str) -> object:
    """Import the longest module prefix of ``dotted`` and walk the rest as attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            target = getattr(target, attribute)
        return target
    raise ImportError(f"no importable module in {dotted!r}")


def problem_with(api: QuotedApi) -> str | None:
    """Why the installed packages contradict a quoted API, or None when they agree."""
    try:
        target = resolve(api.dotted)
    except (ImportError, AttributeError) as err:
        return f"{api.dotted} ({api.where}) does not exist: {err}"
    if not api.is_call:
        return None
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return None  # a builtin or ufunc without an introspectable signature: existence is all we can pin
    try:
        if api.open_ended:
            signature.bind_partial(**{name: None for name in api.keywords})
        else:
            signature.bind_partial(*([None] * api.positional), **{name: None for name in api.keywords})
    except TypeError as err:
        called = ", ".join([*(["_"] * api.positional), *(f"{k}=" for k in api.keywords)])
        return f"{api.dotted}({called}) ({api.where}) does not fit {api.dotted}{signature}: {err}"
    return None
