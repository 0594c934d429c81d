"""The index edits the panel offers (§2): file a doc under a heading, put a shipped doc on the
ignored: line; ``retire_doc`` (``undo``) is one more. Each is one edit of index.md under the lock,
guarded by the index's ``if_match``, checked like any index write, and saying which entries it
lost (none of these should lose one, but a hand-edited index may hold surprises).

A mixin of ``Docs`` (``ops``): it uses that class's store, precondition and index write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .edits import check_body, check_heading, check_index_lines
from .errors import EditRefused, InvalidArguments
from .frontmatter import describe
from .ids import INDEX_ID, check_doc_id
from .index import ParsedIndex, check_entry_cap, file_entry, ignore_id, lost_entries, parse_index
from .phrases import write_replace
from .store import Tier
from .values import LostEntry, WriteResult

if TYPE_CHECKING:
    from .store import Store


class IndexEdits:
    """file_doc, ignore_doc and the one index edit under them (``Docs`` provides the rest)."""

    store: Store

    def file_doc(self, doc_id: str, heading: str, if_match: str | None = None) -> WriteResult:
        """File ``doc_id`` (a shipped doc from the new-docs tail, say) under ``heading``."""
        doc_id = check_doc_id(doc_id)
        heading = check_heading(heading)

        def edit(parsed: ParsedIndex) -> str:
            listed = next((e for e in parsed.entries if e.doc_id == doc_id), None)
            if listed is not None:
                raise EditRefused(
                    f"{doc_id!r} is already listed, under {listed.heading or 'no heading'}. Nothing was "
                    f"written. To move it, edit its line with {write_replace(INDEX_ID)}."
                )
            doc = self.store.read(Tier.SHIPPED, doc_id) or self.store.read(Tier.LOCAL, doc_id)
            if doc is None:
                raise self._not_found(doc_id)  # type: ignore[attr-defined]
            return file_entry(parsed, doc_id, describe(doc_id, doc.text).description, heading)

        result = self._edit_index(edit, if_match)
        shown = heading if heading.startswith("#") else f"## {heading}"
        return WriteResult(result.id, result.outcome, shown, False, result.changes)

    def ignore_doc(self, doc_id: str, if_match: str | None = None) -> WriteResult:
        """Put shipped ``doc_id`` on the ignored: line: the tail stops offering it (§2)."""
        doc_id = check_doc_id(doc_id)

        def edit(parsed: ParsedIndex) -> str:
            if not self.store.exists(Tier.SHIPPED, doc_id):
                raise InvalidArguments(
                    f"{doc_id!r} is not a shipped doc; the ignored: line names shipped docs only. A local "
                    "doc is retired by removing its index line."
                )
            if doc_id in parsed.ignored:
                return "\n".join(parsed.lines)
            if doc_id in parsed.entry_ids:
                raise EditRefused(
                    f"{doc_id!r} has an entry in the index; remove that line (it is then ignored by "
                    f"adding it here) with {write_replace(INDEX_ID)}."
                )
            return ignore_id(parsed, doc_id)

        return self._edit_index(edit, if_match)

    def _edit_index(self, edit: Callable[[ParsedIndex], str], if_match: str | None) -> WriteResult:
        """Apply ``edit`` (the parsed index -> its new text) to index.md, seeded first, under the lock."""
        self._index_file_for_writing()  # type: ignore[attr-defined]
        with self.store.lock():
            index = self.store.read(Tier.LOCAL, INDEX_ID)
            assert index is not None
            self._check_precondition(INDEX_ID, index, if_match, implicit=False)  # type: ignore[attr-defined]
            parsed = parse_index(index.text)
            after = edit(parsed)
            if after == index.text:
                return WriteResult(INDEX_ID, "unchanged", None, False, ())
            check_body(INDEX_ID, after)
            check_entry_cap(len(parsed.entries), len(parse_index(after).entries))
            check_index_lines(index.text, after)
            change = self._write_index(index, after)  # type: ignore[attr-defined]
            return WriteResult(
                INDEX_ID, "updated", None, False, (change,), lost_entries=lost_in(index.text, after)
            )


def lost_in(before: str, after: str) -> tuple[LostEntry, ...]:
    """Rough edge 3: an index write that drops entries, or breaks their lines, says which."""
    return tuple(LostEntry(*lost) for lost in lost_entries(parse_index(before), parse_index(after)))
