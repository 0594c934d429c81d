"""§7 search_docs: literal or RE2, over what the index offers; grep-shaped, capped, never a hang."""

from __future__ import annotations

import dataclasses
import os
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biopb_kernel_docs.core import search as search_module
from biopb_kernel_docs.core.errors import InvalidArguments
from biopb_kernel_docs.core.search import (
    LINES_IN_ALL,
    LINES_PER_DOC,
    MAX_QUERY_LENGTH,
    check_query,
    search_docs,
)
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.text.render import text

from .conftest import build_tiers

INDEX = """\
# Test docs

## References
- data: how arrays are laid out

## Procedures
- flatfield: correct uneven illumination
- lab/: the lab's own notes
- _promoted: a banked doc the index names

ignored: old-method, lab/retired
"""
FLATFIELD = """\
# Flatfield

Intro mentions ValueError once.

## Steps

### Confirm input
raise ValueError("no dark frame")

## Failure modes
A valueerror in lower case.
"""


@pytest.fixture
def store(tiers) -> Store:
    tiers.ship("flatfield", FLATFIELD)
    tiers.ship("old-method", "# Old\n\nValueError in an ignored doc.\n")
    tiers.ship("_banked", "# Banked\n\nValueError in a banked doc.\n")
    tiers.ship("_promoted", "# Promoted\n\nValueError in a promoted doc.\n")
    tiers.ship("lab/notes", "# Notes\n\nValueError under a listed collection.\n")
    tiers.ship("lab/retired", "# Retired\n\nValueError under the collection, but ignored.\n")
    tiers.ship("lab/_draft", "# Draft\n\nValueError under the collection, but banked.\n")
    tiers.ship("unlisted", "# Unlisted\n\nValueError in an unlisted doc.\n")
    tiers.put_local("index", INDEX)
    tiers.put_local("data", "# My data\n\nA local ValueError that shadows the shipped data.\n")
    return tiers.store()


def ids(result) -> list[str]:
    return list(dict.fromkeys(group.id for group in result.groups))


def test_scope_is_listed_docs_collections_and_the_index_never_banked_ignored_or_unlisted(store):
    result = search_docs(store, "ValueError")
    assert ids(result) == ["data", "flatfield", "lab/notes", "_promoted"]
    assert result.docs_searched == 5  # the index, data, flatfield, lab/notes, _promoted
    assert search_docs(store, "laid out").groups[0].id == "index"
    data = next(g for g in result.groups if g.id == "data")
    assert data.lines[0].text == "A local ValueError that shadows the shipped data."  # the local copy


def test_literal_is_case_insensitive_unless_the_query_has_an_upper_case_letter(store):
    lower = search_docs(store, "valueerror")
    upper = search_docs(store, "ValueError")
    assert not lower.case_sensitive
    assert upper.case_sensitive
    flat_lower = [line.line for g in lower.groups if g.id == "flatfield" for line in g.lines]
    flat_upper = [line.line for g in upper.groups if g.id == "flatfield" for line in g.lines]
    assert flat_lower == [3, 8, 11]
    assert flat_upper == [3, 8]


def test_lines_group_by_doc_and_section_with_the_call_that_reads_it(store):
    result = search_docs(store, "valueerror")
    groups = [
        (g.path, g.anchor, [line.line for line in g.lines]) for g in result.groups if g.id == "flatfield"
    ]
    assert groups == [
        ((), None, [3]),  # under the title: the doc itself
        (("Flatfield", "Steps", "Confirm input"), "Confirm input", [8]),
        (("Flatfield", "Failure modes"), "Failure modes", [11]),
    ]
    shown = text(result)
    assert 'flatfield (§ Steps › Confirm input) — read_doc("flatfield#Confirm input")\n  L8: ' in shown
    assert 'flatfield — read_doc("flatfield")\n  L3: Intro mentions ValueError once.' in shown
    group = next(g for g in result.groups if g.anchor == "Confirm input")
    assert group.section_line == 7
    assert group.lines[0].spans == ((6, 16),)


