"""Bad input through the REST API (issue 21): each case sends the request and checks the status,
the refusal's kind and message, and that nothing changed. 4xx for the caller's mistake; 5xx only
for the server's own failure, and then in the API's own shape."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from biopb_kernel_docs.surfaces import operations

from .conftest import build_tiers

pytest_plugins = ["pytest_jupyter.jupyter_server"]

BODY_ROUTES = [("docs", "mine", "PUT")] + [("ops", name, "POST") for name in operations.OPERATIONS]


@pytest.fixture
def server_tiers(tmp_path):
    return build_tiers(tmp_path / "docs")


@pytest.fixture
def jp_server_config(server_tiers):
    return {
        "ServerApp": {"jpserver_extensions": {"biopb_kernel_docs": True}},
        "DocStore": {"docs_local_dir": str(server_tiers.local), "shipped_dir": str(server_tiers.shipped)},
    }


async def _api(jp_fetch, *path, method="GET", body=None):
    kwargs = {"method": method}
    if body is not None:
        kwargs["body"] = body if isinstance(body, str) else json.dumps(body)
    return await jp_fetch("biopb-kernel-docs", "api", *path, raise_error=False, **kwargs)


def _files(tiers) -> dict:
    return {p: p.read_bytes() for p in tiers.local.rglob("*") if p.is_file() and p.name != ".lock"}


async def _refused(jp_fetch, tiers, path, method, body, status, kind, says):
    """Send the request; check status, kind and message; check that no local file changed."""
    before = _files(tiers)
    response = await _api(jp_fetch, *path, method=method, body=body)
    refusal = json.loads(response.body)
    case = (path, str(body)[:80])
    assert (response.code, refusal["kind"]) == (status, kind), (case, refusal)
    assert says in refusal["message"], (case, refusal["message"])
    assert "Traceback" not in response.body.decode()
    assert _files(tiers) == before
    return refusal["message"]


def test_every_route_that_takes_a_body_is_listed():
    # PUT docs/<id> and one ops/<name> route per operation: a new operation is sent every case here
    names = {name for route, name, _ in BODY_ROUTES if route == "ops"}
    assert names == {
        "read_doc",
        "write_doc",
        "search_docs",
        "index",
        "file_doc",
        "ignore_doc",
        "handshake",
        "export_skills",
        "import_skills",
    } | {"review", "mark_reviewed", "revert_hunk", "config"} | {
        "restore_doc",
        "diff_versions",
        "retire_doc",
        "drop_local_copy",
    }
    assert len(BODY_ROUTES) == 18


# Cases loop inside one test where they share a server: each Jupyter Server costs most of a second.


async def test_deeply_nested_json_is_a_400_on_every_route_with_a_body(jp_fetch, server_tiers):
    await _api(jp_fetch, "index")
    for (area, name, method), body in itertools.product(
        BODY_ROUTES, ("[" * 100_000, '{"body": ' + "[" * 100_000 + "]" * 100_000 + "}")
    ):
        await _refused(
            jp_fetch,
            server_tiers,
            (area, name),
            method,
            body,
            400,
            "InvalidArguments",
            "nests JSON too deeply",
        )


async def test_a_budget_that_is_not_a_plain_whole_number_is_a_400(jp_fetch, server_tiers):
    for budget in ["²", "١", "9" * 5000, "1" * 10, -1, "-1", "+5", " 5", "1.5", 1.5, True, ""]:
        message = await _refused(
            jp_fetch,
            server_tiers,
            ("ops", "handshake"),
            "POST",
            {"budget": budget},
            400,
            "InvalidArguments",
            "handshake's 'budget' must be a whole number from 0 to 999,999,999, written with the digits 0-9",
        )
        assert len(message) < 300  # a 5,000-digit budget is not echoed back


async def test_a_version_that_is_not_a_plain_version_number_is_a_400_naming_the_operation(
    jp_fetch, server_tiers
):
    await _api(jp_fetch, "docs", "notes", method="PUT", body={"body": "# Notes\n\none\n"})
    bad = ["²", "v١", "9" * 5000, "v" + "1" * 10, 0, "v0", -1, "-1", "+5", "1.5", 1.5, True, "", "v", "vv1"]
    for (name, argument), version in itertools.product(
        (("restore_doc", "version"), ("diff_versions", "older"), ("diff_versions", "newer")), bad
    ):
        body = {"id": "notes", "older": 1, argument: version}
        if name == "restore_doc":
            body = {"id": "notes", "version": version}
        message = await _refused(
            jp_fetch,
            server_tiers,
            ("ops", name),
            "POST",
            body,
            400,
            "InvalidArguments",
            f"{name}'s {argument!r} must be a version number such as 12 (v12), from 1 to 999,999,999, not",
        )
        assert len(message) < 300  # a 5,000-digit version is not echoed back


async def test_a_version_of_plain_digits_with_or_without_v_is_accepted(jp_fetch, server_tiers):
    for text in ("one", "two"):
        await _api(jp_fetch, "docs", "notes", method="PUT", body={"body": f"# Notes\n\n{text}\n"})
    for older in (1, "1", "v1", "V1", "001", " v1 "):
        response = await _api(
            jp_fetch, "ops", "diff_versions", method="POST", body={"id": "notes", "older": older}
        )
        assert response.code == 200, (older, response.body)
        assert "-one\n+two" in json.loads(response.body)["diff"]


async def test_a_budget_of_plain_digits_is_accepted(jp_fetch):
    for budget in ("600", 600, "0", "000600"):
        response = await _api(jp_fetch, "ops", "handshake", method="POST", body={"budget": budget})
        assert response.code == 200, response.body
        assert json.loads(response.body)["length"] <= int(budget)


async def _one_hunk(jp_fetch, server_tiers):
    """The index with one hunk to review (the agent changed a hook); returns the review item."""
    server_tiers.seed()  # a read creates nothing
    index = server_tiers.local_text("index")
    server_tiers.put_local("index", index.replace("correct uneven illumination", "the agent's hook"))
    (item,) = json.loads((await _api(jp_fetch, "review")).body)["items"]
    assert len(item["hunks"]) == 1
    return item


async def test_a_hunk_outside_the_review_is_a_400_and_changes_nothing(jp_fetch, server_tiers):
    one_hunk = await _one_hunk(jp_fetch, server_tiers)
    hunks = [-1, -2, 1, 7, "-1", "²", "1" * 5000, 0.0, True]
    for name, hunk in itertools.product(["revert_hunk", "mark_reviewed"], hunks):
        arguments = {"id": "index", "hunk": hunk}
        arguments["if_match" if name == "revert_hunk" else "sha"] = one_hunk["sha256"]
        in_range = isinstance(hunk, int) and not isinstance(hunk, bool) and hunk >= 0
        says = "from 0 to 0" if in_range else "must be"
        await _refused(
            jp_fetch, server_tiers, ("ops", name), "POST", arguments, 400, "InvalidArguments", says
        )
    assert "the agent's hook" in server_tiers.local_text("index")


async def test_hunk_zero_of_one_still_reverts(jp_fetch, server_tiers):
    one_hunk = await _one_hunk(jp_fetch, server_tiers)
    body = {"id": "index", "hunk": "0", "if_match": one_hunk["sha256"]}
    response = await _api(jp_fetch, "ops", "revert_hunk", method="POST", body=body)
    assert response.code == 200, response.body
    assert "correct uneven illumination" in server_tiers.local_text("index")


HEADINGS = [
    ("## Lone \ud800 surrogate", 400, "InvalidArguments", "lone surrogate (U+D800"),
    ("## NUL\x00here", 400, "InvalidArguments", "NUL character"),
    ("## Two\n## lines", 400, "InvalidArguments", "line break"),
    ("## Carriage\rreturn", 400, "InvalidArguments", "line break"),
    ("## Line\u2028separator", 400, "InvalidArguments", "line break"),
    ("   ", 400, "InvalidArguments", "The heading is empty"),
    (
        "## " + "x" * 2000,
        413,
        "LimitExceeded",
        "2,003 bytes in the index; the cap is 1 KiB (1,024 bytes)",
    ),
    ("## " + "x" * 10_000_000, 413, "LimitExceeded", "the cap is 1 KiB (1,024 bytes) per index line"),
]


async def test_a_heading_that_cannot_be_one_index_line_is_refused(jp_fetch, server_tiers):
    await _api(jp_fetch, "index")
    for heading, status, kind, says in HEADINGS:
        body = {"id": "segment-nuclei", "heading": heading}
        await _refused(jp_fetch, server_tiers, ("ops", "file_doc"), "POST", body, status, kind, says)


async def test_a_heading_of_exactly_1024_bytes_is_filed(jp_fetch, server_tiers):
    heading = "## " + "é" * 510 + "x"  # 3 + 1020 + 1 bytes
    assert len(heading.encode()) == 1024
    body = {"id": "segment-nuclei", "heading": heading}
    response = await _api(jp_fetch, "ops", "file_doc", method="POST", body=body)
    assert response.code == 200, response.body
    assert f"{heading}\n- segment-nuclei: find the nuclei\n" in server_tiers.local_text("index")


@pytest.mark.parametrize("local_copy", [False, True])
async def test_an_id_with_a_folder_ending_in_md_is_a_400_whether_or_not_the_doc_is_local(
    jp_fetch, server_tiers, local_copy
):
    await _api(jp_fetch, "index")
    if local_copy:
        server_tiers.put_local("flatfield", "# Flatfield\n\nThe lab's copy.\n")
    for doc_id in ("flatfield.md/y", "FLATFIELD.MD/y", "lab/flatfield.Md/y"):
        message = await _refused(
            jp_fetch,
            server_tiers,
            ("docs", *doc_id.split("/")),
            "PUT",
            {"body": "# Y\n"},
            400,
            "InvalidDocId",
            "ends in '.md'",
        )
        assert "Ids carry no '.md' in any name: use " in message
    assert not (server_tiers.local / "flatfield.md").is_dir()
    read = await _api(jp_fetch, "docs", "flatfield")
    assert read.code == 200
    assert json.loads(read.body)["tier"] == ("local" if local_copy else "shipped")


async def test_a_ten_megabyte_single_line_body_is_a_413_naming_the_byte_cap(jp_fetch, server_tiers):
    await _api(jp_fetch, "index")
    message = await _refused(
        jp_fetch,
        server_tiers,
        ("docs", "big"),
        "PUT",
        {"body": "# Big\n\n" + "x" * 10_000_000},
        413,
        "LimitExceeded",
        "'big' would be 10,000,008 bytes; the cap is 64 KiB (65,536 bytes) per doc",
    )
    assert "Nothing was written" in message


async def test_a_body_of_exactly_64_kib_is_stored(jp_fetch, server_tiers):
    body = "# Big\n\n" + "x" * (64 * 1024 - 8) + "\n"
    assert len(body.encode()) == 65_536
    response = await _api(jp_fetch, "docs", "big", method="PUT", body={"body": body})
    assert response.code == 200, response.body
    assert server_tiers.local_text("big") == body


async def test_a_create_whose_description_would_make_an_over_long_hook_writes_nothing(jp_fetch, server_tiers):
    server_tiers.seed()  # the first write seeds the index even when it is refused: seeded before it
    body = "---\ndescription: " + "word " * 300 + "\n---\n# Wordy\n\nA doc.\n"
    await _refused(
        jp_fetch,
        server_tiers,
        ("docs", "wordy"),
        "PUT",
        {"body": body},
        413,
        "LimitExceeded",
        "Filing 'wordy' under its description would be a line of 1,508 bytes in the index; the cap is "
        "1 KiB (1,024 bytes) per index line",
    )
    assert not (server_tiers.local / "wordy.md").exists()


async def test_an_index_edit_adding_an_over_long_hook_is_refused(jp_fetch, server_tiers):
    server_tiers.seed()
    body = {"old": "- data: how arrays are laid out", "new": "- data: " + "long " * 300}
    await _refused(
        jp_fetch, server_tiers, ("docs", "index"), "PUT", body, 413, "LimitExceeded", "the cap is 1 KiB"
    )


async def test_an_index_line_already_over_the_cap_does_not_block_other_edits(jp_fetch, server_tiers):
    server_tiers.seed()
    long_line = "- data: " + "long " * 300
    index = server_tiers.local_text("index").replace("- data: how arrays are laid out", long_line)
    server_tiers.put_local("index", index)
    body = {"old": "- stitch-tiles: assemble a grid of tiles", "new": "- stitch-tiles: one canvas"}
    response = await _api(jp_fetch, "docs", "index", method="PUT", body=body)
    assert response.code == 200, response.body


async def test_a_put_whose_body_names_another_doc_is_refused(jp_fetch, server_tiers):
    await _api(jp_fetch, "index")
    message = await _refused(
        jp_fetch,
        server_tiers,
        ("docs", "mine"),
        "PUT",
        {"id": "flatfield", "body": "# Not flatfield\n"},
        400,
        "InvalidArguments",
        "The address names doc 'mine' but the body's id is 'flatfield'. Nothing was written.",
    )
    assert "Leave id out of the body" in message
    for other in (7, None, ["mine"]):
        await _refused(
            jp_fetch,
            server_tiers,
            ("docs", "mine"),
            "PUT",
            {"id": other, "body": "# M\n"},
            400,
            "InvalidArguments",
            "the body's id is",
        )
    for named, shown in (
        ("m" * 58, "'" + "m" * 58 + "'"),  # 60 characters as Python writes it: quoted whole
        ("m" * 59, "'" + "m" * 55 + "...'"),  # 61: its first 56 characters, '...', its last
    ):
        await _refused(
            jp_fetch,
            server_tiers,
            ("docs", "mine"),
            "PUT",
            {"id": named, "body": "# M\n"},
            400,
            "InvalidArguments",
            f"The address names doc 'mine' but the body's id is {shown}. Nothing was written.",
        )
    same = await _api(jp_fetch, "docs", "mine", method="PUT", body={"id": "mine", "body": "# Mine\n"})
    assert same.code == 200, same.body


async def test_a_doc_reached_through_a_symlink_out_of_the_tier_is_a_403_naming_the_link(
    jp_fetch, server_tiers, tmp_path
):
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.md"
    secret.write_text("# Secret\n\nnot the tier's to serve\n")
    await _api(jp_fetch, "index")
    server_tiers.local.mkdir(exist_ok=True)
    (server_tiers.local / "leak.md").symlink_to(secret)
    for method, body in (("GET", None), ("PUT", {"body": "# Leak\n\noverwritten\n"})):
        message = await _refused(
            jp_fetch,
            server_tiers,
            ("docs", "leak"),
            method,
            body,
            403,
            "OutsideTier",
            "outside the local tier",
        )
        assert "cannot be used until that link is removed or points inside" in message
        assert "not the tier's to serve" not in message
    assert secret.read_text() == "# Secret\n\nnot the tier's to serve\n"


async def test_a_bug_is_a_500_in_the_apis_shape_with_no_traceback_and_the_log_has_it(
    jp_fetch, server_tiers, monkeypatch, caplog
):
    def broken(docs, arguments):
        raise KeyError("a bug")

    op = operations.OPERATIONS["read_doc"]
    monkeypatch.setitem(
        operations.OPERATIONS, "read_doc", operations.Operation(**{**op.__dict__, "run": broken})
    )
    response = await _api(jp_fetch, "docs", "flatfield")
    refusal = json.loads(response.body)
    assert (response.code, refusal["kind"]) == (500, "InternalError")
    assert "Whether this request changed anything is not known" in refusal["message"]
    assert "the Kernel Docs panel's index" in refusal["message"]
    assert "Traceback" not in response.body.decode()
    assert "KeyError" not in response.body.decode()
    # the message sends whoever runs the server to its log: the request and the traceback are there
    (logged,) = [r for r in caplog.records if r.name == "biopb_kernel_docs.surfaces.handlers"]
    assert re.fullmatch(
        r"biopb-kernel-docs: GET \S*/biopb-kernel-docs/api/docs/flatfield failed", logged.getMessage()
    )
    assert "KeyError: 'a bug'" in caplog.text
