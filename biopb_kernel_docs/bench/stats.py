"""Paired statistics for two arms run on the same cases: an exact McNemar test and a bootstrap
interval of the difference in pass rate. Standard library only; numpy, where it is installed,
draws the bootstrap's resamples faster and identically."""

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
    means = sorted(_resampled_means(differences, resamples, random.Random(seed)))
    alpha = (1 - level) / 2
    low = means[int(alpha * resamples)]
    high = means[min(resamples - 1, int((1 - alpha) * resamples))]
    return observed, low, high


def _resampled_means(differences: list[int], resamples: int, rng: random.Random) -> list[float]:
    """The mean of each resample: ``n`` cases, each ``floor(rng.random() * n)``."""
    try:
        return _numpy_means(differences, resamples, rng)
    except ImportError:
        return _standard_library_means(differences, resamples, rng)


def _standard_library_means(differences: list[int], resamples: int, rng: random.Random) -> list[float]:
    n = len(differences)
    return [sum(rng.choices(differences, k=n)) / n for _ in range(resamples)]


def _numpy_means(differences: list[int], resamples: int, rng: random.Random) -> list[float]:
    """The same means, ~50x faster: numpy's legacy generator is the same Mersenne Twister, and it
    makes a double from two words as ``random.random()`` does, so given ``rng``'s state it draws the
    same numbers (``tests/test_bench_stats.py`` holds the two paths equal)."""
    import numpy as np

    _, internal, _ = rng.getstate()
    generator = np.random.RandomState()
    generator.set_state(("MT19937", np.array(internal[:-1], dtype=np.uint32), internal[-1]))
    n = len(differences)
    picks = np.floor(generator.random_sample((resamples, n)) * n).astype(np.intp)
    sums = np.asarray(differences, dtype=np.int64)[picks].sum(axis=1)
    return [int(total) / n for total in sums]
