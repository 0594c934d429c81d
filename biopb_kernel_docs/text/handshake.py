"""The MCP handshake (§3): server instructions that carry the rendered index.

Hosts cut long instructions (Claude Code documents 2,048 characters), so the text is ordered by
what must survive a cut at any length: the header line saying this is doc ``index``, the rule
that destructive steps ask first, how to use the index, the guardrails, then the index itself in
file order.

Within a budget, the index is sent in a compact form rather than cut blind: the same header, the
rules in their short wording, the index's headings and entries without its prose (which repeats
the rules), and hooks shortened, the longest line first: at clause boundaries (a ',' or ';'
outside brackets, then trailing parentheticals) down to their first clause, and only if that is
not enough, between words (marked "…", five words at least); room a cut leaves over is given back
from the top. Only when every hook is at its shortest and the entries still do not fit are whole
entries dropped from the end, in the index's own order, with a note under the header saying how
many were left out. Everything is composed from the index's value (``IndexView``), never from
the agent's text.

§6: the handshake never shows an id the agent could guess, so the ``ignored:`` line is sent as a
count; its ids are the agent's to read with ``read_doc("index")`` when it edits that line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..core.phrases import read_diff
from ..core.phrases import render as spell
from ..core.values import HandshakeView, IndexView
from .render import MARKERS, NEW_TAIL_TITLE, STALE_TAIL_TITLE, index_text

HEADER = (
    'Doc "index" of the biopb docs you share with the user: read_doc("index") has it whole; '
    'write_doc("index", old=..., new=...) edits it.'
)
RULES = (
    "Destructive steps (deleting or overwriting data or files, restarting the kernel, installing "
    "packages) always ask the user first.",
    "Each index line says when to read its doc: read_doc it when the request matches that line, not "
    'before, and follow a procedure\'s checkpoints. A long doc can be read by section: read_doc("<id>#") '
    "lists its sections with the call that reads each. search_docs finds an exact error, name or "
    "setting in the docs.",
    "The kernel is shared with the user: never overwrite their variables, keep raw data untouched, "
    "and state units and pixel sizes with every result.",
)
# Short because every character here is one a budgeted host's hooks cannot have.
COMPACT_RULES = (
    "Ask before deleting or overwriting data, restarting the kernel or installing.",
    'Read a doc when its line matches, by section after read_doc("id#"); search_docs finds literals.',
    "Shared kernel: keep the user's variables and raw data; give units.",
)
# What each loader tail asks, in the compact form (§2: the agent meets a tail cold in the handshake).
COMPACT_TAIL_TITLES = {
    NEW_TAIL_TITLE: f"{NEW_TAIL_TITLE} (file each under a heading, or add it to ignored:)",
    STALE_TAIL_TITLE: f'{STALE_TAIL_TITLE} (read_doc("<id>@diff") shows the change)',
}
INLINED_TITLE = "## Reference docs, inlined (the same text read_doc returns)"
# Hosts whose cap on server instructions is documented, by the name they declare in clientInfo.
KNOWN_HOST_BUDGETS = {"claude-code": 2048}

_PROTECTED_SUFFIX = re.compile(
    rf"(?:\s+(?:{'|'.join(re.escape(m) for m in MARKERS.values())})|\s+— read_doc\(\"[^\"]+@diff\"\))+$"
)
MIN_CLAUSE_WORDS = 3
MIN_CUT_WORDS = 5  # a hook cut between words keeps at least this many


@dataclass(frozen=True)
class Entry:
    """One index entry as the handshake sees it: its id, its hook, the heading it sits under."""

    doc_id: str
    hook: str
    heading: str


def budget_for(client_name: str | None, budgets: dict[str, int]) -> int | None:
    """The character budget for a client, matched case-insensitively on its declared name."""
    if not client_name:
        return None
    name = client_name.lower()
    for known, budget in budgets.items():
        if name == known.lower() or name.startswith(known.lower() + "/"):
            return budget
    return None


def index_entries(view: IndexView) -> tuple[Entry, ...]:
    """The index's entries and both tails' items, each under its heading (``""`` before any), with
    the loader's marker or the stale item's diff call on its hook."""
    found = [
        Entry(e.id, f"{e.hook} {MARKERS[e.marker]}".strip() if e.marker else e.hook, e.heading or "")
        for e in view.entries
    ]
    found += [Entry(item.id, item.description, NEW_TAIL_TITLE) for item in view.new_shipped]
    found += [
        Entry(item.id, f"{item.description} — {spell(read_diff(item.id))}", STALE_TAIL_TITLE)
        for item in view.stale
    ]
    return tuple(found)


def hook_variants(hook: str) -> tuple[str, ...]:
    """``hook`` and its shorter forms, longest first: trailing clauses dropped one at a time (at a
    ',' or ';' outside brackets), then the first clause's trailing parentheticals. A ``(missing)``
    or ``(local copy)`` marker and a stale tail's ``read_doc("<id>@diff")`` are kept on every form."""
    match = _PROTECTED_SUFFIX.search(hook)
    suffix = match.group(0) if match else ""
    core = hook[: len(hook) - len(suffix)]
    forms = [core]
    for cut in reversed(_top_level_positions(core, ",;")):
        # A comma in a list ("find, count and outline") is no clause boundary: a clause has words.
        if len(core[:cut].split()) >= MIN_CLAUSE_WORDS:
            forms.append(core[:cut].rstrip())
    while True:
        shorter = _drop_last_parenthetical(forms[-1])
        if shorter is None or not shorter:
            break
        forms.append(shorter)
    return tuple(dict.fromkeys(form + suffix for form in forms if form)) or (hook,)  # '- id:' has no hook


