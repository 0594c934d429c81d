"""One download at a time into a shared cache: test processes run in parallel (pytest-xdist), and
pip writes a file it downloads in place, so a second process could read half a wheel."""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Callable, Iterator
from pathlib import Path


@contextlib.contextmanager
def _held(folder: Path) -> Iterator[None]:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".fetching", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def fetch_once(folder: Path, present: Callable[[], bool], fetch: Callable[[], None]) -> None:
    """Run ``fetch`` (which fills ``folder``) unless ``present()`` says it is done; a process that
    waited on another's fetch looks again before fetching."""
    if present():
        return
    with _held(folder):
        if not present():
            fetch()
