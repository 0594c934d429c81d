"""The two tiers on disk: the only module that touches the filesystem.

§1: shipped (read-only, inside the package) and local (the user's), read fresh on every access.
Writes go to the local tier only, atomically and durably (temp file in the same directory, fsync,
rename, fsync of the directory). Every read-modify-write holds ``lock()``, one inter-process lock
per local tier, so writers in different processes never drop each other's edits. Reads take no
lock: a rename is atomic, so a reader sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path, PurePosixPath

import filelock

from .errors import InvalidDocId, StoreUnavailable, UnreadableDoc
from .ids import (
    ID_RULES,
    INDEX_ID,
    id_from_relative_path,
    is_banked,
    relative_doc_path,
)

LOCK_NAME = ".lock"
LOCK_TIMEOUT_SECONDS = 30
_EMPTY_INDEX = "# Docs\n"


class Tier(Enum):
    SHIPPED = "shipped"
    LOCAL = "local"


@dataclass(frozen=True)
class DocFile:
    """One file as read: its text with '\\n' line ends, and what is needed to write it back alike."""

    doc_id: str
    tier: Tier
    path: Path
    text: str
    crlf: bool
    sha256: str
    mtime: float


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _fsync_directory(directory: Path) -> None:
    # Windows cannot open a directory; there the rename itself is what is durable.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that no reader or crash ever sees a partial file."""
    directory = path.parent
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
    fd, temp_name = tempfile.mkstemp(prefix=".tmp-", suffix=".part", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temp_name, mode)
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
    _fsync_directory(directory)


