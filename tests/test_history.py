"""The history: every write keeps the text it replaced, with who wrote it and when (core/history)."""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import itertools
import json
import os
import random
import re
import time
from pathlib import Path

import pytest

from biopb_kernel_docs.core import store as store_module
from biopb_kernel_docs.core import version_file
from biopb_kernel_docs.core.blame import line_delta
from biopb_kernel_docs.core.errors import (
    DocNotFound,
    EditRefused,
    InvalidArguments,
    InvalidDocId,
    StaleWrite,
    StoreUnavailable,
)
from biopb_kernel_docs.core.first_versions import FirstVersions
from biopb_kernel_docs.core.history import History
from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.core.values import Author
from biopb_kernel_docs.core.version_file import State, encode, header_of
from biopb_kernel_docs.core.version_folders import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_VERSIONS,
    HistoryLimits,
    VersionFolders,
)
from biopb_kernel_docs.text.render import text

from .conftest import open_files

AGENT = Author("mcp", name="claude-code", version="2.1")
USER = Author("magic", where="1a2b3c4d-5e6f")


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _docs(tiers, author=AGENT, **limits) -> Docs:
    history = HistoryLimits(**limits) if limits else HistoryLimits()
    return Docs(Store(tiers.shipped, tiers.local, "1.0", history), author=author)


def _files(tiers, doc_id: str) -> list[str]:
    """A doc's versions on disk, by file name; a created doc's first version, which is a record
    in ``.history/firsts`` rather than a file, is listed as the file it would be."""
    folder = tiers.local / ".history" / f"{doc_id}@"
    names = sorted(os.listdir(folder)) if folder.is_dir() else []
    if FirstVersions(str(tiers.local / ".history")).find(doc_id) is not None:
        names.insert(0, "00000001")
    return names


def _bytes_on_disk(tiers, doc_id: str) -> int:
    """What a doc's versions hold on disk: its version files, and its record in ``firsts``."""
    folder = tiers.local / ".history" / f"{doc_id}@"
    files = sum(path.stat().st_size for path in folder.iterdir()) if folder.is_dir() else 0
    first = FirstVersions(str(tiers.local / ".history")).find(doc_id)
    return files + (first.length if first is not None else 0)


# -- what a version records --------------------------------------------------------------------------


def test_every_write_keeps_the_text_it_replaced_as_a_version(tiers):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n\none\n")
    docs.write_doc("notes", old="one", new="one\ntwo")
    docs.write_doc("notes", body="# Notes\n\nthree\n")
    view = docs.read_doc("notes@history")
    assert [v.number for v in view.versions] == [3, 2, 1]  # newest first
    assert [(v.added, v.removed) for v in view.versions] == [(1, 2), (1, 0), (3, 0)]
    assert [v.current for v in view.versions] == [True, False, False]
    chain = list(reversed(view.versions))
    assert chain[0].before_sha256 is None
    for earlier, later in itertools.pairwise(chain):
        assert later.before_sha256 == earlier.after_sha256
    assert docs.read_doc("notes@v2").text == "# Notes\n\none\ntwo\n"
    assert docs.read_doc("notes@v1").text == "# Notes\n\none\n"
    assert all(v.author == AGENT for v in view.versions)
    assert view.sha256 == _sha("# Notes\n\nthree\n")


def test_a_version_records_who_wrote_it_and_when(tiers):
    before = time.time()
    _docs(tiers, author=USER).write_doc("notes", body="# Notes\n")
    _docs(tiers, author=AGENT).write_doc("notes", body="# Notes, the agent's\n")
    versions = _docs(tiers).read_doc("notes@history").versions
    assert [v.author for v in versions] == [AGENT, USER]
    assert all(before - 1 <= v.time <= time.time() + 1 for v in versions)
    listing = text(_docs(tiers).read_doc("notes@history"))
    assert " · claude-code 2.1 via MCP · +1 \u22121 lines · current" in listing
    assert " · magic in kernel 1a2b3c4d · +1 \u22120 lines" in listing


def test_a_first_local_copy_keeps_the_shipped_text_it_shadows(tiers):
    docs = _docs(tiers)
    docs.write_doc("flatfield", old="Step one.", new="Step one, my way.")
    first, second = reversed(docs.read_doc("flatfield@history").versions)
    assert first.author == Author("shipped")
    assert not first.local
    assert docs.read_doc("flatfield@v1").text == (tiers.shipped / "flatfield.md").read_text()
    assert second.before_sha256 == first.after_sha256
    assert (second.added, second.removed, second.local) == (1, 1, True)


def test_a_local_doc_from_before_history_keeps_its_text_as_the_first_version(tiers):
    tiers.put_local("mine", "# Mine\n\nwritten before history\n")
    docs = _docs(tiers)
    assert docs.read_doc("mine@history").versions == ()  # reading created nothing
    assert not (tiers.local / ".history").exists()
    docs.write_doc("mine", body="# Mine\n\nrewritten\n")
    first, _ = reversed(docs.read_doc("mine@history").versions)
    assert first.author == Author("earlier")
    assert docs.read_doc("mine@v1").text == "# Mine\n\nwritten before history\n"


def test_an_outside_edit_is_recorded_before_the_next_write(tiers):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n\nmine\n")
    path = tiers.put_local("notes", "# Notes\n\nan editor changed this\n")
    os.utime(path, (1_700_000_000, 1_700_000_000))
    docs.write_doc("notes", old="an editor changed this", new="merged")
    versions = list(reversed(docs.read_doc("notes@history").versions))
    assert [v.author.surface for v in versions] == ["mcp", "outside", "mcp"]
    assert versions[1].time == 1_700_000_000  # when the file was changed, not when it was seen
    assert docs.read_doc("notes@v2").text == "# Notes\n\nan editor changed this\n"
    assert versions[2].before_sha256 == versions[1].after_sha256


def test_an_outside_edit_is_recorded_when_the_history_is_read(tiers):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    tiers.put_local("notes", "# Notes\n\nby hand\n")
    latest = docs.read_doc("notes@history").versions[0]
    assert (latest.number, latest.author.surface, latest.current) == (2, "outside", True)
    assert len(docs.read_doc("notes@history").versions) == 2  # recorded once, not at every look


def test_a_doc_removed_outside_the_store_is_recorded_as_removed(tiers):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    (tiers.local / "notes.md").unlink()
    latest = docs.history("notes").versions[0]
    assert (latest.author.surface, latest.after_sha256, latest.kept) == ("outside", None, False)
    assert "the doc was removed" in text(docs.history("notes"))
    with pytest.raises(EditRefused, match="did not exist then"):
        docs.restore_doc("notes", latest.number)
    docs.restore_doc("notes", 1)
    assert tiers.local_text("notes") == "# Notes\n"


def test_the_index_has_a_history_from_its_seeding(tiers):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n\nfiled by creating it\n")
    seeded, filed = reversed(docs.read_doc("index@history").versions)
    assert seeded.author == Author("loader")
    assert (seeded.added, seeded.removed) == (0, 0)  # the shipped index, copied
    assert (filed.author, filed.added) == (AGENT, 3)  # "## Unfiled", the entry, a blank line
    assert "- notes: filed by creating it" in docs.read_doc("index@v2").text
    assert "seeded from the shipped index" in text(docs.read_doc("index@history"))


def test_file_and_ignore_are_recorded_in_the_index_history(tiers):
    docs = _docs(tiers, author=USER)
    docs.file_doc("segment-nuclei", "## Procedures")
    docs.ignore_doc("_banked")
    versions = docs.read_doc("index@history").versions
    assert [v.author.surface for v in versions] == ["magic", "magic", "loader"]


def test_a_write_that_fails_leaves_no_version_behind(tiers, monkeypatch):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")

    def full_disk(path, data, mode=None):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store_module, "atomic_write", full_disk)
    with pytest.raises(StoreUnavailable, match=r"the disk is full\. That file was left as it was"):
        docs.write_doc("notes", body="# Notes\n\nlost\n")
    assert _files(tiers, "notes") == [next(iter(_files(tiers, "notes")))]
    assert [v.number for v in docs.read_doc("notes@history").versions] == [1]


