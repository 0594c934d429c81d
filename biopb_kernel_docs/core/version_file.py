"""One version file of the history (``history``): its name, its header line, its checksum.

Format. One file per version, named by its number zero-padded to 8 digits. Its first line is a
JSON header: whether the write it records is known to have landed, the number, the time, who
wrote it, the sha256 of the doc before and after, the lines added and removed, whether a local
file holds the text; the rest is the doc's bytes after the version, exactly as the file held
them. The header's ``after`` is the sha256 of those bytes, so each file carries its own
checksum: a file cut short or filled with zeros (a kill, a power loss) does not verify and is
treated as absent.

Pending and landed (format 2). The header starts ``{"landed":0,`` while the doc write it records
is not known to have landed (the version is *pending*), and the writer turns that one digit into
``1`` once the doc's rename has landed: one byte written in place, through the descriptor the
version was written with, where format 1 renamed the file. Format 1 said the same in the file's
name instead (``<number>.pending`` until landed, no ``landed`` field); such files are still read,
and committed by that rename. A reader of format 1 (an older release still running beside this
one) reads a format 2 file as a landed version: the field is one it ignores, the name has no
suffix. It never takes one for damage and removes it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from .errors import DocsError
from .files import read_regular
from .values import Author, VersionInfo

if TYPE_CHECKING:
    from .store import DocFile

FORMAT = 2
PENDING_SUFFIX = ".pending"  # format 1: a version whose doc rename is not known to have landed
_LANDED_KEY = '{"landed":'
LANDED_AT = len(_LANDED_KEY)  # the offset of the digit a commit turns from 0 to 1
LANDED = b"1"
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))  # built once: a write runs it
HEADER_PROBE = 4096  # a header is well under this; a listing reads no further

OUTSIDE = Author("outside")  # an edit made outside the store (an editor on the file)
EARLIER = Author("earlier")  # a local file's text from before history was kept
SHIPPED = Author("shipped")  # the shipped text a first local copy replaced
LOADER = Author("loader")  # the loader seeding the index


@dataclass(frozen=True)
class State:
    """What an id reads as: its text's bytes, and whether a local file holds them (False: the
    shipped text shows through, e.g. after the local copy was dropped)."""

    data: bytes
    text: str
    sha256: str
    local: bool

    @classmethod
    def of(cls, doc: DocFile) -> State:
        return cls(doc.data, doc.text, doc.sha256, doc.tier.value == "local")


@dataclass(frozen=True)
class Header:
    """One version as its file's first line records it."""

    number: int
    time: float
    author: Author
    before: str | None  # sha256 of the text the id read as before (None: there was no doc)
    after: str | None  # sha256 of the text after (None: no doc at all)
    local_before: bool
    local_after: bool
    added: int
    removed: int
    lines: int
    kept: bool  # the text is in the file (False: over the byte bound)
    restores: int | None
    size: int  # of the whole file
    pending: bool = False  # its doc write is not known to have landed

    @property
    def state(self) -> str | None:
        """The local file's sha256 this version leaves (None: no local file)."""
        return self.after if self.local_after else None

    @property
    def prior_state(self) -> str | None:
        return self.before if self.local_before else None

    def info(self, current: bool) -> VersionInfo:
        return VersionInfo(
            number=self.number,
            time=self.time,
            author=self.author,
            before_sha256=self.before,
            after_sha256=self.after,
            added=self.added,
            removed=self.removed,
            lines=self.lines,
            size=self.size,
            kept=self.kept,
            local=self.local_after,
            restores=self.restores,
            current=current,
        )


def _author_json(author: Author) -> dict[str, str]:
    return {
        k: v
        for k, v in (
            ("surface", author.surface),
            ("name", author.name),
            ("where", author.where),
            ("version", author.version),
        )
        if v is not None
    }


@functools.lru_cache(maxsize=64)
def _author_text(author: Author) -> str:
    """``_author_json`` as JSON: a process writes as one author or a few."""
    return _JSON.encode(_author_json(author))


class Entry(NamedTuple):
    """One version file as the directory lists it."""

    number: int
    size: int
    pending: bool  # written, but the doc's rename it belongs to is not known to have landed
    first: bool = False  # a created doc's first version, kept in ``first_versions``, not a file

    @property
    def name(self) -> str:
        return f"{self.number:08d}" + (PENDING_SUFFIX if self.pending else "")


def number_of(name: str) -> tuple[int, bool] | None:
    """The version number a file name carries, and whether it is pending; None for any other file."""
    stem = name[: -len(PENDING_SUFFIX)] if name.endswith(PENDING_SUFFIX) else name
    return (int(stem), stem != name) if len(stem) >= 8 and stem.isdigit() else None


