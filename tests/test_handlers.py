"""The REST API in a real Jupyter Server (pytest-jupyter): every route, its refusals, its events."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from urllib.parse import urlencode

import pytest
import tornado.httpclient
from jupyter_server.auth.authorizer import Authorizer

from biopb_kernel_docs.core import store as store_module
from biopb_kernel_docs.surfaces import handlers as handlers_module
from biopb_kernel_docs.surfaces import serverext
from biopb_kernel_docs.surfaces.serverext import EVENT_SCHEMA_ID

from .conftest import build_tiers

pytest_plugins = ["pytest_jupyter.jupyter_server"]


@pytest.fixture
def server_tiers(tmp_path):
    return build_tiers(tmp_path / "docs")


class DenyWrites(Authorizer):
    """An Authorizer that lets everyone read the docs and no one write them."""

    def is_authorized(self, handler, user, action, resource) -> bool:
        return not (resource == handlers_module.AUTH_RESOURCE and action == "write")


@pytest.fixture
def jp_server_config(server_tiers, request, monkeypatch):
    """The server's configuration; a test may pass ``{"ServerApp": ..., "poll_seconds": ...}`` as an
    indirect parameter (``poll_seconds`` slows the extension's polling before the server starts)."""
    extra = dict(getattr(request, "param", {}))
    if "poll_seconds" in extra:
        monkeypatch.setattr(serverext, "POLL_SECONDS", extra.pop("poll_seconds"))
    return {
        "ServerApp": {"jpserver_extensions": {"biopb_kernel_docs": True}, **extra.get("ServerApp", {})},
        "DocStore": {"docs_local_dir": str(server_tiers.local), "shipped_dir": str(server_tiers.shipped)},
    }


async def _json(response):
    return json.loads(response.body)


async def _api(jp_fetch, *path, method="GET", body=None, **params):
    kwargs = {"method": method, "params": params} if params else {"method": method}
    if body is not None:
        kwargs["body"] = json.dumps(body) if not isinstance(body, str) else body
    return await jp_fetch("biopb-kernel-docs", "api", *path, raise_error=False, **kwargs)


async def test_the_index_route_returns_the_index_view_and_what_a_2048_host_receives(jp_fetch, server_tiers):
    response = await _api(jp_fetch, "index")
    assert response.code == 200
    view = await _json(response)
    assert view["type"] == "IndexView"
    assert [(e["id"], e["heading"], e["marker"]) for e in view["entries"]] == [
        ("data", "## References", None),
        ("flatfield", "## Procedures", None),
        ("stitch-tiles", "## Procedures", None),
    ]
    assert view["new_shipped"] == [
        {"type": "TailItem", "id": "segment-nuclei", "description": "find the nuclei"}
    ]
    assert view["entry_cap"] == 200
    handshake = view["handshake"]
    assert handshake["budget"] == 2048
    assert handshake["length"] <= 2048
    assert handshake["left_out"] == []
    assert not server_tiers.local.exists()  # a read creates nothing: the first write seeds the index


async def test_doc_and_diff_routes_return_values_with_the_diff_text(jp_fetch, server_tiers):
    doc = await _json(await _api(jp_fetch, "docs", "flatfield"))
    assert (doc["type"], doc["tier"], doc["title"]) == ("DocView", "shipped", "Flatfield")
    server_tiers.put_local("flatfield", doc["text"].replace("Step one.", "Step one, mine."))
    diff = await _json(await _api(jp_fetch, "docs", "flatfield@diff"))
    assert diff["type"] == "DiffView"
    assert "+Step one, mine." in diff["diff"]


async def test_a_write_has_write_docs_semantics_and_returns_the_diffs(jp_fetch, server_tiers):
    created = await _api(
        jp_fetch, "docs", "lab/notes", method="PUT", body={"body": "# Notes\n\nFrom the panel.\n"}
    )
    assert created.code == 200
    result = await _json(created)
    assert (result["outcome"], result["filed_under"]) == ("created", "## Unfiled")
    assert "+++ b/lab/notes.md (local)" in result["diffs"][0]
    assert server_tiers.local_text("lab/notes") == "# Notes\n\nFrom the panel.\n"
    sha = result["changes"][0]["after_sha256"]
    edited = await _api(
        jp_fetch,
        "docs",
        "lab/notes",
        method="PUT",
        body={"old": "From the panel.", "new": "Edited.", "if_match": sha},
    )
    assert edited.code == 200
    assert server_tiers.local_text("lab/notes") == "# Notes\n\nEdited.\n"


async def test_a_stale_write_is_a_409_with_the_stores_message_and_changes_nothing(jp_fetch, server_tiers):
    server_tiers.put_local("mine", "# Mine\n\nfirst\n")
    sha = (await _json(await _api(jp_fetch, "docs", "mine")))["sha256"]
    server_tiers.put_local("mine", "# Mine\n\nthe agent's edit\n")
    response = await _api(jp_fetch, "docs", "mine", method="PUT", body={"body": "# Mine\n", "if_match": sha})
    assert response.code == 409
    refusal = await _json(response)
    assert refusal["kind"] == "StaleWrite"
    assert "has changed since the text this write was based on" in refusal["message"]
    assert "Nothing was written. Opening mine in the Kernel Docs panel shows" in refusal["message"]
    assert server_tiers.local_text("mine") == "# Mine\n\nthe agent's edit\n"


async def test_a_bug_met_by_a_request_is_a_500_internal_error_that_says_to_reload_the_index(
    jp_fetch, server_tiers, monkeypatch
):
    def bug(path, data, mode=None):
        raise RuntimeError("a bug in the write path")

    monkeypatch.setattr(store_module, "atomic_write", bug)
    response = await _api(jp_fetch, "docs", "lab/notes", method="PUT", body={"body": "# Notes\n"})
    assert response.code == 500
    assert response.headers["Content-Type"].startswith("application/json")
    refusal = await _json(response)
    assert refusal["kind"] == "InternalError"
    assert "The docs server met an unexpected error (a bug in biopb-kernel-docs" in refusal["message"]
    assert (
        "Whether this request changed anything is not known: reload the index "
        "(the Kernel Docs panel's index) to see the docs as they are now before trying again."
    ) in refusal["message"]
    assert "RuntimeError" not in refusal["message"]  # never a traceback


@pytest.mark.parametrize(
    ("path", "method", "body", "status", "kind", "says"),
    [
        (("docs", "mine"), "PUT", "{not json", 400, "InvalidArguments", "not valid JSON"),
        (("docs", "mine"), "PUT", {}, 400, "InvalidArguments", "Nothing to write"),
        (("docs", "nope"), "GET", None, 404, "DocNotFound", "No doc 'nope'"),
        (("docs", "../escape"), "GET", None, 400, "InvalidDocId", "Invalid doc id"),
        (("docs", "x@hist"), "GET", None, 400, "InvalidDocId", "Unknown view"),
        (("docs", "x@history"), "GET", None, 404, "DocNotFound", "No doc 'x'"),
        (("docs", "data@v1"), "GET", None, 404, "DocNotFound", "has no versions kept"),
        (
            ("docs", "long"),
            "PUT",
            {"body": "line\n" * 301},
            413,
            "LimitExceeded",
            "301 lines; the cap is 300",
        ),
        (("ops", "file_doc"), "POST", {"id": "segment-nuclei"}, 400, "InvalidArguments", "needs 'heading'"),
        (("ops", "drop_everything"), "POST", {}, 400, "InvalidArguments", "Unknown operation"),
        (("ops", "ignore_doc"), "POST", [1], 400, "InvalidArguments", "JSON object"),
    ],
)
async def test_bad_input_gets_the_stores_refusal_as_json_and_nothing_changes(
    jp_fetch, server_tiers, path, method, body, status, kind, says
):
    await _api(jp_fetch, "index")
    before = {p: p.read_bytes() for p in server_tiers.local.rglob("*") if p.is_file()}
    response = await _api(jp_fetch, *path, method=method, body=body)
    assert response.code == status
    assert response.headers["Content-Type"].startswith("application/json")
    refusal = await _json(response)
    assert refusal["kind"] == kind
    assert says in refusal["message"]
    after = {p: p.read_bytes() for p in server_tiers.local.rglob("*") if p.is_file() and p.name != ".lock"}
    assert after == {p: data for p, data in before.items() if p.name != ".lock"}


async def test_file_and_ignore_operations_clear_the_new_docs_tail(jp_fetch, server_tiers):
    await _api(jp_fetch, "index")
    filed = await _api(
        jp_fetch, "ops", "file_doc", method="POST", body={"id": "segment-nuclei", "heading": "## Procedures"}
    )
    assert filed.code == 200, filed.body
    assert (
        "- stitch-tiles: assemble a grid of tiles\n- segment-nuclei: find the nuclei\n"
        in server_tiers.local_text("index")
    )
    server_tiers.ship("deconvolution", "# Deconvolution\n\nSharpen a blurry stack.\n")
    ignored = await _api(jp_fetch, "ops", "ignore_doc", method="POST", body={"id": "deconvolution"})
    assert ignored.code == 200, ignored.body
    assert "ignored: old-method, deconvolution" in server_tiers.local_text("index")
    view = await _json(await _api(jp_fetch, "index"))
    assert view["new_shipped"] == []


async def test_review_shows_the_agents_change_and_reverts_one_hunk(jp_fetch, server_tiers):
    server_tiers.seed()
    index = server_tiers.local_text("index")
    server_tiers.put_local(
        "index",
        index.replace("- flatfield: correct uneven illumination\n", "- flatfield: the agent's new hook\n"),
    )
    review = await _json(await _api(jp_fetch, "review"))
    (item,) = review["items"]
    assert (item["id"], item["base"]) == ("index", "shipped")
    (hunk,) = item["hunks"]
    assert "-- flatfield: correct uneven illumination" in hunk["lines"]
    assert "+- flatfield: the agent's new hook" in hunk["lines"]
    # both sides of the hunks, from the same reading: what a side-by-side view shows
    assert (item["baseline"], item["text"]) == (index, server_tiers.local_text("index"))
    assert item["sha256"] == hashlib.sha256(item["text"].encode()).hexdigest()
    reverted = await _api(
        jp_fetch,
        "ops",
        "revert_hunk",
        method="POST",
        body={"id": "index", "hunk": 0, "if_match": item["sha256"]},
    )
    assert reverted.code == 200, reverted.body
    assert server_tiers.local_text("index") == index
    assert (await _json(await _api(jp_fetch, "review")))["items"] == []


async def test_looks_good_marks_a_hunk_reviewed_and_later_changes_show_against_it(jp_fetch, server_tiers):
    await _api(jp_fetch, "docs", "lab/a", method="PUT", body={"body": "# A\n\none\n\ntwo\n"})
    review = await _json(await _api(jp_fetch, "review"))
    item = next(i for i in review["items"] if i["id"] == "lab/a")
    assert item["base"] == "new"
    marked = await _api(
        jp_fetch, "ops", "mark_reviewed", method="POST", body={"id": "lab/a", "sha": item["sha256"]}
    )
    assert marked.code == 200, marked.body
    assert all(i["id"] != "lab/a" for i in (await _json(marked))["items"])
    server_tiers.put_local("lab/a", "# A\n\none, edited\n\ntwo\n")
    item = next(i for i in (await _json(await _api(jp_fetch, "review")))["items"] if i["id"] == "lab/a")
    assert item["base"] == "reviewed"
    (hunk,) = item["hunks"]
    assert [line for line in hunk["lines"] if line[:1] in "-+"] == ["-one", "+one, edited"]
    stale = await _api(jp_fetch, "ops", "mark_reviewed", method="POST", body={"id": "lab/a", "sha": "0" * 64})
    assert stale.code == 409


async def test_connect_gives_the_command_for_a_running_kernel(jp_fetch):
    kernel = json.loads(
        (await jp_fetch("api", "kernels", method="POST", body=json.dumps({"name": "python3"}))).body
    )
    try:
        connect = await _json(await _api(jp_fetch, "connect", kernel_id=kernel["id"]))
        assert connect["claude"].startswith("claude mcp add biopb-docs -- ")
        assert f"--existing {connect['connection_file']}" in connect["claude"]
        assert connect["json"]["mcpServers"]["biopb-docs"]["args"][-2:] == [
            "--existing",
            connect["connection_file"],
        ]
        missing = await _api(jp_fetch, "connect", kernel_id="no-such-kernel")
        assert missing.code == 400
        assert "No running kernel" in (await _json(missing))["message"]
    finally:
        await jp_fetch("api", "kernels", kernel["id"], method="DELETE")


async def test_docstore_settings_on_the_server_command_line_reach_the_api(jp_fetch, server_tiers):
    config = await _json(await _api(jp_fetch, "ops", "config", method="POST", body={}))
    assert config["local_dir"] == str(server_tiers.local)
    assert config["settings"][0]["source"] == "the Jupyter Server configuration"


# -- authentication, authorization, XSRF --------------------------------------------------------------


def _rules(router):
    for rule in getattr(router, "rules", []):
        yield rule
        yield from _rules(rule.target)


def _our_routes(web_app):
    for router in (web_app.default_router, web_app.wildcard_router):
        for rule in _rules(router):
            target = rule.target
            if isinstance(target, type) and target.__module__ == handlers_module.__name__:
                yield rule.matcher.regex.pattern, target


async def test_every_route_refuses_a_request_without_credentials(
    jp_serverapp, http_server_client, jp_http_port
):
    client = tornado.httpclient.AsyncHTTPClient()
    routes = list(_our_routes(jp_serverapp.web_app))
    assert {cls.__name__ for _, cls in routes} == {
        "IndexHandler",
        "DocHandler",
        "OperationHandler",
        "SearchHandler",
        "ReviewHandler",
        "ConnectHandler",
    }
    for pattern, cls in routes:
        path = re.sub(r"\([^)]*\)", "x", pattern.rstrip("$"))
        for method in ("get", "put", "post"):
            if getattr(cls, method) is getattr(handlers_module.DocsHandler, method):
                continue  # not served by this route
            response = await client.fetch(
                f"http://localhost:{jp_http_port}{path}",
                method=method.upper(),
                body="{}" if method != "get" else None,
                raise_error=False,
            )
            assert response.code == 403, (
                f"{method.upper()} {path} answered {response.code} without credentials"
            )


async def test_a_write_with_a_login_cookie_but_no_xsrf_token_is_refused(
    jp_serverapp, http_server_client, jp_http_port, jp_base_url, server_tiers
):
    client = tornado.httpclient.AsyncHTTPClient()
    base = f"http://localhost:{jp_http_port}{jp_base_url}"
    form = await client.fetch(f"{base}login", raise_error=False)
    jar = {c.split("=", 1)[0]: c.split(";", 1)[0] for c in form.headers.get_list("Set-Cookie")}
    xsrf = jar["_xsrf"].split("=", 1)[1]
    login = await client.fetch(
        f"{base}login",
        method="POST",
        body=urlencode({"password": jp_serverapp.identity_provider.token, "_xsrf": xsrf}),
        headers={"Cookie": "; ".join(jar.values())},
        follow_redirects=False,
        raise_error=False,
    )
    assert login.code == 302, login.body
    jar.update({c.split("=", 1)[0]: c.split(";", 1)[0] for c in login.headers.get_list("Set-Cookie")})
    logged_in = {"Cookie": "; ".join(jar.values())}
    read = await client.fetch(
        f"{base}biopb-kernel-docs/api/docs/flatfield", headers=logged_in, raise_error=False
    )
    assert read.code == 200  # the cookie is a real login
    write = await client.fetch(
        f"{base}biopb-kernel-docs/api/docs/mine",
        method="PUT",
        body=json.dumps({"body": "# Mine\n"}),
        headers=logged_in,
        raise_error=False,
    )
    assert write.code == 403
    assert not (server_tiers.local / "mine.md").exists()
    with_token = await client.fetch(
        f"{base}biopb-kernel-docs/api/docs/mine",
        method="PUT",
        body=json.dumps({"body": "# Mine\n"}),
        headers={**logged_in, "X-XSRFToken": xsrf},
        raise_error=False,
    )
    assert with_token.code == 200, with_token.body


# -- push --------------------------------------------------------------------------------------------


async def _event_where(jp_serverapp, trigger, matches, within: float = 5.0) -> dict:
    """Run ``trigger``, then wait for the first docs event whose data ``matches`` (a condition)."""
    heard: asyncio.Queue = asyncio.Queue()

    async def listener(logger, schema_id, data):
        await heard.put(data)

    jp_serverapp.event_logger.add_listener(schema_id=EVENT_SCHEMA_ID, listener=listener)
    try:
        trigger()
        async with asyncio.timeout(within):
            while not matches(data := await heard.get()):
                pass
        return data
    finally:
        jp_serverapp.event_logger.remove_listener(schema_id=EVENT_SCHEMA_ID, listener=listener)


async def test_edits_on_disk_are_pushed_as_events(jp_fetch, jp_serverapp, server_tiers):
    server_tiers.seed()
    await _api(jp_fetch, "index")
    index = server_tiers.local_text("index")
    server_tiers.put_local("index", index + "- lab/planned: a doc the agent will write\n")
    await _event_where(jp_serverapp, lambda: None, lambda d: "index" in d["ids"])

    def create_on_disk():
        server_tiers.put_local("lab/planned", "# Written in an editor\n")

    data = await _event_where(jp_serverapp, create_on_disk, lambda d: "lab/planned" in d["ids"])
    assert data["what"] == "index"  # a listed doc appearing changes its (missing) marker

    def edit_on_disk():
        (server_tiers.local / "lab/planned.md").write_text("# Written in an editor\n\nMore.\n")

    data = await _event_where(jp_serverapp, edit_on_disk, lambda d: "lab/planned" in d["ids"])
    assert data["what"] == "doc"

    def edit_the_index_in_place():  # index.md alone moves: its directory's mtime does not
        path = server_tiers.local / "index.md"
        path.write_text(path.read_text().replace("the agent will write", "the agent wrote"))

    data = await _event_where(jp_serverapp, edit_the_index_in_place, lambda d: d["ids"] == ["index"])
    assert data["what"] == "index"  # the panel reloads the index, not one doc


def test_a_shipped_doc_edited_in_place_is_pushed_as_an_index_change_naming_no_local_doc(tiers):
    # a shipped text feeds the rendered index (its description, the new-docs tail), and it is no
    # local doc: the panel reloads the index and is sent no id
    import io
    import logging

    from jupyter_events import EventLogger

    from biopb_kernel_docs.surfaces.config import DocStore
    from biopb_kernel_docs.surfaces.serverext import EVENT_SCHEMA, DocsService

    tiers.seed()
    sent = io.StringIO()
    events = EventLogger(handlers=[logging.StreamHandler(sent)])
    events.register_event_schema(EVENT_SCHEMA)
    service = DocsService(DocStore(docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped)), events)
    with open(tiers.shipped / "flatfield.md", "a", encoding="utf-8") as shipped:  # in place: same inode
        shipped.write("\nStep two.\n")
    service.poll()
    (event,) = [json.loads(line) for line in sent.getvalue().splitlines()]
    assert (event["what"], event["ids"]) == ("index", [])
    assert event["index_sha256"] == hashlib.sha256((tiers.local / "index.md").read_bytes()).hexdigest()


