"""The operation list's argument checks (surfaces/operations.py run()), shared by every surface."""

from __future__ import annotations

import dataclasses

import pytest

from biopb_kernel_docs.core import values
from biopb_kernel_docs.core.errors import InvalidArguments
from biopb_kernel_docs.core.review import ReviewedDocs
from biopb_kernel_docs.core.values import VALUE_TYPES, FileChange, from_json, to_json
from biopb_kernel_docs.surfaces import operations
from biopb_kernel_docs.surfaces.arguments import checked_arguments


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


@pytest.mark.parametrize(
    ("name", "arguments", "says"),
    [
        (
            "export_skills",
            {"dir": "OUT", "al": True},
            "export_skills has no argument 'al'; it takes all, check, dir.",
        ),
        (
            "import_skills",
            {"dir": "OUT", "id": "x"},
            "import_skills has no argument 'id'; it takes dir, heading,",
        ),
        ("export_skills", {"dir": 7}, "export_skills's 'dir' must be a string, not int."),
        ("import_skills", {"dir": ["out"]}, "import_skills's 'dir' must be a string, not list."),
        (
            "export_skills",
            {"dir": "OUT", "check": "true"},
            "export_skills's 'check' is true or false, not 'true'.",
        ),
        ("import_skills", {"dir": "OUT", "replace": 1}, "import_skills's 'replace' is true or false, not 1."),
        ("import_skills", {"dir": "OUT", "prefix": 3}, "import_skills's 'prefix' must be a string, not int."),
        ("export_skills", {}, "export_skills needs 'dir': The skills directory"),
    ],
)
def test_the_skills_operations_take_their_arguments_through_the_same_checks(
    reviewed, tiers, tmp_path, name, arguments, says
):
    out = tmp_path / "out"  # where a run that slipped past the checks would write
    out.mkdir()
    arguments = {key: str(out) if value == "OUT" else value for key, value in arguments.items()}
    with pytest.raises(InvalidArguments) as caught:
        operations.run(reviewed, name, arguments)
    assert str(caught.value).startswith(says)
    assert list(out.iterdir()) == []
    assert not tiers.local.exists()


def test_a_value_from_a_peer_one_release_older_takes_the_defaults_of_its_new_fields():
    change = FileChange("mine", None, "# Mine\n", None, "ab" * 32, "local", version=3)
    data = to_json(change)
    del data["version"]  # a field the older peer does not know
    assert from_json(data) == dataclasses.replace(change, version=None)


def test_a_refused_argument_name_is_quoted_whole_up_to_40_characters_and_cut_after():
    parameters = operations.OPERATIONS["read_doc"].parameters
    with pytest.raises(InvalidArguments) as whole:
        checked_arguments("read_doc", parameters, {"x" * 38: 1})  # quoted: 40 characters
    assert str(whole.value) == f"read_doc has no argument '{'x' * 38}'; it takes id."
    with pytest.raises(InvalidArguments) as cut:
        checked_arguments("read_doc", parameters, {"x" * 39: 1})
    assert str(cut.value) == f"read_doc has no argument '{'x' * 35}...'; it takes id."


def test_every_value_an_operation_returns_is_a_frozen_dataclass():
    # values cross the wire and are shared between callers: none may be changed after it is built.
    # Every dataclass core/values.py defines or takes from history_values and skill_values, found
    # in the module itself (a hand list misses the next one), and every type the wire rebuilds.
    in_module = {
        name: cls
        for name, cls in vars(values).items()
        if isinstance(cls, type) and dataclasses.is_dataclass(cls)
    }
    assert in_module["HandshakeView"] is values.HandshakeView  # the search sees the module's own
    thawed = sorted(
        name for name, cls in {**in_module, **VALUE_TYPES}.items() if not cls.__dataclass_params__.frozen
    )
    assert thawed == []


def test_the_operation_registry_cannot_be_changed_after_it_is_built():
    # one Parameter (the doc id, say) is shared by many operations on every surface: setting a
    # field on it would change the checks of all of them, so none can be set, and each hashes.
    read_doc = operations.OPERATIONS["read_doc"]
    shared = read_doc.parameter("id")
    assert operations.OPERATIONS["write_doc"].parameter("id") is shared
    with pytest.raises(dataclasses.FrozenInstanceError):
        shared.required = False
    assert shared.required is True
    by_operation = {op: op.name for op in operations.OPERATIONS.values()}  # each hashes
    assert by_operation[read_doc] == "read_doc"
