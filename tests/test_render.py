"""Values as the agent and the notebook read them: the index text's counted ignored: lines and its
notices, the notebook's index sections, the config text."""

from __future__ import annotations

import re

from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.search import search_docs
from biopb_kernel_docs.core.skills import export_skills
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.core.values import ConfigView, Setting
from biopb_kernel_docs.text.handshake import compose_instructions
from biopb_kernel_docs.text.notebook import config_markdown, index_markdown, markdown
from biopb_kernel_docs.text.render import config_text, index_text, text

TWO_IGNORED_LINES = """\
# Lab docs

## References
- data: how arrays are laid out

ignored: old-method

## Procedures
- flatfield: correct uneven illumination

ignored: segment-nuclei stitch-tiles
"""


def test_two_ignored_lines_are_counted_as_one_and_neither_lines_ids_are_shown(tiers):
    tiers.put_local("index", TWO_IGNORED_LINES)
    view = tiers.docs().index()
    counted = index_text(view, ignored_as_count=True)
    assert counted.count("ignored:") == 1
    assert "ignored: 3 shipped docs, not listed here" in counted
    handshake = compose_instructions(view)
    for shown in (counted, handshake):
        for doc_id in ("old-method", "segment-nuclei", "stitch-tiles"):
            assert doc_id not in shown
    assert "- flatfield: correct uneven illumination" in counted  # the lines between are kept
    assert "ignored: segment-nuclei stitch-tiles" in index_text(view)  # the agent's own view: verbatim


def test_the_agents_index_text_says_when_the_index_is_the_read_only_shipped_one(tiers):
    blocker = tiers.local.parent / "blocker"
    blocker.write_text("a file where the local directory should be")
    view = Docs(Store(tiers.shipped, blocker / "docs", "1")).read_doc("index")
    notice = "(The local index could not be created, so this is the shipped index, read-only:"
    for shown in (text(view), compose_instructions(view)):
        assert notice in shown
        assert "Reading docs works; writing fails until that is fixed.)" in shown
    assert text(view).split("\n\n", 2)[1].startswith(notice)  # above the index, under the header


def test_the_notebooks_index_shows_each_heading_with_its_entries_in_order(tiers):
    view = tiers.docs().index()
    assert index_markdown(view) == (
        f"**Doc index**: 3 of 200 entries · `{view.path}`\n\n"
        "**References**\n\n"
        "- **data**: how arrays are laid out\n\n"
        "**Procedures**\n\n"
        "- **flatfield**: correct uneven illumination\n"
        "- **stitch-tiles**: assemble a grid of tiles\n\n"
        "Ignored: old-method\n\n"
        "**New shipped docs** (not in your index yet): file one with `%file_doc ID '## Heading'`, "
        "or hide it with `%ignore_doc ID`.\n\n"
        "- **segment-nuclei**: find the nuclei\n\n"
        "Read a doc with `%read_doc ID`; edit the index with `%%write_doc index --replace`."
    )


def test_the_config_text_names_the_config_files_it_read_highest_precedence_first():
    user, system = "/home/u/.jupyter/biopb_kernel_docs.json", "/etc/jupyter/biopb_kernel_docs.json"
    view = ConfigView(
        local_dir="/lab",
        shipped_dir="/site/seed",
        shipped_version="1.0",
        package_version="0.3",
        settings=(Setting("docs_local_dir", "/lab", user), Setting("shipped_version", "1.0", "default")),
        config_files=(user, system),
        user_config_file=user,
    )
    assert config_text(view) == (
        "biopb-kernel-docs 0.3\n"
        f"docs_local_dir   /lab    ({user})\n"
        "shipped_version  1.0    (default)\n"
        f"config files (highest precedence first): {user}, {system}\n"
    )


def test_the_config_text_with_no_config_file_says_which_file_to_write():
    user = "/home/u/.jupyter/biopb_kernel_docs.json"
    view = ConfigView(
        local_dir="/lab",
        shipped_dir="/site/seed",
        shipped_version="1.0",
        package_version="0.3",
        settings=(Setting("docs_local_dir", "/lab", "default"),),
        config_files=(),
        user_config_file=user,
    )
    assert config_text(view) == (
        "biopb-kernel-docs 0.3\n"
        "docs_local_dir  /lab    (default)\n"
        f"no config file; to set these once for every surface, write {user}\n"
    )


def test_the_notebooks_config_table_names_the_files_it_read_or_the_one_to_write():
    user, system = "/home/u/.jupyter/biopb_kernel_docs.json", "/etc/jupyter/biopb_kernel_docs.json"
    settings = (Setting("docs_local_dir", "/lab", user),)
    read = ConfigView("/lab", "/site/seed", "1.0", "0.3", settings, (user, system), user)
    assert f"`{user}`, `{system}`" in config_markdown(read)
    assert "none (set values once in" not in config_markdown(read)
    unread = ConfigView("/lab", "/site/seed", "1.0", "0.3", settings, (), user)
    assert f"none (set values once in `{user}`)" in config_markdown(unread)


