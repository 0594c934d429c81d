"""The bridge's side of the kernel: run doc operations inside a kernel, owned or attached.

Either the bridge starts a kernel of its own (the embedded default) or it attaches to the user's
through a connection file. It never waits on the main shell to attach: kernel_info goes over the
control channel, and the first call runs one silent ``execute_request`` on a subshell of its own
(ipykernel 7) to open the fast channel (``fast_channel``); every later call goes over that
channel and answers while the user's cell runs. Where the channel cannot be reached, calls fall
back to silent execute requests whose one user expression is ``kernel_api.handle(<json>)``;
neither path reaches the notebook's output or history.
"""

from __future__ import annotations

import ast
import asyncio
import json
import logging
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from queue import Empty
from typing import Any

from jupyter_client import AsyncKernelClient, AsyncKernelManager
from jupyter_core.paths import jupyter_runtime_dir

from . import kernel_messages as messages
from .errors import DocsError, KernelUnavailable
from .fast_channel import FastChannel

log = logging.getLogger(__name__)

SUBSHELLS = "kernel subshells"
START_TIMEOUT_SECONDS = 60.0
PROBE_TIMEOUT_SECONDS = 3.0
# While waiting for a reply, look this often whether the kernel is still alive (and the same one).
LIVENESS_CHECK_SECONDS = 1.0
_API = "__import__('biopb_kernel_docs.kernel_api', fromlist=['handle'])"
_HANDLE = _API + ".handle({request!r})"
_OPEN_CHANNEL = _API + ".open_fast_channel()"


class KernelRefusal(DocsError):
    """The store inside the kernel refused the call; the text is the store's own message."""


class KernelDied(KernelUnavailable):
    """The kernel stopped answering in the middle of a call."""


class KernelRestarted(KernelUnavailable):
    """The attached kernel was restarted: same ports, a new process without our subshell or channel."""


def encode_request(session: str, operation: str, arguments: dict[str, Any]) -> str:
    """The JSON request ``kernel_api.dispatch`` answers."""
    return json.dumps({"session": session, "operation": operation, "arguments": arguments})


def unpack_answer(answer: str) -> Any:
    """The result of a ``kernel_api.dispatch`` answer; a refusal raises with the store's message."""
    reply = json.loads(answer)
    if not reply["ok"]:
        raise KernelRefusal(reply["error"])
    return reply["result"]


