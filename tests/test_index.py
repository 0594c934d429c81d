from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biopb_kernel_docs.core.errors import EditRefused, LimitExceeded
from biopb_kernel_docs.core.index import (
    check_entry_cap,
    file_entry,
    ignore_id,
    is_entry_line,
    parse_index,
    section_entries,
)
from biopb_kernel_docs.core.phrases import render
from biopb_kernel_docs.text.render import (
    NEW_TAIL_INSTRUCTION,
    NEW_TAIL_TITLE,
    STALE_TAIL_INSTRUCTION,
    STALE_TAIL_TITLE,
    index_text,
)


def _rendered(tiers, version=None):
    return index_text(tiers.docs(version).index())


def _tail(rendered, title):
    after = rendered.split(f"\n{title}\n", 1)
    assert len(after) == 2, f"no {title!r} tail in:\n{rendered}"
    return after[1].split("\n\n## ", 1)[0].strip("\n").split("\n")


# -- parsing -------------------------------------------------------------------------------------


def test_entry_is_a_list_line_whose_first_token_is_an_id_and_a_colon():
    parsed = parse_index(
        "- flatfield: fix shading\n"
        "  * my-lab/nuclei: the lab's protocol\n"
        "+ bare:\n"
        "- Not An Id: prose\n"
        "- no-colon here\n"
        "- http://example.org\n"
        "plain: not a list line\n"
    )
    assert [(e.doc_id, e.hook) for e in parsed.entries] == [
        ("flatfield", "fix shading"),
        ("my-lab/nuclei", "the lab's protocol"),
        ("bare", ""),
    ]


def test_collection_line_is_kept_and_counted_as_one_entry():
    parsed = parse_index("- design/: the engine's design docs\n")
    assert [e.doc_id for e in parsed.entries] == ["design/"]


def test_ignored_line_must_start_with_exactly_ignored():
    parsed = parse_index(
        "ignored: a, b-c,  d\nSome docs were ignored: x, y\n  ignored: z\n- note: ignored: q\nIgnored: w\n"
    )
    assert parsed.ignored == {"a", "b-c", "d"}
    assert parsed.ignored_line_numbers == (0,)


def test_lines_inside_code_fences_are_neither_entries_nor_ignores():
    parsed = parse_index("```\n- example: not an entry\nignored: nope\n```\n- real: yes\n")
    assert [e.doc_id for e in parsed.entries] == ["real"]
    assert parsed.ignored == frozenset()


def test_section_entries_stop_at_the_next_heading_of_the_same_level():
    parsed = parse_index("## Procedures\n- a: x\n### Sub\n- b: y\n## Other\n- c: z\n")
    assert [e.doc_id for e in section_entries(parsed, "## Procedures")] == ["a", "b"]
    assert section_entries(parsed, "## Missing") == []


# -- rendering -----------------------------------------------------------------------------------


def test_render_keeps_the_file_verbatim_apart_from_markers_and_tails(tiers):
    tiers.seed()
    rendered = _rendered(tiers)
    assert rendered.startswith(tiers.local_text("index").rstrip("\n"))


def test_entry_without_a_file_is_marked_missing(tiers):
    tiers.put_local("index", "- ghost: nowhere\n- data: here\n")
    rendered = _rendered(tiers)
    assert "- ghost: nowhere (missing)\n" in rendered
    assert "- data: here\n" in rendered


def test_entry_shadowing_a_shipped_doc_is_marked_local_copy(tiers):
    tiers.put_local("index", "- data: here\n- mine: local only\n")
    tiers.put_local("data", "# My data notes\n")
    tiers.put_local("mine", "# Mine\n")
    rendered = _rendered(tiers)
    assert "- data: here (local copy)\n" in rendered
    assert "- mine: local only\n" in rendered


def test_collection_entries_get_no_marker(tiers):
    tiers.put_local("index", "- design/: someday\n")
    assert "- design/: someday\n" in _rendered(tiers)


