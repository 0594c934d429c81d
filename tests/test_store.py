from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from biopb_kernel_docs.core import files as files_module
from biopb_kernel_docs.core.errors import OutsideTier, StoreUnavailable, UnreadableDoc
from biopb_kernel_docs.core.files import atomic_write
from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store, Tier


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


def test_each_tiers_root_is_the_directory_its_docs_are_read_from(tiers):
    tiers.put_local("data", "# Data\n\nMine.\n")  # the same id in both tiers
    store = tiers.store()
    assert store.root(Tier.SHIPPED) == tiers.shipped.resolve()
    assert store.root(Tier.LOCAL) == tiers.local.resolve()
    assert Path(store.read(Tier.SHIPPED, "data").path) == store.root(Tier.SHIPPED) / "data.md"
    assert Path(store.read(Tier.LOCAL, "data").path) == store.root(Tier.LOCAL) / "data.md"
    assert (store.root(Tier.LOCAL) / "data.md").read_text() == "# Data\n\nMine.\n"


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
        with pytest.raises(OutsideTier, match="outside the local tier"):
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

    monkeypatch.setattr(files_module.os, "replace", broken_replace)
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
    tiers.seed()
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


# -- files that are not what they seem ----------------------------------------------------------------


def _finishes(function, seconds=10):
    """Run ``function`` in a thread; True when it returned (or raised) within ``seconds``."""
    outcome = []

    def run():
        try:
            outcome.append(function())
        except Exception as err:
            outcome.append(err)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    return not thread.is_alive(), outcome[0] if outcome else None


def test_a_fifo_in_the_local_tier_never_blocks_a_read_a_render_or_a_write(tiers):
    docs = tiers.docs()
    tiers.seed()
    os.mkfifo(tiers.local / "pipe.md")
    os.mkfifo(tiers.local / ".shipped-manifest.json.tmp")
    done, outcome = _finishes(lambda: docs.read_doc("pipe"))
    assert done
    assert isinstance(outcome, UnreadableDoc)
    assert "a FIFO (named pipe), not a doc file" in str(outcome)
    (tiers.local / ".shipped-manifest.json").unlink()
    os.mkfifo(tiers.local / ".shipped-manifest.json")
    done, outcome = _finishes(lambda: tiers.docs(version="2.0").index())
    assert done
    assert not isinstance(outcome, Exception), outcome
    done, outcome = _finishes(lambda: docs.write_doc("lab/next", body="# Next\n"))
    assert done
    assert not isinstance(outcome, Exception), outcome


def test_a_fifo_or_a_directory_where_the_lock_belongs_is_refused_with_what_to_do(tiers):
    docs = tiers.docs()
    tiers.seed()
    (tiers.local / ".lock").unlink(missing_ok=True)
    os.mkfifo(tiers.local / ".lock")
    done, outcome = _finishes(lambda: docs.write_doc("lab/x", body="# X\n"))
    assert done
    assert isinstance(outcome, StoreUnavailable)
    assert "not a regular file" in str(outcome)
    assert "Remove it" in str(outcome)
    (tiers.local / ".lock").unlink()
    (tiers.local / ".lock").mkdir()
    with pytest.raises(StoreUnavailable, match=r"Cannot open the lock file .*remove whatever is there"):
        docs.write_doc("lab/x", body="# X\n")
    assert not (tiers.local / "lab/x.md").exists()


def test_a_local_tier_removed_while_the_process_runs_is_made_again_by_the_next_write(tiers):
    docs = tiers.docs()
    docs.write_doc("lab/notes", body="# Notes\nFirst.\n")
    shutil.rmtree(tiers.local)
    written = docs.write_doc("lab/notes", body="# Notes\nAgain.\n")
    assert written.outcome == "created"
    assert tiers.local_text("lab/notes") == "# Notes\nAgain.\n"
    assert [v.number for v in docs.read_doc("lab/notes@history").versions] == [1]
    assert "- lab/notes: Again." in docs.read_doc("index").text