def encode(
    number: int,
    when: float,
    author: Author,
    before_sha: str | None,
    local_before: bool,
    after: State | None,
    added: int,
    removed: int,
    restores: int | None,
    max_bytes: int,
    pending: bool = False,
) -> tuple[Header, bytes]:
    """A version file's header and bytes; the text is left out when the whole would exceed
    ``max_bytes`` (the header still says who and when).

    Every write of a kept history runs this, so the header line is spelled here, field by field
    (what ``json`` would write for the same dict, ``landed`` first at its fixed offset), and the
    header is built rather than parsed back."""
    when = round(when, 3)
    data = after.data if after is not None else b""
    after_sha = after.sha256 if after is not None else None
    local_after = after.local if after is not None else False
    lines = _line_count(data)  # the bytes hold as many '\n' as the text, CRLF or not
    fields = (pending, number, when, author, before_sha, after_sha, local_before, local_after)
    kept = after is not None
    line = _header_line(*fields, added, removed, lines, kept, restores)
    if len(line) + len(data) > max_bytes:
        kept = False
        encoded = _header_line(*fields, added, removed, lines, kept, restores)
    else:
        encoded = line + data
    header = Header(
        number=number,
        time=when,
        author=author,
        before=before_sha,
        after=after_sha,
        local_before=local_before,
        local_after=local_after,
        added=added,
        removed=removed,
        lines=lines,
        kept=kept,
        restores=restores,
        size=len(encoded),
        pending=pending,
    )
    return header, encoded


def _header_line(
    pending: bool,
    number: int,
    when: float,
    author: Author,
    before: str | None,
    after: str | None,
    local_before: bool,
    local_after: bool,
    added: int,
    removed: int,
    lines: int,
    kept: bool,
    restores: int | None,
) -> bytes:
    return (
        f'{_LANDED_KEY}{0 if pending else 1},"format":{FORMAT},"n":{int(number)},"time":{float(when)!r},'
        f'"by":{_author_text(author)},"before":{_optional(before)},"after":{_optional(after)},'
        f'"local_before":{_BOOLEAN[bool(local_before)]},"local_after":{_BOOLEAN[bool(local_after)]},'
        f'"added":{int(added)},"removed":{int(removed)},"lines":{int(lines)},"kept":{_BOOLEAN[bool(kept)]},'
        f'"restores":{"null" if restores is None else int(restores)}}}\n'
    ).encode()


_BOOLEAN = {True: "true", False: "false"}


def _optional(text: str | None) -> str:
    return "null" if text is None else _JSON.encode(text)


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def parse(entry: Entry, data: bytes, whole: bool) -> tuple[Header, bytes | None] | None:
    """The header (and, from a whole file, the text) of one version file; None if it does not
    verify (cut short, zeroed, or not ours)."""
    line, newline, rest = data.partition(b"\n")
    if not newline:
        return None
    try:
        raw = json.loads(line)
        header = header_of(raw, entry.size, entry.pending)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if header.number != entry.number:
        return None
    if not whole:
        return header, None
    if len(data) != entry.size:
        return None
    if header.kept and (header.after is None or hashlib.sha256(rest).hexdigest() != header.after):
        return None
    if not header.kept and rest:
        return None
    return header, (rest if header.kept else None)


def load(folder: str, entry: Entry, whole: bool = True) -> tuple[Header, bytes | None] | None:
    path = os.path.join(folder, entry.name)
    try:
        if whole:
            data = read_regular(path)[0]
        else:
            with open(path, "rb") as file:
                data = file.read(HEADER_PROBE)
    except (OSError, DocsError):
        return None
    if not whole and b"\n" not in data:
        return load(folder, entry, whole=True)
    return parse(entry, data, whole)


def header_of(raw: dict, size: int, named_pending: bool = False) -> Header:
    """The header a file's first line holds; ``named_pending``: its name ends in ``.pending``
    (format 1, where the name said what the ``landed`` field says now)."""
    by = raw["by"]
    landed = raw.get("landed")
    if landed not in (None, 0, 1) or isinstance(landed, bool):
        raise ValueError(f"landed is {landed!r}")
    return Header(
        number=int(raw["n"]),
        time=float(raw["time"]),
        author=Author(by["surface"], by.get("name"), by.get("version"), by.get("where")),
        before=raw["before"],
        after=raw["after"],
        local_before=bool(raw["local_before"]),
        local_after=bool(raw["local_after"]),
        added=int(raw["added"]),
        removed=int(raw["removed"]),
        lines=int(raw["lines"]),
        kept=bool(raw["kept"]),
        restores=raw.get("restores"),
        size=size,
        pending=named_pending or landed == 0,
    )
