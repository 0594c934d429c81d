"""The Agent Skills format (issue 19): a folder per skill holding ``SKILL.md``, YAML frontmatter
with ``name`` and ``description``, then the Markdown body.

The format's rules, as its specification and reference validator state them: ``name`` is 1-64
characters of lower-case letters, digits and hyphens, neither starting nor ending with a hyphen
nor holding two in a row, and equal to its folder's name; ``description`` is 1-1,024 characters;
``compatibility`` at most 500; ``metadata`` maps strings to strings. The specification also admits
non-ASCII lower-case letters in a name; no doc id can hold one, so here a name is ASCII.

A doc id maps to a name by lower-casing it and writing its ``/`` as ``-``; an id that does not map
to a valid name is reported, never mangled into one. Links between exported docs, ``[[id]]``,
become relative Markdown links to the other skill's ``SKILL.md``, and an import turns them back.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .frontmatter import LINK, prose_lines

SKILL_FILE = "SKILL.md"
NAME_LIMIT = 64
DESCRIPTION_LIMIT = 1024
COMPATIBILITY_LIMIT = 500
# The format's optional top-level fields a doc's frontmatter may carry under the same names.
SPEC_FIELDS = ("license", "compatibility", "allowed-tools")
# The metadata key an export records the doc id under (the format asks for keys unlikely to clash).
SOURCE_ID_KEY = "biopb-id"
NAME_RULES = (
    "A skill's name is 1-64 characters of a-z, 0-9 and '-', neither starting nor ending with '-' "
    "nor holding '--', and equal to its folder's name."
)

_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
# A relative link an export writes for [[id]] / [[id#heading]]: [name](../name/SKILL.md)
_SKILL_LINK = re.compile(r"\[([^\[\]\n]+)\]\(\.\./([a-z0-9-]+)/SKILL\.md\)")
# Characters a YAML double-quoted scalar must escape that JSON leaves as they are.
_YAML_BREAKS = {"\u0085": "\\N", "\u2028": "\\L", "\u2029": "\\P"}
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9 ._/()+,-]*[A-Za-z0-9.)]|[A-Za-z]")
_YAML_WORDS = frozenset(["y", "n", "yes", "no", "on", "off", "true", "false", "null"])


def name_problem(name: str) -> str | None:
    """Why ``name`` is not a valid skill name, or None."""
    if not name:
        return "it is empty"
    if len(name) > NAME_LIMIT:
        return f"it is {len(name)} characters long; the limit is {NAME_LIMIT}"
    if not re.fullmatch(r"[a-z0-9-]+", name):
        return "it holds a character other than a-z, 0-9 and '-'"
    if name.startswith("-") or name.endswith("-"):
        return "it starts or ends with '-'"
    if "--" in name:
        return "it holds '--'"
    assert _NAME.fullmatch(name)
    return None


def skill_name(doc_id: str) -> str:
    """The skill name an id maps to (check it with ``name_problem``): lower case, '/' as '-'."""
    return doc_id.replace("/", "-").lower()


def description_problem(description: str) -> str | None:
    if not description.strip():
        return "its description is empty"
    if len(description) > DESCRIPTION_LIMIT:
        return f"its description is {len(description):,} characters; the limit is {DESCRIPTION_LIMIT:,}"
    return None


def yaml_scalar(text: str) -> str:
    """``text`` as a YAML scalar that every YAML reader reads back as this exact string: plain
    when that is unambiguous, else double-quoted (JSON's escapes are YAML's)."""
    if _PLAIN.fullmatch(text) and text.lower() not in _YAML_WORDS:
        return text
    quoted = json.dumps(text, ensure_ascii=False)
    for raw, escaped in _YAML_BREAKS.items():
        quoted = quoted.replace(raw, escaped)
    return quoted


def render_skill(
    name: str,
    description: str,
    body: str,
    fields: Mapping[str, str] | None = None,
    metadata: Mapping[str, str] | None = None,
) -> str:
    """A SKILL.md: the frontmatter (name, description, the format's optional ``fields``, then
    ``metadata``) and the body."""
    # A name such as 'null' or '2026' is quoted, or a YAML reader would not read it as text.
    lines = ["---", f"name: {yaml_scalar(name)}", f"description: {yaml_scalar(description)}"]
    lines += [f"{key}: {yaml_scalar(value)}" for key, value in (fields or {}).items()]
    if metadata:
        lines.append("metadata:")
        lines += [f"  {yaml_scalar(key)}: {yaml_scalar(value)}" for key, value in metadata.items()]
    lines.append("---")
    return "\n".join(lines) + "\n" + body


@dataclass(frozen=True)
class ParsedSkill:
    """A SKILL.md read and checked: its fields as the format gives them, and its body."""

    name: str
    description: str
    fields: dict[str, str]  # the other top-level fields, each as one line of text
    metadata: dict[str, str]
    dropped: tuple[str, ...]  # fields that cannot be kept as one line of text, by name
    body: str


class SkillProblem(Exception):
    """Why a SKILL.md cannot be imported; the text says what to fix."""


def split_skill(text: str) -> tuple[str, str]:
    """The frontmatter block and the body of a SKILL.md; SkillProblem when it has none."""
    lines = text.removeprefix("\ufeff").split("\n")
    if lines[0].rstrip() != "---":
        raise SkillProblem(
            "SKILL.md does not open with frontmatter: its first line must be '---', then name: and "
            "description: lines, then a closing '---'."
        )
    closing = next((n for n in range(1, len(lines)) if lines[n].rstrip() in ("---", "...")), None)
    if closing is None:
        raise SkillProblem("SKILL.md's frontmatter never closes: add a '---' line after its last field.")
    return "\n".join(lines[1:closing]), "\n".join(lines[closing + 1 :])


def _one_line(value: object) -> str | None:
    """A scalar (or a list of scalars) as one line of text; None for anything deeper."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float | datetime.date):  # YAML reads 2026-12-01 as a date
        return " ".join(str(value).split())
    if isinstance(value, list) and all(isinstance(item, str | int | float) for item in value):
        return " ".join(" ".join(str(item).split()) for item in value)
    return None