@pytest.mark.parametrize("jp_server_config", [{"poll_seconds": 3600}], indirect=True)
async def test_a_write_through_the_api_is_pushed_at_once(jp_fetch, jp_serverapp):
    # Polling slowed to once an hour: the event can only come from the write itself.
    await _api(jp_fetch, "index")
    loop = asyncio.get_running_loop()
    writes = []

    def write():
        writes.append(loop.create_task(_api(jp_fetch, "docs", "lab/x", method="PUT", body={"body": "# X\n"})))

    data = await _event_where(jp_serverapp, write, lambda d: "lab/x" in d["ids"])
    assert (await writes[0]).code == 200
    assert data["what"] == "index"
    assert len(data["index_sha256"]) == 64


# -- callers and authorization (issue 20) --------------------------------------------------------------


async def _new_user(jp_fetch) -> dict[str, str]:
    """Headers that make later requests one user: a request with the token and no login cookie
    is a new anonymous user, whom the login cookie it gets back identifies from then on."""
    response = await _api(jp_fetch, "index")
    cookies = [c.split(";", 1)[0] for c in response.headers.get_list("Set-Cookie")]
    assert cookies, "the server set no login cookie"
    return {"Cookie": "; ".join(cookies)}


async def test_one_users_read_never_vouches_for_another_users_body_save(jp_fetch, server_tiers):
    first, second = await _new_user(jp_fetch), await _new_user(jp_fetch)
    assert first != second
    server_tiers.put_local("shared", "# Shared\n\nas both users found it\n")
    read = await jp_fetch("biopb-kernel-docs", "api", "docs", "shared", headers=second)
    assert read.code == 200
    server_tiers.put_local("shared", "# Shared\n\nedited in a text editor\n")
    assert (await jp_fetch("biopb-kernel-docs", "api", "docs", "shared", headers=first)).code == 200
    response = await jp_fetch(
        "biopb-kernel-docs",
        "api",
        "docs",
        "shared",
        method="PUT",
        body=json.dumps({"body": "# Shared\n\nsaved from a stale read\n"}),
        headers=second,
        raise_error=False,
    )
    assert response.code == 409, response.body
    assert (await _json(response))["kind"] == "StaleWrite"
    assert server_tiers.local_text("shared") == "# Shared\n\nedited in a text editor\n"