def _kill_a_write_before_its_doc_lands(
    docs: Docs, monkeypatch, doc_id: str = "notes", body: str = "# Notes\n\nnever landed\n"
) -> None:
    """A write of the doc killed after its version was recorded, before the doc's rename (other
    files, the manifest say, are written as usual)."""
    real = store_module.atomic_write

    def killed(path, data, mode=None):
        if str(path).endswith(f"{doc_id}.md"):
            raise SystemExit("killed")
        real(path, data, mode)

    with monkeypatch.context() as patched:
        patched.setattr(store_module, "atomic_write", killed)
        with pytest.raises(SystemExit):
            docs.write_doc(doc_id, body=body)


def _a_second_write_killed_before_its_doc_landed(tiers, monkeypatch) -> Docs:
    """notes v1, then a write killed before its doc landed."""
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    _kill_a_write_before_its_doc_lands(docs, monkeypatch)
    return docs


def test_a_version_that_never_landed_is_dropped_when_the_history_is_next_looked_at(tiers, monkeypatch):
    docs = _a_second_write_killed_before_its_doc_landed(tiers, monkeypatch)
    assert len(_files(tiers, "notes")) == 2  # on disk, one version ahead of the doc
    versions = docs.read_doc("notes@history").versions
    assert [(v.number, v.current) for v in versions] == [(1, True)]  # settled: never shown
    assert len(_files(tiers, "notes")) == 1
    assert docs.write_doc("notes", body="# Notes\n\nnext\n").changes[0].version == 2


def test_a_cut_short_version_file_is_treated_as_absent(tiers):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    docs.write_doc("notes", body="# Notes\n\ntwo\n")
    newest = tiers.local / ".history" / "notes@" / _files(tiers, "notes")[-1]
    newest.write_bytes(newest.read_bytes()[:-3])  # a power loss cut it short
    versions = _docs(tiers).read_doc("notes@history").versions  # the next process to look
    assert [(v.number, v.author.surface) for v in versions] == [(2, "outside"), (1, "mcp")]


# -- the file format: pending until landed, the old format still read ---------------------------------

FORMAT_1_KEYS = {"n", "time", "by", "before", "after", "local_before", "local_after", "added", "removed"}


def test_a_version_says_it_has_not_landed_until_its_doc_has(tiers, monkeypatch):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    seen = []
    real = store_module.atomic_write

    def look_first(path, data, mode=None):  # what a kill just before the doc's rename leaves
        seen.append((tiers.local / ".history" / "notes@" / "00000002").read_bytes())
        real(path, data, mode)

    monkeypatch.setattr(store_module, "atomic_write", look_first)
    docs.write_doc("notes", body="# Notes\n\ntwo\n")
    landed = (tiers.local / ".history" / "notes@" / "00000002").read_bytes()
    assert seen[0].startswith(b'{"landed":0,')
    assert landed.startswith(b'{"landed":1,')
    assert seen[0][12:] == landed[12:]  # the commit changed that one digit, nothing else
    header = json.loads(landed.split(b"\n", 1)[0])
    assert header.keys() >= FORMAT_1_KEYS  # an older release reads it as a landed version
    assert _files(tiers, "notes") == ["00000001", "00000002"]


def test_the_header_line_is_what_json_writes_for_its_fields():
    author = Author("mcp", name='a "quoted" client\\ é \u2603', version="1.0\n\t", where="\x01")
    text = "# Notes\r\n\r\nline without an end"
    state = State(text.encode(), text, _sha(text), local=True)
    for pending, restores in ((True, None), (False, 7)):
        header, data = encode(
            12, 1_700_000_000.123456, author, "ab" * 32, False, state, 3, 1, restores, 10_000, pending
        )
        line, _, rest = data.partition(b"\n")
        expected = {
            "landed": 0 if pending else 1,
            "format": 2,
            "n": 12,
            "time": 1_700_000_000.123,
            "by": {"surface": "mcp", "name": author.name, "where": "\x01", "version": author.version},
            "before": "ab" * 32,
            "after": _sha(text),
            "local_before": False,
            "local_after": True,
            "added": 3,
            "removed": 1,
            "lines": 3,
            "kept": True,
            "restores": restores,
        }
        assert line.decode() == json.dumps(expected, ensure_ascii=False, separators=(",", ":"))
        assert rest == text.encode()
        assert header == header_of(json.loads(line), len(data))
    header, data = encode(1, 0.0, author, None, False, state, 0, 0, None, 100, False)  # over the bound
    assert (header.kept, data.endswith(b'"kept":false,"restores":null}\n'), len(data)) == (
        False,
        True,
        header.size,
    )


def _a_second_write_whose_commit_never_ran(tiers, monkeypatch) -> tuple[Docs, Path]:
    """notes v1, then v2 whose doc landed but whose commit was interrupted; v2's version file."""
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")

    def interrupted(self, doc_id, number):
        raise KeyboardInterrupt

    with monkeypatch.context() as patched:
        patched.setattr(History, "commit", interrupted)
        with pytest.raises(KeyboardInterrupt):
            docs.write_doc("notes", body="# Notes\n\ntwo\n")
    version_2 = tiers.local / ".history" / "notes@" / "00000002"
    assert version_2.read_bytes().startswith(b'{"landed":0,')
    return docs, version_2


def test_a_commit_cut_short_in_the_process_is_made_at_its_next_write(tiers, monkeypatch):
    """The doc landed but the commit never ran (an interrupt between the two): the process must
    not build on what it knew, but settle first, which commits the version (the doc matches)."""
    docs, version_2 = _a_second_write_whose_commit_never_ran(tiers, monkeypatch)
    docs.write_doc("notes", old="two", new="three")  # the same process, the same store
    assert version_2.read_bytes().startswith(b'{"landed":1,')
    versions = docs.read_doc("notes@history").versions
    assert [(v.number, v.author) for v in versions] == [(3, AGENT), (2, AGENT), (1, AGENT)]


def _format_1(number: int, author: str, before: str | None, text: str) -> bytes:
    """A version file as format 1 wrote it: no ``landed`` field (the name said it)."""
    data = text.encode()
    header = {
        "format": 1,
        "n": number,
        "time": 1_700_000_000 + number,
        "by": {"surface": author},
        "before": before,
        "after": _sha(text),
        "local_before": before is not None,
        "local_after": True,
        "added": 1,
        "removed": 0,
        "lines": text.count("\n"),
        "kept": True,
        "restores": None,
    }
    return json.dumps(header, separators=(",", ":")).encode() + b"\n" + data


@pytest.mark.parametrize("landed", [True, False])
def test_a_history_in_format_1_is_still_read_and_its_pending_version_settled(tiers, landed):
    one, two = "# Notes\n\none\n", "# Notes\n\ntwo\n"
    folder = tiers.local / ".history" / "notes@"
    folder.mkdir(parents=True)
    (folder / "00000001").write_bytes(_format_1(1, "cli", None, one))
    (folder / "00000002.pending").write_bytes(_format_1(2, "mcp", _sha(one), two))
    tiers.put_local("notes", two if landed else one)  # killed after the doc's rename, or before
    docs = _docs(tiers)
    versions = docs.read_doc("notes@history").versions
    assert [(v.number, v.author.surface) for v in versions] == (
        [(2, "mcp"), (1, "cli")] if landed else [(1, "cli")]
    )
    assert _files(tiers, "notes") == (["00000001", "00000002"] if landed else ["00000001"])
    assert docs.read_doc("notes@v1").text == one
    docs.write_doc("notes", body="# Notes\n\nthree\n")  # the next version is written in format 2
    newest = folder / _files(tiers, "notes")[-1]
    assert newest.read_bytes().startswith(b'{"landed":1,"format":2,')
    assert [v.number for v in docs.read_doc("notes@history").versions] == ([3, 2, 1] if landed else [2, 1])