def test_regex_takes_an_re2_pattern_and_smart_case_ignores_escapes(store):
    result = search_docs(store, r"raise \w+error", regex=True)
    assert not result.case_sensitive  # '\w' is an escape, not an upper-case letter
    assert [(g.id, g.lines[0].line) for g in result.groups] == [("flatfield", 8)]
    assert search_docs(store, r"^A \w+ ValueError", regex=True).groups[0].id == "data"


def test_a_regex_match_at_the_first_byte_of_a_doc_is_on_its_line_1(store):
    result = search_docs(store, r"^# Flat\w+", regex=True)
    assert [(g.id, [(line.line, line.text) for line in g.lines]) for g in result.groups] == [
        ("flatfield", [(1, "# Flatfield")])
    ]


def test_a_match_never_spans_lines(store):
    assert search_docs(store, r"once\.\s+##", regex=True).matching_lines == 0


def test_zero_matches_says_zero_and_how_many_docs_were_searched(store):
    result = search_docs(store, "no such words anywhere")
    assert (result.matching_lines, result.docs_searched) == (0, 5)
    assert text(result).startswith("No line matches 'no such words anywhere' (literal, case-insensitive): 0 ")
    assert "5 docs searched" in text(result)


def test_counts_of_one_read_in_the_singular(tiers):
    tiers.put_local("index", "# I\n\n## P\n- doc: one doc\n")
    tiers.put_local("doc", "# Doc\n\n" + "needle\n" * 9)
    result = search_docs(tiers.store(), "needle")
    assert text(result).startswith(
        "9 matching lines in 1 doc for 'needle' (literal, case-insensitive); 2 docs searched"
    )
    assert "\n1 more match in 1 doc: narrow the query" in text(result)
    tiers.put_local("doc", "# Doc\n\nneedle\n")
    assert text(search_docs(tiers.store(), "needle")).startswith("1 matching line in 1 doc for 'needle'")


def test_at_most_8_lines_a_doc_and_40_in_all_then_how_many_more(tiers):
    lines = "".join(f"needle {n}\n" for n in range(12))
    index = "# I\n\n## P\n" + "".join(f"- doc-{n}: doc {n}\n" for n in range(6))
    tiers.put_local("index", index)
    for n in range(6):
        tiers.ship(f"doc-{n}", f"# Doc {n}\n\n{lines}")
    result = search_docs(tiers.store(), "needle")
    assert (LINES_PER_DOC, LINES_IN_ALL) == (8, 40)
    shown = [len(g.lines) for g in result.groups]
    assert shown == [8, 8, 8, 8, 8]  # the fifth doc fills the 40; the sixth shows none
    assert (result.matching_lines, result.matching_docs) == (72, 6)
    assert (result.more_lines, result.more_docs) == (32, 6)
    assert "32 more matches in 6 docs: narrow the query" in text(result)


def test_counting_stops_at_10000_matching_lines_and_says_it_did(tiers):
    tiers.put_local("index", "# I\n\n## P\n- doc-0: many\n- doc-1: one more\n")
    tiers.ship("doc-0", "# Doc 0\n\n" + "needle\n" * 10_000)
    tiers.ship("doc-1", "# Doc 1\n\nneedle\n")
    result = search_docs(tiers.store(), "needle")
    assert search_module.MAX_COUNTED_LINES == 10_000
    assert (result.matching_lines, result.matching_docs, result.counted_all) == (10_000, 1, False)
    assert text(result).startswith("at least 10000 matching lines in 1 doc")
    tiers.ship("doc-0", "# Doc 0\n\n" + "needle\n" * 9_998)
    result = search_docs(tiers.store(), "needle")
    assert (result.matching_lines, result.matching_docs, result.counted_all) == (9_999, 2, True)
    assert text(result).startswith("9999 matching lines in 2 docs")


def test_a_file_that_is_not_utf8_is_skipped_and_counted(tiers, store):
    tiers.put_local("flatfield", b"# Flatfield\n\nValueError \xff\xfe\n")
    result = search_docs(store, "ValueError")
    assert result.skipped == (("flatfield", "not UTF-8"),)
    assert "1 file could not be searched: flatfield (not UTF-8)." in text(result)
    assert "data" in ids(result)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_where_a_doc_should_be_is_skipped_never_waited_on(tiers, store):
    os.mkfifo(tiers.local / "flatfield.md")
    result = search_docs(store, "ValueError")
    assert result.skipped == (("flatfield", "not a regular file"),)