class Store:
    """The shipped and local tiers of one doc set."""

    def __init__(self, shipped_dir: Path | str, local_dir: Path | str, shipped_version: str) -> None:
        self.shipped_dir = Path(shipped_dir).expanduser().resolve()
        self.local_dir = Path(local_dir).expanduser().resolve()
        self.shipped_version = shipped_version
        self._held = threading.local()
        if not self.shipped_dir.is_dir():
            raise StoreUnavailable(
                f"The shipped docs directory {self.shipped_dir} does not exist. Reinstall "
                "biopb-kernel-docs, or point DocStore.shipped_dir at a directory of docs."
            )
        for one, other in ((self.shipped_dir, self.local_dir), (self.local_dir, self.shipped_dir)):
            if one == other or one.is_relative_to(other):
                raise StoreUnavailable(
                    f"The local tier {self.local_dir} and the shipped tier {self.shipped_dir} overlap, "
                    "and the shipped tier is never written. Set DocStore.docs_local_dir to a "
                    "directory of its own, such as ~/.config/biopb/docs."
                )

    def root(self, tier: Tier) -> Path:
        return self.shipped_dir if tier is Tier.SHIPPED else self.local_dir

    # -- paths ---------------------------------------------------------------------------------

    def path_of(self, tier: Tier, doc_id: str) -> Path:
        """The file of ``doc_id`` in ``tier``; refuses any id whose real location leaves the tier."""
        root = self.root(tier)
        path = root / relative_doc_path(doc_id)
        # The charset already rules out '..' and absolute ids; what is left is a symlink on the way.
        if self._crosses_symlink(root, path) and not path.resolve().is_relative_to(root):
            raise InvalidDocId(
                f"Doc id {doc_id!r} leads through a symlink to {path.resolve()}, outside the "
                f"{tier.value} tier at {root}. Ids stay inside their tier: remove or fix that link. "
                + ID_RULES
            )
        return path

    @staticmethod
    def _crosses_symlink(root: Path, path: Path) -> bool:
        current = root
        for part in path.relative_to(root).parts:
            current = current / part
            try:
                if stat.S_ISLNK(os.lstat(current).st_mode):
                    return True
            except (FileNotFoundError, NotADirectoryError):
                return False
        return False

    def exists(self, tier: Tier, doc_id: str) -> bool:
        """Whether ``doc_id`` has a file in ``tier``; an id that escapes its tier has none."""
        try:
            return self.path_of(tier, doc_id).is_file()
        except InvalidDocId:
            return False

    # -- reading -------------------------------------------------------------------------------

    def read(self, tier: Tier, doc_id: str) -> DocFile | None:
        """The doc's file in ``tier``, or None when there is none."""
        path = self.path_of(tier, doc_id)
        try:
            data = path.read_bytes()
            mtime = path.stat().st_mtime
        except (FileNotFoundError, NotADirectoryError):
            return None
        except IsADirectoryError:
            raise UnreadableDoc(
                f"{path} is a directory, not a doc. Ids name files: read_doc('index') lists the docs."
            ) from None
        except OSError as err:
            raise UnreadableDoc(f"Cannot read {path}: {err.strerror}. Check its permissions.") from err
        try:
            raw = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise UnreadableDoc(
                f"{path} is not valid UTF-8 (byte 0x{data[err.start]:02x} at offset {err.start}), so "
                f"doc {doc_id!r} cannot be read or edited. It was left as it is: re-save it as UTF-8 "
                "in an editor, or move it aside and write the doc again."
            ) from None
        return DocFile(
            doc_id=doc_id,
            tier=tier,
            path=path,
            text=raw.replace("\r\n", "\n"),
            crlf="\r\n" in raw,
            sha256=sha256_of(data),
            mtime=mtime,
        )

    def _walk_ids(self, tier: Tier) -> Iterator[str]:
        root = self.root(tier)
        for directory, subdirectories, files in os.walk(root):
            subdirectories[:] = [name for name in subdirectories if not name.startswith(".")]
            relative_directory = PurePosixPath(Path(directory).relative_to(root).as_posix())
            for name in files:
                if name.startswith("."):
                    continue
                doc_id = id_from_relative_path(relative_directory / name)
                if doc_id is not None and doc_id != INDEX_ID:
                    yield doc_id

    def shipped_ids(self) -> list[str]:
        """Shipped ids the reconciliation tail may list (§1: the one place banked ids are left out)."""
        return sorted(doc_id for doc_id in self._walk_ids(Tier.SHIPPED) if not is_banked(doc_id))

    def all_shipped_ids(self) -> list[str]:
        """Every shipped doc, banked ones included (the manifest and packaging checks use this)."""
        return sorted(self._walk_ids(Tier.SHIPPED))

    def local_ids(self) -> list[str]:
        """Every local doc, indexed or not; never the index, the manifest or other hidden files."""
        if not self.local_dir.is_dir():
            return []
        return sorted(self._walk_ids(Tier.LOCAL))

    # -- writing (local tier only) ------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the local tier's inter-process lock (every read-modify-write runs under it).

        Re-entrant within a thread, so a locked operation may call another that locks.
        """
        if getattr(self._held, "depth", 0):
            self._held.depth += 1
            try:
                yield
            finally:
                self._held.depth -= 1
            return
        self._ensure_local_dir()
        lock = filelock.FileLock(self.local_dir / LOCK_NAME, timeout=LOCK_TIMEOUT_SECONDS)
        try:
            lock.acquire()
        except filelock.Timeout:
            raise StoreUnavailable(
                f"Another process has held the lock on {self.local_dir} for over "
                f"{LOCK_TIMEOUT_SECONDS} s. Retry; if it persists, look for a stuck writer."
            ) from None
        self._held.depth = 1
        try:
            yield
        finally:
            self._held.depth = 0
            lock.release()

    def write_local(self, doc_id: str, text: str, crlf: bool = False) -> DocFile:
        """Atomically write ``doc_id`` in the local tier; ``text`` uses '\\n', ``crlf`` restores CRLF."""
        path = self.path_of(Tier.LOCAL, doc_id)
        if path.is_symlink():
            path = path.resolve()  # keep the user's link; path_of checked the target is inside the tier
        data = (text.replace("\n", "\r\n") if crlf else text).encode("utf-8")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, data)
            mtime = path.stat().st_mtime
        except OSError as err:
            raise StoreUnavailable(
                f"Could not write {path}: {err.strerror}. Nothing was changed; check that the local "
                "docs directory is writable (DocStore.docs_local_dir moves it)."
            ) from err
        return DocFile(doc_id, Tier.LOCAL, path, text, crlf, sha256_of(data), mtime)

    def _ensure_local_dir(self) -> None:
        try:
            self.local_dir.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StoreUnavailable(
                f"Cannot create the local docs directory {self.local_dir}: {err.strerror}. Point "
                "DocStore.docs_local_dir at a writable directory."
            ) from err

    def ensure_index(self) -> None:
        """§2: seed the local index from the shipped one when the local tier has none."""
        if self.exists(Tier.LOCAL, INDEX_ID):
            return
        with self.lock():
            if self.exists(Tier.LOCAL, INDEX_ID):
                return
            shipped = self.read(Tier.SHIPPED, INDEX_ID)
            self.write_local(INDEX_ID, shipped.text if shipped else _EMPTY_INDEX)

    # -- the loader's own bookkeeping beside the docs (§4) ---------------------------------------

    def read_state(self, name: str) -> bytes | None:
        """A hidden bookkeeping file of the local tier (never a doc), or None."""
        try:
            return (self.local_dir / name).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def write_state(self, name: str, data: bytes) -> None:
        """Atomically write a hidden bookkeeping file (a '.' name, so never taken for a doc)."""
        self._ensure_local_dir()
        try:
            atomic_write(self.local_dir / name, data)
        except OSError as err:
            raise StoreUnavailable(
                f"Could not write {self.local_dir / name}: {err.strerror}. Check that the local docs "
                "directory is writable."
            ) from err
