"""search_docs (§7): a grep-shaped search over what the index offers, for a troubleshooting question
that starts from a literal (an exception name, a config key, a log line).

Scope: the docs the index lists, the docs under a collection it lists (both resolved as a read
resolves them: a local copy shadows its shipped doc), and the index file itself. Banked, ignored and
unlisted docs stay out, so a banked doc stays unannounced (§1) and the bench's ablated arm blind (§6).

A query is literal and case-insensitive unless it holds an upper-case letter; with ``regex`` it is
an RE2 pattern, run by an engine whose time is linear in the text (it cannot backtrack), so no
pattern can hang the shared kernel. Matches never span lines. Results are matching lines grouped by
doc and by the section they sit in, at most ``LINES_PER_DOC`` lines a doc and ``LINES_IN_ALL`` in
all. A file is read again only when its (mtime_ns, size, inode) moved; one that cannot be read as a
doc (not UTF-8, not a regular file, a link out of its tier) is skipped and counted.
"""

from __future__ import annotations

import bisect
import itertools
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .derived import Derived
from .errors import DocsError, InvalidArguments
from .ids import INDEX_ID, is_banked, is_collection_id
from .index import ParsedIndex, parse_index
from .phrases import argument
from .sections import section_at
from .seeding import index_file
from .store import Store, Tier
from .values import OutlineEntry, SearchGroup, SearchLine, SearchResult

MAX_QUERY_LENGTH = 1000
LINES_PER_DOC = 8
LINES_IN_ALL = 40
LINE_WIDTH = 240  # a longer matching line is shown cut around its first match
MAX_COUNTED_LINES = 10_000  # past this many matching lines, counting stops (the result says so)
_ESCAPE = re.compile(r"\\.")


@dataclass(frozen=True)
class Query:
    text: str
    regex: bool
    case_sensitive: bool
    pattern: Any  # the compiled RE2 pattern, or None for a literal
    needle: str  # a literal as it is sought (lower-cased unless case-sensitive)

    def find(self, haystack: str | bytes) -> Iterator[int]:
        """The offset of the first match on each matching line of ``haystack``, in order (a pattern
        searches the file's bytes, encoded once, so offsets are bytes there)."""
        newline = "\n" if isinstance(haystack, str) else b"\n"
        if self.pattern is not None:
            # One search per matching line, resumed at the next line: a line's later matches are
            # never built (each match object costs more than the scan that finds it).
            match = self.pattern.search(haystack, 0)
            while match is not None:
                start = match.start()
                yield start
                line_end = haystack.find(newline, start)  # type: ignore[arg-type]
                if line_end == -1:
                    return
                match = self.pattern.search(haystack, line_end + 1)
            return
        search = self._literal
        found = search(haystack, 0)
        while found != -1:
            yield found
            line_end = haystack.find(newline, found)  # type: ignore[arg-type]
            if line_end == -1:
                return
            found = search(haystack, line_end + 1)

    def _literal(self, haystack: str, start: int) -> int:
        return haystack.find(self.needle, start)

    def spans(self, line: str) -> tuple[tuple[int, int], ...]:
        """Where the query matches in ``line`` (for highlighting), at most 20."""
        if self.pattern is not None:
            matches = (m.span() for m in self.pattern.finditer(line) if m.end() > m.start())
            return tuple(itertools.islice(matches, 20))
        haystack = line if self.case_sensitive else line.lower()
        if len(haystack) != len(line):
            return ()
        spans = []
        position = haystack.find(self.needle)
        while position != -1 and len(spans) < 20:
            spans.append((position, position + len(self.needle)))
            position = haystack.find(self.needle, position + len(self.needle))
        return tuple(spans)


def check_query(query: object, regex: object = False) -> Query:
    """The query, checked; refusals say what to send instead."""
    if not isinstance(query, str):
        raise InvalidArguments(f"{argument('query')} must be a string, not {type(query).__name__}.")
    if not isinstance(regex, bool):
        raise InvalidArguments(f"{argument('regex')} is true or false, not {regex!r}.")
    if not query.strip():
        raise InvalidArguments(
            f"{argument('query')} is empty. Give the text to find, such as an error's name or a setting."
        )
    if len(query) > MAX_QUERY_LENGTH:
        raise InvalidArguments(
            f"{argument('query')} is {len(query):,} characters long; the limit is {MAX_QUERY_LENGTH:,}. "
            "Search for the most telling part of it: an exception's name, a key, a few words of the line."
        )
    if "\x00" in query:
        raise InvalidArguments(f"{argument('query')} holds a NUL character, which no doc line contains.")
    if "\n" in query or "\r" in query:
        raise InvalidArguments(
            f"{argument('query')} spans lines, and a match never does. Search for one line of it."
        )
    try:
        query.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArguments(
            f"{argument('query')} holds a lone surrogate, which no doc line contains. Re-encode it as UTF-8."
        ) from None
    if regex:
        case_sensitive = any(c.isupper() for c in _ESCAPE.sub("", query))
        return Query(query, True, case_sensitive, _compiled(query, case_sensitive), "")
    case_sensitive = any(c.isupper() for c in query)
    return Query(query, False, case_sensitive, None, query if case_sensitive else query.lower())


