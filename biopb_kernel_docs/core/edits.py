"""What a write may be (§3): its arguments, the caps, and the exact-replace rule.

Refusals here say how to fix the call, in the words of the surface that shows them (``phrases``).
"""

from __future__ import annotations

import re

from .errors import EditRefused, InvalidArguments, LimitExceeded
from .ids import INDEX_ID
from .index import MARKER_TEXT, is_entry_line, is_entry_or_heading_line
from .phrases import argument, read

BODY_LINE_CAP = 300
# Bytes, since lines alone let one long line through: a doc is read whole into context, and every
# hook and heading of the index reaches every session's handshake.
DOC_BYTE_CAP = 64 * 1024
INDEX_LINE_BYTE_CAP = 1024
# the control characters (Unicode category Cc) but the tab, and the line and paragraph separators
# (Zl, Zp): a heading holding one is not one line; a pattern, so a huge heading is scanned in C
_NOT_IN_ONE_LINE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def line_count(text: str) -> int:
    """Lines as a reader counts them: '\\n'-terminated, plus an unterminated last one."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def normalise_body(body: str) -> str:
    body = body.replace("\r\n", "\n")
    return body if body.endswith("\n") else body + "\n"


def _check_text(name: str, value: str, shown: str | None = None) -> None:
    """Text a file can hold: UTF-8 (no lone surrogate) and no NUL. ``shown`` names the argument."""
    shown = shown or argument(name)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise InvalidArguments(
            f"{shown} holds a lone surrogate (U+{ord(value[err.start]):04X} at character "
            f"{err.start}), which cannot be saved as UTF-8. Nothing was written. It usually comes from "
            "bytes that were not UTF-8: re-encode the text as UTF-8 and retry."
        ) from None
    if "\x00" in value:
        raise InvalidArguments(
            f"{shown} holds a NUL character (at character {value.index(chr(0))}), which no markdown "
            "doc holds. Nothing was written. It usually comes from binary data: remove it and retry."
        )


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


def check_heading(heading: object) -> str:
    """A heading to file under (``file_doc``): one line of text within the index line cap, stripped."""
    if not isinstance(heading, str):
        raise InvalidArguments(
            f"heading must be a string, such as '## Procedures', not {type(heading).__name__}."
        )
    _check_text("heading", heading, "The heading")
    if _NOT_IN_ONE_LINE.search(heading):
        raise InvalidArguments(
            "The heading holds a line break or another control character; it must be one line of text, "
            "such as '## Procedures'. Nothing was written."
        )
    if not heading.strip():
        raise InvalidArguments("The heading is empty; give one line of text, such as '## Procedures'.")
    _check_line_bytes(heading.strip(), "The heading", "Choose a shorter heading.")
    return heading.strip()


def _check_line_bytes(line: str, what: str, fix: str) -> None:
    size = len(line.encode("utf-8"))
    if size > INDEX_LINE_BYTE_CAP:
        raise LimitExceeded(
            f"{what} would be a line of {size:,} bytes in the index; the cap is 1 KiB "
            f"({INDEX_LINE_BYTE_CAP:,} bytes) per index line, a hook or a heading, since the whole index "
            f"is read at every session start. Nothing was written. {fix}"
        )


def check_index_lines(before: str | None, after: str, doc_id: str | None = None) -> None:
    """Refuse an entry or heading line over INDEX_LINE_BYTE_CAP that ``before`` did not already hold
    (an index edited by hand past the cap can still be edited elsewhere). ``doc_id``: the line files
    that created doc, whose hook comes from its description."""
    held = set(before.split("\n")) if before else set()
    for line in after.split("\n"):
        if len(line) * 4 <= INDEX_LINE_BYTE_CAP or line in held or not is_entry_or_heading_line(line):
            continue
        if doc_id is None:
            _check_line_bytes(line, f"The line {line[:40]!r}...", "Shorten that hook or heading and retry.")
        else:
            _check_line_bytes(
                line,
                f"Filing {doc_id!r} under its description",
                "Give the doc a shorter description: line in its frontmatter (one sentence, phrased as "
                "the user's request), then retry.",
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
    if len(text) * 4 > DOC_BYTE_CAP and (size := len(text.encode("utf-8"))) > DOC_BYTE_CAP:
        raise LimitExceeded(
            f"{doc_id!r} would be {size:,} bytes; the cap is 64 KiB ({DOC_BYTE_CAP:,} bytes) per doc, "
            "since a doc is read whole into context. Nothing was written. Shorten it, or move a "
            "self-contained part into a doc of its own and link it as [[id]]."
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


def _drop_marker(line: str) -> tuple[str, str | None]:
    """``line`` without a renderer marker ending it (one space, then the marker), and that marker."""
    for marker in MARKER_TEXT.values():
        if line.endswith(" " + marker):
            return line[: -len(marker) - 1], marker
    return line, None


def replace_in_index(text: str, old: str, new: str) -> tuple[str, tuple[str, ...]]:
    """An old/new edit of index.md that takes text copied from the rendered index (§2, issue 22).

    The rendering ends some entry lines with a marker, `` (missing)`` or `` (local copy)``, that
    index.md does not hold. An ``old`` that is not in the file but is once those exact suffixes
    are removed from its lines is applied without them. A marker ending an entry line that the
    edit writes is left out too: the loader adds markers from the store's state, so written into
    the file one would read as part of the hook, and show twice. Returns the new text and the
    markers left out (none: the edit was taken as it came).
    """
    dropped: list[str] = []
    if _occurrences(text, old) == 0:
        lines = [_drop_marker(line) for line in old.split("\n")]
        unmarked = "\n".join(line for line, _ in lines)
        if unmarked != old and _occurrences(text, unmarked) > 0:
            old = unmarked
            dropped += [marker for _, marker in lines if marker]
    after = replace_once(INDEX_ID, text, old, new)
    held = set(text.split("\n"))
    lines = after.split("\n")
    for number, line in enumerate(lines):
        if line in held:
            continue
        unmarked_line, marker = _drop_marker(line.rstrip())
        if marker and is_entry_line(unmarked_line):
            lines[number] = unmarked_line
            dropped.append(marker)
    return "\n".join(lines), tuple(dict.fromkeys(dropped))
