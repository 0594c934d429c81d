"""The kernel side of the MCP bridge: doc operations, run inside the shared kernel.

The bridge opens ``fast_channel`` here with one user expression on a subshell of its own, then
sends ``dispatch`` requests over it (or, where it cannot reach it, evaluates ``handle(request)``
as a user expression each time). Either way the calls answer while the user's cell runs on the
main shell. Requests and replies are JSON strings.
Each bridge session is a caller of its own (§8 risk 3: one caller's read never vouches for
another's write); the store's configuration is the kernel's (``c.DocStore.*``).
"""

from __future__ import annotations

import json
import threading
from typing import Any

from ._version import __version__
from .config import DocStore
from .errors import DocsError
from .ops import Docs

_lock = threading.Lock()
_doc_store: DocStore | None = None


def kernel_doc_store(shell=None) -> DocStore:
    """The kernel's one ``DocStore``, configured from the shell's traitlets config."""
    global _doc_store
    with _lock:
        if _doc_store is None:
            if shell is None:
                from IPython import get_ipython

                shell = get_ipython()
            _doc_store = DocStore(parent=shell)
        return _doc_store


def _describe_tiers(docs: Docs) -> dict[str, str]:
    return {
        "local_dir": str(docs.store.local_dir),
        "shipped_dir": str(docs.store.shipped_dir),
        "shipped_version": docs.store.shipped_version,
        "package_version": __version__,
    }


def _run(docs: Docs, operation: str, arguments: dict[str, Any]) -> Any:
    if operation == "read_doc":
        return docs.read_doc(arguments["id"])
    if operation == "write_doc":
        return docs.write_doc(
            arguments["id"], body=arguments.get("body"), old=arguments.get("old"), new=arguments.get("new")
        )
    if operation == "render_index":
        return docs.render_index()
    if operation == "describe_tiers":
        return _describe_tiers(docs)
    if operation == "ping":
        return "pong"
    raise ValueError(f"unknown bridge operation {operation!r}")


def dispatch(doc_store: DocStore, request: str) -> str:
    """Run one request ``{"session", "operation", "arguments"}``; reply ``{"ok", "result"|"error"}``."""
    message = json.loads(request)
    try:
        docs = doc_store.docs_for(f"agent:{message['session']}")
        result = _run(docs, message["operation"], message.get("arguments", {}))
    except DocsError as err:
        return json.dumps({"ok": False, "error": str(err), "kind": type(err).__name__})
    return json.dumps({"ok": True, "result": result})


def handle(request: str) -> str:
    """The bridge's entry point inside the kernel, against the kernel's own DocStore."""
    return dispatch(kernel_doc_store(), request)


def open_fast_channel() -> str:
    """Start (once) the kernel's docs channel, signed with the kernel's own key; return its endpoint."""
    from IPython import get_ipython

    from .fast_channel import start_server

    session = get_ipython().kernel.session
    kernel_doc_store()  # configured here, from the shell, before the channel's thread needs it
    return start_server(session.key, session.signature_scheme, handle)
