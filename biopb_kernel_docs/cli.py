"""``biopb-kernel-docs``: the command line, a thin adapter over ``Docs``.

Every subcommand takes ``--docs-local-dir``, ``--shipped-dir``, ``--shipped-version`` and the
traitlets form ``--DocStore.<trait>=VALUE``. A refusal prints the store's message on stderr and
exits 1; a usage mistake exits 2.
"""

from __future__ import annotations

import sys
from pathlib import Path

from traitlets import Bool, Dict, Float, Integer, Unicode
from traitlets.config import Application

from ._version import __version__
from .config import DocStore
from .errors import DocsError
from .handshake import KNOWN_HOST_BUDGETS
from .ops import Docs

STORE_ALIASES = {
    "docs-local-dir": "DocStore.docs_local_dir",
    "shipped-dir": "DocStore.shipped_dir",
    "shipped-version": "DocStore.shipped_version",
}


class DocsCommand(Application):
    """A subcommand that runs one store operation and prints its result."""

    version = __version__
    classes = [DocStore]
    aliases = STORE_ALIASES
    flags = {}
    usage = ""

    def docs(self) -> Docs:
        return DocStore(parent=self).docs()

    def run(self) -> str:
        raise NotImplementedError

    def usage_error(self, message: str) -> None:
        print(f"{message}\nUsage: {self.usage}", file=sys.stderr)
        self.exit(2)

    def start(self) -> None:
        try:
            output = self.run()
        except DocsError as err:
            print(err, file=sys.stderr)
            self.exit(1)
        sys.stdout.write(output if output.endswith("\n") else output + "\n")


class IndexCommand(DocsCommand):
    name = "biopb-kernel-docs index"
    description = "Print the rendered index: index.md with its markers and closing tails."
    usage = "biopb-kernel-docs index [--docs-local-dir DIR]"

    def run(self) -> str:
        if self.extra_args:
            self.usage_error(f"index takes no arguments, got {' '.join(self.extra_args)!r}.")
        return self.docs().render_index()


class ReadCommand(DocsCommand):
    name = "biopb-kernel-docs read"
    description = "Print one doc under its header line; ID@diff diffs a local copy against its shipped text."
    usage = "biopb-kernel-docs read ID [--docs-local-dir DIR]"

    def run(self) -> str:
        if len(self.extra_args) != 1:
            self.usage_error("read takes exactly one doc id.")
        return self.docs().read_doc(self.extra_args[0])


class WriteCommand(DocsCommand):
    name = "biopb-kernel-docs write"
    description = (
        "Create or replace a local doc from a file (--body-file), or replace one exact piece of it "
        "(--old-file with --new-file). '-' reads that one from stdin. Prints the diff."
    )
    usage = "biopb-kernel-docs write ID (--body-file F | --old-file F --new-file F) [--docs-local-dir DIR]"

    body_file = Unicode(None, allow_none=True, help="File holding the whole new body ('-': stdin).").tag(
        config=True
    )
    old_file = Unicode(None, allow_none=True, help="File holding the exact text to replace.").tag(config=True)
    new_file = Unicode(None, allow_none=True, help="File holding its replacement.").tag(config=True)
    aliases = {
        **STORE_ALIASES,
        "body-file": "WriteCommand.body_file",
        "old-file": "WriteCommand.old_file",
        "new-file": "WriteCommand.new_file",
    }

    def _read_input(self, name: str) -> str | None:
        source = getattr(self, name)
        if source is None:
            return None
        try:
            if source == "-":
                return sys.stdin.read()
            return Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            self.usage_error(f"Cannot read --{name.replace('_', '-')} {source}: {err}")
        return None

    def run(self) -> str:
        if len(self.extra_args) != 1:
            self.usage_error("write takes exactly one doc id.")
        sources = [self.body_file, self.old_file, self.new_file]
        if sources.count("-") > 1:
            self.usage_error("Only one of --body-file, --old-file and --new-file can be '-' (stdin).")
        body, old, new = (self._read_input(name) for name in ("body_file", "old_file", "new_file"))
        return self.docs().write_doc(self.extra_args[0], body=body, old=old, new=new)


