"""The engine, and the two kinds of transaction the services use.

Writes on SQLite start with ``BEGIN IMMEDIATE``: a writer takes the write lock
before it reads, so two writers queue on the busy timeout instead of failing
with "database is locked" when one of them tries to upgrade a read lock.
"""

import logging
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Generic, TypeVar

import orjson
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from app.db.driver import Tx
from app.settings import Settings

V = TypeVar("V")
HELD_CONNECTIONS = 4  # at most, per process (and never more than the pool's size)
MATCH_STATES = 2048  # decoded match rows kept per process (SQLite), most recently used
IDLE_PING_S = 5.0  # a PostgreSQL connection idle this long is pinged before it is used
# PostgreSQL: the first statement of the transaction psycopg begins implicitly.
_REPEATABLE_READ = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"
logger = logging.getLogger("squarescores")


class LRUCache(Generic[V]):
    """A bounded map that forgets the least recently used entry first."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._items: OrderedDict[str, V] = OrderedDict()

    def get(self, key: str) -> V | None:
        value = self._items.get(key)
        if value is not None:
            with suppress(KeyError):  # another thread may have just evicted it
                self._items.move_to_end(key)
        return value

    def put(self, key: str, value: V) -> None:
        self._items[key] = value
        with suppress(KeyError):  # another thread may have just evicted it, or emptied it
            self._items.move_to_end(key)
            if len(self._items) > self.maxsize:
                self._items.popitem(last=False)


class Database:
    """One engine per process, built from the settings when the app starts."""

    def __init__(self, settings: Settings) -> None:
        url = make_url(settings.database_url)
        self.is_sqlite = url.get_backend_name() == "sqlite"
        kwargs: dict[str, Any] = {
            "pool_pre_ping": not self.is_sqlite,
            # JSON columns are (de)serialized on every write and read: orjson does it
            # several times faster than the standard library.
            "json_serializer": _dumps,
            "json_deserializer": orjson.loads,
        }
        if self.is_sqlite:
            kwargs["connect_args"] = {"check_same_thread": False}
        else:
            kwargs["pool_size"] = settings.database_pool_size
        self.engine: Engine = create_engine(url, **kwargs)
        self._caches: dict[str, LRUCache[Any]] = {}
        self._held: list[Tx] = []
        self._hold = (
            HELD_CONNECTIONS
            if self.is_sqlite
            else min(HELD_CONNECTIONS, settings.database_pool_size)
        )
        self._checkpointer: Checkpointer | None = None
        # A write on SQLite reads its match's version, and decodes the row only when
        # this process has not kept that version (app/services/state.py, lock_match).
        # Not on PostgreSQL, where reading the row after its version is a round trip.
        self._match_states: LRUCache[Any] | None = (
            LRUCache(MATCH_STATES) if self.is_sqlite else None
        )
        if self.is_sqlite:
            _configure_sqlite(self.engine, settings.sqlite_busy_timeout_ms)
            if url.database and url.database != ":memory:":
                self._checkpointer = Checkpointer(url.database)

    @contextmanager
    def read(self, *, snapshot: bool = False) -> Iterator[Tx]:
        """A connection for reads; whatever it began is rolled back at the end.

        On SQLite a single-statement read needs no transaction (each statement sees
        one consistent state); ``snapshot=True`` holds one across several statements
        (on PostgreSQL, REPEATABLE READ: one snapshot for all of them).
        """
        tx = self._checkout()
        try:
            if snapshot:
                tx.run("BEGIN" if self.is_sqlite else _REPEATABLE_READ)
            yield tx
        finally:
            self._release(tx)

    @contextmanager
    def write(self) -> Iterator[Tx]:
        """A write transaction, committed once when the block ends without error.

        SQLite's starts with ``BEGIN IMMEDIATE``: a writer takes the write lock
        before it reads, so two writers queue on the busy timeout instead of one
        failing with "database is locked" when it tries to upgrade a read lock.
        The unit of work's ``on_commit`` callbacks run once the commit succeeded.
        """
        tx = self._checkout()
        try:
            if self.is_sqlite:
                tx.run("BEGIN IMMEDIATE")
            yield tx
            tx.commit()
            for callback in tx.on_commit:
                try:
                    callback()
                except Exception:  # the unit of work is committed: its answer stands
                    logger.exception("an after-commit callback failed")
        finally:
            tx.on_commit.clear()
            self._release(tx)

    def _checkout(self) -> Tx:
        """A connection: one this process kept from an earlier unit of work if it has
        one, else one from the pool; an unreachable database raises as SQLAlchemy's
        own connections do (OperationalError)."""
        while True:
            try:
                tx = self._held.pop()  # atomic: threads sharing a Database never get one twice
            except IndexError:
                break
            if self.is_sqlite or time.monotonic() - tx.released_at < IDLE_PING_S:
                return tx
            if self._alive(tx):
                return tx
        dbapi_error = self.engine.dialect.loaded_dbapi.Error
        try:
            pooled = self.engine.raw_connection()
        except dbapi_error as error:
            raise DBAPIError.instance(None, None, error, dbapi_error) from error
        tx = Tx(pooled, self.engine.dialect, self.is_sqlite)
        tx.memo = self._match_states
        return tx

    def _alive(self, tx: Tx) -> bool:
        """Whether a PostgreSQL connection kept idle for a while still answers (it is
        dropped when it does not): what the pool's pre-ping does, only after idling."""
        try:
            tx.driver.execute("SELECT 1").close()
            tx.driver.rollback()
        except self.engine.dialect.loaded_dbapi.Error as error:
            tx.broken = True
            tx.invalidate(error)
            tx.close()
            return False
        return True

    def _release(self, tx: Tx) -> None:
        """Roll back what the unit of work left open and give the connection back.

        The process keeps up to ``HELD_CONNECTIONS`` connections for its next units
        of work instead of returning them to SQLAlchemy's pool: checking one out and
        back in cost more than the statements of a read, and on PostgreSQL the pool
        pings a connection (a round trip) every time it lends it. A kept PostgreSQL
        connection is pinged only when it has been idle ``IDLE_PING_S`` seconds; one
        that breaks in use is dropped (``Tx.broken``) and its request answered 503.
        """
        if tx.broken or len(self._held) >= self._hold:
            tx.close()  # back to the pool, which rolls back an unfinished transaction
            return
        try:
            if self.is_sqlite:
                if tx.driver.in_transaction:
                    tx.driver.rollback()
            elif tx.driver.info.transaction_status.name != "IDLE":
                tx.driver.rollback()
        except Exception as error:  # the connection is gone: the unit's outcome stands
            tx.broken = True
            tx.invalidate(error)
            tx.close()
            return
        tx.released_at = time.monotonic()
        self._held.append(tx)

    def cache(self, name: str, maxsize: int) -> LRUCache[Any]:
        """A process-local cache of rows that never change, kept with this database."""
        if name not in self._caches:
            self._caches[name] = LRUCache(maxsize)
        return self._caches[name]

    def ping(self) -> None:
        """Raise if the database cannot be reached."""
        with self.engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    def dispose(self) -> None:
        """Close every pooled connection (and stop the SQLite checkpointer)."""
        if self._checkpointer is not None:
            self._checkpointer.stop()
        while self._held:
            self._held.pop().close()
        self.engine.dispose()


