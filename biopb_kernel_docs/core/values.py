"""What the operations return: frozen values every surface renders its own way.

No surface parses another's text: the agent's prose (``render``), a notebook's Markdown
(``notebook``), the REST API's JSON and the panel all start from these. ``to_json`` and
``from_json`` carry them across the kernel wire and the REST API unchanged.
"""

from __future__ import annotations

import dataclasses
import difflib
import types
import typing
from dataclasses import dataclass
from typing import Any, Literal

from .ids import relative_doc_path

Tier = Literal["shipped", "local"]
Marker = Literal["missing", "local copy"]


@dataclass(frozen=True)
class DocView:
    """One doc as read: the effective file (a local copy wins over shipped)."""

    id: str
    tier: Tier
    title: str
    description: str
    updated: str  # the frontmatter's updated:, else the file's modification date
    shadows_shipped: bool
    sha256: str  # of the file's bytes: what a write's if_match names
    text: str  # the whole file, with '\n' line ends
    body: str  # the text after its frontmatter
    frontmatter: tuple[tuple[str, str], ...]  # (key, value as written), in file order
    links: tuple[str, ...]  # the [[id]] links it makes, in order, each once
    path: str


@dataclass(frozen=True)
class IndexEntryView:
    id: str
    hook: str
    heading: str | None
    line: int  # 0-based line of index.md
    marker: Marker | None
    collection: bool


@dataclass(frozen=True)
class TailItem:
    id: str
    description: str  # the shipped doc's, since that is what the release says of it


@dataclass(frozen=True)
class IndexView:
    """The index file and what the loader knows that the file cannot (§2)."""

    text: str
    sha256: str
    updated: str
    path: str
    tier: Tier  # "shipped" only when the local tier could not be seeded (see notices)
    entries: tuple[IndexEntryView, ...]
    headings: tuple[str, ...]
    ignored: tuple[str, ...]
    ignored_lines: tuple[int, ...]  # 0-based lines of index.md that start with ignored:
    new_shipped: tuple[TailItem, ...]
    stale: tuple[TailItem, ...]
    entry_cap: int
    notices: tuple[str, ...]  # loader messages about the index itself (a fallback, a recovery)

    @property
    def entry_count(self) -> int:
        return len(self.entries)


@dataclass(frozen=True)
class DiffView:
    """A local copy against the shipped text it shadows (§3: both current; no history is kept)."""

    id: str
    local_sha256: str
    shipped_sha256: str
    local_text: str
    shipped_text: str

    @property
    def identical(self) -> bool:
        return self.local_text == self.shipped_text

    def diff(self) -> str:
        return unified_diff(self.shipped_text, self.local_text, self.id, "shipped", "local")


@dataclass(frozen=True)
class FileChange:
    """One file a write changed (or, with ``before == after``, left alone)."""

    id: str
    before: str | None  # None: the file did not exist (for a shadow: the shipped text is ``base``)
    after: str
    before_sha256: str | None
    after_sha256: str
    base_tier: Tier | None  # where ``before`` came from
    version: int | None = None  # the version of this file's history the write recorded

    def diff(self) -> str:
        label = "shipped" if self.base_tier == "shipped" else "before"
        return unified_diff(
            self.before, self.after, self.id, label, "after" if self.id == "index" else "local"
        )


@dataclass(frozen=True)
class LostEntry:
    """An index entry an index write removed, or left in a line that no longer parses as one."""

    id: str
    line: int | None  # 0-based line of the new index.md still naming it (None: the line is gone)
    text: str | None  # that line as it now reads


@dataclass(frozen=True)
class Shrink:
    """A body write that more than halved a doc, and the version that holds the old text."""

    lines_before: int
    lines_after: int
    chars_before: int
    chars_after: int
    version: int | None  # the version to restore (None: history is off)


@dataclass(frozen=True)
class WriteResult:
    id: str
    outcome: Literal["created", "shadowed", "updated", "unchanged", "removed"]
    filed_under: str | None  # the heading a created doc's new entry went under
    already_listed: bool  # a created doc the index already had an entry for
    changes: tuple[FileChange, ...]  # the doc first, then the index when it was filed
    lost_entries: tuple[LostEntry, ...] = ()  # an index write: entries it removed or broke
    shrink: Shrink | None = None
    restored: int | None = None  # the version a restore put back

    @property
    def sha256(self) -> str | None:
        """The sha256 of the doc as it now is: the next write's if_match."""
        return self.changes[0].after_sha256 if self.changes else None


