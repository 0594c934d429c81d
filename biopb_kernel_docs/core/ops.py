"""read_doc and write_doc (§3): the one API under every surface (with its mixins: the panel's index
edits in ``index_edits``, a doc's history and the undo operations in ``undo``).

A ``Docs`` is one caller's view of a store; its operations return values (``values``), never
prose. Every write can carry ``if_match``, the sha256 of the text it was based on: a mismatch
is refused (``StaleWrite``) and changes nothing. A caller also remembers the sha256 of each doc
it was served, and a body write that names no ``if_match`` uses that memory as one (§8 risk 3:
a full body from a stale read would clobber another writer). A caller that never read a doc is
not guarded: it has seen nothing to be stale about, and the diff it gets back shows all it
replaced. An old/new edit fails safe by itself when the text it quotes has moved. Front ends
keep one ``Docs`` per caller, so one caller's read never vouches for another's write.
"""

from __future__ import annotations

import difflib

from .collection import read_collection
from .edits import (
    check_arguments,
    check_body,
    check_index_lines,
    line_count,
    normalise_body,
    replace_in_index,
    replace_once,
)
from .errors import (
    DocNotFound,
    EditRefused,
    InvalidDocId,
    PartialWrite,
    StaleWrite,
    StoreUnavailable,
)
from .filing import filing_move
from .frontmatter import describe
from .ids import (
    DIFF_VIEW,
    HISTORY_VIEW,
    INDEX_ID,
    check_doc_id,
    is_collection_id,
    parse_request,
    version_of,
)
from .index import (
    UNFILED_HEADING,
    check_entry_cap,
    file_entry,
    parse_index,
)
from .index_edits import IndexEdits, lost_in
from .phrases import argument, read, write_body, write_replace
from .reads import doc_view, facts_of, outline_view, section_view
from .reconcile import index_view, new_shipped_ids, rendered_lines
from .seeding import index_file
from .store import PYTHON, DocFile, Store, Tier
from .undo import Undo
from .values import (
    Author,
    ConfigView,
    DiffView,
    DocView,
    FileChange,
    IndexView,
    OutlineView,
    Read,
    SectionView,
    Shrink,
    WriteResult,
)


