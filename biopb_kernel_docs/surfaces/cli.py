"""``biopb-kernel-docs``: the command line, built from the operation list, plus the MCP server verb.

Every store verb takes ``--docs-local-dir``, ``--shipped-dir``, ``--shipped-version`` and the
traitlets form ``--DocStore.<trait>=VALUE``; what they leave unset comes from the shared config
file (``settings``). A refusal prints the store's message on stderr, in the shell's words, and
exits 1; a usage mistake exits 2.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from .._version import __version__
from ..core.errors import DocsError, InvalidArguments, InvalidDocId
from ..core.phrases import Surface
from ..core.values import Author, DocView, IndexView, OutlineView, SectionView, SkillExport, to_json
from ..text import render
from . import operations
from .arguments import NUMBER_DIGITS, NUMBER_LIMIT
from .operations import Operation
from .settings import TRAITS, resolve

PROGRAM = "biopb-kernel-docs"
CLI_AUTHOR = Author("cli")
STORE_OPTIONS = {  # name: (metavar, help)
    "docs_local_dir": ("DIR", "the local tier, your docs and index.md (default: ~/.config/biopb/docs)"),
    "shipped_dir": ("DIR", "the shipped tier, read-only (default: the seed inside the package)"),
    "shipped_version": ("VERSION", "the version the shipped tier is taken as (default: the package's)"),
}
_TRAITLETS_FORM = re.compile(r"--DocStore\.([A-Za-z_]+)=(.*)", re.S)
EXAMPLES = {
    "read": [
        "biopb-kernel-docs read flatfield",
        "biopb-kernel-docs read flatfield@diff",
        "biopb-kernel-docs read flatfield@history             # its versions",
        "biopb-kernel-docs read flatfield@v12                 # one version",
        "biopb-kernel-docs read 'flatfield#'                  # its outline",
        "biopb-kernel-docs read 'flatfield#Steps'             # one section",
        "biopb-kernel-docs read my-lab/                       # a collection",
        "biopb-kernel-docs read index --sha",
    ],
    "search": [
        "biopb-kernel-docs search ImportError",
        "biopb-kernel-docs search 'pixel size'",
        "biopb-kernel-docs search --regex 'np\\.(load|save)\\w*'",
    ],
    "restore": [
        "biopb-kernel-docs restore flatfield 12",
        "biopb-kernel-docs restore index v3 --if-match SHA",
    ],
    "diff": ["biopb-kernel-docs diff flatfield 10", "biopb-kernel-docs diff flatfield 10 --newer 12"],
    "retire": ["biopb-kernel-docs retire my-lab/old-protocol"],
    "drop": ["biopb-kernel-docs drop flatfield"],
    "write": [
        "biopb-kernel-docs write my-lab/nuclei --body-file protocol.md",
        "biopb-kernel-docs write flatfield --old-file old.txt --new-file new.txt",
        "biopb-kernel-docs write index --old='- flatfield: old hook' --new='- flatfield: new hook'",
        "cat protocol.md | biopb-kernel-docs write my-lab/nuclei --body-file - --if-match SHA",
    ],
    "index": ["biopb-kernel-docs index", "biopb-kernel-docs index --json"],
    "file": ["biopb-kernel-docs file segment-nuclei '## Procedures'"],
    "ignore": ["biopb-kernel-docs ignore deconvolution"],
    "config": ["biopb-kernel-docs config", "biopb-kernel-docs config --docs-local-dir ~/lab-docs"],
    "doctor": ["biopb-kernel-docs doctor", "biopb-kernel-docs doctor --no-kernel"],
    "skills export": [
        "biopb-kernel-docs skills export .claude/skills            # the procedures, for Claude Code",
        "biopb-kernel-docs skills export .agents/skills --all      # every listed doc",
        "biopb-kernel-docs skills export .claude/skills --check    # what would change; exits 1 if any",
    ],
    "skills import": [
        "biopb-kernel-docs skills import ~/lab/skills                 # as skills/<name>",
        "biopb-kernel-docs skills import ~/lab/skills --prefix lab/ --heading '## Lab skills'",
        "biopb-kernel-docs skills import ~/lab/skills --replace       # replace docs imported before",
    ],
    "mcp": [
        "biopb-kernel-docs mcp",
        "biopb-kernel-docs mcp --existing /path/to/kernel-1234.json",
        "claude mcp add biopb-docs -- biopb-kernel-docs mcp",
    ],
}


class UsageError(Exception):
    """A command-line mistake: exits 2 with the usage line."""


def _examples(verb: str) -> str:
    lines = EXAMPLES.get(verb, [])
    return "examples:\n" + "\n".join(f"  {line}" for line in lines) if lines else ""


def _add_store_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "where the docs are",
        "Unset ones come from the shared config file (biopb-kernel-docs config shows it), then the "
        "built-in defaults. The traitlets form --DocStore.docs_local_dir=DIR works too.",
    )
    for name, (metavar, meaning) in STORE_OPTIONS.items():
        option = f"--{name.replace('_', '-')}"
        group.add_argument(option, dest=name, metavar=metavar, default=None, help=meaning)


# A verb whose operations are sub-verbs ("skills export", "skills import"): what it groups.
VERB_GROUPS = {
    "skills": "Agent Skills in and out: export the listed procedures as DIR/<name>/SKILL.md, or import "
    "a folder of skills as local docs.",
}


def _add_operation(subparsers, op: Operation, verb: str) -> None:
    parser = subparsers.add_parser(
        verb,
        help=op.summary,
        description=op.summary,
        epilog=_examples(op.cli_verb or ""),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for p in op.parameters:
        if p.kind == "text":
            text = parser.add_mutually_exclusive_group()
            text.add_argument(
                f"--{p.name}-file", dest=f"{p.name}_file", metavar="FILE", help=f"{p.help} ('-': stdin)"
            )
            text.add_argument(f"--{p.name}", dest=p.name, metavar="TEXT", help="the same, given inline")
        elif p.kind == "sha":
            parser.add_argument("--if-match", dest=p.name, metavar="SHA", help=p.help)
        elif p.kind == "flag":
            parser.add_argument(f"--{p.name}", dest=p.name, action="store_const", const=True, help=p.help)
        elif p.required:
            parser.add_argument(p.name, metavar=p.name.upper(), help=p.help)
        else:
            parser.add_argument(f"--{p.name.replace('_', '-')}", dest=p.name, help=p.help)
    parser.add_argument("--json", action="store_true", help="print the value as JSON instead of text")
    if op.name == "read_doc":
        parser.add_argument(
            "--sha", action="store_true", help="print only the sha256 of the doc (for --if-match)"
        )
    _add_store_options(parser)
    parser.set_defaults(operation=op, parser=parser)


def _add_mcp(subparsers) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="Serve read_doc and write_doc as MCP tools over stdio, executed in a kernel.",
        description="Serve read_doc and write_doc as MCP tools over stdio, executed in a kernel: one the "
        "server starts (the default), or the user's running kernel with --existing CONNECTION_FILE.",
        epilog=_examples("mcp"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--existing", metavar="CONNECTION_FILE", help="attach to this running kernel (see %%docs_connect)"
    )
    parser.add_argument("--kernel-name", default="python3", help="kernelspec of the kernel the server starts")
    parser.add_argument(
        "--instructions-budget", type=_count, metavar="CHARS", help="cap on the handshake instructions"
    )
    parser.add_argument(
        "--host-budget",
        action="append",
        default=[],
        metavar="NAME=CHARS",
        help="instruction budget of a host, by the name it declares (repeatable; claude-code=2048 built in)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long a call may wait for the kernel",
    )
    parser.add_argument(
        "--poll-interval",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="how often to look for outside edits",
    )
    parser.add_argument(
        "--in-process", action="store_true", help="serve the store from this process, without a kernel"
    )
    parser.add_argument(
        "--inline-docs",
        default="",
        metavar="ID,ID",
        help="docs whose text follows the index in the handshake (the bench's inline arm, §8 risk 1)",
    )
    parser.add_argument(
        "--ignored-as-count",
        action="store_true",
        help='read_doc("index") shows the ignored: line as its count, as the handshake does, so no '
        "ignored id is ever shown (the bench's ablated arm, §6)",
    )
    _add_store_options(parser)
    parser.set_defaults(operation=None, serve=True, parser=parser)


def _is_count(text: str) -> bool:
    """Digits 0-9 only ('²' passes str.isdigit, then int() fails on it), and not absurdly many."""
    return 0 < len(text) <= NUMBER_DIGITS and text.isascii() and text.isdigit()


def _count(text: str) -> int:
    if not _is_count(text):
        raise argparse.ArgumentTypeError(
            f"must be a whole number of characters from 0 to {NUMBER_LIMIT:,}, not {text!r}"
        )
    return int(text)


def _add_bench(subparsers) -> None:
    parser = subparsers.add_parser(
        "bench",
        help="The §6 ablation bench: set up an arm's isolated tree, run cases through the MCP server.",
        description="The §6 ablation bench (its own verbs: setup, run, score, relay; each has --help).",
        epilog="examples:\n  biopb-kernel-docs bench setup --bench-docs=false /tmp/ablated\n"
        "  biopb-kernel-docs bench run --cases benchmarks/ablation/cases.json --results /tmp/results\n"
        "  biopb-kernel-docs bench score --cases benchmarks/ablation/cases.json --reads reads.jsonl",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "bench_arguments",
        nargs=argparse.REMAINDER,
        metavar="VERB",
        help="setup, run, score or relay, and its options",
    )
    parser.set_defaults(operation=None, bench=True, parser=parser)


def _add_doctor(subparsers) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="Check the installation (kernel config, server extension, panel, local dir, seed, a kernel).",
        description="Check that every surface of biopb-kernel-docs is installed and working; each "
        "failing check says how to fix it. Exits 1 when one fails.",
        epilog=_examples("doctor"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--no-kernel", action="store_true", help="skip starting a kernel (the slowest check)")
    _add_store_options(parser)
    parser.set_defaults(operation=None, doctor=True, parser=parser)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description="Read and write the biopb docs: the shipped seed and your local docs, with one index.",
        epilog="Each verb has its own --help with examples.",
    )
    parser.add_argument("--version", action="version", version=f"{PROGRAM} {__version__}")
    subparsers = parser.add_subparsers(title="verbs", metavar="VERB")
    groups: dict[str, Any] = {}
    for op in operations.OPERATIONS.values():
        if not op.cli_verb:
            continue
        verb, _, sub = op.cli_verb.partition(" ")
        if not sub:
            _add_operation(subparsers, op, verb)
            continue
        if verb not in groups:
            group = subparsers.add_parser(verb, help=VERB_GROUPS[verb], description=VERB_GROUPS[verb])
            verbs = " or ".join(
                o.cli_verb
                for o in operations.OPERATIONS.values()
                if (o.cli_verb or "").startswith(f"{verb} ")
            )
            group.set_defaults(
                parser=group, hint=f"Give a verb: biopb-kernel-docs {verbs} (each has --help)."
            )
            groups[verb] = group.add_subparsers(title=f"{verb} verbs", metavar="VERB")
        _add_operation(groups[verb], op, sub)
    _add_mcp(subparsers)
    _add_bench(subparsers)
    _add_doctor(subparsers)
    return parser


def _split_traitlets_form(argv: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    rest, overrides = [], {}
    for token in argv:
        match = _TRAITLETS_FORM.fullmatch(token)
        if match:
            overrides[match.group(1)] = match.group(2)
        else:
            rest.append(token)
    return rest, overrides


def _read_input(option: str, source: str) -> str:
    try:
        data = sys.stdin.buffer.read() if source == "-" else open(source, "rb").read()  # noqa: SIM115
    except OSError as err:
        raise UsageError(f"Cannot read --{option}-file {source}: {err.strerror}.") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        where = "stdin" if source == "-" else source
        raise UsageError(
            f"--{option}-file {where} is not valid UTF-8 (byte 0x{data[err.start]:02x} at offset "
            f"{err.start}). Re-save it as UTF-8 and retry."
        ) from None


def _arguments(op: Operation, namespace: argparse.Namespace) -> dict[str, Any]:
    sources = [getattr(namespace, f"{p.name}_file") for p in op.parameters if p.kind == "text"]
    if sources.count("-") > 1:
        raise UsageError("Only one of the --*-file options can be '-' (stdin).")
    arguments = {}
    for p in op.parameters:
        source = getattr(namespace, f"{p.name}_file", None) if p.kind == "text" else None
        value = _read_input(p.name, source) if source is not None else getattr(namespace, p.name)
        if value is not None:
            arguments[p.name] = value
    return arguments


def _overrides(namespace: argparse.Namespace, traitlets_form: dict[str, str]) -> dict[str, str]:
    overrides = dict(traitlets_form)
    for name in STORE_OPTIONS:
        if getattr(namespace, name, None) is not None:
            overrides[name] = getattr(namespace, name)
    return overrides


def _output(op: Operation, value: Any, namespace: argparse.Namespace) -> str:
    if namespace.json:
        return json.dumps(to_json(value), indent=1, ensure_ascii=False)
    if getattr(namespace, "sha", False) and isinstance(
        value, DocView | IndexView | SectionView | OutlineView
    ):
        return value.sha256
    if op.name == "index" and isinstance(value, IndexView):
        return render.index_text(value, Surface.CLI)
    return render.text(value, Surface.CLI)


def _run_operation(
    op: Operation, namespace: argparse.Namespace, traitlets_form: dict[str, str]
) -> tuple[str, int]:
    """The operation's output and the exit code (1 for a --check that found something to change)."""
    from ..core.ops import Docs
    from ..core.store import Store

    resolved = resolve(_overrides(namespace, traitlets_form), "the command line")
    for warning in resolved.warnings:
        print(warning, file=sys.stderr)
    store = Store(resolved.shipped_dir, resolved.local_dir, resolved.shipped_version, resolved.history)
    docs = Docs(store, resolved.view, CLI_AUTHOR)
    value = operations.run(docs, op.name, _arguments(op, namespace))
    would_change = (
        isinstance(value, SkillExport)
        and value.check
        and any(skill.action != "unchanged" for skill in value.skills)
    )
    return _output(op, value, namespace), 1 if would_change else 0


