"""Every query the service runs. Functions take a connection and never commit."""

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Connection,
    RowMapping,
    Text,
    bindparam,
    cast,
    delete,
    insert,
    select,
    tuple_,
    update,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from app.db.driver import DriverTable
from app.db.models import (
    CREDENTIAL,
    IDEMPOTENCY_KEY,
    MATCH,
    RATE_LIMIT_WINDOW,
    ROUND,
    ROUND_REVISION,
)

# What every write does (read and lock the match, add a round and its revision, save
# the match) runs on the driver's cursor: app/db/driver.py says why.
_MATCH = DriverTable(MATCH)
_ROUND = DriverTable(ROUND)
_ROUND_REVISION = DriverTable(ROUND_REVISION)
# The match row without its rendered view, which only GET /v1/matches/{id} reads.
_MATCH_COLUMNS = tuple(c.name for c in MATCH.c if c.name != "view")

# The other statements are built once: SQLAlchemy then reuses their cache keys and
# compiled forms, instead of rebuilding them on every request.
_GET_MATCH_VIEW = select(MATCH.c.view, MATCH.c.version).where(MATCH.c.id == bindparam("b_id"))
_INSERT_CREDENTIAL = insert(CREDENTIAL)
_GET_CREDENTIAL = select(CREDENTIAL).where(CREDENTIAL.c.id == bindparam("b_id"))
_GET_ROUND = select(ROUND).where(
    ROUND.c.match_id == bindparam("b_match_id"), ROUND.c.number == bindparam("b_number")
)
_LIST_ROUNDS = (
    select(ROUND)
    .where(ROUND.c.match_id == bindparam("b_match_id"), ROUND.c.number >= bindparam("b_number"))
    .order_by(ROUND.c.number)
)
_LIST_POINTS = (
    # As text, decoded in one go by list_points: cheaper than one JSON decode a row.
    select(cast(ROUND.c.points, Text))
    .where(ROUND.c.match_id == bindparam("b_match_id"), ROUND.c.number <= bindparam("b_number"))
    .order_by(ROUND.c.number)
)
_SHEET_ROWS = (
    select(ROUND.c.number, ROUND.c.dealer, cast(ROUND.c.points, Text), cast(ROUND.c.result, Text))
    .where(ROUND.c.match_id == bindparam("b_match_id"))
    .order_by(ROUND.c.number)
)
_UPDATE_ROUND = update(ROUND).where(ROUND.c.id == bindparam("b_id"))
_DELETE_ROUND = delete(ROUND).where(
    ROUND.c.match_id == bindparam("b_match_id"), ROUND.c.number == bindparam("b_number")
)


def insert_match(conn: Connection, values: Mapping[str, Any]) -> None:
    _MATCH.insert(conn, values)


def get_match(
    conn: Connection, match_id: str, *, for_update: bool = False
) -> dict[str, Any] | None:
    """The match row without its rendered view; ``for_update`` locks it until the
    transaction ends (PostgreSQL). On the driver's cursor: every write reads it."""
    return _MATCH.select_one(conn, _MATCH_COLUMNS, "id", match_id, for_update=for_update)


_MATCH_VIEW_SQL = {
    "qmark": 'SELECT view, version FROM "match" WHERE id = ?',
    "format": 'SELECT view, version FROM "match" WHERE id = %s',
    "pyformat": 'SELECT view, version FROM "match" WHERE id = %s',
}


def get_match_view(conn: Connection, match_id: str) -> tuple[str | None, int] | None:
    """The rendered match and its version, without the rest of the row.

    The hottest read of all (every phone polls it), so it goes to the driver's
    cursor directly: one plain statement, two plain columns, nothing to convert.
    """
    sql = _MATCH_VIEW_SQL.get(conn.dialect.paramstyle)
    if sql is None:  # a driver with another paramstyle: the general path
        row = conn.execute(_GET_MATCH_VIEW, {"b_id": match_id}).first()
        return None if row is None else (row[0], row[1])
    cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(sql, (match_id,))
        found = cursor.fetchone()
    finally:
        cursor.close()
    return None if found is None else (found[0], found[1])


def update_match(conn: Connection, match_id: str, values: Mapping[str, Any]) -> None:
    _MATCH.update(conn, "id", match_id, values)


def insert_credentials(conn: Connection, rows: Iterable[Mapping[str, Any]]) -> None:
    conn.execute(_INSERT_CREDENTIAL, [dict(row) for row in rows])


def get_credential(conn: Connection, credential_id: str) -> RowMapping | None:
    return conn.execute(_GET_CREDENTIAL, {"b_id": credential_id}).mappings().first()


def insert_round(conn: Connection, values: Mapping[str, Any]) -> None:
    _ROUND.insert(conn, values)


def get_round(conn: Connection, match_id: str, number: int) -> RowMapping | None:
    params = {"b_match_id": match_id, "b_number": number}
    return conn.execute(_GET_ROUND, params).mappings().first()


def list_rounds(conn: Connection, match_id: str, *, from_number: int = 1) -> Sequence[RowMapping]:
    """Rounds of a match in order, from ``from_number`` on."""
    params = {"b_match_id": match_id, "b_number": from_number}
    return conn.execute(_LIST_ROUNDS, params).mappings().all()


def list_points(conn: Connection, match_id: str, *, through: int) -> list[list[int]]:
    """The points of rounds 1..``through`` in order: all the sheet's fold needs."""
    params = {"b_match_id": match_id, "b_number": through}
    texts = conn.execute(_LIST_POINTS, params).scalars().all()
    points: list[list[int]] = json.loads("[" + ",".join(texts) + "]")
    return points


def sheet_rows(conn: Connection, match_id: str) -> list[tuple[int, int, list[int], Any]]:
    """(number, dealer, points, result) of every round in order: what the sheet needs,
    with the JSON columns fetched as text and decoded in one go."""
    rows = conn.execute(_SHEET_ROWS, {"b_match_id": match_id}).all()
    decoded = json.loads("[" + ",".join(f"[{r[2]},{r[3]}]" for r in rows) + "]")
    return [(r[0], r[1], d[0], d[1]) for r, d in zip(rows, decoded, strict=True)]


def update_round(conn: Connection, round_id: int, values: Mapping[str, Any]) -> None:
    conn.execute(_UPDATE_ROUND, {**values, "b_id": round_id})


def delete_round(conn: Connection, match_id: str, number: int) -> None:
    conn.execute(_DELETE_ROUND, {"b_match_id": match_id, "b_number": number})


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
    _ROUND_REVISION.insert(conn, values)


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
