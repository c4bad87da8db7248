"""Requests' SQL, run on the driver: transactions, statements and value conversion.

SQLAlchemy builds the engine, its connection pool and the tables (app/db/models.py),
and Alembic migrates them. The statements a request runs go to the DBAPI
connection the pool lends: SQLAlchemy Core's per-statement work (compiled-cache
lookup, execution context, result and type processing, events) cost more than
SQLite takes to run the statement, and its Connection and transaction objects
cost more than the commit (measured: docs/performance.md). Values are converted
here exactly as the tables' SQLAlchemy types convert them (JSON columns as JSON
text, timestamps in SQLite's text format; PostgreSQL's driver takes and gives
aware datetimes itself), and a test holds the two to agreeing in both directions.

Only the two drivers the service supports are handled: ``sqlite3`` (``?``
parameters) and psycopg 3 (``%s``). Statements are written with ``?``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import JSON, Table
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.pool import PoolProxiedConnection

from app.db.models import UTCDateTime


class Sql:
    """One statement, written with ``?`` parameters, in each driver's spelling."""

    __slots__ = ("psycopg", "sqlite")

    def __init__(self, text: str) -> None:
        self.sqlite = text
        self.psycopg = text.replace("%", "%%").replace("?", "%s")


class Tx:
    """A pooled DBAPI connection for one unit of work: a transaction or a read."""

    __slots__ = (
        "_dbapi_error",
        "_dialect",
        "_pooled",
        "broken",
        "driver",
        "memo",
        "on_commit",
        "released_at",
        "sqlite",
    )

    def __init__(self, pooled: PoolProxiedConnection, dialect: Dialect, sqlite: bool) -> None:
        self._pooled = pooled
        self._dialect = dialect
        self._dbapi_error: type[Exception] = dialect.loaded_dbapi.Error
        self.driver: Any = pooled.driver_connection
        self.sqlite = sqlite
        self.broken = False  # the connection was lost: it goes back to the pool invalidated
        self.released_at = 0.0  # when the process last kept it for a later unit of work
        # The database's cache of decoded match rows (app/services/state.py), or None.
        self.memo: Any = None
        # Run, in order, once this unit of work has committed (never after a rollback).
        self.on_commit: list[Callable[[], None]] = []

    def close(self) -> None:
        """Give the connection back to the pool."""
        self._pooled.close()

    def invalidate(self, error: BaseException) -> None:
        """Tell the pool the connection is lost: it is closed, not lent again."""
        self._pooled.invalidate(error)

    def execute(self, sql: Sql, params: Sequence[Any] = ()) -> Any:
        """Run a statement; the driver's cursor."""
        text = sql.sqlite if self.sqlite else sql.psycopg
        try:
            return self.driver.execute(text, params)
        except self._dbapi_error as error:
            raise self.error(error, text, params) from error

    def executemany(self, sql: Sql, rows: Sequence[Sequence[Any]]) -> None:
        text = sql.sqlite if self.sqlite else sql.psycopg
        cursor = self.driver.cursor()
        try:
            cursor.executemany(text, rows)
        except self._dbapi_error as error:
            raise self.error(error, text, rows) from error
        finally:
            cursor.close()

    def one(self, sql: Sql, params: Sequence[Any] = ()) -> Any:
        """The first row (a tuple), or None."""
        cursor = self.execute(sql, params)
        try:
            return cursor.fetchone()
        finally:
            cursor.close()

    def all(self, sql: Sql, params: Sequence[Any] = ()) -> list[Any]:
        """Every row (tuples)."""
        cursor = self.execute(sql, params)
        try:
            return list(cursor.fetchall())
        finally:
            cursor.close()

    def run(self, text: str) -> None:
        """A statement without parameters (BEGIN, COMMIT, ...)."""
        try:
            self.driver.execute(text).close()
        except self._dbapi_error as error:
            raise self.error(error, text, ()) from error

    def commit(self) -> None:
        try:
            self.driver.commit()
        except self._dbapi_error as error:
            raise self.error(error, "COMMIT", ()) from error

    def error(self, error: Any, statement: str, params: Any) -> StatementError:
        """The driver's error as SQLAlchemy raises it (OperationalError, IntegrityError, ...),
        so that it is handled as any other; a lost connection is dropped from the pool."""
        if self._dialect.is_disconnect(error, self.driver, None):
            self.broken = True
            self.invalidate(error)
        wrapped: StatementError = DBAPIError.instance(statement, params, error, self._dbapi_error)
        return wrapped


