"""Values as the agent reads them (and the command line prints them): the one place for that text.

A read is the doc under a one-line header; the index is the file with its markers and the
loader's two tails (§2); a write is a summary line and the unified diffs (§3). Calls the text
points to are spelled for the surface it reaches (``phrases``).
"""

from __future__ import annotations

import time

from ..core.ids import INDEX_ID
from ..core.phrases import Surface, read_diff, read_history, read_version, render, restore, write_replace
from ..core.reconcile import MARKER_TEXT
from ..core.values import (
    Author,
    ConfigView,
    DiffView,
    DocView,
    HistoryView,
    IndexView,
    Read,
    VersionDiffView,
    VersionInfo,
    VersionView,
    WriteResult,
)

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


# -- history -----------------------------------------------------------------------------------------


def author_label(author: Author) -> str:
    """Who made a version, in a few words: ``claude-code 2.1 via MCP``, ``panel as alice``."""
    surface = author.surface
    if surface == "mcp":
        return f"{' '.join(p for p in (author.name, author.version) if p) or 'an MCP client'} via MCP"
    if surface == "magic":
        return f"magic in kernel {author.where[:8]}" if author.where else "magic"
    if surface == "panel":
        return f"panel as {author.name}" if author.name else "panel"
    return {
        "cli": "cli",
        "python": "Python API",
        "loader": "seeded from the shipped index",
        "outside": "outside edit",
        "earlier": "before history was kept",
        "shipped": "the shipped text",
    }.get(surface, surface)


def when(version: VersionInfo) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(version.time))


def _size(count: int) -> str:
    return f"{count // (1024 * 1024)} MiB" if count % (1024 * 1024) == 0 else f"{count:,} bytes"


def version_line(version: VersionInfo) -> str:
    """``v12 · 2026-12-01 14:02 · claude-code 2.1 via MCP · +3 −1 lines``"""
    parts = [f"v{version.number}", when(version), author_label(version.author)]
    if version.after_sha256 is None:
        parts.append("the doc was removed")
    elif version.author.surface in ("earlier", "shipped"):
        parts.append(f"{version.lines} lines")
    else:
        parts.append(f"+{version.added} \u2212{version.removed} lines")
    if not version.local and version.after_sha256 is not None and version.author.surface != "shipped":
        parts.append("no local copy: the shipped text is read")
    if version.restores is not None:
        parts.append(f"restores v{version.restores}")
    if not version.kept and version.after_sha256 is not None:
        parts.append("text not kept (over the byte bound)")
    if version.current:
        parts.append("current")
    return " · ".join(parts)


def bounds_text(view: HistoryView) -> str:
    return (
        f"at most {view.max_versions} versions and {_size(view.max_bytes)} per doc are kept, the oldest "
        "dropped first"
    )


def history_text(view: HistoryView) -> str:
    if not view.enabled:
        return f"[{view.id}@history · no history is kept here: DocStore.history_max_versions is 0]\n"
    header = f"[{view.id}@history · {len(view.versions)} versions kept, newest first · {bounds_text(view)}]"
    if not view.versions:
        return (
            f"{header}\n\nNo versions yet: {view.id!r} has not been written through the store since its "
            "history began. Each write keeps the text it replaced from then on.\n"
        )
    lines = [version_line(v) for v in view.versions]
    older = next((v for v in view.versions if not v.current and v.kept), None)
    hint = ""
    if older is not None:
        hint = (
            f"\n\n{read_version(view.id, older.number)} reads a version; {restore(view.id, older.number)} "
            "writes its text back as a new version."
        )
    return f"{header}\n\n" + "\n".join(lines) + hint + "\n"


