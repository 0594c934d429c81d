"""Single files read and written so that nothing blocks and nothing tears.

A read opens without following the caller into a wait: a FIFO, socket or device is refused from
its fstat, never read. A write goes to a temp file in the same directory, is fsynced, renamed over
the target and its directory fsynced, so a reader or a crash sees the old file or the new one.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import uuid
from pathlib import Path

from .errors import StoreUnavailable, UnreadableDoc
from .ids import INDEX_ID
from .phrases import read

TEMP_PREFIX, TEMP_SUFFIX = ".tmp-", ".part"
READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
_NEW_FILE_MODE = 0o666  # the process umask applies, as for any file the user creates


if os.access in os.supports_follow_symlinks:

    def present(path: str) -> bool:
        """Whether a directory entry exists at ``path`` (a link counts, even one that loops): one
        syscall, and no exception raised and caught when it does not (the common answer on a
        write's hot path)."""
        return os.access(path, os.F_OK, follow_symlinks=False)

else:  # pragma: no cover - platforms without faccessat's no-follow flag

    def present(path: str) -> bool:
        return os.path.lexists(path)


def kind_of(mode: int) -> str:
    """What a file that is not a regular file is, in words: 'a FIFO (named pipe)'."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "an unusual kind of file"


def not_a_doc_file(path: str, mode: int) -> UnreadableDoc:
    if stat.S_ISDIR(mode):
        return UnreadableDoc(
            f"{path} is a folder where a doc's file would be, so that doc cannot be read or written. "
            "Rename the folder (no doc id names a folder ending in '.md'), then retry; "
            f"{read(INDEX_ID)} lists the docs."
        )
    return UnreadableDoc(
        f"{path} is {kind_of(mode)}, not a doc file. Move it out of the docs directory; the store "
        "never reads or replaces it."
    )


def read_regular(path: str, extra_flags: int = 0) -> tuple[bytes, os.stat_result]:
    """The bytes of ``path``, opened so that a FIFO or device can never block the read."""
    fd = os.open(path, READ_FLAGS | extra_flags)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise not_a_doc_file(path, status.st_mode)
        data = os.read(fd, status.st_size + 1)  # one read when the size is right, as it nearly always is
        if len(data) > status.st_size:  # the file grew since the fstat: read the rest
            chunks = [data]
            while chunk := os.read(fd, 1 << 16):
                chunks.append(chunk)
            data = b"".join(chunks)
        return data, status
    finally:
        os.close(fd)


def fsync_directory(directory: str) -> None:
    # Windows cannot open a directory; there the rename itself is what is durable.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write(path: str | os.PathLike[str], data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` so that no reader or crash ever sees a partial file.

    ``mode`` keeps an existing file's permissions; a new file gets the usual ones (umask applied).
    """
    path = os.fspath(path)
    directory = os.path.dirname(path)
    temp = os.path.join(directory, f"{TEMP_PREFIX}{uuid.uuid4().hex[:16]}{TEMP_SUFFIX}")
    fd = os.open(temp, _TEMP_FLAGS, _NEW_FILE_MODE if mode is None else mode)
    try:
        try:
            if mode is not None:
                os.fchmod(fd, mode)  # the umask may have narrowed it
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    fsync_directory(directory)


def _file_in_the_way(path: str) -> str | None:
    """The first of ``path``'s folders that is a file: what the refused call met (``path`` is the
    folder a makedirs wanted, or a file below it)."""
    for folder in [*reversed(Path(path).parents), Path(path)]:
        if os.path.lexists(folder) and not os.path.isdir(folder):
            return str(folder)
    return None


def write_failure(path: str, err: OSError) -> StoreUnavailable:
    """The refusal for a write the disk refused, naming the real cause (not always space)."""
    if err.errno == errno.ENOSPC:
        what, fix = "the disk is full", "Free some space, then retry."
    elif err.errno in (errno.ENOTDIR, errno.EEXIST, errno.EISDIR):
        blocker = _file_in_the_way(err.filename or path)
        what, fix = (
            f"a file is where a folder on its path must be ({blocker or err.strerror})",
            "Move that file aside (doc files end in .md; nothing else belongs in the docs folders), "
            "then retry.",
        )
    else:
        what, fix = (
            err.strerror or str(err),
            "Check that the local docs directory is writable (DocStore.docs_local_dir moves it), then retry.",
        )
    return StoreUnavailable(f"Could not write {path}: {what}. That file was left as it was. {fix}")
