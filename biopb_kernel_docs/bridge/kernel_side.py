"""The kernel's half of the bridge: it answers every frame and never dies.

The bridge opens the channel here (``open_channel``) with one silent execute on a subshell, then
sends frames over it; where it cannot reach the channel it evaluates ``handle(frame)`` as a user
expression instead. Either way ``dispatch`` answers: a value, or a refusal for anything wrong
with the request (malformed, huge, an unknown operation from a newer bridge, the wrong argument
types) and for any exception inside an operation. Each bridge session is a caller of its own
(§8 risk 3: one caller's read never vouches for another's write), and its writes are recorded
in the history as made via MCP by the client the server names; the tiers are the kernel's
(``DocStore`` built from the shell's configuration). Operations that are the user's own
(dropping a local copy) are refused here: the agent has no delete.
"""

from __future__ import annotations

import logging
import threading
import traceback

from ..core.errors import DocsError, InternalError, InvalidArguments
from ..core.values import Author
from ..surfaces import operations
from ..surfaces.config import DocStore
from . import wire

log = logging.getLogger(__name__)
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
            _doc_store = DocStore(parent=shell, origin="the kernel's configuration")
        return _doc_store


def dispatch(doc_store: DocStore, frame: object) -> str:
    """Answer one request frame. Never raises: a bug becomes a refusal saying so."""
    try:
        request = wire.parse_request(frame)
        if operations.operation(request.operation).user_only:
            raise InvalidArguments(
                f"{request.operation} is the user's own action (in the notebook, the panel or the command "
                "line), not an agent's."
            )
        docs = doc_store.docs_for(f"agent:{request.session}", mcp_author(request.client))
        return wire.answer_frame(operations.run(docs, request.operation, request.arguments))
    except DocsError as err:
        return wire.refusal_frame(err)
    except Exception as err:  # the channel keeps serving whatever an operation did
        log.error("biopb-kernel-docs: a docs call failed inside the kernel\n%s", traceback.format_exc())
        return wire.refusal_frame(
            InternalError(
                f"The docs call failed inside the kernel ({type(err).__name__}: {err}). This is a bug in "
                "biopb-kernel-docs; please report it. The kernel and the other calls are unaffected."
            )
        )


AUTHOR_LABEL_LIMIT = 100  # characters of a client's declared name or version the history keeps


def mcp_author(client: dict[str, str] | None) -> Author:
    """The author of an agent's writes: via MCP, by the client the server says it serves. What a
    client declares is its own text: kept to one printable line, AUTHOR_LABEL_LIMIT at most."""
    client = client or {}
    return Author("mcp", name=_label(client.get("name")), version=_label(client.get("version")))


def _label(declared: str | None) -> str | None:
    printable = "".join(c for c in (declared or "")[: AUTHOR_LABEL_LIMIT * 4] if c.isprintable())
    return printable.strip()[:AUTHOR_LABEL_LIMIT] or None


def handle(frame: str) -> str:
    """The fallback entry point, evaluated as a user expression."""
    return dispatch(kernel_doc_store(), frame)


def open_channel() -> str:
    """Start (once) the kernel's docs channel, signed with the kernel's own key; return its endpoint."""
    from IPython import get_ipython

    from .channel import start_server

    session = get_ipython().kernel.session
    doc_store = kernel_doc_store()  # built here, from the shell, before the channel's thread needs it
    return start_server(session.key, session.signature_scheme, lambda frame: dispatch(doc_store, frame))
