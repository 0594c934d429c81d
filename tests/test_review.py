"""The panel's review (core/review.py): hunks against what the user last reviewed, putting one hunk
back, and hunk positions called directly as the core API (the operation list refuses a negative
number before it gets here, so this pins the core's own rule); who made each change and when, and
Retire and Drop where Revert cannot help."""

from __future__ import annotations

import random

import pytest

from biopb_kernel_docs.core.blame import Blame, line_delta, opcodes
from biopb_kernel_docs.core.errors import InvalidArguments, StaleWrite
from biopb_kernel_docs.core.review import ReviewedDocs, hunks, revert_edit
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.core.values import Author
from biopb_kernel_docs.core.version_folders import HistoryLimits


@pytest.fixture
def one_hunk(tiers):
    docs = ReviewedDocs(tiers.store())
    tiers.seed()  # a read creates nothing: the first write (here, the seeding) makes index.md
    tiers.put_local("index", tiers.local_text("index").replace("correct uneven illumination", "the agent's"))
    (item,) = docs.review().items
    assert len(item.hunks) == 1
    return docs, item


@pytest.mark.parametrize("hunk", [-1, -2, 1, True, "0", 0.0])
def test_a_hunk_is_a_position_from_zero_below_the_count_never_from_the_end(tiers, one_hunk, hunk):
    docs, item = one_hunk
    with pytest.raises(InvalidArguments, match=r"from 0 to 0, not"):
        docs.revert_hunk("index", hunk, item.sha256)
    with pytest.raises(InvalidArguments, match=r"from 0 to 0, not"):
        docs.mark_reviewed("index", item.sha256, hunk)
    assert "the agent's" in tiers.local_text("index")


def test_hunk_zero_reverts_and_then_there_is_no_hunk_left(tiers, one_hunk):
    docs, item = one_hunk
    docs.revert_hunk("index", 0, item.sha256)
    assert "correct uneven illumination" in tiers.local_text("index")
    sha = docs.index().sha256
    with pytest.raises(InvalidArguments, match="'index' has no hunks left to review, so there is no hunk 0"):
        docs.revert_hunk("index", 0, sha)


REVIEWED = "# Steps\n\n- load\n- check\n\n- load\n- look\n"
EDITED = "# Steps\n\n- load\n- check\n\n- load\n- check\n"  # the changed line repeats one above it


@pytest.fixture
def reviewed(tiers) -> ReviewedDocs:
    docs = ReviewedDocs(tiers.store())
    written = docs.write_doc("lab/steps", body=REVIEWED)
    docs.mark_reviewed("lab/steps", written.changes[0].after_sha256)
    tiers.put_local("lab/steps", EDITED)  # an edit the user has not looked at yet
    return docs


def _item(docs: ReviewedDocs, doc_id: str):
    return next(item for item in docs.review().items if item.id == doc_id)


def test_reverting_a_hunk_whose_lines_repeat_elsewhere_puts_back_that_hunk_only(tiers, reviewed):
    item = _item(reviewed, "lab/steps")
    (hunk,) = item.hunks
    assert [line for line in hunk.lines if line[:1] in "-+"] == ["-- look", "+- check"]
    reviewed.revert_hunk("lab/steps", 0, item.sha256)
    assert tiers.local_text("lab/steps") == REVIEWED


@pytest.mark.parametrize("hunk", [1, -1])
def test_a_hunk_number_outside_the_hunks_shown_is_a_400_and_changes_nothing(tiers, reviewed, hunk):
    item = _item(reviewed, "lab/steps")
    assert len(item.hunks) == 1
    for act in (
        lambda: reviewed.revert_hunk("lab/steps", hunk, item.sha256),
        lambda: reviewed.mark_reviewed("lab/steps", item.sha256, hunk),
    ):
        with pytest.raises(
            InvalidArguments,
            match=r"hunk must be the position of one of the 1 hunks of 'lab/steps' the review shows",
        ) as err:
            act()
        assert err.value.status == 400
    assert tiers.local_text("lab/steps") == EDITED
    assert _item(reviewed, "lab/steps").hunks == item.hunks


# -- who made each change, and Retire and Drop (issue 18) ----------------------------------------------

AGENT = Author("mcp", name="claude-code", version="2.1")
USER = Author("panel", name="alice")
BODY = "# Notes\n\nalpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\niota\nkappa\n"