@pytest.mark.parametrize("jp_server_config", [{"ServerApp": {"authorizer_class": DenyWrites}}], indirect=True)
async def test_writes_are_refused_by_an_authorizer_that_denies_them(jp_fetch, server_tiers):
    server_tiers.seed()  # so the index below is the one a refused write would have changed
    assert (await _api(jp_fetch, "docs", "flatfield")).code == 200
    assert (await _api(jp_fetch, "index")).code == 200
    put = await _api(jp_fetch, "docs", "mine", method="PUT", body={"body": "# Mine\n"})
    assert put.code == 403
    filed = await _api(
        jp_fetch, "ops", "file_doc", method="POST", body={"id": "segment-nuclei", "heading": "## Lab"}
    )
    assert filed.code == 403
    assert not (server_tiers.local / "mine.md").exists()
    assert "segment-nuclei" not in server_tiers.local_text("index")


SECTIONED = "# Steps doc\n\n## Steps\n\n### Confirm input\nShow the shape; raise KeyError if not.\n"


async def test_sections_outlines_collections_and_search_as_json_for_a_ui(jp_fetch, server_tiers):
    server_tiers.ship("lab/steps", SECTIONED)
    (server_tiers.local).mkdir(parents=True, exist_ok=True)
    (server_tiers.local / "index.md").write_text(
        "# Docs\n\n## Lab\n- lab/: the lab's docs\n", encoding="utf-8"
    )
    section = await _json(await _api(jp_fetch, "docs", "lab/steps#Steps/Confirm input"))
    assert section["type"] == "SectionView"
    assert (section["position"], section["of"]) == (3, 3)
    assert section["section"]["path"] == ["Steps doc", "Steps", "Confirm input"]
    assert (section["section"]["anchor"], section["section"]["line"], section["section"]["end"]) == (
        "Confirm input",
        5,
        6,
    )
    outline = await _json(await _api(jp_fetch, "docs", "lab/steps#"))
    assert [e["anchor"] for e in outline["entries"]] == ["Steps doc", "Steps", "Confirm input"]
    listing = await _json(await _api(jp_fetch, "docs", "lab/"))
    assert (listing["type"], listing["listed"], listing["items"][0]["id"]) == (
        "CollectionView",
        True,
        "lab/steps",
    )
    missing = await _api(jp_fetch, "docs", "lab/steps#Nope")
    assert missing.code == 404
    assert "The outline of lab/steps in the Kernel Docs panel lists" in (await _json(missing))["message"]
    found = await _json(await _api(jp_fetch, "search", q="keyerror"))
    assert found["type"] == "SearchResult"
    group = found["groups"][0]
    assert (group["id"], group["anchor"], group["section_line"]) == ("lab/steps", "Confirm input", 5)
    assert group["lines"][0]["line"] == 6
    assert group["lines"][0]["spans"] == [[22, 30]]
    posted = await _json(
        await _api(jp_fetch, "ops", "search_docs", method="POST", body={"query": r"raise \w+", "regex": True})
    )
    assert posted["matching_lines"] == 1
    refused = await _api(jp_fetch, "search", q="(a", regex="1")
    assert refused.code == 400
    assert "not a pattern RE2 accepts" in (await _json(refused))["message"]
    assert (await _api(jp_fetch, "search", q="x", regex="maybe")).code == 400


