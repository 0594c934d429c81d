"""Scene for compare-conditions: foci per nucleus in two conditions, four experiments.

Simulates 4 independent experiments (days), each imaging a control and a treated coverslip, 150
nuclei each. A nucleus's foci count is Poisson around its own level: the day's level times a
nucleus-to-nucleus spread (gamma, CV 0.4), times 2 when treated. Days differ a lot (log-normal,
SD 0.35), and both coverslips of a day share the day's level: the design is paired.

Ground truth planted: the treated/control difference in mean foci per nucleus over the population
of days (``_build()[1]``). ``check`` asserts the doc's 95 % confidence interval of the difference,
in foci per nucleus, covers it and that the effect is found (the paired t interval misses 6.5 %
of the time here, not 5 %: the day differences are log-normal and n = 4; each scene's seed is one
where it does not), and recomputes the doc's p and interval from its
per-experiment means. VARIANTS: an effect that is only
pseudoreplication (3 independent days per condition, no true effect: the nuclei give p < 1e-6,
the days do not), unequal nuclei per day (20-400), counts near zero, three conditions, continuous
intensities. REFUSALS: one experiment per condition, two experiments per condition, replicate
labels given per nucleus, a paired design with a day missing one condition.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import stats


@cache
def _build(
    seed: int = 3,
    effects: tuple[float, ...] = (1.0, 2.0),
    days: int = 4,
    paired: bool = True,
    base: float = 3.0,
    day_sd: float = 0.35,
    cells: tuple[int, int] = (150, 150),
    counts: bool = True,
    per_cell_labels: bool = False,
    drop: bool = False,
) -> tuple[dict[str, object], dict[str, float]]:
    """``effects`` multiply the level per condition (the first is the control); unpaired designs draw
    a day level per coverslip; ``counts`` False gives intensities (gamma, no Poisson step)."""
    rng = np.random.default_rng(seed)
    values, conditions, replicates = [], [], []
    day_level = base * np.exp(rng.normal(0, day_sd, days))
    for day in range(days):
        for k, effect in enumerate(effects):
            if drop and day == 0 and k == 1:
                continue
            level = day_level[day] if paired else base * np.exp(rng.normal(0, day_sd))
            n = int(rng.integers(cells[0], cells[1] + 1))
            cell_level = level * effect * rng.gamma(1 / 0.4**2, 0.4**2, n)
            values.extend(rng.poisson(cell_level) if counts else cell_level)
            conditions.extend([f"c{k}"] * n)
            replicates.extend([f"day{day + 1}" if paired else f"day{day + 1}{'abc'[k]}"] * n)
    replicate_labels = np.array(replicates)
    if per_cell_labels:
        replicate_labels = np.array([f"n{i}" for i in range(len(values))])
    inputs = {
        "cell_values": np.array(values),
        "cell_conditions": np.array(conditions),
        "cell_replicates": replicate_labels,
        "control_condition": "c0",
        "paired": paired,
    }
    # the population mean of a day's level is base * exp(day_sd^2 / 2): differences scale with it
    mean_day = base * np.exp(day_sd**2 / 2)
    truth = {f"c{k}": (effect - effects[0]) * mean_day for k, effect in enumerate(effects) if k}
    return inputs, truth


def scene() -> dict[str, object]:
    return _build()[0]


def _check(namespace: dict, significant: bool | None = True, **params) -> None:
    truth = _build(**params)[1]
    results = namespace["stats_results"]
    assert set(results) == set(truth), (
        f"expected comparisons {sorted(truth)} against the control, got {sorted(results)}"
    )
    for condition, want in truth.items():
        row = results[condition]
        low, high = row["ci"]
        # a 95 % interval from the experiments' means: covers the planted difference (foci per nucleus)
        assert low <= want <= high, (
            f"expected the 95 % CI of {condition} - control to cover the planted {want:.2f}, "
            f"got ({low:.2f}, {high:.2f})"
        )
        # the same test done independently on the doc's per-experiment means
        means = namespace["stats_means"]
        a, b = np.array(means[condition]), np.array(means[namespace["control_condition"]])
        p = (
            stats.ttest_rel(a, b).pvalue
            if params.get("paired", True)
            else stats.ttest_ind(a, b, equal_var=False).pvalue
        )
        assert np.isclose(row["p_raw"], p, rtol=1e-6), (
            f"expected the test on experiment means, p = {p:.4g}; got {row['p_raw']:.4g}"
        )
        # the interval is the difference +- t(0.975, df) x SE over the experiments (Welch's df unpaired)
        if params.get("paired", True):
            se, df = np.std(a - b, ddof=1) / np.sqrt(len(a)), len(a) - 1
        else:
            va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
            se, df = np.sqrt(va + vb), (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
        assert np.isclose((high - low) / 2, stats.t.ppf(0.975, df) * se, rtol=1e-6), (
            f"expected a 95 % interval of half-width t(0.975, {df:.1f}) x {se:.3g}, "
            f"got {(high - low) / 2:.3g}"
        )
        if significant is not None:
            assert (row["p"] < 0.05) == significant, (
                f"expected {condition} {'' if significant else 'not '}significant at 0.05, "
                f"got p = {row['p']:.3g}"
            )

    raw = np.array([results[c]["p_raw"] for c in results])
    order = np.argsort(raw)
    holm = np.minimum(1, np.maximum.accumulate(raw[order] * (len(raw) - np.arange(len(raw)))))
    adjusted = np.empty_like(raw)
    adjusted[order] = holm
    assert np.allclose([results[c]["p"] for c in results], adjusted), (
        f"expected Holm-adjusted p {np.round(adjusted, 4)}, "
        f"got {[round(results[c]['p'], 4) for c in results]}"
    )


def check(namespace: dict) -> None:
    _check(namespace)


def _variant(significant=True, **params):
    return (lambda: _build(**params)[0], lambda ns: _check(ns, significant=significant, **params))


def seeded(seed: int):
    """The main scene built with another random seed, and the main check against that seed's truth
    (benchmarks/seed_sweep.py)."""
    return _variant(seed=seed)


def _check_pseudo(namespace: dict) -> None:
    _check(namespace, significant=False, **PSEUDO)
    cells_p = namespace["stats_results"]["c1"]["p_cells"]
    assert cells_p < 1e-6, (
        f"expected the nuclei-as-n p value to look 'significant' (< 1e-6), got {cells_p:.2g}"
    )


PSEUDO = {"seed": 8, "effects": (1.0, 1.0), "days": 3, "paired": False, "day_sd": 0.4, "cells": (200, 200)}

VARIANTS = {
    "only pseudoreplication: 3 independent days, no true effect": (
        lambda: _build(**PSEUDO)[0],
        _check_pseudo,
    ),
    "unequal nuclei per experiment (20-400)": _variant(cells=(20, 400)),
    "counts near zero (0.2 foci per nucleus in controls)": _variant(
        seed=4, base=0.2, effects=(1.0, 4.0), days=5
    ),
    "three conditions, Holm-corrected against the control": _variant(
        significant=None, effects=(1.0, 2.0, 1.0), days=5, seed=6
    ),
    "intensities, independent experiments": _variant(
        counts=False, paired=False, days=5, seed=5, effects=(1.0, 2.5)
    ),
}

REFUSALS = {
    "one experiment per condition": (lambda: _build(days=1)[0], r"replicate"),
    "two experiments per condition": (lambda: _build(days=2)[0], r"replicate"),
    "replicate labels given per nucleus": (lambda: _build(per_cell_labels=True)[0], r"nuclei|cells"),
    "paired design with a day missing a condition": (lambda: _build(drop=True)[0], r"paired"),
}

MUTATIONS = [
    (
        "nuclei as n (pseudoreplication): the test on cells, not on the experiments' means",
        "stats_test(stats_a, stats_b)",
        "stats_test(stats_cells_a, stats_cells_b)",
        "only pseudoreplication: 3 independent days, no true effect",
    ),
    (
        "paired days tested as independent",
        "if paired:",
        "if False:",
    ),
    (
        "normal quantile instead of Student's t for the interval",
        "stats_scipy.t.ppf(0.975, stats_df)",
        "stats_scipy.norm.ppf(0.975)",
    ),
    (
        "Holm correction dropped",
        "stats_sorted * (len(stats_sorted) - np.arange(len(stats_sorted)))",
        "stats_sorted",
        "three conditions, Holm-corrected against the control",
    ),
]
