"""The panel's review (core/review.py): hunks against what the user last reviewed, putting one hunk
back, and hunk positions called directly as the core API (the operation list refuses a negative
number before it gets here, so this pins the core's own rule)."""

from __future__ import annotations

import pytest

from biopb_kernel_docs.core.errors import InvalidArguments
from biopb_kernel_docs.core.review import ReviewedDocs


@pytest.fixture
def one_hunk(tiers):
    docs = ReviewedDocs(tiers.store())
    docs.index()
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
