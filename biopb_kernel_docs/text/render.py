"""Values as the agent reads them (and the command line prints them): the one place for that text.

A read is the doc under a one-line header; the index is the file with its markers and the
loader's two tails (§2); a write is a summary line and the unified diffs (§3). Calls the text
points to are spelled for the surface it reaches (``phrases``).
"""

from __future__ import annotations

from ..core.ids import INDEX_ID
from ..core.index import MARKER_TEXT, UNFILED_HEADING
from ..core.phrases import (
    Surface,
    counted,
    read,
    read_diff,
    read_history,
    read_version,
    render,
    replace_call,
    restore,
    write_body,
    write_replace,
)
from ..core.values import (
    CollectionView,
    ConfigView,
    DiffView,
    DocView,
    HistoryView,
    IndexMove,
    IndexView,
    OutlineView,
    Read,
    SearchGroup,
    SearchResult,
    SectionView,
    SkillExport,
    SkillImport,
    VersionDiffView,
    VersionView,
    WriteResult,
)
from .history import history_text, version_diff_text, version_text
from .skills import skills_text

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


def _origin(view: DocView | OutlineView | SectionView) -> list[str]:
    parts = [view.tier, f"updated {view.updated}"]
    return [*parts, "shadows shipped"] if view.shadows_shipped else parts


def doc_header(view: DocView, surface: Surface = Surface.AGENT) -> str:
    """§3's one-line header; a doc with headings also names how to read one section (§7)."""
    parts = [view.id, *_origin(view)]
    if view.sections > 1:
        parts.append(
            f"{view.sections} sections: {read(view.id + '#<heading>')} reads one, {read(view.id + '#')} "
            "lists them"
        )
    return render(f"[{' · '.join(parts)}]", surface)


def section_header(view: SectionView, surface: Surface = Surface.AGENT) -> str:
    entry = view.section
    where = f"§ {view.position} of {view.of}: {' › '.join(entry.path)}"
    where += f" · lines {entry.line}–{entry.end} of {view.lines}"
    parts = [f"{view.id}#{entry.anchor}", *_origin(view), where, f"outline: {read(view.id + '#')}"]
    if view.also:
        parts.append("also matched: " + ", ".join(read(f"{view.id}#{anchor}") for anchor in view.also))
    return render(f"[{' · '.join(parts)}]", surface)


def outline_text(view: OutlineView, surface: Surface = Surface.AGENT) -> str:
    """Every heading with its lines and the call that reads its section (§7)."""
    count = len(view.entries)
    header = f"[{view.id}# · outline · {' · '.join(_origin(view))} · {view.lines} lines, {count} sections]"
    if not view.entries:
        body = [f"{view.id!r} has no headings: {read(view.id)} reads it whole."]
    else:
        top = min(entry.level for entry in view.entries)
        body = [
            f"{'  ' * (e.level - top)}- {e.title} ({e.line_count} lines, {e.line}–{e.end}): "
            f"{read(f'{view.id}#{e.anchor}')}"
            for e in view.entries
        ]
    return render("\n".join([header, "", *body]) + "\n", surface)


def collection_text(view: CollectionView, surface: Surface = Surface.AGENT) -> str:
    """§7: the docs under a collection, each ``- id: hook``, under the collection line's own hook."""
    count = counted(len(view.items), "doc")
    if view.listed:
        where = f"listed under {view.heading}" if view.heading else "listed in the index"
        lines = [f"[{view.id} · collection · {count} · {where}]", "", f"{view.id}: {view.hook}".rstrip()]
    else:
        lines = [
            f"[{view.id} · collection · {count} · not in the index]",
            "",
            f"The index has no '- {view.id}: ...' line, so no handshake offers these docs; add one with "
            f"{write_replace(INDEX_ID)} to list them as one entry.",
        ]
    lines.append("")
    for item in view.items:
        marker = f" {MARKERS['local copy']}" if item.shadows_shipped else ""
        lines.append(f"- {item.id}: {item.hook}{marker}")
    if not view.items:
        lines.append(f"No docs under {view.id} yet: {write_body(view.id + '<name>')} writes one.")
    return render("\n".join(lines) + "\n", surface)


def _group_title(group: SearchGroup) -> str:
    shown = list(group.path[1:]) if len(group.path) > 1 else list(group.path)
    where = f" (§ {' › '.join(shown)})" if shown else ""
    call = read(f"{group.id}#{group.anchor}") if group.anchor else read(group.id)
    return f"{group.id}{where} — {call}"


def search_text(result: SearchResult, surface: Surface = Surface.AGENT) -> str:
    """Grep-shaped: each group's doc and section with the call that reads it, then ``  L42: line``."""
    kind = "pattern" if result.regex else "literal"
    case = "case-sensitive" if result.case_sensitive else "case-insensitive"
    what = f"{result.query!r} ({kind}, {case})"
    scope = (
        f"{counted(result.docs_searched, 'doc')} searched (the listed docs, those under listed "
        "collections, the index)"
    )
    if not result.matching_lines:
        lines = [f"No line matches {what}: 0 matches in {scope}."]
    else:
        at_least = "" if result.counted_all else "at least "
        lines = [
            f"{at_least}{counted(result.matching_lines, 'matching line')} in "
            f"{counted(result.matching_docs, 'doc')} for {what}; "
            f"{scope}.",
        ]
        previous = None
        for group in result.groups:
            if group.id != previous:
                lines.append("")
            previous = group.id
            lines.append(_group_title(group))
            lines += [f"  L{line.line}: {line.text}" for line in group.lines]
        if result.more_lines:
            lines += [
                "",
                f"{at_least}{counted(result.more_lines, 'more match', 'more matches')} in "
                f"{counted(result.more_docs, 'doc')}: narrow the query "
                f"(at most {result.line_cap_per_doc} lines a doc and {result.line_cap} in all are shown).",
            ]
    if result.skipped:
        names = ", ".join(f"{doc_id} ({why})" for doc_id, why in result.skipped)
        lines += ["", f"{counted(len(result.skipped), 'file')} could not be searched: {names}."]
    return render("\n".join(lines) + "\n", surface)


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
    if isinstance(value, OutlineView):
        return outline_text(value, surface)
    if isinstance(value, SectionView):
        return f"{section_header(value, surface)}\n\n{value.text}"
    if isinstance(value, CollectionView):
        return collection_text(value, surface)
    if isinstance(value, HistoryView):
        return render(history_text(value), surface)
    if isinstance(value, VersionView):
        return render(version_text(value), surface)
    return f"{doc_header(value, surface)}\n\n{value.text}"


def write_summary(result: WriteResult) -> str:
    """What the write did, how it read a quote of the rendered index, then what it may have done
    that was not meant (a shrink, lost entries)."""
    parts = [_outcome(result)]
    if result.rendered_markers:
        markers = " and ".join(result.rendered_markers)
        parts.append(
            f"Your old/new text quoted the rendered index: its {markers} marker is added by the "
            "loader and is not in index.md, so the edit was applied to the file's own text, without it."
        )
    return " ".join([*parts, *_warnings(result)])


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
    if isinstance(value, SearchResult):
        return search_text(value, surface)
    if isinstance(value, VersionDiffView):
        return version_diff_text(value)
    if isinstance(value, SkillExport | SkillImport):
        return skills_text(value, surface)
    if isinstance(value, Read):
        return read_text(value, surface, ignored_as_count=ignored_as_count)
    raise TypeError(f"no text rendering for {type(value).__name__}")
