"""A request waiting on the database never holds up another: the event loop keeps serving.

SQLite: another connection holds the write lock; a write waits in its worker thread,
and every other request is answered meanwhile; past the busy timeout the write is 503.
PostgreSQL: another transaction holds the match's row lock; the write waits in a
worker thread, and every other request is answered meanwhile.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from app.db import repository
from app.db.database import Database, UnitOfWork
from app.main import create_app
from app.settings import Settings

BODY = {"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]}
AMOUNTS = {"type": "asszorti_amounts", "amounts": [2, -1, -1]}


@asynccontextmanager
async def serving(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings)
    app.state.db = Database(settings)  # what the lifespan does (ASGITransport runs none)
    transport = httpx.ASGITransport(app=app)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            yield client
    finally:
        app.state.db.dispose()


async def _match(client: httpx.AsyncClient) -> tuple[str, dict[str, str]]:
    created = (await client.post("/v1/matches", json=BODY)).json()
    return created["id"], {"Authorization": f"Bearer {created['tokens']['host']}"}


async def _others_answer_while_a_write_waits(
    settings: Settings, hold: Callable[[str], Any], release: Callable[[], None]
) -> None:
    async with serving(settings) as client:
        match_id, auth = await _match(client)
        other_id, other_auth = await _match(client)
        hold(match_id)
        try:
            write = asyncio.create_task(
                client.post(f"/v1/matches/{match_id}/rounds", json=AMOUNTS, headers=auth)
            )
            await asyncio.sleep(0.2)
            assert not write.done()  # it waits for the lock...
            for _ in range(5):  # ...and the others are served meanwhile
                assert (await client.get("/healthz")).status_code == 200
                other = await client.get(f"/v1/matches/{other_id}", headers=other_auth)
                assert other.status_code == 200
                same = await client.get(f"/v1/matches/{match_id}", headers=auth)
                assert same.json()["round_count"] == 0
            assert not write.done()
        finally:
            release()
        response = await asyncio.wait_for(write, 5)
        assert response.status_code == 201, response.text
        assert response.json()["number"] == 1


def _sqlite_path(url: str) -> str:
    database = make_url(url).database
    assert database is not None
    return database


def test_sqlite_a_write_waiting_for_the_lock_does_not_hold_up_other_requests(
    sqlite_url: str,
) -> None:
    settings = Settings(database_url=sqlite_url, rate_limit_matches_per_minute=0)
    locker = sqlite3.connect(_sqlite_path(sqlite_url), isolation_level=None)
    try:
        asyncio.run(
            _others_answer_while_a_write_waits(
                settings,
                hold=lambda _: locker.execute("BEGIN IMMEDIATE"),
                release=lambda: locker.execute("ROLLBACK"),
            )
        )
    finally:
        locker.close()


def test_sqlite_a_lock_held_past_the_busy_timeout_is_503_and_nothing_is_written(
    sqlite_url: str,
) -> None:
    settings = Settings(
        database_url=sqlite_url, rate_limit_matches_per_minute=0, sqlite_busy_timeout_ms=300
    )

    async def scenario() -> None:
        async with serving(settings) as client:
            match_id, auth = await _match(client)
            locker = sqlite3.connect(_sqlite_path(sqlite_url), isolation_level=None)
            locker.execute("BEGIN IMMEDIATE")
            try:
                url = f"/v1/matches/{match_id}/rounds"
                response = await client.post(url, json=AMOUNTS, headers=auth)
            finally:
                locker.execute("ROLLBACK")
                locker.close()
            assert response.status_code == 503
            assert response.json()["code"] == "database_unavailable"
            assert response.headers["retry-after"]
            match = await client.get(f"/v1/matches/{match_id}", headers=auth)
            assert match.json()["round_count"] == 0
            retry = await client.post(url, json=AMOUNTS, headers=auth)
            assert retry.status_code == 201

    asyncio.run(scenario())


def test_postgresql_a_write_waiting_on_a_row_lock_does_not_hold_up_other_requests(
    postgres_url: str,
) -> None:
    settings = Settings(database_url=postgres_url, rate_limit_matches_per_minute=0)
    engine = create_engine(postgres_url)
    locker = engine.connect()

    def hold(match_id: str) -> None:
        locker.execute(text('SELECT 1 FROM "match" WHERE id = :id FOR UPDATE'), {"id": match_id})

    try:
        asyncio.run(_others_answer_while_a_write_waits(settings, hold, locker.rollback))
    finally:
        locker.close()
        engine.dispose()


def test_no_request_touches_the_database_on_the_event_loop(database_url: str) -> None:
    """Every statement a request sends runs in a worker thread (its route and the unit
    of work its dependency opens), never on the event loop, which is left to serve the
    other requests while one waits on the database."""
    settings = Settings(database_url=database_url, rate_limit_matches_per_minute=0)
    on_the_loop: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        on_the_loop.append(statement)

    with TestClient(create_app(settings)) as client:
        db: Database = client.app.state.db  # type: ignore[attr-defined]
        event.listen(db.engine, "before_cursor_execute", record)
        created = client.post("/v1/matches", json=BODY).json()
        url, tokens = f"/v1/matches/{created['id']}", created["tokens"]
        host = {"Authorization": f"Bearer {tokens['host']}"}
        calls = [
            ("POST", "/rounds", AMOUNTS),
            ("GET", "", None),
            ("GET", "/sheet", None),
            ("GET", "/rounds", None),
            ("GET", "/rounds/1", None),
            ("GET", "/rounds/1/history", None),
            ("PUT", "/rounds/1", AMOUNTS),
            ("PATCH", "", {"players": ["Anna", "Berta", "Dóra"]}),
            ("POST", "/tokens", {"role": "viewer"}),
            ("GET", "/history", None),
            ("GET", "/me", None),
            ("POST", "/events/tickets", None),
            ("DELETE", "/rounds/1", None),
            ("POST", "/end", None),
        ]
        for method, path, body in calls:
            response = client.request(method, url + path, json=body, headers=host)
            assert response.status_code < 300, (method, path, response.text)
        event.remove(db.engine, "before_cursor_execute", record)
    assert on_the_loop == []


def test_more_writers_than_worker_threads_all_go_in(database_url: str) -> None:
    """More writes to one match at once than FastAPI has worker threads (40): each waits
    its turn (``Database.turn``) on the event loop, not in a thread, so the one that
    holds the match's lock always finds a thread to finish in, and all go in."""
    settings = Settings(database_url=database_url, rate_limit_matches_per_minute=0)
    writers = 60

    async def scenario() -> None:
        async with serving(settings) as client:
            match_id, auth = await _match(client)
            url = f"/v1/matches/{match_id}/rounds"
            responses = await asyncio.gather(
                *(client.post(url, json=AMOUNTS, headers=auth) for _ in range(writers))
            )
            assert [r.status_code for r in responses] == [201] * writers, responses[0].text
            numbers = sorted(r.json()["number"] for r in responses)
            assert numbers == list(range(1, writers + 1))

    asyncio.run(scenario())


