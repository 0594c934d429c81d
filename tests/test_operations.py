"""The operation list's argument checks (surfaces/operations.py run()), shared by every surface."""

from __future__ import annotations

import pytest

from biopb_kernel_docs.core.errors import InvalidArguments
from biopb_kernel_docs.core.review import ReviewedDocs
from biopb_kernel_docs.surfaces import operations


@pytest.fixture
def reviewed(tiers):
    return ReviewedDocs(tiers.store())


@pytest.mark.parametrize("budget", [0, 600, "600", "0600", 999_999_999, "999999999"])
def test_a_budget_of_ascii_digits_or_an_int_in_range_is_taken_as_an_int(reviewed, budget):
    view = operations.run(reviewed, "handshake", {"budget": budget})
    assert view.budget == int(budget)


@pytest.mark.parametrize(
    ("budget", "shown"),
    [
        ("²", "'²'"),
        ("١٢", "'١٢'"),
        ("1" * 10, "'1111111111'"),
        (10**9, "1000000000"),
        (-1, "-1"),
        (10**5000, "a number that large"),
        (-(10**5000), "a negative number"),
        ("9" * 5000, "'99999999999999999999999999999999999...'"),
        (True, "True"),
        (1.0, "1.0"),
        ([1], "a list"),
    ],
    ids=lambda value: "huge" if isinstance(value, int) and abs(value) > 10**100 else None,
)
def test_a_budget_out_of_range_or_not_digits_is_refused_and_quoted_short(reviewed, budget, shown):
    with pytest.raises(InvalidArguments) as caught:
        operations.run(reviewed, "handshake", {"budget": budget})
    assert str(caught.value) == (
        f"handshake's 'budget' must be a whole number from 0 to 999,999,999, written with the digits "
        f"0-9, not {shown}."
    )


def test_unknown_argument_names_of_any_type_and_size_are_refused_and_quoted_short(reviewed):
    arguments = {"id": "data", 7: "x", "y" * 10_000: "z", None: 1}
    with pytest.raises(InvalidArguments) as caught:
        operations.run(reviewed, "read_doc", arguments)
    message = str(caught.value)
    assert message.startswith("read_doc has no argument ")
    assert message.endswith("; it takes id.")
    assert len(message) < 200
