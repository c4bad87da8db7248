"""The HTTP protocol uvicorn serves the app with (app/serving.py)."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest
import uvicorn
from uvicorn.protocols.http import httptools_impl

from app.serving import UVICORN_FLAGS, HttpToolsProtocol
from tests.conftest import ROOT


async def _hello(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})


def _nodelay_when_served_by(protocol: type) -> list[int]:
    """Serve one keep-alive connection with uvicorn on asyncio, from a listening socket
    bound the way uvicorn's supervisor binds it for --workers N (``proto`` 0), and
    read TCP_NODELAY off the server's side of the connection."""
    listener = socket.socket(family=socket.AF_INET)  # as uvicorn's Config.bind_socket
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    config = uvicorn.Config(
        _hello, loop="asyncio", http=protocol, lifespan="off", log_level="warning"
    )
    server = uvicorn.Server(config)

    async def main() -> list[int]:
        serving = asyncio.create_task(server.serve(sockets=[listener]))
        for _ in range(500):
            if server.started:
                break
            await asyncio.sleep(0.01)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: test\r\n\r\n")
        await writer.drain()
        await reader.readuntil(b"{}")
        flags = [
            connection.transport.get_extra_info("socket").getsockopt(
                socket.IPPROTO_TCP, socket.TCP_NODELAY
            )
            for connection in server.server_state.connections
        ]
        writer.close()
        server.should_exit = True
        await serving
        return flags

    return asyncio.run(main())


def test_uvicorn_alone_leaves_nagle_on_for_its_workers_connections() -> None:
    """Why app/serving.py exists (Kludex/uvicorn#3149): the stock protocol on asyncio,
    from a socket bound as --workers binds it, keeps Nagle's algorithm."""
    assert _nodelay_when_served_by(httptools_impl.HttpToolsProtocol) == [0]


def test_the_app_s_protocol_turns_nagle_off() -> None:
    flags = _nodelay_when_served_by(HttpToolsProtocol)
    assert len(flags) == 1 and flags[0] != 0


@pytest.mark.parametrize("path", ["Makefile", "docker/entrypoint.sh"])
def test_every_way_to_start_the_server_uses_the_same_flags(path: str) -> None:
    """make run and the image start uvicorn with the flags the benchmark and the
    real-server tests use (UVICORN_FLAGS)."""
    # The command as one line of words: the entrypoint spreads it over continued lines.
    words = " ".join((ROOT / path).read_text().replace("\\\n", " ").split())
    assert " ".join(UVICORN_FLAGS) in words
