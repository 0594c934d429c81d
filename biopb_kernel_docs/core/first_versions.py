"""A created doc's first version, appended to one shared file rather than made as a file of its own.

Why. A create is the one write whose version cannot take over a dropped version's file: its doc
has no history yet, so its version would be a new folder and a new file, and making those costs
as much as the fsynced write of the doc itself on a file system that skips recently freed inodes
(``history``). Appending a record to a file that already exists makes no inode. The doc's later
versions go to its folder as before; the first stays here until the bounds drop it.

Format. ``.history/firsts`` holds records one after another. A record is a frame line, then the
bytes of a version file exactly as ``version_file`` encodes them (header line, doc bytes, so it
carries its own checksum)::

    +0000000123 "lab/notes"\\n<123 bytes of version file>

The first byte says whether the record is live (``+``) or dropped (``-``); the number is the
version file's length; then the doc's id, as JSON. Dropping a record, or committing one (its
``landed`` digit, as in a version file), is one byte written in place.

Crash safety follows the version files': a record is appended pending before the doc's rename
and committed after it, under the store's lock. A kill during the append leaves a record cut
short at the end of the file: it does not parse, it is ignored, and the next append cuts it
off first. A record whose bytes do not verify is treated as absent, as a version file would be.

Size. Dropped records are cut out once they hold more bytes than the live ones and at least
``COMPACT_AT``: the live records are rewritten to a temp file renamed over this one (a rare
write, the one that makes a file here).
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from typing import NamedTuple

from .files import TEMP_PREFIX, TEMP_SUFFIX
from .version_file import LANDED, LANDED_AT

FIRSTS = "firsts"
LIVE = b"+"
DROPPED = b"-"
_LENGTH_DIGITS = 10
COMPACT_AT = 64 * 1024
_WRITE = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_JSON = json.JSONEncoder(ensure_ascii=False)


class Record(NamedTuple):
    """Where a live record's version file starts in ``firsts``, and its length."""

    start: int  # of the frame line
    body: int  # of the version file's bytes
    length: int


class _Parsed(NamedTuple):
    key: tuple[int, int, int]  # inode, size, mtime: what the file was when parsed
    live: dict[str, Record]
    end: int  # where the last whole record ends (a kill may have left a part after it)
    dropped: int  # bytes of dropped records


def frame(doc_id: str, length: int) -> bytes:
    return LIVE + f"{length:0{_LENGTH_DIGITS}d} {_JSON.encode(doc_id)}\n".encode()


def parse(data: bytes) -> tuple[dict[str, Record], int, int]:
    """The live records by id, where the whole records end, and the bytes of dropped ones."""
    live: dict[str, Record] = {}
    offset = dropped = 0
    while offset < len(data):
        newline = data.find(b"\n", offset)
        head = data[offset:newline] if newline >= 0 else b""
        try:
            status, length, doc_id = head[:1], int(head[1 : 1 + _LENGTH_DIGITS]), json.loads(head[12:])
        except ValueError:
            break  # cut short by a kill: nothing after it was ever written
        body = newline + 1
        if status not in (LIVE, DROPPED) or not isinstance(doc_id, str) or body + length > len(data):
            break
        if status == LIVE:
            live[doc_id] = Record(offset, body, length)
        else:
            dropped += body + length - offset
        offset = body + length
    return live, offset, dropped


