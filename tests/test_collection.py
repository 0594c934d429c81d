"""§7 collections: read_doc("segment/") lists the docs under a '- segment/:' line."""

from __future__ import annotations

import pytest

from biopb_kernel_docs.core.errors import DocNotFound, InvalidDocId
from biopb_kernel_docs.core.index import ENTRY_CAP, parse_index
from biopb_kernel_docs.core.values import CollectionView
from biopb_kernel_docs.text.handshake import handshake
from biopb_kernel_docs.text.render import text

INDEX = """\
# Test docs

## References
- data: how arrays are laid out

## Design
- design/: the engine's design docs, one per package
- design/store: the store, in the index's own words
- empty/: where the lab's notes will go

ignored: design/retired
"""


@pytest.fixture
def docs(tiers):
    tiers.ship("design/store", "---\ndescription: the store's design\n---\n# Store\n")
    tiers.ship("design/wire", "---\ndescription: the kernel wire\n---\n# Wire\n")
    tiers.ship("design/deep/notes", "# Notes\n\nDeep notes on the design.\n")
    tiers.ship("design/_draft", "# Draft\n\nThin evidence.\n")
    tiers.ship("design/retired", "# Retired\n\nOld.\n")
    tiers.ship("other/thing", "# Thing\n\nUnlisted.\n")
    tiers.put_local("index", INDEX)
    tiers.put_local("design/wire", "---\ndescription: my notes on the wire\n---\n# Wire, mine\n")
    tiers.put_local("design/mine", "# Mine\n\nA local doc under the collection.\n")
    return tiers.docs()


def test_a_collection_lists_its_docs_resolved_as_reads_are(docs):
    view = docs.read_doc("design/")
    assert isinstance(view, CollectionView)
    assert (view.listed, view.hook, view.heading) == (
        True,
        "the engine's design docs, one per package",
        "## Design",
    )
    assert [(i.id, i.hook, i.tier, i.shadows_shipped) for i in view.items] == [
        ("design/deep/notes", "Deep notes on the design.", "shipped", False),
        ("design/mine", "A local doc under the collection.", "local", False),
        ("design/store", "the store, in the index's own words", "shipped", False),  # the entry's hook
        ("design/wire", "my notes on the wire", "local", True),  # the local copy shadows
    ]  # banked design/_draft and ignored design/retired are left out
    shown = text(view)
    assert shown.startswith("[design/ · collection · 4 docs · listed under ## Design]\n\n")
    assert "design/: the engine's design docs, one per package\n" in shown
    assert "- design/wire: my notes on the wire (local copy)\n" in shown


def test_an_unlisted_collection_is_readable_and_says_it_is_not_in_the_index(docs):
    view = docs.read_doc("other/")
    assert (view.listed, [i.id for i in view.items]) == (False, ["other/thing"])
    assert "not in the index" in text(view)
    assert 'write_doc("index", old=..., new=...)' in text(view)


def test_a_listed_collection_with_no_docs_is_an_empty_listing_that_says_how_to_add_one(docs):
    view = docs.read_doc("empty/")
    assert (view.listed, view.items) == (True, ())
    assert 'No docs under empty/ yet: write_doc("empty/<name>", body=...) writes one.' in text(view)


def test_an_unlisted_collection_with_no_docs_is_not_found_with_the_nearest(docs):
    with pytest.raises(DocNotFound, match=r"No collection 'desing/'.*Did you mean 'design/'"):
        docs.read_doc("desing/")


def test_a_collection_takes_no_view(docs):
    with pytest.raises(InvalidDocId, match="lists its docs"):
        docs.read_doc("design/@diff")


def test_reconciliation_treats_a_shipped_doc_under_a_listed_collection_as_filed(docs):
    new = [item.id for item in docs.index().new_shipped]
    assert "design/wire" not in new
    assert "design/deep/notes" not in new
    assert "other/thing" in new  # under no listed collection: New, as before
    assert "segment-nuclei" in new


def test_the_collection_line_is_one_entry_for_the_cap_and_the_handshake(docs):
    view = docs.index()
    assert [e.id for e in view.entries if e.collection] == ["design/", "empty/"]
    assert len(parse_index(INDEX).entries) == 4 <= ENTRY_CAP
    sent = handshake(view, 2048).text
    assert "- design/: the engine's design docs" in sent
    assert "design/deep/notes" not in sent  # one hop away: read_doc("design/")


def test_the_store_never_invents_a_collection(tiers):
    tiers.ship("lab/a", "# A\n\nOne.\n")
    docs = tiers.docs()
    created = docs.write_doc("lab/b", body="# B\n\nTwo.\n")
    assert created.filed_under == "## Unfiled"
    index = docs.index()
    assert not any(e.collection for e in index.entries)
    assert "- lab/b: Two." in index.text


