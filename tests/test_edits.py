"""What a write may be (core/edits.py): text checks, the line and byte caps in the core, so every
surface gets them; and old/new on the index with text copied from its rendering (issue 22, item 2)."""

from __future__ import annotations

import unicodedata

import pytest

from biopb_kernel_docs.core.edits import (
    BODY_LINE_CAP,
    DOC_BYTE_CAP,
    INDEX_LINE_BYTE_CAP,
    check_heading,
    line_count,
    replace_in_index,
)
from biopb_kernel_docs.core.errors import EditRefused, InvalidArguments, LimitExceeded
from biopb_kernel_docs.text.render import index_text, text


def _local_files(tiers) -> dict:
    return {p: p.read_bytes() for p in tiers.local.rglob("*") if p.is_file() and p.name != ".lock"}


# -- text checks and byte caps ---------------------------------------------------------------------


def test_the_caps_are_64_kib_a_doc_and_1_kib_an_index_line():
    assert (DOC_BYTE_CAP, INDEX_LINE_BYTE_CAP) == (65_536, 1_024)


@pytest.mark.parametrize("name", ["body", "old", "new"])
def test_a_nul_in_any_text_argument_is_refused_and_nothing_is_written(tiers, docs, name):
    docs.index()
    before = _local_files(tiers)
    arguments = {"body": None, "old": "Step one.", "new": "Step 1."} if name != "body" else {"body": "# A\n"}
    arguments[name] = "with a \x00 inside"
    with pytest.raises(InvalidArguments, match=f"^{name} holds a NUL character \\(at character 7\\)"):
        docs.write_doc("flatfield", **arguments)
    assert _local_files(tiers) == before


def test_a_single_line_body_over_64_kib_is_refused_whatever_its_line_count(tiers, docs):
    docs.index()
    with pytest.raises(LimitExceeded) as caught:
        docs.write_doc("one-line", body="é" * 40_000)  # 40,000 characters, 80,001 bytes
    assert str(caught.value).startswith("'one-line' would be 80,001 bytes; the cap is 64 KiB (65,536 bytes)")
    assert not (tiers.local / "one-line.md").exists()


def test_a_body_of_four_byte_characters_over_64_kib_is_refused(tiers, docs):
    docs.index()
    with pytest.raises(LimitExceeded) as caught:
        docs.write_doc("specimens", body="\U0001f52c" * 17_000)  # 17,000 characters of 4 bytes
    assert str(caught.value).startswith("'specimens' would be 68,001 bytes; the cap is 64 KiB (65,536 bytes)")
    assert not (tiers.local / "specimens.md").exists()


def test_an_edit_that_grows_a_doc_past_64_kib_is_refused(tiers, docs):
    tiers.put_local("mine", "# Mine\n\nSmall.\n")
    with pytest.raises(LimitExceeded, match="the cap is 64 KiB"):
        docs.write_doc("mine", old="Small.", new="x" * DOC_BYTE_CAP)
    assert tiers.local_text("mine") == "# Mine\n\nSmall.\n"


def test_a_heading_over_1_kib_is_refused_by_file_doc(tiers, docs):
    docs.index()
    before = _local_files(tiers)
    with pytest.raises(LimitExceeded, match=r"The heading would be a line of 1,025 bytes in the index"):
        docs.file_doc("segment-nuclei", "#" * 1025)
    assert _local_files(tiers) == before


def test_an_index_edit_adding_an_entry_line_over_1_kib_is_refused_and_one_of_1_kib_is_written(tiers, docs):
    tiers.seed()
    exactly = "- ghost: " + "h" * (1024 - len("- ghost: "))  # 1,024 bytes: at the cap
    over = "- ghost: " + "h" * (1025 - len("- ghost: "))  # 1,025 bytes: one past it
    with pytest.raises(LimitExceeded) as caught:
        docs.write_doc("index", old="## Procedures\n", new=f"## Procedures\n{over}\n")
    assert str(caught.value).startswith(
        "The line '- ghost: hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh'... would be a line of 1,025 bytes in the index; "
        "the cap is 1 KiB (1,024 bytes) per index line"
    )
    assert str(caught.value).endswith("Shorten that hook or heading and retry.")
    assert over not in tiers.local_text("index")
    docs.write_doc("index", old="## Procedures\n", new=f"## Procedures\n{exactly}\n")
    assert f"\n{exactly}\n" in tiers.local_text("index")


