"""The MCP bridge through the SDK's own stdio clients, against `biopb-kernel-docs mcp`."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client, types
from mcp.shared.exceptions import MCPError

from biopb_kernel_docs.surfaces.mcp_server import DOC_URI_TEMPLATE, INDEX_URI, unknown_arguments
from biopb_kernel_docs.surfaces.operations import OPERATIONS
from biopb_kernel_docs.text.handshake import HEADER
from biopb_kernel_docs.text.tools import (
    READ_DOC_DESCRIPTION,
    RESTORE_DOC_DESCRIPTION,
    SEARCH_DOCS_DESCRIPTION,
    WRITE_DOC_DESCRIPTION,
)

from .kernels import Kernel, mcp_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def home(tmp_path) -> Path:
    made = tmp_path / "home"
    made.mkdir()
    return made


def own_kernel(home: Path, tiers, *extra: str) -> StdioServerParameters:
    return mcp_server(home, "--docs-local-dir", str(tiers.local), "--shipped-dir", str(tiers.shipped), *extra)


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


class Notifications:
    """Collects resources/updated notifications for a handshake-era session."""

    def __init__(self) -> None:
        self.uris: list[str] = []
        self._arrived = anyio.Event()

    async def __call__(self, message) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.uris.append(str(message.params.uri))
            self._arrived.set()

    async def next(self, timeout: float = 15) -> str:
        with anyio.fail_after(timeout):
            await self._arrived.wait()
        self._arrived = anyio.Event()
        return self.uris[-1]


async def _session_call(params, name: str, arguments: dict, **session_args):
    async with stdio_client(params) as (read, write), ClientSession(read, write, **session_args) as session:
        init = await session.initialize()
        return init, await session.call_tool(name, arguments)


# -- the handshake -------------------------------------------------------------------------------------


async def test_handshake_era_instructions_carry_the_header_and_the_rendered_index(home, tiers):
    async with stdio_client(own_kernel(home, tiers)) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        assert init.protocol_version == "2025-11-25"
        assert init.instructions.startswith(HEADER + "\n")
        assert "always ask the user first" in init.instructions
        assert "# Test docs\n" in init.instructions
        assert "- segment-nuclei: find the nuclei" in init.instructions  # the new-docs tail
        assert init.capabilities.resources.subscribe
        tools = (await session.list_tools()).tools
        assert sorted(tool.name for tool in tools) == ["read_doc", "restore_doc", "search_docs", "write_doc"]


async def test_modern_era_client_gets_the_same_instructions_and_tools(home, tiers):
    async with Client(own_kernel(home, tiers)) as client:
        assert client.protocol_version == "2026-07-28"
        assert client.session.instructions.startswith(HEADER + "\n")
        assert "# Test docs\n" in client.session.instructions
        result = await client.call_tool("read_doc", {"id": "data"})
        assert text_of(result).startswith("[data · shipped · updated")


SECTIONED = "# Steps doc\n\n## Steps\n\n### Confirm input\nShow the shape; raise KeyError if not.\n"


async def test_both_eras_read_sections_outlines_collections_and_search(home, tiers):
    tiers.ship("lab/steps", SECTIONED)
    tiers.put_local("index", "# Test docs\n\n## Lab\n- lab/: the lab's docs\n")
    async with stdio_client(own_kernel(home, tiers)) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        assert "search_docs finds" in init.instructions
        section = text_of(await session.call_tool("read_doc", {"id": "lab/steps#steps/confirm input"}))
        assert section.startswith("[lab/steps#Confirm input · shipped · updated ")
        assert "§ 3 of 3: Steps doc › Steps › Confirm input" in section
        outline = text_of(await session.call_tool("read_doc", {"id": "lab/steps#"}))
        assert '- Confirm input (2 lines, 5–6): read_doc("lab/steps#Confirm input")' in outline
        listing = text_of(await session.call_tool("read_doc", {"id": "lab/"}))
        assert "- lab/steps: Show the shape; raise KeyError if not." in listing
        missing = await session.call_tool("read_doc", {"id": "lab/steps#Nope"})
        assert missing.is_error
        assert 'read_doc("lab/steps#") lists all 3 sections' in text_of(missing)
    async with Client(own_kernel(home, tiers)) as client:
        found = text_of(await client.call_tool("search_docs", {"query": "KeyError"}))
        assert 'lab/steps (§ Steps › Confirm input) — read_doc("lab/steps#Confirm input")' in found
        assert "  L6: Show the shape; raise KeyError if not." in found
        pattern = text_of(await client.call_tool("search_docs", {"query": r"raise \w+", "regex": True}))
        assert "L6:" in pattern
        refused = await client.call_tool("search_docs", {"query": "(a", "regex": True})
        assert refused.is_error
        assert "not a pattern RE2 accepts" in text_of(refused)


# Issue 19: with no instructions from its host, a model given only the tool descriptions opened every
# conversation with read_doc("index"); this first sentence is what keeps that true.
STANDALONE_SENTENCE = (
    'Read one doc of the biopb knowledge store you share with the user; start with read_doc("index") '
    "when the index is not already in view, since its lines say which doc to read for which request."
)
HOST_DESCRIPTION_CUT = 2048  # Claude Code cuts each tool description there


MCP_TOOLS = ["read_doc", "restore_doc", "search_docs", "write_doc"]


def test_tool_descriptions_fit_hosts_and_name_what_they_must():
    assert READ_DOC_DESCRIPTION.startswith(STANDALONE_SENTENCE + " ")
    assert len(SEARCH_DOCS_DESCRIPTION.encode()) < 1024
    assert "regex" in SEARCH_DOCS_DESCRIPTION
    described = {name: op.mcp_description for name, op in OPERATIONS.items() if op.mcp_description}
    assert sorted(described) == MCP_TOOLS
    assert described["restore_doc"] == RESTORE_DOC_DESCRIPTION
    for name, description in described.items():
        assert len(description) < HOST_DESCRIPTION_CUT, (name, len(description))
    for needle in ('read_doc("index")', "@diff", "[[id]]"):
        assert needle in READ_DOC_DESCRIPTION
    bullets = WRITE_DOC_DESCRIPTION.split("Before writing:\n")[1].split("\n\n")[0].split("\n- ")
    assert len(bullets) == 5


async def test_every_tool_description_a_host_receives_stands_alone_within_its_cut(home, tiers):
    for params in (own_kernel(home, tiers), own_kernel(home, tiers, "--in-process")):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = {tool.name: tool.description for tool in (await session.list_tools()).tools}
        assert sorted(tools) == MCP_TOOLS
        assert all(len(description) < HOST_DESCRIPTION_CUT for description in tools.values()), {
            name: len(d) for name, d in tools.items()
        }
        assert tools["read_doc"].split(". ")[0] + "." == STANDALONE_SENTENCE


async def test_handshake_for_claude_code_fits_its_documented_cap(home, tiers):
    for n in range(150):
        tiers.ship(f"extra-{n:03d}", f"# Extra {n}\n\nExtra doc number {n}, with a longer description.\n")
    client_info = types.Implementation(name="claude-code", version="2.1.0")
    init, index = await _session_call(
        own_kernel(home, tiers), "read_doc", {"id": "index"}, client_info=client_info
    )
    assert len(init.instructions) <= 2048
    assert init.instructions.split("\n")[1].startswith("This copy is cut to fit this host:")
    assert 'read_doc("index") has them all' in init.instructions
    assert "- extra-149" in text_of(index)


async def test_unknown_hosts_get_the_whole_index_and_the_budget_is_configurable(home, tiers):
    for n in range(150):
        tiers.ship(f"extra-{n:03d}", f"# Extra {n}\n\nExtra doc number {n}.\n")
    client_info = types.Implementation(name="some-host", version="1")
    init, _ = await _session_call(
        own_kernel(home, tiers), "read_doc", {"id": "data"}, client_info=client_info
    )
    assert "- extra-149: Extra doc number 149." in init.instructions
    init, _ = await _session_call(
        own_kernel(home, tiers, "--instructions-budget", "600"),
        "read_doc",
        {"id": "data"},
        client_info=client_info,
    )
    assert len(init.instructions) <= 600
    assert init.instructions.startswith(HEADER)


# -- the tools ------------------------------------------------------------------------------------------


async def test_tools_read_and_write_through_the_kernel(home, tiers):
    async with stdio_client(own_kernel(home, tiers)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        created = await session.call_tool(
            "write_doc", {"id": "lab/notes", "body": "# Notes\n\nWhat we learned.\n"}
        )
        assert not created.is_error
        assert "filed it under ## Unfiled" in text_of(created)
        edited = await session.call_tool(
            "write_doc", {"id": "flatfield", "old": "Step one.", "new": "Step 1."}
        )
        assert "+Step 1." in text_of(edited)
        diff = await session.call_tool("read_doc", {"id": "flatfield@diff"})
        assert "mixes your own edits" in text_of(diff)
    assert tiers.local_text("lab/notes") == "# Notes\n\nWhat we learned.\n"


async def test_refusals_are_tool_errors_whose_text_is_the_stores_message(home, tiers):
    _, result = await _session_call(own_kernel(home, tiers), "read_doc", {"id": "flatfeld"})
    assert result.is_error
    assert (
        text_of(result) == "No doc 'flatfeld'. Did you mean 'flatfield'? read_doc(\"index\") lists them all."
    )


async def test_the_history_names_the_mcp_client_and_restore_is_one_tool_call(home, tiers):
    client_info = types.Implementation(name="claude-code", version="2.1.0")
    params = own_kernel(home, tiers)
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, client_info=client_info) as session,
    ):
        await session.initialize()
        long = "# Notes\n\n" + "a step of the procedure\n" * 30
        await session.call_tool("write_doc", {"id": "notes", "body": long})
        shrunk = text_of(await session.call_tool("write_doc", {"id": "notes", "body": "# Notes\n\nshort\n"}))
        assert 'restore_doc("notes", 1) brings the old text back' in shrunk
        history = text_of(await session.call_tool("read_doc", {"id": "notes@history"}))
        assert history.startswith("[notes@history · 2 versions kept, newest first · at most 100 versions")
        assert "v2 · " in history
        assert " · claude-code 2.1.0 via MCP · +1 \u221230 lines · current" in history
        one = text_of(await session.call_tool("read_doc", {"id": "notes@v1"}))
        assert one.startswith("[notes@v1 · ")
        assert "by claude-code 2.1.0 via MCP" in one.split("\n")[0]
        restored = await session.call_tool("restore_doc", {"id": "notes", "version": 1})
        assert not restored.is_error, text_of(restored)
        assert text_of(restored).startswith("Restored 'notes' to the text of v1")
    assert tiers.local_text("notes") == long


async def test_a_modern_era_client_is_named_in_the_history_too(home, tiers):
    client_info = types.Implementation(name="other-agent", version="9")
    async with Client(own_kernel(home, tiers), client_info=client_info) as client:
        await client.call_tool("write_doc", {"id": "notes", "body": "# Notes\n"})
        restored = await client.call_tool("restore_doc", {"id": "notes", "version": "v1"})
        assert text_of(restored).startswith("No change")
        history = text_of(await client.call_tool("read_doc", {"id": "notes@history"}))
    assert " · other-agent 9 via MCP · +1 \u22120 lines · current" in history


def test_the_agent_cannot_drop_a_local_copy_through_the_kernel_wire(tiers):
    from biopb_kernel_docs.bridge import wire
    from biopb_kernel_docs.bridge.kernel_side import dispatch
    from biopb_kernel_docs.surfaces.config import DocStore

    doc_store = DocStore(docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped))
    tiers.put_local("flatfield", (tiers.shipped / "flatfield.md").read_text())
    answer = json.loads(dispatch(doc_store, wire.request_frame("s", "drop_local_copy", {"id": "flatfield"})))
    assert answer["error"]["kind"] == "InvalidArguments"
    assert "the user's own action" in answer["error"]["template"]
    assert (tiers.local / "flatfield.md").is_file()


async def test_the_server_prints_no_kernel_warning_a_user_cannot_act_on(home, tiers, tmp_path):
    with open(tmp_path / "server-stderr.txt", "w+") as errlog:
        async with (
            stdio_client(own_kernel(home, tiers), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("read_doc", {"id": "flatfield"})  # the kernel has started
            assert not result.is_error
        errlog.seek(0)
        printed = errlog.read()
    assert "without encryption" not in printed
    assert "Traceback" not in printed


# -- docs as resources (issue 19) ------------------------------------------------------------------------


async def test_the_doc_template_reads_any_doc_as_read_doc_does_in_the_handshake_era(home, tiers):
    tiers.ship("lab/steps", SECTIONED)
    async with stdio_client(own_kernel(home, tiers)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        assert [str(r.uri) for r in (await session.list_resources()).resources] == [INDEX_URI]
        [template] = (await session.list_resource_templates()).resource_templates
        assert (template.uri_template, template.mime_type) == (DOC_URI_TEMPLATE, "text/markdown")
        for doc_id, uri in (
            ("flatfield", "docs://flatfield"),
            ("lab/steps", "docs://lab/steps"),
            ("lab/steps#Confirm input", "docs://lab/steps%23Confirm%20input"),
            ("lab/steps#", "docs://lab/steps%23"),  # the outline
            ("flatfield@diff", "docs://flatfield%40diff"),
            ("flatfield@history", "docs://flatfield%40history"),
            ("flatfield@v1", "docs://flatfield%40v1"),
            ("index@history", "docs://index%40history"),
            ("lab/", "docs://lab/"),
        ):
            if doc_id == "flatfield@diff":
                await session.call_tool(
                    "write_doc", {"id": "flatfield", "old": "Step one.", "new": "Step 1."}
                )
            resource = (await session.read_resource(uri)).contents[0]
            tool = text_of(await session.call_tool("read_doc", {"id": doc_id}))
            assert resource.text == tool, uri
            assert resource.mime_type == "text/markdown"
        with pytest.raises(MCPError, match=r"No doc 'flatfeld'\. Did you mean 'flatfield'"):
            await session.read_resource("docs://flatfeld")


async def test_with_ignored_as_count_no_read_of_the_index_shows_an_ignored_id(home, tiers):
    index = "# Docs\n\n## Procedures\n- flatfield: correct uneven illumination\n\nignored: data old-method\n"
    tiers.put_local("index", index)
    async with Client(own_kernel(home, tiers, "--ignored-as-count")) as client:
        reads = {
            "tool": text_of(await client.call_tool("read_doc", {"id": "index"})),
            "index resource": (await client.read_resource(INDEX_URI)).contents[0].text,
            "doc resource": (await client.read_resource("docs://index")).contents[0].text,
            "the template": (await client.read_resource("docs://%69ndex")).contents[0].text,  # 'index'
        }
    for how, text in reads.items():
        assert "ignored: 2 shipped docs, not listed here" in text, how
        assert "ignored: data" not in text, how
        assert "old-method" not in text, how
        assert "- flatfield: correct uneven illumination" in text, how


async def test_the_doc_template_is_served_in_the_2026_era_too(home, tiers):
    async with Client(own_kernel(home, tiers)) as client:
        assert client.protocol_version == "2026-07-28"
        assert [str(r.uri) for r in (await client.list_resources()).resources] == [INDEX_URI]
        [template] = (await client.list_resource_templates()).resource_templates
        assert template.uri_template == DOC_URI_TEMPLATE
        resource = (await client.read_resource("docs://data")).contents[0]
        assert resource.text == text_of(await client.call_tool("read_doc", {"id": "data"}))
        assert resource.text.startswith("[data · shipped · updated")
        await client.call_tool("write_doc", {"id": "notes", "body": "# Notes\n"})
        for doc_id, uri in (("notes@history", "docs://notes%40history"), ("notes@v1", "docs://notes%40v1")):
            resource = (await client.read_resource(uri)).contents[0]
            assert resource.text == text_of(await client.call_tool("read_doc", {"id": doc_id})), uri
            assert resource.text.startswith(f"[{doc_id} · ")


# -- the index resource and its notifications ---------------------------------------------------------


async def test_index_resource_notifies_on_tool_writes_and_outside_edits(home, tiers):
    heard = Notifications()
    params = own_kernel(home, tiers)
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, message_handler=heard) as session,
    ):
        await session.initialize()
        resource = await session.read_resource(INDEX_URI)
        assert "# Test docs" in resource.contents[0].text
        with pytest.warns(Warning, match="subscri"):  # the SDK deprecates the older era's subscribe
            await session.subscribe_resource(INDEX_URI)

        await session.call_tool("write_doc", {"id": "fresh", "body": "# Fresh\n\nA new doc.\n"})
        assert await heard.next() == INDEX_URI

        index = tiers.local / "index.md"
        index.write_text(index.read_text() + "- typed-by-hand: an edit in a text editor\n")
        assert await heard.next() == INDEX_URI

        tiers.put_local("data", "# My data notes\n")  # a new shadow: the entry gains (local copy)
        assert await heard.next() == INDEX_URI
        assert (
            "- data: how arrays are laid out (local copy)"
            in (await session.read_resource(INDEX_URI)).contents[0].text
        )


async def test_a_listed_doc_deleted_by_hand_in_a_subfolder_notifies_and_its_entry_is_marked_missing(
    home, tiers
):
    tiers.seed()
    tiers.put_local("lab/notes", "# Lab notes\n\nMine.\n")
    heard = Notifications()
    async with (
        stdio_client(own_kernel(home, tiers)) as (read, write),
        ClientSession(read, write, message_handler=heard) as session,
    ):
        await session.initialize()
        with pytest.warns(Warning, match="subscri"):
            await session.subscribe_resource(INDEX_URI)
        index = tiers.local / "index.md"
        index.write_text(index.read_text() + "- typed-by-hand: an edit in a text editor\n")
        assert await heard.next() == INDEX_URI
        index.write_text(index.read_text() + "- lab/notes: what I did at the bench\n")
        assert await heard.next() == INDEX_URI  # the watcher has seen lab/notes listed

        (tiers.local / "lab" / "notes.md").unlink()
        assert await heard.next() == INDEX_URI
        assert (
            "- lab/notes: what I did at the bench (missing)"
            in (await session.read_resource(INDEX_URI)).contents[0].text
        )


async def test_modern_era_listen_stream_hears_an_outside_edit(home, tiers):
    tiers.seed()  # reads create nothing: the index is there as after a first write
    async with (
        Client(own_kernel(home, tiers)) as client,
        client.listen(resource_subscriptions=[INDEX_URI]) as events,
    ):
        index = tiers.local / "index.md"
        index.write_text(index.read_text() + "- typed-by-hand: an edit in a text editor\n")
        with anyio.fail_after(15):
            async for event in events:
                assert event.uri == INDEX_URI
                break


# -- the kernel: busy, old, dead ----------------------------------------------------------------------


@pytest.fixture
def user_kernel(home, tiers):
    started = Kernel(
        home, (f"--DocStore.docs_local_dir={tiers.local}", f"--DocStore.shipped_dir={tiers.shipped}")
    )
    yield started
    started.shutdown()


async def test_read_doc_answers_while_the_users_cell_keeps_the_main_shell_busy(home, tiers, user_kernel):
    sleeping = user_kernel.start("import time; time.sleep(60)")
    user_kernel.wait_running(sleeping)
    params = mcp_server(home, "--existing", user_kernel.connection_file)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        assert "# Test docs" in init.instructions
        result = await session.call_tool("read_doc", {"id": "flatfield"})
        assert text_of(result).startswith("[flatfield · shipped")
    assert not user_kernel.finished(sleeping)  # the user's cell is still running
    user_kernel.manager.interrupt_kernel()


async def test_a_magic_in_the_users_kernel_notifies_the_agent(home, tiers, user_kernel):
    heard = Notifications()
    params = mcp_server(home, "--existing", user_kernel.connection_file)
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, message_handler=heard) as session,
    ):
        await session.initialize()
        with pytest.warns(Warning, match="subscri"):
            await session.subscribe_resource(INDEX_URI)
        assert user_kernel.run("%%write_doc from-the-notebook\n# Written by the user\n").error is None
        assert await heard.next() == INDEX_URI


async def test_kernel_without_subshells_fails_clearly_after_the_timeout_then_recovers(home, tiers):
    kernel = Kernel(
        home,
        (
            "--IPKernelApp.kernel_class=tests.no_subshell_kernel.NoSubshellKernel",
            f"--DocStore.docs_local_dir={tiers.local}",
            f"--DocStore.shipped_dir={tiers.shipped}",
        ),
    )
    try:
        params = mcp_server(home, "--existing", kernel.connection_file, "--timeout", "3")
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            kernel.wait_running(kernel.start("import time; time.sleep(60)"))
            init = await session.initialize()  # answered, though the kernel cannot serve the index yet
            assert "The index could not be loaded" in init.instructions
            assert 'Call read_doc("index") to retry' in init.instructions
            result = await session.call_tool("read_doc", {"id": "data"})
            assert result.is_error
            assert "has no subshells (ipykernel older than 7)" in text_of(result)
            kernel.manager.interrupt_kernel()  # the cell ends; the queued set-up runs
            await _until_answered(session, "data")
            kernel.wait_running(
                kernel.start("import time; time.sleep(60)")
            )  # a busy shell is no obstacle now
            assert not (await session.call_tool("read_doc", {"id": "data"})).is_error
        kernel.manager.interrupt_kernel()
    finally:
        kernel.shutdown()


async def test_an_attached_kernel_restarted_by_the_user_is_picked_up_again(home, tiers, user_kernel):
    params = mcp_server(home, "--existing", user_kernel.connection_file, "--timeout", "10")
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        assert not (await session.call_tool("read_doc", {"id": "data"})).is_error
        user_kernel.manager.restart_kernel(now=True)
        result = await session.call_tool("read_doc", {"id": "data"})
        assert not result.is_error, text_of(result)


async def _until_answered(session, doc_id: str, within: float = 20) -> types.CallToolResult:
    """Call read_doc until it answers without error (a condition, not a fixed sleep)."""
    with anyio.fail_after(within):
        while True:
            result = await session.call_tool("read_doc", {"id": doc_id})
            if not result.is_error:
                return result
            await anyio.sleep(0.2)


def _state_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][:1]
    except OSError:
        return "X"


def _kernel_pids(runtime_dir: Path) -> list[int]:
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if "ipykernel" in cmdline and str(runtime_dir) in cmdline:
                pids.append(int(proc.name))
    return pids


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the bridge's kernel through /proc")
async def test_the_bridges_own_kernel_is_restarted_when_it_dies_and_stopped_with_the_server(home, tiers):
    runtime = home / ".local/share/jupyter/runtime"
    async with stdio_client(own_kernel(home, tiers)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        (pid,) = _kernel_pids(runtime)
        os.kill(pid, signal.SIGKILL)
        with anyio.fail_after(10):
            while Path(f"/proc/{pid}").exists() and "Z" not in _state_of(pid):
                await anyio.sleep(0.05)
        result = await session.call_tool("read_doc", {"id": "data"})
        assert not result.is_error, text_of(result)
        assert _kernel_pids(runtime) != [pid]
    # The host closed the server: its kernel is gone, and so is the connection file it wrote.
    assert (_kernel_pids(runtime), sorted(runtime.iterdir())) == ([], [])


async def test_a_dead_attached_kernel_gets_an_error_saying_what_to_do(home, tiers):
    kernel = Kernel(
        home, (f"--DocStore.docs_local_dir={tiers.local}", f"--DocStore.shipped_dir={tiers.shipped}")
    )
    params = mcp_server(home, "--existing", kernel.connection_file, "--timeout", "3")
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        kernel.shutdown()
        result = await session.call_tool("read_doc", {"id": "data"})
        assert result.is_error
        assert "%docs_connect" in text_of(result)


async def test_store_options_with_existing_are_refused(home, tiers, user_kernel):
    done = await anyio.run_process(
        [
            sys.executable,
            "-m",
            "biopb_kernel_docs",
            "mcp",
            "--existing",
            user_kernel.connection_file,
            "--docs-local-dir",
            str(tiers.local),
        ],
        check=False,
    )
    assert done.returncode == 2
    assert b"the shared config file" in done.stderr


# -- what a session remembers, and what it is told ----------------------------------------------------


async def test_a_body_write_from_a_stale_read_is_refused_through_an_mcp_session(home, tiers):
    tiers.put_local("lab/guarded", "# Guarded\n\nfirst\n")
    async with stdio_client(own_kernel(home, tiers)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        assert not (await session.call_tool("read_doc", {"id": "lab/guarded"})).is_error
        tiers.put_local("lab/guarded", "# Guarded\n\nan edit made by the user\n")
        result = await session.call_tool("write_doc", {"id": "lab/guarded", "body": "# Guarded\n\nstale\n"})
        assert result.is_error
        assert "changed on disk since you last read it" in text_of(result)
        assert 'read_doc("lab/guarded") shows the current text' in text_of(result)
    assert tiers.local_text("lab/guarded") == "# Guarded\n\nan edit made by the user\n"


async def test_write_doc_notifies_subscribers_itself_without_the_watcher(home, tiers):
    heard = Notifications()
    params = own_kernel(home, tiers, "--poll-interval", "3600")  # the watcher looks once, at start
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, message_handler=heard) as session,
    ):
        await session.initialize()
        with pytest.warns(Warning, match="subscri"):
            await session.subscribe_resource(INDEX_URI)
        await session.call_tool("write_doc", {"id": "lab/fresh", "body": "# Fresh\n\nA new doc.\n"})
        assert await heard.next(timeout=10) == INDEX_URI


async def test_the_handshake_answers_even_when_the_attached_kernel_is_dead(home, tiers):
    kernel = Kernel(
        home, (f"--DocStore.docs_local_dir={tiers.local}", f"--DocStore.shipped_dir={tiers.shipped}")
    )
    connection_file = kernel.connection_file
    kernel.manager.shutdown_kernel(now=True)
    kernel.client.stop_channels()
    params = mcp_server(home, "--existing", connection_file, "--timeout", "3")
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        with anyio.fail_after(30):  # a hang shows as a timeout, not as a passing test
            init = await session.initialize()
        assert init.instructions.startswith(HEADER)
        assert "The index could not be loaded" in init.instructions
        result = await session.call_tool("read_doc", {"id": "data"})
        assert result.is_error
        assert "%docs_connect" in text_of(result)


async def test_a_subscriber_that_went_away_never_breaks_a_write(tiers):
    """Over stdio a server has one client; a gone session is simulated by one whose sends fail."""
    from biopb_kernel_docs.bridge.inprocess import InProcessDocsClient
    from biopb_kernel_docs.surfaces.config import DocStore
    from biopb_kernel_docs.surfaces.mcp_server import DocsBridge
    from biopb_kernel_docs.surfaces.operations import OPERATIONS

    class GoneSession:
        async def send_resource_updated(self, uri):
            raise anyio.BrokenResourceError

    bridge = DocsBridge(
        InProcessDocsClient(DocStore(docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped)))
    )
    await bridge.instructions_for(None)  # the baseline the notifications compare against
    gone = GoneSession()
    bridge._handshake_subscribers.add(gone)
    result = await bridge._tool(OPERATIONS["write_doc"], {"id": "lab/after", "body": "# After\n"})
    assert not result.is_error, text_of(result)
    assert tiers.local_text("lab/after") == "# After\n"
    assert gone not in bridge._handshake_subscribers


# -- bad input (issue 21) -----------------------------------------------------------------------------


async def test_bad_input_is_refused_with_the_stores_words_and_writes_nothing(home, tiers):
    tiers.seed()  # a read creates nothing: the index the refusals must leave alone exists first
    async with stdio_client(own_kernel(home, tiers)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        index = (await session.call_tool("read_doc", {"id": "index"})).content[0].text
        before = {p: p.read_bytes() for p in tiers.local.rglob("*.md")}

        guarded = await session.call_tool(
            "write_doc", {"id": "flatfield", "body": "# Mine\n", "if_match": "0" * 64}
        )
        assert guarded.is_error
        assert text_of(guarded).startswith(
            "write_doc has no parameter 'if_match'; it takes id, body, old, new. Nothing was done. There "
            "is no if_match here: your session remembers the text of each doc you read"
        )
        extra = await session.call_tool("read_doc", {"id": "data", "section": "Axes", "x" * 100: 1})
        assert extra.is_error
        assert text_of(extra).startswith("read_doc has no parameter 'section', 'xxxxxxxxx")
        assert text_of(extra).endswith("...'; it takes id. Nothing was done.")

        long_line = await session.call_tool("write_doc", {"id": "long", "body": "x" * 2_000_000})
        assert long_line.is_error
        assert text_of(long_line).startswith(
            "'long' would be 2,000,001 bytes; the cap is 64 KiB (65,536 bytes) per doc"
        )
        folder = await session.call_tool("write_doc", {"id": "flatfield.md/y", "body": "# Y\n"})
        assert folder.is_error
        assert "Ids carry no '.md' in any name: use 'flatfield/y'." in text_of(folder)

        typed = await session.call_tool("write_doc", {"id": "lab/x", "body": 7})
        assert typed.is_error
        assert text_of(typed) == "write_doc's 'body' must be a string, not int."

        assert (await session.call_tool("read_doc", {"id": "index"})).content[0].text == index

        json_text = await session.call_tool(  # the SDK would parse it into a list, then refuse that
            "write_doc", {"id": "flatfield", "old": "Step one.", "new": '["a", {"b": 1}]'}
        )
        assert not json_text.is_error, text_of(json_text)
    assert tiers.local_text("flatfield").endswith('# Flatfield\n\n["a", {"b": 1}]\n')
    after = {p: p.read_bytes() for p in tiers.local.rglob("*.md")}
    assert {p: b for p, b in after.items() if p.stem != "flatfield"} == before


async def test_modern_era_calls_with_unknown_arguments_are_refused_too(home, tiers):
    async with Client(own_kernel(home, tiers, "--in-process")) as client:
        result = await client.call_tool("write_doc", {"id": "lab/x", "body": "# X\n", "if_match": "abc"})
        assert result.is_error
        assert text_of(result).startswith("write_doc has no parameter 'if_match'")
    assert not (tiers.local / "lab" / "x.md").exists()


async def test_restore_doc_refuses_unknown_arguments_and_bad_versions_in_the_stores_words(home, tiers):
    async with Client(own_kernel(home, tiers, "--in-process")) as client:
        await client.call_tool("write_doc", {"id": "notes", "body": "# Notes\n\none\n"})
        await client.call_tool("write_doc", {"id": "notes", "body": "# Notes\n\ntwo\n"})
        guarded = await client.call_tool("restore_doc", {"id": "notes", "version": 1, "if_match": "0" * 64})
        assert guarded.is_error
        assert text_of(guarded).startswith(
            "restore_doc has no parameter 'if_match'; it takes id, version. Nothing was done. There is no "
            "if_match here"
        )
        for version in ("v\u00b2", "9" * 5000, 0, True, "v1x"):
            refused = await client.call_tool("restore_doc", {"id": "notes", "version": version})
            assert refused.is_error, version
            assert text_of(refused).startswith(
                "restore_doc's 'version' must be a version number such as 12 (v12), from 1 to 999,999,999"
            ), text_of(refused)
            assert len(text_of(refused)) < 300
    assert tiers.local_text("notes") == "# Notes\n\ntwo\n"


def test_a_clients_declared_name_is_kept_to_one_printable_line_of_at_most_100_characters(tiers):
    from biopb_kernel_docs.bridge import wire
    from biopb_kernel_docs.bridge.kernel_side import dispatch
    from biopb_kernel_docs.core.ops import Docs
    from biopb_kernel_docs.surfaces.config import DocStore

    doc_store = DocStore(docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped))
    client = {"name": "agent\nv1 · forged line\x1b[31m" + "x" * 500, "version": "\x00\t"}
    frame = wire.request_frame("s", "write_doc", {"id": "notes", "body": "# Notes\n"}, client)
    assert json.loads(dispatch(doc_store, frame))["ok"]
    (version,) = Docs(tiers.store()).history("notes").versions
    assert version.author.name == ("agentv1 · forged line[31m" + "x" * 500)[:100]
    assert version.author.version is None  # nothing printable was declared


# -- index edits an agent makes (issue 22) ------------------------------------------------------------


async def test_an_agent_edits_a_marked_index_line_and_files_a_new_doc_with_the_call_it_is_given(home, tiers):
    from biopb_kernel_docs.core.index import parse_index

    from .test_filing import agent_call

    tiers.put_local("data", "# My data notes\n")  # a shadow: its entry is marked (local copy)
    async with stdio_client(own_kernel(home, tiers)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        index = text_of(await session.call_tool("read_doc", {"id": "index"}))
        (line,) = [line for line in index.split("\n") if line.startswith("- data:")]
        edited = await session.call_tool(
            "write_doc", {"id": "index", "old": line, "new": line.replace("how arrays are laid out", "axes")}
        )
        assert not edited.is_error, text_of(edited)
        assert "its (local copy) marker is added by the loader and is not in index.md" in text_of(edited)

        created = await session.call_tool("write_doc", {"id": "lab/cells", "body": "# Cells\n\nPer cell.\n"})
        printed = text_of(created)
        assert printed.split("\n")[-1].startswith('write_doc("index", old="')
        moved = await session.call_tool("write_doc", {"id": "index", **agent_call(printed)})
        assert not moved.is_error, text_of(moved)
    index = tiers.local_text("index")
    assert "- data: axes\n" in index
    (entry,) = [e for e in parse_index(index).entries if e.doc_id == "lab/cells"]
    assert entry.heading == "## Procedures"


# -- what the suite's mutation run let through (issue 20) ----------------------------------------------


async def test_the_servers_own_index_reads_never_count_as_the_agent_reading_the_index(home, tiers):
    tiers.seed()  # a read creates nothing: index.md exists for the user to edit
    async with stdio_client(own_kernel(home, tiers)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        assert not (await session.call_tool("read_doc", {"id": "index"})).is_error
        index = tiers.local / "index.md"
        edited = index.read_text() + "- typed-by-hand: the user's edit in a text editor\n"
        index.write_text(edited)
        # A write of another doc: the server re-reads the index to notify subscribers.
        shadowed = await session.call_tool(
            "write_doc", {"id": "flatfield", "old": "Step one.", "new": "Step 1."}
        )
        assert not shadowed.is_error, text_of(shadowed)
        clobber = await session.call_tool(
            "write_doc", {"id": "index", "body": "# Rewritten from a stale read\n"}
        )
        assert clobber.is_error
        assert "changed on disk since you last read it" in text_of(clobber)
    assert index.read_text() == edited


async def test_initialize_against_a_busy_kernel_is_answered_within_the_handshake_deadline(home, tiers):
    from biopb_kernel_docs.surfaces.mcp_server import HANDSHAKE_SECONDS

    assert HANDSHAKE_SECONDS == 5.0
    kernel = Kernel(
        home,
        (
            "--IPKernelApp.kernel_class=tests.no_subshell_kernel.NoSubshellKernel",
            f"--DocStore.docs_local_dir={tiers.local}",
            f"--DocStore.shipped_dir={tiers.shipped}",
        ),
    )
    try:
        kernel.wait_running(
            kernel.start("import time; time.sleep(120)")
        )  # a long cell: no answer before 30 s
        params = mcp_server(home, "--existing", kernel.connection_file)  # calls wait up to 30 s
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            with anyio.fail_after(15):  # the 5 s deadline and the server's start, well under 30 s
                init = await session.initialize()
        assert init.instructions.startswith(HEADER)
        assert "the kernel did not answer within 5 s; it may still be starting or busy" in init.instructions
        assert 'Call read_doc("index") to retry' in init.instructions
    finally:
        kernel.manager.interrupt_kernel()
        kernel.shutdown()


async def test_the_tools_schema_offers_no_if_match(tiers):
    from biopb_kernel_docs.bridge.inprocess import InProcessDocsClient
    from biopb_kernel_docs.surfaces.config import DocStore
    from biopb_kernel_docs.surfaces.mcp_server import DocsBridge

    store = DocStore(docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped))
    bridge = DocsBridge(InProcessDocsClient(store), poll_interval=3600)
    async with Client(bridge.server) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools["write_doc"].input_schema["properties"]) == {"id", "body", "old", "new"}
    assert set(tools["read_doc"].input_schema["properties"]) == {"id"}
    restore = tools["restore_doc"].input_schema
    assert (set(restore["properties"]), restore["required"]) == ({"id", "version"}, ["id", "version"])
    assert restore["properties"]["version"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]
    assert "if_match" not in str([tool.input_schema for tool in tools.values()])


@pytest.mark.parametrize(
    ("operation", "arguments"),
    [("export_skills", {"dir": "skills-out"}), ("import_skills", {"dir": "skills-in"})],
)
def test_the_agent_cannot_export_or_import_skills_through_the_kernel_wire(
    tiers, tmp_path, operation, arguments
):
    from biopb_kernel_docs.bridge import wire
    from biopb_kernel_docs.bridge.kernel_side import dispatch
    from biopb_kernel_docs.surfaces.config import DocStore

    doc_store = DocStore(docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped))
    folder = {key: str(tmp_path / value) for key, value in arguments.items()}
    answer = json.loads(dispatch(doc_store, wire.request_frame("s", operation, folder)))
    assert answer["error"]["kind"] == "InvalidArguments"
    assert "the user's own action" in answer["error"]["template"]
    assert not (tmp_path / "skills-out").exists()


async def test_each_tool_is_annotated_read_only_exactly_when_its_operation_writes_nothing(tiers):
    from biopb_kernel_docs.bridge.inprocess import InProcessDocsClient
    from biopb_kernel_docs.surfaces.config import DocStore
    from biopb_kernel_docs.surfaces.mcp_server import DocsBridge

    store = DocStore(docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped))
    bridge = DocsBridge(InProcessDocsClient(store), poll_interval=3600)
    async with Client(bridge.server) as client:
        tools = (await client.list_tools()).tools
    hints = {tool.name: tool.annotations.read_only_hint for tool in tools}
    assert (hints["read_doc"], hints["search_docs"]) == (True, True)
    assert (hints["write_doc"], hints["restore_doc"]) == (False, False)  # a host asks before these
    assert hints == {name: not OPERATIONS[name].writes for name in hints}
    # A write is not promised to be safe to repeat, and no tool reaches beyond the user's store.
    others = {
        tool.name: (tool.annotations.idempotent_hint, tool.annotations.open_world_hint) for tool in tools
    }
    assert others == {
        "read_doc": (True, False),
        "search_docs": (True, False),
        "write_doc": (False, False),
        "restore_doc": (False, False),
    }


async def test_the_in_process_servers_own_index_reads_never_vouch_for_the_agents_stale_write(tiers):
    from biopb_kernel_docs.bridge.inprocess import InProcessDocsClient
    from biopb_kernel_docs.core.errors import StaleWrite
    from biopb_kernel_docs.surfaces.config import DocStore

    client = InProcessDocsClient(DocStore(docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped)))
    await client.call("read_doc", id="index")  # the agent's read
    shipped_index = (tiers.shipped / "index.md").read_text()
    tiers.local.mkdir(parents=True, exist_ok=True)
    (tiers.local / "index.md").write_text(shipped_index + "- user-added: a line the agent never read\n")
    await client.call("index", as_session="watch-server")  # the server's own re-read, as the watcher does
    with pytest.raises(StaleWrite):
        await client.call("write_doc", id="index", body=shipped_index)
    assert "user-added" in (tiers.local / "index.md").read_text()


def test_an_unknown_tool_parameter_is_named_whole_up_to_40_characters_and_cut_after():
    read_doc = OPERATIONS["read_doc"]
    assert unknown_arguments(read_doc, {"y" * 40: 1}) == (
        f"read_doc has no parameter '{'y' * 40}'; it takes id. Nothing was done."
    )
    assert unknown_arguments(read_doc, {"y" * 41: 1}) == (
        f"read_doc has no parameter '{'y' * 37}...'; it takes id. Nothing was done."
    )


async def test_inlined_docs_follow_the_index_in_the_instructions_with_their_read_doc_text(tiers):
    from biopb_kernel_docs.bridge.inprocess import InProcessDocsClient
    from biopb_kernel_docs.surfaces.config import DocStore
    from biopb_kernel_docs.surfaces.mcp_server import DocsBridge

    store = DocStore(docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped))
    bridge = DocsBridge(InProcessDocsClient(store), poll_interval=3600, inline_ids=("flatfield", "no-such"))
    async with Client(bridge.server) as client:
        instructions = client.instructions
    title = "\n## Reference docs, inlined (the same text read_doc returns)\n"
    _, title, inlined = instructions.partition(title)
    assert title, instructions[-400:]
    assert inlined.startswith('\n### read_doc("flatfield")\n[flatfield · shipped · updated 2026-01-02]\n')
    assert "\nStep one.\n" in inlined
    assert "\n### read_doc(\"no-such\")\nNo doc 'no-such'" in inlined


def test_a_refusal_names_at_most_five_unknown_parameters_and_marks_the_rest():
    write_doc = OPERATIONS["write_doc"]
    takes = "; it takes id, body, old, new. Nothing was done."
    five = {f"p{n}": n for n in range(5)}
    assert unknown_arguments(write_doc, {"id": "x", **five}) == (
        f"write_doc has no parameter 'p0', 'p1', 'p2', 'p3', 'p4'{takes}"
    )
    for count in (6, 7):
        unknown = {f"p{n}": n for n in range(count)}
        assert unknown_arguments(write_doc, {"id": "x", **unknown}) == (
            f"write_doc has no parameter 'p0', 'p1', 'p2', 'p3', 'p4', ...{takes}"
        )


def test_the_if_match_explanation_follows_only_a_refusal_of_if_match():
    write_doc, restore_doc = OPERATIONS["write_doc"], OPERATIONS["restore_doc"]
    assert unknown_arguments(write_doc, {"id": "x", "etag": "0" * 64}) == (
        "write_doc has no parameter 'etag'; it takes id, body, old, new. Nothing was done."
    )
    assert unknown_arguments(restore_doc, {"id": "x", "version": 1, "etag": "0" * 64}) == (
        "restore_doc has no parameter 'etag'; it takes id, version. Nothing was done."
    )


def _in_process_bridge(tiers, **options):
    from biopb_kernel_docs.bridge.inprocess import InProcessDocsClient
    from biopb_kernel_docs.surfaces.config import DocStore
    from biopb_kernel_docs.surfaces.mcp_server import DocsBridge

    store = DocStore(docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped))
    return DocsBridge(InProcessDocsClient(store), **options)


async def test_a_handshake_era_subscriber_hears_each_index_change_once_and_nothing_once_unsubscribed(tiers):
    heard = Notifications()
    bridge = _in_process_bridge(tiers, poll_interval=3600)  # the watcher looks once: the tools notify
    async with Client(bridge.server, mode="legacy", message_handler=heard) as client:
        for _ in range(2):  # a host that subscribes again is still one subscriber
            with pytest.warns(Warning, match="subscri"):
                await client.subscribe_resource(INDEX_URI)
        await client.call_tool("write_doc", {"id": "lab/one", "body": "# One\n\nFirst.\n\nDetails.\n"})
        edited = await client.call_tool("write_doc", {"id": "lab/one", "old": "Details.", "new": "More."})
        assert not edited.is_error, text_of(edited)  # the rendered index is as it was: nothing to hear
        with pytest.warns(Warning, match="subscri"):
            await client.unsubscribe_resource(INDEX_URI)
        await client.call_tool("write_doc", {"id": "lab/two", "body": "# Two\n"})
        with pytest.warns(Warning, match="subscri"):
            await client.subscribe_resource(INDEX_URI)
        await client.call_tool("write_doc", {"id": "lab/three", "body": "# Three\n"})
    assert heard.uris == [INDEX_URI, INDEX_URI]  # lab/one's filing, then lab/three's


async def test_the_schema_says_what_an_omitted_optional_parameter_means(tiers):
    async with Client(_in_process_bridge(tiers, poll_interval=3600).server) as client:
        schemas = {tool.name: tool.input_schema["properties"] for tool in (await client.list_tools()).tools}
    regex = schemas["search_docs"]["regex"]  # left out, the query is plain text
    assert (regex["anyOf"], regex["default"]) == ([{"type": "boolean"}, {"type": "null"}], False)
    write = schemas["write_doc"]
    assert [write[name].get("default", "required") for name in ("id", "body", "old", "new")] == [
        "required",
        None,
        None,
        None,
    ]


async def test_a_2026_era_client_that_skips_discover_hears_the_first_outside_edit(tiers):
    tiers.seed()  # reads create nothing: the index is there as after a first write
    bridge = _in_process_bridge(tiers, poll_interval=0.05)
    # A client that adopts a version it knows sends no server/discover: no handshake reads the index.
    with anyio.fail_after(10):  # a hang fails: the event never comes, or the watcher outlives the client
        async with (
            Client(bridge.server, mode="2026-07-28") as client,
            client.listen(resource_subscriptions=[INDEX_URI]) as events,
        ):
            index = tiers.local / "index.md"
            index.write_text(index.read_text() + "- typed-by-hand: an edit in a text editor\n")
            async for event in events:
                assert event.uri == INDEX_URI
                break


async def test_the_server_logs_why_it_cannot_use_the_kernel_for_the_handshake_or_the_watcher(tiers, caplog):
    from biopb_kernel_docs.bridge.inprocess import InProcessDocsClient
    from biopb_kernel_docs.surfaces.config import DocStore
    from biopb_kernel_docs.surfaces.mcp_server import DocsBridge

    unusable = DocStore(docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped / "gone"))
    own = InProcessDocsClient(DocStore(docs_local_dir=str(tiers.local), shipped_dir=str(tiers.shipped)))
    bridge = DocsBridge(InProcessDocsClient(unusable), poll_interval=3600, local_fallback=own)
    problem = (
        f"The shipped docs directory {tiers.shipped / 'gone'} does not exist. Reinstall biopb-kernel-docs, "
        "or point DocStore.shipped_dir at a directory of docs."
    )
    with caplog.at_level("WARNING", logger="biopb_kernel_docs.surfaces.mcp_server"):
        async with Client(bridge.server) as client:
            assert "# Test docs\n" in client.instructions  # read in the server's own process
    assert [record.getMessage() for record in caplog.records] == [
        f"not watching the index for outside edits yet (retrying): {problem}",
        f"the handshake's index is read in the server process: {problem}",
    ]


async def test_only_the_handshakes_result_carries_the_instructions(tiers):
    from pydantic import TypeAdapter

    as_sent = TypeAdapter(dict[str, object])  # the result's fields on the wire, none dropped
    async with Client(_in_process_bridge(tiers, poll_interval=3600).server, mode="legacy") as client:
        assert client.session.instructions.startswith(HEADER)
        results = {
            "tools/list": await client.session.send_request(types.ListToolsRequest(), as_sent),
            "tools/call": await client.session.send_request(
                types.CallToolRequest(
                    params=types.CallToolRequestParams(name="read_doc", arguments={"id": "data"})
                ),
                as_sent,
            ),
            "resources/read": await client.session.send_request(
                types.ReadResourceRequest(params=types.ReadResourceRequestParams(uri=INDEX_URI)), as_sent
            ),
        }
    assert {method: sorted(result) for method, result in results.items()} == {
        "tools/list": ["tools"],
        "tools/call": ["content", "isError"],
        "resources/read": ["contents"],
    }


async def test_a_host_lists_the_index_and_the_doc_template_with_their_names_titles_and_types(tiers):
    async with Client(_in_process_bridge(tiers, poll_interval=3600).server) as client:
        [index] = (await client.list_resources()).resources
        [template] = (await client.list_resource_templates()).resource_templates
    assert (str(index.uri), index.name, index.title, index.mime_type) == (
        INDEX_URI,
        "index",
        "Doc index",
        "text/markdown",
    )
    assert (template.uri_template, template.name, template.title, template.mime_type) == (
        DOC_URI_TEMPLATE,
        "doc",
        "A biopb doc",
        "text/markdown",
    )
    assert template.description.startswith("One doc by id, as read_doc returns it: docs://flatfield,")
