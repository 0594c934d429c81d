"""The index (§2): an agent-edited markdown doc, and its rendering with what the loader knows.

The loader recognises two line shapes and interprets nothing else:

- an entry: a list line whose first token is an id followed by a colon, ``- <id>: <hook>``;
- the ignored line: a line starting with exactly ``ignored:``, naming shipped ids not to list.

Lines inside fenced code blocks are neither. Rendering adds ``(missing)`` / ``(local copy)`` to
entries and appends two tails: shipped docs nobody filed or ignored, and shadowed docs whose
shipped text changed at the last upgrade. Reconciliation, the cap and the ignored line are keyed
by id here and nowhere else (§7).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import LimitExceeded
from .frontmatter import describe, prose_lines
from .ids import ID_PATTERN, INDEX_ID, is_collection_id, is_id_shaped
from .manifest import changed_shipped_ids
from .store import Store, Tier

ENTRY_CAP = 200
UNFILED_HEADING = "## Unfiled"
IGNORED_PREFIX = "ignored:"
MISSING = "(missing)"
LOCAL_COPY = "(local copy)"
NEW_TAIL_TITLE = "## New shipped docs"
STALE_TAIL_TITLE = "## Shipped docs your local copy may be behind on"
NEW_TAIL_INSTRUCTION = (
    "These shipped docs have no entry above and are not on the ignored: line (this list is added "
    "by the loader; it is not in index.md). File each one by adding its line under a heading in "
    "the index, or add its id to the ignored: line; either takes it off this list."
)
STALE_TAIL_INSTRUCTION = (
    "Your local copies of these docs shadow shipped text that this release changed (this list is "
    "added by the loader; it is not in index.md). Read each diff and merge what you want into your "
    "copy with write_doc old/new, or keep your copy as it is; the list clears at the next upgrade."
)

_ENTRY = re.compile(rf"[ \t]*[-*+][ \t]+({ID_PATTERN}):(?:[ \t]+(.*))?")
_HEADING = re.compile(r"#{1,6}[ \t]")


@dataclass(frozen=True)
class IndexEntry:
    doc_id: str
    hook: str
    line_number: int


@dataclass(frozen=True)
class ParsedIndex:
    lines: tuple[str, ...]
    entries: tuple[IndexEntry, ...]
    ignored: frozenset[str]
    ignored_line_numbers: tuple[int, ...]

    @property
    def entry_ids(self) -> frozenset[str]:
        return frozenset(entry.doc_id for entry in self.entries)


def parse_index(text: str) -> ParsedIndex:
    lines = text.split("\n")
    entries: list[IndexEntry] = []
    ignored: set[str] = set()
    ignored_line_numbers: list[int] = []
    for number, line in prose_lines(lines):
        if line.startswith(IGNORED_PREFIX):
            ignored_line_numbers.append(number)
            tokens = re.split(r"[\s,]+", line[len(IGNORED_PREFIX) :])
            ignored.update(token for token in tokens if token and is_id_shaped(token))
            continue
        match = _ENTRY.fullmatch(line.rstrip())
        if match:
            entries.append(IndexEntry(match.group(1), (match.group(2) or "").strip(), number))
    return ParsedIndex(tuple(lines), tuple(entries), frozenset(ignored), tuple(ignored_line_numbers))


def section_entries(parsed: ParsedIndex, heading: str) -> list[IndexEntry]:
    """Entries between ``heading`` (a whole line, such as '## Procedures') and the next heading."""
    start = next((n for n, line in enumerate(parsed.lines) if line.strip() == heading), None)
    if start is None:
        return []
    level = len(heading) - len(heading.lstrip("#"))
    end = len(parsed.lines)
    for number, line in prose_lines(list(parsed.lines)):
        hashes = len(line) - len(line.lstrip("#"))
        if number > start and _HEADING.match(line) and hashes <= level:
            end = number
            break
    return [entry for entry in parsed.entries if start < entry.line_number < end]


def entry_count(text: str) -> int:
    return len(parse_index(text).entries)


def check_entry_cap(before: str | None, after: str, *, doc_id: str | None = None) -> None:
    """Refuse an index over ENTRY_CAP, unless the write removes entries from an index already over."""
    count_after = entry_count(after)
    count_before = entry_count(before) if before is not None else 0
    if count_after <= ENTRY_CAP or (before is not None and count_after <= count_before):
        return
    what = (
        f"Creating {doc_id!r} would file entry number {count_after} in the index"
        if doc_id
        else f"This write would leave the index with {count_after} entries"
    )
    raise LimitExceeded(
        f"{what}; the cap is {ENTRY_CAP}, since the whole index is read at every session start. "
        "Nothing was written. Retire entries first: remove the lines of docs no longer used, or "
        "put shipped ids on the ignored: line (both with write_doc('index', old=..., new=...)), "
        "then retry."
    )


def file_entry(index_text: str, doc_id: str, hook: str) -> str:
    """§3: add ``- <id>: <hook>`` under the ``## Unfiled`` heading, adding it at the end if absent.

    The new line goes at the end of that section; an ``ignored:`` line closing the file stays last.
    """
    lines = index_text.rstrip("\n").split("\n")
    entry = f"- {doc_id}: {' '.join(hook.split())}".rstrip()
    prose = list(prose_lines(lines))
    unfiled = [n for n, line in prose if line.strip() == UNFILED_HEADING]
    if unfiled:
        following = [n for n, line in prose if n > unfiled[-1] and _HEADING.match(line)]
        end = following[0] if following else len(lines)
        if not following:
            end = _before_closing_ignored_line(lines)
        while end > unfiled[-1] + 1 and not lines[end - 1].strip():
            end -= 1
        return "\n".join([*lines[:end], entry, *lines[end:]]) + "\n"
    end = _before_closing_ignored_line(lines)
    head, tail = lines[:end], [line for line in lines[end:] if line.strip()]
    while head and not head[-1].strip():
        head.pop()
    added = ([""] if head else []) + [UNFILED_HEADING, entry]
    return "\n".join(head + added + (["", *tail] if tail else [])) + "\n"


def _before_closing_ignored_line(lines: list[str]) -> int:
    """Where the file's content ends, not counting a closing ``ignored:`` line and blank lines."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    if end and lines[end - 1].startswith(IGNORED_PREFIX):
        end -= 1
    return end