def test_an_entry_line_already_over_1_kib_does_not_block_an_edit_elsewhere_in_the_index(tiers, docs):
    tiers.seed()
    long_line = "- ghost: " + "h" * 2000  # put there by hand, past the cap
    tiers.put_local(
        "index", tiers.local_text("index").replace("## Procedures\n", f"## Procedures\n{long_line}\n")
    )
    result = docs.write_doc("index", old="- data: how arrays are laid out", new="- data: arrays and axes")
    assert result.outcome == "updated"
    index = tiers.local_text("index")
    assert "- data: arrays and axes\n" in index
    assert f"\n{long_line}\n" in index


# -- old/new with text copied from the rendered index ------------------------------------------------


@pytest.fixture
def marked(tiers, docs):
    """An index with one entry of each marker: data shadowed (local copy), ghost missing."""
    tiers.seed()
    tiers.put_local("data", "# My data notes\n")
    tiers.put_local(
        "index", tiers.local_text("index").replace("## Procedures\n", "## Procedures\n- ghost: planned\n")
    )
    rendered = index_text(docs.index())
    assert "- data: how arrays are laid out (local copy)\n" in rendered
    assert "- ghost: planned (missing)\n" in rendered
    return tiers


@pytest.mark.parametrize(
    ("old", "new", "line", "marker"),
    [
        (
            "- data: how arrays are laid out (local copy)",
            "- data: arrays and axes",
            "- data: arrays and axes",
            "(local copy)",
        ),
        ("- ghost: planned (missing)", "- ghost: planned for May", "- ghost: planned for May", "(missing)"),
        ("planned (missing)", "planned for May", "- ghost: planned for May", "(missing)"),
        (
            "## Procedures\n- ghost: planned (missing)\n- flatfield",
            "## Procedures\n- flatfield",
            "## Procedures\n- flatfield: correct uneven illumination",
            "(missing)",
        ),
    ],
)
def test_old_copied_from_the_rendering_lands_on_the_files_text_and_says_so(
    marked, docs, old, new, line, marker
):
    result = docs.write_doc("index", old=old, new=new)
    assert result.rendered_markers == (marker,)
    index = marked.local_text("index")
    assert line in index
    assert "(missing)" not in index
    assert "(local copy)" not in index
    assert f"its {marker} marker is added by the loader and is not in index.md" in text(result)


def test_a_marker_left_in_new_on_the_same_line_is_never_written(marked, docs):
    result = docs.write_doc(
        "index",
        old="- data: how arrays are laid out (local copy)",
        new="- data: arrays, axes and units (local copy)",
    )
    assert result.rendered_markers == ("(local copy)",)
    assert "- data: arrays, axes and units\n" in marked.local_text("index")
    rendered = index_text(docs.index())
    assert "- data: arrays, axes and units (local copy)\n" in rendered  # once: the loader's own


def test_a_marker_on_a_new_entry_line_is_left_out_and_prose_keeps_its_words(marked, docs):
    result = docs.write_doc(
        "index",
        old="## References\n",
        new="Some words (missing)\n\n## References\n- lab/later: written next week (missing)\n",
    )
    assert result.rendered_markers == ("(missing)",)
    index = marked.local_text("index")
    assert "- lab/later: written next week\n" in index
    assert "Some words (missing)\n" in index  # not an entry line: the marker shape means nothing there


def test_an_edit_quoting_the_files_own_text_reports_no_markers(marked, docs):
    result = docs.write_doc("index", old="- ghost: planned", new="- ghost: soon")
    assert result.rendered_markers == ()
    assert "Your old/new text quoted the rendered index" not in text(result)


@pytest.mark.parametrize(
    "old",
    [
        "- nobody: here (missing)",  # text that is really absent
        "- ghost: planned (Missing)",  # not the marker's exact text
        "- ghost: planned (missing).",  # not at the end of the line
        "- ghost: planned(missing)",  # not after one space
        "- ghost: planned (gone)",
    ],
)
def test_a_quote_that_is_not_in_the_file_even_without_markers_is_refused(marked, docs, old):
    index = marked.local_text("index")
    with pytest.raises(EditRefused, match="was not found in 'index', so nothing was written"):
        docs.write_doc("index", old=old, new="- ghost: x")
    assert marked.local_text("index") == index


def test_the_unmarked_quote_must_still_match_exactly_once():
    text_ = "- a: x\n- b: y\n- a: x\n"
    with pytest.raises(EditRefused, match="matches 2 times"):
        replace_in_index(text_, "- a: x (missing)", "- a: z")