class Docs(Undo, IndexEdits):
    """One caller's reads and writes over a ``Store``; ``author`` is who its writes are by (the
    history records it: the surface, and the MCP client, kernel or user behind it)."""

    def __init__(self, store: Store, config: ConfigView | None = None, author: Author = PYTHON) -> None:
        self.store = store
        self.config = config
        self.author = author
        self._served: dict[str, str] = {}

    # -- the index -----------------------------------------------------------------------------

    def index(self) -> IndexView:
        """The local index with its markers and tails (§2). A read creates nothing: before the
        first write, it is the text that write will seed."""
        index, notices = index_file(self.store, create=False)
        if index.tier is Tier.LOCAL:
            self._served[INDEX_ID] = index.sha256
        return index_view(self.store, index, parse_index(index.text), notices)

    # -- reading -------------------------------------------------------------------------------

    def read_doc(self, requested: str) -> Read:
        """A doc; ``index`` is the rendered index; ``<id>@diff`` diffs a local copy with shipped;
        ``<id>@history`` lists its versions and ``<id>@v12`` reads one (the index's too); ``<id>#``
        is a doc's outline and ``<id>#<heading>`` one section; ``<segment>/`` lists a collection (§7)."""
        request = parse_request(requested)
        doc_id, view, section = request.doc_id, request.view, request.section
        if section is not None and (view or doc_id == INDEX_ID or is_collection_id(doc_id)):
            raise InvalidDocId(self._no_section(doc_id, view))
        if is_collection_id(doc_id):
            if view:
                raise InvalidDocId(
                    f"{doc_id!r} is a collection, which has no '@{view}': {read(doc_id)} lists its docs."
                )
            return read_collection(self.store, doc_id)
        if view == HISTORY_VIEW:
            return self.history(doc_id)
        if (number := version_of(view)) is not None:
            return self.version(doc_id, number)
        if doc_id == INDEX_ID:
            if view:
                raise InvalidDocId(
                    f"The index has no shipped copy to diff against. {read(INDEX_ID)} shows it, and its "
                    "closing tails list what the release added or changed."
                )
            return self.index()
        if view == DIFF_VIEW:
            return self._diff(doc_id)
        if section is not None:
            return self._section(doc_id, section)
        return self._doc(doc_id)

    @staticmethod
    def _no_section(doc_id: str, view: str | None) -> str:
        if view:
            return (
                f"A read takes a view ('@{view}') or a section ('#'), not both. {read(doc_id + '#')} "
                f"outlines {doc_id!r}; {read(f'{doc_id}@{view}')} shows the view whole."
            )
        if doc_id == INDEX_ID:
            return f"The index has no sections to read: {read(INDEX_ID)} shows it whole."
        return f"{doc_id!r} is a collection, not a doc with sections: {read(doc_id)} lists its docs."

    def doc(self, doc_id: str) -> DocView:
        return self._doc(check_doc_id(doc_id))

    def diff(self, doc_id: str) -> DiffView:
        return self._diff(check_doc_id(doc_id))

    def _effective(self, doc_id: str) -> tuple[DocFile, bool]:
        """The file a read of ``doc_id`` serves (a local copy wins, §1) and whether it shadows."""
        local = self.store.read(Tier.LOCAL, doc_id)
        shadows = local is not None and self.store.exists(Tier.SHIPPED, doc_id)
        doc = local or self.store.read(Tier.SHIPPED, doc_id)
        if doc is None:
            raise self._not_found(doc_id)
        return doc, shadows

    def _doc(self, doc_id: str) -> DocView:
        doc, shadows = self._effective(doc_id)
        facts = facts_of(doc)
        self._served[doc_id] = facts.sha256
        return doc_view(doc, shadows, facts)

    def _section(self, doc_id: str, section: str) -> OutlineView | SectionView:
        """§7: ``section`` "" is the outline; anything else names one heading."""
        doc, shadows = self._effective(doc_id)
        facts = facts_of(doc)
        if not section:
            return outline_view(doc, shadows, facts)
        view = section_view(doc, shadows, section, facts)
        self._served[doc_id] = facts.sha256  # a reading of this version, as a whole read is
        return view

    def _diff(self, doc_id: str) -> DiffView:
        local = self.store.read(Tier.LOCAL, doc_id)
        shipped = self.store.read(Tier.SHIPPED, doc_id)
        if local is None or shipped is None:
            if local is None and shipped is None:
                raise self._not_found(doc_id)
            where = "only a shipped doc" if local is None else "a local doc with no shipped counterpart"
            raise InvalidDocId(
                f"{doc_id!r} is {where}, so there is nothing to diff: '@diff' compares a local copy with "
                f"the shipped text it shadows. {read(doc_id)} shows the doc itself."
            )
        return DiffView(doc_id, local.sha256, shipped.sha256, local.text, shipped.text)

    def _not_found(self, doc_id: str) -> DocNotFound:
        index = self.store.read(Tier.LOCAL, INDEX_ID) or self.store.read(Tier.SHIPPED, INDEX_ID)
        parsed = parse_index(index.text if index else "")
        if doc_id in parsed.entry_ids:
            return DocNotFound(
                f"No doc {doc_id!r}: the index lists it, but no file exists (it shows as (missing)). "
                f"Write it with {write_body(doc_id)}, or remove its line from the index."
            )
        entries = {e.doc_id for e in parsed.entries if not is_collection_id(e.doc_id)}
        listed = sorted(entries | set(new_shipped_ids(self.store.shipped_ids(), parsed)))
        close = difflib.get_close_matches(doc_id, listed, n=3, cutoff=0.6)
        guess = f" Did you mean {' or '.join(repr(i) for i in close)}?" if close else ""
        return DocNotFound(f"No doc {doc_id!r}.{guess} {read(INDEX_ID)} lists them all.")

    # -- writing -------------------------------------------------------------------------------

    def write_doc(
        self,
        doc_id: str,
        body: str | None = None,
        old: str | None = None,
        new: str | None = None,
        if_match: str | None = None,
    ) -> WriteResult:
        """Create or replace a local doc (``body``), or replace one exact piece (``old``/``new``).

        Shipped ids are copy-on-write. A refused write writes nothing at all.
        """
        return self._write(doc_id, body, old, new, if_match)

    def _write(
        self,
        doc_id: str,
        body: str | None,
        old: str | None,
        new: str | None,
        if_match: str | None,
        restores: int | None = None,
    ) -> WriteResult:
        doc_id = check_doc_id(doc_id)
        if is_collection_id(doc_id):
            raise InvalidDocId(
                f"{doc_id!r} ends with '/', which is reserved for collections. Write a doc inside it "
                f"instead, such as {doc_id + 'my-doc'!r}."
            )
        check_arguments(body, old, new, if_match)
        if doc_id == INDEX_ID:
            self._index_file_for_writing()  # seeded first: an edit applies to the seeded text
        try:
            with self.store.lock():
                return self._write_locked(doc_id, body, old, new, if_match, restores)
        except EditRefused as err:
            if doc_id == INDEX_ID and old is not None and not isinstance(err, StaleWrite):
                raise self._explain_rendered_quote(err, old) from None
            raise

    def _index_file_for_writing(self) -> DocFile:
        index, notices = index_file(self.store)
        if notices:
            raise StoreUnavailable(
                f"Nothing can be written: the local docs directory {self.store.local_dir} is not usable. "
                f"{notices[0]}"
            )
        return index

    def _explain_rendered_quote(self, err: EditRefused, old: str) -> EditRefused:
        index, notices = index_file(self.store, create=False)
        view = index_view(self.store, index, parse_index(index.text), notices)
        quoted = old.replace("\r\n", "\n")
        if not any(line in quoted for line in rendered_lines(view)):
            return err
        return EditRefused(
            f"{err.template} That text comes from the loader's rendering (a (missing) or (local copy) "
            "marker, or a closing tail), which is not in index.md: quote the file's own lines, without "
            "those suffixes, or add a new line instead of moving one from a tail."
        )

    def _write_locked(
        self,
        doc_id: str,
        body: str | None,
        old: str | None,
        new: str | None,
        if_match: str | None,
        restores: int | None,
    ) -> WriteResult:
        local = self.store.read(Tier.LOCAL, doc_id)
        shipped = self.store.read(Tier.SHIPPED, doc_id) if local is None and doc_id != INDEX_ID else None
        base = local or shipped
        self._check_precondition(doc_id, base, if_match, implicit=body is not None)
        markers: tuple[str, ...] = ()  # the rendered index's markers an old/new quote carried
        if body is not None:
            after = normalise_body(body)
        else:
            assert old is not None
            assert new is not None
            if base is None:
                raise DocNotFound(
                    f"No doc {doc_id!r} to edit. Create it with {write_body(doc_id)}, or check the id "
                    f"against {read(INDEX_ID)}."
                )
            old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
            if doc_id == INDEX_ID:
                after, markers = replace_in_index(base.text, old, new)
            else:
                after = replace_once(doc_id, base.text, old, new)
        if base is not None and after == base.text:
            return WriteResult(doc_id, "unchanged", None, False, (), rendered_markers=markers)
        check_body(doc_id, after)
        if doc_id == INDEX_ID:
            before = len(parse_index(base.text).entries) if base else None
            check_entry_cap(before, len(parse_index(after).entries))
            check_index_lines(base.text if base else None, after)
        if base is None and (blocker := self.store.file_in_the_way(doc_id)):
            raise EditRefused(
                f"{doc_id!r} cannot be created: {blocker} is a file, where this id needs a folder. Nothing "
                "was written. Move that file aside, or choose another id."
            )
        filing = self._plan_filing(doc_id, after) if base is None and doc_id != INDEX_ID else None
        changes: list[FileChange] = []
        filed_under = None
        if filing is not None:  # §3: the entry lands first, so a doc never exists unfiled
            index, index_after = filing
            changes.append(self._write_index(index, index_after))
            filed_under = UNFILED_HEADING
        try:
            written = self.store.write_local(
                doc_id,
                after,
                crlf=bool(local and local.crlf),
                mode=_mode(local),
                author=self.author,
                replaced=base,
                restores=restores,
            )
        except StoreUnavailable as err:
            if filing is None:
                raise
            raise PartialWrite(
                f"Filed {doc_id!r} in the index, but writing the doc itself failed: {err.template} The "
                f"index lists it as (missing) until the doc is written: retry the same write."
            ) from err
        if body is not None or self._served.get(doc_id) == (base.sha256 if base else None):
            self._served[doc_id] = written.sha256
        change = FileChange(
            doc_id,
            base.text if base else None,
            after,
            base.sha256 if base else None,
            written.sha256,
            base.tier.value if base else None,
            written.version,
        )
        outcome = "created" if base is None else ("shadowed" if local is None else "updated")
        already_listed = base is None and doc_id != INDEX_ID and filing is None
        move = filing_move(filing[1], doc_id) if filing is not None else None
        lost = lost_in(base.text, after) if doc_id == INDEX_ID and base is not None else ()
        shrink = _shrink(base.text, after, written.version) if body is not None and base is not None else None
        return WriteResult(
            doc_id,
            outcome,
            filed_under,
            already_listed,
            (change, *changes),
            rendered_markers=markers,
            move=move,
            lost_entries=lost,
            shrink=shrink,
            restored=restores,
        )

    def _check_precondition(
        self, doc_id: str, base: DocFile | None, if_match: str | None, implicit: bool
    ) -> None:
        if if_match is not None:
            if base is not None and base.sha256 == if_match:
                return
            now = "no longer exists" if base is None else "has changed"
            raise StaleWrite(
                f"{doc_id!r} {now} since the text this write was based on ({argument('if_match')} "
                f"{if_match[:12]}…). Nothing was written. {read(doc_id)} shows the current text: write "
                "again from it."
            )
        served = self._served.get(doc_id)
        if not implicit or served is None or base is None or base.sha256 == served:
            return
        raise StaleWrite(
            f"{doc_id!r} changed on disk since you last read it, so a full body from that reading would "
            f"overwrite someone else's edit. Nothing was written. {read(doc_id)} shows the current text "
            f"to write again from; {write_replace(doc_id)} only touches the text it quotes."
        )

    def _write_index(self, index: DocFile, after: str) -> FileChange:
        written = self.store.write_local(
            INDEX_ID, after, crlf=index.crlf, mode=index.mode, author=self.author, replaced=index
        )
        if self._served.get(INDEX_ID) == index.sha256:  # an index changed elsewhere stays unread
            self._served[INDEX_ID] = written.sha256
        return FileChange(INDEX_ID, index.text, after, index.sha256, written.sha256, "local", written.version)

    def _plan_filing(self, doc_id: str, text: str) -> tuple[DocFile, str] | None:
        """§3: a created doc gets an index entry under ## Unfiled, unless it already has one."""
        index = self._index_file_for_writing()
        parsed = parse_index(index.text)
        if doc_id in parsed.entry_ids:
            return None
        index_after = file_entry(parsed, doc_id, describe(doc_id, text).description)
        check_entry_cap(len(parsed.entries), len(parsed.entries) + 1, doc_id=doc_id)
        check_index_lines(index.text, index_after, doc_id=doc_id)
        check_body(INDEX_ID, index_after)
        return index, index_after


def _mode(local: DocFile | None) -> int | None:
    return local.mode if local is not None else None


def _shrink(before: str, after: str, version: int | None) -> Shrink | None:
    """A body write that more than halves a doc says so, and names the version holding the old text."""
    if len(after) * 2 >= len(before):
        return None
    previous = version - 1 if version is not None and version > 1 else None
    return Shrink(line_count(before), line_count(after), len(before), len(after), previous)
