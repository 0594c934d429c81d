"""What a doc's bytes yield, worked out once per distinct bytes (§1: the bytes are read every time).

Every read reads the file; only what is computed from its bytes (the sha256, the frontmatter, the
title and description, the links, the outline, where each line starts) is kept, keyed by the path
and checked against the very bytes just read: a file whose bytes changed in any way, whatever its
mtime says, is worked out afresh. The cache holds the bytes it compares against, at most
``MAX_DOCS`` files, the one worked out longest ago dropped first.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from functools import cached_property

from .frontmatter import Frontmatter, describe, links_of, parse_frontmatter
from .sections import line_starts, outline_of
from .values import OutlineEntry

MAX_DOCS = 1024


class Derived:
    """The derived facts of one doc's bytes (``text`` is those bytes decoded, '\\n' line ends)."""

    def __init__(self, doc_id: str, data: bytes, text: str) -> None:
        self.doc_id = doc_id
        self.data = data
        self.text = text
        self.views: dict[tuple, object] = {}  # values built from these facts, by what else they hold

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @cached_property
    def frontmatter(self) -> Frontmatter:
        return parse_frontmatter(self.text)

    @cached_property
    def info(self):
        return describe(self.doc_id, self.text, self.frontmatter)

    @cached_property
    def links(self) -> tuple[str, ...]:
        return links_of(self.text)

    @cached_property
    def line_count(self) -> int:
        text = self.text
        return text.count("\n") + (1 if text and not text.endswith("\n") else 0)

    @cached_property
    def line_starts(self) -> list[int]:
        return line_starts(self.text)

    @cached_property
    def byte_line_starts(self) -> list[int]:
        """``line_starts`` in the bytes (where an RE2 search reports its matches)."""
        data, starts = self.data, [0]
        position = data.find(b"\n")
        while position != -1:
            starts.append(position + 1)
            position = data.find(b"\n", position + 1)
        return starts

    @cached_property
    def outline(self) -> tuple[OutlineEntry, ...]:
        body = self.frontmatter.body
        first_line = self.text.count("\n", 0, len(self.text) - len(body)) + 1
        return outline_of(body, first_line, self.line_count)


_cache: dict[str, Derived] = {}
_lock = threading.Lock()


def derived(path: str, doc_id: str, data: bytes, text: Callable[[], str]) -> Derived:
    """The facts of ``data`` (read from ``path`` as doc ``doc_id``), from the cache when the bytes
    are the ones it holds; ``text()`` gives them decoded, asked for only when they are not."""
    found = _cache.get(path)
    if found is not None and found.doc_id == doc_id and (found.data is data or found.data == data):
        return found
    made = Derived(doc_id, data, text())
    with _lock:
        _cache.pop(path, None)
        _cache[path] = made
        while len(_cache) > MAX_DOCS:
            del _cache[next(iter(_cache))]
    return made
