"""biopb-kernel-docs: one store of docs shared by a scientist and an agent in a Jupyter kernel."""

from ._version import __version__
from .config import DocStore
from .errors import DocsError
from .ops import Docs

__all__ = ["DocStore", "Docs", "DocsError", "__version__"]
