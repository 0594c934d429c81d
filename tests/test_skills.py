"""Agent Skills in and out (issue 19): export to and import from ``DIR/<name>/SKILL.md``, checked
against the format's own rules, and a round trip through a fresh tier."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from biopb_kernel_docs.core.errors import InvalidArguments, UnreadableDoc
from biopb_kernel_docs.core.index import parse_index
from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.skill_format import (
    SkillProblem,
    links_from_skills,
    name_problem,
    parse_skill,
    yaml_scalar,
)
from biopb_kernel_docs.core.skill_import import import_skills
from biopb_kernel_docs.core.skills import RECORD_FILE, export_skills
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.core.values import Author
from biopb_kernel_docs.surfaces.settings import default_shipped_dir
from biopb_kernel_docs.text.render import text as agent_text
from biopb_kernel_docs.text.skills import skill_import_lines

from .conftest import SEED_INDEX

# The format's rules, written out here from its specification rather than imported from the code
# under test: six top-level fields, a name of at most 64 characters of a-z, 0-9 and '-' (no leading,
# trailing or doubled '-') equal to its folder, a description of 1-1,024 characters, a compatibility
# of at most 500, and metadata mapping strings to strings.
SPEC_FIELDS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
SPEC_NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def assert_valid_skill(folder: Path) -> dict:
    """``folder`` is a skill the format accepts; returns its frontmatter."""
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    block, _, body = text[4:].partition("\n---\n")
    data = yaml.safe_load(block)
    assert isinstance(data, dict)
    assert set(data) <= SPEC_FIELDS, set(data) - SPEC_FIELDS
    name = data["name"]
    assert isinstance(name, str)
    assert 1 <= len(name) <= 64
    assert SPEC_NAME.fullmatch(name), name
    assert name == folder.name
    assert isinstance(data["description"], str)
    assert 1 <= len(data["description"]) <= 1024
    assert len(data.get("compatibility", "")) <= 500
    metadata = data.get("metadata", {})
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()), metadata
    assert body.strip()
    return data


def skill(root: Path, folder: str, text: str, **files: str) -> Path:
    path = root / folder
    path.mkdir(parents=True, exist_ok=True)
    (path / "SKILL.md").write_text(text, encoding="utf-8")
    for name, content in files.items():
        (path / name.replace("__", "/")).parent.mkdir(parents=True, exist_ok=True)
        (path / name.replace("__", "/")).write_text(content)
    return path


@pytest.fixture
def out(tmp_path) -> Path:
    """The skills directory, beside (never inside) the tiers under tmp_path."""
    return tmp_path / "skills"


def seed_docs(local: Path) -> Docs:
    return Docs(Store(default_shipped_dir(), local, "1.0"))


# -- export ---------------------------------------------------------------------------------------


def test_export_writes_each_procedure_as_a_skill_the_format_accepts(tiers, out):
    result = export_skills(tiers.docs(), str(out))
    assert [(s.name, s.id, s.action) for s in result.skills] == [
        ("flatfield", "flatfield", "created"),
        ("stitch-tiles", "stitch-tiles", "created"),
    ]
    assert sorted(p.name for p in out.iterdir()) == [
        RECORD_FILE,
        "flatfield",
        "stitch-tiles",
    ]
    data = assert_valid_skill(out / "flatfield")
    assert data["description"] == "correct uneven illumination"  # the index hook, not the doc's own
    assert data["metadata"] == {
        "biopb-id": "flatfield",
        "description": "fix shading",
        "updated": "2026-01-02",
    }
    assert (out / "flatfield/SKILL.md").read_text().endswith("---\n# Flatfield\n\nStep one.\n")


def test_the_whole_shipped_seed_exports_as_valid_skills(tmp_path):
    result = export_skills(seed_docs(tmp_path / "local"), str(tmp_path / "skills"), all_docs=True)
    assert len(result.skills) == 28  # 4 references and 24 procedures; banked docs are never listed
    assert (result.refused, result.left_alone, result.unexported_links) == ((), (), ())
    for exported in result.skills:
        assert_valid_skill(tmp_path / "skills" / exported.name)


def test_yaml_scalars_read_back_as_the_same_string_in_a_real_yaml_reader():
    for text in [
        "plain words",
        "a: b",
        "yes",
        "1.0",
        "#x",
        "- x",
        "γH2AX, 53BP1",
        "'q'",
        'say "hi"',
        "a\u2028b",
    ]:
        assert yaml.safe_load(f"k: {yaml_scalar(text)}") == {"k": text}, text


def test_reexport_is_idempotent_and_the_record_lists_what_it_wrote(tiers, out):
    export_skills(tiers.docs(), str(out))
    stamp = (out / "flatfield/SKILL.md").stat().st_mtime_ns
    again = export_skills(tiers.docs(), str(out))
    assert [s.action for s in again.skills] == ["unchanged", "unchanged"]
    assert (out / "flatfield/SKILL.md").stat().st_mtime_ns == stamp
    record = json.loads((out / RECORD_FILE).read_text())
    assert sorted(record["skills"]) == ["flatfield", "stitch-tiles"]
    assert record["skills"]["flatfield"]["id"] == "flatfield"


def test_reexport_removes_only_its_own_skills_whose_doc_left_the_index(tiers, out):
    docs = tiers.docs()
    export_skills(docs, str(out))
    skill(out, "lab-own", "---\nname: lab-own\ndescription: the lab's\n---\nBody.\n")
    (out / "notes.txt").write_text("not a skill")
    docs.write_doc("index", old="- flatfield: correct uneven illumination\n", new="")
    result = export_skills(docs, str(out))
    assert [(s.name, s.action) for s in result.skills] == [
        ("stitch-tiles", "unchanged"),
        ("flatfield", "removed"),
    ]
    assert not (out / "flatfield").exists()
    assert (out / "lab-own/SKILL.md").exists()
    assert (out / "notes.txt").exists()
    assert sorted(json.loads((out / RECORD_FILE).read_text())["skills"]) == ["stitch-tiles"]


def test_check_writes_nothing_and_says_what_would_change(tiers, out):
    docs = tiers.docs()
    first = export_skills(docs, str(out / "out"), check=True)
    assert first.check
    assert [s.action for s in first.skills] == ["created", "created"]
    assert not (out / "out").exists()
    export_skills(docs, str(out / "out"))
    docs.write_doc("stitch-tiles", old="one canvas", new="one big canvas")
    docs.write_doc("index", old="- flatfield: correct uneven illumination\n", new="")
    before = sorted(p.read_bytes() for p in (out / "out").rglob("*") if p.is_file())
    later = export_skills(docs, str(out / "out"), check=True)
    assert [(s.name, s.action) for s in later.skills] == [
        ("stitch-tiles", "updated"),
        ("flatfield", "removed"),
    ]
    assert sorted(p.read_bytes() for p in (out / "out").rglob("*") if p.is_file()) == before


def test_a_skill_edited_by_hand_is_never_overwritten_nor_removed(tiers, out):
    docs = tiers.docs()
    export_skills(docs, str(out))
    edited = out / "flatfield/SKILL.md"
    edited.write_text(edited.read_text() + "\nMy own note.\n")
    docs.write_doc("flatfield", old="Step one.", new="Step one, with a dark frame.")
    result = export_skills(docs, str(out))
    [note] = result.left_alone
    assert note.name == "flatfield"
    assert "edited since the last export" in note.reason
    assert edited.read_text().endswith("My own note.\n")
    docs.write_doc("index", old="- flatfield: correct uneven illumination\n", new="")
    [note] = export_skills(docs, str(out)).left_alone
    assert "was edited since the last export, so it was left" in note.reason
    assert edited.exists()
    (out / "stitch-tiles" / "run.py").write_text("print('a script added by hand')\n")
    docs.write_doc("index", old="- stitch-tiles: assemble a grid of tiles\n", new="")
    notes = export_skills(docs, str(out)).left_alone
    assert "also holds run.py, so it was left" in notes[-1].reason
    assert (out / "stitch-tiles" / "SKILL.md").exists()


def test_a_removed_skills_folder_left_for_its_other_files_names_at_most_three_of_them(tiers, out):
    docs = tiers.docs()
    export_skills(docs, str(out))
    folder = out / "stitch-tiles"
    for name in ("a.py", "b.py", "c.py"):
        (folder / name).write_text("added by hand\n")
    docs.write_doc("index", old="- stitch-tiles: assemble a grid of tiles\n", new="")
    [note] = export_skills(docs, str(out)).left_alone
    assert f"{folder} also holds a.py, b.py, c.py, so it was left; delete it yourself" in note.reason
    (folder / "d.py").write_text("added by hand\n")
    [note] = export_skills(docs, str(out)).left_alone
    assert note.name == "stitch-tiles"
    assert f"{folder} also holds a.py, b.py, c.py, ..., so it was left; delete it yourself" in note.reason
    assert (folder / "SKILL.md").exists()


def test_a_record_holding_half_a_surrogate_pair_is_refused_before_anything_is_written(tiers, out):
    # JavaScript's JSON.stringify writes a string cut inside an emoji this way
    docs = tiers.docs()
    export_skills(docs, str(out))
    edited = out / "flatfield/SKILL.md"
    edited.write_text(edited.read_text() + "\nMy own note.\n")  # its record entry is kept as it is
    record = out / RECORD_FILE
    record.write_text(record.read_text().replace('"id": "flatfield"', '"id": "flatfield", "note": "\\ud83d"'))
    docs.write_doc("stitch-tiles", old="one canvas", new="one big canvas")
    before = (out / "stitch-tiles/SKILL.md").read_bytes()
    with pytest.raises(UnreadableDoc) as refused:
        export_skills(docs, str(out))
    assert f"The export's record {record} is not one this package wrote (" in str(refused.value)
    assert "Move it aside and export again" in str(refused.value)
    assert (out / "stitch-tiles/SKILL.md").read_bytes() == before


def test_a_folder_the_export_did_not_write_is_left_alone(tiers, out):
    skill(out, "flatfield", "---\nname: flatfield\ndescription: someone else's\n---\nTheirs.\n")
    result = export_skills(tiers.docs(), str(out))
    assert [s.name for s in result.skills] == ["stitch-tiles"]
    [note] = result.left_alone
    assert "did not write; rename or remove it to export 'flatfield' there" in note.reason
    assert "Theirs." in (out / "flatfield/SKILL.md").read_text()


def test_ids_that_cannot_be_skill_names_are_reported_not_mangled(tiers, out):
    long_id = "x" * 65
    lines = ["_banked", "Lab_Notes", "a--b", long_id, "My/Notes", "my-notes", "lab/Steps"]
    for doc_id in lines:
        tiers.put_local(doc_id, f"# {doc_id}\n\nBody.\n")
    tiers.put_local("index", "# Docs\n\n## Procedures\n" + "".join(f"- {i}: hook of {i}\n" for i in lines))
    result = export_skills(tiers.docs(), str(out))
    assert [(s.name, s.id) for s in result.skills] == [("lab-steps", "lab/Steps")]
    reasons = {note.name: note.reason for note in result.refused}
    assert "'_banked', which the format refuses: it holds a character other than a-z" in reasons["_banked"]
    assert "'lab_notes'" in reasons["Lab_Notes"]
    assert "holds '--'" in reasons["a--b"]
    assert "65 characters long; the limit is 64" in reasons[long_id]
    assert "'My/Notes' and 'my-notes' all give the skill name 'my-notes'" in reasons["my-notes"]
    assert set(reasons) == set(lines) - {"lab/Steps"}
    assert sorted(p.name for p in out.iterdir()) == [RECORD_FILE, "lab-steps"]


def test_names_yaml_would_read_as_null_or_a_number_are_written_as_text(tiers, out):
    ids = ["null", "2026", "yes", "1e3"]
    for doc_id in ids:
        tiers.put_local(doc_id, f"# {doc_id}\n\nBody.\n")
    tiers.put_local("index", "# Docs\n\n## Procedures\n" + "".join(f"- {i}: hook of {i}\n" for i in ids))
    assert [s.name for s in export_skills(tiers.docs(), str(out)).skills] == ids
    for doc_id in ids:
        assert assert_valid_skill(out / doc_id)["name"] == doc_id
    skill(out / "in", "2027", "---\nname: 2027\ndescription: x\n---\nBody.\n")
    [note] = import_skills(tiers.docs(), str(out / "in")).refused
    assert "Its name 2027 is not text to YAML: quote it" in note.reason


def test_a_description_over_the_formats_limit_is_reported(tiers, out):
    tiers.put_local(
        "index", "# Docs\n\n## Procedures\n- flatfield: " + "word " * 210 + "\n- stitch-tiles: ok\n"
    )
    result = export_skills(tiers.docs(), str(out))
    assert [s.name for s in result.skills] == ["stitch-tiles"]
    assert "description is 1,049 characters; the limit is 1,024" in result.refused[0].reason


def test_the_formats_own_fields_export_at_the_top_and_a_compatibility_over_500_under_metadata(tiers, out):
    tiers.put_local(
        "flatfield",
        "---\nlicense: MIT\ncompatibility: " + "c" * 500 + "\nallowed-tools: Bash(python:*) Read\n"
        "updated: 2026-01-02\n---\n# Flatfield\n\nStep one.\n",
    )
    tiers.put_local("stitch-tiles", "---\ncompatibility: " + "c" * 501 + "\n---\n# Stitch tiles\n\nTiles.\n")
    export_skills(tiers.docs(), str(out))
    assert assert_valid_skill(out / "flatfield") == {
        "name": "flatfield",
        "description": "correct uneven illumination",
        "license": "MIT",
        "compatibility": "c" * 500,
        "allowed-tools": "Bash(python:*) Read",
        "metadata": {"biopb-id": "flatfield", "updated": "2026-01-02"},
    }
    assert assert_valid_skill(out / "stitch-tiles") == {
        "name": "stitch-tiles",
        "description": "assemble a grid of tiles",
        "metadata": {"biopb-id": "stitch-tiles", "compatibility": "c" * 501},
    }


def test_links_between_exported_docs_name_the_other_skill(tiers, out):
    tiers.put_local(
        "flatfield",
        "# Flatfield\n\nThen [[stitch-tiles#Steps]] and [[stitch-tiles]]; see [[data]].\n\n"
        "```\n[[stitch-tiles]]\n```\n",
    )
    result = export_skills(tiers.docs(), str(out))
    body = (out / "flatfield/SKILL.md").read_text().split("\n---\n", 1)[1]
    assert (
        "Then [stitch-tiles#Steps](../stitch-tiles/SKILL.md) and [stitch-tiles](../stitch-tiles/SKILL.md)"
        in body
    )
    assert "see [[data]]." in body  # not exported: still the doc's own link
    assert "```\n[[stitch-tiles]]\n```" in body  # code is code
    assert result.unexported_links == ("data",)


def test_an_export_of_the_procedures_says_all_would_take_their_linked_docs_and_an_all_export_does_not(
    tiers, out
):
    from biopb_kernel_docs.text.render import text

    tiers.put_local("flatfield", "# Flatfield\n\nSee [[data]] first.\n")
    procedures = export_skills(tiers.docs(), str(out / "procedures"))
    assert procedures.unexported_links == ("data",)
    assert "reads them with read_doc); all=true exports them too:\n" in text(procedures)
    tiers.put_local("index", "# Docs\n\n## Lab\n- flatfield: correct uneven illumination\n")
    every = export_skills(tiers.docs(), str(out / "every"), all_docs=True)
    assert every.unexported_links == ("data",)
    assert "reads them with read_doc):\n" in text(every)
    assert "exports them too" not in text(every)


def test_export_refuses_an_index_without_procedures_and_a_directory_inside_the_docs(tiers, out):
    tiers.put_local("index", "# Docs\n\n## Lab\n- flatfield: x\n")
    with pytest.raises(InvalidArguments, match="all=true, or add the heading"):
        export_skills(tiers.docs(), str(out))
    with pytest.raises(InvalidArguments, match="inside the docs directory"):
        export_skills(tiers.docs(), str(tiers.local / "skills"), all_docs=True)


# -- import ---------------------------------------------------------------------------------------

LAB_SKILL = """\
---
name: nuclei-protocol
description: >-
  Segment nuclei the lab's way:
  DAPI, validated on the 2026 set.
