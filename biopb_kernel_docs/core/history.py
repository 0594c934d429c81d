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

Why one file per version rather than an append-only log: a version is one file, whole or
removed, with no torn tail to find and cut inside a log; dropping the oldest is one file given
over to the newest, never a rewrite of a log that is 2 MiB at its bound, and the bounds hold to
the version and the byte (a log dropping whole segments would keep fewer, or hold more on disk);
and a reader needs no offsets. The price is a directory of up to 100 small files per doc, listed
(with a stat each, for the byte bound) once per process: while the doc stays in the newest
version's state, that version is still kept and no later version appears (three stats), a
process reuses what it listed, so a run of writes costs no listing.

What a write pays for its version: those three stats; at the bound, the oldest file renamed to the
new number and written over, below it a new file (for a create, an append to ``firsts``); the one
write of its bytes; one byte written in place at the commit. No fsync, no listing, no unlink. A
file is given over rather than removed and made anew because making a file can cost as much as the
fsynced write of the doc itself (ext4 without a journal skips every inode freed in the last minute
when it allocates one, and a run of writes frees one per write); a rename and a write over an
existing file cost little.

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

Bounds. At most ``max_versions`` versions and ``max_bytes`` bytes per doc (100 and 2 MiB by
default, ``DocStore.history_max_versions``/``history_max_bytes``); the oldest are dropped
first, before the new version is written, so a kill never leaves more. A version whose text
alone exceeds the byte bound keeps its header (who, when, the sha256s) without the text.
"""

from __future__ import annotations

import contextlib
import operator
import os
import time
import uuid
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NamedTuple

from .blame import line_delta
from .errors import DocNotFound
from .files import TEMP_PREFIX, TEMP_SUFFIX
from .first_versions import FirstVersions
from .phrases import read_history
from .values import Author
from .version_file import (
    EARLIER,
    HEADER_PROBE,
    LANDED,
    LANDED_AT,
    OUTSIDE,
    PENDING_SUFFIX,
    SHIPPED,
    Entry,
    Header,
    State,
    encode,
    load,
    number_of,
    parse,
)

if TYPE_CHECKING:
    from .store import DocFile

HISTORY_DIR = ".history"
FOLDER_SUFFIX = "@"
DEFAULT_MAX_VERSIONS = 100
DEFAULT_MAX_BYTES = 2 * 1024 * 1024
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
_SIZE = operator.attrgetter("size")
_OVERWRITE = os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True)
class HistoryLimits:
    max_versions: int = DEFAULT_MAX_VERSIONS
    max_bytes: int = DEFAULT_MAX_BYTES


if os.access in os.supports_follow_symlinks:

    def _present(path: str) -> bool:
        """Whether a directory entry exists at ``path``: one syscall, and no exception raised and
        caught when it does not (the common answer, checked at every write)."""
        return os.access(path, os.F_OK, follow_symlinks=False)

else:  # pragma: no cover - platforms without faccessat's no-follow flag
    _present = os.path.lexists


class _Pending(NamedTuple):
    """A version this process wrote for a doc write in progress, and the descriptor it was
    written through (its commit turns the ``landed`` digit, at ``at``, through it)."""

    number: int
    fd: int
    at: int = LANDED_AT
    first: bool = False  # kept in ``first_versions``, not a file of its own


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
        self.root = os.path.join(local_root, HISTORY_DIR)
        self.limits = limits
        self._swept: set[str] = set()
        self._pending: dict[str, _Pending] = {}  # the version each doc's write in progress recorded
        self._known: dict[str, _Known] = {}
        self._folders: dict[str, str] = {}
        self._ids: dict[str, str] = {}  # folder -> id
        self.firsts = FirstVersions(self.root)

    def folder(self, doc_id: str) -> str:
        folder = self._folders.get(doc_id)
        if folder is None:
            folder = self._folders[doc_id] = os.path.join(self.root, *doc_id.split("/")) + FOLDER_SUFFIX
            self._ids[folder] = doc_id
        return folder

    def exists(self, doc_id: str) -> bool:
        return os.path.isdir(self.folder(doc_id)) or self.firsts.find(doc_id) is not None

    # -- the files -------------------------------------------------------------------------------

    def _entries(self, folder: str) -> list[Entry]:
        """Each version file, oldest first. Temp files a killed writer left are swept (under the
        lock no live writer has one open)."""
        try:
            names = os.listdir(folder)
        except (FileNotFoundError, NotADirectoryError):
            names = []
        found = []
        sweep = folder not in self._swept
        for name in names:
            numbered = number_of(name)
            if numbered is not None:
                try:
                    size = os.stat(os.path.join(folder, name)).st_size
                except FileNotFoundError:
                    continue
                found.append(Entry(numbered[0], size, numbered[1]))
            elif sweep and name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(folder, name))
        if names:
            self._swept.add(folder)
        found.sort()
        first = self.firsts.find(self._ids[folder])
        if first is not None:
            if not found or found[0].number > 1:
                found.insert(0, Entry(1, first.length, False, True))
            else:  # a v1 file too: written by a release that keeps no firsts; the file is the one
                self.firsts.drop(first)
        return found

    def _remove(self, folder: str, entry: Entry) -> None:
        if entry.first:
            record = self.firsts.find(self._ids[folder])
            if record is not None:
                self.firsts.drop(record)
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(folder, entry.name))

    def _load(self, folder: str, entry: Entry, whole: bool = True) -> tuple[Header, bytes | None] | None:
        if not entry.first:
            return load(folder, entry, whole)
        record = self.firsts.find(self._ids[folder])
        data = self.firsts.read(record, None if whole else HEADER_PROBE) if record is not None else None
        if data is not None and not whole and b"\n" not in data:
            return self._load(folder, entry, whole=True)
        return parse(entry, data, whole) if data is not None else None

    def _commit(self, folder: str, entries: list[Entry], entry: Entry) -> None:
        """Mark a pending version on disk as landed: its ``landed`` digit, or (format 1) its name."""
        if entry.first:
            record = self.firsts.find(self._ids[folder])
            if record is not None:
                self.firsts.commit(record)
            return
        path = os.path.join(folder, entry.name)
        if not entry.pending:
            fd = os.open(path, _OVERWRITE)
            try:
                os.pwrite(fd, LANDED, LANDED_AT)
            finally:
                os.close(fd)
            return
        committed = entry._replace(pending=False)
        os.replace(path, os.path.join(folder, committed.name))
        entries[entries.index(entry)] = committed

    def _drop_pending(self, doc_id: str) -> _Pending | None:
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
        folder = self.folder(doc_id)
        self._drop_pending(doc_id)  # one left by a write interrupted before its commit
        state = local.sha256 if local is not None else None
        known = self._known.get(doc_id)
        head = known.head if known is not None else None
        if known is not None and known.landed and head is not None and head.state == state:
            following = f"{folder}{os.sep}{head.number + 1:08d}"
            if (
                not _present(following)
                and not _present(following + PENDING_SUFFIX)
                and self._still_kept(doc_id, folder, known.entries[-1])
            ):
                return known.entries, head
        entries = self._entries(folder)
        head = self._settle(folder, entries, local, state)
        self._known[doc_id] = _Known(entries, head)
        return entries, head

    def _still_kept(self, doc_id: str, folder: str, entry: Entry) -> bool:
        """Whether ``entry``, the newest version this process saw, is still on disk. Another process
        writing on past the bounds drops it before any version after it, so while it is kept, no
        later version can have been dropped and its file given over (unseen) to a newer one."""
        if entry.first:
            return self.firsts.find(doc_id) is not None
        return _present(f"{folder}{os.sep}{entry.name}")

    def _settle(
        self, folder: str, entries: list[Entry], local: DocFile | None, state: str | None
    ) -> Header | None:
        while entries:
            entry = entries[-1]
            parsed = self._load(folder, entry)
            if parsed is None or (parsed[0].pending and parsed[0].state != state):
                self._remove(folder, entry)  # cut short or zeroed, or a write that never landed
                entries.pop()
                continue
            head, data = parsed
            if head.pending:
                self._commit(folder, entries, entry)
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
        folder = self.folder(doc_id)
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
            try:
                os.pwrite(recorded.fd, LANDED, recorded.at)
                if recorded.first:
                    self.firsts.wrote(recorded.fd)
            finally:
                os.close(recorded.fd)
            known = self._known.get(doc_id)
            if known is not None and known.head is not None and known.head.number == number:
                known.landed = True
            return
        if recorded is not None:
            with contextlib.suppress(OSError):
                os.close(recorded.fd)
        self._known.pop(doc_id, None)  # not the version this process wrote: look on disk
        folder = self.folder(doc_id)
        entries = self._entries(folder)
        for entry in entries:
            parsed = self._load(folder, entry, whole=False) if entry.number == number else None
            if parsed is not None and parsed[0].pending:
                self._commit(folder, entries, entry)

    def forget(self, doc_id: str, number: int) -> None:
        """Remove pending version ``number``: its doc write failed (a full disk, say). Best effort:
        were it left, the next settling would remove it all the same."""
        folder = self.folder(doc_id)
        recorded = self._drop_pending(doc_id)
        self._known.pop(doc_id, None)
        if recorded is not None and recorded.number == number:
            self._remove(folder, Entry(number, 0, False, recorded.first))  # what this process wrote
            return
        for entry in self._entries(folder):
            parsed = self._load(folder, entry, whole=False) if entry.number == number else None
            if parsed is not None and parsed[0].pending:
                self._remove(folder, entry)

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
    ) -> tuple[Header, _Pending | None]:
        """Write version ``number`` (dropping the oldest first, as the bounds require). A pending
        version is returned with its descriptor open, for its commit; None for any other.

        A created doc's first version (pending, and the doc has no history) is appended to
        ``first_versions``; every other version is a file in the doc's folder."""
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
        if pending and number == 1 and not entries:
            record, fd = self.firsts.append(self._ids[folder], data)
            entries.append(Entry(number, len(data), False, True))
            return header, _Pending(number, fd, record.body + LANDED_AT, True)
        entry = Entry(number, len(data), False)
        spare = self._make_room(folder, entries, entry.size)
        # A pending version is written in place: one cut short by a kill does not verify, and one
        # whole says it has not landed; settling removes either unless the doc has its text. A
        # version written landed (an observation, which settling would keep) goes through a temp
        # file and a rename, so it is whole or absent.
        path = f"{folder}{os.sep}{number:08d}"
        target = (
            path if pending else os.path.join(folder, f"{TEMP_PREFIX}{uuid.uuid4().hex[:16]}{TEMP_SUFFIX}")
        )
        fd = self._reuse(folder, spare, target) if spare is not None else None
        if fd is None:
            fd = self._create(folder, target)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                if spare is not None:  # cut what the dropped version held beyond the new one
                    os.ftruncate(fd, len(data))
            finally:
                if not pending:
                    os.close(fd)
            if target != path:
                os.replace(target, path)
        except BaseException:
            if pending:
                os.close(fd)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(target)
            raise
        entries.append(entry)
        return header, (_Pending(number, fd) if pending else None)

    @staticmethod
    def _create(folder: str, target: str) -> int:
        try:
            return os.open(target, _NEW_FILE, 0o666)
        except FileNotFoundError:  # the doc's first version (or its folder was removed by hand)
            os.makedirs(folder, exist_ok=True)
            return os.open(target, _NEW_FILE, 0o666)
        except FileExistsError:  # a pending file of a writer that died, not yet settled away
            os.unlink(target)
            return os.open(target, _NEW_FILE, 0o666)

    @staticmethod
    def _reuse(folder: str, spare: Entry, target: str) -> int | None:
        """Open the dropped oldest version's file, renamed to ``target``, to be written over; None
        when it cannot be (then it is removed, and a new file is made)."""
        old = f"{folder}{os.sep}{spare.name}"
        try:
            os.replace(old, target)
            return os.open(target, _OVERWRITE)
        except OSError:
            for path in (old, target):
                with contextlib.suppress(OSError):
                    os.unlink(path)
            return None

    def _make_room(self, folder: str, entries: list[Entry], incoming: int) -> Entry | None:
        """Drop the oldest versions until one more of ``incoming`` bytes fits both bounds. The first
        one dropped is not removed but returned, for its file to hold the new version."""
        total = sum(map(_SIZE, entries))  # 100 sizes: a microsecond, not worth keeping in step
        spare = None
        while entries and (
            len(entries) + 1 > self.limits.max_versions or total + incoming > self.limits.max_bytes
        ):
            oldest = entries.pop(0)
            total -= oldest.size
            if spare is None and not oldest.first:
                spare = oldest
            else:
                self._remove(folder, oldest)
        return spare

    # -- reading -----------------------------------------------------------------------------------

    def headers(self, doc_id: str, local: DocFile | None) -> list[Header]:
        """Every kept version's header, oldest first, after settling."""
        folder = self.folder(doc_id)
        entries, _ = self.settle(doc_id, local)
        found = []
        for entry in entries:
            parsed = self._load(folder, entry, whole=False)
            if parsed is not None:
                found.append(parsed[0])
        return found

    def texts(self, doc_id: str, local: DocFile | None) -> list[tuple[Header, bytes | None]]:
        """Every kept version with its text (None where not kept), oldest first, after settling."""
        folder = self.folder(doc_id)
        entries, _ = self.settle(doc_id, local)
        return [parsed for parsed in (self._load(folder, entry) for entry in entries) if parsed is not None]

    def version(self, doc_id: str, number: int, local: DocFile | None) -> tuple[Header, bytes | None]:
        """One version and its text (None when it was over the byte bound)."""
        folder = self.folder(doc_id)
        entries, _ = self.settle(doc_id, local)
        for entry in entries:
            if entry.number == number:
                parsed = self._load(folder, entry)
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
