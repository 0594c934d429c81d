"""The bench switch (§6): one isolated tree per arm, and what its MCP server shows the agent."""

from __future__ import annotations

import itertools
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import StdioServerParameters

from biopb_kernel_docs.bench.errors import BenchError
from biopb_kernel_docs.bench.tree import (
    PROCEDURES_HEADING,
    ablate_index,
    non_procedure_ids,
    procedure_ids,
    setup_tree,
)
from biopb_kernel_docs.core.index import parse_index
from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.text.handshake import INLINED_TITLE, compose_instructions
from biopb_kernel_docs.text.render import NEW_TAIL_TITLE

from .bench_support import session_on

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "seed"
SEED_INDEX = (SEED / "index.md").read_text(encoding="utf-8")
PROCEDURES = procedure_ids(SEED_INDEX)
REFERENCES = non_procedure_ids(SEED_INDEX)
SETUP = (sys.executable, "-m", "biopb_kernel_docs", "bench", "setup")
BUDGETS = (None, 4096, 2048, 1500, 1000, 600, 300)


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def shipped(tmp_path) -> Path:
    """The seed, plus one doc nobody filed, so the new-docs tail has something in it."""
    copy = tmp_path / "shipped"
    shutil.copytree(SEED, copy)
    (copy / "lab-notes.md").write_text("# Lab notes\n\nHow the lab names its files.\n", encoding="utf-8")
    return copy


def test_ablating_moves_every_procedure_entry_onto_the_ignored_line():
    ablated = parse_index(ablate_index(SEED_INDEX))
    assert len(PROCEDURES) >= 12
    assert ablated.ignored == set(PROCEDURES)
    assert [e.doc_id for e in ablated.entries] == REFERENCES
    assert PROCEDURES_HEADING in ablated.lines  # the heading stays; only its entries move


def test_ablating_keeps_ids_already_ignored_and_adds_a_line_when_there_is_none():
    index = "# D\n\n## Procedures\n- a: one\n- b: two\n\n## Other\n- c: three\n\nignored: old\n"
    assert ablate_index(index) == "# D\n\n## Procedures\n\n## Other\n- c: three\n\nignored: old, a, b\n"
    bare = "# D\n## Procedures\n- a: one\n"
    assert parse_index(ablate_index(bare)).ignored == {"a"}


def test_setup_refuses_a_directory_with_something_in_it(tmp_path):
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "file").write_text("x")
    with pytest.raises(BenchError, match="is not an empty directory; give a new one"):
        setup_tree(tmp_path / "used", "ablated", SEED)


def _server(command_line: str) -> StdioServerParameters:
    """The printed ``env K=V ... python -m biopb_kernel_docs mcp ...`` line as stdio parameters."""
    words = shlex.split(command_line)
    assert words[0] == "env"
    assignments = list(itertools.takewhile(lambda word: re.match(r"[A-Z_]+=", word), words[1:]))
    env = dict(word.split("=", 1) for word in assignments)
    command, *args = words[1 + len(assignments) :]
    return StdioServerParameters(command=command, args=args, env=env)


async def _handshake_and_index(params: StdioServerParameters, logs: Path, client: str = "bench-test"):
    async with session_on(params, logs, client) as (session, init):
        index = await session.call_tool("read_doc", {"id": "index"})
        return init.instructions, index.content[0].text


def _ids_in(text: str, ids: list[str]) -> set[str]:
    return {doc_id for doc_id in ids if doc_id in text}


async def test_bench_docs_false_shows_no_procedure_id_and_keeps_the_references(tmp_path, shipped):
    done = subprocess.run(
        [*SETUP, "--bench-docs=false", "--shipped-dir", str(shipped), str(tmp_path / "arm")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    config = json.loads((tmp_path / "arm" / "mcp.json").read_text())["mcpServers"]["biopb-docs"]
    assert config["env"]["HOME"] == str(tmp_path / "arm" / "home")
    assert str(tmp_path / "arm" / "docs") in config["args"]
    instructions, index = await _handshake_and_index(_server(done.stdout.strip()), tmp_path)
    claude_code, _ = await _handshake_and_index(_server(done.stdout.strip()), tmp_path, "claude-code")
    assert len(claude_code) <= 2048
    for text in (instructions, claude_code):
        assert not _ids_in(text, PROCEDURES)
        assert all(f"- {doc_id}:" in text for doc_id in REFERENCES)
    rendered = Docs(Store(shipped, tmp_path / "arm" / "docs", "1")).index()
    for budget in BUDGETS:
        assert not _ids_in(compose_instructions(rendered, budget), PROCEDURES), budget
    # The ablated server counts the ignored: line in read_doc("index") too; the file still names
    # every procedure there, which is what keeps them out of the new-docs tail.
    body, tail = index.split(NEW_TAIL_TITLE)
    assert "- lab-notes: How the lab names its files." in tail
    assert not _ids_in(index, PROCEDURES)
    assert f"ignored: {len(PROCEDURES)} shipped docs, not listed here" in body
    on_disk = parse_index((tmp_path / "arm" / "docs" / "index.md").read_text(encoding="utf-8"))
    assert on_disk.ignored == set(PROCEDURES)


async def test_bench_docs_true_shows_every_procedure_at_every_host(tmp_path, shipped):
    tree = setup_tree(tmp_path / "arm", "catalog", shipped)
    assert (tree.local_dir / "index.md").read_text(encoding="utf-8") == SEED_INDEX
    instructions, index = await _handshake_and_index(_server(tree.command_line(budget=2048)), tmp_path)
    assert len(instructions) <= 2048
    assert _ids_in(instructions, PROCEDURES) == set(PROCEDURES)
    assert _ids_in(index, PROCEDURES) == set(PROCEDURES)
    rendered = Docs(Store(shipped, tree.local_dir, "1")).index()
    for budget in (None, 4096, 2048):
        assert {e.doc_id for e in parse_index(compose_instructions(rendered, budget)).entries} >= set(
            PROCEDURES
        )


async def test_the_inline_arm_sends_the_reference_docs_text_after_the_index(tmp_path, shipped):
    done = subprocess.run(
        [*SETUP, "--bench-docs=true", "--inline", "--shipped-dir", str(shipped), str(tmp_path / "arm")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert f"--inline-docs {','.join(REFERENCES)}" in done.stdout
    instructions, _ = await _handshake_and_index(_server(done.stdout.strip()), tmp_path)
    index_part, inlined = instructions.split(INLINED_TITLE)
    assert _ids_in(index_part, PROCEDURES) == set(PROCEDURES)
    for doc_id in REFERENCES:
        assert f'### read_doc("{doc_id}")\n[{doc_id} · shipped · updated' in inlined
    kernel = (SEED / "kernel.md").read_text(encoding="utf-8")
    assert next(line for line in kernel.split("\n") if line.startswith("# ")) in inlined
