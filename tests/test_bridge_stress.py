"""Spawn the MCP server many times under load: every one answers its handshake and a call.

A fresh kernel answers kernel_info on its control channel before its main thread has built the
subshell manager; a subshell request in that window used to fail inside ipykernel and leave the
bridge waiting for minutes. Load widens the window, so the spawns here run beside busy processes.
"""

from __future__ import annotations

import multiprocessing

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client, types

from .kernels import mcp_server

pytestmark = pytest.mark.anyio
SPAWNS = 12
AT_ONCE = 3
BURNERS = 2
SPAWN_DEADLINE_SECONDS = 90


@pytest.fixture
def anyio_backend():
    return "asyncio"


def _burn(stop) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


@pytest.fixture
def load():
    stop = multiprocessing.get_context("spawn").Event()
    burners = [
        multiprocessing.get_context("spawn").Process(target=_burn, args=(stop,)) for _ in range(BURNERS)
    ]
    for burner in burners:
        burner.start()
    yield
    stop.set()
    for burner in burners:
        burner.join(10)


async def _spawn_once(params: StdioServerParameters, answered: list[int], number: int) -> None:
    with anyio.fail_after(SPAWN_DEADLINE_SECONDS):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            assert "# Test docs" in init.instructions, init.instructions[:400]
            result = await session.call_tool("read_doc", {"id": "flatfield"})
            assert not result.is_error, result.content
            assert isinstance(result.content[0], types.TextContent)
            assert result.content[0].text.startswith("[flatfield · shipped")
    answered.append(number)


async def test_every_spawn_under_load_answers_its_handshake_and_a_call(tmp_path, tiers, load):
    home = tmp_path / "home"
    home.mkdir()
    params = mcp_server(home, "--docs-local-dir", str(tiers.local), "--shipped-dir", str(tiers.shipped))
    answered: list[int] = []
    limiter = anyio.CapacityLimiter(AT_ONCE)

    async def one(number: int) -> None:
        async with limiter:
            await _spawn_once(params, answered, number)

    async with anyio.create_task_group() as spawns:
        for number in range(SPAWNS):
            spawns.start_soon(one, number)
    assert sorted(answered) == list(range(SPAWNS))
