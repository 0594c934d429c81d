"""The MCP server's half of the bridge: doc operations run in a kernel, owned or attached.

Either the bridge starts a kernel of its own (the embedded default) or it attaches to the user's
through a connection file. It never waits on the main shell to attach: kernel_info goes over the
control channel, and the first call runs one silent ``execute_request`` on a subshell of its own
(ipykernel 7) to open the channel (``channel``); every later call goes over that channel and
answers while the user's cell runs. Where the channel cannot be reached, calls fall back to
silent execute requests whose one user expression is ``kernel_side.handle(<frame>)``; neither
path reaches the notebook's output or history.

Every wait is bounded, and every way of failing is a DocsError saying what to do; a failed start
is forgotten, so the next call starts again. A kernel of our own is asked for kernel_info on the
shell channel before any subshell request: ipykernel 7.4 builds its subshell manager on the main
thread right after it starts listening on control, and a subshell request that arrives in that
window fails an assertion in the control thread and is never answered. An attached kernel (whose
main shell may be busy) gets a few bounded subshell attempts, then the fallback.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import logging
import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from queue import Empty
from typing import Any

from jupyter_client import AsyncKernelClient, AsyncKernelManager
from jupyter_core.paths import jupyter_runtime_dir

from ..core.errors import BridgeMismatch, DocsError, KernelDied, KernelRestarted, KernelUnavailable
from ..surfaces.operations import OPERATIONS
from . import messages, wire
from .channel import Channel

log = logging.getLogger(__name__)

SUBSHELLS = "kernel subshells"
START_TIMEOUT_SECONDS = 60.0
# A kernel the server starts can exit at once: its ports are picked free, then bound by the kernel,
# and another process may take one in between ("Address already in use"). Start it again, this often.
START_ATTEMPTS = 3
SUBSHELL_TIMEOUT_SECONDS = 5.0
SUBSHELL_ATTEMPTS = 3
PROBE_TIMEOUT_SECONDS = 3.0
# While waiting for a reply, look this often whether the kernel is still alive (and the same one).
LIVENESS_CHECK_SECONDS = 1.0
_SIDE = "__import__('biopb_kernel_docs.bridge.kernel_side', fromlist=['handle'])"
_HANDLE = _SIDE + ".handle({frame!r})"
_OPEN_CHANNEL = _SIDE + ".open_channel()"


# Printed by every kernel ipykernel 7 starts over TCP, as jupyter_client starts it: nothing a
# user of the docs can act on (the bridge's kernel listens on loopback, signed with its key).
UNACTIONABLE_KERNEL_WARNINGS = (b"Kernel is running over TCP without encryption",)


def _filtered_stderr() -> int:
    """The write end of a pipe for a kernel's stderr; a thread copies its lines to ours, less the
    warnings in UNACTIONABLE_KERNEL_WARNINGS, until the kernel closes it."""
    read_end, write_end = os.pipe()

    def forward() -> None:
        with os.fdopen(read_end, "rb") as lines:
            for line in lines:
                if any(warning in line for warning in UNACTIONABLE_KERNEL_WARNINGS):
                    continue
                with contextlib.suppress(OSError, ValueError):
                    buffer = getattr(sys.stderr, "buffer", None)
                    if buffer is not None:
                        buffer.write(line)
                    else:
                        sys.stderr.write(line.decode("utf-8", "replace"))
                    sys.stderr.flush()

    threading.Thread(target=forward, name="kernel-stderr", daemon=True).start()
    return write_end


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
        self._channel: Channel | None = None
        self._channel_unreachable = False
        self._call_lock = asyncio.Lock()
        self._started: asyncio.Future[None] | None = None

    @property
    def attached(self) -> bool:
        return self.connection_file is not None

    # -- lifecycle --------------------------------------------------------------------------------

    def begin_start(self) -> None:
        """Start (or attach to) the kernel in the background; calls wait for it."""
        if self._started is None:
            self._started = asyncio.ensure_future(self._start_or_explain())

    async def _ensure_started(self) -> None:
        self.begin_start()
        assert self._started is not None
        try:
            # Shielded: a caller that gives up (the handshake's deadline) must not cancel the start.
            await asyncio.shield(self._started)
        except DocsError:
            self._started = None  # the next call starts again
            await self._discard_client()
            raise

    async def _start_or_explain(self) -> None:
        try:
            await self._start()
        except DocsError:
            raise
        except Exception as err:  # jupyter_client and zmq raise many kinds; each one is a failed start
            raise KernelUnavailable(messages.start_failed(self.connection_file, err)) from err

    async def _start(self) -> None:
        if self.attached:
            client = AsyncKernelClient(connection_file=self.connection_file)
            try:
                client.load_connection_file()
            except (OSError, ValueError) as err:
                raise KernelUnavailable(
                    messages.unreadable_connection_file(self.connection_file, err)
                ) from None
            await self._connect(client)
            return
        for attempt in range(1, START_ATTEMPTS + 1):
            try:
                await self._connect(await self._start_owned())
                return
            except KernelDied as err:
                await self._discard_client()
                if attempt == START_ATTEMPTS:
                    raise
                log.warning("%s (attempt %d of %d); starting another", err, attempt, START_ATTEMPTS)

    async def _start_owned(self) -> AsyncKernelClient:
        # In the runtime dir, under a name of its own: `jupyter console --existing` finds it there.
        runtime = Path(jupyter_runtime_dir())
        runtime.mkdir(parents=True, exist_ok=True)
        self._manager = AsyncKernelManager(
            kernel_name=self.kernel_name,
            connection_file=str(runtime / f"kernel-biopb-docs-{uuid.uuid4().hex[:12]}.json"),
        )
        # stdout is the MCP stream: the kernel must never write to it, nor read our stdin. Its
        # stderr reaches ours, less the warnings no user can act on.
        stderr = _filtered_stderr()
        try:
            await self._manager.start_kernel(
                extra_arguments=list(self.kernel_args),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
        finally:
            os.close(stderr)  # the kernel holds its own copy; the forwarder ends at its EOF
        return self._manager.client()

    async def _connect(self, client: AsyncKernelClient) -> None:
        client.start_channels(shell=True, iopub=False, stdin=False, hb=True, control=True)
        self._client = client
        info = await self._kernel_info(START_TIMEOUT_SECONDS)
        self.has_subshells = SUBSHELLS in info["content"].get("supported_features", [])
        if not self.attached and self.has_subshells:
            await self._shell_ready(START_TIMEOUT_SECONDS)
        await self._reset_channels(info)

    async def _discard_client(self) -> None:
        if self._client is not None:
            self._client.stop_channels()
            self._client = None
        if self._manager is not None:
            manager, self._manager = self._manager, None
            try:
                await manager.shutdown_kernel(now=True)
            except Exception as err:  # a kernel that never started may not shut down cleanly
                log.warning("could not stop the bridge's kernel: %s", err)

    async def _reset_channels(self, info: dict[str, Any] | None = None) -> None:
        """Forget the subshell and the channel (a new kernel process has neither)."""
        if self._channel is not None:
            self._channel.close()
        self._channel, self._channel_unreachable = None, False
        info = info or await self._kernel_info(START_TIMEOUT_SECONDS)
        self._kernel_session = info["header"]["session"]
        self._subshell = await self._create_subshell() if self.has_subshells else None

    async def _create_subshell(self) -> str | None:
        """A subshell of our own, or None (then calls use the main shell) after bounded attempts."""
        problem = "no answer"
        for attempt in range(SUBSHELL_ATTEMPTS):
            if attempt:
                await asyncio.sleep(0.5 * attempt)
            reply = await self._control("create_subshell_request", timeout=SUBSHELL_TIMEOUT_SECONDS)
            if reply is None:
                continue
            content = reply["content"]
            if content.get("status") == "ok" and content.get("subshell_id"):
                return content["subshell_id"]
            problem = str(content.get("evalue") or content)
        log.warning(messages.no_subshell("start", problem))
        return None

    async def _kernel_info(self, timeout: float) -> dict[str, Any]:
        """kernel_info over the control channel: a busy main shell does not delay it. A kernel this
        server started that exits meanwhile is reported at once (KernelDied), not waited for."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reply = await self._control("kernel_info_request", timeout=min(2.0, timeout))
            if reply is not None:
                return reply
            if self._manager is not None and not await self._manager.is_alive():
                provisioner = self._manager.provisioner
                status = await provisioner.poll() if provisioner is not None else None
                raise KernelDied(messages.exited_at_start(status))
        raise KernelUnavailable(messages.not_answering(self.connection_file, timeout))

    async def _shell_ready(self, timeout: float) -> None:
        """kernel_info over the shell channel: answered once the kernel has fully started."""
        assert self._client is not None
        message = self._client.session.msg("kernel_info_request", {})
        self._client.shell_channel.send(message)
        reply = await self._reply(self._client.shell_channel, message["header"]["msg_id"], timeout)
        if reply is None:
            raise KernelUnavailable(messages.not_answering(self.connection_file, timeout))

    async def _control(self, msg_type: str, *, timeout: float, **content: Any) -> dict[str, Any] | None:
        assert self._client is not None
        message = self._client.session.msg(msg_type, content)
        self._client.control_channel.send(message)
        return await self._reply(self._client.control_channel, message["header"]["msg_id"], timeout)

    @staticmethod
    async def _reply(channel, msg_id: str, timeout: float) -> dict[str, Any] | None:
        """The reply to ``msg_id``, or None when none comes within ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                reply = await channel.get_msg(timeout=remaining)
            except Empty:
                return None
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply

    async def _restart_owned(self) -> None:
        log.warning("the bridge's kernel died; starting a new one")
        await self._discard_client()
        self._started = None
        await self._ensure_started()

    async def close(self) -> None:
        """Stop an owned kernel (an attached one is the user's and keeps running)."""
        if self._channel is not None:
            self._channel.close()
        if self._client is not None and self._subshell is not None and self.attached:
            message = self._client.session.msg("delete_subshell_request", {"subshell_id": self._subshell})
            self._client.control_channel.send(message)
        await self._discard_client()

    # -- calls --------------------------------------------------------------------------------

    async def call(
        self,
        operation: str,
        *,
        as_session: str | None = None,
        client: dict[str, str] | None = None,
        **arguments: Any,
    ) -> Any:
        """Run one operation in the kernel and return its value; refusals raise DocsError.

        ``as_session`` runs it as another caller than this client's own (§8 risk 3: the bridge's
        own bookkeeping must not count as the agent having read something); ``client`` is the MCP
        client's declared name and version, the author the history records for a write. A read
        interrupted by a kernel that died or restarted is retried once; a write is not (it may
        have landed).
        """
        frame = wire.request_frame(as_session or self.session_id, operation, arguments, client)
        async with self._call_lock:
            await self._ensure_started()
            if not self.attached and not await self._alive():
                await self._restart_owned()
            for attempt in (1, 2):
                try:
                    return wire.parse_answer(await self._answer(frame, operation))
                except (KernelDied, KernelRestarted) as err:
                    known = OPERATIONS.get(operation)
                    writes = known is None or known.writes
                    if attempt == 2 or writes or (self.attached and isinstance(err, KernelDied)):
                        raise
                    if isinstance(err, KernelRestarted):
                        await self._reset_channels()
                    else:
                        await self._restart_owned()
        raise AssertionError("unreachable")

    async def _answer(self, frame: str, operation: str) -> str:
        if self._channel is None and not self._channel_unreachable:
            await self._open_channel(operation)
        if self._channel is not None:
            channel = self._channel
            msg_id = await channel.send(frame)
            return await self._wait(lambda timeout: channel.receive(msg_id, timeout), operation)
        return self._expression_value(await self._execute(_HANDLE.format(frame=frame), operation))

    async def _open_channel(self, operation: str) -> None:
        assert self._client is not None
        endpoint = self._expression_value(await self._execute(_OPEN_CHANNEL, operation))
        session = self._client.session
        channel = Channel(endpoint, session.key, session.signature_scheme)
        probe = wire.request_frame("probe", "config", {})
        try:
            await channel.receive(await channel.send(probe), PROBE_TIMEOUT_SECONDS)
        except Empty:
            log.warning("the kernel's docs channel at %s does not answer; using execute requests", endpoint)
            channel.close()
            self._channel_unreachable = True
            return
        self._channel = channel

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

        async def receive(timeout: float) -> dict[str, Any]:
            reply = await self._reply(channel, msg_id, timeout)
            if reply is None:
                raise Empty
            return reply

        reply = (await self._wait(receive, operation))["content"]
        if reply.get("ename") == "UnknownSubshellError":
            raise KernelRestarted(messages.restarted(operation))
        return reply

    async def _wait(self, receive: Callable[[float], Awaitable[Any]], operation: str) -> Any:
        """Wait up to the call timeout, checking every second that the kernel lives and is the same."""
        deadline = time.monotonic() + self.call_timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise KernelUnavailable(
                    messages.timed_out(operation, self.call_timeout, self._subshell is not None)
                )
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
        info = await self._control("kernel_info_request", timeout=LIVENESS_CHECK_SECONDS)
        return info is not None and info["header"]["session"] != self._kernel_session

    @staticmethod
    def _expression_value(reply: dict[str, Any]) -> Any:
        """The value of our one user expression; its failures raise DocsError saying what to do."""
        if reply.get("status") != "ok":
            raise KernelUnavailable(messages.refused(reply))
        value = reply["user_expressions"]["result"]
        if value.get("status") != "ok":
            raise messages.expression_failure(value)
        try:
            return ast.literal_eval(value["data"]["text/plain"])
        except (KeyError, ValueError, SyntaxError):
            raise BridgeMismatch(messages.unexpected_value(value)) from None
