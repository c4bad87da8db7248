"""Load-test the live streams of real SquareScores servers (issue #13): ``make bench-live``.

``GET /v1/matches/{id}/events`` (Server-Sent Events) is measured against the real thing:
``python -m uvicorn app.main:app`` on loopback, over a freshly migrated SQLite file and a
fresh PostgreSQL database, with the uvicorn flags the app is served with
(``app/serving.py``). Servers, databases, wrk, the matches, the figures and the run's
environment are those of ``scripts/bench.py``.

What is measured, per database and per layout:

- **1 worker**: one one-worker server; the writes and every stream go to it.
- **2 workers**: two one-worker servers on the same database; the writes go to one, every
  stream is open on the other, so each change crosses processes (``LISTEN``/``NOTIFY`` on
  PostgreSQL, the change-log poller on SQLite), as under ``--workers 2``, where the kernel,
  not the client, would pick the worker of each connection.

In each layout: ``--streams`` streams (1,000) are opened over ``--matches`` matches (250,
so 4 per match, each with one of the match's tokens), then ``--rate`` writes a second
(50, ``POST /v1/matches/{id}/rounds``, round-robin over the matches, sent open-loop on a
fixed schedule) for ``--duration`` seconds (20). The fan-out latency of a write at a
subscriber is the time its event (``id`` = the match version) was read from that stream
minus the time the writer sent the write (whose 201 names the version, ``ETag: "vN"``):
both clocks are ``time.monotonic()`` in this one process. (From the write's start: a
stream is handed the change at its commit, and may read it before the writer reads the
201 the server renders after it.) Every acknowledged write must reach every stream
of its match. Also: the RSS of the streams' worker before and with every stream open (KiB
per stream), and its CPU during the write phase over the events it delivered.

The scale phase (issue #29; ``--scale-streams``, 10,000, and ``--scale-only``): a plain
asyncio client opens that many streams over a quarter as many matches on one worker (or
``--scale-workers`` one-worker servers), and measures the idle worker, memory per stream,
writes to every phone, a crowd of ``--crowd`` streams on one match, and every stream
reconnecting at once, against the targets in ``scale_targets``.

The page's crowd (issue #39; ``--page-crowd``, 1,000, and ``--page-only``): that many
phones on one match, on a one-worker server of their own, that do on each event what
the web page does (``app/web/events.js``): apply it from its own data when it follows
the version the phone holds, and otherwise (a skipped version, a snapshot newer than
what it holds, a kind it does not know) read the match and the sheet again, as the page
does. ``--page-changes`` writes (10, one a second) are made to the match; each one's
time is from the write's start to the moment the last phone has what it shows (applied
it, or read it again). ``--page-rereads`` makes the phones read the match and the sheet
again on every event, as the page did before, to compare.

The flood (issue #40; ``--flood-streams``, 2,500, ``--flood-seconds``, 10, ``--flood-hold``,
10,000, and ``--flood-only``), on a one-worker server of its own with the default stream
caps (the other phases turn them off: their one client address stands for every phone):
that many clients of one address (a loopback address of its own, ``127.0.0.2``) reopen
streams of its own match resumed 255 changes behind, while another address opens a
stream of another match ten times a second from a process of its own, each timed to its
first byte; then one address tries to hold ``--flood-hold`` streams open, and the
worker's RSS and open files are read before, once all are answered, and after uvicorn's
keep-alive timeout closed the refused ones' connections.

With 1 worker, also: POST round and GET match req/s (wrk, ``bench/wrk/scenarios.lua``, 32
connections, on matches nobody follows) with no stream open and with every stream open,
each also as a ratio to the bare FastAPI endpoint (``bench/bare_app.py``) measured in the
same run.

The load generator (this process: every stream and the writer, then wrk) runs on the same
machine as the servers and PostgreSQL, and competes with them for the CPU: the report says
how much of it the generator used, and how much other processes used meanwhile. Event
arrival times include the generator's own delay in reading them; its own garbage
collections are kept off the write phase (``gc.freeze``) and timed. ``--gc-log`` also logs
the servers' collections (a ``sitecustomize`` on their ``PYTHONPATH``; the app is not
touched): a full collection of a worker holding 1,000 streams pauses it for a while, and
the slowest deliveries are those waiting it out.

Exit status: 0 when every write got its 201 and every event reached every stream (targets
may still be MISS: they are information, not a gate), 1 when a write failed, an event was
missing or a wrk request got an unexpected status, 2 when a database could not be
measured (a server did not start, PostgreSQL is down, ...); the others are still written.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import httpx
import orjson

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python scripts/bench_live.py` puts scripts/ first
    sys.path.insert(0, str(ROOT))

from scripts.bench import (  # noqa: E402
    BENCH_PACKAGES,
    CLOCK_TICKS,
    CPUS,
    DEFAULT_POSTGRES_URL,
    DISTURBED,
    HOST,
    BenchError,
    Match,
    Measurement,
    Server,
    app_fingerprint,
    cpu_seconds,
    create_match,
    environment,
    figure,
    machine_ticks,
    measure,
    percentile,
    post_round,
    postgres_database,
    postgres_pids,
    progress,
    round_body,
    rss_kib,
    run_bench,
    run_wrk,
    server_env,
    sqlite_database,
    write_pool,
)

DEFAULT_OUTPUT = ROOT / "bench" / "results" / "live-latest.json"

TARGET_FANOUT_P99_MS = 100.0  # issue #13: write's 2xx to the event at every subscriber
# req/s with every stream open over req/s with none (same server, same run): this harness's
# tolerance for run-to-run noise.
TARGET_KEEP = 0.90

# Time bounds: nothing waits or loops without one.
OPEN_TIMEOUT = 120.0  # every stream open and its snapshot read
OPEN_CONCURRENCY = 64  # streams being opened at once
DRAIN_TIMEOUT = 15.0  # after the last write's 2xx, for the last events
WRITE_TIMEOUT = 30.0  # one POST round
LAYOUT_TIMEOUT = 900.0  # one layout, end to end
SETUP_CONCURRENCY = 16
SETTLE_S = 0.5  # after the streams are open, before the RSS is read
POOL_MATCHES = 32  # matches the wrk load is spread over (nobody follows them)
POOL_ROUNDS = 5

T = TypeVar("T")


# -- the plan ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    databases: tuple[str, ...]
    layouts: tuple[int, ...]  # 1: one server; 2: a writer server and a stream server
    streams: int
    matches: int
    rate: float  # writes per second
    duration: float  # seconds of writes
    throughput: bool  # the wrk runs with and without the streams (1 worker)
    throughput_duration: int  # seconds per wrk run
    wrk_connections: int
    gc_log: bool  # log the servers' garbage-collection pauses (a sitecustomize)
    quick: bool
    output: Path
    postgres_url: str
    scale_streams: int = 0  # the streams at scale (0: not measured)
    crowd: int = 0  # the streams on one match
    scale_rate: float = 100.0  # writes per second at scale
    idle_seconds: float = 20.0
    scale_app: str = "app.main:app"  # or an app with one mechanism off (bench/without_*.py)
    scale_workers: int = 1  # one-worker servers on one database, sharing the streams
    page_crowd: int = 0  # phones on one match that do what the page does (0: not measured)
    page_changes: int = 10  # writes to their match, one a second
    page_rereads: bool = False  # the phones read the match and sheet on every event
    page_only: bool = False  # only the page's crowd (no layouts, no wrk, no scale)
    flood_streams: int = 0  # one address's clients reopening resumed streams (0: not measured)
    flood_seconds: float = 10.0  # ... for this long
    flood_hold: int = 0  # streams one address then tries to hold open
    flood_hostile: bool = False  # the flooding clients retry a refusal at once

    @property
    def writes(self) -> int:
        return max(1, round(self.rate * self.duration))


def parse_args(argv: list[str] | None = None) -> Plan:
    parser = argparse.ArgumentParser(
        prog="scripts/bench_live.py",
        description="Load-test the live streams (SSE) of real servers (issue #13).",
    )
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument(
        "--workers",
        choices=["1", "2", "both"],
        default="both",
        help="1: writes and streams on one worker; 2: writes on one one-worker server, "
        "streams on another, same database (default both)",
    )
    parser.add_argument("--quick", action="store_true", help="200 streams, 50 matches, 10 s")
    parser.add_argument("--streams", type=int, help="open streams (1000; 200 with --quick)")
    parser.add_argument("--matches", type=int, help="matches they follow (250; 50 with --quick)")
    parser.add_argument("--rate", type=float, default=50.0, help="writes per second (50)")
    parser.add_argument("--duration", type=float, help="seconds of writes (20; 10 with --quick)")
    parser.add_argument(
        "--throughput-duration",
        type=int,
        help="seconds per wrk run of POST round / GET match (5; 2 with --quick)",
    )
    parser.add_argument(
        "--wrk-connections", type=int, default=32, help="wrk connections (32, as make bench)"
    )
    parser.add_argument(
        "--no-throughput", action="store_true", help="skip the wrk runs with/without streams"
    )
    parser.add_argument(
        "--gc-log",
        action="store_true",
        help="log the servers' garbage-collection pauses over 5 ms (a sitecustomize on their "
        "PYTHONPATH) and report those during the write phase",
    )
    parser.add_argument(
        "--scale-streams",
        type=int,
        help="streams at scale, over a quarter as many matches, on one worker (10000; 1000 "
        "with --quick; 0 skips the scale phase)",
    )
    parser.add_argument(
        "--scale-only", action="store_true", help="only the scale phase (no layouts, no wrk)"
    )
    parser.add_argument(
        "--scale-workers",
        type=int,
        default=1,
        help="one-worker servers of the scale phase, on one database, each holding its "
        "share of the streams; writes and probes go to the first (1)",
    )
    parser.add_argument(
        "--scale-app",
        default="app.main:app",
        help="the app of the scale phase, e.g. bench.without_stream_freeze:app",
    )
    parser.add_argument(
        "--crowd", type=int, help="streams on one watched match (2000; 200 with --quick)"
    )
    parser.add_argument(
        "--scale-rate", type=float, default=100.0, help="writes per second at scale (100)"
    )
    parser.add_argument(
        "--page-crowd",
        type=int,
        help="phones on one match that do on each event what the page does (1000; 200 "
        "with --quick; 0 skips the phase)",
    )
    parser.add_argument(
        "--page-changes", type=int, default=10, help="writes to their match, one a second (10)"
    )
    parser.add_argument(
        "--page-rereads",
        action="store_true",
        help="the page's crowd reads the match and the sheet again on every event (the "
        "page before it redrew from the event), to compare",
    )
    parser.add_argument(
        "--page-only", action="store_true", help="only the page's crowd (no layouts, wrk, scale)"
    )
    parser.add_argument(
        "--flood-streams",
        type=int,
        help="clients of one address reopening resumed streams of its own match, while "
        "another address's openings are timed (2500; 200 with --quick; 0 skips the phase)",
    )
    parser.add_argument("--flood-seconds", type=float, help="how long they do (10; 3 with --quick)")
    parser.add_argument(
        "--flood-hold",
        type=int,
        help="streams one address then tries to hold open (10000; 1000 with --quick)",
    )
    parser.add_argument(
        "--flood-hostile",
        action="store_true",
        help="the flooding clients retry a 429 at once, not after its Retry-After",
    )
    parser.add_argument(
        "--flood-only", action="store_true", help="only the flood phase (no layouts, wrk, ...)"
    )
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="the JSON results")
    parser.add_argument(
        "--postgres-url",
        default=DEFAULT_POSTGRES_URL,
        help="admin URL; a bench_<random> database is created beside it and dropped after",
    )
    args = parser.parse_args(argv)
    streams = args.streams if args.streams is not None else (200 if args.quick else 1000)
    matches = args.matches if args.matches is not None else (50 if args.quick else 250)
    duration = args.duration if args.duration is not None else (10.0 if args.quick else 20.0)
    throughput_duration = args.throughput_duration or (2 if args.quick else 5)
    if matches < 1 or streams < matches:
        parser.error("--matches must be at least 1, and --streams at least --matches")
    if args.rate <= 0 or duration <= 0 or throughput_duration < 1 or args.wrk_connections < 1:
        parser.error("--rate, --duration, --throughput-duration, --wrk-connections: positive")
    if args.page_changes < 1:
        parser.error("--page-changes must be at least 1")
    page_crowd = args.page_crowd if args.page_crowd is not None else (200 if args.quick else 1000)
    flood = args.flood_streams if args.flood_streams is not None else (200 if args.quick else 2500)
    alone = args.scale_only or args.page_only or args.flood_only
    return Plan(
        databases=("sqlite", "postgresql") if args.db == "both" else (args.db,),
        layouts=() if alone else ((1, 2) if args.workers == "both" else (int(args.workers),)),
        streams=streams,
        matches=matches,
        rate=args.rate,
        duration=duration,
        throughput=not args.no_throughput,
        gc_log=args.gc_log,
        throughput_duration=throughput_duration,
        wrk_connections=args.wrk_connections,
        quick=args.quick,
        output=args.output,
        postgres_url=args.postgres_url,
        scale_streams=0
        if args.page_only or args.flood_only
        else args.scale_streams
        if args.scale_streams is not None
        else (1000 if args.quick else 10000),
        crowd=args.crowd if args.crowd is not None else (200 if args.quick else 2000),
        scale_rate=args.scale_rate,
        idle_seconds=5.0 if args.quick else 20.0,
        scale_app=args.scale_app,
        scale_workers=max(1, args.scale_workers),
        page_crowd=0 if args.flood_only else max(0, page_crowd),
        page_changes=args.page_changes,
        page_rereads=args.page_rereads,
        page_only=args.page_only,
        flood_streams=0 if args.scale_only or args.page_only else max(0, flood),
        flood_seconds=args.flood_seconds or (3.0 if args.quick else 10.0),
        flood_hostile=args.flood_hostile,
        flood_hold=args.flood_hold
        if args.flood_hold is not None
        else (1000 if args.quick else 10000),
    )


# -- matches -------------------------------------------------------------------------------


@dataclass(frozen=True)
class LiveMatch:
    id: str
    host: str
    readers: tuple[str, ...]  # every token of the match: any of them may follow it

    def auth(self, token: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token or self.host}"}


async def create_matches(client: httpx.AsyncClient, count: int) -> list[LiveMatch]:
    gate = asyncio.Semaphore(SETUP_CONCURRENCY)

    async def one() -> LiveMatch:
        async with gate:
            body = await create_match(client)
        tokens = body["tokens"]
        readers = (tokens["viewer"], *tokens["players"], tokens["host"])
        return LiveMatch(body["id"], tokens["host"], readers)

    return list(await asyncio.gather(*(one() for _ in range(count))))


async def add_rounds(client: httpx.AsyncClient, matches: list[LiveMatch], rounds: int) -> None:
    gate = asyncio.Semaphore(SETUP_CONCURRENCY)

    async def one(match: LiveMatch) -> None:
        async with gate:
            for k in range(rounds):
                await post_round(client, match.id, match.host, k)

    await asyncio.gather(*(one(match) for match in matches))


# -- the streams ---------------------------------------------------------------------------


@dataclass(eq=False)
class Follower:
    """One open stream: the events it read after its snapshot, with their arrival times."""

    match: LiveMatch
    token: str
    arrivals: list[tuple[int, float]] = field(default_factory=list)  # (version, monotonic)
    kinds: Counter[str] = field(default_factory=Counter)
    snapshot_version: int | None = None
    error: str | None = None
    ended: bool = False


class Streams:
    """``count`` streams over ``matches`` (stream i follows match i mod len(matches)), all in
    this process, read line by line."""

    def __init__(self, url: str, matches: list[LiveMatch], count: int) -> None:
        self.url = url
        self.followers = [
            Follower(
                matches[i % len(matches)], matches[i % len(matches)].readers[i // len(matches) % 5]
            )
            for i in range(count)
        ]
        self.per_match = Counter(f.match.id for f in self.followers)
        self.delivered = 0  # events (not snapshots) read, over every stream
        self.opened = 0
        self.all_open = asyncio.Event()
        self.gate = asyncio.Semaphore(OPEN_CONCURRENCY)
        self.client = httpx.AsyncClient(
            base_url=url,
            limits=httpx.Limits(max_connections=count + 50, max_keepalive_connections=0),
            timeout=httpx.Timeout(None, connect=30.0),
        )
        self.tasks: list[asyncio.Task[None]] = []

    async def open(self) -> float:
        """Open every stream; the seconds until each had read its snapshot."""
        started = time.monotonic()
        self.tasks = [asyncio.create_task(self._follow(f)) for f in self.followers]
        try:
            await asyncio.wait_for(self.all_open.wait(), OPEN_TIMEOUT)
        except TimeoutError:
            raise BenchError(
                f"only {self.opened} of {len(self.followers)} streams opened "
                f"in {OPEN_TIMEOUT:.0f} s"
            ) from None
        failed = [f for f in self.followers if f.snapshot_version is None]
        if failed:
            raise BenchError(f"{len(failed)} streams did not open: {failed[0].error}")
        return time.monotonic() - started

    def _ready(self) -> None:
        self.opened += 1
        if self.opened == len(self.followers):
            self.all_open.set()

    async def _follow(self, follower: Follower) -> None:
        await self.gate.acquire()
        held = True
        try:
            path = f"/v1/matches/{follower.match.id}/events"
            async with self.client.stream(
                "GET", path, headers=follower.match.auth(follower.token)
            ) as response:
                if response.status_code != 200:
                    follower.error = f"status {response.status_code}"
                    return
                event: str | None = None
                version: int | None = None
                async for line in response.aiter_lines():
                    if not line:  # the end of an event: dispatch it
                        if version is not None:
                            if event == "snapshot" and follower.snapshot_version is None:
                                follower.snapshot_version = version
                                self.gate.release()
                                held = False
                                self._ready()
                            else:
                                follower.arrivals.append((version, time.monotonic()))
                                follower.kinds[event or "message"] += 1
                                self.delivered += 1
                        event = version = None
                    elif line[0] != ":":  # a comment (heartbeat) otherwise
                        name, _, value = line.partition(":")
                        if name == "event":
                            event = value.strip()
                        elif name == "id":
                            version = int(value.strip())
            follower.error = follower.error or "the server closed the stream"
        except asyncio.CancelledError:
            raise
        except Exception as error:
            follower.error = f"{type(error).__name__}: {error}"
        finally:
            follower.ended = True
            if held:
                self.gate.release()
                self._ready()  # counted, so open() does not wait for it; it fails there

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.client.aclose()


# -- the writer ----------------------------------------------------------------------------


@dataclass
class Writes:
    acknowledged: dict[tuple[str, int], float] = field(default_factory=dict)  # -> sent at
    latencies: list[float] = field(default_factory=list)  # seconds, send to 2xx
    failures: Counter[str] = field(default_factory=Counter)
    first_sent: float = 0.0
    last_acknowledged: float = 0.0


async def write_phase(
    client: httpx.AsyncClient, matches: list[LiveMatch], rate: float, count: int
) -> Writes:
    """``count`` POST rounds, one every 1/rate s on a fixed schedule (each in a task of its
    own, so a slow answer delays no later write), round-robin over the matches."""
    writes = Writes()

    async def one(i: int) -> None:
        match = matches[i % len(matches)]
        sent = time.monotonic()
        try:
            response = await client.post(
                f"/v1/matches/{match.id}/rounds", json=round_body(i), headers=match.auth()
            )
        except httpx.HTTPError as error:
            writes.failures[type(error).__name__] += 1
            return
        answered = time.monotonic()
        etag = response.headers.get("etag", "")
        if response.status_code != 201 or not etag.startswith('"v'):
            writes.failures[f"status {response.status_code}"] += 1
            return
        writes.acknowledged[(match.id, int(etag.strip('"')[1:]))] = sent
        writes.latencies.append(answered - sent)
        writes.last_acknowledged = max(writes.last_acknowledged, answered)

    start = time.monotonic() + 0.1
    writes.first_sent = start
    tasks = []
    for i in range(count):
        delay = start + i / rate - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(i)))
    await asyncio.gather(*tasks)
    return writes


class GcPauses:
    """This process's garbage-collection pauses (a pause here delays reading the streams)."""

    def __init__(self) -> None:
        self.started: float | None = None
        self.pauses: list[tuple[int, float]] = []  # (generation, seconds)

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
        elif self.started is not None:
            self.pauses.append((info["generation"], time.perf_counter() - self.started))
            self.started = None

    def __enter__(self) -> GcPauses:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)

    def summary(self) -> dict[str, Any]:
        return {
            "collections": len(self.pauses),
            "full_collections": sum(1 for generation, _ in self.pauses if generation == 2),
            "max_pause_ms": max((pause for _, pause in self.pauses), default=0.0) * 1000,
        }


