"""read_doc and write_doc (§3): the one API every front end calls.

A ``Docs`` is one caller's view of a store. It remembers, per id, the file state it last served
that caller (the sha256 of the bytes and the tier they came from). A body write over a local doc
whose bytes changed since then is refused instead of clobbering the other writer's work (§8 risk
3). A caller that never read a doc is not guarded: it has seen nothing to be stale about, and the
diff it gets back shows all it replaced. An old/new edit needs no guard: it fails safe by itself
when the text it quotes has moved. Front ends keep one ``Docs`` per caller (the user's magics,
each agent session), so one caller's read never vouches for another's write.
"""

from __future__ import annotations

import difflib
import time
from dataclasses import dataclass

from .errors import DocNotFound, EditRefused, InvalidDocId, LimitExceeded
from .frontmatter import describe, parse_frontmatter
from .ids import (
    DIFF_VIEW,
    INDEX_ID,
    check_doc_id,
    is_collection_id,
    relative_doc_path,
    split_view,
)
from .index import (
    LOCAL_COPY,
    MISSING,
    UNFILED_HEADING,
    check_entry_cap,
    file_entry,
    listed_ids,
    parse_index,
    render_index,
)
from .store import DocFile, Store, Tier

BODY_LINE_CAP = 300


@dataclass(frozen=True)
class _Served:
    tier: Tier
    sha256: str


def _state(doc: DocFile | None) -> _Served | None:
    return _Served(doc.tier, doc.sha256) if doc else None


def _updated(doc: DocFile) -> str:
    """The frontmatter's ``updated``, else the file's modification date (§1)."""
    declared = parse_frontmatter(doc.text).text("updated")
    return declared or time.strftime("%Y-%m-%d", time.localtime(doc.mtime))


def _unified_diff(before: str | None, after: str, doc_id: str, from_label: str, to_label: str) -> str:
    name = str(relative_doc_path(doc_id))
    lines = difflib.unified_diff(
        (before or "").splitlines(),
        after.splitlines(),
        fromfile="/dev/null" if before is None else f"a/{name} ({from_label})",
        tofile=f"b/{name} ({to_label})",
        lineterm="",
    )
    return "\n".join(lines)


def _occurrences(text: str, old: str) -> int:
    count, start = 0, text.find(old)
    while start != -1:
        count += 1
        start = text.find(old, start + 1)
    return count


def _normalise_body(body: str) -> str:
    body = body.replace("\r\n", "\n")
    return body if body.endswith("\n") else body + "\n"