@pytest.mark.parametrize(
    ("query", "regex", "says"),
    [
        ("", False, "is empty"),
        ("   \t ", False, "is empty"),
        ("x" * (MAX_QUERY_LENGTH + 1), False, "the limit is 1,000"),
        ("a\x00b", False, "NUL"),
        ("two\nlines", False, "spans lines"),
        ("(unclosed", True, "not a pattern RE2 accepts"),
        (r"(a)\1", True, "no backreferences"),
        ("x*", True, "matches an empty string"),
        (3, False, "must be a string"),
        ("x", "yes", "true or false"),
    ],
)
def test_bad_input_is_refused_clearly(store, query, regex, says):
    with pytest.raises(InvalidArguments, match=says):
        search_docs(store, query, regex)


def test_a_catastrophic_pattern_returns_promptly(tiers, store):
    tiers.put_local("data", "# Data\n\n" + "a" * 50_000 + "!\n")
    started = time.monotonic()
    result = search_docs(store, r"^(a+)+$", regex=True)  # exponential for a backtracking engine
    assert time.monotonic() - started < 2  # linear in RE2: milliseconds
    assert result.matching_lines == 0


def _counted_reads(monkeypatch) -> list[str]:
    """The ids the store reads from now on, in order."""
    reads: list[str] = []
    original = Store.read

    def counting(self, tier, doc_id):
        reads.append(doc_id)
        return original(self, tier, doc_id)

    monkeypatch.setattr(Store, "read", counting)
    return reads


def test_repeated_searches_do_not_read_unchanged_files_again(tiers, store, monkeypatch):
    search_docs(store, "ValueError")
    reads = _counted_reads(monkeypatch)
    search_docs(store, "valueerror")
    assert reads == ["index"]  # only the index, read fresh as every index reading is
    time.sleep(0.01)
    tiers.put_local("data", "# Data\n\nA changed line with ValueError.\n")
    result = search_docs(store, "ValueError")
    assert reads == ["index", "index", "data"]
    assert next(g for g in result.groups if g.id == "data").lines[0].text == "A changed line with ValueError."


def test_a_long_line_is_cut_around_its_first_match(tiers, store):
    tiers.put_local("data", "# Data\n\n" + "x " * 300 + "ValueError" + " y" * 300 + "\n")
    line = search_docs(store, "ValueError").groups[0].lines[0]
    assert len(line.text) <= search_module.LINE_WIDTH + 2
    assert line.text.startswith("…")
    assert line.text.endswith("…")
    start, end = line.spans[0]
    assert line.text[start:end] == "ValueError"


def test_a_match_ending_at_the_cut_of_a_long_line_is_still_highlighted(tiers, store):
    tiers.put_local("data", "# Data\n\nValueError" + "x" * 220 + "ValueError" + "y" * 300 + "\n")
    line = search_docs(store, "ValueError").groups[0].lines[0]
    assert search_module.LINE_WIDTH == 240
    assert line.text == "ValueError" + "x" * 220 + "ValueError…"
    assert line.spans == ((0, 10), (230, 240))


def test_a_match_near_the_end_of_a_long_line_shows_the_lines_last_240_characters(tiers, store):
    tiers.put_local("data", "# Data\n\n" + "x" * 300 + "ValueError" + "y" * 10 + "\n")
    line = search_docs(store, "ValueError").groups[0].lines[0]
    assert line.text == "…" + "x" * 220 + "ValueError" + "y" * 10  # no shorter than the width allows
    assert line.spans == ((221, 231),)


def test_an_id_both_listed_and_on_the_ignored_line_is_not_searched(tiers, store):
    tiers.put_local(
        "index", INDEX.replace("- flatfield:", "- old-method: listed by hand, and ignored\n- flatfield:")
    )
    result = search_docs(store, "ValueError")
    assert "old-method" not in ids(result)
    assert ids(result) == ["data", "flatfield", "lab/notes", "_promoted"]


