"""A doc's history as values: who made a version, the versions kept, one version, two compared.

Part of ``values`` (which registers these in ``VALUE_TYPES`` and names them in ``Read``), kept
apart as the history's own concern; import them from either module.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Author:
    """Who made a version: the surface, and what it knows of the writer.

    ``surface``: ``mcp`` (``name``/``version``: the client's declared ones), ``magic`` (``where``:
    the kernel id), ``panel`` (``name``: the Jupyter user), ``cli``, ``python`` (the API in a
    script), ``loader`` (seeding the index); or what the store saw on disk: ``outside`` (an edit
    made outside the store), ``earlier`` (a local text from before history was kept),
    ``shipped`` (the shipped text a first local copy replaced).
    """

    surface: str
    name: str | None = None
    version: str | None = None
    where: str | None = None


@dataclass(frozen=True)
class VersionInfo:
    """One kept version of a doc: what a history lists."""

    number: int
    time: float  # seconds since the epoch
    author: Author
    before_sha256: str | None  # the text the id read as before (None: no doc)
    after_sha256: str | None  # the text it reads as after (None: no doc at all)
    added: int  # lines, against the text before
    removed: int
    lines: int
    size: int  # bytes on disk
    kept: bool  # the text is kept (False: it alone was over the byte bound)
    local: bool  # a local file holds the text (False: the shipped text shows through)
    restores: int | None  # the version this one put back
    current: bool  # what the id reads as now


@dataclass(frozen=True)
class HistoryView:
    """A doc's kept versions, newest first, and the bounds that keep them."""

    id: str
    versions: tuple[VersionInfo, ...]
    sha256: str | None  # of the current text: a restore's if_match
    max_versions: int
    max_bytes: int
    size: int  # bytes the kept versions take
    enabled: bool  # False: history is turned off (DocStore.history_max_versions = 0)


@dataclass(frozen=True)
class VersionView:
    """One version's text, and what the history says of it."""

    id: str
    version: VersionInfo
    text: str | None  # None: not kept (over the byte bound), or no doc at all
    previous: int | None  # the kept version before it


@dataclass(frozen=True)
class VersionDiffView:
    """Two states of a doc: two versions, or a version and the current text."""

    id: str
    older: int
    newer: int | None  # None: the current text
    older_text: str
    newer_text: str

    def diff(self) -> str:
        newer = f"v{self.newer}" if self.newer is not None else "current"
        from .values import unified_diff  # values imports this module for its registry

        return unified_diff(self.older_text, self.newer_text, self.id, f"v{self.older}", newer)
