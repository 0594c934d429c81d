"""The files that hold the docs' versions: listing, loading, writing, landing and removing them.

What the versions mean (settling a history against its doc, recording a write) is ``history``'s;
this module only keeps the files. Each doc has a folder, ``.history/<id>@/``, with one file a
version, named by its number; a created doc's first version is a record in ``.history/firsts``
instead (``first_versions``).

Why one file per version rather than an append-only log: a version is one file, whole or
removed, with no torn tail to find and cut inside a log; dropping the oldest is one file given
over to the newest, never a rewrite of a log that is 2 MiB at its bound, and the bounds hold to
the version and the byte (a log dropping whole segments would keep fewer, or hold more on disk);
and a reader needs no offsets. The price is a directory of up to 100 small files per doc, listed
(with a stat each, for the byte bound) once per process (``history`` says when a listing is
reused).

What a write pays for its version: at the bound, the oldest file renamed to the new number and
written over, below it a new file (for a create, an append to ``firsts``); the one write of its
bytes; one byte written in place when it lands. No fsync, no listing, no unlink. A file is given
over rather than removed and made anew because making a file can cost as much as the fsynced
write of the doc itself (ext4 without a journal skips every inode freed in the last minute when
it allocates one, and a run of writes frees one per write); a rename and a write over an existing
file cost little.

Bounds. At most ``max_versions`` versions and ``max_bytes`` bytes per doc (100 and 2 MiB by
default, ``DocStore.history_max_versions``/``history_max_bytes``); the oldest are dropped
first, before the new version is written, so a kill never leaves more. A version whose text
alone exceeds the byte bound keeps its header (who, when, the sha256s) without the text.
"""

from __future__ import annotations

import contextlib
import operator
import os
import uuid
from dataclasses import dataclass
from typing import NamedTuple

from .files import TEMP_PREFIX, TEMP_SUFFIX, present
from .first_versions import FirstVersions
from .version_file import (
    HEADER_PROBE,
    LANDED,
    LANDED_AT,
    PENDING_SUFFIX,
    Entry,
    Header,
    load,
    number_of,
    parse,
)

DEFAULT_MAX_VERSIONS = 100
DEFAULT_MAX_BYTES = 2 * 1024 * 1024
FOLDER_SUFFIX = "@"
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
_OVERWRITE = os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_SIZE = operator.attrgetter("size")


@dataclass(frozen=True)
class HistoryLimits:
    max_versions: int = DEFAULT_MAX_VERSIONS
    max_bytes: int = DEFAULT_MAX_BYTES


class Pending(NamedTuple):
    """A version written for a doc write in progress, and the descriptor it was written through
    (landing it turns the ``landed`` digit, at ``at``, through that descriptor)."""

    number: int
    fd: int
    at: int = LANDED_AT
    first: bool = False  # kept in ``first_versions``, not a file of its own


class VersionFolders:
    """The version files of one local tier's docs, under ``<history root>``. Every method runs
    under the store's lock."""

    def __init__(self, root: str, limits: HistoryLimits) -> None:
        self.root = root
        self.limits = limits
        self.firsts = FirstVersions(root)
        self._swept: set[str] = set()
        self._folders: dict[str, str] = {}
        self._ids: dict[str, str] = {}  # folder -> id

    def folder(self, doc_id: str) -> str:
        folder = self._folders.get(doc_id)
        if folder is None:
            folder = self._folders[doc_id] = os.path.join(self.root, *doc_id.split("/")) + FOLDER_SUFFIX
            self._ids[folder] = doc_id
        return folder

    def exists(self, doc_id: str) -> bool:
        return os.path.isdir(self.folder(doc_id)) or self.firsts.find(doc_id) is not None

    def listing(self, folder: str) -> list[Entry]:
        """Each version, oldest first. Temp files a killed writer left are swept (under the lock no
        live writer has one open)."""
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

    def has_after(self, folder: str, number: int) -> bool:
        """Whether a version after ``number`` has been written, landed or pending."""
        following = f"{folder}{os.sep}{number + 1:08d}"
        return present(following) or present(following + PENDING_SUFFIX)

    def still_kept(self, folder: str, entry: Entry) -> bool:
        """Whether ``entry`` is still on disk (one stat, or a look in ``firsts``)."""
        if entry.first:
            return self.firsts.find(self._ids[folder]) is not None
        return present(f"{folder}{os.sep}{entry.name}")

    def load(self, folder: str, entry: Entry, whole: bool = True) -> tuple[Header, bytes | None] | None:
        """A version's header and (``whole``) its text; None when it does not verify."""
        if not entry.first:
            return load(folder, entry, whole)
        record = self.firsts.find(self._ids[folder])
        data = self.firsts.read(record, None if whole else HEADER_PROBE) if record is not None else None
        if data is not None and not whole and b"\n" not in data:
            return self.load(folder, entry, whole=True)
        return parse(entry, data, whole) if data is not None else None

    def remove(self, folder: str, entry: Entry) -> None:
        if entry.first:
            record = self.firsts.find(self._ids[folder])
            if record is not None:
                self.firsts.drop(record)
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(folder, entry.name))

    def mark_landed(self, folder: str, entries: list[Entry], entry: Entry) -> None:
        """Mark a pending version found on disk as landed: its ``landed`` digit, or (format 1) its
        name, whose entry in ``entries`` is replaced."""
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

    def land(self, pending: Pending) -> None:
        """Mark the version this process wrote as landed, through its descriptor, and close it."""
        try:
            os.pwrite(pending.fd, LANDED, pending.at)
            if pending.first:
                self.firsts.wrote(pending.fd)
        finally:
            os.close(pending.fd)

    def write(
        self, folder: str, entries: list[Entry], number: int, data: bytes, pending: bool
    ) -> Pending | None:
        """Write version ``number``'s encoded ``data`` (dropping the oldest first, as the bounds
        require) and append it to ``entries``. A pending version is returned with its descriptor
        open, for its landing; None for any other.

        A created doc's first version (pending, and the doc has no versions) is appended to
        ``firsts``; every other version is a file in the doc's folder."""
        if pending and number == 1 and not entries:
            record, fd = self.firsts.append(self._ids[folder], data)
            entries.append(Entry(number, len(data), False, True))
            return Pending(number, fd, record.body + LANDED_AT, True)
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
        return Pending(number, fd) if pending else None

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
                self.remove(folder, oldest)
        return spare
