"""Small core parts pinned through what a caller sees: refusals' statuses, the panel's index edits
(file_doc, ignore_doc), and how a read is dated and placed in its doc."""

from __future__ import annotations

import pytest

from biopb_kernel_docs.core import errors
from biopb_kernel_docs.core.errors import EditRefused, LimitExceeded, from_kind
from biopb_kernel_docs.core.ids import INDEX_ID
from biopb_kernel_docs.core.phrases import Surface, read

# --- errors: the HTTP status each refusal has on the REST surface --------------------------------


def test_each_refusal_has_its_http_status():
    statuses = {name: getattr(errors, name).status for name in (
        "DocsError", "InvalidDocId", "OutsideTier", "InvalidArguments", "DocNotFound", "SectionNotFound",
        "EditRefused", "StaleWrite", "LimitExceeded", "UnreadableDoc", "StoreUnavailable", "PartialWrite",
        "KernelUnavailable", "KernelDied", "KernelRestarted", "BridgeMismatch", "InternalError",
    )}  # fmt: skip
    assert statuses == {
        "DocsError": 400,
        "InvalidDocId": 400,
        "OutsideTier": 403,
        "InvalidArguments": 400,
        "DocNotFound": 404,
        "SectionNotFound": 404,
        "EditRefused": 409,
        "StaleWrite": 409,
        "LimitExceeded": 413,
        "UnreadableDoc": 422,
        "StoreUnavailable": 503,
        "PartialWrite": 503,
        "KernelUnavailable": 503,
        "KernelDied": 503,
        "KernelRestarted": 503,
        "BridgeMismatch": 503,
        "InternalError": 500,
    }


def test_a_refusal_reads_in_the_words_of_each_surface_and_as_the_agents_by_default():
    refusal = errors.DocNotFound(f"No doc 'x'. {read(INDEX_ID)} lists the docs.")
    assert {surface: refusal.text_for(surface) for surface in Surface} == {
        Surface.AGENT: "No doc 'x'. read_doc(\"index\") lists the docs.",
        Surface.NOTEBOOK: "No doc 'x'. %read_doc index lists the docs.",
        Surface.CLI: "No doc 'x'. biopb-kernel-docs index lists the docs.",
        Surface.PANEL: "No doc 'x'. The Kernel Docs panel's index lists the docs.",
    }
    assert str(refusal) == refusal.text_for(Surface.AGENT)


def test_a_refusal_of_a_kind_this_side_does_not_know_keeps_its_text_as_a_bad_request():
    err = from_kind("RefusedByANewerPeer", "Something new went wrong. Retry later.")
    assert (type(err), err.status, str(err)) == (
        errors.DocsError,
        400,
        "Something new went wrong. Retry later.",
    )
    assert err.args == ("Something new went wrong. Retry later.",)


# --- the panel's index edits -----------------------------------------------------------------


def test_filing_a_doc_already_listed_is_refused_naming_its_heading(tiers):
    docs = tiers.docs()
    with pytest.raises(EditRefused) as listed:
        docs.file_doc("flatfield", "References")
    assert str(listed.value) == (
        "'flatfield' is already listed, under ## Procedures. Nothing was written. To move it, edit its "
        'line with write_doc("index", old=..., new=...).'
    )
    tiers.put_local("index", "- data: listed above every heading\n\n## Procedures\n")
    with pytest.raises(EditRefused, match=r"^'data' is already listed, under no heading\. Nothing"):
        docs.file_doc("data", "Procedures")


def test_filing_edits_the_index_as_it_now_is_even_when_it_changed_since_it_was_read(tiers):
    tiers.seed()
    docs = tiers.docs()
    docs.read_doc("index")
    path = tiers.local / "index.md"
    path.write_text(path.read_text().replace("assemble a grid", "stitch a grid"))  # by hand, elsewhere
    filed = docs.file_doc("segment-nuclei", "Procedures")
    assert (filed.outcome, filed.filed_under, filed.already_listed) == ("updated", "## Procedures", False)
    assert "- stitch-tiles: stitch a grid of tiles\n- segment-nuclei: find the nuclei\n" in path.read_text()


