"""The bridge's calls served from the MCP server's own process: no kernel.

For comparison benchmarks and for hosts that want the docs alone. The frames are the kernel
path's, so both paths run the same dispatch and return the same values.
"""

from __future__ import annotations

import uuid
from typing import Any

from ..surfaces.config import DocStore
from . import wire
from .kernel_side import dispatch


class InProcessDocsClient:
    attached = False
    has_subshells = False

    def __init__(self, doc_store: DocStore) -> None:
        self.doc_store = doc_store
        self.session_id = uuid.uuid4().hex

    def begin_start(self) -> None:
        pass

    async def call(
        self,
        operation: str,
        *,
        as_session: str | None = None,
        client: dict[str, str] | None = None,
        **arguments: Any,
    ) -> Any:
        frame = wire.request_frame(as_session or self.session_id, operation, arguments, client)
        return wire.parse_answer(dispatch(self.doc_store, frame))

    async def close(self) -> None:
        pass