class Docs:
    """One caller's read_doc / write_doc over a ``Store``."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._served: dict[str, _Served] = {}

    # -- reading -------------------------------------------------------------------------------

    def _local_index(self) -> DocFile:
        self.store.ensure_index()
        doc = self.store.read(Tier.LOCAL, INDEX_ID)
        if doc is None:  # deleted between the two calls: seed again
            self.store.ensure_index()
            doc = self.store.read(Tier.LOCAL, INDEX_ID)
        assert doc is not None
        return doc

    def render_index(self) -> str:
        """The local index with its markers and tails (§2); seeds the index on first use."""
        index = self._local_index()
        self._served[INDEX_ID] = _Served(Tier.LOCAL, index.sha256)
        return render_index(self.store, index.text)

    def read_doc(self, doc_id: str) -> str:
        """The doc under a one-line header; ``index`` renders the index; ``<id>@diff`` diffs a shadow."""
        doc_id, view = split_view(doc_id)
        if is_collection_id(doc_id):
            raise InvalidDocId(
                f"{doc_id!r} names a collection; ids ending in '/' are reserved and not readable yet. "
                "Read one doc by its id; read_doc('index') lists them."
            )
        if doc_id == INDEX_ID:
            if view:
                raise InvalidDocId(
                    "The index has no shipped copy to diff against. read_doc('index') shows it, and its "
                    "closing tails list what the release added or changed."
                )
            rendered = self.render_index()
            index = self.store.read(Tier.LOCAL, INDEX_ID)
            when = _updated(index) if index else "now"
            header = (
                f"[index · local · updated {when} · rendered: the {MISSING}/{LOCAL_COPY} markers and "
                "the closing tails come from the loader, not from index.md]"
            )
            return f"{header}\n\n{rendered}"
        self.store.ensure_index()
        if view == DIFF_VIEW:
            return self._diff_view(doc_id)
        doc = self.store.read(Tier.LOCAL, doc_id)
        shadows = doc is not None and self.store.exists(Tier.SHIPPED, doc_id)
        if doc is None:
            doc = self.store.read(Tier.SHIPPED, doc_id)
        if doc is None:
            raise self._not_found(doc_id)
        self._served[doc_id] = _Served(doc.tier, doc.sha256)
        parts = [doc_id, doc.tier.value, f"updated {_updated(doc)}"]
        if shadows:
            parts.append("shadows shipped")
        return f"[{' · '.join(parts)}]\n\n{doc.text}"

    def _diff_view(self, doc_id: str) -> str:
        local = self.store.read(Tier.LOCAL, doc_id)
        shipped = self.store.read(Tier.SHIPPED, doc_id)
        if local is None or shipped is None:
            if local is None and shipped is None:
                raise self._not_found(doc_id)
            where = "only a shipped doc" if local is None else "a local doc with no shipped counterpart"
            raise InvalidDocId(
                f"{doc_id!r} is {where}, so there is nothing to diff: '@diff' compares a local copy with "
                f"the shipped text it shadows. read_doc({doc_id!r}) shows the doc itself."
            )
        header = (
            f"[{doc_id}@diff · your local copy against the current shipped text · this mixes your own "
            "edits with the release's changes: only hashes of earlier releases are kept, not their text]"
        )
        diff = _unified_diff(shipped.text, local.text, doc_id, "shipped", "local")
        return f"{header}\n\n{diff or 'No differences: your local copy matches the shipped text.'}"

    def _not_found(self, doc_id: str) -> DocNotFound:
        parsed = parse_index(self._local_index().text)
        if doc_id in parsed.entry_ids:
            return DocNotFound(
                f"No doc {doc_id!r}: the index lists it, but no file exists (it shows as {MISSING}). "
                f"Write it with write_doc({doc_id!r}, body=...), or remove its line from the index."
            )
        close = difflib.get_close_matches(doc_id, listed_ids(self.store, parsed), n=3, cutoff=0.6)
        guess = f" Did you mean {' or '.join(repr(i) for i in close)}?" if close else ""
        return DocNotFound(f"No doc {doc_id!r}.{guess} read_doc('index') lists them all.")

    # -- writing -------------------------------------------------------------------------------

    def write_doc(
        self, doc_id: str, body: str | None = None, old: str | None = None, new: str | None = None
    ) -> str:
        """Create or replace a local doc (``body``), or replace one exact piece (``old``/``new``).

        Returns what changed as a unified diff. Shipped ids are copy-on-write. A refused write
        writes nothing at all.
        """
        doc_id = check_doc_id(doc_id)
        if is_collection_id(doc_id):
            raise InvalidDocId(
                f"{doc_id!r} ends with '/', which is reserved for collections. Write a doc inside it "
                f"instead, such as {doc_id + 'my-doc'!r}."
            )
        _check_arguments(body, old, new)
        self.store.ensure_index()
        try:
            with self.store.lock():
                return self._write_locked(doc_id, body, old, new)
        except EditRefused as err:
            if doc_id == INDEX_ID and old is not None and old.replace("\r\n", "\n") in self.render_index():
                raise EditRefused(
                    f"{err} That text comes from the loader's rendering (a {MISSING} or {LOCAL_COPY} "
                    "marker, or a closing tail), which is not in index.md: quote the file's own lines, "
                    "without those suffixes, or add a new line instead of moving one from a tail."
                ) from None
            raise

    def _write_locked(self, doc_id: str, body: str | None, old: str | None, new: str | None) -> str:
        local = self.store.read(Tier.LOCAL, doc_id)
        shipped = self.store.read(Tier.SHIPPED, doc_id) if doc_id != INDEX_ID else None
        base = local or shipped
        if body is not None:
            self._refuse_stale_body(doc_id, local)
            after = _normalise_body(body)
        else:
            assert old is not None
            assert new is not None
            if base is None:
                raise DocNotFound(
                    f"No doc {doc_id!r} to edit. Create it with write_doc({doc_id!r}, body=...), or check "
                    "the id against read_doc('index')."
                )
            after = _replace_once(doc_id, base.text, old.replace("\r\n", "\n"), new.replace("\r\n", "\n"))
        if base is not None and after == base.text:
            return f"No change: {doc_id!r} already has this text, so nothing was written."
        _check_body(doc_id, after)
        if doc_id == INDEX_ID:
            check_entry_cap(base.text if base else None, after)
        filing = self._plan_filing(doc_id, after) if base is None else None

        written = self.store.write_local(doc_id, after, crlf=bool(local and local.crlf))
        if body is not None or self._served.get(doc_id) == _state(base):
            self._served[doc_id] = _Served(Tier.LOCAL, written.sha256)
        report = [self._summary(doc_id, local, shipped, filing is not None)]
        if filing is not None:
            index, index_after = filing
            written_index = self.store.write_local(INDEX_ID, index_after, crlf=index.crlf)
            if self._served.get(INDEX_ID) == _state(index):
                self._served[INDEX_ID] = _Served(Tier.LOCAL, written_index.sha256)
        before_label = "shipped" if local is None and shipped is not None else "before"
        report.append(_unified_diff(base.text if base else None, after, doc_id, before_label, "local"))
        if filing is not None:
            report.append(_unified_diff(index.text, index_after, INDEX_ID, "before", "after"))
        return "\n\n".join(report)

    def _plan_filing(self, doc_id: str, text: str) -> tuple[DocFile, str] | None:
        """§3: a created doc gets an index entry under ## Unfiled, unless it already has one."""
        if doc_id == INDEX_ID:
            return None
        index = self._local_index()
        if doc_id in parse_index(index.text).entry_ids:
            return None
        index_after = file_entry(index.text, doc_id, describe(doc_id, text).description)
        check_entry_cap(index.text, index_after, doc_id=doc_id)
        _check_body(INDEX_ID, index_after)
        return index, index_after

    def _refuse_stale_body(self, doc_id: str, local: DocFile | None) -> None:
        served = self._served.get(doc_id)
        if local is None or served is None or served == _state(local):
            return
        raise EditRefused(
            f"{doc_id!r} changed on disk since you last read it, so a full body from that reading would "
            "overwrite someone else's edit. Nothing was written. read_doc("
            f"{doc_id!r}) to see the current text and write again, or use old/new, which only touches "
            "the text it quotes."
        )

    @staticmethod
    def _summary(doc_id: str, local: DocFile | None, shipped: DocFile | None, filed: bool) -> str:
        if local is None and shipped is not None:
            return (
                f"Created a local copy of shipped doc {doc_id!r}; it now shadows the shipped text, and "
                f"the index marks it {LOCAL_COPY}."
            )
        if local is None:
            if filed:
                return f"Created local doc {doc_id!r} and filed it under {UNFILED_HEADING} in the index."
            return f"Created local doc {doc_id!r}; the index already lists it."
        return "Edited the index." if doc_id == INDEX_ID else f"Updated local doc {doc_id!r}."


