"""A doc's sections (§7): its headings, the lines each one opens, and how a read names one.

A heading is an ATX line (``#`` to ``######``, then a space and its text) outside fenced code and
after the frontmatter. Its section runs from the heading line through the line before the next
heading of the same or a higher level, so it holds its sub-sections. A read names one after ``#``:

- by its text, ``flatfield#Checkpoints``, matched ignoring case, ``*`` and backticks, runs of
  spaces, and punctuation at either end (``#checkpoints:`` finds ``## Checkpoints``);
- by a path of headings it sits under, ``#Steps/Confirm input`` (each name an enclosing heading,
  outermost first; names may be skipped);
- by position among the headings a name matches, ``#Example[2]``.

A heading whose own text holds ``/`` matches as a whole before the path rule is tried. Every
section gets the shortest ``anchor`` that reads exactly it, checked against the same rule, so the
outline's calls and a search result's calls always land. Nothing here touches the filesystem.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from .errors import SectionNotFound
from .frontmatter import prose_lines
from .phrases import read
from .values import OutlineEntry

_ATX = re.compile(r" {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*")
_POSITION = re.compile(r"(.*?)\s*\[(\d{1,4})\]")
_FORMATTING = str.maketrans("", "", "*`")
MAX_NEAREST = 3


def heading_key(text: str) -> str:
    """How a heading or a request for one compares: case, emphasis, spacing and end punctuation
    ignored. A heading of nothing but marks (``## ***``) compares by its marks."""
    words = " ".join(text.translate(_FORMATTING).casefold().split())
    start, end = 0, len(words)
    while start < end and not words[start].isalnum():
        start += 1
    while end > start and not words[end - 1].isalnum():
        end -= 1
    return words[start:end] or " ".join(text.casefold().split())


def _headings(lines: Sequence[str], first_line: int) -> list[tuple[int, int, str]]:
    """``(1-based line, level, title)`` of the ATX headings in ``lines`` outside code."""
    found = []
    for number, line in prose_lines(lines):
        if "#" not in line[:4]:
            continue
        match = _ATX.fullmatch(line)
        if match and match.group(2).strip():
            found.append((first_line + number, len(match.group(1)), match.group(2).strip()))
    return found


def outline_of(body: str, first_line: int, total_lines: int) -> tuple[OutlineEntry, ...]:
    """The outline of a doc whose ``body`` (the text after its frontmatter) starts at file line
    ``first_line`` (1-based), in a file of ``total_lines`` lines."""
    found = _headings(body.split("\n"), first_line)
    paths: list[tuple[str, ...]] = []
    stack: list[tuple[int, str]] = []
    for _, level, title in found:
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        paths.append(tuple(t for _, t in stack))
    ends = []
    for n, (_, level, _) in enumerate(found):
        following = next((line for line, lvl, _ in found[n + 1 :] if lvl <= level), total_lines + 1)
        ends.append(following - 1)
    keys = [tuple(heading_key(t) for t in path) for path in paths]
    entries = []
    for n, (line, level, title) in enumerate(found):
        anchor = _anchor(keys, paths, n)
        end = max(ends[n], line)
        entries.append(OutlineEntry(level, title, paths[n], anchor, line, end, end - line + 1))
    return tuple(entries)


def _matches(keys: Sequence[tuple[str, ...]], selector: str) -> list[int]:
    """Indices of the headings ``selector`` names, in document order (see the module's rules)."""
    named, position = selector, None
    found = _POSITION.fullmatch(selector)
    if found:
        named, position = found.group(1), int(found.group(2))
    matched = _named(keys, named)
    if position is not None:
        return matched[position - 1 : position] if 1 <= position <= len(matched) else []
    return matched


def _named(keys: Sequence[tuple[str, ...]], named: str) -> list[int]:
    """Indices of the headings ``named`` names by text or path (no position), in document order."""
    whole = heading_key(named)
    matched = [n for n, key in enumerate(keys) if whole and key[-1] == whole]
    if not matched and "/" in named:
        parts = [heading_key(part) for part in named.split("/")]
        if all(parts):
            matched = [
                n for n, key in enumerate(keys) if key[-1] == parts[-1] and _within(parts[:-1], key[:-1])
            ]
    return matched


def _within(wanted: Sequence[str], ancestors: Sequence[str]) -> bool:
    """Whether ``wanted`` are among ``ancestors`` in that order (names may be skipped)."""
    remaining = iter(ancestors)
    return all(any(name == ancestor for ancestor in remaining) for name in wanted)


def _anchor(keys: Sequence[tuple[str, ...]], paths: Sequence[tuple[str, ...]], n: int) -> str:
    """The shortest selector that names heading ``n`` alone: its title, then with more of the path
    above it, then by position."""
    path = paths[n]
    for depth in range(len(path)):
        candidate = "/".join(path[len(path) - 1 - depth :])
        if _matches(keys, candidate) == [n]:
            return candidate
    for candidate in (path[-1], "/".join(path)):
        same = _named(keys, candidate)  # a title like "Step [2]" is a name here, not a position
        if n in same:
            positioned = f"{candidate}[{same.index(n) + 1}]"
            if _matches(keys, positioned) == [n]:
                return positioned
    return path[-1]


def find_section(doc_id: str, outline: Sequence[OutlineEntry], selector: str) -> tuple[int, tuple[str, ...]]:
    """The outline index of the section ``selector`` names, and the anchors of any other section
    it matched too (the first in document order is the one read). Refused with the nearest
    headings and the outline call when nothing matches."""
    keys = [tuple(heading_key(t) for t in entry.path) for entry in outline]
    matched = _matches(keys, selector)
    if matched:
        return matched[0], tuple(outline[n].anchor for n in matched[1:])
    raise _unknown(doc_id, outline, keys, selector)


def _unknown(
    doc_id: str, outline: Sequence[OutlineEntry], keys: Sequence[tuple[str, ...]], selector: str
) -> SectionNotFound:
    listing = read(f"{doc_id}#")
    if not outline:
        return SectionNotFound(
            f"{doc_id!r} has no headings, so it has no section {selector!r}: {read(doc_id)} reads it whole."
        )
    found = _POSITION.fullmatch(selector)
    if found and _matches(keys, found.group(1)):
        count = len(_matches(keys, found.group(1)))
        return SectionNotFound(
            f"{doc_id!r} has {count} section{'s' if count > 1 else ''} named {found.group(1)!r}, so there "
            f"is no [{found.group(2)}]. {listing} lists every section with the call that reads it."
        )
    wanted = heading_key(selector.rsplit("/", 1)[-1])
    titles = {key[-1]: n for n, key in reversed(list(enumerate(keys)))}
    close = difflib.get_close_matches(wanted, list(titles), n=MAX_NEAREST, cutoff=0.5)
    close += [k for k in titles if wanted and wanted in k and k not in close]
    nearest = [outline[titles[key]].anchor for key in close[:MAX_NEAREST]]
    if not nearest:
        nearest = [entry.anchor for entry in outline if entry.level == min(e.level for e in outline)]
        nearest = nearest[:MAX_NEAREST] if len(outline) > 1 else nearest
    calls = ", ".join(read(f"{doc_id}#{anchor}") for anchor in nearest)
    return SectionNotFound(
        f"No section {selector!r} in {doc_id!r}. Nearest: {calls}. {listing} lists all {len(outline)} "
        "sections with the call that reads each."
    )


def line_starts(text: str) -> list[int]:
    """Where each line of ``text`` starts: ``starts[n]`` is the offset of 1-based line ``n + 1``."""
    starts = [0]
    position = text.find("\n")
    while position != -1:
        starts.append(position + 1)
        position = text.find("\n", position + 1)
    return starts


def section_text(text: str, starts: Sequence[int], entry: OutlineEntry) -> str:
    """The lines of ``entry``'s section as they are in ``text`` (``starts``: its ``line_starts``)."""
    end = starts[entry.end] if entry.end < len(starts) else len(text)
    return text[starts[entry.line - 1] : end]


def section_at(outline: Sequence[OutlineEntry], line: int) -> OutlineEntry | None:
    """The innermost section holding 1-based ``line``, or None before the first heading."""
    found = None
    for entry in outline:
        if entry.line > line:
            break
        if entry.end >= line:
            found = entry
    return found
