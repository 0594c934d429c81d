"""The half of the index that needs the store (§2, §4): markers and the two tails.

An entry whose file exists in neither tier is ``missing``; one that shadows a shipped doc is a
``local copy``. The new-docs tail lists shipped docs with neither an entry nor an ignored:
mention; the stale tail lists shadowed ids whose shipped text changed at the last version bump.
Neither tail is truncated: both are bounded by what one release adds.
"""

from __future__ import annotations

import time

from .frontmatter import describe, parse_frontmatter
from .ids import INDEX_ID, is_banked, is_collection_id
from .index import ENTRY_CAP, MARKER_TEXT, ParsedIndex
from .manifest import changed_shipped_ids
from .store import DocFile, Store, Tier
from .values import IndexEntryView, IndexView, Marker, TailItem


def rendered_lines(view: IndexView) -> list[str]:
    """The lines the rendering shows that index.md does not hold: marked entries and tail items."""
    lines = view.text.split("\n")
    marked = [f"{lines[e.line].rstrip()} {MARKER_TEXT[e.marker]}" for e in view.entries if e.marker]
    tails = [f"- {item.id}: {item.description}" for item in (*view.new_shipped, *view.stale)]
    return marked + tails


_dates: dict[int, str] = {}


def mtime_date(doc: DocFile) -> str:
    """The file's modification date, ``YYYY-MM-DD`` in local time (formatted once per second)."""
    second = int(doc.mtime)
    date = _dates.get(second)
    if date is None:
        date = time.strftime("%Y-%m-%d", time.localtime(doc.mtime))
        if len(_dates) > 4096:
            _dates.clear()
        _dates[second] = date
    return date


def updated_of(doc: DocFile) -> str:
    """The frontmatter's ``updated``, else the file's modification date (§1)."""
    return parse_frontmatter(doc.text).text("updated") or mtime_date(doc)


def shipped_description(store: Store, doc_id: str) -> str:
    doc = store.read(Tier.SHIPPED, doc_id)
    return describe(doc_id, doc.text).description if doc else ""


def new_shipped_ids(shipped: list[str], parsed: ParsedIndex) -> list[str]:
    """Shipped ids the index neither files (an entry, or a listed collection above it) nor ignores."""
    return [i for i in shipped if not parsed.files(i) and i not in parsed.ignored]


def _marker(store: Store, shipped: frozenset[str], doc_id: str) -> Marker | None:
    if doc_id == INDEX_ID or is_collection_id(doc_id):
        return None
    local = store.exists(Tier.LOCAL, doc_id)
    # Banked ids are not in the listing; an entry naming one (a promotion) is probed.
    in_shipped = doc_id in shipped or (is_banked(doc_id) and store.exists(Tier.SHIPPED, doc_id))
    if local and in_shipped:
        return "local copy"
    if not local and not in_shipped:
        return "missing"
    return None


def index_view(store: Store, index: DocFile, parsed: ParsedIndex, notices: tuple[str, ...] = ()) -> IndexView:
    """The index ``index`` (already parsed) with its markers and both tails."""
    shipped = store.shipped_ids()
    shipped_set = frozenset(shipped)
    entries = tuple(
        IndexEntryView(
            id=entry.doc_id,
            hook=entry.hook,
            heading=entry.heading,
            line=entry.line_number,
            marker=_marker(store, shipped_set, entry.doc_id),
            collection=is_collection_id(entry.doc_id),
        )
        for entry in parsed.entries
    )
    new = tuple(TailItem(i, shipped_description(store, i)) for i in new_shipped_ids(shipped, parsed))
    stale_ids = sorted(
        i for i in changed_shipped_ids(store) if store.exists(Tier.SHIPPED, i) and store.exists(Tier.LOCAL, i)
    )
    stale = tuple(TailItem(i, shipped_description(store, i)) for i in stale_ids)
    return IndexView(
        text=index.text,
        sha256=index.sha256,
        updated=updated_of(index),
        path=index.path,
        tier=index.tier.value,
        entries=entries,
        headings=tuple(line for _, line in parsed.headings),
        ignored=parsed.ignored_in_order,
        ignored_lines=parsed.ignored_line_numbers,
        new_shipped=new,
        stale=stale,
        entry_cap=ENTRY_CAP,
        notices=notices,
    )
