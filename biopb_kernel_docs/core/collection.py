"""Collections (§7): ``read_doc("segment/")`` lists the docs whose ids start with ``segment/``.

Grouping is the index's choice, never the store's: a collection is listed when the index has a
``- segment/: <hook>`` line, and that line is one entry for the cap and the handshake. Its docs
are resolved as a read resolves them (a local copy shadows its shipped doc); banked docs and ids on
the ``ignored:`` line are left out. Each item's hook is the doc's own index entry when it has one,
else the doc's description.

A collection the index does not list is still readable when docs exist under it, and says so. One
with no doc under it reads as an empty listing when the index lists it (the line marks where docs
will go), and is refused as not found when it does not.
"""

from __future__ import annotations

import difflib

from .errors import DocNotFound, DocsError
from .ids import INDEX_ID, is_banked, is_collection_id
from .index import ParsedIndex, parse_index
from .phrases import read
from .reads import facts_of
from .seeding import index_file
from .store import Store, Tier
from .values import CollectionItem, CollectionView


def collection_ids(store: Store, collection: str, parsed: ParsedIndex) -> list[str]:
    """The ids under ``collection`` a listing shows: either tier, not banked, not ignored."""
    found = set(store.ids_under(Tier.SHIPPED, collection)) | set(store.ids_under(Tier.LOCAL, collection))
    return sorted(i for i in found if not is_banked(i) and i not in parsed.ignored)


def read_collection(store: Store, collection: str) -> CollectionView:
    """The listing of ``collection`` (an id ending in '/')."""
    index, _ = index_file(store, create=False)  # a read creates nothing
    parsed = parse_index(index.text)
    line = next((e for e in parsed.entries if e.doc_id == collection), None)
    hooks = {e.doc_id: e.hook for e in parsed.entries}
    ids = collection_ids(store, collection, parsed)
    if line is None and not ids:
        raise _unknown(store, collection, parsed)
    items = []
    for doc_id in ids:
        local = _read(store, Tier.LOCAL, doc_id)
        shipped_exists = store.exists(Tier.SHIPPED, doc_id)
        doc = local if local is not None else _read(store, Tier.SHIPPED, doc_id)
        if isinstance(doc, DocsError) or doc is None:
            hook = hooks.get(doc_id) or f"(cannot be read: {doc})"
            items.append(CollectionItem(doc_id, hook, "local" if local else "shipped", False))
            continue
        hook = hooks.get(doc_id) or facts_of(doc).info.description
        items.append(CollectionItem(doc_id, hook, doc.tier.value, local is not None and shipped_exists))
    return CollectionView(
        id=collection,
        hook=line.hook if line else None,
        listed=line is not None,
        heading=line.heading if line else None,
        items=tuple(items),
    )


def _read(store: Store, tier: Tier, doc_id: str):
    try:
        return store.read(tier, doc_id)
    except DocsError as err:  # one odd file does not hide the rest of the listing
        return err


def _unknown(store: Store, collection: str, parsed: ParsedIndex) -> DocNotFound:
    listed = [e.doc_id for e in parsed.entries if is_collection_id(e.doc_id)]
    segments = {
        doc_id.split("/", 1)[0] + "/"
        for doc_id in (*store.shipped_ids(), *store.local_ids())
        if "/" in doc_id and not is_banked(doc_id)
    }
    candidates = sorted(set(listed) | segments)
    close = difflib.get_close_matches(collection, candidates, n=3, cutoff=0.6)
    guess = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return DocNotFound(
        f"No collection {collection!r}: the index has no '- {collection}:' line and no doc's id starts "
        f"with {collection!r}.{guess} {read(INDEX_ID)} lists the docs and collections."
    )