def _docs(tiers, author) -> ReviewedDocs:
    return ReviewedDocs(Store(tiers.shipped, tiers.local, "1.0"), author=author)


def test_each_hunk_names_the_version_that_made_it(tiers):
    user, agent = _docs(tiers, USER), _docs(tiers, AGENT)
    user.write_doc("notes", body=BODY)
    user.mark_reviewed("notes", _item(user, "notes").sha256)
    agent.write_doc("notes", old="beta\n", new="beta, by the agent\n")
    user.write_doc("notes", old="kappa\n", new="kappa, by the user\n")
    item = _item(user, "notes")
    assert item.base == "reviewed"
    assert [hunk.versions for hunk in item.hunks] == [(2,), (3,)]
    # newest first, and only the newest is what the doc reads as now
    assert [(v.number, v.author, v.current) for v in item.changes] == [(3, USER, True), (2, AGENT, False)]
    assert item.actions == ("looks_good", "revert")


def test_each_hunk_of_a_doc_with_crlf_line_ends_names_the_version_that_made_it(tiers):
    user, agent = _docs(tiers, USER), _docs(tiers, AGENT)
    user.write_doc("notes", body=BODY)
    (tiers.local / "notes.md").write_bytes(BODY.replace("\n", "\r\n").encode())  # saved by a Windows editor
    user.mark_reviewed("notes", _item(user, "notes").sha256)
    agent.write_doc("notes", old="beta\n", new="beta, by the agent\n")
    item = _item(user, "notes")
    assert (tiers.local / "notes.md").read_bytes().count(b"\r\n") == BODY.count("\n")
    assert [hunk.versions for hunk in item.hunks] == [(3,)]
    assert [(v.number, v.author) for v in item.changes] == [(3, AGENT)]


def test_a_deletion_is_attributed_to_the_version_that_deleted(tiers):
    docs = _docs(tiers, USER)
    docs.write_doc("notes", body=BODY)
    docs.mark_reviewed("notes", _item(docs, "notes").sha256)
    _docs(tiers, AGENT).write_doc("notes", old="delta\nepsilon\n", new="")
    (hunk,) = _item(docs, "notes").hunks
    assert [line for line in hunk.lines if line[:1] == "-"] == ["-delta", "-epsilon"]
    assert hunk.versions == (2,)


def test_a_hunk_header_names_the_first_changed_line_of_each_side_and_how_many_changed(tiers):
    # The panel reads these ranges (mergeview.ts hunkRanges): 1-based, no context in the counts.
    docs = _docs(tiers, USER)
    docs.write_doc("notes", body=BODY)
    docs.mark_reviewed("notes", _item(docs, "notes").sha256)
    docs.write_doc("notes", old="alpha\n", new="alpha\nalpha two\n")
    docs.write_doc("notes", old="kappa\n", new="kappa, changed\n")
    assert [hunk.header for hunk in _item(docs, "notes").hunks] == ["@@ -4,0 +4,1 @@", "@@ -12,1 +13,1 @@"]


def test_a_hunk_quotes_three_unchanged_lines_either_side_of_the_change(tiers):
    docs = _docs(tiers, USER)
    docs.write_doc("notes", body=BODY)
    docs.mark_reviewed("notes", _item(docs, "notes").sha256)
    docs.write_doc("notes", old="delta\nepsilon\n", new="")
    (hunk,) = _item(docs, "notes").hunks
    assert hunk.lines == (" alpha", " beta", " gamma", "-delta", "-epsilon", " zeta", " eta", " theta")


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


def test_dropping_a_local_copy_reports_it_removed_with_nothing_filed_or_listed(tiers):
    docs = _docs(tiers, USER)
    docs.write_doc("flatfield", old="Step one.", new="Step one, changed.")
    docs.write_doc("flatfield", old="Step one, changed.", new="Step one.")
    result = docs.drop_local_copy("flatfield")
    assert (result.outcome, result.filed_under, result.already_listed) == ("removed", None, False)


def test_a_drop_stays_in_the_history_when_an_editor_saves_the_copy_again_before_any_read(tiers):
    docs = _docs(tiers, USER)
    docs.write_doc("flatfield", old="Step one.", new="Step one, changed.")
    docs.write_doc("flatfield", old="Step one, changed.", new="Step one.")
    docs.drop_local_copy("flatfield")
    tiers.put_local("flatfield", (tiers.shipped / "flatfield.md").read_text())  # nothing read in between
    versions = docs.history("flatfield").versions  # newest first
    assert [(v.number, v.author.surface, v.local) for v in versions] == [
        (5, "outside", True),  # the editor's copy
        (4, "panel", False),  # the drop: the shipped text read again
        (3, "panel", True),
        (2, "panel", True),
        (1, "shipped", False),
    ]


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


