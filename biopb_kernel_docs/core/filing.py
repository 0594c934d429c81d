"""The edit that files a created doc under one of the index's own headings (issue 22, item 4).

§3: a create files its entry under ``## Unfiled``, and §2: the store never rewrites the agent's
headings by itself. So the store only proposes the move: the exact old/new edit of index.md that
takes the new line from ``## Unfiled`` to the end of a heading the index already has, removing
``## Unfiled`` when the line was its only one. The create's result ends with it, one copy away.

The heading proposed is the one with the most entries: write_doc is for procedures (§5), and the
index keeps them in its largest section (the seed's ``## Procedures``), which no code here names
(§6: only the bench names a heading from outside the index). A tie goes to the later heading,
nearer ``## Unfiled`` at the end, so the quote is shorter.
"""

from __future__ import annotations

from collections import Counter

from .index import IGNORED_PREFIX, UNFILED_HEADING, file_entry, is_heading_line, parse_index
from .values import IndexMove


def filing_move(text: str, doc_id: str) -> IndexMove | None:
    """The edit of index ``text`` that moves ``doc_id``'s entry out of ``## Unfiled``, or None
    (no such entry, no other heading with entries, or an index too odd to quote safely)."""
    parsed = parse_index(text)
    entry = next((e for e in reversed(parsed.entries) if e.doc_id == doc_id), None)
    if entry is None or entry.heading != UNFILED_HEADING:
        return None
    heading = _busiest_heading(parsed.entries)
    if heading is None:
        return None
    lines = list(parsed.lines)
    moved_line = lines[entry.line_number]
    del lines[entry.line_number]
    unfiled = max(n for n, line in parsed.headings if n < entry.line_number and line == UNFILED_HEADING)
    end = _section_end(lines, unfiled)
    emptied = not any(line.strip() for line in lines[unfiled + 1 : end])
    if emptied:
        del lines[unfiled:end]
    after = file_entry(parse_index("\n".join(lines)), doc_id, entry.hook, heading)
    if moved_line not in after.split("\n"):
        return None
    quote = _quote(text, after, moved_line)
    if quote is None:
        return None
    return IndexMove(heading, quote[0], quote[1], emptied)


def _busiest_heading(entries) -> str | None:
    counts = Counter(e.heading for e in entries if e.heading and e.heading != UNFILED_HEADING)
    if not counts:
        return None
    most = max(counts.values())
    return [heading for heading in dict.fromkeys(e.heading for e in entries) if counts.get(heading) == most][
        -1
    ]


def _section_end(lines: list[str], heading_line: int) -> int:
    """Where the section opened at ``heading_line`` ends: the next heading or ignored: line."""
    for number in range(heading_line + 1, len(lines)):
        if is_heading_line(lines[number]) or lines[number].startswith(IGNORED_PREFIX):
            return number
    return len(lines)


def _quote(before: str, after: str, moved_line: str) -> tuple[str, str] | None:
    """``(old, new)``: whole lines of ``before`` that occur in it once, and what ``after`` holds in
    their place. They reach from the line the entry lands under to the entry's old place (or the
    other way), and start and end with a line that is not blank, so a notebook cell keeps them."""
    a, b = before.split("\n"), after.split("\n")
    prefix = 0
    while prefix < min(len(a), len(b)) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(a), len(b)) - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    was, now = a.index(moved_line), b.index(moved_line)
    # Outside a[start:len(a) - trim] the two texts agree, so widening the span keeps it exact.
    start = min(prefix, was, max(now - 1, 0))
    trim = min(suffix, len(a) - was - 1, len(b) - now - 1)

    def quoted() -> tuple[str, str]:
        return "\n".join(a[start : len(a) - trim]), "\n".join(b[start : len(b) - trim])

    def blank_ends() -> tuple[bool, bool]:
        old, new = quoted()
        return not (old.split("\n")[0].strip() and new.split("\n")[0].strip()), not (
            old.split("\n")[-1].strip() and new.split("\n")[-1].strip()
        )

    while any(blank_ends()) or _occurrences(before, quoted()[0]) != 1:
        blank_start, blank_end = blank_ends()
        if (blank_start or not blank_end) and start > 0:
            start -= 1
        elif trim > 0:
            trim -= 1
        else:
            return None
    old, new = quoted()
    return (old, new) if before.replace(old, new, 1) == after else None


def _occurrences(text: str, part: str) -> int:
    count, at = 0, text.find(part)
    while at != -1:
        count += 1
        at = text.find(part, at + 1)
    return count
