"""A client that leaves an idle stream leaves the hub at once, not at the next heartbeat:
uvicorn speaks ASGI 2.3 on HTTP, so the stream only learns of it by listening on
``receive`` while it waits (``EventStream``). The heartbeat is left long, so only that
listener can notice in time."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
import uvicorn

from app.live import ChangeHub
from app.main import create_app
from app.serving import HttpToolsProtocol
from app.settings import Settings
from tests.integration.hub import app_with_hub, create_match, stream_scope

PROMPTLY_S = 2.0  # far less than the heartbeat (15 s)


async def _until(condition: Any, seconds: float) -> bool:
    loop = asyncio.get_running_loop()
    until = loop.time() + seconds
    while not condition():
        if loop.time() > until:
            return False
        await asyncio.sleep(0.01)
    return True


def test_a_client_that_leaves_an_idle_stream_is_unsubscribed_at_once(database_url: str) -> None:
    """Over a real uvicorn with the app's HTTP protocol: the client closes its
    connection while its stream waits for a change; the hub lets the stream go."""
    app = create_app(Settings(database_url=database_url, rate_limit_matches_per_minute=0))
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host="127.0.0.1",
            port=0,
            http=HttpToolsProtocol,
            log_level="warning",
            timeout_graceful_shutdown=1,  # a stream left open does not hold the test
        )
    )

    async def main() -> None:
        serving = asyncio.create_task(server.serve())
        try:
            assert await _until(lambda: server.started, 30)
            port = server.servers[0].sockets[0].getsockname()[1]
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
                created = await create_match(client)
                hub: ChangeHub = app.state.hub
                auth = {"Authorization": f"Bearer {created['tokens']['viewer']}"}
                path = f"/v1/matches/{created['id']}/events"
                async with client.stream("GET", path, headers=auth) as stream:
                    lines = stream.aiter_lines()
                    while not (await anext(lines)).startswith("data:"):  # the snapshot
                        pass
                    assert await _until(lambda: hub.open_streams == 1, 5)
                # The connection is closed here, mid-stream.
                assert await _until(lambda: hub.open_streams == 0, PROMPTLY_S), (
                    "the stream stayed subscribed after its client left"
                )
                assert created["id"] not in hub.subscriptions
        finally:
            server.should_exit = True
            await serving

    asyncio.run(main())


def test_an_idle_stream_ends_quietly_when_its_client_leaves_and_not_when_cancelled(
    database_url: str,
) -> None:
    """In process: ``receive`` says ``http.disconnect`` while the stream is idle; the
    response returns normally (no cancellation leaks to the server), the hub lets it
    go. A cancellation from outside (the server shutting down) still propagates."""

    async def scenario() -> None:
        async with app_with_hub(database_url) as (app, hub, client):
            created = await create_match(client)
            match_id = created["id"]
            bodies: list[bytes] = []
            gone = asyncio.Event()

            async def send(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.body":
                    bodies.append(message.get("body", b""))

            async def receive() -> dict[str, Any]:
                await gone.wait()
                return {"type": "http.disconnect"}

            scope = stream_scope(match_id, created["tokens"]["viewer"])
            stream = asyncio.create_task(app(scope, receive, send))
            assert await _until(lambda: bool(bodies) and hub.open_streams == 1, 10)
            gone.set()
            await asyncio.wait_for(stream, PROMPTLY_S)  # returned, not cancelled
            assert hub.open_streams == 0
            assert match_id not in hub.subscriptions

            bodies.clear()
            never = asyncio.Event()

            async def stays() -> dict[str, Any]:
                await never.wait()
                return {}

            stream = asyncio.create_task(app(scope, stays, send))
            assert await _until(lambda: bool(bodies) and hub.open_streams == 1, 10)
            stream.cancel()
            with pytest.raises(asyncio.CancelledError):
                await asyncio.wait_for(stream, PROMPTLY_S)
            assert hub.open_streams == 0

    asyncio.run(scenario())
