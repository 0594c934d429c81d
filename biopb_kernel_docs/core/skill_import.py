"""``skills import`` (issue 19): each ``DIR/<name>/SKILL.md`` as a local doc, ``skills/<name>``.

A lab's skills come in through the normal write path (``Docs.write_doc``: the caps, the lock, the
precondition and whatever else a write records), one folder at a time: the index entry first,
under the heading the import names (``## Imported skills``), with the skill's description as its
hook, then the doc, so a doc never exists unfiled (§3). A folder that cannot be imported (no
frontmatter, a name that is not its folder's, a description over the format's limit, an id that
exists without ``replace``, a doc over a cap) is refused with the reason, and the others import
regardless. A folder's other files (scripts, assets) are listed, never imported: a doc is one
markdown file.

The doc keeps the skill's description and its other fields as frontmatter lines; ``metadata``
entries become fields of their own (an export writes a doc's extra fields there, so a round trip
restores them), and links an export made between skills become ``[[id]]`` links again.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .edits import check_body, check_heading, normalise_body
from .errors import DocsError, InvalidArguments, StoreUnavailable
from .files import kind_of, read_regular
from .ids import INDEX_ID, check_doc_id
from .index import file_entry, parse_index
from .ops import Docs
from .phrases import flag, read
from .skill_format import SKILL_FILE, SOURCE_ID_KEY, ParsedSkill, SkillProblem, links_from_skills, parse_skill
from .skills import skills_directory
from .store import Tier
from .values import ImportedSkill, SkillImport, SkillNote

IMPORT_HEADING = "## Imported skills"
IMPORT_PREFIX = "skills/"
# A SKILL.md read whole before its checks; a doc is at most 64 KiB, so anything this big is refused.
MAX_SKILL_BYTES = 1 << 20
OTHER_FILES_SHOWN = 20
_FIELD_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def import_skills(
    docs: Docs,
    directory: object,
    replace: bool = False,
    prefix: object = IMPORT_PREFIX,
    heading: object = IMPORT_HEADING,
) -> SkillImport:
    """Import every skill folder of ``directory``; refusals are per folder."""
    root = skills_directory(docs.store, directory, must_exist=True)
    heading = check_heading(heading)
    heading = heading if heading.startswith("#") else f"## {heading}"
    if not isinstance(prefix, str):
        raise InvalidArguments(f"The prefix must be a string, such as {IMPORT_PREFIX!r} or ''.")
    try:
        check_doc_id(prefix + "name")
    except DocsError as err:
        raise InvalidArguments(
            f"The prefix {prefix!r} cannot start a doc id ({err.template}) Use one such as "
            f"{IMPORT_PREFIX!r}, or '' for none."
        ) from None
    try:
        folders = sorted(
            child for child in root.iterdir() if child.is_dir() and not child.name.startswith(".")
        )
    except OSError as err:
        raise InvalidArguments(f"Cannot list {root}: {err.strerror or err}.") from None
    found: dict[str, ParsedSkill] = {}
    refused: list[SkillNote] = []
    not_skills: list[str] = []
    for folder in folders:
        path = folder / SKILL_FILE
        if not os.path.lexists(path):
            not_skills.append(folder.name)
            continue
        try:
            found[folder.name] = parse_skill(_read_skill(path), folder.name, _load_yaml)
        except SkillProblem as problem:
            refused.append(SkillNote(f"{folder.name}/", str(problem)))
    ids = {name: prefix + name for name in found}
    imported: list[ImportedSkill] = []
    for name, skill in found.items():
        try:
            imported.append(_import_one(docs, root / name, skill, ids, replace, heading))
        except DocsError as err:
            refused.append(SkillNote(f"{name}/", err.template))
    refused.sort(key=lambda note: note.name)
    return SkillImport(str(root), heading, tuple(imported), tuple(refused), tuple(not_skills))


def _load_yaml(block: str) -> object:
    import yaml  # only an import reads YAML; a read of the docs never does

    return yaml.safe_load(block)


def _read_skill(path: Path) -> str:
    try:
        if path.stat().st_size > MAX_SKILL_BYTES:
            raise SkillProblem(f"SKILL.md is over {MAX_SKILL_BYTES >> 20} MiB; a doc is at most 64 KiB.")
        data, _ = read_regular(str(path))
    except OSError as err:
        raise SkillProblem(f"SKILL.md cannot be read: {err.strerror or err}.") from None
    except DocsError:  # a FIFO, a device, a folder named SKILL.md (through a symlink, say)
        try:
            what = kind_of(path.stat().st_mode)
        except OSError:  # gone since: name it as the read found it
            what = "not a regular file"
        raise SkillProblem(
            f"SKILL.md is {what}, not the skill's text: put its SKILL.md file there, then import again."
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise SkillProblem(
            f"SKILL.md is not UTF-8 (byte 0x{data[err.start]:02x} at offset {err.start})."
        ) from None


def _import_one(
    docs: Docs, folder: Path, skill: ParsedSkill, ids: dict[str, str], replace: bool, heading: str
) -> ImportedSkill:
    doc_id = check_doc_id(ids[skill.name])
    if doc_id == INDEX_ID:
        raise InvalidArguments("'index' is the index's own id; import this skill with a prefix.")
    store = docs.store
    if not replace and (store.exists(Tier.LOCAL, doc_id) or store.exists(Tier.SHIPPED, doc_id)):
        raise InvalidArguments(
            f"{doc_id!r} exists already ({read(doc_id)} shows it); nothing was written. Import with "
            f"{flag('replace')} to replace it, or with another prefix."
        )
    text, dropped = _doc_text(skill, links_from_skills(skill.body, ids))
    check_body(doc_id, normalise_body(text))  # before filing it: no entry is left (missing)
    index = docs.index()
    if index.tier != Tier.LOCAL.value:
        raise StoreUnavailable(
            f"Nothing can be imported: {index.notices[0] if index.notices else index.path}"
        )
    filed_under = None
    parsed = parse_index(index.text)
    if not parsed.files(doc_id):  # §3: the entry first, then the doc
        after = file_entry(parsed, doc_id, skill.description, heading)
        docs.write_doc(INDEX_ID, body=after, if_match=index.sha256)
        filed_under = heading
    result = docs.write_doc(doc_id, body=text)
    return ImportedSkill(
        folder.name, doc_id, result.outcome, filed_under, _other_files(folder), (*skill.dropped, *dropped)
    )


def _doc_text(skill: ParsedSkill, body: str) -> tuple[str, tuple[str, ...]]:
    """The doc: the description and the skill's other fields as frontmatter lines, then the body."""
    fields = {"description": _protected(skill.description)}
    dropped = []
    for key, value in (*skill.fields.items(), *skill.metadata.items()):
        if key in ("name", SOURCE_ID_KEY):
            continue
        if not _FIELD_KEY.fullmatch(key) or "\n" in value:
            dropped.append(key)
            continue
        fields[key] = value  # a metadata description (the doc's own, exported) wins over the hook
    lines = ["---", *(f"{key}: {value}" for key, value in fields.items()), "---"]
    return "\n".join(lines) + "\n" + body, tuple(dropped)


def _protected(text: str) -> str:
    """``text`` as a frontmatter value the tolerant parser reads back unchanged (it strips one pair
    of quotes around a value, and reads ``[...]`` as a list)."""
    quoted = text[0] == text[-1] and text[0] in "\"'"
    if len(text) >= 2 and (quoted or (text[0], text[-1]) == ("[", "]")):
        return f"'{text}'" if text[0] != "'" else f'"{text}"'
    return text


def _other_files(folder: Path) -> tuple[str, ...]:
    """The folder's files besides SKILL.md, relative to it (symlinked folders are not followed)."""
    found: list[str] = []
    for top, directories, files in os.walk(folder):
        directories.sort()
        for name in sorted(files):
            relative = os.path.relpath(os.path.join(top, name), folder)
            if relative != SKILL_FILE:
                found.append(relative.replace(os.sep, "/"))
    if len(found) > OTHER_FILES_SHOWN:
        found = [*found[:OTHER_FILES_SHOWN], f"... and {len(found) - OTHER_FILES_SHOWN} more"]
    return tuple(found)
