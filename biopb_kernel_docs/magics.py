"""IPython magics: the user's thin adapter over the same ``Docs`` the agent's tools use.

``%read_doc ID`` shows a doc, ``%%write_doc ID`` writes the cell, ``%docs_connect`` prints how
to attach an agent to this kernel. Output is Markdown for the notebook with the raw text beside
it for plain-text front ends. Refusals become ``UsageError`` one-liners carrying the store's
message.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.display import display

from .config import DocStore
from .errors import DocsError
from .frontmatter import parse_frontmatter
from .ids import DIFF_VIEW, INDEX_ID
from .ops import Docs

USER_CALLER = "user"
OLD_MARKER, SEPARATOR = "<<<<<<< old", "======="
# IPython strips '>>>' prompts from cells before a cell magic sees them, so the replacement runs
# to the end of the cell; a git-style closing '>>>>>>> new' line (as IPython leaves it) is dropped.
_CLOSING_MARKER = re.compile(r">+ ?new")


def _fenced(text: str, info: str = "") -> str:
    fence = "````" if "```" in text else "```"
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}"


def doc_markdown(requested: str, text: str) -> str:
    """read_doc's text as notebook Markdown: the header set apart, frontmatter and diffs fenced."""
    header, _, body = text.partition("\n\n")
    if requested.endswith("@" + DIFF_VIEW):
        return f"*{header}*\n\n{_fenced(body, 'diff')}"
    if requested == INDEX_ID:
        return f"*{header}*\n\n{body}"
    parsed = parse_frontmatter(body)
    if parsed.fields:
        frontmatter = body[: len(body) - len(parsed.body)]
        return f"*{header}*\n\n{_fenced(frontmatter.rstrip(), 'yaml')}\n\n{parsed.body}"
    return f"*{header}*\n\n{body}"


def write_markdown(result: str) -> str:
    """write_doc's result (a summary, then diffs) as notebook Markdown."""
    summary, *diffs = result.split("\n\n")
    return "\n\n".join([summary, *(_fenced(diff, "diff") for diff in diffs)])


def _show(markdown: str, plain: str) -> None:
    display({"text/markdown": markdown, "text/plain": plain}, raw=True)


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
    script = Path(sys.executable).with_name("biopb-kernel-docs")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "biopb_kernel_docs"]
    argv = [*command, "mcp", "--existing", connection_file]
    config = {"mcpServers": {"biopb-docs": {"command": argv[0], "args": argv[1:]}}}
    return (
        "Connect an agent to this kernel's docs (read_doc and write_doc as MCP tools):\n\n"
        f"    claude mcp add biopb-docs -- {shlex.join(argv)}\n\n"
        "or, in an MCP client's JSON configuration:\n\n"
        f"{json.dumps(config, indent=2)}\n"
    )


@magics_class
class DocsMagics(Magics):
    """``%read_doc``, ``%%write_doc`` and ``%docs_connect``."""

    def __init__(self, shell, doc_store: DocStore) -> None:
        super().__init__(shell)
        self.doc_store = doc_store

    @property
    def docs(self) -> Docs:
        return self.doc_store.docs_for(USER_CALLER)

    @line_magic
    def read_doc(self, line: str) -> None:
        """Show a doc of the biopb knowledge store.

        Usage::

          %read_doc ID          the doc, under a header: origin, updated, and whether it shadows
                                a shipped doc
          %read_doc index       the index, with (missing)/(local copy) markers and the closing
                                tails: shipped docs nobody filed yet, local copies behind a release
          %read_doc ID@diff     your local copy against the shipped text it shadows

        Ids look like ``flatfield`` or ``my-lab/nuclei``; ``%read_doc index`` lists them.
        """
        requested = line.strip()
        if not requested or " " in requested:
            raise UsageError("Usage: %read_doc ID (for example %read_doc index). One id, no spaces.")
        try:
            text = self.docs.read_doc(requested)
        except DocsError as err:
            raise UsageError(str(err)) from err
        _show(doc_markdown(requested, text), text)

    @cell_magic
    def write_doc(self, line: str, cell: str) -> None:
        """Write the cell to a doc of the biopb knowledge store, and show what changed.

        Usage::

          %%write_doc ID
          <the whole doc>                 creates or replaces your local copy of ID; a new doc
                                          gets a line under ## Unfiled in the index

          %%write_doc ID --replace
          <<<<<<< old
          <the exact text to replace>     it must appear exactly once in the doc
          =======
          <its replacement>               to the end of the cell

        A shipped doc is never changed: writing to it makes a local copy that shadows it.
        Edit the index itself with ``%%write_doc index --replace``. IPython strips '>>> '
        prompts from a cell before the magic sees it: write doctest-style lines without them.
        """
        try:
            arguments = shlex.split(line)
        except ValueError as err:
            raise UsageError(f"Cannot parse the %%write_doc line: {err}.") from err
        replace = "--replace" in arguments
        rest = [argument for argument in arguments if argument != "--replace"]
        if len(rest) != 1 or rest[0].startswith("-"):
            raise UsageError(
                "Usage: %%write_doc ID [--replace], with the doc (or the old/new pair) as the cell."
            )
        try:
            if replace:
                old, new = split_replacement(cell)
                result = self.docs.write_doc(rest[0], old=old, new=new)
            else:
                result = self.docs.write_doc(rest[0], body=cell)
        except DocsError as err:
            raise UsageError(str(err)) from err
        _show(write_markdown(result), result)

    @line_magic
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


def register(shell, doc_store: DocStore) -> None:
    shell.register_magics(DocsMagics(shell, doc_store))