def test_new_tail_lists_unfiled_unignored_shipped_docs_with_their_descriptions(tiers):
    rendered = _rendered(tiers)
    lines = _tail(rendered, NEW_TAIL_TITLE)
    assert lines[0] == NEW_TAIL_INSTRUCTION
    assert lines[1:] == ["- segment-nuclei: find the nuclei"]


def test_ignored_and_banked_docs_stay_out_of_the_new_tail(tiers):
    rendered = _rendered(tiers)
    assert "old-method" not in rendered.split(NEW_TAIL_TITLE)[1]
    assert "_banked" not in rendered


def test_hand_written_entry_promotes_a_banked_doc(tiers):
    tiers.put_local("index", "- _banked: my own hook\n")
    rendered = _rendered(tiers)
    assert "- _banked: my own hook\n" in rendered
    assert "(missing)" not in rendered


def test_no_tail_when_nothing_is_new(tiers):
    tiers.put_local(
        "index", "- data: x\n- flatfield: y\n- stitch-tiles: z\n- segment-nuclei: n\nignored: old-method\n"
    )
    rendered = _rendered(tiers)
    assert NEW_TAIL_TITLE not in rendered
    assert STALE_TAIL_TITLE not in rendered


def test_new_tail_is_never_truncated(tiers):
    for n in range(150):
        tiers.ship(f"extra-{n:03d}", f"# Extra {n}\n\nExtra doc {n}.\n")
    lines = _tail(_rendered(tiers), NEW_TAIL_TITLE)
    assert len(lines) == 1 + 150 + 1  # the instruction, the extras, segment-nuclei
    assert "- extra-149: Extra doc 149." in lines


def test_stale_tail_flags_shadowed_docs_the_release_changed(tiers):
    tiers.put_local("flatfield", "# My flatfield\n")
    _rendered(tiers, version="1.0")  # first run: the manifest records 1.0's hashes
    tiers.ship("flatfield", "---\ndescription: fix shading, now with darks\n---\n# Flatfield\n\nStep two.\n")
    tiers.ship("data", "# Data\n\nChanged, but nobody shadows it.\n")
    rendered = _rendered(tiers, version="1.1")
    lines = _tail(rendered, STALE_TAIL_TITLE)
    assert lines[0] == render(STALE_TAIL_INSTRUCTION)
    assert lines[1:] == ['- flatfield: fix shading, now with darks — read_doc("flatfield@diff")']


def test_stale_tail_clears_at_the_next_version_bump(tiers):
    tiers.put_local("flatfield", "# My flatfield\n")
    _rendered(tiers, version="1.0")
    tiers.ship("flatfield", "# Flatfield\n\nChanged.\n")
    assert STALE_TAIL_TITLE in _rendered(tiers, version="1.1")
    assert STALE_TAIL_TITLE not in _rendered(tiers, version="1.2")


def test_first_run_reports_nothing_stale(tiers):
    tiers.put_local("flatfield", "# My flatfield\n")
    assert STALE_TAIL_TITLE not in _rendered(tiers, version="9.9")


# -- filing and the cap --------------------------------------------------------------------------


def test_filing_adds_an_unfiled_heading_before_a_closing_ignored_line():
    text = "# I\n\n## A\n- a: x\n\nignored: z\n"
    assert (
        file_entry(parse_index(text), "new", "the hook")
        == "# I\n\n## A\n- a: x\n\n## Unfiled\n- new: the hook\n\nignored: z\n"
    )


def test_filing_appends_to_an_existing_unfiled_section_wherever_it_is():
    text = "# I\n\n## Unfiled\n- a: x\n\n## B\n- b: y\n"
    assert (
        file_entry(parse_index(text), "new", "h") == "# I\n\n## Unfiled\n- a: x\n- new: h\n\n## B\n- b: y\n"
    )


def test_filing_puts_the_hook_on_one_line():
    assert file_entry(parse_index(""), "new", "two\nlines  here") == "## Unfiled\n- new: two lines here\n"


