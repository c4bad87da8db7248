"""The engine, and the unit of work every use case runs in.

Every use case runs as one unit of work (``UnitOfWork``): one connection, one
transaction, one commit, then the changes it logged told to the live streams. A
request's unit is opened by its route's dependency (``app.api.deps``) and runs, like
every SQLAlchemy call here, in a worker thread: while one request waits on the
database (a PostgreSQL round trip, SQLite's write lock), the event loop serves
the others.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from functools import partial
from typing import Any, NamedTuple, TypeVar

import anyio
import orjson
from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url

from app import metrics
from app.errors import DatabaseUnavailable
from app.settings import Settings

T = TypeVar("T")
logger = logging.getLogger("squarescores")

POOL_RECYCLE_S = 180  # PostgreSQL: the oldest a pooled connection is lent
POOL_TIMEOUT_S = 5  # PostgreSQL: the longest a request waits for a connection, then 503


class LoggedChange(NamedTuple):
    """A change a unit of work logged: its match, the version it made, its event."""

    match_id: str
    version: int
    event: Mapping[str, Any]


class UnitOfWork:
    """One transaction on one connection: what a use case reads and writes.

    Repositories (``app.db.repository``) take ``uow.connection``; nothing but
    ``Database.unit_of_work`` commits. What runs after the commit (never after a
    rollback): ``Database.on_changed`` is told the changes the unit logged.
    """

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.changed: list[LoggedChange] = []  # the changes this unit logged, in order


class Database:
    """The engine of one process, and its units of work."""

    def __init__(self, settings: Settings) -> None:
        url = make_url(settings.database_url)
        self.is_sqlite = url.get_backend_name() == "sqlite"
        kwargs: dict[str, Any] = {
            # A failed statement's error (and so the log) shows no parameter: they hold
            # idempotency keys, credential ids and client addresses.
            "hide_parameters": True,
            # JSON columns are (de)serialized on every write and read: orjson is
            # faster than the standard library.
            "json_serializer": _dumps,
            "json_deserializer": orjson.loads,
        }
        if self.is_sqlite:
            kwargs["connect_args"] = {"check_same_thread": False}
            # The readers' turns and the writer's, and two for the live hub and /readyz.
            kwargs["pool_size"] = settings.database_pool_size + 1
            kwargs["max_overflow"] = 2
            kwargs["pool_timeout"] = POOL_TIMEOUT_S
        else:
            # No ping before each use (pool_pre_ping): it is a round trip more for
            # every unit of work. SQLAlchemy's optimistic disconnect handling instead:
            # a connection that turns out dead fails its request (503, Retry-After)
            # and invalidates the pool, so the next requests get fresh connections;
            # TCP keepalives notice a peer that vanished without a word.
            kwargs["connect_args"] = {
                "keepalives": 1,
                "keepalives_idle": 30,
                "keepalives_interval": 10,
                "keepalives_count": 3,
            }
            kwargs["pool_size"] = settings.database_pool_size
            # A connection older than this is replaced when it is next taken: below the
            # idle timeouts of the proxies and load balancers in front of databases.
            kwargs["pool_recycle"] = POOL_RECYCLE_S
            kwargs["max_overflow"] = 2
            kwargs["pool_timeout"] = POOL_TIMEOUT_S
        self.engine: Engine = create_engine(url, **kwargs)
        # The units that may be at the database at once: each holds a worker thread and
        # a pooled connection while it waits there. The others wait their turn on the
        # event loop, holding neither, so a unit that holds a lock or a connection
        # always finds a thread to finish in. SQLite has one writer at a time, beside
        # its readers.
        self.read_turns = anyio.Semaphore(settings.database_pool_size)
        self.write_turns = anyio.Semaphore(1) if self.is_sqlite else self.read_turns
        self.turn_timeout_s = (
            settings.sqlite_busy_timeout_ms / 1000 if self.is_sqlite else POOL_TIMEOUT_S
        )
        # Told, after each commit, the changes it logged (the live streams' hub,
        # app/live.py, when the app runs one). Runs in the unit's worker thread.
        self.on_changed: Callable[[tuple[LoggedChange, ...]], None] | None = None
        if self.is_sqlite:
            _configure_sqlite(self.engine, settings.sqlite_busy_timeout_ms)

    @asynccontextmanager
    async def turn(self, *, write: bool) -> AsyncIterator[None]:
        """Wait, on the event loop, for a unit's turn at the database; 503 if it does
        not come in time."""
        turns = self.write_turns if write else self.read_turns
        try:
            turns.acquire_nowait()
        except anyio.WouldBlock:
            started = time.perf_counter()
            with anyio.move_on_after(self.turn_timeout_s) as waiting:
                await turns.acquire()
            waited = metrics.TURN_WAIT_SECONDS.labels("write" if write else "read")
            waited.observe(time.perf_counter() - started)
            if waiting.cancelled_caught:
                raise DatabaseUnavailable("the database is busy; retry shortly") from None
        try:
            yield
        finally:
            turns.release()

    @contextmanager
    def unit_of_work(self, *, write: bool = False, snapshot: bool = False) -> Iterator[UnitOfWork]:
        """A transaction, committed when the block ends without error, else rolled back;
        after the commit, ``on_changed`` is told what it logged.

        A write is a transaction (SQLite: ``BEGIN IMMEDIATE``, so two writers never
        deadlock upgrading read locks). A read of several statements (``snapshot=True``)
        sees one state: a SQLite transaction, or REPEATABLE READ on PostgreSQL. A read
        of one statement needs neither: it runs without BEGIN and COMMIT (autocommit
        on PostgreSQL), which on PostgreSQL saves two round trips.
        """
        started = time.perf_counter()
        with self.engine.connect() as connection:
            if not self.is_sqlite:
                if snapshot and not write:
                    connection.execution_options(isolation_level="REPEATABLE READ")
                elif not write:
                    connection.execution_options(isolation_level="AUTOCOMMIT")
            with connection.begin():
                if self.is_sqlite and (write or snapshot):
                    # The driver leaves transactions to us (_configure_sqlite), and its
                    # commit and rollback end the one begun here.
                    locking = time.perf_counter()
                    try:
                        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
                    finally:  # a wait that ends busy (503) counts too
                        if write:
                            metrics.LOCK_WAIT_SECONDS.observe(time.perf_counter() - locking)
                uow = UnitOfWork(connection)
                yield uow
        held = time.perf_counter() - started
        metrics.UNIT_SECONDS.labels("write" if write else "read").observe(held)
        if uow.changed and self.on_changed is not None:
            try:
                self.on_changed(tuple(uow.changed))
            except Exception:  # the unit of work is committed: its answer stands
                logger.exception("telling the live streams of a change failed")

    def run_now(
        self, func: Callable[[UnitOfWork], T], *, write: bool = False, snapshot: bool = False
    ) -> T:
        """Call ``func`` with one unit of work in this thread, commit it, and return
        what ``func`` returned."""
        with self.unit_of_work(write=write, snapshot=snapshot) as uow:
            return func(uow)

    async def run(
        self, func: Callable[[UnitOfWork], T], *, write: bool = False, snapshot: bool = False
    ) -> T:
        """``run_now`` in a worker thread, in its turn: for the units no route opens
        (the live streams' reads, the hub's)."""
        async with self.turn(write=write):
            return await anyio.to_thread.run_sync(
                partial(self.run_now, func, write=write, snapshot=snapshot)
            )

    def dispose(self) -> None:
        self.engine.dispose()


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    """SQLite's connections: WAL, a busy timeout, foreign keys; and the driver's own
    transaction handling off (``isolation_level = None``), so that a statement the
    driver sees is never preceded by a BEGIN of its choosing: ``unit_of_work`` emits
    BEGIN, or BEGIN IMMEDIATE for a write, itself.

    (SQLAlchemy's recipe emits that BEGIN from a ``begin`` event instead. Any
    connection event makes SQLAlchemy dispatch events on every statement of every
    connection.)"""

    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, connection_record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        # A writer waits this long for another's lock, in its worker thread, then is
        # answered 503.
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()