def test_the_search_tools_description_states_the_caps_search_applies():
    from biopb_kernel_docs.text.tools import SEARCH_DOCS_DESCRIPTION

    assert f"at most {LINES_PER_DOC} lines a doc and {LINES_IN_ALL} in all" in SEARCH_DOCS_DESCRIPTION


def test_a_pattern_matching_the_last_line_of_a_doc_without_a_final_newline_counts_it_once(tiers, store):
    tiers.put_local("flatfield", FLATFIELD + "Last: ValueError at the end")  # no newline after it
    result = search_docs(store, r"ValueError at \w+", regex=True)
    assert (result.matching_lines, result.matching_docs, result.counted_all) == (1, 1, True)
    assert [(g.id, [line.line for line in g.lines]) for g in result.groups] == [("flatfield", [12])]


def test_a_one_character_query_that_ends_a_line_counts_that_line_once(store):
    result = search_docs(store, ")")  # line 8 of flatfield ends in ')', and no other line has one
    assert result.matching_lines == 1
    assert [(g.id, [line.line for line in g.lines]) for g in result.groups] == [("flatfield", [8])]


def test_the_search_text_sets_each_doc_apart_with_a_blank_line_and_its_sections_together(store):
    shown = text(search_docs(store, "valueerror")).split("\n")
    titles = [n for n, line in enumerate(shown) if "read_doc(" in line and not line.startswith("  ")]
    blanks_before = [shown[n - 1] == "" for n in titles]
    doc_of = [shown[n].split(" ", 1)[0] for n in titles]
    starts_a_doc = [n == 0 or doc_of[n] != doc_of[n - 1] for n in range(len(titles))]
    assert len(set(doc_of)) >= 2
    assert blanks_before == starts_a_doc


def test_a_search_of_a_store_whose_local_tier_does_not_exist_yet_creates_nothing(tiers):
    result = search_docs(tiers.store(), "step one")  # the shipped index lists flatfield
    assert [(g.id, [line.line for line in g.lines]) for g in result.groups] == [("flatfield", [7])]
    assert not tiers.local.exists()


def test_a_case_insensitive_search_finds_the_right_lines_where_lower_casing_changes_a_length(store, tiers):
    # 'İ'.lower() is two characters, so the doc's lines are matched one at a time
    doc = "# Flatfield\n\nİstanbul has none.\n\nA ValueError here.\nİzmir: valueerror\n"
    tiers.put_local("flatfield", doc)
    result = search_docs(store, "valueerror")
    assert [(g.id, [line.line for line in g.lines]) for g in result.groups if g.id == "flatfield"] == [
        ("flatfield", [5, 6])
    ]


def test_a_section_of_a_doc_without_a_title_is_named_by_its_own_heading(tiers):
    # with no title heading the section's path holds the section alone, and it is still shown
    tiers.put_local("index", "# Index\n\n## Lab\n- notes: the lab's notes\n")
    tiers.put_local("notes", "Some words first.\n\n## Steps\n\nRun the ValueError check.\n")
    shown = text(search_docs(tiers.store(), "valueerror check"))
    assert 'notes (§ Steps) — read_doc("notes#Steps")\n  L5: Run the ValueError check.' in shown


def test_a_query_holding_a_lone_surrogate_is_refused_with_how_to_send_it(store):
    with pytest.raises(InvalidArguments, match=r"lone surrogate.*Re-encode it as UTF-8"):
        search_docs(store, "Value\ud800Error")


def test_only_docs_with_lines_left_out_count_as_more_docs(tiers):
    tiers.put_local("index", "# I\n\n## P\n- many: twelve lines\n- few: three lines\n")
    tiers.ship("many", "# Many\n\n" + "".join(f"needle {n}\n" for n in range(12)))
    tiers.ship("few", "# Few\n\n" + "".join(f"needle {n}\n" for n in range(3)))
    result = search_docs(tiers.store(), "needle")
    assert [len(g.lines) for g in result.groups] == [8, 3]
    assert (result.more_lines, result.more_docs) == (4, 1)
    assert "4 more matches in 1 doc: narrow the query" in text(result)
    shown_whole = search_docs(tiers.store(), "needle 1")  # 3 lines in many, 1 in few
    assert (shown_whole.matching_docs, shown_whole.more_lines, shown_whole.more_docs) == (2, 0, 0)


