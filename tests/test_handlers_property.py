"""A property of the REST API (issue 21): whatever a client sends to any route, the answer is
never a 5xx and never a traceback. Hypothesis generates the requests (hostile ids, wrong types,
unknown and missing arguments, garbage and deeply nested bodies, huge strings) and sends each to
a real Jupyter Server, whose store carries over from one request to the next."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.parse
import urllib.request

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biopb_kernel_docs.surfaces import operations

from .conftest import build_tiers

pytest_plugins = ["pytest_jupyter.jupyter_server"]

REQUESTS = 1000

HOSTILE_IDS = [
    "index",
    "flatfield",
    "flatfield@diff",
    "index@diff",
    "x@history",
    "flatfield@history",
    "index@history",
    "flatfield@v1",
    "index@v2",
    "flatfield@v0",
    "flatfield@v1234567890",
    "flatfield@history#Steps",
    "lab/notes",
    "lab/notes/",
    "flatfield.md",
    "flatfield.md/y",
    "A.MD/b",
    "../escape",
    "a/../../b",
    "./a",
    "a//b",
    "CON",
    "lab/aux.txt",
    "trailing.",
    ".hidden",
    "_banked",
    "x" * 201,
    "a b",
    "a\\b",
    "a\x00b",
    "é",
    "\ud800",
]
VALID_IDS = ["index", "flatfield", "data", "segment-nuclei", "stitch-tiles", "_banked", "lab/notes", "fresh"]
NAMES = [*sorted({p.name for op in operations.OPERATIONS.values() for p in op.parameters}), "section", ""]
HUGE = ["x" * 200_000, "line\n" * 400, "[" * 50_000]
CURRENT = "<the sha256 the doc has now>"  # replaced when the request is sent

ids = st.one_of(st.sampled_from(VALID_IDS), st.sampled_from(HOSTILE_IDS), st.text(max_size=30))
doc_texts = st.one_of(
    st.text(max_size=200),
    st.sampled_from(
        [
            "# Fresh\n\nA new doc.\n",
            "---\ndescription: correct my tiles\n---\n# Tiles\n\nStep one.\n",
            "---\ndescription: " + "word " * 300 + "\n---\n# Wordy\n",
            "- data: how arrays are laid out",
            "- flatfield: correct uneven illumination (local copy)",
            "- lab/notes: notes (missing)",
            "## Procedures",
            "Step one.",
            "",
            "\ud800",
            "a\x00b",
        ]
    ),
    st.sampled_from(HUGE),
)
numbers = st.one_of(
    st.integers(min_value=-3, max_value=5),
    st.sampled_from(["0", "1", "-1", "²", "١", "9" * 5000, "1.5", " 1"]),
    st.integers(min_value=-(10**30), max_value=10**30),
)
strings = st.one_of(
    st.sampled_from(["## Procedures", "## New", "Procedures", "\ud800", "a\nb"]), st.text(max_size=40)
)
shas = st.one_of(st.just(CURRENT), st.just("0" * 64), st.text(max_size=70))
queries = st.one_of(
    st.sampled_from(
        ["flatfield", "KeyError", "(a", "x*", "(a+)+$", "", "   ", "a\x00b", "\ud800", "q" * 2000]
    ),
    st.text(max_size=30),
)
flags = st.one_of(st.booleans(), st.sampled_from(["true", "1", 1, 0]))
versions = st.one_of(
    st.integers(min_value=-1, max_value=4),
    st.sampled_from(["1", "v1", "V2", "v", "v0", "0", "²", "v١", "v" + "9" * 5000, "1.5", " v1", "vv1"]),
    st.integers(min_value=-(10**30), max_value=10**30),
)
BY_KIND = {
    "id": ids,
    "text": doc_texts,
    "number": numbers,
    "string": strings,
    "sha": shas,
    "query": queries,
    "flag": flags,
    "version": versions,
}
wrong_types = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


def _arguments_for(op: operations.Operation):
    """Mostly the operation's own parameters with plausible values; sometimes a wrong type, an
    unknown name, or a missing required one."""
    plausible = st.fixed_dictionaries(
        {p.name: BY_KIND[p.kind] for p in op.parameters if p.required},
        optional={p.name: BY_KIND[p.kind] for p in op.parameters if not p.required},
    )
    spoiled = st.tuples(
        plausible,
        st.dictionaries(
            st.one_of(st.sampled_from(NAMES), st.text(max_size=10)),
            st.one_of(wrong_types, doc_texts),
            max_size=2,
        ),
    ).map(lambda pair: {**pair[0], **pair[1]})
    return st.one_of(plausible, plausible, plausible, spoiled)


def _json_body(data) -> bytes:
    return json.dumps(data, allow_nan=True).encode("utf-8", "surrogatepass")


garbage = st.one_of(
    st.binary(max_size=40),
    st.sampled_from([b"", b"null", b"[]", b'"x"', b"{not json", b"[" * 100_000, b'{"a": NaN}', b"\xff\xfe"]),
    st.lists(wrong_types, max_size=3).map(_json_body),
)
doc_paths = st.one_of(
    ids,
    st.tuples(ids, st.sampled_from(["#", "#Steps", "#Steps/Confirm input", "#x[2]", "#\x00"])).map("".join),
).map(lambda doc_id: urllib.parse.quote(doc_id.encode("utf-8", "surrogatepass"), safe="/@"))
write_bodies = st.one_of(
    _arguments_for(operations.OPERATIONS["write_doc"]).map(
        lambda a: {k: v for k, v in a.items() if k != "id"}
    ),
    _arguments_for(operations.OPERATIONS["write_doc"]),
)
operation_calls = st.one_of(
    *(
        _arguments_for(op).map(lambda a, name=name: ("POST", f"ops/{name}", a))
        for name, op in operations.OPERATIONS.items()
    )
)
requests = st.one_of(
    st.just(("GET", "index", None)),
    st.just(("GET", "review", None)),
    st.builds(lambda p: ("GET", f"docs/{p}", None), doc_paths),
    st.builds(
        lambda q, r: ("GET", "search?" + urllib.parse.urlencode({"q": q, "regex": r}), None),
        queries.map(lambda q: q.encode("utf-8", "surrogatepass").decode("latin-1")),
        st.sampled_from(["", "1", "0", "true", "yes", "x"]),
    ),
    st.builds(lambda p, b: ("PUT", f"docs/{p}", b), doc_paths, write_bodies),
    st.builds(lambda p, b: ("PUT", f"docs/{p}", b), doc_paths, garbage),
    operation_calls,
    operation_calls,
    st.builds(lambda n, b: ("POST", f"ops/{n}", b), st.sampled_from(["nope", "drop_everything"]), garbage),
    st.builds(
        lambda k: ("GET", "connect?" + urllib.parse.urlencode({"kernel_id": k}), None),
        st.text(max_size=20).map(lambda k: k.encode("utf-8", "surrogatepass").decode("latin-1")),
    ),
)


@pytest.fixture
def server_tiers(tmp_path):
    return build_tiers(tmp_path / "docs")


@pytest.fixture
def jp_server_config(server_tiers):
    return {
        "ServerApp": {"jpserver_extensions": {"biopb_kernel_docs": True}},
        "DocStore": {"docs_local_dir": str(server_tiers.local), "shipped_dir": str(server_tiers.shipped)},
    }


def _send(base: str, token: str, method: str, path: str, body: bytes | None) -> tuple[int, bytes, str]:
    """Status, body and content type of one request."""
    request = urllib.request.Request(
        base + path, data=body, method=method, headers={"Authorization": f"token {token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read(), response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as err:
        return err.code, err.read(), err.headers.get("Content-Type", "")


def _with_current_sha(base: str, token: str, path: str, arguments: dict) -> dict:
    """The arguments with CURRENT replaced by the doc's sha256 now, so guarded writes can land."""
    doc_id = arguments.get("id", urllib.parse.unquote(path[5:]) if path.startswith("docs/") else None)
    if CURRENT not in arguments.values() or not isinstance(doc_id, str):
        return arguments
    status, answer, _ = _send(
        base,
        token,
        "GET",
        "docs/" + urllib.parse.quote(doc_id.encode("utf-8", "surrogatepass"), safe="/@"),
        None,
    )
    sha = json.loads(answer).get("sha256") if status == 200 else None
    return {k: (sha if v == CURRENT else v) for k, v in arguments.items()}


async def test_no_generated_request_gets_a_5xx_or_a_traceback(
    jp_serverapp, http_server_client, jp_http_port, jp_base_url, server_tiers
):
    base = f"http://localhost:{jp_http_port}{jp_base_url}biopb-kernel-docs/api/"
    token = jp_serverapp.identity_provider.token
    sent = []

    @settings(
        max_examples=REQUESTS,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(requests)
    def property_holds(request):
        method, path, body = request
        if isinstance(body, dict):
            body = _json_body(_with_current_sha(base, token, path, body))
        status, answer, content_type = _send(base, token, method, path, body)
        sent.append(status)
        assert status < 500, (method, path, (body or b"")[:200], answer[:500])
        assert b"Traceback" not in answer, (method, path, answer[:500])
        if status >= 400 and content_type.startswith("application/json"):  # not tornado's own 404 page
            refusal = json.loads(answer)
            assert isinstance(refusal["message"], str), refusal
            assert refusal["message"], refusal

    await asyncio.to_thread(property_holds)
    assert len(sent) >= REQUESTS
    kinds = set(sent)
    assert {200, 400, 409} <= kinds  # writes landed, and both kinds of refusal were met