GC_LOG_ENV = "SQUARESCORES_BENCH_GC_LOG"
GC_LOG_MIN_MS = 5.0
GC_SITECUSTOMIZE = f"""\
# Written by scripts/bench_live.py --gc-log: each garbage collection of this process that
# pauses it over {GC_LOG_MIN_MS} ms is appended to ${GC_LOG_ENV}/gc-<pid>.log as
# "<CLOCK_MONOTONIC s> <generation> <ms>".
import gc
import os
import time

_directory = os.environ.get("{GC_LOG_ENV}")
_started = [0.0]


def _pause(phase, info):
    if phase == "start":
        _started[0] = time.perf_counter()
        return
    pause_ms = (time.perf_counter() - _started[0]) * 1000
    if pause_ms > {GC_LOG_MIN_MS}:
        path = os.path.join(_directory, "gc-%d.log" % os.getpid())
        with open(path, "a") as log:
            log.write("%.4f %d %.2f\\n" % (time.monotonic(), info["generation"], pause_ms))


if _directory:
    gc.callbacks.append(_pause)
"""


def gc_env(env: dict[str, str], directory: Path) -> dict[str, str]:
    """``env`` with the GC-logging sitecustomize first on the servers' PYTHONPATH."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "sitecustomize.py").write_text(GC_SITECUSTOMIZE)
    path = os.pathsep.join(p for p in (str(directory), env.get("PYTHONPATH", "")) if p)
    return {**env, "PYTHONPATH": path, GC_LOG_ENV: str(directory)}


def server_gc(
    directory: Path | None, pid: int, start: float, end: float, origin: float
) -> dict[str, Any] | None:
    """The pauses over GC_LOG_MIN_MS the server ``pid`` logged between start and end, with
    when each ended, in seconds since ``origin`` (the first write)."""
    if directory is None:
        return None
    pauses: list[tuple[float, int, float]] = []
    log = directory / f"gc-{pid}.log"
    if log.exists():
        for line in log.read_text().splitlines():
            at, generation, pause_ms = line.split()
            if start <= float(at) <= end:
                pauses.append((float(at) - origin, int(generation), float(pause_ms)))
    return {
        "pauses_over_ms": GC_LOG_MIN_MS,
        "count": len(pauses),
        "full_collections": sum(1 for _, generation, _ in pauses if generation == 2),
        "max_ms": max((pause for _, _, pause in pauses), default=0.0),
        "total_ms": sum(pause for _, _, pause in pauses),
        "longest": [
            {"ended_at_s": at, "generation": generation, "ms": pause}
            for at, generation, pause in sorted(pauses, key=lambda p: -p[2])[:5]
        ],
    }


# -- figures -------------------------------------------------------------------------------


def distribution_ms(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    ordered = sorted(v * 1000 for v in values)
    return {
        "count": len(ordered),
        "min": ordered[0],
        "p50": percentile(ordered, 50),
        "p90": percentile(ordered, 90),
        "p99": percentile(ordered, 99),
        "max": ordered[-1],
        "mean": sum(ordered) / len(ordered),
    }


def fanout_figures(streams: Streams, writes: Writes) -> dict[str, Any]:
    """Match every event to its write by (match id, version)."""
    latencies: list[float] = []
    worst: list[tuple[float, float, int]] = []  # (latency, 2xx since the first write, version)
    unexpected: Counter[str] = Counter()
    for follower in streams.followers:
        for version, arrived in follower.arrivals:
            acknowledged = writes.acknowledged.get((follower.match.id, version))
            if acknowledged is None:
                unexpected[f"version {version} of no acknowledged write"] += 1
            else:
                latencies.append(arrived - acknowledged)
                worst.append((arrived - acknowledged, acknowledged - writes.first_sent, version))
    expected = sum(streams.per_match[match_id] for match_id, _ in writes.acknowledged)
    kinds: Counter[str] = Counter()
    for follower in streams.followers:
        kinds.update(follower.kinds)
    ended = [f.error or "ended" for f in streams.followers if f.ended]
    return {
        "expected": expected,
        "delivered": len(latencies),
        "missing": expected - len(latencies),
        "unexpected": sum(unexpected.values()),
        "unexpected_detail": dict(unexpected.most_common(5)),
        "kinds": dict(kinds),
        "streams_ended_early": len(ended),
        "stream_errors": dict(Counter(ended).most_common(5)),
        "latency_ms": distribution_ms(latencies),
        # the slowest deliveries, and when in the write phase their write was acknowledged
        "slowest": [
            {"ms": latency * 1000, "at_s": at, "version": version}
            for latency, at, version in sorted(worst, reverse=True)[:10]
        ],
    }


# -- one layout ----------------------------------------------------------------------------


async def bounded(work: Awaitable[T], seconds: float = LAYOUT_TIMEOUT) -> T:
    return await asyncio.wait_for(work, seconds)


async def in_thread(function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Blocking work (wrk, waiting for idle) off the loop, so the streams keep being read."""
    return await asyncio.to_thread(function, *args, **kwargs)