def test_a_pending_version_an_older_release_left_is_seen_by_a_process_that_knew_the_history(tiers):
    """An older release (format 1) killed before its doc's rename leaves ``<n>.pending``: a process
    that listed the history before must not take n for free, but settle (and remove it) first."""
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n\none\n")
    folder = tiers.local / ".history" / "notes@"
    folder.mkdir()  # v1, the create's, is in .history/firsts
    (folder / "00000002.pending").write_bytes(_format_1(2, "cli", _sha("# Notes\n\none\n"), "never landed\n"))
    docs.write_doc("notes", old="one", new="two")
    assert _files(tiers, "notes") == ["00000001", "00000002"]
    versions = docs.read_doc("notes@history").versions
    assert [(v.number, v.author) for v in versions] == [(2, AGENT), (1, AGENT)]


def test_at_the_bound_the_dropped_oldest_file_holds_the_new_version(tiers):
    """Dropping the oldest and writing the newest reuse one file (a rename and a write over it),
    rather than removing one and making another: on some file systems making a file costs as much
    as the fsynced write of the doc itself."""
    docs = _docs(tiers, max_versions=3, max_bytes=DEFAULT_MAX_BYTES)
    for n in range(4):  # v1, the create's, is a record in .history/firsts: dropped, not given over
        docs.write_doc("notes", body=f"# Notes\n\nwrite {n}\n" + "a longer line of text\n" * (9 - n))
    folder = tiers.local / ".history" / "notes@"
    assert _files(tiers, "notes") == ["00000002", "00000003", "00000004"]
    held = tiers.local.parent / "the-oldest-file"  # a second name: the file cannot be freed and reused
    os.link(folder / "00000002", held)
    docs.write_doc("notes", body="# Notes\n\nshort\n")
    assert _files(tiers, "notes") == ["00000003", "00000004", "00000005"]
    assert (folder / "00000005").stat().st_ino == held.stat().st_ino
    assert held.read_bytes() == (folder / "00000005").read_bytes()
    assert docs.read_doc("notes@v5").text == "# Notes\n\nshort\n"  # cut to its length: it verifies
    assert [v.number for v in docs.read_doc("notes@history").versions] == [5, 4, 3]


# -- never a doc -------------------------------------------------------------------------------------


def test_the_history_is_never_a_doc(tiers):
    docs = _docs(tiers)
    for n in range(2):  # a second version each: the first of a created doc is in .history/firsts
        docs.write_doc("lab/notes", body=f"# Notes {n}\n")
        docs.write_doc("lab", body=f"# Lab {n}\n")
    store = docs.store
    assert sorted(store.local_ids()) == ["lab", "lab/notes"]
    assert (tiers.local / ".history" / "lab" / "notes@").is_dir()
    assert (tiers.local / ".history" / "lab@").is_dir()  # '@' keeps a doc's folder apart from an id's
    assert (tiers.local / ".history" / "firsts").is_file()
    for hidden in (".history/lab@/00000002", ".history/lab", "lab@", ".history/firsts"):
        with pytest.raises(InvalidDocId):
            docs.read_doc(hidden)
    assert not any(".history" in path for path, *_ in store.fingerprint())
    assert not any(".history" in path for path, *_ in store.fingerprint(["lab", "lab/notes"]))
    assert ".history" not in (tiers.local / ".shipped-manifest.json").read_text()


def test_reading_a_history_creates_nothing(tiers):
    docs = _docs(tiers)
    assert docs.read_doc("flatfield@history").versions == ()
    assert "No versions yet" in text(docs.read_doc("flatfield@history"))
    with pytest.raises(DocNotFound, match="has no versions kept"):
        docs.read_doc("flatfield@v1")
    assert not tiers.local.exists()


def test_an_unknown_doc_has_no_history(tiers):
    with pytest.raises(DocNotFound, match="No doc 'nope'"):
        _docs(tiers).read_doc("nope@history")


# -- the bounds ----------------------------------------------------------------------------------------


def test_the_default_bounds_are_100_versions_and_2_mib():
    assert (DEFAULT_MAX_VERSIONS, DEFAULT_MAX_BYTES) == (100, 2 * 1024 * 1024)
    assert HistoryLimits() == HistoryLimits(100, 2 * 1024 * 1024)


def test_at_most_100_versions_are_kept_the_oldest_dropped_first(tiers):
    docs = _docs(tiers)
    for n in range(101):
        docs.write_doc("notes", body=f"# Notes\n\nwrite {n}\n")
    assert len(_files(tiers, "notes")) == 100
    versions = docs.read_doc("notes@history").versions
    assert [v.number for v in versions] == list(range(101, 1, -1))
    assert docs.read_doc("notes@v2").text == "# Notes\n\nwrite 1\n"
    with pytest.raises(DocNotFound, match="the oldest kept is v2"):
        docs.read_doc("notes@v1")
    header = text(docs.read_doc("notes@history")).split("\n")[0]
    assert "at most 100 versions and 2 MiB per doc are kept, the oldest dropped first" in header


def test_at_most_2_mib_are_kept_per_doc_the_oldest_dropped_first(tiers):
    docs = _docs(tiers)
    line = "x" * 999 + "\n"
    sizes = []
    for n in range(45):  # each version about 60 KB (a doc is at most 64 KiB): 34 fit in 2 MiB, not 35
        docs.write_doc("big", body=f"# Big {n}\n" + line * 60)
        sizes.append(_bytes_on_disk(tiers, "big"))
    assert max(sizes) <= 2 * 1024 * 1024
    kept = [v.number for v in docs.read_doc("big@history").versions]
    assert kept == list(range(45, 45 - len(kept), -1))
    assert 30 <= len(kept) < 45  # the byte bound, not the count, dropped the oldest
    one = (tiers.local / ".history" / "big@" / _files(tiers, "big")[-1]).stat().st_size
    assert len(kept) == (2 * 1024 * 1024) // one


@pytest.mark.parametrize(
    ("max_bytes", "kept"), [(602, [2, 1]), (601, [2])], ids=["exactly-the-bound", "one-byte-over"]
)
def test_versions_totalling_exactly_the_byte_bound_are_all_kept_and_one_byte_more_drops_the_oldest(
    tiers, max_bytes, kept
):
    """v1 (262 bytes, an older release's file) and an outside edit's v2 (340 bytes, its time the
    doc's mtime): 602 bytes in all, kept under a bound of 602; under 601 the oldest goes."""
    one, two = "# Notes\n\none\n", "# Notes\n\ntwo\n"
    folder = tiers.local / ".history" / "notes@"
    folder.mkdir(parents=True)
    (folder / "00000001").write_bytes(_format_1(1, "cli", None, one))
    os.utime(tiers.put_local("notes", two), (1_700_000_100, 1_700_000_100))
    docs = _docs(tiers, max_versions=100, max_bytes=max_bytes)
    assert [v.number for v in docs.read_doc("notes@history").versions] == kept  # settling records v2
    sizes = {name: (folder / name).stat().st_size for name in _files(tiers, "notes")}
    assert sizes == {"00000001": 262, "00000002": 340} if kept == [2, 1] else {"00000002": 340}


def test_a_version_alone_over_the_byte_bound_keeps_who_and_when_without_its_text(tiers):
    docs = _docs(tiers, max_versions=100, max_bytes=1000)
    docs.write_doc("notes", body="# Notes\n")
    docs.write_doc("notes", body="# Notes\n" + "a long line of text\n" * 60)
    newest = docs.read_doc("notes@history").versions[0]
    assert (newest.kept, newest.author, newest.current) == (False, AGENT, True)
    assert "text not kept (over the byte bound)" in text(docs.read_doc("notes@history"))
    with pytest.raises(EditRefused, match="over the history's byte bound"):
        docs.restore_doc("notes", newest.number)
    assert _bytes_on_disk(tiers, "notes") <= 1000


