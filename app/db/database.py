"""The engine, the unit of work, and how a request runs one without blocking the loop.

Every use case runs as one unit of work (``UnitOfWork``): one connection, one
transaction, one commit, then the callbacks registered to run after it. How the
unit is run depends on the database (docs/architecture.md says why):

- **SQLite** is a library in this process whose calls take microseconds, so a
  unit runs inline on the event loop, but it never *waits* there: the busy
  timeout is zero, so a write that finds another connection holding the write
  lock fails at once with "database is locked", and ``Database.run`` awaits a
  short, growing sleep and runs the unit again, letting every other request go
  on meanwhile. After ``settings.sqlite_busy_timeout_ms`` it gives up: the
  request is answered 503 ``database_unavailable``.
- **PostgreSQL** is a network round trip away, so a unit runs in a worker
  thread (``anyio.to_thread``), at most ``settings.database_pool_size`` at a
  time, each on its own pooled connection: while one waits on the database,
  the loop serves the others.

A unit whose cost grows with the match (a sheet, a page of rounds, a correction's
refold) says so before it does the work (``UnitOfWork.expect_fold``). Past
``SHORT_ROUNDS`` rounds it is rolled back and runs again in the long lane: one
worker thread at a time, on both databases, so a long match never holds up the loop.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from typing import Any, NamedTuple, TypeVar

import anyio
import orjson
from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from app.errors import DatabaseUnavailable
from app.settings import Settings

T = TypeVar("T")
logger = logging.getLogger("squarescores")

# An awaited retry of a unit of work that found SQLite's write lock taken: the first
# sleep, then doubled up to the longest. Not much shorter: retrying too often takes the
# GIL from the worker thread that holds the lock.
FIRST_RETRY_S = 0.001
LONGEST_RETRY_S = 0.05
POOL_RECYCLE_S = 180  # PostgreSQL: the oldest a pooled connection is lent
CHECKPOINT_EVERY_S = 1.0  # SQLite: how often the write-ahead log is copied back
# The most rounds a unit folds in the short lane (on SQLite: the event loop); an
# evening at a table is shorter. Only longer units take the long lane's thread, which
# is no free lunch: while it runs, it takes the GIL from the loop, and on SQLite each
# call it makes (each row fetched) gives the GIL back and waits for it.
SHORT_ROUNDS = 300


class LoggedChange(NamedTuple):
    """A change a unit of work logged: its match, the version it made, its event."""

    match_id: str
    version: int
    event: Mapping[str, Any]


class LongUnit(Exception):
    """A unit of work in the short lane will fold more than ``SHORT_ROUNDS`` rounds:
    rolled back, and run again in the long lane (``Database.run``)."""


class UnitOfWork:
    """One transaction on one connection: what a use case reads and writes.

    Repositories (``app.db.repository``) take ``uow.connection``; nothing but
    ``Database`` commits. What runs after the commit (never after a rollback):
    ``Database.on_changed`` is told the changes the unit logged.
    """

    def __init__(self, connection: Connection, *, short: bool = False) -> None:
        self.connection = connection
        self.short = short  # in the short lane: see expect_fold
        self.changed: list[LoggedChange] = []  # the changes this unit logged, in order
        # The caller's claim (an app.services.auth.Access), once the unit has found it
        # allowed: a write is committed only then (app.api.writes.answer_write).
        self.allowed: object | None = None

    def expect_fold(self, rounds: int) -> None:
        """Say, before doing it, that the unit will fold or read ``rounds`` rounds: in
        the short lane, more than ``SHORT_ROUNDS`` raises ``LongUnit``."""
        if self.short and rounds > SHORT_ROUNDS:
            raise LongUnit(f"{rounds} rounds")


class Database:
    """The engine of one process, and ``run`` to execute a unit of work on it."""

    def __init__(self, settings: Settings) -> None:
        url = make_url(settings.database_url)
        self.is_sqlite = url.get_backend_name() == "sqlite"
        kwargs: dict[str, Any] = {
            # JSON columns are (de)serialized on every write and read: orjson is
            # faster than the standard library.
            "json_serializer": _dumps,
            "json_deserializer": orjson.loads,
        }
        if self.is_sqlite:
            kwargs["connect_args"] = {"check_same_thread": False}
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
            # Units of work take at most pool-size connections (the limiter below);
            # the overflow serves /readyz, which must answer even under full load.
            kwargs["max_overflow"] = 2
        self.engine: Engine = create_engine(url, **kwargs)
        self.lock_timeout_s = settings.sqlite_busy_timeout_ms / 1000
        # Units in worker threads at once. PostgreSQL: as many as the pool has
        # connections, each mostly waiting on the database. Long units (a long match's
        # sheet, page or refold) are Python work holding the GIL: one at a time, on
        # both databases, since each more would only slice the event loop's share thinner.
        self.limiter = anyio.CapacityLimiter(settings.database_pool_size)
        self.long_limiter = anyio.CapacityLimiter(1)
        # SQLite: this process's writers, one at a time. fast_acquire: a writer that finds
        # the lock free takes it without yielding to the loop first.
        self.writers = anyio.Lock(fast_acquire=True)
        # Told, after each commit, the changes it logged (the live streams' hub,
        # app/live.py, when the app runs one). May run in a worker thread.
        self.on_changed: Callable[[tuple[LoggedChange, ...]], None] | None = None
        if self.is_sqlite:
            _configure_sqlite(self.engine)

    async def run(
        self, work: Callable[[UnitOfWork], T], *, write: bool = False, snapshot: bool = False
    ) -> T:
        """Run ``work`` in one unit of work and commit it; its result.

        ``write=True`` takes SQLite's write lock when the transaction begins, so two
        writers never deadlock upgrading read locks. ``snapshot=True``: a read of
        several statements, which must see one state. The unit runs in the short
        lane, or again in the long one if it says it is long (``LongUnit``).
        """
        deadline = time.monotonic() + self.lock_timeout_s  # SQLite's, for both lanes
        try:
            return await self._run(work, write, snapshot, long=False, deadline=deadline)
        except LongUnit:
            return await self._run(work, write, snapshot, long=True, deadline=deadline)

    async def _run(
        self,
        work: Callable[[UnitOfWork], T],
        write: bool,
        snapshot: bool,
        *,
        long: bool,
        deadline: float,
    ) -> T:
        attempt = partial(self.run_now, work, write=write, snapshot=snapshot, short=not long)
        if not self.is_sqlite:
            if long:  # the long lane's turn, then a pooled connection as every unit
                async with self.long_limiter:
                    return await anyio.to_thread.run_sync(attempt, limiter=self.limiter)
            return await anyio.to_thread.run_sync(attempt, limiter=self.limiter)
        if not write:
            lane = self.long_limiter if long else None
            return await self._run_sqlite(attempt, limiter=lane, deadline=deadline)
        if long:
            # A long write queues for the long units' thread before it takes the
            # writers' turn, so it never holds the turn while it waits for the thread.
            async with self.long_limiter:
                return await self._write_sqlite(attempt, in_thread=True, deadline=deadline)
        return await self._write_sqlite(attempt, in_thread=False, deadline=deadline)

    async def _write_sqlite(
        self, attempt: Callable[[], T], *, in_thread: bool, deadline: float
    ) -> T:
        """Run a SQLite write in this process's writers' turn.

        SQLite has one writer at a time. The writers of this process take turns on an
        awaited lock, so one that waits for another of this process's (a long unit in
        its thread) is woken the moment that one is done, instead of polling SQLite's
        lock; the polling in ``_run_sqlite`` is left for other processes' writers.
        """
        try:
            self.writers.acquire_nowait()
        except anyio.WouldBlock:
            with anyio.move_on_after(deadline - time.monotonic()) as waiting:
                await self.writers.acquire()
            if waiting.cancelled_caught:
                raise DatabaseUnavailable("the database stayed locked; retry shortly") from None
        try:
            # In its thread: the default limiter, since the caller holds the long lane.
            limiter = anyio.to_thread.current_default_thread_limiter() if in_thread else None
            return await self._run_sqlite(attempt, limiter=limiter, deadline=deadline)
        finally:
            self.writers.release()

    async def _run_sqlite(
        self, attempt: Callable[[], T], *, limiter: anyio.CapacityLimiter | None, deadline: float
    ) -> T:
        """Run a SQLite unit inline, or in a worker thread under ``limiter``, awaiting a
        short, growing sleep and running it again while another connection holds the
        write lock, until ``deadline``."""
        delay = FIRST_RETRY_S
        while True:
            try:
                if limiter is not None:
                    return await anyio.to_thread.run_sync(attempt, limiter=limiter)
                return attempt()
            except OperationalError as error:
                if not _locked(error) or time.monotonic() + delay > deadline:
                    raise
            await asyncio.sleep(delay)
            delay = min(delay * 2, LONGEST_RETRY_S)

    def run_now(
        self,
        work: Callable[[UnitOfWork], T],
        *,
        write: bool = False,
        snapshot: bool = False,
        short: bool = False,
    ) -> T:
        """Run ``work`` in one unit of work in this thread, and commit it (``short``:
        in the short lane, see ``UnitOfWork.expect_fold``)."""
        with self.unit_of_work(write=write, snapshot=snapshot, short=short) as uow:
            result = work(uow)
        if uow.changed and self.on_changed is not None:
            try:
                self.on_changed(tuple(uow.changed))
            except Exception:  # the unit of work is committed: its answer stands
                logger.exception("telling the live streams of a change failed")
        return result

    @contextmanager
    def unit_of_work(
        self, *, write: bool = False, snapshot: bool = False, short: bool = False
    ) -> Iterator[UnitOfWork]:
        """A transaction, committed when the block ends without error, else rolled back.

        A write is a transaction (SQLite: ``BEGIN IMMEDIATE``). A read of several
        statements (``snapshot=True``) sees one state: a SQLite transaction, or
        REPEATABLE READ on PostgreSQL. A read of one statement needs neither: it runs
        without BEGIN and COMMIT (autocommit on PostgreSQL), which on PostgreSQL saves
        two round trips.
        """
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
                    connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
                yield UnitOfWork(connection, short=short)

    async def checkpoints(self) -> None:
        """SQLite: copy the write-ahead log back into the database file every
        ``CHECKPOINT_EVERY_S``, in a worker thread, until cancelled (the app's lifespan
        runs it). SQLite would otherwise do it in the commit that fills the log to
        1,000 pages: a request on the event loop, copying megabytes and syncing the
        file while no other request is served. In the thread, SQLite works without
        the GIL, beside the loop. (PostgreSQL: returns at once.)"""
        while self.is_sqlite:
            await anyio.sleep(CHECKPOINT_EVERY_S)
            try:
                await anyio.to_thread.run_sync(self.checkpoint)
            except Exception:  # e.g. the disk is full: logged, and tried again next time
                logger.exception("the SQLite checkpoint failed")

    def checkpoint(self) -> tuple[int, int, int]:
        """SQLite: one passive checkpoint (it waits for no reader or writer); SQLite's
        (busy, frames in the log, frames copied)."""
        with self.engine.connect() as connection:
            busy, frames, copied = connection.exec_driver_sql(
                "PRAGMA wal_checkpoint(PASSIVE)"
            ).one()
            return busy, frames, copied

    def dispose(self) -> None:
        self.engine.dispose()


def _locked(error: OperationalError) -> bool:
    """Whether SQLite refused because another connection holds a lock."""
    return "database is locked" in str(error.orig) or "database is busy" in str(error.orig)


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def _configure_sqlite(engine: Engine) -> None:
    """SQLite's connections: WAL, no busy wait, foreign keys; and the driver's own
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
        cursor.execute("PRAGMA busy_timeout=0")  # never wait on the loop: Database.run retries
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        # No checkpoint in a commit on the event loop: Database.checkpoints does it.
        cursor.execute("PRAGMA wal_autocheckpoint=0")
        cursor.close()
