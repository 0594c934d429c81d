"""The store's parts below the operations: a doc's derived facts (``derived``), the index's markers
and tails (``reconcile``), and the history as the store reads and records it (``store_history``)."""

from __future__ import annotations

import os
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from biopb_kernel_docs.core.derived import Derived, derived
from biopb_kernel_docs.core.errors import DocNotFound
from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store

# -- derived: what a doc's bytes yield -----------------------------------------------------------


def test_a_docs_facts_count_its_lines_and_place_its_headings_after_the_frontmatter():
    text = (
        "---\ndescription: µm scale\n---\n# Title\n\nIntro — one.\n\n"
        "## Steps\nOne — two.\n## Notes\nLast line"
    )
    facts = Derived("lab/scale", text.encode(), text)
    assert facts.line_count == 11
    assert [(e.title, e.line, e.end, e.line_count) for e in facts.outline] == [
        ("Title", 4, 11, 8),
        ("Steps", 8, 9, 2),
        ("Notes", 10, 11, 2),
    ]
    assert facts.line_starts == [0, 4, 26, 30, 38, 39, 52, 53, 62, 73, 82]
    # The bytes put each line further on by every multi-byte character before it (µ is 2, — is 3).
    assert facts.byte_line_starts == [0, 4, 27, 31, 39, 40, 55, 56, 65, 78, 87]


@pytest.mark.parametrize(
    ("text", "lines"), [("", 0), ("\n", 1), ("one", 1), ("one\n", 1), ("one\ntwo", 2), ("one\n\n", 2)]
)
def test_a_last_line_without_a_newline_counts_and_an_empty_doc_has_no_lines(text, lines):
    assert Derived("d", text.encode(), text).line_count == lines


LINE_KINDS = ["", "a", "é", "—", "# H", "## Sub", "---", "x: y"]


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(st.lists(st.sampled_from(LINE_KINDS), max_size=12), st.booleans())
def test_where_each_line_starts_in_the_bytes_and_how_many_lines_there_are(lines, trailing_newline):
    text = "\n".join(lines) + ("\n" if trailing_newline and lines else "")
    data = text.encode()
    facts = Derived("d", data, text)
    offsets = [0] + [n + 1 for n, byte in enumerate(data) if byte == ord("\n")]
    assert facts.byte_line_starts == offsets
    assert facts.line_count == (len(text.split("\n")) - text.endswith("\n") if text else 0)


def test_the_same_bytes_at_the_same_path_give_the_facts_worked_out_before(tmp_path):
    path = str(tmp_path / "a.md")
    first = derived(path, "a", b"# A\n", lambda: "# A\n")
    read_again = bytes(bytearray(b"# A\n"))  # the file read again: equal bytes, another object
    assert read_again is not first.data
    assert derived(path, "a", read_again, lambda: "# A\n") is first


def test_changed_bytes_at_the_same_path_are_worked_out_afresh(tmp_path):
    path = str(tmp_path / "a.md")
    derived(path, "a", b"# A\n", lambda: "# A\n")
    again = derived(path, "a", b"# A\n\nMore.\n", lambda: "# A\n\nMore.\n")
    assert again.text == "# A\n\nMore.\n"
    assert again.line_count == 3
    assert derived(path, "b", b"# A\n\nMore.\n", lambda: "# A\n\nMore.\n").doc_id == "b"


def test_the_facts_of_1024_docs_are_kept_and_the_one_worked_out_longest_ago_goes_first(tmp_path):
    def facts(n: int, text: str = "# Doc\n"):
        return derived(str(tmp_path / f"n{n}.md"), f"n{n}", text.encode(), lambda: text)

    first = [facts(n) for n in range(1024)]
    assert facts(0) is first[0]  # all 1024 kept
    renewed = facts(0, "# Doc\n\nEdited.\n")  # worked out again: now the newest
    facts(1024)  # one more than the bound drops the oldest, n1
    assert facts(0, "# Doc\n\nEdited.\n") is renewed
    assert facts(1) is not first[1]


# -- reconcile: the index's date ------------------------------------------------------------------


def test_the_index_is_dated_by_its_frontmatter_else_by_its_files_modification_day(tiers):
    tiers.seed()
    index = tiers.local / "index.md"
    noon = time.mktime((2025, 7, 9, 12, 0, 0, 0, 0, -1))  # local noon: the day is the same in any zone
    os.utime(index, (noon, noon))
    assert tiers.docs().index().updated == "2025-07-09"
    index.write_text("---\nupdated: 2024-02-29\n---\n" + index.read_text(encoding="utf-8"), encoding="utf-8")
    os.utime(index, (noon, noon))
    assert tiers.docs().index().updated == "2024-02-29"


# -- store_history: the versions as the store reads them ------------------------------------------


def test_with_no_history_kept_reading_versions_finds_none_and_names_the_setting(tiers):
    store = Store(tiers.shipped, tiers.local, "1.0", history=None)
    Docs(store).write_doc("notes", body="# Notes\n")
    assert store.versions("notes") == []
    assert store.version_texts("notes") == []
    with pytest.raises(DocNotFound) as caught:
        store.version("notes", 1)
    assert str(caught.value) == (
        "No history is kept here: DocStore.history_max_versions is 0. Set it to keep versions "
        "(100 by default)."
    )


def test_a_doc_never_written_through_the_store_has_no_versions_and_reading_them_creates_none(tiers):
    tiers.seed()
    tiers.put_local("notes", "# Notes\n\nPut here by hand.\n")
    before = sorted(p.relative_to(tiers.local) for p in tiers.local.rglob("*"))
    store = tiers.store()
    assert store.versions("notes") == []
    assert store.version_texts("notes") == []
    with pytest.raises(DocNotFound) as caught:
        store.version("notes", 1)
    assert str(caught.value) == (
        "'notes' has no versions kept: it has not been written through the store since history began. "
        'read_doc("notes@history") lists versions once it has.'
    )
    assert sorted(p.relative_to(tiers.local) for p in tiers.local.rglob("*")) == before


def test_a_drop_is_a_landed_version_so_a_copy_put_back_by_hand_is_recorded_after_it(tiers):
    docs = tiers.docs()
    docs.write_doc("flatfield", old="Step one.", new="Step one, mine.")
    docs.write_doc("flatfield", old="Step one, mine.", new="Step one.")
    docs.drop_local_copy("flatfield")  # v4
    tiers.put_local("flatfield", "# Flatfield\n\nPut back by hand.\n")  # an outside edit, v5
    versions = Docs(tiers.store()).read_doc("flatfield@history").versions  # another process
    assert [(v.number, v.local, v.current) for v in versions] == [
        (5, True, True),
        (4, False, False),
        (3, True, False),
        (2, True, False),
        (1, False, False),
    ]
    texts = tiers.store().version_texts("flatfield")
    assert [(header.number, data) for header, data in texts][3:] == [
        (4, (tiers.shipped / "flatfield.md").read_bytes()),
        (5, b"# Flatfield\n\nPut back by hand.\n"),
    ]


# -- reconcile: the index's markers ---------------------------------------------------------------


def test_an_entry_naming_a_banked_id_is_missing_unless_its_shipped_file_exists(tiers):
    tiers.seed()
    tiers.put_local(
        "index",
        "# Test docs\n\n## Promoted\n- _banked: thin evidence, promoted\n- _gone: banked, never shipped\n"
        "- lab/mine: a local doc\n",
    )
    tiers.put_local("lab/mine", "# Mine\n")
    markers = {e.id: e.marker for e in tiers.docs().index().entries}
    assert markers == {"_banked": None, "_gone": "missing", "lab/mine": None}
