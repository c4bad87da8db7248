"""Every query the service runs. Functions take a connection and never commit."""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, RowMapping, delete, insert, select, update

from app.db.models import CREDENTIAL, MATCH, ROUND


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
