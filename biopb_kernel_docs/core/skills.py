"""``skills export`` (issue 19): the docs the index lists, as Agent Skills folders ``DIR/<name>/SKILL.md``.

Which docs: the entries under the index's ``## Procedures`` heading, or, with ``all_docs``, every
entry (a collection line stands for the docs under it). Each becomes ``DIR/<name>/SKILL.md``: the
name from its id (``skill_format``), the description from its index hook (the "when to read it"
the format asks for), its other frontmatter kept (the format's own fields by name, the rest under
``metadata``, with the id as ``biopb-id``), and the body with links between exported docs made
relative links to the other skill. A doc that cannot be a skill is reported, never renamed.

The export keeps its own record in DIR (``RECORD_FILE``): each skill it wrote and the sha256 of
what it wrote. A re-export rewrites only what changed, removes only skills of its record whose doc
is no longer listed, and leaves every other folder alone, a skill edited by hand since it was
written included (nothing typed there is ever overwritten or deleted). ``check`` writes nothing
and reports what an export would do.
"""

from __future__ import annotations

import errno
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from .collection import read_collection
from .errors import DocsError, InvalidArguments, StoreUnavailable, UnreadableDoc
from .files import atomic_write, read_regular
from .ids import is_collection_id
from .index import parse_index, section_entries
from .ops import Docs
from .phrases import flag, write_replace
from .skill_format import (
    COMPATIBILITY_LIMIT,
    NAME_RULES,
    SKILL_FILE,
    SOURCE_ID_KEY,
    SPEC_FIELDS,
    description_problem,
    links_to_skills,
    name_problem,
    render_skill,
    skill_name,
)
from .store import Store, sha256_of
from .values import DocView, ExportedSkill, SkillExport, SkillNote

PROCEDURES_HEADING = "## Procedures"
RECORD_FILE = ".biopb-kernel-docs-export.json"
RECORD_FORMAT = 1
_RAW_FIELD = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:[ \t]*(.*)")
# A disk's refusal that is the disk's fault (5xx), not a directory the caller named badly (4xx).
_DISK_FAULTS = frozenset({errno.ENOSPC, errno.EIO, errno.EROFS, errno.EDQUOT})


def skills_directory(store: Store, directory: object, *, must_exist: bool) -> Path:
    """The directory a caller named, as an absolute path; never inside either tier."""
    if not isinstance(directory, str) or not directory.strip() or "\x00" in directory:
        raise InvalidArguments(
            "Give the skills directory as a path, such as .claude/skills or ~/.agents/skills."
        )
    try:
        path = Path(os.path.expanduser(directory)).resolve()
    except (OSError, RuntimeError, ValueError) as err:
        raise InvalidArguments(f"Cannot use {directory!r} as the skills directory: {err}.") from None
    for tier in (store.local_dir, store.shipped_dir):
        if path == tier or path.is_relative_to(tier):
            raise InvalidArguments(
                f"{path} is inside the docs directory {tier}: its SKILL.md files would read as docs. "
                "Choose a skills directory outside the docs, such as .claude/skills."
            )
    if must_exist and not path.is_dir():
        raise InvalidArguments(f"No directory {path}: give the folder that holds the skill folders.")
    return path


def disk_refusal(path: Path, err: OSError) -> DocsError:
    """A directory operation the system refused, as the caller's mistake unless the disk failed."""
    if err.errno in _DISK_FAULTS:
        return StoreUnavailable(f"Could not write {path}: {err.strerror}. Nothing more was written.")
    return InvalidArguments(
        f"Cannot write skills into {path}: {err.strerror or err}. Choose another directory."
    )


@dataclass(frozen=True)
class _Skill:
    name: str
    doc_id: str
    data: bytes


def export_skills(docs: Docs, directory: object, all_docs: bool = False, check: bool = False) -> SkillExport:
    """Export the listed docs to ``directory`` (created when absent), or with ``check`` say what
    that would change."""
    root = skills_directory(docs.store, directory, must_exist=False)
    listed = _listed(docs, all_docs)
    skills, refused, unexported = _skills(docs, listed)
    record_path = root / RECORD_FILE
    record = _read_record(record_path)
    actions: list[ExportedSkill] = []
    left_alone: list[SkillNote] = []
    for skill in skills:
        action, note = _plan(root, skill, record.get(skill.name))
        if note is not None:
            left_alone.append(SkillNote(skill.name, note))
        else:
            actions.append(ExportedSkill(skill.name, skill.doc_id, action))
    exported = {skill.name for skill in skills}
    listed_ids = {doc_id for doc_id, _ in listed}
    for name, entry in record.items():
        if name in exported:
            continue
        note = _plan_removal(root, name, entry, entry.get("id") in listed_ids)
        if note is None:
            actions.append(ExportedSkill(name, str(entry.get("id")), "removed"))
        else:
            left_alone.append(SkillNote(name, note))
    if not check:
        actions, left_alone = _apply(root, skills, record, actions, left_alone)
    return SkillExport(
        directory=str(root),
        record=str(record_path),
        scope="all" if all_docs else "procedures",
        check=check,
        skills=tuple(actions),
        refused=tuple(refused),
        left_alone=tuple(left_alone),
        unexported_links=unexported,
    )