def _yaml_problem(err: Exception) -> str:
    """What a YAML error says is wrong and, when it knows, where, as a line of the SKILL.md file."""
    problem = getattr(err, "problem", None) or str(err).strip().split("\n")[0]
    mark = getattr(err, "problem_mark", None)
    if mark is None:
        return problem
    return f"{problem}, at line {mark.line + 2}, column {mark.column + 1}"  # the block starts on line 2


def parse_skill(text: str, folder: str, load_yaml: Callable[[str], object]) -> ParsedSkill:
    """Read and check a SKILL.md found in ``folder``; SkillProblem names the first rule it breaks.

    ``load_yaml`` parses the frontmatter block (a YAML safe loader).
    """
    block, body = split_skill(text)
    try:
        data = load_yaml(block)
    except Exception as err:  # the YAML library's own error
        raise SkillProblem(
            f"SKILL.md's frontmatter is not valid YAML ({_yaml_problem(err)}). A value holding ': ' "
            "or ' #' goes in quotes (description: \"...\"), and a quote must be closed; fix it, then "
            "import again."
        ) from None
    if not isinstance(data, dict):
        raise SkillProblem(
            "SKILL.md's frontmatter must be a mapping of fields (name: ..., description: ...)."
        )
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        raise SkillProblem(f'Its name {name!r} is not text to YAML: quote it (name: "{name}").')
    if not isinstance(name, str) or not name.strip():
        raise SkillProblem("SKILL.md has no name: field; add one equal to the folder's name.")
    name = name.strip()
    problem = name_problem(name)
    if problem is not None:
        raise SkillProblem(f"Its name {name!r} breaks the format's rules: {problem}. {NAME_RULES}")
    if name != folder:
        raise SkillProblem(
            f"Its name {name!r} is not its folder's name {folder!r}; the format requires them equal. "
            "Rename one of them."
        )
    description = data.get("description")
    if not isinstance(description, str):
        raise SkillProblem("SKILL.md has no description: field (the format requires one).")
    problem = description_problem(description)
    if problem is not None:
        raise SkillProblem(f"SKILL.md breaks the format's rules: {problem}.")
    compatibility = data.get("compatibility")
    if isinstance(compatibility, str) and len(compatibility) > COMPATIBILITY_LIMIT:
        raise SkillProblem(
            f"Its compatibility: field is {len(compatibility):,} characters; the format's limit is "
            f"{COMPATIBILITY_LIMIT}."
        )
    fields: dict[str, str] = {}
    metadata: dict[str, str] = {}
    dropped: list[str] = []
    for key, value in data.items():
        if key in ("name", "description"):
            continue
        if key == "metadata" and isinstance(value, dict):
            for sub, item in value.items():
                line = _one_line(item)
                if line is None:
                    dropped.append(f"metadata.{sub}")
                else:
                    metadata[str(sub)] = line
            continue
        line = _one_line(value)
        if line is None:
            dropped.append(str(key))
        else:
            fields[str(key)] = line
    return ParsedSkill(name, " ".join(description.split()), fields, metadata, tuple(dropped), body)


def _rewrite_prose(body: str, pattern: re.Pattern[str], replace: Callable[[re.Match[str]], str]) -> str:
    """``body`` with ``pattern`` replaced outside fenced code blocks only."""
    lines = body.split("\n")
    for number, line in prose_lines(lines):
        if "[" in line:
            lines[number] = pattern.sub(replace, line)
    return "\n".join(lines)


def links_to_skills(body: str, names: Mapping[str, str]) -> tuple[str, tuple[str, ...]]:
    """``[[id]]`` and ``[[id#heading]]`` of an exported doc (``names``: id -> skill name) as
    relative links to that skill's SKILL.md, ``[name#heading](../name/SKILL.md)``; links to docs
    not exported stay as they are and are returned, each once."""
    kept: dict[str, None] = {}

    def replace(match: re.Match[str]) -> str:
        target = match.group(1)
        doc_id, hash_, heading = target.partition("#")
        name = names.get(doc_id)
        if name is None:
            kept[doc_id] = None
            return match.group(0)
        return f"[{name}{hash_}{heading}](../{name}/{SKILL_FILE})"

    return _rewrite_prose(body, LINK, replace), tuple(kept)


def links_from_skills(body: str, ids: Mapping[str, str]) -> str:
    """The inverse: ``[name#heading](../name/SKILL.md)`` for a skill imported as ``ids[name]``
    becomes ``[[id#heading]]``; any other link is left as it is."""

    def replace(match: re.Match[str]) -> str:
        text, name = match.group(1), match.group(2)
        doc_id = ids.get(name)
        if doc_id is None or not (text == name or text.startswith(name + "#")):
            return match.group(0)
        return f"[[{doc_id}{text[len(name) :]}]]"

    return _rewrite_prose(body, _SKILL_LINK, replace)
