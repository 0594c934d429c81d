from __future__ import annotations

import contextlib
import json

import pytest

from biopb_kernel_docs.core import manifest
from biopb_kernel_docs.core.errors import InvalidDocId
from biopb_kernel_docs.core.manifest import MANIFEST_NAME, changed_shipped_ids


def _manifest(tiers):
    return json.loads((tiers.local / MANIFEST_NAME).read_text())


def test_first_run_records_hashes_and_reports_nothing_changed(tiers):
    tiers.local.mkdir()
    assert changed_shipped_ids(tiers.store("1.0")) == frozenset()
    recorded = _manifest(tiers)
    assert recorded["version"] == "1.0"
    assert set(recorded["hashes"]) == set(tiers.store().all_shipped_ids())
    assert "_banked" in recorded["hashes"]


def test_the_manifest_is_written_with_its_keys_sorted_one_to_a_line(tiers):
    """A local tier kept under version control diffs the manifest by id, in the same order every
    time: its keys sorted, one to a line."""
    tiers.local.mkdir()
    changed_shipped_ids(tiers.store("1.0"))
    text = (tiers.local / MANIFEST_NAME).read_text()
    assert text.startswith('{\n "changed": [],\n "hashes": {\n  "')
    assert text.endswith('\n },\n "version": "1.0"\n}')
    hashes = list(_manifest(tiers)["hashes"])
    assert hashes == sorted(hashes)
    assert len(hashes) > 3


def test_same_version_reads_the_manifest_without_hashing(tiers, monkeypatch):
    tiers.local.mkdir()
    changed_shipped_ids(tiers.store("1.0"))

    def must_not_hash(store):
        raise AssertionError("hashed the shipped tier although the version did not change")

    monkeypatch.setattr(manifest, "shipped_hashes", must_not_hash)
    tiers.ship("data", "# Data\n\nEdited without a version bump.\n")
    assert changed_shipped_ids(tiers.store("1.0")) == frozenset()


def test_version_bump_records_changed_and_new_ids(tiers):
    tiers.local.mkdir()
    changed_shipped_ids(tiers.store("1.0"))
    tiers.ship("data", "# Data\n\nRevised.\n")
    tiers.ship("brand-new", "# New\n")
    assert changed_shipped_ids(tiers.store("1.1")) == {"data", "brand-new"}
    assert changed_shipped_ids(tiers.store("1.1")) == {"data", "brand-new"}
    assert _manifest(tiers)["changed"] == ["brand-new", "data"]


def test_the_flagged_set_clears_itself_at_the_next_bump(tiers):
    tiers.local.mkdir()
    changed_shipped_ids(tiers.store("1.0"))
    tiers.ship("data", "# Data\n\nRevised.\n")
    changed_shipped_ids(tiers.store("1.1"))
    assert changed_shipped_ids(tiers.store("1.2")) == frozenset()


def test_damaged_manifest_is_rebuilt_as_on_a_first_run(tiers):
    tiers.local.mkdir()
    (tiers.local / MANIFEST_NAME).write_text("{not json")
    assert changed_shipped_ids(tiers.store("1.0")) == frozenset()
    assert _manifest(tiers)["version"] == "1.0"


@pytest.mark.parametrize("damaged", ["[]", '"1.0"', '{"version": "1.0", "hashes": {}, "changed": 3}'])
def test_a_manifest_of_the_wrong_shape_is_rebuilt_as_on_a_first_run(tiers, damaged):
    tiers.local.mkdir()
    (tiers.local / MANIFEST_NAME).write_text(damaged)
    assert changed_shipped_ids(tiers.store("1.1")) == frozenset()
    assert _manifest(tiers)["version"] == "1.1"


def test_a_first_read_with_no_local_tier_records_nothing(tiers):
    assert changed_shipped_ids(tiers.store("1.0")) == frozenset()
    assert not tiers.local.exists()


def test_manifest_is_never_a_doc(tiers, docs):
    tiers.seed()
    assert (tiers.local / MANIFEST_NAME).is_file()
    assert tiers.store().local_ids() == []
    with pytest.raises(InvalidDocId):
        docs.read_doc(".shipped-manifest")


def test_two_processes_refreshing_after_an_upgrade_keep_the_changed_set(tiers, monkeypatch):
    tiers.local.mkdir()
    changed_shipped_ids(tiers.store("1.0"))
    tiers.ship("data", "# Data\n\nRevised in 1.1.\n")
    upgraded = tiers.store("1.1")
    real_lock = upgraded.lock

    @contextlib.contextmanager
    def another_process_refreshes_first():
        # The kernel, the Jupyter server and the MCP server all see the bump; one gets the lock first.
        assert changed_shipped_ids(tiers.store("1.1")) == {"data"}
        with real_lock():
            yield

    monkeypatch.setattr(upgraded, "lock", another_process_refreshes_first)
    assert changed_shipped_ids(upgraded) == {"data"}
    assert _manifest(tiers)["changed"] == ["data"]
    assert changed_shipped_ids(tiers.store("1.1")) == {"data"}


def test_an_unwritable_local_tier_still_gets_the_stale_tail(tiers):
    from biopb_kernel_docs.text.render import STALE_TAIL_TITLE, index_text

    docs = tiers.docs("1.0")
    tiers.seed()  # records the manifest (a read creates nothing)
    docs.write_doc("data", body="# My data notes\n")  # a local copy shadowing a shipped doc
    tiers.ship("data", "# Data\n\nRevised in 1.1.\n")
    (tiers.local / ".lock").unlink()
    (tiers.local / ".lock").mkdir()  # nothing can be written here: the lock cannot be taken
    assert changed_shipped_ids(tiers.store("1.1")) == {"data"}
    assert _manifest(tiers)["version"] == "1.0"  # computed, not recorded
    rendered = index_text(tiers.docs("1.1").index())
    assert f"\n{STALE_TAIL_TITLE}\n" in rendered
    assert '- data: Revised in 1.1. — read_doc("data@diff")' in rendered


def test_the_notebooks_stale_tail_names_the_diff_magic_of_each_copy(tiers):
    from biopb_kernel_docs.text.notebook import index_markdown

    docs = tiers.docs("1.0")
    tiers.seed()
    docs.write_doc("data", body="# My data notes\n")  # a local copy shadowing a shipped doc
    tiers.ship("data", "# Data\n\nRevised in 1.1.\n")
    shown = index_markdown(tiers.docs("1.1").index())
    assert "- **data**: Revised in 1.1. (`%read_doc data@diff`)" in shown


def test_the_notebooks_index_header_says_read_only_only_for_the_shipped_index(tiers):
    from biopb_kernel_docs.core.ops import Docs
    from biopb_kernel_docs.core.store import Store
    from biopb_kernel_docs.text.notebook import index_markdown

    blocker = tiers.local.parent / "blocker"
    blocker.write_text("a file where the local directory should be")
    unwritable = Docs(Store(tiers.shipped, blocker / "docs", "1")).index()
    shipped = index_markdown(unwritable).splitlines()[0]
    assert shipped.endswith("· the shipped index, read-only")
    view = tiers.docs().index()
    local = index_markdown(view).splitlines()[0]
    assert "read-only" not in local
    assert local.endswith(f"· `{view.path}`")
