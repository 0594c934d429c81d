"""What changed since the user last looked, hunk by hunk: the panel's review.

The user reviews the index and each local doc against a baseline: the text they last marked
reviewed, else the shipped text it came from (the seed index for ``index``, the shipped doc for
a local copy), else nothing (a new doc). ``hunks`` splits the change into hunks; ``accept``
moves the baseline past one hunk (or all), and ``revert_edit`` is the old/new pair that puts one
hunk back in the current text, quoted with enough context to occur exactly once.

Each item says who made each hunk and when (``blame`` over the doc's history), and what the
panel offers for it: a new doc is retired (its index line removed), not reverted; a local copy
whose text equals the shipped text can be dropped, since it would shadow every later release.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from .blame import Blame
from .errors import InvalidArguments, StaleWrite
from .ids import INDEX_ID, check_doc_id
from .ops import Docs
from .phrases import read
from .store import Tier
from .values import Hunk, ReviewItem, ReviewView, VersionInfo, WriteResult

CONTEXT = 3


@dataclass(frozen=True)
class Change:
    """One hunk as difflib's opcodes group it: lines ``before[a1:a2]`` became ``after[b1:b2]``."""

    a1: int
    a2: int
    b1: int
    b2: int
    lines: tuple[str, ...]  # unified-diff lines: ' ' context, '-' removed, '+' added
    header: str


def _lines(text: str | None) -> list[str]:
    return (text or "").splitlines(keepends=True)


def _changes(before: list[str], after: list[str]) -> list[tuple[int, int, int, int]]:
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    return [(a1, a2, b1, b2) for tag, a1, a2, b1, b2 in matcher.get_opcodes() if tag != "equal"]


def hunks(before: str | None, after: str) -> list[Change]:
    """The changes from ``before`` to ``after``, one hunk per changed run, with context lines."""
    a, b = _lines(before), _lines(after)
    found = []
    for a1, a2, b1, b2 in _changes(a, b):
        start, end = max(0, a1 - CONTEXT), min(len(a), a2 + CONTEXT)
        lines = [" " + line for line in a[start:a1]]
        lines += ["-" + line for line in a[a1:a2]]
        lines += ["+" + line for line in b[b1:b2]]
        lines += [" " + line for line in a[a2:end]]
        header = f"@@ -{a1 + 1},{a2 - a1} +{b1 + 1},{b2 - b1} @@"
        found.append(Change(a1, a2, b1, b2, tuple(line.rstrip("\n") for line in lines), header))
    return found


def accept(before: str | None, after: str, index: int | None = None) -> str:
    """The baseline once hunk ``index`` (all, when None) is accepted."""
    if index is None:
        return after
    a, b = _lines(before), _lines(after)
    a1, a2, b1, b2 = _changes(a, b)[index]
    return "".join(a[:a1] + b[b1:b2] + a[a2:])


def revert_edit(before: str | None, after: str, index: int) -> tuple[str, str]:
    """``(old, new)`` for an old/new write on ``after`` that undoes hunk ``index``.

    Context lines are added around the changed lines until the quoted text occurs once.
    """
    a, b = _lines(before), _lines(after)
    a1, a2, b1, b2 = _changes(a, b)[index]
    text = "".join(b)
    for context in range(max(len(a), len(b)) + 1):
        lead_start, tail_end = max(0, b1 - context), min(len(b), b2 + context)
        lead, tail = "".join(b[lead_start:b1]), "".join(b[b2:tail_end])
        old = lead + "".join(b[b1:b2]) + tail
        first = text.find(old) if old else -1
        if first != -1 and text.find(old, first + 1) == -1:  # once, overlapping matches counted
            return old, lead + "".join(a[a1:a2]) + tail
    return text, "".join(b[:b1] + a[a1:a2] + b[b2:])  # the whole text, as a last resort


