"""Paired statistics for two arms run on the same cases: an exact McNemar test and a bootstrap
interval of the difference in pass rate. Standard library only."""

from __future__ import annotations

import random
from collections.abc import Sequence
from math import comb


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p: the binomial test of ``b`` against ``b + c`` discordant pairs at
    one half (``b``: first arm passed and second failed; ``c``: the reverse)."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(comb(n, k) for k in range(min(b, c) + 1)) / 2**n
    return min(1.0, 2 * tail)


def discordant(pairs: Sequence[tuple[bool, bool]]) -> tuple[int, int]:
    """``(b, c)`` of ``(first passed, second passed)`` pairs."""
    b = sum(1 for first, second in pairs if first and not second)
    c = sum(1 for first, second in pairs if second and not first)
    return b, c


def bootstrap_difference(
    pairs: Sequence[tuple[bool, bool]], *, resamples: int = 10_000, level: float = 0.95, seed: int = 0
) -> tuple[float, float, float]:
    """The difference in pass rate (first minus second) and its percentile bootstrap interval,
    resampling the paired cases with replacement; seeded, so a report can be reproduced."""
    if not pairs:
        raise ValueError("no pairs to compare")
    differences = [int(first) - int(second) for first, second in pairs]
    observed = sum(differences) / len(differences)
    rng = random.Random(seed)
    n = len(differences)
    means = sorted(sum(rng.choices(differences, k=n)) / n for _ in range(resamples))
    alpha = (1 - level) / 2
    low = means[int(alpha * resamples)]
    high = means[min(resamples - 1, int((1 - alpha) * resamples))]
    return observed, low, high