def test_filing_under_a_named_heading_lands_at_the_end_of_that_section():
    text = "# I\n\n## Procedures\n- a: x\n\n## References\n- r: y\n"
    assert file_entry(parse_index(text), "new", "h", "## Procedures") == (
        "# I\n\n## Procedures\n- a: x\n- new: h\n\n## References\n- r: y\n"
    )


def test_filing_below_an_unclosed_code_fence_is_refused_and_says_how_to_fix_it():
    text = "# I\n\n## A\n- a: x\n\n```\nsome code, never closed\n"
    with pytest.raises(EditRefused) as caught:
        file_entry(parse_index(text), "new", "h")
    assert "opened at line 6" in str(caught.value)
    assert 'write_doc("index", old=..., new=...)' in str(caught.value)


def test_an_unclosed_fence_swallows_entries_below_it_as_the_loader_counts_them():
    parsed = parse_index("- a: x\n```\n- b: y\n")
    assert [e.doc_id for e in parsed.entries] == ["a"]
    assert parsed.unclosed_fence_line == 1


def test_ignoring_adds_to_the_existing_ignored_line_or_adds_one_last():
    assert ignore_id(parse_index("# I\nignored: a\n"), "b") == "# I\nignored: a, b\n"
    assert ignore_id(parse_index("# I\nignored:\n"), "b") == "# I\nignored: b\n"
    assert ignore_id(parse_index("# I\n- a: x\n"), "b") == "# I\n- a: x\n\nignored: b\n"


def test_entries_know_the_heading_they_sit_under():
    parsed = parse_index("# I\n- top: t\n## Procedures\n- a: x\n### Sub\n- b: y\n")
    assert [(e.doc_id, e.heading) for e in parsed.entries] == [
        ("top", "# I"),
        ("a", "## Procedures"),
        ("b", "### Sub"),
    ]


def test_cap_allows_exactly_200_entries():
    check_entry_cap(199, 200)


def test_cap_refuses_entry_201_and_says_what_to_do():
    with pytest.raises(LimitExceeded) as caught:
        check_entry_cap(200, 201)
    message = str(caught.value)
    assert "the cap is 200" in message
    assert "ignored:" in message
    assert "Nothing was written" in message


def test_cap_lets_an_index_already_over_it_shrink():
    check_entry_cap(220, 210)
    with pytest.raises(LimitExceeded):
        check_entry_cap(220, 221)


def test_ignored_ids_may_be_separated_by_spaces_commas_or_both():
    parsed = parse_index("# I\n\nignored: alpha beta,gamma ,  delta\tepsilon\n")
    assert parsed.ignored_in_order == ("alpha", "beta", "gamma", "delta", "epsilon")


def _over_cap_index(entries: int) -> str:
    return "# I\n\n## Lab\n" + "".join(f"- lab/d{n:03d}: doc {n}\n" for n in range(entries))


def test_an_index_over_the_cap_can_shrink_one_entry_at_a_time_and_take_a_same_count_edit(tiers):
    check_entry_cap(205, 204)
    check_entry_cap(205, 205)
    tiers.put_local("index", _over_cap_index(205))  # grown past the cap by hand, say
    docs = tiers.docs()
    docs.write_doc("index", old="- lab/d204: doc 204\n", new="")
    assert len(parse_index(tiers.local_text("index")).entries) == 204
    docs.write_doc("index", old="- lab/d000: doc 0\n", new="- lab/d000: the first doc, reworded\n")
    assert "- lab/d000: the first doc, reworded\n" in tiers.local_text("index")
    with pytest.raises(LimitExceeded, match="the cap is 200"):
        docs.write_doc("index", old="- lab/d000:", new="- lab/extra: one more\n- lab/d000:")


def test_ignored_line_keeps_only_the_tokens_shaped_like_ids():
    parsed = parse_index("# I\n\nignored: old-method, (retired), ~scratch, lab/old, *\n")
    assert parsed.ignored_in_order == ("old-method", "lab/old")


