"""Live streams of matches: one hub per process fans each change out to the streams
open on it, whichever worker or machine made the change.

- A change is logged in the change's own transaction (``app/services/changes.py``).
- This process's own commits hand the hub the changes they logged
  (``Database.on_changed``): it offers them as they are, without reading them
  back, when each follows the last change offered for its match. (On PostgreSQL
  the change's own notice, below, can arrive first: it is then read once, and the
  hand-over finds it offered.)
- Other processes' changes it learns of on PostgreSQL by ``LISTEN`` on one
  connection per process (``pg_notify`` is sent by the writing transaction and
  delivered when it commits; its payload is the match id and the version), and on SQLite
  (one machine) by one poller per process over the change log's new rows, every
  ``SQLITE_POLL_S`` while a stream is open in the process (with none, it reads
  nothing). It then reads that match's new changes once and offers each to every
  subscription of the match: one read per change per process, however many streams
  follow the match.
- Each change is encoded once per process, as the Server-Sent Event every stream
  of its match writes as it is (``Change.frame``).
- An open stream is a couple of hundred objects that live as long as it does, and a
  full garbage collection walks every one of them: with thousands open, it holds up
  the whole process meanwhile (``make bench-live`` measures how long). So the objects
  of streams that opened are frozen (``gc.freeze``, which freezes the whole process),
  in one step every ``FREEZE_EVERY_S`` at most, and at once every
  ``FREEZE_IN_A_FLOOD`` openings when every phone comes back together (the tick then
  comes late, and full collections walk the waiting openings over and over); what
  closed streams, and requests in
  flight at a freeze, leave in reference cycles is reclaimed by one full collection
  once as many streams have closed as are open, or ``RECLAIM_EVERY_S`` after the
  last one (``freeze_open_streams``).
- Streams read their openings ``OPENINGS_AT_ONCE`` at a time (``opening``): after a
  restart every phone comes back at once, and their reads queue there, not in front
  of every other request's. One client address takes ``OPENINGS_PER_ADDRESS`` of
  those turns at most, so its flood of openings cannot queue in front of everyone's.
- The streams open (or opening) are counted per client address and per token
  (``Holds``), so that the route can refuse those over its caps.
- A subscription holds at most ``QUEUE_SIZE`` changes. One that cannot keep up is
  not buffered further: what it holds is let go, it is marked to resync, and its
  stream sends a ``resync`` event and ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import math
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import anyio
import orjson
import psycopg
from fastapi.sse import format_sse_event

from app.db import repository
from app.db.database import Database, LoggedChange, UnitOfWork
from app.errors import DatabaseUnavailable
from app.services.changes import CHANNEL

logger = logging.getLogger("squarescores.live")

TICK_S = 0.25  # idle streams' timers are due on multiples of this (Subscription.wait)
QUEUE_SIZE = 32  # changes a subscription holds before it is cut (told to resync)
SQLITE_POLL_S = 0.05  # how often a process looks for other processes' changes (SQLite)
FETCH_BATCH = 100
RECONNECT_S = 1.0
OPENINGS_AT_ONCE = 4  # streams reading their opening at once, of the pool's units
# ... of which one client address's: fewer than all, so that another address's opening
# waits behind at most this many of a flooding address's, not behind its whole queue.
OPENINGS_PER_ADDRESS = 2
OPENING_WAIT_S = 30.0  # the longest a stream waits to read its opening, then 503
FREEZE_EVERY_S = 2.0  # how often the objects of newly opened streams are frozen
FREEZE_AFTER_OPENED = 50  # ... once this many streams opened since the last time
FREEZE_IN_A_FLOOD = 1000  # ... and at once, not on the tick, when this many have
RECLAIM_AFTER_CLOSED = 1000  # closed streams before a full collection (or as many as open)
RECLAIM_EVERY_S = 600.0  # ... or this long after the last, when any stream closed since


@dataclass(frozen=True, slots=True)
class Change:
    """A change of a match, as every stream of the match sends it: ``frame`` is its
    Server-Sent Event (kind, data, and the version as its id), encoded once."""

    version: int
    event: Mapping[str, Any]
    frame: bytes

    @classmethod
    def of(cls, version: int, event: Mapping[str, Any]) -> Change:
        data = orjson.dumps(event).decode()
        return cls(
            version, event, format_sse_event(data_str=data, event=event["kind"], id=str(version))
        )

    @property
    def kind(self) -> str:
        return str(self.event["kind"])


@dataclass(eq=False, slots=True)
class Subscription:
    """One stream's place in the hub: the changes waiting for it, in version order.

    Idle streams are most of those open, so an idle one holds nothing but its match
    and an empty list: the future its stream waits on exists only while it waits."""

    match_id: str
    pending: list[Change] = field(default_factory=list)  # lighter than a deque, idle
    overflowed: bool = False
    waiter: asyncio.Future[bool] | None = None

    def offer(self, change: Change) -> None:
        if self.overflowed:
            return
        if len(self.pending) >= QUEUE_SIZE:
            self.overflowed = True
            self.pending.clear()  # let go of what it could not take
        else:
            self.pending.append(change)
        self.wake()

    async def wait(self, timeout: float) -> bool:
        """Until a change is offered or the stream is told to end (True), or for
        ``timeout`` seconds (False)."""
        if self.pending or self.overflowed:
            return True
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[bool] = loop.create_future()
        self.waiter = waiter
        # A timer that settles the future, not asyncio.timeout: no cancellation to undo.
        # Its deadline is rounded up to a tick, so the idle streams' heartbeats fall due
        # together, a few times a second, not each on a wake-up of its own.
        deadline = math.ceil((loop.time() + timeout) / TICK_S) * TICK_S
        timer = loop.call_at(deadline, _settle, waiter, False)
        try:
            return await waiter
        finally:
            timer.cancel()
            self.waiter = None

    def wake(self) -> None:
        if self.waiter is not None:
            _settle(self.waiter, True)

    def take(self) -> list[Change]:
        """The changes waiting, in order; none wait after."""
        changes, self.pending = self.pending, []
        return changes

    def close(self) -> None:
        """Tell the stream to end (the process is shutting down)."""
        self.overflowed = True
        self.wake()


def _settle(waiter: asyncio.Future[bool], value: bool) -> None:
    if not waiter.done():
        waiter.set_result(value)


class Holds:
    """How many of something each key holds (streams, per client address or token),
    with a cap: a key is forgotten once it holds none, so the count stays as small as
    the keys in use."""

    def __init__(self) -> None:
        self.held: dict[str, int] = {}

    def take(self, key: str, cap: int) -> bool:
        """One more for ``key``, unless it holds ``cap`` already (0: no cap)."""
        held = self.held.get(key, 0)
        if cap and held >= cap:
            return False
        self.held[key] = held + 1
        return True

    def give_back(self, key: str) -> None:
        held = self.held.pop(key, 0) - 1
        if held > 0:
            self.held[key] = held


@dataclass(slots=True)
class AddressTurns:
    """One client address's turns to read an opening, and how many of its openings
    are waiting for one or reading (it is forgotten at none)."""

    turns: anyio.Semaphore
    users: int = 0


class ChangeHub:
    """This process's subscriptions, by match, and the watcher that feeds them."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.subscriptions: dict[str, set[Subscription]] = {}
        self.last: dict[str, int] = {}  # the last version offered, per followed match
        self.dirty: set[str] = set()
        self.fetching: set[str] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.watcher: asyncio.Task[None] | None = None
        self.tasks: set[asyncio.Task[None]] = set()
        self.freezer: asyncio.Task[None] | None = None
        self.openings = anyio.Semaphore(OPENINGS_AT_ONCE)
        self.openings_from: dict[str, AddressTurns] = {}
        self.streams = Holds()  # the streams open or opening, per address and per token
        self.opened_since_freeze = 0
        self.closed_since_reclaim = 0
        self.closed = False
        # SQLite: set while any stream is open here; the poller waits for it, reading nothing.
        self.following = asyncio.Event()
        # PostgreSQL: set while the LISTEN connection is up (other processes' changes
        # arrive); tests wait for it.
        self.listening = asyncio.Event()

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.db.on_changed = self.changed_threadsafe
        watch = self._poll_sqlite if self.db.is_sqlite else self._listen_postgres
        self.watcher = asyncio.create_task(watch(), name="squarescores-live-watcher")
        if FREEZE_EVERY_S:
            self.freezer = asyncio.create_task(self.freeze_open_streams())

    async def stop(self) -> None:
        self.closed = True
        self.db.on_changed = None
        for subscriptions in self.subscriptions.values():
            for subscription in subscriptions:
                subscription.close()
        background = [task for task in (self.watcher, self.freezer) if task is not None]
        for task in [*self.tasks, *background]:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def subscribe(self, match_id: str, from_version: int) -> Subscription:
        """Follow a match from ``from_version`` (the version the stream has sent up to).
        The changes after it that this process offered before are not offered again:
        ``offered_after`` says whether there are any."""
        subscription = Subscription(match_id)
        followers = self.subscriptions.setdefault(match_id, set())
        followers.add(subscription)
        self.following.set()
        if len(followers) == 1:
            self.last[match_id] = from_version
            self.fetch_changes(match_id)  # a change that landed meanwhile is not missed
        return subscription

    @contextlib.asynccontextmanager
    async def opening(self, address: str) -> AsyncIterator[None]:
        """A stream's turn to read its opening; 503 when it does not come in time.

        Fair across client addresses by a bound, not a queue of queues: an address
        first takes one of its own ``OPENINGS_PER_ADDRESS`` turns, then one of the
        process's ``OPENINGS_AT_ONCE``. The process's turns go in order of asking, and
        any address asks for at most its own few at once, so an opening waits behind
        a few of each other address's, however many one address sends. (A round-robin
        over the addresses would be fairer still among many flooding addresses, for
        more code; each of those is refused past its cap of open streams anyway.)"""
        self.opened_since_freeze += 1
        if self.opened_since_freeze >= FREEZE_IN_A_FLOOD:
            # Every phone back at once: the freezer's tick comes too late, and the
            # interpreter's full collections walk the waiting openings again and again.
            gc.freeze()
            self.opened_since_freeze = 0
        own = self.openings_from.get(address)
        if own is None:
            own = self.openings_from[address] = AddressTurns(anyio.Semaphore(OPENINGS_PER_ADDRESS))
        own.users += 1
        try:
            async with contextlib.AsyncExitStack() as held:
                with anyio.move_on_after(OPENING_WAIT_S) as waiting:
                    await own.turns.acquire()
                    held.callback(own.turns.release)
                    await self.openings.acquire()
                    held.callback(self.openings.release)
                if waiting.cancelled_caught:
                    raise DatabaseUnavailable("too many live streams are opening; retry shortly")
                yield
        finally:
            own.users -= 1
            if not own.users:
                del self.openings_from[address]

    @property
    def open_streams(self) -> int:
        return sum(len(followers) for followers in self.subscriptions.values())

    def offered_after(self, match_id: str, version: int) -> bool:
        """Whether this process offered a change of the match after ``version``."""
        return self.last.get(match_id, 0) > version

    def unsubscribe(self, subscription: Subscription) -> None:
        followers = self.subscriptions.get(subscription.match_id)
        if followers is None or subscription not in followers:
            return
        self.closed_since_reclaim += 1
        followers.discard(subscription)
        if not followers:
            del self.subscriptions[subscription.match_id]
            self.last.pop(subscription.match_id, None)
            self.dirty.discard(subscription.match_id)
            if not self.subscriptions:
                self.following.clear()

    async def freeze_open_streams(self) -> None:
        """Keep the objects of open streams out of full garbage collections: freeze
        what newly opened streams hold, and reclaim, in one full collection, what closed
        ones left in reference cycles once as many streams have closed as are open, or
        ``RECLAIM_EVERY_S`` after the last time."""
        loop = asyncio.get_running_loop()
        reclaimed = loop.time()
        while True:
            await asyncio.sleep(FREEZE_EVERY_S)
            many = self.closed_since_reclaim >= max(RECLAIM_AFTER_CLOSED, self.open_streams)
            due = self.closed_since_reclaim and loop.time() - reclaimed >= RECLAIM_EVERY_S
            if many or due:
                gc.unfreeze()
                gc.collect()
                gc.freeze()
                self.closed_since_reclaim = self.opened_since_freeze = 0
                reclaimed = loop.time()
            elif self.opened_since_freeze >= FREEZE_AFTER_OPENED:
                gc.collect(1)  # the young garbage goes first, not into the frozen
                gc.freeze()
                self.opened_since_freeze = 0

    def changed_threadsafe(self, changes: tuple[LoggedChange, ...]) -> None:
        """``Database.on_changed``: called in the worker thread that ran the unit."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self.deliver, changes)

    def deliver(self, changes: Iterable[LoggedChange]) -> None:
        """Changes this process committed: offered as they are when each follows the
        last one offered for its match; after a gap (another commit of the match came
        first, and is not offered yet) the match's log is read instead."""
        for match_id, version, event in changes:
            last = self.last.get(match_id)
            if last is None or version <= last:
                continue  # nobody follows the match, or it was offered already
            if version == last + 1:
                self._offer(match_id, version, event)
            else:
                self.fetch_changes(match_id)

    def _offer(self, match_id: str, version: int, event: Mapping[str, Any]) -> None:
        """Offer one change to every subscription of its match, encoded once."""
        self.last[match_id] = version
        change = Change.of(version, event)
        for subscription in self.subscriptions.get(match_id, ()):
            subscription.offer(change)

    def fetch_changes_of(self, match_ids: Iterable[str]) -> None:
        for match_id in match_ids:
            self.fetch_changes(match_id)

    def fetch_changes(self, match_id: str) -> None:
        """``match_id`` may have changed: read its new changes, if anyone follows it."""
        if match_id not in self.subscriptions or self.closed:
            return
        self.dirty.add(match_id)
        if match_id not in self.fetching:
            self.fetching.add(match_id)
            task = asyncio.get_running_loop().create_task(self._fetch(match_id))
            self.tasks.add(task)  # a reference, so the task is not collected mid-way
            task.add_done_callback(self.tasks.discard)

    async def _fetch(self, match_id: str) -> None:
        try:
            while match_id in self.dirty and match_id in self.subscriptions:
                self.dirty.discard(match_id)
                while match_id in self.subscriptions:
                    after = self.last[match_id]
                    rows = await self.db.run(
                        partial(_changes_after, match_id=match_id, after=after)
                    )
                    for version, payload in rows:
                        if match_id not in self.last or version <= self.last[match_id]:
                            continue
                        self._offer(match_id, version, payload)
                    if len(rows) < FETCH_BATCH:
                        break
        except Exception:
            logger.exception("reading the changes of match %s failed (retrying)", match_id)
            asyncio.get_running_loop().call_later(RECONNECT_S, self.fetch_changes, match_id)
        finally:
            self.fetching.discard(match_id)

    async def _poll_sqlite(self) -> None:
        """One machine: look for rows other processes added to the change log (SQLite
        commits one writer at a time, so the log's ids grow in commit order), while a
        stream is open here; with none, read nothing. A database that is not there yet
        (or not migrated) is waited for, quietly."""
        cursor: int | None = None
        failing = False
        while True:
            if not self.subscriptions:
                cursor = None
                await self.following.wait()
            await asyncio.sleep(SQLITE_POLL_S)
            try:
                if cursor is None:
                    cursor = await self.db.run(
                        lambda uow: repository.last_change_id(uow.connection)
                    )
                    # A change committed after a stream's first read of its match (in
                    # ``subscribe``) and before this one is below the cursor: read the
                    # followed matches again, after it, so that none is missed.
                    self.fetch_changes_of(list(self.subscriptions))
                    continue
                rows = await self.db.run(partial(_changed_since, cursor=cursor))
            except Exception as error:
                if not failing:
                    logger.warning("cannot read the change log (retrying): %s", error)
                failing = True
                continue
            failing = False
            if rows:
                cursor = rows[-1][0]
                # Changes already offered (this process's own commits) are not read again.
                self.fetch_changes_of(
                    {
                        match_id
                        for _, match_id, version in rows
                        if version > self.last.get(match_id, 0)
                    }
                )

    async def _listen_postgres(self) -> None:
        """Every machine: one connection of this process LISTENs; each notification
        names a match that changed. After a reconnect every followed match is read
        again, so nothing sent while the connection was down is missed."""
        url = self.db.engine.url.set(drivername="postgresql")
        conninfo = url.render_as_string(hide_password=False)
        failing = False
        while True:
            try:
                # TCP keepalives: a connection a NAT or a failover dropped silently is
                # noticed in about a minute, and LISTEN starts again.
                async with await psycopg.AsyncConnection.connect(
                    conninfo,
                    autocommit=True,
                    keepalives=1,
                    keepalives_idle=30,
                    keepalives_interval=10,
                    keepalives_count=3,
                ) as connection:
                    await connection.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    failing = False
                    self.fetch_changes_of(list(self.subscriptions))
                    async for notification in connection.notifies():
                        match_id, _, version = notification.payload.partition(" ")
                        if version.isdigit() and int(version) <= self.last.get(match_id, 0):
                            continue  # offered already: a change this process made
                        self.fetch_changes(match_id)
            except (psycopg.Error, OSError) as error:
                self.listening.clear()
                if not failing:
                    logger.warning("LISTEN connection lost (%s); reconnecting", error)
                failing = True
                await asyncio.sleep(RECONNECT_S)


def _changes_after(uow: UnitOfWork, match_id: str, after: int) -> Any:
    return repository.changes_after(uow.connection, match_id, after, limit=FETCH_BATCH)


def _changed_since(uow: UnitOfWork, cursor: int) -> Any:
    return repository.changed_since(uow.connection, cursor, limit=1000)
