"""Offline agents: they read what the handshake's words point at, and only what they were shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from biopb_kernel_docs.bench.agents import (
    EmbeddingRanker,
    LexicalRanker,
    OfflineAgent,
    content_terms,
    links_in,
    seen_entries,
)
from biopb_kernel_docs.bench.tree import ablate_index
from biopb_kernel_docs.core.errors import DocsError
from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.core.values import IndexView
from biopb_kernel_docs.text.handshake import compose_instructions
from biopb_kernel_docs.text.render import text

pytestmark = pytest.mark.anyio
SEED = Path(__file__).resolve().parents[1] / "seed"
# Requests written for these tests (not the bench's cases), with the doc each should lead to.
REQUESTS = {
    "my images are darker in the corners than in the middle": "flatfield",
    "outline each nucleus in the hoechst channel and count them": "segment-nuclei",
    "count the foci in every nucleus of my 53BP1 images": "count-foci",
}
OFF_TOPIC = "what time is the group meeting tomorrow"


@pytest.fixture
def anyio_backend():
    return "asyncio"


class StoreReader:
    """read_doc on the real store, in this process (the MCP path is the runner's tests' part)."""

    def __init__(self, docs: Docs) -> None:
        self.docs = docs
        self.calls: list[str] = []

    async def read_doc(self, doc_id: str) -> tuple[str, bool]:
        self.calls.append(doc_id)
        try:
            return text(self.docs.read_doc(doc_id)), False
        except DocsError as err:
            return str(err), True


def arm(tmp_path: Path, ablated: bool) -> tuple[StoreReader, IndexView]:
    local = tmp_path / ("ablated" if ablated else "catalog")
    local.mkdir()
    seed_index = (SEED / "index.md").read_text(encoding="utf-8")
    (local / "index.md").write_text(ablate_index(seed_index) if ablated else seed_index, encoding="utf-8")
    docs = Docs(Store(SEED, local, "1"))
    return StoreReader(docs), docs.index()


@pytest.mark.parametrize("ranker", [LexicalRanker(), EmbeddingRanker()], ids=lambda r: r.name)
async def test_the_catalog_leads_an_offline_agent_to_the_doc_and_an_off_topic_request_to_none(
    tmp_path, ranker
):
    reader, rendered = arm(tmp_path, ablated=False)
    agent = OfflineAgent(ranker)
    for request, doc_id in REQUESTS.items():
        run = await agent.run(reader, compose_instructions(rendered, 2048), request)
        assert run.read[0] == doc_id, request
        assert run.ranked[0] == doc_id
    assert (await agent.run(reader, compose_instructions(rendered), OFF_TOPIC)).read == ()


@pytest.mark.parametrize("ranker", [LexicalRanker(), EmbeddingRanker()], ids=lambda r: r.name)
async def test_without_the_hop_an_agent_reads_only_what_the_handshake_showed(tmp_path, ranker):
    reader, rendered = arm(tmp_path, ablated=True)
    instructions = compose_instructions(rendered)
    for request in REQUESTS:
        run = await OfflineAgent(ranker).run(reader, instructions, request)
        assert set(run.ranked) <= set(seen_entries(instructions))
        assert "index" not in reader.calls
        assert set(run.read) <= set(seen_entries(instructions)) | set(
            links_in(text(reader.docs.read_doc("data")))
        )


async def test_the_hop_reads_the_index_first_and_its_ignored_ids_become_candidates(tmp_path):
    reader, rendered = arm(tmp_path, ablated=True)
    run = await OfflineAgent(LexicalRanker(), hop=True).run(
        reader, compose_instructions(rendered), "count the foci in every nucleus of my 53BP1 images"
    )
    assert run.read[0] == "index"
    assert reader.calls[0] == "index"
    assert "count-foci" in run.ranked  # only on the ignored: line; its words are the id's
    assert OfflineAgent(LexicalRanker(), hop=True).name == "lexical+hop"


async def test_an_agent_follows_a_link_whose_line_matches_the_request(tmp_path):
    local = tmp_path / "local"
    local.mkdir()
    (tmp_path / "shipped").mkdir()
    (local / "index.md").write_text("# D\n\n## Procedures\n- outline: outline the nuclei in my images\n")
    (local / "outline.md").write_text(
        "# Outline\n\nThreshold, then label.\n\nIf nuclei touch and merge, split them with [[split-apart]].\n"
    )
    (local / "split-apart.md").write_text("# Split\n\nWatershed on the distance transform.\n")
    reader = StoreReader(Docs(Store(tmp_path / "shipped", local, "1")))
    instructions = compose_instructions(reader.docs.index())
    merged = await OfflineAgent(LexicalRanker()).run(
        reader, instructions, "outline my nuclei; they touch and merge"
    )
    assert merged.read == ("outline", "split-apart")
    plain = await OfflineAgent(LexicalRanker()).run(reader, instructions, "outline the nuclei in my images")
    assert plain.read == ("outline",)


def test_lexical_terms_drop_words_that_carry_no_topic():
    assert content_terms("How do I fix THE shading in my 2 images, pls?") == ["fix", "shading", "images"]
    ranked = LexicalRanker().rank("uneven shading", [("a", "stitch tiles"), ("b", "correct uneven shading")])
    assert [(s.doc_id, s.confident) for s in ranked] == [("b", True), ("a", False)]
