"""biopb-kernel-docs: one store of docs shared by a scientist and an agent in a Jupyter kernel.

Importing the package is cheap (the command line's ``read`` pays for no traitlets, IPython or
Jupyter Server); ``DocStore`` and the entry points import what they need when used.
"""

from __future__ import annotations

from typing import Any

from ._version import __version__

__all__ = ["DocStore", "Docs", "DocsError", "__version__", "load_ipython_extension"]


def __getattr__(name: str) -> Any:
    if name == "DocStore":
        from .surfaces.config import DocStore

        return DocStore
    if name == "Docs":
        from .core.ops import Docs

        return Docs
    if name == "DocsError":
        from .core.errors import DocsError

        return DocsError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """The prebuilt panel (``labextension/``, built into ``biopb_kernel_docs/labextension``)."""
    return [{"src": "labextension", "dest": "biopb-kernel-docs"}]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "biopb_kernel_docs"}]


def _load_jupyter_server_extension(serverapp) -> None:
    """The REST API and the change events the JupyterLab panel reads (``serverext``)."""
    from .surfaces.serverext import load

    load(serverapp)


def load_ipython_extension(ipython) -> None:
    """``%load_ext biopb_kernel_docs``: register the docs magics (%read_doc, %%write_doc, ...)."""
    from .bridge.kernel_side import kernel_doc_store
    from .surfaces.magics import register

    register(ipython, kernel_doc_store(ipython))
