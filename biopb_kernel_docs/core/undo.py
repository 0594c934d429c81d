"""Looking back and undoing: a doc's history, one version, two versions compared, a restore, and
the two removals a user may make (Retire an entry, Drop a local copy identical to shipped).

A mixin of ``Docs`` (``ops``): its methods use that class's store, author, precondition and
writes. Every undo is a write like any other, so it is recorded in the history too, by whoever
made it: a restore is a new version holding an old text, never a rewind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import DocNotFound, EditRefused, InvalidArguments
from .ids import INDEX_ID, check_doc_id
from .index import ParsedIndex, ignore_id, parse_index
from .phrases import read, read_diff, read_history, write_replace
from .store import Tier
from .values import FileChange, HistoryView, VersionDiffView, VersionView, WriteResult
from .version_file import Header
from .version_numbers import check_version_number

if TYPE_CHECKING:
    from .store import DocFile, Store


class Undo:
    """History reads and undo operations (``Docs`` provides what they build on)."""

    store: Store
    _served: dict[str, str]

    # -- reading the history -----------------------------------------------------------------------

    def _now(self, doc_id: str) -> DocFile | None:
        """What ``doc_id`` reads as now: its local file, else the shipped text (the index's too)."""
        return self.store.read(Tier.LOCAL, doc_id) or self.store.read(Tier.SHIPPED, doc_id)

    def history(self, doc_id: str) -> HistoryView:
        """``doc_id``'s kept versions, newest first (``read_doc("<id>@history")``)."""
        doc_id = check_doc_id(doc_id)
        headers = self.store.versions(doc_id)
        current = self._now(doc_id)
        if not headers and current is None:
            raise self._not_found(doc_id)  # type: ignore[attr-defined]
        sha = current.sha256 if current is not None else None
        newest = headers[-1].number if headers else None
        limits = self.store.history_limits
        return HistoryView(
            id=doc_id,
            versions=tuple(h.info(h.number == newest and h.after == sha) for h in reversed(headers)),
            sha256=sha,
            max_versions=limits.max_versions if limits else 0,
            max_bytes=limits.max_bytes if limits else 0,
            size=sum(h.size for h in headers),
            enabled=limits is not None,
        )

    def _version(self, doc_id: str, number: object) -> tuple[Header, str | None]:
        header, data = self.store.version(doc_id, check_version_number(number))
        text = data.decode("utf-8", "replace").replace("\r\n", "\n") if data is not None else None
        return header, text

    def version(self, doc_id: str, number: object) -> VersionView:
        """One kept version (``read_doc("<id>@v12")``)."""
        doc_id = check_doc_id(doc_id)
        header, text = self._version(doc_id, number)
        numbers = [h.number for h in self.store.versions(doc_id)]
        earlier = [n for n in numbers if n < header.number]
        current = self._now(doc_id)
        sha = current.sha256 if current is not None else None  # None: the newest version removed it
        is_current = header.number == numbers[-1] and header.after == sha
        return VersionView(doc_id, header.info(is_current), text, earlier[-1] if earlier else None)

    def diff_versions(self, doc_id: str, older: object, newer: object = None) -> VersionDiffView:
        """Version ``older`` against version ``newer`` (None: the current text)."""
        doc_id = check_doc_id(doc_id)
        old_header, old_text = self._version(doc_id, older)
        if newer is None:
            current = self._now(doc_id)
            new_number, new_text = None, current.text if current is not None else ""
        else:
            new_header, new_text = self._version(doc_id, newer)
            new_number = new_header.number
        if old_text is None:
            raise EditRefused(_no_text(doc_id, old_header))
        if new_text is None:
            raise EditRefused(_no_text(doc_id, new_header))
        return VersionDiffView(doc_id, old_header.number, new_number, old_text, new_text)

    # -- undoing -----------------------------------------------------------------------------------

    def restore_doc(self, doc_id: str, version: object, if_match: str | None = None) -> WriteResult:
        """Write version ``version``'s text back: a new version, guarded like any body write."""
        doc_id = check_doc_id(doc_id)
        header, text = self._version(doc_id, version)
        if text is None:
            raise EditRefused(_no_text(doc_id, header))
        return self._write(doc_id, text, None, None, if_match, restores=header.number)  # type: ignore[attr-defined]

    def retire_doc(self, doc_id: str, if_match: str | None = None) -> WriteResult:
        """§2: remove ``doc_id``'s index line (its file stays, readable by id); a shipped doc also
        goes on the ignored: line, so the new-docs tail does not offer it again. ``if_match`` is
        the index's sha256."""
        doc_id = check_doc_id(doc_id)
        if doc_id == INDEX_ID:
            raise InvalidArguments("The index is not an entry of itself; retire a doc it lists.")

        def edit(parsed: ParsedIndex) -> str:
            lines = {e.line_number for e in parsed.entries if e.doc_id == doc_id}
            if not lines:
                raise EditRefused(
                    f"{doc_id!r} has no line in the index, so it is already retired (its file, if any, "
                    f"is readable by id). {read(INDEX_ID)} shows what is listed."
                )
            text = "\n".join(line for n, line in enumerate(parsed.lines) if n not in lines)
            if self.store.exists(Tier.SHIPPED, doc_id):
                text = ignore_id(parse_index(text), doc_id)
            return text

        return self._edit_index(edit, if_match)  # type: ignore[attr-defined]

    def drop_local_copy(self, doc_id: str, if_match: str | None = None) -> WriteResult:
        """Remove a local copy whose text equals the shipped text, so the id reads the shipped doc
        (and every later release of it) again. The user's own action: no MCP tool offers it."""
        doc_id = check_doc_id(doc_id)
        with self.store.lock():
            local = self.store.read(Tier.LOCAL, doc_id)
            shipped = self.store.read(Tier.SHIPPED, doc_id) if doc_id != INDEX_ID else None
            if local is None:
                raise DocNotFound(f"{doc_id!r} has no local copy to drop. {read(doc_id)} shows the doc.")
            if shipped is None:
                raise EditRefused(
                    f"{doc_id!r} is a local doc with no shipped text, so dropping it would delete it, and "
                    f"there is no delete. Retire it instead: remove its line from the index with "
                    f"{write_replace(INDEX_ID)}; the file stays, readable by id."
                )
            self._check_precondition(doc_id, local, if_match, implicit=False)  # type: ignore[attr-defined]
            if local.text != shipped.text:
                raise EditRefused(
                    f"Your local copy of {doc_id!r} differs from the shipped text, so dropping it would lose "
                    f"your changes. Nothing was changed. {read_diff(doc_id)} shows them; a copy is dropped "
                    "only once it matches the shipped text."
                )
            version = self.store.remove_local(doc_id, local, shipped, self.author)  # type: ignore[attr-defined]
        self._served[doc_id] = shipped.sha256
        change = FileChange(
            doc_id, local.text, shipped.text, local.sha256, shipped.sha256, Tier.LOCAL.value, version
        )
        return WriteResult(doc_id, "removed", None, False, (change,))


def _no_text(doc_id: str, header: Header) -> str:
    if header.after is None:
        return (
            f"v{header.number} of {doc_id!r} records that the doc did not exist then; there is no text "
            f"to restore. {read_history(doc_id)} lists the others."
        )
    return (
        f"v{header.number} of {doc_id!r} kept no text: it alone was over the history's byte bound "
        f"(DocStore.history_max_bytes). {read_history(doc_id)} lists the others."
    )