class KernelDocsClient:
    """Doc operations executed in one kernel, owned or attached."""

    def __init__(
        self,
        *,
        connection_file: str | None = None,
        kernel_name: str = "python3",
        kernel_args: tuple[str, ...] = (),
        call_timeout: float = 30.0,
    ) -> None:
        self.connection_file = connection_file
        self.kernel_name = kernel_name
        self.kernel_args = kernel_args
        self.call_timeout = call_timeout
        self.session_id = uuid.uuid4().hex
        self.has_subshells = False
        self._manager: AsyncKernelManager | None = None
        self._client: AsyncKernelClient | None = None
        self._kernel_session: str | None = None
        self._subshell: str | None = None
        self._fast: FastChannel | None = None
        self._fast_unreachable = False
        self._call_lock = asyncio.Lock()
        self._started: asyncio.Future[None] | None = None

    @property
    def attached(self) -> bool:
        return self.connection_file is not None

    # -- lifecycle --------------------------------------------------------------------------------

    def begin_start(self) -> None:
        """Start (or attach to) the kernel in the background; calls wait for it."""
        if self._started is None:
            self._started = asyncio.ensure_future(self._start())

    async def _ensure_started(self) -> None:
        self.begin_start()
        assert self._started is not None
        try:
            await self._started
        except DocsError:
            self._started = None  # the next call tries again
            raise

    async def _start(self) -> None:
        if self.attached:
            client = AsyncKernelClient(connection_file=self.connection_file)
            try:
                client.load_connection_file()
            except (OSError, ValueError) as err:
                raise KernelUnavailable(
                    messages.unreadable_connection_file(self.connection_file, err)
                ) from None
        else:
            # In the runtime dir, under a name of its own: `jupyter console --existing` finds it there.
            runtime = Path(jupyter_runtime_dir())
            runtime.mkdir(parents=True, exist_ok=True)
            self._manager = AsyncKernelManager(
                kernel_name=self.kernel_name,
                connection_file=str(runtime / f"kernel-biopb-docs-{uuid.uuid4().hex[:12]}.json"),
            )
            # stdout is the MCP stream: the kernel must never write to it, nor read our stdin.
            await self._manager.start_kernel(
                extra_arguments=list(self.kernel_args),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=sys.stderr,
            )
            client = self._manager.client()
        client.start_channels(shell=True, iopub=False, stdin=False, hb=True, control=True)
        self._client = client
        info = await self._kernel_info(START_TIMEOUT_SECONDS)
        self.has_subshells = SUBSHELLS in info["content"].get("supported_features", [])
        await self._reset_channels(info)

    async def _reset_channels(self, info: dict[str, Any] | None = None) -> None:
        """Forget the subshell and the fast channel (a new kernel process has neither)."""
        if self._fast is not None:
            self._fast.close()
        self._fast, self._fast_unreachable = None, False
        info = info or await self._kernel_info(START_TIMEOUT_SECONDS)
        self._kernel_session = info["header"]["session"]
        self._subshell = None
        if self.has_subshells:
            self._subshell = (await self._control("create_subshell_request", timeout=10.0))["content"][
                "subshell_id"
            ]

    async def _kernel_info(self, timeout: float) -> dict[str, Any]:
        """kernel_info over the control channel: a busy main shell does not delay it."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return await self._control("kernel_info_request", timeout=min(2.0, timeout))
            except Empty:
                if time.monotonic() > deadline:
                    raise KernelUnavailable(messages.not_answering(self.connection_file, timeout)) from None

    async def _control(self, msg_type: str, *, timeout: float) -> dict[str, Any]:
        assert self._client is not None
        message = self._client.session.msg(msg_type, {})
        self._client.control_channel.send(message)
        return await self._reply(self._client.control_channel, message["header"]["msg_id"], timeout)

    @staticmethod
    async def _reply(channel, msg_id: str, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Empty
            reply = await channel.get_msg(timeout=remaining)
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply

    async def _restart_owned(self) -> None:
        assert self._manager is not None
        log.warning("the bridge's kernel died; starting a new one")
        if self._client is not None:
            self._client.stop_channels()
        await self._manager.cleanup_resources()
        self._manager = self._client = self._started = None
        await self._ensure_started()

    async def close(self) -> None:
        """Stop an owned kernel (an attached one is the user's and keeps running)."""
        if self._fast is not None:
            self._fast.close()
        if self._client is not None:
            if self._subshell is not None and self.attached:
                message = self._client.session.msg("delete_subshell_request", {"subshell_id": self._subshell})
                self._client.control_channel.send(message)
            self._client.stop_channels()
        if self._manager is not None:
            await self._manager.shutdown_kernel(now=True)

    # -- calls --------------------------------------------------------------------------------

    async def call(self, operation: str, *, as_session: str | None = None, **arguments: Any) -> Any:
        """Run one store operation in the kernel and return its result; refusals raise DocsError.

        ``as_session`` runs it as another caller than this client's own (§8 risk 3: the bridge's
        own bookkeeping must not count as the agent having read something). A read interrupted by
        a kernel that died or restarted is retried once; a write is not (it may have landed).
        """
        request = encode_request(as_session or self.session_id, operation, arguments)
        async with self._call_lock:
            await self._ensure_started()
            if not self.attached and not await self._alive():
                await self._restart_owned()
            for attempt in (1, 2):
                try:
                    return unpack_answer(await self._answer(request, operation))
                except (KernelDied, KernelRestarted) as err:
                    if (
                        attempt == 2
                        or operation == "write_doc"
                        or (self.attached and isinstance(err, KernelDied))
                    ):
                        raise
                    if isinstance(err, KernelRestarted):
                        await self._reset_channels()
                    else:
                        await self._restart_owned()
        raise AssertionError("unreachable")

    async def _answer(self, request: str, operation: str) -> str:
        if self._fast is None and not self._fast_unreachable:
            await self._open_fast_channel(operation)
        if self._fast is not None:
            channel = self._fast
            msg_id = await channel.send(request)
            return await self._wait(lambda timeout: channel.receive(msg_id, timeout), operation)
        return self._expression_value(await self._execute(_HANDLE.format(request=request), operation))

    async def _open_fast_channel(self, operation: str) -> None:
        assert self._client is not None
        try:
            endpoint = self._expression_value(await self._execute(_OPEN_CHANNEL, operation))
        except messages.OlderKernelPackage:
            self._fast_unreachable = True
            return
        session = self._client.session
        channel = FastChannel(endpoint, session.key, session.signature_scheme)
        probe = encode_request("probe", "ping", {})
        try:
            await channel.receive(await channel.send(probe), PROBE_TIMEOUT_SECONDS)
        except Empty:
            log.warning("the kernel's docs channel at %s does not answer; using execute requests", endpoint)
            channel.close()
            self._fast_unreachable = True
            return
        self._fast = channel

    async def _execute(self, expression: str, operation: str) -> dict[str, Any]:
        """One silent execute_request evaluating ``expression``, on our subshell where there is one."""
        assert self._client is not None
        content = {
            "code": "",
            "silent": True,
            "store_history": False,
            "user_expressions": {"result": expression},
            "allow_stdin": False,
            "stop_on_error": False,
        }
        message = self._client.session.msg("execute_request", content)
        if self._subshell is not None:
            message["header"]["subshell_id"] = self._subshell
        self._client.shell_channel.send(message)
        channel, msg_id = self._client.shell_channel, message["header"]["msg_id"]
        reply = (await self._wait(lambda timeout: self._reply(channel, msg_id, timeout), operation))[
            "content"
        ]
        if reply.get("ename") == "UnknownSubshellError":
            raise KernelRestarted(messages.restarted(operation))
        return reply

    async def _wait(self, receive: Callable[[float], Awaitable[Any]], operation: str) -> Any:
        """Wait up to the call timeout, checking every second that the kernel lives and is the same."""
        deadline = time.monotonic() + self.call_timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise KernelUnavailable(messages.timed_out(operation, self.call_timeout, self.has_subshells))
            try:
                return await receive(min(remaining, LIVENESS_CHECK_SECONDS))
            except Empty:
                if not await self._alive():
                    raise KernelDied(messages.died(operation, self.connection_file)) from None
                if self.attached and await self._restarted():
                    raise KernelRestarted(messages.restarted(operation)) from None

    async def _alive(self) -> bool:
        if self._manager is not None:
            return await self._manager.is_alive()
        return self._client is not None and self._client.hb_channel.is_beating()

    async def _restarted(self) -> bool:
        try:
            info = await self._control("kernel_info_request", timeout=LIVENESS_CHECK_SECONDS)
        except Empty:
            return False
        return info["header"]["session"] != self._kernel_session

    @staticmethod
    def _expression_value(reply: dict[str, Any]) -> Any:
        """The value of our one user expression; its failures raise DocsError saying what to do."""
        if reply.get("status") != "ok":
            raise KernelUnavailable(messages.refused(reply))
        value = reply["user_expressions"]["result"]
        if value.get("status") != "ok":
            raise messages.expression_failure(value)
        return ast.literal_eval(value["data"]["text/plain"])


class InProcessDocsClient:
    """The same calls served from the bridge's own process: no kernel (for comparison and for
    hosts that want the docs without one). The request/reply encoding is the kernel path's."""

    attached = False

    def __init__(self, doc_store) -> None:
        from .kernel_api import dispatch

        self._dispatch = dispatch
        self.doc_store = doc_store
        self.session_id = uuid.uuid4().hex
        self.has_subshells = False

    def begin_start(self) -> None:
        pass

    async def call(self, operation: str, *, as_session: str | None = None, **arguments: Any) -> Any:
        request = encode_request(as_session or self.session_id, operation, arguments)
        return unpack_answer(self._dispatch(self.doc_store, request))

    async def close(self) -> None:
        pass
