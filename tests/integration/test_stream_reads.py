"""What a live stream asks the database: its opening is one statement (the caller and
the match, read together), and a re-issued token reaches the streams as the change
that re-issued it, with no read per stream. The app is served in process, and the
statements its engine sends are counted."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime
from functools import partial
from typing import Any

import httpx
import uvicorn
from fastapi.testclient import TestClient
from sqlalchemy import event

from app.db.models import MatchChange
from app.main import create_app
from app.services import streams
from app.services.auth import Access, Permission
from app.settings import Settings
from tests.api.helpers import PLAYERS, Table


@asynccontextmanager
async def served(url: str) -> AsyncIterator[tuple[Any, httpx.AsyncClient]]:
    app = create_app(Settings(database_url=url, rate_limit_matches_per_minute=0))
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    )
    serving = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            yield app, client
    finally:
        server.should_exit = True
        await serving


@contextmanager
def selects(app: Any, *, change_log: bool = True) -> Iterator[list[str]]:
    """The SELECT statements the app sends meanwhile, but the SQLite hub's poll of the
    change log for other processes' changes (and, unless ``change_log``, the hub's
    reads of the log: once per match, for all its streams)."""
    sent: list[str] = []

    def count(*args: Any) -> None:
        statement = " ".join(str(args[2]).split())
        if not statement.upper().startswith("SELECT") or "match_change.id >" in statement:
            return
        if change_log or "FROM match_change" not in statement:
            sent.append(statement)

    event.listen(app.state.db.engine, "before_cursor_execute", count)
    try:
        yield sent
    finally:
        event.remove(app.state.db.engine, "before_cursor_execute", count)


@contextmanager
def transactions(app: Any) -> Iterator[list[str]]:
    """The transactions the app begins meanwhile: SQLite's BEGIN, and on PostgreSQL each
    statement sent outside autocommit (psycopg begins one for it, unseen)."""
    begun: list[str] = []

    def check(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.upper().startswith("BEGIN"):
            begun.append(statement)
        elif conn.dialect.name == "postgresql" and not conn.connection.dbapi_connection.autocommit:
            begun.append(f"(implicit) {statement}")

    event.listen(app.state.db.engine, "before_cursor_execute", check)
    try:
        yield begun
    finally:
        event.remove(app.state.db.engine, "before_cursor_execute", check)


async def _next_event(lines: AsyncIterator[str]) -> tuple[str, int]:
    """The next event's kind and id, past comments."""
    kind = ""
    while True:
        line = await asyncio.wait_for(anext(lines), 10)
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("id: "):
            return kind, int(line.removeprefix("id: "))


def test_an_opening_is_one_read_and_a_reissue_costs_the_streams_none(url: str) -> None:
    async def scenario() -> None:
        async with served(url) as (app, client):
            created = (
                await client.post("/v1/matches", json={"game": "asszorti", "players": PLAYERS})
            ).json()
            tokens, events = created["tokens"], f"/v1/matches/{created['id']}/events"
            host = {"Authorization": f"Bearer {tokens['host']}"}

            async def reissue(body: dict[str, Any]) -> int:
                """The reads of a token a re-issue sends, or sends meanwhile. (The hub
                may read the match's change log once, for all its streams, when its
                poll or notice comes before the commit's hand-over.)"""
                with selects(app) as sent:
                    answer = await client.post(
                        f"/v1/matches/{created['id']}/tokens", json=body, headers=host
                    )
                    assert answer.status_code == 200
                    await asyncio.sleep(0.3)  # the streams have had the change
                return len([statement for statement in sent if "credential" in statement])

            alone = await reissue({"role": "player", "seat": 2})  # no stream open
            viewer = {"Authorization": f"Bearer {tokens['viewer']}"}
            seat_1 = {"Authorization": f"Bearer {tokens['players'][1]}"}
            with (
                selects(app, change_log=False) as opening,  # the match's first stream
                transactions(app) as begun,
            ):
                first = client.stream("GET", events, headers=viewer)
                viewer_stream = await first.__aenter__()
                viewer_lines = viewer_stream.aiter_lines()
                assert await _next_event(viewer_lines) == ("snapshot", created["version"] + 1)
            assert len(opening) == 1, opening  # the caller and the match, together
            # ... in one statement of its own: no transaction around it (its round trips)
            assert [b for b in begun if "match_change" not in b] == [], begun
            version = created["version"] + 1
            await asyncio.sleep(0.3)  # the hub's own read of the match it now follows
            with selects(app) as resuming:
                resumed = {**seat_1, "Last-Event-ID": str(version)}
                second = client.stream("GET", events, headers=resumed)
                seat_stream = await second.__aenter__()
                assert seat_stream.status_code == 200
            assert len(resuming) == 1, resuming  # current: nothing more to read
            try:
                seat_lines = seat_stream.aiter_lines()
                # The seat's own token is replaced: its stream is revoked, the viewer's
                # goes on; neither asks the database.
                assert await reissue({"role": "player", "seat": 1}) == alone
                assert await _next_event(seat_lines) == ("token_reissued", version + 1)
                assert await _next_event(seat_lines) == ("revoked", version + 1)
                assert await _next_event(viewer_lines) == ("token_reissued", version + 1)
                await client.post(
                    f"/v1/matches/{created['id']}/rounds",
                    json={"type": "asszorti_amounts", "amounts": [2, -1, -1]},
                    headers=host,
                )
                assert await _next_event(viewer_lines) == ("round_entered", version + 2)
            finally:
                await second.__aexit__(None, None, None)
                await first.__aexit__(None, None, None)

    asyncio.run(scenario())


def test_a_resumed_opening_replays_only_up_to_the_version_it_read(
    url: str,
) -> None:
    """Outside a snapshot, the change log can already hold a change committed after the
    opening read its match: the replay stops at the match's version, and the later
    change is the hub's to deliver (here one is logged by hand between the two reads)."""
    app = create_app(Settings(database_url=url, rate_limit_matches_per_minute=0))
    with TestClient(app) as client:
        table = Table(client, {"game": "asszorti", "players": PLAYERS})
        for _ in range(2):
            table.round({"type": "asszorti_amounts", "amounts": [2, -1, -1]})
        version = table.get().json()["version"]
        db = app.state.db
        with db.engine.begin() as connection:
            connection.execute(
                MatchChange.__table__.insert(),  # type: ignore[attr-defined]
                {
                    "match_id": table.id,
                    "version": version + 1,
                    "kind": "match_updated",
                    "payload": {"kind": "match_updated", "version": version + 1},
                    "created_at": datetime.now(UTC),
                },
            )
        access = Access.of(table.tokens["viewer"], table.id, Permission.READ)
        opened = db.run_now(
            partial(
                streams.opening, match_id=table.id, access=access, ticket=None, after=version - 2
            )
        )
    assert opened.version == version
    assert [number for number, _ in opened.events] == [version - 1, version]
