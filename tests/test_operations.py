"""The operation list's argument checks (surfaces/operations.py run()), shared by every surface."""

from __future__ import annotations

import dataclasses
import json

import pytest

from biopb_kernel_docs.core import values
from biopb_kernel_docs.core.errors import InternalError, InvalidArguments, StoreUnavailable
from biopb_kernel_docs.core.review import ReviewedDocs
from biopb_kernel_docs.core.values import VALUE_TYPES, FileChange, from_json, to_json
from biopb_kernel_docs.surfaces import operations
from biopb_kernel_docs.surfaces.arguments import checked_arguments

from .conftest import SHIPPED


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


def test_a_value_without_a_field_it_cannot_do_without_is_refused_naming_the_field():
    data = to_json(FileChange("mine", None, "# Mine\n", None, "ab" * 32, "local"))
    del data["after"], data["id"]
    with pytest.raises(InternalError) as caught:
        from_json(data)
    assert str(caught.value).startswith("A FileChange arrived without its id, after: the two sides of the")
    assert "Install one release of biopb-kernel-docs on both sides" in str(caught.value)


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


STEPS = "# Steps\n\n- load\n- look\n\n## Confirm\n\n- save\n"
SKILL = "---\nname: tidy-up\ndescription: Tidy the output folder.\n---\n# Tidy up\n\nRemove temp files.\n"


def _local_files(tiers):
    return {p: p.read_bytes() for p in sorted(tiers.local.rglob("*")) if p.is_file()}


def test_each_operation_changes_the_store_exactly_when_it_says_it_writes_and_its_value_crosses_the_wire(
    tiers, tmp_path
):
    # `writes` is what the REST API and the MCP server announce (a read-only hint, a change
    # notification) and what the kernel bridge retries after a restart; the value is what the kernel
    # wire and the REST API carry as JSON. One realistic session, through the operation list only.
    tiers.ship("new-method", "---\ndescription: a newer way\n---\n# New method\n\nFaster.\n")
    skills = tmp_path / "skills"
    (skills / "tidy-up").mkdir(parents=True)
    (skills / "tidy-up" / "SKILL.md").write_text(SKILL, encoding="utf-8")
    flatfield = SHIPPED["flatfield"]
    docs = ReviewedDocs(tiers.store())
    session = [
        ("index", {}),
        ("read_doc", {"id": "flatfield"}),
        ("write_doc", {"id": "lab/steps", "body": STEPS}),
        ("write_doc", {"id": "lab/steps", "old": "- look", "new": "- check"}),
        ("search_docs", {"query": "check"}),
        ("search_docs", {"query": "ch.ck", "regex": True}),
        ("read_doc", {"id": "lab/steps@history"}),
        ("read_doc", {"id": "lab/steps@v1"}),
        ("diff_versions", {"id": "lab/steps", "older": "v1"}),
        ("diff_versions", {"id": "lab/steps", "older": 1, "newer": "2"}),
        ("restore_doc", {"id": "lab/steps", "version": "v1"}),
        ("read_doc", {"id": "lab/steps#"}),
        ("read_doc", {"id": "lab/steps#Confirm"}),
        ("read_doc", {"id": "lab/"}),
        ("write_doc", {"id": "flatfield", "body": flatfield + "\nStep two.\n"}),
        ("read_doc", {"id": "flatfield@diff"}),
        ("write_doc", {"id": "flatfield", "old": "\nStep two.\n", "new": ""}),
        ("drop_local_copy", {"id": "flatfield"}),
        ("file_doc", {"id": "new-method", "heading": "## Procedures"}),
        ("ignore_doc", {"id": "segment-nuclei"}),
        ("retire_doc", {"id": "data"}),
        ("handshake", {"budget": "600"}),
        ("handshake", {}),
        ("review", {}),
        ("export_skills", {"dir": str(tmp_path / "exported"), "check": True}),
        ("export_skills", {"dir": str(tmp_path / "exported"), "all": True}),
        ("import_skills", {"dir": str(skills)}),
    ]
    ran = []

    def run(name, arguments):
        before = _local_files(tiers)
        value = operations.run(docs, name, arguments)
        ran.append(name)
        changed = _local_files(tiers) != before
        assert (name, changed) == (name, operations.OPERATIONS[name].writes)
        carried = from_json(json.loads(json.dumps(to_json(value))))
        assert type(carried) is type(value)
        assert carried == value
        return value

    for name, arguments in session:
        run(name, arguments)
    # the review operations: mark one doc reviewed, then put back a hunk of an edit made since
    (item,) = [item for item in run("review", {}).items if item.id == "lab/steps"]
    run("mark_reviewed", {"id": "lab/steps", "sha": item.sha256})
    tiers.put_local("lab/steps", STEPS.replace("- save", "- save twice"))  # an edit outside the store
    docs.review()  # which the review records in the doc's history as a version of its own
    (item,) = [item for item in run("review", {}).items if item.id == "lab/steps"]
    run("revert_hunk", {"id": "lab/steps", "hunk": "0", "if_match": item.sha256})
    assert tiers.local_text("lab/steps") == STEPS
    assert set(ran) == set(operations.OPERATIONS) - {"config"}  # every other operation took part
    with pytest.raises(StoreUnavailable, match="opened without a configuration"):
        operations.run(docs, "config", {})