def _traitlets_tokens(traitlets_form: dict[str, str]) -> list[str]:
    return [f"--DocStore.{name}={value}" for name, value in traitlets_form.items()]


def _host_budgets(pairs: list[str]) -> dict[str, int]:
    from ..text.handshake import KNOWN_HOST_BUDGETS

    budgets = dict(KNOWN_HOST_BUDGETS)
    for pair in pairs:
        name, _, chars = pair.partition("=")
        if not name or not _is_count(chars):
            raise UsageError(f"--host-budget takes NAME=CHARS, such as claude-code=2048; got {pair!r}.")
        budgets[name] = int(chars)
    return budgets


def _serve(namespace: argparse.Namespace, traitlets_form: dict[str, str]) -> None:
    overrides = _overrides(namespace, traitlets_form)
    if namespace.existing and overrides:
        raise UsageError(
            "--docs-local-dir, --shipped-dir and --shipped-version configure a kernel this server starts. "
            "With --existing, the kernel's own configuration applies: set it in the shared config file "
            "(biopb-kernel-docs config shows where) or the kernel's ipython_kernel_config.py."
        )
    budgets = _host_budgets(namespace.host_budget)
    from ..bridge.client import KernelDocsClient
    from ..bridge.inprocess import InProcessDocsClient
    from .config import DocStore
    from .mcp_server import DocsBridge

    local = InProcessDocsClient(DocStore(origin="the command line", **overrides))
    kernel = local
    if not namespace.in_process:
        kernel = KernelDocsClient(
            connection_file=namespace.existing,
            kernel_name=namespace.kernel_name,
            kernel_args=tuple(f"--DocStore.{name}={value}" for name, value in sorted(overrides.items())),
            call_timeout=namespace.timeout,
        )
    DocsBridge(
        kernel,
        instructions_budget=namespace.instructions_budget,
        host_budgets=budgets,
        poll_interval=namespace.poll_interval,
        local_fallback=None if namespace.existing or namespace.in_process else local,
        inline_ids=tuple(doc_id.strip() for doc_id in namespace.inline_docs.split(",") if doc_id.strip()),
        ignored_as_count=namespace.ignored_as_count,
    ).run()


