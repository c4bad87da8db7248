"""A fixed-window limit on match creation per client, shared by every worker."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from app.db import repository
from app.db.database import UnitOfWork
from app.errors import RateLimited


@dataclass(frozen=True, slots=True)
class RateLimit:
    """At most ``per_minute`` limited requests a minute from ``client``."""

    client: str
    per_minute: int
    window_s: int = 60


def count(uow: UnitOfWork, limit: RateLimit) -> None:
    """Count one request in the caller's write transaction; RateLimited past the limit.

    The count is part of the transaction it guards: a refused request rolls back and
    so is not counted, and a replayed idempotent request never gets here.
    """
    now = time.time()
    window = int(now // limit.window_s)
    seen = repository.count_in_window(uow.connection, limit.client[:64], window)
    if seen == 1:
        repository.delete_windows_before(uow.connection, window - 1)
    if seen > limit.per_minute:
        retry_after = max(1, math.ceil((window + 1) * limit.window_s - now))
        raise RateLimited(
            f"at most {limit.per_minute} matches a minute from one client; "
            f"retry in {retry_after} s",
            retry_after=retry_after,
        )