@dataclass(frozen=True)
class Setting:
    name: str
    value: str
    source: str  # "default", "command line", a config file's path, "kernel config", ...


@dataclass(frozen=True)
class ConfigView:
    local_dir: str
    shipped_dir: str
    shipped_version: str
    package_version: str
    settings: tuple[Setting, ...]
    config_files: tuple[str, ...]  # the shared config files found, highest precedence first
    user_config_file: str  # where the README says to set a value once for every surface


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
        return unified_diff(self.older_text, self.newer_text, self.id, f"v{self.older}", newer)


Read = DocView | IndexView | DiffView | HistoryView | VersionView


@dataclass(frozen=True)
class Hunk:
    index: int
    header: str
    lines: tuple[str, ...]  # ' ' context, '-' removed, '+' added
    versions: tuple[int, ...] = ()  # the versions that made it (empty: before history was kept)


@dataclass(frozen=True)
class ReviewItem:
    """One doc that changed since the user last reviewed it, or a local copy worth dropping."""

    id: str
    sha256: str  # of the current text: what marking reviewed or reverting is based on
    base: Literal["reviewed", "shipped", "new"]  # what the hunks are against
    hunks: tuple[Hunk, ...]
    changes: tuple[VersionInfo, ...] = ()  # who changed it and when: the versions its hunks came from
    actions: tuple[str, ...] = ()  # what the panel offers: looks_good, revert, retire, drop
    same_as_shipped: bool = False  # a local copy whose text equals the shipped text


@dataclass(frozen=True)
class ReviewView:
    items: tuple[ReviewItem, ...]


@dataclass(frozen=True)
class HandshakeView:
    """The instructions a host with a character budget receives, and the entries it misses."""

    budget: int | None
    text: str
    length: int
    left_out: tuple[str, ...]


def unified_diff(before: str | None, after: str, doc_id: str, from_label: str, to_label: str) -> str:
    name = str(relative_doc_path(doc_id))
    lines = difflib.unified_diff(
        (before or "").splitlines(),
        after.splitlines(),
        fromfile="/dev/null" if before is None else f"a/{name} ({from_label})",
        tofile=f"b/{name} ({to_label})",
        lineterm="",
    )
    return "\n".join(lines)


# -- JSON ------------------------------------------------------------------------------------------

VALUE_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        DocView,
        IndexEntryView,
        TailItem,
        IndexView,
        DiffView,
        FileChange,
        LostEntry,
        Shrink,
        WriteResult,
        Author,
        VersionInfo,
        HistoryView,
        VersionView,
        VersionDiffView,
        Setting,
        ConfigView,
        Hunk,
        ReviewItem,
        ReviewView,
        HandshakeView,
    )
}


def to_json(value: Any) -> Any:
    """A value as JSON-ready data; a dataclass carries its type name under ``"type"``."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"type": type(value).__name__, **data}
    if isinstance(value, tuple | list):
        return [to_json(item) for item in value]
    return value


def from_json(data: Any) -> Any:
    """The value ``to_json`` made; a dict without a known ``"type"`` stays a dict."""
    if isinstance(data, dict) and data.get("type") in VALUE_TYPES:
        cls = VALUE_TYPES[data["type"]]
        hints = typing.get_type_hints(cls)
        # A field the other side does not know yet (an older peer) takes its default.
        return cls(
            **{
                f.name: _field_from_json(hints[f.name], data[f.name])
                for f in dataclasses.fields(cls)
                if f.name in data
                or (f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
            }
        )
    return data


def _field_from_json(hint: Any, data: Any) -> Any:
    if typing.get_origin(hint) is tuple and isinstance(data, list):
        item = typing.get_args(hint)[0]
        return tuple(_field_from_json(item, element) for element in data)
    if isinstance(hint, types.UnionType):
        return from_json(data) if isinstance(data, dict) else data
    return from_json(data)
