"""Values as a scientist reads them in a notebook: Markdown that sits well in a notebook's output.

A doc's headings are shown as bold lines, so reading a doc adds nothing to the notebook's table
of contents; its frontmatter is folded away; each ``[[id]]`` link reads as the doc's name, and
the magic that opens it is listed under the doc. The index is shown as its sections and entries
(the agent-facing prose and header are left out), with the loader's markers and tails and the
magic that acts on each.
"""

from __future__ import annotations

import re

from ..core.frontmatter import LINK, prose_lines
from ..core.ids import INDEX_ID
from ..core.phrases import Surface, counted, read, render, replace_call
from ..core.values import (
    CollectionView,
    ConfigView,
    DiffView,
    DocView,
    HistoryView,
    IndexView,
    OutlineView,
    SearchResult,
    SectionView,
    SkillExport,
    SkillImport,
    VersionDiffView,
    VersionView,
    WriteResult,
)
from .history import history_text, version_diff_text, version_header, version_line
from .render import (
    MARKERS,
    NO_DIFFERENCES,
    doc_header,
    move_lead,
    search_text,
    section_header,
    write_summary,
)
from .skills import Parts, skill_lines

_HEADING = re.compile(r"(#{1,6})[ \t]+(.+?)[ \t#]*")


def _fenced(text: str, info: str = "") -> str:
    fence = "````" if "```" in text else "```"
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}"


def _prose_for_notebook(body: str) -> str:
    """Headings as bold lines and ``[[id]]`` as the id in bold, outside code blocks only."""
    lines = body.split("\n")
    for number, line in prose_lines(lines):
        heading = _HEADING.fullmatch(line.rstrip())
        if heading:
            lines[number] = f"**{heading.group(2)}**"
        else:
            lines[number] = LINK.sub(lambda m: f"**{m.group(1)}**", line)
    return "\n".join(lines)


def _magic(doc_id: str) -> str:
    """The magic that reads ``doc_id`` (a section or outline included), as inline code."""
    return f"`{render(read(doc_id), Surface.NOTEBOOK)}`"


def doc_markdown(view: DocView) -> str:
    parts = [f"*{doc_header(view, Surface.NOTEBOOK)[1:-1]}*"]
    if view.frontmatter:
        fields = "\n".join(f"{key}: {value}" for key, value in view.frontmatter)
        parts.append(f"<details><summary>frontmatter</summary>\n\n{_fenced(fields, 'yaml')}\n\n</details>")
    parts.append(_prose_for_notebook(view.body))
    if view.links:
        parts.append("Linked docs: " + " · ".join(_magic(i) for i in view.links))
    return "\n\n".join(parts)


def section_markdown(view: SectionView) -> str:
    """One section: its place in the doc, then its text rendered like a doc's."""
    return f"*{section_header(view, Surface.NOTEBOOK)[1:-1]}*\n\n{_prose_for_notebook(view.text)}"


def outline_markdown(view: OutlineView) -> str:
    """The doc's headings as a nested list, each with its line count and the magic that reads it."""
    head = f"**{view.title}**: outline of `{view.id}`, {view.lines} lines, {len(view.entries)} sections"
    if not view.entries:
        return f"{head}\n\nNo headings: {_magic(view.id)} reads it whole."
    top = min(entry.level for entry in view.entries)
    items = [
        f"{'  ' * (e.level - top)}- {e.title} ({e.line_count} lines) {_magic(f'{view.id}#{e.anchor}')}"
        for e in view.entries
    ]
    return head + "\n\n" + "\n".join(items)


def collection_markdown(view: CollectionView) -> str:
    head = f"**Collection `{view.id}`**: {counted(len(view.items), 'doc')}"
    parts = [head + (f" · {view.hook}" if view.listed and view.hook else "")]
    if not view.listed:
        parts.append(
            f"Not in the index: a `- {view.id}: ...` line (`%%write_doc index --replace`) lists these docs "
            "as one entry."
        )
    items = [
        f"- **{item.id}**: {item.hook}" + (f" *{MARKERS['local copy']}*" if item.shadows_shipped else "")
        for item in view.items
    ]
    parts.append("\n".join(items) if items else f"No docs under `{view.id}` yet.")
    return "\n\n".join(parts)


def search_markdown(result: SearchResult) -> str:
    """The search's text in a code block: line numbers and indentation kept as they are."""
    return _fenced(search_text(result, Surface.NOTEBOOK), "text")