GUIDE = """\
---
description: a guide whose headings start at level 2
updated: 2026-03-04
---
## Setup
Install it.

### Check
Run the check.

## Use
Call it.
"""


def test_an_outline_indents_each_heading_by_its_depth_below_the_docs_top_level(tiers):
    tiers.ship("guide", GUIDE)
    assert text(tiers.docs().read_doc("guide#")) == (
        "[guide# · outline · shipped · updated 2026-03-04 · 12 lines, 3 sections]\n"
        "\n"
        '- Setup (6 lines, 5–10): read_doc("guide#Setup")\n'
        '  - Check (3 lines, 8–10): read_doc("guide#Check")\n'
        '- Use (2 lines, 11–12): read_doc("guide#Use")\n'
    )


def test_the_doc_header_names_the_section_calls_only_when_the_doc_has_two_headings_or_more(tiers):
    tiers.ship("one", "---\nupdated: 2026-03-04\n---\n# One\n\nText.\n")
    tiers.ship("two", "---\nupdated: 2026-03-04\n---\n# Two\n\nText.\n\n## More\n\nMore text.\n")
    docs = tiers.docs()
    assert text(docs.read_doc("one")).split("\n")[0] == "[one · shipped · updated 2026-03-04]"
    assert text(docs.read_doc("two")).split("\n")[0] == (
        '[two · shipped · updated 2026-03-04 · 2 sections: read_doc("two#<heading>") reads one, '
        'read_doc("two#") lists them]'
    )


def test_a_collection_reads_as_its_header_its_own_line_then_one_line_a_doc_or_how_to_add_one(tiers):
    index = "# Lab docs\n\n## Lab\n- lab/: the lab's own notes\n- empty/: where notes will go\n"
    tiers.put_local("index", index)
    tiers.put_local("lab/plates", "---\ndescription: how plates are labelled\n---\n# Plates\n")
    docs = tiers.docs()
    assert text(docs.read_doc("lab/")) == (
        "[lab/ · collection · 1 doc · listed under ## Lab]\n"
        "\n"
        "lab/: the lab's own notes\n"
        "\n"
        "- lab/plates: how plates are labelled\n"
    )
    assert text(docs.read_doc("empty/")) == (
        "[empty/ · collection · 0 docs · listed under ## Lab]\n"
        "\n"
        "empty/: where notes will go\n"
        "\n"
        'No docs under empty/ yet: write_doc("empty/<name>", body=...) writes one.\n'
    )


def test_the_index_text_is_the_file_with_its_markers_less_its_trailing_blank_lines_then_the_tail(tiers):
    tiers.seed()
    tiers.put_local("index", tiers.local_text("index") + "\n\n\n")  # an editor left blank lines
    tiers.put_local("flatfield", "# Flatfield, mine\n")
    assert index_text(tiers.docs().index()) == (
        "# Test docs\n"
        "\n"
        "## References\n"
        "- data: how arrays are laid out\n"
        "\n"
        "## Procedures\n"
        "- flatfield: correct uneven illumination (local copy)\n"
        "- stitch-tiles: assemble a grid of tiles\n"
        "\n"
        "ignored: old-method\n"
        "\n"
        "## New shipped docs\n"
        "These shipped docs have no entry above and are not on the ignored: line (this list is added by "
        "the loader; it is not in index.md). File each one by adding its line under a heading in the "
        "index, or add its id to the ignored: line; either takes it off this list.\n"
        "- segment-nuclei: find the nuclei\n"
    )


def test_a_search_reads_as_its_count_then_each_doc_apart_with_its_sections_below_the_title(tiers):
    tiers.ship(
        "flatfield",
        "# Flatfield\n\nDivide by the flat frame.\n\n## Steps\nLoad the flat frame.\n\n"
        "### Check\nThe flat frame must not be dark.\n",
    )
    tiers.ship("data", "# Data\n\nA flat frame is an image of an even field.\n")
    assert text(search_docs(tiers.store(), "flat frame")) == (
        "4 matching lines in 2 docs for 'flat frame' (literal, case-insensitive); 4 docs searched (the "
        "listed docs, those under listed collections, the index).\n"
        "\n"
        'data — read_doc("data")\n'
        "  L3: A flat frame is an image of an even field.\n"
        "\n"
        'flatfield — read_doc("flatfield")\n'
        "  L3: Divide by the flat frame.\n"
        'flatfield (§ Steps) — read_doc("flatfield#Steps")\n'
        "  L6: Load the flat frame.\n"
        'flatfield (§ Steps › Check) — read_doc("flatfield#Check")\n'
        "  L9: The flat frame must not be dark.\n"
    )