class ReviewedDocs(Docs):
    """A ``Docs`` that also remembers what its user last reviewed (the panel's review, ``review``).

    Baselines live in the local tier under ``.review/`` (hidden, never docs): the text the user
    marked reviewed. Without one, a doc is reviewed against the shipped text it came from (the
    seed index for ``index``), or is new. The index and the local docs it lists are reviewed.
    """

    REVIEW_DIR = ".review"

    def review(self) -> ReviewView:
        index = self.index()
        ids = [INDEX_ID] + [
            e.id for e in index.entries if not e.collection and self.store.exists(Tier.LOCAL, e.id)
        ]
        shipped = set(self.store.all_shipped_ids())
        ids += [doc_id for doc_id in self.store.local_ids() if doc_id in shipped]  # copies worth dropping
        items = []
        for doc_id in dict.fromkeys(ids):
            current = self.store.read(Tier.LOCAL, doc_id) if doc_id != INDEX_ID else None
            text, sha = (current.text, current.sha256) if current else (index.text, index.sha256)
            base, baseline = self._baseline(doc_id)
            changes = hunks(baseline, text)
            original = self.store.read(Tier.SHIPPED, doc_id) if doc_id != INDEX_ID else None
            same = current is not None and original is not None and original.text == text
            if not changes and not same:
                continue
            blamed, versions = self._blame(doc_id, baseline, text, changes)
            found = tuple(
                Hunk(n, c.header, c.lines, found)
                for n, (c, found) in enumerate(zip(changes, blamed, strict=True))
            )
            used = {number for hunk in found for number in hunk.versions}
            made_by = tuple(v for v in reversed(versions) if v.number in used)
            actions = ("looks_good", "retire" if base == "new" else "revert") if changes else ()
            offered = actions + (("drop",) if same else ())
            items.append(ReviewItem(doc_id, sha, base, found, made_by, offered, same, baseline, text))
        return ReviewView(tuple(items))

    def _blame(
        self, doc_id: str, baseline: str | None, text: str, changes: list[Change]
    ) -> tuple[list[tuple[int, ...]], list[VersionInfo]]:
        """For each hunk, the versions that made it; and every version looked at."""
        kept = [(h, data) for h, data in self.store.version_texts(doc_id) if data is not None]
        if not changes or not kept or kept[-1][1].decode("utf-8", "replace").replace("\r\n", "\n") != text:
            return [() for _ in changes], []
        texts = [(h, data.decode("utf-8", "replace").replace("\r\n", "\n")) for h, data in kept]
        # Start at the newest version whose text the user reviewed; else at the oldest kept.
        start = max((n for n, (_, t) in enumerate(texts) if t == baseline), default=None)
        first = 0 if start is None else start
        blame = Blame(texts[first][1], texts[first][0].number if start is None else None)
        for header, version_text in texts[first + 1 :]:
            blame.apply(header.number, version_text)
        newest = texts[-1][0].number
        infos = [h.info(h.number == newest) for h, _ in texts]
        return [blame.versions_in(c.b1, c.b2) for c in changes], infos

    def _baseline(self, doc_id: str) -> tuple[str, str | None]:
        saved = self.store.read_state(f"{self.REVIEW_DIR}/{doc_id}.md")
        if saved is not None:
            return "reviewed", saved.decode("utf-8")
        shipped = self.store.read(Tier.SHIPPED, doc_id)
        return ("shipped", shipped.text) if shipped else ("new", None)

    def _current(self, doc_id: str, sha: str) -> str:
        doc_id = check_doc_id(doc_id)
        current = self.store.read(Tier.LOCAL, doc_id)
        if current is None or current.sha256 != sha:
            raise StaleWrite(
                f"{doc_id!r} changed since the review you acted on was shown. Nothing was changed: "
                f"reload the review ({read(INDEX_ID)}) and look again."
            )
        return current.text

    def _hunk_index(self, doc_id: str, baseline: str | None, text: str, hunk: object) -> int:
        """``hunk`` as a position in the review shown: 0 to count - 1 (no counting from the end)."""
        count = len(hunks(baseline, text))
        if isinstance(hunk, int) and not isinstance(hunk, bool) and 0 <= hunk < count:
            return hunk
        short = (isinstance(hunk, int) and abs(hunk) < 10**20) or (isinstance(hunk, str) and len(hunk) <= 20)
        shown = repr(hunk) if short else "that"
        if count == 0:
            raise InvalidArguments(
                f"{doc_id!r} has no hunks left to review, so there is no hunk {shown}. Reload the review "
                f"({read(INDEX_ID)}) to see what changed since."
            )
        raise InvalidArguments(
            f"hunk must be the position of one of the {count} hunks of {doc_id!r} the review shows, "
            f"from 0 to {count - 1}, not {shown}."
        )

    def mark_reviewed(self, doc_id: str, sha: str, hunk: object = None) -> ReviewView:
        """Accept one hunk (or, with no hunk, the whole doc) as reviewed."""
        with self.store.lock():
            text = self._current(doc_id, sha)
            _, baseline = self._baseline(doc_id)
            index = None if hunk is None else self._hunk_index(doc_id, baseline, text, hunk)
            self.store.write_state(f"{self.REVIEW_DIR}/{doc_id}.md", accept(baseline, text, index).encode())
        return self.review()

    def revert_hunk(self, doc_id: str, hunk: object, if_match: str) -> WriteResult:
        """Put one hunk back as it was in the baseline, by an old/new write based on ``if_match``."""
        text = self._current(doc_id, if_match)
        _, baseline = self._baseline(doc_id)
        old, new = revert_edit(baseline, text, self._hunk_index(doc_id, baseline, text, hunk))
        if not old:  # an emptied doc: there is nothing to quote, so its text is written whole
            return self.write_doc(doc_id, body=new, if_match=if_match)
        return self.write_doc(doc_id, old=old, new=new, if_match=if_match)
