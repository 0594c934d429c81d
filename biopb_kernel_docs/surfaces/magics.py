"""IPython magics: the user's thin adapter over the same operations the agent's tools run.

One magic per operation of the list that offers one (``%read_doc``, ``%%write_doc``,
``%search_docs``, ``%file_doc``, ``%ignore_doc``, ``%docs_config``), plus ``%docs_connect``,
which prints how to attach an agent to this kernel. Required parameters are positional (one
positional id may hold spaces, as a section does: ``%read_doc flatfield#Steps/Confirm input``),
``--if-match SHA`` is the precondition, a search takes the rest of its line as the query, and an
operation that takes doc text is a cell magic: the cell is the body, or, with ``--replace``, the
old/new pair. Output is notebook Markdown with the agent's plain text
beside it for plain-text front ends; a refusal is a one-line ``UsageError`` in the notebook's
own words.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from typing import Any

from IPython.core.error import UsageError
from IPython.display import display

from ..core.errors import DocsError
from ..core.phrases import Surface
from ..core.values import Author
from ..text import render
from ..text.notebook import markdown
from . import operations
from .config import DocStore
from .connect import connect_config
from .operations import Operation, Parameter

USER_CALLER = "user"
OLD_MARKER, SEPARATOR = "<<<<<<< old", "======="
# IPython strips '>>>' prompts from cells before a cell magic sees them, so the replacement runs
# to the end of the cell; a git-style closing '>>>>>>> new' line (as IPython leaves it) is dropped.
_CLOSING_MARKER = re.compile(r">+ ?new")
REPLACE_HELP = f"""\
With --replace, the cell is the pair::

  {OLD_MARKER}
  <the exact text to replace>     it must appear exactly once in the doc
  {SEPARATOR}
  <its replacement>               to the end of the cell

IPython strips '>>> ' prompts from a cell before the magic sees it: write doctest-style lines
without them.
"""


def split_replacement(cell: str) -> tuple[str, str]:
    """The old and new text of a ``--replace`` cell: ``<<<<<<< old``, old, ``=======``, new."""
    lines = cell.strip("\n").split("\n")
    if not lines or lines[0].strip() != OLD_MARKER:
        raise UsageError(
            f"A --replace cell starts with a line '{OLD_MARKER}', then the exact old text, a line "
            f"'{SEPARATOR}', and the new text to the end of the cell."
        )
    if _CLOSING_MARKER.fullmatch(lines[-1].strip()):
        lines.pop()
    separators = [n for n, line in enumerate(lines) if line.strip() == SEPARATOR]
    if len(separators) != 1:
        raise UsageError(
            f"A --replace cell needs exactly one '{SEPARATOR}' line between old and new; found "
            f"{len(separators)}. Quote less text if yours contains such a line."
        )
    middle = separators[0]
    return "\n".join(lines[1:middle]), "\n".join(lines[middle + 1 :])


def connect_instructions(connection_file: str) -> str:
    """How to attach an agent to the kernel behind ``connection_file``."""
    config = connect_config(connection_file)
    return (
        "Connect an agent to this kernel's docs (read_doc and write_doc as MCP tools):\n\n"
        f"    {config['claude']}\n\n"
        "or, in an MCP client's JSON configuration:\n\n"
        f"{json.dumps(config['json'], indent=2)}\n"
    )


def _takes_cell(op: Operation) -> bool:
    return any(p.kind == "text" for p in op.parameters)


def _options(op: Operation) -> list[Parameter]:
    """Parameters a line magic takes as ``--name`` (a flag) or ``--name VALUE`` (texts come from the
    cell, shas by --if-match)."""
    return [p for p in op.parameters if not p.required and p.kind not in ("text", "sha", "query")]


def _option(p: Parameter) -> str:
    return f"--{p.name.replace('_', '-')}"


def _usage(op: Operation) -> str:
    flags = "".join(f" [--{p.name}]" for p in op.parameters if p.kind == "flag")
    positional = " ".join(
        p.name.upper() for p in op.parameters if p.required and p.kind not in ("text", "flag")
    )
    options = "".join(
        f" [{_option(p)}]" if p.kind == "flag" else f" [{_option(p)} {p.name.upper()}]" for p in _options(op)
    )
    sha = " [--if-match SHA]" if any(p.kind == "sha" for p in op.parameters) else ""
    if _takes_cell(op):
        return f"%%{op.magic} {positional} [--replace]{sha}"
    if any(p.kind == "query" for p in op.parameters):
        return f"%{op.magic}{flags} {positional}"
    return f"%{op.magic} {positional}{options}{sha}".rstrip()


def magic_author() -> Author:
    """The author of the magics' writes: ``magic``, in this kernel (its id, from the connection file)."""
    try:
        from ipykernel.connect import get_connection_file

        name = os.path.basename(get_connection_file())
    except (ImportError, RuntimeError):
        return Author("magic")  # a plain IPython shell: no kernel to name
    kernel_id = name.removeprefix("kernel-").removesuffix(".json")
    return Author("magic", where=kernel_id or None)


def _query_arguments(op: Operation, line: str) -> dict[str, Any]:
    """A search magic's flags come first; the rest of the line is the query, verbatim (a pattern's
    backslashes and quotes are the pattern's), without one pair of quotes around it all."""
    flags = {p.name for p in op.parameters if p.kind == "flag"}
    arguments: dict[str, Any] = {}
    rest = line.strip()
    while rest.startswith("--") and rest[2:].split(" ", 1)[0] in flags:
        name, _, rest = rest[2:].partition(" ")
        arguments[name] = True
        rest = rest.strip()
    if len(rest) >= 2 and rest[0] == rest[-1] and rest[0] in "'\"":
        rest = rest[1:-1]
    query = next(p for p in op.parameters if p.kind == "query")
    arguments[query.name] = rest
    return arguments


