from __future__ import annotations

import os
import threading

import pytest

from biopb_kernel_docs import store as store_module
from biopb_kernel_docs.errors import InvalidDocId, StoreUnavailable, UnreadableDoc
from biopb_kernel_docs.store import Store, Tier, atomic_write


def _snapshot(root):
    return {
        path.relative_to(root): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_tiers_are_read_fresh_on_every_access(tiers):
    store = tiers.store()
    assert store.read(Tier.SHIPPED, "data").text.endswith("How arrays are laid out.\n")
    tiers.ship("data", "# Data\n\nChanged under us.\n")
    assert store.read(Tier.SHIPPED, "data").text == "# Data\n\nChanged under us.\n"


def test_shipped_ids_leave_out_banked_docs_and_the_index(tiers):
    store = tiers.store()
    assert "_banked" not in store.shipped_ids()
    assert "index" not in store.shipped_ids()
    assert "_banked" in store.all_shipped_ids()


def test_ids_may_name_subdirectories(tiers):
    tiers.ship("design/engine", "# Engine\n")
    assert "design/engine" in tiers.store().shipped_ids()
    assert tiers.store().read(Tier.SHIPPED, "design/engine").text == "# Engine\n"


def test_local_ids_skip_the_index_and_hidden_bookkeeping(tiers):
    store = tiers.store()
    tiers.docs().index()
    tiers.put_local("mine", "# Mine\n")
    (tiers.local / ".shipped-manifest.json").write_text("{}")
    (tiers.local / "notes.txt").write_text("not a doc")
    assert store.local_ids() == ["mine"]


def test_overlapping_tiers_are_refused(tmp_path):
    (tmp_path / "docs").mkdir()
    with pytest.raises(StoreUnavailable, match="overlap"):
        Store(tmp_path / "docs", tmp_path / "docs", "1")
    with pytest.raises(StoreUnavailable, match="docs_local_dir"):
        Store(tmp_path / "docs", tmp_path / "docs" / "local", "1")


def test_missing_shipped_dir_says_how_to_fix(tmp_path):
    with pytest.raises(StoreUnavailable, match="shipped_dir"):
        Store(tmp_path / "nowhere", tmp_path / "local", "1")


def test_symlink_leading_outside_the_tier_is_refused(tiers, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("secret")
    tiers.local.mkdir()
    (tiers.local / "leak.md").symlink_to(outside / "secret.md")
    (tiers.local / "lab").symlink_to(outside, target_is_directory=True)
    store = tiers.store()
    for doc_id in ("leak", "lab/secret", "lab/new"):
        with pytest.raises(InvalidDocId, match="outside the local tier"):
            store.path_of(Tier.LOCAL, doc_id)
    assert not store.exists(Tier.LOCAL, "leak")


def test_symlink_inside_the_tier_is_followed_and_kept_on_write(tiers):
    tiers.put_local("real", "# Real\n")
    (tiers.local / "alias.md").symlink_to(tiers.local / "real.md")
    store = tiers.store()
    assert store.read(Tier.LOCAL, "alias").text == "# Real\n"
    store.write_local("alias", "# Rewritten\n")
    assert (tiers.local / "alias.md").is_symlink()
    assert tiers.local_text("real") == "# Rewritten\n"


def test_non_utf8_local_file_is_reported_not_replaced(tiers):
    path = tiers.put_local("latin", b"caf\xe9\n")
    with pytest.raises(UnreadableDoc, match=r"not valid UTF-8 \(byte 0xe9 at offset 3\)") as caught:
        tiers.store().read(Tier.LOCAL, "latin")
    assert "re-save it as UTF-8" in str(caught.value)
    assert path.read_bytes() == b"caf\xe9\n"


def test_crlf_file_reads_as_lf_and_remembers_its_line_ends(tiers):
    tiers.put_local("windows", b"# W\r\n\r\nline\r\n")
    doc = tiers.store().read(Tier.LOCAL, "windows")
    assert doc.text == "# W\n\nline\n"
    assert doc.crlf
    tiers.store().write_local("windows", doc.text + "more\n", crlf=True)
    assert (tiers.local / "windows.md").read_bytes() == b"# W\r\n\r\nline\r\nmore\r\n"


def test_write_local_never_touches_the_shipped_tier(tiers):
    before = _snapshot(tiers.shipped)
    tiers.store().write_local("flatfield", "# Mine\n")
    assert _snapshot(tiers.shipped) == before
    assert tiers.local_text("flatfield") == "# Mine\n"


def test_atomic_write_syncs_the_file_before_renaming_it(tmp_path, monkeypatch):
    calls = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda a, b: (calls.append("replace"), real_replace(a, b))[1])
    atomic_write(tmp_path / "doc.md", b"text")
    assert calls[:2] == ["fsync", "replace"]
    assert (tmp_path / "doc.md").read_bytes() == b"text"


def test_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path, monkeypatch):
    target = tmp_path / "doc.md"
    target.write_bytes(b"old")

    def broken_replace(source, destination):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store_module.os, "replace", broken_replace)
    with pytest.raises(OSError, match="No space"):
        atomic_write(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["doc.md"]


def test_a_rewritten_doc_keeps_its_file_mode(tiers):
    target = tiers.put_local("mine", "# Mine\n\nold\n")
    target.chmod(0o640)
    tiers.docs().write_doc("mine", old="old", new="new")
    assert target.stat().st_mode & 0o777 == 0o640
    assert tiers.local_text("mine") == "# Mine\n\nnew\n"


def test_readers_never_see_a_partial_write(tmp_path):
    target = tmp_path / "doc.md"
    versions = [b"a" * 200_000, b"b" * 300_000]
    target.write_bytes(versions[0])
    seen, stop = set(), threading.Event()

    def reader():
        while not stop.is_set():
            seen.add(target.read_bytes())

    thread = threading.Thread(target=reader)
    thread.start()
    for n in range(60):
        atomic_write(target, versions[n % 2])
    stop.set()
    thread.join()
    assert seen <= set(versions)


def test_unwritable_local_dir_is_a_store_error_naming_the_setting(tiers):
    tiers.local.parent.joinpath("blocker").write_text("a file, not a directory")
    store = Store(tiers.shipped, tiers.local.parent / "blocker" / "docs", "1")
    with pytest.raises(StoreUnavailable, match="docs_local_dir"):
        store.write_local("x", "# X\n")


def test_lock_is_reentrant_within_a_thread(tiers):
    store = tiers.store()
    with store.lock(), store.lock():
        store.write_local("x", "# X\n")
    assert tiers.local_text("x") == "# X\n"


def test_a_new_file_gets_the_usual_permissions_not_the_temp_files(tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)
    atomic_write(tmp_path / "new.md", b"text")
    assert (tmp_path / "new.md").stat().st_mode & 0o777 == 0o666 & ~umask


# -- change detection ----------------------------------------------------------------------------


def test_fingerprint_moves_when_the_rendering_can_change(tiers):
    tiers.docs().index()
    before = tiers.store().fingerprint()
    assert tiers.store().fingerprint() == before

    (tiers.local / "index.md").write_text("# Edited by hand\n")
    edited_index = tiers.store().fingerprint()
    assert edited_index != before

    tiers.put_local("lab/new-doc", "# New\n")  # a new file in a new directory: markers may change
    created = tiers.store().fingerprint()
    assert created != edited_index

    tiers.ship("data", "# Data\n\nA release changed this description.\n")
    assert tiers.store().fingerprint() != created


def test_fingerprint_survives_a_missing_local_tier(tiers):
    assert Store(tiers.shipped, tiers.local / "nowhere", "1").fingerprint()
