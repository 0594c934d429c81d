"""The operation list: each operation declared once, and every surface dispatches through it.

An operation names the ``Docs`` method it runs, its parameters, the value it returns, the
refusals it may raise, and where it is offered: as an MCP tool, a magic, a command-line verb,
a REST route. The MCP server, the magics, the command line, the kernel wire and the REST API
build themselves from this list, so a new operation is the core method, its renderer in
``render`` and one entry here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..core.errors import (
    DocNotFound,
    DocsError,
    EditRefused,
    InvalidArguments,
    InvalidDocId,
    LimitExceeded,
    OutsideTier,
    PartialWrite,
    StaleWrite,
    StoreUnavailable,
    UnreadableDoc,
)
from ..core.history import check_version_number
from ..core.ops import Docs
from ..core.review import ReviewedDocs
from ..core.search import search_docs
from ..core.values import (
    CollectionView,
    ConfigView,
    DiffView,
    DocView,
    HandshakeView,
    HistoryView,
    IndexView,
    OutlineView,
    ReviewView,
    SearchResult,
    SectionView,
    VersionDiffView,
    VersionView,
    WriteResult,
)
from ..text.tools import (
    READ_DOC_DESCRIPTION,
    RESTORE_DOC_DESCRIPTION,
    SEARCH_DOCS_DESCRIPTION,
    WRITE_DOC_DESCRIPTION,
)

# "id": a doc id; "text": doc text (a file on the command line, the cell in a notebook);
# "sha": a sha256 precondition; "number": a count or position (0, 1, ...); "version": a version
# number as the history shows it (12 or v12); "flag": true or false (--name on the command line
# and in a magic); "query": a search (a magic takes the rest of its line verbatim); "string":
# anything else.
Kind = Literal["id", "text", "sha", "number", "version", "flag", "query", "string"]
# A number parameter (a character budget, a hunk position, a version) is at most this, written in
# at most NUMBER_DIGITS digits: far above any real value, far below what int() or repr() choke on.
NUMBER_DIGITS = 9
NUMBER_LIMIT = 10**NUMBER_DIGITS - 1


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: Kind
    required: bool
    help: str


@dataclass(frozen=True)
class Operation:
    name: str
    summary: str
    parameters: tuple[Parameter, ...]
    returns: tuple[type, ...]
    errors: tuple[type[DocsError], ...]
    run: Callable[[Docs, Mapping[str, Any]], Any]
    writes: bool = False
    mcp_description: str | None = None  # offered as an MCP tool, with this description
    magic: str | None = None  # offered as this IPython magic
    cli_verb: str | None = None  # offered as this command-line verb
    user_only: bool = False  # the user's own action: never run for an agent (the kernel wire refuses it)

    def parameter(self, name: str) -> Parameter:
        return next(p for p in self.parameters if p.name == name)


_ID = Parameter("id", "id", True, 'A doc id such as "kernel" or "my-lab/nuclei"; "index" is the index.')
_VERSION = Parameter("version", "version", True, "A version number from the doc's history, such as 12 (v12).")
_IF_MATCH = Parameter(
    "if_match", "sha", False, "The sha256 of the text this write is based on; refused if it changed since."
)
_READ_ERRORS = (InvalidDocId, OutsideTier, DocNotFound, UnreadableDoc, StoreUnavailable)
_WRITE_ERRORS = (
    InvalidDocId,
    OutsideTier,
    InvalidArguments,
    DocNotFound,
    EditRefused,
    StaleWrite,
    LimitExceeded,
    UnreadableDoc,
    StoreUnavailable,
    PartialWrite,
)


def _reviewing(docs: Docs) -> ReviewedDocs:
    if not isinstance(docs, ReviewedDocs):
        raise InvalidArguments("Review is offered in the JupyterLab panel, not on this surface.")
    return docs


def _handshake(docs: Docs, arguments: Mapping[str, Any]) -> HandshakeView:
    from ..text.handshake import handshake

    budget = arguments.get("budget")
    return handshake(docs.index(), int(budget) if budget is not None else None)


def _config(docs: Docs, _: Mapping[str, Any]) -> ConfigView:
    if docs.config is None:
        raise StoreUnavailable("This store was opened without a configuration to report.")
    return docs.config


OPERATIONS: dict[str, Operation] = {
    op.name: op
    for op in (
        Operation(
            name="read_doc",
            summary="Read one doc under its header; 'index' is the rendered index, 'ID@diff' diffs a "
            "local copy against its shipped text, 'ID#' outlines a doc, 'ID#Heading' reads one section, "
            "'SEGMENT/' lists a collection, 'ID@history' lists its versions, 'ID@v12' reads one.",
            parameters=(_ID,),
            returns=(
                DocView,
                IndexView,
                DiffView,
                OutlineView,
                SectionView,
                CollectionView,
                HistoryView,
                VersionView,
            ),
            errors=_READ_ERRORS,
            run=lambda docs, a: docs.read_doc(a["id"]),
            mcp_description=READ_DOC_DESCRIPTION,
            magic="read_doc",
            cli_verb="read",
        ),
        Operation(
            name="write_doc",
            summary="Create or replace a local doc (body), or replace one exact piece of it (old and new); "
            "prints what changed as a diff.",
            parameters=(
                _ID,
                Parameter("body", "text", False, "The whole new text of the doc."),
                Parameter("old", "text", False, "Exact text to replace; must occur once."),
                Parameter("new", "text", False, "The text that replaces old."),
                _IF_MATCH,
            ),
            returns=(WriteResult,),
            errors=_WRITE_ERRORS,
            run=lambda docs, a: docs.write_doc(
                a["id"], body=a.get("body"), old=a.get("old"), new=a.get("new"), if_match=a.get("if_match")
            ),
            writes=True,
            mcp_description=WRITE_DOC_DESCRIPTION,
            magic="write_doc",
            cli_verb="write",
        ),
        Operation(
            name="search_docs",
            summary="Find lines in the listed docs and the index: literal and case-insensitive unless the "
            "query has an upper-case letter; --regex for an RE2 pattern.",
            parameters=(
                Parameter("query", "query", True, "The text to find (an RE2 pattern with regex)."),
                Parameter("regex", "flag", False, "Take the query as an RE2 regular expression."),
            ),
            returns=(SearchResult,),
            errors=(InvalidArguments, StoreUnavailable),
            run=lambda docs, a: search_docs(docs.store, a["query"], bool(a.get("regex", False))),
            mcp_description=SEARCH_DOCS_DESCRIPTION,
            magic="search_docs",
            cli_verb="search",
        ),
        Operation(
            name="restore_doc",
            summary="Write an earlier version of a doc back (a new version); ID@history lists them.",
            parameters=(_ID, _VERSION, _IF_MATCH),
            returns=(WriteResult,),
            errors=_WRITE_ERRORS,
            run=lambda docs, a: docs.restore_doc(a["id"], a["version"], if_match=a.get("if_match")),
            writes=True,
            mcp_description=RESTORE_DOC_DESCRIPTION,
            magic="restore_doc",
            cli_verb="restore",
        ),
        Operation(
            name="diff_versions",
            summary="Diff two versions of a doc from its history, or one version against the current text.",
            parameters=(
                _ID,
                Parameter("older", "version", True, "The earlier version, such as 10."),
                Parameter("newer", "version", False, "The later version; none: the current text."),
            ),
            returns=(VersionDiffView,),
            errors=_READ_ERRORS,
            run=lambda docs, a: docs.diff_versions(a["id"], a["older"], a.get("newer")),
            magic="diff_versions",
            cli_verb="diff",
        ),
        Operation(
            name="retire_doc",
            summary="Retire a doc: remove its line from the index (the file stays, readable by id); a "
            "shipped doc also goes on the ignored: line.",
            parameters=(
                _ID,
                Parameter("if_match", "sha", False, "The sha256 of the index this is based on."),
            ),
            returns=(WriteResult,),
            errors=_WRITE_ERRORS,
            run=lambda docs, a: docs.retire_doc(a["id"], if_match=a.get("if_match")),
            writes=True,
            magic="retire_doc",
            cli_verb="retire",
        ),
        Operation(
            name="drop_local_copy",
            summary="Remove a local copy whose text equals the shipped text, so the shipped doc (and its "
            "later releases) is read again; recorded in the history.",
            parameters=(_ID, _IF_MATCH),
            returns=(WriteResult,),
            errors=_WRITE_ERRORS,
            run=lambda docs, a: docs.drop_local_copy(a["id"], if_match=a.get("if_match")),
            writes=True,
            magic="drop_local_copy",
            cli_verb="drop",
            user_only=True,
        ),
        Operation(
            name="index",
            summary="The index with its (missing)/(local copy) markers and the loader's two tails.",
            parameters=(),
            returns=(IndexView,),
            errors=_READ_ERRORS,
            run=lambda docs, _: docs.index(),
            cli_verb="index",
        ),
        Operation(
            name="file_doc",
            summary="File a doc (a new shipped one, say) in the index under a heading.",
            parameters=(
                _ID,
                Parameter(
                    "heading", "string", True, "The heading to file it under, such as '## Procedures'."
                ),
                _IF_MATCH,
            ),
            returns=(WriteResult,),
            errors=_WRITE_ERRORS,
            run=lambda docs, a: docs.file_doc(a["id"], a["heading"], if_match=a.get("if_match")),
            writes=True,
            magic="file_doc",
            cli_verb="file",
        ),
        Operation(
            name="ignore_doc",
            summary="Put a shipped doc on the index's ignored: line, so the new-docs tail stops offering it.",
            parameters=(_ID, _IF_MATCH),
            returns=(WriteResult,),
            errors=_WRITE_ERRORS,
            run=lambda docs, a: docs.ignore_doc(a["id"], if_match=a.get("if_match")),
            writes=True,
            magic="ignore_doc",
            cli_verb="ignore",
        ),
        Operation(
            name="handshake",
            summary="The MCP instructions a host with a character budget receives, and what it leaves out.",
            parameters=(
                Parameter("budget", "number", False, "The host's cap on instructions, in characters."),
            ),
            returns=(HandshakeView,),
            errors=_READ_ERRORS,
            run=_handshake,
        ),
        Operation(
            name="review",
            summary="What changed in the index and the local docs since the user last reviewed them.",
            parameters=(),
            returns=(ReviewView,),
            errors=_READ_ERRORS,
            run=lambda docs, _: _reviewing(docs).review(),
        ),
        Operation(
            name="mark_reviewed",
            summary="Mark one hunk of a doc (or all of it) as reviewed.",
            parameters=(
                _ID,
                Parameter("sha", "sha", True, "The sha256 of the text the review showed."),
                Parameter("hunk", "number", False, "The hunk to mark; none: the whole doc."),
            ),
            returns=(ReviewView,),
            errors=(*_WRITE_ERRORS,),
            run=lambda docs, a: _reviewing(docs).mark_reviewed(a["id"], a["sha"], a.get("hunk")),
            writes=True,
        ),
        Operation(
            name="revert_hunk",
            summary="Put one hunk of a doc back as it was when last reviewed (an old/new write).",
            parameters=(
                _ID,
                Parameter("hunk", "number", True, "The hunk to put back."),
                Parameter("if_match", "sha", True, "The sha256 of the text the review showed."),
            ),
            returns=(WriteResult,),
            errors=_WRITE_ERRORS,
            run=lambda docs, a: _reviewing(docs).revert_hunk(a["id"], a["hunk"], a["if_match"]),
            writes=True,
        ),
        Operation(
            name="config",
            summary="Where the local and shipped docs are, the version, and where each setting came from.",
            parameters=(),
            returns=(ConfigView,),
            errors=(StoreUnavailable,),
            run=_config,
            magic="docs_config",
            cli_verb="config",
        ),
    )
}


def operation(name: object) -> Operation:
    if not isinstance(name, str) or name not in OPERATIONS:
        known = ", ".join(OPERATIONS)
        raise InvalidArguments(
            f"Unknown operation {name!r}; this biopb-kernel-docs offers {known}. If the other side is "
            "newer, upgrade biopb-kernel-docs here too."
        )
    return OPERATIONS[name]


def run(docs: Docs, name: object, arguments: object) -> Any:
    """Check ``arguments`` against the operation's parameters, then run it."""
    op = operation(name)
    if not isinstance(arguments, Mapping):
        raise InvalidArguments(f"{op.name} takes its arguments as a mapping of names to values.")
    known = {p.name for p in op.parameters}
    unknown = sorted((name for name in arguments if name not in known), key=repr)
    if unknown:
        named = ", ".join(_shown(name) for name in unknown[:5]) + (", ..." if len(unknown) > 5 else "")
        raise InvalidArguments(
            f"{op.name} has no argument {named}; it takes {', '.join(sorted(known)) or 'none'}."
        )
    checked = dict(arguments)
    for parameter in op.parameters:
        value = arguments.get(parameter.name)
        if value is None and parameter.required:
            raise InvalidArguments(f"{op.name} needs {parameter.name!r}: {parameter.help}")
        if value is None:
            continue
        if parameter.kind == "flag":
            if not isinstance(value, bool):
                raise InvalidArguments(
                    f"{op.name}'s {parameter.name!r} is true or false, not {_shown(value)}."
                )
        elif parameter.kind == "number":
            checked[parameter.name] = whole_number(op, parameter, value)
        elif parameter.kind == "version":
            checked[parameter.name] = version_number(op, parameter, value)
        elif not isinstance(value, str):
            raise InvalidArguments(
                f"{op.name}'s {parameter.name!r} must be a string, not {type(value).__name__}."
            )
    return op.run(docs, checked)