def version_header(view: VersionView) -> str:
    v = view.version
    parts = [f"{view.id}@v{v.number}", when(v), f"by {author_label(v.author)}"]
    if v.author.surface not in ("earlier", "shipped"):
        parts.append(f"+{v.added} \u2212{v.removed} lines")
    if v.restores is not None:
        parts.append(f"restores v{v.restores}")
    parts.append(
        "the current text"
        if v.current
        else f"not the current text: {restore(view.id, v.number)} puts it back"
    )
    return f"[{' · '.join(parts)}]"


def version_text(view: VersionView) -> str:
    if view.text is None:
        reason = (
            "The doc did not exist at this version."
            if view.version.after_sha256 is None
            else "Its text was not kept: it alone was over the history's byte bound."
        )
        return f"{version_header(view)}\n\n{reason}\n"
    return f"{version_header(view)}\n\n{view.text}"


def version_diff_text(view: VersionDiffView) -> str:
    newer = f"v{view.newer}" if view.newer is not None else "the current text"
    diff = view.diff()
    return f"[{view.id} · v{view.older} against {newer}]\n\n{diff or 'No differences.'}\n"


# -- the index and docs --------------------------------------------------------------------------------


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
    if isinstance(value, HistoryView):
        return render(history_text(value), surface)
    if isinstance(value, VersionView):
        return render(version_text(value), surface)
    return f"{doc_header(value)}\n\n{value.text}"


def write_summary(result: WriteResult) -> str:
    """What the write did, then what it may have done that was not meant (a shrink, lost entries)."""
    return " ".join([_outcome(result), *_warnings(result)])


def _warnings(result: WriteResult) -> list[str]:
    found = []
    shrink = result.shrink
    if shrink is not None:
        back = (
            f"If that was not meant, {restore(result.id, shrink.version)} brings the old text back "
            f"({read_version(result.id, shrink.version)} shows it)."
            if shrink.version is not None
            else "No history is kept here, so the old text is only in the diff below."
        )
        found.append(
            f"This write shrank {result.id!r} to less than half: from {shrink.lines_before} to "
            f"{shrink.lines_after} lines ({shrink.chars_before:,} to {shrink.chars_after:,} "
            f"characters). {back}"
        )
    broken = [lost for lost in result.lost_entries if lost.line is not None]
    gone = [lost.id for lost in result.lost_entries if lost.line is None]
    for lost in broken:
        found.append(
            f"The index no longer lists {lost.id!r}: line {lost.line + 1} ({lost.text!r}) is not an entry "
            "any more, since an entry is '- <id>: <hook>' with a colon right after the id. Put the colon "
            f"back with {write_replace(INDEX_ID)} unless that was meant."
        )
    if gone:
        named = ", ".join(repr(i) for i in gone)
        found.append(
            f"The index no longer lists {named}: {'its line is' if len(gone) == 1 else 'their lines are'} "
            "gone (retired: a local doc stays readable by id; a shipped one shows in the New shipped "
            f"docs tail again unless it is on the ignored: line). {read_history(INDEX_ID)} has the old index."
        )
    return found


def _outcome(result: WriteResult) -> str:
    doc_id = result.id
    if result.outcome == "removed":
        return (
            f"Dropped the local copy of {doc_id!r}: it reads the shipped text again, and every later "
            f"release of it. {read_history(doc_id)} keeps the copy's versions."
        )
    if result.restored is not None and result.outcome != "unchanged":
        return f"Restored {doc_id!r} to the text of v{result.restored} (a new version; nothing was lost)."
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


def write_text(result: WriteResult, surface: Surface = Surface.AGENT) -> str:
    """The summary, then the diff of each file the write changed (§3: the result is the diff)."""
    return "\n\n".join([render(write_summary(result), surface), *(c.diff() for c in result.changes)])


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
    if isinstance(value, VersionDiffView):
        return version_diff_text(value)
    if isinstance(value, DocView | IndexView | DiffView | HistoryView | VersionView):
        return read_text(value, surface, ignored_as_count=ignored_as_count)
    raise TypeError(f"no text rendering for {type(value).__name__}")
