"""The command agent: any agent CLI, given the tree's MCP config and the request.

``BIOPB_BENCH_AGENT_COMMAND`` is its command line, with ``{mcp_config}`` where the path of an
``mcpServers`` JSON file goes and ``{request}`` where the request goes (without ``{request}`` the
request is sent on stdin), e.g.::

    claude -p {request} --mcp-config {mcp_config} --strict-mcp-config

The config does not point at the server directly but at ``biopb-kernel-docs bench relay``, which
starts the real server, passes every message through unchanged, and logs what was read, one JSON
line per read, ``{"case", "arm", "id", "ok"}``: that log is how the bench knows what an agent it
cannot see into read, and ``bench score`` scores such a log (or one made by hand) the same way.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

import anyio

from .agents import AgentRun
from .errors import BenchError
from .tree import BenchTree

COMMAND_ENV = "BIOPB_BENCH_AGENT_COMMAND"
NOT_CONFIGURED = (
    f"command agent skipped: set {COMMAND_ENV} to an agent CLI's command line with {{mcp_config}} "
    "and {request} placeholders, e.g. 'claude -p {request} --mcp-config {mcp_config}'."
)


def command_template(env: Mapping[str, str]) -> tuple[str | None, str]:
    template = env.get(COMMAND_ENV, "").strip()
    if not template:
        return None, NOT_CONFIGURED
    if "{mcp_config}" not in template:
        return (
            None,
            f"command agent skipped: {COMMAND_ENV} has no {{mcp_config}} placeholder for the server config.",
        )
    return template, ""


class CommandAgent:
    """Runs the agent CLI once per case and trial, reading its reads off the relay's log."""

    name = "command"

    def __init__(self, template: str, timeout: float = 900) -> None:
        self.template = template
        self.timeout = timeout

    async def run_in_tree(
        self, tree: BenchTree, budget: int | None, request: str, label: str, case: str = ""
    ) -> AgentRun:
        log = tree.root / f"relay-{label}.jsonl"
        relay = [sys.executable, "-m", "biopb_kernel_docs", "bench", "relay", "--log", str(log)]
        relay += ["--case", case, "--arm", tree.arm, "--"]
        config_path = tree.root / f"agent-mcp-{label}.json"
        config = tree.mcp_config(argv=[*relay, *tree.argv(budget)])
        config_path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        argv = [
            token.replace("{mcp_config}", str(config_path)).replace("{request}", request)
            for token in shlex.split(self.template)
        ]
        stdin = None if "{request}" in self.template else request.encode()
        try:
            with anyio.fail_after(self.timeout):
                done = await anyio.run_process(argv, input=stdin, check=False, cwd=tree.root)
        except TimeoutError:
            raise BenchError(
                f"The agent command did not finish in {self.timeout:.0f} s: {shlex.join(argv)[:200]}"
            ) from None
        except OSError as err:
            raise BenchError(
                f"Cannot run the agent command {argv[0]!r}: {err.strerror}. Check {COMMAND_ENV}."
            ) from err
        output = (done.stdout or b"").decode(errors="replace").strip()
        return AgentRun(relay_reads(log), note=f"exit {done.returncode}: {output[-300:]}")


def relay_reads(log: Path) -> tuple[str, ...]:
    """The doc ids the relay saw read successfully, in order."""
    if not log.exists():
        return ()
    read = []
    for line in log.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry.get("id") and entry.get("ok"):
            read.append(entry["id"])
    return tuple(dict.fromkeys(read))


def relay(log_path: Path, argv: list[str], case: str = "", arm: str = "") -> int:
    """Serve stdio by passing it to ``argv`` (the MCP server) and back, logging reads (as
    ``{"case", "arm", "id", "ok"}``) and the instructions sent; returns the server's exit code."""
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=os.environ.copy())
    pending: dict[Any, str] = {}
    lock = threading.Lock()
    with log_path.open("a", encoding="utf-8") as log:

        def note(entry: dict[str, Any]) -> None:
            with lock:
                log.write(json.dumps(entry) + "\n")
                log.flush()

        def upstream(source: IO[bytes], sink: IO[bytes]) -> None:
            for line in source:
                message = _parse(line)
                params = message.get("params") or {}
                if message.get("method") == "tools/call" and params.get("name") == "read_doc":
                    pending[message.get("id")] = str((params.get("arguments") or {}).get("id"))
                sink.write(line)
                sink.flush()
            sink.close()

        def downstream(source: IO[bytes], sink: IO[bytes]) -> None:
            for line in source:
                message = _parse(line)
                result = message.get("result") or {}
                if message.get("id") in pending:
                    doc_id = pending.pop(message["id"])
                    note({"case": case, "arm": arm, "id": doc_id, "ok": not result.get("isError", False)})
                if isinstance(result.get("instructions"), str):
                    note({"instructions": result["instructions"]})
                sink.write(line)
                sink.flush()

        to_server = threading.Thread(target=upstream, args=(sys.stdin.buffer, server.stdin), daemon=True)
        to_server.start()
        downstream(server.stdout, sys.stdout.buffer)
        return server.wait()


def _parse(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}