@pytest.mark.parametrize(
    ("max_bytes", "kept", "size", "body"),
    [
        (340, True, 340, "# Notes\n\ntwo\n"),
        (339, False, 328, "Its text was not kept: it alone was over the history's byte bound.\n"),
    ],
    ids=["exactly-the-bound", "one-byte-over"],
)
def test_a_version_of_exactly_the_byte_bound_keeps_its_text_and_one_byte_more_does_not(
    tiers, max_bytes, kept, size, body
):
    """An outside edit's v2 is 340 bytes with its text (its time the doc's mtime): under a bound of
    340 it keeps the text; under 339 only its 328-byte header, who and when, is kept."""
    folder = tiers.local / ".history" / "notes@"
    folder.mkdir(parents=True)
    (folder / "00000001").write_bytes(_format_1(1, "cli", None, "# Notes\n\none\n"))
    os.utime(tiers.put_local("notes", "# Notes\n\ntwo\n"), (1_700_000_100, 1_700_000_100))
    docs = _docs(tiers, max_versions=100, max_bytes=max_bytes)
    versions = docs.read_doc("notes@history").versions
    assert [(v.number, v.kept, v.author.surface) for v in versions] == [(2, kept, "outside")]
    assert (folder / "00000002").stat().st_size == size
    assert text(docs.read_doc("notes@v2")).partition("]\n\n")[2] == body  # after the local-time header


def test_the_history_hint_names_an_older_version_whose_text_was_kept(tiers):
    docs = _docs(tiers, max_versions=100, max_bytes=2000)
    docs.write_doc("notes", body="# Notes\n")
    docs.write_doc("notes", body="# Notes\n" + "a long line of text\n" * 120)
    docs.write_doc("notes", body="# Notes\n\nshort again\n")
    listing = text(docs.read_doc("notes@history"))
    assert "\nv2 · " in listing
    assert "text not kept (over the byte bound)" in listing
    hint = listing.rstrip("\n").split("\n")[-1]
    assert hint == (
        'read_doc("notes@v1") reads a version; restore_doc("notes", 1) writes its text back as a new version.'
    )


def test_zero_versions_keeps_no_history(tiers):
    docs = _docs(tiers, max_versions=0, max_bytes=1000)
    result = docs.write_doc("notes", body="# Notes\n")
    assert result.changes[0].version is None
    assert not (tiers.local / ".history").exists()
    assert "no history is kept here" in text(docs.read_doc("notes@history"))


# -- restore, and diffs between versions ------------------------------------------------------------------


def test_restore_writes_an_old_text_back_as_a_new_version(tiers):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n\nfirst\n")
    docs.write_doc("notes", body="# Notes\n\nsecond\n")
    result = _docs(tiers, author=USER).restore_doc("notes", "v1")
    assert tiers.local_text("notes") == "# Notes\n\nfirst\n"
    assert (result.restored, result.changes[0].version) == (1, 3)
    newest = docs.read_doc("notes@history").versions[0]
    assert (newest.number, newest.restores, newest.author) == (3, 1, USER)
    assert text(result).startswith("Restored 'notes' to the text of v1 (a new version; nothing was lost).")
    assert "+first" in text(result)


def test_restore_is_guarded_like_a_body_write(tiers):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n\nfirst\n")
    docs.read_doc("notes")
    _docs(tiers, author=USER).write_doc("notes", body="# Notes\n\nthe user's\n")
    with pytest.raises(StaleWrite, match="changed on disk since you last read it"):
        docs.restore_doc("notes", 1)
    with pytest.raises(StaleWrite, match="has changed since"):
        docs.restore_doc("notes", 1, if_match=_sha("# Notes\n\nfirst\n"))
    docs.restore_doc("notes", 1, if_match=_sha("# Notes\n\nthe user's\n"))
    assert tiers.local_text("notes") == "# Notes\n\nfirst\n"


@pytest.mark.parametrize("version", [0, -1, "x", "v", True, 1.5, "v\u0661", "\u00b2", 10**9, "1" * 10])
def test_a_version_that_is_not_a_number_is_refused(tiers, version):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    with pytest.raises(InvalidArguments, match="a number such as 12"):
        docs.restore_doc("notes", version)


def test_a_version_names_the_kept_version_before_it_and_the_first_names_none(tiers):
    docs = _docs(tiers)
    for word in ("one", "two", "three"):
        docs.write_doc("notes", body=f"# Notes\n\n{word}\n")
    assert [docs.read_doc(f"notes@v{n}").previous for n in (1, 2, 3)] == [None, 1, 2]


def test_an_old_version_holding_the_current_text_is_not_the_current_version(tiers):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n\nfirst\n")
    docs.write_doc("notes", body="# Notes\n\nsecond\n")
    docs.restore_doc("notes", 1)  # v3 holds v1's text again
    assert [docs.read_doc(f"notes@v{n}").version.current for n in (1, 2, 3)] == [False, False, True]


def test_restoring_the_index_is_one_call(tiers):
    docs = _docs(tiers)
    docs.write_doc("index", old="- data: how arrays are laid out\n", new="")
    docs.restore_doc("index", 1)
    assert "- data: how arrays are laid out\n" in tiers.local_text("index")


def test_two_versions_or_a_version_and_the_current_text_can_be_diffed(tiers):
    docs = _docs(tiers)
    for word in ("one", "two", "three"):
        docs.write_doc("notes", body=f"# Notes\n\n{word}\n")
    view = docs.diff_versions("notes", 1, "v2")
    assert "-one\n+two" in view.diff()
    assert "a/notes.md (v1)" in view.diff()
    current = docs.diff_versions("notes", 2)
    assert current.newer is None
    assert "+three" in current.diff()
    assert "v2 against the current text" in text(current)


def test_line_delta_counts_lines_added_and_removed():
    assert line_delta(None, "a\nb\n") == (2, 0)
    assert line_delta("a\nb\nc\n", "a\nB\nc\n") == (1, 1)
    assert line_delta("a\nb\nc\nd\n", "x\nb\nc\ny\n") == (2, 2)  # two hunks, the middle kept
    assert line_delta("a\n", "a\n") == (0, 0)
    assert line_delta("x\n", "y\nx\nz\n") == (2, 0)  # one line on one side, kept inside the other
    assert line_delta("q\nx\nz\n", "y\n") == (1, 3)  # one line on one side, found nowhere


def test_line_delta_agrees_with_difflib_where_the_alignment_is_unique():
    rng = random.Random(18)
    for _ in range(500):
        before = [f"line {rng.randrange(1000)}" for _ in range(rng.randrange(8))]
        after = list(before)
        for _ in range(rng.randrange(1, 4)):
            at = rng.randrange(len(after) + 1)
            if after and rng.random() < 0.5:
                del after[min(at, len(after) - 1)]
            else:
                after.insert(at, f"new {rng.randrange(1000)}")
        a, b = "".join(f"{line}\n" for line in before), "".join(f"{line}\n" for line in after)
        diff = list(difflib.ndiff(a.splitlines(), b.splitlines()))
        expected = (sum(d.startswith("+ ") for d in diff), sum(d.startswith("- ") for d in diff))
        if len(set(before)) == len(before) and len(set(after)) == len(after):
            assert line_delta(a, b) == expected, (a, b)
        added, removed = line_delta(a, b)
        assert added - removed == len(after) - len(before)