def test_a_local_tier_on_a_volume_gone_while_the_process_runs_is_refused_not_made_again(tmp_path):
    target = tmp_path / "volume" / "docs"
    target.mkdir(parents=True)
    (tmp_path / "docs").symlink_to(target)
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    docs = Docs(Store(shipped, tmp_path / "docs", "1.0"))
    docs.write_doc("notes", body="# Notes\n")
    shutil.rmtree(tmp_path / "volume")
    with pytest.raises(StoreUnavailable) as refused:
        docs.write_doc("notes", body="# Notes\nAgain.\n")
    assert str(refused.value) == (
        f"The local docs directory {target} is gone and cannot be made again: No such file or directory. "
        "Point DocStore.docs_local_dir at a writable directory."
    )
    assert not (tmp_path / "volume").exists()


def test_a_socket_named_like_a_doc_is_reported_not_read(tiers):
    tiers.local.mkdir(parents=True)
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(tiers.local / "sock.md"))
        with pytest.raises(UnreadableDoc, match="is a socket, not a doc file"):
            tiers.docs().read_doc("sock")
    finally:
        server.close()


def test_a_device_is_refused_as_a_device_and_never_read():
    # /dev/null reads as empty: read, it would pass for an empty doc
    with pytest.raises(UnreadableDoc) as caught:
        files_module.read_regular("/dev/null")
    assert str(caught.value) == (
        "/dev/null is a device, not a doc file. Move it out of the docs directory; the store never "
        "reads or replaces it."
    )


def test_a_symlink_loop_is_a_clear_refusal_and_an_entry_naming_it_is_missing(tiers):
    tiers.local.mkdir(parents=True)
    os.symlink("loop.md", tiers.local / "loop.md")
    docs = tiers.docs()
    with pytest.raises(UnreadableDoc, match="symlink loop"):
        docs.read_doc("loop")
    tiers.put_local("index", "# I\n- loop: a loop\n")
    assert docs.index().entries[0].marker == "missing"


def test_a_local_tier_that_cannot_be_created_still_serves_shipped_docs(tiers):
    blocker = tiers.local.parent / "blocker"
    blocker.write_text("a file where a directory should be")
    docs = Store(tiers.shipped, blocker / "docs", "1")
    from biopb_kernel_docs.core.ops import Docs

    reader = Docs(docs)
    assert reader.read_doc("flatfield").tier == "shipped"
    view = reader.index()  # a read creates nothing, but says why the first write would fail
    assert view.tier == "shipped"
    assert "The local index could not be created" in view.notices[0]
    assert f"{blocker} is not a directory" in view.notices[0]
    assert not (blocker.parent / "docs").exists()
    with pytest.raises(StoreUnavailable, match=r"Point DocStore\.docs_local_dir at a writable directory"):
        reader.write_doc("mine", body="# Mine\n")


READ_ONLY_SCRIPT = """
import sys
from biopb_kernel_docs.core.errors import DocsError
from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store
docs = Docs(Store(sys.argv[1], sys.argv[2], "1"))
print(docs.read_doc("flatfield").tier)
print(docs.index().tier)
try:
    docs.write_doc("flatfield", old="Step one.", new="Step 1.")
except DocsError as err:
    print(type(err).__name__, err)
"""


