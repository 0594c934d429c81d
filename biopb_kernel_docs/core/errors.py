"""Every refusal of the package, in one family. Its text is product copy.

Each message says what happened and what to do next, with the next call written as a
placeholder (``phrases``) that the surface showing it spells its own way: ``str(err)`` is the
agent's wording, ``err.text_for(Surface.CLI)`` the shell's. A refusal keeps its kind and status
across the kernel wire (``kind`` names the class; ``from_kind`` rebuilds it). Anything raised by
this package that is not a ``DocsError`` is a bug.
"""

from __future__ import annotations

from .phrases import Surface, render


class DocsError(Exception):
    """A refusal the caller can act on. ``status`` is the HTTP status a REST front end uses."""

    status = 400

    def __init__(self, template: str) -> None:
        super().__init__(template)
        self.template = template

    @classmethod
    def kind(cls) -> str:
        return cls.__name__

    def text_for(self, surface: Surface) -> str:
        return render(self.template, surface)

    def __str__(self) -> str:
        return render(self.template, Surface.AGENT)


class InvalidDocId(DocsError):
    """The id breaks the id rules, or would reach outside its tier."""

    status = 400


class OutsideTier(DocsError):
    """A valid id whose file lies, through a symlink, outside its tier: refused, never followed."""

    status = 403


class InvalidArguments(DocsError):
    """A usage mistake: arguments missing, mixed up, of the wrong type, or unknown."""

    status = 400


class DocNotFound(DocsError):
    """No doc by that id in either tier."""

    status = 404


class SectionNotFound(DocNotFound):
    """The doc exists, but no heading of it matches the section asked for (§7)."""

    status = 404


class EditRefused(DocsError):
    """The write is well formed but cannot land as asked (old text absent or ambiguous)."""

    status = 409


class StaleWrite(EditRefused):
    """The write was based on text that has changed since (a failed precondition)."""

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


class PartialWrite(StoreUnavailable):
    """A write with two parts landed one of them; the message says which, and how to finish."""


class KernelUnavailable(DocsError):
    """The kernel the docs run in cannot be reached, started, or did not answer in time."""

    status = 503


class KernelDied(KernelUnavailable):
    """The kernel stopped answering in the middle of a call."""


class KernelRestarted(KernelUnavailable):
    """The attached kernel was restarted: same ports, a new process without our subshell or channel."""


class BridgeMismatch(KernelUnavailable):
    """The kernel's biopb-kernel-docs speaks another protocol version than the bridge."""


class InternalError(DocsError):
    """A bug inside the package, reported instead of crashing the process that met it."""

    status = 500


def _leaves(cls: type[DocsError]) -> list[type[DocsError]]:
    return [cls, *(leaf for sub in cls.__subclasses__() for leaf in _leaves(sub))]


def from_kind(kind: str, template: str) -> DocsError:
    """Rebuild a refusal sent across the wire; an unknown kind (a newer peer) keeps its text."""
    known = {cls.kind(): cls for cls in _leaves(DocsError)}
    return known.get(kind, DocsError)(template)