@dataclass
class Throughput:
    """POST round and GET match under wrk, 1 worker, on matches nobody follows."""

    runs: dict[str, Measurement] = field(default_factory=dict)  # "<request>_<off|on>"


class Layout:
    """One layout on one database: its servers, its matches, its streams."""

    def __init__(
        self,
        kind: str,
        plan: Plan,
        workdir: Path,
        writer: Server,
        reader: Server,
        workers: int,
        throughput: Throughput | None,
        gc_dir: Path | None,
    ) -> None:
        self.kind, self.plan, self.workdir, self.gc_dir = kind, plan, workdir, gc_dir
        self.writer, self.reader, self.workers = writer, reader, workers
        self.throughput = throughput

    def wrk_pair(self, pool: str, side: str) -> None:
        """GET match, then POST round, on ``pool``: a warm-up, then the two measured runs."""
        assert self.throughput is not None
        plan, server = self.plan, self.writer
        run_wrk(server.url, "get_match", [pool], plan.wrk_connections, 1)  # warm-up
        for name, request, ok in (
            ("get_match", "GET /v1/matches/{id}", [200]),
            ("post_round", "POST /v1/matches/{id}/rounds", [201]),
        ):
            self.throughput.runs[f"{name}_{side}"] = measure(
                server,
                f"{name}_{side}",
                f"{request}, {'every stream open' if side == 'on' else 'no stream open'}",
                request,
                name,
                [pool],
                connections=plan.wrk_connections,
                duration=plan.throughput_duration,
                expected=ok,
                with_db=self.kind == "postgresql",
            )

    async def run(self) -> dict[str, Any]:
        plan = self.plan
        (reader_pid,) = self.reader.worker_pids()
        (writer_pid,) = self.writer.worker_pids()
        limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
        timeout = httpx.Timeout(WRITE_TIMEOUT)
        async with httpx.AsyncClient(
            base_url=self.writer.url, limits=limits, timeout=timeout
        ) as client:
            progress(f"  creating {plan.matches} matches")
            matches = await create_matches(client, plan.matches)
            pools: dict[str, str] = {}
            if self.throughput is not None:
                for side in ("off", "on"):
                    pool = await create_matches(client, POOL_MATCHES)
                    await add_rounds(client, pool, POOL_ROUNDS)
                    path = self.workdir / f"pool-{side}.lua"
                    write_pool(path, [Match(m.id, m.host) for m in pool], POOL_ROUNDS)
                    pools[side] = str(path)
                progress(f"  wrk, {plan.wrk_connections} connections, no stream open")
                await in_thread(self.wrk_pair, pools["off"], "off")
            await in_thread(self.reader.wait_idle)
            rss_before = rss_kib(reader_pid)
            streams = Streams(self.reader.url, matches, plan.streams)
            try:
                progress(f"  opening {plan.streams} streams")
                open_s = await streams.open()
                await asyncio.sleep(SETTLE_S)
                rss_open = rss_kib(reader_pid)
                progress(f"    open in {open_s:.1f} s; RSS {rss_before:,} -> {rss_open:,} KiB")
                if self.throughput is not None:
                    progress(f"  wrk, {plan.wrk_connections} connections, every stream open")
                    await in_thread(self.wrk_pair, pools["on"], "on")
                    await in_thread(self.writer.wait_idle)
                progress(f"  writing {plan.writes} rounds at {plan.rate:g}/s")
                pids = sorted({reader_pid, writer_pid})
                cpu_before = {pid: cpu_seconds([pid]) for pid in pids}
                db_before = cpu_seconds(postgres_pids()) if self.kind == "postgresql" else 0.0
                self_before = resource.getrusage(resource.RUSAGE_SELF)
                ticks_before = machine_ticks()
                delivered_before = streams.delivered
                started = time.monotonic()
                # This process's own collections are kept off the measurement: what is
                # allocated so far is frozen (never collected again), and they are timed.
                gc.collect()
                gc.freeze()
                try:
                    with GcPauses() as gc_pauses:
                        writes = await write_phase(client, matches, plan.rate, plan.writes)
                finally:
                    gc.unfreeze()
                write_end = time.monotonic()
                expected = sum(streams.per_match[m] for m, _ in writes.acknowledged)
                drain_deadline = write_end + DRAIN_TIMEOUT
                while (
                    streams.delivered - delivered_before < expected
                    and time.monotonic() < drain_deadline
                ):
                    await asyncio.sleep(0.02)
                finished = time.monotonic()
                cpu = {pid: cpu_seconds([pid]) - cpu_before[pid] for pid in pids}
                db_cpu = (
                    cpu_seconds(postgres_pids()) - db_before if self.kind == "postgresql" else None
                )
                self_after = resource.getrusage(resource.RUSAGE_SELF)
                ticks = [a - b for a, b in zip(machine_ticks(), ticks_before, strict=False)]
                generator_cpu = (self_after.ru_utime - self_before.ru_utime) + (
                    self_after.ru_stime - self_before.ru_stime
                )
                fanout = fanout_figures(streams, writes)
                open_at_end = sum(1 for f in streams.followers if not f.ended)
            finally:
                await streams.close()
        wall = finished - started
        delivered = fanout["delivered"]
        total_ticks = sum(ticks[:8]) or 1
        busy_s = (total_ticks - ticks[3] - ticks[4]) / CLOCK_TICKS
        ours = sum(cpu.values()) + (db_cpu or 0.0) + generator_cpu
        acknowledged = len(writes.acknowledged)
        result: dict[str, Any] = {
            "workers": self.workers,
            "layout": (
                "1 one-worker server: writes and streams"
                if self.workers == 1
                else "2 one-worker servers, one database: writes to A, streams on B"
            ),
            "streams": plan.streams,
            "matches": plan.matches,
            "streams_per_match": plan.streams / plan.matches,
            "open_seconds": open_s,
            "streams_open_at_end": open_at_end,
            "writes": {
                "sent": plan.writes,
                "acknowledged": acknowledged,
                "failures": dict(writes.failures),
                "rate_per_s": plan.rate,
                "seconds": write_end - writes.first_sent,
                "first_at_monotonic": writes.first_sent,  # CLOCK_MONOTONIC: any process's
                "latency_ms": distribution_ms(writes.latencies),
            },
            "events": {k: v for k, v in fanout.items() if k != "latency_ms"},
            "fanout_ms": fanout["latency_ms"],
            "memory": {
                "pid": reader_pid,
                "rss_kib_before": rss_before,
                "rss_kib_open": rss_open,
                "kib_per_stream": (rss_open - rss_before) / plan.streams,
            },
            "cpu": {
                "phase_seconds": wall,
                "stream_worker_cpu_s": cpu[reader_pid],
                "stream_worker_cores": cpu[reader_pid] / wall,
                "stream_worker_us_per_event": cpu[reader_pid] / delivered * 1e6
                if delivered
                else None,
                "includes_the_writes": self.workers == 1,
                "writer_worker_cpu_s": cpu[writer_pid],
                "writer_worker_us_per_write": cpu[writer_pid] / acknowledged * 1e6
                if acknowledged and self.workers == 2
                else None,
                "postgres_cpu_s": db_cpu,
                "generator_cpu_s": generator_cpu,
                "generator_cores": generator_cpu / wall,
                "generator_gc": gc_pauses.summary(),
                "machine_busy": 1 - (ticks[3] + ticks[4]) / total_ticks,
                # CPU used by anything but the servers, PostgreSQL and this process
                "other_cores": max(0.0, busy_s - ours) / wall,
            },
            "server_gc": {
                "stream_worker": server_gc(
                    self.gc_dir, reader_pid, started, finished, writes.first_sent
                ),
                "writer_worker": server_gc(
                    self.gc_dir, writer_pid, started, finished, writes.first_sent
                )
                if self.workers == 2
                else None,
            },
        }
        lat = result["fanout_ms"]
        progress(
            f"    {acknowledged}/{plan.writes} writes acknowledged; events "
            f"{delivered}/{fanout['expected']}"
            + (f"; fan-out p50 {lat['p50']:.1f} ms p99 {lat['p99']:.1f} ms" if lat else "")
        )
        return result


