"""A direct line from the bridge to the store inside the kernel, past IPython's execute machinery.

An ``execute_request`` costs ipykernel about 7 ms whatever it runs, which would make every tool
call several times slower than the store itself. So the bridge uses one execute_request (on a
subshell) to start this channel inside the kernel process: a thread serving a ZeroMQ ROUTER on
loopback, answering the same frames as ``kernel_side.dispatch``. Every message is signed
with the kernel's own connection key (jupyter_client's ``Session``), so only a holder of the
connection file can call it, exactly as for the kernel's own channels; it runs the operation list's
operations and nothing else. Being a thread of its own, it also answers while the main shell is
busy, on kernels with or without subshells. The bridge falls back to execute requests when the
channel cannot be reached (a kernel on another host, behind a tunnel).

The serving loop survives anything a peer sends: unsigned, forged, replayed or malformed
messages get no answer, a request without its frame gets a refusal, and an oversized message is
dropped by ZeroMQ before it is read.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from queue import Empty
from typing import Any

import zmq
import zmq.asyncio
from jupyter_client.session import Session

REQUEST = "biopb_docs_request"
REPLY = "biopb_docs_reply"
MAX_MESSAGE_BYTES = 64 * 1024 * 1024

log = logging.getLogger(__name__)
_server_lock = threading.Lock()
_server_endpoint: str | None = None


# -- inside the kernel ------------------------------------------------------------------------------


def start_server(key: bytes, signature_scheme: str, handle: Callable[[str], str]) -> str:
    """Start the channel's thread once per process; return its endpoint."""
    global _server_endpoint
    with _server_lock:
        if _server_endpoint is None:
            socket = zmq.Context.instance().socket(zmq.ROUTER)
            socket.linger = 0
            socket.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
            port = socket.bind_to_random_port("tcp://127.0.0.1")
            session = Session(key=key, signature_scheme=signature_scheme)
            thread = threading.Thread(
                target=_serve, args=(socket, session, handle), name="biopb-docs-channel", daemon=True
            )
            thread.start()
            _server_endpoint = f"tcp://127.0.0.1:{port}"
        return _server_endpoint


def _serve(socket: zmq.Socket, session: Session, handle: Callable[[object], str]) -> None:
    while True:
        try:
            _answer_one(socket, session, handle)
        except Exception:  # whatever one message did, the channel keeps serving the next
            log.exception("biopb-kernel-docs channel: a message could not be answered")


def _answer_one(socket: zmq.Socket, session: Session, handle: Callable[[object], str]) -> None:
    identities, frames = session.feed_identities(socket.recv_multipart())
    try:
        message = session.deserialize(frames)  # checks the signature (and refuses replays)
    except Exception:  # an unsigned, forged or malformed message gets no answer
        return
    if message["header"].get("msg_type") != REQUEST:
        return
    content = message.get("content")
    answer = handle(content.get("request") if isinstance(content, dict) else None)
    reply = session.msg(REPLY, {"answer": answer}, parent=message["header"])
    socket.send_multipart(session.serialize(reply, identities))


# -- in the bridge ----------------------------------------------------------------------------------


class Channel:
    """The bridge's end: signed requests to the kernel's channel thread, replies matched by id."""

    def __init__(self, endpoint: str, key: bytes, signature_scheme: str) -> None:
        self.endpoint = endpoint
        self._session = Session(key=key, signature_scheme=signature_scheme)
        self._socket = zmq.asyncio.Context.instance().socket(zmq.DEALER)
        self._socket.linger = 0
        self._socket.connect(endpoint)

    async def send(self, request: str) -> str:
        """Send one request; returns the message id its reply will carry."""
        message = self._session.msg(REQUEST, {"request": request})
        await self._socket.send_multipart(self._session.serialize(message))
        return message["header"]["msg_id"]

    async def receive(self, msg_id: str, timeout: float) -> str:
        """The answer to ``msg_id``; raises ``queue.Empty`` when none arrives within ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not await self._socket.poll(remaining * 1000):
                raise Empty
            _, frames = self._session.feed_identities(await self._socket.recv_multipart())
            try:
                message: dict[str, Any] = self._session.deserialize(frames)
            except Exception:  # not a message of the kernel's channel: ignore it
                continue
            if message["parent_header"].get("msg_id") == msg_id:
                return message["content"].get("answer")

    def close(self) -> None:
        self._socket.close(linger=0)