async def test_the_search_route_reads_regex_as_1_or_true_and_0_or_false(jp_fetch, server_tiers):
    for on in ("1", "true", "True"):
        found = await _json(await _api(jp_fetch, "search", q=r"uneven \w+ination", regex=on))
        assert (found["regex"], found["matching_lines"]) == (True, 1), on
    for off in ("0", "false", ""):
        found = await _json(await _api(jp_fetch, "search", q=r"uneven \w+ination", regex=off))
        assert (found["regex"], found["matching_lines"]) == (False, 0), off


# -- history, restore, retire, drop ------------------------------------------------------------------


async def test_history_routes_list_versions_with_attribution_read_one_diff_two_and_restore(
    jp_fetch, server_tiers
):
    for word in ("one", "two", "three"):
        written = await _api(jp_fetch, "docs", "notes", method="PUT", body={"body": f"# Notes\n\n{word}\n"})
        assert written.code == 200, written.body
    assert (await _json(written))["changes"][0]["version"] == 3
    history = await _json(await _api(jp_fetch, "docs", "notes@history"))
    assert history["type"] == "HistoryView"
    assert [v["number"] for v in history["versions"]] == [3, 2, 1]
    newest = history["versions"][0]
    assert newest["author"]["surface"] == "panel"
    assert newest["author"]["label"] == f"panel as {newest['author']['name']}"
    assert newest["author"]["name"]  # the Jupyter user who saved it
    assert not re.fullmatch(r"[0-9a-f]{32}", newest["author"]["name"])  # as Jupyter names them, not a hex id
    assert (newest["added"], newest["removed"], newest["current"]) == (1, 1, True)
    assert (history["max_versions"], history["max_bytes"]) == (100, 2 * 1024 * 1024)
    assert history["bounds"] == "at most 100 versions and 2 MiB per doc are kept, the oldest dropped first"
    one = await _json(await _api(jp_fetch, "docs", "notes@v1"))
    assert (one["type"], one["text"], one["version"]["current"]) == ("VersionView", "# Notes\n\none\n", False)
    diff = await _json(
        await _api(
            jp_fetch, "ops", "diff_versions", method="POST", body={"id": "notes", "older": 1, "newer": "v3"}
        )
    )
    assert "-one\n+three" in diff["diff"]
    restored = await _api(
        jp_fetch,
        "ops",
        "restore_doc",
        method="POST",
        body={"id": "notes", "version": 1, "if_match": history["sha256"]},
    )
    assert restored.code == 200, restored.body
    assert (await _json(restored))["restored"] == 1
    assert server_tiers.local_text("notes") == "# Notes\n\none\n"
    stale = await _api(
        jp_fetch,
        "ops",
        "restore_doc",
        method="POST",
        body={"id": "notes", "version": 2, "if_match": history["sha256"]},
    )
    assert stale.code == 409
    assert (await _json(stale))["kind"] == "StaleWrite"


