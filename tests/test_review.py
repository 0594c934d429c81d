"""The review's hunk positions (core/review.py), called directly as the core API: the operation
list refuses a negative number before it gets here, so this pins the core's own rule."""

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