def test_blame_moves_a_deletion_inside_a_later_deletion_to_the_gap_left_in_its_place():
    blame = Blame("a\nb\nc\n", None)
    blame.apply(1, "a\nc\n")  # deletes 'b': the gap before 'c'
    blame.apply(2, "a\n")  # deletes 'c', and the gap before it with it
    assert blame.origins == [None]
    assert blame.versions_in(1, 1) == (1, 2)  # both deletions sit after 'a'
    assert blame.versions_in(0, 0) == ()  # nothing was deleted before 'a'


def test_opcodes_place_the_common_tail_at_its_own_lines_in_both_texts():
    # The tail is matched before difflib runs; its span in the longer text starts where that text's
    # tail starts, as difflib's own opcodes over the whole texts put it.
    found = opcodes(["a\n", "b\n", "c\n"], ["a\n", "x\n", "y\n", "c\n"])
    assert found == [("equal", 0, 1, 0, 1), ("replace", 1, 2, 1, 3), ("equal", 2, 3, 3, 4)]


def test_opcodes_are_an_edit_script_whose_equal_spans_hold_the_same_lines_on_both_sides():
    # Lines from a small alphabet repeat, as blank lines and list items do in a doc.
    rng = random.Random(20261210)
    for _ in range(3000):
        a = [rng.choice("abc") + "\n" for _ in range(rng.randrange(7))]
        b = [rng.choice("abc") + "\n" for _ in range(rng.randrange(7))]
        found = opcodes(a, b)
        rebuilt, at_a, at_b = [], 0, 0
        for tag, a1, a2, b1, b2 in found:
            assert (a1, b1) == (at_a, at_b), (a, b, found)
            if tag == "equal":
                assert a[a1:a2] == b[b1:b2], (a, b, found)
            rebuilt += b[b1:b2]
            at_a, at_b = a2, b2
        assert (at_a, at_b, rebuilt) == (len(a), len(b), b), (a, b, found)


def test_blame_keeps_a_line_that_moves_up_with_the_version_that_wrote_it():
    blame = Blame("y\n", None)
    blame.apply(1, "x\ny\n")  # v1 adds 'x' above 'y'
    blame.apply(2, "q\nx\n")  # v2 adds 'q' on top and deletes 'y': 'x' is still v1's line
    assert blame.origins == [2, 1]
    assert blame.versions_in(2, 2) == (2,)  # the deletion of 'y' sits after the last line


def test_line_counts_of_an_edit_to_a_last_line_without_a_newline_count_it_removed_and_added():
    # The last line keeps its end ('2', 'x') but is a changed line all the same.
    assert line_delta("# Notes\n- a\n2", "# Notes\n- a\n12") == (1, 1)
    assert line_delta("a\nx", "b\nyx") == (2, 2)
    assert line_delta("a\nx", "a\nx\n") == (0, 0)  # a newline added at the end changes no line


def test_line_counts_of_a_deletion_among_repeated_lines_count_only_the_lines_deleted():
    # The kept tail ("Run it." and the blank lines around it) repeats above: it must be matched
    # whole, or a kept line counts as removed and added again.
    assert line_delta("Run it.\n\n- check\nRun it.\n\n", "\nRun it.\n\n") == (0, 2)


def test_line_counts_of_a_line_moved_below_blank_lines_count_it_once_removed_and_once_added():
    # the texts share their first two lines ('# Notes' and a blank one) and part at a line start: both
    # are kept; taking the blank one in among the lines matched lets difflib pair the wrong blank
    # lines, and a kept line counts as removed and added again
    assert line_delta("# Notes\n\n- check\n\n\n", "# Notes\n\n\n\n- check\n") == (1, 1)


def test_blame_of_a_long_edit_among_many_blank_lines_keeps_the_blank_lines_with_their_version():
    # difflib's autojunk would take the blank lines (over 1 % of 200 or more lines) for junk, match
    # nothing, and name the rewording version for every blank line too
    blame = Blame("".join(f"step {n}\n\n\n" for n in range(100)), None)
    blame.apply(1, "".join(f"Step {n}.\n\n\n" for n in range(100)))
    assert blame.origins == [1, None, None] * 100
    assert blame.versions_in(1, 2) == ()  # a blank line between two reworded steps


