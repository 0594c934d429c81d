"""The panel's review: hunks against what the user last reviewed, and putting one hunk back."""

from __future__ import annotations

import pytest

from biopb_kernel_docs.core.errors import InvalidArguments
from biopb_kernel_docs.core.review import ReviewedDocs

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
            InvalidArguments, match="hunk must be the index of one of the 1 hunks shown"
        ) as err:
            act()
        assert err.value.status == 400
    assert tiers.local_text("lab/steps") == EDITED
    assert _item(reviewed, "lab/steps").hunks == item.hunks
