"""What the bench's tests share: an initialized session on the real server, its stderr kept."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client, types

START_TIMEOUT = 30


@contextlib.asynccontextmanager
async def session_on(
    params: StdioServerParameters, log_dir: Path, client: str = "bench-test", *, modern: bool = False
) -> AsyncIterator[tuple[ClientSession, types.InitializeResult | types.DiscoverResult]]:
    """An initialized session (``modern``: a 2026-era one, by server/discover); a server that does
    not answer within START_TIMEOUT fails the test with its stderr."""
    info = types.Implementation(name=client, version="1")
    log = log_dir / f"server-{client}-{'modern' if modern else 'legacy'}.log"
    with log.open("w", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, client_info=info) as session,
        ):
            with anyio.move_on_after(START_TIMEOUT) as waited:
                init = await (session.discover() if modern else session.initialize())
            if waited.cancelled_caught:
                raise AssertionError(
                    f"the server did not answer initialize; its stderr:\n{log.read_text()[-2000:]}"
                )
            yield session, init