def test_a_write_says_first_what_it_did_in_one_sentence_for_each_outcome(tiers):
    docs = tiers.docs()

    def said(result):
        return text(result).split("\n\n", 1)[0]

    created = docs.write_doc("lab/plates", body="# Plates\n\nLabel each plate.\n")
    assert said(created) == "Created local doc 'lab/plates' and filed it under ## Unfiled in the index."
    assert said(docs.write_doc("lab/plates", old="Label each", new="Label every")) == (
        "Updated local doc 'lab/plates'."
    )
    assert said(docs.write_doc("lab/plates", body="# Plates\n\nLabel every plate.\n")) == (
        "No change: 'lab/plates' already has this text, so nothing was written."
    )
    assert said(docs.restore_doc("lab/plates", 1)) == (
        "Restored 'lab/plates' to the text of v1 (a new version; nothing was lost)."
    )
    assert said(docs.write_doc("flatfield", old="Step one.", new="Step one, changed.")) == (
        "Created a local copy of shipped doc 'flatfield'; it now shadows the shipped text, and the index "
        "marks it (local copy)."
    )
    docs.write_doc("flatfield", old="Step one, changed.", new="Step one.")
    assert said(docs.drop_local_copy("flatfield")) == (
        "Dropped the local copy of 'flatfield': it reads the shipped text again, and every later release "
        'of it. read_doc("flatfield@history") keeps the copy\'s versions.'
    )
    assert said(docs.file_doc("segment-nuclei", "## Procedures")) == (
        "Filed an entry under ## Procedures in the index."
    )
    assert said(docs.write_doc("index", old="# Test docs", new="# Lab docs")) == "Edited the index."


def test_the_agents_read_of_the_index_shows_the_ignored_line_as_written(tiers):
    tiers.put_local("index", TWO_IGNORED_LINES)
    shown = text(tiers.docs().read_doc("index"))
    assert "\nignored: old-method\n" in shown
    assert "\nignored: segment-nuclei stitch-tiles\n" in shown
    assert "shipped docs, not listed here" not in shown  # the count is the handshake's alone


def test_the_notebook_reads_a_doc_and_a_section_under_their_whole_header_with_headings_bold(tiers):
    tiers.ship(
        "guide",
        "---\ndescription: a guide\nupdated: 2026-03-04\n---\n# Guide\n\nSee [[flatfield]] and [[data]].\n\n"
        "## Setup ##\nInstall it.\n\n```\n# not a heading [[x]]\n```\n\n### Check\nRun the check.\n",
    )
    docs = tiers.docs()
    body = (
        "**Setup**\nInstall it.\n\n"
        "```\n# not a heading [[x]]\n```\n\n"  # code is left as written
        "**Check**\nRun the check.\n"
    )
    assert markdown(docs.read_doc("guide")) == (
        "*guide · shipped · updated 2026-03-04 · 3 sections: %read_doc 'guide#<heading>' reads one, "
        "%read_doc guide# lists them*\n\n"
        "<details><summary>frontmatter</summary>\n\n"
        "```yaml\ndescription: a guide\nupdated: 2026-03-04\n```\n\n"
        "</details>\n\n"
        "**Guide**\n\nSee **flatfield** and **data**.\n\n"
        f"{body}\n\n"
        "Linked docs: `%read_doc flatfield` · `%read_doc data`"
    )
    assert markdown(docs.read_doc("guide#Setup")) == (
        "*guide#Setup · shipped · updated 2026-03-04 · § 2 of 3: Guide › Setup · lines 9–17 of 17 · "
        f"outline: %read_doc guide#*\n\n{body}"
    )


def test_the_notebooks_outline_nests_each_heading_below_the_top_level_or_says_how_to_read_it_whole(tiers):
    tiers.ship("guide", "## Setup\nInstall it.\n\n### Check\nRun the check.\n\n## Use\nCall it.\n")
    tiers.ship("plain", "No headings here, just text.\n")
    docs = tiers.docs()
    assert markdown(docs.read_doc("guide#")) == (
        "**guide**: outline of `guide`, 8 lines, 3 sections\n\n"
        "- Setup (6 lines) `%read_doc guide#Setup`\n"
        "  - Check (3 lines) `%read_doc guide#Check`\n"
        "- Use (2 lines) `%read_doc guide#Use`"
    )
    assert markdown(docs.read_doc("plain#")) == (
        "**plain**: outline of `plain`, 1 lines, 0 sections\n\nNo headings: `%read_doc plain` reads it whole."
    )


