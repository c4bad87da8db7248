"""How uvicorn serves the app: its HTTP protocol, with Nagle's algorithm off and a
bound on each request's head.

asyncio turns on ``TCP_NODELAY`` for an accepted connection only when the
listening socket says it is TCP (``proto == IPPROTO_TCP``). With ``--workers N``,
uvicorn binds the listening socket itself, without saying so, and hands it to the
workers: their connections keep Nagle's algorithm, and a response written in two
parts (headers, then body) waits for the client's delayed ACK, about 40 ms on
Linux, on every keep-alive request after the first (Kludex/uvicorn#3149). So every
connection sets the option itself.

uvicorn bounds neither the size of a request's head (its request line and headers)
nor the time it takes to arrive: a stranger's 60 MB header costs seconds of CPU,
and half-sent requests hold their connections for good. So a head over
``MAX_HEAD_BYTES`` is answered 431 and one not complete within ``HEAD_TIMEOUT_S`` is
answered 408, and either connection closed. Both through uvicorn's public ``--http``
extension point::

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
MAX_HEAD_BYTES = 64 * 1024  # a request line and headers, together
HEAD_TIMEOUT_S = 15.0  # from a connection's first byte, or a request's, to its last header

HEAD_TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
    b"content-type: text/plain; charset=utf-8\r\ncontent-length: 36\r\n"
    b"connection: close\r\n\r\nthe request's headers are too large\n"
)
HEAD_TIMED_OUT = (
    b"HTTP/1.1 408 Request Timeout\r\n"
    b"content-type: text/plain; charset=utf-8\r\ncontent-length: 36\r\n"
    b"connection: close\r\n\r\nthe request's headers took too long\n"
)


def no_delay(transport: asyncio.BaseTransport) -> None:
    """Send small writes at once on a TCP connection (``TCP_NODELAY``)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with suppress(OSError):  # the connection may already be gone
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class HttpToolsProtocol(httptools_impl.HttpToolsProtocol):
    """uvicorn's httptools protocol, on connections with ``TCP_NODELAY`` set, whose
    requests' heads are bounded in size and in time."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        no_delay(transport)
        super().connection_made(transport)
        self.awaiting_head = True  # until the head of the next request is complete
        self.head_begun = False  # whether a byte of that head has come
        self.head_bytes = 0  # bytes received since it began
        self.heads_completed = 0  # on this connection
        self.head_clock: asyncio.TimerHandle | None = None
        self.start_head_clock()

    def connection_lost(self, exc: Exception | None) -> None:
        self.stop_head_clock()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        completed_before = self.heads_completed
        super().data_received(data)
        # A chunk counts against a head still incomplete after it, unless it ended
        # another head: then it carried that request's body, not this head. (A
        # pipelined body arriving just before a head may so count against it.)
        if self.head_begun and self.heads_completed == completed_before:
            self.head_bytes += len(data)
            if self.head_bytes > MAX_HEAD_BYTES:
                self.refuse_head(HEAD_TOO_LARGE)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.awaiting_head, self.head_begun, self.head_bytes = True, True, 0
        self.start_head_clock()

    def on_headers_complete(self) -> None:
        self.awaiting_head = self.head_begun = False
        self.heads_completed += 1
        self.stop_head_clock()
        super().on_headers_complete()

    def start_head_clock(self) -> None:
        self.stop_head_clock()
        self.head_clock = self.loop.call_later(HEAD_TIMEOUT_S, self.refuse_head, HEAD_TIMED_OUT)

    def stop_head_clock(self) -> None:
        if self.head_clock is not None:
            self.head_clock.cancel()
            self.head_clock = None

    def refuse_head(self, answer: bytes) -> None:
        """Answer a request whose head is refused, and close its connection."""
        self.stop_head_clock()
        if not self.awaiting_head or self.transport.is_closing():
            return
        if not self.head_begun:  # a connection that never sent a byte: no answer is due
            self.transport.close()
            return
        if self.cycle is not None and not self.cycle.response_complete:
            # A pipelined head behind a response still being sent (a stream): no answer
            # can go between that response's bytes. Its time starts once that response
            # is done; one too large closes the connection.
            if answer is HEAD_TIMED_OUT:
                self.start_head_clock()
            else:
                self.transport.close()
            return
        self.transport.write(answer)
        self.transport.close()
