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

from .errors import InternalError
from .history_values import Author, HistoryView, VersionDiffView, VersionInfo, VersionView
from .ids import relative_doc_path
from .skill_values import ExportedSkill, ImportedSkill, SkillExport, SkillImport, SkillNote

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
    links: tuple[str, ...]  # the [[id]] and [[id#heading]] links it makes, in order, each once
    path: str
    sections: int = 0  # how many headings it has: read_doc("<id>#") outlines them (§7)


@dataclass(frozen=True)
class OutlineEntry:
    """One heading of a doc and the section it opens (§7): through the line before the next
    heading of the same or a higher level. Lines are the file's, 1-based, frontmatter included."""

    level: int  # 1 for '#', 2 for '##', ...
    title: str  # the heading's text, without its '#' marks
    path: tuple[str, ...]  # the titles of the headings it sits under, outermost first, then its own
    anchor: str  # what follows '#' in a read of exactly this section: 'Steps/Confirm input', 'Example[2]'
    line: int  # the heading's line
    end: int  # the section's last line
    line_count: int


@dataclass(frozen=True)
class OutlineView:
    """Every heading of a doc with its line count: ``read_doc("<id>#")``."""

    id: str
    tier: Tier
    title: str
    updated: str
    shadows_shipped: bool
    sha256: str
    lines: int  # the whole file's
    entries: tuple[OutlineEntry, ...]
    path: str


@dataclass(frozen=True)
class SectionView:
    """One section of a doc, ``read_doc("<id>#<heading>")``: its heading line through the line
    before the next heading of the same or a higher level."""

    id: str
    tier: Tier
    title: str  # the doc's
    updated: str
    shadows_shipped: bool
    sha256: str  # of the whole file: what a write's if_match names
    lines: int  # the whole file's
    section: OutlineEntry
    position: int  # 1-based place of the section in the outline
    of: int  # how many sections the doc has
    also: tuple[str, ...]  # anchors of other sections the request matched (the first one is read)
    text: str
    path: str


@dataclass(frozen=True)
class CollectionItem:
    id: str
    hook: str  # the index entry's hook when the doc has one, else the doc's description
    tier: Tier
    shadows_shipped: bool


@dataclass(frozen=True)
class CollectionView:
    """The docs under a ``<id>/`` collection (§7): ``read_doc("segment/")``."""

    id: str  # ends with '/'
    hook: str | None  # the collection line's own hook; None when the index has no such line
    listed: bool  # whether the index has a '- <id>/:' line
    heading: str | None  # the heading the collection line sits under
    items: tuple[CollectionItem, ...]


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
class SearchLine:
    line: int  # 1-based, in the file
    text: str  # the line (cut around the first match when long)
    spans: tuple[tuple[int, int], ...]  # [start, end) of each match in ``text``


@dataclass(frozen=True)
class SearchGroup:
    """Matching lines of one doc under one heading (the index, or before any heading: none)."""

    id: str
    path: tuple[str, ...]  # the heading path the lines sit under, outermost first; () for none
    anchor: str | None  # what follows '#' to read that section; None: read the doc whole
    section_line: int | None  # the heading's line
    lines: tuple[SearchLine, ...]


@dataclass(frozen=True)
class SearchResult:
    """``search_docs``: matching lines grouped by doc and section, grep-shaped (§7)."""

    query: str
    regex: bool
    case_sensitive: bool
    docs_searched: int
    groups: tuple[SearchGroup, ...]
    matching_lines: int  # every matching line found, shown or not
    matching_docs: int
    more_lines: int  # matching lines left out by the caps
    more_docs: int  # docs with a matching line left out
    counted_all: bool  # False: counting stopped at a cap, so the counts are lower bounds
    skipped: tuple[tuple[str, str], ...]  # (id, why) of files that could not be searched
    line_cap_per_doc: int
    line_cap: int


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
class IndexMove:
    """The old/new edit of the index that files a created doc under one of its own headings."""

    heading: str  # where the entry would go, as written in the index ('## Procedures')
    old: str
    new: str
    removes_unfiled: bool  # the entry was ## Unfiled's only one, so the edit removes that heading


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
    # An old/new edit of the index quoted from its rendering: the markers ('(local copy)') it
    # carried, which the file does not hold and the edit was applied without.
    rendered_markers: tuple[str, ...] = ()
    # A created doc filed under ## Unfiled: the edit that moves its entry under a heading of the
    # index's own (§2: the store never moves it by itself).
    move: IndexMove | None = None
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


Read = DocView | IndexView | DiffView | OutlineView | SectionView | CollectionView | HistoryView | VersionView


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
    # The two texts the hunks lie between, from the same reading (a side-by-side view needs both):
    baseline: str | None = None  # what the hunks are against (None: a new doc, nothing before)
    text: str = ""  # the current text, whose sha256 is ``sha256``


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
        OutlineEntry,
        OutlineView,
        SectionView,
        CollectionItem,
        CollectionView,
        SearchLine,
        SearchGroup,
        SearchResult,
        IndexEntryView,
        TailItem,
        IndexView,
        DiffView,
        FileChange,
        IndexMove,
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
        SkillNote,
        ExportedSkill,
        SkillExport,
        ImportedSkill,
        SkillImport,
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
        missing = [f.name for f in dataclasses.fields(cls) if f.name not in data and not _has_default(f)]
        if missing:
            raise InternalError(
                f"A {data['type']} arrived without its {', '.join(missing)}: the two sides of the "
                "kernel bridge disagree on the fields of one value. Install one release of "
                "biopb-kernel-docs on both sides and restart the kernel; if they already are one "
                "release, this is a bug: please report it."
            )
        hints = typing.get_type_hints(cls)
        return cls(
            **{
                f.name: _field_from_json(hints[f.name], data[f.name])
                for f in dataclasses.fields(cls)
                if f.name in data or not _has_default(f)  # a peer one release older omits new fields
            }
        )
    return data


def _has_default(field: dataclasses.Field) -> bool:
    return field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING


def _field_from_json(hint: Any, data: Any) -> Any:
    if typing.get_origin(hint) is tuple and isinstance(data, list):
        item = typing.get_args(hint)[0]
        return tuple(_field_from_json(item, element) for element in data)
    if isinstance(hint, types.UnionType):
        return from_json(data) if isinstance(data, dict) else data
    return from_json(data)
