"""A local tier with a path in the way (issue 21, item 2): a folder named like a doc file
(``flatfield.md/``, made by hand or by a version that let the id ``flatfield.md/y`` through), or a
file where an id needs a folder. Refused with the truth, and never a (missing) entry to be stuck with."""

from __future__ import annotations

import pytest

from biopb_kernel_docs.core.errors import EditRefused, InvalidDocId, StoreUnavailable, UnreadableDoc


@pytest.fixture
def with_folder(tiers, docs):
    tiers.seed()
    tiers.put_local("flatfield.md/y", "# Y\n\nInside a folder named like a doc file.\n")
    return tiers


def test_the_files_inside_are_never_listed_as_docs(with_folder, docs):
    assert "flatfield.md/y" not in with_folder.store().local_ids()
    view = docs.index()
    assert all(not entry.id.startswith("flatfield.md") for entry in view.entries)
    assert all(not item.id.startswith("flatfield.md") for item in view.new_shipped)


def test_the_doc_whose_file_name_it_takes_says_to_rename_the_folder(with_folder, docs):
    with pytest.raises(UnreadableDoc) as caught:
        docs.read_doc("flatfield")
    message = str(caught.value)
    assert "is a folder where a doc's file would be" in message
    assert "Rename the folder" in message
    with pytest.raises(UnreadableDoc, match="Rename the folder"):
        docs.write_doc("flatfield", body="# Flatfield\n\nMine.\n")
    assert (with_folder.local / "flatfield.md").is_dir()


def test_no_write_can_reach_inside_it(with_folder, docs):
    index = with_folder.local_text("index")
    with pytest.raises(InvalidDocId, match="use 'flatfield/y'"):
        docs.write_doc("flatfield.md/y", body="# Y\n\nOverwritten.\n")
    with pytest.raises(InvalidDocId, match=r"ends in '\.md'"):
        docs.read_doc("flatfield.md/y")
    assert with_folder.local_text("index") == index
    assert with_folder.local_text("flatfield.md/y") == "# Y\n\nInside a folder named like a doc file.\n"


def test_renaming_the_folder_makes_the_doc_readable_again(with_folder, docs):
    (with_folder.local / "flatfield.md").rename(with_folder.local / "flatfield-notes")
    assert docs.read_doc("flatfield").tier == "shipped"
    assert docs.read_doc("flatfield-notes/y").tier == "local"


def test_a_file_where_a_new_ids_folder_must_be_refuses_the_create_before_filing_it(tiers, docs):
    tiers.seed()
    index = tiers.local_text("index")
    (tiers.local / "lab").write_text("a note saved without .md\n")
    with pytest.raises(EditRefused) as caught:
        docs.write_doc("lab/x", body="# X\n")
    assert str(caught.value).startswith(
        f"'lab/x' cannot be created: {tiers.local / 'lab'} is a file, where this id needs a folder. "
        "Nothing was written."
    )
    assert tiers.local_text("index") == index  # no (missing) entry that no retry could fill


def test_a_write_the_disk_refuses_names_the_cause_and_what_was_left(tiers, docs):
    tiers.ship("lab/x", "# Shipped X\n")
    (tiers.local / "lab").parent.mkdir(parents=True, exist_ok=True)
    (tiers.local / "lab").write_text("in the way\n")
    with pytest.raises(StoreUnavailable) as caught:
        docs.write_doc("lab/x", body="# My X\n")  # a shadow: no entry is filed first
    message = str(caught.value)
    assert f"a file is where a folder on its path must be ({tiers.local / 'lab'})" in message
    assert "That file was left as it was. Move that file aside" in message
    assert "space" not in message
