"""A version number as a caller passes it (12, "12" or "v12"), checked before any history is read."""

from __future__ import annotations

from .errors import InvalidArguments

MAX_VERSION_DIGITS = 9  # as many as a '@v123456789' view takes


def check_version_number(value: object) -> int:
    """A version number as a surface may pass it: 12, "12" or "v12" (ASCII digits, at most nine).

    ``str.isdigit`` would let '²' through to ``int``, and ``str()`` of a huge int fails: a bad
    version is the caller's mistake, never a crash.
    """
    number = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str):
        text = value.strip()
        text = text[1:] if text[:1] in ("v", "V") else text
        if 0 < len(text) <= MAX_VERSION_DIGITS and text.isascii() and text.isdigit():
            number = int(text)
    if number is None or not 1 <= number < 10**MAX_VERSION_DIGITS:
        raise InvalidArguments(
            f"A version is a number such as 12 (shown as v12), from 1 to {10**MAX_VERSION_DIGITS - 1:,}, "
            f"not {_shown(value)}."
        )
    return number


def _shown(value: object) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**12:
        return "a number that large"  # repr() of a huge int is slow, or refused outright
    text = repr(value) if isinstance(value, str | int | float) else f"a {type(value).__name__}"
    return text if len(text) <= 40 else f"{text[:36]}..."
