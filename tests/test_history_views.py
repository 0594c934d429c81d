"""How a history reads: the listing, one version, the bounds, and the undo calls it names
(core/undo, text/history)."""

from __future__ import annotations

import re

import pytest

from biopb_kernel_docs.core.errors import EditRefused
from biopb_kernel_docs.text.render import text

from .test_history import AGENT, USER, _docs


def _untimed(rendered: str) -> str:
    """A rendering with each version's local time (``2026-12-01 14:02``) replaced by ``T``."""
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d", "T", rendered)


# -- the listing ---------------------------------------------------------------------------------------


def test_a_listing_names_each_version_s_author_its_change_a_restore_and_a_copy_dropped_for_shipped(tiers):
    """v1 the shipped text a first copy replaced, two edits in a kernel, the drop (the id reads the
    shipped text again), then the agent's restore of v2."""
    docs = _docs(tiers, author=USER)
    docs.write_doc("flatfield", old="Step one.", new="Step one, mine.")
    docs.write_doc("flatfield", old="Step one, mine.", new="Step one.")
    docs.drop_local_copy("flatfield")
    _docs(tiers, author=AGENT).restore_doc("flatfield", 2)
    assert _untimed(text(docs.read_doc("flatfield@history"))) == (
        "[flatfield@history · 5 versions kept, newest first · at most 100 versions and 2 MiB per doc are "
        "kept, the oldest dropped first]\n"
        "\n"
        "v5 · T · claude-code 2.1 via MCP · +1 \u22121 lines · restores v2 · current\n"
        "v4 · T · magic in kernel 1a2b3c4d · +0 \u22120 lines · no local copy: the shipped text is read\n"
        "v3 · T · magic in kernel 1a2b3c4d · +1 \u22121 lines\n"
        "v2 · T · magic in kernel 1a2b3c4d · +1 \u22121 lines\n"
        "v1 · T · the shipped text · 7 lines\n"
        "\n"
        'read_doc("flatfield@v4") reads a version; restore_doc("flatfield", 4) writes its text back as a '
        "new version.\n"
    )
    headers = [_untimed(text(docs.read_doc(f"flatfield@v{n}"))).split("\n")[0] for n in (1, 2, 5)]
    assert headers == [
        '[flatfield@v1 · T · by the shipped text · not the current text: restore_doc("flatfield", 1) puts '
        "it back]",
        "[flatfield@v2 · T · by magic in kernel 1a2b3c4d · +1 \u22121 lines · not the current text: "
        'restore_doc("flatfield", 2) puts it back]',
        "[flatfield@v5 · T · by claude-code 2.1 via MCP · +1 \u22121 lines · restores v2 · the current text]",
    ]


def test_a_listing_says_which_version_removed_the_doc_kept_no_text_or_came_from_before_history(tiers):
    """A local doc from before history, a write alone over a 1,000-byte bound, then the file
    deleted by hand: the removal is what the id reads as now."""
    tiers.put_local("notes", "# Notes\n\nwritten before history\n")
    docs = _docs(tiers, max_versions=100, max_bytes=1000)
    docs.write_doc("notes", body="# Notes\n" + "a long line of text\n" * 60)
    (tiers.local / "notes.md").unlink()
    assert _untimed(text(docs.read_doc("notes@history"))) == (
        "[notes@history · 3 versions kept, newest first · at most 100 versions and 1,000 bytes per doc "
        "are kept, the oldest dropped first]\n"
        "\n"
        "v3 · T · outside edit · the doc was removed · current\n"
        "v2 · T · claude-code 2.1 via MCP · +60 \u22122 lines · text not kept (over the byte bound)\n"
        "v1 · T · before history was kept · 3 lines\n"
        "\n"
        'read_doc("notes@v1") reads a version; restore_doc("notes", 1) writes its text back as a new '
        "version.\n"
    )
    assert _untimed(text(docs.read_doc("notes@v2"))) == (
        "[notes@v2 · T · by claude-code 2.1 via MCP · +60 \u22122 lines · not the current text: "
        'restore_doc("notes", 2) puts it back]\n'
        "\n"
        "Its text was not kept: it alone was over the history's byte bound.\n"
    )


def test_the_version_that_removed_a_doc_is_its_current_version_and_offers_no_restore(tiers):
    """The listing marks the removal current; the version read alone must agree, not offer a
    restore_doc of it that is refused for having no text."""
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    (tiers.local / "notes.md").unlink()
    assert [v.current for v in docs.read_doc("notes@history").versions] == [True, False]
    removal = docs.read_doc("notes@v2")
    assert (removal.version.current, removal.text) == (True, None)
    assert _untimed(text(removal)) == (
        "[notes@v2 · T · by outside edit · +0 \u22121 lines · the current text]\n"
        "\n"
        "The doc did not exist at this version.\n"
    )
    next_step = r'there is no text to restore\. read_doc\("notes@history"\) lists the others'
    with pytest.raises(EditRefused, match=next_step):
        docs.restore_doc("notes", 2)


# -- the bounds ----------------------------------------------------------------------------------------


def test_a_store_that_keeps_no_history_reports_bounds_of_zero(tiers):
    docs = _docs(tiers, max_versions=0, max_bytes=1000)
    docs.write_doc("notes", body="# Notes\n")
    view = docs.read_doc("notes@history")
    assert (view.versions, view.max_versions, view.max_bytes, view.size, view.enabled) == ((), 0, 0, 0, False)
    assert text(view) == "[notes@history · no history is kept here: DocStore.history_max_versions is 0]\n"


# -- drop ----------------------------------------------------------------------------------------------


def test_a_drop_needs_no_fresh_read_after_another_writer_put_the_shipped_text_back(tiers):
    """A drop removes only a copy equal to the shipped text, so nothing anyone wrote is lost: unlike
    a full body write, it is not refused because the copy changed since this process read it."""
    docs = _docs(tiers, author=USER)
    docs.write_doc("flatfield", old="Step one.", new="Step one, mine.")
    docs.read_doc("flatfield")
    _docs(tiers, author=AGENT).write_doc("flatfield", old="Step one, mine.", new="Step one.")
    assert docs.drop_local_copy("flatfield").outcome == "removed"
    assert not (tiers.local / "flatfield.md").exists()
    assert docs.read_doc("flatfield").tier == "shipped"
