"""The local index's first copy, and the copy seeded again after index.md was lost (§2)."""

from __future__ import annotations

from biopb_kernel_docs.core.index import ENTRY_CAP, parse_index


def test_a_reseeded_index_files_local_docs_back_up_to_exactly_the_cap(tiers):
    tiers.seed()  # the first seeding records the manifest: a later loss is a loss
    for n in range(200):
        tiers.put_local(f"lab/n{n:03d}", f"# Note {n}\n\nThe lab's note number {n}.\n")
    (tiers.local / "index.md").unlink()
    view = tiers.docs().index()
    assert ENTRY_CAP == 200
    assert len(parse_index(view.text).entries) == 200  # the seed's 3 entries and 197 filed back
    assert "- lab/n196: The lab's note number 196." in view.text
    assert "lab/n197" not in view.text
    assert "3 more could not be filed within the 200-entry cap; read them by id." in view.text


def test_a_reseeded_index_files_back_only_local_only_docs_never_a_copy_of_a_shipped_one(tiers):
    tiers.seed()
    tiers.put_local("notes", "# Notes\n\nThe lab's own notes.\n")
    tiers.put_local("old-method", "# Old method\n\nA local copy of a doc the seed ignores.\n")
    (tiers.local / "index.md").unlink()
    view = tiers.docs().index()
    assert "- notes: The lab's own notes." in view.text
    assert "- old-method:" not in view.text
    assert view.ignored == ("old-method",)


def test_a_reseeded_index_files_back_the_local_docs_after_one_the_seed_already_lists(tiers):
    (tiers.shipped / "index.md").write_text(
        (tiers.shipped / "index.md").read_text() + "\n## Lab\n- lab/a: the seed lists this local doc\n"
    )
    tiers.seed()
    tiers.put_local("lab/a", "# A\n\nFirst.\n")
    tiers.put_local("lab/b", "# B\n\nSecond.\n")
    (tiers.local / "index.md").unlink()
    text = tiers.docs().index().text
    assert "- lab/a: the seed lists this local doc" in text
    assert "- lab/b: Second." in text


def test_a_reseeded_index_puts_its_note_first_under_unfiled_above_the_docs_filed_back(tiers):
    tiers.seed()
    tiers.put_local("notes", "# Notes\n\nThe lab's own notes.\n")
    (tiers.local / "index.md").unlink()
    text = tiers.docs().index().text
    note = text.split("\n## Unfiled\n", 1)[1].split("\n")
    assert note[0].startswith("index.md was missing and was seeded again on 20")
    assert note[0].endswith(
        "; the local docs below were filed back so that none drops out of view. Remove the lines of "
        "those you had retired."
    )
    assert note[1:] == ["- notes: The lab's own notes.", "", "ignored: old-method", ""]
    assert text.startswith("# Test docs\n\n## References\n- data: how arrays are laid out\n\n## Procedures\n")
    assert "stitch-tiles: assemble a grid of tiles\n\n## Unfiled\nindex.md was missing" in text


def test_with_no_shipped_index_a_first_read_serves_the_empty_index_and_creates_nothing(tiers):
    (tiers.shipped / "index.md").unlink()
    view = tiers.docs().index()
    assert view.text == "# Docs\n"
    assert view.tier == "local"
    assert view.notices == ()
    assert view.path == str(tiers.local / "index.md")
    assert not tiers.local.exists()
