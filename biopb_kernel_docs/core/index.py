"""The index file as text (§2): its two line shapes, filing an entry, ignoring an id, the cap.

The loader recognises two line shapes and interprets nothing else:

- an entry: a list line whose first token is an id followed by a colon, ``- <id>: <hook>``;
- the ignored line: a line starting with exactly ``ignored:``, naming shipped ids not to list.

Lines inside fenced code blocks are neither. Everything here is pure text; what the rendering
adds from the store (markers, tails) is ``reconcile``'s. The cap and the ignored line are keyed
by id here and nowhere else (§7).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

from .errors import EditRefused, LimitExceeded
from .frontmatter import scan_prose
from .ids import ID_PATTERN, INDEX_ID, is_id_shaped
from .phrases import write_replace
from .values import Marker

ENTRY_CAP = 200
# §2: what the rendering appends to an entry line (after one space); index.md never holds these.
MARKER_TEXT: dict[Marker, str] = {"missing": "(missing)", "local copy": "(local copy)"}
UNFILED_HEADING = "## Unfiled"
IGNORED_PREFIX = "ignored:"

_ENTRY = re.compile(rf"[ \t]*[-*+][ \t]+({ID_PATTERN}):(?:[ \t]+(.*))?")
_HEADING = re.compile(r"(#{1,6})[ \t]+\S")
_ENTRY_STARTS = frozenset(" \t-*+")


class IndexEntry(NamedTuple):  # a tuple: a render builds 200 of them
    doc_id: str
    hook: str
    line_number: int
    heading: str | None  # the nearest heading above the entry, as written ('## Procedures')


@dataclass(frozen=True)
class ParsedIndex:
    lines: tuple[str, ...]
    entries: tuple[IndexEntry, ...]
    ignored_in_order: tuple[str, ...]  # as the ignored: lines name them
    ignored_line_numbers: tuple[int, ...]
    headings: tuple[tuple[int, str], ...]  # (line number, heading line) outside code
    unclosed_fence_line: int | None  # a code fence that never closes swallows the rest

    @cached_property
    def entry_ids(self) -> frozenset[str]:
        return frozenset(entry.doc_id for entry in self.entries)

    @cached_property
    def ignored(self) -> frozenset[str]:
        return frozenset(self.ignored_in_order)

    @cached_property
    def collections(self) -> tuple[str, ...]:
        """The collection ids (``segment/``) the index lists (§7)."""
        return tuple(entry.doc_id for entry in self.entries if entry.doc_id.endswith("/"))

    def files(self, doc_id: str) -> bool:
        """Whether the index files ``doc_id``: an entry of its own, or a listed collection it sits
        under (§7). Reconciliation asks this, so grouping is decided here alone."""
        if doc_id in self.entry_ids:
            return True
        return "/" in doc_id and any(doc_id.startswith(c) for c in self.collections)


def parse_index(text: str) -> ParsedIndex:
    lines = text.split("\n")
    prose, unclosed = scan_prose(lines)
    entries: list[IndexEntry] = []
    ignored: dict[str, None] = {}
    ignored_line_numbers: list[int] = []
    headings: list[tuple[int, str]] = []
    heading: str | None = None
    for number, line in prose:
        first = line[:1]  # cheap dispatch: most lines are prose, and need no pattern at all
        if first == "i" and line.startswith(IGNORED_PREFIX):
            ignored_line_numbers.append(number)
            for token in re.split(r"[\s,]+", line[len(IGNORED_PREFIX) :]):
                if token and is_id_shaped(token):
                    ignored[token] = None
            continue
        if first == "#":
            if _HEADING.match(line):
                heading = line.strip()
                headings.append((number, heading))
            continue
        if first not in _ENTRY_STARTS:
            continue
        match = _ENTRY.fullmatch(line.rstrip())
        if match:
            entries.append(IndexEntry(match.group(1), (match.group(2) or "").strip(), number, heading))
    return ParsedIndex(
        tuple(lines), tuple(entries), tuple(ignored), tuple(ignored_line_numbers), tuple(headings), unclosed
    )


def is_entry_line(line: str) -> bool:
    """Whether ``line`` has the entry shape, ``- <id>: <hook>`` (code fences aside)."""
    return line[:1] in _ENTRY_STARTS and _ENTRY.fullmatch(line.rstrip()) is not None


def is_heading_line(line: str) -> bool:
    return _HEADING.match(line) is not None


def is_entry_or_heading_line(line: str) -> bool:
    return is_heading_line(line) or is_entry_line(line)


def lost_entries(before: ParsedIndex, after: ParsedIndex) -> list[tuple[str, int | None, str | None]]:
    """Entries ``before`` listed that ``after`` does not, in file order: each id with the line of
    ``after`` that still names it but no longer parses as an entry (a lost colon, say), or None
    when its line is gone."""
    lost = []
    for entry in before.entries:
        if entry.doc_id in after.entry_ids or any(entry.doc_id == id_ for id_, _, _ in lost):
            continue
        broken = next(
            (
                (number, line)
                for number, line in enumerate(after.lines)
                if line.lstrip()[:1] in ("-", "*", "+")
                and re.match(rf"[ \t]*[-*+][ \t]*{re.escape(entry.doc_id)}(?![A-Za-z0-9_./-])", line)
            ),
            None,
        )
        lost.append((entry.doc_id, *broken) if broken else (entry.doc_id, None, None))
    return lost


def _level(heading: str) -> int:
    return len(heading) - len(heading.lstrip("#"))


def section_entries(parsed: ParsedIndex, heading: str) -> list[IndexEntry]:
    """Entries between ``heading`` (a whole line, such as '## Procedures') and the next heading of
    the same or a higher level (sub-sections included)."""
    start = next((n for n, line in parsed.headings if line == heading), None)
    if start is None:
        return []
    end = next(
        (n for n, line in parsed.headings if n > start and _level(line) <= _level(heading)), len(parsed.lines)
    )
    return [entry for entry in parsed.entries if start < entry.line_number < end]


def check_entry_cap(count_before: int | None, count_after: int, *, doc_id: str | None = None) -> None:
    """Refuse an index over ENTRY_CAP, unless the write removes entries from an index already over.

    Counts are the loader's own: entries outside code fences, collection lines included.
    """
    if count_after <= ENTRY_CAP or (count_before is not None and count_after <= count_before):
        return
    what = (
        f"Creating {doc_id!r} would file entry number {count_after} in the index"
        if doc_id
        else f"This write would leave the index with {count_after} entries"
    )
    raise LimitExceeded(
        f"{what}; the cap is {ENTRY_CAP}, since the whole index is read at every session start. "
        "Nothing was written. Retire entries first: remove the lines of docs no longer used, or "
        f"put shipped ids on the ignored: line (both with {write_replace(INDEX_ID)}), then retry."
    )


def entry_line(doc_id: str, hook: str) -> str:
    return f"- {doc_id}: {' '.join(hook.split())}".rstrip()


def file_entry(parsed: ParsedIndex, doc_id: str, hook: str, heading: str = UNFILED_HEADING) -> str:
    """§3: the index text with ``- <id>: <hook>`` added at the end of ``heading``'s section.

    A heading that is absent is added at the end of the file; an ``ignored:`` line closing the
    file stays last. Refused when the new line would not parse as an entry (an unclosed code
    fence above it would swallow it).
    """
    if not _HEADING.match(heading):
        heading = f"## {heading.strip()}"
    lines = list(parsed.lines)
    while lines and not lines[-1].strip():
        lines.pop()
    entry = entry_line(doc_id, hook)
    starts = [n for n, line in parsed.headings if line == heading.strip()]
    if starts:
        start = starts[-1]
        following = [n for n, line in parsed.headings if n > start]
        end = following[0] if following else _before_closing_ignored_line(lines)
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        _refuse_inside_unclosed_fence(parsed, end, doc_id)
        return "\n".join([*lines[:end], entry, *lines[end:]]) + "\n"
    end = _before_closing_ignored_line(lines)
    _refuse_inside_unclosed_fence(parsed, end, doc_id)
    head, tail = lines[:end], [line for line in lines[end:] if line.strip()]
    while head and not head[-1].strip():
        head.pop()
    added = ([""] if head else []) + [heading.strip(), entry]
    return "\n".join(head + added + (["", *tail] if tail else [])) + "\n"


def _refuse_inside_unclosed_fence(parsed: ParsedIndex, position: int, doc_id: str) -> None:
    """The added line sits in prose unless a fence that never closes opened above it."""
    opened = parsed.unclosed_fence_line
    if opened is None or opened >= position:
        return
    raise EditRefused(
        f"index.md has a code fence opened at line {opened + 1} that is never closed, so the line "
        f"filing {doc_id!r} would be read as code, not as an entry. Nothing was written. Close the "
        f"fence (a line of ``` after the code) with {write_replace(INDEX_ID)}, then retry."
    )


def ignore_id(parsed: ParsedIndex, doc_id: str) -> str:
    """The index text with ``doc_id`` added to its ignored: line (one is added last if absent)."""
    lines = list(parsed.lines)
    if parsed.ignored_line_numbers:
        number = parsed.ignored_line_numbers[0]
        line = lines[number].rstrip()
        separator = " " if line == IGNORED_PREFIX else ", "
        lines[number] = f"{line}{separator}{doc_id}"
        return "\n".join(lines)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join([*lines, "", f"{IGNORED_PREFIX} {doc_id}"]) + "\n"


def _before_closing_ignored_line(lines: list[str]) -> int:
    """Where the file's content ends, not counting a closing ``ignored:`` line and blank lines."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    if end and lines[end - 1].startswith(IGNORED_PREFIX):
        end -= 1
    return end
