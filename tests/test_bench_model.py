"""The model and command agents: configuration, skip messages, and their message protocol through
the real MCP server (no model runs here: an endpoint on localhost plays the model's part)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from biopb_kernel_docs.bench.cases import Case
from biopb_kernel_docs.bench.command_agent import NOT_CONFIGURED as NO_COMMAND
from biopb_kernel_docs.bench.command_agent import CommandAgent, command_template
from biopb_kernel_docs.bench.model_agent import NOT_CONFIGURED as NO_MODEL
from biopb_kernel_docs.bench.model_agent import ModelAgent, ModelConfig, model_config
from biopb_kernel_docs.bench.runner import Plan, procedure_ids_of, run_unit

pytestmark = pytest.mark.anyio
SEED = Path(__file__).resolve().parents[1] / "seed"
CASE = Case("dark-corners", "my images are darker in the corners", ("flatfield",))


@pytest.fixture
def anyio_backend():
    return "asyncio"


def test_model_agent_configuration_comes_from_the_environment():
    assert model_config({}) == (None, NO_MODEL)
    config, _ = model_config({"ANTHROPIC_API_KEY": "k"})
    assert (config.provider, config.base_url, config.api_key) == (
        "anthropic",
        "https://api.anthropic.com",
        "k",
    )
    assert model_config({"ANTHROPIC_API_KEY": "k", "BIOPB_BENCH_MODEL": "m"})[0].model == "m"
    missing, reason = model_config({"OPENAI_BASE_URL": "http://localhost:8000/v1"})
    assert missing is None
    assert "set BIOPB_BENCH_MODEL" in reason
    config, _ = model_config(
        {
            "OPENAI_BASE_URL": "http://h/v1",
            "BIOPB_BENCH_MODEL": "m",
            "ANTHROPIC_API_KEY": "k",
            "BIOPB_BENCH_PROVIDER": "openai",
        }
    )
    assert (config.provider, config.base_url, config.api_key) == ("openai", "http://h/v1", None)


def test_command_agent_configuration_needs_a_config_placeholder():
    assert command_template({}) == (None, NO_COMMAND)
    assert (
        "no {mcp_config} placeholder"
        in command_template({"BIOPB_BENCH_AGENT_COMMAND": "claude -p {request}"})[1]
    )
    assert command_template({"BIOPB_BENCH_AGENT_COMMAND": "a {mcp_config}"}) == ("a {mcp_config}", "")


def test_bench_run_with_only_unconfigured_agents_says_what_to_set(tmp_path):
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([{"id": "a", "request": "r", "expect": []}]))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "biopb_kernel_docs",
            "bench",
            "run",
            "--cases",
            str(cases),
            "--agents",
            "model,command",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert done.returncode == 1
    assert f"No agent can run: {NO_MODEL} {NO_COMMAND}" in done.stderr


class ScriptedModel(BaseHTTPRequestHandler):
    """Both wire formats: the first turn asks for two reads (one that fails), the second answers."""

    requests: list[tuple[str, dict]] = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.requests.append((self.path, body, {k.lower(): v for k, v in self.headers.items()}))
        first = len(body["messages"]) <= 2
        if self.path == "/v1/messages":
            content = (
                [
                    {"type": "tool_use", "id": "t1", "name": "read_doc", "input": {"id": "flatfield"}},
                    {"type": "tool_use", "id": "t2", "name": "read_doc", "input": {"id": "no-such-doc"}},
                ]
                if first
                else [{"type": "text", "text": "Plan: correct the shading."}]
            )
            reply = {"content": content, "stop_reason": "tool_use" if first else "end_turn"}
        else:
            calls = [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read_doc", "arguments": '{"id": "flatfield"}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "read_doc", "arguments": '{"id": "no-such-doc"}'},
                },
            ]
            message = (
                {"role": "assistant", "content": None, "tool_calls": calls}
                if first
                else {
                    "role": "assistant",
                    "content": "Plan: correct the shading.",
                }
            )
            reply = {"choices": [{"message": message}]}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def endpoint():
    ScriptedModel.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), ScriptedModel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


async def test_model_agents_speak_both_wire_formats_through_the_real_server(tmp_path, endpoint):
    agents = [
        ModelAgent(ModelConfig("anthropic", "claude-test", endpoint, "secret")),
        ModelAgent(ModelConfig("openai", "local-model", endpoint + "/v1", None)),
    ]
    plan = Plan([CASE], ["catalog"], [2048], session_agents=agents, trials=1, shipped_dir=SEED)
    outcomes = await run_unit(plan, tmp_path, (CASE, "catalog", 2048, 1), procedure_ids_of(SEED, [CASE]))
    assert [(o.agent, o.read, o.passed, o.note) for o in outcomes] == [
        ("model:claude-test", ("flatfield",), True, "Plan: correct the shading."),
        ("model:local-model", ("flatfield",), True, "Plan: correct the shading."),
    ]
    (path, first, headers), (_, second, _) = ScriptedModel.requests[:2]
    assert (path, headers["x-api-key"], first["model"]) == ("/v1/messages", "secret", "claude-test")
    assert "biopb-docs" in first["system"]
    assert "- flatfield:" in first["system"]  # the server's instructions, 2,048-character form
    assert first["messages"] == [{"role": "user", "content": CASE.request}]
    tool = next(t for t in first["tools"] if t["name"] == "read_doc")
    assert tool["input_schema"]["required"] == ["id"]
    results = second["messages"][-1]["content"]
    assert results[0]["content"].startswith("[flatfield · shipped")
    assert (results[1]["is_error"], results[1]["content"].startswith("No doc 'no-such-doc'")) == (True, True)
    (path, first, headers), (_, second, _) = ScriptedModel.requests[2:4]
    assert path == "/v1/chat/completions"
    assert "authorization" not in {k.lower() for k in headers}
    assert first["messages"][0]["role"] == "system"
    assert {t["function"]["name"] for t in first["tools"]} == {
        "read_doc",
        "restore_doc",
        "search_docs",
        "write_doc",
    }
    assert second["messages"][-2]["content"].startswith("[flatfield · shipped")
    assert second["messages"][-2]["tool_call_id"] == "c1"


AGENT_CLI = textwrap.dedent(
    """
    import json, sys, anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    async def main(config_path, request):
        server = json.load(open(config_path))["mcpServers"]["biopb-docs"]
        params = StdioServerParameters(command=server["command"], args=server["args"], env=server["env"])
        async with stdio_client(params) as (r, w), ClientSession(r, w) as session:
            init = await session.initialize()
            wanted = [w for w in request.split() if "- " + w + ":" in init.instructions]
            for doc_id in [*wanted, "no-such-doc"]:
                await session.call_tool("read_doc", {"id": doc_id})
        print("read", wanted)

    anyio.run(main, sys.argv[1], sys.argv[2])
    """
)


async def test_a_command_agent_gets_the_config_and_its_reads_come_off_the_relay(tmp_path):
    script = tmp_path / "agent_cli.py"
    script.write_text(AGENT_CLI)
    agent = CommandAgent(f"{sys.executable} {script} {{mcp_config}} {{request}}")
    case = Case("via-cli", "please read data and flatfield", ("flatfield",))
    plan = Plan(
        [case], ["catalog"], [None], command_agents=[agent], trials=1, shipped_dir=SEED, keep_trees=True
    )
    [outcome] = await run_unit(plan, tmp_path, (case, "catalog", None, 1), procedure_ids_of(SEED, [case]))
    assert (outcome.agent, outcome.read, outcome.passed) == ("command", ("data", "flatfield"), True)
    assert outcome.note == "exit 0: read ['data', 'flatfield']"
    [log] = tmp_path.glob("*/relay-1.jsonl")
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert entries[0]["instructions"].startswith('Doc "index"')
    assert {"read": "no-such-doc", "ok": False} in entries