async def test_the_review_carries_who_changed_what_and_offers_retire_and_drop(jp_fetch, server_tiers):
    await _api(jp_fetch, "docs", "lab/fresh", method="PUT", body={"body": "# Fresh\n\nnew\n"})
    flat = await _json(await _api(jp_fetch, "docs", "flatfield"))
    for text in (flat["text"] + "A note of mine.\n", flat["text"]):  # a copy, then back to the shipped text
        saved = await _api(jp_fetch, "docs", "flatfield", method="PUT", body={"body": text})
        assert saved.code == 200, saved.body
    review = await _json(await _api(jp_fetch, "review"))
    items = {item["id"]: item for item in review["items"]}
    fresh = items["lab/fresh"]
    assert fresh["actions"] == ["looks_good", "retire"]
    assert fresh["changes"][0]["author"]["label"].startswith("panel as ")
    assert fresh["hunks"][0]["versions"] == [1]
    assert (fresh["baseline"], fresh["text"]) == (None, "# Fresh\n\nnew\n")  # a new doc: nothing before
    copy = items["flatfield"]
    assert (copy["same_as_shipped"], copy["actions"]) == (True, ["drop"])
    index = await _json(await _api(jp_fetch, "index"))
    retired = await _api(
        jp_fetch, "ops", "retire_doc", method="POST", body={"id": "lab/fresh", "if_match": index["sha256"]}
    )
    assert retired.code == 200, retired.body
    assert "- lab/fresh:" not in server_tiers.local_text("index")
    assert server_tiers.local_text("lab/fresh") == "# Fresh\n\nnew\n"
    dropped = await _api(
        jp_fetch,
        "ops",
        "drop_local_copy",
        method="POST",
        body={"id": "flatfield", "if_match": copy["sha256"]},
    )
    assert dropped.code == 200, dropped.body
    assert not (server_tiers.local / "flatfield.md").exists()
    history = await _json(await _api(jp_fetch, "docs", "flatfield@history"))
    assert history["versions"][0]["local"] is False
    assert history["versions"][0]["author"]["surface"] == "panel"


