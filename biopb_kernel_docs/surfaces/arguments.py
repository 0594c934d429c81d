"""The argument checks every operation's call passes before it runs, on every surface: known names
only, each of its parameter's kind (a flag a bool, a number plain digits in range, a version such as
12 or v12, the rest strings), the required ones present. A bad argument is the caller's mistake: an
``InvalidArguments`` that names the operation, the parameter and what it takes, never a crash.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..core.errors import InvalidArguments
from ..core.version_numbers import check_version_number

# "id": a doc id; "text": doc text (a file on the command line, the cell in a notebook);
# "sha": a sha256 precondition; "number": a count or position (0, 1, ...); "version": a version
# number as the history shows it (12 or v12); "flag": true or false (--name on the command line
# and in a magic); "query": a search (a magic takes the rest of its line verbatim); "path": a
# directory on the machine that runs the operation; "string": anything else.
Kind = Literal["id", "text", "sha", "number", "version", "flag", "query", "path", "string"]
# A number parameter (a character budget, a hunk position, a version) is at most this, written in
# at most NUMBER_DIGITS digits: far above any real value, far below what int() or repr() choke on.
NUMBER_DIGITS = 9
NUMBER_LIMIT = 10**NUMBER_DIGITS - 1


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: Kind
    required: bool
    help: str


def checked_arguments(name: str, parameters: tuple[Parameter, ...], arguments: object) -> dict[str, Any]:
    """``arguments`` checked against ``parameters``; numbers and versions as ints."""
    if not isinstance(arguments, Mapping):
        raise InvalidArguments(f"{name} takes its arguments as a mapping of names to values.")
    known = {p.name for p in parameters}
    unknown = sorted((key for key in arguments if key not in known), key=repr)
    if unknown:
        named = ", ".join(_shown(key) for key in unknown[:5]) + (", ..." if len(unknown) > 5 else "")
        raise InvalidArguments(
            f"{name} has no argument {named}; it takes {', '.join(sorted(known)) or 'none'}."
        )
    checked = dict(arguments)
    for parameter in parameters:
        value = arguments.get(parameter.name)
        if value is None and parameter.required:
            raise InvalidArguments(f"{name} needs {parameter.name!r}: {parameter.help}")
        if value is None:
            continue
        if parameter.kind == "flag":
            if not isinstance(value, bool):
                raise InvalidArguments(f"{name}'s {parameter.name!r} is true or false, not {_shown(value)}.")
        elif parameter.kind == "number":
            checked[parameter.name] = whole_number(name, parameter, value)
        elif parameter.kind == "version":
            checked[parameter.name] = version_number(name, parameter, value)
        elif not isinstance(value, str):
            raise InvalidArguments(
                f"{name}'s {parameter.name!r} must be a string, not {type(value).__name__}."
            )
    return checked


def whole_number(name: str, parameter: Parameter, value: object) -> int:
    """``value`` as a count or position: an int, or a string of ASCII digits, from 0 to NUMBER_LIMIT.

    ``str.isdigit`` would let through '²' and '١', and ``int`` would then fail on them (or on a
    string of thousands of digits): a bad number is the caller's mistake, never a crash.
    """
    number = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and 0 < len(value) <= NUMBER_DIGITS and value.isascii() and value.isdigit():
        number = int(value)
    if number is None or not 0 <= number <= NUMBER_LIMIT:
        raise InvalidArguments(
            f"{name}'s {parameter.name!r} must be a whole number from 0 to {NUMBER_LIMIT:,}, written "
            f"with the digits 0-9, not {_shown(value)}."
        )
    return number


def version_number(name: str, parameter: Parameter, value: object) -> int:
    """``value`` as a version number: 12, "12" or "v12", from 1 to NUMBER_LIMIT (nine digits, as many
    as a '@v12' read takes); checked like a whole number."""
    try:
        return check_version_number(value)
    except InvalidArguments:
        raise InvalidArguments(
            f"{name}'s {parameter.name!r} must be a version number such as 12 (v12), from 1 to "
            f"{NUMBER_LIMIT:,}, not {_shown(value)}."
        ) from None


def _shown(value: object) -> str:
    """A refused value, quoted short (a 10 MB string, or an int repr() refuses to spell, is not)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**12:
        return "a number that large" if value > 0 else "a negative number"
    if isinstance(value, str | int | float | bool):
        text = repr(value)
        return text if len(text) <= 40 else f"{text[:36]}...{text[-1]}"
    return f"a {type(value).__name__}"
