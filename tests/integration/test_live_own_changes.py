"""The live hub offers a change this process committed as it was logged, without reading
it back from the change log (on PostgreSQL, unless the change's own notice came first);
a change another process committed is read from the log."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.db import repository
from app.db.database import Database
from app.live import Change, Subscription
from app.services import matches
from app.services.auth import Access, Caller, Permission, match_for_caller
from app.settings import Settings
from tests.integration.hub import app_with_hub, create_match

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
        other_process = Database(Settings(database_url=database_url))  # tells no hub
        try:
            async with app_with_hub(database_url) as (_, hub, client):
                created = await create_match(client)
                match_id = created["id"]
                host = {"Authorization": f"Bearer {created['tokens']['host']}"}
                if not hub.db.is_sqlite:  # the LISTEN connection is up, and has read
                    await asyncio.wait_for(hub.listening.wait(), 10)
                subscription = hub.subscribe(match_id, created["version"])
                # The subscription's own first read is done, and on SQLite the poller's
                # too: once a stream opens, it reads the followed matches once again.
                first_reads = 2 if hub.db.is_sqlite else 1
                for _ in range(500):
                    if match_id not in hub.fetching and len(reads) >= first_reads:
                        break
                    await asyncio.sleep(0.01)
                reads.clear()

                entered = await client.post(
                    f"/v1/matches/{match_id}/rounds", json=AMOUNTS, headers=host
                )
                assert entered.status_code == 201
                (change,) = await _next(subscription)
                version = change.version
                assert (version, change.kind) == (created["version"] + 1, "round_entered")
                assert f'"version":{version}'.encode() in change.frame
                # The SQLite poller sees the change in the log too, and leaves it. On
                # PostgreSQL the change's own notice may reach the hub before the commit
                # hands it over; then one read follows it (from before or after the
                # change, as the hand-over lands first or not), and nothing reads again.
                await asyncio.sleep(0.3)
                if hub.db.is_sqlite:
                    assert reads == []
                else:
                    after_either = ([], [(match_id, created["version"])], [(match_id, version)])
                    assert reads in after_either
                assert not subscription.pending  # offered once

                # Another process's change is read from the log, and offered in order.
                def end(uow: Any) -> None:
                    access = Access.of(created["tokens"]["host"], match_id, Permission.PLAY)
                    match, who = match_for_caller(uow, access, for_update=True)
                    matches.end_match(Caller(uow, who, match))

                await asyncio.to_thread(other_process.run_now, end, write=True)
                (change,) = await _next(subscription)
                assert (change.version, change.kind) == (created["version"] + 2, "ended")
                assert (match_id, created["version"] + 1) in reads
        finally:
            other_process.dispose()

    asyncio.run(scenario())


async def _next(subscription: Subscription) -> list[Change]:
    """The changes offered to ``subscription`` next."""
    assert await subscription.wait(5), "nothing offered within 5 s"
    return subscription.take()
