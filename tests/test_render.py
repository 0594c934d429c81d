"""Values as the agent reads them: the index text's counted ignored: lines and its notices."""

from __future__ import annotations

from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.text.handshake import compose_instructions
from biopb_kernel_docs.text.render import index_text, text

TWO_IGNORED_LINES = """\
# Lab docs

## References
- data: how arrays are laid out

ignored: old-method

## Procedures
- flatfield: correct uneven illumination

ignored: segment-nuclei stitch-tiles
"""


def test_two_ignored_lines_are_counted_as_one_and_neither_lines_ids_are_shown(tiers):
    tiers.put_local("index", TWO_IGNORED_LINES)
    view = tiers.docs().index()
    counted = index_text(view, ignored_as_count=True)
    assert counted.count("ignored:") == 1
    assert "ignored: 3 shipped docs, not listed here" in counted
    handshake = compose_instructions(view)
    for shown in (counted, handshake):
        for doc_id in ("old-method", "segment-nuclei", "stitch-tiles"):
            assert doc_id not in shown
    assert "- flatfield: correct uneven illumination" in counted  # the lines between are kept
    assert "ignored: segment-nuclei stitch-tiles" in index_text(view)  # the agent's own view: verbatim


def test_the_agents_index_text_says_when_the_index_is_the_read_only_shipped_one(tiers):
    blocker = tiers.local.parent / "blocker"
    blocker.write_text("a file where the local directory should be")
    view = Docs(Store(tiers.shipped, blocker / "docs", "1")).read_doc("index")
    notice = "(The local index could not be created, so this is the shipped index, read-only:"
    for shown in (text(view), compose_instructions(view)):
        assert notice in shown
        assert "Reading docs works; writing fails until that is fixed.)" in shown
    assert text(view).split("\n\n", 2)[1].startswith(notice)  # above the index, under the header
