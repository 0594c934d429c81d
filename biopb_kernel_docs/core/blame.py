"""Lines between versions: how many a version added and removed, and which version made each line
of a doc (the review's "who changed this, and when").

Walking a doc's versions oldest first, every line carries the number of the version that wrote
it, and every gap between lines the versions that deleted something there. A hunk of the review
(the reviewed text against the current one) is then attributed to the versions behind its added
lines and behind the deletions inside it. Common heads and tails are skipped before lines are
matched, so a typical edit of a long doc costs little per version.
"""

from __future__ import annotations

import difflib

Opcode = tuple[str, int, int, int, int]


def line_delta(before: str | None, after: str | None) -> tuple[int, int]:
    """Lines added and removed from ``before`` to ``after``, counted like a diff's ``+`` and ``-``.

    The common head and tail are found first by comparing characters (in C, by halving), so a
    one-hunk edit of a long doc costs microseconds; only what lies between is matched line by line
    (difflib, unless one side of it is a single line). The net change is always exact; where blank
    or repeated lines make several alignments equally good, the split may differ from difflib's
    over the whole text. Every write of a kept history runs this, so it is kept cheap.
    """
    a, b = before or "", after or ""
    if a == b:
        return 0, 0
    head = _common_head(a, b)
    head = a.rfind("\n", 0, head) + 1  # back to the start of the line where the texts part
    a, b = a[head:], b[head:]
    tail = _common_tail(a, b)
    if not all(tail == len(t) or t[len(t) - tail - 1] == "\n" for t in (a, b)):
        newline = a.find("\n", len(a) - tail)  # on to a line start both texts share
        tail = len(a) - newline - 1 if newline != -1 else 0
    middle_a, middle_b = a[: len(a) - tail].splitlines(), b[: len(b) - tail].splitlines()
    if not middle_a or not middle_b:
        return len(middle_b), len(middle_a)
    if len(middle_a) == 1 or len(middle_b) == 1:  # what difflib would find, without building it
        one, other = (middle_a[0], middle_b) if len(middle_a) == 1 else (middle_b[0], middle_a)
        same = 1 if one in other else 0
        return len(middle_b) - same, len(middle_a) - same
    matcher = difflib.SequenceMatcher(None, middle_a, middle_b, autojunk=False)
    same = sum(m.size for m in matcher.get_matching_blocks())
    return len(middle_b) - same, len(middle_a) - same


def _common_head(a: str, b: str) -> int:
    """The length of the longest head both texts share. Halving compares only the part still in
    doubt, so the characters compared add up to about twice the head, not its length per step."""
    low, high = 0, min(len(a), len(b))
    while low < high:  # a[:low] == b[:low]; they part before high, if at all
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_tail(a: str, b: str) -> int:
    """The length of the longest tail both texts share (halving, as ``_common_head``)."""
    end_a, end_b = len(a), len(b)
    low, high = 0, min(end_a, end_b)
    while low < high:
        middle = (low + high + 1) // 2
        if a[end_a - middle : end_a - low] == b[end_b - middle : end_b - low]:
            low = middle
        else:
            high = middle - 1
    return low


def opcodes(a: list[str], b: list[str]) -> list[Opcode]:
    """difflib's opcodes from ``a`` to ``b``, with the common head and tail matched first."""
    head, limit = 0, min(len(a), len(b))
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    found: list[Opcode] = [("equal", 0, head, 0, head)] if head else []
    middle = difflib.SequenceMatcher(None, a[head : len(a) - tail], b[head : len(b) - tail], autojunk=False)
    for tag, a1, a2, b1, b2 in middle.get_opcodes():
        found.append((tag, a1 + head, a2 + head, b1 + head, b2 + head))
    if tail:
        found.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    return found


class Blame:
    """Per line of the newest text: the version that wrote it; per gap: the versions that
    deleted something there (gap ``i`` is just before line ``i``; the last, after the text)."""

    def __init__(self, text: str, origin: int | None) -> None:
        self.lines = text.splitlines(keepends=True)
        self.origins: list[int | None] = [origin] * len(self.lines)
        self.gaps: list[set[int]] = [set() for _ in range(len(self.lines) + 1)]

    def apply(self, number: int, text: str) -> None:
        """Version ``number`` turned the current text into ``text``."""
        new = text.splitlines(keepends=True)
        origins: list[int | None] = []
        gaps: list[set[int]] = [set()]
        for tag, a1, a2, b1, b2 in opcodes(self.lines, new):
            if tag == "equal":
                for k in range(a1, a2):
                    gaps[-1] |= self.gaps[k]
                    origins.append(self.origins[k])
                    gaps.append(set())
                continue
            for k in range(a1, a2):  # what was deleted here, and the deletions inside it
                gaps[-1] |= self.gaps[k]
            if a2 > a1:
                gaps[-1].add(number)
            for _ in range(b1, b2):
                origins.append(number)
                gaps.append(set())
        gaps[-1] |= self.gaps[len(self.lines)]
        self.lines, self.origins, self.gaps = new, origins, gaps

    def versions_in(self, first: int, last: int) -> tuple[int, ...]:
        """The versions behind lines ``first:last`` of the newest text and the gaps around them."""
        found = {origin for origin in self.origins[first:last] if origin is not None}
        for gap in self.gaps[first : last + 1]:
            found |= gap
        return tuple(sorted(found))
