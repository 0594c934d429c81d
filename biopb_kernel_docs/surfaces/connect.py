"""How to attach an agent to a running kernel's docs: the ``claude mcp add`` line and the JSON."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any


def server_command(connection_file: str) -> list[str]:
    """The MCP server's argv for the kernel behind ``connection_file``."""
    script = Path(sys.executable).with_name("biopb-kernel-docs")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "biopb_kernel_docs"]
    return [*command, "mcp", "--existing", connection_file]


def connect_config(connection_file: str) -> dict[str, Any]:
    """The ``claude mcp add`` line and an MCP client's JSON configuration."""
    argv = server_command(connection_file)
    return {
        "connection_file": connection_file,
        "claude": f"claude mcp add biopb-docs -- {shlex.join(argv)}",
        "json": {"mcpServers": {"biopb-docs": {"command": argv[0], "args": argv[1:]}}},
    }
