"""The next step, in the words of the surface a message reaches (an agent, a notebook, a shell).

Messages are written once, in the core, with placeholders for the calls they point to:
``f"{read(INDEX)} lists them all"``. Each surface renders the placeholders its own way: the
agent reads ``read_doc("index")``, a notebook user ``%read_doc index``, a shell user
``biopb-kernel-docs index``. A message crosses the kernel wire with its placeholders intact, so
it is rendered where it is shown.
"""

from __future__ import annotations

import json
import re
import shlex
from enum import Enum

# The unit separator never occurs in an id (ids.py) nor in the package's own prose.
_MARK = "\x1f"
_PLACEHOLDER = re.compile(f"{_MARK}([a-z_]+){_MARK}([^{_MARK}]*){_MARK}")


class Surface(Enum):
    AGENT = "agent"
    NOTEBOOK = "notebook"
    CLI = "cli"
    PANEL = "panel"


def _placeholder(kind: str, argument: str = "") -> str:
    return f"{_MARK}{kind}{_MARK}{argument}{_MARK}"


def read(doc_id: str) -> str:
    """The call that reads ``doc_id`` (the index included)."""
    return _placeholder("read", doc_id)


def read_diff(doc_id: str) -> str:
    return _placeholder("diff", doc_id)


def search(query: str) -> str:
    """The call that searches the docs for ``query``."""
    return _placeholder("search", query)


def write_body(doc_id: str) -> str:
    return _placeholder("body", doc_id)


def write_replace(doc_id: str) -> str:
    return _placeholder("replace", doc_id)


def replace_call(doc_id: str, old: str, new: str) -> str:
    """The complete old/new edit of ``doc_id``, spelled so that it runs as printed: a tool call, a
    notebook cell, a shell command. (JSON escapes every control character, the mark included.)"""
    return _placeholder("edit", json.dumps([doc_id, old, new]))


def flag(name: str) -> str:
    """How the surface turns on an operation's flag: ``--replace`` in a shell or a magic."""
    return _placeholder("flag", name)


def _edit(spell):
    return lambda packed: spell(*json.loads(packed))


def read_history(doc_id: str) -> str:
    """The call that lists a doc's kept versions."""
    return _placeholder("history", doc_id)


def read_version(doc_id: str, number: int) -> str:
    return _placeholder("version", f"{doc_id}@v{number}")


def restore(doc_id: str, number: int) -> str:
    """The call that puts version ``number`` of ``doc_id`` back (a new version)."""
    return _placeholder("restore", f"{doc_id}@v{number}")


def _split(argument: str) -> tuple[str, str]:
    doc_id, _, number = argument.rpartition("@v")
    return doc_id, number


def argument(name: str) -> str:
    """How the surface names a write argument: ``body``, ``old``, ``new`` or ``if_match``."""
    return _placeholder("argument", name)


def _word(text: str) -> str:
    """``text`` as one shell or magic word: quoted only when it holds a space or a quote."""
    return shlex.quote(text) if re.search(r"[\s'\"\\$`;&|<>()]", text) else text


def _quoted(text: str) -> str:
    """``text`` as a string literal an agent can copy into a call (double quotes, as JSON)."""
    return json.dumps(text, ensure_ascii=False)


def _section_phrase(i: str) -> str:
    doc_id, _, section = i.partition("#")
    if not section:
        return f"the outline of {doc_id} in the Kernel Docs panel"
    return f"opening {doc_id} at its section {section!r} in the Kernel Docs panel"


