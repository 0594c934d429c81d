"""Doc ids: the charset, the reserved names, the read views (``@diff``, ``@history``, ``@v12``), and
ids as paths inside a tier.

§1: an id is the path under its tier minus ``.md`` and may contain ``/``. §7: an id ending in
``/`` names a collection; it is reserved (refused by write_doc) but an index line may carry one.
``@`` is outside the charset, so ``<id>@diff`` can never name a real doc.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from .errors import InvalidDocId
from .phrases import read_diff, read_history

INDEX_ID = "index"
DIFF_VIEW = "diff"
HISTORY_VIEW = "history"
# The views a read may ask for after '@', each one row: its name, the suffix's shape, what it shows.
VIEWS = (
    (DIFF_VIEW, re.compile("diff"), "a local copy against its shipped text"),
    (HISTORY_VIEW, re.compile("history"), "the doc's kept versions"),
    ("version", re.compile(r"v([1-9][0-9]{0,8})"), "one version, such as @v12"),
)
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
    for segment in doc_id.rstrip("/").split("/"):
        if segment in ("", ".", ".."):
            return f"it has an empty, '.' or '..' name ({segment!r})"
        if segment.endswith("."):
            return f"the name {segment!r} ends with '.'"
        if segment.split(".")[0].upper() in _DEVICE_NAMES:
            return f"{segment!r} is a reserved device name on Windows"
    if not _ID_RE.fullmatch(doc_id):
        return "it has a character outside the id charset"
    if doc_id.lower().endswith(DOC_SUFFIX):
        return "it ends in '.md'"
    return None


def check_doc_id(doc_id: object) -> str:
    """Return ``doc_id`` if it is a valid id (collection ids included); raise InvalidDocId otherwise."""
    if not isinstance(doc_id, str):
        raise InvalidDocId(f"A doc id must be a string, not {type(doc_id).__name__}. {ID_RULES}")
    problem = _problem(doc_id)
    if problem is None:
        return doc_id
    hint = ""
    if doc_id.lower().endswith(DOC_SUFFIX) and _problem(doc_id[: -len(DOC_SUFFIX)]) is None:
        hint = f" Ids carry no '.md': use {doc_id[: -len(DOC_SUFFIX)]!r}."
    elif "@" in doc_id:
        hint = f" View suffixes ({_view_list()}) are for reads only."
    raise InvalidDocId(f"Invalid doc id {doc_id!r}: {problem}.{hint} {ID_RULES}")


def _view_list() -> str:
    return f"{read_diff('data')}, {read_history('data')}, and '@v12' for one version"


def split_view(requested: object) -> tuple[str, str | None]:
    """Split ``'flatfield@diff'`` into ``('flatfield', 'diff')``; a plain id gets view None."""
    if isinstance(requested, str) and "@" in requested:
        doc_id, _, view = requested.rpartition("@")
        if not any(pattern.fullmatch(view) for _, pattern, _ in VIEWS):
            shown = "; ".join(f"'@{name if name != 'version' else 'v12'}': {what}" for name, _, what in VIEWS)
            raise InvalidDocId(f"Unknown view '@{view}' in {requested!r}. The views are {shown}.")
        return check_doc_id(doc_id), view
    return check_doc_id(requested), None


def version_of(view: str | None) -> int | None:
    """The version number a ``@v12`` view names; None for any other view."""
    match = VIEWS[2][1].fullmatch(view) if view else None
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
