"""Values as the agent and the notebook read them: the index text's counted ignored: lines and its
notices, the notebook's index sections, the config text."""

from __future__ import annotations

from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.core.values import ConfigView, Setting
from biopb_kernel_docs.text.handshake import compose_instructions
from biopb_kernel_docs.text.notebook import config_markdown, index_markdown
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
