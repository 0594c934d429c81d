from __future__ import annotations

import pytest

from biopb_kernel_docs.core.errors import InvalidArguments, InvalidDocId
from biopb_kernel_docs.core.ids import (
    ID_RULES,
    check_doc_id,
    id_from_relative_path,
    is_banked,
    is_collection_id,
    split_view,
    version_of,
)


@pytest.mark.parametrize(
    "doc_id", ["flatfield", "stitch-tiles", "my-lab/nuclei-protocol", "_banked", "v1.2_notes", "a/b/c", "x/"]
)
def test_valid_ids_pass_unchanged(doc_id):
    assert check_doc_id(doc_id) == doc_id


@pytest.mark.parametrize(
    ("doc_id", "reason"),
    [
        ("", "empty"),
        ("../secrets", "'..'"),
        ("a/../../b", "'..'"),
        ("./a", "'.'"),
        ("a//b", "empty"),
        ("/etc/passwd", "absolute"),
        ("a\\b", "backslash"),
        ("a\x00b", "NUL"),
        ("CON", "device name"),
        ("notes/aux.txt", "device name"),
        ("lpt1", "device name"),
        ("trailing.", "ends with '.'"),
        (".hidden", "charset"),
        ("-dash", "charset"),
        ("has space", "charset"),
        ("x" * 201, "limit"),
    ],
)
def test_escaping_or_malformed_ids_are_refused_with_the_rules(doc_id, reason):
    with pytest.raises(InvalidDocId) as caught:
        check_doc_id(doc_id)
    assert reason in str(caught.value)
    assert ID_RULES in str(caught.value)


def test_md_suffix_is_refused_with_the_id_to_use_instead():
    with pytest.raises(InvalidDocId, match=r"use 'flatfield'"):
        check_doc_id("flatfield.md")


def test_non_string_id_is_refused():
    with pytest.raises(InvalidDocId, match="must be a string"):
        check_doc_id(3)


def test_split_view_separates_the_diff_suffix():
    assert split_view("flatfield@diff") == ("flatfield", "diff")
    assert split_view("my-lab/x") == ("my-lab/x", None)


def test_split_view_knows_the_history_views_and_reads_the_version_number():
    assert split_view("flatfield@history") == ("flatfield", "history")
    assert split_view("index@v12") == ("index", "v12")
    assert version_of("v12") == 12
    assert version_of("history") is None
    assert version_of(None) is None


@pytest.mark.parametrize("view", ["hist", "v0", "v", "v1x", "V2", "diffs"])
def test_unknown_view_names_every_view(view):
    with pytest.raises(InvalidDocId, match=r"Unknown view.*@diff.*@history.*@v12"):
        split_view(f"flatfield@{view}")


def test_any_underscore_segment_banks_an_id():
    assert is_banked("_draft")
    assert is_banked("_drafts/flatfield")
    assert is_banked("lab/_draft")
    assert not is_banked("lab/draft_2")


def test_trailing_slash_marks_a_collection():
    assert is_collection_id("design/")
    assert not is_collection_id("design")


def test_file_names_map_to_ids_and_non_docs_to_none():
    from pathlib import PurePosixPath

    assert id_from_relative_path(PurePosixPath("lab/nuclei.md")) == "lab/nuclei"
    assert id_from_relative_path(PurePosixPath("notes.txt")) is None
    assert id_from_relative_path(PurePosixPath("bad name.md")) is None


def test_the_fast_path_for_plain_ids_agrees_with_every_rule():
    from biopb_kernel_docs.core.ids import _problem, is_valid_doc_id

    samples = [
        "flatfield",
        "segment-nuclei",
        "a" * 61,
        "lab/" + "b" * 61,
        "/".join(["c" * 61] * 4),
        "con",
        "nul",
    ]
    samples += ["con-fluent", "lpt1", "lab/com1", "x" * 201, "segment-nuclei/", "aaaaaaa/bbbbbbb"]
    for doc_id in samples:
        assert is_valid_doc_id(doc_id) == (_problem(doc_id) is None and not doc_id.endswith("/")), doc_id


