"""One isolated config tree per bench run (§6): a local tier, a home, and the server command.

The bench switch is an index. ``--bench-docs=false`` writes the tree's local index as the seed with
every entry under its ``## Procedures`` heading moved onto the ``ignored:`` line, so nothing lists
them and the tail does not resurface them; the reference docs stay listed. That heading is the only
index heading named from outside the index, here and nowhere else. The ablated arm's server shows
the ``ignored:`` line as a count in ``read_doc("index")`` too, as every handshake does, so its agent
never sees a procedure id it could guess.

A tree shares nothing with the user's own setup: the local tier, ``HOME``, the IPython profile and
the Jupyter directories of the kernel the server starts all live under it.
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from ..core.index import IGNORED_PREFIX, parse_index, section_entries
from ..surfaces.settings import default_shipped_dir
from .errors import BenchError

PROCEDURES_HEADING = "## Procedures"
ARMS = ("catalog", "ablated", "inline")
SERVER_NAME = "biopb-docs"
TREE_FILE = "bench.json"
MCP_CONFIG_FILE = "mcp.json"


def procedure_ids(index_text: str) -> list[str]:
    """Ids of the entries under the index's ``## Procedures`` heading, in order."""
    return [entry.doc_id for entry in section_entries(parse_index(index_text), PROCEDURES_HEADING)]


def non_procedure_ids(index_text: str) -> list[str]:
    """Ids of every other entry (the reference docs of the seed), in order."""
    procedures = set(procedure_ids(index_text))
    return [e.doc_id for e in parse_index(index_text).entries if e.doc_id not in procedures]


def ablate_index(index_text: str) -> str:
    """The index with every ``## Procedures`` entry moved onto its (first) ``ignored:`` line."""
    parsed = parse_index(index_text)
    moved = section_entries(parsed, PROCEDURES_HEADING)
    if not moved:
        return index_text
    drop = {entry.line_number for entry in moved}
    lines = list(parsed.lines)
    ids = [entry.doc_id for entry in moved]
    if parsed.ignored_line_numbers:
        at = parsed.ignored_line_numbers[0]
        already = lines[at][len(IGNORED_PREFIX) :].strip().rstrip(",")
        lines[at] = f"{IGNORED_PREFIX} {', '.join([already, *ids] if already else ids)}"
    else:
        while lines and not lines[-1].strip():
            lines.pop()
        lines += ["", f"{IGNORED_PREFIX} {', '.join(ids)}", ""]
    return "\n".join(line for number, line in enumerate(lines) if number not in drop)


def isolated_env(home: Path) -> dict[str, str]:
    """The environment that keeps a server and its kernel inside ``home``."""
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "IPYTHONDIR": str(home / ".ipython"),
        "JUPYTER_CONFIG_DIR": str(home / ".jupyter"),
        "JUPYTER_DATA_DIR": str(home / ".local" / "share" / "jupyter"),
        "JUPYTER_RUNTIME_DIR": str(home / ".local" / "share" / "jupyter" / "runtime"),
    }


@dataclass(frozen=True)
class BenchTree:
    """A written tree: where its parts are, and the command that serves it."""

    root: Path
    arm: str
    shipped_dir: Path
    procedure_ids: tuple[str, ...]
    inline_ids: tuple[str, ...] = ()

    @property
    def local_dir(self) -> Path:
        return self.root / "docs"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def env(self) -> dict[str, str]:
        return isolated_env(self.home)

    def argv(self, budget: int | None = None) -> list[str]:
        """The MCP server command for this tree; ``budget`` caps its instructions."""
        argv = [sys.executable, "-m", "biopb_kernel_docs", "mcp"]
        argv += ["--docs-local-dir", str(self.local_dir), "--shipped-dir", str(self.shipped_dir)]
        if self.inline_ids:
            argv += ["--inline-docs", ",".join(self.inline_ids)]
        if self.arm == "ablated":
            argv.append("--ignored-as-count")
        if budget is not None:
            argv += ["--instructions-budget", str(budget)]
        return argv

    def command_line(self, budget: int | None = None) -> str:
        """The exact shell command that runs the server on this tree."""
        env = [f"{name}={shlex.quote(value)}" for name, value in self.env.items()]
        return " ".join(["env", *env, shlex.join(self.argv(budget))])

    def mcp_config(self, budget: int | None = None, argv: list[str] | None = None) -> dict:
        """The ``mcpServers`` config an agent CLI takes (``argv`` replaces the server command)."""
        command, *args = argv or self.argv(budget)
        return {"mcpServers": {SERVER_NAME: {"command": command, "args": args, "env": self.env}}}


def setup_tree(root: Path, arm: str, shipped_dir: Path | None = None) -> BenchTree:
    """Write one isolated tree for ``arm`` under ``root`` (which must be new or empty)."""
    if arm not in ARMS:
        raise BenchError(f"Unknown arm {arm!r}: the arms are {', '.join(ARMS)}.")
    root = root.resolve()
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise BenchError(f"{root} exists and is not an empty directory; give a new one for the bench tree.")
    shipped = (shipped_dir or default_shipped_dir()).resolve()
    seed_path = shipped / "index.md"
    try:
        seed_index = seed_path.read_text(encoding="utf-8")
    except OSError as err:
        raise BenchError(
            f"Cannot read the seed index {seed_path}: {err.strerror}. Give --shipped-dir the shipped tier."
        ) from err
    tree = BenchTree(
        root,
        arm,
        shipped,
        tuple(procedure_ids(seed_index)),
        tuple(non_procedure_ids(seed_index)) if arm == "inline" else (),
    )
    tree.local_dir.mkdir(parents=True)
    tree.home.mkdir()
    index = ablate_index(seed_index) if arm == "ablated" else seed_index
    (tree.local_dir / "index.md").write_text(index, encoding="utf-8")
    (root / MCP_CONFIG_FILE).write_text(json.dumps(tree.mcp_config(), indent=2) + "\n", encoding="utf-8")
    about = {
        "arm": arm,
        "shipped_dir": str(shipped),
        "procedure_ids": list(tree.procedure_ids),
        "inline_ids": list(tree.inline_ids),
        "command": tree.command_line(),
    }
    (root / TREE_FILE).write_text(json.dumps(about, indent=2) + "\n", encoding="utf-8")
    return tree