def test_a_doc_view_and_a_review_item_from_a_peer_one_release_older_take_their_new_fields_defaults(tiers):
    docs = ReviewedDocs(tiers.store())
    docs.write_doc("lab/steps", body=STEPS)
    view = docs.read_doc("lab/steps")
    assert view.sections == 2
    data = to_json(view)
    del data["sections"]  # an older peer does not count headings: none are offered
    assert from_json(data) == dataclasses.replace(view, sections=0)
    (item,) = [item for item in docs.review().items if item.id == "lab/steps"]
    data = to_json(item)
    for newer in ("same_as_shipped", "baseline", "text"):
        del data[newer]
    assert from_json(data) == dataclasses.replace(item, same_as_shipped=False, baseline=None, text="")


def test_a_local_copy_is_identical_to_the_shipped_text_only_while_their_texts_are_equal(tiers):
    docs = tiers.docs()
    docs.write_doc("flatfield", body=SHIPPED["flatfield"] + "\nStep two.\n")
    assert docs.read_doc("flatfield@diff").identical is False
    docs.write_doc("flatfield", old="\nStep two.\n", new="")
    assert docs.read_doc("flatfield@diff").identical is True


@pytest.mark.parametrize("arguments", [["id", "data"], "id=data", None, ("id",)])
def test_arguments_that_are_not_a_mapping_of_names_are_refused(reviewed, arguments):
    with pytest.raises(InvalidArguments) as caught:
        operations.run(reviewed, "read_doc", arguments)
    assert str(caught.value) == "read_doc takes its arguments as a mapping of names to values."


def test_five_unknown_argument_names_are_all_named_and_a_sixth_is_an_ellipsis(reviewed):
    with pytest.raises(InvalidArguments) as five:
        operations.run(reviewed, "read_doc", dict.fromkeys("abcde", 1))
    assert str(five.value) == "read_doc has no argument 'a', 'b', 'c', 'd', 'e'; it takes id."
    with pytest.raises(InvalidArguments) as six:
        operations.run(reviewed, "read_doc", dict.fromkeys("fedcba", 1))
    assert str(six.value) == "read_doc has no argument 'a', 'b', 'c', 'd', 'e', ...; it takes id."


def test_an_argument_to_an_operation_that_takes_none_is_refused_saying_so(reviewed):
    with pytest.raises(InvalidArguments) as caught:
        operations.run(reviewed, "index", {"id": "data"})
    assert str(caught.value) == "index has no argument 'id'; it takes none."


@pytest.mark.parametrize(
    ("name", "arguments", "needs"),
    [
        ("read_doc", {}, "id"),
        ("read_doc", {"id": None}, "id"),
        ("write_doc", {"body": "# X\n"}, "id"),
        ("search_docs", {"regex": True}, "query"),
        ("restore_doc", {"id": "data"}, "version"),
        ("diff_versions", {"id": "data", "newer": 2}, "older"),
        ("retire_doc", {"if_match": "ab" * 32}, "id"),
        ("drop_local_copy", {}, "id"),
        ("file_doc", {"id": "data"}, "heading"),
        ("ignore_doc", {}, "id"),
        ("mark_reviewed", {"id": "data", "hunk": 0}, "sha"),
        ("revert_hunk", {"id": "data", "if_match": "ab" * 32}, "hunk"),
        ("revert_hunk", {"id": "data", "hunk": 0}, "if_match"),
        ("export_skills", {"all": True, "check": True}, "dir"),
        ("import_skills", {"replace": True, "prefix": "s/", "heading": "## S"}, "dir"),
    ],
)
def test_a_required_argument_left_out_or_none_is_refused_naming_it_and_what_it_takes(
    reviewed, tiers, name, arguments, needs
):
    with pytest.raises(InvalidArguments) as caught:
        operations.run(reviewed, name, arguments)
    help_text = operations.OPERATIONS[name].parameter(needs).help
    assert str(caught.value) == f"{name} needs {needs!r}: {help_text}"
    assert not tiers.local.exists()


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("write_doc", {"id": "lab/new", "body": "# New\n", "old": None, "new": None, "if_match": None}),
        ("write_doc", {"id": "flatfield", "old": "Step one.", "new": "Step 1."}),
        ("search_docs", {"query": "step", "regex": None}),
        ("diff_versions", {"id": "lab/new", "older": 1, "newer": None}),
        ("handshake", {"budget": None}),
        ("mark_reviewed", {"id": "lab/new", "sha": "SHA", "hunk": None}),
        ("import_skills", {"dir": "SKILLS", "replace": None, "prefix": None, "heading": None}),
        ("export_skills", {"dir": "OUT", "all": None, "check": None}),
    ],
)
def test_an_optional_argument_left_out_or_none_takes_its_default(reviewed, tmp_path, name, arguments):
    reviewed.write_doc("lab/new", body="# New\n")
    (tmp_path / "skills" / "tidy-up").mkdir(parents=True)
    (tmp_path / "skills" / "tidy-up" / "SKILL.md").write_text(SKILL, encoding="utf-8")
    given = {"SHA": reviewed.read_doc("lab/new").sha256, "SKILLS": str(tmp_path / "skills")}
    given["OUT"] = str(tmp_path / "out")
    arguments = {
        key: given.get(value, value) if isinstance(value, str) else value for key, value in arguments.items()
    }
    operations.run(reviewed, name, arguments)
    if name == "import_skills":
        assert reviewed.read_doc("skills/tidy-up").body == "# Tidy up\n\nRemove temp files.\n"
        assert "## Imported skills\n- skills/tidy-up:" in reviewed.read_doc("index").text


