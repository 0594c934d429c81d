"""A created doc's first version is a record appended to ``.history/firsts``, not a file of its own
(``core/first_versions``): read back like any version, safe against a kill mid-append, dropped by
the bounds, cut out when dropped records outweigh live ones, and seen alike by every process."""

from __future__ import annotations

import errno
import os

import pytest

from biopb_kernel_docs.core import first_versions
from biopb_kernel_docs.core import store as store_module
from biopb_kernel_docs.core.errors import DocNotFound, PartialWrite, StoreUnavailable
from biopb_kernel_docs.core.first_versions import FirstVersions, Record, frame, parse
from biopb_kernel_docs.core.history import History
from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.core.values import Author
from biopb_kernel_docs.core.version_folders import HistoryLimits

from .conftest import open_files

AGENT = Author("mcp", name="claude-code", version="2.1")


def _docs(tiers, **limits) -> Docs:
    history = HistoryLimits(**limits) if limits else HistoryLimits()
    return Docs(Store(tiers.shipped, tiers.local, "1.0", history), author=AGENT)


def _firsts(tiers):
    return tiers.local / ".history" / "firsts"


def _live(tiers) -> dict:
    """The live records but the index's (the first write seeds the index: its v1 is one too)."""
    live = parse(_firsts(tiers).read_bytes())[0]
    return {doc_id: record for doc_id, record in live.items() if doc_id != "index"}


def test_a_create_makes_no_history_file_and_its_version_reads_back(tiers):
    docs = _docs(tiers)
    docs.write_doc("lab/new", body="# New\n\nfirst text\n")
    assert not (tiers.local / ".history" / "lab" / "new@").exists()
    assert list(_live(tiers)) == ["lab/new"]
    (version,) = docs.read_doc("lab/new@history").versions
    assert (version.number, version.author, version.current) == (1, AGENT, True)
    docs.write_doc("lab/new", old="first text", new="second text")
    assert sorted(p.name for p in (tiers.local / ".history" / "lab" / "new@").iterdir()) == ["00000002"]
    assert [v.number for v in docs.read_doc("lab/new@history").versions] == [2, 1]
    assert docs.read_doc("lab/new@v1").text == "# New\n\nfirst text\n"
    assert _docs(tiers).read_doc("lab/new@v1").text == "# New\n\nfirst text\n"  # another process


def test_a_record_cut_short_by_a_kill_is_ignored_then_cut_off_by_the_next_append(tiers):
    _docs(tiers).write_doc("kept", body="# Kept\n")
    whole = _firsts(tiers).read_bytes()
    with open(_firsts(tiers), "ab") as file:  # a kill in the middle of the next create's append
        file.write(frame("torn", 5000) + b'{"landed":0,"format":2,' + b"x" * 2000)  # longer than the next
    docs = _docs(tiers)
    assert [v.number for v in docs.read_doc("kept@history").versions] == [1]
    with pytest.raises(DocNotFound):
        docs.read_doc("torn@history")
    docs.write_doc("after", body="# After\n")
    data = _firsts(tiers).read_bytes()
    assert data.startswith(whole)
    assert b"torn" not in data
    assert list(_live(tiers)) == ["kept", "after"]
    assert parse(data)[1] == len(data)  # every byte belongs to a whole record
    assert docs.read_doc("after@v1").text == "# After\n"


def test_a_first_version_whose_doc_never_landed_is_dropped_at_the_next_look(tiers, monkeypatch):
    docs = _docs(tiers)
    real = store_module.atomic_write

    def killed(path, data, mode=None):  # the record is appended; the doc never gets renamed
        if str(path).endswith("ghost.md"):
            raise SystemExit("killed")
        real(path, data, mode)

    monkeypatch.setattr(store_module, "atomic_write", killed)
    with pytest.raises(SystemExit):
        docs.write_doc("ghost", body="# Ghost\n")
    monkeypatch.undo()
    assert list(_live(tiers)) == ["ghost"]  # pending, on disk
    docs.write_doc("ghost", body="# Ghost, for real\n")
    (version,) = docs.read_doc("ghost@history").versions
    assert version.number == 1
    assert docs.read_doc("ghost@v1").text == "# Ghost, for real\n"
    assert parse(_firsts(tiers).read_bytes())[2] > 0  # the record that never landed, dropped


