"""The live hub offers a change this process committed as it was logged, without reading
it back from the change log; a change another process committed is read from the log."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from app.db import repository
from app.db.database import Database
from app.live import ChangeHub
from app.main import create_app
from app.services import matches
from app.services.auth import Access, Permission
from app.services.writes import WriteRequest
from app.settings import Settings

AMOUNTS = {"type": "asszorti_amounts", "amounts": [2, -1, -1]}


def test_own_changes_are_offered_without_reading_the_log_back(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[tuple[str, int]] = []
    changes_after = repository.changes_after

    def counted(connection: Any, match_id: str, after: int, *, limit: int) -> Any:
        reads.append((match_id, after))
        return changes_after(connection, match_id, after, limit=limit)

    monkeypatch.setattr(repository, "changes_after", counted)

    async def scenario() -> None:
        settings = Settings(database_url=database_url, rate_limit_matches_per_minute=0)
        app = create_app(settings)
        app.state.db = Database(settings)
        hub = app.state.hub = ChangeHub(app.state.db)
        other_process = Database(settings)  # its commits do not tell this hub
        await hub.start()
        try:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                created = (
                    await client.post(
                        "/v1/matches", json={"game": "asszorti", "players": ["A", "B", "C"]}
                    )
                ).json()
                match_id = created["id"]
                host = {"Authorization": f"Bearer {created['tokens']['host']}"}
                subscription = await hub.subscribe(match_id, created["version"])
                await asyncio.sleep(0.2)  # the poller or LISTEN settles; nothing to read
                reads.clear()

                entered = await client.post(
                    f"/v1/matches/{match_id}/rounds", json=AMOUNTS, headers=host
                )
                assert entered.status_code == 201
                version, kind, data = await asyncio.wait_for(subscription.queue.get(), 5)
                assert (version, kind) == (created["version"] + 1, "round_entered")
                assert f'"version":{version}' in data
                # The SQLite poller sees the change in the log too, and PostgreSQL's
                # LISTEN its notice; both leave it.
                await asyncio.sleep(0.3)
                assert reads == []

                # Another process's change is read from the log, and offered in order.
                def end(uow: Any) -> None:
                    access = Access.of(created["tokens"]["host"], match_id, Permission.PLAY)
                    matches.end_match(uow, WriteRequest(access))

                await asyncio.to_thread(other_process.run_now, end, write=True)
                version, kind, _ = await asyncio.wait_for(subscription.queue.get(), 5)
                assert (version, kind) == (created["version"] + 2, "ended")
                assert (match_id, created["version"] + 1) in reads
        finally:
            await hub.stop()
            app.state.db.dispose()
            other_process.dispose()

    asyncio.run(scenario())