def _compiled(pattern: str, case_sensitive: bool) -> Any:
    import re2  # google-re2: linear time whatever the pattern

    options = re2.Options()
    options.case_sensitive = case_sensitive
    options.never_nl = True  # a match never spans lines, whatever the pattern says
    options.log_errors = False
    try:
        compiled = re2.compile(f"(?m){pattern}", options)
    except re2.error as err:
        problem = err.args[0].decode() if err.args and isinstance(err.args[0], bytes) else str(err)
        raise InvalidArguments(
            f"{argument('query')} is not a pattern RE2 accepts ({problem}). RE2 has no backreferences "
            f"or lookaround; or search for the text literally, without {argument('regex')}."
        ) from None
    if compiled.search("") is not None:
        raise InvalidArguments(
            f"The pattern {pattern!r} matches an empty string, so it would match every line. Give it at "
            "least one character that must be there (for example 'x+' rather than 'x*')."
        )
    return compiled


# -- the files, read again only when they moved ----------------------------------------------------


class _Entry:
    __slots__ = ("facts", "lowered", "signature")

    def __init__(self, signature: tuple[int, int, int], facts: Derived) -> None:
        self.signature = signature
        self.facts = facts
        lowered = facts.text.lower()  # once per file version: every case-insensitive search uses it
        # Lower-casing keeps offsets in step for nearly all text; where it does not, lines are
        # lowered one at a time (see _matching_lines).
        self.lowered = lowered if len(lowered) == len(facts.text) else None


_cache: dict[str, _Entry] = {}
_cache_lock = threading.Lock()
MAX_CACHED_FILES = 4096


def _load(store: Store, tier: Tier, doc_id: str, path: str, signature: tuple[int, int, int]) -> _Entry | None:
    cached = _cache.get(path)
    if cached is not None and cached.signature == signature and cached.facts.doc_id == doc_id:
        return cached
    doc = store.read(tier, doc_id)
    if doc is None:
        return None
    entry = _Entry(signature, Derived(doc_id, doc.data, doc.text))
    with _cache_lock:
        _cache.pop(path, None)
        _cache[path] = entry
        while len(_cache) > MAX_CACHED_FILES:
            del _cache[next(iter(_cache))]
    return entry


# -- the scope ---------------------------------------------------------------------------------------


def scope_ids(store: Store, parsed: ParsedIndex) -> list[str]:
    """The docs a search covers besides the index: listed, or under a listed collection; neither
    banked nor ignored; in index order, then collection by collection."""
    ids: dict[str, None] = {}
    for entry in parsed.entries:
        doc_id = entry.doc_id
        if doc_id == INDEX_ID or doc_id in parsed.ignored:
            continue
        if is_collection_id(doc_id):
            under = set(store.ids_under(Tier.SHIPPED, doc_id)) | set(store.ids_under(Tier.LOCAL, doc_id))
            ids.update((i, None) for i in sorted(under) if not is_banked(i) and i not in parsed.ignored)
        elif not is_banked(doc_id) or store.exists(Tier.SHIPPED, doc_id) or store.exists(Tier.LOCAL, doc_id):
            ids[doc_id] = None  # a banked id the index names is promoted (§1)
    return list(ids)


def _resolve(store: Store, doc_id: str) -> tuple[Tier, str, tuple[int, int, int]] | None:
    for tier in (Tier.LOCAL, Tier.SHIPPED):
        found = store.signature(tier, doc_id)
        if found is not None:
            return (tier, *found)
    return None


# -- the search ----------------------------------------------------------------------------------------


