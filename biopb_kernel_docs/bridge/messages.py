"""What the bridge tells the agent when the kernel, not the store, is the problem.

Product copy, like the store's own errors: each says what happened and what to do next.
"""

from __future__ import annotations

from typing import Any

from ..core.errors import BridgeMismatch, KernelUnavailable


def unreadable_connection_file(connection_file: str | None, err: Exception) -> str:
    return (
        f"Cannot read the kernel connection file {connection_file}: {err}. Run %docs_connect in the "
        "notebook for the current file and the command that uses it."
    )


def not_answering(connection_file: str | None, timeout: float) -> str:
    if connection_file:
        return (
            f"No kernel answered at {connection_file} within {timeout:g} s. Is the notebook's kernel "
            "running? Run %docs_connect in it for the current connection file and command."
        )
    return f"The bridge's kernel did not start within {timeout:g} s. Check that ipykernel is installed."


def timed_out(operation: str, timeout: float, has_subshells: bool) -> str:
    waited = f"The kernel did not answer {operation} within {timeout:g} s"
    landed = (
        " A write_doc that timed out may still land: read_doc before retrying."
        if operation == "write_doc"
        else ""
    )
    if not has_subshells:
        return (
            f"{waited}: it has no subshells (ipykernel older than 7), so the docs wait behind the cell it is "
            "running until they are set up in it. Wait for that cell to finish, or upgrade ipykernel to 7 or "
            f"later in the kernel's environment.{landed}"
        )
    return f"{waited}, although it is alive: something in it holds the interpreter. Retry shortly.{landed}"


def died(operation: str, connection_file: str | None) -> str:
    if connection_file:
        return (
            f"The kernel this server is attached to stopped answering during {operation} (it was shut down "
            f"or crashed; connection file {connection_file}). Start or restart the notebook's kernel, run "
            "%docs_connect in it, and reconnect the agent with the command it prints."
        )
    return (
        f"The bridge's kernel died during {operation}. The next call starts a new one; if it was a "
        "write_doc, read_doc first to see whether it landed."
    )


def exited_at_start(returncode: int | None) -> str:
    return (
        f"The kernel this server started exited before answering (exit status {returncode}; its "
        "error is on the server's stderr). Check that ipykernel starts: python -m ipykernel --version."
    )


def restarted(operation: str) -> str:
    return (
        f"The kernel was restarted during {operation}. If that was a write_doc, read_doc to see whether it "
        "landed before writing again; other calls work again now."
    )


def refused(reply: dict[str, Any]) -> str:
    return (
        f"The kernel refused the docs request ({reply.get('ename')}: {reply.get('evalue')}). "
        "Restart the notebook's kernel and reconnect; if it persists, report it."
    )


def expression_failure(value: dict[str, Any]) -> KernelUnavailable:
    """The error for a failed user expression (the kernel side could not even be imported)."""
    name, detail = value.get("ename"), str(value.get("evalue"))
    if name == "ModuleNotFoundError" and "biopb_kernel_docs." in detail:
        return BridgeMismatch(
            "The kernel's biopb-kernel-docs is older than this MCP server's and has no bridge for it. "
            "Run %pip install -U biopb-kernel-docs in the notebook, restart the kernel, and reconnect."
        )
    if name == "ModuleNotFoundError":
        return KernelUnavailable(
            "biopb-kernel-docs is not installed in the kernel's environment. Run "
            "%pip install biopb-kernel-docs in the notebook, restart the kernel, and reconnect."
        )
    return KernelUnavailable(
        f"The docs call failed inside the kernel ({name}: {detail}). This is a bug in "
        "biopb-kernel-docs; please report it."
    )


def no_subshell(operation: str, detail: str) -> str:
    return (
        f"The kernel did not create a subshell for the docs ({detail}) during {operation}. The docs "
        "fall back to requests on the main shell, which wait while a cell runs. Retry; if it persists, "
        "restart the kernel."
    )


def start_failed(connection_file: str | None, err: Exception) -> str:
    if connection_file:
        return (
            f"Could not attach to the kernel at {connection_file} ({type(err).__name__}: {err}). Run "
            "%docs_connect in the notebook for the current connection file and command, and reconnect."
        )
    return (
        f"Could not start the bridge's kernel ({type(err).__name__}: {err}). The next call tries again; "
        "check that ipykernel is installed in this environment."
    )


def unexpected_value(value: dict[str, Any]) -> str:
    return (
        "The kernel answered a docs call with something that is not a bridge answer "
        f"({str(value.get('data'))[:80]!r}): its biopb-kernel-docs is probably another version. Run "
        "%pip install -U biopb-kernel-docs in the notebook, restart the kernel, and reconnect."
    )