def test_filing_under_an_existing_heading_with_an_unclosed_fence_in_its_section_is_refused():
    text = "# I\n\n## Procedures\n- a: x\n\n```\nsome code, never closed\n"
    with pytest.raises(EditRefused) as caught:
        file_entry(parse_index(text), "new", "h", "## Procedures")
    assert "opened at line 6" in str(caught.value)
    assert 'write_doc("index", old=..., new=...)' in str(caught.value)


def test_a_parsed_index_is_a_frozen_value_equal_to_and_hashed_like_its_twin():
    text = "# I\n\n## Procedures\n- flatfield: fix shading\n\nignored: old-method\n"
    parsed = parse_index(text)
    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.entries = ()  # type: ignore[misc]
    assert [e.doc_id for e in parsed.entries] == ["flatfield"]
    twin = parse_index(text)
    assert parsed == twin
    assert {parsed: "cached"}[twin] == "cached"


def test_a_listed_collection_files_the_docs_under_it_and_only_those(tiers):
    tiers.put_local(
        "index",
        "- data: x\n- flatfield: y\n- stitch-tiles: z\n- design/: the design\n\nignored: old-method\n",
    )
    tiers.ship("design/engine", "---\ndescription: how the engine runs\n---\n# Engine\n")
    tiers.ship("design-notes", "---\ndescription: notes beside the design\n---\n# Notes\n")
    tiers.ship("lab/nuclei", "---\ndescription: the lab's nuclei protocol\n---\n# Nuclei\n")
    lines = _tail(_rendered(tiers), NEW_TAIL_TITLE)
    assert lines[1:] == [
        "- design-notes: notes beside the design",
        "- lab/nuclei: the lab's nuclei protocol",
        "- segment-nuclei: find the nuclei",
    ]


def test_a_prose_line_beginning_with_i_is_not_an_ignored_line():
    text = "# I\n\nin this lab we keep segment-nuclei close\n- data: x\n\nignored: old-method\n"
    parsed = parse_index(text)
    assert parsed.ignored_in_order == ("old-method",)
    assert parsed.ignored_line_numbers == (5,)
    assert ignore_id(parsed, "flatfield") == (
        "# I\n\nin this lab we keep segment-nuclei close\n- data: x\n\nignored: old-method, flatfield\n"
    )


index_lines = st.builds(
    "".join,
    st.tuples(
        st.sampled_from(["", " ", "  ", "\t"]),
        st.sampled_from(["-", "*", "+", "1.", "#", "", "ignored"]),
        st.sampled_from([" ", "\t", ""]),
        st.sampled_from(["flatfield", "my-lab/nuclei", "design/", "Not An Id", "http", "x"]),
        st.sampled_from([":", ""]),
        st.sampled_from(["", " fix shading", " (missing)", "://example.org", "more"]),
        st.sampled_from(["", " ", "\t"]),
    ),
)


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(index_lines)
def test_a_line_has_the_entry_shape_exactly_when_the_loader_files_it_as_an_entry(line):
    assert is_entry_line(line) == (len(parse_index(line).entries) == 1)


def test_entry_shape_of_list_lines_that_are_and_are_not_entries():
    assert is_entry_line("- flatfield: fix shading")
    assert is_entry_line("  * my-lab/nuclei: the lab's protocol  ")
    assert is_entry_line("+ bare:")
    assert not is_entry_line("- Not An Id: prose")
    assert not is_entry_line("- no-colon here")
    assert not is_entry_line("plain: not a list line")


def test_filing_keeps_an_ignored_line_last_even_right_under_the_last_entry():
    text = "# I\n\n## A\n- a: x\nignored: z\n"
    assert file_entry(parse_index(text), "new", "h") == (
        "# I\n\n## A\n- a: x\n\n## Unfiled\n- new: h\n\nignored: z\n"
    )
    text = "# I\n\n## Unfiled\n- a: x\nignored: z\n"
    assert file_entry(parse_index(text), "new", "h") == "# I\n\n## Unfiled\n- a: x\n- new: h\nignored: z\n"
