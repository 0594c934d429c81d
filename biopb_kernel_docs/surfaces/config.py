"""The traitlets face of the settings: ``DocStore``, configured like any Jupyter component.

A kernel builds it from its shell (``c.DocStore.*`` in ``ipython_kernel_config.py``), the Jupyter
Server extension from the server app (``jupyter lab --DocStore.docs_local_dir=DIR``); either way
the shared config file and the defaults fill in what the process leaves unset
(``settings.resolve``), so every surface lands on the same tiers.
"""

from __future__ import annotations

import threading

from traitlets import Int, Unicode, observe
from traitlets.config import LoggingConfigurable

from ..core.ops import Docs
from ..core.store import PYTHON, Store
from ..core.values import Author
from ..core.version_folders import DEFAULT_MAX_BYTES, DEFAULT_MAX_VERSIONS
from .settings import ALIAS_WARNING, TRAITS, Resolved, resolve


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

    history_max_versions = Int(
        None,
        allow_none=True,
        help=f"Versions of each doc the history keeps (the oldest are dropped first). Default: "
        f"{DEFAULT_MAX_VERSIONS}; 0 keeps no history.",
    ).tag(config=True)

    history_max_bytes = Int(
        None,
        allow_none=True,
        help=f"Bytes the history keeps per doc (the oldest versions are dropped first). Default: "
        f"{DEFAULT_MAX_BYTES} (2 MiB).",
    ).tag(config=True)

    def __init__(self, origin: str = "this process's configuration", **kwargs) -> None:
        # Set before the traits: applying the config fires _forget_resolution.
        self.origin = origin
        self._resolved: Resolved | None = None
        self._callers: dict[str, Docs] = {}
        self._lock = threading.Lock()
        super().__init__(**kwargs)

    @observe("skills_local_dir")
    def _warn_deprecated_alias(self, change) -> None:
        if change.new is not None:
            self.log.warning(ALIAS_WARNING)

    @observe(*TRAITS)
    def _forget_resolution(self, change) -> None:
        with self._lock:
            self._resolved = None
            self._callers.clear()

    def resolve(self) -> Resolved:
        """This process's settings over the shared config file and the defaults (read once;
        changing a trait reads them again, a changed file takes effect at the next start)."""
        with self._lock:
            if self._resolved is None:
                self._resolved = resolve({name: getattr(self, name) for name in TRAITS}, self.origin)
                if self.skills_local_dir is None:  # a trait set here has warned already
                    for warning in self._resolved.warnings:
                        self.log.warning(warning)
            return self._resolved

    def open_store(self, resolved: Resolved | None = None) -> Store:
        resolved = resolved or self.resolve()
        return Store(resolved.shipped_dir, resolved.local_dir, resolved.shipped_version, resolved.history)

    def docs(self, author: Author = PYTHON) -> Docs:
        """A new caller's ``Docs`` over the configured tiers (each caller keeps its own)."""
        resolved = self.resolve()
        return Docs(self.open_store(resolved), resolved.view, author)

    def docs_for(self, caller: str, author: Author = PYTHON) -> Docs:
        """The ``Docs`` of a named caller, kept across calls (renewed when a trait changes); its
        writes are by ``author`` (a caller's calls run one at a time, so setting it is safe)."""
        known = self._callers.get(caller)
        if known is None:
            resolved = self.resolve()
            known = Docs(self.open_store(resolved), resolved.view, author)
            with self._lock:
                known = self._callers.setdefault(caller, known)
        known.author = author
        return known
