"""The one error type. Its text is product copy: it reaches the agent as ``str(err)``.

Every message says what happened and what to do next. Anything raised by this package
that is not a ``DocsError`` is a bug.
"""

from __future__ import annotations


class DocsError(Exception):
    """A refusal the caller can act on. ``status`` is the HTTP status a REST front end uses."""

    status = 400


class InvalidDocId(DocsError):
    """The id breaks the id rules, or would reach outside its tier."""

    status = 400


class DocNotFound(DocsError):
    """No doc by that id in either tier."""

    status = 404


class EditRefused(DocsError):
    """The write is well formed but cannot land as asked (old text absent or ambiguous, stale state)."""

    status = 409


class LimitExceeded(DocsError):
    """The body cap or the index entry cap would be exceeded."""

    status = 413


class UnreadableDoc(DocsError):
    """A file exists but cannot be read as a doc (not UTF-8, not a regular file)."""

    status = 422


class StoreUnavailable(DocsError):
    """The local tier cannot be created, locked or written, or the tiers are misconfigured."""

    status = 503


class KernelUnavailable(DocsError):
    """The kernel the docs run in cannot be reached, started, or did not answer in time."""

    status = 503
