from __future__ import annotations

import dataclasses

import pytest

from biopb_kernel_docs.core.frontmatter import (
    Frontmatter,
    describe,
    first_h1,
    first_paragraph,
    links_of,
    parse_frontmatter,
    prose_lines,
)
from biopb_kernel_docs.core.index import parse_index


def test_scalars_and_inline_lists_are_parsed():
    parsed = parse_frontmatter(
        "---\ndescription: fix shading\npackages: [numpy~=2.0, 'scikit-image~=0.26']\n---\n# T\n"
    )
    assert parsed.text("description") == "fix shading"
    assert parsed.items("packages") == ("numpy~=2.0", "scikit-image~=0.26")
    assert parsed.body == "# T\n"


def test_a_comma_separated_scalar_reads_as_a_list():
    parsed = parse_frontmatter("---\npackages: numpy~=2.0, scipy~=1.13\n---\n")
    assert parsed.items("packages") == ("numpy~=2.0", "scipy~=1.13")


def test_a_list_field_a_doc_does_not_have_reads_as_an_empty_list():
    assert parse_frontmatter("---\ndescription: x\n---\n# T\n").items("packages") == ()
    assert parse_frontmatter("# No frontmatter\n").items("packages") == ()
    assert describe("plain", "# Plain\n\nText.\n").packages == ()


def test_unknown_keys_are_kept_and_garbage_lines_skipped():
    parsed = parse_frontmatter("---\nkind: procedure\n  indented: no\n: nothing\njust words\n---\nbody\n")
    assert parsed.fields == {"kind": "procedure"}
    assert parsed.body == "body\n"


def test_quoted_values_lose_their_quotes():
    parsed = parse_frontmatter("---\ndescription: \"a: b\"\nupdated: '2026-01-01'\n---\n")
    assert parsed.text("description") == "a: b"
    assert parsed.text("updated") == "2026-01-01"


def test_unclosed_frontmatter_is_read_as_body():
    text = "---\ndescription: never closed\n# Title\n"
    parsed = parse_frontmatter(text)
    assert parsed.fields == {}
    assert parsed.body == text


def test_no_frontmatter_means_whole_text_is_body():
    assert parse_frontmatter("# T\n\ntext\n").body == "# T\n\ntext\n"


def test_byte_order_mark_does_not_hide_frontmatter():
    assert parse_frontmatter("\ufeff---\ndescription: d\n---\n").text("description") == "d"


def test_title_is_the_first_h1_outside_code():
    body = "```\n# not a title\n```\n## Sub\n# Real title #\n"
    assert first_h1(body) == "Real title"
    assert first_h1("no heading") is None


def test_description_is_inferred_from_the_first_paragraph():
    body = "# Title\n\n> First paragraph,\n> on two lines.\n\nSecond.\n"
    assert first_paragraph(body) == "First paragraph, on two lines."


def test_inferred_description_is_cut_on_a_word_boundary():
    words = " ".join(["word"] * 100)
    cut = first_paragraph(words, limit=50)
    assert len(cut) <= 50
    assert cut.endswith("word…")


def test_an_inferred_description_of_200_characters_is_kept_whole_and_one_of_201_is_cut():
    whole = " ".join(["word"] * 39 + ["words"])
    assert len(whole) == 200
    assert describe("x", f"# T\n\n{whole}\n").description == whole
    longer = whole + "s"  # 201 characters
    assert describe("x", f"# T\n\n{longer}\n").description == " ".join(["word"] * 39) + "…"


def test_describe_prefers_frontmatter_and_falls_back_to_id():
    info = describe("x", "---\ndescription: hook\nupdated: 2026-03-04\npackages: [numpy~=2.0]\n---\n# T\n")
    assert (info.title, info.description, info.updated, info.packages) == (
        "T",
        "hook",
        "2026-03-04",
        ("numpy~=2.0",),
    )
    bare = describe("bare-id", "")
    assert bare.title == "bare-id"
    assert bare.description == "bare-id"


def test_what_describe_returns_is_a_frozen_value_equal_to_and_hashed_like_its_twin():
    info = describe("x", "---\npackages: [numpy]\n---\n# T\n")
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.title = "changed"  # type: ignore[misc]
    assert info.title == "T"
    twin = describe("x", "---\npackages: [numpy]\n---\n# T\n")
    assert info == twin
    assert {info: "cached"}[twin] == "cached"