class FirstVersions:
    """The ``firsts`` file of one history folder. Every method runs under the store's lock."""

    def __init__(self, history_root: str) -> None:
        self.root = history_root
        self.path = os.path.join(history_root, FIRSTS)
        self._parsed: _Parsed | None = None

    def _current(self) -> _Parsed | None:
        try:
            status = os.stat(self.path)
        except FileNotFoundError:
            self._parsed = None
            return None
        key = (status.st_ino, status.st_size, status.st_mtime_ns)
        if self._parsed is None or self._parsed.key != key:
            with open(self.path, "rb") as file:
                data = file.read()
            live, end, dropped = parse(data)
            self._parsed = _Parsed(key, live, end, dropped)
        return self._parsed

    def find(self, doc_id: str) -> Record | None:
        parsed = self._current()
        return parsed.live.get(doc_id) if parsed is not None else None

    def read(self, record: Record, limit: int | None = None) -> bytes | None:
        """The record's version file bytes (the first ``limit`` only, if given); None once it is
        dropped (by another process since this one parsed the file, say)."""
        length = record.length if limit is None else min(limit, record.length)
        skip = record.body - record.start
        try:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            return None
        try:
            data = os.pread(fd, skip + length, record.start)
        finally:
            os.close(fd)
        return data[skip:] if data[:1] == LIVE else None

    def append(self, doc_id: str, data: bytes) -> tuple[Record, int]:
        """Append ``data`` (a pending version file) as ``doc_id``'s record; returns it, and the
        descriptor it was written through, left open for its commit."""
        parsed = self._current()
        if parsed is not None and COMPACT_AT <= parsed.dropped > parsed.end - parsed.dropped:
            self._compact(parsed)
            parsed = self._current()
        # not O_APPEND: on Linux a pwrite to a file opened so lands at its end, and the commit
        # writes one byte in place through this descriptor
        try:
            fd = os.open(self.path, _WRITE, 0o666)
        except FileNotFoundError:  # no history folder yet
            os.makedirs(self.root, exist_ok=True)
            fd = os.open(self.path, _WRITE, 0o666)
        try:
            # the size _current() saw, under the lock (0: the file was not there)
            size = parsed.key[1] if parsed is not None else os.fstat(fd).st_size
            end = parsed.end if parsed is not None else 0
            if size > end:  # a record a killed writer left cut short
                os.ftruncate(fd, end)
            head = frame(doc_id, len(data))
            view, at = memoryview(head + data), end
            while view:
                written = os.pwrite(fd, view, at)
                view, at = view[written:], at + written
        except BaseException:
            os.close(fd)
            raise
        record = Record(end, end + len(head), len(data))
        # what was parsed, plus this record: the file is not parsed again for this process's own
        # write (under the lock nobody else wrote since it was looked at)
        live = {**(parsed.live if parsed is not None else {}), doc_id: record}
        dropped = parsed.dropped if parsed is not None else 0
        self._parsed = _Parsed(self._key(fd), live, at, dropped)
        return record, fd

    @staticmethod
    def _key(fd: int) -> tuple[int, int, int]:
        status = os.fstat(fd)
        return status.st_ino, status.st_size, status.st_mtime_ns

    def wrote(self, fd: int) -> None:
        """This process wrote a byte in place through ``fd`` (a commit), under the lock: what it
        parsed still holds, at the file's new modification time (not parsed again for it)."""
        if self._parsed is not None:
            self._parsed = self._parsed._replace(key=self._key(fd))

    def commit(self, record: Record) -> None:
        """Mark ``record`` landed: its version file's ``landed`` digit, written in place."""
        self._write_byte(record.body + LANDED_AT, LANDED)

    def drop(self, record: Record) -> None:
        """Mark ``record`` dropped: its status byte, written in place."""
        with contextlib.suppress(FileNotFoundError):
            self._write_byte(record.start, DROPPED)
        parsed = self._parsed
        if parsed is not None:
            live = {doc_id: kept for doc_id, kept in parsed.live.items() if kept != record}
            self._parsed = parsed._replace(
                live=live, dropped=parsed.dropped + record.body + record.length - record.start
            )

    def _write_byte(self, offset: int, byte: bytes) -> None:
        fd = os.open(self.path, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            os.pwrite(fd, byte, offset)
            self.wrote(fd)
        finally:
            os.close(fd)

    def _compact(self, parsed: _Parsed) -> None:
        """Rewrite the live records alone, to a temp file renamed over ``firsts`` (first removing
        any temp file an earlier rewrite, killed, left: under the lock none is in use)."""
        for name in os.listdir(self.root):
            if name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(self.root, name))
        with open(self.path, "rb") as file:
            data = file.read()
        kept = b"".join(data[record.start : record.body + record.length] for record in parsed.live.values())
        temp = os.path.join(self.root, f"{TEMP_PREFIX}{uuid.uuid4().hex[:16]}{TEMP_SUFFIX}")
        try:
            with open(temp, "wb") as file:
                file.write(kept)
            os.replace(temp, self.path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
        self._parsed = None
