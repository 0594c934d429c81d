"""§7 section reads: outlines, sections by heading, path and position, and the refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from biopb_kernel_docs.core.errors import DocNotFound, InvalidDocId, SectionNotFound
from biopb_kernel_docs.core.frontmatter import links_of
from biopb_kernel_docs.core.ids import parse_request
from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.reads import doc_view, outline_view, section_view
from biopb_kernel_docs.core.sections import heading_key, line_starts, section_at
from biopb_kernel_docs.core.store import Store, Tier
from biopb_kernel_docs.core.values import DocView, OutlineView, SectionView
from biopb_kernel_docs.text.render import text

SEED = Path(__file__).resolve().parents[1] / "seed"
PROCEDURE = """\
---
description: a procedure with sections
---
# Nuclei

Intro line.

## Steps

### Confirm input
Show the shape.

### Segment
Threshold it.

```python
# Not a heading: inside code
x = 1
```

## Example
First example.

## Example
Second example.

## Checkpoints:
The **gate**.
"""


@pytest.fixture
def procedure(tiers) -> Docs:
    tiers.ship("nuclei", PROCEDURE)
    return tiers.docs()


def test_the_outline_lists_every_heading_outside_code_with_its_lines_and_anchor(procedure):
    outline = procedure.read_doc("nuclei#")
    assert isinstance(outline, OutlineView)
    assert [(e.level, e.title, e.anchor, e.line, e.end) for e in outline.entries] == [
        (1, "Nuclei", "Nuclei", 4, 28),
        (2, "Steps", "Steps", 8, 20),
        (3, "Confirm input", "Confirm input", 10, 12),
        (3, "Segment", "Segment", 13, 20),
        (2, "Example", "Example[1]", 21, 23),
        (2, "Example", "Example[2]", 24, 26),
        (2, "Checkpoints:", "Checkpoints:", 27, 28),
    ]
    assert outline.entries[3].path == ("Nuclei", "Steps", "Segment")
    assert outline.lines == 28
    shown = text(outline)
    assert shown.startswith("[nuclei# · outline · shipped")
    assert '  - Segment (8 lines, 13–20): read_doc("nuclei#Segment")' in shown
    assert '"nuclei#Example[2]"' in shown


def test_every_anchor_of_every_seed_doc_reads_exactly_its_section(tmp_path):
    docs = Docs(Store(SEED, tmp_path / "local", "1"))
    checked = 0
    for path in SEED.glob("*.md"):
        if path.stem == "index":
            continue
        outline = docs.read_doc(f"{path.stem}#")
        for position, entry in enumerate(outline.entries, start=1):
            section = docs.read_doc(f"{path.stem}#{entry.anchor}")
            assert (section.position, section.section) == (position, entry)
            checked += 1
    assert checked > 100


def test_a_section_runs_from_its_heading_to_the_next_heading_of_its_level_or_higher(procedure):
    section = procedure.read_doc("nuclei#Steps")
    assert isinstance(section, SectionView)
    assert section.text.startswith("## Steps\n\n### Confirm input\n")
    assert section.text.endswith("x = 1\n```\n\n")  # sub-sections and code included, not ## Example
    assert (section.position, section.of) == (2, 7)
    shown = text(section)
    assert shown.split("\n")[0] == (
        f"[nuclei#Steps · shipped · updated {section.updated} · § 2 of 7: Nuclei › Steps · lines 8–20 "
        'of 28 · outline: read_doc("nuclei#")]'
    )


@pytest.mark.parametrize(
    ("selector", "title", "line"),
    [
        ("checkpoints", "Checkpoints:", 27),  # case and trailing punctuation ignored
        ("  CHECKPOINTS!  ", "Checkpoints:", 27),
        ("Steps/Confirm input", "Confirm input", 10),  # a heading path
        ("nuclei/segment", "Segment", 13),  # names in the path may be skipped
        ("Example[2]", "Example", 24),  # a position among repeated headings
        ("*Segment*", "Segment", 13),  # emphasis ignored
        ('"Segment"', "Segment", 13),  # quotes around the name ignored
    ],
)
def test_sections_resolve_by_text_path_and_position(procedure, selector, title, line):
    section = procedure.read_doc(f"nuclei#{selector}")
    assert (section.section.title, section.section.line) == (title, line)


def test_a_repeated_heading_reads_the_first_and_names_the_others(procedure):
    section = procedure.read_doc("nuclei#Example")
    assert section.text == "## Example\nFirst example.\n\n"
    assert section.also == ("Example[2]",)
    assert 'also matched: read_doc("nuclei#Example[2]")' in text(section)


def test_an_unknown_section_is_refused_with_the_nearest_headings_and_the_outline_call(procedure):
    with pytest.raises(SectionNotFound) as caught:
        procedure.read_doc("nuclei#Checkpoint")
    message = str(caught.value)
    assert 'read_doc("nuclei#Checkpoints:")' in message
    assert 'read_doc("nuclei#") lists all 7 sections' in message
    assert isinstance(caught.value, DocNotFound)  # status 404 on every surface
    with pytest.raises(SectionNotFound, match=r"has 2 sections named 'Example', so there is no \[3\]"):
        procedure.read_doc("nuclei#Example[3]")


def test_a_position_past_a_single_heading_is_refused_saying_there_is_one_section_of_that_name(procedure):
    with pytest.raises(SectionNotFound) as caught:
        procedure.read_doc("nuclei#Segment[2]")
    assert str(caught.value) == (
        "'nuclei' has 1 section named 'Segment', so there is no [2]. "
        'read_doc("nuclei#") lists every section with the call that reads it.'
    )


@pytest.mark.parametrize(
    ("selector", "nearest"),
    [
        ("Checkpoint", 'read_doc("nuclei#Checkpoints:")'),  # near one heading: that one only
        ("seg", 'read_doc("nuclei#Segment"), read_doc("nuclei#Steps")'),  # in one title, close to another
        ("zzz", 'read_doc("nuclei#Nuclei")'),  # near nothing: the top-level headings
        ("Steps/Segmnt", 'read_doc("nuclei#Segment")'),  # a path: near its last heading
    ],
)
def test_an_unknown_section_names_only_the_headings_near_it_or_else_the_top_level_ones(
    procedure, selector, nearest
):
    with pytest.raises(SectionNotFound) as caught:
        procedure.read_doc(f"nuclei#{selector}")
    assert f"No section {selector!r} in 'nuclei'. Nearest: {nearest}. read_doc(" in str(caught.value)


def test_a_view_built_without_the_docs_facts_works_them_out_from_its_bytes(tiers, procedure):
    doc = tiers.store().read(Tier.SHIPPED, "nuclei")
    assert outline_view(doc, False) == procedure.read_doc("nuclei#")
    assert doc_view(doc, False) == procedure.read_doc("nuclei")
    assert section_view(doc, False, "Segment") == procedure.read_doc("nuclei#Segment")


def test_a_doc_without_headings_outlines_as_none_and_a_section_of_it_is_refused(tiers):
    tiers.ship("plain", "Just prose, no headings.\n")
    docs = tiers.docs()
    assert docs.read_doc("plain#").entries == ()
    assert "has no headings" in text(docs.read_doc("plain#"))
    with pytest.raises(SectionNotFound, match=r"no headings"):
        docs.read_doc("plain#Intro")


def test_a_hash_without_a_space_or_a_heading_without_text_is_not_in_the_outline(tiers):
    # '#' in a line's first four characters is only a candidate: '#tag' and 'A#B' are prose, and
    # '## ' (no text) names nothing a read could ask for.
    tiers.ship("tags", "# Notes\n\n#hashtag, not a heading\nA#B\n## \n\n## Steps\ntext\n")
    outline = tiers.docs().read_doc("tags#")
    assert [(e.level, e.title, e.line, e.end) for e in outline.entries] == [
        (1, "Notes", 1, 8),
        (2, "Steps", 7, 8),
    ]


def test_a_heading_repeated_under_two_parents_is_anchored_and_read_by_its_parent(tiers):
    tiers.ship(
        "imaging",
        "# Imaging\n\n## Before staining\n### Check\nFocus.\n\n## After staining\n### Check\nExposure.\n",
    )
    docs = tiers.docs()
    assert [(e.anchor, e.line, e.end) for e in docs.read_doc("imaging#").entries] == [
        ("Imaging", 1, 9),
        ("Before staining", 3, 6),
        ("Before staining/Check", 4, 6),
        ("After staining", 7, 9),
        ("After staining/Check", 8, 9),
    ]
    for selector in ("After staining/Check", "Imaging/After staining/Check", "after staining / CHECK"):
        section = docs.read_doc(f"imaging#{selector}")
        assert (section.text, section.also) == ("### Check\nExposure.\n", ())
    assert docs.read_doc("imaging#Before staining/Check").text == "### Check\nFocus.\n\n"
    with pytest.raises(SectionNotFound, match=r"No section 'Before staining/After staining/Check'"):
        docs.read_doc("imaging#Before staining/After staining/Check")  # siblings, not nested


def test_a_heading_ending_in_a_bracketed_number_gets_an_anchor_that_reads_it(tiers):
    # "Step [2]" as a selector means the second heading named "Step"; the anchor must still land.
    tiers.ship("arrays", "# Arrays\n\n## Step [2]\nSecond axis.\n\n## Notes\nEnd.\n")
    docs = tiers.docs()
    assert [e.anchor for e in docs.read_doc("arrays#").entries] == ["Arrays", "Step [2][1]", "Notes"]
    assert docs.read_doc("arrays#Step [2][1]").text == "## Step [2]\nSecond axis.\n\n"
    with pytest.raises(SectionNotFound) as caught:
        docs.read_doc("arrays#Step [2]")
    assert str(caught.value) == (
        "No section 'Step [2]' in 'arrays'. Nearest: read_doc(\"arrays#Step [2][1]\"). "
        'read_doc("arrays#") lists all 3 sections with the call that reads each.'
    )


def test_a_heading_with_no_letters_is_read_by_its_marks(tiers):
    tiers.ship("breaks", "# Notes\nIntro.\n## ***\nA break.\n# ---\nEnd.\n")
    docs = tiers.docs()
    outline = docs.read_doc("breaks#")
    assert [(e.level, e.title, e.anchor, e.line, e.end) for e in outline.entries] == [
        (1, "Notes", "Notes", 1, 4),
        (2, "***", "***", 3, 4),
        (1, "---", "---", 5, 6),
    ]
    assert docs.read_doc("breaks#***").text == "## ***\nA break.\n"
    assert docs.read_doc("breaks#---").text == "# ---\nEnd.\n"


def test_a_selector_with_no_letters_is_refused_as_an_unknown_section(procedure):
    for selector in ("[2]", "::", "Steps//Segment"):
        with pytest.raises(SectionNotFound, match=r'read_doc\("nuclei#"\) lists all 7 sections'):
            procedure.read_doc(f"nuclei#{selector}")


def test_an_unknown_section_names_at_most_three_headings(tiers):
    tiers.ship("flat", "# One\n# Two\n# Three\n# Four\n# Five\n")
    tiers.ship("steps", "# Steps\n## Step 1\n## Step 2\n## Step 3\n## Step 4\n## Step 5\n")
    docs = tiers.docs()
    with pytest.raises(SectionNotFound) as caught:
        docs.read_doc("flat#zzz")  # near nothing: the first three top-level headings
    assert str(caught.value) == (
        "No section 'zzz' in 'flat'. Nearest: read_doc(\"flat#One\"), read_doc(\"flat#Two\"), "
        'read_doc("flat#Three"). read_doc("flat#") lists all 5 sections with the call that reads each.'
    )
    with pytest.raises(SectionNotFound) as caught:
        docs.read_doc("steps#Step")  # near all six: the three nearest
    assert str(caught.value) == (
        "No section 'Step' in 'steps'. Nearest: read_doc(\"steps#Steps\"), read_doc(\"steps#Step 5\"), "
        'read_doc("steps#Step 4"). read_doc("steps#") lists all 6 sections with the call that reads each.'
    )


def test_a_doc_without_frontmatter_or_a_final_newline_reads_its_first_and_last_sections_whole(tiers):
    tiers.ship("stitch", "# Stitch\n\n## Overlap\nTen percent.")
    docs = tiers.docs()
    assert docs.read_doc("stitch#Stitch").text == "# Stitch\n\n## Overlap\nTen percent."
    assert docs.read_doc("stitch#Overlap").text == "## Overlap\nTen percent."


def test_line_starts_are_the_offsets_after_each_newline():
    assert line_starts("") == [0]
    assert line_starts("# A\n\nb") == [0, 4, 5]
    assert line_starts("a\n") == [0, 2]


def test_each_line_belongs_to_the_innermost_section_holding_it(procedure):
    outline = procedure.read_doc("nuclei#").entries
    titles = [getattr(section_at(outline, line), "title", None) for line in range(1, 29)]
    assert titles == (
        [None] * 3  # the frontmatter, before the first heading
        + ["Nuclei"] * 4
        + ["Steps"] * 2
        + ["Confirm input"] * 3
        + ["Segment"] * 8
        + ["Example"] * 6
        + ["Checkpoints:"] * 2
    )
    assert section_at(outline, 24).line == 24  # the second "Example" from its own heading on


def test_a_missing_doc_with_a_section_is_refused_as_missing(procedure):
    with pytest.raises(DocNotFound, match="No doc 'nucleii'"):
        procedure.read_doc("nucleii#Steps")


def test_the_whole_doc_header_names_how_to_read_one_section(procedure):
    view = procedure.read_doc("nuclei")
    assert isinstance(view, DocView)
    assert view.sections == 7
    assert (
        text(view)
        .split("\n")[0]
        .endswith('7 sections: read_doc("nuclei#<heading>") reads one, read_doc("nuclei#") lists them]')
    )


def test_a_section_cannot_take_a_view_nor_name_the_index_or_a_collection(procedure):
    for requested in ("nuclei@diff#Steps", "index#References", "lab/#x"):
        with pytest.raises(InvalidDocId):
            procedure.read_doc(requested)


def test_a_section_with_a_line_break_or_nul_or_too_long_is_refused(procedure):
    for requested in ("nuclei#Steps\nmore", "nuclei#St\x00eps", "nuclei#" + "x" * 301):
        with pytest.raises(InvalidDocId, match=r'read_doc\("nuclei#"\)'):
            procedure.read_doc(requested)


def test_write_doc_refuses_a_section_id_and_says_to_replace_the_text_instead(procedure):
    with pytest.raises(InvalidDocId) as caught:
        procedure.write_doc("nuclei#Steps", body="# New\n")
    message = str(caught.value)
    assert "'#' names a section" in message
    assert 'write_doc("nuclei", old=..., new=...)' in message


def test_the_parser_splits_id_view_and_section():
    assert parse_request("flatfield") == parse_request("flatfield")
    request = parse_request("my-lab/x#Steps/Confirm input")
    assert (request.doc_id, request.view, request.section) == ("my-lab/x", None, "Steps/Confirm input")
    assert parse_request("flatfield#").section == ""
    assert parse_request("flatfield@diff").view == "diff"
    with pytest.raises(InvalidDocId, match="@diff"):
        parse_request("flatfield@nope")


def test_heading_keys_ignore_case_emphasis_spacing_and_end_punctuation():
    assert heading_key("  **Confirm   input:**  ") == "confirm input"
    assert heading_key("`viewer.tensor()`") == "viewer.tensor"
    assert heading_key("3. Run it") == "3. run it"
    assert heading_key("(Optional) Smooth") == "optional) smooth"
    assert (heading_key(":::"), heading_key(" * *"), heading_key("")) == (":::", "* *", "")  # marks alone


def test_a_section_read_is_a_reading_that_guards_a_later_body_write(tiers, procedure):
    procedure.read_doc("nuclei#Steps")
    tiers.put_local("nuclei", PROCEDURE.replace("First example.", "Edited elsewhere."))
    from biopb_kernel_docs.core.errors import StaleWrite

    with pytest.raises(StaleWrite):
        procedure.write_doc("nuclei", body="# Nuclei\n\nMine.\n")


def test_links_may_name_a_section_and_code_links_are_not_links():
    body = "See [[flatfield#Steps/Confirm input]] and [[data]].\n\n```\n[[kernel#x]]\n```\n"
    assert links_of(body) == ("flatfield#Steps/Confirm input", "data")


def test_a_changed_file_is_read_fresh_whatever_its_mtime(tiers, procedure):
    import os

    path = tiers.ship("fresh", "# A\n\n## One\nold\n")
    before = procedure.read_doc("fresh#One")
    stat = os.stat(path)
    path.write_text("# A\n\n## One\nnew\n", encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same mtime
    after = procedure.read_doc("fresh#One")
    assert (before.text, after.text) == ("## One\nold\n", "## One\nnew\n")
    assert before.sha256 != after.sha256