def test_links_are_the_prose_links_in_order_each_once():
    from biopb_kernel_docs.core.frontmatter import links_of

    text = "See [[data]] and [[kernel]].\n\n```python\nprint('[[not-a-link]]')\n```\nThen [[data]] again.\n"
    assert links_of(text) == ("data", "kernel")
    assert links_of("no links here") == ()


def _frontmatter_of(keys: int) -> str:
    return "---\n" + "".join(f"key{n}: {n}\n" for n in range(keys - 1)) + "description: kept\n---\n# T\n"


def test_frontmatter_of_up_to_sixty_lines_is_parsed_and_longer_is_body():
    for keys in (6, 30, 59):  # 59 keys: with its opening line, 60 lines before the closing one
        parsed = parse_frontmatter(_frontmatter_of(keys))
        assert parsed.text("description") == "kept", keys
        assert parsed.body == "# T\n"
    too_long = _frontmatter_of(60)
    assert parse_frontmatter(too_long) == Frontmatter({}, too_long)


def test_a_shorter_fence_does_not_close_a_longer_one():
    lines = ["````markdown", "```python", "- inside: still code", "```", "````", "- outside: prose"]
    assert [number for number, _ in prose_lines(lines)] == [5]
    assert parse_index("\n".join(lines)).entry_ids == {"outside"}


def test_indented_frontmatter_keys_are_ignored():
    parsed = parse_frontmatter("---\n  description: indented\n\tpackages: [a]\ntitle: top\n---\nBody.\n")
    assert parsed.fields == {"title": "top"}


def test_frontmatter_may_close_with_three_dots_as_yaml_allows():
    parsed = parse_frontmatter("---\ndescription: closed by dots\n...\n# T\n")
    assert parsed.fields == {"description": "closed by dots"}
    assert parsed.body == "# T\n"


def test_a_value_that_only_opens_or_only_closes_a_bracket_is_text_not_a_list():
    parsed = parse_frontmatter("---\ndescription: [draft\nstatus: done]\npackages: [a, b]\n---\n")
    assert parsed.fields == {"description": "[draft", "status": "done]", "packages": ("a", "b")}
    assert parsed.text("description") == "[draft"


def test_an_empty_quoted_value_is_an_empty_field_and_the_description_falls_back_to_the_body():
    text = "---\ndescription: \"\"\nupdated: ''\n---\n# T\n\nFirst words.\n"
    assert parse_frontmatter(text).fields == {"description": "", "updated": ""}
    info = describe("x", text)
    assert (info.title, info.description, info.updated) == ("T", "First words.", None)


def test_a_lone_quote_is_kept_as_the_value():
    parsed = parse_frontmatter("---\ndescription: \"\nupdated: '\n---\n")
    assert parsed.fields == {"description": '"', "updated": "'"}


def test_frontmatter_closing_on_the_last_line_without_a_newline_is_parsed_and_leaves_an_empty_body():
    for closing in ("---", "...", "---  "):
        parsed = parse_frontmatter(f"---\ndescription: d\n{closing}")
        assert parsed == Frontmatter({"description": "d"}, ""), closing


@pytest.mark.parametrize(
    ("paragraph", "description"),
    [
        ("a" * 300, "a" * 199 + "…"),  # no space to cut at: cut inside the word, 200 characters in all
        ("a " + "w" * 196 + " tail", "a " + "w" * 196 + "…"),  # the word ending at 198 characters fits
        ("a " + "w" * 197 + " tail", "a " + "w" * 197 + "…"),  # and one ending at 199, with its … at 200
        ("a " + "w" * 198 + " tail", "a…"),  # one ending at 200 leaves no room for the …
    ],
)
def test_an_inferred_description_is_cut_to_at_most_200_characters_ending_in_an_ellipsis(
    paragraph, description
):
    assert first_paragraph(paragraph) == description
    assert describe("x", f"# T\n\n{paragraph}\n").description == description


def test_links_in_a_tilde_fenced_code_block_are_code_not_links():
    text = "See [[data]].\n\n~~~\n[[not-a-link]]\n~~~\nThen [[kernel]].\n"
    assert links_of(text) == ("data", "kernel")
