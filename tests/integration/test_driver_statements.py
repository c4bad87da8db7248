"""The statements on the driver (app/db/driver.py) store and read values exactly as
SQLAlchemy's column types do, on SQLite and on PostgreSQL: a row written by one is
read back identically by the other; transactions commit and roll back as they should."""

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from app.db import engine, repository
from app.db.driver import DriverTable
from app.db.engine import Database
from app.db.models import MATCH
from app.settings import Settings

WHEN = datetime(2026, 11, 29, 16, 43, 59, 7, tzinfo=UTC)


def _match(match_id: str, **changes: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "id": match_id,
        "game": "asszorti",
        "status": "in_progress",
        "players": ["Anna", "Béla", "Csaba"],
        "team_names": None,
        "settings": {"kontra": True, "nested": {"a": [1, 2]}},
        "version": 1,
        "round_count": 0,
        "sheet": {"totals": [0, 0, 0], "owed": [0, 0, 0]},
        "winner": None,
        "created_at": WHEN,
        "updated_at": WHEN,
        "ended_at": None,
        "ended_by": None,
        "view": '{"id": "x"}',
    }
    values.update(changes)
    return values


@pytest.fixture
def db(database_url: str) -> Any:
    database = Database(Settings(database_url=database_url))
    yield database
    database.dispose()


def test_a_row_written_on_the_driver_reads_back_the_same_through_sqlalchemy(db: Database) -> None:
    values = _match("driver-write-1")
    with db.write() as conn:
        repository.insert_match(conn, values)
    with db.engine.connect() as conn:
        row = conn.execute(select(MATCH).where(MATCH.c.id == "driver-write-1")).mappings().one()
    assert dict(row) == values


def test_a_row_written_through_sqlalchemy_reads_back_the_same_on_the_driver(db: Database) -> None:
    values = _match("driver-read-1", winner={"seats": [0], "team": None}, ended_at=WHEN)
    with db.engine.begin() as conn:
        conn.execute(MATCH.insert(), values)
    with db.read() as conn:
        row = repository.get_match(conn, "driver-read-1")
    del values["view"]  # get_match reads the row without its rendered view
    assert row == values
    assert row is not None and row["created_at"].tzinfo is not None


def test_each_timestamp_is_stored_as_its_own_value(db: Database) -> None:
    """The driver keeps the text of the last timestamp it wrote: a column written with
    another (or an equal but other, or a non-UTC) datetime must still get its own."""
    later = datetime(2027, 1, 2, 3, 4, 5, 6, tzinfo=UTC)
    same_instant = datetime(2026, 11, 29, 17, 43, 59, 7, tzinfo=timezone(timedelta(hours=1)))
    cases = [
        _match("times-1", created_at=WHEN, updated_at=WHEN),
        _match("times-2", created_at=WHEN, updated_at=later),
        _match("times-3", created_at=later, updated_at=same_instant),
        _match("times-4", created_at=same_instant, updated_at=WHEN),
    ]
    with db.write() as conn:
        for values in cases:
            repository.insert_match(conn, values)
    with db.engine.connect() as conn:
        rows = {r.id: r for r in conn.execute(select(MATCH)).mappings()}
    for values in cases:
        stored = rows[values["id"]]
        assert stored["created_at"] == values["created_at"]
        assert stored["updated_at"] == values["updated_at"]
        assert stored["updated_at"].utcoffset() == timedelta(0)


def test_an_update_on_the_driver_changes_only_what_it_names(db: Database) -> None:
    with db.write() as conn:
        repository.insert_match(conn, _match("driver-update-1"))
    later = datetime(2026, 11, 30, 1, 2, 3, tzinfo=UTC)
    with db.write() as conn:
        repository.update_match(
            conn, "driver-update-1", {"version": 2, "sheet": {"totals": [5]}, "updated_at": later}
        )
    with db.engine.connect() as conn:
        row = conn.execute(select(MATCH).where(MATCH.c.id == "driver-update-1")).mappings().one()
    assert row["version"] == 2
    assert row["sheet"] == {"totals": [5]}
    assert row["updated_at"] == later
    assert row["created_at"] == WHEN
    assert row["players"] == ["Anna", "Béla", "Csaba"]


def test_a_driver_statement_rolls_back_with_its_transaction(db: Database) -> None:
    with pytest.raises(RuntimeError), db.write() as conn:
        repository.insert_match(conn, _match("driver-rollback-1"))
        raise RuntimeError("the write fails after the insert")
    with db.read() as conn:
        assert repository.get_match(conn, "driver-rollback-1") is None


def test_driver_errors_are_raised_as_sqlalchemy_raises_them(db: Database) -> None:
    with db.write() as conn:
        repository.insert_match(conn, _match("driver-dup-1"))
    with pytest.raises(IntegrityError), db.write() as conn:
        DriverTable(MATCH).insert(conn, _match("driver-dup-1"))
    with db.read() as conn:  # the failed transaction left the pooled connection usable
        assert repository.get_match(conn, "driver-dup-1") is not None


def test_connections_kept_for_reuse_come_back_clean(db: Database) -> None:
    for n in range(8):
        with pytest.raises(RuntimeError), db.write() as conn:
            repository.insert_match(conn, _match(f"driver-held-{n}"))
            raise RuntimeError("the write fails with its transaction open")
        with db.read(snapshot=True) as conn:
            assert repository.get_match(conn, f"driver-held-{n}") is None
    with db.write() as conn:  # BEGIN IMMEDIATE would fail inside a transaction left open
        repository.insert_match(conn, _match("driver-held-ok"))
    with db.read() as conn:
        assert repository.get_match(conn, "driver-held-ok") is not None
    assert 1 <= len(db._held) <= 4
    if db.is_sqlite:
        assert not any(tx.driver.in_transaction for tx in db._held)
    else:
        assert {tx.driver.info.transaction_status.name for tx in db._held} == {"IDLE"}


def test_a_kept_postgresql_connection_that_died_while_idle_is_replaced(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = Database(Settings(database_url=postgres_url))
    try:
        with db.read() as conn:
            pid = conn.driver.info.backend_pid
        assert [tx.driver.info.backend_pid for tx in db._held] == [pid]
        with db.engine.connect() as admin:  # the server drops the idle connection
            admin.exec_driver_sql(f"SELECT pg_terminate_backend({pid})")
        monkeypatch.setattr(engine, "IDLE_PING_S", 0.0)
        with db.read() as conn:
            assert conn.driver.info.backend_pid != pid
            assert repository.get_match(conn, "no-such-match") is None
    finally:
        db.dispose()


def test_a_connection_lost_after_its_unit_of_work_is_dropped_quietly(postgres_url: str) -> None:
    db = Database(Settings(database_url=postgres_url))
    try:
        with db.read() as conn:
            pid = conn.driver.info.backend_pid
            assert repository.get_match(conn, "no-such-match") is None  # a transaction is open
            with db.engine.connect() as admin:
                admin.exec_driver_sql(f"SELECT pg_terminate_backend({pid})")
        # Releasing it could not roll back: it is dropped, and the read's answer stands.
        assert all(tx.driver.info.backend_pid != pid for tx in db._held)
        with db.read() as conn:
            assert repository.get_match(conn, "no-such-match") is None
    finally:
        db.dispose()