class DocsMagics:
    """The magics of one shell, over the kernel's ``DocStore`` (the user is one caller)."""

    def __init__(self, shell, doc_store: DocStore) -> None:
        self.shell = shell
        self.doc_store = doc_store
        self.author = magic_author()

    def run(self, op: Operation, line: str, cell: str | None = None) -> Any:
        arguments = self._arguments(op, line, cell)
        try:
            return operations.run(self.doc_store.docs_for(USER_CALLER, self.author), op.name, arguments)
        except DocsError as err:
            raise UsageError(err.text_for(Surface.NOTEBOOK)) from err

    def _arguments(self, op: Operation, line: str, cell: str | None) -> dict[str, Any]:
        if any(p.kind == "query" for p in op.parameters):
            return _query_arguments(op, line)
        try:
            words = shlex.split(line)
        except ValueError as err:
            raise UsageError(f"Cannot parse the line: {err}. Usage: {_usage(op)}") from err
        replace = _takes_cell(op) and "--replace" in words
        words = [w for w in words if not (replace and w == "--replace")]
        arguments: dict[str, Any] = {}
        if "--if-match" in words:
            at = words.index("--if-match")
            if at + 1 >= len(words):
                raise UsageError(
                    f"--if-match needs the sha256 of the text the write is based on. Usage: {_usage(op)}"
                )
            arguments["if_match"] = words[at + 1]
            del words[at : at + 2]
        for p in _options(op) if cell is None else ():
            while _option(p) in words:
                at = words.index(_option(p))
                if p.kind == "flag":
                    arguments[p.name] = True
                    del words[at]
                elif at + 1 >= len(words):
                    raise UsageError(f"{_option(p)} needs a value: {p.help} Usage: {_usage(op)}")
                else:
                    arguments[p.name] = words[at + 1]
                    del words[at : at + 2]
        positional = [p for p in op.parameters if p.required and p.kind != "text"]
        if (
            len(positional) == 1
            and len(words) > 1
            and cell is None
            and not any(w.startswith("--") for w in words)
        ):
            words = [" ".join(words)]  # %read_doc flatfield#Steps/Confirm input: one id, spaces and all
        if (
            len(words) != len(positional)
            or any(w.startswith("--") for w in words)
            or (replace and cell is None)
        ):
            raise UsageError(f"Usage: {_usage(op)} (for example {_usage(op).replace('ID', 'flatfield', 1)}).")
        arguments.update((p.name, word) for p, word in zip(positional, words, strict=True))
        if cell is not None:
            if replace:
                arguments["old"], arguments["new"] = split_replacement(cell)
            else:
                arguments["body"] = cell
        return arguments

    def docs_connect(self, line: str) -> None:
        """Print the command that connects an agent (over MCP) to this kernel's docs.

        The agent's read_doc and write_doc then run in this kernel, against the same docs and
        index as ``%read_doc``.
        """
        try:
            from ipykernel.connect import get_connection_file

            connection_file = get_connection_file()
        except (ImportError, RuntimeError) as err:
            raise UsageError(
                "This shell is not a Jupyter kernel, so an agent cannot attach to it. Run "
                "%docs_connect in a notebook, or start a server of its own: biopb-kernel-docs mcp."
            ) from err
        print(connect_instructions(connection_file))


def _show(value: Any) -> None:
    display({"text/markdown": markdown(value), "text/plain": render.text(value, Surface.NOTEBOOK)}, raw=True)


def _magic_function(magics: DocsMagics, op: Operation):
    if _takes_cell(op):

        def cell_magic(line: str, cell: str) -> None:
            _show(magics.run(op, line, cell))

        function = cell_magic
        function.__doc__ = f"{op.summary}\n\nUsage::\n\n  {_usage(op)}\n  <the whole doc>\n\n{REPLACE_HELP}"
    else:

        def line_magic(line: str) -> None:
            _show(magics.run(op, line))

        function = line_magic
        function.__doc__ = f"{op.summary}\n\nUsage::\n\n  {_usage(op)}\n"
    function.__name__ = op.magic or op.name
    return function


def _group_function(magics: DocsMagics, name: str, verbs: dict[str, Operation]):
    """One line magic whose first word picks the operation: ``%docs_skills export DIR``."""

    def line_magic(line: str) -> None:
        verb, _, rest = line.strip().partition(" ")
        if verb not in verbs:
            usages = "; ".join(_usage(op) for op in verbs.values())
            raise UsageError(f"%{name} takes {' or '.join(verbs)} first. Usage: {usages}")
        _show(magics.run(verbs[verb], rest))

    line_magic.__name__ = name
    line_magic.__doc__ = "\n\n".join(f"{op.summary}\n\nUsage::\n\n  {_usage(op)}" for op in verbs.values())
    return line_magic


def register(shell, doc_store: DocStore) -> None:
    magics = DocsMagics(shell, doc_store)
    groups: dict[str, dict[str, Operation]] = {}
    for op in operations.OPERATIONS.values():
        if not op.magic:
            continue
        name, _, verb = op.magic.partition(" ")
        if verb:
            groups.setdefault(name, {})[verb] = op
            continue
        kind = "cell" if _takes_cell(op) else "line"
        shell.register_magic_function(_magic_function(magics, op), magic_kind=kind, magic_name=op.magic)
    for name, verbs in groups.items():
        shell.register_magic_function(
            _group_function(magics, name, verbs), magic_kind="line", magic_name=name
        )
    shell.register_magic_function(magics.docs_connect, magic_kind="line", magic_name="docs_connect")