license: Apache-2.0
allowed-tools:
  - Bash(python:*)
  - Read
metadata:
  author: the lab
  version: "1.0"
---
# Nuclei, the lab's way

Run scripts/segment.py, then check [qc](../qc/SKILL.md) ([qc#Thresholds](../qc/SKILL.md) first).
"""


def test_import_files_each_skill_under_one_heading_and_lists_the_files_it_left(tiers, out):
    skill(out, "nuclei-protocol", LAB_SKILL, scripts__segment_py="print(1)", **{"assets__x.png": "x"})
    skill(out, "qc", "---\nname: qc\ndescription: check masks\n---\n# QC\n")
    (out / "drafts").mkdir()
    result = import_skills(tiers.docs(), str(out))
    assert [(s.folder, s.id, s.outcome, s.filed_under) for s in result.imported] == [
        ("nuclei-protocol", "skills/nuclei-protocol", "created", "## Imported skills"),
        ("qc", "skills/qc", "created", "## Imported skills"),
    ]
    assert result.imported[0].other_files == ("assets/x.png", "scripts/segment_py")
    assert result.not_skills == ("drafts",)
    assert result.refused == ()
    text = tiers.local_text("skills/nuclei-protocol")
    assert text.startswith(
        "---\ndescription: Segment nuclei the lab's way: DAPI, validated on the 2026 set.\n"
        "license: Apache-2.0\nallowed-tools: Bash(python:*) Read\nauthor: the lab\nversion: 1.0\n---\n"
    )
    assert "then check [[skills/qc]] ([[skills/qc#Thresholds]] first)." in text
    index = tiers.local_text("index")
    assert index.endswith(
        "## Imported skills\n"
        "- skills/nuclei-protocol: Segment nuclei the lab's way: DAPI, validated on the 2026 set.\n"
        "- skills/qc: check masks\n\nignored: old-method\n"
    )
    assert tiers.docs().read_doc("skills/qc").description == "check masks"


def test_an_imported_description_in_quotes_or_brackets_reads_back_as_written(tiers, out):
    # the tolerant parser strips one pair of quotes around a value and reads [...] as a list
    skill(
        out, "quotes", '---\nname: quotes\ndescription: \'"Flat" means even light, says "flat"\'\n---\n# Q\n'
    )
    skill(
        out,
        "draft",
        "---\nname: draft\ndescription: '[draft] Stain nuclei, then count them [v2]'\n---\n# D\n",
    )
    import_skills(tiers.docs(), str(out))
    docs = tiers.docs()
    assert docs.read_doc("skills/quotes").description == '"Flat" means even light, says "flat"'
    assert docs.read_doc("skills/draft").description == "[draft] Stain nuclei, then count them [v2]"
    assert tiers.local_text("skills/draft").startswith(
        "---\ndescription: '[draft] Stain nuclei, then count them [v2]'\n---\n"
    )


def test_a_malformed_folder_is_refused_while_the_rest_import(tiers, out):
    skill(out, "no-frontmatter", "# Just a body\n")
    skill(out, "mismatch", "---\nname: other\ndescription: x\n---\nBody.\n")
    skill(out, "too-long", "---\nname: too-long\ndescription: " + "d" * 1025 + "\n---\nBody.\n")
    skill(out, "Upper", "---\nname: Upper\ndescription: x\n---\nBody.\n")
    skill(out, "open", "---\nname: open\ndescription: x\n")
    skill(out, "bad-yaml", "---\nname: bad-yaml\ndescription: [unclosed\n---\nBody.\n")
    skill(out, "good", "---\nname: good\ndescription: fine\n---\n# Good\n")
    result = import_skills(tiers.docs(), str(out))
    assert [s.id for s in result.imported] == ["skills/good"]
    reasons = {note.name: note.reason for note in result.refused}
    assert list(reasons) == sorted(reasons)
    assert "does not open with frontmatter" in reasons["no-frontmatter/"]
    assert "Its name 'other' is not its folder's name 'mismatch'" in reasons["mismatch/"]
    assert "its description is 1,025 characters; the limit is 1,024" in reasons["too-long/"]
    assert "'Upper' breaks the format's rules" in reasons["Upper/"]
    assert "never closes" in reasons["open/"]
    assert "not valid YAML" in reasons["bad-yaml/"]
    assert not (tiers.local / "skills" / "mismatch.md").exists()
    assert "skills/mismatch" not in tiers.local_text("index")


def test_a_skill_file_over_1_mib_is_refused_by_its_size_before_it_is_read(tiers, out):
    head = "---\nname: huge\ndescription: x\n---\n# Huge\n\n"
    skill(out, "huge", head + "word " * ((1 << 20) // 5))  # 1 MiB and a few bytes
    skill(out, "qc", "---\nname: qc\ndescription: check masks\n---\n# QC\n")
    result = import_skills(tiers.docs(), str(out))
    assert [s.id for s in result.imported] == ["skills/qc"]
    assert [(n.name, n.reason) for n in result.refused] == [
        ("huge/", "SKILL.md is over 1 MiB; a doc is at most 64 KiB.")
    ]


def test_a_skill_file_of_exactly_1_mib_is_read_and_one_byte_more_is_refused_unread(tiers, out):
    for name, size in (("exact", 1_048_576), ("over", 1_048_577)):
        head = f"---\nname: {name}\ndescription: x\n---\n# Big\n\n"
        path = skill(out, name, head + "w" * (size - len(head) - 1) + "\n") / "SKILL.md"
        assert path.stat().st_size == size
    result = import_skills(tiers.docs(), str(out))
    assert result.imported == ()
    reasons = {note.name: note.reason for note in result.refused}
    # read whole, it is refused by the doc cap, naming its real size and the way to shorten it
    assert reasons["exact/"].startswith(
        "'skills/exact' would be 1,048,564 bytes; the cap is 64 KiB (65,536 bytes) per doc"
    )
    assert "Shorten it" in reasons["exact/"]
    assert reasons["over/"] == "SKILL.md is over 1 MiB; a doc is at most 64 KiB."
    assert not (tiers.local / "skills").exists()


def test_an_existing_id_is_refused_unless_replace(tiers, out):
    skill(out, "flatfield", "---\nname: flatfield\ndescription: the lab's flatfield\n---\n# Lab flat\n")
    refused = import_skills(tiers.docs(), str(out), prefix="")
    assert refused.imported == ()
    assert "'flatfield' exists already" in refused.refused[0].reason
    assert (
        "\x1fflag\x1freplace\x1f" in refused.refused[0].reason
    )  # spelled per surface: --replace, replace=true
    replaced = import_skills(tiers.docs(), str(out), replace=True, prefix="")
    [done] = replaced.imported
    assert (done.id, done.outcome, done.filed_under) == ("flatfield", "shadowed", None)  # already listed
    assert "# Lab flat" in tiers.local_text("flatfield")


def test_prefix_and_heading_choose_where_imports_go(tiers, out):
    skill(out, "qc", "---\nname: qc\ndescription: check masks\n---\n# QC\n")
    result = import_skills(tiers.docs(), str(out), prefix="lab/", heading="Lab skills")
    assert (result.imported[0].id, result.heading) == ("lab/qc", "## Lab skills")
    assert "## Lab skills\n- lab/qc: check masks\n" in tiers.local_text("index")
    with pytest.raises(InvalidArguments, match=r"prefix '\.\./' cannot start a doc id"):
        import_skills(tiers.docs(), str(out), prefix="../")


def test_import_goes_through_the_write_path_and_its_caps(tiers, out):
    writes: list[str] = []

    class Recording(Docs):
        def write_doc(self, doc_id, body=None, old=None, new=None, if_match=None):
            writes.append(doc_id)
            return super().write_doc(doc_id, body=body, old=old, new=new, if_match=if_match)

    skill(out, "long", "---\nname: long\ndescription: too many lines\n---\n" + "line\n" * 301)
    skill(out, "qc", "---\nname: qc\ndescription: check masks\n---\n# QC\n")
    result = import_skills(Recording(tiers.store()), str(out))
    assert writes == ["index", "skills/qc"]  # the entry first, then the doc (§3)
    [note] = result.refused
    assert note.name == "long/"
    assert "the cap is 300" in note.reason
    assert "skills/long" not in tiers.local_text("index")  # refused before filing: nothing (missing)
    full = "# Docs\n\n## Many\n" + "".join(f"- d{n}: doc {n}\n" for n in range(200))
    tiers.put_local("index", full)
    [capped] = import_skills(tiers.docs(), str(out), replace=True).refused[1:]
    assert "the cap is 200" in capped.reason
    assert tiers.local_text("index") == full


def test_an_import_is_a_version_in_the_docs_history_by_whoever_ran_it(tiers, out):
    skill(out, "qc", "---\nname: qc\ndescription: check masks\n---\n# QC\n")
    by = Author("magic", where="kernel-1")
    import_skills(Docs(tiers.store(), author=by), str(out))
    history = tiers.docs().read_doc("skills/qc@history")
    assert [(v.number, v.author, v.added, v.current) for v in history.versions] == [(1, by, 4, True)]
    index = tiers.docs().read_doc("index@history").versions[0]
    assert (index.author, index.current) == (by, True)  # the entry filed first: the import's too
    skill(out, "qc", "---\nname: qc\ndescription: check masks\n---\n# QC\n\nA threshold.\n")
    import_skills(Docs(tiers.store(), author=Author("cli")), str(out), replace=True)
    versions = tiers.docs().read_doc("skills/qc@history").versions
    assert [(v.number, v.author.surface) for v in versions] == [(2, "cli"), (1, "magic")]
    assert tiers.docs().read_doc("skills/qc@v1").text.endswith("# QC\n")


def test_export_then_import_into_a_fresh_tier_gives_the_same_docs(tmp_path):
    source = seed_docs(tmp_path / "a")
    exported = export_skills(source, str(tmp_path / "skills"), all_docs=True)
    (tmp_path / "nothing-shipped").mkdir()
    (tmp_path / "nothing-shipped" / "index.md").write_text("# Docs\n")
    fresh = Docs(Store(tmp_path / "nothing-shipped", tmp_path / "b", "1.0"))
    result = import_skills(fresh, str(tmp_path / "skills"), prefix="")
    assert result.refused == ()
    assert len(result.imported) == len(exported.skills) == 28
    hooks = {e.doc_id: e.hook for e in parse_index(source.index().text).entries}
    imported_hooks = {e.doc_id: e.hook for e in parse_index(fresh.index().text).entries}
    for item in exported.skills:
        before, after = source.read_doc(item.id), fresh.read_doc(item.id)
        assert after.text == before.text, item.id  # byte for byte: frontmatter, body and links
        assert imported_hooks[item.id] == hooks[item.id]
        assert (before.tier, after.tier) == ("shipped", "local")


# -- the format's rules, one function at a time -----------------------------------------------------


@pytest.mark.parametrize("name", ["stains-", "-stains", "stain--nuclei", "Stains", "x" * 65])
def test_a_name_breaking_the_formats_rules_is_refused(name):
    assert name_problem(name) is not None
    assert not SPEC_NAME.fullmatch(name) or len(name) > 64  # the spec's own reading agrees


@pytest.mark.parametrize("word", ["Yes", "NO", "True", "Null", "Off", "y"])
def test_a_yaml_word_in_any_case_is_quoted_and_reads_back_as_text(word):
    assert yaml.safe_load(f"description: {yaml_scalar(word)}") == {"description": word}


def test_a_multiline_field_is_imported_as_one_line(tmp_path):
    text = (
        "---\nname: stains\ndescription: Stain nuclei.\nlicense: |\n  MIT\n  or Apache-2.0\n"
        "metadata:\n  note: >-\n    two\n\n    paragraphs\n---\n# Stains\n"
    )
    parsed = parse_skill(text, "stains", yaml.safe_load)
    assert parsed.fields == {"license": "MIT or Apache-2.0"}
    assert parsed.metadata == {"note": "two paragraphs"}


def test_a_compatibility_field_of_500_characters_imports_and_of_501_is_refused():
    def text(compatibility: str) -> str:
        return f"---\nname: stains\ndescription: x\ncompatibility: {compatibility}\n---\n# Stains\n"

    assert parse_skill(text("c" * 500), "stains", yaml.safe_load).fields == {"compatibility": "c" * 500}
    with pytest.raises(SkillProblem) as refused:
        parse_skill(text("c" * 501), "stains", yaml.safe_load)
    assert str(refused.value) == "Its compatibility: field is 501 characters; the format's limit is 500."


def test_only_a_link_naming_the_skill_itself_becomes_a_doc_link():
    ids = {"stains": "lab/stains"}
    assert links_from_skills("[stains#Steps](../stains/SKILL.md)", ids) == "[[lab/stains#Steps]]"
    assert links_from_skills("[stains](../stains/SKILL.md)", ids) == "[[lab/stains]]"
    for other in ("[stains-extra](../stains/SKILL.md)", "[stainsfoo#x](../stains/SKILL.md)"):
        assert links_from_skills(other, ids) == other


def test_a_collection_under_procedures_exports_every_doc_under_it(tiers, out):
    tiers.put_local("protocols/bead-check", "# Bead check\n\nMeasure the PSF on beads.\n")
    tiers.put_local("protocols/laser-power", "# Laser power\n\nRead the power at the objective.\n")
    tiers.put_local(
        "index", SEED_INDEX.replace("## Procedures\n", "## Procedures\n- protocols/: bench checks\n")
    )
    result = export_skills(tiers.docs(), str(out))
    assert [(s.name, s.id, s.action) for s in result.skills] == [
        ("protocols-bead-check", "protocols/bead-check", "created"),
        ("protocols-laser-power", "protocols/laser-power", "created"),
        ("flatfield", "flatfield", "created"),
        ("stitch-tiles", "stitch-tiles", "created"),
    ]
    data = assert_valid_skill(out / "protocols-bead-check")
    assert data["description"] == "Measure the PSF on beads."  # the collection lists the doc's own hook


def test_an_import_names_the_fields_it_could_not_keep_as_one_line(tiers, out):
    skill(
        out,
        "stains",
        "---\nname: stains\ndescription: Stain nuclei.\nallowed-tools:\n  bash: yes\n"
        "metadata:\n  steps:\n    - fix: 10 min\n---\n# Stains\n",
    )
    result = import_skills(tiers.docs(), str(out))
    assert result.imported[0].dropped_fields == ("allowed-tools", "metadata.steps")
    _, rows, _ = skill_import_lines(result)
    assert rows == [
        "created skills/stains from stains/ "
        "(fields not kept (not one line of text): allowed-tools, metadata.steps)"
    ]


def test_a_description_of_1024_characters_imports_and_of_1025_is_refused():
    def text(description: str) -> str:
        return f"---\nname: stains\ndescription: {description}\n---\n# Stains\n"

    assert parse_skill(text("d" * 1024), "stains", yaml.safe_load).description == "d" * 1024
    with pytest.raises(SkillProblem) as refused:
        parse_skill(text("d" * 1025), "stains", yaml.safe_load)
    assert str(refused.value) == (
        "SKILL.md breaks the format's rules: its description is 1,025 characters; the limit is 1,024."
    )


def test_the_import_text_names_the_folders_that_are_not_skills_and_how_to_read_one(tiers, out):
    skill(out, "qc", "---\nname: qc\ndescription: check masks\n---\n# QC\n")
    (out / "drafts").mkdir()
    said = agent_text(import_skills(tiers.docs(), str(out)))
    assert said.endswith(
        "  created skills/qc from qc/\n\nFolders without a SKILL.md, so not skills:\n  - drafts\n\n"
        'Read one with read_doc("skills/qc").\n'
    )


# -- what an export and an import say, and the edges they meet ---------------------------------------


def test_the_export_text_tallies_each_action_and_lists_what_was_refused_or_left(tiers, out):
    tiers.put_local("protocols/bead-check", "# Bead check\n\nMeasure the PSF on beads.\n")
    tiers.put_local("protocols/laser-power", "# Laser power\n\nRead the power at the objective.\n")
    tiers.put_local("flatfield", "# Flatfield\n\nSee [[data]] first.\n")
    procedures = "## Procedures\n- protocols/: bench checks\n"
    tiers.put_local(
        "index", SEED_INDEX.replace("## Procedures\n", procedures + "- ghost: a doc that is gone\n")
    )
    skill(out, "stitch-tiles", "---\nname: stitch-tiles\ndescription: theirs\n---\nTheirs.\n")
    theirs = (
        f"\nLeft alone:\n  - stitch-tiles: {out}/stitch-tiles holds a skill this export did not write; "
        "rename or remove it to export 'stitch-tiles' there.\n"
    )
    record = f"\nThe export's own record of what it wrote:\n  - {out}/{RECORD_FILE}\n"
    assert agent_text(export_skills(tiers.docs(), str(out))) == (
        f"Exported the docs the index lists under ## Procedures to {out}: 3 created.\n"
        "  created protocols-bead-check (doc protocols/bead-check)\n"
        "  created protocols-laser-power (doc protocols/laser-power)\n"
        "  created flatfield\n"
        "\nNot exported (the doc stays as it is):\n"
        "  - ghost: No doc 'ghost': the index lists it, but no file exists (it shows as (missing)). "
        'Write it with write_doc("ghost", body=...), or remove its line from the index.\n'
        f"{theirs}"
        "\nLinks to docs that are not skills stay [[id]] (an agent with this store's MCP server reads "
        "them with read_doc); all=true exports them too:\n  - data\n"
        f"{record}"
    )
    tiers.put_local("protocols/bead-check", "# Bead check\n\nMeasure the PSF on beads, twice.\n")
    without_flatfield = SEED_INDEX.replace("- flatfield: correct uneven illumination\n", "")
    tiers.put_local("index", without_flatfield.replace("## Procedures\n", procedures))
    assert agent_text(export_skills(tiers.docs(), str(out), check=True)) == (
        f"Nothing was written (check=true). Exporting the docs the index lists under ## Procedures to {out} "
        "would update 1, leave 1 unchanged, remove 1.\n"
        "  update protocols-bead-check (doc protocols/bead-check)\n"
        "  unchanged protocols-laser-power (doc protocols/laser-power)\n"
        "  remove flatfield\n"
        f"{theirs}{record}"
    )
    assert agent_text(export_skills(tiers.docs(), str(out), all_docs=True)) == (
        f"Exported every listed doc to {out}: 1 created, 1 updated, 1 unchanged, 1 removed.\n"
        "  created data\n"
        "  updated protocols-bead-check (doc protocols/bead-check)\n"
        "  unchanged protocols-laser-power (doc protocols/laser-power)\n"
        "  removed flatfield\n"
        f"{theirs}{record}"
    )
    assert (out / "protocols-bead-check/SKILL.md").read_text().endswith("on beads, twice.\n")


def test_the_import_text_names_each_skill_what_it_left_and_what_was_refused_in_folder_order(tiers, out):
    skill(
        out,
        "flatfield",
        "---\nname: flatfield\ndescription: the lab's flatfield\n---\n# Lab flat\n",
        **{"dark.tif": "x", "darks__readme.txt": "x"},
    )
    skill(out, "qc", "---\nname: qc\ndescription: check masks\n---\n# QC\n")
    skill(out, "long", "---\nname: long\ndescription: too many lines\n---\n" + "line\n" * 301)
    skill(out, "unfinished", "# Stains, to be written\n")
    (out / "drafts").mkdir()
    (out / "old").mkdir()
    result = import_skills(tiers.docs(), str(out), replace=True, prefix="")
    assert agent_text(result) == (
        f"Imported 2 skills from {out} as local docs; new index lines are under ## Imported skills.\n"
        "  shadowed flatfield from flatfield/ (already listed in the index; not imported: dark.tif, "
        "darks/readme.txt)\n"
        "  created qc from qc/\n"
        "\nRefused (nothing of these was written):\n"
        f"  - long/ {result.refused[0].reason}\n"
        "  - unfinished/ SKILL.md does not open with frontmatter: its first line must be '---', then "
        "name: and description: lines, then a closing '---'.\n"
        "\nFolders without a SKILL.md, so not skills:\n  - drafts, old\n"
        '\nRead one with read_doc("flatfield").\n'
    )
    assert "the cap is 300" in result.refused[0].reason  # refused by the write, after the read
    for folder in ("flatfield", "long", "unfinished", "drafts", "old"):
        (out / folder / "SKILL.md").unlink(missing_ok=True)
    assert agent_text(import_skills(tiers.docs(), str(out), replace=True, prefix="")).startswith(
        f"Imported 1 skill from {out} as local docs; new index lines are under ## Imported skills.\n"
    )


def test_an_import_from_a_directory_that_does_not_exist_says_which_folder_to_give(tiers, out):
    with pytest.raises(InvalidArguments) as refused:
        import_skills(tiers.docs(), str(out))
    assert str(refused.value) == f"No directory {out}: give the folder that holds the skill folders."


def test_a_blank_or_missing_skills_directory_is_refused_with_an_example(tiers, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # '' would name the working directory: never the repository's
    for directory in ("", "  ", None, 7):
        for run in (export_skills, import_skills):
            with pytest.raises(InvalidArguments) as refused:
                run(tiers.docs(), directory)
            assert str(refused.value) == (
                "Give the skills directory as a path, such as .claude/skills or ~/.agents/skills."
            )


def test_an_import_skips_plain_files_and_hidden_folders(tiers, out):
    skill(out, "qc", "---\nname: qc\ndescription: check masks\n---\n# QC\n")
    skill(out, ".git", "---\nname: git\ndescription: not a skill\n---\n# Git\n")
    (out / "notes.txt").write_text("not a skill\n")
    result = import_skills(tiers.docs(), str(out))
    assert [s.id for s in result.imported] == ["skills/qc"]
    assert (result.refused, result.not_skills) == ((), ())


def test_a_skill_file_that_cannot_be_read_is_refused_with_the_systems_reason(tiers, out):
    skill(out, "qc", "---\nname: qc\ndescription: check masks\n---\n# QC\n")
    (out / "moved").mkdir()
    (out / "moved" / "SKILL.md").symlink_to(out / "elsewhere" / "SKILL.md")  # its target moved away
    result = import_skills(tiers.docs(), str(out))
    assert [s.id for s in result.imported] == ["skills/qc"]
    assert [(n.name, n.reason) for n in result.refused] == [
        ("moved/", "SKILL.md cannot be read: No such file or directory.")
    ]


def test_a_skill_file_that_is_a_device_or_a_folder_is_refused_naming_what_it_is(tiers, out):
    (out / "null").mkdir(parents=True)
    (out / "null" / "SKILL.md").symlink_to("/dev/null")
    (out / "nested").mkdir()
    (out / "nested" / "SKILL.md").mkdir()
    result = import_skills(tiers.docs(), str(out))
    assert result.imported == ()
    assert [(n.name, n.reason) for n in result.refused] == [
        (
            "nested/",
            "SKILL.md is a directory, not the skill's text: put its SKILL.md file there, then import again.",
        ),
        (
            "null/",
            "SKILL.md is a device, not the skill's text: put its SKILL.md file there, then import again.",
        ),
    ]


UNLISTABLE_SCRIPT = """
import sys
from biopb_kernel_docs.core.errors import DocsError
from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.skill_import import import_skills
from biopb_kernel_docs.core.store import Store
try:
    import_skills(Docs(Store(sys.argv[1], sys.argv[2], "1.0")), sys.argv[3])
except DocsError as err:
    print(type(err).__name__, err)
"""


def test_a_skills_directory_that_cannot_be_listed_is_refused_with_the_systems_reason(tiers):
    # As root, permissions do not bind: the script then runs as nobody (setpriv).
    root = Path(tempfile.mkdtemp(prefix="biopb-unlistable-"))
    try:
        root.chmod(0o755)
        shutil.copytree(tiers.shipped, root / "shipped")
        (root / "skills").mkdir(mode=0o000)
        command = [sys.executable, "-c", UNLISTABLE_SCRIPT, str(root / "shipped"), str(root / "local")]
        if os.geteuid() == 0:
            command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
        done = subprocess.run([*command, str(root / "skills")], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout == f"InvalidArguments Cannot list {root}/skills: Permission denied.\n"
    finally:
        (root / "skills").chmod(0o755)
        shutil.rmtree(root)


def test_an_import_that_cannot_write_the_index_refuses_each_skill_saying_why(tmp_path, tiers, out):
    skill(out, "qc", "---\nname: qc\ndescription: check masks\n---\n# QC\n")
    (tmp_path / "a-file").write_text("not a directory\n")
    local = tmp_path / "a-file" / "local"
    result = import_skills(Docs(Store(tiers.shipped, local, "1.0")), str(out))
    assert result.imported == ()
    assert [(n.name, n.reason) for n in result.refused] == [
        (
            "qc/",
            "Nothing can be imported: (The local index could not be created, so this is the shipped "
            f"index, read-only: Cannot create the local docs directory {local}: {tmp_path}/a-file is not "
            "a directory. Point DocStore.docs_local_dir at a writable directory. Reading docs works; "
            "writing fails until that is fixed.)",
        )
    ]


def test_an_import_keeps_only_fields_whose_names_are_frontmatter_keys(tiers, out):
    skill(
        out,
        "stains",
        "---\nname: stains\ndescription: Stain nuclei.\nlab notes: keep\n2nd: y\nlicense: MIT\n"
        "metadata:\n  über: z\n  ok-key: fine\n---\n# Stains\n",
    )
    [done] = import_skills(tiers.docs(), str(out)).imported
    assert done.dropped_fields == ("lab notes", "2nd", "über")
    assert tiers.local_text("skills/stains") == (
        "---\ndescription: Stain nuclei.\nlicense: MIT\nok-key: fine\n---\n# Stains\n"
    )


def test_an_imported_description_of_quotes_or_brackets_alone_reads_back_as_written(tiers, out):
    descriptions = {
        "two-single": "''",
        "two-double": '""',
        "brackets": "[]",
        "one-quote": "'",
        "one-bracket": "[",
        "quoted-words": "'flat' or 'even'",
        "half-quoted": "'flat' means even",
    }
    for name, description in descriptions.items():
        skill(out, name, f"---\nname: {name}\ndescription: {json.dumps(description)}\n---\n# {name}\n")
    assert import_skills(tiers.docs(), str(out)).refused == ()
    docs = tiers.docs()
    for name, description in descriptions.items():
        assert docs.read_doc(f"skills/{name}").description == description, name
    # a value in single quotes goes in double quotes, so the line stays valid YAML too
    assert tiers.local_text("skills/quoted-words").startswith("---\ndescription: \"'flat' or 'even'\"\n")
    assert tiers.local_text("skills/two-single").startswith("---\ndescription: \"''\"\n")
    assert tiers.local_text("skills/half-quoted").startswith("---\ndescription: 'flat' means even\n")


def test_an_import_lists_up_to_20_of_a_folders_other_files_in_folder_order(tiers, out):
    nested = [f"{folder}/{name}.py" for folder in "fedcba" for name in ("test", "setup", "run")]
    for skill_name, top in (
        ("twenty", ["notes.txt", "LICENSE"]),
        ("twenty-one", ["z.txt", "notes.txt", "LICENSE"]),
    ):
        skill(out, skill_name, f"---\nname: {skill_name}\ndescription: x\n---\n# X\n")
        for relative in (*top, *nested):  # created out of order: the listing sorts them
            (out / skill_name / relative).parent.mkdir(exist_ok=True)
            (out / skill_name / relative).write_text("x\n")
    twenty, twenty_one = import_skills(tiers.docs(), str(out)).imported
    in_order = [f"{folder}/{name}.py" for folder in "abcdef" for name in ("run", "setup", "test")]
    assert twenty.other_files == ("LICENSE", "notes.txt", *in_order)
    assert twenty_one.other_files == ("LICENSE", "notes.txt", "z.txt", *in_order[:17], "... and 1 more")


def test_the_export_record_is_sorted_json_naming_each_skill_with_the_sha256_it_wrote(tiers, out):
    export_skills(tiers.docs(), str(out))
    sha = {
        name: hashlib.sha256((out / name / "SKILL.md").read_bytes()).hexdigest()
        for name in ("flatfield", "stitch-tiles")
    }
    record = out / RECORD_FILE
    assert record.read_text() == (
        '{\n "format": 1,\n "skills": {\n'
        f'  "flatfield": {{\n   "id": "flatfield",\n   "sha256": "{sha["flatfield"]}"\n  }},\n'
        f'  "stitch-tiles": {{\n   "id": "stitch-tiles",\n   "sha256": "{sha["stitch-tiles"]}"\n  }}\n'
        ' },\n "written_by": "biopb-kernel-docs skills export"\n}\n'
    )
    before = (record.stat().st_ino, record.stat().st_mtime_ns)
    export_skills(tiers.docs(), str(out))  # nothing changed: nothing is written, the record included
    assert (record.stat().st_ino, record.stat().st_mtime_ns) == before


def test_a_record_entry_without_a_sha256_is_refused_before_anything_is_written(tiers, out):
    out.mkdir()
    (out / RECORD_FILE).write_text('{"format": 1, "skills": {"flatfield": {"id": "flatfield"}}}\n')
    with pytest.raises(UnreadableDoc) as refused:
        export_skills(tiers.docs(), str(out))
    assert str(refused.value) == (
        f"The export's record {out / RECORD_FILE} is not one this package wrote (an entry without a "
        "sha256). Move it aside and export again: folders it named are then left alone, as any folder "
        "the export did not write."
    )
    assert sorted(p.name for p in out.iterdir()) == [RECORD_FILE]


def test_a_docs_own_name_metadata_and_id_lines_and_a_description_equal_to_its_hook_are_not_exported_twice(
    tiers, out
):
    tiers.put_local(
        "flatfield",
        "---\ndescription: correct uneven illumination\nname: flat\nmetadata: old\nbiopb-id: other\n"
        "license: MIT\n---\n# Flatfield\n\nStep one.\n",
    )
    export_skills(tiers.docs(), str(out))
    assert assert_valid_skill(out / "flatfield") == {
        "name": "flatfield",
        "description": "correct uneven illumination",
        "license": "MIT",
        "metadata": {"biopb-id": "flatfield"},
    }


def test_a_reexport_updates_a_changed_doc_in_its_existing_folder(tiers, out):
    docs = tiers.docs()
    export_skills(docs, str(out))
    docs.write_doc("stitch-tiles", old="one canvas", new="one big canvas")
    result = export_skills(docs, str(out))
    assert [(s.name, s.action) for s in result.skills] == [
        ("flatfield", "unchanged"),
        ("stitch-tiles", "updated"),
    ]
    assert result.left_alone == ()
    assert (out / "stitch-tiles/SKILL.md").read_text().endswith("into one big canvas.\n")


def test_an_export_never_writes_nor_removes_through_a_symlinked_skill_folder(tmp_path, tiers, out):
    docs = tiers.docs()
    export_skills(docs, str(out))
    target = tmp_path / "elsewhere"
    (out / "flatfield").rename(target)
    (out / "flatfield").symlink_to(target)
    kept = (target / "SKILL.md").read_bytes()
    docs.write_doc("flatfield", old="Step one.", new="Step one, with a dark frame.")
    [note] = export_skills(docs, str(out)).left_alone
    assert (note.name, note.reason) == (
        "flatfield",
        f"{out}/flatfield is not a folder this export wrote; move it aside to export 'flatfield'.",
    )
    docs.write_doc("index", old="- flatfield: correct uneven illumination\n", new="")
    [note] = export_skills(docs, str(out)).left_alone
    assert (note.name, note.reason) == (
        "flatfield",
        f"{out}/flatfield is no longer a folder this export wrote; left as it is.",
    )
    assert (target / "SKILL.md").read_bytes() == kept


def test_an_export_into_a_path_under_a_file_says_to_choose_another_directory(tmp_path, tiers):
    (tmp_path / "a-file").write_text("not a directory\n")
    with pytest.raises(InvalidArguments) as refused:
        export_skills(tiers.docs(), str(tmp_path / "a-file" / "skills"))
    assert str(refused.value) == (
        f"Cannot write skills into {tmp_path}/a-file/skills: Not a directory. Choose another directory."
    )


def test_a_skill_the_disk_refuses_to_remove_is_left_alone_with_the_reason_and_kept_in_the_record(tiers, out):
    docs = tiers.docs()
    export_skills(docs, str(out))
    (out / "flatfield/SKILL.md").unlink()
    (out / "flatfield/SKILL.md").mkdir()  # a folder where the file was: unlink refuses it
    docs.write_doc("index", old="- flatfield: correct uneven illumination\n", new="")
    result = export_skills(docs, str(out))
    assert [(s.name, s.action) for s in result.skills] == [("stitch-tiles", "unchanged")]
    assert [(n.name, n.reason) for n in result.left_alone] == [
        ("flatfield", "the disk refused it: Is a directory.")
    ]
    assert sorted(json.loads((out / RECORD_FILE).read_text())["skills"]) == ["flatfield", "stitch-tiles"]


# -- the format's rules at their edges, and each refusal's words (seed 20261316) ----------------------


def test_a_name_of_exactly_64_characters_exports_and_imports(tiers, out):
    name = "stain-nuclei-with-dapi-then-count-them-per-field-of-view-twice-k"
    assert len(name) == 64
    tiers.put_local(name, "# Long name\n\nBody.\n")
    tiers.put_local("index", f"# Docs\n\n## Procedures\n- {name}: a long name\n")
    assert [(s.name, s.action) for s in export_skills(tiers.docs(), str(out)).skills] == [(name, "created")]
    assert assert_valid_skill(out / name)["name"] == name
    [done] = import_skills(tiers.docs(), str(out), prefix="lab/").imported
    assert (done.folder, done.id) == (name, f"lab/{name}")


def test_non_ascii_text_is_written_as_itself_and_reads_back_even_beyond_the_basic_plane(tiers, out):
    hook = "count γH2AX foci 🔬 per nucleus"
    tiers.put_local("index", f"# Docs\n\n## Procedures\n- flatfield: {hook}\n")
    export_skills(tiers.docs(), str(out))
    assert f'\ndescription: "{hook}"\n' in (out / "flatfield/SKILL.md").read_text(encoding="utf-8")
    assert assert_valid_skill(out / "flatfield")["description"] == hook
    import_skills(tiers.docs(), str(out))
    assert f"## Imported skills\n- skills/flatfield: {hook}\n" in tiers.local_text("index")


def test_a_parsed_skill_is_a_frozen_value():
    parsed = parse_skill("---\nname: stains\ndescription: x\n---\n# Stains\n", "stains", yaml.safe_load)
    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.name = "other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "---\n---\n# Stains\n",
            "SKILL.md's frontmatter must be a mapping of fields (name: ..., description: ...).",
        ),
        (
            "---\nname: stains\ndescription: Stain nuclei: DAPI, then count\n---\n# Stains\n",
            "SKILL.md's frontmatter is not valid YAML (mapping values are not allowed here, at line 3, "
            "column 26). A value holding ': ' or ' #' goes in quotes (description: \"...\"), and a "
            "quote must be closed; fix it, then import again.",
        ),
        (
            '---\nname: stains\ndescription: "Stain nuclei, then count\n---\n# Stains\n',
            "SKILL.md's frontmatter is not valid YAML (found unexpected end of stream, at line 3, "
            "column 39). A value holding ': ' or ' #' goes in quotes (description: \"...\"), and a "
            "quote must be closed; fix it, then import again.",
        ),
        (
            "---\ndescription: Stain nuclei.\n---\n# Stains\n",
            "SKILL.md has no name: field; add one equal to the folder's name.",
        ),
        (
            '---\nname: "  "\ndescription: Stain nuclei.\n---\n# Stains\n',
            "SKILL.md has no name: field; add one equal to the folder's name.",
        ),
        (
            "---\nname: " + "s" * 65 + "\ndescription: Stain nuclei.\n---\n# Stains\n",
            f"Its name '{'s' * 65}' breaks the format's rules: it is 65 characters long; the limit is "
            "64. A skill's name is 1-64 characters of a-z, 0-9 and '-', neither starting nor ending "
            "with '-' nor holding '--', and equal to its folder's name.",
        ),
    ],
    ids=["empty-frontmatter", "invalid-yaml", "unclosed-quote", "no-name", "blank-name", "name-of-65"],
)
def test_a_skill_breaking_a_frontmatter_rule_is_refused_saying_what_to_fix(tiers, out, text, reason):
    folder = "s" * 65 if "s" * 65 in text else "stains"
    skill(out, folder, text)
    result = import_skills(tiers.docs(), str(out))
    assert result.imported == ()
    assert [(n.name, n.reason) for n in result.refused] == [(f"{folder}/", reason)]
