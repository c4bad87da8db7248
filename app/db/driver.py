"""Statements of the hot paths, run on the driver's own connection.

Entering a round and reading a match are what every table does all evening.
SQLAlchemy Core adds tens of microseconds a statement on top of the driver
(compiled-cache lookup, execution context, result and type processing), more
than SQLite takes to run the statement: measured in docs/performance.md. These
statements therefore go to the DBAPI connection SQLAlchemy lent the
transaction, so they still commit or roll back with it, and their values are
converted here exactly as the tables' SQLAlchemy types would convert them:
JSON columns as JSON text, timestamps in SQLite's text format (PostgreSQL's
driver takes and gives aware datetimes itself).

Only the two drivers the service supports are handled: ``sqlite3`` (qmark
parameters) and psycopg 3 (``%s``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import JSON, Connection, Table
from sqlalchemy.exc import DBAPIError

from app.db.models import UTCDateTime


class DriverTable:
    """One table's insert, update and single-row select on the driver's cursor."""

    def __init__(self, table: Table) -> None:
        self.name = table.name
        self.json = frozenset(c.name for c in table.c if isinstance(c.type, JSON))
        self.times = frozenset(c.name for c in table.c if isinstance(c.type, UTCDateTime))
        self._sql: dict[tuple[Any, ...], str] = {}

    def insert(self, conn: Connection, values: Mapping[str, Any]) -> None:
        sqlite = _is_sqlite(conn)
        names = tuple(values)
        key = ("insert", sqlite, names)
        sql = self._sql.get(key)
        if sql is None:
            mark = "?" if sqlite else "%s"
            sql = self._sql[key] = (
                f'INSERT INTO "{self.name}" ({", ".join(names)}) '
                f"VALUES ({', '.join([mark] * len(names))})"
            )
        _execute(conn, sql, self._encode(values, sqlite)).close()

    def update(self, conn: Connection, key: str, key_value: Any, values: Mapping[str, Any]) -> None:
        """UPDATE … SET ``values`` WHERE ``key`` = ``key_value``."""
        sqlite = _is_sqlite(conn)
        names = tuple(values)
        cache_key = ("update", sqlite, key, names)
        sql = self._sql.get(cache_key)
        if sql is None:
            mark = "?" if sqlite else "%s"
            sets = ", ".join(f"{name} = {mark}" for name in names)
            sql = self._sql[cache_key] = f'UPDATE "{self.name}" SET {sets} WHERE {key} = {mark}'
        _execute(conn, sql, (*self._encode(values, sqlite), key_value)).close()

    def select_one(
        self,
        conn: Connection,
        columns: Sequence[str],
        key: str,
        key_value: Any,
        *,
        for_update: bool = False,
    ) -> dict[str, Any] | None:
        """The row whose ``key`` is ``key_value`` as a dict of ``columns``, decoded; with
        ``for_update`` its row is locked until the transaction ends (PostgreSQL; a SQLite
        writer already holds the database's write lock)."""
        sqlite = _is_sqlite(conn)
        names = tuple(columns)
        cache_key = ("select", sqlite, key, names, for_update)
        sql = self._sql.get(cache_key)
        if sql is None:
            mark = "?" if sqlite else "%s"
            sql = f'SELECT {", ".join(names)} FROM "{self.name}" WHERE {key} = {mark}'
            if for_update and not sqlite:
                sql += " FOR UPDATE"
            self._sql[cache_key] = sql
        cursor = _execute(conn, sql, (key_value,))
        try:
            found = cursor.fetchone()
        finally:
            cursor.close()
        if found is None:
            return None
        row = dict(zip(names, found, strict=True))
        if sqlite:
            for name in self.json.intersection(names):
                if row[name] is not None:
                    row[name] = orjson.loads(row[name])
            for name in self.times.intersection(names):
                if row[name] is not None:
                    row[name] = datetime.fromisoformat(row[name]).replace(tzinfo=UTC)
        return row

    def _encode(self, values: Mapping[str, Any], sqlite: bool) -> tuple[Any, ...]:
        encoded = []
        for name, value in values.items():
            if value is not None:
                if name in self.json:
                    value = orjson.dumps(value).decode()
                elif sqlite and name in self.times:
                    # What SQLAlchemy's SQLite DATETIME stores: "2026-11-29 16:43:59.000123"
                    value = (
                        value.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")
                    )
            encoded.append(value)
        return tuple(encoded)


def _is_sqlite(conn: Connection) -> bool:
    return conn.dialect.paramstyle == "qmark"


def _sqlite_time(value: datetime) -> str:
    """What SQLAlchemy's SQLite DATETIME stores: ``2026-11-29 16:43:59.000123`` (UTC)."""
    return value.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


def _execute(conn: Connection, sql: str, params: tuple[Any, ...]) -> Any:
    """Run ``sql`` on the driver; its errors are raised as SQLAlchemy raises them
    (OperationalError, IntegrityError, ...), so they are handled as any other."""
    dbapi = conn.dialect.loaded_dbapi
    try:
        return conn.connection.driver_connection.execute(sql, params)  # type: ignore[union-attr]
    except dbapi.Error as error:
        raise DBAPIError.instance(sql, params, error, dbapi.Error) from error
