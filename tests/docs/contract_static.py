"""The contract gate's reading of a package that is not installed here: its wheel's source (§6).

``problem_with`` imports a module to check what a doc quotes from it. A package that only a
stood-in block uses (cellpose needs torch, stardist tensorflow) cannot be imported here, so the
newest wheel inside the doc's declared range is read instead (``wheels.py``), with ``ast``, never
imported. A dotted name is walked through the package's modules and their imports (relative and
absolute, re-exports in ``__init__.py``, ``from m import *``), module-level defs, classes and
assignments, and class members, inherited ones included: a base class is found by name through its
module's imports, in an importable module (imported then), in the wheel, or in the wheel of a
dependency that is fetched for it (its range from the wheel's ``Requires-Dist``). A call binds to an
``inspect.Signature`` built from the def's parameters, by the same ``misfit`` as the installed
path; a class call binds to ``__init__`` (or ``__new__``) without ``self``, a classmethod without
``cls``, a method reached through an instance with ``self`` bound first.

Where the reading cannot decide, the problem says so instead of passing: a name bound in
alternative branches (``try``/``if``), a module-level ``__getattr__``, a decorator other than
those that keep a signature (classmethod, staticmethod, property, abstractmethod, caches), a base
class computed by a call, an attribute or a call of an assigned value (``MODEL_DIR.parent``), a
class without ``__init__`` that a decorator or a metaclass may give one. The limits it shares with
the installed path pass unclaimed there and here: the result of a call whose return type is not
annotated, and keywords a ``**kwargs`` function reads by a computed key or forwards to a callee
it cannot name (``self.net(**kwargs)``). ``__all__`` is not consulted for ``from m import *``.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import inspect
import warnings
from dataclasses import dataclass
from functools import cache

from packaging.utils import canonicalize_name

from .contract import QuotedApi, Uncheckable, _return_type, accepts_keyword, kwargs_key, misfit
from .wheels import Wheel, WheelUnavailable, newest_wheel, python_sources, run_requirements, top_level_modules

_KEEPS_SIGNATURE = {
    "classmethod",
    "staticmethod",
    "property",
    "abstractmethod",
    "abstractproperty",
    "cached_property",
    "cache",
    "lru_cache",
    "setter",
    "getter",
    "deleter",
}


class Missing(Exception):
    """The wheel's source defines no such name."""


class Undecidable(Exception):
    """Only running the code would tell: a failing problem, never a pass."""


@dataclass(frozen=True)
class Module:
    name: str
    tree: ast.Module
    is_package: bool
    origin: str  # "cellpose 4.2.1.1"


@dataclass(frozen=True)
class Class:
    module: Module
    node: ast.ClassDef
    instance: bool = False  # an instance of the class, not the class itself


@dataclass(frozen=True)
class Function:
    module: Module
    node: ast.FunctionDef | ast.AsyncFunctionDef
    drop_first: bool = False  # a classmethod's cls, an __init__'s self
    on_instance: bool = False  # reached through an instance: a call binds self first


@dataclass(frozen=True)
class Value:
    module: Module
    name: str


@dataclass(frozen=True)
class Installed:
    """An object of a module importable here, reached from the wheel's source (a base class)."""

    obj: object
    instance: bool = False
    on_instance: bool = False