def whole_number(op: Operation, parameter: Parameter, value: object) -> int:
    """``value`` as a count or position: an int, or a string of ASCII digits, from 0 to NUMBER_LIMIT.

    ``str.isdigit`` would let through '²' and '١', and ``int`` would then fail on them (or on a
    string of thousands of digits): a bad number is the caller's mistake, never a crash.
    """
    number = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and 0 < len(value) <= NUMBER_DIGITS and value.isascii() and value.isdigit():
        number = int(value)
    if number is None or not 0 <= number <= NUMBER_LIMIT:
        raise InvalidArguments(
            f"{op.name}'s {parameter.name!r} must be a whole number from 0 to {NUMBER_LIMIT:,}, written "
            f"with the digits 0-9, not {_shown(value)}."
        )
    return number


def version_number(op: Operation, parameter: Parameter, value: object) -> int:
    """``value`` as a version number: 12, "12" or "v12", from 1 to NUMBER_LIMIT (nine digits, as many
    as a '@v12' read takes); checked like a whole number."""
    try:
        return check_version_number(value)
    except InvalidArguments:
        raise InvalidArguments(
            f"{op.name}'s {parameter.name!r} must be a version number such as 12 (v12), from 1 to "
            f"{NUMBER_LIMIT:,}, not {_shown(value)}."
        ) from None


def _shown(value: object) -> str:
    """A refused value, quoted short (a 10 MB string, or an int repr() refuses to spell, is not)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**12:
        return "a number that large" if value > 0 else "a negative number"
    if isinstance(value, str | int | float | bool):
        text = repr(value)
        return text if len(text) <= 40 else f"{text[:36]}...{text[-1]}"
    return f"a {type(value).__name__}"
