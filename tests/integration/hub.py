"""The app served in process with its live hub started, for the hub's own tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

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
