"""What a write may be (§3): its arguments, the caps, and the exact-replace rule.

Refusals here say how to fix the call, in the words of the surface that shows them (``phrases``).
"""

from __future__ import annotations

from .errors import EditRefused, InvalidArguments, LimitExceeded
from .phrases import argument, read

BODY_LINE_CAP = 300


def line_count(text: str) -> int:
    """Lines as a reader counts them: '\\n'-terminated, plus an unterminated last one."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def normalise_body(body: str) -> str:
    body = body.replace("\r\n", "\n")
    return body if body.endswith("\n") else body + "\n"


def _check_text(name: str, value: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise InvalidArguments(
            f"{argument(name)} holds a lone surrogate (U+{ord(value[err.start]):04X} at character "
            f"{err.start}), which cannot be saved as UTF-8. Nothing was written. It usually comes from "
            "bytes that were not UTF-8: re-encode the text as UTF-8 and retry."
        ) from None


def check_arguments(body: object, old: object, new: object, if_match: object) -> None:
    for name, value in (("body", body), ("old", old), ("new", new), ("if_match", if_match)):
        if value is not None and not isinstance(value, str):
            raise InvalidArguments(f"{argument(name)} must be a string, not {type(value).__name__}.")
        if isinstance(value, str):
            _check_text(name, value)
    if body is not None and (old is not None or new is not None):
        raise InvalidArguments(
            f"Pass either {argument('body')}, or {argument('old')} and {argument('new')}, not both: "
            f"{argument('body')} replaces the whole doc."
        )
    if body is None and old is None and new is None:
        raise InvalidArguments(
            f"Nothing to write: pass {argument('body')} to create or replace the doc, or "
            f"{argument('old')} and {argument('new')} to replace one exact piece of it."
        )
    if body is None and (old is None or new is None):
        missing = "new" if new is None else "old"
        raise InvalidArguments(
            f"{argument('old')} and {argument('new')} go together, and {argument(missing)} is missing. "
            f"To delete a piece of text, pass an empty {argument('new')}."
        )
    if old == "":
        raise InvalidArguments(
            f"{argument('old')} is empty. Quote the exact text to replace, including a neighbouring "
            "line if it is short."
        )


def check_body(doc_id: str, text: str) -> None:
    if not text.strip():
        raise EditRefused(
            f"That would leave {doc_id!r} empty, and there is no delete. To retire a doc, remove its line "
            "from the index (a shipped doc: put its id on the ignored: line)."
        )
    lines = line_count(text)
    if lines > BODY_LINE_CAP:
        raise LimitExceeded(
            f"{doc_id!r} would be {lines} lines; the cap is {BODY_LINE_CAP}, since a doc is read whole "
            "into context. Nothing was written. Shorten it, or move a self-contained part into a doc of "
            "its own and link it as [[id]]."
        )


def _occurrences(text: str, old: str) -> int:
    count, start = 0, text.find(old)
    while start != -1:
        count += 1
        start = text.find(old, start + 1)
    return count


def replace_once(doc_id: str, text: str, old: str, new: str) -> str:
    count = _occurrences(text, old)
    if count == 1:
        return text.replace(old, new, 1)
    if count > 1:
        raise EditRefused(
            f"{argument('old')} matches {count} times in {doc_id!r}; it must match exactly once. Nothing "
            "was written. Include more of the surrounding text (a neighbouring line, or the heading "
            f"above) in both {argument('old')} and {argument('new')}."
        )
    hint = f"{read(doc_id)} shows the current text; copy {argument('old')} from it exactly."
    if old.lstrip().startswith(f"[{doc_id} ·"):
        hint = f"The first line {read(doc_id)} prints is a header, not part of the doc: leave it out."
    elif " ".join(old.split()) in " ".join(text.split()):
        hint = (
            f"It matches only when whitespace is ignored: copy {argument('old')} exactly, with its "
            "indentation, line breaks and spacing."
        )
    raise EditRefused(f"{argument('old')} was not found in {doc_id!r}, so nothing was written. {hint}")