def test_the_server_remembers_at_most_256_callers_the_least_recent_forgotten_first(tiers):
    from biopb_kernel_docs.surfaces.config import DocStore
    from biopb_kernel_docs.surfaces.serverext import MAX_CALLERS, DocsService

    assert MAX_CALLERS == 256
    service = DocsService(DocStore(docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped)), None)
    first = service.docs_for("user-0")
    for n in range(1, 300):  # a token-only client is a new anonymous user on every request
        service.docs_for(f"user-{n}")
        service.docs_for("user-0")  # the one in use stays remembered
    assert len(service._callers) == MAX_CALLERS
    assert service.docs_for("user-0") is first
    assert "user-1" not in service._callers


async def test_skills_export_and_import_are_operations_of_the_rest_api(jp_fetch, server_tiers, tmp_path):
    out = tmp_path / "skills"
    response = await _api(
        jp_fetch, "ops", "export_skills", method="POST", body={"dir": str(out), "all": True}
    )
    assert response.code == 200
    exported = await _json(response)
    assert exported["type"] == "SkillExport"
    assert [(s["name"], s["action"]) for s in exported["skills"]] == [
        ("data", "created"),
        ("flatfield", "created"),
        ("stitch-tiles", "created"),
    ]
    assert (out / "flatfield" / "SKILL.md").is_file()
    response = await _api(
        jp_fetch, "ops", "import_skills", method="POST", body={"dir": str(out), "prefix": ""}
    )
    assert response.code == 200
    imported = await _json(response)
    assert imported["type"] == "SkillImport"
    assert imported["imported"] == []
    assert [note["name"] for note in imported["refused"]] == ["data/", "flatfield/", "stitch-tiles/"]
    assert 'Import with "replace": true to replace it' in imported["refused"][0]["reason"]
    response = await _api(
        jp_fetch, "ops", "import_skills", method="POST", body={"dir": str(out), "prefix": "lab/"}
    )
    assert [s["id"] for s in (await _json(response))["imported"]] == [
        "lab/data",
        "lab/flatfield",
        "lab/stitch-tiles",
    ]
    assert "## Imported skills\n- lab/data: how arrays are laid out\n" in server_tiers.local_text("index")
    history = await _json(await _api(jp_fetch, "docs", "lab/flatfield@history"))
    [version] = history["versions"]
    assert version["author"]["surface"] == "panel"  # the import this route ran, as the Jupyter user
    assert version["author"]["label"] == f"panel as {version['author']['name']}"
    missing = await _api(
        jp_fetch, "ops", "import_skills", method="POST", body={"dir": str(tmp_path / "nope")}
    )
    assert missing.code == 400
    assert "No directory" in (await _json(missing))["message"]


