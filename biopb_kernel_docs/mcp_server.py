"""The MCP bridge: read_doc and write_doc as tools, executed in the kernel. The only module that
imports ``mcp`` (SDK 2.x).

Both protocol eras the SDK speaks are served: the ``initialize`` handshake of today's hosts and
the 2026 ``server/discover`` era. The instructions (§3) are composed per client, since the
budget depends on the host; a middleware fills them into both the initialize and the discover
result. ``docs://index`` is a resource whose subscribers hear ``resources/updated`` whenever the
rendered index changes, whoever changed it.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Mapping
from typing import Annotated, Any

import anyio
from mcp import types
from mcp.server import MCPServer, ServerRequestContext
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated
from pydantic import Field

from ._version import __version__
from .errors import DocsError
from .handshake import budget_for, compose_instructions
from .kernel_client import InProcessDocsClient, KernelDocsClient
from .watch import index_fingerprint

log = logging.getLogger(__name__)

INDEX_URI = "docs://index"
CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo"

READ_DOC_DESCRIPTION = """\
Read one doc of the biopb knowledge store you share with the user: its text under a one-line \
header (origin shipped or local, when it was updated, and "shadows shipped" when your local copy \
hides a shipped doc).

- read_doc("index") re-renders the index the handshake showed: your entries with (missing) and \
(local copy) markers, then two tails the loader adds: new shipped docs to file or ignore, and \
local copies a release may have left behind.
- read_doc("<id>@diff") diffs your local copy against the shipped text it shadows (it mixes your \
edits with the release's).
- Ids look like "kernel" or "my-lab/nuclei". A doc links another as [[id]]: read_doc("id") \
when the step you are on depends on it.
"""

WRITE_DOC_DESCRIPTION = """\
Write a doc of the biopb knowledge store you share with the user; returns the unified diff of \
what changed.

Before writing:
- Write only a multi-step procedure that was validated end to end on the user's data.
- Never write a dataset-specific one: no paths, sample names or numbers that fit one experiment.
- Phrase the index hook (frontmatter description:, else the first paragraph) as the user's \
request, e.g. "correct uneven illumination in my tiles".
- Update an existing doc rather than write a near-duplicate: read the index first, and prefer an \
old/new edit to a new file.
- Verify that every name, flag or call the doc quotes still exists before relying on it: a local \
doc has no contract test behind it.

How to call:
- write_doc(id, body=...) creates or replaces the doc; a new id gets a line under ## Unfiled in \
the index. read_doc("authoring") has the shape: checkpoints, parameters as derivation rules.
- write_doc(id, old=..., new=...) replaces exactly one occurrence of old, copied exactly from \
read_doc without its header line; refused when old is absent or matches twice. Use it for edits, \
the index included: write_doc("index", old="- x: ...", new="- x: ...").
- Writing to a shipped id makes a local copy that shadows it; shipped text is never changed.
- There is no delete: retire a doc by removing its index line, a shipped one by adding its id to \
the ignored: line.
- Limits: 300 lines per doc, 200 index entries.
"""

DocId = Annotated[
    str, Field(description='A doc id such as "kernel" or "my-lab/nuclei"; "index" is the index.')
]


def _client_name(method: str, params: Any) -> str | None:
    """The name a client declares: in initialize's clientInfo, or in a 2026-era request's _meta."""
    if not isinstance(params, Mapping):
        return None
    info = (
        params.get("clientInfo")
        if method == "initialize"
        else (params.get("_meta") or {}).get(CLIENT_INFO_META_KEY)
    )
    return info.get("name") if isinstance(info, Mapping) else None


class DocsBridge:
    """The MCP server, its kernel, and the index watcher."""

    def __init__(
        self,
        kernel: KernelDocsClient | InProcessDocsClient,
        *,
        instructions_budget: int | None = None,
        host_budgets: dict[str, int] | None = None,
        poll_interval: float = 1.0,
        inline_ids: tuple[str, ...] = (),
    ) -> None:
        self.kernel = kernel
        self.inline_ids = inline_ids
        self.instructions_budget = instructions_budget
        self.host_budgets = host_budgets or {}
        self.poll_interval = poll_interval
        self.watch_session = f"watch-{kernel.session_id}"
        self._bus = InMemorySubscriptionBus()
        self._handshake_subscribers: set[Any] = set()
        self._last_rendering: str | None = None
        self.server = self._build()

    # -- the server ------------------------------------------------------------------------------

    def _build(self) -> MCPServer:
        server = MCPServer(
            "biopb-kernel-docs",
            version=__version__,
            instructions="biopb docs: read_doc and write_doc.",
            subscriptions=self._bus,
            lifespan=self._lifespan,
            middleware=[self._handshake_middleware],
        )
        server.add_tool(
            self.read_doc,
            name="read_doc",
            description=READ_DOC_DESCRIPTION,
            annotations=types.ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False),
        )
        server.add_tool(
            self.write_doc,
            name="write_doc",
            description=WRITE_DOC_DESCRIPTION,
            annotations=types.ToolAnnotations(readOnlyHint=False, openWorldHint=False),
        )
        server.resource(INDEX_URI, name="index", title="Doc index", mime_type="text/markdown")(
            self.read_index
        )
        # MCPServer 2.x serves subscriptions/listen itself but has no public hook for the
        # handshake era's resources/subscribe; the low-level server takes the handlers.
        lowlevel = server._lowlevel_server
        lowlevel.add_request_handler("resources/subscribe", types.SubscribeRequestParams, self._subscribe)
        lowlevel.add_request_handler(
            "resources/unsubscribe", types.UnsubscribeRequestParams, self._unsubscribe
        )
        return server

    @contextlib.asynccontextmanager
    async def _lifespan(self, server: MCPServer) -> AsyncIterator[None]:
        self.kernel.begin_start()
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._watch)
            try:
                yield
            finally:
                tasks.cancel_scope.cancel()
                await self.kernel.close()

    async def _handshake_middleware(self, ctx: ServerRequestContext[Any, Any], call_next) -> Any:
        result = await call_next(ctx)
        if ctx.method in ("initialize", "server/discover") and isinstance(result, dict):
            result["instructions"] = await self.instructions_for(_client_name(ctx.method, ctx.params))
        return result

    async def instructions_for(self, client_name: str | None) -> str:
        budget = self.instructions_budget
        if budget is None:
            budget = budget_for(client_name, self.host_budgets)
        try:
            rendered = await self.kernel.call("render_index")
        except DocsError as err:
            return compose_instructions(None, budget, problem=str(err))
        # §8 risk 1's fallback, the bench's inline arm: these docs' text follows the index.
        inlined = []
        for doc_id in self.inline_ids:
            try:
                inlined.append((doc_id, await self.kernel.call("read_doc", id=doc_id)))
            except DocsError as err:
                inlined.append((doc_id, str(err)))
        return compose_instructions(rendered, budget, inlined=inlined)

    # -- tools and the resource ------------------------------------------------------------------

    async def read_doc(self, id: DocId) -> types.CallToolResult:
        return await self._tool("read_doc", id=id)

    async def write_doc(
        self,
        id: DocId,
        body: Annotated[str | None, Field(description="The whole new text of the doc.")] = None,
        old: Annotated[str | None, Field(description="Exact text to replace; must occur once.")] = None,
        new: Annotated[str | None, Field(description="The text that replaces old.")] = None,
    ) -> types.CallToolResult:
        result = await self._tool("write_doc", id=id, body=body, old=old, new=new)
        if not result.is_error:
            await self._notify_if_index_changed()
        return result

    async def read_index(self) -> str:
        """The rendered index: index.md with its markers and the loader's two tails."""
        try:
            return await self.kernel.call("render_index", as_session=self.watch_session)
        except DocsError as err:
            raise ResourceError(str(err)) from None

    async def _tool(self, operation: str, **arguments: Any) -> types.CallToolResult:
        """The kernel's answer as the tool result; a refusal is a tool error whose text is the store's
        message, verbatim (a raised ToolError would reach the agent behind an SDK prefix)."""
        try:
            text = await self.kernel.call(operation, **arguments)
        except DocsError as err:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=str(err))], is_error=True
            )
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    # -- change notifications ----------------------------------------------------------------------

    async def _subscribe(self, ctx: ServerRequestContext[Any, Any], params: types.SubscribeRequestParams):
        if str(params.uri) == INDEX_URI:
            self._handshake_subscribers.add(ctx.session)
        return types.EmptyResult()

    async def _unsubscribe(self, ctx: ServerRequestContext[Any, Any], params: types.UnsubscribeRequestParams):
        self._handshake_subscribers.discard(ctx.session)
        return types.EmptyResult()

    async def _notify_if_index_changed(self) -> None:
        try:
            rendering = await self.kernel.call("render_index", as_session=self.watch_session)
        except DocsError:
            return
        if self._last_rendering is not None and rendering != self._last_rendering:
            await self._bus.publish(ResourceUpdated(uri=INDEX_URI))
            for session in list(self._handshake_subscribers):
                try:
                    await session.send_resource_updated(INDEX_URI)
                except Exception:  # a gone subscriber must not stop the others
                    self._handshake_subscribers.discard(session)
        self._last_rendering = rendering

    async def _watch(self) -> None:
        """Poll what the rendering depends on; re-render and notify when it moved (outside edits)."""
        try:
            tiers = await self.kernel.call("describe_tiers", as_session=self.watch_session)
        except DocsError as err:
            log.warning("not watching the index for outside edits: %s", err)
            return
        await self._notify_if_index_changed()
        seen = index_fingerprint(tiers["local_dir"], tiers["shipped_dir"])
        while True:
            await anyio.sleep(self.poll_interval)
            current = index_fingerprint(tiers["local_dir"], tiers["shipped_dir"])
            if current != seen:
                seen = current
                await self._notify_if_index_changed()

    def run(self) -> None:
        self.server.run()