class Checkpointer:
    """Copies SQLite's write-ahead log into the database file from a thread of its own.

    Left to SQLite, the commit that takes the log past 1000 pages runs the
    checkpoint itself (copy the pages, fsync): one write in a few hundred then
    waits milliseconds, on the event loop, while every other request waits
    behind it. Here a thread checkpoints every ``interval`` seconds (the driver
    lets go of the GIL while SQLite works), and the commits' own checkpoint is
    pushed out to ``BACKSTOP_PAGES``. A PASSIVE checkpoint never blocks a reader
    or a writer.

    The log starts over only at a write that finds every frame of it copied, so
    while writes never pause it is not restarted by this thread: it grows until
    a commit reaches the backstop and checkpoints what the thread has not copied
    yet (at most an interval's writes), on the event loop. The higher the
    backstop, the rarer that pause: measured under a steady stream of writes,
    50,000 pages against 10,000 gave 4-13% more rounds a second and a p99 of
    13 against 18-20 ms. The log file can then reach about 200 MB.
    """

    BACKSTOP_PAGES = 50_000

    def __init__(self, path: str, interval: float = 0.25) -> None:
        self.path, self.interval = path, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sqlite-checkpoint", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        # mode=rw: never create the file (a mistyped path stays an error, not a new database).
        uri = Path(self.path).resolve().as_uri() + "?mode=rw"
        connection: sqlite3.Connection | None = None
        failing = False
        try:
            while not self._stop.wait(self.interval):
                try:
                    if connection is None:
                        connection = sqlite3.connect(
                            uri, uri=True, isolation_level=None, check_same_thread=False
                        )
                        connection.execute("PRAGMA busy_timeout=1000")
                    connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    failing = False
                except sqlite3.Error as error:  # the file is missing, say: try again later
                    if not failing:
                        logger.warning("WAL checkpoint failed (retrying): %s", error)
                    failing = True
        finally:
            if connection is not None:
                connection.close()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control away from the driver: BEGIN is ours to emit.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        # The Checkpointer's thread keeps the log short; commits checkpoint only past this.
        cursor.execute(f"PRAGMA wal_autocheckpoint={Checkpointer.BACKSTOP_PAGES}")
        cursor.close()