def test_a_line_of_240_characters_is_shown_whole_and_one_of_241_is_cut(tiers, store):
    tiers.put_local("data", "# Data\n\n" + "x" * 230 + "ValueError\n")
    line = search_docs(store, "ValueError").groups[0].lines[0]
    assert (line.text, line.spans) == ("x" * 230 + "ValueError", ((230, 240),))
    tiers.put_local("data", "# Data\n\n" + "x" * 231 + "ValueError\n")
    line = search_docs(store, "ValueError").groups[0].lines[0]
    assert (line.text, line.spans) == ("…" + "x" * 230 + "ValueError", ((231, 241),))


def test_a_match_far_into_a_long_line_is_shown_with_the_80_characters_before_it(tiers, store):
    tiers.put_local("data", "# Data\n\n" + "x" * 500 + "ValueError" + "y" * 500 + "\n")
    line = search_docs(store, "ValueError").groups[0].lines[0]
    assert line.text == "…" + "x" * 80 + "ValueError" + "y" * 150 + "…"
    assert line.spans == ((81, 91),)


# -- any doc, any query: the lines a line-by-line grep finds -----------------------------------------

_TOKENS = ["a", "b", "B", ")", " ", "ab" * 12, "İ" * 6]  # 'İ'.lower() is two characters
_LINES = st.lists(st.lists(st.sampled_from(_TOKENS), max_size=4).map("".join), min_size=1, max_size=8)
_LITERALS = st.lists(st.sampled_from(["a", "b", "B", ")", " ", "ab"]), min_size=1, max_size=3).map("".join)
_PATTERNS = [r"a", r"B", r"b\)", r"\)$", r"^a", r"a+b", r"[ab]\)", r"\bb", r"\b", r"\w+\)"]
_QUERIES = st.one_of(
    _LITERALS.filter(str.strip).map(lambda q: (q, False)),
    st.sampled_from(_PATTERNS).map(lambda q: (q, True)),
)


def grep(text: str, query: str, regex: bool) -> list[tuple[int, str, tuple[tuple[int, int], ...]]]:
    """A line-by-line reference: (number, line, highlighted spans) of each matching line. Smart
    case; RE2's classes and word boundaries are ASCII; at most 20 highlights a line, none empty, and
    none on a line whose length lower-casing changes in a case-insensitive literal search."""
    found = []
    for number, line in enumerate(text.split("\n"), start=1):
        if regex:
            case_sensitive = any(c.isupper() for c in re.sub(r"\\.", "", query))
            flags = re.ASCII | (0 if case_sensitive else re.IGNORECASE)
            spans = [m.span() for m in re.finditer(query, line, flags) if m.end() > m.start()]
            matched = re.search(query, line, flags) is not None
        else:
            case_sensitive = any(c.isupper() for c in query)
            haystack, needle = (line, query) if case_sensitive else (line.lower(), query.lower())
            matched = needle in haystack
            spans = []
            at = haystack.find(needle)
            while at != -1 and len(haystack) == len(line):
                spans.append((at, at + len(needle)))
                at = haystack.find(needle, at + len(needle))
        if matched:
            found.append((number, line, tuple(spans[:20])))
    return found


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(_LINES, st.booleans(), _QUERIES)
def test_search_finds_the_lines_a_line_by_line_grep_finds_in_any_doc(
    tmp_path_factory, lines, final_newline, query
):
    tiers = build_tiers(tmp_path_factory.mktemp("grep"))
    index = "# I\n\n## P\n- doc: d\n"
    doc = "\n".join(lines) + ("\n" if final_newline else "")
    tiers.put_local("index", index)
    tiers.put_local("doc", doc)
    result = search_docs(tiers.store(), *query)
    expected = grep(doc, *query)
    assert result.regex is query[1]
    assert result.matching_lines == len(grep(index, *query)) + len(expected)
    shown = [(line.line, line.text, line.spans) for g in result.groups if g.id == "doc" for line in g.lines]
    assert shown == expected[:8]


