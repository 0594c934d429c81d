"""The quoted-API list of a doc, derived from the doc itself (§6 contract gate).

Every ``python`` block is parsed; its imports give an alias map (``np`` -> ``numpy``,
``threshold_otsu`` -> ``skimage.filters.threshold_otsu``). Every call or attribute chain rooted
in an alias is a quoted API, with the keywords and the number of positional arguments it is
called with. Inline code spans in the prose (```skimage.util.img_as_float(image)```) count too
when they are rooted in an alias or in a declared package. Nothing is listed by hand, so a new
doc cannot slip past.

Beyond direct calls the gate also checks:

- calls through a variable: ``blur = ndi.gaussian_filter`` makes ``blur(x, sigma=2)`` a call of
  ``scipy.ndimage.gaussian_filter``;
- methods of returned objects whose type is known: ``tree = KDTree(points)`` (a class) or a
  function annotated with a return class makes ``tree.query(...)`` and ``KDTree(p).query(...)``
  calls of ``scipy.spatial.KDTree.query``; a property annotated with a return class is walked
  the same way (``BioImage(f).physical_pixel_sizes.X``);
- keywords that land in a ``**kwargs`` parameter: the function's source is followed to the calls
  it forwards ``**kwargs`` to (and its ``kwargs.get("name")`` reads), three levels deep; with no
  source, the keyword must at least be named in the docstring.

What it cannot check, and says so here: methods of objects whose type only running the code
shows (an array from ``np.asarray``, the dict of ``regionprops_table``, a property annotated
with a generic such as ``List[str]``), names bound more than once (their type is ambiguous) or
bound by loops and unpacking, callables passed as arguments, and keywords a ``**kwargs``
function reads by a key it computes (``kwargs.get(dim)``) or forwards to a callee only running
shows (``self.reader.get_image_data``). The run gate (``test_procedures_run.py``) executes those on the
doc's scene, but only along the branches the scene takes.

A package that cannot be installed here (only a block its scene stands in for imports it:
cellpose needs torch, stardist tensorflow) is not imported at all: its newest wheel inside the
declared range is read with ``ast`` instead (``contract_static.py``), by the same binding rules
(``misfit``); what that reading cannot decide fails, and its docstring lists the rest.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import textwrap
import typing
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import metadata

from biopb_kernel_docs.core.frontmatter import parse_frontmatter, prose_lines

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


class Uncheckable(Exception):
    """The API's target depends on a type only running the code shows."""


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
    """``a.b.c`` -> ``[a, b, c]``; a call inside the chain marks its result: ``K(x).q`` -> ``[K(), q]``."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute | ast.Call):
        if isinstance(node, ast.Call):
            node = node.func
            if not isinstance(node, ast.Attribute | ast.Name):
                return None
            parts.append("()")
        else:
            parts.append(node.attr)
            node = node.value
    if isinstance(node, ast.Name):
        joined = ".".join([node.id, *reversed(parts)]).replace(".()", "()")
        return joined.split(".")
    return None


def _qualified(parts: list[str] | None, aliases: dict[str, str]) -> str | None:
    """The dotted API path of a chain whose root is an alias, or None."""
    if not parts:
        return None
    root = parts[0].removesuffix("()")
    if root not in aliases:
        return None
    return ".".join([aliases[root] + parts[0][len(root) :], *parts[1:]])


def _bound_once(trees: list[ast.AST]) -> dict[str, ast.expr]:
    """Names assigned exactly once in all the blocks (anywhere), with the value they get."""
    values: dict[str, ast.expr] = {}
    counts: dict[str, int] = {}
    for tree in trees:
        for node in ast.walk(tree):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For | ast.comprehension):
                targets = [node.target]
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                targets = [node.optional_vars]
            elif isinstance(node, ast.arg):
                counts[node.arg] = counts.get(node.arg, 0) + 2  # a parameter: a local of unknown type
            for target in targets:
                for name in (n.id for n in ast.walk(target) if isinstance(n, ast.Name)):
                    counts[name] = counts.get(name, 0) + 1
                    if (
                        isinstance(node, ast.Assign)
                        and isinstance(target, ast.Name)
                        and node.value is not None
                    ):
                        values[name] = node.value
                    else:
                        counts[name] += 1  # unpacked or looped: not a single known value
    return {name: value for name, value in values.items() if counts.get(name) == 1}


def _variable_aliases(trees: list[ast.AST], aliases: dict[str, str]) -> dict[str, str]:
    """Variables bound once to an API (``f = ndi.gaussian_filter``) or to its result (``t = K(p)``)."""
    found: dict[str, str] = {}
    for name, value in _bound_once(trees).items():
        dotted = _qualified(_dotted(value), aliases)
        if name not in aliases and dotted:
            found[name] = dotted
    return found


def _apis_in(tree: ast.AST, aliases: dict[str, str], where: str) -> list[QuotedApi]:
    found: list[QuotedApi] = []
    call_funcs: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            dotted = _qualified(_dotted(node.func), aliases)
            if dotted:
                call_funcs.add(id(node.func))
                found.append(
                    QuotedApi(
                        dotted,
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
            dotted = _qualified(_dotted(node), aliases)
            if dotted:
                found.append(QuotedApi(dotted, where))
    return found


def quoted_apis(text: str) -> list[QuotedApi]:
    """Every API the doc quotes in its python blocks and its inline code spans."""
    body = parse_frontmatter(text).body
    trees = [(line, ast.parse(code)) for line, code in python_blocks(body)]
    aliases = _aliases([tree for _, tree in trees])
    aliases.update(_variable_aliases([tree for _, tree in trees], aliases))
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


def _return_type(target: object, dotted: str) -> type:
    """The class a call of ``target`` returns, when the code says it without running."""
    if inspect.isclass(target):
        return target
    try:
        returned = typing.get_type_hints(target).get("return")
    except Exception:  # unresolvable or absent annotations: the type is not known
        returned = None
    if inspect.isclass(returned) and returned is not typing.Any:  # Any is a class since Python 3.11
        return returned
    raise Uncheckable(f"{dotted}: the return type is not declared")


def resolve(dotted: str) -> tuple[object, bool]:
    """Import the longest module prefix of ``dotted`` and walk the rest as attributes.

    ``a.K().m`` walks through the class ``a.K`` returns. The flag says the last step was a method
    of such an instance (so a call binds ``self`` first).
    """
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        head = ".".join(parts[:cut])
        if "()" in head:
            continue
        try:
            target = importlib.import_module(head)
        except ImportError:
            continue
        on_instance = False
        for attribute in parts[cut:]:
            called = attribute.endswith("()")
            name = attribute.removesuffix("()")
            owner = target
            if (
                on_instance
                and inspect.isclass(owner)
                and isinstance(inspect.getattr_static(owner, name, None), property)
            ):
                target, on_instance = _property_type(owner, name, dotted), True
                continue
            target = getattr(target, name)
            on_instance = on_instance and inspect.isclass(owner)
            if on_instance and isinstance(inspect.getattr_static(owner, name), staticmethod | classmethod):
                on_instance = False
            if called:
                target, on_instance = _return_type(target, dotted), True
            else:
                on_instance = on_instance and inspect.isfunction(target)
        return target, on_instance
    raise ImportError(f"no importable module in {dotted!r}")


def _property_type(owner: type, name: str, dotted: str) -> type:
    """The class a property of ``owner`` returns, from its annotation; else uncheckable."""
    getter = inspect.getattr_static(owner, name).fget
    try:
        returned = typing.get_type_hints(getter).get("return")
    except Exception:  # annotations that only resolve inside their package
        returned = None
    if inspect.isclass(returned) and returned is not typing.Any:
        return returned
    raise Uncheckable(f"{dotted}: the type of {owner.__name__}.{name} is only known at run time")


def _callee(node: ast.expr, namespace: dict) -> object | None:
    parts = _dotted(node)
    if not parts or parts[0] not in namespace or any(p.endswith("()") for p in parts):
        return None
    target = namespace[parts[0]]
    for attribute in parts[1:]:
        target = getattr(target, attribute, None)
    return target


def kwargs_key(node: ast.AST, var_keyword: str) -> ast.expr | None:
    """The key ``node`` reads from the ``**var_keyword`` dict (``kwargs["k"]``, ``kwargs.get(k)``,
    ``kwargs.pop(k)``), or None when it reads none."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == var_keyword:
        return node.slice
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == var_keyword
        and node.args
    ):
        return node.args[0]
    return None