class _Written:
    """A default as the source writes it, so a signature in a message reads like the real one."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


@cache
def _parsed(wheel: Wheel, name: str) -> Module:
    source, is_package = python_sources(wheel)[name]
    with warnings.catch_warnings():  # old escapes ("\d") warn, and warnings are errors in the tests
        warnings.simplefilter("ignore")
        tree = ast.parse(source)
    return Module(name, tree, is_package, f"{wheel.name} {wheel.version}")


def _decorator_names(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[str]:
    names = []
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        names.append(target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "?"))
    return names


def signature_of(function: Function) -> inspect.Signature:
    """The signature a call of ``function`` binds to, from its ``ast.arguments``."""
    node = function.node
    unknown = [name for name in _decorator_names(node) if name not in _KEEPS_SIGNATURE]
    if unknown:
        raise Undecidable(f"{node.name} is decorated with @{unknown[0]}, which may change its signature")
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    kind = inspect.Parameter
    parameters = []
    for index, (argument, default) in enumerate(zip(positional, defaults, strict=True)):
        parameters.append(
            kind(
                argument.arg,
                kind.POSITIONAL_ONLY if index < len(arguments.posonlyargs) else kind.POSITIONAL_OR_KEYWORD,
                default=kind.empty if default is None else _Written(ast.unparse(default)),
            )
        )
    if function.drop_first and parameters:
        parameters.pop(0)
    if arguments.vararg:
        parameters.append(kind(arguments.vararg.arg, kind.VAR_POSITIONAL))
    for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        written = kind.empty if default is None else _Written(ast.unparse(default))
        parameters.append(kind(argument.arg, kind.KEYWORD_ONLY, default=written))
    if arguments.kwarg:
        parameters.append(kind(arguments.kwarg.arg, kind.VAR_KEYWORD))
    return inspect.Signature(parameters)


def _bindings(statements: list[ast.stmt], name: str, conditional: bool = False) -> list[tuple]:
    """(statement, import alias or None, whether it is inside a branch) for each binding of ``name``."""
    found: list[tuple] = []
    for node in statements:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            found.append((node, None, conditional))
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in ast.walk(ast.Tuple(elts=targets))):
                found.append((node, None, conditional))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                bound = alias.asname or (
                    alias.name.split(".")[0] if isinstance(node, ast.Import) else alias.name
                )
                if bound == name:
                    found.append((node, alias, conditional))
        elif isinstance(node, ast.If | ast.Try | ast.For | ast.While | ast.With):
            branches = [getattr(node, field, []) for field in ("body", "orelse", "finalbody")]
            branches += [handler.body for handler in getattr(node, "handlers", [])]
            for branch in branches:
                found += _bindings(branch, name, conditional or not isinstance(node, ast.With))
    return found


class WheelReader:
    """One distribution's wheel, read by name; dependency wheels are added when a name leads there."""

    def __init__(self, wheel: Wheel):
        self.wheel = wheel
        self.origin = f"{wheel.name} {wheel.version}"
        self._wheels = [wheel]
        self._resolving: set[tuple[str, str]] = set()

    def origins(self) -> list[str]:
        return [f"{wheel.name} {wheel.version}" for wheel in self._wheels]

    def module(self, name: str) -> Module | None:
        """The module ``name`` in the wheels read so far, or None."""
        for wheel in self._wheels:
            if name in python_sources(wheel):
                return _parsed(wheel, name)
        return None

    def _dependency(self, root: str) -> None:
        for wheel in list(self._wheels):
            for requirement in run_requirements(wheel):
                if canonicalize_name(requirement.name) == canonicalize_name(root):
                    try:
                        found = newest_wheel(f"{requirement.name}{requirement.specifier}")
                    except WheelUnavailable as err:
                        raise Undecidable(str(err)) from err
                    if root in top_level_modules(found):
                        self._wheels.append(found)
                        return
        raise Undecidable(
            f"{root} is neither importable here nor a requirement of {', '.join(self.origins())}"
        )

    def imported(self, name: str) -> Module | Installed:
        """What ``import name`` gives: a module of a wheel, or (importable here) the module itself."""
        root = name.split(".")[0]
        if not any(root in top_level_modules(wheel) for wheel in self._wheels):
            if importlib.util.find_spec(root) is not None:
                try:
                    return Installed(importlib.import_module(name))
                except ImportError as err:
                    raise Undecidable(f"importing {name} here fails: {err}") from err
            self._dependency(root)
        module = self.module(name)
        if module is None:
            raise Missing(f"no module {name} in {', '.join(self.origins())}")
        return module

    def lookup(self, module: Module, name: str) -> Module | Class | Function | Value | Installed | None:
        """What ``name`` is bound to at the top level of ``module``, or None."""
        key = (module.name, name)
        if key in self._resolving:
            raise Undecidable(f"{name} in {module.name} is bound in a cycle of imports")
        self._resolving.add(key)
        try:
            return self._lookup(module, name)
        finally:
            self._resolving.discard(key)

    def _lookup(self, module: Module, name: str):
        found = _bindings(module.tree.body, name)
        if len(found) > 1 and any(conditional for _, _, conditional in found):
            raise Undecidable(f"{name} is bound {len(found)} times in {module.name}, in alternative branches")
        if found:
            return self._bound(module, name, *found[-1][:2])
        for node in reversed(module.tree.body):
            if isinstance(node, ast.ImportFrom) and node.names[0].name == "*":
                try:
                    return self.attribute(self.imported(self._absolute(module, node)), name)
                except Missing:
                    continue
        return None

    def _absolute(self, module: Module, node: ast.ImportFrom) -> str:
        if node.level == 0:
            return node.module or ""
        package = module.name.split(".")
        package = package if module.is_package else package[:-1]
        package = package[: len(package) - (node.level - 1)]
        return ".".join([*package, *([node.module] if node.module else [])])

    def _bound(self, module: Module, name: str, node: ast.AST, alias: ast.alias | None):
        if isinstance(node, ast.ClassDef):
            return Class(module, node)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return Function(module, node)
        if isinstance(node, ast.Import):
            return self.imported(alias.name if alias.asname else alias.name.split(".")[0])
        if isinstance(node, ast.ImportFrom):
            return self.attribute(self.imported(self._absolute(module, node)), alias.name)
        value = getattr(node, "value", None)
        if isinstance(value, ast.Name | ast.Attribute) and not (
            isinstance(value, ast.Name) and value.id == name
        ):
            try:
                return self.expression(module, value)  # an alias: f = g
            except (Missing, Undecidable):
                pass
        return Value(module, name)

    def expression(self, module: Module, node: ast.expr):
        """What a name or attribute chain in ``module``'s source refers to."""
        if isinstance(node, ast.Name):
            found = self.lookup(module, node.id)
            if found is not None:
                return found
            if hasattr(builtins, node.id):
                return Installed(getattr(builtins, node.id))
            raise Missing(f"{node.id} is not bound in {module.name}")
        if isinstance(node, ast.Attribute):
            return self.attribute(self.expression(module, node.value), node.attr)
        if isinstance(node, ast.Subscript):
            return self.expression(module, node.value)  # Generic[T] -> Generic
        raise Undecidable(f"{ast.unparse(node)} in {module.name} is computed at run time")

    def attribute(self, owner, name: str):
        if isinstance(owner, Module):
            found = self.lookup(owner, name)
            if found is None:
                found = self.module(f"{owner.name}.{name}")
            if found is None:
                if _bindings(owner.tree.body, "__getattr__"):
                    raise Undecidable(f"{owner.name} makes names at run time (a module __getattr__)")
                raise Missing(f"module {owner.name} ({owner.origin}) has no {name}")
            return found
        if isinstance(owner, Class):
            return self.member(owner, name)
        if isinstance(owner, Installed):
            if not hasattr(owner.obj, name):
                raise Missing(f"{owner.obj!r} has no {name}")
            static = inspect.getattr_static(owner.obj, name, None)
            plain = inspect.isfunction(static)
            return Installed(getattr(owner.obj, name), on_instance=owner.instance and plain)
        raise Undecidable(f"{name} is an attribute of a value whose type only running shows")

    def member(self, owner: Class, name: str):
        """``name`` on a class (or an instance of it), its bases searched in order."""
        body = owner.node.body
        found = _bindings(body, name)
        if found:
            node = found[-1][0]
            functions = [n for n, _, _ in found if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
            if any("property" in _decorator_names(f) for f in functions):
                return self._property(owner, next(f for f in functions if "property" in _decorator_names(f)))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                decorators = _decorator_names(node)
                plain = "classmethod" not in decorators and "staticmethod" not in decorators
                return Function(owner.module, node, "classmethod" in decorators, owner.instance and plain)
            if isinstance(node, ast.ClassDef):
                return Class(owner.module, node)
            return Value(owner.module, f"{owner.node.name}.{name}")
        for base in self.bases(owner):
            if isinstance(base, Class):
                try:
                    return self.member(Class(base.module, base.node, owner.instance), name)
                except Missing:
                    continue
            elif base.obj is not object and hasattr(base.obj, name):
                return self.attribute(Installed(base.obj, instance=owner.instance), name)
        raise Missing(f"{owner.node.name} ({owner.module.origin}) has no {name}, nor has any of its bases")

    def bases(self, owner: Class) -> list[Class | Installed]:
        found = []
        for base in owner.node.bases:
            try:
                resolved = self.expression(owner.module, base)
            except (Missing, Undecidable) as err:
                raise Undecidable(
                    f"the base {ast.unparse(base)} of {owner.node.name} cannot be read: {err}"
                ) from err
            if not isinstance(resolved, Class | Installed) or (
                isinstance(resolved, Installed) and not inspect.isclass(resolved.obj)
            ):
                raise Undecidable(f"the base {ast.unparse(base)} of {owner.node.name} is not a class here")
            found.append(resolved)
        return found

    def _property(self, owner: Class, getter: ast.FunctionDef | ast.AsyncFunctionDef):
        if not owner.instance:
            return Value(owner.module, f"{owner.node.name}.{getter.name}")
        return self._instance_of(owner.module, getter.returns, f"{owner.node.name}.{getter.name}")

    def _instance_of(self, module: Module, annotation: ast.expr | None, what: str):
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            annotation = ast.parse(annotation.value, mode="eval").body  # a string annotation
        try:
            declared = self.expression(module, annotation) if annotation is not None else None
        except (Missing, Undecidable):
            declared = None
        if isinstance(declared, Class):
            return Class(declared.module, declared.node, instance=True)
        if isinstance(declared, Installed) and inspect.isclass(declared.obj) and declared.obj is not object:
            return Installed(declared.obj, instance=True)
        raise Uncheckable(f"{what}: the type it gives is only known at run time")

    def returned(self, target, dotted: str):
        """What a call of ``target`` gives, when the source says it without running."""
        if isinstance(target, Class) and not target.instance:
            return Class(target.module, target.node, instance=True)
        if isinstance(target, Function):
            return self._instance_of(target.module, target.node.returns, dotted)
        if isinstance(target, Installed) and not target.instance:
            return Installed(_return_type(target.obj, dotted), instance=True)
        raise Undecidable(f"{dotted}: a call of a value or an instance, which only running shows")

    def resolve(self, dotted: str):
        """The longest module prefix of ``dotted`` in the wheel, the rest walked as attributes."""
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            head = ".".join(parts[:cut])
            module = None if "()" in head else self.module(head)
            if module is None:
                continue
            target = module
            for attribute in parts[cut:]:
                target = self.attribute(target, attribute.removesuffix("()"))
                if attribute.endswith("()"):
                    target = self.returned(target, dotted)
            return target
        raise Missing(f"no module of {dotted!r} in the {self.origin} wheel")

    def call_of(self, target) -> tuple[inspect.Signature, bool, object]:
        """(signature, whether self is bound first, keyword check) of a call of ``target``."""
        if isinstance(target, Function):
            return signature_of(target), target.on_instance, lambda keyword: self.takes(target, keyword)
        if isinstance(target, Class) and not target.instance:
            init = self.constructor(target)
            if init is None:
                return inspect.Signature(), False, lambda keyword: False
            if isinstance(init, Installed):
                return inspect.signature(init.obj), False, lambda keyword: accepts_keyword(init.obj, keyword)
            return signature_of(init), False, lambda keyword: self.takes(init, keyword)
        if isinstance(target, Installed) and not target.instance:
            try:
                signature = inspect.signature(target.obj)
            except (TypeError, ValueError) as err:
                raise Uncheckable(str(err)) from err
            return signature, target.on_instance, lambda keyword: accepts_keyword(target.obj, keyword)
        raise Undecidable("a call of a value or an instance, which only running shows")

    def constructor(self, owner: Class) -> Function | Installed | None:
        """The ``__init__`` (else ``__new__``) a call of the class binds to, ``self`` dropped."""
        for name in ("__init__", "__new__"):
            found = _bindings(owner.node.body, name)
            if found and isinstance(found[-1][0], ast.FunctionDef | ast.AsyncFunctionDef):
                return Function(owner.module, found[-1][0], drop_first=True)
        for base in self.bases(owner):
            if isinstance(base, Class):
                init = self.constructor(base)
                if init is not None:
                    return init
            elif base.obj is not object:
                return Installed(base.obj)
        if owner.node.decorator_list or owner.node.keywords:
            raise Undecidable(
                f"{owner.node.name} has no __init__ in its source; a decorator or metaclass may make one"
            )
        return None

    def takes(self, function: Function, keyword: str, depth: int = 0) -> bool:
        """Whether ``function`` takes ``keyword`` by name, or reads or forwards it from ``**kwargs``
        (the installed path's ``accepts_keyword``, on the source)."""
        arguments = function.node.args
        named = [a.arg for a in [*arguments.args, *arguments.kwonlyargs]]
        if keyword in named:
            return True
        if arguments.kwarg is None:
            return False
        var_keyword = arguments.kwarg.arg
        for node in ast.walk(function.node):
            key = kwargs_key(node, var_keyword)
            if key is not None:
                if not isinstance(key, ast.Constant) or key.value == keyword:
                    return True  # read by this name, or by a key only running shows (no claim)
            elif isinstance(node, ast.Call) and depth < 3 and self._forwards(node, var_keyword):
                try:
                    callee = self.expression(function.module, node.func)
                except (Missing, Undecidable):
                    return True  # a callee only running shows (self.net): no claim, as installed
                if isinstance(callee, Class) and not callee.instance:
                    callee = self.constructor(callee)
                if isinstance(callee, Function) and self.takes(callee, keyword, depth + 1):
                    return True
                if isinstance(callee, Installed) and accepts_keyword(callee.obj, keyword, depth + 1):
                    return True
        return False

    @staticmethod
    def _forwards(call: ast.Call, var_keyword: str) -> bool:
        return any(
            k.arg is None and isinstance(k.value, ast.Name) and k.value.id == var_keyword
            for k in call.keywords
        )


@cache
def reader_of(requirement: str) -> WheelReader:
    return WheelReader(newest_wheel(requirement))


def static_problem_with(api: QuotedApi, requirement: str) -> str | None:
    """Why the newest wheel inside ``requirement`` contradicts a quoted API, or None."""
    try:
        reader = reader_of(requirement)
    except WheelUnavailable as err:
        return f"{api.dotted} ({api.where}) cannot be read: {err}"
    try:
        target = reader.resolve(api.dotted)
        if not api.is_call:
            return None
        signature, on_instance, accepts = reader.call_of(target)
        problem = misfit(api, signature, on_instance, accepts)
    except Uncheckable:
        return None  # a limit shared with the installed path (contract.py's docstring)
    except Missing as err:
        return f"{api.dotted} ({api.where}) does not exist in the {reader.origin} wheel: {err}"
    except Undecidable as err:
        return (
            f"{api.dotted} ({api.where}): reading {', '.join(reader.origins())} without importing it cannot "
            f"decide ({err}); check it by hand and name the limit in contract_static.py's docstring"
        )
    return problem and f"{problem} (read from the {reader.origin} wheel)"
