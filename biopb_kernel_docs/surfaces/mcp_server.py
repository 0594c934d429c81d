"""The MCP server: the operation list's tools, executed in the kernel. The only module that imports
``mcp`` (SDK 2.x).

Both protocol eras the SDK speaks are served: the ``initialize`` handshake of today's hosts and
the 2026 ``server/discover`` era. The instructions (§3) are composed per client, since the
budget depends on the host; a middleware fills them into both the initialize and the discover
result, and always answers within ``HANDSHAKE_SECONDS``: with the index from the kernel, else
(for a kernel the server owns) the same index read in this process, else a line saying why it
could not be loaded and how to retry. ``docs://index`` is a resource whose subscribers hear
``resources/updated`` whenever the rendered index changes, whoever changed it; the template
``docs://{+id}`` reads any doc as read_doc does, so a host's resource picker can attach one while
``resources/list`` stays one entry long.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import AsyncIterator, Mapping
from typing import Annotated, Any

import anyio
from mcp import types
from mcp.server import MCPServer, ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated
from pydantic import Field, WithJsonSchema

from .._version import __version__
from ..bridge.client import KernelDocsClient
from ..bridge.inprocess import InProcessDocsClient
from ..core.errors import DocsError
from ..core.store import Store
from ..core.values import ConfigView, IndexView
from ..text import render
from ..text.handshake import budget_for, compose_instructions
from .operations import OPERATIONS, Operation

log = logging.getLogger(__name__)

INDEX_URI = "docs://index"
# RFC 6570 reserved expansion ('+'): an id's '/' stays a '/' (docs://my-lab/nuclei). A section or a
# view is percent-encoded, since '#' would start the URI's fragment: docs://flatfield%23Steps.
DOC_URI_TEMPLATE = "docs://{+id}"
CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo"
HANDSHAKE_SECONDS = 5.0
Client = KernelDocsClient | InProcessDocsClient


def _client_info(method: str, params: Any) -> dict[str, str] | None:
    """The name and version a client declares: in initialize's clientInfo, or in any 2026-era
    request's _meta (such a client stamps every request with it)."""
    if not isinstance(params, Mapping):
        return None
    meta = params.get("_meta")
    info = params.get("clientInfo") if method == "initialize" else None
    if info is None and isinstance(meta, Mapping):
        info = meta.get(CLIENT_INFO_META_KEY)
    if not isinstance(info, Mapping) or not isinstance(info.get("name"), str):
        return None
    declared = {"name": info["name"]}
    if isinstance(info.get("version"), str):
        declared["version"] = info["version"]
    return declared


def _client_name(method: str, params: Any) -> str | None:
    info = _client_info(method, params)
    return info["name"] if info else None


def _connection_of(session: Any) -> Any:
    """The client connection a per-request ServerSession speaks for (the SDK has no public name)."""
    return getattr(session, "_connection", session)


def tool_parameters(op: Operation) -> tuple[str, ...]:
    """The parameters an operation's tool offers. A sha precondition is not one: the agent's
    session remembers what it read, which is its precondition (§8 risk 3)."""
    return tuple(p.name for p in op.parameters if p.kind != "sha")


def unknown_arguments(op: Operation, arguments: object) -> str | None:
    """The refusal for arguments the tool does not take, or None. The SDK validates a call against
    the tool's schema and silently drops names it does not know: a dropped ``if_match`` would
    leave an agent believing its write was guarded, so the raw arguments are checked here."""
    if not isinstance(arguments, Mapping):
        return None
    offered = tool_parameters(op)
    unknown = [name for name in arguments if name not in offered]
    if not unknown:
        return None
    shown = [repr(name) if len(name) <= 40 else repr(name[:37] + "...") for name in unknown[:5]]
    message = (
        f"{op.name} has no parameter {', '.join(shown)}{', ...' if len(unknown) > 5 else ''}; it takes "
        f"{', '.join(offered)}. Nothing was done."
    )
    if any(p.kind == "sha" and p.name in unknown for p in op.parameters):
        message += (
            " There is no if_match here: your session remembers the text of each doc you read, and a "
            "write over a doc changed since you read it is refused."
        )
    return message


_STRING = {"type": "string"}
_SCHEMAS: dict[str, dict[str, Any]] = {
    "flag": {"type": "boolean"},
    "version": {"anyOf": [{"type": "integer"}, _STRING]},  # 12, or "v12" as the history shows it
}


