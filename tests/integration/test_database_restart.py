"""PostgreSQL going away (a restart, a failover): one request may be answered 503, the
requests after it are served on fresh connections, and nothing written is lost.

The pool does not ping a connection each time it lends it (a round trip more for
every request); SQLAlchemy's optimistic disconnect handling replaces the whole pool
when one connection turns out dead."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.engine import make_url

from app.db import database
from app.db.database import Database, UnitOfWork
from app.main import create_app
from app.settings import Settings
from tests.api.helpers import PLAYERS, Table, amounts


@pytest.fixture
def client(postgres_url: str) -> Iterator[TestClient]:
    app = create_app(Settings(database_url=postgres_url, rate_limit_matches_per_minute=0))
    with TestClient(app) as test_client:
        yield test_client


def _drop_every_connection(postgres: Any, url: str) -> int:
    """What a server restart does to the app's connections: all of them end."""
    with postgres.admin.connect() as connection:
        return len(
            connection.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": make_url(url).database},
            ).all()
        )


def test_after_the_server_drops_every_connection_requests_are_served_again(
    client: TestClient, postgres: Any, postgres_url: str
) -> None:
    table = Table(client, {"game": "asszorti", "players": PLAYERS})
    table.round(amounts(2, -1, -1))
    before = table.get("").json()

    assert _drop_every_connection(postgres, postgres_url) >= 1

    first = table.get("")
    if first.status_code != 200:
        # The request that finds the pool's connections dead is told to retry.
        assert first.status_code == 503, first.text
        assert first.json()["code"] == "database_unavailable"
        assert first.headers["Retry-After"]
    # ... and every request after it is served on a fresh connection.
    for _ in range(3):
        again = table.get("")
        assert again.status_code == 200, again.text
    assert again.json() == before
    table.round(amounts(-1, 2, -1))
    assert table.get("").json()["round_count"] == 2


def test_a_pooled_connection_is_replaced_once_it_is_old(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL: a connection older than POOL_RECYCLE_S (3 minutes; here shortened) is
    replaced when it is next lent, before a proxy in front of the database drops it."""
    monkeypatch.setattr(database, "POOL_RECYCLE_S", 0.2)
    db = Database(Settings(database_url=postgres_url, database_pool_size=1))

    def backend(uow: UnitOfWork) -> Any:
        return uow.connection.execute(text("SELECT pg_backend_pid()")).scalar()

    try:
        first, again = db.run_now(backend), db.run_now(backend)
        time.sleep(0.3)
        later = db.run_now(backend)
    finally:
        db.dispose()
    assert first == again  # the same pooled connection, while it is young
    assert later != first  # then a fresh one