def test_the_notebooks_collection_shows_its_hook_only_when_listed_with_one_else_how_to_list_it(tiers):
    tiers.put_local("index", "# Lab docs\n\n## Lab\n- lab/:\n- notes/: the lab's notes\n")
    tiers.put_local("lab/plates", "---\ndescription: how plates are labelled\n---\n# Plates\n")
    tiers.put_local("notes/a", "---\ndescription: a note\n---\n# A\n")
    tiers.put_local("loose/b", "---\ndescription: a loose note\n---\n# B\n")
    tiers.put_local("stitch-tiles/grid", "---\ndescription: a grid\n---\n# Grid\n")
    docs = tiers.docs()
    assert markdown(docs.read_doc("notes/")) == (
        "**Collection `notes/`**: 1 doc · the lab's notes\n\n- **notes/a**: a note"
    )
    assert markdown(docs.read_doc("lab/")) == (  # listed with no hook: no dangling separator
        "**Collection `lab/`**: 1 doc\n\n- **lab/plates**: how plates are labelled"
    )
    assert markdown(docs.read_doc("loose/")) == (
        "**Collection `loose/`**: 1 doc\n\n"
        "Not in the index: a `- loose/: ...` line (`%%write_doc index --replace`) lists these docs as one "
        "entry.\n\n"
        "- **loose/b**: a loose note"
    )


def _plates_written_twice(tiers):
    docs = tiers.docs()
    docs.write_doc("lab/plates", body="# Plates\n\nLabel each plate.\n")
    docs.write_doc("lab/plates", body="# Plates\n\nLabel every plate.\n")
    return docs


def _when_masked(text: str) -> str:
    """``text`` with each local time a version shows read as ``<when>``."""
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d", "<when>", text)


def test_the_notebooks_history_lists_the_versions_under_the_header_or_says_why_there_are_none(tiers):
    docs = _plates_written_twice(tiers)
    shown = _when_masked(markdown(docs.read_doc("lab/plates@history")))
    assert shown == (
        "*lab/plates@history · 2 versions kept, newest first · at most 100 versions and 2 MiB per doc are "
        "kept, the oldest dropped first*\n\n"
        "- v2 · <when> · Python API · +1 −1 lines · current\n"
        "- v1 · <when> · Python API · +3 −0 lines\n\n"
        "%read_doc lab/plates@v1 reads a version; %restore_doc lab/plates 1 writes its text back as a new "
        "version."
    )
    assert markdown(docs.read_doc("data@history")) == (
        "[data@history · 0 versions kept, newest first · at most 100 versions and 2 MiB per doc are kept, "
        "the oldest dropped first]\n\n"
        "No versions yet: 'data' has not been written through the store since its history began. Each write "
        "keeps the text it replaced from then on.\n"
    )
    unkept = Docs(Store(tiers.shipped, tiers.local, "1.0", history=None))
    assert markdown(unkept.read_doc("data@history")) == (
        "[data@history · no history is kept here: DocStore.history_max_versions is 0]\n"
    )


def test_the_notebook_shows_a_version_and_a_diff_of_two_under_their_whole_header(tiers):
    docs = _plates_written_twice(tiers)
    shown = _when_masked(markdown(docs.read_doc("lab/plates@v1")))
    assert shown == (
        "*lab/plates@v1 · <when> · by Python API · +3 −0 lines · not the current text: "
        "%restore_doc lab/plates 1 puts it back*\n\n"
        "```markdown\n# Plates\n\nLabel each plate.\n```"
    )
    assert markdown(docs.diff_versions("lab/plates", 1, 2)) == (
        "*lab/plates · v1 against v2*\n\n"
        "```diff\n--- a/lab/plates.md (v1)\n+++ b/lab/plates.md (v2)\n@@ -1,3 +1,3 @@\n # Plates\n \n"
        "-Label each plate.\n+Label every plate.\n```"
    )
    assert markdown(docs.diff_versions("lab/plates", 2)) == (
        "*lab/plates · v2 against the current text*\n\nNo differences.\n"
    )


def test_the_notebooks_skills_export_reads_as_its_summary_a_line_a_skill_then_each_note(tiers):
    tiers.ship("flatfield", "---\ndescription: fix shading\n---\n# Flatfield\n\nStep one. See [[data]].\n")
    out = tiers.local.parent / "skills"
    assert markdown(export_skills(tiers.docs(), str(out), check=True)) == (
        "**Nothing was written (--check). Exporting the docs the index lists under ## Procedures to "
        f"{out} would create 2.**\n\n"
        "- create flatfield\n- create stitch-tiles\n\n"
        "Links to docs that are not skills stay [[id]] (an agent with this store's MCP server reads them "
        "with read_doc); --all exports them too:\n- data\n\n"
        f"The export's own record of what it wrote:\n- {out}/.biopb-kernel-docs-export.json"
    )
