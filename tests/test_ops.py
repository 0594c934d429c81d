from __future__ import annotations

import contextlib
import hashlib
import os
import re
import time

import pytest

from biopb_kernel_docs.core.errors import (
    DocNotFound,
    EditRefused,
    InvalidArguments,
    InvalidDocId,
    LimitExceeded,
    OutsideTier,
    PartialWrite,
    SectionNotFound,
    StaleWrite,
    StoreUnavailable,
    UnreadableDoc,
)
from biopb_kernel_docs.core.index import parse_index
from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.seeding import index_file
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.text.render import text

# A fixed modification time, so no test depends on the date it runs.
MTIME = time.mktime((2026, 3, 14, 12, 0, 0, 0, 0, -1))


def _put_local_dated(tiers, doc_id, text):
    path = tiers.put_local(doc_id, text)
    os.utime(path, (MTIME, MTIME))
    return path


def _shipped_snapshot(tiers):
    return {
        p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(tiers.shipped.rglob("*")) if p.is_file()
    }


def read(docs, doc_id):
    return text(docs.read_doc(doc_id))


def write(docs, doc_id, **arguments):
    return text(docs.write_doc(doc_id, **arguments))


def _entries(tiers):
    return [(e.doc_id, e.hook) for e in parse_index(tiers.local_text("index")).entries]


# -- read_doc ------------------------------------------------------------------------------------


def test_read_shipped_doc_has_header_then_the_file_verbatim(docs):
    text = read(docs, "flatfield")
    header, _, body = text.partition("\n\n")
    assert header == "[flatfield · shipped · updated 2026-01-02]"
    assert body.startswith("---\ndescription: fix shading\n")


def test_read_shadowing_copy_says_it_shadows_shipped(tiers, docs):
    _put_local_dated(tiers, "data", "# My data\n")
    assert read(docs, "data").split("\n")[0] == "[data · local · updated 2026-03-14 · shadows shipped]"


def test_read_local_only_doc_has_no_shadow_note(tiers, docs):
    _put_local_dated(tiers, "mine", "# Mine\n")
    assert read(docs, "mine") == "[mine · local · updated 2026-03-14]\n\n# Mine\n"


def test_banked_doc_is_readable_by_id(docs):
    assert "Thin evidence." in read(docs, "_banked")


def test_reading_the_index_creates_nothing_and_returns_the_rendering(tiers, docs):
    text = read(docs, "index")
    assert text.startswith("[index · local · updated")
    assert "markers and the closing tails come from the loader" in text.split("\n")[0]
    assert "- segment-nuclei: find the nuclei" in text
    assert not tiers.local.exists()  # the first write creates the local tier and seeds the index


def test_unknown_id_names_the_closest_ids_and_the_index(docs):
    with pytest.raises(DocNotFound) as caught:
        read(docs, "flatfeild")
    assert (
        str(caught.value)
        == "No doc 'flatfeild'. Did you mean 'flatfield'? read_doc(\"index\") lists them all."
    )


def test_unknown_id_suggests_at_most_the_three_closest_ids_closest_first(tiers, docs):
    tiers.put_local(
        "index",
        "- nuclei-counting: a\n- nuclei-counter: b\n- nuclei-counts: c\n- nuclei-count: d\n",
    )
    with pytest.raises(DocNotFound) as caught:
        read(docs, "nuclei-cont")  # all four are close; the fourth closest is left out
    assert str(caught.value) == (
        "No doc 'nuclei-cont'. Did you mean 'nuclei-count' or 'nuclei-counts' or 'nuclei-counter'? "
        'read_doc("index") lists them all.'
    )


def test_unknown_id_never_suggests_a_banked_doc(docs):
    with pytest.raises(DocNotFound) as caught:
        read(docs, "banked")
    assert "_banked" not in str(caught.value)


def test_listed_but_missing_doc_says_to_write_it_or_drop_the_line(tiers, docs):
    tiers.put_local("index", "- ghost: planned\n")
    with pytest.raises(DocNotFound, match=r'the index lists it.*write_doc\("ghost", body=\.\.\.\)'):
        read(docs, "ghost")


def test_diff_view_compares_local_copy_with_shipped_text(tiers, docs):
    write(docs, "flatfield", old="Step one.", new="Step one, with a dark frame.")
    text = read(docs, "flatfield@diff")
    header, _, diff = text.partition("\n\n")
    assert "mixes your own edits with the release's changes" in header
    assert "-Step one.\n+Step one, with a dark frame." in diff


def test_diff_view_of_an_unshadowed_doc_explains_why_not(tiers, docs):
    with pytest.raises(InvalidDocId, match="only a shipped doc"):
        read(docs, "data@diff")
    tiers.put_local("mine", "# Mine\n")
    with pytest.raises(InvalidDocId, match="no shipped counterpart"):
        read(docs, "mine@diff")
    with pytest.raises(InvalidDocId, match="no shipped copy"):
        read(docs, "index@diff")


def test_identical_shadow_diff_says_so(tiers, docs):
    tiers.put_local("data", (tiers.shipped / "data.md").read_text())
    assert read(docs, "data@diff").endswith("No differences: your local copy matches the shipped text.")


