from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from biopb_kernel_docs.core.errors import StoreUnavailable, UnreadableDoc
from biopb_kernel_docs.core.files import atomic_write, read_regular, write_failure

from .conftest import open_files


def test_a_file_longer_than_the_size_its_fstat_gives_is_read_whole():
    # A procfs file is regular and reports size 0, as a file that grew after the fstat would
    # report too few bytes: the read goes on to the end all the same.
    if not os.path.isfile("/proc/self/cmdline"):
        pytest.skip("needs Linux procfs")
    data, status = read_regular("/proc/self/cmdline")
    assert status.st_size == 0
    assert data == Path("/proc/self/cmdline").read_bytes()
    assert len(data) > 1


def test_reads_and_writes_leave_no_file_open(tmp_path):
    target = tmp_path / "doc.md"
    os.mkfifo(tmp_path / "pipe.md")
    before = open_files()
    for number in range(20):
        atomic_write(target, f"# Doc {number}\n".encode())
        atomic_write(target, b"# Kept mode\n", 0o640)
        assert read_regular(str(target))[0] == b"# Kept mode\n"
        with pytest.raises(UnreadableDoc):
            read_regular(str(tmp_path / "pipe.md"))
    assert open_files() == before


def test_a_write_the_disk_refuses_names_the_cause_and_the_next_step(tmp_path):
    path = "/lab/docs/notes.md"
    full = write_failure(path, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path))
    assert isinstance(full, StoreUnavailable)
    assert str(full) == (
        "Could not write /lab/docs/notes.md: the disk is full. That file was left as it was. "
        "Free some space, then retry."
    )
    denied = write_failure(path, PermissionError(errno.EACCES, "Permission denied", path))
    assert str(denied) == (
        "Could not write /lab/docs/notes.md: Permission denied. That file was left as it was. Check "
        "that the local docs directory is writable (DocStore.docs_local_dir moves it), then retry."
    )
    unexplained = write_failure(path, OSError("the write was cut short"))
    assert str(unexplained).startswith("Could not write /lab/docs/notes.md: the write was cut short. ")
    (tmp_path / "lab").write_text("a file where a folder belongs\n")
    with pytest.raises(NotADirectoryError) as refused:
        os.makedirs(tmp_path / "lab" / "sub")
    blocked = write_failure(str(tmp_path / "lab" / "sub" / "notes.md"), refused.value)
    assert str(blocked) == (
        f"Could not write {tmp_path}/lab/sub/notes.md: a file is where a folder on its path must be "
        f"({tmp_path}/lab). That file was left as it was. Move that file aside (doc files end in .md; "
        "nothing else belongs in the docs folders), then retry."
    )
