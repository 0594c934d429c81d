"""The two tiers on disk: the only module that touches the filesystem.

§1: shipped (read-only, inside the package) and local (the user's), read fresh on every access.
Writes go to the local tier only, atomically and durably (temp file in the same directory, fsync,
rename, fsync of the directory), and every write holds ``lock()``, one inter-process lock per
local tier, so writers in different processes never drop each other's edits. Reads take no
lock: a rename is atomic, so a reader sees the old file or the new one, never half of one.
Nothing here blocks on a file that is not a regular file (a FIFO, a socket, a device): such a
file is refused, never opened for a wait.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from .docfile import DocFile, Tier, sha256_of
from .errors import InvalidDocId, OutsideTier, StoreUnavailable, UnreadableDoc
from .files import (
    NO_FOLLOW,
    TEMP_PREFIX,
    TEMP_SUFFIX,
    atomic_write,
    not_a_doc_file,
    present,
    read_regular,
    write_failure,
)
from .history import History
from .ids import DOC_SUFFIX, INDEX_ID, is_banked, is_valid_doc_id
from .lock import TierLock
from .store_history import StoreHistory
from .values import Author
from .version_file import State
from .version_folders import HistoryLimits

LOCK_NAME = ".lock"
MANIFEST_NAME = ".shipped-manifest.json"
LOCK_TIMEOUT_SECONDS = 30
_ABSENT = object()
_UNREAD = object()
PYTHON = Author("python")
DEFAULT_HISTORY = HistoryLimits()

Fingerprint = tuple[tuple[str, int, int, int], ...]


class Store(StoreHistory):
    """The shipped and local tiers of one doc set."""

    def __init__(
        self,
        shipped_dir: Path | str,
        local_dir: Path | str,
        shipped_version: str,
        history: HistoryLimits | None = DEFAULT_HISTORY,
    ) -> None:
        self.shipped_dir = Path(shipped_dir).expanduser().resolve()
        self.local_dir = Path(local_dir).expanduser().resolve()
        self.shipped_version = shipped_version
        self._root_paths = {Tier.SHIPPED: str(self.shipped_dir), Tier.LOCAL: str(self.local_dir)}
        # None: no history is kept (DocStore.history_max_versions = 0).
        self.history_limits = history if history is not None and history.max_versions > 0 else None
        self.history = History(str(self.local_dir), self.history_limits) if self.history_limits else None
        self._lock = TierLock(os.path.join(self._root_paths[Tier.LOCAL], LOCK_NAME), LOCK_TIMEOUT_SECONDS)
        self._swept: set[str] = set()
        self._shipped_cache: tuple[tuple[tuple[str, int], ...], list[str]] | None = None
        self._local_dir_known = False
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
    # Paths are strings probed with lstat: a probe runs per index entry on every render, so it
    # stays one syscall per path segment (one in all for a flat id).

    def _probe(self, tier: Tier, doc_id: str) -> tuple[str, os.stat_result | None]:
        """The file path of ``doc_id`` in ``tier`` and its stat (None when absent).

        The charset already rules out '..' and absolute ids, so the only way out of a tier is a
        symlink on the way; one found is resolved, and refused if it lands outside.
        """
        root = self._root_paths[tier]
        parts = doc_id.split("/")
        parts[-1] += DOC_SUFFIX
        current = root
        status = None
        for part in parts:
            current = current + os.sep + part
            try:
                status = os.lstat(current)
            except (FileNotFoundError, NotADirectoryError):
                return os.path.join(root, *parts), None
            except OSError as err:
                raise self._unreachable(doc_id, current, err) from None
            if stat.S_ISLNK(status.st_mode):
                return self._follow_link(tier, doc_id, os.path.join(root, *parts))
        return current, status

    def _follow_link(self, tier: Tier, doc_id: str, path: str) -> tuple[str, os.stat_result | None]:
        root = self._root_paths[tier]
        real = os.path.realpath(path)
        if os.path.commonpath([real, root]) != root:
            raise OutsideTier(
                f"Doc id {doc_id!r} leads through a symlink to {real}, outside the {tier.value} tier at "
                f"{root}. The store never reads or writes outside its tiers, so this doc cannot be used "
                f"until that link is removed or points inside {root}."
            )
        try:
            return path, os.stat(real)
        except (FileNotFoundError, NotADirectoryError):
            return path, None
        except OSError as err:
            raise self._unreachable(doc_id, path, err) from None

    @staticmethod
    def _unreachable(doc_id: str, path: str, err: OSError) -> UnreadableDoc:
        problem = "it is a symlink loop" if err.errno == errno.ELOOP else err.strerror or str(err)
        return UnreadableDoc(f"Cannot reach doc {doc_id!r} at {path}: {problem}. Fix or remove that path.")

    def file_in_the_way(self, doc_id: str) -> str | None:
        """A local path that is not a folder where ``doc_id``'s file needs one (put there by hand),
        or None. A write there would fail after its index entry had landed."""
        current = self._root_paths[Tier.LOCAL]
        for part in doc_id.split("/")[:-1]:
            current = current + os.sep + part
            try:
                status = os.stat(current)
            except OSError:
                return None
            if not stat.S_ISDIR(status.st_mode):
                return current
        return None

    def path_of(self, tier: Tier, doc_id: str) -> str:
        """The file of ``doc_id`` in ``tier``; refuses any id whose real location leaves the tier."""
        return self._probe(tier, doc_id)[0]

    def exists(self, tier: Tier, doc_id: str) -> bool:
        """Whether ``doc_id`` has a regular file in ``tier``; an id that escapes its tier has none."""
        if "/" not in doc_id:  # one lstat; only a link needs the full probe (it may lead outside)
            try:
                mode = os.lstat(self._root_paths[tier] + os.sep + doc_id + DOC_SUFFIX).st_mode
            except OSError:
                return False
            if not stat.S_ISLNK(mode):
                return stat.S_ISREG(mode)
        try:
            status = self._probe(tier, doc_id)[1]
        except (InvalidDocId, OutsideTier, UnreadableDoc):
            return False
        return status is not None and stat.S_ISREG(status.st_mode)

    def signature(self, tier: Tier, doc_id: str) -> tuple[str, tuple[int, int, int]] | None:
        """The path of ``doc_id`` in ``tier`` and its (mtime_ns, size, inode), or None when there is
        no such file; what a reader that keeps texts compares to know a file has not moved."""
        if "/" not in doc_id:
            path = self._root_paths[tier] + os.sep + doc_id + DOC_SUFFIX
            try:
                status = os.lstat(path)
            except OSError:
                return None
            if not stat.S_ISLNK(status.st_mode):
                return path, (status.st_mtime_ns, status.st_size, status.st_ino)
        path, status = self._probe(tier, doc_id)
        if status is None:
            return None
        return path, (status.st_mtime_ns, status.st_size, status.st_ino)

    # -- reading -------------------------------------------------------------------------------

    def read(self, tier: Tier, doc_id: str) -> DocFile | None:
        """The doc's file in ``tier``, or None when there is none."""
        read = self._read_flat(tier, doc_id) if "/" not in doc_id else None
        if read is None:
            path, status = self._probe(tier, doc_id)
            if status is None:
                return None
            if not stat.S_ISREG(status.st_mode):
                raise not_a_doc_file(path, status.st_mode)
            try:
                read = path, *read_regular(path)
            except FileNotFoundError:
                return None  # removed between the probe and the read
            except OSError as err:
                raise UnreadableDoc(f"Cannot read {path}: {err.strerror}. Check its permissions.") from err
        elif read is _ABSENT:
            return None
        path, data, status = read
        mode = status.st_mode & 0o7777
        if data.isascii():  # valid UTF-8 whatever it holds; decoded only if the text is needed
            crlf = b"\r" in data and b"\r\n" in data  # the one-byte search is a fast memchr
            return DocFile(doc_id, tier, path, data, None, crlf, status.st_mtime, mode)
        try:
            raw = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise UnreadableDoc(
                f"{path} is not valid UTF-8 (byte 0x{data[err.start]:02x} at offset {err.start}), so "
                f"doc {doc_id!r} cannot be read or edited. It was left as it is: re-save it as UTF-8 "
                "in an editor, or move it aside and write the doc again."
            ) from None
        crlf = "\r" in raw and "\r\n" in raw  # the one-character search is a fast memchr
        text = raw.replace("\r\n", "\n") if crlf else raw
        return DocFile(doc_id, tier, path, data, text, crlf, status.st_mtime, mode)

    def _read_flat(self, tier: Tier, doc_id: str):
        """A flat id's file read without a probe first (open refuses to follow a link): its path,
        bytes and stat; ``_ABSENT``; or None for anything unusual (a link, a socket, no access),
        which the full probe then examines and explains."""
        path = self._root_paths[tier] + os.sep + doc_id + DOC_SUFFIX
        if tier is Tier.LOCAL and not present(path):
            return _ABSENT  # the common miss (no local copy), without raising and catching an OSError
        try:
            return (path, *read_regular(path, NO_FOLLOW))
        except (FileNotFoundError, NotADirectoryError):
            return _ABSENT
        except OSError:
            return None

    def _walk_ids(self, tier: Tier, top: str | None = None) -> Iterator[str]:
        root = self._root_paths[tier]
        for directory, subdirectories, files in os.walk(top or root):
            subdirectories[:] = [name for name in subdirectories if not name.startswith(".")]
            prefix = os.path.relpath(directory, root).replace(os.sep, "/") + "/"
            prefix = "" if prefix == "./" else prefix
            for name in files:
                if name.startswith(".") or not name.endswith(DOC_SUFFIX):
                    continue
                doc_id = prefix + name[: -len(DOC_SUFFIX)]
                if doc_id != INDEX_ID and is_valid_doc_id(doc_id):
                    yield doc_id

    def _shipped_listing(self) -> list[str]:
        """Every shipped id, sorted. The listing is kept while no shipped directory's mtime moves
        (adding, removing or renaming a file moves it): one stat per directory instead of a walk.
        A directory changed in the last two seconds is never trusted this way, since a second
        change within the clock's granularity would leave its mtime as it was."""
        if self._shipped_cache is not None:
            directories, listing = self._shipped_cache
            if all(_mtime_ns(path) == mtime for path, mtime in directories):
                return listing
        directories = []
        for directory, subdirectories, _ in os.walk(self._root_paths[Tier.SHIPPED]):
            subdirectories[:] = [name for name in subdirectories if not name.startswith(".")]
            directories.append((directory, _mtime_ns(directory)))
        listing = sorted(self._walk_ids(Tier.SHIPPED))
        settled = time.time_ns() - 2_000_000_000
        self._shipped_cache = (
            (tuple(directories), listing) if all(m < settled for _, m in directories) else None
        )
        return listing

    def shipped_ids(self) -> list[str]:
        """Shipped ids the reconciliation tail may list (§1: the one place banked ids are left out)."""
        return [doc_id for doc_id in self._shipped_listing() if not is_banked(doc_id)]

    def all_shipped_ids(self) -> list[str]:
        """Every shipped doc, banked ones included (the manifest and packaging checks use this)."""
        return list(self._shipped_listing())

    def ids_under(self, tier: Tier, collection: str) -> list[str]:
        """The ids of ``tier`` under ``collection`` (an id ending in '/'), banked ones included, sorted;
        a folder that is a link leading out of the tier holds none."""
        if tier is Tier.SHIPPED:
            return [doc_id for doc_id in self._shipped_listing() if doc_id.startswith(collection)]
        root = self._root_paths[tier]
        top = os.path.join(root, *collection.rstrip("/").split("/"))
        if not os.path.isdir(top) or os.path.commonpath([os.path.realpath(top), root]) != root:
            return []
        return sorted(self._walk_ids(tier, top))

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
        if not self._local_dir_known:
            self._ensure_local_dir()
            self._local_dir_known = True
        with self._lock.held():
            yield

    def write_local(
        self,
        doc_id: str,
        text: str,
        *,
        crlf: bool = False,
        mode: int | None = None,
        author: Author = PYTHON,
        replaced: DocFile | object | None = _UNREAD,
        restores: int | None = None,
    ) -> DocFile:
        """Atomically write ``doc_id`` in the local tier; ``text`` uses '\\n', ``crlf`` restores CRLF.

        ``mode`` keeps the permissions of the file being replaced; None gives a new file's usual ones.
        The history records the write first (``history``): by ``author``, replacing ``replaced``
        (what the id read as, as the caller read it under the lock; read here when not given).
        """
        path, status = self._probe(Tier.LOCAL, doc_id)
        if status is not None and os.path.islink(path):
            path = os.path.realpath(path)  # keep the user's link; the probe checked it stays inside
        data = (text.replace("\n", "\r\n") if crlf else text).encode("utf-8")
        version = after = None
        with self.lock():
            directory = os.path.dirname(path)
            try:
                if self.history is not None:
                    if replaced is _UNREAD:
                        replaced = self.read(Tier.LOCAL, doc_id) or self.read(Tier.SHIPPED, doc_id)
                    assert replaced is None or isinstance(replaced, DocFile)
                    local = replaced if replaced is not None and replaced.tier is Tier.LOCAL else None
                    after = State(data, text, sha256_of(data), local=True)
                    version = self.history.record(doc_id, local, replaced, after, author, restores)
                if status is None and not os.path.isdir(directory):
                    os.makedirs(directory, exist_ok=True)
                self._sweep_temp_files(directory)
                atomic_write(path, data, mode)
            except OSError as err:
                if version is not None and self.history is not None:
                    self.history.forget(doc_id, version)  # the doc was not written: neither was this
                raise write_failure(path, err) from err
            if version is not None and self.history is not None:
                self._commit(doc_id, version)
        written = DocFile(doc_id, Tier.LOCAL, path, data, text, crlf, time.time(), mode, version)
        if after is not None:
            written._sha256 = after.sha256  # computed once, for the history
        return written

    def _sweep_temp_files(self, directory: str) -> None:
        """Remove temp files a killed writer left (under the lock no live writer has one open)."""
        if directory in self._swept:
            return
        self._swept.add(directory)
        with contextlib.suppress(OSError), os.scandir(directory) as entries:
            for entry in entries:
                if entry.name.startswith(TEMP_PREFIX) and entry.name.endswith(TEMP_SUFFIX):
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)

    def _ensure_local_dir(self) -> None:
        try:
            self.local_dir.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StoreUnavailable(
                f"Cannot create the local docs directory {self.local_dir}: {err.strerror}. Point "
                "DocStore.docs_local_dir at a writable directory."
            ) from err

    # -- the loader's own bookkeeping beside the docs (§4) ---------------------------------------

    def read_state(self, name: str) -> bytes | None:
        """A hidden bookkeeping file of the local tier (never a doc), or None when absent or unusable."""
        try:
            return read_regular(os.path.join(self._root_paths[Tier.LOCAL], *name.split("/")))[0]
        except (OSError, UnreadableDoc):
            return None

    def write_state(self, name: str, data: bytes) -> None:
        """Atomically write a hidden bookkeeping file (its name or first folder starts with '.',
        so it is never taken for a doc), such as ``.review/lab/notes.md``."""
        path = os.path.join(self._root_paths[Tier.LOCAL], *name.split("/"))
        with self.lock():
            try:
                directory = os.path.dirname(path)
                os.makedirs(directory, exist_ok=True)
                self._sweep_temp_files(directory)
                atomic_write(path, data)
            except OSError as err:
                raise write_failure(path, err) from err

    # -- change detection ------------------------------------------------------------------------

    def fingerprint(self, local_ids: Iterable[str] | None = None) -> Fingerprint:
        """A cheap summary that moves whenever the rendered index, or a listed doc, can change.

        The rendering depends on index.md, the manifest, the shipped docs' text, and which local
        files exist (every store write is a rename, which moves its directory's mtime). With
        ``local_ids`` (the index's entries) only the local files that can matter are watched:
        those ids' and every shipped id's, and their directories, so a tier full of unlisted
        files costs nothing; their stats also move when a listed doc's text is edited in place.
        Without, every local directory is watched.
        """
        local, shipped = self._root_paths[Tier.LOCAL], self._root_paths[Tier.SHIPPED]
        paths = [os.path.join(local, f"{INDEX_ID}{DOC_SUFFIX}"), os.path.join(local, MANIFEST_NAME)]
        for directory, subdirectories, names in os.walk(shipped):
            subdirectories[:] = [name for name in subdirectories if not name.startswith(".")]
            paths.append(directory)
            paths += [os.path.join(directory, n) for n in names if not n.startswith(".")]
        if local_ids is None:
            for directory, subdirectories, _ in os.walk(local):
                subdirectories[:] = [name for name in subdirectories if not name.startswith(".")]
                paths.append(directory)
        else:
            watched = sorted({*local_ids, *self.all_shipped_ids()})
            files = [local + os.sep + doc_id + DOC_SUFFIX for doc_id in watched]
            paths += sorted({local, *(os.path.dirname(f) for f in files)}) + files
        return tuple(_stat_summary(path) for path in paths)


def _mtime_ns(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


def _stat_summary(path: str) -> tuple[str, int, int, int]:
    try:
        status = os.stat(path)
    except OSError:
        return (path, -1, -1, -1)
    return (path, status.st_mtime_ns, status.st_size, status.st_ino)