@pytest.mark.parametrize("title", ["Doc", "İstanbul doc"])  # the second is searched line by line
def test_counting_stops_at_10000_matching_lines_in_all_whichever_doc_reaches_it(tiers, title):
    tiers.put_local("index", "# I\n\n## P\n- doc-0: many\n- doc-1: as many\n")
    tiers.ship("doc-0", f"# {title} 0\n\n" + "needle\n" * 6_000)
    tiers.ship("doc-1", f"# {title} 1\n\n" + "needle\n" * 6_000)
    result = search_docs(tiers.store(), "needle")
    assert (result.matching_lines, result.matching_docs, result.counted_all) == (10_000, 2, False)
    assert (result.more_lines, result.more_docs) == (9_984, 2)
    tiers.ship("doc-1", f"# {title} 1\n\n" + "needle\n" * 4_001)
    result = search_docs(tiers.store(), "needle")
    assert (result.matching_lines, result.matching_docs, result.counted_all) == (10_000, 2, False)


def test_a_query_of_1000_characters_is_searched(store):
    result = search_docs(store, "x" * 1000)
    assert (result.query, result.matching_lines) == ("x" * 1000, 0)


def test_a_folder_where_a_listed_doc_should_be_is_skipped_as_not_a_regular_file(tiers, store):
    tiers.put_local("index", INDEX.replace("- data:", "- notes: my notes\n- data:"))
    (tiers.local / "notes.md").mkdir()
    result = search_docs(store, "ValueError")
    assert result.skipped == (("notes", "not a regular file"),)
    assert "1 file could not be searched: notes (not a regular file)." in text(result)


def test_a_long_line_highlights_only_the_matches_inside_its_cut(tiers, store):
    tiers.put_local("data", "# Data\n\n" + "ValueError " + "x" * 300 + " ValueError" * 3 + "\n")
    line = search_docs(store, "ValueError").groups[0].lines[0]
    assert line.text == "ValueError " + "x" * 229 + "…"
    assert line.spans == ((0, 10),)
    tiers.put_local("data", "# Data\n\n" + "ValueError " + "x" * 300 + " ValueError " + "y" * 300 + "\n")
    line = search_docs(store, "ValueError").groups[0].lines[0]
    assert line.spans == ((0, 10),)


def test_a_refused_pattern_writes_nothing_to_stderr(store, capfd):
    with pytest.raises(InvalidArguments, match="not a pattern RE2 accepts"):
        search_docs(store, "(unclosed", regex=True)
    assert capfd.readouterr().err == ""


def test_a_checked_query_is_a_literal_by_default_and_an_immutable_value():
    query = check_query("a.b")
    assert (query.regex, query.case_sensitive, query.needle) == (False, False, "a.b")
    assert list(query.find("x\na.b\naxb\n")) == [2]
    with pytest.raises(dataclasses.FrozenInstanceError):
        query.needle = "other"  # type: ignore[misc]
    assert hash(query) == hash(check_query("a.b"))


def test_the_search_cache_keeps_the_4096_files_read_last(tiers, monkeypatch):
    tiers.put_local("index", "# I\n\n## P\n- lab/: many\n")
    for n in range(4096):
        tiers.ship(f"lab/d{n:04}", f"# D{n}\n\nline {n}\n")
    store = tiers.store()
    search_docs(store, "line")  # all 4096 read, and kept
    reads = _counted_reads(monkeypatch)

    def reads_of(search_once) -> list[str]:
        reads.clear()
        search_once()
        return list(reads)

    def search():
        search_docs(store, "line")

    assert reads_of(search) == ["index"]
    time.sleep(0.01)
    tiers.ship("lab/d0000", "# D0\n\nline 0, changed\n")
    tiers.ship("lab/d0005", "# D5\n\nline 5, changed\n")
    assert reads_of(search) == ["index", "lab/d0000", "lab/d0005"]
    assert reads_of(search) == ["index"]  # the versions they replaced are gone, not crowding the rest
    tiers.ship("lab/d4096", "# D4096\n\nline 4096\n")
    assert reads_of(search) == ["index", "lab/d4096"]  # the 4097th pushes out the one read longest ago
    tiers.put_local("index", "# I\n\n## P\n- lab/d0000: read again lately\n- lab/d0001: read long ago\n")
    assert reads_of(search) == ["index", "lab/d0001"]
