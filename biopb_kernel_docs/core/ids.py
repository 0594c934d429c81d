"""Doc ids: the charset, the reserved names, what a read may ask for, and ids as paths in a tier.

§1: an id is the path under its tier minus ``.md`` and may contain ``/``. §7: an id ending in
``/`` names a collection; it is reserved (refused by write_doc) but an index line may carry one.
``@`` and ``#`` are outside the charset, so neither ``<id>@diff`` (a view, §3) nor
``<id>#<heading>`` (a section, §7) can ever name a real doc. ``parse_request`` is the one parser
that splits a read into its id, view and section.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from .errors import InvalidDocId
from .phrases import read, read_diff, read_history, write_replace

INDEX_ID = "index"
DIFF_VIEW = "diff"
HISTORY_VIEW = "history"
VERSION_VIEW = "version"
DOC_SUFFIX = ".md"
MAX_ID_LENGTH = 200

_SEGMENT = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}"
# An id: segments joined by "/", optionally ending in "/" (a collection, §7).
ID_PATTERN = rf"{_SEGMENT}(?:/{_SEGMENT})*/?"
_ID_RE = re.compile(ID_PATTERN)

ID_RULES = (
    "An id is one or more names joined by '/', each of letters, digits, '_', '-' and '.', starting "
    "with a letter, digit or '_' (for example 'kernel' or 'my-lab/nuclei-protocol'), without '.md'."
)

# Names Windows reserves in every directory, with or without an extension.
_DEVICE_NAMES = frozenset(
    ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
    + [f"{stem}{n}" for stem in ("COM", "LPT") for n in "0123456789"]
)


def is_id_shaped(text: str) -> bool:
    """True when ``text`` is in the id charset (a collection id included); no other checks."""
    return _ID_RE.fullmatch(text) is not None


def _problem(doc_id: str) -> str | None:
    """Why ``doc_id`` is not a valid id, or None when it is one."""
    if not doc_id:
        return "the id is empty"
    if "\x00" in doc_id:
        return "it contains a NUL character"
    if "\\" in doc_id:
        return "it contains a backslash; separate names with '/'"
    if doc_id.startswith("/"):
        return "it is an absolute path"
    if len(doc_id) > MAX_ID_LENGTH:
        return f"it is {len(doc_id)} characters long; the limit is {MAX_ID_LENGTH}"
    segments = doc_id.rstrip("/").split("/")
    for segment in segments:
        if segment in ("", ".", ".."):
            return f"it has an empty, '.' or '..' name ({segment!r})"
        if segment.endswith("."):
            return f"the name {segment!r} ends with '.'"
        if segment.split(".")[0].upper() in _DEVICE_NAMES:
            return f"{segment!r} is a reserved device name on Windows"
    if not _ID_RE.fullmatch(doc_id):
        return "it has a character outside the id charset"
    # Any case: on a case-insensitive disk 'x.MD' is x.md too. Inside an id, a folder 'x.md' would
    # take the very file name of doc 'x', which could then never be read or written again.
    if doc_id.lower().endswith(DOC_SUFFIX):
        return "it ends in '.md'"
    for segment in segments if doc_id.endswith("/") else segments[:-1]:
        if segment.lower().endswith(DOC_SUFFIX):
            return (
                f"its folder name {segment!r} ends in '.md', the file name of doc "
                f"{segment[: -len(DOC_SUFFIX)]!r}, which it would then hide"
            )
    return None


def check_doc_id(doc_id: object) -> str:
    """Return ``doc_id`` if it is a valid id (collection ids included); raise InvalidDocId otherwise."""
    if not isinstance(doc_id, str):
        raise InvalidDocId(f"A doc id must be a string, not {type(doc_id).__name__}. {ID_RULES}")
    problem = _problem(doc_id)
    if problem is None:
        return doc_id
    hint = ""
    base = doc_id.partition("#")[0]
    without = "/".join(_without_suffix(segment) for segment in doc_id.split("/"))
    if without != doc_id and _problem(without) is None:
        hint = f" Ids carry no '.md' in any name: use {without!r}."
    elif "#" in doc_id and _problem(base) is None:
        hint = (
            f" '#' names a section, which only a read takes ({read(doc_id)}). To change one section, "
            f"{write_replace(base)} replaces exactly the text you quote, wherever it sits."
        )
    elif "@" in doc_id:
        hint = f" View suffixes ({_view_list()}) are for reads only."
    raise InvalidDocId(f"Invalid doc id {doc_id!r}: {problem}.{hint} {ID_RULES}")


# What may follow '@' in a read, one row per view: its name (what the reader branches on), the
# pattern the view's text must match whole, how a read spells it, and what it shows. A new view is
# one row here and its branch in the reader.
VIEWS: tuple[tuple[str, re.Pattern[str], str, str], ...] = (
    (DIFF_VIEW, re.compile("diff"), "@diff", "a local copy against its shipped text"),
    (HISTORY_VIEW, re.compile("history"), "@history", "the doc's kept versions"),
    (VERSION_VIEW, re.compile(r"v([1-9][0-9]{0,8})"), "@v12", "one version, such as @v12"),
)
MAX_SECTION_LENGTH = 300


@dataclass(frozen=True)
class Request:
    """A read split into its parts: ``'flatfield@diff'``, ``'flatfield#Steps/Confirm input'``."""

    doc_id: str
    view: str | None = None  # what followed '@' (a row of VIEWS matched it), or None
    section: str | None = None  # None: the whole doc; "": its outline; else the heading asked for


def _view(view: str, requested: str) -> str:
    if any(pattern.fullmatch(view) for _, pattern, _, _ in VIEWS):
        return view
    known = ", ".join(f"'{spelled}' ({what})" for _, _, spelled, what in VIEWS)
    raise InvalidDocId(
        f"Unknown view '@{view}' in {requested!r}. The views are {known}, as in {read_diff('data')}."
    )


def _section(section: str, requested: str) -> str:
    if "\x00" in section or "\n" in section or "\r" in section:
        raise InvalidDocId(
            f"The section asked for in {requested!r} holds a NUL or a line break; a heading is one line. "
            f"{read(requested.partition('#')[0] + '#')} lists the doc's headings."
        )
    if len(section) > MAX_SECTION_LENGTH:
        raise InvalidDocId(
            f"The section asked for is {len(section)} characters long; a heading is at most "
            f"{MAX_SECTION_LENGTH}. {read(requested.partition('#')[0] + '#')} lists the doc's headings."
        )
    return section.strip()


_parsed: dict[str, Request] = {}  # a pure function of the string: reads repeat the same few


def parse_request(requested: object) -> Request:
    """Split a read into id, view and section: ``id[@view][#section]``; the id is checked."""
    if not isinstance(requested, str):
        return Request(check_doc_id(requested))
    known = _parsed.get(requested)
    if known is not None:
        return known
    parsed = _parse(requested)
    if len(_parsed) >= 4096:
        _parsed.clear()
    _parsed[requested] = parsed
    return parsed


def _parse(requested: str) -> Request:
    head, has_section, section = requested.partition("#")
    view = None
    if "@" in head:
        head, _, view = head.rpartition("@")
        view = _view(view, requested)
    return Request(check_doc_id(head), view, _section(section, requested) if has_section else None)


def _without_suffix(segment: str) -> str:
    return segment[: -len(DOC_SUFFIX)] if segment.lower().endswith(DOC_SUFFIX) else segment


def _view_list() -> str:
    return f"{read_diff('data')}, {read_history('data')}, and '@v12' for one version"


def split_view(requested: object) -> tuple[str, str | None]:
    """Split ``'flatfield@diff'`` into ``('flatfield', 'diff')``; a plain id gets view None."""
    request = parse_request(requested)
    if request.section is not None:
        check_doc_id(requested)  # refused, with the hint that '#' names a section
    return request.doc_id, request.view


_VERSION = next(pattern for name, pattern, _, _ in VIEWS if name == VERSION_VIEW)


def version_of(view: str | None) -> int | None:
    """The version number a ``@v12`` view names; None for any other view."""
    match = _VERSION.fullmatch(view) if view else None
    return int(match.group(1)) if match else None


def is_collection_id(doc_id: str) -> bool:
    """§7: an id ending in '/' is reserved for a collection listing."""
    return doc_id.endswith("/")


def is_banked(doc_id: str) -> bool:
    """§1: a '_'-prefixed name is banked (shipped and readable, never listed); any '_' segment banks."""
    return any(segment.startswith("_") for segment in doc_id.split("/"))


def relative_doc_path(doc_id: str) -> PurePosixPath:
    """The file of ``doc_id`` relative to its tier's root."""
    return PurePosixPath(doc_id + DOC_SUFFIX)


# Lower-case names of letters, digits and '-', not too long: the shape of nearly every id, which
# none of _problem's rules can refuse (a device name needs upper case or is at most 6 letters).
_PLAIN_ID = re.compile(r"[a-z0-9][a-z0-9-]{6,60}(?:/[a-z0-9][a-z0-9-]{6,60})*")


def is_valid_doc_id(doc_id: str) -> bool:
    """True for an id a file can carry: valid and not a collection."""
    if len(doc_id) <= MAX_ID_LENGTH and _PLAIN_ID.fullmatch(doc_id):
        return True
    return _problem(doc_id) is None and not is_collection_id(doc_id)


def id_from_relative_path(relative: PurePosixPath) -> str | None:
    """The id of a file found under a tier, or None if the file cannot be a doc."""
    if relative.suffix != DOC_SUFFIX:
        return None
    doc_id = str(relative)[: -len(DOC_SUFFIX)]
    return doc_id if is_valid_doc_id(doc_id) else None