_AGENT = {
    "read": lambda i: f"read_doc({_quoted(i)})",
    "diff": lambda i: f'read_doc("{i}@diff")',
    "search": lambda q: f"search_docs({_quoted(q)})",
    "history": lambda i: f'read_doc("{i}@history")',
    "version": lambda a: f'read_doc("{a}")',
    "restore": lambda a: 'restore_doc("{}", {})'.format(*_split(a)),
    "body": lambda i: f'write_doc("{i}", body=...)',
    "replace": lambda i: f'write_doc("{i}", old=..., new=...)',
    "edit": _edit(lambda i, old, new: f"write_doc({_quoted(i)}, old={_quoted(old)}, new={_quoted(new)})"),
    "argument": lambda name: name,
    "flag": lambda name: f"{name}=true",
}
_NOTEBOOK = {
    "read": lambda i: f"%read_doc {_word(i)}",
    "diff": lambda i: f"%read_doc {i}@diff",
    "search": lambda q: f"%search_docs {q}",
    "history": lambda i: f"%read_doc {i}@history",
    "version": lambda a: f"%read_doc {a}",
    "restore": lambda a: "%restore_doc {} {}".format(*_split(a)),
    "body": lambda i: f"a %%write_doc {i} cell holding the whole doc",
    "replace": lambda i: f"a %%write_doc {i} --replace cell",
    "edit": _edit(lambda i, old, new: f"%%write_doc {i} --replace\n<<<<<<< old\n{old}\n=======\n{new}"),
    "argument": lambda name: {
        "body": "the cell",
        "old": "the old text (between '<<<<<<< old' and '=======')",
        "new": "the new text (after '=======')",
        "if_match": "--if-match",
    }.get(name, name),
    "flag": lambda name: f"--{name.replace('_', '-')}",
}
_CLI = {
    "read": lambda i: "biopb-kernel-docs index" if i == "index" else f"biopb-kernel-docs read {_word(i)}",
    "diff": lambda i: f"biopb-kernel-docs read {i}@diff",
    "search": lambda q: f"biopb-kernel-docs search {_word(q)}",
    "history": lambda i: f"biopb-kernel-docs read {i}@history",
    "version": lambda a: f"biopb-kernel-docs read {a}",
    "restore": lambda a: "biopb-kernel-docs restore {} {}".format(*_split(a)),
    "body": lambda i: f"biopb-kernel-docs write {i} --body-file FILE",
    "replace": lambda i: f"biopb-kernel-docs write {i} --old-file OLD --new-file NEW",
    "edit": _edit(
        lambda i, old, new: f"biopb-kernel-docs write {i} --old={shlex.quote(old)} --new={shlex.quote(new)}"
    ),
    "argument": lambda name: f"--{name.replace('_', '-')}" + ("" if name == "if_match" else "-file"),
    "flag": lambda name: f"--{name.replace('_', '-')}",
}
# Phrases stand where a call does ("X lists them all", "create it with X"): noun phrases.
_PANEL = {
    "read": lambda i: (
        "the Kernel Docs panel's index"
        if i == "index"
        else _section_phrase(i)
        if "#" in i
        else f"opening {i} in the Kernel Docs panel"
    ),
    "diff": lambda i: f"the diff of {i} (Show diff in the Kernel Docs panel)",
    "search": lambda q: f"searching for {q!r} in the Kernel Docs panel",
    "history": lambda i: f"the history of {i} in the Kernel Docs panel",
    "version": lambda a: "version {1} in the history of {0} in the Kernel Docs panel".format(*_split(a)),
    "restore": lambda a: "Restore on version {1} in the history of {0} (Kernel Docs panel)".format(
        *_split(a)
    ),
    "body": lambda i: f"the editor of {i} in the Kernel Docs panel",
    "replace": lambda i: f"the editor of {i} in the Kernel Docs panel",
    "edit": _edit(
        lambda i, old, new: f"in the editor of {i} in the Kernel Docs panel, replace\n{old}\nwith\n{new}"
    ),
    "argument": lambda name: {"body": "the text", "old": "the old text", "new": "the new text"}.get(
        name, name
    ),
    "flag": lambda name: f'"{name}": true',
}
_SURFACES = {Surface.AGENT: _AGENT, Surface.NOTEBOOK: _NOTEBOOK, Surface.CLI: _CLI, Surface.PANEL: _PANEL}


def render(template: str, surface: Surface = Surface.AGENT) -> str:
    """``template`` with each placeholder spelled the way ``surface`` calls it."""
    if _MARK not in template:
        return template
    phrasing = _SURFACES[surface]

    def spell(match: re.Match[str]) -> str:
        phrase = phrasing[match.group(1)](match.group(2))
        # The panel's phrases are prose ("the Kernel Docs panel's index"): one that opens a
        # sentence starts with a capital, as the sentence does. Calls (read_doc(...)) never change.
        if surface is Surface.PANEL and _SENTENCE_START.search(template[: match.start()]):
            return phrase[:1].upper() + phrase[1:]
        return phrase

    return _PLACEHOLDER.sub(spell, template)


# What ends the text before a phrase that opens a sentence: nothing, or a full stop and a space.
_SENTENCE_START = re.compile(r"(?:\A|[.!?]\s+|\n)\Z")


def counted(count: int, one: str, many: str | None = None) -> str:
    """``1 doc``, ``2 docs``."""
    return f"{count} {one if count == 1 else many or one + 's'}"
