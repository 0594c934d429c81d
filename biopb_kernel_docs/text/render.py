"""Values as the agent reads them (and the command line prints them): the one place for that text.

A read is the doc under a one-line header; the index is the file with its markers and the
loader's two tails (§2); a write is a summary line and the unified diffs (§3). Calls the text
points to are spelled for the surface it reaches (``phrases``).
"""

from __future__ import annotations

from ..core.ids import INDEX_ID
from ..core.index import MARKER_TEXT, UNFILED_HEADING
from ..core.phrases import Surface, read_diff, render, replace_call, write_replace
from ..core.values import ConfigView, DiffView, DocView, IndexMove, IndexView, Read, WriteResult

MARKERS = MARKER_TEXT
NEW_TAIL_TITLE = "## New shipped docs"
STALE_TAIL_TITLE = "## Shipped docs your local copy may be behind on"
NEW_TAIL_INSTRUCTION = (
    "These shipped docs have no entry above and are not on the ignored: line (this list is added "
    "by the loader; it is not in index.md). File each one by adding its line under a heading in "
    "the index, or add its id to the ignored: line; either takes it off this list."
)
STALE_TAIL_INSTRUCTION = (
    "Your local copies of these docs shadow shipped text that this release changed (this list is "
    "added by the loader; it is not in index.md). Read each diff and merge what you want into your "
    f"copy with {write_replace('ID')}, or keep your copy as it is; the list clears at the next upgrade."
)
NO_DIFFERENCES = "No differences: your local copy matches the shipped text."


def doc_header(view: DocView) -> str:
    parts = [view.id, view.tier, f"updated {view.updated}"]
    if view.shadows_shipped:
        parts.append("shadows shipped")
    return f"[{' · '.join(parts)}]"


def index_header(view: IndexView) -> str:
    return (
        f"[index · {view.tier} · updated {view.updated} · rendered: the {MARKERS['missing']}/"
        f"{MARKERS['local copy']} markers and the closing tails come from the loader, not from index.md]"
    )


def diff_header(view: DiffView) -> str:
    return (
        f"[{view.id}@diff · your local copy against the current shipped text · this mixes your own "
        "edits with the release's changes: only hashes of earlier releases are kept, not their text]"
    )


def _tail(title: str, instruction: str, items: list[str]) -> list[str]:
    return ["", title, instruction, *items] if items else []


def index_text(view: IndexView, surface: Surface = Surface.AGENT, *, ignored_as_count: bool = False) -> str:
    """The index file plus markers and both tails (§2). ``ignored_as_count`` (the handshake, §6:
    it never shows an id the agent could guess) writes each ``ignored:`` line as its count."""
    lines = view.text.split("\n")
    for entry in view.entries:
        if entry.marker:
            lines[entry.line] = f"{lines[entry.line].rstrip()} {MARKERS[entry.marker]}"
    if ignored_as_count and view.ignored:
        first, *others = view.ignored_lines
        lines[first] = f"ignored: {len(view.ignored)} shipped docs, not listed here"
        lines = [line for number, line in enumerate(lines) if number not in others]
    while lines and not lines[-1].strip():
        lines.pop()
    lines = [*view.notices, *([""] if view.notices else []), *lines]
    new = [f"- {item.id}: {item.description}" for item in view.new_shipped]
    stale = [f"- {item.id}: {item.description} — {read_diff(item.id)}" for item in view.stale]
    lines += _tail(NEW_TAIL_TITLE, NEW_TAIL_INSTRUCTION, new)
    lines += _tail(STALE_TAIL_TITLE, STALE_TAIL_INSTRUCTION, stale)
    return render("\n".join(lines) + "\n", surface)


def read_text(value: Read, surface: Surface = Surface.AGENT, *, ignored_as_count: bool = False) -> str:
    """What a read returns to the agent: a header line, a blank line, then the content."""
    if isinstance(value, IndexView):
        return f"{index_header(value)}\n\n{index_text(value, surface, ignored_as_count=ignored_as_count)}"
    if isinstance(value, DiffView):
        return f"{diff_header(value)}\n\n{value.diff() or NO_DIFFERENCES}"
    return f"{doc_header(value)}\n\n{value.text}"


def write_summary(result: WriteResult) -> str:
    summary = _write_outcome(result)
    if result.rendered_markers:
        markers = " and ".join(result.rendered_markers)
        summary += (
            f" Your old/new text quoted the rendered index: its {markers} marker is added by the "
            "loader and is not in index.md, so the edit was applied to the file's own text, without it."
        )
    return summary


def _write_outcome(result: WriteResult) -> str:
    doc_id = result.id
    if result.outcome == "unchanged":
        return f"No change: {doc_id!r} already has this text, so nothing was written."
    if result.outcome == "shadowed":
        return (
            f"Created a local copy of shipped doc {doc_id!r}; it now shadows the shipped text, and "
            f"the index marks it {MARKERS['local copy']}."
        )
    if result.outcome == "created":
        if result.filed_under:
            return f"Created local doc {doc_id!r} and filed it under {result.filed_under} in the index."
        return f"Created local doc {doc_id!r}; the index already lists it."
    if doc_id == INDEX_ID and result.filed_under:
        return f"Filed an entry under {result.filed_under} in the index."
    return "Edited the index." if doc_id == INDEX_ID else f"Updated local doc {doc_id!r}."


def move_lead(move: IndexMove) -> str:
    """The sentence before a create's filing edit (issue 22: filing is one copy away)."""
    removed = f", which also removes the {UNFILED_HEADING} it leaves empty" if move.removes_unfiled else ""
    return (
        f"Its line is under {UNFILED_HEADING} in the index. To file it under {move.heading} (the "
        f"index's heading with the most entries), make this edit{removed}:"
    )


def write_text(result: WriteResult, surface: Surface = Surface.AGENT) -> str:
    """The summary, then the diff of each file the write changed (§3: the result is the diff), then
    for a created doc the edit that files it under a heading of the index (it ends the text)."""
    parts = [render(write_summary(result), surface), *(c.diff() for c in result.changes)]
    if result.move is not None:
        move = result.move
        parts.append(render(f"{move_lead(move)}\n{replace_call(INDEX_ID, move.old, move.new)}", surface))
    return "\n\n".join(parts)


def config_text(view: ConfigView) -> str:
    """Where the docs are, and where each setting came from."""
    width = max(len(s.name) for s in view.settings)
    lines = [f"biopb-kernel-docs {view.package_version}"]
    lines += [f"{s.name.ljust(width)}  {s.value}    ({s.source})" for s in view.settings]
    if view.config_files:
        lines.append(f"config files (highest precedence first): {', '.join(view.config_files)}")
    else:
        lines.append(f"no config file; to set these once for every surface, write {view.user_config_file}")
    return "\n".join(lines) + "\n"


def text(value: object, surface: Surface = Surface.AGENT, *, ignored_as_count: bool = False) -> str:
    """Any operation's value as the agent (or the command line) reads it; ``ignored_as_count``
    as for ``index_text``."""
    if isinstance(value, WriteResult):
        return write_text(value, surface)
    if isinstance(value, ConfigView):
        return config_text(value)
    if isinstance(value, DocView | IndexView | DiffView):
        return read_text(value, surface, ignored_as_count=ignored_as_count)
    raise TypeError(f"no text rendering for {type(value).__name__}")
