"""One file as read from a tier, and the tiers themselves.

``DocFile`` is built on every read (``store``), so it is kept cheap: slots, and text decoded only
when asked for.
"""

from __future__ import annotations

import hashlib
from enum import Enum


class Tier(Enum):
    SHIPPED = "shipped"
    LOCAL = "local"


class DocFile:
    """One file as read: its text with '\\n' line ends, and what is needed to write it back alike.

    A plain class with slots, not a frozen dataclass: one is built on every read, and a frozen
    dataclass's ``__init__`` costs as much as a syscall (§7: read_doc within 2x of a bare read).
    Treat it as immutable."""

    __slots__ = ("_sha256", "_text", "crlf", "data", "doc_id", "mode", "mtime", "path", "tier", "version")

    def __init__(
        self,
        doc_id: str,
        tier: Tier,
        path: str,
        data: bytes,
        text: str | None,  # None: ``data`` is ASCII, decoded when first asked for
        crlf: bool,
        mtime: float,
        mode: int | None,  # None: a file this process wrote with the usual permissions
        version: int | None = None,  # the history version a write recorded for it
    ) -> None:
        self.doc_id = doc_id
        self.tier = tier
        self.path = path
        self.data = data
        self._text = text
        self.crlf = crlf
        self.mtime = mtime
        self.mode = mode
        self.version = version
        self._sha256: str | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            raw = self.data.decode("ascii")
            self._text = raw.replace("\r\n", "\n") if self.crlf else raw
        return self._text

    @property
    def sha256(self) -> str:
        if self._sha256 is None:
            self._sha256 = sha256_of(self.data)
        return self._sha256

    def __repr__(self) -> str:
        return f"DocFile({self.doc_id!r}, {self.tier.value}, {self.path!r})"


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