@pytest.mark.parametrize("jp_server_config", [{"poll_seconds": 3600}], indirect=True)
async def test_a_retire_through_the_api_is_pushed_at_once(jp_fetch, jp_serverapp, server_tiers):
    # Polling slowed to once an hour: the event can only come from the retire itself.
    server_tiers.seed()
    await _api(jp_fetch, "index")
    loop = asyncio.get_running_loop()
    retires = []

    def retire():
        retires.append(
            loop.create_task(_api(jp_fetch, "ops", "retire_doc", method="POST", body={"id": "flatfield"}))
        )

    data = await _event_where(jp_serverapp, retire, lambda d: d["what"] == "index")
    assert (await retires[0]).code == 200
    from biopb_kernel_docs.core.index import parse_index

    assert "flatfield" in parse_index(server_tiers.local_text("index")).ignored
    assert len(data["index_sha256"]) == 64


def test_the_connect_command_quotes_a_connection_file_whose_path_has_spaces():
    import shlex

    from biopb_kernel_docs.surfaces.connect import connect_config

    path = "/home/a user/.local/share/jupyter/runtime/kernel-1 (copy).json"
    config = connect_config(path)
    argv = shlex.split(config["claude"])
    assert argv[-2:] == ["--existing", path]
    assert config["json"]["mcpServers"]["biopb-docs"]["args"][-2:] == ["--existing", path]
