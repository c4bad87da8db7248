"""What an operator scrapes: Prometheus metrics, served at ``/metrics`` when
``METRICS_ENABLED`` is on (off by default; keep the path off the public internet).

Counted in every process whether served or not (a few microseconds a request):
requests by route, method and status, with their latency; open live streams; how
long units of work wait for their turn at the database, how long a write waits for
its lock there, and how long a unit holds its connection;
idempotent replays; rate-limit refusals. With several worker processes, set
``PROMETHEUS_MULTIPROC_DIR`` to an empty directory the workers share, so
``/metrics`` adds up every worker's figures (prometheus_client's multiprocess mode).
"""

from __future__ import annotations

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

# Seconds: from a SQLite statement's fraction of a millisecond to a stalled request.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

REQUESTS = Counter(
    "squarescores_requests",
    "HTTP requests answered, by route template, method and status",
    ["route", "method", "status"],
)
REQUEST_SECONDS = Histogram(
    "squarescores_request_duration_seconds",
    "Time from a request's arrival to its answer's start, by route template and method",
    ["route", "method"],
    buckets=LATENCY_BUCKETS,
)
OPEN_STREAMS = Gauge("squarescores_open_streams", "Live streams open", multiprocess_mode="livesum")
TURN_WAIT_SECONDS = Histogram(
    "squarescores_database_turn_wait_seconds",
    "Time a unit of work waited for its turn at the database (read or write)",
    ["kind"],
    buckets=LATENCY_BUCKETS,
)
LOCK_WAIT_SECONDS = Histogram(
    "squarescores_database_lock_wait_seconds",
    "Time a write waited for its lock: SQLite's write lock (BEGIN IMMEDIATE), "
    "PostgreSQL's match row (SELECT ... FOR UPDATE, its round trip included)",
    buckets=LATENCY_BUCKETS,
)
UNIT_SECONDS = Histogram(
    "squarescores_unit_of_work_seconds",
    "Time a unit of work held its database connection, commit included (read or write)",
    ["kind"],
    buckets=LATENCY_BUCKETS,
)
REPLAYS = Counter(
    "squarescores_idempotent_replays",
    "Writes answered with the answer kept for their Idempotency-Key",
)
RATE_LIMITED = Counter(
    "squarescores_rate_limited",
    "Requests refused 429 by a rate limit, by limit",
    ["limit"],
)


def exposition() -> tuple[bytes, str]:
    """The metrics in Prometheus' text format, and its media type."""
    registry = REGISTRY
    if "PROMETHEUS_MULTIPROC_DIR" in os.environ:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    return generate_latest(registry), CONTENT_TYPE_LATEST
