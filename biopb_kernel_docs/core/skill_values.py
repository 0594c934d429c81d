"""Agent Skills in and out as values: what an export wrote or would write, what an import made.

Part of ``values`` (which registers these in ``VALUE_TYPES``), kept apart as the skills' own
concern (issue 19); import them from either module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class SkillNote:
    """A doc, skill or folder an export or import left out or left alone, and why (the reason says
    what to do about it)."""

    name: str
    reason: str


@dataclass(frozen=True)
class ExportedSkill:
    """One skill folder an export wrote, would write, kept or removed (issue 19)."""

    name: str
    id: str  # the doc it holds (for a removed skill: the doc it held)
    action: Literal["created", "updated", "unchanged", "removed"]


@dataclass(frozen=True)
class SkillExport:
    """``skills export``: listed docs as Agent Skills folders, ``DIR/<name>/SKILL.md``."""

    directory: str
    record: str  # the export's own record of what it wrote, inside ``directory``
    scope: Literal["procedures", "all"]
    check: bool  # True: nothing was written; the actions are what an export would do
    skills: tuple[ExportedSkill, ...]
    refused: tuple[SkillNote, ...]  # listed docs that cannot be a skill, by id
    left_alone: tuple[SkillNote, ...]  # folders of the directory the export did not touch, by name
    unexported_links: tuple[str, ...]  # [[id]] links of exported docs to docs not exported


@dataclass(frozen=True)
class ImportedSkill:
    """One skill folder that became a local doc (issue 19)."""

    folder: str
    id: str
    outcome: Literal["created", "updated", "shadowed", "unchanged"]
    filed_under: str | None  # the heading its new index entry went under; None: already listed
    other_files: tuple[str, ...]  # the folder's other files (scripts, assets): listed, not imported
    dropped_fields: tuple[str, ...]  # frontmatter fields that are not one line of text


@dataclass(frozen=True)
class SkillImport:
    """``skills import``: each ``DIR/*/SKILL.md`` as a local doc, or a refusal for that folder."""

    directory: str
    heading: str
    imported: tuple[ImportedSkill, ...]
    refused: tuple[SkillNote, ...]  # by folder; the rest imported regardless
    not_skills: tuple[str, ...]  # folders with no SKILL.md
