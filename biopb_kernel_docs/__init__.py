"""biopb-kernel-docs: one store of docs shared by a scientist and an agent in a Jupyter kernel."""

from ._version import __version__
from .config import DocStore
from .errors import DocsError
from .ops import Docs

__all__ = ["DocStore", "Docs", "DocsError", "__version__", "load_ipython_extension"]


def load_ipython_extension(ipython) -> None:
    """``%load_ext biopb_kernel_docs``: register %read_doc, %%write_doc and %docs_connect."""
    from .kernel_api import kernel_doc_store
    from .magics import register

    register(ipython, kernel_doc_store(ipython))
