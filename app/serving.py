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
nor the time it takes to arrive: a stranger's huge header costs the server CPU and
memory, and half-sent requests hold their connections for good. So a head over
``MAX_HEAD_BYTES`` is answered 431, one not complete within ``HEAD_TIMEOUT_S`` 408,
and a body not complete within ``BODY_TIMEOUT_S`` of its head 408, and the
connection closed, each with a problem+json body as the app's errors have. A request
uvicorn cannot parse (a malformed request line or header) gets the same kind of
answer, 400 ``bad_request``, in place of uvicorn's own text/plain one, which says
no ``nosniff``. All through uvicorn's public ``--http`` extension point::

    uvicorn app.main:app --http app.serving:HttpToolsProtocol
"""

from __future__ import annotations

import asyncio
import json
import socket
from contextlib import suppress
from dataclasses import dataclass

from uvicorn.protocols.http import httptools_impl

# Streams stay open until the client leaves: on SIGTERM uvicorn waits for open
# connections, so it is told to close what is still open after a few seconds.
GRACEFUL_SHUTDOWN_S = 3
# --no-proxy-headers: uvicorn would believe X-Forwarded-For from loopback; the app
# believes it only from the proxies FORWARDED_ALLOW_IPS names (app/api/forwarded.py).
UVICORN_FLAGS = (
    "--http",
    "app.serving:HttpToolsProtocol",
    "--timeout-graceful-shutdown",
    str(GRACEFUL_SHUTDOWN_S),
    "--no-proxy-headers",
)
MAX_HEAD_BYTES = 64 * 1024  # a request line and headers, together
HEAD_TIMEOUT_S = 15.0  # from a connection's first byte, or a request's, to its last header
BODY_TIMEOUT_S = 30.0  # from a request's last header to the last byte of its body


def refusal(status: int, title: str, code: str, detail: str) -> bytes:
    """A whole HTTP answer that closes the connection, its body problem+json
    (``app/api/problems.py``'s shape), for a request the app never sees."""
    body = json.dumps(
        {"type": "about:blank", "title": title, "status": status, "detail": detail, "code": code}
    ).encode()
    head = (
        f"HTTP/1.1 {status} {title}\r\ncontent-type: application/problem+json\r\n"
        "x-content-type-options: nosniff\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


HEAD_TOO_LARGE = refusal(
    431,
    "Request Header Fields Too Large",
    "headers_too_large",
    f"the request line and headers are over {MAX_HEAD_BYTES} bytes",
)
MALFORMED = refusal(
    400,
    "Bad Request",
    "bad_request",
    "the request is not HTTP/1.1 the server can read (its request line or a header)",
)
HEAD_TIMED_OUT = refusal(
    408,
    "Request Timeout",
    "request_timeout",
    "the request did not arrive in time; send it again, whole",
)


def no_delay(transport: asyncio.BaseTransport) -> None:
    """Send small writes at once on a TCP connection (``TCP_NODELAY``)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with suppress(OSError):  # the connection may already be gone
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


@dataclass(slots=True)
class Bounds:
    """Where a connection's current request stands against its bounds."""

    awaiting_head: bool = True  # until the head of the next request is complete
    head_begun: bool = False  # whether a byte of that head has come
    head_bytes: int = 0  # its request line and headers, as parsed so far
    unparsed_bytes: int = 0  # bytes received for it that the parser holds back
    heads_completed: int = 0  # on this connection
    clock: asyncio.TimerHandle | None = None  # the head's, or then the body's


class HttpToolsProtocol(httptools_impl.HttpToolsProtocol):
    """uvicorn's httptools protocol, on connections with ``TCP_NODELAY`` set, whose
    requests' heads and bodies are bounded in size and in time."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        no_delay(transport)
        super().connection_made(transport)
        # One attribute beside uvicorn's, not six: its protocol objects then keep
        # CPython's compact shared-key instance dicts, which hold less per connection.
        self.bounds = Bounds()
        self.start_clock(HEAD_TIMEOUT_S)

    def connection_lost(self, exc: Exception | None) -> None:
        self.stop_clock()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        completed_before = self.bounds.heads_completed
        super().data_received(data)
        # One header arrives whole in the parser's callbacks: until then its bytes are
        # counted as received, in each read that completes no head (one that does
        # carries that request's body, not this head).
        if self.bounds.head_begun and self.bounds.heads_completed == completed_before:
            self.bounds.unparsed_bytes += len(data)
            if self.bounds.unparsed_bytes > MAX_HEAD_BYTES:
                self.refuse(HEAD_TOO_LARGE)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.bounds.awaiting_head, self.bounds.head_begun = True, True
        self.bounds.head_bytes = self.bounds.unparsed_bytes = 0
        self.start_clock(HEAD_TIMEOUT_S)

    def on_url(self, url: bytes) -> None:
        self.bounds.head_bytes += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self.bounds.head_bytes += len(name) + len(value) + 4  # ": " and CRLF
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        if self.bounds.head_bytes > MAX_HEAD_BYTES:  # a head that came in one read
            self.refuse(HEAD_TOO_LARGE)
            return
        self.bounds.awaiting_head = self.bounds.head_begun = False
        self.bounds.heads_completed += 1
        self.stop_clock()
        super().on_headers_complete()
        if self.expects_body():
            self.start_clock(BODY_TIMEOUT_S)

    def on_message_complete(self) -> None:
        self.stop_clock()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        # Bytes between requests (a bare CRLF) reset uvicorn's keep-alive timer but
        # begin no request: the next head's clock runs from now.
        if not self.transport.is_closing() and not self.pipeline:
            self.bounds.awaiting_head = True
            self.start_clock(HEAD_TIMEOUT_S)

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request its parser refuses (its ``msg`` went to its
        log already): the refusals' problem+json, with ``nosniff``, and the close."""
        self.stop_clock()
        if not self.transport.is_closing():
            self.transport.write(MALFORMED)
            self.transport.close()

    def expects_body(self) -> bool:
        for name, value in self.headers:
            if name == b"content-length" and value.strip() not in (b"0", b""):
                return True
            if name == b"transfer-encoding":
                return True
        return False

    def start_clock(self, seconds: float) -> None:
        self.stop_clock()
        self.bounds.clock = self.loop.call_later(seconds, self.refuse, HEAD_TIMED_OUT)

    def stop_clock(self) -> None:
        if self.bounds.clock is not None:
            self.bounds.clock.cancel()
            self.bounds.clock = None

    def refuse(self, answer: bytes) -> None:
        """Answer a request whose head (or body) is refused, and close its connection."""
        self.stop_clock()
        if self.transport.is_closing():
            return
        if self.bounds.awaiting_head and not self.bounds.head_begun:
            self.transport.close()  # nothing was asked: no answer is due
            return
        if self.cycle is not None and not self.cycle.response_started:
            self.transport.write(answer)
        elif self.cycle is not None and not self.cycle.response_complete:
            # A pipelined head behind a response still being sent (a stream): no answer
            # can go between that response's bytes. Its time starts once that response
            # is done; one too large closes the connection.
            if answer is HEAD_TIMED_OUT and self.bounds.awaiting_head:
                self.start_clock(HEAD_TIMEOUT_S)
                return
        elif self.cycle is None or self.bounds.awaiting_head:
            self.transport.write(answer)
        self.transport.close()