def test_a_version_that_only_adds_lines_deleted_nothing_beside_them():
    blame = Blame("a\nb\n", None)
    blame.apply(1, "a\nx\nb\n")  # adds 'x' between 'a' and 'b', deleting nothing
    blame.apply(2, "A\nx\nb\n")  # rewords 'a'
    assert blame.gaps == [{2}, set(), set(), set()]
    assert blame.versions_in(0, 1) == (2,)  # the hunk 'A' is v2's alone, though 'x' follows it


# -- acting on a review that is out of date, and the quote a revert makes (issue 20) -----------------


@pytest.mark.parametrize("since", ["edited", "deleted"])
def test_mark_reviewed_refuses_a_review_the_doc_has_moved_past_and_keeps_the_baseline(tiers, reviewed, since):
    item = _item(reviewed, "lab/steps")
    if since == "edited":
        tiers.put_local("lab/steps", EDITED + "- and more\n")
    else:
        (tiers.local / "lab/steps.md").unlink()
    with pytest.raises(StaleWrite, match="changed since the review you acted on was shown") as err:
        reviewed.mark_reviewed("lab/steps", item.sha256)
    assert "Nothing was changed: reload the review" in str(err.value)
    assert err.value.status == 409
    tiers.put_local("lab/steps", EDITED)
    assert _item(reviewed, "lab/steps").hunks == item.hunks  # still reviewed against REVIEWED


def test_a_revert_quotes_the_hunk_with_the_least_context_that_occurs_once_not_the_whole_doc():
    # Hunk 1 deletes the last 'wash'; 'wash' alone occurs twice, 'rinse' and one 'wash' once.
    before, after = "wash\nwash\nwash\n", "wash\nrinse\nwash\n"
    assert revert_edit(before, after, 1) == ("rinse\nwash\n", "rinse\nwash\nwash\n")


# -- survivors of the survey of review.py against its tests (seed 20261302) ---------------------------


def _reviewed_then_edited(tiers, before: str, after: str, **store) -> ReviewedDocs:
    docs = ReviewedDocs(Store(tiers.shipped, tiers.local, "1.0", **store), author=USER)
    written = docs.write_doc("lab/steps", body=before)
    docs.mark_reviewed("lab/steps", written.changes[0].after_sha256)
    tiers.put_local("lab/steps", after)
    return docs


@pytest.mark.parametrize(
    ("hunk", "shown"),
    [
        (10**20 - 1, "99999999999999999999"),
        (-(10**20) + 1, "-99999999999999999999"),
        (10**20, "that"),
        ("x" * 20, "'xxxxxxxxxxxxxxxxxxxx'"),
        ("x" * 21, "that"),
    ],
)
def test_a_hunk_number_is_quoted_back_up_to_twenty_digits_and_a_string_up_to_twenty_characters(
    one_hunk, hunk, shown
):
    docs, item = one_hunk
    with pytest.raises(InvalidArguments) as err:
        docs.revert_hunk("index", hunk, item.sha256)
    assert str(err.value).endswith(f"from 0 to 0, not {shown}.")


def test_marking_one_hunk_reviewed_keeps_the_other_hunks_to_review(tiers):
    docs = _reviewed_then_edited(
        tiers, BODY, BODY.replace("beta", "beta, edited").replace("kappa", "kappa, edited")
    )
    item = _item(docs, "lab/steps")
    assert len(item.hunks) == 2
    view = docs.mark_reviewed("lab/steps", item.sha256, 1)
    (left,) = next(i for i in view.items if i.id == "lab/steps").hunks
    assert [line for line in left.lines if line[:1] in "-+"] == ["-beta", "+beta, edited"]
    reviewed = (tiers.local / ".review" / "lab" / "steps.md").read_text(encoding="utf-8")
    assert reviewed == BODY.replace("kappa", "kappa, edited")  # the baseline moved past hunk 1 only
    assert tiers.local_text("lab/steps") == BODY.replace("beta", "beta, edited").replace(
        "kappa", "kappa, edited"
    )


