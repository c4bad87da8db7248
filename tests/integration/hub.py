"""The app served in process with its live hub started, for the hub's own tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI

from app.db.database import Database
from app.live import ChangeHub
from app.main import create_app
from app.settings import Settings


@asynccontextmanager
async def app_with_hub(
    database_url: str,
) -> AsyncIterator[tuple[FastAPI, ChangeHub, httpx.AsyncClient]]:
    """The app on ``database_url`` with its hub running, and a client that calls it in
    process; everything is stopped on the way out."""
    settings = Settings(database_url=database_url, rate_limit_matches_per_minute=0)
    app = create_app(settings)
    app.state.db = Database(settings)
    hub = app.state.hub = ChangeHub(app.state.db)
    await hub.start()
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            yield app, hub, client
    finally:
        await hub.stop()
        app.state.db.dispose()


async def create_match(client: httpx.AsyncClient) -> dict[str, Any]:
    """A new Asszorti match, as createMatch answers it (its tokens included)."""
    created = await client.post(
        "/v1/matches", json={"game": "asszorti", "players": ["A", "B", "C"]}
    )
    assert created.status_code == 201, created.text
    body: dict[str, Any] = created.json()
    return body


def stream_scope(match_id: str, token: str) -> dict[str, Any]:
    """The ASGI scope of ``GET /v1/matches/{match_id}/events`` with ``token``, for a test
    that serves the stream itself with a ``send`` and ``receive`` of its own."""
    path = f"/v1/matches/{match_id}/events"
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"t"), (b"authorization", f"Bearer {token}".encode())],
        "client": ("127.0.0.1", 1),
        "server": ("t", 80),
    }