def _marker(store: Store, doc_id: str) -> str | None:
    if is_collection_id(doc_id) or doc_id == INDEX_ID:
        return None
    local = store.exists(Tier.LOCAL, doc_id)
    shipped = store.exists(Tier.SHIPPED, doc_id)
    if local and shipped:
        return LOCAL_COPY
    if not local and not shipped:
        return MISSING
    return None


def _shipped_description(store: Store, doc_id: str) -> str:
    doc = store.read(Tier.SHIPPED, doc_id)
    return describe(doc_id, doc.text).description if doc else ""


def _tail(title: str, instruction: str, items: list[str]) -> list[str]:
    return ["", title, instruction, *items] if items else []


def listed_ids(store: Store, parsed: ParsedIndex) -> list[str]:
    """Ids the rendered index surfaces: entries (collections aside) and the new-docs tail."""
    new = new_shipped_ids(store, parsed)
    return sorted({e.doc_id for e in parsed.entries if not is_collection_id(e.doc_id)} | set(new))


def new_shipped_ids(store: Store, parsed: ParsedIndex) -> list[str]:
    return [i for i in store.shipped_ids() if i not in parsed.entry_ids and i not in parsed.ignored]


def stale_shadowed_ids(store: Store) -> list[str]:
    """Shadowed ids whose shipped text changed at the last version bump (§4)."""
    return sorted(
        doc_id
        for doc_id in changed_shipped_ids(store)
        if store.exists(Tier.LOCAL, doc_id) and store.exists(Tier.SHIPPED, doc_id)
    )


def render_index(store: Store, text: str) -> str:
    """The index file ``text`` plus markers and both tails. Neither tail is truncated (§2)."""
    parsed = parse_index(text)
    lines = list(parsed.lines)
    for entry in parsed.entries:
        marker = _marker(store, entry.doc_id)
        if marker:
            lines[entry.line_number] = f"{lines[entry.line_number].rstrip()} {marker}"
    while lines and not lines[-1].strip():
        lines.pop()
    new_items = [f"- {i}: {_shipped_description(store, i)}" for i in new_shipped_ids(store, parsed)]
    stale_items = [
        f'- {i}: {_shipped_description(store, i)} — read_doc("{i}@diff")' for i in stale_shadowed_ids(store)
    ]
    lines += _tail(NEW_TAIL_TITLE, NEW_TAIL_INSTRUCTION, new_items)
    lines += _tail(STALE_TAIL_TITLE, STALE_TAIL_INSTRUCTION, stale_items)
    return "\n".join(lines) + "\n"
