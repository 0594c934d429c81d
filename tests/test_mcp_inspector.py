"""The MCP Inspector CLI (npm) as a second, independent client of `biopb-kernel-docs mcp`.

Version 0.15.0 is pinned: later versions need Node 22, and this one speaks the handshake era.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .kernels import kernel_env

INSPECTOR = "@modelcontextprotocol/inspector@0.15.0"
NPM_CACHE = Path.home() / ".npm"  # read at import, before the tests' hermetic HOME: reuse the download


@pytest.fixture
def inspect(tiers, tmp_path):
    npx = shutil.which("npx")
    assert npx, "npx (Node.js) is needed for the MCP Inspector test; .ci/run installs it"
    server = tmp_path / "server.sh"
    server.write_text(
        f"#!/bin/sh\nexec {sys.executable} -m biopb_kernel_docs mcp "
        f"--docs-local-dir {tiers.local} --shipped-dir {tiers.shipped}\n"
    )
    server.chmod(0o755)
    env = kernel_env(tmp_path / "home")
    env.update(npm_config_cache=str(NPM_CACHE), npm_config_update_notifier="false")

    def run(*arguments: str) -> dict:
        done = subprocess.run(
            [npx, "-y", INSPECTOR, "--cli", str(server), *arguments],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout)

    return run


def test_inspector_lists_exactly_the_four_tools(inspect):
    listed = inspect("--method", "tools/list")
    assert sorted(tool["name"] for tool in listed["tools"]) == [
        "read_doc",
        "restore_doc",
        "search_docs",
        "write_doc",
    ]


def test_inspector_calls_read_doc_and_reads_the_index_resource(inspect):
    called = inspect("--method", "tools/call", "--tool-name", "read_doc", "--tool-arg", "id=flatfield")
    assert called["content"][0]["text"].startswith("[flatfield · shipped")
    resource = inspect("--method", "resources/read", "--uri", "docs://index")
    assert "# Test docs" in resource["contents"][0]["text"]