def test_a_hunk_near_the_top_quotes_every_line_above_it_down_to_the_first(tiers):
    docs = _reviewed_then_edited(tiers, BODY, BODY.replace("alpha", "alpha, edited"))
    (hunk,) = _item(docs, "lab/steps").hunks
    assert hunk.lines == (" # Notes", " ", "-alpha", "+alpha, edited", " beta", " gamma", " delta")
    assert hunk.header == "@@ -3,1 +3,1 @@"


LONG = "# Protocol\n\n" + "".join(f"## Step {n}\n\nDo step {n}.\n\n" for n in range(60))  # 242 lines


def test_two_edits_in_a_long_doc_apart_by_one_blank_line_are_two_hunks(tiers):
    # Blank lines make up a third of a long doc: they still count as unchanged between two edits.
    edited = LONG.replace("Do step 0.", "Do step 0 twice.").replace("## Step 1\n", "## Step one\n")
    hunks_shown = _item(_reviewed_then_edited(tiers, LONG, edited), "lab/steps").hunks
    assert [h.header for h in hunks_shown] == ["@@ -5,1 +5,1 @@", "@@ -7,1 +7,1 @@"]
    assert [[line for line in h.lines if line[:1] in "-+"] for h in hunks_shown] == [
        ["-Do step 0.", "+Do step 0 twice."],
        ["-## Step 1", "+## Step one"],
    ]


def test_reverting_blank_lines_added_quotes_enough_to_occur_once_counting_overlaps(tiers):
    # "\n\n" alone occurs twice in "\n\n\n", at neighbouring characters.
    docs = _reviewed_then_edited(tiers, "# Steps\n- load\n", "# Steps\n\n\n- load\n")
    item = _item(docs, "lab/steps")
    docs.revert_hunk("lab/steps", 0, item.sha256)
    assert tiers.local_text("lab/steps") == "# Steps\n- load\n"


def test_reverting_the_hunk_of_an_emptied_doc_puts_its_text_back(tiers):
    docs = _reviewed_then_edited(tiers, "# Steps\n\n- load\n", "")
    item = _item(docs, "lab/steps")
    assert (item.actions, [h.lines for h in item.hunks]) == (
        ("looks_good", "revert"),
        [("-# Steps", "-", "-- load")],
    )
    docs.revert_hunk("lab/steps", 0, item.sha256)
    assert tiers.local_text("lab/steps") == "# Steps\n\n- load\n"


def test_with_no_history_kept_the_review_shows_the_hunks_naming_no_versions(tiers):
    docs = _reviewed_then_edited(
        tiers, BODY, BODY.replace("gamma", "gamma, edited"), history=HistoryLimits(max_versions=0)
    )
    item = _item(docs, "lab/steps")
    assert [(h.lines[3:5], h.versions) for h in item.hunks] == [(("-gamma", "+gamma, edited"), ())]
    assert (item.changes, item.actions) == ((), ("looks_good", "revert"))


def _occurs_once(text: str, part: str) -> bool:
    found = [at for at in range(len(text)) if text.startswith(part, at)]  # overlapping counted
    return part != "" and len(found) == 1


def test_a_revert_quote_is_the_hunk_with_the_fewest_lines_either_side_that_occurs_once():
    # Lines from a small alphabet with blank lines repeat, as they do in a doc. The reference: the
    # hunk's lines with c lines either side (cut at the ends), for the least c that occurs once.
    rng = random.Random(20261302)
    for _ in range(3000):
        before = "".join(rng.choice(["a\n", "b\n", "\n"]) for _ in range(rng.randrange(7)))
        after = "".join(rng.choice(["a\n", "b\n", "\n"]) for _ in range(rng.randrange(7)))
        b = after.splitlines(keepends=True)
        a = before.splitlines(keepends=True)
        for n, change in enumerate(hunks(before, after)):
            old, new = revert_edit(before, after, n)
            undone = "".join(b[: change.b1] + a[change.a1 : change.a2] + b[change.b2 :])
            if not after:  # nothing to quote: the whole text goes back
                assert (old, new) == ("", undone), (before, after, n)
                continue
            c = next(
                c
                for c in range(len(b) + 1)
                if _occurs_once(after, "".join(b[max(0, change.b1 - c) : change.b2 + c]))
            )
            quote = "".join(b[max(0, change.b1 - c) : change.b2 + c])
            assert old == quote, (before, after, n)
            assert after.replace(old, new, 1) == undone, (before, after, n)
