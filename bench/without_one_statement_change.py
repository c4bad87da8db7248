"""The app with a PostgreSQL change written statement by statement, as on SQLite, for
the with/without rows of ``make bench``: what ``repository.save_change_notifying``'s
one statement saves in round trips."""

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, func, select

from app.db import repository
from app.main import app


def save_change_statement_by_statement(
    connection: Connection,
    values: Mapping[str, Any],
    change: Mapping[str, Any],
    *,
    channel: str,
    rounds: repository.RoundWrite | None = None,
) -> None:
    """What ``save_change_notifying`` writes, one statement (one round trip) each."""
    match_id = change["match_id"]
    if rounds is not None:
        repository.write_round(connection, match_id, rounds)
    repository.update_match(connection, match_id, values)
    repository.insert_change(connection, change)
    payload = f"{match_id} {change['version']}"
    connection.execute(select(func.pg_notify(channel, payload)))


repository.save_change_notifying = save_change_statement_by_statement

__all__ = ["app"]
