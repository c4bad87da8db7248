"""A request waiting on the database never holds up another: the event loop keeps serving.

SQLite: another connection holds the write lock; a write retries, awaiting, and every
other request is answered meanwhile; past the busy timeout the write is 503.
PostgreSQL: another transaction holds the match's row lock; the write waits in a
worker thread, and every other request is answered meanwhile.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from app.db import database, repository
from app.db.database import SHORT_ROUNDS, Database, UnitOfWork
from app.main import create_app
from app.schemas import MATCH_CREATE_MODELS
from app.services import matches
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


def _folding(rounds: int) -> Any:
    """A unit of work that will fold ``rounds`` rounds; the thread it ran in."""

    def work(uow: UnitOfWork) -> str:
        uow.expect_fold(rounds)
        return threading.current_thread().name

    return work


def test_sqlite_units_run_on_the_loop_unless_they_fold_a_long_match(sqlite_url: str) -> None:
    """A unit runs inline on SQLite; one that will fold more than SHORT_ROUNDS rounds (a
    long match's sheet, page or refold) runs again in a worker thread, so it never
    holds up the loop."""
    db = Database(Settings(database_url=sqlite_url))

    async def threads() -> tuple[str, str]:
        return await db.run(_folding(SHORT_ROUNDS)), await db.run(_folding(SHORT_ROUNDS + 1))

    try:
        short, long = asyncio.run(threads())
    finally:
        db.dispose()
    assert short == threading.main_thread().name
    assert long != short


def test_a_long_unit_is_rolled_back_and_run_again_once(database_url: str) -> None:
    """What a unit wrote before it found itself long is rolled back: it runs again in
    the long lane, and its writes land once."""
    db = Database(Settings(database_url=database_url))
    runs: list[bool] = []
    body = MATCH_CREATE_MODELS["asszorti"].model_validate(BODY)

    def count(uow: UnitOfWork) -> Any:
        return uow.connection.execute(text('SELECT count(*) FROM "match"')).scalar()

    def create(uow: UnitOfWork) -> str:
        runs.append(uow.short)
        created = matches.create_match(uow, body)
        uow.expect_fold(SHORT_ROUNDS + 1)
        return created.match.id

    try:
        before = db.run_now(count)
        match_id = asyncio.run(db.run(create, write=True))
        after = db.run_now(count)
        found = db.run_now(lambda uow: repository.get_match(uow.connection, match_id))
    finally:
        db.dispose()
    assert runs == [True, False]  # the short lane, then the long one
    assert after == before + 1
    assert found is not None


def test_sqlite_writes_of_one_process_take_turns_and_are_503_past_the_busy_timeout(
    sqlite_url: str,
) -> None:
    """A write behind this process's own long unit (a correction of a long match runs
    in a worker thread) awaits its turn while other requests are served, goes in as
    soon as that unit commits, and is 503 if the turn does not come within the busy
    timeout."""
    settings = Settings(
        database_url=sqlite_url, rate_limit_matches_per_minute=0, sqlite_busy_timeout_ms=1000
    )

    async def scenario() -> None:
        app = create_app(settings)
        db = app.state.db = Database(settings)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            match_id, auth = await _match(client)
            url = f"/v1/matches/{match_id}/rounds"
            release = threading.Event()

            def long_write(uow: Any) -> None:  # holds SQLite's write lock in its thread
                uow.expect_fold(SHORT_ROUNDS + 1)
                uow.connection.execute(text("SELECT 1"))
                release.wait(5)

            holder = asyncio.create_task(db.run(long_write, write=True))
            await asyncio.sleep(0.05)
            write = asyncio.create_task(client.post(url, json=AMOUNTS, headers=auth))
            await asyncio.sleep(0.2)
            assert not write.done()  # it waits its turn, on the writers' lock...
            assert db.writers.statistics().tasks_waiting == 1
            assert (await client.get("/healthz")).status_code == 200  # ...others go on
            release.set()
            await holder
            response = await asyncio.wait_for(write, 1)
            assert response.status_code == 201, response.text

            release.clear()
            holder = asyncio.create_task(db.run(long_write, write=True))
            await asyncio.sleep(0.05)
            try:
                late = await client.post(url, json=AMOUNTS, headers=auth)
            finally:
                release.set()
                await holder
            assert late.status_code == 503, late.text
            assert late.json()["code"] == "database_unavailable"
            assert late.headers["retry-after"]
            match = await client.get(f"/v1/matches/{match_id}", headers=auth)
            assert match.json()["round_count"] == 1
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


def test_sqlite_checkpoints_run_in_a_worker_thread_not_in_a_commit(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite's automatic checkpoint would run in the commit that fills the log: a
    request on the event loop. It is off, and the app's lifespan checkpoints in a
    worker thread instead."""
    monkeypatch.setattr(database, "CHECKPOINT_EVERY_S", 0.01)
    settings = Settings(database_url=sqlite_url, rate_limit_matches_per_minute=0)
    on_a_loop: list[bool] = []  # for each checkpoint, whether it ran on an event loop
    checkpoint = Database.checkpoint

    def counted(db: Database) -> tuple[int, int, int]:
        try:
            asyncio.get_running_loop()
            on_a_loop.append(True)
        except RuntimeError:
            on_a_loop.append(False)
        return checkpoint(db)

    monkeypatch.setattr(Database, "checkpoint", counted)
    with TestClient(create_app(settings)) as client:
        assert client.post("/v1/matches", json=BODY).status_code == 201
        db: Database = client.app.state.db  # type: ignore[attr-defined]
        autocheckpoint = db.run_now(
            lambda uow: uow.connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar()
        )
        deadline = time.monotonic() + 5
        while len(on_a_loop) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        for _ in range(100):  # (busy: it met the lifespan's own checkpoint)
            busy, frames, copied = checkpoint(db)
            if not busy:
                break
    assert autocheckpoint == 0
    assert len(on_a_loop) >= 2 and not any(on_a_loop)
    assert busy == 0 and copied == frames  # the log is copied back: nothing left over


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
    db = Database(Settings(database_url=sqlite_url))
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