# -- write_doc: body ----------------------------------------------------------------------------


def test_create_files_the_doc_under_unfiled_with_its_description(tiers, docs):
    result = write(docs, "my-lab/nuclei", body="---\ndescription: the lab's nuclei protocol\n---\n# N\n")
    assert tiers.local_text("my-lab/nuclei") == "---\ndescription: the lab's nuclei protocol\n---\n# N\n"
    assert _entries(tiers)[-1] == ("my-lab/nuclei", "the lab's nuclei protocol")
    assert "## Unfiled\n- my-lab/nuclei" in tiers.local_text("index")
    assert result.startswith("Created local doc 'my-lab/nuclei' and filed it under ## Unfiled")
    assert "--- /dev/null\n+++ b/my-lab/nuclei.md (local)" in result
    assert "+- my-lab/nuclei: the lab's nuclei protocol" in result


def test_create_infers_the_hook_from_the_first_paragraph(tiers, docs):
    write(docs, "notes", body="# Notes\n\nWhat we learned about the confocal.\n")
    assert _entries(tiers)[-1] == ("notes", "What we learned about the confocal.")


def test_create_with_an_existing_entry_is_not_filed_twice(tiers, docs):
    tiers.put_local("index", "# I\n- planned: my hook\n")
    result = write(docs, "planned", body="# Planned\n")
    assert _entries(tiers) == [("planned", "my hook")]
    assert "the index already lists it" in result


def test_body_replaces_a_local_doc_and_returns_the_diff(tiers, docs):
    tiers.put_local("mine", "# Mine\n\nold line\n")
    result = write(docs, "mine", body="# Mine\n\nnew line\n")
    assert tiers.local_text("mine") == "# Mine\n\nnew line\n"
    assert result.startswith("Updated local doc 'mine'.")
    assert "-old line\n+new line" in result


def test_body_gets_a_final_newline(tiers, docs):
    write(docs, "mine", body="# Mine")
    assert tiers.local_text("mine") == "# Mine\n"


def test_body_write_to_a_shipped_id_creates_a_shadow_and_leaves_shipped_alone(tiers, docs):
    tiers.seed()
    before, index_before = _shipped_snapshot(tiers), tiers.local_text("index")
    result = write(docs, "data", body="# Data, my way\n")
    assert tiers.local_text("data") == "# Data, my way\n"
    assert _shipped_snapshot(tiers) == before
    assert tiers.local_text("index") == index_before
    assert "now shadows the shipped text" in result
    assert "- data: how arrays are laid out (local copy)" in read(docs, "index")


def test_writing_the_index_itself_edits_index_md(tiers, docs):
    docs.index()
    result = write(docs, "index", old="- data: how arrays are laid out", new="- data: arrays")
    assert "- data: arrays\n" in tiers.local_text("index")
    assert result.startswith("Edited the index.")


# -- write_doc: old/new --------------------------------------------------------------------------


def test_replace_on_a_shipped_id_applies_to_the_shipped_text_as_base(tiers, docs):
    write(docs, "flatfield", old="Step one.", new="Step one, revised.")
    assert tiers.local_text("flatfield") == (tiers.shipped / "flatfield.md").read_text().replace(
        "Step one.", "Step one, revised."
    )
    assert "Step one.\n" in (tiers.shipped / "flatfield.md").read_text()


def test_replace_refuses_absent_old_and_writes_nothing(tiers, docs):
    tiers.put_local("mine", "# Mine\n")
    with pytest.raises(EditRefused, match=r"not found in 'mine'.*read_doc\(\"mine\"\)"):
        write(docs, "mine", old="nowhere", new="x")
    assert tiers.local_text("mine") == "# Mine\n"


def test_replace_refuses_ambiguous_old_and_says_how_many(tiers, docs):
    tiers.put_local("mine", "- a\n- a\n- a\n")
    with pytest.raises(EditRefused, match=r"matches 3 times.*surrounding text"):
        write(docs, "mine", old="- a", new="- b")
    assert tiers.local_text("mine") == "- a\n- a\n- a\n"


def test_replace_counts_overlapping_matches_as_ambiguous(tiers, docs):
    tiers.put_local("mine", "aaa\n")
    with pytest.raises(EditRefused, match="matches 2 times"):
        write(docs, "mine", old="aa", new="b")


def test_replace_that_differs_only_in_whitespace_says_so(tiers, docs):
    tiers.put_local("mine", "one  two\n")
    with pytest.raises(EditRefused, match="whitespace"):
        write(docs, "mine", old="one two", new="x")


def test_replace_quoting_the_header_line_says_to_leave_it_out(tiers, docs):
    _put_local_dated(tiers, "mine", "# Mine\n")
    with pytest.raises(EditRefused, match="header"):
        write(docs, "mine", old="[mine · local · updated 2026-03-14]\n\n# Mine", new="x")


def test_replace_quoting_a_tail_line_of_the_rendered_index_explains_it(tiers, docs):
    docs.index()
    with pytest.raises(EditRefused, match="loader's rendering"):
        write(docs, "index", old="- segment-nuclei: find the nuclei", new="- segment-nuclei: nuclei")


