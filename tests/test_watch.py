from __future__ import annotations

from biopb_kernel_docs.watch import index_fingerprint


def test_fingerprint_moves_when_the_rendering_can_change(tiers):
    tiers.store().ensure_index()
    before = index_fingerprint(tiers.local, tiers.shipped)
    assert index_fingerprint(tiers.local, tiers.shipped) == before

    (tiers.local / "index.md").write_text("# Edited by hand\n")
    edited_index = index_fingerprint(tiers.local, tiers.shipped)
    assert edited_index != before

    tiers.put_local("lab/new-doc", "# New\n")  # a new file in a new directory: markers may change
    created = index_fingerprint(tiers.local, tiers.shipped)
    assert created != edited_index

    tiers.ship("data", "# Data\n\nA release changed this description.\n")
    assert index_fingerprint(tiers.local, tiers.shipped) != created


def test_fingerprint_survives_a_missing_local_tier(tiers):
    assert index_fingerprint(tiers.local / "nowhere", tiers.shipped)
