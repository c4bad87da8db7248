"""Every query the service runs. Functions take a connection and never commit."""

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, RowMapping, delete, insert, select, tuple_, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from app.db.models import (
    CREDENTIAL,
    IDEMPOTENCY_KEY,
    MATCH,
    RATE_LIMIT_WINDOW,
    ROUND,
    ROUND_REVISION,
)


def insert_match(conn: Connection, values: Mapping[str, Any]) -> None:
    conn.execute(insert(MATCH), [dict(values)])


def get_match(conn: Connection, match_id: str, *, for_update: bool = False) -> RowMapping | None:
    """The match row; ``for_update`` locks it until the transaction ends (PostgreSQL)."""
    query = select(MATCH).where(MATCH.c.id == match_id)
    if for_update:
        query = query.with_for_update()
    return conn.execute(query).mappings().first()


def update_match(conn: Connection, match_id: str, values: Mapping[str, Any]) -> None:
    conn.execute(update(MATCH).where(MATCH.c.id == match_id).values(**values))


def insert_credentials(conn: Connection, rows: Iterable[Mapping[str, Any]]) -> None:
    conn.execute(insert(CREDENTIAL), [dict(row) for row in rows])


def get_credential(conn: Connection, credential_id: str) -> RowMapping | None:
    query = select(CREDENTIAL).where(CREDENTIAL.c.id == credential_id)
    return conn.execute(query).mappings().first()


def insert_round(conn: Connection, values: Mapping[str, Any]) -> None:
    conn.execute(insert(ROUND), [dict(values)])


def get_round(conn: Connection, match_id: str, number: int) -> RowMapping | None:
    query = select(ROUND).where(ROUND.c.match_id == match_id, ROUND.c.number == number)
    return conn.execute(query).mappings().first()


def list_rounds(conn: Connection, match_id: str, *, from_number: int = 1) -> Sequence[RowMapping]:
    """Rounds of a match in order, from ``from_number`` on."""
    query = (
        select(ROUND)
        .where(ROUND.c.match_id == match_id, ROUND.c.number >= from_number)
        .order_by(ROUND.c.number)
    )
    return conn.execute(query).mappings().all()


def update_round(conn: Connection, round_id: int, values: Mapping[str, Any]) -> None:
    conn.execute(update(ROUND).where(ROUND.c.id == round_id).values(**values))


def delete_round(conn: Connection, match_id: str, number: int) -> None:
    conn.execute(delete(ROUND).where(ROUND.c.match_id == match_id, ROUND.c.number == number))


def claim_idempotency_key(conn: Connection, values: Mapping[str, Any]) -> bool:
    """Insert the key if it is new; False when it exists (PostgreSQL waits for a concurrent
    claim of the same key to commit or roll back before answering)."""
    dialect_insert = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
    statement = (
        dialect_insert(IDEMPOTENCY_KEY)
        .values(**values)
        .on_conflict_do_nothing()
        .returning(IDEMPOTENCY_KEY.c.key)
    )
    return conn.execute(statement).first() is not None


def get_idempotency_key(conn: Connection, scope: str, key: str) -> RowMapping | None:
    query = select(IDEMPOTENCY_KEY).where(
        IDEMPOTENCY_KEY.c.scope == scope, IDEMPOTENCY_KEY.c.key == key
    )
    return conn.execute(query).mappings().first()


def update_idempotency_key(
    conn: Connection, scope: str, key: str, values: Mapping[str, Any]
) -> None:
    conn.execute(
        update(IDEMPOTENCY_KEY)
        .where(IDEMPOTENCY_KEY.c.scope == scope, IDEMPOTENCY_KEY.c.key == key)
        .values(**values)
    )


def delete_idempotency_keys_before(conn: Connection, cutoff: datetime, *, limit: int) -> None:
    """Forget up to ``limit`` keys created before ``cutoff``."""
    old = (
        select(IDEMPOTENCY_KEY.c.scope, IDEMPOTENCY_KEY.c.key)
        .where(IDEMPOTENCY_KEY.c.created_at < cutoff)
        .limit(limit)
    )
    conn.execute(
        delete(IDEMPOTENCY_KEY).where(
            tuple_(IDEMPOTENCY_KEY.c.scope, IDEMPOTENCY_KEY.c.key).in_(old)
        )
    )


def insert_revision(conn: Connection, values: Mapping[str, Any]) -> None:
    conn.execute(insert(ROUND_REVISION), [dict(values)])


def list_revisions(conn: Connection, match_id: str, number: int) -> Sequence[RowMapping]:
    """Every input round ``number`` has held, oldest first."""
    query = (
        select(ROUND_REVISION)
        .where(ROUND_REVISION.c.match_id == match_id, ROUND_REVISION.c.number == number)
        .order_by(ROUND_REVISION.c.id)
    )
    return conn.execute(query).mappings().all()


def count_in_window(conn: Connection, client: str, window: int) -> int:
    """Add one to the client's count for ``window`` and return the new count."""
    dialect_insert = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
    new = dialect_insert(RATE_LIMIT_WINDOW).values(client=client, window=window, count=1)
    statement = new.on_conflict_do_update(
        index_elements=[RATE_LIMIT_WINDOW.c.client, RATE_LIMIT_WINDOW.c.window],
        set_={"count": RATE_LIMIT_WINDOW.c.count + 1},
    ).returning(RATE_LIMIT_WINDOW.c.count)
    return int(conn.execute(statement).scalar_one())


def delete_windows_before(conn: Connection, window: int) -> None:
    conn.execute(delete(RATE_LIMIT_WINDOW).where(RATE_LIMIT_WINDOW.c.window < window))