# -- at scale (issue #29): thousands of plain streams on one worker -------------------------

TARGET_IDLE_CORES = 0.10  # the worker, while every stream is open and nothing happens
TARGET_IDLE_PROBE_P99_MS = 50.0  # /healthz and GET match meanwhile
TARGET_SCALE_FANOUT_P99_MS = 100.0  # write -> every phone, at --scale-rate
TARGET_CROWD_P99_MS = 250.0  # one change -> every watcher of one match
TARGET_KIB_PER_STREAM = 24.0
TARGET_STORM_S = 15.0  # every stream open again after all dropped at once
TARGET_STORM_PROBE_P99_MS = 250.0
SCALE_OPEN_CONCURRENCY = 256  # streams being opened at once (the storm: all of them)
PROBE_RATE = 20.0  # probe requests a second, per path
CROWD_CHANGES = 10  # writes to the watched match, one a second

# The probes run in a process of their own, so that this one's work on thousands of
# streams does not count as the server's latency.
PROBE_SCRIPT = """
import json, sys, time
import httpx
url, rate, seconds, token, *paths = sys.argv[1:]
rate, seconds = float(rate), float(seconds)
latencies = {path: [] for path in paths}
errors = 0
with httpx.Client(base_url=url, timeout=30, headers={"Authorization": "Bearer " + token}) as c:
    start = time.monotonic()
    tick = 0
    while time.monotonic() - start < seconds:
        for path in paths:
            sent = time.perf_counter()
            try:
                ok = c.get(path).status_code == 200
            except httpx.HTTPError:
                ok = False
            if ok:
                latencies[path].append(time.perf_counter() - sent)
            else:
                errors += 1
        tick += 1
        pause = start + tick / rate - time.monotonic()
        if pause > 0:
            time.sleep(pause)
print(json.dumps({"latencies": latencies, "errors": errors}))
"""


class Probes:
    """/healthz and GET match, ``PROBE_RATE`` a second each, from a process of their own."""

    def __init__(self, url: str, match: LiveMatch, seconds: float) -> None:
        self.paths = {"healthz": "/healthz", "get_match": f"/v1/matches/{match.id}"}
        self.args = [url, str(PROBE_RATE), str(seconds), match.host, *self.paths.values()]
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", PROBE_SCRIPT, *self.args, stdout=subprocess.PIPE, cwd=ROOT
        )

    async def result(self) -> dict[str, Any]:
        assert self.process is not None
        out, _ = await self.process.communicate()
        found = json.loads(out)
        figures: dict[str, Any] = {
            name: distribution_ms(found["latencies"][path]) for name, path in self.paths.items()
        }
        figures["errors"] = found["errors"]
        return figures


@dataclass(eq=False, slots=True)
class RawStream:
    """A stream read by a plain asyncio connection: the request, the head, then lines,
    of which only each event's ``id`` is kept (no HTTP or SSE library)."""

    match: LiveMatch
    token: str
    port: int  # of the server it follows the match on
    last: int = -1  # the last event id read
    arrivals: list[tuple[int, float]] = field(default_factory=list)
    error: str | None = None
    writer: asyncio.StreamWriter | None = None


class RawStreams:
    """Many ``RawStream`` s, opened ``concurrency`` at a time."""

    def __init__(self, streams: list[RawStream]) -> None:
        self.host = HOST
        self.streams = streams
        self.tasks: list[asyncio.Task[None]] = []
        self.opened = 0
        self.record = False  # keep each event's arrival (the write phases)

    async def open(self, concurrency: int, *, resume: bool = False) -> tuple[float, int]:
        """Open every stream (``resume``: with ``Last-Event-ID``, as a reconnecting phone
        does); the seconds until each answered its head, and how many failed."""
        gate = asyncio.Semaphore(concurrency)
        started = time.monotonic()
        ready = [asyncio.get_running_loop().create_future() for _ in self.streams]
        self.tasks = [
            asyncio.create_task(self._follow(stream, gate, done, resume))
            for stream, done in zip(self.streams, ready, strict=True)
        ]
        await asyncio.wait_for(asyncio.gather(*ready), OPEN_TIMEOUT)
        return time.monotonic() - started, sum(1 for s in self.streams if s.error)

    def errors(self) -> dict[str, int]:
        return dict(Counter(s.error for s in self.streams if s.error).most_common(3))

    async def _follow(
        self, stream: RawStream, gate: asyncio.Semaphore, ready: asyncio.Future[None], resume: bool
    ) -> None:
        resumed = f"Last-Event-ID: {stream.last}\r\n" if resume and stream.last >= 0 else ""
        request = (
            f"GET /v1/matches/{stream.match.id}/events HTTP/1.1\r\nHost: {self.host}\r\n"
            f"Authorization: Bearer {stream.token}\r\n{resumed}Accept: text/event-stream\r\n\r\n"
        ).encode()
        try:
            async with gate:
                reader, stream.writer = await asyncio.open_connection(self.host, stream.port)
                stream.writer.write(request)
                status = await reader.readline()
                if b" 200 " not in status:
                    raise BenchError(f"status {status.decode().strip()!r}")
                while await reader.readline() not in (b"\r\n", b""):
                    pass
            self.opened += 1
            ready.set_result(None)
            while line := await reader.readline():
                if line.startswith(b"id: "):
                    stream.last = int(line[4:])
                    if self.record:
                        stream.arrivals.append((stream.last, time.monotonic()))
        except (OSError, BenchError, ValueError) as error:
            stream.error = f"{type(error).__name__}: {error}"
        finally:
            if not ready.done():
                ready.set_result(None)

    async def close(self) -> None:
        """Drop every connection at once, as a restart or a lost network would."""
        for stream in self.streams:
            if stream.writer is not None:
                stream.writer.transport.abort()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.opened = 0


def delivery_ms(streams: list[RawStream], writes: Writes) -> dict[str, Any]:
    """Every acknowledged write at every stream of its match: the delays, and what is
    missing."""
    per_match: Counter[str] = Counter(s.match.id for s in streams)
    latencies = [
        arrived - writes.acknowledged[(s.match.id, version)]
        for s in streams
        for version, arrived in s.arrivals
        if (s.match.id, version) in writes.acknowledged
    ]
    expected = sum(per_match[match_id] for match_id, _ in writes.acknowledged)
    return {
        "expected": expected,
        "missing": expected - len(latencies),
        "latency_ms": distribution_ms(latencies),
    }


