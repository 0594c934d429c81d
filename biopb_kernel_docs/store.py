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
from pathlib import Path

import filelock

from .errors import InvalidDocId, StoreUnavailable, UnreadableDoc
from .ids import DOC_SUFFIX, ID_RULES, INDEX_ID, is_banked, is_valid_doc_id

# Read once: os.umask can only be read by setting it, and setting it while another thread (the
# user's cell, in a kernel) creates a file would give that file the wrong permissions.
_UMASK = os.umask(0o022)
os.umask(_UMASK)

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
    path: str
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
            mode = 0o666 & ~_UMASK
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
        self._root_paths = {Tier.SHIPPED: str(self.shipped_dir), Tier.LOCAL: str(self.local_dir)}
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
    # Paths are built as strings and probed with lstat: these run once or twice per index entry on
    # every render, so they stay close to the bare syscalls (benchmarks/bench_store.py).

    def _probe(self, tier: Tier, doc_id: str) -> tuple[str, os.stat_result | None]:
        """The file path of ``doc_id`` in ``tier`` and its stat (None when absent).

        The charset already rules out '..' and absolute ids, so the only way out of a tier is a
        symlink on the way; one found is resolved, and refused if it lands outside.
        """
        root = self._root_paths[tier]
        parts = doc_id.split("/")
        parts[-1] += DOC_SUFFIX
        path = current = root
        for part in parts:
            path = current = current + os.sep + part
            try:
                status = os.lstat(current)
            except (FileNotFoundError, NotADirectoryError):
                return os.path.join(root, *parts), None
            if stat.S_ISLNK(status.st_mode):
                return self._follow_link(tier, doc_id, os.path.join(root, *parts))
        return path, status

    def _follow_link(self, tier: Tier, doc_id: str, path: str) -> tuple[str, os.stat_result | None]:
        root = self._root_paths[tier]
        real = os.path.realpath(path)
        if os.path.commonpath([real, root]) != root:
            raise InvalidDocId(
                f"Doc id {doc_id!r} leads through a symlink to {real}, outside the {tier.value} tier at "
                f"{root}. Ids stay inside their tier: remove or fix that link. {ID_RULES}"
            )
        try:
            return path, os.stat(real)
        except (FileNotFoundError, NotADirectoryError):
            return path, None

    def path_of(self, tier: Tier, doc_id: str) -> Path:
        """The file of ``doc_id`` in ``tier``; refuses any id whose real location leaves the tier."""
        return Path(self._probe(tier, doc_id)[0])

    def exists(self, tier: Tier, doc_id: str) -> bool:
        """Whether ``doc_id`` has a file in ``tier``; an id that escapes its tier has none."""
        try:
            status = self._probe(tier, doc_id)[1]
        except InvalidDocId:
            return False
        return status is not None and stat.S_ISREG(status.st_mode)

    # -- reading -------------------------------------------------------------------------------

    def read(self, tier: Tier, doc_id: str) -> DocFile | None:
        """The doc's file in ``tier``, or None when there is none."""
        path, status = self._probe(tier, doc_id)
        if status is None:
            return None
        if stat.S_ISDIR(status.st_mode):
            raise UnreadableDoc(
                f"{path} is a directory, not a doc. Ids name files: read_doc('index') lists the docs."
            )
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except FileNotFoundError:
            return None  # removed between the probe and the read
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
        crlf = "\r" in raw and "\r\n" in raw  # the one-character search is a fast memchr
        return DocFile(
            doc_id=doc_id,
            tier=tier,
            path=path,
            text=raw.replace("\r\n", "\n") if crlf else raw,
            crlf=crlf,
            sha256=sha256_of(data),
            mtime=status.st_mtime,
        )

    def _walk_ids(self, tier: Tier) -> Iterator[str]:
        root = self._root_paths[tier]
        for directory, subdirectories, files in os.walk(root):
            subdirectories[:] = [name for name in subdirectories if not name.startswith(".")]
            prefix = os.path.relpath(directory, root).replace(os.sep, "/") + "/"
            prefix = "" if prefix == "./" else prefix
            for name in files:
                if name.startswith(".") or not name.endswith(DOC_SUFFIX):
                    continue
                doc_id = prefix + name[: -len(DOC_SUFFIX)]
                if doc_id != INDEX_ID and is_valid_doc_id(doc_id):
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
        return DocFile(doc_id, Tier.LOCAL, str(path), text, crlf, sha256_of(data), mtime)

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
