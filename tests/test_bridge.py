"""The kernel side of the bridge answers every frame, and its channel keeps serving whatever it gets."""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
import time
from queue import Empty

import anyio
import pytest
import zmq

from biopb_kernel_docs._version import __version__
from biopb_kernel_docs.bridge import messages, wire
from biopb_kernel_docs.bridge.channel import Channel, start_server
from biopb_kernel_docs.bridge.client import KernelDocsClient
from biopb_kernel_docs.bridge.kernel_side import dispatch, mcp_author
from biopb_kernel_docs.core.errors import (
    BridgeMismatch,
    DocNotFound,
    InternalError,
    InvalidArguments,
    KernelUnavailable,
    LimitExceeded,
    StaleWrite,
)
from biopb_kernel_docs.core.values import DocView, IndexView
from biopb_kernel_docs.surfaces import operations
from biopb_kernel_docs.surfaces.config import DocStore


@pytest.fixture
def doc_store(tiers) -> DocStore:
    return DocStore(docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped))


def _call(doc_store, operation, arguments, session="s1"):
    return wire.parse_answer(dispatch(doc_store, wire.request_frame(session, operation, arguments)))


def test_a_value_crosses_the_wire_intact(doc_store):
    view = _call(doc_store, "read_doc", {"id": "flatfield"})
    assert isinstance(view, DocView)
    assert view.frontmatter == (("description", "fix shading"), ("updated", "2026-01-02"))
    index = _call(doc_store, "index", {})
    assert isinstance(index, IndexView)
    assert [e.id for e in index.entries] == ["data", "flatfield", "stitch-tiles"]


def test_a_refusal_keeps_its_kind_and_its_next_step_across_the_wire(doc_store, tiers):
    with pytest.raises(DocNotFound) as missing:
        _call(doc_store, "read_doc", {"id": "flatfeld"})
    assert missing.value.status == 404
    tiers.put_local("mine", "# Mine\n")
    _call(doc_store, "read_doc", {"id": "mine"})
    tiers.put_local("mine", "# Changed elsewhere\n")
    with pytest.raises(StaleWrite) as stale:
        _call(doc_store, "write_doc", {"id": "mine", "body": "# From a stale read\n"})
    assert stale.value.status == 409
    with pytest.raises(InvalidArguments) as usage:
        _call(doc_store, "write_doc", {"id": "mine"})
    assert usage.value.status == 400
    with pytest.raises(LimitExceeded) as limit:
        _call(doc_store, "write_doc", {"id": "long", "body": "line\n" * 301})
    assert limit.value.status == 413


@pytest.mark.parametrize(
    ("frame", "error", "says"),
    [
        ("{not json", InvalidArguments, "not valid JSON"),
        (json.dumps([1, 2]), InvalidArguments, "JSON object"),
        (None, InvalidArguments, "JSON text"),
        ("[" * 100_000, InvalidArguments, "nests JSON too deeply"),
        (json.dumps({"protocol": 1, "session": "s", "operation": "read_doc"}), BridgeMismatch, "Upgrade"),
        (wire.request_frame("s", "grep_docs", {"query": "x"}), InvalidArguments, "Unknown operation"),
        (wire.request_frame("s", "read_doc", {"id": 7}), InvalidArguments, "must be a string"),
        (wire.request_frame("s", "read_doc", {"doc": "x"}), InvalidArguments, "has no argument 'doc'"),
        ("x" * (8 * 1024 * 1024 + 1), LimitExceeded, "the limit is 8 MiB"),  # the limit pinned at its value
        (
            json.dumps({"protocol": 2, "session": 7, "operation": "read_doc", "arguments": {"id": "data"}}),
            InvalidArguments,
            "needs a string session and operation",
        ),
        (
            json.dumps({"protocol": 2, "session": "s", "operation": 7, "arguments": {"id": "data"}}),
            InvalidArguments,
            "needs a string session and operation",
        ),
    ],
)
def test_a_bad_request_gets_an_answer_saying_what_is_wrong(doc_store, frame, error, says):
    with pytest.raises(error, match=says):
        wire.parse_answer(dispatch(doc_store, frame))


def test_a_request_of_exactly_8_mib_is_not_refused_for_its_size(doc_store):
    padding = 8 * 1024 * 1024 - len(wire.request_frame("s", "read_doc", {"id": "flatfield", "x": ""}))
    frame = wire.request_frame("s", "read_doc", {"id": "flatfield", "x": "y" * padding})
    assert len(frame) == 8 * 1024 * 1024
    with pytest.raises(InvalidArguments, match="has no argument 'x'"):  # read past the size check
        wire.parse_answer(dispatch(doc_store, frame))


