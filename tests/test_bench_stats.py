"""The bench's paired statistics, pinned against values worked out by hand."""

from __future__ import annotations

import random

import pytest

from biopb_kernel_docs.bench import stats
from biopb_kernel_docs.bench.stats import bootstrap_difference, discordant, mcnemar_exact


def test_mcnemar_exact_matches_the_binomial_tail_worked_by_hand():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 0) == pytest.approx(2 / 32)  # 0.0625: the record's best case, 17/3 vs 12/8
    assert mcnemar_exact(6, 0) == pytest.approx(2 / 64)
    # n = 11, min = 3: 2 * (1 + 11 + 55 + 165) / 2**11
    assert mcnemar_exact(8, 3) == pytest.approx(2 * 232 / 2048)
    assert mcnemar_exact(3, 8) == mcnemar_exact(8, 3)
    assert mcnemar_exact(4, 4) == 1.0  # a two-sided tail is capped at one


def test_the_seed_record_cannot_reach_significance_with_20_cases():
    """17/3 against 12/8 leaves at most 5 discordant pairs, all one way: p = 0.0625 at best."""
    pairs = [(True, True)] * 12 + [(True, False)] * 5 + [(False, False)] * 3
    b, c = discordant(pairs)
    assert (b, c) == (5, 0)
    assert mcnemar_exact(b, c) > 0.05


def test_bootstrap_interval_of_identical_differences_is_a_point():
    assert bootstrap_difference([(True, False)] * 7) == (1.0, 1.0, 1.0)
    assert bootstrap_difference([(True, True), (False, False)]) == (0.0, 0.0, 0.0)


def test_bootstrap_interval_brackets_the_exact_resampling_quantiles():
    """Differences (1, 1, 1, 0): a resampled mean is k/4 with P(0) = 1/256 and P(<= 1/4) = 13/256,
    so the 2.5th percentile is 1/4; P(1) = 81/256, so the 97.5th is 1."""
    pairs = [(True, False)] * 3 + [(True, True)]
    assert bootstrap_difference(pairs, resamples=20_000, seed=1) == (0.75, 0.25, 1.0)


def test_bootstrap_is_reproducible_from_its_seed():
    pairs = [(True, False), (False, True), (True, True), (True, False), (False, False)] * 4
    assert bootstrap_difference(pairs, seed=3) == bootstrap_difference(pairs, seed=3)
    difference, low, high = bootstrap_difference(pairs)
    assert difference == pytest.approx(0.2)
    assert low < difference < high


@pytest.mark.parametrize("seed", [0, 1, 7])
@pytest.mark.parametrize("shape", [(66, 0.6, 0.15), (20, 0.85, 0.6), (5, 0.5, 0.5), (1, 1.0, 0.0)])
def test_numpy_draws_the_very_resamples_of_the_standard_library(seed, shape):
    """A report must not depend on whether numpy is installed: the same means, in the same order."""
    cases, first, second = shape
    rng = random.Random(cases)
    differences = [int(rng.random() < first) - int(rng.random() < second) for _ in range(cases)]
    expected = stats._standard_library_means(differences, 2_000, random.Random(seed))
    assert stats._numpy_means(differences, 2_000, random.Random(seed)) == expected
