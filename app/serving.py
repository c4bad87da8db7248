"""How uvicorn serves the app: its event loop and its HTTP protocol.

The loop is asyncio's, accepting one connection per wake-up (``OneAcceptEventLoop``).
With ``--workers N`` all workers wait on one listening socket, and asyncio's own
loop accepts every connection already queued at once: a burst of connections
(a load balancer's pool opening, a benchmark starting) can all land on the one
worker that woke first while the others idle. Seen here with two workers, in
one benchmark run of five: POST round at 1.01 times one worker's throughput
instead of about 1.7, each request costing what it costs one worker (the
likely cause; which worker took which connection was not recorded). Taking one
per wake-up lets the other workers take the next ones, and a
busy worker, whose loop turns slowly, takes fewer.

The protocol has Nagle's algorithm off.

The app runs on asyncio's event loop (``OneAcceptEventLoop``; docs/operations.md says
why). asyncio turns on ``TCP_NODELAY`` for an accepted connection only when the
listening socket says it is TCP (``proto == IPPROTO_TCP``). With ``--workers N``,
uvicorn binds the listening socket itself, without saying so, and hands it to the
workers: their connections keep Nagle's algorithm, and a response written in two
parts (headers, then body) waits for the client's delayed ACK, about 40 ms on
Linux, on every keep-alive request after the first (Kludex/uvicorn#3149; measured
here: 726 req/s with two workers against 7,894 with one). So every connection
sets the option itself::

    uvicorn app.main:app --loop app.serving:OneAcceptEventLoop --http app.serving:HttpToolsProtocol
"""

from __future__ import annotations

import asyncio
import socket
from contextlib import suppress
from typing import Any

from uvicorn.protocols.http import httptools_impl

UVICORN_FLAGS = (
    "--loop",
    "app.serving:OneAcceptEventLoop",
    "--http",
    "app.serving:HttpToolsProtocol",
)


class OneAcceptEventLoop(asyncio.SelectorEventLoop):
    """asyncio's selector loop, taking one queued connection each time the listening
    socket wakes it (the others stay queued for the next turn, or another worker)."""

    def _accept_connection(
        self,
        protocol_factory: Any,
        sock: Any,
        sslcontext: Any = None,
        server: Any = None,
        backlog: int = 100,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        # asyncio's own method, absent from its type stubs.
        super()._accept_connection(  # type: ignore[misc]
            protocol_factory, sock, sslcontext, server, 1, *args, **kwargs
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
