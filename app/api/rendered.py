"""Reads whose size grows with the match, rendered once per match version.

A long match's sheet is read, folded and encoded on a worker's CPU while every other
request in flight waits its turn (``make bench``'s ``kept_bodies`` row shows the cost);
a crowd opening the page, or a table of phones each reloading, asks for the same bytes
again and again. So the answer is kept as the bytes sent, in a small least-recently-used
map per process, keyed by (match id, match version, variant: JSON, the CSV in one
language, a history page). A read looks
its key up with the version it read in its own unit of work (the caller's row, which
the caller check reads anyway: no statement more), and renders in that unit on a miss.

Why this is correct with several workers and no invalidation: every change of a match
raises its version in the same transaction (``app.services.changes``), and a body is
found only under the version read in the same transaction as the request's caller
check, so nothing is ever served for another version than the current one; an old
version's bodies are simply never asked for again and fall out of the map as new ones
come in. Each worker renders a version once for itself.

What is kept is the encoded body, not the rows: a hit costs a dictionary lookup and the
send. The API's answers are not compressed by the app (gzip is for the web page's
assets only), so there is no compressed form to keep; a proxy that compresses does it
after us. Concurrent first reads of a new version may each render it once: the page
reads the sheet when it opens and then lives on events, so a change does not send
every phone back for the sheet at once.

What it buys: ``make bench``'s with/without row ``kept_bodies`` (32 clients reading a
5,000-round sheet, and the other requests' p99 meanwhile).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request

from app.api.deps import RateLimits, ReadLimitDep
from app.services.ratelimit import ProcessCounts

Key = tuple[str, int, str]  # (match id, match version, variant)


@dataclass(frozen=True, slots=True)
class Kept:
    """An answer's body as sent, and the headers that go with it beside the ETag (a
    page's ``Link``)."""

    content: bytes
    headers: dict[str, str] = field(default_factory=dict)


class Rendered:
    """Encoded bodies, the least recently used dropped first past ``max_bytes`` in all
    (0: nothing is kept). ``renders`` counts the bodies rendered."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.renders = 0
        self._lock = threading.Lock()
        self._bodies: OrderedDict[Key, Kept] = OrderedDict()
        self._size = 0

    def get(self, key: Key, render: Callable[[], Kept]) -> Kept:
        """The body kept under ``key``; else ``render()``'s, kept when it fits."""
        with self._lock:
            body = self._bodies.get(key)
            if body is not None:
                self._bodies.move_to_end(key)
                return body
        # Rendered outside the lock: other reads go on meanwhile.
        body = render()
        with self._lock:
            self.renders += 1
            if len(body.content) > self.max_bytes or key in self._bodies:
                return body
            self._bodies[key] = body
            self._size += len(body.content)
            while self._size > self.max_bytes:
                _, dropped = self._bodies.popitem(last=False)
                self._size -= len(dropped.content)
        return body

    @property
    def size(self) -> int:
        """The bytes kept."""
        return self._size


@dataclass(frozen=True, slots=True)
class HeavyRead:
    """A read whose body grows with the match: counted against the client's limit
    (``RATE_LIMIT_READS_PER_MINUTE``), then served from the bodies kept.

    A route answers 304 before it asks for the body, so a 304 is not counted: it
    costs the one indexed read of any small read and sends nothing.
    """

    rendered: Rendered
    counts: ProcessCounts
    limits: RateLimits

    def body(self, key: Key, render: Callable[[], Kept]) -> Kept:
        """The body under ``key`` (see ``Rendered.get``); RateLimited past the limit."""
        self.counts.count(self.limits)
        return self.rendered.get(key, render)


async def heavy_read(request: Request, limits: ReadLimitDep) -> HeavyRead:
    state = request.app.state
    return HeavyRead(state.rendered, state.read_counts, limits)


HeavyReadDep = Annotated[HeavyRead, Depends(heavy_read)]