def test_line_delta_agrees_with_difflib_where_lines_share_their_ends_or_the_last_has_no_newline():
    # lines that begin or end alike make the common head and tail stop inside a line, and an
    # unterminated last line moves the tail's line start: the counts must still be difflib's
    rng = random.Random(23)
    pieces = ["a", "b", "ab", "ba", "x", ""]
    for _ in range(3000):
        words = rng.sample([p + q + r for p in pieces for q in pieces for r in pieces if p + q + r], 12)
        before = words[: rng.randrange(6)]
        after = list(before)
        spare = words[6:]
        for _ in range(rng.randrange(1, 3)):
            at = rng.randrange(len(after) + 1)
            if after and rng.random() < 0.5:
                del after[min(at, len(after) - 1)]
            elif spare:
                after.insert(at, spare.pop())
        a = "\n".join(before) + ("\n" if before and rng.random() < 0.5 else "")
        b = "\n".join(after) + ("\n" if after and rng.random() < 0.5 else "")
        diff = list(difflib.ndiff(a.splitlines(), b.splitlines()))
        expected = (sum(d.startswith("+ ") for d in diff), sum(d.startswith("- ") for d in diff))
        assert line_delta(a, b) == expected, (a, b)


@pytest.mark.parametrize(
    ("before", "after", "counts"),
    [
        ("\nx\n\n", "x\nax\n\n", (1, 1)),  # a leading blank line dropped, one line reworded
        ("\n\n\nx\na", "\nx\n\n\nbx\n", (2, 2)),  # three blank lines kept around a moved x
        ("a\nx\na", "x\naa\na", (1, 1)),  # the unterminated last line kept
    ],
)
def test_line_delta_keeps_repeated_lines_a_diff_keeps(before, after, counts):
    # where the common head or tail ends inside a line, the line it snaps back to decides which
    # repeated lines stay matched: each of these is the fewest lines a line diff can show
    assert line_delta(before, after) == counts


def test_line_delta_counts_a_long_edit_among_many_blank_lines_exactly():
    # every step reworded, the blank lines between them kept: difflib's autojunk would take a line
    # repeated in over 1 % of 200 or more lines for junk and count the 200 blank lines as changed
    before = "".join(f"step {n}\n\n\n" for n in range(100))
    after = "".join(f"Step {n}.\n\n\n" for n in range(100))
    assert line_delta(before, after) == (100, 100)


# -- what a write says ------------------------------------------------------------------------------------


def test_a_body_write_that_more_than_halves_a_doc_says_so_and_names_the_restore(tiers):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n" + "a line of procedure\n" * 40)
    result = docs.write_doc("notes", body="# Notes\n\nshort now\n")
    assert result.shrink is not None
    assert (result.shrink.lines_before, result.shrink.lines_after, result.shrink.version) == (41, 3, 1)
    said = text(result)
    assert "This write shrank 'notes' to less than half: from 41 to 3 lines" in said
    assert 'restore_doc("notes", 1) brings the old text back (read_doc("notes@v1") shows it)' in said


