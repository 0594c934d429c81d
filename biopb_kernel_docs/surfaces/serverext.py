"""The Jupyter Server extension: the REST API, and a push event whenever the docs change.

The store's settings are the server's ``DocStore`` configuration over the shared config file
(``jupyter lab --DocStore.docs_local_dir=DIR`` works like any traitlets option). Each panel user
is one caller (§8 risk 3). Changes are pushed as jupyter_events events: at once after a write
through the API, and within ``POLL_SECONDS`` of a write anywhere else (the kernel's magics, the
MCP server, an editor), found by polling the store's fingerprint.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path

from tornado.ioloop import PeriodicCallback

from ..core.errors import DocsError
from ..core.ids import INDEX_ID, is_valid_doc_id
from ..core.index import parse_index
from ..core.review import ReviewedDocs
from ..core.store import Store, Tier
from ..core.values import Author
from .config import DocStore
from .handlers import handlers

EVENT_SCHEMA_ID = "https://biopb.org/schemas/kernel-docs/changed"
EVENT_SCHEMA = Path(__file__).resolve().parents[1] / "events" / "changed.yaml"
POLL_SECONDS = 0.25
# Callers remembered at once. A server reached by token alone sees a new anonymous user per
# request; without a bound each would keep its Docs (and what it read) for the server's life.
# The one forgotten longest ago goes first: it loses only its implicit stale-write guard.
MAX_CALLERS = 256


class DocsService:
    """What the handlers share: the store, each user's ``Docs``, and the change announcer."""

    def __init__(self, doc_store: DocStore, event_logger) -> None:
        resolved = doc_store.resolve()
        self.store = Store(
            resolved.shipped_dir, resolved.local_dir, resolved.shipped_version, resolved.history
        )
        self.config = resolved.view
        self.event_logger = event_logger
        self._callers: OrderedDict[str, ReviewedDocs] = OrderedDict()
        self._lock = threading.Lock()
        self._index_stat: tuple[int, int, int] | None = None
        self._listed: tuple[str, ...] = ()
        self._seen = self._fingerprint()

    def docs_for(self, user: str, name: str | None = None) -> ReviewedDocs:
        """The user's ``Docs``: one caller per Jupyter user (``user``, the username), whose writes
        the history records as the panel's, by the user's ``name`` as Jupyter shows it (a
        token-authenticated user's username is a random hex string; its name reads "Anonymous Io")."""
        with self._lock:
            docs = self._callers.get(user)
            if docs is None:
                author = Author("panel", name=name or user)
                docs = self._callers[user] = ReviewedDocs(self.store, self.config, author)
                while len(self._callers) > MAX_CALLERS:
                    self._callers.popitem(last=False)
            self._callers.move_to_end(user)
            return docs

    def _fingerprint(self) -> dict[str, tuple[int, int, int]]:
        return {path: rest for path, *rest in self.store.fingerprint(self._listed_ids())}

    def _listed_ids(self) -> tuple[str, ...]:
        """The index's entries, parsed again only when index.md's stat moved."""
        try:
            status = os.stat(self.store.local_dir / "index.md")
            key = (status.st_mtime_ns, status.st_size, status.st_ino)
        except OSError:
            key = None
        if key != self._index_stat:
            self._index_stat = key
            try:
                index = self.store.read(Tier.LOCAL, INDEX_ID)
            except DocsError:
                index = None
            entries = parse_index(index.text).entries if index else ()
            self._listed = tuple(e.doc_id for e in entries if is_valid_doc_id(e.doc_id))
        return self._listed

    def changed(self) -> None:
        """Look now (a write just landed) rather than at the next poll."""
        self.poll()

    def poll(self) -> None:
        current = self._fingerprint()
        if current == self._seen:
            return
        moved = {
            path for path in current.keys() | self._seen.keys() if current.get(path) != self._seen.get(path)
        }
        self._seen = current
        local = str(self.store.local_dir) + "/"
        ids = sorted(
            path[len(local) : -len(".md")]
            for path in moved
            if path.startswith(local) and path.endswith(".md")
        )
        index_moved = not ids or "index" in ids or any(not path.endswith(".md") for path in moved)
        data = {"what": "index" if index_moved else "doc", "ids": ids}
        try:
            index = self.store.read(Tier.LOCAL, INDEX_ID)
        except DocsError:
            index = None
        if index is not None:
            data["index_sha256"] = index.sha256
        self.event_logger.emit(schema_id=EVENT_SCHEMA_ID, data=data)


def load(serverapp) -> None:
    service = DocsService(
        DocStore(parent=serverapp, origin="the Jupyter Server configuration"), serverapp.event_logger
    )
    serverapp.event_logger.register_event_schema(EVENT_SCHEMA)
    web_app = serverapp.web_app
    web_app.settings["biopb_kernel_docs"] = service
    web_app.add_handlers(".*$", handlers(web_app.settings["base_url"]))
    PeriodicCallback(service.poll, POLL_SECONDS * 1000).start()
    serverapp.log.info(
        "biopb-kernel-docs: docs in %s, REST API under /biopb-kernel-docs/api/", service.store.local_dir
    )