class McpCommand(Application):
    """``biopb-kernel-docs mcp``: the stdio MCP server, its tools executed in a kernel."""

    name = "biopb-kernel-docs mcp"
    version = __version__
    description = (
        "Serve read_doc and write_doc as MCP tools over stdio, executed in a kernel: one the server "
        "starts (the default), or the user's running kernel with --existing CONNECTION_FILE."
    )
    usage = "biopb-kernel-docs mcp [--existing CONNECTION_FILE] [--docs-local-dir DIR]"
    classes = [DocStore]

    existing = Unicode(
        None, allow_none=True, help="Connection file of a running kernel to attach to (see %docs_connect)."
    ).tag(config=True)
    kernel_name = Unicode("python3", help="Kernelspec of the kernel the server starts itself.").tag(
        config=True
    )
    instructions_budget = Integer(
        None,
        allow_none=True,
        help="Cap on the handshake instructions, in characters. Default: by the client's declared name "
        "(host_budgets), else no cap.",
    ).tag(config=True)
    host_budgets = Dict(
        dict(KNOWN_HOST_BUDGETS),
        help="Instruction budgets of hosts whose cap is known, by the name they declare at connect.",
    ).tag(config=True)
    call_timeout = Float(30.0, help="Seconds a doc call may wait for the kernel before failing.").tag(
        config=True
    )
    poll_interval = Float(1.0, help="Seconds between checks for index changes made outside.").tag(config=True)
    inline_docs = Unicode(
        "",
        help="Comma-separated ids of docs whose text follows the index in the handshake (the bench's "
        "inline arm: §8 risk 1's fallback).",
    ).tag(config=True)
    in_process = Bool(
        False,
        help="Serve the store from this process instead of a kernel (no shared kernel; for comparison "
        "benchmarks and hosts that want the docs alone).",
    ).tag(config=True)
    aliases = {
        **STORE_ALIASES,
        "existing": "McpCommand.existing",
        "kernel-name": "McpCommand.kernel_name",
        "instructions-budget": "McpCommand.instructions_budget",
        "timeout": "McpCommand.call_timeout",
        "inline-docs": "McpCommand.inline_docs",
    }
    flags = {"in-process": ({"McpCommand": {"in_process": True}}, in_process.help)}

    def kernel_arguments(self) -> tuple[str, ...]:
        """The DocStore settings given to this command, passed on to the kernel it starts."""
        return tuple(f"--DocStore.{name}={value}" for name, value in sorted(self.config.DocStore.items()))

    def start(self) -> None:
        if self.extra_args:
            print(
                f"mcp takes no arguments, got {' '.join(self.extra_args)!r}.\nUsage: {self.usage}",
                file=sys.stderr,
            )
            self.exit(2)
        if self.existing and self.kernel_arguments():
            print(
                "--docs-local-dir, --shipped-dir and --shipped-version configure a kernel this server "
                "starts. With --existing, the kernel's own configuration applies: set "
                "c.DocStore.docs_local_dir in its ipython_kernel_config.py.",
                file=sys.stderr,
            )
            self.exit(2)
        from .kernel_client import InProcessDocsClient, KernelDocsClient
        from .mcp_server import DocsBridge

        if self.in_process:
            kernel = InProcessDocsClient(DocStore(parent=self))
        else:
            kernel = KernelDocsClient(
                connection_file=self.existing,
                kernel_name=self.kernel_name,
                kernel_args=self.kernel_arguments(),
                call_timeout=self.call_timeout,
            )
        DocsBridge(
            kernel,
            instructions_budget=self.instructions_budget,
            host_budgets=dict(self.host_budgets),
            poll_interval=self.poll_interval,
            inline_ids=tuple(doc_id.strip() for doc_id in self.inline_docs.split(",") if doc_id.strip()),
        ).run()


class DocsApp(Application):
    name = "biopb-kernel-docs"
    version = __version__
    description = "Read and write the biopb docs: the shipped seed and your local docs, with one index."
    classes = [DocStore]
    subcommands = {
        "index": (IndexCommand, IndexCommand.description),
        "read": (ReadCommand, ReadCommand.description),
        "write": (WriteCommand, WriteCommand.description),
        "mcp": (McpCommand, McpCommand.description),
        "bench": (
            "biopb_kernel_docs.bench.cli.BenchApp",
            "The §6 ablation bench: setup an arm's tree, run cases.",
        ),
    }

    def start(self) -> None:
        if self.subapp is None:
            self.print_subcommands()
            print("Give a subcommand, e.g. `biopb-kernel-docs index`.", file=sys.stderr)
            self.exit(2)
        self.subapp.start()


def main(argv: list[str] | None = None) -> None:
    app = DocsApp.instance()
    app.initialize(argv)
    app.start()