def test_more_readers_than_worker_threads_all_answered(database_url: str) -> None:
    """More reads at once than FastAPI has worker threads (40) and the engine has
    connections: each waits its turn on the event loop, so no thread waits for a
    connection that a unit waiting for a thread holds, and all are answered."""
    settings = Settings(database_url=database_url, rate_limit_matches_per_minute=0)
    readers = 100

    async def scenario() -> None:
        async with serving(settings) as client:
            match_id, auth = await _match(client)
            url = f"/v1/matches/{match_id}"
            assert (
                await client.post(f"{url}/rounds", json=AMOUNTS, headers=auth)
            ).status_code == 201
            paths = [f"{url}/sheet", f"{url}/rounds", url] * (readers // 3)
            responses = await asyncio.wait_for(
                asyncio.gather(*(client.get(path, headers=auth) for path in paths)), 20
            )
            assert [r.status_code for r in responses] == [200] * len(paths)

    asyncio.run(scenario())


def test_a_request_without_a_token_is_401_without_waiting_for_a_turn(
    database_url: str,
) -> None:
    """A token's shape is checked before the request waits for its turn at the
    database: while every turn is taken, a write without a token is 401, and one with
    a token waits (here: until the turn's timeout, then 503)."""
    settings = Settings(
        database_url=database_url, rate_limit_matches_per_minute=0, sqlite_busy_timeout_ms=300
    )

    async def scenario() -> None:
        app = create_app(settings)
        db = app.state.db = Database(settings)
        db.turn_timeout_s = 0.3
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            match_id, auth = await _match(client)
            taken = 0
            while True:  # take every turn
                try:
                    db.write_turns.acquire_nowait()
                except anyio.WouldBlock:
                    break
                taken += 1
            try:
                url = f"/v1/matches/{match_id}/rounds"
                # (Had it waited for a turn, it would be 503, as the next one is.)
                anonymous = await client.post(url, json=AMOUNTS)
                assert anonymous.status_code == 401, anonymous.text
                waited = await client.post(url, json=AMOUNTS, headers=auth)
                assert waited.status_code == 503, waited.text
                assert waited.json()["code"] == "database_unavailable"
            finally:
                for _ in range(taken):
                    db.write_turns.release()
            assert (await client.post(url, json=AMOUNTS, headers=auth)).status_code == 201
        db.dispose()

    asyncio.run(scenario())


def test_sqlite_with_no_busy_timeout_a_write_is_tried_once_and_goes_in(sqlite_url: str) -> None:
    """SQLITE_BUSY_TIMEOUT_MS=0: no waiting at all, but a write that finds the database
    free goes in."""
    settings = Settings(
        database_url=sqlite_url, rate_limit_matches_per_minute=0, sqlite_busy_timeout_ms=0
    )

    async def scenario() -> None:
        async with serving(settings) as client:
            match_id, auth = await _match(client)
            response = await client.post(
                f"/v1/matches/{match_id}/rounds", json=AMOUNTS, headers=auth
            )
            assert response.status_code == 201, response.text

    asyncio.run(scenario())


def _other_writer_is_locked_out(path: str) -> bool:
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        other.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        assert "locked" in str(error)
        return True
    else:
        other.execute("ROLLBACK")
        return False
    finally:
        other.close()


def _seen_by_another_connection(path: str, window: int) -> bool:
    other = sqlite3.connect(path, isolation_level=None)
    try:
        query = "SELECT count(*) FROM rate_limit_window WHERE window = ?"
        return bool(other.execute(query, (window,)).fetchone()[0])
    finally:
        other.close()


def _write(uow: UnitOfWork, window: int) -> None:
    uow.connection.execute(
        text("INSERT INTO rate_limit_window (client, window, count) VALUES ('t', :w, 1)"),
        {"w": window},
    )


def test_sqlite_a_write_unit_holds_the_write_lock_from_its_start(sqlite_url: str) -> None:
    """A write takes SQLite's write lock before its first statement (BEGIN IMMEDIATE),
    so it never reads a state that another writer changes before it writes; it is
    committed when the unit ends, rolled back when it fails. A snapshot read begins a
    transaction that leaves writers free; a one-statement read begins none. A BEGIN
    IMMEDIATE refused because another connection holds the lock leaves nothing behind."""
    db = Database(Settings(database_url=sqlite_url, sqlite_busy_timeout_ms=100))
    path = make_url(sqlite_url).database
    assert path is not None
    try:
        with db.unit_of_work(write=True) as uow:
            assert uow.connection.connection.dbapi_connection.in_transaction  # type: ignore[union-attr]
            assert _other_writer_is_locked_out(path)
            _write(uow, 1)
            assert not _seen_by_another_connection(path, 1)
        assert _seen_by_another_connection(path, 1)  # committed
        assert not _other_writer_is_locked_out(path)

        with pytest.raises(RuntimeError), db.unit_of_work(write=True) as uow:
            _write(uow, 2)
            raise RuntimeError("the use case failed")
        assert not _seen_by_another_connection(path, 2)  # rolled back
        assert not _other_writer_is_locked_out(path)

        with db.unit_of_work(snapshot=True) as uow:
            repository.last_change_id(uow.connection)
            assert uow.connection.connection.dbapi_connection.in_transaction  # type: ignore[union-attr]
            assert not _other_writer_is_locked_out(path)

        with db.unit_of_work() as uow:
            repository.last_change_id(uow.connection)
            assert not uow.connection.connection.dbapi_connection.in_transaction  # type: ignore[union-attr]

        locker = sqlite3.connect(path, isolation_level=None)
        locker.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(OperationalError, match="locked"), db.unit_of_work(write=True):
                pytest.fail("the unit ran without the write lock")
        finally:
            locker.execute("ROLLBACK")
            locker.close()
        with db.unit_of_work(write=True) as uow:  # the pooled connection came back clean
            _write(uow, 3)
        assert _seen_by_another_connection(path, 3)
    finally:
        db.dispose()
