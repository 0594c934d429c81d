"""The MCP handshake (§3): server instructions that carry the rendered index.

Hosts cut long instructions (Claude Code documents 2,048 characters), so the text is ordered by
what must survive a cut at any length: the header line saying this is doc ``index``, the rule
that destructive steps ask first, how to use the index, the guardrails, then the index itself in
file order. When a budget applies and the index does not fit, whole lines are dropped from the
end and a note right under the header says how many entries were left out.
"""

from __future__ import annotations

from .index import parse_index

HEADER = (
    'This is doc "index" of the biopb docs you share with the user: re-read it with '
    'read_doc("index") and edit it with write_doc("index", old=..., new=...).'
)
RULES = (
    "Destructive steps (deleting or overwriting data or files, restarting the kernel, installing "
    "packages) always ask the user first.",
    "Before non-trivial work, read_doc the reference docs under ## References; when a request "
    "matches a procedure's line, read_doc that procedure and follow its checkpoints.",
    "The kernel is shared with the user: never overwrite their variables, keep raw data untouched, "
    "and state units and pixel sizes with every result.",
)
# Hosts whose cap on server instructions is documented, by the name they declare in clientInfo.
KNOWN_HOST_BUDGETS = {"claude-code": 2048}


def budget_for(client_name: str | None, budgets: dict[str, int]) -> int | None:
    """The character budget for a client, matched case-insensitively on its declared name."""
    if not client_name:
        return None
    name = client_name.lower()
    for known, budget in budgets.items():
        if name == known.lower() or name.startswith(known.lower() + "/"):
            return budget
    return None


def _cut_note(left_out: int) -> str:
    return (
        f"This copy is cut to fit this host: {left_out} index entries are left out below; "
        'read_doc("index") has them all.'
    )


def compose_instructions(
    rendered_index: str | None, budget: int | None = None, problem: str | None = None
) -> str:
    """The instructions text: header, rules, then the rendered index, within ``budget`` characters.

    ``rendered_index`` None means the index could not be loaded; ``problem`` says why.
    """
    preamble = [HEADER, *RULES]
    if rendered_index is None:
        preamble.insert(1, f'The index could not be loaded ({problem}). Call read_doc("index") to retry.')
        return _fit("\n".join(preamble), budget)
    index_lines = rendered_index.rstrip("\n").split("\n")
    full = "\n".join([*preamble, "", *index_lines])
    if budget is None or len(full) <= budget:
        return full
    entry_lines = [bool(parse_index(line).entries) for line in index_lines]
    kept = len(index_lines)
    while kept > 0:
        kept -= 1
        left_out = sum(entry_lines[kept:])
        text = "\n".join([HEADER, _cut_note(left_out), *RULES, "", *index_lines[:kept]])
        if len(text) <= budget:
            return text
    return _fit("\n".join([HEADER, _cut_note(sum(entry_lines)), *RULES]), budget)


def _fit(text: str, budget: int | None) -> str:
    """Drop whole trailing lines until ``text`` fits; the header line is never dropped."""
    if budget is None or len(text) <= budget:
        return text
    lines = text.split("\n")
    while len(lines) > 1 and len("\n".join(lines)) > budget:
        lines.pop()
    return "\n".join(lines)[:budget]