async def run_scale(plan: Plan, servers: list[Server], gc_dir: Path | None) -> dict[str, Any]:
    """``plan.scale_streams`` streams over a quarter as many matches, spread over the
    one-worker ``servers`` (writes and probes go to the first): memory per stream, the
    idle workers, writes to every phone, a crowd on one match, and every phone
    reconnecting at once."""
    server = servers[0]
    pids = [pid for s in servers for pid in s.worker_pids()]
    ports = [s.port for s in servers]
    count = plan.scale_streams
    began = time.monotonic()
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    async with httpx.AsyncClient(
        base_url=server.url, limits=limits, timeout=httpx.Timeout(WRITE_TIMEOUT)
    ) as client:
        progress(f"  scale: creating {count // 4 + 1} matches")
        matches = await create_matches(client, count // 4)
        (crowded,) = await create_matches(client, 1)
        streams = RawStreams(
            [
                RawStream(
                    matches[i % len(matches)],
                    matches[i % len(matches)].readers[i // len(matches) % 5],
                    ports[i % len(ports)],
                )
                for i in range(count)
            ],
        )
        for each in servers:
            await in_thread(each.wait_idle)
        rss_before = sum(rss_kib(pid) for pid in pids)
        progress(f"  scale: opening {count} streams")
        open_s, failed = await streams.open(SCALE_OPEN_CONCURRENCY)
        await asyncio.sleep(2 * SETTLE_S)
        rss_open = sum(rss_kib(pid) for pid in pids)
        result: dict[str, Any] = {
            "app": plan.scale_app,
            "workers": len(pids),
            "streams": count,
            "matches": len(matches),
            "open_seconds": open_s,
            "open_failed": failed,
            "memory": {
                "rss_kib_before": rss_before,
                "rss_kib_open": rss_open,
                "kib_per_stream": (rss_open - rss_before) / count,
            },
        }
        progress(
            f"    open in {open_s:.1f} s ({failed} failed); RSS {rss_before:,} -> {rss_open:,} KiB"
        )

        # Idle: nothing but the streams, then the probes' latency on top (their own
        # requests cost the worker CPU too: that is the second figure).
        progress(f"  scale: idle for {plan.idle_seconds:g} s, then probed for as long")
        cpu_before, started = cpu_seconds(pids), time.monotonic()
        await asyncio.sleep(plan.idle_seconds)
        idle_cores = (cpu_seconds(pids) - cpu_before) / (time.monotonic() - started)
        probes = Probes(server.url, crowded, plan.idle_seconds)
        cpu_before, started = cpu_seconds(pids), time.monotonic()
        await probes.start()
        idle_probes = await probes.result()
        probed_cores = (cpu_seconds(pids) - cpu_before) / (time.monotonic() - started)
        # each worker's share (the probes are answered by the first)
        result["idle"] = {
            "worker_cores": idle_cores / len(pids),
            "worker_cores_probed": probed_cores / len(pids),
            "probes": idle_probes,
        }

        progress(f"  scale: writing {plan.scale_rate:g} rounds a second")
        streams.record = True
        writes = await write_phase(
            client, matches, plan.scale_rate, max(1, round(plan.scale_rate * plan.duration))
        )
        await asyncio.sleep(DRAIN_TIMEOUT / 5)
        result["writes"] = {
            "rate_per_s": plan.scale_rate,
            "acknowledged": len(writes.acknowledged),
            "failures": dict(writes.failures),
            **delivery_ms(streams.streams, writes),
        }

        progress(f"  scale: {plan.crowd} streams on one match, {CROWD_CHANGES} changes")
        crowd = RawStreams(
            [
                RawStream(crowded, crowded.readers[i % 5], ports[i % len(ports)])
                for i in range(plan.crowd)
            ]
        )
        crowd.record = True
        await crowd.open(SCALE_OPEN_CONCURRENCY)
        await asyncio.sleep(SETTLE_S)
        crowd_writes = await write_phase(client, [crowded], 1.0, CROWD_CHANGES)
        await asyncio.sleep(DRAIN_TIMEOUT / 5)
        result["crowd"] = {"streams": plan.crowd, **delivery_ms(crowd.streams, crowd_writes)}
        await crowd.close()

        progress("  scale: every stream dropped, and reconnecting at once")
        await streams.close()
        for each in servers:
            await in_thread(each.wait_idle)
        probes = Probes(server.url, crowded, plan.idle_seconds)
        await probes.start()
        storm_s, storm_failed = await streams.open(count, resume=True)
        result["storm"] = {
            "seconds": storm_s,
            "failed": storm_failed,
            "errors": streams.errors(),
            "probes": await probes.result(),
        }
        await streams.close()
    result["server_gc"] = server_gc(gc_dir, pids[0], began, time.monotonic(), began)
    return result


# -- the page's crowd (issue #39): phones that do on each event what the page does --------

TARGET_PAGE_CROWD_P99_MS = 500.0  # a write -> the last of 1,000 phones showing it
PAGE_CHANGES_PER_S = 1.0
# The changes the page applies from their own data (app/web/events.js, CHANGES).
PAGE_CHANGES = frozenset(
    {
        "round_entered",
        "round_corrected",
        "round_removed",
        "match_updated",
        "token_reissued",
        "ended",
    }
)


def page_step(held: int, kind: str, data: dict[str, Any]) -> str:
    """What the page does with an event (``app/web/events.js``, ``applyEvent``), given
    the version it holds: ``apply`` it from its data, leave it (``same``: it has it), or
    ``read`` the match and the sheet again (it cannot apply it)."""
    version = data.get("version")
    if not isinstance(version, int) or "match" not in data:
        return "read"
    if version <= held:
        return "same"
    if kind == "snapshot" or kind not in PAGE_CHANGES or data.get("kind") != kind:
        return "read"
    return "apply" if version == held + 1 else "read"


@dataclass(eq=False)
class PagePhone:
    """A phone with the page open on the match: its stream (a plain asyncio connection,
    opened after the version it read, as the page's is), and when it had each version."""

    match: LiveMatch
    token: str
    held: int  # the match version it shows
    shown: dict[int, float] = field(default_factory=dict)  # version -> monotonic
    reads: int = 0  # GET match and GET sheet it sent
    reading: asyncio.Task[None] | None = None
    again: bool = False
    error: str | None = None
    writer: asyncio.StreamWriter | None = None
    # Its two keep-alive connections for reads (a browser's parallel fetches), once used.
    connections: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = field(
        default_factory=list
    )


async def plain_get(
    connection: tuple[asyncio.StreamReader, asyncio.StreamWriter], path: str, token: str
) -> tuple[int, bytes]:
    """One GET on a keep-alive connection, with no HTTP library (thousands of them at
    once must not be the generator's own queue): the status and the body."""
    reader, writer = connection
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nAuthorization: Bearer {token}\r\n"
        "Accept: application/json\r\n\r\n".encode()
    )
    status = int((await reader.readline()).split(b" ", 2)[1])
    length = 0
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return status, await reader.readexactly(length)


class PageCrowd:
    """``count`` phones on one match that do on each event what the page does
    (``page_step``), or read again on every event (``rereads``: the page before)."""

    def __init__(self, server: Server, match: LiveMatch, version: int, count: int) -> None:
        self.server = server
        self.phones = [PagePhone(match, match.readers[i % 5], version) for i in range(count)]
        self.rereads = False
        self.tasks: list[asyncio.Task[None]] = []

    async def open(self) -> tuple[float, int]:
        """Every phone's stream open; the seconds it took, and how many failed."""
        gate = asyncio.Semaphore(SCALE_OPEN_CONCURRENCY)
        ready = [asyncio.get_running_loop().create_future() for _ in self.phones]
        started = time.monotonic()
        self.tasks = [
            asyncio.create_task(self._follow(phone, gate, done))
            for phone, done in zip(self.phones, ready, strict=True)
        ]
        await asyncio.wait_for(asyncio.gather(*ready), OPEN_TIMEOUT)
        return time.monotonic() - started, sum(1 for p in self.phones if p.error)

    async def _follow(
        self, phone: PagePhone, gate: asyncio.Semaphore, ready: asyncio.Future[None]
    ) -> None:
        request = (
            f"GET /v1/matches/{phone.match.id}/events?after={phone.held} HTTP/1.1\r\n"
            f"Host: {HOST}\r\nAuthorization: Bearer {phone.token}\r\n"
            "Accept: text/event-stream\r\n\r\n"
        ).encode()
        try:
            async with gate:
                reader, phone.writer = await asyncio.open_connection(
                    HOST, self.server.port, limit=2**22
                )
                phone.writer.write(request)
                status = await reader.readline()
                if b" 200 " not in status:
                    raise BenchError(f"status {status.decode().strip()!r}")
                while await reader.readline() not in (b"\r\n", b""):
                    pass
            ready.set_result(None)
            kind, data = "", b""
            # The body is chunked: a chunk's size line is none of the fields below, and
            # the blank line after a chunk dispatches nothing.
            while line := await reader.readline():
                if line.startswith(b"event: "):
                    kind = line[7:].strip().decode()
                elif line.startswith(b"data: "):
                    data = line[6:].strip()
                elif line.strip() == b"" and data:
                    self._event(phone, kind, data)
                    kind, data = "", b""
        except (OSError, BenchError, ValueError) as error:
            phone.error = f"{type(error).__name__}: {error}"
        finally:
            if not ready.done():
                ready.set_result(None)

    def _event(self, phone: PagePhone, kind: str, raw: bytes) -> None:
        data = orjson.loads(raw)  # as the page parses it, whatever it then does
        step = "read" if self.rereads else page_step(phone.held, kind, data)
        if step == "apply":
            phone.held = data["version"]
            phone.shown.setdefault(phone.held, time.monotonic())
        elif step == "read":
            if phone.reading is not None:
                phone.again = True  # folded into one more read, as the page's refresh
            else:
                phone.reading = asyncio.create_task(self._read(phone))

    async def _read(self, phone: PagePhone) -> None:
        """GET match and GET sheet at once, as the page reads them (again while an
        event came meanwhile); the phone then has every version up to the match's."""
        base = f"/v1/matches/{phone.match.id}"
        try:
            if not phone.connections:
                phone.connections = [
                    await asyncio.open_connection(HOST, self.server.port, limit=2**22)
                    for _ in range(2)
                ]
            while True:
                phone.again = False
                phone.reads += 2
                (status, match), (sheet_status, _) = await asyncio.wait_for(
                    asyncio.gather(
                        plain_get(phone.connections[0], base, phone.token),
                        plain_get(phone.connections[1], f"{base}/sheet", phone.token),
                    ),
                    WRITE_TIMEOUT,
                )
                if status != 200 or sheet_status != 200:
                    phone.error = f"read: status {status}, {sheet_status}"
                    return
                now, version = time.monotonic(), int(orjson.loads(match)["version"])
                for each in range(phone.held + 1, version + 1):
                    phone.shown.setdefault(each, now)
                phone.held = max(phone.held, version)
                if not phone.again:
                    return
        except (OSError, ValueError, IndexError, TimeoutError, EOFError) as error:
            phone.error = f"read: {type(error).__name__}"
        finally:
            phone.reading = None

    async def close(self) -> None:
        tasks = [*self.tasks, *(p.reading for p in self.phones if p.reading is not None)]
        for phone in self.phones:
            for _, writer in phone.connections:
                writer.transport.abort()
            if phone.writer is not None:
                phone.writer.transport.abort()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def page_figures(crowd: PageCrowd, writes: Writes) -> dict[str, Any]:
    """Per write: from its start to each phone having it, and to the last phone."""
    per_phone: list[float] = []
    last_phone: list[float] = []
    missing = 0
    for (_, version), sent in sorted(writes.acknowledged.items(), key=lambda item: item[0][1]):
        times = [p.shown[version] - sent for p in crowd.phones if version in p.shown]
        missing += len(crowd.phones) - len(times)
        per_phone += times
        if len(times) == len(crowd.phones):
            last_phone.append(max(times))
    reads = sum(p.reads for p in crowd.phones)
    changes = len(writes.acknowledged)
    return {
        "phones": len(crowd.phones),
        "behaviour": "reads on every event" if crowd.rereads else "the page (events.js)",
        "changes": changes,
        "write_failures": dict(writes.failures),
        "expected": changes * len(crowd.phones),
        "missing": missing,
        "reads": reads,
        "reads_per_phone_per_change": reads / (changes * len(crowd.phones)) if changes else None,
        "errors": dict(Counter(p.error for p in crowd.phones if p.error).most_common(3)),
        "latency_ms": distribution_ms(per_phone),
        "last_phone_ms": distribution_ms(last_phone),
        "last_phone_each_ms": [round(each * 1000, 1) for each in last_phone],  # in order
    }


async def run_page_crowd(plan: Plan, server: Server, kind: str) -> dict[str, Any]:
    """``plan.page_crowd`` phones on one match that do what the page does, on a
    one-worker server of their own; ``plan.page_changes`` writes, one a second."""
    limits = httpx.Limits(max_connections=16, max_keepalive_connections=16)
    async with httpx.AsyncClient(
        base_url=server.url, limits=limits, timeout=httpx.Timeout(WRITE_TIMEOUT)
    ) as client:
        (match,) = await create_matches(client, 1)
        await add_rounds(client, [match], 3)  # a sheet to read again, when a phone does
        answer = await client.get(f"/v1/matches/{match.id}", headers=match.auth())
        version = int(answer.json()["version"])
        crowd = PageCrowd(server, match, version, plan.page_crowd)
        crowd.rereads = plan.page_rereads
        try:
            progress(f"  page: opening {plan.page_crowd} phones on one match")
            open_s, failed = await crowd.open()
            await in_thread(server.wait_idle)
            progress(f"  page: {plan.page_changes} changes, one a second")
            pids = server.worker_pids()
            db_pids = postgres_pids() if kind == "postgresql" else []
            cpu_before = cpu_seconds([*pids, *db_pids])
            self_before = resource.getrusage(resource.RUSAGE_SELF)
            ticks_before, started = machine_ticks(), time.monotonic()
            # This process's own collections are kept off the measurement, as the layouts'.
            gc.collect()
            gc.freeze()
            try:
                with GcPauses() as gc_pauses:
                    writes = await write_phase(
                        client, [match], PAGE_CHANGES_PER_S, plan.page_changes
                    )
                    await asyncio.sleep(DRAIN_TIMEOUT / 5)
                    while any(p.reading is not None for p in crowd.phones):  # reads still out
                        await asyncio.sleep(0.1)
            finally:
                gc.unfreeze()
            wall = time.monotonic() - started
            self_after = resource.getrusage(resource.RUSAGE_SELF)
            ticks = [a - b for a, b in zip(machine_ticks(), ticks_before, strict=False)]
            ours = (
                (cpu_seconds([*pids, *db_pids]) - cpu_before)
                + (self_after.ru_utime - self_before.ru_utime)
                + (self_after.ru_stime - self_before.ru_stime)
            )
            busy_s = (sum(ticks[:8]) - ticks[3] - ticks[4]) / CLOCK_TICKS
            return {
                "open_seconds": open_s,
                "open_failed": failed,
                **page_figures(crowd, writes),
                "generator_gc": gc_pauses.summary(),
                # CPU used meanwhile by anything but the server, PostgreSQL and this process
                "other_cores": max(0.0, busy_s - ours) / wall,
            }
        finally:
            await crowd.close()


def page_target(page: dict[str, Any]) -> dict[str, Any]:
    """Issue #39's target, as the page's crowd measured it."""
    last = page["last_phone_ms"]
    value = last["p99"] if last and not page["missing"] else None
    return {
        "name": f"page: a write -> the last of {page['phones']:,} phones showing it, p99 (ms)",
        "target": f"< {TARGET_PAGE_CROWD_P99_MS:g}",
        "value": value,
        "pass": value is not None and value < TARGET_PAGE_CROWD_P99_MS,
    }


def page_report(page: dict[str, Any]) -> list[str]:
    def dist(figures: dict[str, Any] | None) -> str:
        if not figures:
            return "-"
        return f"p50 {figures['p50']:.1f} / p99 {figures['p99']:.1f} / max {figures['max']:.1f} ms"

    return [
        "",
        f"the page's crowd: {page['phones']:,} phones on one match, 1 worker, each doing on "
        f"an event what {page['behaviour']} does; {page['changes']} changes, one a second",
        f"  opened in {page['open_seconds']:.1f} s ({page['open_failed']} failed); reads of "
        f"the match or the sheet: {page['reads']:,} "
        f"({figure(page['reads_per_phone_per_change'], 2)} per phone per change)",
        f"  a write -> each phone showing it: {dist(page['latency_ms'])}",
        f"  a write -> the last phone showing it: {dist(page['last_phone_ms'])}; "
        f"{page['missing']} of {page['expected']:,} missing"
        + (f"; errors: {page['errors']}" if page["errors"] else ""),
        f"    each write, in order (ms): {page['last_phone_each_ms']}",
        f"  this process: GC longest pause {page['generator_gc']['max_pause_ms']:.0f} ms; "
        f"other processes meanwhile: {page['other_cores']:.2f} cores"
        + ("  DISTURBED" if page["other_cores"] > DISTURBED else ""),
    ]


# -- a flood of openings from one address (issue #40) --------------------------------------

TARGET_FLOOD_OPEN_P99_MS = 1000.0  # another address's opening while one address floods
TARGET_FLOOD_RSS_GROWTH_MIB = 64.0  # the worker, once one address tried to hold thousands
FLOOD_FDS_SLACK = 64  # open files beyond the per-address cap: the pool, logs, listeners
FLOOD_BEHIND = 255  # the resumes' ?after=: this far behind (the attack that was reported)
FLOOD_ROUNDS = FLOOD_BEHIND + 45  # the flooding address's own match is this long
FLOOD_STREAMS_PER_ADDRESS = 500  # the app's default STREAMS_PER_ADDRESS, which it runs with
KEEP_ALIVE_S = 5.0  # uvicorn's: a refused connection left open is closed after it
VICTIM_RATE = 10.0  # another address's openings a second, during the flood
# Distinct client addresses: on Linux all of 127.0.0.0/8 is loopback, and a client
# socket bound to one of them is that client as the server sees it.
FLOODER, VICTIM, HOARDER = "127.0.0.2", "127.0.0.3", "127.0.0.4"

# Another address's openings run in a process of their own, as the probes do, so that
# this one's work on thousands of connections does not count as the server's latency.
VICTIM_SCRIPT = """
import json, sys, time
import httpx
url, address, rate, seconds, token, path = sys.argv[1:]
rate, seconds = float(rate), float(seconds)
latencies, statuses, errors = [], {}, 0
transport = httpx.HTTPTransport(local_address=address)
headers = {"Authorization": "Bearer " + token}
with httpx.Client(base_url=url, timeout=30, headers=headers, transport=transport) as c:
    start = time.monotonic()
    tick = 0
    while time.monotonic() - start < seconds:
        sent = time.perf_counter()
        try:
            with c.stream("GET", path) as response:
                status = str(response.status_code)
                if response.status_code == 200:
                    for _ in response.iter_raw():  # the opening's first bytes
                        latencies.append(time.perf_counter() - sent)
                        break
        except httpx.HTTPError:
            status = "error"
        statuses[status] = statuses.get(status, 0) + 1
        tick += 1
        pause = start + tick / rate - time.monotonic()
        if pause > 0:
            time.sleep(pause)
print(json.dumps({"latencies": latencies, "statuses": statuses}))
"""


def open_files(pid: int) -> int:
    """The descriptors a process holds (``/proc/<pid>/fd``)."""
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


async def flood_openings(
    port: int, match: LiveMatch, after: int, until: float, answers: Counter[str], hostile: bool
) -> None:
    """One of the flooding address's clients: open a resumed stream of its own match,
    read its first event (or its refusal's head), drop it, again, until ``until``; after
    a refusal it waits its ``Retry-After``, as a client of the protocol does, unless
    ``hostile`` (then it is a plain flood of requests, which any route would take)."""
    request = (
        f"GET /v1/matches/{match.id}/events?after={after} HTTP/1.1\r\nHost: {HOST}\r\n"
        f"Authorization: Bearer {match.host}\r\nAccept: text/event-stream\r\n\r\n"
    ).encode()
    while time.monotonic() < until:
        writer = None
        try:
            reader, writer = await asyncio.open_connection(HOST, port, local_addr=(FLOODER, 0))
            writer.write(request)
            head = (await reader.readline()).split()
            status = head[1].decode() if len(head) > 1 else "closed"
            retry_after = 0.0
            if status == "200":
                while (line := await reader.readline()) and not line.startswith(b"id: "):
                    pass
            else:
                while (line := await reader.readline()) not in (b"\r\n", b""):
                    if line.lower().startswith(b"retry-after:"):
                        retry_after = float(line.split(b":", 1)[1])
            answers[status] += 1
            if retry_after and not hostile:
                writer.transport.abort()
                await asyncio.sleep(max(0.0, min(retry_after, until - time.monotonic())))
        except (OSError, ValueError) as error:
            answers[type(error).__name__] += 1
            await asyncio.sleep(0.05)  # a refused connect: not a busy loop
        finally:
            if writer is not None:
                writer.transport.abort()


async def hold_stream(
    port: int,
    match: LiveMatch,
    answers: Counter[str],
    answered: asyncio.Future[None],
    left: list[int],
) -> None:
    """One of the hoarding address's streams: opened and held; a refused one's
    connection is left open too, as such a client would, until the server closes it."""
    request = (
        f"GET /v1/matches/{match.id}/events HTTP/1.1\r\nHost: {HOST}\r\n"
        f"Authorization: Bearer {match.host}\r\nAccept: text/event-stream\r\n\r\n"
    ).encode()
    writer = None
    try:
        reader, writer = await asyncio.open_connection(HOST, port, local_addr=(HOARDER, 0))
        writer.write(request)
        head = (await reader.readline()).split()
        answers[head[1].decode() if len(head) > 1 else "closed"] += 1
    except (OSError, ValueError) as error:
        answers[type(error).__name__] += 1
        reader = None
    finally:
        left[0] -= 1
        if not left[0] and not answered.done():
            answered.set_result(None)
    try:
        while reader is not None and await reader.read(65536):
            pass
    except OSError:
        pass
    finally:
        if writer is not None:
            writer.transport.abort()


async def run_flood(plan: Plan, server: Server) -> dict[str, Any]:
    """While one address floods a one-worker server with resumed openings of its own
    match, another address's openings are timed; then one address tries to hold
    ``plan.flood_hold`` streams open, and the worker's memory and descriptors are read."""
    limits = httpx.Limits(max_connections=16, max_keepalive_connections=16)
    async with httpx.AsyncClient(
        base_url=server.url, limits=limits, timeout=httpx.Timeout(WRITE_TIMEOUT)
    ) as client:
        own, other = await create_matches(client, 2)
        await add_rounds(client, [own], FLOOD_ROUNDS)
        version = int(
            (await client.get(f"/v1/matches/{own.id}", headers=own.auth())).json()["version"]
        )
        (pid,) = server.worker_pids()
        await in_thread(server.wait_idle)

        progress(
            f"  flood: {plan.flood_streams:,} clients of {FLOODER} reopening "
            f"?after=V-{FLOOD_BEHIND} for {plan.flood_seconds:g} s; {VICTIM} opens another "
            f"match's stream {VICTIM_RATE:g}/s"
        )
        victim = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            VICTIM_SCRIPT,
            server.url,
            VICTIM,
            str(VICTIM_RATE),
            str(plan.flood_seconds),
            other.host,
            f"/v1/matches/{other.id}/events",
            stdout=subprocess.PIPE,
            cwd=ROOT,
        )
        answers: Counter[str] = Counter()
        until = time.monotonic() + plan.flood_seconds
        flooders = [
            asyncio.create_task(
                flood_openings(
                    server.port, own, version - FLOOD_BEHIND, until, answers, plan.flood_hostile
                )
            )
            for _ in range(plan.flood_streams)
        ]
        out, _ = await asyncio.wait_for(victim.communicate(), plan.flood_seconds + OPEN_TIMEOUT)
        _, pending = await asyncio.wait(flooders, timeout=OPEN_TIMEOUT)
        for task in pending:
            task.cancel()
        await asyncio.gather(*flooders, return_exceptions=True)
        found = json.loads(out)
        flood = {
            "clients": plan.flood_streams,
            "seconds": plan.flood_seconds,
            "behind": FLOOD_BEHIND,
            "retry_after_honoured": not plan.flood_hostile,
            "answers": dict(answers.most_common()),
            "unfinished": len(pending),
            "other_opening_ms": distribution_ms(found["latencies"]),
            "other_statuses": found["statuses"],
        }

        progress(f"  hold: {plan.flood_hold:,} streams from {HOARDER} on one match")
        await asyncio.sleep(SETTLE_S)
        before = {"rss_kib": rss_kib(pid), "open_files": open_files(pid)}
        held: Counter[str] = Counter()
        answered = asyncio.get_running_loop().create_future()
        left = [plan.flood_hold]
        holders = [
            asyncio.create_task(hold_stream(server.port, own, held, answered, left))
            for _ in range(plan.flood_hold)
        ]
        try:
            await asyncio.wait_for(answered, OPEN_TIMEOUT)
            peak = {"rss_kib": rss_kib(pid), "open_files": open_files(pid)}
            # A refused client that keeps its connection: the server closes it once idle.
            await asyncio.sleep(KEEP_ALIVE_S + 1.0)
            after = {"rss_kib": rss_kib(pid), "open_files": open_files(pid)}
            sent = time.monotonic()
            await post_round(client, own.id, own.host, FLOOD_ROUNDS)
            round_s = time.monotonic() - sent
        finally:
            for task in holders:
                task.cancel()
            await asyncio.gather(*holders, return_exceptions=True)
    return {
        "flood": flood,
        "hold": {
            "streams": plan.flood_hold,
            "answers": dict(held.most_common()),
            "cap": FLOOD_STREAMS_PER_ADDRESS,
            "before": before,
            "answered": peak,
            "after": after,
            "rss_growth_mib": (after["rss_kib"] - before["rss_kib"]) / 1024,
            "open_files_growth": after["open_files"] - before["open_files"],
            "round_ms": round_s * 1000,
        },
    }


