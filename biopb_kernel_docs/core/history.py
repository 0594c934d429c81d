"""Every write keeps the text it replaced: numbered versions of each doc, with who wrote them and when.

Where. ``.history/`` in the local tier, beside the docs and never one of them: a hidden folder,
so it is not listed, not counted by a cap, not readable as an id (an id starts with a letter,
digit or '_'), not in the manifest and not in the watchers' fingerprint. Each doc has a folder,
``.history/<id>@/``: '@' is outside the id charset, so the folder of ``a`` never meets the
folder of an id ``a/b`` (``.history/a/b@/``).

The file format (a JSON header line, then the doc's bytes, checksummed) is ``version_file``'s.
One version is not a file: a created doc's first is a record appended to ``.history/firsts``
(``first_versions``), so a create makes no folder and no file for it; the doc's folder is made
with its second version.

The files themselves (one a version, their bounds, why files and not a log, what each write
costs) are ``version_folders``'. A process reuses what it listed of a doc's versions while the
doc stays in the newest version's state, that version is still kept and no later version
appears (three stats), so a run of writes costs no listing.

Order and crash safety. A write runs under the store's lock, in this order:

1. *settle* the doc's history against its file on disk (below);
2. drop the oldest versions the bounds require: the first one dropped is renamed to the new
   version's number rather than removed, and its file is written over in 3;
3. write the new version in place, *pending*: its header starts ``{"landed":0,`` (cut short, or
   still holding the dropped version's bytes, it does not verify);
4. write the doc: temp file, fsync, rename, fsync of its directory;
5. *commit* the version: its ``landed`` digit becomes 1, one byte written through the descriptor
   of step 3 (format 1 renamed ``<number>.pending`` instead; ``version_file`` reads both).

A SIGKILL can land anywhere. Before 4's rename, the pending version (whole, cut short, or the
dropped one's bytes under the new number) is ahead of the doc: settling finds a version that
does not verify, or a pending one the doc does not match, a write that never landed, and
removes it. Between 4 and 5, settling finds a pending version the doc matches, and commits it.
After 5, both happened. Only a pending version is ever removed this way, so a
committed one is never mistaken for a write that failed (a doc created, then deleted by hand,
keeps its version). Every look at a history settles it first, under the lock, so no reader sees
a version that does not match the doc.

Settling also records what happened outside the store: a committed newest version the doc no
longer matches was followed by an edit made elsewhere (an editor, a script, a deletion), which
is recorded as an ``outside edit``, timed by the file's modification time. The store looks
before every write and whenever a history is read.

The version file is not fsynced (the doc still is): a SIGKILL cannot lose it, since the page
cache outlives the process, and an fsync of it costs about as much as the whole write it would
guard (measured). After a power loss the newest version may be missing or fail its checksum;
settling then records the doc as an outside edit: attribution can be lost, consistency cannot.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .blame import line_delta
from .errors import DocNotFound
from .phrases import read_history
from .values import Author
from .version_file import EARLIER, OUTSIDE, SHIPPED, Entry, Header, State, encode
from .version_folders import HistoryLimits, Pending, VersionFolders

if TYPE_CHECKING:
    from .store import DocFile

HISTORY_DIR = ".history"


@dataclass
class _Known:
    """What this process last saw of a doc's history: still true while the doc is in the newest
    version's state, that version is still kept and no version after it exists (only a write,
    under the lock, adds one; the bounds drop the oldest first, so while that version is kept,
    none after it can have been dropped unseen)."""

    entries: list[Entry]
    head: Header | None
    landed: bool = True  # False from a record to its commit: the head is still pending on disk


class History:
    """The versions of one local tier's docs. Every method runs under the store's lock."""

    def __init__(self, local_root: str, limits: HistoryLimits) -> None:
        self.files = VersionFolders(os.path.join(local_root, HISTORY_DIR), limits)
        self._pending: dict[str, Pending] = {}  # the version each doc's write in progress recorded
        self._known: dict[str, _Known] = {}

    @property
    def limits(self) -> HistoryLimits:
        return self.files.limits

    def exists(self, doc_id: str) -> bool:
        return self.files.exists(doc_id)

    def _drop_pending(self, doc_id: str) -> Pending | None:
        pending = self._pending.pop(doc_id, None)
        if pending is not None:
            with contextlib.suppress(OSError):
                os.close(pending.fd)
        return pending

    # -- settling ----------------------------------------------------------------------------------

    def settle(self, doc_id: str, local: DocFile | None) -> tuple[list[Entry], Header | None]:
        """Bring the history in line with the doc's local file (``local``; None: there is none).

        A pending newest version whose text the doc now has landed: it is committed. One whose
        text the doc does not have never landed (killed before the doc's rename): it is removed.
        A file that does not verify is removed. A committed newest version the doc no longer
        matches was changed outside the store: that is recorded as an outside edit. Returns the
        version files and the newest header.

        What this process saw last time is used again when it still holds: the doc is still in
        the newest version's state, that version is still kept and no later version exists (three
        stats), so a run of writes lists the folder once, not at every write.
        """
        folder = self.files.folder(doc_id)
        self._drop_pending(doc_id)  # one left by a write interrupted before its commit
        state = local.sha256 if local is not None else None
        known = self._known.get(doc_id)
        head = known.head if known is not None else None
        # While the newest version this process saw is kept, no later one was dropped unseen:
        # another process writing past the bounds drops the oldest first.
        if (
            known is not None
            and known.landed
            and head is not None
            and head.state == state
            and not self.files.has_after(folder, head.number)
            and self.files.still_kept(folder, known.entries[-1])
        ):
            return known.entries, head
        entries = self.files.listing(folder)
        head = self._settle(folder, entries, local, state)
        self._known[doc_id] = _Known(entries, head)
        return entries, head

    def _settle(
        self, folder: str, entries: list[Entry], local: DocFile | None, state: str | None
    ) -> Header | None:
        while entries:
            entry = entries[-1]
            parsed = self.files.load(folder, entry)
            if parsed is None or (parsed[0].pending and parsed[0].state != state):
                self.files.remove(folder, entry)  # cut short or zeroed, or a write that never landed
                entries.pop()
                continue
            head, data = parsed
            if head.pending:
                self.files.mark_landed(folder, entries, entry)
                head = replace(head, pending=False)
            if head.state == state:
                return head
            previous = data.decode("utf-8", "replace") if data is not None else None
            after = State.of(local) if local is not None else None
            when = local.mtime if local is not None else time.time()
            outside = self._append(
                folder, entries, head.number + 1, OUTSIDE, head, previous, after, None, when
            )
            return outside[0]
        return None

    # -- recording ---------------------------------------------------------------------------------

    def record(
        self,
        doc_id: str,
        local: DocFile | None,
        replaced: DocFile | None,
        after: State | None,
        author: Author,
        restores: int | None = None,
    ) -> int:
        """Record a write about to land, as a *pending* version: ``replaced`` (what the id read as:
        the local file, or the shipped text a first copy shadows) becomes ``after``. Called under
        the lock, before the doc's rename; ``commit`` follows the rename. Returns its number."""
        folder = self.files.folder(doc_id)
        entries, head = self.settle(doc_id, local)
        self._known.pop(doc_id, None)  # changing: what is known is set again once it lands
        before = State.of(replaced) if replaced is not None else None
        if (
            before is not None
            and (head is None or head.after != before.sha256)
            and (after is None or before.data != after.data)
        ):
            # Keep the text this write replaces where no version holds it yet: a local text from
            # before history was kept, or the shipped text a copy shadows (a release may change it).
            origin = EARLIER if before.local else SHIPPED
            number = head.number + 1 if head is not None else 1
            head = self._append(folder, entries, number, origin, head, None, before, None, replaced.mtime)[0]
        number = head.number + 1 if head is not None else 1
        previous_text = before.text if before is not None else None
        written, pending = self._append(
            folder, entries, number, author, head, previous_text, after, restores, time.time(), before, True
        )
        assert pending is not None
        self._pending[doc_id] = pending
        self._known[doc_id] = _Known(entries, written, landed=False)
        return number

    def commit(self, doc_id: str, number: int) -> None:
        """The doc's rename landed: version ``number`` is no longer pending (its ``landed`` digit
        becomes 1, written through the descriptor it was written with). A kill before this leaves
        it pending, and the next settling commits it all the same (the doc matches it)."""
        recorded = self._pending.pop(doc_id, None)
        if recorded is not None and recorded.number == number:
            self.files.land(recorded)
            known = self._known.get(doc_id)
            if known is not None and known.head is not None and known.head.number == number:
                known.landed = True
            return
        if recorded is not None:
            with contextlib.suppress(OSError):
                os.close(recorded.fd)
        self._known.pop(doc_id, None)  # not the version this process wrote: look on disk
        folder = self.files.folder(doc_id)
        entries = self.files.listing(folder)
        for entry in entries:
            parsed = self.files.load(folder, entry, whole=False) if entry.number == number else None
            if parsed is not None and parsed[0].pending:
                self.files.mark_landed(folder, entries, entry)

    def forget(self, doc_id: str, number: int) -> None:
        """Remove pending version ``number``: its doc write failed (a full disk, say). Best effort:
        were it left, the next settling would remove it all the same."""
        folder = self.files.folder(doc_id)
        recorded = self._drop_pending(doc_id)
        self._known.pop(doc_id, None)
        if recorded is not None and recorded.number == number:
            self.files.remove(folder, Entry(number, 0, False, recorded.first))  # what this process wrote
            return
        for entry in self.files.listing(folder):
            parsed = self.files.load(folder, entry, whole=False) if entry.number == number else None
            if parsed is not None and parsed[0].pending:
                self.files.remove(folder, entry)

    def _append(
        self,
        folder: str,
        entries: list[Entry],
        number: int,
        author: Author,
        head: Header | None,
        previous_text: str | None,
        after: State | None,
        restores: int | None,
        when: float,
        prior: State | None = None,
        pending: bool = False,
    ) -> tuple[Header, Pending | None]:
        """Write version ``number`` (``version_folders`` keeps the bounds). A pending version is
        returned with its descriptor open, for its commit; None for any other."""
        if prior is None and head is not None:
            before_sha, local_before = head.after, head.local_after
        else:
            before_sha = prior.sha256 if prior is not None else None
            local_before = prior.local if prior is not None else False
        added, removed = line_delta(previous_text, after.text if after is not None else None)
        header, data = encode(
            number,
            when,
            author,
            before_sha,
            local_before,
            after,
            added,
            removed,
            restores,
            self.limits.max_bytes,
            pending,
        )
        return header, self.files.write(folder, entries, number, data, pending)

    # -- reading -----------------------------------------------------------------------------------

    def headers(self, doc_id: str, local: DocFile | None) -> list[Header]:
        """Every kept version's header, oldest first, after settling."""
        folder = self.files.folder(doc_id)
        entries, _ = self.settle(doc_id, local)
        found = []
        for entry in entries:
            parsed = self.files.load(folder, entry, whole=False)
            if parsed is not None:
                found.append(parsed[0])
        return found

    def texts(self, doc_id: str, local: DocFile | None) -> list[tuple[Header, bytes | None]]:
        """Every kept version with its text (None where not kept), oldest first, after settling."""
        folder = self.files.folder(doc_id)
        entries, _ = self.settle(doc_id, local)
        loaded = (self.files.load(folder, entry) for entry in entries)
        return [parsed for parsed in loaded if parsed is not None]

    def version(self, doc_id: str, number: int, local: DocFile | None) -> tuple[Header, bytes | None]:
        """One version and its text (None when it was over the byte bound)."""
        folder = self.files.folder(doc_id)
        entries, _ = self.settle(doc_id, local)
        for entry in entries:
            if entry.number == number:
                parsed = self.files.load(folder, entry)
                if parsed is not None:
                    return parsed
        kept = [entry.number for entry in entries]
        if not kept:
            raise no_versions(doc_id, enabled=True)
        if number in kept:  # listed, but its text does not verify (or its record was dropped since)
            raise DocNotFound(
                f"{doc_id!r} has no version {number} that can be read: its file is damaged (cut short by a "
                f"power loss, say) or was dropped since it was listed. {read_history(doc_id)} lists them."
            )
        if number > kept[-1]:
            why = f"the newest is v{kept[-1]}"
        else:
            why = f"older ones are dropped first, past the bounds; the oldest kept is v{kept[0]}"
        raise DocNotFound(f"{doc_id!r} has no version {number}: {why}. {read_history(doc_id)} lists them.")


def no_versions(doc_id: str, enabled: bool) -> DocNotFound:
    if not enabled:
        return DocNotFound(
            "No history is kept here: DocStore.history_max_versions is 0. Set it to keep versions "
            "(100 by default)."
        )
    return DocNotFound(
        f"{doc_id!r} has no versions kept: it has not been written through the store since history "
        f"began. {read_history(doc_id)} lists versions once it has."
    )
