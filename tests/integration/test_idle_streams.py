"""An idle live stream costs no database read: it sends its heartbeats, and learns of a
replaced token from the change that replaced it, not by asking on a timer."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
import uvicorn
from sqlalchemy import event

from app import live
from app.api.routes import events
from app.main import create_app
from app.settings import Settings
from tests.api.helpers import PLAYERS

HEARTBEAT_S = 0.05  # the stream's idle heartbeat, shortened for the test
IDLE_S = 1.0


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_an_idle_stream_sends_heartbeats_without_a_database_read(
    kind: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = request.getfixturevalue("sqlite_file_url" if kind == "sqlite" else "postgres_url")
    monkeypatch.setattr(events, "HEARTBEAT_S", HEARTBEAT_S)
    monkeypatch.setattr(live, "TICK_S", HEARTBEAT_S / 5)
    app = create_app(Settings(database_url=url, rate_limit_matches_per_minute=0))
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    )

    async def main() -> tuple[int, list[str]]:
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        base = f"http://127.0.0.1:{port}"
        statements: list[str] = []
        async with httpx.AsyncClient(base_url=base, timeout=10) as client:
            created = (
                await client.post("/v1/matches", json={"game": "asszorti", "players": PLAYERS})
            ).json()
            auth = {"Authorization": f"Bearer {created['tokens']['viewer']}"}
            heartbeats = 0
            path = f"/v1/matches/{created['id']}/events"
            async with client.stream("GET", path, headers=auth) as stream:
                lines = stream.aiter_lines()
                while not (await anext(lines)).startswith("data:"):  # the snapshot
                    pass
                await asyncio.sleep(HEARTBEAT_S * 2)  # the opening's reads are done

                def count(*args: Any) -> None:
                    statements.append(str(args[2]))

                engine = app.state.db.engine
                event.listen(engine, "before_cursor_execute", count)
                try:
                    loop = asyncio.get_running_loop()
                    until = loop.time() + IDLE_S
                    while loop.time() < until:
                        line = await asyncio.wait_for(anext(lines), IDLE_S)
                        heartbeats += line == ": heartbeat"
                finally:
                    event.remove(engine, "before_cursor_execute", count)
        server.should_exit = True
        await serving
        return heartbeats, statements

    heartbeats, statements = asyncio.run(main())
    assert heartbeats >= IDLE_S / HEARTBEAT_S / 2, heartbeats
    # Nothing but the hub's own poller of other processes' changes (SQLite) may read.
    assert [s for s in statements if "credential" in s] == [], statements
