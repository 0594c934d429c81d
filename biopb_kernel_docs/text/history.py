"""A doc's history as the agent (and the command line) reads it: who made each version and when,
one version's text, two versions compared. ``render.text`` dispatches here; the REST API uses
``author_label`` and ``bounds_text`` for the panel.
"""

from __future__ import annotations

import time

from ..core.phrases import read_version, restore
from ..core.values import Author, HistoryView, VersionDiffView, VersionInfo, VersionView


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
