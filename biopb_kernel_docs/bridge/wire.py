"""The frames the bridge and the kernel side exchange: JSON text, with a protocol version.

A request names its caller's session, the surface that will show the answer, the operation and
its arguments, and (optionally) who the caller is: the MCP client's declared name and version,
which the history records as the author of a write (a kernel of an older release ignores it).
An answer is a value (``values.to_json``) or a refusal that keeps its kind (``errors.from_kind``)
and its message's placeholders, so it is rendered where it is shown.
Both sides check the protocol version and say which side to upgrade when they differ.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .._version import __version__
from ..core.edits import DOC_BYTE_CAP
from ..core.errors import BridgeMismatch, DocsError, InternalError, InvalidArguments, LimitExceeded, from_kind
from ..core.values import from_json, to_json

PROTOCOL = 2
# A doc is at most 64 KiB (edits.DOC_BYTE_CAP); a frame this large is not one of ours. Frames are
# json.dumps output, pure ASCII, so their characters are their bytes.
MAX_FRAME_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class Request:
    session: str
    operation: str
    arguments: dict[str, Any]
    client: dict[str, str] | None = None  # the MCP client's declared {"name", "version"}


def request_frame(
    session: str, operation: str, arguments: dict[str, Any], client: dict[str, str] | None = None
) -> str:
    payload = {"protocol": PROTOCOL, "version": __version__, "session": session}
    if client:
        payload["client"] = client
    return json.dumps({**payload, "operation": operation, "arguments": arguments})


def _mismatch(their_protocol: object, their_version: object, side: str) -> BridgeMismatch:
    newer = isinstance(their_protocol, int) and their_protocol > PROTOCOL
    older_side = "this side" if newer else side
    return BridgeMismatch(
        f"The MCP server and the kernel run different biopb-kernel-docs versions (protocol {PROTOCOL}, "
        f"version {__version__} here; protocol {their_protocol}, version {their_version} on {side}). "
        f"Upgrade the one on {older_side} (pip install -U biopb-kernel-docs in its environment), then "
        "restart the kernel and reconnect."
    )


def parse_request(frame: object) -> Request:
    """The request in ``frame``; a frame that is not one raises a DocsError saying what is wrong."""
    if not isinstance(frame, str):
        raise InvalidArguments(f"A bridge request is JSON text, not {type(frame).__name__}.")
    if len(frame) > MAX_FRAME_BYTES:
        raise LimitExceeded(
            f"A request of {len(frame):,} bytes was refused before it reached the store: the limit is 8 MiB "
            f"({MAX_FRAME_BYTES:,} bytes) per request, and a doc is at most 64 KiB ({DOC_BYTE_CAP:,} "
            "bytes). Nothing was written. Send a shorter doc, or an old/new edit of one part of it."
        )
    try:
        message = json.loads(frame)
    except ValueError as err:
        raise InvalidArguments(f"A bridge request was not valid JSON ({err}).") from None
    except RecursionError:
        raise InvalidArguments(
            "A bridge request nests JSON too deeply to read; it is not one of ours."
        ) from None
    if not isinstance(message, dict):
        raise InvalidArguments("A bridge request is a JSON object.")
    if message.get("protocol") != PROTOCOL:
        raise _mismatch(message.get("protocol", 1), message.get("version", "older"), "the MCP server's side")
    session, operation, arguments = message.get("session"), message.get("operation"), message.get("arguments")
    if not isinstance(session, str) or not isinstance(operation, str) or not isinstance(arguments, dict):
        raise InvalidArguments(
            "A bridge request needs a string session and operation and an arguments object."
        )
    client = message.get("client")
    if not isinstance(client, dict) or not all(isinstance(v, str) for v in client.values()):
        client = None
    return Request(session, operation, arguments, client)


def answer_frame(value: Any) -> str:
    return json.dumps({"protocol": PROTOCOL, "version": __version__, "ok": True, "value": to_json(value)})


def refusal_frame(error: DocsError) -> str:
    refusal = {"kind": error.kind(), "template": error.template}
    return json.dumps({"protocol": PROTOCOL, "version": __version__, "ok": False, "error": refusal})


def parse_answer(frame: object) -> Any:
    """The value an answer carries; a refusal is raised as the DocsError it was on the kernel side."""
    try:
        message = json.loads(frame) if isinstance(frame, str) else None
    except ValueError:
        message = None
    if not isinstance(message, dict):
        raise InternalError(
            "The kernel answered a docs call with something that is not a bridge answer. This is a bug in "
            "biopb-kernel-docs; please report it."
        )
    if message.get("protocol") != PROTOCOL:
        raise _mismatch(message.get("protocol", 1), message.get("version", "older"), "the kernel's side")
    if message.get("ok"):
        return from_json(message.get("value"))
    error = message.get("error") or {}
    raise from_kind(str(error.get("kind")), str(error.get("template")))