def _top_level_positions(text: str, separators: str) -> list[int]:
    depth, positions = 0, []
    for position, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(0, depth - 1)
        elif char in separators and depth == 0 and text[position + 1 : position + 2] in (" ", ""):
            positions.append(position)
    return positions


def _drop_last_parenthetical(text: str) -> str | None:
    groups = list(re.finditer(r"\s*\([^()]*\)", text))
    if not groups:
        return None
    last = groups[-1]
    return " ".join((text[: last.start()] + text[last.end() :]).split())


def entry_lines(entries: Sequence[Entry]) -> list[str]:
    """Entries as index lines, a heading line wherever the heading changes (a tail with its ask)."""
    lines: list[str] = []
    heading = None
    for entry in entries:
        if entry.heading != heading:
            heading = entry.heading
            if heading:
                lines.append(COMPACT_TAIL_TITLES.get(heading, heading))
        lines.append(f"- {entry.doc_id}: {entry.hook}".rstrip())
    return lines


def word_cuts(hook: str) -> tuple[str, ...]:
    """``hook`` cut at word boundaries, one word at a time, marked with an ellipsis, down to
    MIN_CUT_WORDS words (a protected marker or @diff call is kept)."""
    match = _PROTECTED_SUFFIX.search(hook)
    suffix = match.group(0) if match else ""
    words = hook[: len(hook) - len(suffix)].split()
    return tuple(
        " ".join(words[:count]).rstrip(",;:") + "…" + suffix
        for count in range(len(words) - 1, MIN_CUT_WORDS - 1, -1)
    )


def shorten_hooks(entries: Sequence[Entry], budget: int) -> tuple[Entry, ...]:
    """Shorten hooks until the entries' lines total at most ``budget`` characters (newlines
    counted), the longest line first: at clause boundaries while any hook has one, then, if that is
    not enough, at word boundaries. Room a cut leaves over is given back from the top."""
    current = list(entries)
    variants = [list(hook_variants(entry.hook)) for entry in entries]
    step = [0] * len(current)
    total = sum(len(line) + 1 for line in entry_lines(current))

    def cut_while_over() -> None:
        nonlocal total
        while total > budget:
            cuttable = [n for n in range(len(current)) if step[n] + 1 < len(variants[n])]
            if not cuttable:
                return
            # Longest line first; between equals, the later entry, so the top of the index keeps most.
            n = max(cuttable, key=lambda k: (len(current[k].doc_id) + len(current[k].hook), k))
            step[n] += 1
            total -= len(current[n].hook) - len(variants[n][step[n]])
            current[n] = replace(current[n], hook=variants[n][step[n]])

    cut_while_over()
    if total > budget:
        for forms in variants:
            forms.extend(word_cuts(forms[-1]))
        cut_while_over()
    for n in range(len(current)):
        while step[n] > 0 and total + len(variants[n][step[n] - 1]) - len(current[n].hook) <= budget:
            step[n] -= 1
            total += len(variants[n][step[n]]) - len(current[n].hook)
            current[n] = replace(current[n], hook=variants[n][step[n]])
    return tuple(current)


