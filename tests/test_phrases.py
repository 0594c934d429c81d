"""The next step in each surface's words: a panel phrase that opens a sentence starts with a capital."""

from __future__ import annotations

from biopb_kernel_docs.core.phrases import Surface, argument, read, render, search


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


def test_each_surface_spells_the_next_step_its_own_way():
    calls = [
        read("index"),
        read("flatfield"),
        read("flatfield#"),
        read("flatfield#Step one"),
        search("naïve Zellkern"),
        argument("if_match"),
        argument("body"),
    ]
    spelled = {surface: [render(f"see {call}", surface) for call in calls] for surface in Surface}
    assert spelled[Surface.AGENT] == [
        'see read_doc("index")',
        'see read_doc("flatfield")',
        'see read_doc("flatfield#")',
        'see read_doc("flatfield#Step one")',
        'see search_docs("naïve Zellkern")',  # as typed: an agent copies it back
        "see if_match",
        "see body",
    ]
    assert spelled[Surface.NOTEBOOK] == [
        "see %read_doc index",
        "see %read_doc flatfield",
        "see %read_doc flatfield#",
        "see %read_doc 'flatfield#Step one'",
        "see %search_docs naïve Zellkern",
        "see --if-match",
        "see the cell",
    ]
    assert spelled[Surface.CLI] == [
        "see biopb-kernel-docs index",
        "see biopb-kernel-docs read flatfield",
        "see biopb-kernel-docs read flatfield#",
        "see biopb-kernel-docs read 'flatfield#Step one'",
        "see biopb-kernel-docs search 'naïve Zellkern'",
        "see --if-match",
        "see --body-file",
    ]
    assert spelled[Surface.PANEL] == [
        "see the Kernel Docs panel's index",
        "see opening flatfield in the Kernel Docs panel",
        "see the outline of flatfield in the Kernel Docs panel",
        "see opening flatfield at its section 'Step one' in the Kernel Docs panel",
        "see searching for 'naïve Zellkern' in the Kernel Docs panel",
        "see if_match",
        "see the text",
    ]
