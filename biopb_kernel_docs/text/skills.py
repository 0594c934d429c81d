"""Agent Skills in and out as words: what an export or an import did, for the agent and the
command line (``render.text``) and, in three parts, for the notebook (``notebook.markdown``)."""

from __future__ import annotations

from ..core.phrases import Surface, counted, flag, read, render
from ..core.values import SkillExport, SkillImport

# A summary, a line per skill, and titled lists of the rest.
Parts = tuple[str, list[str], list[tuple[str, list[str]]]]

_WOULD = {"created": "create", "updated": "update", "unchanged": "unchanged", "removed": "remove"}


def skill_lines(result: SkillExport | SkillImport) -> Parts:
    """A result in three parts: a summary, a line per skill, and titled lists of the rest. Every
    line may hold placeholders (``phrases``), spelled by the caller for its surface."""
    return skill_export_lines(result) if isinstance(result, SkillExport) else skill_import_lines(result)


def skill_export_lines(result: SkillExport) -> Parts:
    """What ``skills export`` did: a summary, a line per skill, and titled lists of the rest.
    Every line may hold placeholders (``phrases``), spelled by the caller for its surface."""
    what = (
        "the docs the index lists under ## Procedures" if result.scope == "procedures" else "every listed doc"
    )
    counts: dict[str, int] = {}
    for skill in result.skills:
        counts[skill.action] = counts.get(skill.action, 0) + 1
    if result.check:
        tally = ", ".join(
            f"leave {n} unchanged" if action == "unchanged" else f"{_WOULD[action]} {n}"
            for action, n in counts.items()
        )
        summary = (
            f"Nothing was written ({flag('check')}). Exporting {what} to {result.directory} would "
            f"{tally or 'write no skill'}."
        )
    else:
        tally = ", ".join(f"{n} {action}" for action, n in counts.items()) or "no skills"
        summary = f"Exported {what} to {result.directory}: {tally}."
    rows = []
    for skill in result.skills:
        action = _WOULD[skill.action] if result.check else skill.action
        source = "" if skill.id == skill.name else f" (doc {skill.id})"
        rows.append(f"{action} {skill.name}{source}")
    notes = []
    if result.refused:
        notes.append(
            ("Not exported (the doc stays as it is):", [f"{n.name}: {n.reason}" for n in result.refused])
        )
    if result.left_alone:
        notes.append(("Left alone:", [f"{n.name}: {n.reason}" for n in result.left_alone]))
    if result.unexported_links:
        more = f"; {flag('all')} exports them too" if result.scope == "procedures" else ""
        notes.append(
            (
                f"Links to docs that are not skills stay [[id]] (an agent with this store's MCP server "
                f"reads them with read_doc){more}:",
                [", ".join(result.unexported_links)],
            )
        )
    notes.append(("The export's own record of what it wrote:", [result.record]))
    return summary, rows, notes


def skill_import_lines(result: SkillImport) -> Parts:
    """What ``skills import`` did, in the same three parts as ``skill_export_lines``."""
    count = len(result.imported)
    summary = f"Imported {counted(count, 'skill')} from {result.directory} as local docs" + (
        f"; new index lines are under {result.heading}." if count else "."
    )
    rows = []
    for skill in result.imported:
        extra = []
        if skill.filed_under is None:
            extra.append("already listed in the index")
        if skill.other_files:
            extra.append("not imported: " + ", ".join(skill.other_files))
        if skill.dropped_fields:
            extra.append("fields not kept (not one line of text): " + ", ".join(skill.dropped_fields))
        detail = f" ({'; '.join(extra)})" if extra else ""
        rows.append(f"{skill.outcome} {skill.id} from {skill.folder}/{detail}")
    notes = []
    if result.refused:
        notes.append(
            ("Refused (nothing of these was written):", [f"{n.name} {n.reason}" for n in result.refused])
        )
    if result.not_skills:
        notes.append(("Folders without a SKILL.md, so not skills:", [", ".join(result.not_skills)]))
    if count:
        notes.append((f"Read one with {read(result.imported[0].id)}.", []))
    return summary, rows, notes


def skills_text(result: SkillExport | SkillImport, surface: Surface) -> str:
    """An export's or an import's result as the agent (or the command line) reads it."""
    summary, rows, notes = skill_lines(result)
    lines = [summary, *(f"  {row}" for row in rows)]
    for title, items in notes:
        lines += ["", title, *(f"  - {item}" for item in items)]
    return render("\n".join(lines) + "\n", surface)