def _check_arguments(body: object, old: object, new: object) -> None:
    for name, value in (("body", body), ("old", old), ("new", new)):
        if value is not None and not isinstance(value, str):
            raise EditRefused(f"{name} must be a string, not {type(value).__name__}.")
    if body is not None and (old is not None or new is not None):
        raise EditRefused("Pass either body, or old and new, not both: body replaces the whole doc.")
    if body is None and old is None and new is None:
        raise EditRefused(
            "Nothing to write: pass body=... to create or replace the doc, or old=... and new=... to "
            "replace one exact piece of it."
        )
    if body is None and (old is None or new is None):
        missing = "new" if new is None else "old"
        raise EditRefused(
            f"old and new go together, and {missing} is missing. To delete a piece of text, pass new=''."
        )
    if old == "":
        raise EditRefused(
            "old is empty. Quote the exact text to replace, including a neighbouring line if it is short."
        )


def _check_body(doc_id: str, text: str) -> None:
    if not text.strip():
        raise EditRefused(
            f"That would leave {doc_id!r} empty, and there is no delete. To retire a doc, remove its line "
            "from the index (a shipped doc: put its id on the ignored: line)."
        )
    lines = len(text.splitlines())
    if lines > BODY_LINE_CAP:
        raise LimitExceeded(
            f"{doc_id!r} would be {lines} lines; the cap is {BODY_LINE_CAP}, since a doc is read whole "
            "into context. Nothing was written. Shorten it, or move a self-contained part into a doc of "
            "its own and link it as [[id]]."
        )


def _replace_once(doc_id: str, text: str, old: str, new: str) -> str:
    count = _occurrences(text, old)
    if count == 1:
        return text.replace(old, new, 1)
    if count > 1:
        raise EditRefused(
            f"old matches {count} times in {doc_id!r}; it must match exactly once. Nothing was written. "
            "Include more of the surrounding text (a neighbouring line, or the heading above) in both "
            "old and new."
        )
    hint = f"read_doc({doc_id!r}) shows the current text; copy old from it exactly."
    if old.lstrip().startswith(f"[{doc_id} ·"):
        hint = "The first line read_doc returns is a header, not part of the doc: leave it out of old."
    elif " ".join(old.split()) in " ".join(text.split()):
        hint = (
            "It matches only when whitespace is ignored: copy old exactly, with its indentation, "
            "line breaks and spacing."
        )
    raise EditRefused(f"old was not found in {doc_id!r}, so nothing was written. {hint}")
