"""A fixed-window limit on match creation per client, shared by every worker."""

from __future__ import annotations

import math
import time

from app.db import repository
from app.db.engine import Database
from app.errors import RateLimited


def check_match_creation(db: Database, client: str, *, per_minute: int, window_s: int = 60) -> None:
    """Count one match creation for ``client``; RateLimited past ``per_minute`` in the window."""
    now = time.time()
    window = int(now // window_s)
    with db.write() as conn:
        count = repository.count_in_window(conn, client[:64], window)
        if count == 1:
            repository.delete_windows_before(conn, window - 1)
    if count > per_minute:
        retry_after = max(1, math.ceil((window + 1) * window_s - now))
        raise RateLimited(
            f"at most {per_minute} matches a minute from one client; retry in {retry_after} s",
            retry_after=retry_after,
        )
