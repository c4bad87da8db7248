"""How uvicorn serves the app: its HTTP protocol, with Nagle's algorithm off.

asyncio turns on ``TCP_NODELAY`` for an accepted connection only when the
listening socket says it is TCP (``proto == IPPROTO_TCP``). With ``--workers N``,
uvicorn binds the listening socket itself, without saying so, and hands it to the
workers: their connections keep Nagle's algorithm, and a response written in two
parts (headers, then body) waits for the client's delayed ACK, about 40 ms on
Linux, on every keep-alive request after the first (Kludex/uvicorn#3149). So every
connection sets the option itself, through uvicorn's public ``--http`` extension
point::

    uvicorn app.main:app --http app.serving:HttpToolsProtocol
"""

from __future__ import annotations

import asyncio
import socket
from contextlib import suppress

from uvicorn.protocols.http import httptools_impl

# Streams stay open until the client leaves: on SIGTERM uvicorn waits for open
# connections, so it is told to close what is still open after a few seconds.
GRACEFUL_SHUTDOWN_S = 3
UVICORN_FLAGS = (
    "--http",
    "app.serving:HttpToolsProtocol",
    "--timeout-graceful-shutdown",
    str(GRACEFUL_SHUTDOWN_S),
)


def no_delay(transport: asyncio.BaseTransport) -> None:
    """Send small writes at once on a TCP connection (``TCP_NODELAY``)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with suppress(OSError):  # the connection may already be gone
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class HttpToolsProtocol(httptools_impl.HttpToolsProtocol):
    """uvicorn's httptools protocol, on connections with ``TCP_NODELAY`` set."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        no_delay(transport)
        super().connection_made(transport)