def test_a_marked_quote_absent_either_way_is_judged_as_quoted_not_as_unmarked():
    # Without its marker the quote would match once whitespace is ignored; with it, it would not:
    # the refusal speaks of the quote as the agent sent it and sends it back to the index.
    with pytest.raises(EditRefused) as refused:
        replace_in_index("- a:  x\n", "- a: x (missing)", "- a: z")
    assert str(refused.value) == (
        "old was not found in 'index', so nothing was written. "
        'read_doc("index") shows the current text; copy old from it exactly.'
    )


def test_markers_are_only_dropped_from_other_docs_than_the_index(tiers, docs):
    tiers.put_local("notes", "# Notes\n\n- ghost: planned\n")
    with pytest.raises(EditRefused, match="was not found in 'notes'"):
        docs.write_doc("notes", old="- ghost: planned (missing)", new="- ghost: soon")


def test_a_last_line_without_a_newline_counts_as_a_line():
    assert line_count("a\nb") == 2
    assert line_count("a\nb\n") == 2
    assert line_count("") == 0


def test_an_old_new_edit_leaving_301_lines_and_no_final_newline_is_refused(tiers, docs):
    text = "".join(f"line {n}\n" for n in range(1, BODY_LINE_CAP + 1))
    tiers.put_local("long", text)
    with pytest.raises(LimitExceeded, match="'long' would be 301 lines; the cap is 300"):
        docs.write_doc("long", old="line 300\n", new="line 300\nline 301")
    assert tiers.local_text("long") == text
    docs.write_doc("long", old="line 300\n", new="line 300, the last")  # 300 lines, no newline: fits
    assert tiers.local_text("long").endswith("line 299\nline 300, the last")


def test_a_replace_keeps_the_trailing_indentation_of_old_and_new(tiers, docs):
    tiers.put_local("code", "# Code\n\n```python\ndef f():\n    return 1\n```\n")
    docs.write_doc("code", old="def f():\n    ", new="def f():\n    x = 1\n    ")
    assert tiers.local_text("code") == "# Code\n\n```python\ndef f():\n    x = 1\n    return 1\n```\n"


def test_a_heading_is_refused_for_exactly_the_characters_unicode_puts_outside_one_line():
    # every code point but the surrogates (refused before, as text no file can hold): the control
    # characters but the tab, and the line and paragraph separators, make a heading more than a line
    wrong = []
    for code_point in range(0x110000):
        if 0xD800 <= code_point <= 0xDFFF:
            continue
        character = chr(code_point)
        breaks_the_line = unicodedata.category(character) in ("Cc", "Zl", "Zp") and character != "\t"
        try:
            check_heading(f"## a{character}b")
            refused = False
        except InvalidArguments:
            refused = True
        if refused != breaks_the_line:
            wrong.append(f"U+{code_point:04X}")
    assert wrong == []


@pytest.mark.parametrize("given", [{"old": "Step one."}, {"new": "Step 1."}])
def test_a_body_with_either_half_of_old_and_new_is_refused_and_nothing_is_written(tiers, docs, given):
    tiers.put_local("mine", "# Mine\n\nStep one.\n")
    before = _local_files(tiers)
    with pytest.raises(InvalidArguments) as refused:
        docs.write_doc("mine", body="# Mine\n\nAll new.\n", **given)
    assert str(refused.value) == "Pass either body, or old and new, not both: body replaces the whole doc."
    assert _local_files(tiers) == before


@pytest.mark.parametrize(
    ("heading", "message"),
    [
        (
            "## Steps \ud800",
            "The heading holds a lone surrogate (U+D800 at character 9), which cannot be saved as UTF-8. "
            "Nothing was written. It usually comes from bytes that were not UTF-8: re-encode the text as "
            "UTF-8 and retry.",
        ),
        (
            "## \x00Steps",
            "The heading holds a NUL character (at character 3), which no markdown doc holds. Nothing was "
            "written. It usually comes from binary data: remove it and retry.",
        ),
    ],
)
def test_a_heading_no_file_can_hold_is_refused_as_such_by_file_doc(tiers, docs, heading, message):
    docs.index()
    before = _local_files(tiers)
    with pytest.raises(InvalidArguments) as refused:
        docs.file_doc("segment-nuclei", heading)
    assert str(refused.value) == message
    assert _local_files(tiers) == before
