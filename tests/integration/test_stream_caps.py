"""Stream openings are fair and bounded (issue #40): one client address, or one token,
holds only so many streams open (429 past it, and a closed stream frees its place); a
resume far behind gets a snapshot, not a long replay; one address's openings cannot
take every turn to read. The app is served in process on both databases, and the
clients bind loopback addresses of their own (127.0.0.2, ...) to be distinct clients."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, cast

import anyio
import httpx
import uvicorn

from app.live import OPENINGS_PER_ADDRESS, ChangeHub
from app.main import create_app
from app.services.streams import REPLAY_LIMIT
from app.settings import Settings
from tests.api.helpers import PLAYERS

AMOUNTS = {"type": "asszorti_amounts", "amounts": [2, -1, -1]}
FAR_BEHIND = 64  # changes missed: more than a few dozen is a snapshot, not a replay


@asynccontextmanager
async def served(url: str, **settings: Any) -> AsyncIterator[tuple[Any, str]]:
    app = create_app(Settings(database_url=url, rate_limit_matches_per_minute=0, **settings))
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    )
    serving = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield app, f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await serving


def client_from(base_url: str, address: str) -> httpx.AsyncClient:
    """A client whose connections come from ``address`` (any 127.x.y.z is loopback)."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(base_url=base_url, transport=transport, timeout=10)


async def create(client: httpx.AsyncClient) -> dict[str, Any]:
    response = await client.post("/v1/matches", json={"game": "asszorti", "players": PLAYERS})
    assert response.status_code == 201, response.text
    return dict(response.json())


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def first_event(lines: AsyncIterator[str]) -> tuple[str, int]:
    """The kind and id of a stream's first event, from its lines."""
    kind = ""
    async for line in lines:
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("id: "):
            return kind, int(line.removeprefix("id: "))
    raise AssertionError("the stream ended before its first event")


async def opened(stack: AsyncExitStack, client: httpx.AsyncClient, path: str, **kw: Any) -> Any:
    """A stream's response, open until ``stack`` closes, and its first event read if
    200. (Its lines are kept until then: a reader of them let go closes the stream.)"""
    response = await stack.enter_async_context(client.stream("GET", path, **kw))
    if response.status_code == 200:
        lines = response.aiter_lines()
        stack.push_async_callback(lines.aclose)
        await first_event(lines)
    else:
        await response.aread()
    return response


def assert_refused(response: httpx.Response) -> None:
    assert response.status_code == 429, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert int(response.headers["retry-after"]) > 0
    assert response.json()["code"] == "rate_limited"


async def until_held(app: Any, key: str, count: int) -> None:
    """Until the hub counts ``count`` streams under ``key`` (a closed stream gives its
    place back once the server has seen the client leave)."""
    with anyio.fail_after(10):
        while app.state.hub.streams.held.get(key, 0) != count:
            await asyncio.sleep(0.02)


def test_one_address_holds_at_most_its_cap_and_a_closed_stream_frees_its_place(
    url: str,
) -> None:
    async def scenario() -> None:
        async with (
            served(url, streams_per_address=2, streams_per_token=0) as (app, base),
            client_from(base, "127.0.0.2") as crowd,
            client_from(base, "127.0.0.3") as other,
            AsyncExitStack() as stack,
        ):
            match = await create(crowd)
            path, viewer = f"/v1/matches/{match['id']}/events", bearer(match["tokens"]["viewer"])
            first = AsyncExitStack()
            await stack.enter_async_context(first)
            assert (await opened(first, crowd, path, headers=viewer)).status_code == 200
            assert (await opened(stack, crowd, path, headers=viewer)).status_code == 200
            assert_refused(await opened(stack, crowd, path, headers=viewer))
            assert app.state.hub.open_streams == 2  # the refused one never followed the match
            # Another address is not held back by the first one's cap.
            assert (await opened(stack, other, path, headers=viewer)).status_code == 200
            await first.aclose()
            await until_held(app, "address 127.0.0.2", 1)
            assert (await opened(stack, crowd, path, headers=viewer)).status_code == 200
            assert app.state.hub.open_streams == 3

    asyncio.run(scenario())


