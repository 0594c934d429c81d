"""One setting, written once in the shared config file, reaches all four surfaces."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from biopb_kernel_docs.surfaces.settings import CONFIG_NAME

from .conftest import build_tiers
from .kernels import Kernel

pytest_plugins = ["pytest_jupyter.jupyter_server"]


@pytest.fixture
def lab_docs(tmp_path) -> Path:
    return tmp_path / "the-lab-docs"


@pytest.fixture
def jp_server_config(jp_config_dir, lab_docs, tmp_path):
    """The server is configured by nothing but the shared file (written before it starts)."""
    tiers = build_tiers(tmp_path / "tiers")
    shared = {"DocStore": {"docs_local_dir": str(lab_docs), "shipped_dir": str(tiers.shipped)}}
    (Path(jp_config_dir) / f"{CONFIG_NAME}.json").write_text(json.dumps(shared))
    return {"ServerApp": {"jpserver_extensions": {"biopb_kernel_docs": True}}}


def _mcp(*arguments: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "biopb_kernel_docs", "mcp", *arguments], env=dict(os.environ)
    )


async def _mcp_write(params: StdioServerParameters, doc_id: str) -> None:
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("write_doc", {"id": doc_id, "body": f"# {doc_id}\n"})
        assert not result.is_error, result.content


async def test_the_shared_file_sets_the_local_dir_of_the_cli_kernel_mcp_server_and_jupyter_server(
    jp_fetch, jp_config_dir, lab_docs
):
    # Jupyter Server (this test's, configured by the file alone)
    config = json.loads(
        (await jp_fetch("biopb-kernel-docs", "api", "ops", "config", method="POST", body="{}")).body
    )
    assert config["local_dir"] == str(lab_docs)
    assert config["settings"][0]["source"] == str(Path(jp_config_dir) / f"{CONFIG_NAME}.json")
    await jp_fetch(
        "biopb-kernel-docs",
        "api",
        "docs",
        "from-the-server",
        method="PUT",
        body=json.dumps({"body": "# S\n"}),
    )

    # the command line
    done = subprocess.run(
        [sys.executable, "-m", "biopb_kernel_docs", "config", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(done.stdout)["local_dir"] == str(lab_docs), done.stderr

    # a kernel's magics
    kernel = Kernel(None, env=dict(os.environ))
    try:
        (markdown,) = kernel.run("%docs_config").data("text/markdown")
        assert f"| docs_local_dir | `{lab_docs}` |" in markdown
        assert kernel.run("%%write_doc from-the-kernel\n# K\n").error is None

        # the MCP server, with a kernel of its own and attached to that one
        await _mcp_write(_mcp(), "from-mcp-own-kernel")
        await _mcp_write(_mcp("--existing", kernel.connection_file), "from-mcp-attached")
    finally:
        kernel.shutdown()

    for doc_id in ("from-the-server", "from-the-kernel", "from-mcp-own-kernel", "from-mcp-attached"):
        assert (lab_docs / f"{doc_id}.md").is_file(), f"{doc_id} did not land in the shared local dir"