def test_the_bounds_drop_a_first_version_and_dropped_records_are_cut_out(tiers, monkeypatch):
    monkeypatch.setattr(first_versions, "COMPACT_AT", 1)
    docs = _docs(tiers, max_versions=1)
    for n in range(4):
        docs.write_doc(f"doc-{n}", body=f"# Doc {n}\n")
        docs.write_doc(f"doc-{n}", body=f"# Doc {n}, edited\n")  # drops v1, its record
    assert [v.number for v in docs.read_doc("doc-0@history").versions] == [2]
    with pytest.raises(DocNotFound, match="the oldest kept is v2"):
        docs.read_doc("doc-0@v1")
    assert _live(tiers) == {}
    left = tiers.local / ".history" / ".tmp-0123456789abcdef.part"  # an earlier rewrite, killed
    left.write_bytes(b"+0000")
    docs.write_doc("last", body="# Last\n")  # dropped bytes outweigh live ones: rewritten first
    assert not left.exists()
    data = _firsts(tiers).read_bytes()
    assert list(_live(tiers)) == ["last"]
    assert b"-0" not in data  # no dropped record is left
    assert docs.read_doc("last@v1").text == "# Last\n"


def test_a_first_version_another_process_dropped_is_not_shown(tiers):
    reader, writer = _docs(tiers), _docs(tiers, max_versions=1)
    writer.write_doc("shared", body="# Shared\n")
    assert [v.number for v in reader.read_doc("shared@history").versions] == [1]  # parsed, cached
    firsts = _firsts(tiers)
    seen = firsts.stat()
    writer.write_doc("shared", body="# Shared, edited\n")  # drops v1: one byte written in place
    assert firsts.stat().st_size == seen.st_size
    os.utime(firsts, ns=(seen.st_atime_ns, seen.st_mtime_ns))  # within one tick of the file clock
    assert [v.number for v in reader.read_doc("shared@history").versions] == [2]
    with pytest.raises(DocNotFound):
        reader.read_doc("shared@v1")


def test_a_v1_file_from_a_release_without_firsts_wins_over_the_record(tiers):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    folder = tiers.local / ".history" / "notes@"
    folder.mkdir()
    record = FirstVersions(str(tiers.local / ".history")).find("notes")
    (folder / "00000001").write_bytes(FirstVersions(str(tiers.local / ".history")).read(record))
    assert [v.number for v in _docs(tiers).read_doc("notes@history").versions] == [1]
    assert _live(tiers) == {}


def test_a_process_parses_firsts_again_only_for_another_process_s_writes(tiers, monkeypatch):
    """Its own appends, commits and drops keep what it parsed: a create does not read a file that
    holds the first version of every doc created before it."""
    parses = []
    real = first_versions.parse
    monkeypatch.setattr(first_versions, "parse", lambda data: parses.append(len(data)) or real(data))
    docs = _docs(tiers, max_versions=1)
    for n in range(5):
        docs.write_doc(f"doc-{n}", body=f"# Doc {n}\n")
    docs.write_doc("doc-0", body="# Doc 0, edited\n")  # drops doc-0's record
    assert parses == []
    _docs(tiers).write_doc("other", body="# Other\n")  # another process: it parses once
    assert len(parses) == 1
    assert [v.number for v in docs.read_doc("other@history").versions] == [1]  # and this one again
    assert len(parses) == 2


def test_parse_counts_the_bytes_of_dropped_records_wherever_they_sit():
    kept = frame("a", 3) + b"abc"  # 16 bytes of frame, 3 of version file
    dropped = first_versions.DROPPED + frame("b", 2)[1:] + b"xy"
    live, end, dropped_bytes = parse(kept + dropped + kept.replace(b'"a"', b'"c"'))
    assert live == {"a": first_versions.Record(0, 16, 3), "c": first_versions.Record(37, 53, 3)}
    assert (end, dropped_bytes) == (56, 18)  # the record after the live one, not its offset


