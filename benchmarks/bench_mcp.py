"""MCP bridge benchmark: tool round trips over stdio through the kernel, against the same server
calling the store in its own process (--in-process), measured in one run; and spawn-to-handshake.

    .venv/bin/python benchmarks/bench_mcp.py [--repeat N] [--spawns N]

Target: a round trip through the kernel <= 2x the in-process one. Prints a markdown table; commit
it as benchmarks/RESULTS-mcp.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

SEED = Path(__file__).resolve().parents[1] / "seed"


def _params(home: Path, local: Path, *extra: str) -> StdioServerParameters:
    env = dict(os.environ)
    env.update(
        IPYTHONDIR=str(home / ".ipython"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTER_CONFIG_DIR=str(home / ".jupyter"),
    )
    args = ["-m", "biopb_kernel_docs", "mcp", "--docs-local-dir", str(local), *extra]
    return StdioServerParameters(command=sys.executable, args=args, env=env)


def _stats(samples: list[float]) -> tuple[float, float]:
    samples = sorted(samples)
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]


async def _round_trips(kernel: StdioServerParameters, local: StdioServerParameters, repeat: int) -> dict:
    """Both servers open at once, called alternately, so both see the same machine load."""
    async with (
        stdio_client(kernel) as (kernel_read, kernel_write),
        ClientSession(kernel_read, kernel_write) as via_kernel,
        stdio_client(local) as (local_read, local_write),
        ClientSession(local_read, local_write) as in_process,
    ):
        sessions = {"kernel": via_kernel, "in-process": in_process}
        samples: dict[tuple[str, str], list[float]] = {}
        for session in sessions.values():
            await session.initialize()
            await session.call_tool("write_doc", {"id": "bench", "body": "# Bench\n\nalpha\n"})
            for _ in range(10):  # warm-up, including the client's one-time schema validation cost
                await session.call_tool("read_doc", {"id": "flatfield"})
        for n in range(repeat):
            old, new = ("alpha", "beta") if n % 2 == 0 else ("beta", "alpha")
            for name, session in sessions.items():
                for tool, arguments in (
                    ("read_doc", {"id": "flatfield"}),
                    ("write_doc", {"id": "bench", "old": old, "new": new}),
                ):
                    start = time.perf_counter()
                    await session.call_tool(tool, arguments)
                    samples.setdefault((tool, name), []).append((time.perf_counter() - start) * 1000)
    return {key: _stats(values) for key, values in samples.items()}


async def _spawn_to_handshake(params: StdioServerParameters, spawns: int) -> tuple[float, float]:
    samples = []
    for _ in range(spawns):
        start = time.perf_counter()
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            samples.append((time.perf_counter() - start) * 1000)
    return _stats(samples)


async def main(repeat: int, spawns: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        kernel = _params(root / "home", root / "local-kernel")
        local = _params(root / "home", root / "local-inproc", "--in-process")
        trips = await _round_trips(kernel, local, repeat)
        spawn_kernel = await _spawn_to_handshake(kernel, spawns)
        spawn_local = await _spawn_to_handshake(local, spawns)

    print(
        f"MCP bridge benchmark, {time.strftime('%Y-%m-%d')}, Python {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} cores, repeat={repeat}, spawns={spawns}. Times in ms.\n"
    )
    print("| round trip over stdio | via kernel (median/p95) | in-process (median/p95) | ratio | target |")
    print("|---|---|---|---|---|")
    for tool in ("read_doc", "write_doc"):
        (km, kp), (lm, lp) = trips[(tool, "kernel")], trips[(tool, "in-process")]
        label = "read_doc" if tool == "read_doc" else "write_doc old/new"
        print(f"| {label} | {km:.1f} / {kp:.1f} | {lm:.1f} / {lp:.1f} | {km / lm:.2f}x | <= 2x |")
    print("\n| spawn to ready handshake (initialize result) | median | p95 |")
    print("|---|---|---|")
    print(f"| with its own kernel (default) | {spawn_kernel[0]:.0f} | {spawn_kernel[1]:.0f} |")
    print(f"| --in-process | {spawn_local[0]:.0f} | {spawn_local[1]:.0f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--spawns", type=int, default=5)
    arguments = parser.parse_args()
    anyio.run(main, arguments.repeat, arguments.spawns)
