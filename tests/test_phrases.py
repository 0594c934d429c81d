"""The next step in each surface's words: a panel phrase that opens a sentence starts with a capital."""

from __future__ import annotations

from biopb_kernel_docs.core.phrases import Surface, read, render


def test_a_panel_phrase_that_opens_a_sentence_starts_with_a_capital():
    template = f"Nothing was written. {read('index')} shows the current text."
    assert render(template, Surface.PANEL) == (
        "Nothing was written. The Kernel Docs panel's index shows the current text."
    )
    assert render(f"{read('flatfield')} shows it.", Surface.PANEL).startswith("Opening flatfield in")


def test_a_panel_phrase_inside_a_sentence_stays_lower_case():
    template = f"Reload the index ({read('index')}) and look again; or see {read('flatfield')}."
    assert render(template, Surface.PANEL) == (
        "Reload the index (the Kernel Docs panel's index) and look again; or see opening flatfield in "
        "the Kernel Docs panel."
    )


def test_calls_are_spelled_as_they_run_whatever_the_sentence():
    template = f"Nothing was written. {read('index')} shows the current text."
    assert render(template, Surface.AGENT) == 'Nothing was written. read_doc("index") shows the current text.'
    assert render(template, Surface.NOTEBOOK).startswith("Nothing was written. %read_doc index shows")
