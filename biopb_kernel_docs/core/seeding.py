"""The local index's first copy (§2): seeded from the shipped one, and seeded again if it is lost.

A first run copies the shipped index. A local tier that had one before (its change manifest,
written at the first seeding, says so) files its local docs back, with a line saying why, so a
deleted ``index.md`` never silently drops them from view. A tier that cannot be written serves
the shipped index, read-only, with a notice.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from .errors import StoreUnavailable
from .frontmatter import describe
from .ids import INDEX_ID
from .index import ENTRY_CAP, UNFILED_HEADING, file_entry, parse_index
from .manifest import MANIFEST_NAME, changed_shipped_ids
from .store import DocFile, Store, Tier
from .version_file import LOADER

_EMPTY_INDEX = "# Docs\n"


def index_file(store: Store, *, create: bool = True) -> tuple[DocFile, tuple[str, ...]]:
    """The local index.md, seeded when absent; the shipped one, with a notice, if it cannot be.

    ``create=False`` (a read): where the local tier does not exist yet, nothing is created; the
    index is the text the first write will seed, served from the shipped one.
    """
    index = store.read(Tier.LOCAL, INDEX_ID)
    if index is not None:
        return index, ()
    if not create and not store.local_dir.is_dir():
        problem = _uncreatable(store.local_dir)
        shipped = store.read(Tier.SHIPPED, INDEX_ID)
        if problem is not None and shipped is not None:
            return shipped, (_fallback_notice(problem),)
        data = shipped.data if shipped else _EMPTY_INDEX.encode()
        text = shipped.text if shipped else _EMPTY_INDEX
        path = str(store.local_dir / f"{INDEX_ID}.md")
        mtime = shipped.mtime if shipped else time.time()
        return DocFile(
            INDEX_ID, Tier.LOCAL, path, data, text, bool(shipped and shipped.crlf), mtime, None
        ), ()
    try:
        return _seed_index(store), ()
    except StoreUnavailable as err:
        shipped = store.read(Tier.SHIPPED, INDEX_ID)
        if shipped is None:
            raise
        return shipped, (_fallback_notice(err.template),)


def _fallback_notice(problem: str) -> str:
    return (
        f"(The local index could not be created, so this is the shipped index, read-only: {problem} "
        "Reading docs works; writing fails until that is fixed.)"
    )


def _uncreatable(directory: Path) -> str | None:
    """Why ``directory`` could not be created (looked at, never tried), or None if it could."""
    existing = next((p for p in (directory, *directory.parents) if p.exists()), None)
    if existing is None:
        return None
    if not existing.is_dir():
        reason = f"{existing} is not a directory"
    elif not os.access(existing, os.W_OK | os.X_OK):
        reason = f"{existing} is not writable"
    else:
        return None
    return (
        f"Cannot create the local docs directory {directory}: {reason}. Point DocStore.docs_local_dir at a "
        "writable directory."
    )


def _seed_index(store: Store) -> DocFile:
    """§2: copy the shipped index to the local tier; after a deletion, file the local docs back."""
    with store.lock():
        index = store.read(Tier.LOCAL, INDEX_ID)  # another writer may have seeded it
        if index is not None:
            return index
        shipped = store.read(Tier.SHIPPED, INDEX_ID)
        text = shipped.text if shipped else _EMPTY_INDEX
        # The manifest is written at the first seeding, so its presence means index.md was lost.
        if store.read_state(MANIFEST_NAME) is not None:
            text = _refile_local_docs(store, text)
        else:
            changed_shipped_ids(store)
        return store.write_local(INDEX_ID, text, author=LOADER)


def _refile_local_docs(store: Store, text: str) -> str:
    """A re-seeded index files every local-only doc again, so none silently drops from view."""
    shipped = set(store.all_shipped_ids())
    orphans = [i for i in store.local_ids() if i not in shipped]
    parsed = parse_index(text)
    filed = 0
    for doc_id in orphans:
        if doc_id in parsed.entry_ids or len(parsed.entries) >= ENTRY_CAP:
            continue
        doc = store.read(Tier.LOCAL, doc_id)
        text = file_entry(parsed, doc_id, describe(doc_id, doc.text).description if doc else doc_id)
        parsed = parse_index(text)
        filed += 1
    if not filed:
        return text
    unfiled = [n for n, line in parsed.headings if line == UNFILED_HEADING][-1]
    left = len(orphans) - filed
    note = (
        f"index.md was missing and was seeded again on {time.strftime('%Y-%m-%d')}; the local docs "
        "below were filed back so that none drops out of view. Remove the lines of those you had "
        "retired."
    )
    if left:
        note += f" {left} more could not be filed within the {ENTRY_CAP}-entry cap; read them by id."
    lines = list(parsed.lines)
    lines.insert(unfiled + 1, note)
    return "\n".join(lines)