def _cut_note(left_out: int) -> str:
    return (
        f"This copy is cut to fit this host: {left_out} index entries are left out below; "
        'read_doc("index") has them all.'
    )


def compact_index(entries: Sequence[Entry], budget: int) -> tuple[list[str], int]:
    """The compact header, rules and entries within ``budget``: ``(lines, entries left out)``."""
    preamble = [HEADER, *COMPACT_RULES, ""]
    room = budget - sum(len(line) + 1 for line in preamble) + 1  # the last entry line has no newline
    kept = shorten_hooks(entries, room)
    if sum(len(line) + 1 for line in entry_lines(kept)) <= room:
        return [*preamble, *entry_lines(kept)], 0
    for count in range(len(kept) - 1, -1, -1):
        left_out = len(kept) - count
        note = _cut_note(left_out)
        lines = [HEADER, note, *COMPACT_RULES, "", *entry_lines(kept[:count])]
        if len("\n".join(lines)) <= budget:
            return lines, left_out
    return [HEADER, _cut_note(len(kept)), *COMPACT_RULES], len(kept)


def handshake(
    view: IndexView | None,
    budget: int | None = None,
    problem: str | None = None,
    inlined: Sequence[tuple[str, str]] = (),
) -> HandshakeView:
    """The instructions for a host with ``budget`` characters (None: no cap), and what they leave out.

    ``view`` None means the index could not be loaded; ``problem`` says why. ``inlined`` is
    ``(id, text)`` of docs whose text follows the index (§8 risk 1's fallback), cut first.
    """
    if view is None:
        preamble = [HEADER, f'The index could not be loaded ({problem}). Call read_doc("index") to retry.']
        text = _fit("\n".join([*preamble, *RULES]), budget)
        return HandshakeView(budget, text, len(text), ())
    entries = index_entries(view)
    full = "\n".join([HEADER, *RULES, "", index_text(view, ignored_as_count=True).rstrip("\n")])
    left_out = 0
    if budget is None or len(full) <= budget:
        text = full
    else:
        lines, left_out = compact_index(entries, budget)
        text = "\n".join(lines)
    if inlined:
        extra = ["", INLINED_TITLE]
        for doc_id, body in inlined:
            extra += ["", f'### read_doc("{doc_id}")', *body.rstrip("\n").split("\n")]
        with_bodies = _fit("\n".join([text, *extra]), budget, keep=text.count("\n") + 1).rstrip("\n")
        # A title with no body under it is noise: under a tight budget the index alone is sent.
        text = with_bodies if len(with_bodies.split("\n")) > text.count("\n") + 4 else text
    text = _fit(text, budget)
    missed = tuple(entry.doc_id for entry in entries[len(entries) - left_out :]) if left_out else ()
    return HandshakeView(budget, text, len(text), missed)


def compose_instructions(
    view: IndexView | None,
    budget: int | None = None,
    problem: str | None = None,
    inlined: Sequence[tuple[str, str]] = (),
) -> str:
    """The instructions text alone (see ``handshake``)."""
    return handshake(view, budget, problem, inlined).text


def _fit(text: str, budget: int | None, keep: int = 1) -> str:
    """Drop whole trailing lines until ``text`` fits, never the first ``keep`` lines."""
    if budget is None or len(text) <= budget:
        return text
    lines = text.split("\n")
    while len(lines) > keep and len("\n".join(lines)) > budget:
        lines.pop()
    return "\n".join(lines)[:budget]