def test_an_exception_inside_an_operation_is_reported_as_a_bug_not_raised(doc_store, monkeypatch, caplog):
    broken = operations.Operation(
        name="read_doc",
        summary="broken",
        parameters=operations.OPERATIONS["read_doc"].parameters,
        returns=(),
        errors=(),
        run=lambda docs, arguments: 1 / 0,
    )
    monkeypatch.setitem(operations.OPERATIONS, "read_doc", broken)
    with pytest.raises(InternalError, match=r"ZeroDivisionError.*This is a bug"):
        _call(doc_store, "read_doc", {"id": "flatfield"})
    (logged,) = [r for r in caplog.records if r.name == "biopb_kernel_docs.bridge.kernel_side"]
    assert logged.levelno == logging.ERROR  # the kernel's log keeps the traceback for the bug report
    said = logged.getMessage()
    assert said.startswith("biopb-kernel-docs: a docs call failed inside the kernel\nTraceback")
    assert "ZeroDivisionError: division by zero" in said


def test_the_frames_carry_protocol_2_this_release_and_exactly_the_callers_fields():
    # kernels and MCP servers of other releases read these: the protocol is pinned at its value
    client = {"name": "claude-code", "version": "2.1"}
    frame = wire.request_frame("s1", "read_doc", {"id": "data"}, client)
    assert json.loads(frame) == {
        "protocol": 2,
        "version": __version__,
        "session": "s1",
        "client": client,
        "operation": "read_doc",
        "arguments": {"id": "data"},
    }
    assert "client" not in json.loads(wire.request_frame("s1", "index", {}))
    request = wire.parse_request(frame)
    assert request == wire.Request("s1", "read_doc", {"id": "data"}, client)
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.session = "s2"  # type: ignore[misc]
    assert wire.parse_request(wire.request_frame("s1", "index", {}, {"name": 7})).client is None
    answer = {"protocol": 2, "version": __version__, "ok": True, "value": None}
    assert json.loads(wire.answer_frame(None)) == answer
    assert json.loads(wire.refusal_frame(DocNotFound("No doc 'x'. read_doc('index') lists them all."))) == {
        "protocol": 2,
        "version": __version__,
        "ok": False,
        "error": {"kind": "DocNotFound", "template": "No doc 'x'. read_doc('index') lists them all."},
    }


def test_a_clients_declared_name_is_read_from_its_first_400_characters_only():
    # a label is at most 100 characters: 400 bound the work a huge declared name costs
    assert mcp_author({"name": "\a" * 399 + "claude-code"}).name == "c"
    assert mcp_author({"name": "\a" * 400 + "claude-code"}).name is None


def test_the_kernels_doc_store_takes_the_running_shells_configuration(tiers, monkeypatch):
    # with autoload turned off no shell is passed in: the bridge's first call builds the store
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    from biopb_kernel_docs.bridge import kernel_side

    config = Config()
    config.HistoryManager.enabled = False  # no history thread or sqlite file
    config.DocStore.docs_local_dir = str(tiers.local)
    config.DocStore.shipped_dir = str(tiers.shipped)
    monkeypatch.setattr(kernel_side, "_doc_store", None)  # a kernel store of this test's own
    InteractiveShell.instance(config=config)  # what get_ipython() returns
    try:
        doc_store = kernel_side.kernel_doc_store()
    finally:
        InteractiveShell.clear_instance()
    assert _call(doc_store, "read_doc", {"id": "flatfield"}).path == str(tiers.shipped / "flatfield.md")


def test_an_answer_from_a_peer_of_another_protocol_says_which_side_to_upgrade():
    with pytest.raises(BridgeMismatch, match="kernel's side"):
        wire.parse_answer(json.dumps({"ok": True, "result": "old format"}))


def test_a_peer_whose_frames_carry_no_protocol_is_reported_as_protocol_1_of_an_older_version():
    # the first release's frames had no protocol field: the message must not claim ours
    with pytest.raises(BridgeMismatch) as answer:
        wire.parse_answer(json.dumps({"ok": True, "result": "old format"}))
    assert "protocol 1, version older on the kernel's side" in str(answer.value)
    with pytest.raises(BridgeMismatch) as request:
        wire.parse_request(json.dumps({"session": "s", "operation": "index", "arguments": {}}))
    assert "protocol 1, version older on the MCP server's side" in str(request.value)