@pytest.mark.parametrize(
    ("doc_id", "instead"),
    [
        ("flatfield.md/y", "flatfield/y"),
        ("lab/Notes.MD/today", "lab/Notes/today"),
        ("a.md/b.Md/c", "a/b/c"),
        ("flatfield.md/", "flatfield/"),
    ],
)
def test_a_folder_name_ending_in_md_is_refused_with_the_id_to_use_instead(doc_id, instead):
    with pytest.raises(InvalidDocId) as caught:
        check_doc_id(doc_id)
    message = str(caught.value)
    assert "ends in '.md'" in message
    assert f"use {instead!r}" in message


def test_a_name_that_only_contains_md_is_still_an_id():
    assert check_doc_id("notes.md-old/y") == "notes.md-old/y"
    assert check_doc_id("x.mdx/y") == "x.mdx/y"


def test_a_file_inside_a_folder_ending_in_md_is_never_a_doc():
    from pathlib import PurePosixPath

    assert id_from_relative_path(PurePosixPath("flatfield.md/y.md")) is None


def test_an_id_of_200_characters_is_valid_and_201_is_not():
    from biopb_kernel_docs.core.ids import MAX_ID_LENGTH, is_valid_doc_id

    assert MAX_ID_LENGTH == 200
    longest = "a" * 100 + "/" + "b" * 99
    assert check_doc_id(longest) == longest
    with pytest.raises(InvalidDocId, match="it is 201 characters long; the limit is 200"):
        check_doc_id(longest + "b")
    plain = "/".join(["c" * 61] * 3) + "/" + "d" * 15  # 201 characters in the fast path's shape
    assert len(plain) == 201
    assert not is_valid_doc_id(plain)
    assert is_valid_doc_id(plain[:-1])


def test_an_md_suffix_in_any_case_is_refused():
    for doc_id in ("notes.MD", "lab/notes.Md"):
        with pytest.raises(InvalidDocId, match=r"ends in '\.md'.*Ids carry no '\.md'"):
            check_doc_id(doc_id)


def test_a_bad_version_is_quoted_whole_up_to_40_characters_and_cut_at_41(docs):
    whole = "v" + "1" * 37  # its repr is 40 characters
    with pytest.raises(InvalidArguments) as at_40:
        docs.restore_doc("flatfield", whole)
    assert str(at_40.value) == (
        f"A version is a number such as 12 (shown as v12), from 1 to 999,999,999, not 'v{'1' * 37}'."
    )
    with pytest.raises(InvalidArguments) as at_41:
        docs.restore_doc("flatfield", whole + "1")  # its repr is 41 characters
    assert str(at_41.value).endswith(f", not 'v{'1' * 34}....")


@pytest.mark.parametrize(
    ("version", "shown"),
    [
        (10**12 - 1, "999999999999"),
        (10**12, "a number that large"),
        (-(10**12) + 1, "-999999999999"),
        (-(10**12), "a number that large"),
    ],
)
def test_a_version_number_of_twelve_digits_is_quoted_and_one_of_thirteen_is_not(docs, version, shown):
    with pytest.raises(InvalidArguments) as caught:
        docs.restore_doc("flatfield", version)
    assert str(caught.value) == (
        f"A version is a number such as 12 (shown as v12), from 1 to 999,999,999, not {shown}."
    )