def _doctor(namespace: argparse.Namespace, traitlets_form: dict[str, str]) -> NoReturn:
    from .doctor import report, run_checks

    checks = run_checks(
        resolve(_overrides(namespace, traitlets_form), "the command line"),
        start_kernel=not namespace.no_kernel,
    )
    sys.stdout.write(report(checks))
    raise SystemExit(0 if all(check.ok for check in checks) else 1)


def _fail(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    parser.print_usage(sys.stderr)
    print(message, file=sys.stderr)
    raise SystemExit(2)


def main(argv: Sequence[str] | None = None) -> None:
    parser = build_parser()
    rest, traitlets_form = _split_traitlets_form(sys.argv[1:] if argv is None else argv)
    unknown = sorted(set(traitlets_form) - set(TRAITS))
    if unknown:
        known = ", ".join(name for name in TRAITS if name != "skills_local_dir")
        _fail(parser, f"DocStore has no trait {unknown[0]!r}; it has {known}.")
    namespace = parser.parse_args(rest)
    if not hasattr(namespace, "operation"):
        _fail(
            getattr(namespace, "parser", parser),
            getattr(namespace, "hint", "Give a verb, e.g. `biopb-kernel-docs index`; `--help` lists them."),
        )
    try:
        if getattr(namespace, "serve", False):
            _serve(namespace, traitlets_form)
            return
        if getattr(namespace, "bench", False):
            from ..bench.cli import main as bench_main

            bench_main([*namespace.bench_arguments, *_traitlets_tokens(traitlets_form)])
            return
        if getattr(namespace, "doctor", False):
            _doctor(namespace, traitlets_form)
        output, code = _run_operation(namespace.operation, namespace, traitlets_form)
    except UsageError as err:
        _fail(namespace.parser, str(err))
    except (InvalidArguments, InvalidDocId) as err:
        _fail(namespace.parser, err.text_for(Surface.CLI))
    except DocsError as err:
        print(err.text_for(Surface.CLI), file=sys.stderr)
        raise SystemExit(1) from None
    sys.stdout.write(output if output.endswith("\n") else output + "\n")
    if code:
        raise SystemExit(code)