def test_a_protocol_mismatch_names_the_older_side_as_the_one_to_upgrade():
    request = {"session": "s", "operation": "index", "arguments": {}}
    newer = json.dumps({**request, "protocol": wire.PROTOCOL + 1, "version": "9.0"})
    with pytest.raises(BridgeMismatch, match="Upgrade the one on this side "):
        wire.parse_request(newer)
    older = json.dumps({**request, "protocol": wire.PROTOCOL - 1, "version": "0.1"})
    with pytest.raises(BridgeMismatch, match="Upgrade the one on the MCP server's side "):
        wire.parse_request(older)
    with pytest.raises(BridgeMismatch, match="Upgrade the one on the kernel's side "):
        wire.parse_answer(json.dumps({"protocol": wire.PROTOCOL - 1, "ok": True, "value": None}))
    with pytest.raises(BridgeMismatch, match="Upgrade the one on this side "):
        wire.parse_answer(json.dumps({"protocol": wire.PROTOCOL + 1, "ok": True, "value": None}))


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_the_channel_keeps_serving_after_garbage_forgeries_and_empty_requests(doc_store):
    key = b"a-test-key"
    endpoint = start_server(key, "hmac-sha256", lambda frame: dispatch(doc_store, frame))
    raw = zmq.Context.instance().socket(zmq.DEALER)
    raw.linger = 0
    raw.connect(endpoint)
    raw.send_multipart([b"not", b"a", b"message"])
    raw.send_multipart([b"<IDS|MSG>", b"forged-signature", b"{}", b"{}", b"{}", b"{}"])
    channel = Channel(endpoint, key, "hmac-sha256")
    forged = Channel(endpoint, b"another-key", "hmac-sha256")
    try:
        with anyio.fail_after(10):
            unanswered = await forged.send(wire.request_frame("s", "index", {}))
            with pytest.raises(Empty):
                await forged.receive(unanswered, 0.5)
            empty = await channel.send(None)  # a signed request with no frame in it
            with pytest.raises(InvalidArguments):
                wire.parse_answer(await channel.receive(empty, 5))
            good = await channel.send(wire.request_frame("s", "read_doc", {"id": "data"}))
            assert wire.parse_answer(await channel.receive(good, 5)).id == "data"
    finally:
        channel.close()
        forged.close()
        raw.close()


@pytest.mark.anyio
async def test_a_message_the_channel_cannot_answer_is_logged_and_the_next_one_is_answered(
    doc_store, monkeypatch, caplog
):
    from biopb_kernel_docs.bridge import channel as channel_module

    def breaking_on_boom(frame):
        if frame == "boom":
            raise RuntimeError("the handler broke")
        return dispatch(doc_store, frame)

    key = b"a-breaking-key"
    monkeypatch.setattr(channel_module, "_server_endpoint", None)  # a server thread of this test's own
    channel = Channel(start_server(key, "hmac-sha256", breaking_on_boom), key, "hmac-sha256")
    try:
        with anyio.fail_after(10):
            await channel.send("boom")
            good = await channel.send(wire.request_frame("s", "read_doc", {"id": "data"}))
            assert wire.parse_answer(await channel.receive(good, 5)).id == "data"
    finally:
        channel.close()
    (logged,) = [r for r in caplog.records if r.name == "biopb_kernel_docs.bridge.channel"]
    assert logged.levelno == logging.ERROR
    assert logged.getMessage() == "biopb-kernel-docs channel: a message could not be answered"
    assert logged.exc_info is not None
    assert str(logged.exc_info[1]) == "the handler broke"
    # the channel's threads never keep the kernel's process from exiting at its shutdown
    served = [thread for thread in threading.enumerate() if thread.name == "biopb-docs-channel"]
    assert served
    assert all(thread.daemon for thread in served)


# -- a kernel's channel that answers slowly (issue 20) -------------------------------------------------

ANSWER_DELAY_SECONDS = 0.3  # the scene: every answer takes this long; no test waits on it


@pytest.fixture
def slow_channel(doc_store, monkeypatch):
    """A channel whose every answer takes ANSWER_DELAY_SECONDS, answered in the order asked."""
    from biopb_kernel_docs.bridge import channel as channel_module

    def slowly(frame):
        time.sleep(ANSWER_DELAY_SECONDS)
        return dispatch(doc_store, frame)

    key = b"a-slow-key"
    monkeypatch.setattr(channel_module, "_server_endpoint", None)  # a server thread of this test's own
    made = Channel(start_server(key, "hmac-sha256", slowly), key, "hmac-sha256")
    yield made
    made.close()