def test_one_token_holds_at_most_its_cap_from_every_address_and_by_ticket(url: str) -> None:
    async def scenario() -> None:
        async with (
            served(url, streams_per_address=0, streams_per_token=2) as (app, base),
            client_from(base, "127.0.0.2") as one,
            client_from(base, "127.0.0.3") as two,
            client_from(base, "127.0.0.4") as three,
            AsyncExitStack() as stack,
        ):
            match = await create(one)
            path, viewer = f"/v1/matches/{match['id']}/events", bearer(match["tokens"]["viewer"])
            assert (await opened(stack, one, path, headers=viewer)).status_code == 200
            assert (await opened(stack, two, path, headers=viewer)).status_code == 200
            assert_refused(await opened(stack, three, path, headers=viewer))
            # A ticket opens a stream with its token's rights, and counts as its token.
            ticket = await three.post(f"{path}/tickets", headers=viewer)
            assert ticket.status_code == 201, ticket.text
            assert_refused(await opened(stack, three, ticket.json()["url"]))
            # The host's token has places of its own.
            host = bearer(match["tokens"]["host"])
            assert (await opened(stack, three, path, headers=host)).status_code == 200
            assert app.state.hub.open_streams == 3

    asyncio.run(scenario())


def test_a_resume_far_behind_gets_a_snapshot_not_a_replay(url: str) -> None:
    async def scenario() -> None:
        async with (
            served(url) as (_, base),
            client_from(base, "127.0.0.2") as client,
            AsyncExitStack() as stack,
        ):
            match = await create(client)
            host = bearer(match["tokens"]["host"])
            rounds = f"/v1/matches/{match['id']}/rounds"
            for _ in range(FAR_BEHIND + 1):
                assert (await client.post(rounds, json=AMOUNTS, headers=host)).status_code == 201
            version = int(
                (await client.get(f"/v1/matches/{match['id']}", headers=host)).json()["version"]
            )
            path = f"/v1/matches/{match['id']}/events"

            async def resumed(after: int) -> tuple[str, int]:
                query = f"{path}?after={after}"
                response = await stack.enter_async_context(
                    client.stream("GET", query, headers=host)
                )
                assert response.status_code == 200
                lines = response.aiter_lines()
                stack.push_async_callback(lines.aclose)
                return await first_event(lines)

            assert await resumed(version - FAR_BEHIND) == ("snapshot", version)
            behind = version - REPLAY_LIMIT
            assert await resumed(behind) == ("round_entered", behind + 1)  # replayed
            assert await resumed(behind - 1) == ("snapshot", version)  # too far: afresh

    asyncio.run(scenario())


def test_one_address_takes_only_its_own_turns_to_read_openings() -> None:
    """A flooding address's openings wait for its own few turns; another address's
    opening takes one of the process's at once."""

    async def scenario() -> None:
        hub = ChangeHub(cast(Any, None))  # opening reads nothing of the database
        order: list[str] = []
        release = anyio.Event()

        async def open_from(address: str, name: str) -> None:
            async with hub.opening(address):
                order.append(name)
                await release.wait()

        async with anyio.create_task_group() as tasks:
            for number in range(OPENINGS_PER_ADDRESS + 3):
                tasks.start_soon(open_from, "127.0.0.2", f"flood {number}")
            await anyio.wait_all_tasks_blocked()
            tasks.start_soon(open_from, "127.0.0.3", "other")
            await anyio.wait_all_tasks_blocked()
            assert order == [f"flood {n}" for n in range(OPENINGS_PER_ADDRESS)] + ["other"]
            release.set()
        assert hub.openings_from == {}  # forgotten once done

    asyncio.run(scenario())