def test_reading_a_collection_before_the_first_write_creates_nothing(tiers):
    (tiers.shipped / "index.md").write_text(INDEX, encoding="utf-8")  # the shipped index lists design/
    tiers.ship("design/store", "# Store\n\nThe store.\n")
    view = tiers.docs().read_doc("design/")
    assert [item.id for item in view.items] == ["design/store"]
    assert not tiers.local.exists()  # a read creates nothing: the first write seeds the index


def test_a_local_collection_folder_that_links_out_of_the_tier_lists_nothing(tiers, tmp_path):
    from biopb_kernel_docs.core.store import Tier

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nnot the tier's to list\n")
    tiers.put_local("index", "# Lab docs\n\n## Lab\n- lab/: the lab's own notes\n")
    (tiers.local / "lab").symlink_to(outside, target_is_directory=True)
    assert tiers.store().ids_under(Tier.LOCAL, "lab/") == []
    view = tiers.docs().read_doc("lab/")
    assert isinstance(view, CollectionView)
    assert view.items == ()
    assert "secret" not in text(view)


def test_an_unknown_collection_suggests_the_first_folder_of_ids_no_index_line_names(tiers, docs):
    tiers.put_local("protocols/stain", "# Stain\n\nThe lab's staining protocol.\n")
    with pytest.raises(DocNotFound, match=r"No collection 'othr/'.*Did you mean 'other/'\?") as shipped:
        docs.read_doc("othr/")  # shipped other/thing: no '- other/:' line in the index
    assert 'read_doc("index") lists the docs and collections.' in str(shipped.value)
    with pytest.raises(DocNotFound, match=r"Did you mean 'protocols/'\?"):
        docs.read_doc("protocol/")  # local protocols/stain


def test_an_unknown_collection_never_suggests_a_flat_doc_or_a_banked_folder(tiers, docs):
    tiers.ship("_archive/old-notes", "# Old\n\nBanked notes.\n")
    tiers.put_local("flatfield", "# Flatfield\n\nA flat doc, not a collection.\n")
    with pytest.raises(DocNotFound) as flat:
        docs.read_doc("flatfeld/")
    assert str(flat.value) == (
        "No collection 'flatfeld/': the index has no '- flatfeld/:' line and no doc's id starts with "
        "'flatfeld/'. read_doc(\"index\") lists the docs and collections."
    )
    with pytest.raises(DocNotFound) as banked:
        docs.read_doc("archive/")
    assert "Did you mean" not in str(banked.value)
    assert "_archive" not in str(banked.value)


def test_an_unreadable_doc_stays_in_its_collection_saying_why(tiers):
    tiers.put_local("index", "# Lab docs\n\n## Lab\n- lab/: the lab's notes\n- lab/listed: its index hook\n")
    tiers.put_local("lab/broken", b"# Broken\n\xff\xfe\n")  # local only: shadows nothing
    tiers.put_local("lab/listed", b"# Listed\n\xff\n")
    tiers.ship("lab/old", "# Old\n").write_bytes(b"# Old\n\xfe\n")  # shipped only
    tiers.put_local("lab/ok", "# OK\n\nReads fine.\n")
    view = tiers.docs().read_doc("lab/")
    assert [(i.id, i.tier, i.shadows_shipped) for i in view.items] == [
        ("lab/broken", "local", False),
        ("lab/listed", "local", False),
        ("lab/ok", "local", False),
        ("lab/old", "shipped", False),
    ]
    hooks = {i.id: i.hook for i in view.items}
    assert hooks["lab/listed"] == "its index hook"  # the index's own words, read or not
    assert hooks["lab/ok"] == "Reads fine."
    for doc_id in ("lab/broken", "lab/old"):
        assert hooks[doc_id].startswith("(cannot be read: ")
        assert "is not valid UTF-8 (byte 0x" in hooks[doc_id]
        assert f"so doc {doc_id!r} cannot be read or edited" in hooks[doc_id]
    shown = text(view)
    assert shown.startswith("[lab/ · collection · 4 docs · listed under ## Lab]\n\n")
    assert "- lab/broken: (cannot be read: " in shown


def test_an_unknown_collection_suggests_at_most_three_nearest(tiers):
    for name in ("lab1", "lab2", "lab3", "lab4", "lab5"):
        tiers.ship(f"{name}/notes", "# Notes\n\nNotes.\n")
    with pytest.raises(DocNotFound) as unknown:
        tiers.docs().read_doc("lab/")
    assert str(unknown.value) == (
        "No collection 'lab/': the index has no '- lab/:' line and no doc's id starts with 'lab/'. "
        "Did you mean 'lab5/' or 'lab4/' or 'lab3/'? read_doc(\"index\") lists the docs and collections."
    )  # five as near as each other: three are named