def _listed(docs: Docs, all_docs: bool) -> list[tuple[str, str]]:
    """(id, hook) of every doc the export takes, in index order, each once."""
    parsed = parse_index(docs.index().text)
    if all_docs:
        entries = list(parsed.entries)
    else:
        if not any(line == PROCEDURES_HEADING for _, line in parsed.headings):
            raise InvalidArguments(
                f"The index has no '{PROCEDURES_HEADING}' heading, so there are no procedures to export "
                f"(an export with none would remove every skill it wrote before). Export every listed "
                f"doc with {flag('all')}, or add the heading with {write_replace('index')}."
            )
        entries = section_entries(parsed, PROCEDURES_HEADING)
    listed: dict[str, str] = {}
    for entry in entries:
        if is_collection_id(entry.doc_id):  # §7: a collection line lists the docs under it
            for item in read_collection(docs.store, entry.doc_id).items:
                listed.setdefault(item.id, item.hook)
        else:
            listed.setdefault(entry.doc_id, entry.hook)
    return list(listed.items())


def _skills(
    docs: Docs, listed: list[tuple[str, str]]
) -> tuple[list[_Skill], list[SkillNote], tuple[str, ...]]:
    """The skills the listed docs make, the docs that cannot be one, and the links left as [[id]]."""
    refused: list[SkillNote] = []
    by_name: dict[str, list[tuple[str, str, DocView]]] = {}
    for doc_id, hook in listed:
        name = skill_name(doc_id)
        problem = name_problem(name)
        if problem is not None:
            refused.append(
                SkillNote(
                    doc_id,
                    f"its id gives the skill name {name!r}, which the format refuses: {problem}. "
                    f"{NAME_RULES} A doc whose id maps to such a name exports.",
                )
            )
            continue
        try:
            view = docs.doc(doc_id)
        except DocsError as err:
            refused.append(SkillNote(doc_id, err.template))
            continue
        description = " ".join(hook.split()) or view.description
        problem = description_problem(description)
        if problem is not None:
            refused.append(SkillNote(doc_id, f"{problem} (from its index line). Shorten its hook."))
            continue
        by_name.setdefault(name, []).append((doc_id, description, view))
    for name, claims in list(by_name.items()):
        if len(claims) > 1:
            ids = " and ".join(repr(doc_id) for doc_id, _, _ in claims)
            for doc_id, _, _ in claims:
                refused.append(
                    SkillNote(doc_id, f"{ids} all give the skill name {name!r}: rename all but one.")
                )
            del by_name[name]
    names = {claims[0][0]: name for name, claims in by_name.items()}
    skills, unexported = [], {}
    for name, ((doc_id, description, view),) in by_name.items():
        body, kept = links_to_skills(view.body, names)
        unexported.update(dict.fromkeys(kept))
        fields, metadata = _frontmatter(view, description)
        text = render_skill(name, description, body, fields, {SOURCE_ID_KEY: doc_id, **metadata})
        skills.append(_Skill(name, doc_id, text.encode("utf-8")))
    return skills, refused, tuple(unexported)


def _frontmatter(view: DocView, description: str) -> tuple[dict[str, str], dict[str, str]]:
    """The doc's frontmatter lines, as written: the format's own fields, and the rest (its own
    description too, when the hook says something else) for ``metadata``."""
    fields: dict[str, str] = {}
    metadata: dict[str, str] = {}
    head = view.text[: len(view.text) - len(view.body)]
    own_description = " ".join((dict(view.frontmatter).get("description") or "").split())
    for line in head.split("\n")[1:]:
        match = _RAW_FIELD.fullmatch(line.rstrip())
        if match is None or line.startswith((" ", "\t", "#")):
            continue
        key, value = match.group(1), match.group(2)
        if key in ("name", "metadata", SOURCE_ID_KEY) or (
            key == "description" and own_description == description
        ):
            continue
        if key in SPEC_FIELDS and not (key == "compatibility" and len(value) > COMPATIBILITY_LIMIT):
            fields[key] = value
        else:
            metadata[key] = value
    return fields, metadata


