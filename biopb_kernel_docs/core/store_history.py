"""The store's side of the history (``history``): the user's Drop of a local copy, recorded first;
a write's version committed once its doc landed; and a doc's versions read back, each settled
against its file under the lock first.

A mixin of ``Store`` (``store``): it uses that class's history, lock and reads.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

from .docfile import DocFile, Tier
from .files import fsync_directory, write_failure
from .history import History, no_versions
from .values import Author
from .version_file import Header, State

if TYPE_CHECKING:
    from contextlib import AbstractContextManager


class StoreHistory:
    """remove_local, version commits and version reads (``Store`` provides the rest)."""

    history: History | None

    if TYPE_CHECKING:

        def lock(self) -> AbstractContextManager[None]: ...

        def read(self, tier: Tier, doc_id: str) -> DocFile | None: ...

    def remove_local(
        self, doc_id: str, local: DocFile, shipped: DocFile | None, author: Author
    ) -> int | None:
        """Remove a local file (the user's Drop of a local copy), recorded in the history first, so
        the id reads as ``shipped`` again. Call under the lock with the files read under it."""
        with self.lock():
            version = None
            try:
                if self.history is not None:
                    after = (
                        State(shipped.data, shipped.text, shipped.sha256, local=False) if shipped else None
                    )
                    version = self.history.record(doc_id, local, local, after, author)
                os.unlink(local.path)
            except FileNotFoundError:
                pass
            except OSError as err:
                if version is not None and self.history is not None:
                    self.history.forget(doc_id, version)
                raise write_failure(local.path, err) from err
            fsync_directory(os.path.dirname(local.path))
            if version is not None and self.history is not None:
                self._commit(doc_id, version)
        return version

    def _commit(self, doc_id: str, version: int) -> None:
        assert self.history is not None
        with contextlib.suppress(OSError):  # the doc landed; a version left pending is committed later
            self.history.commit(doc_id, version)

    def versions(self, doc_id: str) -> list[Header]:
        """``doc_id``'s kept versions, oldest first, settled against its file first (an outside edit
        is recorded, a write that never landed dropped). Creates nothing where no history is."""
        if self.history is None or not self.history.exists(doc_id):
            return []
        with self.lock():
            return self.history.headers(doc_id, self.read(Tier.LOCAL, doc_id))

    def version_texts(self, doc_id: str) -> list[tuple[Header, bytes | None]]:
        """Every kept version of ``doc_id`` with its bytes, oldest first (settled first)."""
        if self.history is None or not self.history.exists(doc_id):
            return []
        with self.lock():
            return self.history.texts(doc_id, self.read(Tier.LOCAL, doc_id))

    def version(self, doc_id: str, number: int) -> tuple[Header, bytes | None]:
        """One kept version of ``doc_id`` and its bytes (None when not kept)."""
        if self.history is None or not self.history.exists(doc_id):
            return self._no_history(doc_id)
        with self.lock():
            return self.history.version(doc_id, number, self.read(Tier.LOCAL, doc_id))

    def _no_history(self, doc_id: str):
        raise no_versions(doc_id, enabled=self.history is not None)