@pytest.mark.parametrize(
    ("doc_id", "problem_and_hint"),
    [
        ("flatfield.md", "it ends in '.md'. Ids carry no '.md' in any name: use 'flatfield'."),
        ("bad name.md", "it has a character outside the id charset."),  # 'bad name' is no id either
        (
            "nuclei#Steps",
            "it has a character outside the id charset. '#' names a section, which only a read takes "
            '(read_doc("nuclei#Steps")). To change one section, write_doc("nuclei", old=..., new=...) '
            "replaces exactly the text you quote, wherever it sits.",
        ),
        ("bad name#Steps", "it has a character outside the id charset."),  # no doc to read a section of
        (
            "flatfield@diff",
            'it has a character outside the id charset. View suffixes (read_doc("data@diff"), '
            "read_doc(\"data@history\"), and '@v12' for one version) are for reads only.",
        ),
        ("bad name", "it has a character outside the id charset."),
    ],
)
def test_a_refused_id_gets_a_hint_only_when_the_hint_names_a_valid_id(doc_id, problem_and_hint):
    with pytest.raises(InvalidDocId) as caught:
        check_doc_id(doc_id)
    assert str(caught.value) == f"Invalid doc id {doc_id!r}: {problem_and_hint} {ID_RULES}"


def test_the_id_charset_takes_collections_and_nothing_outside_it():
    from biopb_kernel_docs.core.ids import is_id_shaped

    assert [is_id_shaped(text) for text in ("flatfield", "lab/x_1.2", "design/")] == [True] * 3
    assert [is_id_shaped(text) for text in ("", "bad name", "x#y", "x@diff", "-x", "a//b")] == [False] * 6


def test_a_read_splits_into_its_id_view_and_stripped_section():
    from biopb_kernel_docs.core.ids import Request, parse_request

    assert parse_request("flatfield") == Request("flatfield")
    assert parse_request("flatfield@diff") == Request("flatfield", "diff")
    assert parse_request("lab/x@v12") == Request("lab/x", "v12")
    assert parse_request("nuclei#  Steps/Confirm input ") == Request("nuclei", None, "Steps/Confirm input")
    assert parse_request("nuclei#") == Request("nuclei", None, "")
    assert parse_request("nuclei#" + "x" * 300) == Request("nuclei", None, "x" * 300)


def test_a_section_of_301_characters_is_refused_naming_the_outline_read():
    from biopb_kernel_docs.core.ids import parse_request

    with pytest.raises(InvalidDocId) as caught:
        parse_request("nuclei#" + "x" * 301)
    assert str(caught.value) == (
        'The section asked for is 301 characters long; a heading is at most 300. read_doc("nuclei#") '
        "lists the doc's headings."
    )


@pytest.mark.parametrize("character", ["\x00", "\n", "\r"])
def test_a_section_holding_a_nul_or_either_line_break_is_refused(character):
    from biopb_kernel_docs.core.ids import parse_request

    requested = f"nuclei#Ste{character}ps"
    with pytest.raises(InvalidDocId) as caught:
        parse_request(requested)
    assert str(caught.value) == (
        f"The section asked for in {requested!r} holds a NUL or a line break; a heading is one line. "
        'read_doc("nuclei#") lists the doc\'s headings.'
    )


def test_a_parsed_read_is_shared_so_no_caller_can_change_it():
    from dataclasses import FrozenInstanceError

    from biopb_kernel_docs.core.ids import parse_request

    request = parse_request("flatfield#Steps")
    with pytest.raises(FrozenInstanceError):
        request.section = "Other"  # type: ignore[misc]
    assert parse_request("flatfield#Steps").section == "Steps"
    assert {request} == {parse_request("flatfield#Steps")}


def test_the_cache_of_parsed_reads_holds_at_most_4096():
    from biopb_kernel_docs.core.ids import _parsed, parse_request

    largest = 0
    for number in range(5000):
        assert parse_request(f"doc-{number}#Step {number}").section == f"Step {number}"
        largest = max(largest, len(_parsed))
    assert largest == 4096


def test_split_view_refuses_a_section_saying_only_a_read_takes_one():
    with pytest.raises(InvalidDocId, match=r"'#' names a section, which only a read takes"):
        split_view("flatfield#Steps")


def test_a_docs_file_is_its_id_with_md_appended():
    from pathlib import PurePosixPath

    from biopb_kernel_docs.core.ids import relative_doc_path

    assert relative_doc_path("lab/nuclei") == PurePosixPath("lab/nuclei.md")
    assert relative_doc_path("v1.2_notes") == PurePosixPath("v1.2_notes.md")