def test_a_read_only_local_tier_reads_everything_and_refuses_writes_clearly(tiers):
    # As root, permissions do not bind: the script then runs as nobody (setpriv).
    root = Path(tempfile.mkdtemp(prefix="biopb-ro-"))
    try:
        shutil.copytree(tiers.shipped, root / "shipped")
        tiers_ro = type(tiers)(root / "shipped", root / "local")
        tiers_ro.seed()
        for path in [root, *root.rglob("*")]:
            path.chmod(0o555 if path.is_dir() else 0o444)
        command = [sys.executable, "-c", READ_ONLY_SCRIPT, str(root / "shipped"), str(root / "local")]
        if os.geteuid() == 0:
            command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[:2] == ["shipped", "local"]
        assert done.stdout.splitlines()[2].startswith("StoreUnavailable Cannot open the lock file")
        assert "Traceback" not in done.stderr
    finally:
        for path in [root, *root.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(root)


def test_temp_files_left_by_killed_writers_are_swept_by_the_next_write(tiers):
    docs = tiers.docs()
    docs.write_doc("lab/one", body="# One\n")
    for n in range(5):
        (tiers.local / f".tmp-dead{n}.part").write_text("half a write")
        (tiers.local / "lab" / f".tmp-dead{n}.part").write_text("half a write")
    tiers.docs().write_doc("lab/two", body="# Two\n")  # a new process's first writes into both dirs
    assert sorted(p.name for p in tiers.local.rglob(".tmp-*")) == []


def test_the_shipped_listing_follows_an_upgrade_even_when_kept_between_reads(tiers):
    an_hour_ago = time.time() - 3600
    os.utime(tiers.shipped, (an_hour_ago, an_hour_ago))  # a settled tier: its listing is kept
    store = tiers.store()
    assert "deconvolution" not in store.shipped_ids()
    assert store._shipped_cache is not None
    tiers.ship("deconvolution", "# Deconvolution\n")
    assert "deconvolution" in store.shipped_ids()
    (tiers.shipped / "deconvolution.md").unlink()
    assert "deconvolution" not in store.shipped_ids()


def test_a_fingerprint_of_the_listed_docs_ignores_unlisted_files_and_sees_listed_edits(tiers):
    tiers.docs().index()
    tiers.put_local("lab/listed", "# Listed\n")
    (tiers.local / "junk").mkdir()
    store = tiers.store()
    before = store.fingerprint(["lab/listed"])
    tiers.put_local("junk/stray", "# A file nothing lists\n")
    assert store.fingerprint(["lab/listed"]) == before
    (tiers.local / "lab/listed.md").write_text("# Listed, edited in place\n")
    assert store.fingerprint(["lab/listed"]) != before
    shadow = store.fingerprint(["lab/listed"])
    tiers.put_local("data", "# A new local copy of a shipped doc\n")  # a shadow can feed the stale tail
    assert store.fingerprint(["lab/listed"]) != shadow


# -- what the suite's mutation run let through (issue 20) ----------------------------------------------


def test_a_flat_read_through_a_symlink_out_of_the_tier_is_refused(tiers, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nnot the tier's to serve\n")
    tiers.local.mkdir()
    (tiers.local / "leak.md").symlink_to(outside / "secret.md")
    with pytest.raises(OutsideTier, match="outside the local tier"):
        tiers.store().read(Tier.LOCAL, "leak")
    from biopb_kernel_docs.core.ops import Docs

    with pytest.raises(OutsideTier, match="cannot be used until that link is removed or points inside"):
        Docs(tiers.store()).read_doc("leak")


def test_a_nested_read_through_a_folder_symlink_out_of_the_tier_is_refused(tiers, tmp_path):
    """Only the last part of a path is refused as a link when a file is opened without following
    links, so a nested id is probed part by part: a folder link out of the tier is never read."""
    from biopb_kernel_docs.core.ops import Docs

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nnot the tier's to serve\n")
    tiers.local.mkdir()
    (tiers.local / "lab").symlink_to(outside, target_is_directory=True)
    with pytest.raises(OutsideTier, match="outside the local tier"):
        tiers.store().read(Tier.LOCAL, "lab/secret")
    with pytest.raises(OutsideTier, match="cannot be used until that link is removed or points inside"):
        Docs(tiers.store()).read_doc("lab/secret")


def test_a_directory_named_like_a_doc_is_not_a_doc(tiers):
    from biopb_kernel_docs.core.ops import Docs

    (tiers.local / "lab.md").mkdir(parents=True)
    (tiers.local / "lab.md" / "inside.md").write_text("# Inside\n")
    store = tiers.store()
    assert not store.exists(Tier.LOCAL, "lab")
    assert "lab" not in store.local_ids()
    with pytest.raises(UnreadableDoc, match="is a folder where a doc's file would be"):
        Docs(store).read_doc("lab")
    tiers.put_local("index", "# I\n\n- lab: a directory, not a file\n")
    assert Docs(store).index().entries[0].marker == "missing"


def test_the_temp_sweep_never_deletes_a_users_part_file(tiers):
    tiers.local.mkdir()
    (tiers.local / "notes.part").write_text("the user's own notes")
    (tiers.local / ".tmp-0123456789abcdef.part").write_text("half a write")
    tiers.store().write_local("mine", "# Mine\n")
    assert (tiers.local / "notes.part").read_text() == "the user's own notes"
    assert not (tiers.local / ".tmp-0123456789abcdef.part").exists()


def test_a_rewrite_keeps_the_file_mode_under_a_restrictive_umask(tiers):
    target = tiers.put_local("mine", "# Mine\n\nold\n")
    target.chmod(0o644)
    umask = os.umask(0o077)
    try:
        tiers.docs().write_doc("mine", old="old", new="new")
    finally:
        os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o644
    assert tiers.local_text("mine") == "# Mine\n\nnew\n"


def test_atomic_write_syncs_the_directory_after_the_rename(tmp_path, monkeypatch):
    calls = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        calls.append("fsync directory" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", lambda a, b: (calls.append("replace"), real_replace(a, b))[1])
    atomic_write(tmp_path / "doc.md", b"text")
    assert calls == ["fsync file", "replace", "fsync directory"]


def test_a_crlf_doc_whose_first_line_is_long_keeps_its_line_ends(tiers):
    for doc_id, first in (
        ("wide", "# " + "a long title " * 800),  # ASCII: ~10 KB before the first line end
        ("wide-utf8", "# " + "une étude longue " * 600),  # the UTF-8 path, just as long
    ):
        tiers.put_local(doc_id, f"{first}\r\n\r\nold\r\n".encode())
        doc = tiers.store().read(Tier.LOCAL, doc_id)
        assert doc.crlf, doc_id
        assert "\r" not in doc.text
        tiers.docs().write_doc(doc_id, old="old", new="new")
        assert (tiers.local / f"{doc_id}.md").read_bytes() == f"{first}\r\n\r\nnew\r\n".encode()


def test_a_fingerprint_of_the_listed_docs_sees_a_nested_local_copy_appear(tiers):
    tiers.ship("design/engine", "# Engine\n")
    tiers.docs().index()
    tiers.put_local("design/notes", "# Notes, in a directory that already exists\n")
    store = tiers.store()
    before = store.fingerprint([])
    tiers.put_local("design/engine", "# My copy of the engine doc\n")  # a shadow: the stale tail may list it
    assert store.fingerprint([]) != before


def test_a_fingerprint_sees_an_in_place_edit_that_keeps_the_mtime(tiers):
    tiers.docs().index()
    listed = tiers.put_local("lab/listed", "# Listed\n")
    store = tiers.store()
    before = store.fingerprint(["lab/listed"])
    mtime = listed.stat().st_mtime_ns
    listed.write_text("# Listed, edited in place within the same clock tick\n")
    os.utime(listed, ns=(mtime, mtime))
    assert store.fingerprint(["lab/listed"]) != before


def test_writing_through_a_dangling_link_inside_the_tier_replaces_the_link_and_creates_nothing_else(tiers):
    tiers.local.mkdir()
    (tiers.local / "alias.md").symlink_to(tiers.local / "gone.md")  # its target was removed
    store = tiers.store()
    assert store.read(Tier.LOCAL, "alias") is None
    written = store.write_local("alias", "# Alias\n")
    assert written.path == str(tiers.local / "alias.md")
    assert not (tiers.local / "alias.md").is_symlink()
    assert tiers.local_text("alias") == "# Alias\n"
    assert not (tiers.local / "gone.md").exists()  # no doc 'gone' appears that nobody wrote
    assert store.local_ids() == ["alias"]


# -- the survey of store.py against its tests (seed 20261308) ------------------------------------------


def test_signature_is_the_docs_path_and_its_files_stat_for_every_shape_of_id(tiers, tmp_path):
    flat = tiers.put_local("flat", "# Flat\n")
    nested = tiers.put_local("lab/nested", "# Nested\n\nin a folder\n")
    (tiers.local / "alias.md").symlink_to(flat)  # a link inside the tier: the file it leads to
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n")
    (tiers.local / "ext").symlink_to(outside, target_is_directory=True)
    store = tiers.store()

    def stat_of(path):
        status = path.stat()
        return status.st_mtime_ns, status.st_size, status.st_ino

    assert store.signature(Tier.LOCAL, "flat") == (str(tiers.local / "flat.md"), stat_of(flat))
    assert store.signature(Tier.LOCAL, "lab/nested") == (str(tiers.local / "lab/nested.md"), stat_of(nested))
    assert store.signature(Tier.LOCAL, "alias") == (str(tiers.local / "alias.md"), stat_of(flat))
    assert store.signature(Tier.SHIPPED, "data") == (
        str(tiers.shipped / "data.md"),
        stat_of(tiers.shipped / "data.md"),
    )
    assert store.signature(Tier.LOCAL, "absent") is None
    assert store.signature(Tier.LOCAL, "lab/absent") is None
    assert store.signature(Tier.LOCAL, "nowhere/absent") is None
    with pytest.raises(OutsideTier, match="outside the local tier"):
        store.signature(Tier.LOCAL, "ext/secret")


def test_exists_is_true_only_for_a_regular_file_inside_the_tier(tiers, tmp_path):
    flat = tiers.put_local("flat", "# Flat\n")
    tiers.put_local("lab/nested", "# Nested\n")
    (tiers.local / "alias.md").symlink_to(flat)
    (tiers.local / "lab/alias.md").symlink_to(flat)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n")
    (tiers.local / "ext").symlink_to(outside, target_is_directory=True)
    store = tiers.store()
    present = ["flat", "lab/nested", "alias", "lab/alias"]
    absent = ["absent", "lab/absent", "nowhere/absent", "ext/secret"]
    assert [store.exists(Tier.LOCAL, doc_id) for doc_id in present] == [True] * 4
    assert [store.exists(Tier.LOCAL, doc_id) for doc_id in absent] == [False] * 4
    assert store.exists(Tier.SHIPPED, "data")
    assert not store.exists(Tier.SHIPPED, "flat")


def test_path_of_names_the_file_a_doc_has_or_would_have(tiers):
    tiers.put_local("lab/nested", "# Nested\n")
    store = tiers.store()
    assert store.path_of(Tier.LOCAL, "lab/nested") == str(tiers.local / "lab/nested.md")
    assert store.path_of(Tier.LOCAL, "lab/new") == str(tiers.local / "lab/new.md")
    assert store.path_of(Tier.LOCAL, "fresh") == str(tiers.local / "fresh.md")
    assert store.path_of(Tier.SHIPPED, "data") == str(tiers.shipped / "data.md")


def test_a_lone_carriage_return_does_not_make_a_doc_crlf(tiers):
    for doc_id, line in (("ascii", "a\rb"), ("utf8", "caf\u00e9\rb")):  # a CR inside a line, LF line ends
        tiers.put_local(doc_id, f"# Doc\n\n{line}\nold\n".encode())
        doc = tiers.store().read(Tier.LOCAL, doc_id)
        assert doc.crlf is False, doc_id
        assert doc.text == f"# Doc\n\n{line}\nold\n"
        tiers.docs().write_doc(doc_id, old="old", new="new")
        assert (tiers.local / f"{doc_id}.md").read_bytes() == f"# Doc\n\n{line}\nnew\n".encode()


def test_a_plain_write_has_lf_line_ends(tiers):
    written = tiers.store().write_local("plain", "# Plain\n\nline\n")
    assert (tiers.local / "plain.md").read_bytes() == b"# Plain\n\nline\n"
    assert written.crlf is False


def test_files_without_the_doc_suffix_are_never_listed_as_docs(tiers):
    tiers.put_local("mine", "# Mine\n")
    (tiers.local / "todo-list").write_text("a note saved without .md\n")
    (tiers.local / "lab").mkdir()
    (tiers.local / "lab" / "draft-notes").write_text("another\n")
    (tiers.shipped / "LICENSE").write_text("the license\n")
    store = tiers.store()
    assert store.local_ids() == ["mine"]
    assert store.all_shipped_ids() == [
        "_banked",
        "data",
        "flatfield",
        "old-method",
        "segment-nuclei",
        "stitch-tiles",
    ]
    assert store.ids_under(Tier.LOCAL, "lab/") == []


def test_the_shipped_listing_follows_a_doc_added_to_a_settled_subfolder(tiers):
    tiers.ship("design/engine", "# Engine\n")
    an_hour_ago = time.time() - 3600
    for folder in (tiers.shipped, tiers.shipped / "design"):
        os.utime(folder, (an_hour_ago, an_hour_ago))  # a settled tier: its listing is kept
    store = tiers.store()
    assert "design/pipeline" not in store.shipped_ids()
    tiers.ship("design/pipeline", "# Pipeline\n")  # moves design/'s mtime, not the root's
    assert "design/pipeline" in store.shipped_ids()


def test_the_shipped_listing_is_never_kept_while_a_second_change_could_share_the_clock_tick(tiers):
    """On a filesystem whose mtimes are coarse (whole seconds, or two), a file added just after
    the listing may leave its directory's mtime as it was."""
    store = tiers.store()
    mtime = time.time_ns()
    os.utime(tiers.shipped, ns=(mtime, mtime))  # a tier changed just now
    assert "deconvolution" not in store.shipped_ids()
    tiers.ship("deconvolution", "# Deconvolution\n")
    os.utime(tiers.shipped, ns=(mtime, mtime))  # the same tick of a coarse clock
    assert "deconvolution" in store.shipped_ids()


def test_one_shipped_folder_changed_just_now_keeps_the_whole_listing_from_being_kept(tiers):
    tiers.ship("lab/one", "# One\n")
    settled = time.time_ns() - 60_000_000_000
    for folder in (tiers.shipped, tiers.shipped / "lab"):
        os.utime(folder, ns=(settled, settled))  # the tier and one folder, unchanged for a minute
    store = tiers.store()
    mtime = time.time_ns()
    os.utime(tiers.shipped / "lab", ns=(mtime, mtime))  # the other changed just now
    assert "lab/two" not in store.shipped_ids()
    tiers.ship("lab/two", "# Two\n")
    os.utime(tiers.shipped / "lab", ns=(mtime, mtime))  # the same tick of a coarse clock
    assert "lab/two" in store.shipped_ids()


def test_a_local_tier_whose_parent_folders_are_missing_is_created_on_the_first_write(tiers, tmp_path):
    local = tmp_path / "home" / ".config" / "biopb" / "docs"
    store = Store(tiers.shipped, local, "1")
    store.write_local("mine", "# Mine\n")
    assert (local / "mine.md").read_text() == "# Mine\n"


def test_bookkeeping_writes_sweep_temp_files_left_by_killed_writers(tiers):
    folder = tiers.local / ".review" / "lab"
    folder.mkdir(parents=True)
    (folder / ".tmp-0123456789abcdef.part").write_text("half a write")
    tiers.store().write_state(".review/lab/notes.md", b"reviewed\n")
    assert sorted(p.name for p in folder.iterdir()) == ["notes.md"]
    assert (folder / "notes.md").read_bytes() == b"reviewed\n"


def test_fingerprint_moves_when_a_doc_in_an_existing_folder_changes_or_appears(tiers):
    tiers.ship("design/engine", "# Engine\n")
    tiers.put_local("lab/one", "# One\n")
    store = tiers.store()
    before = store.fingerprint()
    tiers.ship("design/engine", "# Engine\n\nA release rewrote this doc.\n")
    shipped_edit = store.fingerprint()
    assert shipped_edit != before
    tiers.put_local("lab/two", "# Two\n")  # an existing local folder: only its own mtime moves
    assert store.fingerprint() != shipped_edit


UNREACHABLE_SCRIPT = """
import sys
from biopb_kernel_docs.core.errors import DocsError
from biopb_kernel_docs.core.store import Store, Tier
store = Store(sys.argv[1], sys.argv[2], "1")
try:
    print(store.read(Tier.SHIPPED, "data"))
except DocsError as err:
    print(type(err).__name__, err)
"""


def test_a_doc_in_a_folder_the_user_cannot_enter_is_reported_with_the_plain_reason(tiers):
    # As root, permissions do not bind: the script then runs as nobody (setpriv).
    root = Path(tempfile.mkdtemp(prefix="biopb-unreachable-"))
    try:
        shutil.copytree(tiers.shipped, root / "shipped")
        root.chmod(0o755)
        (root / "shipped").chmod(0o644)  # listed, but never entered: no file in it can be reached
        command = [sys.executable, "-c", UNREACHABLE_SCRIPT, str(root / "shipped"), str(root / "local")]
        if os.geteuid() == 0:
            command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout == (
            f"UnreadableDoc Cannot reach doc 'data' at {root / 'shipped' / 'data.md'}: Permission denied. "
            "Fix or remove that path.\n"
        )
    finally:
        (root / "shipped").chmod(0o755)
        shutil.rmtree(root)


def test_a_file_where_the_history_folder_belongs_refuses_a_write_as_a_store_error(tiers):
    tiers.local.mkdir()
    (tiers.local / ".history").write_text("a file where the history folder belongs\n")
    store = tiers.store()
    for doc_id in ("notes", "data"):  # a new doc, and a first local copy of a shipped one
        with pytest.raises(StoreUnavailable) as refused:
            store.write_local(doc_id, "# Mine\n")
        assert f"a file is where a folder on its path must be ({tiers.local / '.history'})" in str(
            refused.value
        )
        assert "Move that file aside" in str(refused.value)
    assert store.local_ids() == []
