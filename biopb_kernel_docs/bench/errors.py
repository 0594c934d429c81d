"""The bench's one refusal type: a bad cases file, an unusable directory, an agent not configured."""

from __future__ import annotations

from ..core.errors import DocsError


class BenchError(DocsError):
    """A bench input that cannot be used as given; the message says which and what to do."""
