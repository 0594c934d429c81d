"""The model agent: a language model behind an HTTP API, given the handshake as a host gives it.

Configured from the environment, and skipped with a message saying what to set when it is not:

- ``ANTHROPIC_API_KEY`` (``ANTHROPIC_BASE_URL`` optional): the Messages API;
- ``OPENAI_BASE_URL`` and/or ``OPENAI_API_KEY``: any OpenAI-compatible chat-completions endpoint;
- ``BIOPB_BENCH_MODEL`` names the model (required for an OpenAI-compatible endpoint);
  ``BIOPB_BENCH_PROVIDER=openai`` picks that endpoint when both are set.

The model gets the server's instructions in its system prompt, the request as the user's turn and
the server's own tool list; every tool call it makes goes to the real MCP server. It cannot run
code here, so it is asked to reply with its plan once it has read what it wants.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import anyio

from .agents import AgentRun
from .errors import BenchError

DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5"
ANTHROPIC_VERSION = "2023-06-01"
MAX_TURNS = 10
SYSTEM_PROMPT = """\
You assist a microscopist who works in a Jupyter kernel you share. The MCP server "biopb-docs" \
sent these instructions at connect:

{instructions}

In this session no code can run. Read what you need with the tools, then reply with the plan you \
would follow, in at most five lines."""
NOT_CONFIGURED = (
    "model agent skipped: no model is configured. Set ANTHROPIC_API_KEY (and optionally "
    "BIOPB_BENCH_MODEL), or OPENAI_BASE_URL / OPENAI_API_KEY with BIOPB_BENCH_MODEL for an "
    "OpenAI-compatible endpoint."
)


class ToolCaller(Protocol):
    tools: list[dict[str, Any]]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]: ...


@dataclass(frozen=True)
class ModelConfig:
    provider: str  # "anthropic" or "openai"
    model: str
    base_url: str
    api_key: str | None


def model_config(env: Mapping[str, str]) -> tuple[ModelConfig | None, str]:
    """The configured model, or None and the message that says what to set."""
    model = env.get("BIOPB_BENCH_MODEL", "").strip()
    openai_wanted = env.get("BIOPB_BENCH_PROVIDER", "").lower() == "openai"
    if env.get("ANTHROPIC_API_KEY") and not openai_wanted:
        base = env.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"
        return ModelConfig("anthropic", model or DEFAULT_ANTHROPIC_MODEL, base, env["ANTHROPIC_API_KEY"]), ""
    if env.get("OPENAI_BASE_URL") or env.get("OPENAI_API_KEY"):
        if not model:
            return None, (
                "model agent skipped: an OpenAI-compatible endpoint is set but no model; set "
                "BIOPB_BENCH_MODEL to the model's name."
            )
        base = env.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        return ModelConfig("openai", model, base, env.get("OPENAI_API_KEY")), ""
    return None, NOT_CONFIGURED


def _post(url: str, headers: dict[str, str], body: dict[str, Any], attempts: int = 3) -> dict[str, Any]:
    data = json.dumps(body).encode()
    for attempt in range(attempts):
        request = urllib.request.Request(
            url, data=data, headers={"content-type": "application/json", **headers}
        )
        try:
            with urllib.request.urlopen(request, timeout=180) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as err:
            detail = err.read().decode(errors="replace")[:300]
            if err.code in (429, 500, 502, 503, 529) and attempt + 1 < attempts:
                time.sleep(2 * 2**attempt)
                continue
            raise BenchError(
                f"The model endpoint {url} answered {err.code}: {detail}. Check the key, the model name "
                "(BIOPB_BENCH_MODEL) and the base URL."
            ) from err
        except (urllib.error.URLError, TimeoutError) as err:
            if attempt + 1 < attempts:
                time.sleep(2 * 2**attempt)
                continue
            raise BenchError(
                f"Cannot reach the model endpoint {url}: {err}. Is it up, and is it the right URL?"
            ) from err
    raise AssertionError("unreachable")


class ModelAgent:
    """One model, asked through its API; ``read`` is the ids of its successful read_doc calls."""

    def __init__(self, config: ModelConfig, max_turns: int = MAX_TURNS) -> None:
        self.config = config
        self.max_turns = max_turns

    @property
    def name(self) -> str:
        return f"model:{self.config.model}"

    async def run(self, caller: ToolCaller, instructions: str, request: str) -> AgentRun:
        system = SYSTEM_PROMPT.format(instructions=instructions)
        converse = self._anthropic if self.config.provider == "anthropic" else self._openai
        read: list[str] = []
        note = await converse(caller, system, request, read)
        return AgentRun(tuple(dict.fromkeys(read)), note=note)

    async def _call(self, caller: ToolCaller, name: str, arguments: Any, read: list[str]) -> tuple[str, bool]:
        arguments = arguments if isinstance(arguments, dict) else {}
        text, failed = await caller.call_tool(name, arguments)
        if name == "read_doc" and not failed and isinstance(arguments.get("id"), str):
            read.append(arguments["id"])
        return text, failed

    async def _anthropic(self, caller: ToolCaller, system: str, request: str, read: list[str]) -> str:
        url = self.config.base_url.rstrip("/") + "/v1/messages"
        headers = {"x-api-key": self.config.api_key or "", "anthropic-version": ANTHROPIC_VERSION}
        tools = [
            {"name": t["name"], "description": t.get("description", ""), "input_schema": t["inputSchema"]}
            for t in caller.tools
        ]
        messages: list[dict[str, Any]] = [{"role": "user", "content": request}]
        for _ in range(self.max_turns):
            body = {"model": self.config.model, "max_tokens": 1024, "system": system, "messages": messages}
            reply = await anyio.to_thread.run_sync(_post, url, headers, {**body, "tools": tools})
            content = reply.get("content", [])
            messages.append({"role": "assistant", "content": content})
            uses = [block for block in content if block.get("type") == "tool_use"]
            if not uses:
                return " ".join(b.get("text", "") for b in content if b.get("type") == "text").strip()
            results = []
            for use in uses:
                text, failed = await self._call(caller, use["name"], use.get("input"), read)
                results.append(
                    {"type": "tool_result", "tool_use_id": use["id"], "content": text, "is_error": failed}
                )
            messages.append({"role": "user", "content": results})
        return f"stopped after {self.max_turns} turns"

    async def _openai(self, caller: ToolCaller, system: str, request: str, read: list[str]) -> str:
        url = self.config.base_url.rstrip("/") + "/chat/completions"
        headers = {"authorization": f"Bearer {self.config.api_key}"} if self.config.api_key else {}
        tools = [
            {
                "type": "function",
                "function": {
                    "name": t["name"],
                    "description": t.get("description", ""),
                    "parameters": t["inputSchema"],
                },
            }
            for t in caller.tools
        ]
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": request},
        ]
        for _ in range(self.max_turns):
            body = {"model": self.config.model, "messages": messages, "tools": tools}
            reply = await anyio.to_thread.run_sync(_post, url, headers, body)
            message = reply["choices"][0]["message"]
            messages.append(message)
            calls = message.get("tool_calls") or []
            if not calls:
                return (message.get("content") or "").strip()
            for call in calls:
                try:
                    arguments = json.loads(call["function"].get("arguments") or "{}")
                except json.JSONDecodeError:
                    arguments = {}
                text, _ = await self._call(caller, call["function"]["name"], arguments, read)
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
        return f"stopped after {self.max_turns} turns"