class DriverTable:
    """One table's statements, with its values converted as its column types would."""

    def __init__(self, table: Table) -> None:
        self.name = table.name
        self.json = frozenset(c.name for c in table.c if isinstance(c.type, JSON))
        self.times = frozenset(c.name for c in table.c if isinstance(c.type, UTCDateTime))
        self.columns = tuple(c.name for c in table.c)
        self._sql: dict[tuple[Any, ...], Sql] = {}

    def insert(self, tx: Tx, values: Mapping[str, Any]) -> None:
        tx.execute(self._insert(tuple(values)), self.encode(values, tx.sqlite)).close()

    def insert_many(self, tx: Tx, rows: Iterable[Mapping[str, Any]]) -> None:
        rows = list(rows)
        if rows:
            encoded = [self.encode(row, tx.sqlite) for row in rows]
            tx.executemany(self._insert(tuple(rows[0])), encoded)

    def update(self, tx: Tx, where: Mapping[str, Any], values: Mapping[str, Any]) -> None:
        """UPDATE … SET ``values`` WHERE each column of ``where`` equals its value."""
        key = ("update", tuple(where), tuple(values))
        sql = self._sql.get(key)
        if sql is None:
            sets = ", ".join(f'"{name}" = ?' for name in values)
            sql = self._sql[key] = Sql(f'UPDATE "{self.name}" SET {sets}{_where(where)}')
        params = (*self.encode(values, tx.sqlite), *self.encode(where, tx.sqlite))
        tx.execute(sql, params).close()

    def delete(self, tx: Tx, where: Mapping[str, Any]) -> None:
        key = ("delete", tuple(where))
        sql = self._sql.get(key)
        if sql is None:
            sql = self._sql[key] = Sql(f'DELETE FROM "{self.name}"{_where(where)}')
        tx.execute(sql, self.encode(where, tx.sqlite)).close()

    def select(
        self,
        tx: Tx,
        where: Mapping[str, Any],
        *,
        columns: Sequence[str] | None = None,
        order_by: str | None = None,
        for_update: bool = False,
    ) -> list[dict[str, Any]]:
        """The rows where each column of ``where`` equals its value, decoded; with
        ``for_update`` they are locked until the transaction ends (PostgreSQL; a SQLite
        writer already holds the database's write lock)."""
        names = tuple(columns or self.columns)
        key = ("select", tuple(where), names, order_by, for_update and not tx.sqlite)
        sql = self._sql.get(key)
        if sql is None:
            listed = ", ".join(f'"{name}"' for name in names)
            text = f'SELECT {listed} FROM "{self.name}"{_where(where)}'
            if order_by is not None:
                text += f' ORDER BY "{order_by}"'
            if for_update and not tx.sqlite:
                text += " FOR UPDATE"
            sql = self._sql[key] = Sql(text)
        rows = tx.all(sql, self.encode(where, tx.sqlite))
        return [self.decode(names, row, tx.sqlite) for row in rows]

    def select_one(
        self,
        tx: Tx,
        where: Mapping[str, Any],
        *,
        columns: Sequence[str] | None = None,
        for_update: bool = False,
    ) -> dict[str, Any] | None:
        rows = self.select(tx, where, columns=columns, for_update=for_update)
        return rows[0] if rows else None

    def encode(self, values: Mapping[str, Any], sqlite: bool) -> tuple[Any, ...]:
        """Parameters for ``values``, in their order, as the driver takes them."""
        encoded = []
        for name, value in values.items():
            if value is not None:
                if name in self.json:
                    value = orjson.dumps(value).decode()
                elif sqlite and name in self.times:
                    value = _sqlite_time(value)
            encoded.append(value)
        return tuple(encoded)

    def decode(self, names: Sequence[str], row: Sequence[Any], sqlite: bool) -> dict[str, Any]:
        """A row the driver returned as a dict of Python values."""
        decoded = dict(zip(names, row, strict=True))
        if sqlite:
            for name in self.json.intersection(names):
                if decoded[name] is not None:
                    decoded[name] = orjson.loads(decoded[name])
            for name in self.times.intersection(names):
                if decoded[name] is not None:
                    decoded[name] = datetime.fromisoformat(decoded[name]).replace(tzinfo=UTC)
        return decoded

    def _insert(self, names: tuple[str, ...]) -> Sql:
        key = ("insert", names)
        sql = self._sql.get(key)
        if sql is None:
            columns = ", ".join(f'"{name}"' for name in names)
            marks = ", ".join("?" * len(names))
            sql = self._sql[key] = Sql(f'INSERT INTO "{self.name}" ({columns}) VALUES ({marks})')
        return sql


def _where(where: Mapping[str, Any]) -> str:
    return (" WHERE " + " AND ".join(f'"{name}" = ?' for name in where)) if where else ""


def _sqlite_time(value: datetime) -> str:
    """What SQLAlchemy's SQLite DATETIME stores: ``2026-11-29 16:43:59.000123`` (UTC).

    A write stamps several columns with one ``now``: the last value's text is kept
    (formatting costs more than the rest of a column's encoding).
    """
    global _last_time
    last = _last_time  # one read: another thread may replace it meanwhile
    if value is last[0]:  # the very object (kept alive here, so its id is not reused)
        return last[1]
    utc = value if value.tzinfo is UTC else value.astimezone(UTC)
    text = utc.isoformat(" ", "microseconds")[:26]  # without the "+00:00"
    _last_time = (value, text)
    return text


_last_time: tuple[datetime | None, str] = (None, "")