def test_replace_on_a_missing_doc_says_to_create_it(docs):
    with pytest.raises(DocNotFound, match=r'write_doc\("nothing", body=\.\.\.\)'):
        write(docs, "nothing", old="a", new="b")


def test_replace_keeps_crlf_line_ends(tiers, docs):
    tiers.put_local("windows", b"# W\r\n\r\nfirst\r\nsecond\r\n")
    write(docs, "windows", old="first\nsecond", new="first\nmiddle\nsecond")
    assert (tiers.local / "windows.md").read_bytes() == b"# W\r\n\r\nfirst\r\nmiddle\r\nsecond\r\n"


def test_replace_accepts_crlf_in_old(tiers, docs):
    tiers.put_local("mine", "a\nb\n")
    write(docs, "mine", old="a\r\nb", new="c")
    assert tiers.local_text("mine") == "c\n"


# -- write_doc: writes that change nothing -------------------------------------------------------


def test_noop_write_to_a_shipped_id_creates_no_shadow(tiers, docs):
    shipped = (tiers.shipped / "data.md").read_text()
    assert write(docs, "data", body=shipped).startswith("No change")
    assert write(docs, "data", old="How arrays", new="How arrays").startswith("No change")
    assert not (tiers.local / "data.md").exists()


def test_noop_write_leaves_the_local_file_untouched(tiers, docs):
    path = tiers.put_local("mine", "# Mine\n")
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    write(docs, "mine", body="# Mine")
    assert path.stat().st_mtime_ns == 1_000_000_000


# -- write_doc: refusals write nothing -----------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "Nothing to write"),
        ({"body": "x", "old": "a", "new": "b"}, "not both"),
        ({"old": "a"}, "new is missing"),
        ({"new": "b"}, "old is missing"),
        ({"old": "", "new": "b"}, "old is empty"),
        ({"body": 3}, "must be a string"),
    ],
)
def test_malformed_arguments_are_refused_as_usage_mistakes_with_the_right_form(docs, kwargs, message):
    with pytest.raises(InvalidArguments, match=message):
        write(docs, "mine", **kwargs)


def test_empty_body_is_refused_since_there_is_no_delete(tiers, docs):
    tiers.put_local("mine", "# Mine\n")
    with pytest.raises(EditRefused, match=r"no delete.*remove its line from the index"):
        write(docs, "mine", body="  \n")
    assert tiers.local_text("mine") == "# Mine\n"


@pytest.mark.parametrize("doc_id", ["design/", "flatfield@diff", "../escape", "flatfield.md"])
def test_reserved_and_escaping_ids_are_refused_on_write(tiers, docs, doc_id):
    with pytest.raises(InvalidDocId):
        write(docs, doc_id, body="# x\n")
    assert not tiers.local.exists() or tiers.store().local_ids() == []


