"""One version file (``core/version_file``): what its header records, how it reads back, and that
a file that does not verify (zeroed, a header not ours) is treated as absent."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest

from biopb_kernel_docs.core.errors import DocNotFound
from biopb_kernel_docs.core.ops import Docs
from biopb_kernel_docs.core.store import Store
from biopb_kernel_docs.core.values import Author
from biopb_kernel_docs.core.version_file import Entry, State, encode, load, number_of, parse
from biopb_kernel_docs.core.version_folders import HistoryLimits

AGENT = Author("mcp", name="claude-code", version="2.1")


def _docs(tiers, author: Author = AGENT) -> Docs:
    return Docs(Store(tiers.shipped, tiers.local, "1.0", HistoryLimits()), author=author)


def _state(data: bytes) -> State:
    return State(data, data.decode(), hashlib.sha256(data).hexdigest(), local=True)


def _version_path(tiers, doc_id: str, number: int):
    return tiers.local / ".history" / f"{doc_id}@" / f"{number:08d}"


# -- what a header records ----------------------------------------------------------------------

# The text's bytes and the lines it has: a last line without its newline is a line, a doc that
# does not exist (None) or is empty has none, CRLF counts once.
LINE_COUNTS = [
    (None, 0),
    (b"", 0),
    (b"\n", 1),
    (b"# Notes", 1),
    (b"# Notes\n", 1),
    (b"# Notes\n\n", 2),
    (b"# Notes\n\nlast line without an end", 3),
    (b"# Notes\r\n\r\nstep one\r\n", 3),
]


@pytest.mark.parametrize(("data", "lines"), LINE_COUNTS)
def test_a_version_file_reads_back_as_the_header_and_text_it_was_encoded_with(tmp_path, data, lines):
    after = _state(data) if data is not None else None
    header, encoded = encode(3, 1_700_000_000.5, AGENT, None, False, after, 2, 0, None, 10_000)
    expected = (lines, False, data is not None, len(encoded))
    assert (header.lines, header.pending, header.kept, header.size) == expected
    assert encoded.startswith(b'{"landed":1,')  # written landed unless it is said to be pending
    (tmp_path / "00000003").write_bytes(encoded)
    entry = Entry(3, len(encoded), False)
    assert load(str(tmp_path), entry) == (header, data)  # the whole file, unless asked for less
    assert load(str(tmp_path), entry, whole=False) == (header, None)


def test_a_version_records_how_many_lines_each_text_has(tiers):
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n\none\ntwo\n")
    docs.write_doc("notes", body="# Notes\n")
    (tiers.local / "notes.md").unlink()  # removed outside the store: a version with no text
    versions = docs.read_doc("notes@history").versions
    assert [(v.number, v.lines) for v in versions] == [(3, 0), (2, 1), (1, 4)]


def test_a_version_s_header_and_state_are_values_no_caller_can_change():
    """The history keeps the newest header it wrote as what it knows of a doc: a caller changing
    a header it was handed would change that record, so both are frozen (and hashable)."""
    state = _state(b"# Notes\n")
    header, _ = encode(1, 0.0, AGENT, None, False, state, 1, 0, None, 10_000)
    with pytest.raises(dataclasses.FrozenInstanceError):
        header.number = 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.local = False
    assert len({header, encode(1, 0.0, AGENT, None, False, state, 1, 0, None, 10_000)[0]}) == 1
    assert len({state, _state(b"# Notes\n"), _state(b"# Other\n")}) == 2


# -- what does not verify is absent -------------------------------------------------------------


def test_a_newest_version_file_filled_with_zeros_is_treated_as_absent(tiers):
    """A power loss can leave a file its full length of zeros: no header line at all."""
    docs = _docs(tiers)
    docs.write_doc("notes", body="# Notes\n")
    docs.write_doc("notes", body="# Notes\n\ntwo\n")
    newest = _version_path(tiers, "notes", 2)
    newest.write_bytes(bytes(len(newest.read_bytes())))
    versions = _docs(tiers).read_doc("notes@history").versions  # the next process to look
    assert [(v.number, v.author.surface) for v in versions] == [(2, "outside"), (1, "mcp")]
    assert _docs(tiers).read_doc("notes@v2").text == "# Notes\n\ntwo\n"  # the outside edit's record


def test_an_older_version_file_filled_with_zeros_is_left_out_of_the_listing_and_refused(tiers):
    docs = _docs(tiers)
    for word in ("one", "two", "three"):
        docs.write_doc("notes", body=f"# Notes\n\n{word}\n")
    zeroed = _version_path(tiers, "notes", 2)
    zeroed.write_bytes(bytes(len(zeroed.read_bytes())))
    after = _docs(tiers)
    assert [v.number for v in after.read_doc("notes@history").versions] == [3, 1]
    with pytest.raises(DocNotFound, match=r'read_doc\("notes@history"\) lists them'):
        after.read_doc("notes@v2")
    assert after.read_doc("notes@v3").text == "# Notes\n\nthree\n"


def test_a_version_whose_header_is_longer_than_a_listing_reads_first_is_still_listed(tiers):
    """A listing reads the first 4 KiB of each file for its header; an author's name can make a
    header longer, and then the whole file is read."""
    author = Author("mcp", name="n" * 5000, version="2.1")
    _docs(tiers).write_doc("notes", body="# Notes\n")
    _docs(tiers, author).write_doc("notes", body="# Notes\n\ntwo\n")
    assert _version_path(tiers, "notes", 2).read_bytes().index(b"\n") > 5000
    versions = _docs(tiers).read_doc("notes@history").versions  # another process: nothing cached
    assert [(v.number, v.author) for v in versions] == [(2, author), (1, AGENT)]
    assert _docs(tiers).read_doc("notes@v2").text == "# Notes\n\ntwo\n"


@pytest.mark.parametrize("landed", [b"2", b"true", b'"1"'])
def test_a_header_whose_landed_field_is_not_0_or_1_is_not_ours(landed):
    """Only ``0`` and ``1`` are ever written there (format 1 wrote no field at all); anything else
    is a damaged byte or another program's file, and does not verify."""
    header, data = encode(4, 0.0, AGENT, None, False, _state(b"# Notes\n"), 1, 0, None, 10_000)
    entry = Entry(4, len(data), False)
    assert parse(entry, data, whole=True) == (header, b"# Notes\n")
    odd = data.replace(b'{"landed":1,', b'{"landed":' + landed + b",", 1)
    assert parse(entry._replace(size=len(odd)), odd, whole=True) is None


@pytest.mark.parametrize(
    ("name", "number"),
    [
        ("00000001", (1, False)),
        ("00000012.pending", (12, True)),
        ("123456789", (123456789, False)),
        ("0000001", None),  # seven digits: never a name a version file is given
        ("0000001.pending", None),
        ("0000000a", None),
        ("notes.txt", None),
        (".tmp-00000001", None),
    ],
)
def test_only_names_of_eight_digits_or_more_are_version_files(name, number):
    assert number_of(name) == number