def flood_targets(flood: dict[str, Any]) -> list[dict[str, Any]]:
    """Issue #40's targets, as the flood phase measured them."""
    storm, hold = flood["flood"], flood["hold"]
    opening = storm["other_opening_ms"]
    refused_others = set(storm["other_statuses"]) - {"200"}
    p99 = opening["p99"] if opening and not refused_others else None
    held = hold["answers"].get("200", 0)
    files_bound = hold["cap"] + FLOOD_FDS_SLACK
    rows: list[tuple[str, str, float | None, bool]] = [
        (
            f"another address's opening (first byte) p99 while {storm['clients']:,} resumed "
            "openings flood from one (ms)",
            f"< {TARGET_FLOOD_OPEN_P99_MS:g}",
            p99,
            p99 is not None and p99 < TARGET_FLOOD_OPEN_P99_MS,
        ),
        (
            f"streams one address holds of {hold['streams']:,} tried",
            f"<= {hold['cap']}",
            held,
            held <= hold["cap"],
        ),
        (
            "the worker's open files after them, over before",
            f"<= {files_bound}",
            hold["open_files_growth"],
            hold["open_files_growth"] <= files_bound,
        ),
        (
            "the worker's RSS growth after them (MiB)",
            f"< {TARGET_FLOOD_RSS_GROWTH_MIB:g}",
            hold["rss_growth_mib"],
            hold["rss_growth_mib"] < TARGET_FLOOD_RSS_GROWTH_MIB,
        ),
    ]
    return [
        {"name": f"flood: {name}", "target": target, "value": value, "pass": passed}
        for name, target, value, passed in rows
    ]


