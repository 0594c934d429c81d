"""A cheap fingerprint of what the rendered index depends on, for change notifications.

The rendered index (§2) depends on index.md, on which doc files exist in either tier, on the
shipped docs' text (the new-docs tail quotes their descriptions) and on the change manifest.
Creating, deleting or renaming a file changes its directory's mtime, and every store write is a
rename, so the fingerprint stats index.md, the manifest and every directory of both tiers, plus
the shipped files (few, and changed only by an upgrade). Local doc bodies are not read: their
text never shows in the rendered index. A changed fingerprint only means "render again and
compare"; the caller notifies when the rendering itself changed.
"""

from __future__ import annotations

import os
from pathlib import Path

Fingerprint = tuple[tuple[str, int, int, int], ...]


def _stat(path: str) -> tuple[str, int, int, int]:
    try:
        status = os.stat(path)
    except OSError:
        return (path, -1, -1, -1)
    return (path, status.st_mtime_ns, status.st_size, status.st_ino)


def _directories(root: str) -> list[str]:
    found = []
    for directory, subdirectories, _ in os.walk(root):
        subdirectories[:] = [name for name in subdirectories if not name.startswith(".")]
        found.append(directory)
    return found


def _files(root: str) -> list[str]:
    return [
        os.path.join(directory, name)
        for directory, subdirectories, names in os.walk(root)
        for name in names
        if not name.startswith(".")
    ]


def index_fingerprint(local_dir: Path | str, shipped_dir: Path | str) -> Fingerprint:
    local, shipped = str(local_dir), str(shipped_dir)
    paths = [
        os.path.join(local, "index.md"),
        os.path.join(local, ".shipped-manifest.json"),
        *_directories(local),
        *_directories(shipped),
        *_files(shipped),
    ]
    return tuple(_stat(path) for path in paths)