def test_a_write_that_keeps_half_or_an_old_new_edit_says_nothing_of_shrinking(tiers):
    docs = _docs(tiers)
    body = "# Notes\n" + "abcd\n" * 20
    docs.write_doc("notes", body=body)
    assert docs.write_doc("notes", body=body[: len(body) // 2 + 1]).shrink is None  # exactly half kept
    docs.write_doc("notes", body=body)
    assert docs.write_doc("notes", old="# Notes\n" + "abcd\n" * 19, new="# Notes\n").shrink is None


def test_an_index_write_that_breaks_an_entry_line_says_which_and_still_writes(tiers):
    docs = _docs(tiers)
    result = docs.write_doc("index", old="- flatfield: correct", new="- flatfield correct")
    assert [(e.id, e.line, e.text) for e in result.lost_entries] == [
        ("flatfield", 6, "- flatfield correct uneven illumination")
    ]
    said = text(result)
    assert "The index no longer lists 'flatfield': line 7" in said
    assert "with a colon right after the id" in said
    assert "- flatfield correct uneven illumination" in tiers.local_text("index")


def test_a_dropped_entry_is_never_matched_to_the_line_of_a_longer_id_it_begins(tiers):
    docs = _docs(tiers)
    docs.write_doc(
        "index", old="- stitch-tiles: assemble", new="- flatfield-3d: in stacks\n- stitch-tiles: assemble"
    )
    result = docs.write_doc("index", old="- flatfield: correct uneven illumination\n", new="")
    assert [(e.id, e.line, e.text) for e in result.lost_entries] == [("flatfield", None, None)]
    assert "The index no longer lists 'flatfield': its line is gone" in text(result)


def test_an_index_write_that_drops_entries_names_them(tiers):
    docs = _docs(tiers)
    result = docs.write_doc(
        "index",
        old="- flatfield: correct uneven illumination\n- stitch-tiles: assemble a grid of tiles\n",
        new="",
    )
    assert [(e.id, e.line) for e in result.lost_entries] == [("flatfield", None), ("stitch-tiles", None)]
    assert "The index no longer lists 'flatfield', 'stitch-tiles': their lines are gone" in text(result)
    moved = docs.write_doc("index", old="- data: how", new="- data: where")
    assert moved.lost_entries == ()


# -- retire and drop ----------------------------------------------------------------------------------------


def test_retire_removes_the_index_line_and_leaves_the_file(tiers):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    result = docs.retire_doc("notes")
    assert "- notes:" not in tiers.local_text("index")
    assert tiers.local_text("notes") == "# Notes\n"
    assert [e.id for e in result.lost_entries] == ["notes"]
    assert docs.read_doc("index@history").versions[0].author == AGENT
    with pytest.raises(EditRefused, match="already retired"):
        docs.retire_doc("notes")


def test_retiring_a_shipped_doc_also_ignores_it(tiers):
    docs = _docs(tiers)
    docs.retire_doc("stitch-tiles")
    index = docs.index()
    assert "stitch-tiles" in index.ignored
    assert "stitch-tiles" not in [item.id for item in index.new_shipped]


def test_retiring_a_local_doc_leaves_the_ignored_line_alone(tiers):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    docs.retire_doc("notes")
    index = docs.index()
    assert index.ignored == ("old-method",)
    assert "ignored: old-method\n" in tiers.local_text("index")
    assert "notes" not in tiers.local_text("index")


def test_drop_removes_a_local_copy_equal_to_shipped_and_the_history_keeps_it(tiers):
    docs = _docs(tiers, author=USER)
    shipped = (tiers.shipped / "flatfield.md").read_text()
    docs.write_doc("flatfield", old="Step one.", new="Step one, mine.")
    docs.write_doc("flatfield", old="Step one, mine.", new="Step one.")
    assert tiers.local_text("flatfield") == shipped
    result = docs.drop_local_copy("flatfield")
    assert result.outcome == "removed"
    assert not (tiers.local / "flatfield.md").exists()
    newest = docs.read_doc("flatfield@history").versions[0]
    assert (newest.author, newest.local, newest.current) == (USER, False, True)
    assert "Dropped the local copy of 'flatfield': it reads the shipped text again" in text(result)
    assert docs.read_doc("flatfield").tier == "shipped"
    docs.restore_doc("flatfield", 2)  # the dropped copy's edit can come back
    assert "Step one, mine." in tiers.local_text("flatfield")


def _drop_the_copy_then_release(docs, tiers) -> str:
    """A local copy of flatfield made and dropped (v4 reads the shipped text again), then a release
    that changes the shipped text; returns that text."""
    docs.write_doc("flatfield", old="Step one.", new="Step one, mine.")
    docs.write_doc("flatfield", old="Step one, mine.", new="Step one.")
    docs.drop_local_copy("flatfield")
    released = (tiers.shipped / "flatfield.md").read_text() + "\nA release added this.\n"
    tiers.ship("flatfield", released)
    return released


def test_a_copy_made_after_a_drop_and_a_new_release_keeps_the_new_shipped_text_as_the_next_version(tiers):
    docs = _docs(tiers, author=USER)
    released = _drop_the_copy_then_release(docs, tiers)
    docs.write_doc("flatfield", old="Step one.", new="Step one, again.")
    versions = list(reversed(docs.read_doc("flatfield@history").versions))
    assert [(v.number, v.author.surface) for v in versions] == [
        (1, "shipped"),
        (2, "magic"),
        (3, "magic"),
        (4, "magic"),
        (5, "shipped"),
        (6, "magic"),
    ]
    assert docs.read_doc("flatfield@v5").text == released


def test_drop_refuses_a_copy_that_differs_and_a_doc_with_no_shipped_text(tiers):
    docs = _docs(tiers)
    docs.write_doc("flatfield", old="Step one.", new="Step one, mine.")
    with pytest.raises(EditRefused, match="differs from the shipped text"):
        docs.drop_local_copy("flatfield")
    docs.write_doc("notes", body="# Notes\n")
    with pytest.raises(EditRefused, match="there is no delete"):
        docs.drop_local_copy("notes")
    with pytest.raises(DocNotFound, match="no local copy"):
        docs.drop_local_copy("data")
    assert (tiers.local / "flatfield.md").is_file()
    assert (tiers.local / "notes.md").is_file()


def test_drop_is_guarded_by_if_match_like_any_write(tiers):
    docs = _docs(tiers, author=USER)
    shipped = (tiers.shipped / "flatfield.md").read_text()
    docs.write_doc("flatfield", old="Step one.", new="Step one, mine.")
    docs.write_doc("flatfield", old="Step one, mine.", new="Step one.")
    with pytest.raises(StaleWrite, match="has changed since"):
        docs.drop_local_copy("flatfield", if_match=_sha("# an older text\n"))
    assert tiers.local_text("flatfield") == shipped  # the copy is still there
    assert docs.drop_local_copy("flatfield", if_match=_sha(shipped)).outcome == "removed"


def test_what_a_process_knows_of_a_history_is_checked_against_later_versions(tiers):
    """Another process writing the doc away and back (the same bytes again) must not make this one
    reuse its listing: its next version goes after the other's, and theirs are kept."""
    first, other = _docs(tiers), _docs(tiers, author=USER)  # two stores: two processes' caches
    first.write_doc("notes", body="# Notes\n\nsame\n")
    other.write_doc("notes", body="# Notes\n\nelse\n")
    other.write_doc("notes", body="# Notes\n\nsame\n")
    first.write_doc("notes", body="# Notes\n\nlast\n")
    versions = list(reversed(first.read_doc("notes@history").versions))
    assert [(v.number, v.author) for v in versions] == [(1, AGENT), (2, USER), (3, USER), (4, AGENT)]
    for earlier, later in itertools.pairwise(versions):
        assert later.before_sha256 == earlier.after_sha256


def _listings(monkeypatch) -> list[str]:
    """The folders of versions listed from now on, in order."""
    listed: list[str] = []
    real = VersionFolders.listing

    def listing(self, folder: str):
        listed.append(folder)
        return real(self, folder)

    monkeypatch.setattr(VersionFolders, "listing", listing)
    return listed


def test_a_run_of_writes_in_one_process_lists_the_doc_s_versions_only_once(tiers, monkeypatch):
    """While the doc stays in its newest version's state and no later version appears, a process
    reuses what it listed: once a write has landed, the next ones and a read list nothing."""
    docs = _docs(tiers)
    listed = _listings(monkeypatch)
    for n in range(4):
        docs.write_doc("notes", body=f"# Notes\n\nwrite {n}\n")
    assert [v.number for v in docs.read_doc("notes@history").versions] == [4, 3, 2, 1]
    assert [os.path.basename(folder) for folder in listed if "notes" in folder] == ["notes@"]  # the create's


def test_a_body_write_to_exactly_half_says_nothing_of_shrinking_and_one_character_less_does(tiers):
    docs = _docs(tiers)
    body = "# Notes\n" + "abcd\n" * 20  # 108 characters
    half = "# Notes\n" + "abcd\n" * 9 + "\n"  # 54: exactly half
    assert (len(body), len(half)) == (108, 54)
    docs.write_doc("notes", body=body)
    assert docs.write_doc("notes", body=half).shrink is None
    docs.write_doc("notes", body=body)
    assert docs.write_doc("notes", body=half[:-2] + "\n").shrink is not None  # 53 characters


def test_a_commit_by_a_process_that_did_not_record_the_version_marks_it_landed_on_disk(tiers, monkeypatch):
    """The history's own commit, in a process that has no record of the pending version: it finds
    the version on disk and commits it there, so a later outside edit is one more version."""
    docs, version_2 = _a_second_write_whose_commit_never_ran(tiers, monkeypatch)
    _docs(tiers).store.history.commit("notes", 2)  # another process's History
    assert version_2.read_bytes().startswith(b'{"landed":1,')
    (tiers.local / "notes.md").write_text("# Notes\n\nedited outside\n")
    versions = docs.read_doc("notes@history").versions
    assert [(v.number, v.author.surface) for v in versions] == [(3, "outside"), (2, "mcp"), (1, "mcp")]


def test_a_commit_this_process_has_no_record_of_makes_it_read_the_history_from_disk_again(tiers):
    """What a process knew of a history is dropped by a commit it cannot match to its own record:
    a newest version cut short since (a power loss) is then found, and the doc's text recorded
    as an outside edit, as a fresh process would see it."""
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    docs.write_doc("notes", body="# Notes\n\ntwo\n")
    newest = tiers.local / ".history" / "notes@" / "00000002"
    newest.write_bytes(newest.read_bytes()[:-3])
    docs.store.history.commit("notes", 2)  # committed already: not a version it has pending
    versions = docs.read_doc("notes@history").versions
    assert [(v.number, v.author.surface, v.current) for v in versions] == [
        (2, "outside", True),
        (1, "mcp", False),
    ]


def test_forget_by_a_process_that_did_not_record_the_version_removes_only_that_version(tiers, monkeypatch):
    docs = _a_second_write_killed_before_its_doc_landed(tiers, monkeypatch)
    assert _files(tiers, "notes") == ["00000001", "00000002"]
    _docs(tiers).store.history.forget("notes", 2)  # another process's History
    assert _files(tiers, "notes") == ["00000001"]
    versions = docs.read_doc("notes@history").versions
    assert [(v.number, v.author.surface, v.current) for v in versions] == [(1, "mcp", True)]


def test_a_version_recording_the_doc_removed_says_no_local_file_holds_it(tiers):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    (tiers.local / "notes.md").unlink()
    removed, written = docs.history("notes").versions
    assert (removed.after_sha256, removed.local) == (None, False)
    assert written.local is True


def test_forget_removes_only_a_pending_version_never_a_landed_one_of_that_number(tiers, monkeypatch):
    """forget(n) in the process that recorded pending v3: n = 3 would remove v3 at once, but v2
    landed, so forget(2) removes nothing (v3 stays until settling finds its doc never landed)."""
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    docs.write_doc("notes", body="# Notes\n\ntwo\n")
    _kill_a_write_before_its_doc_lands(docs, monkeypatch)
    assert _files(tiers, "notes") == ["00000001", "00000002", "00000003"]
    docs.store.history.forget("notes", 2)
    assert _files(tiers, "notes") == ["00000001", "00000002", "00000003"]
    versions = docs.read_doc("notes@history").versions
    assert [(v.number, v.current) for v in versions] == [(2, True), (1, False)]
    assert docs.read_doc("notes@v2").text == "# Notes\n\ntwo\n"


@pytest.mark.parametrize("landed", [False, True], ids=["the-write-s-own", "an-outside-edit-s"])
def test_a_version_write_that_fails_part_way_leaves_no_file_in_the_history(tiers, monkeypatch, landed):
    """The disk fills up after a version's first bytes: the write is refused and nothing is left
    in the doc's history folder: neither the version cut short (written in place while pending)
    nor the temp file a landed version goes through (swept only once per process), and no
    descriptor is left open."""
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    docs.write_doc("notes", body="# Notes\n\ntwo\n")  # v2: the doc's history folder
    folder = tiers.local / ".history" / "notes@"
    docs.read_doc("notes@history")  # this process has listed (and swept) the folder
    before = open_files()
    if landed:
        tiers.put_local("notes", "# Notes\n\nby hand\n")  # the write records it first, as v3
    real, edited = os.write, "by hand" if landed else "two"
    failing = b'{"landed":1,' if landed else b'{"landed":0,'

    def full_disk(fd, data):
        if bytes(data[:12]) != failing:
            return real(fd, data)
        real(fd, data[:20])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(StoreUnavailable, match=r"the disk is full\. That file was left as it was"):
        docs.write_doc("notes", old=edited, new="lost")
    monkeypatch.undo()
    assert open_files() == before
    assert sorted(os.listdir(folder)) == ["00000002"]
    expected = [(3, "outside"), (2, "mcp"), (1, "mcp")] if landed else [(2, "mcp"), (1, "mcp")]
    versions = docs.read_doc("notes@history").versions
    assert [(v.number, v.author.surface) for v in versions] == expected
    assert sorted(os.listdir(folder)) == sorted(f"{n:08d}" for n, _ in expected if n > 1)


def test_a_version_of_a_doc_whose_only_version_never_landed_says_none_are_kept(tiers, monkeypatch):
    """A create killed before its doc landed, then the file made by hand: the history settles to
    no version at all, and asking for one names the listing call, not a disabled history."""
    _kill_a_write_before_its_doc_lands(_docs(tiers), monkeypatch, "ghost", "# Ghost\n")
    assert FirstVersions(str(tiers.local / ".history")).find("ghost") is not None  # pending, on disk
    tiers.put_local("ghost", "# Ghost, by hand\n")
    with pytest.raises(DocNotFound) as refused:
        _docs(tiers).read_doc("ghost@v1")
    message = str(refused.value)
    assert message.startswith("'ghost' has no versions kept: it has not been written through the store")
    assert 'read_doc("ghost@history") lists versions once it has' in message
    assert "history_max_versions is 0" not in message
    assert _docs(tiers).read_doc("ghost@history").versions == ()


def test_a_drop_that_fails_leaves_no_version_behind(tiers, monkeypatch):
    """The local copy cannot be removed (refused by the file system): the drop is refused, the copy
    stays, and the version recording the drop is not left on disk for the next look to find."""
    docs = _docs(tiers, author=USER)
    docs.write_doc("flatfield", old="Step one.", new="Step one, mine.")
    docs.write_doc("flatfield", old="Step one, mine.", new="Step one.")
    copy = tiers.local / "flatfield.md"
    real = os.unlink

    def refused(path, *args, **kwargs):
        if os.fspath(path) == str(copy):
            raise PermissionError(13, "Permission denied")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", refused)
    with pytest.raises(StoreUnavailable, match="Check that the local docs directory is writable"):
        docs.drop_local_copy("flatfield")
    monkeypatch.undo()
    assert copy.is_file()
    assert _files(tiers, "flatfield") == ["00000001", "00000002", "00000003"]
    versions = _docs(tiers).read_doc("flatfield@history").versions  # another process
    assert [(v.number, v.current) for v in versions] == [(3, True), (2, False), (1, False)]


def test_a_versions_header_counts_the_lines_its_write_changed_and_a_shipped_version_counts_none(tiers):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n\none\n")
    docs.write_doc("notes", body="# Notes\n\ntwo\nthree\n")
    header = text(docs.read_doc("notes@v2")).splitlines()[0]
    assert re.fullmatch(
        r"\[notes@v2 · \d{4}-\d\d-\d\d \d\d:\d\d · by claude-code 2\.1 via MCP · \+2 \u22121 lines · "
        r"the current text\]",
        header,
    ), header
    docs.write_doc("flatfield", body="# Flatfield\n\nThe lab's way.\n")
    shipped = text(docs.read_doc("flatfield@v1")).splitlines()[0]
    assert " lines" not in shipped, shipped


# -- what a process holds and leaves behind ------------------------------------------------------------


def test_the_bounds_a_store_was_given_cannot_be_changed_under_it(tiers):
    """HistoryLimits is a value (every store made without bounds shares one default instance): a
    change made through one store would move every store's bounds, so it is frozen, and hashable."""
    store = _docs(tiers, max_versions=3, max_bytes=1000).store
    with pytest.raises(dataclasses.FrozenInstanceError):
        store.history.limits.max_versions = 1000
    assert store.history.limits == HistoryLimits(3, 1000)
    assert len({HistoryLimits(3, 1000), HistoryLimits(3, 1000), HistoryLimits()}) == 2


def test_a_process_lists_a_history_once_however_often_it_reads_it_and_writes_after(tiers, monkeypatch):
    """A process that did not write the history (a fresh server, say) lists the doc's folder at its
    first look; its later reads, and its writes after them, reuse that listing."""
    _docs(tiers).write_doc("notes", body="# Notes\n\none\n")
    _docs(tiers).write_doc("notes", body="# Notes\n\ntwo\n")  # v2: the doc's folder
    docs = _docs(tiers)
    listed = _listings(monkeypatch)
    for _ in range(3):
        assert [v.number for v in docs.read_doc("notes@history").versions] == [2, 1]
    docs.write_doc("notes", body="# Notes\n\nthree\n")
    assert [v.number for v in docs.read_doc("notes@history").versions] == [3, 2, 1]
    assert [os.path.basename(folder) for folder in listed] == ["notes@"]


def test_a_process_s_first_look_at_a_history_removes_the_temp_files_a_killed_writer_left_and_nothing_else(
    tiers,
):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    docs.write_doc("notes", body="# Notes\n\ntwo\n")
    folder = tiers.local / ".history" / "notes@"
    (folder / ".tmp-0123456789abcdef.part").write_bytes(b'{"landed":1,"format":2,"n":3,')  # killed mid-write
    (folder / ".tmp-kept").write_text("not of a temp file's shape\n")
    (folder / "notes.txt").write_text("a file someone put here\n")
    versions = _docs(tiers).read_doc("notes@history").versions  # the next process to look
    assert [v.number for v in versions] == [2, 1]
    assert sorted(os.listdir(folder)) == [".tmp-kept", "00000002", "notes.txt"]


def test_a_write_whose_commit_was_cut_short_leaves_no_descriptor_open_once_the_next_write_lands(
    tiers, monkeypatch
):
    """The interrupted write's version stays open for its commit; the next look at the history
    commits it on disk and closes that descriptor (a server runs for weeks: 1,024 open files is a
    common limit, and past it every open fails)."""
    before = open_files()
    docs, version_2 = _a_second_write_whose_commit_never_ran(tiers, monkeypatch)
    docs.write_doc("notes", old="two", new="three")
    assert version_2.read_bytes().startswith(b'{"landed":1,')
    assert open_files() == before


def test_a_commit_of_another_version_than_the_pending_one_closes_it_and_commits_nothing(tiers, monkeypatch):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    docs.write_doc("notes", body="# Notes\n\ntwo\n")
    before = open_files()
    _kill_a_write_before_its_doc_lands(docs, monkeypatch)  # v3 pending, its descriptor kept for its commit
    docs.store.history.commit("notes", 2)  # landed already: not the version pending
    assert open_files() == before
    assert (tiers.local / ".history" / "notes@" / "00000003").read_bytes().startswith(b'{"landed":0,')
    versions = docs.read_doc("notes@history").versions
    assert [(v.number, v.current) for v in versions] == [(2, True), (1, False)]


def test_recording_edits_made_outside_the_store_leaves_no_descriptor_open(tiers):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    docs.write_doc("notes", body="# Notes\n\ntwo\n")
    before = open_files()
    for n in range(3):
        tiers.put_local("notes", f"# Notes\n\nby hand {n}\n")
        assert docs.history("notes").versions[0].author.surface == "outside"
    assert [v.number for v in docs.history("notes").versions] == [5, 4, 3, 2, 1]
    assert open_files() == before


def test_a_version_with_no_text_before_it_says_no_local_file_held_one(tiers):
    """A create's version, and the first of a doc from before history (its earlier text): nothing
    was there before either, so the header says ``before`` null and ``local_before`` false."""
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    tiers.put_local("mine", "# Mine\n\nwritten before history\n")
    docs.write_doc("mine", body="# Mine\n\nrewritten\n")
    firsts = FirstVersions(str(tiers.local / ".history"))
    created = firsts.read(firsts.find("notes"))
    earlier = (tiers.local / ".history" / "mine@" / "00000001").read_bytes()
    for data, text_after in ((created, "# Notes\n"), (earlier, "# Mine\n\nwritten before history\n")):
        header = json.loads(data.split(b"\n", 1)[0])
        assert (header["before"], header["local_before"]) == (None, False)
        assert (header["after"], header["local_after"]) == (_sha(text_after), True)


def test_an_outside_edit_counts_the_lines_it_changed_from_the_version_before(tiers):
    docs = _docs(tiers, max_versions=100, max_bytes=1000)
    docs.write_doc("notes", body="# Notes\n\none\ntwo\n")
    tiers.put_local("notes", "# Notes\n\none\nthree\nfour\n")
    outside = docs.history("notes").versions[0]
    assert (outside.number, outside.author.surface, outside.added, outside.removed) == (2, "outside", 2, 1)
    other = _docs(tiers, max_versions=100, max_bytes=1000)  # another process, under the same bounds
    other.write_doc("notes", body="# Notes\n" + "a long line of text\n" * 60)  # v3: its text not kept
    tiers.put_local("notes", "# Notes\n\nby hand\n")
    outside = docs.history("notes").versions[0]  # the text before it is unknown: every line is added
    assert (outside.number, outside.author.surface, outside.added, outside.removed) == (4, "outside", 3, 0)
    assert docs.read_doc("notes@v4").text == "# Notes\n\nby hand\n"


def test_a_dead_writer_s_file_at_the_number_a_write_takes_is_written_over(tiers):
    """A process that knows the history checks that no version follows the newest it saw; a write
    that first keeps the shipped text (v5, a new release) takes the number after that too, where a
    writer that died may have left a file cut short: it is written over, not a refused write."""
    docs = _docs(tiers, author=USER)
    released = _drop_the_copy_then_release(docs, tiers)
    folder = tiers.local / ".history" / "flatfield@"
    (folder / "00000006").write_bytes(b'{"landed":0,"format":2,"n":6,"time":1')
    docs.write_doc("flatfield", old="Step one.", new="Step one, again.")
    versions = docs.read_doc("flatfield@history").versions
    assert [(v.number, v.author.surface) for v in versions[:3]] == [
        (6, "magic"),
        (5, "shipped"),
        (4, "magic"),
    ]
    assert docs.read_doc("flatfield@v6").text == released.replace("Step one.", "Step one, again.")
    assert sorted(os.listdir(folder)) == [f"{n:08d}" for n in range(1, 7)]


@pytest.mark.parametrize(
    ("max_versions", "mine", "theirs"),
    [(1, 1, 2), (1, 3, 2), (3, 1, 4), (3, 3, 4)],
    ids=["1-after-a-create", "1-after-three", "3-after-a-create", "3-after-three"],
)
def test_a_process_that_knew_the_history_sees_versions_another_wrote_past_the_bound(
    tiers, max_versions, mine, theirs
):
    """Another process writes the doc away and back, past the bound: the version after the newest
    this process saw is dropped (its file given over to a later one), so no file at that number
    does not mean nothing was written. This process's next version is its own, after theirs."""
    first = _docs(tiers, max_versions=max_versions, max_bytes=DEFAULT_MAX_BYTES)
    other = _docs(tiers, author=USER, max_versions=max_versions, max_bytes=DEFAULT_MAX_BYTES)
    for n in range(mine):
        first.write_doc("notes", body="# Notes\n\nsame\n" if n == mine - 1 else f"# Notes\n\nmine {n}\n")
    for n in range(theirs):
        other.write_doc("notes", body="# Notes\n\nsame\n" if n % 2 else f"# Notes\n\ntheirs {n}\n")
    first.write_doc("notes", body="# Notes\n\nlast\n")
    authors = [AGENT] * mine + [USER] * theirs + [AGENT]
    expected = list(enumerate(authors, start=1))[-max_versions:]
    versions = list(reversed(first.read_doc("notes@history").versions))
    assert [(v.number, v.author) for v in versions] == expected
    assert versions[-1].current
    for earlier, later in itertools.pairwise(versions):
        assert later.before_sha256 == earlier.after_sha256


def test_a_version_past_the_newest_is_refused_naming_the_newest(tiers):
    docs = _docs(tiers)
    for word in ("one", "two", "three"):
        docs.write_doc("notes", body=f"# Notes\n\n{word}\n")
    with pytest.raises(DocNotFound) as refused:
        docs.read_doc("notes@v4")
    assert (
        str(refused.value)
        == "'notes' has no version 4: the newest is v3. read_doc(\"notes@history\") lists them."
    )


def test_listing_a_history_reads_each_version_s_header_not_its_text(tiers, monkeypatch):
    """A listing reads a few KiB of each version, never its text: 100 versions of a 60 KB doc would
    be 2 MiB read at every look."""
    docs = _docs(tiers)
    for n in range(5):
        docs.write_doc("big", body=f"# Big {n}\n" + ("x" * 999 + "\n") * 60)
    read = []
    real = version_file.read_regular
    monkeypatch.setattr(
        version_file, "read_regular", lambda path, *args: read.append(path) or real(path, *args)
    )
    assert [v.number for v in docs.read_doc("big@history").versions] == [5, 4, 3, 2, 1]
    assert read == []


def test_a_listed_version_whose_file_was_damaged_is_refused_saying_so_not_that_the_bounds_dropped_it(tiers):
    """A power loss can cut short any version written since the last flush, not only the newest
    (which settling replaces): v2's header is whole, so it is listed, but its text does not verify."""
    docs = _docs(tiers)
    for word in ("one", "two", "three"):
        docs.write_doc("notes", body=f"# Notes\n\n{word}\n")
    damaged = tiers.local / ".history" / "notes@" / "00000002"
    damaged.write_bytes(damaged.read_bytes()[:-3])
    after = _docs(tiers)  # the next process to look
    assert [v.number for v in after.read_doc("notes@history").versions] == [3, 2, 1]
    with pytest.raises(DocNotFound) as refused:
        after.read_doc("notes@v2")
    assert str(refused.value) == (
        "'notes' has no version 2 that can be read: its file is damaged (cut short by a power loss, "
        'say) or was dropped since it was listed. read_doc("notes@history") lists them.'
    )
    assert after.read_doc("notes@v1").text == "# Notes\n\none\n"


def test_a_dropped_version_whose_file_cannot_be_given_over_is_removed_and_the_bound_holds(tiers, monkeypatch):
    """At the bound the oldest file is renamed to the new number and written over; when that rename
    is refused, the oldest is removed and a new file made: never one version over the bound."""
    docs = _docs(tiers, max_versions=3, max_bytes=DEFAULT_MAX_BYTES)
    for n in range(4):  # v1, the create's, is a record in .history/firsts: dropped, not given over
        docs.write_doc("notes", body=f"# Notes\n\nwrite {n}\n")
    folder = tiers.local / ".history" / "notes@"
    assert _files(tiers, "notes") == ["00000002", "00000003", "00000004"]
    real = os.replace

    def refused(src, dst, *args, **kwargs):
        if os.fspath(src) == str(folder / "00000002"):
            raise PermissionError(1, "Operation not permitted")
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", refused)
    docs.write_doc("notes", body="# Notes\n\nwrite 4\n")
    monkeypatch.undo()
    assert _files(tiers, "notes") == ["00000003", "00000004", "00000005"]
    assert [v.number for v in _docs(tiers).read_doc("notes@history").versions] == [5, 4, 3]
    assert docs.read_doc("notes@v5").text == "# Notes\n\nwrite 4\n"
