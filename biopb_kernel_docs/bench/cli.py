"""``biopb-kernel-docs bench``: ``setup`` one isolated tree, ``run`` the cases, ``score`` a log of
reads made anywhere, and the ``relay`` a command agent's MCP config points at."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import anyio
from traitlets import Bool, Integer, List, Unicode
from traitlets.config import Application

from .._version import __version__
from ..core.errors import DocsError
from .errors import BenchError

DEFAULT_BUDGETS = "none,2048"


class BenchCommand(Application):
    version = __version__
    usage = ""

    def usage_error(self, message: str) -> None:
        print(f"{message}\nUsage: {self.usage}", file=sys.stderr)
        self.exit(2)

    def run(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        try:
            self.run()
        except DocsError as err:
            print(err, file=sys.stderr)
            self.exit(1)


class SetupCommand(BenchCommand):
    name = "biopb-kernel-docs bench setup"
    description = (
        "Write one isolated config tree for a bench arm (local docs, home, mcp.json) and print the "
        "command that runs the MCP server on it."
    )
    usage = "biopb-kernel-docs bench setup --bench-docs=true|false [--inline] [--shipped-dir DIR] DIR"
    bench_docs = Bool(
        True, help="true: the seed index as shipped; false: its ## Procedures moved to ignored:."
    ).tag(config=True)
    inline = Bool(False, help="Also inline the reference docs in the handshake (§8 risk 1's fallback).").tag(
        config=True
    )
    shipped_dir = Unicode(None, allow_none=True, help="The shipped tier (default: the package's seed).").tag(
        config=True
    )
    aliases = {"bench-docs": "SetupCommand.bench_docs", "shipped-dir": "SetupCommand.shipped_dir"}
    flags = {"inline": ({"SetupCommand": {"inline": True}}, inline.help)}

    def run(self) -> None:
        from .tree import setup_tree

        if len(self.extra_args) != 1:
            self.usage_error("setup takes exactly one directory.")
        if self.inline and not self.bench_docs:
            self.usage_error(
                "--inline goes with --bench-docs=true: the inline arm is the catalog plus references."
            )
        arm = ("inline" if self.inline else "catalog") if self.bench_docs else "ablated"
        shipped = Path(self.shipped_dir) if self.shipped_dir else None
        tree = setup_tree(Path(self.extra_args[0]), arm, shipped)
        print(f"# {arm} arm in {tree.root}; an agent CLI can take {tree.root / 'mcp.json'}", file=sys.stderr)
        print(tree.command_line())


class RunCommand(BenchCommand):
    name = "biopb-kernel-docs bench run"
    description = "Run every case through the real MCP server in fresh isolated trees; write report.json/.md."
    usage = (
        "biopb-kernel-docs bench run --cases FILE [--agents lexical,embedding,model,command] "
        "[--arms catalog,ablated,inline] [--budgets none,2048] [--hop both|on|off] [--trials 3] "
        "[--jobs 1] [--results DIR] [--shipped-dir DIR] [--keep-trees]"
    )
    cases = Unicode(None, allow_none=True, help="JSON list of {id, request, expect}.").tag(config=True)
    agents = Unicode(
        "lexical,embedding,model,command", help="Agents to run (unconfigured ones are skipped)."
    ).tag(config=True)
    arms = Unicode(
        "",
        help="Arms to run. Default: catalog and ablated for every agent, and inline too for model and "
        "command agents.",
    ).tag(config=True)
    budgets = Unicode(DEFAULT_BUDGETS, help="Instruction budgets: 'none' or a number of characters.").tag(
        config=True
    )
    hop = Unicode("both", help="Offline agents' read_doc('index') hop: on, off or both.").tag(config=True)
    trials = Integer(
        3, help="Trials per case and arm for model and command agents (offline ones are exact)."
    ).tag(config=True)
    jobs = Integer(1, help="Cases run at a time (each starts a server and its kernel).").tag(config=True)
    results = Unicode(None, allow_none=True, help="Directory for report.json and report.md.").tag(config=True)
    shipped_dir = Unicode(None, allow_none=True, help="The shipped tier (default: the package's seed).").tag(
        config=True
    )
    keep_trees = Bool(False, help="Keep each case's tree under the results directory.").tag(config=True)
    aliases = {
        name.replace("_", "-"): f"RunCommand.{name}"
        for name in ("cases", "agents", "arms", "budgets", "hop", "trials", "jobs", "results", "shipped_dir")
    }
    flags = {"keep-trees": ({"RunCommand": {"keep_trees": True}}, keep_trees.help)}

    def run(self) -> None:
        from .plans import build_plans, finish

        if self.extra_args:
            self.usage_error(f"run takes no arguments, got {' '.join(self.extra_args)!r}.")
        if not self.cases:
            self.usage_error("Give the cases with --cases FILE.")
        plans, skipped, cases = build_plans(
            cases_path=Path(self.cases),
            agents=self.agents,
            arms=self.arms,
            budgets=self.budgets,
            hop=self.hop,
            trials=self.trials,
            jobs=self.jobs,
            shipped_dir=Path(self.shipped_dir) if self.shipped_dir else None,
            keep_trees=self.keep_trees,
            env=os.environ,
        )
        for reason in skipped.values():
            print(reason, file=sys.stderr)
        results = Path(self.results) if self.results else None
        with tempfile.TemporaryDirectory(prefix="biopb-bench-") as scratch:
            work = (results / "trees") if results and self.keep_trees else Path(scratch)
            work.mkdir(parents=True, exist_ok=True)
            print(anyio.run(finish, plans, skipped, cases, Path(self.cases), work, results))


class ScoreCommand(BenchCommand):
    name = "biopb-kernel-docs bench score"
    description = (
        "Score a log of reads (JSON lines {case, id}, as the relay writes, or a run made by hand) "
        "against a cases file, in the report bench run writes."
    )
    usage = (
        "biopb-kernel-docs bench score --cases FILE --reads [ARM=]FILE [--reads ...] [--ran FILE] "
        "[--agent NAME] [--budget none|CHARS] [--title TEXT] [--results DIR] [--shipped-dir DIR]"
    )
    cases = Unicode(None, allow_none=True, help="JSON list of {id, request, expect}.").tag(config=True)
    reads = List(
        Unicode(),
        help="A log of reads (JSON lines) or a bench run's report.json; ARM=FILE puts its reads in ARM. "
        "Repeatable.",
    ).tag(config=True)
    ran = Unicode(
        None, allow_none=True, help='JSON {"<arm>": [case ids]}: which cases each arm ran (default: all).'
    ).tag(config=True)
    agent = Unicode("agent", help="The agent's name, for reads whose line names none.").tag(config=True)
    budget = Unicode("none", help="The instruction budget, for reads whose line names none.").tag(config=True)
    title = Unicode("Scored reads", help="The report's title.").tag(config=True)
    results = Unicode(None, allow_none=True, help="Directory for report.json and report.md.").tag(config=True)
    shipped_dir = Unicode(None, allow_none=True, help="The shipped tier (default: the package's seed).").tag(
        config=True
    )
    aliases = {
        name.replace("_", "-"): f"ScoreCommand.{name}"
        for name in ("cases", "reads", "ran", "agent", "budget", "title", "results", "shipped_dir")
    }

    def run(self) -> None:
        from .plans import score_reads

        if self.extra_args:
            self.usage_error(f"score takes no arguments, got {' '.join(self.extra_args)!r}.")
        if not self.cases or not self.reads:
            self.usage_error("Give the cases with --cases FILE and the reads with --reads FILE.")
        print(
            score_reads(
                cases_path=Path(self.cases),
                reads=list(self.reads),
                ran=Path(self.ran) if self.ran else None,
                agent=self.agent,
                budget=self.budget,
                title=self.title,
                shipped_dir=Path(self.shipped_dir) if self.shipped_dir else None,
                results=Path(self.results) if self.results else None,
            )
        )


class RelayCommand(BenchCommand):
    name = "biopb-kernel-docs bench relay"
    description = "Pass stdio to an MCP server command and back, logging the docs read (for command agents)."
    usage = "biopb-kernel-docs bench relay --log FILE [--case ID] [--arm ARM] -- SERVER COMMAND..."
    # Not "log": that is the Application's logger.
    log_file = Unicode(None, allow_none=True, help="JSON-lines file the reads are appended to.").tag(
        config=True
    )
    case = Unicode("", help="The case each logged read belongs to.").tag(config=True)
    arm = Unicode("", help="The arm each logged read belongs to.").tag(config=True)
    aliases = {"log": "RelayCommand.log_file", "case": "RelayCommand.case", "arm": "RelayCommand.arm"}

    def run(self) -> None:
        from .command_agent import relay

        if not self.log_file or not self.extra_args:
            self.usage_error("relay needs --log FILE and the server command after --.")
        self.exit(relay(Path(self.log_file), list(self.extra_args), self.case, self.arm))


class BenchApp(Application):
    name = "biopb-kernel-docs bench"
    version = __version__
    description = "The §6 ablation bench: isolated trees per arm, cases run through the real MCP server."
    subcommands = {
        "setup": (SetupCommand, SetupCommand.description),
        "run": (RunCommand, RunCommand.description),
        "score": (ScoreCommand, ScoreCommand.description),
        "relay": (RelayCommand, RelayCommand.description),
    }

    def start(self) -> None:
        if self.subapp is None:
            self.print_subcommands()
            print(
                "Give a subcommand, e.g. `biopb-kernel-docs bench setup --bench-docs=false DIR`.",
                file=sys.stderr,
            )
            self.exit(2)
        self.subapp.start()


def main(argv: list[str]) -> None:
    """``biopb-kernel-docs bench ...``: the root command line hands the rest of argv here."""
    app = BenchApp.instance()
    app.initialize(argv)
    app.start()


__all__ = ["BenchApp", "BenchError", "main"]