def test_a_search_is_literal_unless_regex_is_true(tiers):
    docs = tiers.docs()
    assert operations.run(docs, "search_docs", {"query": "st.p"}).matching_lines == 0
    assert operations.run(docs, "search_docs", {"query": "st.p", "regex": False}).matching_lines == 0
    assert operations.run(docs, "search_docs", {"query": "st.p", "regex": True}).matching_lines > 0


@pytest.mark.parametrize("regex", ["true", 1, 0, "yes"])
def test_a_flag_is_true_or_false_and_nothing_else(reviewed, regex):
    with pytest.raises(InvalidArguments) as caught:
        operations.run(reviewed, "search_docs", {"query": "step", "regex": regex})
    assert str(caught.value) == f"search_docs's 'regex' is true or false, not {regex!r}."


@pytest.mark.parametrize("version", [1, "1", "v1"])
def test_a_version_is_taken_as_12_or_v12(reviewed, version):
    reviewed.write_doc("lab/new", body="# New\n")
    reviewed.write_doc("lab/new", body="# Newer\n")
    restored = operations.run(reviewed, "restore_doc", {"id": "lab/new", "version": version})
    assert restored.restored == 1
    assert reviewed.read_doc("lab/new").text == "# New\n"


@pytest.mark.parametrize(("version", "shown"), [(0, "0"), ("0", "'0'"), ("x1", "'x1'"), (True, "True")])
def test_a_version_out_of_range_or_not_a_number_is_refused_with_the_range(reviewed, version, shown):
    with pytest.raises(InvalidArguments) as caught:
        operations.run(reviewed, "restore_doc", {"id": "data", "version": version})
    assert str(caught.value) == (
        "restore_doc's 'version' must be a version number such as 12 (v12), from 1 to 999,999,999, "
        f"not {shown}."
    )


@pytest.mark.parametrize(
    ("budget", "shown"),
    [
        (10**12, "a number that large"),
        (10**12 - 1, "999999999999"),
        (-(10**12), "a negative number"),
        (1 - 10**12, "-999999999999"),
    ],
)
def test_a_refused_number_is_spelled_out_below_a_trillion_and_named_from_one(reviewed, budget, shown):
    with pytest.raises(InvalidArguments) as caught:
        operations.run(reviewed, "handshake", {"budget": budget})
    assert str(caught.value).endswith(f"written with the digits 0-9, not {shown}.")


@pytest.mark.parametrize("budget", ["7", "0"])
def test_a_budget_of_one_digit_is_taken(reviewed, budget):
    assert operations.run(reviewed, "handshake", {"budget": budget}).budget == int(budget)


@pytest.mark.parametrize("name", ["", "Read_doc", "read", None, 3, ("read_doc",)])
def test_an_unknown_operation_is_refused_listing_the_ones_offered(reviewed, name):
    with pytest.raises(InvalidArguments) as caught:
        operations.run(reviewed, name, {"id": "data"})
    assert str(caught.value) == (
        f"Unknown operation {name!r}; this biopb-kernel-docs offers {', '.join(operations.OPERATIONS)}. "
        "If the other side is newer, upgrade biopb-kernel-docs here too."
    )


@pytest.mark.parametrize("name", ["review", "mark_reviewed", "revert_hunk"])
def test_review_is_refused_on_a_surface_without_the_panel(tiers, name):
    arguments = {"id": "data", "sha": "ab" * 32, "hunk": 0, "if_match": "ab" * 32}
    parameters = {p.name for p in operations.OPERATIONS[name].parameters}
    with pytest.raises(InvalidArguments) as caught:
        operations.run(tiers.docs(), name, {k: v for k, v in arguments.items() if k in parameters})
    assert str(caught.value) == "Review is offered in the JupyterLab panel, not on this surface."