@pytest.mark.anyio
async def test_a_late_reply_never_answers_the_next_call(slow_channel):
    with anyio.fail_after(20):
        first = await slow_channel.send(wire.request_frame("s", "read_doc", {"id": "data"}))
        with pytest.raises(Empty):
            await slow_channel.receive(first, 0.05)  # the caller gave up on the first
        second = await slow_channel.send(wire.request_frame("s", "read_doc", {"id": "flatfield"}))
        assert wire.parse_answer(await slow_channel.receive(second, 10)).id == "flatfield"


@pytest.mark.anyio
async def test_a_receive_waits_its_timeout_in_seconds(slow_channel):
    with anyio.fail_after(20):
        asked = await slow_channel.send(wire.request_frame("s", "read_doc", {"id": "data"}))
        assert wire.parse_answer(await slow_channel.receive(asked, 10)).id == "data"


@pytest.mark.anyio
async def test_a_message_over_64_mib_is_dropped_before_the_channel_reads_it(doc_store, monkeypatch):
    from biopb_kernel_docs.bridge import channel as channel_module

    assert channel_module.MAX_MESSAGE_BYTES == 64 * 1024 * 1024
    seen: list[int] = []

    def recording(frame):
        seen.append(len(frame or ""))
        return dispatch(doc_store, frame)

    key = b"a-size-key"
    monkeypatch.setattr(channel_module, "_server_endpoint", None)  # a server thread of this test's own
    endpoint = start_server(key, "hmac-sha256", recording)
    big, small = Channel(endpoint, key, "hmac-sha256"), Channel(endpoint, key, "hmac-sha256")
    try:
        with anyio.fail_after(30):
            oversized = await big.send("x" * (channel_module.MAX_MESSAGE_BYTES + 1024))
            with pytest.raises(Empty):
                await big.receive(oversized, 2)
            good = await small.send(wire.request_frame("s", "read_doc", {"id": "data"}))
            assert wire.parse_answer(await small.receive(good, 5)).id == "data"
        assert all(size < channel_module.MAX_MESSAGE_BYTES for size in seen), seen
    finally:
        big.close()
        small.close()


@pytest.mark.parametrize(
    ("evalue", "error", "next_step"),
    [
        (
            "No module named 'biopb_kernel_docs.bridge'",
            BridgeMismatch,
            "The kernel's biopb-kernel-docs is older than this MCP server's and has no bridge for it. "
            "Run %pip install -U biopb-kernel-docs in the notebook",
        ),
        (
            "No module named 'biopb_kernel_docs'",
            KernelUnavailable,
            "biopb-kernel-docs is not installed in the kernel's environment. Run %pip install",
        ),
    ],
)
def test_a_kernel_that_cannot_import_the_bridge_says_whether_to_upgrade_or_install(evalue, error, next_step):
    failure = messages.expression_failure({"ename": "ModuleNotFoundError", "evalue": evalue})
    assert type(failure) is error
    assert str(failure).startswith(next_step)


def test_a_kernel_answer_that_is_not_a_bridge_answer_quotes_its_first_80_characters_and_says_to_upgrade():
    # an older kernel side answers with an object's repr, which is not a Python literal
    reply = {
        "status": "ok",
        "user_expressions": {
            "result": {
                "status": "ok",
                "data": {
                    "text/plain": "<biopb_kernel_docs.bridge.kernel_side.Answer object at 0x7f3a2c1b9d60>"
                },
            }
        },
    }
    with pytest.raises(BridgeMismatch) as caught:
        KernelDocsClient._expression_value(reply)
    assert str(caught.value) == (
        "The kernel answered a docs call with something that is not a bridge answer "
        """("{'text/plain': '<biopb_kernel_docs.bridge.kernel_side.Answer object at 0x7f3a2c1"): """
        "its biopb-kernel-docs is probably another version. Run %pip install -U biopb-kernel-docs in "
        "the notebook, restart the kernel, and reconnect."
    )


def test_a_docs_request_the_kernel_refused_names_its_error_and_says_to_restart_the_kernel():
    reply = {"status": "error", "ename": "KeyboardInterrupt", "evalue": "interrupted by the user"}
    with pytest.raises(KernelUnavailable) as caught:
        KernelDocsClient._expression_value(reply)
    assert str(caught.value) == (
        "The kernel refused the docs request (KeyboardInterrupt: interrupted by the user). Restart the "
        "notebook's kernel and reconnect; if it persists, report it."
    )