def _tool_signature(op: Operation) -> inspect.Signature:
    """The tool's parameters, from the operation list, and the SDK's context (never in the schema).

    The schema says string, but the SDK is told to accept anything: it would otherwise parse a
    string that looks like JSON (an ``old`` of '["a"]') into a list and then refuse it as not a
    string. The tool reads the arguments as sent, and the operation list checks their types.
    """
    parameters = [inspect.Parameter("context", inspect.Parameter.KEYWORD_ONLY, annotation=Context)]
    for p in op.parameters:
        if p.name not in tool_parameters(op):
            continue
        plain = _SCHEMAS.get(p.kind, _STRING)
        schema = plain if p.required else {"anyOf": [plain, {"type": "null"}]}
        annotation = Annotated[Any, WithJsonSchema(schema), Field(description=p.help)]
        default = inspect.Parameter.empty if p.required else (False if p.kind == "flag" else None)
        parameters.append(
            inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
        )
    return inspect.Signature(parameters, return_annotation=types.CallToolResult)


class DocsBridge:
    """The MCP server, its kernel, and the index watcher."""

    def __init__(
        self,
        kernel: Client,
        *,
        instructions_budget: int | None = None,
        host_budgets: dict[str, int] | None = None,
        poll_interval: float = 1.0,
        local_fallback: InProcessDocsClient | None = None,
        inline_ids: tuple[str, ...] = (),
        ignored_as_count: bool = False,
    ) -> None:
        self.kernel = kernel
        self.inline_ids = inline_ids
        # The handshake always counts the ignored: line (§6); with this, read_doc("index") and the
        # resource do too, so an agent of this server never sees an ignored id (the ablated arm).
        self.ignored_as_count = ignored_as_count
        self.local_fallback = local_fallback
        self.instructions_budget = instructions_budget
        self.host_budgets = host_budgets or {}
        self.poll_interval = poll_interval
        self.watch_session = f"watch-{kernel.session_id}"
        self._bus = InMemorySubscriptionBus()
        self._handshake_subscribers: set[Any] = set()
        self._last_rendering: str | None = None
        # Who the history records as the author of this server's writes: the client's declared
        # name and version (a stdio server has one client; a 2026-era one restates it per request).
        self.client: dict[str, str] | None = None
        self._listed_ids: tuple[str, ...] | None = None  # None: watch every local directory
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
        for op in OPERATIONS.values():
            if op.mcp_description is None:
                continue
            server.add_tool(
                self._tool_function(op),
                name=op.name,
                description=op.mcp_description,
                annotations=types.ToolAnnotations(
                    readOnlyHint=not op.writes, idempotentHint=not op.writes, openWorldHint=False
                ),
            )
        server.resource(INDEX_URI, name="index", title="Doc index", mime_type="text/markdown")(
            self.read_index
        )
        server.resource(
            DOC_URI_TEMPLATE,
            name="doc",
            title="A biopb doc",
            description="One doc by id, as read_doc returns it: docs://flatfield, docs://my-lab/nuclei, "
            'docs://flatfield%23Steps (a section; "#" written %23). docs://index lists them all.',
            mime_type="text/markdown",
        )(self.read_doc_resource)
        # MCPServer 2.x serves subscriptions/listen itself but has no public hook for the
        # handshake era's resources/subscribe; the low-level server takes the handlers.
        lowlevel = server._lowlevel_server
        lowlevel.add_request_handler("resources/subscribe", types.SubscribeRequestParams, self._subscribe)
        lowlevel.add_request_handler(
            "resources/unsubscribe", types.UnsubscribeRequestParams, self._unsubscribe
        )
        return server

    def _tool_function(self, op: Operation):
        async def tool(context: Context, **validated: Any) -> types.CallToolResult:
            params = context.request_context.params or {}
            arguments = params.get("arguments") or {}  # as sent: see _tool_signature
            refusal = unknown_arguments(op, arguments)
            if refusal is not None:
                return types.CallToolResult(
                    content=[types.TextContent(type="text", text=refusal)], is_error=True
                )
            return await self._tool(op, {k: v for k, v in arguments.items() if v is not None})

        tool.__name__ = op.name
        tool.__signature__ = _tool_signature(op)  # type: ignore[attr-defined]
        return tool

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
        declared = _client_info(ctx.method, ctx.params)
        if declared is not None:
            self.client = declared
        result = await call_next(ctx)
        if ctx.method in ("initialize", "server/discover") and isinstance(result, dict):
            result["instructions"] = await self.instructions_for(_client_name(ctx.method, ctx.params))
        return result

    async def instructions_for(self, client_name: str | None) -> str:
        budget = self.instructions_budget
        if budget is None:
            budget = budget_for(client_name, self.host_budgets)
        try:
            view = await self._handshake_index()
        except DocsError as err:
            return compose_instructions(None, budget, problem=str(err))
        if self._last_rendering is None:  # the baseline change notifications compare against
            self._last_rendering = render.index_text(view)
        return compose_instructions(view, budget, inlined=await self._inlined_docs())

    async def _inlined_docs(self) -> list[tuple[str, str]]:
        """§8 risk 1's fallback (the bench's inline arm): these docs' text follows the index."""
        inlined = []
        for doc_id in self.inline_ids:
            try:
                inlined.append((doc_id, render.text(await self.kernel.call("read_doc", id=doc_id))))
            except DocsError as err:
                inlined.append((doc_id, str(err)))
        return inlined

    async def _handshake_index(self) -> IndexView:
        """The index from the kernel within HANDSHAKE_SECONDS; else, for a kernel of our own (same
        settings), read here; else the kernel's refusal or a timeout saying how to retry."""
        try:
            return await asyncio.wait_for(
                self.kernel.call("index", as_session=self.watch_session), HANDSHAKE_SECONDS
            )
        except (DocsError, TimeoutError) as err:
            if self.local_fallback is not None:
                log.warning(
                    "the handshake's index is read in the server process: %s",
                    str(err) or f"the kernel did not answer within {HANDSHAKE_SECONDS:g} s",
                )
                return await self.local_fallback.call("index", as_session=self.watch_session)
            if isinstance(err, DocsError):
                raise
            raise DocsError(
                f"the kernel did not answer within {HANDSHAKE_SECONDS:g} s; it may still be starting or busy"
            ) from None

    # -- tools and the resource ------------------------------------------------------------------

    async def read_index(self) -> str:
        """The rendered index: index.md with its markers and the loader's two tails."""
        try:
            view = await self.kernel.call("index", as_session=self.watch_session)
            return render.index_text(view, ignored_as_count=self.ignored_as_count)
        except DocsError as err:
            raise ResourceError(str(err)) from None

    async def read_doc_resource(self, id: str) -> str:
        """One doc, rendered as the read_doc tool renders it."""
        try:
            value = await self.kernel.call("read_doc", id=id)
        except DocsError as err:
            raise ResourceError(str(err)) from None
        return render.text(value, ignored_as_count=self.ignored_as_count)

    async def _tool(self, op: Operation, arguments: dict[str, Any]) -> types.CallToolResult:
        """The kernel's value as the agent's text; a refusal is a tool error whose text is the
        store's message, verbatim (a raised ToolError would reach the agent behind an SDK prefix)."""
        try:
            value = await self.kernel.call(op.name, client=self.client, **arguments)
        except DocsError as err:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=str(err))], is_error=True
            )
        if op.writes:
            await self._notify_if_index_changed()
        text = render.text(value, ignored_as_count=self.ignored_as_count)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    # -- change notifications ----------------------------------------------------------------------

    async def _subscribe(self, ctx: ServerRequestContext[Any, Any], params: types.SubscribeRequestParams):
        if str(params.uri) == INDEX_URI:
            self._forget_subscriber(ctx.session)  # a second subscribe is still one subscription
            self._handshake_subscribers.add(ctx.session)
        return types.EmptyResult()

    async def _unsubscribe(self, ctx: ServerRequestContext[Any, Any], params: types.UnsubscribeRequestParams):
        self._forget_subscriber(ctx.session)
        return types.EmptyResult()

    def _forget_subscriber(self, session: Any) -> None:
        """Drop the subscription of ``session``'s client. The SDK builds a ServerSession per request,
        so an unsubscribe's session is never the subscribe's: the two share the client's connection."""
        connection = _connection_of(session)
        self._handshake_subscribers = {
            s for s in self._handshake_subscribers if _connection_of(s) is not connection
        }

    async def _notify_if_index_changed(self) -> None:
        try:
            view = await self.kernel.call("index", as_session=self.watch_session)
        except DocsError:
            return
        self._listed_ids = tuple(e.id for e in view.entries if not e.collection)
        rendering = render.index_text(view)
        if self._last_rendering is not None and rendering != self._last_rendering:
            await self._bus.publish(ResourceUpdated(uri=INDEX_URI))
            for session in list(self._handshake_subscribers):
                try:
                    await session.send_resource_updated(INDEX_URI)
                except Exception:  # a gone subscriber must not stop the others
                    self._handshake_subscribers.discard(session)
        self._last_rendering = rendering

    async def _watch(self) -> None:
        """Poll the store's fingerprint; re-render and notify when it moved (outside edits)."""
        while True:
            try:
                config: ConfigView = await self.kernel.call("config", as_session=self.watch_session)
                store = Store(config.shipped_dir, config.local_dir, config.shipped_version)
                break
            except DocsError as err:
                log.warning("not watching the index for outside edits yet (retrying): %s", err)
                await anyio.sleep(max(self.poll_interval, 5.0))
        seen = store.fingerprint(self._listed_ids)  # before the first comparison: no edit falls between
        await self._notify_if_index_changed()
        while True:
            await anyio.sleep(self.poll_interval)
            current = store.fingerprint(self._listed_ids)
            if current != seen:
                seen = current
                await self._notify_if_index_changed()

    def run(self) -> None:
        self.server.run()