def flood_report(flood: dict[str, Any]) -> list[str]:
    def dist(figures: dict[str, Any] | None) -> str:
        if not figures:
            return "-"
        return f"p50 {figures['p50']:.1f} / p99 {figures['p99']:.1f} / max {figures['max']:.1f} ms"

    storm, hold = flood["flood"], flood["hold"]
    before, peak, after = hold["before"], hold["answered"], hold["after"]
    return [
        "",
        f"a flood from one address, 1 worker: {storm['clients']:,} clients of {FLOODER} "
        f"reopening its own match ?after=V-{storm['behind']} for {storm['seconds']:g} s "
        + (
            "(a refused one waits its Retry-After)"
            if storm["retry_after_honoured"]
            else "(a refused one retries at once)"
        ),
        f"  their answers: {storm['answers']}"
        + (f"; {storm['unfinished']} unfinished" if storm["unfinished"] else ""),
        f"  {VICTIM}'s openings of another match meanwhile ({VICTIM_RATE:g}/s), to the first "
        f"byte: {dist(storm['other_opening_ms'])}; answers {storm['other_statuses']}",
        f"  {hold['streams']:,} streams from {HOARDER} on one match: answers {hold['answers']}",
        f"  the worker: RSS {before['rss_kib']:,} -> {peak['rss_kib']:,} (all answered) -> "
        f"{after['rss_kib']:,} KiB ({KEEP_ALIVE_S + 1:g} s later); open files "
        f"{before['open_files']:,} -> {peak['open_files']:,} -> {after['open_files']:,}; "
        f"a round to that match then: {hold['round_ms']:.0f} ms",
    ]


# -- one database --------------------------------------------------------------------------


def server(kind: str, workdir: Path, env: dict[str, str], app: str, name: str) -> Server:
    probe = "/bare" if app.startswith("bench.bare_app") else "/healthz"
    return Server(app, 1, env, workdir / f"{kind}-{name}.log", probe)


def run_database(kind: str, plan: Plan, workdir: Path) -> dict[str, Any]:
    database = (
        sqlite_database(workdir) if kind == "sqlite" else postgres_database(plan.postgres_url)
    )
    with database as (url, title):
        flood_env = server_env(url)
        # One address here stands for every phone of the other phases: no stream caps.
        env = {**flood_env, "STREAMS_PER_ADDRESS": "0", "STREAMS_PER_TOKEN": "0"}
        gc_dir = workdir / "gc" if plan.gc_log else None
        if gc_dir is not None:
            env = gc_env(env, gc_dir)
        section: dict[str, Any] = {"title": title, "layouts": {}, "throughput": None}
        throughput = Throughput() if plan.throughput and 1 in plan.layouts else None
        if throughput is not None and shutil.which("wrk") is None:
            progress(f"{kind}: wrk is not installed: the req/s with and without streams skipped")
            section["throughput_skipped"] = "wrk is not installed"
            throughput = None
        bare: Measurement | None = None
        if throughput is not None:
            progress(f"{kind}: the bare endpoint, 1 worker")
            with server(kind, workdir, env, "bench.bare_app:app", "bare") as bare_server:
                run_wrk(bare_server.url, "bare", [], plan.wrk_connections, 1)  # warm-up
                bare = measure(
                    bare_server,
                    "bare",
                    "bare GET /bare, 1 worker",
                    "GET /bare",
                    "bare",
                    [],
                    connections=plan.wrk_connections,
                    duration=plan.throughput_duration,
                    expected=[200],
                    with_db=False,
                )
        for workers in plan.layouts:
            progress(f"{kind}: {workers} worker{'s' if workers > 1 else ''}")
            if workers == 1:
                with server(kind, workdir, env, "app.main:app", "w1") as one:
                    layout = Layout(kind, plan, workdir, one, one, 1, throughput, gc_dir)
                    section["layouts"]["1"] = asyncio.run(bounded(layout.run()))
            else:
                with (
                    server(kind, workdir, env, "app.main:app", "w2-writer") as writer,
                    server(kind, workdir, env, "app.main:app", "w2-streams") as reader,
                ):
                    layout = Layout(kind, plan, workdir, writer, reader, 2, None, gc_dir)
                    section["layouts"]["2"] = asyncio.run(bounded(layout.run()))
        if throughput is not None and bare is not None:
            section["throughput"] = throughput_json(kind, bare, throughput)
        section["scale"] = None
        if plan.scale_streams:
            progress(f"{kind}: at scale, {plan.scale_workers} one-worker server(s)")
            with contextlib.ExitStack() as stack:
                servers = [
                    stack.enter_context(server(kind, workdir, env, plan.scale_app, f"scale-{n}"))
                    for n in range(plan.scale_workers)
                ]
                section["scale"] = asyncio.run(bounded(run_scale(plan, servers, gc_dir)))
        section["flood"] = None
        if plan.flood_streams:
            progress(f"{kind}: a flood from one address, 1 worker (the default stream caps)")
            with server(kind, workdir, flood_env, "app.main:app", "flood") as flood_server:
                section["flood"] = asyncio.run(bounded(run_flood(plan, flood_server)))
        section["page_crowd"] = None
        if plan.page_crowd:
            progress(f"{kind}: the page's crowd, 1 worker")
            with server(kind, workdir, env, "app.main:app", "page") as page_server:
                section["page_crowd"] = asyncio.run(
                    bounded(run_page_crowd(plan, page_server, kind))
                )
    section["targets"] = judge(kind, section)
    return section


def throughput_json(kind: str, bare: Measurement, throughput: Throughput) -> dict[str, Any]:
    rows = {}
    for name in ("post_round", "get_match"):
        off, on = throughput.runs[f"{name}_off"], throughput.runs[f"{name}_on"]
        rows[name] = {
            "rps_no_streams": off.rps,
            "rps_streams_open": on.rps,
            "with_over_without": on.rps / off.rps if off.rps else None,
            "ratio_to_bare_no_streams": off.rps / bare.rps if bare.rps else None,
            "ratio_to_bare_streams_open": on.rps / bare.rps if bare.rps else None,
            "p99_ms_no_streams": off.latency_ms["p99"],
            "p99_ms_streams_open": on.latency_ms["p99"],
            "other_cores_no_streams": off.other_cores,
            "other_cores_streams_open": on.other_cores,
            "disturbed": off.disturbed or on.disturbed or bare.disturbed,
        }
    return {
        "bare_rps": bare.rps,
        "rows": rows,
        "measurements": {m.name: m.to_json() for m in [bare, *throughput.runs.values()]},
        "clean": all(m.clean for m in [bare, *throughput.runs.values()]),
    }


def judge(kind: str, section: dict[str, Any]) -> list[dict[str, Any]]:
    targets = []
    for workers, layout in section["layouts"].items():
        label = f"{workers} worker{'s' if workers != '1' else ''}"
        lat = layout["fanout_ms"]
        p99 = lat["p99"] if lat else None
        targets.append(
            {
                "name": f"fan-out p99, {label}",
                "target": f"< {TARGET_FANOUT_P99_MS:.0f} ms",
                "value": p99,
                "pass": p99 is not None and p99 < TARGET_FANOUT_P99_MS,
            }
        )
        events = layout["events"]
        targets.append(
            {
                "name": f"every write at every stream, {label}",
                "target": f"{events['expected']} events",
                "value": events["delivered"],
                "pass": events["missing"] == 0 and events["expected"] > 0,
            }
        )
    if section.get("scale"):
        targets += scale_targets(section["scale"])
    if section.get("page_crowd"):
        targets.append(page_target(section["page_crowd"]))
    if section.get("flood"):
        targets += flood_targets(section["flood"])
    if section["throughput"]:
        for name, row in section["throughput"]["rows"].items():
            kept = row["with_over_without"]
            targets.append(
                {
                    "name": f"{name} req/s, every stream open / none open",
                    "target": f">= {TARGET_KEEP:.2f}",
                    "value": kept,
                    "pass": kept is not None and kept >= TARGET_KEEP,
                }
            )
    return targets


def scale_targets(scale: dict[str, Any]) -> list[dict[str, Any]]:
    """Issue #29's targets, as the scale phase measured them."""

    def p99(figures: dict[str, Any] | None) -> float | None:
        return figures["p99"] if figures else None

    def worst(*values: float | None) -> float | None:
        return None if None in values else max(v for v in values if v is not None)

    idle, storm = scale["idle"], scale["storm"]
    rows = [
        ("worker CPU, every stream idle (cores)", TARGET_IDLE_CORES, idle["worker_cores"]),
        (
            f"/healthz and GET match p99, streams idle, {PROBE_RATE:g}/s each (ms)",
            TARGET_IDLE_PROBE_P99_MS,
            worst(p99(idle["probes"]["healthz"]), p99(idle["probes"]["get_match"])),
        ),
        (
            f"write -> every phone p99 at {scale['writes']['rate_per_s']:g}/s (ms)",
            TARGET_SCALE_FANOUT_P99_MS,
            p99(scale["writes"]["latency_ms"]) if not scale["writes"]["missing"] else None,
        ),
        (
            f"one change -> {scale['crowd']['streams']:,} watchers p99 (ms)",
            TARGET_CROWD_P99_MS,
            p99(scale["crowd"]["latency_ms"]) if not scale["crowd"]["missing"] else None,
        ),
        ("memory per idle stream (KiB)", TARGET_KIB_PER_STREAM, scale["memory"]["kib_per_stream"]),
        (
            f"{scale['streams']:,} streams open again after all dropped (s)",
            TARGET_STORM_S,
            storm["seconds"] if not storm["failed"] else None,
        ),
        (
            "/healthz and GET match p99 meanwhile (ms)",
            TARGET_STORM_PROBE_P99_MS,
            worst(p99(storm["probes"]["healthz"]), p99(storm["probes"]["get_match"])),
        ),
    ]
    return [
        {
            "name": f"scale: {name}",
            "target": f"< {target:g}",
            "value": value,
            "pass": value is not None and value < target,
        }
        for name, target, value in rows
    ]