def test_filing_or_ignoring_with_a_stale_if_match_writes_nothing(tiers):
    tiers.seed()
    docs = tiers.docs()
    before = tiers.local_text("index")
    for edit in (lambda: docs.file_doc("segment-nuclei", "Procedures", if_match="0" * 64),
                 lambda: docs.ignore_doc("segment-nuclei", if_match="0" * 64)):  # fmt: skip
        with pytest.raises(errors.StaleWrite, match=r"'index' has changed since .*read_doc\(\"index\"\)"):
            edit()
    assert tiers.local_text("index") == before


def test_ignoring_a_shipped_doc_says_what_it_wrote_and_a_second_time_writes_nothing(tiers):
    docs = tiers.docs()
    ignored = docs.ignore_doc("segment-nuclei")
    assert (ignored.id, ignored.outcome, ignored.filed_under, ignored.already_listed) == (
        "index",
        "updated",
        None,
        False,
    )
    assert (ignored.lost_entries, len(ignored.changes)) == ((), 1)
    assert tiers.local_text("index").endswith("\nignored: old-method, segment-nuclei\n")
    again = docs.ignore_doc("segment-nuclei")
    assert (again.id, again.outcome, again.filed_under, again.already_listed, again.changes) == (
        "index",
        "unchanged",
        None,
        False,
        (),
    )


def test_filing_is_refused_past_the_index_caps(tiers):
    prose = [f"Prose line {n}." for n in range(295)]
    tiers.put_local(
        "index", "\n".join(["# Test docs", "", "## Procedures", "- flatfield: x", "", *prose]) + "\n"
    )
    docs = tiers.docs()
    with pytest.raises(LimitExceeded, match=r"^'index' would be 301 lines; the cap is 300, .* Shorten it"):
        docs.file_doc("segment-nuclei", "Procedures")
    tiers.put_local(
        "index", "# Test docs\n\n## Many\n" + "".join(f"- doc{n}: hook {n}\n" for n in range(200))
    )
    with pytest.raises(LimitExceeded, match=r"with 201 entries; the cap is 200, .*Retire entries first"):
        docs.file_doc("segment-nuclei", "Procedures")
    tiers.ship("long", "---\ndescription: " + "word " * 220 + "\n---\n# Long\n")
    tiers.put_local("index", "# Test docs\n\n## Procedures\n- flatfield: x\n")
    with pytest.raises(LimitExceeded, match=r"a line of 1,107 bytes in the index; the cap is 1 KiB"):
        docs.file_doc("long", "Procedures")
    assert tiers.local_text("index") == "# Test docs\n\n## Procedures\n- flatfield: x\n"


# --- reads: a section's place in its doc, the date a read shows ------------------------------


def test_a_section_read_says_which_of_the_doc_s_sections_it_is(tiers):
    tiers.put_local("lab", "# Lab\n\nIntro.\n\n## Setup\n\nOne.\n\n## Run\n\nTwo.\n")
    docs = tiers.docs()
    assert [(v.position, v.of) for v in (docs.read_doc(f"lab#{s}") for s in ("Lab", "Setup", "Run"))] == [
        (1, 3),
        (2, 3),
        (3, 3),
    ]


def test_a_read_is_dated_by_its_updated_field_else_by_the_file_s_date(tiers):
    import datetime
    import os

    tiers.put_local("lab", "# Lab\n\nIntro.\n\n## Run\n\nTwo.\n")
    noon = datetime.datetime(2025, 3, 4, 12, 0).timestamp()  # local time, as the date is shown
    os.utime(tiers.local / "lab.md", (noon, noon))
    docs = tiers.docs()
    for doc_id, date in (("flatfield", "2026-01-02"), ("lab", "2025-03-04")):
        whole, outline = docs.read_doc(doc_id), docs.read_doc(f"{doc_id}#")
        section = docs.read_doc(f"{doc_id}#{outline.entries[0].title}")
        assert (whole.updated, outline.updated, section.updated) == (date, date, date)


def test_a_view_built_without_facts_at_hand_is_the_view_a_read_serves(tiers):
    from biopb_kernel_docs.core.reads import doc_view, section_view
    from biopb_kernel_docs.core.store import Tier

    docs = tiers.docs()
    doc = tiers.store().read(Tier.SHIPPED, "flatfield")
    assert doc_view(doc, False) == docs.read_doc("flatfield")
    assert section_view(doc, False, "Flatfield") == docs.read_doc("flatfield#Flatfield")