def _read_record(path: Path) -> dict[str, dict[str, str]]:
    """The skills an earlier export wrote here: name -> {"id", "sha256"}."""
    try:
        data, _ = read_regular(str(path))
    except (FileNotFoundError, NotADirectoryError):  # none yet (a path under a file fails at mkdir)
        return {}
    except (OSError, UnreadableDoc) as err:
        raise UnreadableDoc(
            f"Cannot read the export's record {path}: {err}. Move it aside and export again."
        ) from None
    try:
        record = json.loads(data.decode("utf-8"))
        skills = record["skills"]
        if not all(isinstance(v, dict) and isinstance(v.get("sha256"), str) for v in skills.values()):
            raise ValueError("an entry without a sha256")
        # a lone surrogate escape such as \ud800 reads, but could not be written back as UTF-8
        json.dumps(skills, ensure_ascii=False).encode("utf-8")
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise UnreadableDoc(
            f"The export's record {path} is not one this package wrote ({err}). Move it aside and export "
            "again: folders it named are then left alone, as any folder the export did not write."
        ) from None
    return skills


def _current(path: Path) -> bytes | None:
    try:
        return read_regular(str(path), os.O_NOFOLLOW)[0]
    except (OSError, UnreadableDoc):
        return None


def _plan(root: Path, skill: _Skill, recorded: dict[str, str] | None) -> tuple[str, str | None]:
    """What exporting ``skill`` does: an action, or the note saying why its folder is left alone."""
    folder = root / skill.name
    if not os.path.lexists(folder):
        return "created", None
    if folder.is_symlink() or not folder.is_dir():
        return "", f"{folder} is not a folder this export wrote; move it aside to export {skill.doc_id!r}."
    current = _current(folder / SKILL_FILE)
    if current == skill.data:
        return "unchanged", None
    if recorded is None:
        return "", (
            f"{folder} holds a skill this export did not write; rename or remove it to export "
            f"{skill.doc_id!r} there."
        )
    if current is not None and sha256_of(current) != recorded["sha256"]:
        return "", (
            f"{folder / SKILL_FILE} was edited since the last export, and an export never overwrites an "
            f"edit: bring the change into the doc {skill.doc_id!r} (or discard it), delete the file, then "
            "export again."
        )
    return ("created" if current is None else "updated"), None


def _plan_removal(root: Path, name: str, entry: dict[str, str], still_listed: bool) -> str | None:
    """None when the export removes its earlier skill ``name``; else why it stays."""
    folder = root / name
    if still_listed:
        return (
            f"its doc {entry.get('id')!r} is still listed but cannot be exported now (see above); its "
            "earlier export stays."
        )
    if not os.path.lexists(folder):
        return None
    if folder.is_symlink() or not folder.is_dir():
        return f"{folder} is no longer a folder this export wrote; left as it is."
    gone = f"its doc {entry.get('id')!r} is no longer listed, but"
    others = sorted(child.name for child in folder.iterdir() if child.name != SKILL_FILE)
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        return f"{gone} {folder} also holds {shown}, so it was left; delete it yourself when done with it."
    current = _current(folder / SKILL_FILE)
    if current is not None and sha256_of(current) != entry["sha256"]:
        return (
            f"{gone} {folder / SKILL_FILE} was edited since the last export, so it was left; delete it "
            "yourself when done with it."
        )
    return None


def _apply(
    root: Path,
    skills: list[_Skill],
    record: dict[str, dict[str, str]],
    actions: list[ExportedSkill],
    left_alone: list[SkillNote],
) -> tuple[list[ExportedSkill], list[SkillNote]]:
    """Write what was planned; a skill the disk refuses is left alone with the reason."""
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise disk_refusal(root, err) from None
    data = {skill.name: skill for skill in skills}
    done: list[ExportedSkill] = []
    kept = dict(record)
    for action in actions:
        folder = root / action.name
        try:
            if action.action == "removed":
                if os.path.lexists(folder / SKILL_FILE):
                    os.unlink(folder / SKILL_FILE)
                if os.path.lexists(folder):
                    folder.rmdir()
                kept.pop(action.name, None)
            else:
                skill = data[action.name]
                if action.action != "unchanged":
                    folder.mkdir(exist_ok=True)
                    atomic_write(folder / SKILL_FILE, skill.data)
                kept[action.name] = {"id": skill.doc_id, "sha256": sha256_of(skill.data)}
        except OSError as err:
            left_alone.append(SkillNote(action.name, f"the disk refused it: {err.strerror or err}."))
            continue
        done.append(action)
    if kept != record or not os.path.lexists(root / RECORD_FILE):
        document = {"format": RECORD_FORMAT, "written_by": "biopb-kernel-docs skills export", "skills": kept}
        text = json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        try:
            atomic_write(root / RECORD_FILE, text.encode("utf-8"))
        except OSError as err:
            raise disk_refusal(root / RECORD_FILE, err) from None
    return done, left_alone
