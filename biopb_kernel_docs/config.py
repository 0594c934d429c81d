"""The traitlets face of the store: ``DocStore`` and where its tiers are.

Every front end builds its store through ``DocStore``, so ``c.DocStore.docs_local_dir`` in a
kernel's config, ``--docs-local-dir`` on the command line and the MCP bridge's options all land
in the same place. ``skills_local_dir`` is the pre-redesign key, read as an alias for one release.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from traitlets import Unicode, observe
from traitlets.config import LoggingConfigurable

from ._version import __version__
from .ops import Docs
from .store import Store

PACKAGE_DIR = Path(__file__).resolve().parent


def default_local_dir() -> Path:
    """``~/.config/biopb/docs`` (under ``$XDG_CONFIG_HOME`` when that is set)."""
    config_home = os.environ.get("XDG_CONFIG_HOME")
    return (Path(config_home) if config_home else Path.home() / ".config") / "biopb" / "docs"


def default_shipped_dir() -> Path:
    """The seed inside the installed package (§1); in a source checkout, the checkout's ``seed/``."""
    inside = PACKAGE_DIR / "seed"
    checkout = PACKAGE_DIR.parent / "seed"
    if not inside.is_dir() and (PACKAGE_DIR.parent / "pyproject.toml").is_file() and checkout.is_dir():
        return checkout
    return inside


def _expand(path: str) -> Path:
    return Path(os.path.expandvars(path)).expanduser()


class DocStore(LoggingConfigurable):
    """Where the two tiers of docs are, and the ``Docs`` each caller reads and writes through."""

    docs_local_dir = Unicode(
        None,
        allow_none=True,
        help="Directory of the local tier: the user's docs and index.md. "
        "Default: ~/.config/biopb/docs (under $XDG_CONFIG_HOME when set).",
    ).tag(config=True)

    skills_local_dir = Unicode(
        None,
        allow_none=True,
        help="DEPRECATED, use docs_local_dir. Read as docs_local_dir when that is not set.",
    ).tag(config=True)

    shipped_dir = Unicode(
        None,
        allow_none=True,
        help="Directory of the shipped tier (read-only). Default: the seed inside the package. "
        "For development and tests.",
    ).tag(config=True)

    shipped_version = Unicode(
        None,
        allow_none=True,
        help="Version the shipped tier is taken as, for the change manifest. Default: the installed "
        "package's version. For development and tests.",
    ).tag(config=True)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._callers: dict[str, tuple[tuple[object, ...], Docs]] = {}
        self._callers_lock = threading.Lock()

    @observe("skills_local_dir")
    def _warn_deprecated_alias(self, change) -> None:
        if change.new is None:
            return
        self.log.warning(
            "DocStore.skills_local_dir is deprecated and will be removed in the next release; use "
            "DocStore.docs_local_dir (it wins when both are set)."
        )

    @property
    def local_dir(self) -> Path:
        chosen = self.docs_local_dir if self.docs_local_dir is not None else self.skills_local_dir
        return _expand(chosen) if chosen else default_local_dir()

    def open_store(self) -> Store:
        shipped = _expand(self.shipped_dir) if self.shipped_dir else default_shipped_dir()
        return Store(shipped, self.local_dir, self.shipped_version or __version__)

    def docs(self) -> Docs:
        """A new caller's ``Docs`` over the configured tiers (each caller keeps its own)."""
        return Docs(self.open_store())

    def docs_for(self, caller: str) -> Docs:
        """The ``Docs`` of a named caller, kept across calls; renewed if the tiers were reconfigured."""
        wanted = (self.shipped_dir, self.local_dir, self.shipped_version)
        with self._callers_lock:
            known = self._callers.get(caller)
            if known is None or known[0] != wanted:
                known = self._callers[caller] = (wanted, self.docs())
            return known[1]