def accepts_keyword(function: object, keyword: str, depth: int = 0) -> bool:
    """Whether ``function`` takes ``keyword``: by name, or through ``**kwargs`` it forwards or reads."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return True  # no introspectable signature: existence is all that can be pinned
    named = parameters.get(keyword)
    if named is not None and named.kind in (named.POSITIONAL_OR_KEYWORD, named.KEYWORD_ONLY):
        return True
    var_keyword = next((p.name for p in parameters.values() if p.kind is p.VAR_KEYWORD), None)
    if var_keyword is None:
        return False
    original = inspect.unwrap(function)
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(original)))
    except (OSError, TypeError, SyntaxError):
        return re.search(rf"\b{re.escape(keyword)}\b", inspect.getdoc(function) or "") is not None
    namespace = getattr(original, "__globals__", {})
    for node in ast.walk(tree):
        key = kwargs_key(node, var_keyword)
        if isinstance(key, ast.Constant) and key.value == keyword:
            return True  # read by name
        if key is not None and not isinstance(key, ast.Constant):
            return True  # read by a key computed at run time (kwargs.get(dim)): cannot tell, so no claim
        if isinstance(node, ast.Call) and depth < 3:
            forwards = any(
                k.arg is None and isinstance(k.value, ast.Name) and k.value.id == var_keyword
                for k in node.keywords
            )
            if not forwards:
                continue
            callee = _callee(node.func, namespace)
            if callee is None:
                return True  # forwarded to a callee only running shows (self.reader.m): no claim
            if accepts_keyword(callee, keyword, depth + 1):
                return True
    return False


def problem_with(api: QuotedApi) -> str | None:
    """Why the installed packages contradict a quoted API, or None when they agree (or cannot tell)."""
    try:
        target, on_instance = resolve(api.dotted)
    except Uncheckable:
        return None
    except (ImportError, AttributeError) as err:
        return f"{api.dotted} ({api.where}) does not exist: {err}"
    if not api.is_call:
        return None
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return None  # a builtin or ufunc without an introspectable signature: existence is all we can pin
    return misfit(api, signature, on_instance, lambda keyword: accepts_keyword(target, keyword))


def misfit(
    api: QuotedApi, signature: inspect.Signature, on_instance: bool, accepts: Callable[[str], bool]
) -> str | None:
    """Why a call as quoted does not bind to ``signature``, or None. ``accepts`` says whether a
    keyword that lands in ``**kwargs`` is taken further on (forwarded or read)."""
    positional = api.positional + on_instance  # a method reached through an instance binds self first
    try:
        if api.open_ended:
            signature.bind_partial(**{name: None for name in api.keywords})
        else:
            signature.bind_partial(*([None] * positional), **{name: None for name in api.keywords})
    except TypeError as err:
        called = ", ".join([*(["_"] * api.positional), *(f"{k}=" for k in api.keywords)])
        return f"{api.dotted}({called}) ({api.where}) does not fit {api.dotted}{signature}: {err}"
    for keyword in api.keywords:
        if keyword not in signature.parameters and not accepts(keyword):
            return (
                f"{api.dotted}(..., {keyword}=) ({api.where}): {keyword!r} goes into **kwargs, and "
                f"{api.dotted} neither forwards it to a function that takes it nor reads it"
            )
    return None
