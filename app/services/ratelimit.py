"""Fixed-window limits on what a client, a match or a token may do a minute: writes
counted in the database, shared by every worker (``count``); heavy reads in each
process (``ProcessCounts``). Which limits apply to what: ``app.api.deps``."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

from app import metrics
from app.db import repository
from app.db.database import UnitOfWork
from app.errors import RateLimited


@dataclass(frozen=True, slots=True)
class RateLimit:
    """At most ``per_minute`` requests a minute counted under ``key`` (what is done,
    and by which client or on which match); ``what`` names them in the refusal."""

    key: str
    per_minute: int
    what: str
    window_s: int = 60


def refusal(limit: RateLimit, window: int, now: float) -> RateLimited:
    """The 429 of a request over ``limit`` in ``window``, counted in the metrics."""
    metrics.RATE_LIMITED.labels(limit.what).inc()
    retry_after = max(1, math.ceil((window + 1) * limit.window_s - now))
    return RateLimited(
        f"at most {limit.per_minute} {limit.what} a minute; retry in {retry_after} s",
        retry_after=retry_after,
    )


def count(uow: UnitOfWork, limits: Iterable[RateLimit]) -> None:
    """Count one request against each limit, in the caller's write transaction;
    RateLimited past any of them.

    The count is part of the transaction it guards: a refused request rolls back and
    so is not counted, and a replayed idempotent request never gets here.
    """
    for limit in limits:
        now = time.time()
        window = int(now // limit.window_s)
        seen = repository.count_in_window(uow.connection, limit.key[:64], window)
        if seen == 1:
            repository.delete_windows_before(uow.connection, window - 1)
        if seen > limit.per_minute:
            raise refusal(limit, window, now)


class ProcessCounts:
    """The same fixed windows, counted in this process's memory: for reads.

    A read runs in a read transaction; counting it in the database would make every
    read a write (on SQLite, a turn at its one writer beside the rounds being entered),
    so the guard would cost what it guards. Each worker counts apart: with several
    workers an address may make up to that many times the count.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._window = 0
        self._seen: dict[str, int] = {}

    def count(self, limits: Iterable[RateLimit]) -> None:
        """Count one request against each limit; RateLimited past any of them (the
        refused request is counted too: a client that keeps asking stays refused)."""
        for limit in limits:
            now = time.time()
            window = int(now // limit.window_s)
            with self._lock:
                if window != self._window:  # a new minute: the old counts are done with
                    self._window, self._seen = window, {}
                seen = self._seen[limit.key] = self._seen.get(limit.key, 0) + 1
            if seen > limit.per_minute:
                raise refusal(limit, window, now)
