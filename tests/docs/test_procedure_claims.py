"""Claims of the procedures that one scene per doc cannot show: the other branch, the failing case.

Each test runs a doc on a variant of its scene (built by the same scene module) and asserts what
the doc says happens there: a path the main scene does not take, or a gate that must fire with a
message that names the cause.
"""

from __future__ import annotations

import numpy as np
import pytest

from .running import run_doc
from .scenes import colocalization, count_foci, deconvolution, flatfield


def test_colocalization_reports_manders_not_interpretable_for_independent_puncta():
    # independent puncta over a diffuse pool: r does not beat its control, so M is noise-floor M
    namespace = run_doc("colocalization", colocalization._build(shared=0.0)[0])
    assert not namespace["coloc_manders_interpretable"], "expected M flagged not interpretable"
    assert np.all(np.isnan(namespace["coloc_m1"])), f"expected M1 NaN, got {namespace['coloc_m1']}"
    assert np.all(np.isnan(namespace["coloc_m2"])), f"expected M2 NaN, got {namespace['coloc_m2']}"
    assert abs(np.median(namespace["coloc_pearson"])) < 0.1, (
        f"expected r near 0 for independent channels, got {np.median(namespace['coloc_pearson']):.2f}"
    )


def test_flatfield_without_a_blank_estimates_the_gain_from_the_fields():
    namespace = run_doc("flatfield", flatfield._build(blank=False)[0])
    error = np.abs(namespace["flat_gain"] / flatfield._build()[1] - 1)
    # the median-plus-polynomial flat: ~2 % but for the extreme corners (the doc's own claim)
    assert np.percentile(error, 99) < 0.02, (
        f"expected 2 % on 99 % of pixels, got {np.percentile(error, 99):.2%}"
    )
    assert error.max() < 0.05, f"expected 5 % at worst, got {error.max():.2%}"


def test_flatfield_without_a_blank_refuses_crowded_fields_and_names_the_cause():
    with pytest.raises(AssertionError, match="objects cover much of the fields"):
        run_doc("flatfield", flatfield._build(blank=False, cells=80)[0])


def test_count_foci_raises_no_near_limit_warning_when_foci_are_bright():
    inputs, _, spots = count_foci._build(dim=False)
    namespace = run_doc("count-foci", inputs)
    assert not namespace["foci_near_limit"], (
        "expected no near-limit warning: every focus is over twice the limit"
    )
    assert len(spots["limit"]) == 0, "the variant should plant no focus at the limit"


def test_deconvolution_of_a_widefield_stack_puts_the_haze_back_in_focus():
    namespace = run_doc("deconvolution", deconvolution._build_stack()[0])
    deconvolution.check_stack(namespace)
