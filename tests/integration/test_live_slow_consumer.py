"""A stream whose client stops reading is cut, not buffered: the app is served in
process with a ``send`` that blocks the way a full socket does, while changes keep
coming. The hub holds at most QUEUE_SIZE changes for it; once it falls behind it is
dropped (with a ``resync`` event waiting to go), and the stream ends as soon as it can
send again."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from app.live import QUEUE_SIZE
from tests.integration.hub import app_with_hub, create_match, stream_scope

AMOUNTS = {"type": "asszorti_amounts", "amounts": [2, -1, -1]}


def test_a_slow_consumer_is_cut_not_buffered(database_url: str) -> None:
    async def scenario() -> None:
        async with app_with_hub(database_url) as (app, hub, client):
            created = await create_match(client)
            match_id, host = (
                created["id"],
                {"Authorization": f"Bearer {created['tokens']['host']}"},
            )
            sent: list[bytes] = []
            socket_full = asyncio.Event()
            socket_free = asyncio.Event()

            async def send(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.body":
                    sent.append(message.get("body", b""))
                    if not socket_free.is_set():  # after the opening (the snapshot)
                        socket_full.set()
                        await socket_free.wait()  # the client stopped reading

            async def receive() -> dict[str, Any]:
                await asyncio.Event().wait()  # never disconnects
                return {}

            scope = stream_scope(match_id, created["tokens"]["viewer"])
            stream = asyncio.create_task(app(scope, receive, send))
            await asyncio.wait_for(socket_full.wait(), 10)
            for _ in range(QUEUE_SIZE * 3):
                entered = await client.post(
                    f"/v1/matches/{match_id}/rounds", json=AMOUNTS, headers=host
                )
                assert entered.status_code == 201
            await asyncio.sleep(0.3)
            # Cut: the hub holds nothing for it any more (dropped, or marked to resync
            # with its queue emptied until its stream runs again), its socket still full.
            for subscription in hub.subscriptions.get(match_id, ()):
                assert subscription.overflowed and not subscription.pending
            assert not stream.done()
            socket_free.set()
            await asyncio.wait_for(stream, 10)  # the stream ended on its own
        body = b"".join(sent).decode()
        assert "event: resync" in body
        assert body.count("event: round_entered") < QUEUE_SIZE * 3

    asyncio.run(scenario())


def test_a_client_gone_while_its_stream_waits_to_send_leaves_the_hub_at_once(
    database_url: str,
) -> None:
    """A stream blocked on a full socket whose client then goes away is closed with
    its response: it follows nothing, with no garbage collection to wait for."""

    async def scenario() -> None:
        async with app_with_hub(database_url) as (app, hub, client):
            created = await create_match(client)
            match_id = created["id"]
            host = {"Authorization": f"Bearer {created['tokens']['host']}"}
            blocked, gone = asyncio.Event(), asyncio.Event()

            async def send(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.body":
                    blocked.set()
                    await asyncio.Event().wait()  # the socket stays full

            async def receive() -> dict[str, Any]:
                await gone.wait()
                return {"type": "http.disconnect"}

            scope = stream_scope(match_id, created["tokens"]["viewer"])
            gc.disable()
            try:
                stream = asyncio.create_task(app(scope, receive, send))
                await asyncio.wait_for(blocked.wait(), 10)
                assert hub.subscriptions.get(match_id)
                entered = await client.post(
                    f"/v1/matches/{match_id}/rounds", json=AMOUNTS, headers=host
                )
                assert entered.status_code == 201
                gone.set()
                await asyncio.wait_for(stream, 10)
                assert match_id not in hub.subscriptions
                assert hub.open_streams == 0
            finally:
                gc.enable()

    asyncio.run(scenario())
