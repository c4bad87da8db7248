"""SQLite: the hub's poller of other processes' changes reads nothing while no stream is
open in its process, and once one opens, another process's change still reaches it,
even one committed after the stream's first read and before the poller's.
(PostgreSQL has no poller: other processes' changes come by LISTEN.)"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from sqlalchemy import event

from app import live
from app.db import repository
from app.live import Change, Subscription
from tests.integration.hub import app_with_hub, create_match

AMOUNTS = {"type": "asszorti_amounts", "amounts": [2, -1, -1]}
IDLE_POLLS = 10  # poller intervals watched with no stream open


def test_the_poller_reads_only_while_a_stream_is_open(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        # Two workers on one file: each its own hub, neither telling the other's.
        async with (
            app_with_hub(sqlite_url) as (_, hub, _client),
            app_with_hub(sqlite_url) as (_, _, other),
        ):
            created = await create_match(other)
            match_id = created["id"]
            host = {"Authorization": f"Bearer {created['tokens']['host']}"}

            def enter_round() -> None:
                async def post() -> None:
                    entered = await other.post(
                        f"/v1/matches/{match_id}/rounds", json=AMOUNTS, headers=host
                    )
                    assert entered.status_code == 201, entered.text

                asyncio.run_coroutine_threadsafe(post(), loop).result(10)

            # The poller's first read once a stream is open waits until the stream's
            # own first read is done; then the other worker enters a round, and only
            # then is the poller's cursor read: the round is below it.
            first_read_done = threading.Event()
            last_change_id = repository.last_change_id

            def late(connection: Any) -> int:
                assert first_read_done.wait(10)
                enter_round()
                return last_change_id(connection)

            statements: list[str] = []

            def count(*args: Any) -> None:
                statements.append(args[2])

            event.listen(hub.db.engine, "before_cursor_execute", count)
            try:
                await asyncio.sleep(IDLE_POLLS * live.SQLITE_POLL_S)
                assert statements == []  # no stream open here: nothing read

                monkeypatch.setattr(repository, "last_change_id", late)
                subscription = hub.subscribe(match_id, created["version"])
                while match_id in hub.fetching:
                    await asyncio.sleep(0.01)
                first_read_done.set()
                (change,) = await _next(subscription)
                assert (change.version, change.kind) == (created["version"] + 1, "round_entered")
                # A round entered while the poller follows the log reaches it too.
                await asyncio.to_thread(enter_round)
                (change,) = await _next(subscription)
                assert (change.version, change.kind) == (created["version"] + 2, "round_entered")

                hub.unsubscribe(subscription)
                await asyncio.sleep(2 * live.SQLITE_POLL_S)  # a read under way ends
                statements.clear()
                await asyncio.sleep(IDLE_POLLS * live.SQLITE_POLL_S)
                assert statements == []  # closed: nothing read again
            finally:
                event.remove(hub.db.engine, "before_cursor_execute", count)

    asyncio.run(scenario())


async def _next(subscription: Subscription) -> list[Change]:
    """The changes offered to ``subscription`` next."""
    assert await subscription.wait(5), "nothing offered within 5 s"
    return subscription.take()