def index_markdown(view: IndexView) -> str:
    where = "the shipped index, read-only" if view.tier == "shipped" else f"`{view.path}`"
    parts = [f"**Doc index**: {view.entry_count} of {view.entry_cap} entries · {where}"]
    parts += [f"> {notice}" for notice in view.notices]
    sections: dict[str | None, list[str]] = {}
    for entry in view.entries:
        marker = f" *{MARKERS[entry.marker]}*" if entry.marker else ""
        sections.setdefault(entry.heading, []).append(f"- **{entry.id}**: {entry.hook}{marker}")
    for heading, lines in sections.items():
        title = f"**{heading.lstrip('#').strip()}**\n\n" if heading else ""
        parts.append(title + "\n".join(lines))
    if view.ignored:
        parts.append("Ignored: " + ", ".join(view.ignored))
    if view.new_shipped:
        items = "\n".join(f"- **{item.id}**: {item.description}" for item in view.new_shipped)
        parts.append(
            "**New shipped docs** (not in your index yet): file one with `%file_doc ID '## Heading'`, "
            f"or hide it with `%ignore_doc ID`.\n\n{items}"
        )
    if view.stale:
        items = "\n".join(
            f"- **{item.id}**: {item.description} (`%read_doc {item.id}@diff`)" for item in view.stale
        )
        parts.append(f"**Your local copies of docs this release changed**: compare and merge.\n\n{items}")
    parts.append("Read a doc with `%read_doc ID`; edit the index with `%%write_doc index --replace`.")
    return "\n\n".join(parts)


def diff_markdown(view: DiffView) -> str:
    header = (
        f"*{view.id}@diff: your local copy against the current shipped text (your edits and the release's)*"
    )
    return f"{header}\n\n{_fenced(view.diff(), 'diff') if not view.identical else NO_DIFFERENCES}"


def write_markdown(result: WriteResult) -> str:
    diffs = [_fenced(change.diff(), "diff") for change in result.changes]
    parts = [render(write_summary(result), Surface.NOTEBOOK), *diffs]
    if result.move is not None:  # the cell that files the new doc, to copy into a cell of its own
        cell = render(replace_call(INDEX_ID, result.move.old, result.move.new), Surface.NOTEBOOK)
        parts += [move_lead(result.move), _fenced(cell)]
    return "\n\n".join(parts)


def history_markdown(view: HistoryView) -> str:
    """The versions as a list, newest first, under the bounds that keep them."""
    if not view.enabled or not view.versions:
        return render(history_text(view), Surface.NOTEBOOK)
    head, _, rest = render(history_text(view), Surface.NOTEBOOK).partition("\n\n")
    items = "\n".join(f"- {version_line(v)}" for v in view.versions)
    hint = rest.partition("\n\n")[2].strip()
    return "\n\n".join(part for part in (f"*{head[1:-1]}*", items, hint) if part)


def version_markdown(view: VersionView) -> str:
    header = f"*{render(version_header(view), Surface.NOTEBOOK)[1:-1]}*"
    if view.text is None:
        return f"{header}\n\nThis version keeps no text."
    return f"{header}\n\n{_fenced(view.text, 'markdown')}"


def version_diff_markdown(view: VersionDiffView) -> str:
    head, _, diff = version_diff_text(view).partition("\n\n")
    return f"*{head[1:-1]}*\n\n{_fenced(diff, 'diff') if view.diff() else diff}"


def config_markdown(view: ConfigView) -> str:
    rows = "\n".join(f"| {s.name} | `{s.value}` | {s.source} |" for s in view.settings)
    files = (
        ", ".join(f"`{f}`" for f in view.config_files)
        or f"none (set values once in `{view.user_config_file}`)"
    )
    table = f"| setting | value | from |\n|---|---|---|\n{rows}"
    return f"**biopb-kernel-docs {view.package_version}**\n\n{table}\n\nConfig files: {files}"


def skills_markdown(parts: Parts) -> str:
    """An export's or an import's result: the summary, a list of skills, then the notes."""
    summary, rows, notes = parts
    blocks = [f"**{summary}**"]
    if rows:
        blocks.append("\n".join(f"- {row}" for row in rows))
    for title, items in notes:
        blocks.append("\n".join([title, *(f"- {item}" for item in items)]) if items else title)
    return render("\n\n".join(blocks), Surface.NOTEBOOK)


def markdown(value: object) -> str:
    """Any operation's value as notebook Markdown."""
    if isinstance(value, DocView):
        return doc_markdown(value)
    if isinstance(value, IndexView):
        return index_markdown(value)
    if isinstance(value, DiffView):
        return diff_markdown(value)
    if isinstance(value, SectionView):
        return section_markdown(value)
    if isinstance(value, OutlineView):
        return outline_markdown(value)
    if isinstance(value, CollectionView):
        return collection_markdown(value)
    if isinstance(value, SearchResult):
        return search_markdown(value)
    if isinstance(value, WriteResult):
        return write_markdown(value)
    if isinstance(value, HistoryView):
        return history_markdown(value)
    if isinstance(value, VersionView):
        return version_markdown(value)
    if isinstance(value, VersionDiffView):
        return version_diff_markdown(value)
    if isinstance(value, ConfigView):
        return config_markdown(value)
    if isinstance(value, SkillExport | SkillImport):
        return skills_markdown(skill_lines(value))
    raise TypeError(f"no notebook rendering for {type(value).__name__}")
