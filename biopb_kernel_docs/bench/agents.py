"""Offline agents: they see only what a model would and pick what to read by ranking it.

An agent is given the handshake's instructions and the user's request; it reads docs through the
real MCP client and reports the ids it read, in order. The offline agents rank the ``- <id>:
<hook>`` entries they have seen (the id's words and the hook), read the best one they are confident
about, and follow a ``[[link]]`` of what they read when the line around it matches the request.
With ``hop`` they first call ``read_doc("index")`` and rank its entries too, as well as the ids on
its ``ignored:`` line (a model sees those; their words are all there is to go on).

What an offline agent measures is whether the handshake's words lead to the right doc; not
whether a model would choose to read at all, nor what it does with what it read.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Protocol

from ..core.frontmatter import LINK, prose_lines
from ..core.ids import INDEX_ID, is_collection_id
from ..core.index import parse_index

MAX_READS = 3
# Words that carry no topic; a hook and a request sharing only these share nothing.
_STOPWORD_TEXT = """
a about after all also am an and any are as at be been before being but by can could did do does
done each every for from get got had has have how i if in into is it its just like make may me might
more most much must my need no not of on one only or our out over pls please should so some
something than that the their them then there these they this those to under up us very want was
way we were what when where which while who why will with without would you your
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@dataclass(frozen=True)
class AgentRun:
    """What one agent did on one case: the ids it read in order, and, offline, its ranking."""

    read: tuple[str, ...]
    ranked: tuple[str, ...] = ()
    note: str = ""
    chars: int | None = None  # the handshake plus every tool result, counted by the runner


class Reader(Protocol):
    """The MCP session as an agent uses it."""

    async def read_doc(self, doc_id: str) -> tuple[str, bool]:
        """The tool result's text, and whether it is an error."""
        ...


@dataclass(frozen=True)
class Scored:
    doc_id: str
    score: float
    confident: bool


class Ranker(Protocol):
    name: str

    def rank(self, request: str, docs: Sequence[tuple[str, str]]) -> list[Scored]:
        """``docs`` as ``(key, text)`` ordered best first for ``request``."""
        ...


def id_words(doc_id: str) -> str:
    return re.sub(r"[-_/.]+", " ", doc_id)


def seen_entries(text: str) -> dict[str, str]:
    """``id -> hook`` of the index entries in ``text`` (first occurrence wins)."""
    found: dict[str, str] = {}
    for entry in parse_index(text).entries:
        if entry.doc_id != INDEX_ID and not is_collection_id(entry.doc_id):
            found.setdefault(entry.doc_id, entry.hook)
    return found


def links_in(body: str) -> dict[str, str]:
    """``target -> the lines that link it`` (links stripped to their ids), for each ``[[link]]``."""
    context: dict[str, list[str]] = {}
    for _, line in prose_lines(body.split("\n")):
        for target in LINK.findall(line):
            context.setdefault(target, []).append(LINK.sub(r"\1", line).strip())
    return {target: " ".join(lines) for target, lines in context.items()}


class OfflineAgent:
    """An agent that reads by a ranker's verdict; ``hop`` takes the read_doc("index") hop first."""

    deterministic = True  # one trial says it all

    def __init__(self, ranker: Ranker, *, hop: bool = False, max_reads: int = MAX_READS) -> None:
        self.ranker = ranker
        self.hop = hop
        self.max_reads = max_reads

    @property
    def name(self) -> str:
        return f"{self.ranker.name}+hop" if self.hop else self.ranker.name

    async def run(self, reader: Reader, instructions: str, request: str) -> AgentRun:
        seen = seen_entries(instructions)
        read: list[str] = []
        if self.hop:
            text, failed = await reader.read_doc(INDEX_ID)
            read.append(INDEX_ID)
            if not failed:
                seen.update(seen_entries(text))  # the whole index: hooks uncut
                for doc_id in sorted(parse_index(text).ignored):
                    seen.setdefault(doc_id, "")
        docs = [(doc_id, f"{id_words(doc_id)}: {hook}") for doc_id, hook in seen.items()]
        ranking = self.ranker.rank(request, docs)
        first = next((s.doc_id for s in ranking if s.confident), None)
        queue = [first] if first else []
        while queue and len([i for i in read if i != INDEX_ID]) < self.max_reads:
            doc_id = queue.pop(0)
            text, failed = await reader.read_doc(doc_id)
            read.append(doc_id)
            if failed:
                continue
            links = {t: c for t, c in links_in(text).items() if t not in read and t != INDEX_ID}
            if links:
                keyed = [(f"[[{t}]]", f"{id_words(t)}: {c}") for t, c in links.items()]
                best = [s for s in self.ranker.rank(request, docs + keyed) if s.doc_id.startswith("[[")]
                if best and best[0].confident:
                    queue.append(best[0].doc_id[2:-2])
        return AgentRun(tuple(read), tuple(s.doc_id for s in ranking))


