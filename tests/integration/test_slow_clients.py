"""A stranger's oversized or never-finished request heads, against the server as
``make run`` and the image start it (app/serving.py's protocol): refused, closed,
and every other client served meanwhile."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from app.serving import BODY_TIMEOUT_S, HEAD_TIMEOUT_S, MAX_HEAD_BYTES
from tests.conftest import migrate
from tests.live import LiveServer

HALF_SENT = 200  # connections that never finish their head
CHUNK = 64 * 1024


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    url = f"sqlite:///{tmp_path_factory.mktemp('slow') / 'slow.db'}"
    migrate(url)
    with LiveServer(url, workers=1) as live:
        yield live


def _connect(server: LiveServer) -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    # Longer than any of the server's clocks: each recv must outwait the answer.
    return socket.create_connection((host, int(port)), timeout=BODY_TIMEOUT_S + 15)


def _answer(sock: socket.socket) -> bytes:
    """What the server sent before it closed the connection."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def _problem_code(answer: bytes) -> str:
    """The ``code`` of a problem+json answer read off the wire."""
    head, _, body = answer.partition(b"\r\n\r\n")
    assert b"content-type: application/problem+json" in head.lower(), head
    return str(json.loads(body)["code"])


def test_a_head_just_under_the_limit_is_served(server: LiveServer) -> None:
    big = "a" * (MAX_HEAD_BYTES - 1024)
    response = httpx.get(server.url + "/healthz", headers={"X-Big": big}, timeout=10)
    assert response.status_code == 200


def test_a_head_over_the_limit_is_answered_431(server: LiveServer) -> None:
    """A head of 70 KiB, sent whole: the answer is 431, and the connection closes."""
    sock = _connect(server)
    try:
        head = b"GET /healthz HTTP/1.1\r\nHost: test\r\nX-Big: " + b"a" * (70 * 1024)
        sock.sendall(head)  # and nothing more: not even the end of the head
        answer = _answer(sock)
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert _problem_code(answer) == "headers_too_large"
    assert b"\r\nx-content-type-options: nosniff\r\n" in answer.split(b"\r\n\r\n")[0]


def test_a_head_over_the_limit_is_refused_before_the_rest_is_read(server: LiveServer) -> None:
    """A 64 MB header: the server answers 431 and closes the connection after the first
    chunks, so the client cannot send it all."""
    sock = _connect(server)
    sent = 0
    try:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\nX-Big: ")
        while sent < 64 * 1024 * 1024:
            sock.sendall(b"a" * CHUNK)
            sent += CHUNK
    except (BrokenPipeError, ConnectionResetError):
        pass
    assert sent < 16 * 1024 * 1024, "the server read on"
    try:
        answer = _answer(sock)
    except ConnectionResetError:  # it closed with our bytes still unread: a reset
        answer = b""
    finally:
        sock.close()
    assert answer == b"" or answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert httpx.get(server.url + "/healthz", timeout=10).status_code == 200


def test_heads_never_finished_are_closed_and_others_are_served(server: LiveServer) -> None:
    """Connections that send a request's first line and then a byte now and then (which
    resets no clock) are answered 408 and closed once HEAD_TIMEOUT_S has passed since
    their first byte; meanwhile every other request is answered."""
    socks = [_connect(server) for _ in range(HALF_SENT)]
    for sock in socks:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\n")
    stop = threading.Event()

    def trickle() -> None:  # a header byte every second, on each connection, for a while
        while not stop.wait(1.0) and time.monotonic() - started < HEAD_TIMEOUT_S - 3:
            for sock in socks:
                with contextlib.suppress(OSError):
                    sock.sendall(b"X")

    started = time.monotonic()
    trickler = threading.Thread(target=trickle, daemon=True)
    trickler.start()
    statuses = []
    try:
        with httpx.Client(base_url=server.url, timeout=10) as client:
            while time.monotonic() - started < HEAD_TIMEOUT_S - 2:
                statuses.append(client.get("/healthz").status_code)
                time.sleep(0.1)
        assert statuses and set(statuses) == {200}
        trickler.join()
        answers = [_answer(sock) for sock in socks]
        waited = time.monotonic() - started
    finally:
        stop.set()
        for sock in socks:
            sock.close()
    assert waited < HEAD_TIMEOUT_S + 10
    assert all(a.startswith(b"HTTP/1.1 408 ") for a in answers), {a[:40] for a in answers}
    assert {_problem_code(a) for a in answers} == {"request_timeout"}
    assert httpx.get(server.url + "/healthz", timeout=10).status_code == 200


def test_a_whole_head_over_the_limit_in_one_read_is_answered_431(server: LiveServer) -> None:
    """A complete 100 KiB head, sent at once: counted as parsed, answered 431."""
    sock = _connect(server)
    try:
        big = b"a" * (100 * 1024)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\nX-Big: " + big + b"\r\n\r\n")
        answer = _answer(sock)
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert _problem_code(answer) == "headers_too_large"


def test_a_connection_idle_after_its_answer_cannot_be_held_by_blank_lines(
    server: LiveServer,
) -> None:
    """After an answer, bytes that begin no request (a CRLF now and then) reset
    uvicorn's keep-alive timer, but not the next head's clock: the connection closes."""
    sock = _connect(server)
    try:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        first = sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 "), first[:100]
        started = time.monotonic()
        while time.monotonic() - started < HEAD_TIMEOUT_S + 10:
            try:
                sock.sendall(b"\r\n")
            except OSError:
                break
            sock.settimeout(1.0)
            try:
                if sock.recv(100) == b"":
                    break
            except TimeoutError:
                continue
        closed_after = time.monotonic() - started
    finally:
        sock.close()
    assert closed_after < HEAD_TIMEOUT_S + 5


def test_a_body_never_finished_is_answered_408(server: LiveServer) -> None:
    sock = _connect(server)
    try:
        sock.sendall(
            b"POST /v1/matches HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"game"'
        )
        started = time.monotonic()
        answer = _answer(sock)
        waited = time.monotonic() - started
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
    assert _problem_code(answer) == "request_timeout"
    assert BODY_TIMEOUT_S - 1 < waited < BODY_TIMEOUT_S + 10


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /healthz HTTP/1.1\r\nHost: test\r\nBad Header: x\r\n\r\n",  # a space in a name
        b"GET /he lthz HTTP/1.1\r\nHost: test\r\n\r\n",  # a space in the path
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",  # TLS to the HTTP port
    ],
)
def test_a_request_the_server_cannot_parse_is_a_400_problem_with_nosniff(
    server: LiveServer, request_bytes: bytes
) -> None:
    """uvicorn's own 400 was text/plain without nosniff, a page a browser might sniff."""
    sock = _connect(server)
    try:
        sock.sendall(request_bytes)
        answer = _answer(sock)
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:200]
    head = answer.split(b"\r\n\r\n")[0].lower()
    assert b"\r\nx-content-type-options: nosniff\r\n" in head
    assert _problem_code(answer) == "bad_request"
    assert httpx.get(server.url + "/healthz", timeout=10).status_code == 200