def test_write_through_a_symlink_out_of_the_tier_is_refused(tiers, docs, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    tiers.local.mkdir()
    (tiers.local / "lab").symlink_to(outside, target_is_directory=True)
    with pytest.raises(OutsideTier, match="outside the local tier"):
        write(docs, "lab/escape", body="# x\n")
    assert list(outside.iterdir()) == []


def test_a_body_of_exactly_300_lines_is_accepted(tiers, docs):
    write(docs, "long", body="# Long\n" + "line\n" * 299)
    assert tiers.local_text("long").count("\n") == 300


def test_a_body_of_301_lines_is_refused(tiers, docs):
    body = "# Long\n" + "line\n" * 300
    with pytest.raises(LimitExceeded, match=r"301 lines; the cap is 300"):
        write(docs, "long", body=body)
    assert not (tiers.local / "long.md").exists()
    assert "long" not in docs.index().text


def test_replace_that_grows_a_doc_over_the_cap_is_refused(tiers, docs):
    tiers.put_local("mine", "# Mine\nEND\n")
    with pytest.raises(LimitExceeded):
        write(docs, "mine", old="END", new="line\n" * 300)
    assert tiers.local_text("mine") == "# Mine\nEND\n"


def _full_index(count=200):
    return "# I\n" + "".join(f"- doc-{n}: hook\n" for n in range(count))


def test_create_with_a_full_index_is_refused_and_writes_nothing(tiers, docs):
    tiers.put_local("index", _full_index())
    with pytest.raises(LimitExceeded, match=r"Creating 'one-more' would file entry number 201"):
        write(docs, "one-more", body="# One more\n")
    assert not (tiers.local / "one-more.md").exists()
    assert tiers.local_text("index") == _full_index()


def test_index_body_over_the_cap_is_refused(tiers, docs):
    tiers.put_local("index", "# I\n")
    with pytest.raises(LimitExceeded, match="201 entries"):
        write(docs, "index", body=_full_index(201))
    assert tiers.local_text("index") == "# I\n"


def test_index_replace_over_the_cap_is_refused(tiers, docs):
    tiers.put_local("index", _full_index())
    with pytest.raises(LimitExceeded):
        write(docs, "index", old="- doc-0: hook\n", new="- doc-0: hook\n- doc-extra: hook\n")
    assert tiers.local_text("index") == _full_index()


def test_non_utf8_local_doc_is_reported_and_never_replaced(tiers, docs):
    path = tiers.put_local("latin", b"caf\xe9\n")
    for kwargs in ({"body": "# new\n"}, {"old": "caf", "new": "x"}):
        with pytest.raises(UnreadableDoc, match="not valid UTF-8"):
            write(docs, "latin", **kwargs)
    with pytest.raises(UnreadableDoc):
        read(docs, "latin")
    assert path.read_bytes() == b"caf\xe9\n"


def test_shipped_tier_is_never_written_by_any_operation(tiers, docs):
    before = _shipped_snapshot(tiers)
    read(docs, "index")
    write(docs, "data", body="# Mine\n")
    write(docs, "flatfield", old="Step one.", new="Step 1.")
    write(docs, "new-doc", body="# New\n")
    write(docs, "index", old="# Test docs", new="# My docs")
    assert _shipped_snapshot(tiers) == before


# -- no silent clobber (§8 risk 3) -------------------------------------------------------------------


def test_body_write_over_a_doc_changed_since_it_was_read_is_refused(tiers, docs):
    tiers.put_local("mine", "# Mine\n")
    read(docs, "mine")
    tiers.put_local("mine", "# Mine\n\nThe user's edit.\n")
    with pytest.raises(StaleWrite, match=r'changed on disk since you last read it.*read_doc\("mine"\)'):
        write(docs, "mine", body="# Mine, stale\n")
    assert tiers.local_text("mine") == "# Mine\n\nThe user's edit.\n"
    read(docs, "mine")
    write(docs, "mine", body="# Mine, informed\n")
    assert tiers.local_text("mine") == "# Mine, informed\n"


def test_a_shadow_created_after_reading_the_shipped_text_is_not_clobbered(tiers, docs):
    read(docs, "data")
    tiers.put_local("data", "# Someone else's copy\n")
    with pytest.raises(EditRefused, match="changed on disk"):
        write(docs, "data", body="# Mine\n")


def test_one_callers_read_does_not_vouch_for_another_callers_write(tiers):
    agent, user = tiers.docs(), tiers.docs()
    tiers.put_local("mine", "# Mine\n")
    agent.read_doc("mine")
    user.write_doc("mine", body="# Mine, by the user\n")
    with pytest.raises(EditRefused, match="changed on disk"):
        agent.write_doc("mine", body="# Mine, by the agent\n")


def test_own_writes_keep_the_caller_current(tiers, docs):
    read(docs, "index")
    write(docs, "mine", body="# Mine\n")  # also files an entry in the index
    write(docs, "mine", body="# Mine, again\n")
    write(docs, "mine", old="again", new="and again")
    write(docs, "mine", body="# Mine, finally\n")
    index = tiers.local_text("index")
    write(docs, "index", body=index.replace("# Test docs", "# Lab docs"))
    assert tiers.local_text("index").startswith("# Lab docs")


def test_a_doc_never_read_can_be_replaced_and_the_diff_shows_what_went(tiers, docs):
    tiers.put_local("mine", "# Mine\n\nprecious\n")
    result = write(docs, "mine", body="# Replaced\n")
    assert "-precious" in result


def test_old_new_lands_after_an_outside_edit_when_its_text_is_still_there(tiers, docs):
    tiers.put_local("mine", "# Mine\n\nalpha\n")
    read(docs, "mine")
    tiers.put_local("mine", "# Mine\n\nalpha\n\nbeta, from the user\n")
    write(docs, "mine", old="alpha", new="gamma")
    assert tiers.local_text("mine") == "# Mine\n\ngamma\n\nbeta, from the user\n"


def test_index_rendering_counts_as_reading_the_index(tiers, docs):
    tiers.seed()
    docs.index()
    tiers.put_local("index", tiers.local_text("index") + "- added-by-user: hook\n")
    with pytest.raises(EditRefused, match="changed on disk"):
        write(docs, "index", body="# Rewritten\n")
    assert re.search(r"added-by-user", tiers.local_text("index"))


def test_the_first_write_seeds_the_local_index_from_the_shipped_one(tiers):
    assert tiers.docs().write_doc("index", old="# Test docs", new="# Test docs").outcome == "unchanged"
    assert tiers.local_text("index") == (tiers.shipped / "index.md").read_text()


def test_a_read_before_the_first_write_shows_the_index_the_write_will_seed(tiers):
    docs = tiers.docs()
    before = docs.index()
    docs.write_doc("index", old="# Test docs", new="# Test docs")
    after = docs.index()
    assert (before.text, before.sha256, before.path, before.tier) == (
        after.text,
        after.sha256,
        after.path,
        "local",
    )


def test_seeding_never_replaces_an_existing_local_index(tiers):
    tiers.put_local("index", "# Mine\n")
    tiers.docs().index()
    assert tiers.local_text("index") == "# Mine\n"


# -- the values -----------------------------------------------------------------------------------


def test_a_doc_view_carries_what_the_panel_needs_without_parsing(tiers, docs):
    tiers.put_local(
        "lab/a", "---\ndescription: a note\n---\n# A note\n\nSee [[flatfield]] and [[data]], [[flatfield]].\n"
    )
    view = docs.doc("lab/a")
    assert (view.id, view.tier, view.title, view.description) == ("lab/a", "local", "A note", "a note")
    assert view.links == ("flatfield", "data")
    assert view.body.startswith("# A note\n")
    assert view.frontmatter == (("description", "a note"),)
    assert view.sha256 == hashlib.sha256((tiers.local / "lab/a.md").read_bytes()).hexdigest()


def test_an_index_view_carries_headings_markers_tails_and_the_cap(tiers, docs):
    tiers.put_local("data", "# Mine\n")
    view = docs.index()
    assert [(e.id, e.heading, e.marker) for e in view.entries] == [
        ("data", "## References", "local copy"),
        ("flatfield", "## Procedures", None),
        ("stitch-tiles", "## Procedures", None),
    ]
    assert [item.id for item in view.new_shipped] == ["segment-nuclei"]
    assert view.new_shipped[0].description == "find the nuclei"
    assert view.ignored == ("old-method",)
    assert (view.entry_count, view.entry_cap) == (3, 200)
    assert view.headings == ("# Test docs", "## References", "## Procedures")


def test_a_write_result_says_what_was_created_and_filed_where(tiers, docs):
    result = docs.write_doc("lab/new", body="# New\n\nA new note.\n")
    assert (result.outcome, result.filed_under) == ("created", "## Unfiled")
    assert [change.id for change in result.changes] == ["lab/new", "index"]
    assert result.changes[0].before is None
    assert result.sha256 == hashlib.sha256(b"# New\n\nA new note.\n").hexdigest()
    shadow = docs.write_doc("flatfield", old="Step one.", new="Step 1.")
    assert (shadow.outcome, shadow.changes[0].base_tier) == ("shadowed", "shipped")


# -- preconditions ----------------------------------------------------------------------------------


def test_if_match_lets_a_write_land_only_on_the_text_it_was_based_on(tiers, docs):
    tiers.put_local("mine", "# Mine\n\none\n")
    sha = docs.doc("mine").sha256
    tiers.put_local("mine", "# Mine\n\ntwo\n")
    fresh = tiers.docs()  # another caller, with no memory of its own
    with pytest.raises(StaleWrite, match=r"has changed since the text this write was based on"):
        fresh.write_doc("mine", old="two", new="three", if_match=sha)
    assert tiers.local_text("mine") == "# Mine\n\ntwo\n"
    fresh.write_doc("mine", old="two", new="three", if_match=docs.doc("mine").sha256)
    assert tiers.local_text("mine") == "# Mine\n\nthree\n"


def test_if_match_on_a_doc_that_no_longer_exists_is_refused(docs):
    with pytest.raises(StaleWrite, match="no longer exists"):
        docs.write_doc("gone", body="# Gone\n", if_match="0" * 64)


def test_a_refused_edit_of_the_index_does_not_count_as_reading_it(tiers, docs):
    stale = docs.index().text
    tiers.put_local("index", stale + "- theirs: another writer's entry\n")
    with pytest.raises(EditRefused):
        docs.write_doc("index", old="- not: in the file", new="- x: y")
    with pytest.raises(StaleWrite):
        docs.write_doc("index", body=stale + "- mine: my entry\n")
    assert "- theirs: another writer's entry" in tiers.local_text("index")


def test_an_old_new_edit_over_an_outside_change_does_not_mark_the_caller_current(tiers, docs):
    tiers.put_local("mine", "# Mine\n\nalpha\nbeta\n")
    docs.doc("mine")
    tiers.put_local("mine", "# Mine\n\nalpha\nbeta\ngamma (theirs)\n")
    docs.write_doc("mine", old="alpha", new="ALPHA")
    with pytest.raises(StaleWrite):
        docs.write_doc("mine", body="# Mine\n\nfrom my first reading\n")
    assert "gamma (theirs)" in tiers.local_text("mine")


def test_auto_filing_over_an_index_changed_outside_does_not_mark_the_caller_current(tiers, docs):
    stale = docs.index().text
    tiers.put_local("index", stale + "- theirs: another writer's entry\n")
    docs.write_doc("lab/created", body="# Created\n")
    with pytest.raises(StaleWrite):
        docs.write_doc("index", body=stale)
    assert "- theirs: another writer's entry" in tiers.local_text("index")


# -- nothing is lost ----------------------------------------------------------------------------------


def test_a_create_whose_doc_write_fails_reports_it_and_a_retry_finishes_it(tiers, docs, monkeypatch):
    docs.index()
    real = docs.store.write_local

    def disk_full_for_the_doc(doc_id, text, **options):
        if doc_id == "lab/half":
            raise StoreUnavailable("Could not write lab/half.md: The disk is full.")
        return real(doc_id, text, **options)

    monkeypatch.setattr(docs.store, "write_local", disk_full_for_the_doc)
    with pytest.raises(PartialWrite) as caught:
        docs.write_doc("lab/half", body="# Half\n\nWritten twice.\n")
    message = str(caught.value)
    assert message.startswith("Filed 'lab/half' in the index, but writing the doc itself failed")
    assert "retry the same write" in message
    assert "- lab/half: Written twice. (missing)" in text(docs.index())
    monkeypatch.undo()
    result = docs.write_doc("lab/half", body="# Half\n\nWritten twice.\n")
    assert (result.outcome, result.already_listed) == ("created", True)
    assert tiers.local_text("index").count("- lab/half:") == 1
    assert tiers.local_text("lab/half") == "# Half\n\nWritten twice.\n"


def test_an_unclosed_code_fence_in_the_index_refuses_a_create_and_writes_nothing(tiers, docs):
    tiers.put_local("index", "# I\n\n## A\n- a: x\n\n```python\nprint('never closed')\n")
    with pytest.raises(EditRefused, match="never closed"):
        docs.write_doc("lab/new", body="# New\n")
    assert not (tiers.local / "lab/new.md").exists()


def test_auto_filing_keeps_a_crlf_index_crlf(tiers, docs):
    (tiers.local).mkdir(parents=True, exist_ok=True)
    (tiers.local / "index.md").write_bytes(b"# I\r\n\r\n## A\r\n- a: x\r\n")
    docs.write_doc("lab/new", body="# New\n\nhook text\n")
    assert (
        tiers.local / "index.md"
    ).read_bytes() == b"# I\r\n\r\n## A\r\n- a: x\r\n\r\n## Unfiled\r\n- lab/new: hook text\r\n"


def test_auto_filing_that_would_take_the_index_past_300_lines_is_refused(tiers, docs):
    tiers.put_local("index", "# I\n" + "prose line\n" * 297 + "## Unfiled\n- a: x\n")
    with pytest.raises(LimitExceeded, match=r"'index' would be 301 lines; the cap is 300"):
        docs.write_doc("lab/new", body="# New\n")
    assert not (tiers.local / "lab/new.md").exists()


def test_the_line_cap_counts_newlines_not_other_unicode_line_separators(tiers, docs):
    body = "# Long\n" + "a\u2028b\x0cc\u2029d\n" * 299
    docs.write_doc("long", body=body)
    assert tiers.local_text("long") == body


def test_a_lone_surrogate_is_refused_and_nothing_is_written(tiers, docs):
    with pytest.raises(InvalidArguments, match=r"lone surrogate \(U\+DCFF"):
        docs.write_doc("lab/bad", body="# Bad\n\ncaf\udcff\n")
    assert not (tiers.local / "lab/bad.md").exists()


def test_seeding_rechecks_under_the_lock(tiers, docs, monkeypatch):
    real_lock = docs.store.lock

    @contextlib.contextmanager
    def another_process_seeds_first():
        tiers.put_local("index", "# Seeded by another process\n")
        with real_lock():
            yield

    monkeypatch.setattr(docs.store, "lock", another_process_seeds_first)
    assert index_file(docs.store)[0].text == "# Seeded by another process\n"
    assert tiers.local_text("index") == "# Seeded by another process\n"


def test_a_deleted_index_is_seeded_again_with_the_local_docs_filed_back(tiers, docs):
    docs.write_doc("lab/kept", body="# Kept\n\nThe lab's own protocol.\n")
    docs.write_doc("data", body="# My data\n")  # a shadow: its shipped entry comes back with the seed
    (tiers.local / "index.md").unlink()
    view = tiers.docs().index()
    assert "- lab/kept: The lab's own protocol." in view.text
    assert "index.md was missing and was seeded again on" in view.text
    assert [e.id for e in view.entries].count("data") == 1


def test_a_first_run_files_nothing_back(tiers):
    tiers.put_local("dropped-by-hand", "# By hand\n")
    view = tiers.docs().index()
    assert "dropped-by-hand" not in view.text


# -- the panel's index edits: if_match and the cap (issue 20) -------------------------------------------


def test_file_doc_and_ignore_doc_refuse_a_stale_if_match_and_change_nothing(tiers, docs):
    tiers.seed()
    stale = docs.index().sha256
    tiers.put_local("index", tiers.local_text("index") + "- added-by-user: hook\n")
    before = tiers.local_text("index")
    with pytest.raises(StaleWrite, match="has changed since the text this write was based on"):
        docs.file_doc("segment-nuclei", "## Procedures", if_match=stale)
    with pytest.raises(StaleWrite, match="has changed since the text this write was based on"):
        docs.ignore_doc("segment-nuclei", if_match=stale)
    assert tiers.local_text("index") == before
    current = docs.index().sha256
    docs.ignore_doc("segment-nuclei", if_match=current)
    assert "ignored: old-method, segment-nuclei" in tiers.local_text("index")


def test_file_doc_refuses_entry_201_and_ignore_doc_still_works_at_the_cap(tiers, docs):
    tiers.seed()
    entries = "".join(f"- lab/d{n:03d}: doc {n}\n" for n in range(197))
    tiers.put_local("index", tiers.local_text("index").replace("ignored:", entries + "\nignored:"))
    assert len(docs.index().entries) == 200
    before = tiers.local_text("index")
    with pytest.raises(LimitExceeded, match="would leave the index with 201 entries; the cap is 200"):
        docs.file_doc("segment-nuclei", "## Procedures")
    assert tiers.local_text("index") == before
    docs.ignore_doc("segment-nuclei")  # the count stays at 200
    assert "segment-nuclei" in parse_index(tiers.local_text("index")).ignored


def test_a_callers_own_writes_keep_what_it_remembers_current(tiers, docs):
    tiers.put_local("mine", "# Mine\n\nfirst\n")
    read(docs, "mine")
    write(docs, "mine", body="# Mine\n\nsecond\n")
    write(docs, "mine", body="# Mine\n\nthird\n")  # based on its own write, not on a stale read
    write(docs, "mine", old="third", new="fourth")
    write(docs, "mine", body="# Mine\n\nfifth\n")  # based on its own edit
    assert tiers.local_text("mine") == "# Mine\n\nfifth\n"


def test_file_doc_files_a_local_only_doc_with_its_own_hook(tiers, docs):
    tiers.seed()
    tiers.put_local("my-stain", "# My stain\n\nHow I stain the nuclei.\n")
    result = docs.file_doc("my-stain", "## Procedures")
    assert result.outcome == "updated"
    assert ("my-stain", "How I stain the nuclei.") in _entries(tiers)


@pytest.mark.parametrize("heading", ["## Procedures", "Procedures"])
def test_file_doc_says_the_heading_it_filed_under_once(tiers, docs, heading):
    tiers.seed()
    assert docs.file_doc("segment-nuclei", heading).filed_under == "## Procedures"


def test_file_doc_reports_an_index_update_never_a_doc_the_index_already_listed(tiers, docs):
    # already_listed belongs to a created doc (the panel reads it from the JSON); filing edits the index.
    tiers.seed()
    result = docs.file_doc("segment-nuclei", "## Procedures")
    assert (result.id, result.outcome, result.filed_under, result.already_listed) == (
        "index",
        "updated",
        "## Procedures",
        False,
    )


def test_file_doc_refuses_a_listed_doc_and_names_the_heading_it_is_under(tiers, docs):
    tiers.seed()
    tiers.put_local("index", "- loose: filed above every heading\n\n" + tiers.local_text("index"))
    before = tiers.local_text("index")
    with pytest.raises(EditRefused) as under_heading:
        docs.file_doc("flatfield", "## References")
    assert str(under_heading.value) == (
        "'flatfield' is already listed, under ## Procedures. Nothing was written. To move it, edit its "
        'line with write_doc("index", old=..., new=...).'
    )
    with pytest.raises(
        EditRefused, match=r"^'loose' is already listed, under no heading\. Nothing was written\."
    ):
        docs.file_doc("loose", "## References")
    assert tiers.local_text("index") == before


def test_ignoring_an_ignored_doc_again_changes_nothing(tiers, docs):
    tiers.seed()
    docs.ignore_doc("segment-nuclei")
    before = tiers.local_text("index")
    assert docs.ignore_doc("segment-nuclei").outcome == "unchanged"
    assert tiers.local_text("index") == before
    assert before.count("segment-nuclei") == 1


def test_an_update_diff_is_labelled_before_and_a_first_copy_diff_shipped(tiers, docs):
    tiers.seed()
    tiers.put_local("mine", "# Mine\n\nold line\n")
    updated = write(docs, "mine", body="# Mine\n\nnew line\n")
    assert "a/mine.md (before)" in updated
    assert "(shipped)" not in updated
    shadowed = write(docs, "data", body="# Data, my way\n")
    assert "a/data.md (shipped)" in shadowed


def test_a_section_of_only_spaces_reads_the_outline(tiers, docs):
    tiers.put_local("mine", "# Mine\n\n## Steps\n\nOne.\n")
    assert read(docs, "mine#   ") == read(docs, "mine#")


def test_reading_unchanged_bytes_again_hands_out_the_same_view_and_changed_bytes_a_new_one(tiers, docs):
    # core/derived: what a doc's bytes yield is worked out once per path and bytes, then reused
    _put_local_dated(tiers, "mine", "# Mine\n")
    first = docs.read_doc("mine")
    assert docs.read_doc("mine") is first
    _put_local_dated(tiers, "mine", "# Mine, edited\n")
    changed = docs.read_doc("mine")
    assert changed is not first
    assert changed.text == "# Mine, edited\n"


def test_a_missing_section_is_a_404_not_found_that_names_the_outline_call(tiers, docs):
    tiers.put_local("mine", "# Mine\n\n## Steps\n\nOne.\n")
    with pytest.raises(SectionNotFound) as caught:
        docs.read_doc("mine#Nope")
    assert caught.value.status == 404  # like a missing doc, on every surface that shows a status
    assert 'read_doc("mine#") lists all 2 sections' in str(caught.value)


# -- what a caller is told: sections, stale if_match, an unusable tier (issue 20) ---------------------


def test_a_section_with_a_view_or_of_the_index_or_a_collection_names_the_read_to_make(docs):
    refusals = {}
    for requested in ("flatfield@diff#Steps", "index#Procedures", "design/#x"):
        with pytest.raises(InvalidDocId) as caught:
            docs.read_doc(requested)
        refusals[requested] = str(caught.value)
    assert refusals == {
        "flatfield@diff#Steps": (
            "A read takes a view ('@diff') or a section ('#'), not both. read_doc(\"flatfield#\") outlines "
            "'flatfield'; read_doc(\"flatfield@diff\") shows the view whole."
        ),
        "index#Procedures": 'The index has no sections to read: read_doc("index") shows it whole.',
        "design/#x": (
            "'design/' is a collection, not a doc with sections: read_doc(\"design/\") lists its docs."
        ),
    }


def test_a_stale_if_match_is_quoted_by_its_first_12_characters(tiers, docs):
    tiers.put_local("mine", "# Mine\n\none\n")
    with pytest.raises(StaleWrite) as caught:
        docs.write_doc("mine", old="one", new="two", if_match="0123456789abcdef" * 4)
    assert str(caught.value) == (
        "'mine' has changed since the text this write was based on (if_match 0123456789ab…). Nothing was "
        'written. read_doc("mine") shows the current text: write again from it.'
    )


def test_an_index_write_where_the_local_tier_cannot_be_created_says_nothing_can_be_written(tiers, tmp_path):
    (tmp_path / "blocker").write_text("a file where the local tier's parent folder must be\n")
    local = tmp_path / "blocker" / "local"
    docs = Docs(Store(tiers.shipped, local, "1.0"))
    with pytest.raises(StoreUnavailable) as caught:
        docs.write_doc("index", old="# Test docs", new="# My docs")
    assert str(caught.value) == (
        f"Nothing can be written: the local docs directory {local} is not usable. (The local index could "
        f"not be created, so this is the shipped index, read-only: Cannot create the local docs directory "
        f"{local}: Not a directory. Point DocStore.docs_local_dir at a writable directory. Reading docs "
        "works; writing fails until that is fixed.)"
    )


# -- what a write result reports (issue 20) ------------------------------------------------------------


def test_already_listed_is_said_only_of_a_created_doc_the_index_already_had(tiers, docs):
    tiers.seed()
    tiers.put_local("index", tiers.local_text("index") + "- lab/planned: planned\n")
    filed = docs.write_doc("lab/new", body="# New\n\nA new note.\n")
    listed = docs.write_doc("lab/planned", body="# Planned\n")
    unchanged = docs.write_doc("lab/new", body="# New\n\nA new note.\n")
    updated = docs.write_doc("lab/new", body="# New\n\nA newer note.\n")
    results = (filed, listed, unchanged, updated)
    assert [(r.outcome, r.filed_under, r.already_listed, len(r.changes)) for r in results] == [
        ("created", "## Unfiled", False, 2),
        ("created", None, True, 1),
        ("unchanged", None, False, 0),
        ("updated", None, False, 1),
    ]


def test_updating_a_doc_the_index_does_not_list_leaves_the_index_alone(tiers, docs):
    tiers.seed()
    tiers.put_local("unlisted", "# Unlisted\n\nKept out of the index on purpose.\n")
    index = tiers.local_text("index")
    body = docs.write_doc("unlisted", body="# Unlisted\n\nStill kept out.\n")
    edit = docs.write_doc("unlisted", old="Still", new="Always")
    assert [(r.outcome, r.filed_under, [c.id for c in r.changes]) for r in (body, edit)] == [
        ("updated", None, ["unlisted"]),
        ("updated", None, ["unlisted"]),
    ]
    assert tiers.local_text("index") == index
    assert tiers.local_text("unlisted") == "# Unlisted\n\nAlways kept out.\n"


def test_only_a_write_of_the_index_reports_the_entries_it_lost(tiers, docs):
    tiers.seed()
    tiers.put_local("lab/list", "# A list\n\n- data: how arrays are laid out\n- flatfield: shading\n")
    doc = docs.write_doc("lab/list", old="- data: how arrays are laid out\n", new="")
    assert (doc.outcome, doc.lost_entries) == ("updated", ())
    assert "no longer lists" not in text(doc)
    index = docs.write_doc("index", old="- data: how arrays are laid out\n", new="")
    assert [(e.id, e.line, e.text) for e in index.lost_entries] == [("data", None, None)]


def test_a_shrinking_body_write_with_history_off_names_no_version_to_restore(tiers):
    docs = Docs(Store(tiers.shipped, tiers.local, "1.0", history=None))
    tiers.put_local("notes", "# Notes\n\n" + "a line of notes\n" * 20)
    result = docs.write_doc("notes", body="# Notes\n")
    assert result.shrink is not None
    assert (result.shrink.lines_before, result.shrink.lines_after, result.shrink.version) == (22, 1, None)
    assert result.changes[0].version is None


def test_a_local_copy_is_written_without_reading_the_shipped_file_it_shadows(tiers, docs):
    # The local copy is the base of every write to it: a shipped file it shadows that cannot be read
    # (not UTF-8 here) never stands in the way of editing the copy.
    (tiers.shipped / "latin.md").write_bytes(b"caf\xe9\n")
    tiers.put_local("latin", "# Latin, my copy\n\ncafe\n")
    assert docs.write_doc("latin", body="# Latin, my copy\n\ncafe au lait\n").outcome == "updated"
    assert docs.write_doc("latin", old="au lait", new="noir").outcome == "updated"
    assert tiers.local_text("latin") == "# Latin, my copy\n\ncafe noir\n"