def test_a_first_version_whose_commit_was_cut_short_is_committed_at_the_next_look(tiers, monkeypatch):
    """The created doc landed but its record's commit never ran: the next look commits the record
    (the doc matches it), so a later deletion by hand is an outside edit, not a write that failed."""
    real = History.commit

    def interrupted(self, doc_id, number):  # the doc's rename landed; its commit never runs
        if doc_id == "notes":
            raise KeyboardInterrupt
        real(self, doc_id, number)

    monkeypatch.setattr(History, "commit", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _docs(tiers).write_doc("notes", body="# Notes\n")
    monkeypatch.undo()
    firsts = FirstVersions(str(tiers.local / ".history"))
    assert firsts.read(firsts.find("notes")).startswith(b'{"landed":0,')
    assert [v.number for v in _docs(tiers).read_doc("notes@history").versions] == [1]  # another process
    assert firsts.read(firsts.find("notes")).startswith(b'{"landed":1,')
    (tiers.local / "notes.md").unlink()
    versions = _docs(tiers).read_doc("notes@history").versions
    assert [(v.number, v.author.surface, v.kept) for v in versions] == [
        (2, "outside", False),
        (1, "mcp", True),
    ]


def test_the_rewrite_of_firsts_removes_only_temp_files_of_its_own_shape(tiers, monkeypatch):
    # an earlier rewrite's temp is .tmp-<hex>.part; a file with only one of the two ends is not one
    monkeypatch.setattr(first_versions, "COMPACT_AT", 1)
    docs = _docs(tiers, max_versions=1)
    docs.write_doc("doc", body="# Doc\n")
    docs.write_doc("doc", body="# Doc, edited\n")  # drops v1, its record
    history = tiers.local / ".history"
    left = history / ".tmp-0123456789abcdef.part"
    others = [history / "notes.part", history / ".tmp-notes.md"]
    for path in [left, *others]:
        path.write_bytes(b"kept?")
    docs.write_doc("last", body="# Last\n")  # dropped bytes outweigh live ones: rewritten first
    assert b"-0" not in _firsts(tiers).read_bytes()  # the rewrite ran
    assert not left.exists()
    assert [path.name for path in others if path.exists()] == ["notes.part", ".tmp-notes.md"]


def _one_dropped_record(root, size: int) -> None:
    """A ``firsts`` file holding one dropped record of ``size`` bytes, its frame line included."""
    firsts = FirstVersions(str(root))
    record, fd = firsts.append("gone", b"x" * (size - len(frame("gone", 0))))
    os.close(fd)
    firsts.drop(record)
    assert os.path.getsize(root / "firsts") == size


def test_dropped_records_are_cut_out_once_they_hold_64_kib_and_not_a_byte_before(tmp_path):
    """No live record, so dropped bytes outweigh live ones: only the 64 KiB floor holds the rewrite
    back. At 65,535 dropped bytes the next append goes after them; at 65,536 the file is rewritten
    first, and holds the new record alone."""
    below, at = tmp_path / "below" / ".history", tmp_path / "at" / ".history"
    _one_dropped_record(below, 65_535)
    _one_dropped_record(at, 65_536)
    for root in (below, at):
        os.close(FirstVersions(str(root)).append("next", b"y" * 10)[1])  # the next process's create
    kept = frame("next", 10) + b"y" * 10
    assert len(kept) == 29
    data = (below / "firsts").read_bytes()
    assert (len(data), data[:1], data[-29:]) == (65_535 + 29, b"-", kept)
    assert (at / "firsts").read_bytes() == kept
    rewritten = FirstVersions(str(at))
    assert rewritten.read(rewritten.find("next")) == b"y" * 10


def test_a_first_version_with_a_header_longer_than_a_listing_reads_is_still_listed(tiers):
    """A listing reads the first 4 KiB of each version for its header; a client that declares a
    5,000-character name writes a longer one, and its create's version must still be listed."""
    author = Author("mcp", name="n" * 5000, version="2.1")
    docs = Docs(Store(tiers.shipped, tiers.local, "1.0", HistoryLimits()), author=author)
    docs.write_doc("notes", body="# Notes\n")
    record = FirstVersions(str(tiers.local / ".history")).find("notes")
    assert record.length > 5000
    versions = _docs(tiers).read_doc("notes@history").versions  # another process: nothing cached
    assert [(v.number, v.author) for v in versions] == [(1, author)]
    assert _docs(tiers).read_doc("notes@v1").text == "# Notes\n"


def test_a_first_version_zeroed_by_a_power_loss_is_treated_as_absent(tiers):
    """Its frame line survived, its bytes did not: the record does not verify, so it is dropped
    like a version file that does not verify, and the next write keeps the doc's text as v1."""
    _docs(tiers).write_doc("notes", body="# Notes\n")
    record = FirstVersions(str(tiers.local / ".history")).find("notes")
    with open(_firsts(tiers), "r+b") as file:
        file.seek(record.body)
        file.write(bytes(record.length))
    docs = _docs(tiers)
    assert docs.read_doc("notes@history").versions == ()
    assert _live(tiers) == {}
    docs.write_doc("notes", body="# Notes\n\ntwo\n")
    versions = docs.read_doc("notes@history").versions
    assert [(v.number, v.author.surface) for v in versions] == [(2, "mcp"), (1, "earlier")]
    assert docs.read_doc("notes@v1").text == "# Notes\n"


def test_a_record_cut_short_is_ignored_whatever_length_its_frame_gives():
    """The frame's ten digits give the version file's length, up to 9,999,999,999 bytes: a record
    whose frame claims more bytes than follow it is a kill's, cut short, at every length it may give."""
    whole = frame("a", 3) + b"abc"
    for digits in range(1, 11):
        torn = frame("torn", 10 ** (digits - 1) + 5) + b"x" * 5  # 5 bytes of the version file written
        assert parse(whole + torn) == ({"a": Record(0, 16, 3)}, 19, 0), digits


def test_a_frame_whose_id_is_not_a_string_ends_the_records_like_a_cut_short_one():
    """No release writes one: the file is not to be trusted past it, and its id is no doc's."""
    whole = frame("a", 3) + b"abc"
    for odd_id in (b"5", b'["a"]', b'{"a": 1}', b"null"):
        odd = first_versions.LIVE + b"0000000003 " + odd_id + b"\nxyz"
        assert parse(whole + odd + frame("c", 3) + b"abc") == ({"a": Record(0, 16, 3)}, 19, 0), odd_id


def test_a_record_cut_short_is_cut_off_in_a_firsts_file_dated_at_the_epoch(tiers):
    """A local tier unpacked from a reproducible archive has every file dated 1970-01-01: the next
    append still goes by the file's size, and cuts a kill's record off first."""
    _docs(tiers).write_doc("kept", body="# Kept\n")
    firsts = _firsts(tiers)
    with open(firsts, "ab") as file:  # a kill in the middle of the next create's append
        file.write(frame("torn", 5000) + b'{"landed":0,"format":2,' + b"x" * 2000)
    os.utime(firsts, ns=(0, 0))
    docs = _docs(tiers)
    docs.write_doc("after", body="# After\n")
    data = firsts.read_bytes()
    assert b"torn" not in data
    assert parse(data)[1] == len(data)  # every byte belongs to a whole record
    assert list(_live(tiers)) == ["kept", "after"]


def test_a_process_decides_the_rewrite_from_its_own_writes_as_another_process_would(tmp_path):
    """A live record of 22 bytes, then a dropped one of 65,535 or 65,536: the next append goes after
    them below the 64 KiB floor, and at it rewrites the file first to the live record alone, byte for
    byte. The same whether the append comes from the process that appended and dropped the records
    (it keeps its own count of dropped bytes) or from another (it parses the file)."""
    kept = frame("kept", 3) + b"abc"
    assert len(kept) == 22
    new = frame("next", 10) + b"y" * 10
    for size in (65_535, 65_536):
        body = b"x" * (size - len(frame("gone", 0)))
        gone = first_versions.DROPPED + frame("gone", len(body))[1:] + body
        for same_process in (True, False):
            root = tmp_path / f"{size}-{same_process}" / ".history"
            firsts = FirstVersions(str(root))
            for doc_id, data in (("kept", b"abc"), ("gone", body)):
                record, fd = firsts.append(doc_id, data)
                os.close(fd)
            firsts.drop(record)
            appender = firsts if same_process else FirstVersions(str(root))
            os.close(appender.append("next", b"y" * 10)[1])
            expected = kept + gone + new if size == 65_535 else kept + new
            assert (root / "firsts").read_bytes() == expected, (size, same_process)
            reader = FirstVersions(str(root))
            assert [reader.read(reader.find(doc_id)) for doc_id in ("kept", "next")] == [b"abc", b"y" * 10]


def test_reading_and_dropping_first_versions_leaves_no_descriptor_open(tiers):
    """A server reads and drops first versions for as long as it runs: each closes what it opened
    (a process is often allowed 1,024 open files; past them, every open fails)."""
    docs = _docs(tiers, max_versions=1)
    docs.write_doc("warm", body="# Warm\n")
    before = open_files()
    for n in range(5):
        docs.write_doc(f"doc-{n}", body=f"# Doc {n}\n")
        assert docs.read_doc(f"doc-{n}@v1").text == f"# Doc {n}\n"  # read from its record
        docs.write_doc(f"doc-{n}", body=f"# Doc {n}, edited\n")  # drops v1: its status byte, in place
    assert _live(tiers) == {"warm": FirstVersions(str(tiers.local / ".history")).find("warm")}
    assert open_files() == before


def test_a_create_whose_first_version_cannot_be_appended_leaves_no_descriptor_open(tiers, monkeypatch):
    """The disk is full as a created doc's first version is appended to ``firsts``: each attempt
    fails with the store's message and closes what it opened, and the write, retried once there
    is room, goes through."""
    docs = _docs(tiers)
    docs.write_doc("warm", body="# Warm\n")
    before_bytes = _firsts(tiers).read_bytes()
    before = open_files()

    def disk_full(fd, data, offset):
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(os, "pwrite", disk_full)
        for _ in range(5):
            with pytest.raises(StoreUnavailable, match="the disk is full") as refused:
                docs.write_doc("new", body="# New\n")
            assert "Free some space, then retry." in str(refused.value)
    assert open_files() == before
    assert _firsts(tiers).read_bytes() == before_bytes
    assert not (tiers.local / "new.md").exists()
    docs.write_doc("new", body="# New\n")
    assert docs.read_doc("new@v1").text == "# New\n"


def test_a_rewrite_of_firsts_that_fails_leaves_no_temp_file_and_firsts_as_it_was(tiers, monkeypatch):
    """The disk fills as the live records' rewrite is renamed over ``firsts``: the write fails with
    the store's message, its temp file is gone, not left for the next rewrite to find, and the next
    write, retried, goes through."""
    monkeypatch.setattr(first_versions, "COMPACT_AT", 1)
    docs = _docs(tiers, max_versions=1)
    docs.write_doc("doc", body="# Doc\n")
    docs.write_doc("doc", body="# Doc, edited\n")  # drops v1, its record
    before = _firsts(tiers).read_bytes()
    real = os.replace

    def disk_full(source, target):  # the disk fills as the rewrite is renamed into place
        if str(target).endswith("firsts"):
            raise OSError(errno.ENOSPC, "No space left on device")
        real(source, target)

    with monkeypatch.context() as patched:
        patched.setattr(os, "replace", disk_full)
        with pytest.raises(PartialWrite, match="retry the same write"):
            docs.write_doc("last", body="# Last\n")  # dropped bytes outweigh live ones: rewritten first
    assert sorted(path.name for path in (tiers.local / ".history").iterdir() if path.is_file()) == ["firsts"]
    assert _firsts(tiers).read_bytes() == before
    docs.write_doc("last", body="# Last\n")
    assert docs.read_doc("last@v1").text == "# Last\n"
