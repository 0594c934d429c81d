"""Real kernels for the tests: started by jupyter_client, hermetic, and driven message by message."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty
from typing import Any

from jupyter_client import KernelManager
from mcp import StdioServerParameters

ROOT = Path(__file__).resolve().parents[1]


def kernel_env(home: Path) -> dict[str, str]:
    """An environment whose IPython profile, Jupyter dirs and ~/.config live under ``home``."""
    env = dict(os.environ)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        IPYTHONDIR=str(home / ".ipython"),
        JUPYTER_CONFIG_DIR=str(home / ".jupyter"),
        JUPYTER_DATA_DIR=str(home / ".local/share/jupyter"),
        JUPYTER_RUNTIME_DIR=str(home / ".local/share/jupyter/runtime"),
    )
    return env


def mcp_server(home: Path, *arguments: str) -> StdioServerParameters:
    """``biopb-kernel-docs mcp ARGUMENTS`` over stdio, with its kernels' home under ``home``."""
    env = kernel_env(home)
    env["PYTHONPATH"] = str(ROOT)  # lets a test kernel class be imported by kernels the server starts
    return StdioServerParameters(
        command=sys.executable, args=["-m", "biopb_kernel_docs", "mcp", *arguments], env=env
    )


def write_profile_config(home: Path, text: str) -> None:
    profile = home / ".ipython" / "profile_default"
    profile.mkdir(parents=True, exist_ok=True)
    (profile / "ipython_kernel_config.py").write_text(text)


@dataclass
class Execution:
    outputs: list[dict[str, Any]] = field(default_factory=list)
    reply: dict[str, Any] = field(default_factory=dict)

    @property
    def error(self) -> dict[str, Any] | None:
        """The execute_reply of a failed execution (ename, evalue), else None."""
        return self.reply if self.reply.get("status") == "error" else None

    @property
    def stdout(self) -> str:
        return "".join(o["text"] for o in self.outputs if o.get("name") == "stdout")

    @property
    def stderr(self) -> str:
        return "".join(o["text"] for o in self.outputs if o.get("name") == "stderr")

    def data(self, mime: str) -> list[str]:
        return [o["data"][mime] for o in self.outputs if mime in o.get("data", {})]


class Kernel:
    """One started kernel and a blocking client for it."""

    def __init__(
        self,
        home: Path | None,
        arguments: tuple[str, ...] = (),
        kernel_name: str = "python3",
        env: dict[str, str] | None = None,
    ) -> None:
        self.manager = KernelManager(kernel_name=kernel_name)
        self.manager.start_kernel(extra_arguments=list(arguments), env=env or kernel_env(home))
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)

    @property
    def connection_file(self) -> str:
        return self.manager.connection_file

    def run(self, code: str, timeout: float = 60) -> Execution:
        """Execute ``code`` and collect its outputs from IOPub until the kernel is idle again."""
        msg_id = self.client.execute(code)
        result = Execution()
        while True:
            message = self.client.get_iopub_msg(timeout=timeout)
            if message["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = message["msg_type"], message["content"]
            if kind in ("stream", "display_data", "execute_result", "error"):
                result.outputs.append(content)
            elif kind == "status" and content["execution_state"] == "idle":
                break
        while not result.reply:
            reply = self.client.get_shell_msg(timeout=timeout)
            if reply["parent_header"].get("msg_id") == msg_id:
                result.reply = reply["content"]
        return result

    def start(self, code: str) -> str:
        """Send ``code`` without waiting for it (to keep the main shell busy)."""
        return self.client.execute(code)

    def wait_running(self, msg_id: str, timeout: float = 30) -> None:
        """Wait until the execution ``msg_id`` has started on the main shell (its execute_input)."""
        while True:
            message = self.client.get_iopub_msg(timeout=timeout)
            if message["parent_header"].get("msg_id") == msg_id and message["msg_type"] == "execute_input":
                return

    def finished(self, msg_id: str, timeout: float = 0.2) -> bool:
        """Whether the execution ``msg_id`` has replied (other shell replies are skipped)."""
        try:
            while True:
                if self.client.get_shell_msg(timeout=timeout)["parent_header"].get("msg_id") == msg_id:
                    return True
        except Empty:
            return False

    def shutdown(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)