def search_docs(store: Store, query: object, regex: object = False) -> SearchResult:
    """The matching lines of the docs in scope (see the module), grouped and capped."""
    checked = check_query(query, regex)
    index, _ = index_file(store, create=False)  # a read creates nothing
    parsed = parse_index(index.text)
    groups: list[SearchGroup] = []
    skipped: list[tuple[str, str]] = []
    shown = matching_lines = matching_docs = more_lines = more_docs = searched = 0
    for doc_id, entry in _sources(store, parsed, index, skipped):
        searched += 1
        room_to_count = MAX_COUNTED_LINES - matching_lines
        lines = _matching_lines(checked, entry, room_to_count)
        if not lines:
            continue
        matching_docs += 1
        matching_lines += len(lines)
        kept = lines[: min(LINES_PER_DOC, LINES_IN_ALL - shown)]
        if len(kept) < len(lines):
            more_lines += len(lines) - len(kept)
            more_docs += 1
        shown += len(kept)
        groups += _grouped(doc_id, entry.facts, kept, checked)
        if len(lines) >= room_to_count:
            break
    return SearchResult(
        query=checked.text,
        regex=checked.regex,
        case_sensitive=checked.case_sensitive,
        docs_searched=searched,
        groups=tuple(groups),
        matching_lines=matching_lines,
        matching_docs=matching_docs,
        more_lines=more_lines,
        more_docs=more_docs,
        counted_all=matching_lines < MAX_COUNTED_LINES,
        skipped=tuple(skipped),
        line_cap_per_doc=LINES_PER_DOC,
        line_cap=LINES_IN_ALL,
    )


def _sources(
    store: Store, parsed: ParsedIndex, index, skipped: list[tuple[str, str]]
) -> Iterator[tuple[str, _Entry]]:
    """The index, then each doc in scope, as cached entries; unreadable ones go to ``skipped``."""
    yield INDEX_ID, _Entry((0, 0, 0), Derived(INDEX_ID, index.data, index.text))
    for doc_id in scope_ids(store, parsed):
        try:
            found = _resolve(store, doc_id)
            entry = _load(store, found[0], doc_id, found[1], found[2]) if found else None
        except DocsError as err:
            skipped.append((doc_id, _why(err)))
            continue
        if entry is not None:  # None: listed but missing, which the index marks (missing)
            yield doc_id, entry


def _why(err: DocsError) -> str:
    text = str(err)
    if "not valid UTF-8" in text:
        return "not UTF-8"
    if "symlink" in text:
        return "a link out of its tier"
    if "not a doc file" in text or "is a folder where" in text:
        return "not a regular file"
    return "unreadable"


def _matching_lines(query: Query, entry: _Entry, limit: int) -> list[int]:
    """1-based numbers of the lines that match, at most ``limit``."""
    text = entry.facts.text
    haystack: str | bytes | None = text if query.case_sensitive else entry.lowered
    starts = entry.facts.line_starts
    if query.regex:  # RE2 matches bytes; a str would be encoded again on every call
        haystack, starts = entry.facts.data, entry.facts.byte_line_starts
    found: list[int] = []
    if haystack is not None:
        for offset in query.find(haystack):
            found.append(bisect.bisect_right(starts, offset))
            if len(found) >= limit:
                break
        return found
    for number, line in enumerate(text.split("\n"), start=1):  # lower-casing changed lengths
        if next(query.find(line.lower()), None) is not None:
            found.append(number)
            if len(found) >= limit:
                break
    return found


def _grouped(doc_id: str, facts: Derived, numbers: list[int], query: Query) -> list[SearchGroup]:
    """Consecutive lines under the same innermost section make one group. A level-one heading
    opens the whole doc, so lines directly under it group as the doc itself."""
    outline = facts.outline if doc_id != INDEX_ID else ()
    lines = facts.text.split("\n")
    groups: list[SearchGroup] = []
    current: OutlineEntry | None = None
    pending: list[SearchLine] = []
    for number in numbers:
        section = section_at(outline, number)
        if section is not None and section.level == 1:
            section = None
        if pending and section is not current:
            groups.append(_group(doc_id, current, pending))
            pending = []
        current = section
        pending.append(_shown_line(number, lines[number - 1], query))
    if pending:
        groups.append(_group(doc_id, current, pending))
    return groups


def _group(doc_id: str, section: OutlineEntry | None, lines: list[SearchLine]) -> SearchGroup:
    if section is None:
        return SearchGroup(doc_id, (), None, None, tuple(lines))
    return SearchGroup(doc_id, section.path, section.anchor, section.line, tuple(lines))


def _shown_line(number: int, line: str, query: Query) -> SearchLine:
    spans = query.spans(line)
    if len(line) <= LINE_WIDTH:
        return SearchLine(number, line, spans)
    first = spans[0][0] if spans else 0
    start = max(0, min(first - LINE_WIDTH // 3, len(line) - LINE_WIDTH))
    end = start + LINE_WIDTH
    cut = ("…" if start else "") + line[start:end] + ("…" if end < len(line) else "")
    shift = (1 if start else 0) - start
    kept = tuple((a + shift, b + shift) for a, b in spans if a >= start and b <= end)
    return SearchLine(number, cut, kept)
