"""The review says who made each change and when, and offers Retire and Drop where Revert cannot help."""

from __future__ import annotations

from biopb_kernel_docs.core.blame import Blame
from biopb_kernel_docs.core.review import ReviewedDocs
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.core.values import Author

AGENT = Author("mcp", name="claude-code", version="2.1")
USER = Author("panel", name="alice")
BODY = "# Notes\n\nalpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\niota\nkappa\n"


def _docs(tiers, author) -> ReviewedDocs:
    return ReviewedDocs(Store(tiers.shipped, tiers.local, "1.0"), author=author)


def _item(docs, doc_id):
    return next(item for item in docs.review().items if item.id == doc_id)


def test_each_hunk_names_the_version_that_made_it(tiers):
    user, agent = _docs(tiers, USER), _docs(tiers, AGENT)
    user.write_doc("notes", body=BODY)
    user.mark_reviewed("notes", _item(user, "notes").sha256)
    agent.write_doc("notes", old="beta\n", new="beta, by the agent\n")
    user.write_doc("notes", old="kappa\n", new="kappa, by the user\n")
    item = _item(user, "notes")
    assert item.base == "reviewed"
    assert [hunk.versions for hunk in item.hunks] == [(2,), (3,)]
    assert [(v.number, v.author) for v in item.changes] == [(3, USER), (2, AGENT)]
    assert item.actions == ("looks_good", "revert")


def test_a_deletion_is_attributed_to_the_version_that_deleted(tiers):
    docs = _docs(tiers, USER)
    docs.write_doc("notes", body=BODY)
    docs.mark_reviewed("notes", _item(docs, "notes").sha256)
    _docs(tiers, AGENT).write_doc("notes", old="delta\nepsilon\n", new="")
    (hunk,) = _item(docs, "notes").hunks
    assert [line for line in hunk.lines if line[:1] == "-"] == ["-delta", "-epsilon"]
    assert hunk.versions == (2,)


def test_an_outside_edit_shows_as_such_in_the_review(tiers):
    docs = _docs(tiers, USER)
    docs.write_doc("notes", body=BODY)
    docs.mark_reviewed("notes", _item(docs, "notes").sha256)
    tiers.put_local("notes", BODY.replace("gamma", "gamma, from an editor"))
    item = _item(docs, "notes")
    assert [v.author.surface for v in item.changes] == ["outside"]
    assert item.hunks[0].versions == (item.changes[0].number,)


def test_a_new_doc_offers_retire_not_revert(tiers):
    docs = _docs(tiers, USER)
    _docs(tiers, AGENT).write_doc("lab/fresh", body="# Fresh\n\nfrom the agent\n")
    item = _item(docs, "lab/fresh")
    assert item.base == "new"
    assert item.actions == ("looks_good", "retire")
    assert [v.author for v in item.changes] == [AGENT]
    docs.retire_doc("lab/fresh")
    assert all(i.id != "lab/fresh" for i in docs.review().items)
    assert tiers.local_text("lab/fresh") == "# Fresh\n\nfrom the agent\n"


def test_a_local_copy_equal_to_shipped_offers_drop(tiers):
    docs = _docs(tiers, USER)
    docs.write_doc("flatfield", old="Step one.", new="Step one, changed.")
    docs.write_doc("flatfield", old="Step one, changed.", new="Step one.")
    item = _item(docs, "flatfield")
    assert (item.same_as_shipped, item.hunks, item.actions) == (True, (), ("drop",))
    docs.drop_local_copy("flatfield", if_match=item.sha256)
    assert all(i.id != "flatfield" for i in docs.review().items)
    assert not (tiers.local / "flatfield.md").exists()


def test_a_shadow_that_differs_from_shipped_offers_no_drop(tiers):
    docs = _docs(tiers, AGENT)
    docs.write_doc("flatfield", old="Step one.", new="Step one, changed.")
    item = _item(docs, "flatfield")
    assert (item.base, item.same_as_shipped, item.actions) == ("shipped", False, ("looks_good", "revert"))
    assert item.hunks[0].versions == (2,)  # v1 is the shipped text it replaced


def test_blame_carries_origins_through_unrelated_edits():
    blame = Blame("a\nb\nc\n", None)
    blame.apply(1, "a\nB\nc\n")
    blame.apply(2, "x\na\nB\nc\n")
    blame.apply(3, "x\na\nB\n")
    assert blame.origins == [2, None, 1]
    assert blame.versions_in(3, 3) == (3,)  # the deletion of 'c' sits after the last line
    assert blame.versions_in(0, 1) == (2,)