# -- the report ----------------------------------------------------------------------------


def report(kind: str, section: dict[str, Any], plan: Plan) -> str:
    lines = [
        "",
        f"== {section['title']}: live streams (issue #13) ==",
        f"{CPUS} CPUs: the load generator (this process: every stream and the writer; then "
        "wrk) shares them with the server(s)"
        + (" and PostgreSQL" if kind == "postgresql" else "")
        + "; arrival times include its delay in reading.",
        "",
        f"{'layout':<10}{'streams':>8}{'writes':>8}{'events':>16}{'p50 ms':>9}{'p99 ms':>9}"
        f"{'max ms':>9}{'KiB/stream':>12}{'us CPU/event':>14}{'gen cores':>11}"
        f"{'other cores':>13}",
    ]
    for workers, layout in section["layouts"].items():
        lat = layout["fanout_ms"] or {}
        events, cpu = layout["events"], layout["cpu"]
        lines.append(
            f"{workers + (' worker' if workers == '1' else ' workers'):<10}"
            f"{layout['streams']:>8,}{layout['writes']['acknowledged']:>8,}"
            f"{events['delivered']:>7,}/{events['expected']:<8,}"
            f"{figure(lat.get('p50'), 1):>9}{figure(lat.get('p99'), 1):>9}"
            f"{figure(lat.get('max'), 1):>9}"
            f"{figure(layout['memory']['kib_per_stream'], 1):>12}"
            f"{figure(cpu['stream_worker_us_per_event'], 0):>14}"
            f"{figure(cpu['generator_cores'], 2):>11}"
            f"{figure(cpu['other_cores'], 2):>13}"
            + ("  DISTURBED" if cpu["other_cores"] > DISTURBED else "")
        )
    lines.append(
        "  events: delivered/expected (every acknowledged write x the streams of its match); "
        "p50/p99/max: from the write's start to the event read from the stream; "
        "gen cores: this process; other cores: CPU used meanwhile by other processes "
        f"(DISTURBED above {DISTURBED}: the figures are unreliable)"
    )
    if not section["layouts"]:  # a run of the scale phase or the page's crowd alone
        del lines[4:]
    for workers, layout in section["layouts"].items():
        cpu, writes = layout["cpu"], layout["writes"]
        wl = writes["latency_ms"] or {}
        note = (
            f"  {workers} worker(s): streams opened in {layout['open_seconds']:.1f} s; "
            f"write 2xx p50 {figure(wl.get('p50'), 1)} ms p99 {figure(wl.get('p99'), 1)} ms; "
            f"stream worker {cpu['stream_worker_cores']:.2f} cores"
            + (
                " (it also served the writes)"
                if cpu["includes_the_writes"]
                else f", writer worker {figure(cpu['writer_worker_us_per_write'], 0)} us CPU/write"
            )
            + (
                f"; PostgreSQL {cpu['postgres_cpu_s']:.1f} CPU s"
                if cpu["postgres_cpu_s"] is not None
                else ""
            )
        )
        lines.append(note)
        for role, gc_figures in layout["server_gc"].items():
            if gc_figures is not None:
                lines.append(
                    f"    {role.replace('_', ' ')} GC: {gc_figures['count']} pauses over "
                    f"{gc_figures['pauses_over_ms']:g} ms ({gc_figures['full_collections']} full), "
                    f"longest {gc_figures['max_ms']:.0f} ms"
                )
        generator_gc = layout["cpu"]["generator_gc"]
        lines.append(
            f"    this process: GC longest pause {generator_gc['max_pause_ms']:.0f} ms "
            f"({generator_gc['full_collections']} full)"
        )
        if writes["failures"] or layout["events"]["streams_ended_early"]:
            lines.append(
                f"    failures {writes['failures']}; streams ended early: "
                f"{layout['events']['stream_errors']}"
            )
    throughput = section["throughput"]
    if throughput:
        lines += [
            "",
            f"req/s, wrk {plan.wrk_connections} connections, {plan.throughput_duration} s, "
            f"1 worker, matches nobody follows; bare GET /bare: {throughput['bare_rps']:,.0f}",
            f"{'request':<12}{'no streams':>12}{'streams open':>14}{'with/without':>14}"
            f"{'/bare off':>11}{'/bare on':>10}{'p99 off':>9}{'p99 on':>8}"
            f"{'other cores':>13}",
        ]
        for name, row in throughput["rows"].items():
            lines.append(
                f"{name:<12}{row['rps_no_streams']:>12,.0f}{row['rps_streams_open']:>14,.0f}"
                f"{figure(row['with_over_without'], 2):>14}"
                f"{figure(row['ratio_to_bare_no_streams'], 3):>11}"
                f"{figure(row['ratio_to_bare_streams_open'], 3):>10}"
                f"{row['p99_ms_no_streams']:>9.1f}{row['p99_ms_streams_open']:>8.1f}"
                f"{row['other_cores_no_streams']:>7.2f}/{row['other_cores_streams_open']:.2f}"
                + ("  DISTURBED" if row["disturbed"] else "")
            )
    elif section.get("throughput_skipped"):
        lines.append(f"req/s with and without streams: skipped ({section['throughput_skipped']})")
    if section.get("scale"):
        lines += scale_report(section["scale"])
    if section.get("page_crowd"):
        lines += page_report(section["page_crowd"])
    if section.get("flood"):
        lines += flood_report(section["flood"])
    lines += ["", "targets:"]
    for target in section["targets"]:
        value = target["value"]
        shown = "-" if value is None else (f"{value:,.3f}" if isinstance(value, float) else value)
        lines.append(
            f"  {'PASS' if target['pass'] else 'MISS'}  {target['name']}: {shown} "
            f"(target {target['target']})"
        )
    return "\n".join(lines)


def scale_report(scale: dict[str, Any]) -> list[str]:
    def dist(figures: dict[str, Any] | None) -> str:
        if not figures:
            return "-"
        return f"p50 {figures['p50']:.1f} / p99 {figures['p99']:.1f} / max {figures['max']:.1f} ms"

    idle, writes, crowd, storm = scale["idle"], scale["writes"], scale["crowd"], scale["storm"]
    memory = scale["memory"]
    lines = [
        "",
        f"at scale, {scale['workers']} one-worker server(s) ({scale['app']}; CPU per worker, GC "
        f"of the first): {scale['streams']:,} plain streams over "
        f"{scale['matches']:,} matches (one asyncio client, no HTTP library; probes from a "
        "process of their own)",
        f"  opened in {scale['open_seconds']:.1f} s ({scale['open_failed']} failed); RSS "
        f"{memory['rss_kib_before']:,} -> {memory['rss_kib_open']:,} KiB: "
        f"{memory['kib_per_stream']:.1f} KiB per stream",
        f"  idle: worker {idle['worker_cores']:.3f} cores; probed ({PROBE_RATE:g}/s per path): "
        f"worker {idle['worker_cores_probed']:.3f} cores, "
        f"/healthz {dist(idle['probes']['healthz'])}; "
        f"GET match {dist(idle['probes']['get_match'])}",
        f"  {writes['rate_per_s']:g} writes/s ({writes['acknowledged']} acknowledged): write -> "
        f"every phone {dist(writes['latency_ms'])}; {writes['missing']} of "
        f"{writes['expected']:,} events missing",
        f"  one match, {crowd['streams']:,} streams, {CROWD_CHANGES} changes: "
        f"{dist(crowd['latency_ms'])}; {crowd['missing']} of {crowd['expected']:,} missing",
        f"  every stream dropped and reconnecting at once: open again in {storm['seconds']:.1f} s "
        f"({storm['failed']} failed); /healthz {dist(storm['probes']['healthz'])}; GET match "
        f"{dist(storm['probes']['get_match'])}"
        + (f"; failures: {storm['errors']}" if storm["failed"] else ""),
    ]
    if scale["server_gc"]:
        gc_figures = scale["server_gc"]
        lines.append(
            f"  the worker's GC: {gc_figures['count']} pauses over "
            f"{gc_figures['pauses_over_ms']:g} ms ({gc_figures['full_collections']} full), "
            f"longest {gc_figures['max_ms']:.0f} ms"
        )
    return lines


# -- main ----------------------------------------------------------------------------------


def raise_open_files() -> int:
    """Every stream is a socket here and in the server (which inherits the limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def run(plan: Plan) -> int:
    open_files = raise_open_files()
    streams = max(
        plan.streams,
        plan.scale_streams + plan.crowd,
        plan.page_crowd,
        plan.flood_streams + plan.flood_hold,
    )
    if open_files < streams + 200:
        progress(f"the open-files limit ({open_files}) is too low for {streams} streams")
        return 2
    started = datetime.now(UTC)
    sections: dict[str, dict[str, Any]] = {}
    failures: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="squarescores-bench-live-") as tmp:
        for kind in plan.databases:
            workdir = Path(tmp) / kind
            workdir.mkdir()
            try:
                sections[kind] = run_database(kind, plan, workdir)
            except (BenchError, TimeoutError) as error:  # the other database may still run
                failures[kind] = str(error) or type(error).__name__
                progress(f"{kind}: bench failed: {failures[kind]}")
                for log in sorted(workdir.glob("*.log")):
                    progress(f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}")
            else:
                print(report(kind, sections[kind], plan), flush=True)
    results = {
        "started_at": started.isoformat(),
        "finished_at": datetime.now(UTC).isoformat(),
        "environment": environment(
            plan,
            packages=(*BENCH_PACKAGES, "httpx"),
            open_files_limit=open_files,
            app_fingerprint=app_fingerprint(),
            generator="one asyncio process (httpx): every stream and the writer; wrk for "
            "req/s; on the same machine as the servers",
        ),
        "targets": {
            "fanout_p99_ms": TARGET_FANOUT_P99_MS,
            "keep_with_streams": TARGET_KEEP,
            "page_crowd_last_phone_p99_ms": TARGET_PAGE_CROWD_P99_MS,
            "flood_other_opening_p99_ms": TARGET_FLOOD_OPEN_P99_MS,
            "flood_rss_growth_mib": TARGET_FLOOD_RSS_GROWTH_MIB,
        },
        "databases": sections,
        "failures": failures,
    }
    plan.output.parent.mkdir(parents=True, exist_ok=True)
    plan.output.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    print(f"\nresults: {plan.output}")
    if failures:
        print(f"FAILED to measure: {', '.join(failures)} (see above)")
        return 2
    problems = []
    for kind, section in sections.items():
        for workers, layout in section["layouts"].items():
            if layout["writes"]["failures"] or layout["events"]["missing"]:
                problems.append(f"{kind}, {workers} worker(s): writes failed or events missing")
        if section["throughput"] and not section["throughput"]["clean"]:
            problems.append(f"{kind}: unexpected statuses or socket errors under wrk")
        page = section.get("page_crowd")
        if page and (page["write_failures"] or page["missing"] or page["open_failed"]):
            problems.append(f"{kind}, the page's crowd: writes failed or a phone missed one")
    if problems:
        print("PROBLEMS: " + "; ".join(problems))
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    return run_bench("bench-live", run, parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