def content_terms(text: str) -> list[str]:
    """The request's words that carry a topic, lower-cased, in order, once each."""
    words = re.findall(r"\w+", text.lower())
    return list(dict.fromkeys(w for w in words if w not in STOPWORDS and len(w) > 1 and not w.isdigit()))


class LexicalRanker:
    """BM25 over the entries' words with SQLite's FTS5 (Porter stems); confident when a doc shares
    at least two of the request's content stems (one shared word is a coincidence)."""

    name = "lexical"
    min_shared_terms = 2

    def rank(self, request: str, docs: Sequence[tuple[str, str]]) -> list[Scored]:
        terms = content_terms(request)
        db = sqlite3.connect(":memory:")
        try:
            db.execute(
                "CREATE VIRTUAL TABLE doc USING fts5(key UNINDEXED, body, tokenize='porter unicode61')"
            )
            db.executemany(
                "INSERT INTO doc (rowid, key, body) VALUES (?, ?, ?)",
                [(n, k, t) for n, (k, t) in enumerate(docs)],
            )
            scores: dict[int, float] = {}
            shared: dict[int, int] = {}
            if terms:
                query = " OR ".join(f'"{term}"' for term in terms)
                for rowid, score in db.execute(
                    "SELECT rowid, bm25(doc) FROM doc WHERE doc MATCH ?", (query,)
                ):
                    scores[rowid] = -score
                for term in terms:
                    for (rowid,) in db.execute("SELECT rowid FROM doc WHERE doc MATCH ?", (f'"{term}"',)):
                        shared[rowid] = shared.get(rowid, 0) + 1
        finally:
            db.close()
        order = sorted(range(len(docs)), key=lambda n: (-scores.get(n, 0.0), n))
        return [
            Scored(docs[n][0], scores.get(n, 0.0), shared.get(n, 0) >= self.min_shared_terms) for n in order
        ]


@cache
def _wordllama():
    try:
        import wordllama
    except ImportError as err:
        from .errors import BenchError

        raise BenchError(
            "The embedding agent needs wordllama: pip install 'biopb-kernel-docs[bench]' (or leave "
            "'embedding' out of --agents)."
        ) from err
    # The weights ship in the wheel; disable_download keeps the tokenizer lookup offline too.
    return wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)


class EmbeddingRanker:
    """Cosine similarity of wordllama embeddings (256 dimensions, shipped in its wheel); confident
    from ``threshold`` up (0.3: set from pairs written for this module, not from the cases)."""

    name = "embedding"
    threshold = 0.3

    def rank(self, request: str, docs: Sequence[tuple[str, str]]) -> list[Scored]:
        if not docs:
            return []
        model = _wordllama()
        vectors = model.embed([text for _, text in docs], norm=True)
        query = model.embed([request], norm=True)[0]
        similarity = [float(v) for v in vectors @ query]
        order = sorted(range(len(docs)), key=lambda n: (-similarity[n], n))
        return [Scored(docs[n][0], similarity[n], similarity[n] >= self.threshold) for n in order]


OFFLINE_RANKERS = {"lexical": LexicalRanker, "embedding": EmbeddingRanker}
