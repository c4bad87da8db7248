"""Load-test real SquareScores servers with wrk, on SQLite and on PostgreSQL: ``make bench``.

Every figure is measured against the real thing: ``python -m uvicorn app.main:app`` on a
loopback port, over a freshly migrated database, driven by wrk (``bench/wrk/scenarios.lua``).
In the same run, under the same uvicorn flags and the same load, a bare FastAPI endpoint
(``bench/bare_app.py``) is measured, and every req/s is also given as a ratio to it: the
ratio is what to compare between runs and machines, since raw req/s swings with CPU steal.

What is measured, per database: each endpoint on its own at 32 connections, a realistic mix
(three times, which doubles as a memory-leak check), the same endpoints again at 8
connections (the latency targets), the cost of each operation on a short and on a long
match, and on PostgreSQL how POST round scales from one worker to two. Then the resilience
scenarios (``--no-resilience`` skips them): on PostgreSQL, POST round and GET match with
the database a few milliseconds away (``bench/latency_proxy.py``); on SQLite, the latency
of other requests while another connection holds the write lock; on both, that latency
while clients page through a 5,000-round match and while 32 clients read its sheet, and
the memory of a worker and of an open
connection. It prints a table per database with the targets marked PASS or MISS and writes
everything as JSON (``bench/results/latest.json``). How to read it: ``docs/performance.md``.

Exit status: 0 when every request got the status it should (targets may still be MISS:
they are information, not a gate), 1 when any request got an unexpected status or a socket
error, 2 when a database could not be measured (wrk missing, a server did not start, ...);
the other database is still measured and written.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import importlib.metadata
import json
import math
import os
import platform
import re
import secrets
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, TypedDict, TypeVar

import httpx
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

P = TypeVar("P")  # a bench's plan

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python scripts/bench.py` puts scripts/ first, not the root
    sys.path.insert(0, str(ROOT))

from app.serving import UVICORN_FLAGS  # noqa: E402  (the flags the app is served with)
from bench.latency_proxy import query_rtt_ms  # noqa: E402

HOST = "127.0.0.1"
WRK_SCRIPT = ROOT / "bench" / "wrk" / "scenarios.lua"
DEFAULT_OUTPUT = ROOT / "bench" / "results" / "latest.json"
DEFAULT_POSTGRES_URL = os.environ.get(
    "SQUARESCORES_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
PLAYERS = ["Anna", "Berta", "Csaba"]
ROUND_BODIES = [[2, -1, -1], [-1, 2, -1], [-1, -1, 2], [4, -2, -2], [-2, 4, -2], [-6, 3, 3]]
BENCH_PACKAGES = ("uvicorn", "httptools", "fastapi", "sqlalchemy")  # their versions, in the results
SAFE_LUA_STRING = re.compile(r"[A-Za-z0-9_.\-]+")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
CPUS = os.cpu_count() or 1

# Time bounds: nothing here waits or loops without one.
SERVER_START_TIMEOUT = 60.0
SERVER_STOP_TIMEOUT = 15.0
WRK_GRACE = 60.0  # beyond --duration, before a wrk run is killed
WRK_REQUEST_TIMEOUT = 30  # wrk --timeout: a slower response counts as a timeout error
IDLE_TIMEOUT = 30.0  # waiting for the server to finish the previous measurement's backlog
IDLE_WINDOW = 0.25
IDLE_CPU = 0.08  # share of a core under which a worker counts as idle
PREFILL_TIMEOUT = 600.0
PREFILL_CONCURRENCY = 16
PREFILL_CHUNK = 50  # rounds one prefill task posts to one match, in order
# A pooled connection is let go before uvicorn closes it (idle 5 s): reusing one the
# server is closing at that moment fails the request (httpx.ReadError).
PREFILL_KEEPALIVE_S = 2.0

# Targets (docs/performance.md, "Targets"). On SQLite, GET match and POST round keep at
# least this share of what the same SQL alone serves (bench/same_sql_app.py), in one run.
TARGET_SAME_SQL = 0.5
TARGET_P99_MS = 50.0  # every endpoint, at P99_CONNECTIONS, every database
P99_CONNECTIONS = 8  # the latency pass: the endpoints again at this many connections
APP = "app.main:app"
# The app with one mechanism switched off, for what each buys (docs/performance.md).
WITHOUT_GC_FREEZE = "bench.without_gc_freeze:app"
WITHOUT_ONE_STATEMENT_CHANGE = "bench.without_one_statement_change:app"
WITHOUT_MIN_DURATION = 8  # seconds per with/without measurement, even with --quick
FLAT_LOW, FLAT_HIGH = 0.80, 1.25  # long/short req/s for POST round and GET match
# Per-row cost of the long sheet over the short: linear is 1.0; the same +25% band as
# FLAT_HIGH allows for the drift of a shared machine (see docs/performance.md).
TARGET_SHEET_PER_ROW = FLAT_HIGH
TARGET_CORRECTION = 10.0  # a correction of round 1 of a long match vs a plain POST round
TARGET_LEAK = 0.10  # RSS growth between mix runs 2 and 3
DISTURBED = 0.25  # other processes' CPU, in cores, above which a measurement is unreliable

# The resilience scenarios (docs/performance.md, "Resilience").
DEFAULT_PG_LATENCY_MS = 2.7  # added to each PostgreSQL round trip (half each way)
TARGET_LATENCY_RATIO = 0.60  # req/s with the latency over req/s on loopback
TARGET_PROBE_P99_MS = 20.0  # GET /healthz and GET match while SQLite is locked / while paging
LOCK_SECONDS = 3.0  # how long another connection holds SQLite's write lock
POST_INTO_LOCK = 0.5  # seconds into the lock, a POST round is sent
HEAVY_ROUNDS = 5000  # the rounds of the match that is paged through (the most a match holds)
PAGE_LIMIT = 100
PAGING_CLIENTS = 4
SHEET_READERS = 32  # clients reading the heavy match's sheet over and over
TARGET_SHEET_PROBE_P99_MS = 100.0  # GET match while they do (issue #40)
LATENCY_CONNECTIONS = 32  # wrk connections, with and without the latency proxy
PROBE_RATE = 50.0  # requests per second, of each probed request
PROBE_TIMEOUT = 15.0
PROBE_CONNECTIONS = 32  # opened before the probes start
OPEN_CONNECTIONS = 1000  # idle keep-alive connections, for the memory of one
PROXY_START_TIMEOUT = 10.0

MIX_DESCRIPTION = "70% GET match, 15% POST round, 8% GET sheet, 5% PUT round, 2% create"


class BenchError(RuntimeError):
    """The bench could not run: a server, wrk, the database or the prefill failed."""


# -- the plan ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    databases: tuple[str, ...]
    workers: int
    duration: int  # seconds per measurement
    connections: int
    correction_connections: int
    warmup: int  # seconds of load on each new server before measuring
    pool_matches: int  # the matches per-endpoint load is spread over
    pool_rounds: int  # the rounds each of them starts with
    short_matches: int  # 1-round matches: the short side of the flat-cost checks
    long_matches: int  # matches pre-filled to long_rounds: the long side
    long_rounds: int
    sheet_rows: int  # the short side of the sheet comparison
    mix_runs: int
    quick: bool
    output: Path
    postgres_url: str
    resilience: bool  # the resilience scenarios
    pg_latency_ms: float  # 0: no latency-proxy measurement
    lock_seconds: float
    heavy_rounds: int
    only_heavy_reads: bool = False  # the heavy-read scenario alone


def parse_args(argv: list[str] | None = None) -> Plan:
    parser = argparse.ArgumentParser(
        prog="scripts/bench.py",
        description="Load-test real SquareScores servers with wrk (see docs/performance.md).",
    )
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--workers", type=int, default=1, help="uvicorn workers (default 1)")
    parser.add_argument(
        "--duration", type=int, help="seconds per measurement (default 8; 2 with --quick)"
    )
    parser.add_argument("--connections", type=int, default=32, help="wrk connections (32)")
    parser.add_argument(
        "--correction-connections",
        type=int,
        default=2,
        help="connections for the correction of round 1 of a long match (2)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: short measurements, small pools, 300-round long matches",
    )
    parser.add_argument(
        "--long-rounds", type=int, help="rounds in a long match (2000; 300 with --quick)"
    )
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="the JSON results")
    parser.add_argument(
        "--postgres-url",
        default=DEFAULT_POSTGRES_URL,
        help="admin URL; a bench_<random> database is created beside it and dropped after",
    )
    parser.add_argument(
        "--no-resilience",
        action="store_true",
        help="skip the latency-proxy, locked-SQLite, heavy-read and with/without scenarios",
    )
    parser.add_argument(
        "--pg-latency-ms",
        type=float,
        default=DEFAULT_PG_LATENCY_MS,
        help=f"delay added to each PostgreSQL round trip ({DEFAULT_PG_LATENCY_MS}; 0: skip)",
    )
    parser.add_argument(
        "--lock-seconds",
        type=float,
        default=LOCK_SECONDS,
        help=f"how long SQLite's write lock is held ({LOCK_SECONDS:.0f})",
    )
    parser.add_argument(
        "--heavy-rounds",
        type=int,
        default=HEAVY_ROUNDS,
        help=f"rounds of the match that is paged through ({HEAVY_ROUNDS})",
    )
    parser.add_argument(
        "--only-heavy-reads",
        action="store_true",
        help="the heavy-read scenario alone (paging, then 32 clients reading the sheet), "
        "with its targets",
    )
    args = parser.parse_args(argv)
    if args.pg_latency_ms < 0 or args.lock_seconds <= 0 or args.heavy_rounds < 1:
        parser.error("--pg-latency-ms, --lock-seconds and --heavy-rounds must be positive")
    if args.workers < 1 or args.connections < 1 or args.correction_connections < 1:
        parser.error("--workers and the connection counts must be at least 1")
    duration = args.duration if args.duration is not None else (2 if args.quick else 8)
    if duration < 1:
        parser.error("--duration is whole seconds, at least 1 (wrk takes no fractions)")
    long_rounds = args.long_rounds or (300 if args.quick else 2000)
    return Plan(
        databases=("sqlite", "postgresql") if args.db == "both" else (args.db,),
        workers=args.workers,
        duration=duration,
        connections=args.connections,
        correction_connections=args.correction_connections,
        warmup=1,
        pool_matches=32 if args.quick else 256,
        pool_rounds=5 if args.quick else 20,
        short_matches=32 if args.quick else 256,
        long_matches=2 if args.quick else 4,
        long_rounds=long_rounds,
        sheet_rows=min(100, long_rounds),
        mix_runs=3,
        quick=args.quick,
        output=args.output,
        postgres_url=args.postgres_url,
        resilience=not args.no_resilience,
        pg_latency_ms=args.pg_latency_ms,
        lock_seconds=args.lock_seconds,
        heavy_rounds=args.heavy_rounds,
        only_heavy_reads=args.only_heavy_reads,
    )


# -- /proc -------------------------------------------------------------------------------


def _stat_fields(pid: int) -> list[str] | None:
    """/proc/<pid>/stat from the state on (comm may hold spaces, so split after its ")")."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split()


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        fields = _stat_fields(int(entry.name)) if entry.name.isdigit() else None
        if fields is not None and int(fields[1]) == pid and fields[0] not in ("Z", "X"):
            found.append(int(entry.name))
    return sorted(found)


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU the processes have used so far."""
    ticks = 0
    for pid in pids:
        if (fields := _stat_fields(pid)) is not None:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / CLOCK_TICKS


def rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def postgres_pids() -> list[int]:
    """Every PostgreSQL server process on the machine (its backends do the database work)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with suppress(OSError):
                if (entry / "comm").read_text().strip() == "postgres":
                    pids.append(int(entry.name))
    return pids


def machine_ticks() -> list[int]:
    """The aggregate line of /proc/stat: user nice system idle iowait irq softirq steal ..."""
    first = Path("/proc/stat").read_text().splitlines()[0].split()
    return [int(value) for value in first[1:]]


# -- servers -------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


class Server:
    """``python -m uvicorn <app> --workers N --no-access-log`` on a free loopback port.

    It runs in a process group of its own, stopped as a whole (SIGTERM, then SIGKILL).
    """

    def __init__(self, app: str, workers: int, env: dict[str, str], log: Path, probe: str):
        self.app, self.workers, self.env, self.log_path, self.probe = app, workers, env, log, probe
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def __enter__(self) -> Server:
        attempts = 3  # the free port may be taken before uvicorn binds it
        for attempt in range(1, attempts + 1):
            self.port = free_port()
            try:
                self._spawn()
                self._wait_ready()
                break
            except BenchError:
                self.stop()
                if attempt == attempts:
                    raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _spawn(self) -> None:
        # The flags the app is served with (make run, the image): app/serving.py.
        command = [sys.executable, "-m", "uvicorn", self.app, *UVICORN_FLAGS, "--host", HOST]
        command += ["--port", str(self.port), "--workers", str(self.workers), "--no-access-log"]
        with self.log_path.open("ab") as log:
            log.write(f"$ {' '.join(command)}\n".encode())
            log.flush()
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def _wait_ready(self) -> None:
        """Until the probe answers 200 and every worker process is there (bounded)."""
        assert self.process is not None
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        with httpx.Client(base_url=self.url, timeout=2.0) as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise BenchError(f"{self.app} exited early:\n{self.log_tail()}")
                with suppress(httpx.TransportError):
                    if (
                        client.get(self.probe).status_code == 200
                        and len(self.worker_pids()) == self.workers
                    ):
                        return
                time.sleep(0.1)
        raise BenchError(f"{self.app} did not come up in {SERVER_START_TIMEOUT:.0f} s")

    def worker_pids(self) -> list[int]:
        """The processes serving requests: uvicorn itself with one worker, else its
        ``spawn_main`` children (not the multiprocessing resource tracker)."""
        if self.process is None:
            return []
        if self.workers == 1:
            return [self.process.pid]
        workers = []
        for pid in children_of(self.process.pid):
            with suppress(OSError):
                if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    workers.append(pid)
        return workers

    def rss(self) -> dict[str, int]:
        return {str(pid): rss_kib(pid) for pid in self.worker_pids()}

    def wait_idle(self) -> float:
        """Wait (bounded) until the workers are idle; the seconds it took.

        When wrk stops, the requests the server has already read are still served: after
        32 slow ones (a 2000-row sheet) that is seconds of work, which would land on the
        next measurement's latencies.
        """
        started = time.monotonic()
        pids = self.worker_pids()
        while time.monotonic() - started < IDLE_TIMEOUT:
            before = cpu_seconds(pids)
            time.sleep(IDLE_WINDOW)
            if cpu_seconds(pids) - before <= IDLE_CPU * IDLE_WINDOW * len(pids):
                break
        return time.monotonic() - started

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=SERVER_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=SERVER_STOP_TIMEOUT)
        with suppress(ProcessLookupError):  # workers outliving the supervisor
            os.killpg(process.pid, signal.SIGKILL)

    def log_tail(self, limit: int = 4000) -> str:
        with suppress(OSError):
            return self.log_path.read_text(errors="replace")[-limit:]
        return ""


# -- wrk -----------------------------------------------------------------------------------


class Latency(TypedDict):
    p50: float
    p75: float
    p90: float
    p99: float


@dataclass
class Measurement:
    """One wrk run and what the server did meanwhile."""

    name: str
    what: str  # what the table shows
    request: str  # method and path
    connections: int
    duration_s: float
    requests: int
    rps: float
    latency_ms: Latency
    statuses: dict[str, int]
    expected_statuses: list[int]
    unexpected: int  # responses with a status other than the expected ones
    non_2xx: int
    socket_errors: dict[str, int]
    wrk_cpu_s: float
    wrk_cores: float  # wrk's CPU time over its wall time: 1.0 is one core busy
    server_cpu_us_per_request: float | None
    db_cpu_us_per_request: float | None
    machine_busy: float  # share of all cores busy during the run
    machine_steal: float
    other_cores: float  # CPU used by anything but the server, wrk and PostgreSQL, in cores
    rss_kib: dict[str, int]  # per worker pid, right after the run
    sent: dict[str, int] = field(default_factory=dict)  # requests sent, by kind (the mix)
    idle_wait_s: float = 0.0  # waited for the server to finish earlier work before starting
    ratio_to_bare: float | None = None

    @property
    def rss_total_kib(self) -> int:
        return sum(self.rss_kib.values())

    @property
    def disturbed(self) -> bool:
        """Other processes used the CPU meanwhile: req/s and ratios are unreliable."""
        return self.other_cores > DISTURBED

    @property
    def clean(self) -> bool:
        errors = self.socket_errors
        return self.unexpected == 0 and errors["connect"] + errors["read"] + errors["write"] == 0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["rss_total_kib"] = self.rss_total_kib
        data["disturbed"] = self.disturbed
        return data


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}


def _ms(value: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m|h)", value)
    if match is None:
        raise BenchError(f"cannot read the wrk latency {value!r}")
    return float(match[1]) * _UNITS[match[2]]


def parse_wrk(output: str) -> dict[str, Any]:
    """Requests/sec, the --latency distribution, socket errors and non-2xx from wrk's text,
    and the status tally from the BENCH_RESULT line the Lua script's done() prints."""
    rps = re.search(r"^Requests/sec:\s+([\d.]+)", output, re.M)
    result = re.search(r"^BENCH_RESULT (\{.*\})$", output, re.M)
    if rps is None or result is None:
        raise BenchError(f"unexpected wrk output:\n{output[-3000:]}")
    latency = {
        f"p{percent}": _ms(value)
        for percent, value in re.findall(r"^\s+(50|75|90|99)%\s+(\S+)\s*$", output, re.M)
    }
    if set(latency) != {"p50", "p75", "p90", "p99"}:
        raise BenchError(f"no latency distribution in the wrk output:\n{output[-3000:]}")
    socket_errors = {"connect": 0, "read": 0, "write": 0, "timeout": 0}
    if errors := re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    ):
        socket_errors = dict(zip(socket_errors, map(int, errors.groups()), strict=True))
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    summary = json.loads(result[1])
    return {
        "rps": float(rps[1]),
        "latency_ms": latency,
        "socket_errors": socket_errors,
        "wrk_non_2xx": int(non_2xx[1]) if non_2xx else 0,
        "summary": summary,
    }


def wrk_version() -> str:
    wrk = shutil.which("wrk")
    if wrk is None:
        return "missing"
    run = subprocess.run([wrk, "-v"], capture_output=True, text=True, timeout=10, check=False)
    return (run.stdout or run.stderr).splitlines()[0].strip() if run.stdout or run.stderr else "?"


def run_wrk(
    url: str, scenario: str, args: list[str], connections: int, duration: int
) -> tuple[dict[str, Any], float, float]:
    """Run wrk once; its parsed output, its wall time and its own CPU time (from wait4)."""
    wrk = shutil.which("wrk")
    if wrk is None:
        raise BenchError("wrk is not installed")
    command = [wrk, f"-t{min(2, connections)}", f"-c{connections}", f"-d{duration}s"]
    command += [f"--timeout={WRK_REQUEST_TIMEOUT}s", "--latency", "-s", str(WRK_SCRIPT), url]
    command += ["--", scenario, *args]
    with tempfile.TemporaryFile() as out:
        started = time.monotonic()
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
        deadline = started + duration + WRK_GRACE
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                process.kill()
                os.wait4(process.pid, 0)
                process.returncode = -9
                raise BenchError(f"wrk ran past {duration + WRK_GRACE:.0f} s: {command}")
            time.sleep(0.05)
        wall = time.monotonic() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        output = out.read().decode(errors="replace")
    if process.returncode != 0:
        raise BenchError(f"wrk exited with {process.returncode}:\n{output[-3000:]}")
    return parse_wrk(output), wall, usage.ru_utime + usage.ru_stime


def measure(
    server: Server,
    name: str,
    what: str,
    request: str,
    scenario: str,
    args: list[str],
    *,
    connections: int,
    duration: int,
    expected: list[int],
    with_db: bool,
    network_pids: tuple[int, ...] = (),
) -> Measurement:
    """One wrk run against ``server``, with the server's CPU and RSS and the machine's load.

    ``network_pids`` (the latency proxy) count with the database, not as other load."""
    idle_wait = server.wait_idle()
    workers = server.worker_pids()
    db_pids = [*postgres_pids(), *network_pids] if with_db else []
    server_cpu, db_cpu, ticks = cpu_seconds(workers), cpu_seconds(db_pids), machine_ticks()
    parsed, wall, wrk_cpu = run_wrk(server.url, scenario, args, connections, duration)
    server_cpu = cpu_seconds(workers) - server_cpu
    db_cpu = cpu_seconds([*postgres_pids(), *network_pids]) - db_cpu if with_db else 0.0
    deltas = [after - before for after, before in zip(machine_ticks(), ticks, strict=False)]
    total = sum(deltas[:8]) or 1
    busy_cpu = (total - deltas[3] - deltas[4]) / CLOCK_TICKS
    summary = parsed["summary"]
    requests = int(summary["requests"])
    statuses = {str(code): int(count) for code, count in summary["statuses"].items()}
    unexpected = sum(count for code, count in statuses.items() if int(code) not in expected)
    non_2xx = sum(count for code, count in statuses.items() if not 200 <= int(code) < 300)

    def per_request(cpu: float) -> float | None:
        return cpu / requests * 1e6 if requests else None

    result = Measurement(
        name=name,
        what=what,
        request=request,
        connections=connections,
        duration_s=summary["duration_us"] / 1e6,
        requests=requests,
        rps=parsed["rps"],
        latency_ms=parsed["latency_ms"],
        statuses=statuses,
        expected_statuses=expected,
        unexpected=unexpected,
        non_2xx=max(non_2xx, parsed["wrk_non_2xx"]),
        socket_errors=parsed["socket_errors"],
        wrk_cpu_s=wrk_cpu,
        wrk_cores=wrk_cpu / wall,
        server_cpu_us_per_request=per_request(server_cpu),
        db_cpu_us_per_request=per_request(db_cpu) if with_db else None,
        machine_busy=1 - (deltas[3] + deltas[4]) / total,
        machine_steal=deltas[7] / total,
        other_cores=max(0.0, busy_cpu - server_cpu - db_cpu - wrk_cpu) / wall,
        rss_kib=server.rss(),
        sent={str(kind): int(count) for kind, count in summary["sent"].items()},
        idle_wait_s=idle_wait,
    )
    progress(
        f"  {name:<22} {result.rps:>9,.0f} req/s  p99 {result.latency_ms['p99']:>8.1f} ms"
        + (f"  (waited {idle_wait:.1f} s for the server to go idle)" if idle_wait > 1 else "")
        + ("" if result.clean else f"  UNEXPECTED {statuses} {result.socket_errors}")
    )
    return result


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- databases -----------------------------------------------------------------------------


def alembic_upgrade(url: str) -> None:
    alembic = Path(sys.executable).with_name("alembic")
    command = [str(alembic)] if alembic.exists() else [sys.executable, "-m", "alembic"]
    run = subprocess.run(
        [*command, "upgrade", "head"],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": url},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if run.returncode != 0:
        raise BenchError(f"alembic upgrade head failed on {url}:\n{run.stdout}{run.stderr}")


@contextmanager
def sqlite_database(workdir: Path) -> Iterator[tuple[str, str]]:
    path = workdir / "bench.db"
    url = f"sqlite:///{path}"
    alembic_upgrade(url)
    yield url, f"SQLite {sqlite3.sqlite_version} (fresh file, WAL)"


@contextmanager
def postgres_database(admin_url: str) -> Iterator[tuple[str, str]]:
    """A fresh ``bench_<random>`` database beside the admin URL's, dropped at the end."""
    admin = create_engine(
        admin_url, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 5}
    )
    name = f"bench_{secrets.token_hex(6)}"
    try:
        with admin.connect() as conn:
            version = conn.execute(text("SHOW server_version")).scalar_one().split()[0]
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as error:
        admin.dispose()
        raise BenchError(f"PostgreSQL at {admin_url} did not answer: {error}") from error
    try:
        url = make_url(admin_url).set(database=name).render_as_string(hide_password=False)
        alembic_upgrade(url)
        yield url, f"PostgreSQL {version} (fresh database {name})"
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


# -- prefill -------------------------------------------------------------------------------


@dataclass
class Match:
    id: str
    token: str


def round_body(k: int) -> dict[str, Any]:
    """The ``k``-th round of a bench match: ``ROUND_BODIES`` in turn."""
    return {"type": "asszorti_amounts", "amounts": ROUND_BODIES[k % len(ROUND_BODIES)]}


async def create_match(client: httpx.AsyncClient) -> dict[str, Any]:
    """A new Asszorti match of ``PLAYERS``: createMatch's 201 body (its id and tokens)."""
    response = await client.post("/v1/matches", json={"game": "asszorti", "players": PLAYERS})
    if response.status_code != 201:
        raise BenchError(f"createMatch answered {response.status_code}: {response.text[:300]}")
    body: dict[str, Any] = response.json()
    return body


async def post_round(client: httpx.AsyncClient, match_id: str, token: str, k: int) -> None:
    """``round_body(k)`` entered at the match (201, or BenchError)."""
    response = await client.post(
        f"/v1/matches/{match_id}/rounds",
        json=round_body(k),
        headers={"Authorization": f"Bearer {token}"},
    )
    if response.status_code != 201:
        raise BenchError(f"POST round answered {response.status_code}: {response.text[:300]}")


async def _create_matches(
    client: httpx.AsyncClient, count: int, gate: asyncio.Semaphore
) -> list[Match]:
    async def one() -> Match:
        async with gate:
            body = await create_match(client)
        return Match(body["id"], body["tokens"]["host"])

    return list(await asyncio.gather(*(one() for _ in range(count))))


async def _add_rounds(
    client: httpx.AsyncClient, plan: list[tuple[Match, int]], gate: asyncio.Semaphore
) -> None:
    """Post the rounds; each chunk of one match in order, chunks and matches concurrently."""

    async def chunk(match: Match, count: int, offset: int) -> None:
        async with gate:
            for k in range(count):
                await post_round(client, match.id, match.token, offset + k)

    tasks = []
    for match, rounds in plan:
        for offset in range(0, rounds, PREFILL_CHUNK):
            tasks.append(chunk(match, min(PREFILL_CHUNK, rounds - offset), offset))
    await asyncio.gather(*tasks)


async def _prefill(url: str, plan: Plan) -> dict[str, list[Match]]:
    limits = httpx.Limits(max_connections=PREFILL_CONCURRENCY, keepalive_expiry=PREFILL_KEEPALIVE_S)
    gate = asyncio.Semaphore(PREFILL_CONCURRENCY)
    async with httpx.AsyncClient(base_url=url, timeout=60.0, limits=limits) as client:
        pools = {
            "main": await _create_matches(client, plan.pool_matches, gate),
            # the same shape again, for the 8-connection pass: it finds the matches as the
            # 32-connection rows found theirs, not grown by thousands of POSTs since
            "low": await _create_matches(client, plan.pool_matches, gate),
            "short": await _create_matches(client, plan.short_matches, gate),
            "sheet": await _create_matches(client, plan.long_matches, gate),
            "long": await _create_matches(client, plan.long_matches, gate),
            # for bench/same_sql_app.py, whose rounds leave the sheet as it was
            "same_sql": await _create_matches(client, plan.pool_matches, gate),
        }
        await _add_rounds(
            client,
            [(m, plan.pool_rounds) for m in pools["main"] + pools["low"] + pools["same_sql"]]
            + [(m, 1) for m in pools["short"]]
            + [(m, plan.sheet_rows) for m in pools["sheet"]]
            + [(m, plan.long_rounds) for m in pools["long"]],
            gate,
        )
        check = pools["long"][0]
        response = await client.get(
            f"/v1/matches/{check.id}", headers={"Authorization": f"Bearer {check.token}"}
        )
        if response.status_code != 200 or response.json()["round_count"] != plan.long_rounds:
            raise BenchError(f"a long match did not come out right: {response.text[:300]}")
    return pools


def prefill(url: str, plan: Plan) -> dict[str, list[Match]]:
    """Create the matches the load is spread over and post their rounds, over HTTP."""

    async def bounded() -> dict[str, list[Match]]:
        return await asyncio.wait_for(_prefill(url, plan), PREFILL_TIMEOUT)

    return asyncio.run(bounded())


def prefill_match(url: str, rounds: int) -> Match:
    """One more match with ``rounds`` rounds, posted as prefill posts them."""

    async def one() -> Match:
        limits = httpx.Limits(
            max_connections=PREFILL_CONCURRENCY, keepalive_expiry=PREFILL_KEEPALIVE_S
        )
        gate = asyncio.Semaphore(PREFILL_CONCURRENCY)
        async with httpx.AsyncClient(base_url=url, timeout=60.0, limits=limits) as client:
            (match,) = await _create_matches(client, 1, gate)
            await _add_rounds(client, [(match, rounds)], gate)
            response = await client.get(
                f"/v1/matches/{match.id}", headers={"Authorization": f"Bearer {match.token}"}
            )
        if response.status_code != 200 or response.json()["round_count"] != rounds:
            raise BenchError(f"a {rounds}-round match came out wrong: {response.text[:300]}")
        return match

    async def bounded() -> Match:
        return await asyncio.wait_for(one(), PREFILL_TIMEOUT)

    return asyncio.run(bounded())


def write_pool(path: Path, matches: list[Match], rounds: int) -> Path:
    """The matches as a Lua table for bench/wrk/scenarios.lua."""
    lines = ["return {", f"  rounds = {rounds},", "  matches = {"]
    for match in matches:
        if not (SAFE_LUA_STRING.fullmatch(match.id) and SAFE_LUA_STRING.fullmatch(match.token)):
            raise BenchError(f"unexpected characters in a match id or token: {match.id}")
        lines.append(f'    {{"{match.id}", "{match.token}"}},')
    lines += ["  },", "}", ""]
    path.write_text("\n".join(lines))
    return path


# -- one database --------------------------------------------------------------------------


def app_fingerprint() -> str:
    """A hash of app/ as it is now: the app may change between runs (or sections)."""
    digest = hashlib.sha256()
    for path in sorted((ROOT / "app").rglob("*.py")):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def server_env(database_url: str) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "LOG_LEVEL": "warning",
        "RATE_LIMIT_MATCHES_PER_MINUTE": "0",
        # wrk's connections all come from one address: the limits would measure refusals.
        "RATE_LIMIT_READS_PER_MINUTE": "0",
        # The long-match rows write thousands of rounds to a few matches: the cap on a
        # match's rounds (409 match_full) is lifted so they measure cost, not the cap.
        "MAX_ROUNDS_PER_MATCH": "1000000",
        "PYTHONUNBUFFERED": "1",
    }


class Section:
    """The measurements of one database, and the verdicts on them."""

    def __init__(self, kind: str, title: str, plan: Plan, workdir: Path, env: dict[str, str]):
        self.kind, self.title, self.plan, self.workdir, self.env = kind, title, plan, workdir, env
        self.baseline: Measurement | None = None
        self.endpoints: dict[str, Measurement] = {}
        self.mix_runs: list[Measurement] = []
        self.low_load: dict[str, Measurement] = {}  # the endpoints at P99_CONNECTIONS
        self.flat: dict[str, Measurement] = {}
        self.flat_checks: list[dict[str, Any]] = []
        self.same_sql: dict[str, Measurement] = {}  # bench/same_sql_app.py (SQLite)
        self.scale: dict[str, Any] | None = None
        self.targets: list[dict[str, Any]] = []
        self.pools: dict[str, Path] = {}
        self.matches: dict[str, list[Match]] = {}  # the same pools, as prefilled
        self.final_rss: dict[str, int] = {}
        # the resilience scenarios (run_latency, run_stall, run_heavy_reads)
        self.latency: dict[str, Any] | None = None
        self.stall: dict[str, Any] | None = None
        self.heavy: dict[str, Any] | None = None
        # what a mechanism buys: the same measurement with it and without it (run_without)
        self.mechanisms: dict[str, dict[str, Any]] = {}
        self.app_fingerprint = app_fingerprint()  # the code the servers of this section load
        self.app_fingerprint_end = self.app_fingerprint  # app/ when the section ended

    def endpoint_rows(self) -> list[Measurement]:
        """The per-endpoint measurements in the order the table shows them, every mix run."""
        order = ("create_match", "post_round", "get_match", "get_sheet", "put_round")
        return [self.endpoints[name] for name in order if name in self.endpoints] + self.mix_runs

    def all_measurements(self) -> list[Measurement]:
        measured = [*self.endpoint_rows(), *self.low_load.values(), *self.flat.values()]
        measured += list(self.same_sql.values())
        if self.scale:
            measured += list(self.scale["measurements"].values())
        if self.latency:
            measured += list(self.latency["measurements"].values())
        if self.heavy:
            measured += [self.heavy["paging"], self.heavy["without_kept_states"]["paging"]]
            sheets = self.heavy["sheets"]
            measured += [sheets["reading"], sheets["without_kept_bodies"]["reading"]]
        for mechanism in self.mechanisms.values():
            measured += [m for m in (mechanism["with"], mechanism["without"]) if m not in measured]
        return measured

    def server(
        self, app: str, workers: int, probe: str, *, env: dict[str, str] | None = None
    ) -> Server:
        log = self.workdir / f"{self.kind}-{app.split(':')[0]}-w{workers}.log"
        return Server(app, workers, env or self.env, log, probe)

    def baseline_run(self, workers: int) -> Measurement:
        with self.server("bench.bare_app:app", workers, "/bare") as bare:
            run_wrk(bare.url, "bare", [], self.plan.connections, self.plan.warmup)  # warm-up
            return self.measure(
                bare,
                "bare",
                f"bare GET /bare, {workers} worker{'s' if workers > 1 else ''}",
                "GET /bare",
                "bare",
                [],
                [200],
            )

    def measure(
        self,
        server: Server,
        name: str,
        what: str,
        request: str,
        scenario: str,
        args: list[str],
        expected: list[int],
        *,
        connections: int | None = None,
        duration: int | None = None,
        network_pids: tuple[int, ...] = (),
    ) -> Measurement:
        return measure(
            server,
            name,
            what,
            request,
            scenario,
            args,
            connections=connections or self.plan.connections,
            duration=duration or self.plan.duration,
            expected=expected,
            with_db=self.kind == "postgresql",
            network_pids=network_pids,
        )


def run_section(section: Section) -> None:
    """Baseline, then every endpoint and the mix at 32 connections, the same endpoints at 8,
    and the flat-cost runs, on one database."""
    plan = section.plan
    progress(f"{section.kind}: baseline, {plan.workers} worker(s)")
    section.baseline = section.baseline_run(plan.workers)
    with section.server(APP, plan.workers, "/healthz") as server:
        progress(f"{section.kind}: prefilling matches over HTTP")
        started = time.monotonic()
        pools = section.matches = prefill(server.url, plan)
        progress(f"  prefill took {time.monotonic() - started:.1f} s")
        k, long_k = plan.pool_rounds, plan.long_rounds
        files = section.pools = {
            "main": write_pool(section.workdir / "main.lua", pools["main"], k),
            "low": write_pool(section.workdir / "low.lua", pools["low"], k),
            "short": write_pool(section.workdir / "short.lua", pools["short"], 1),
            "sheet": write_pool(section.workdir / "sheet.lua", pools["sheet"], plan.sheet_rows),
            "long": write_pool(section.workdir / "long.lua", pools["long"], long_k),
            "same_sql": write_pool(section.workdir / "same_sql.lua", pools["same_sql"], k),
        }
        main = str(files["main"])
        run_wrk(server.url, "get_match", [main], plan.connections, plan.warmup)  # warm-up
        progress(f"{section.kind}: endpoints, {plan.connections} connections")
        endpoints, section.mix_runs = measure_endpoints(
            section, server, main, plan.connections, plan.mix_runs
        )
        section.endpoints = {**endpoints, "mix": section.mix_runs[0]}
        progress(f"{section.kind}: endpoints, {P99_CONNECTIONS} connections (the p99 targets)")
        low, (low_mix,) = measure_endpoints(
            section, server, str(files["low"]), P99_CONNECTIONS, 1, suffix=f"_c{P99_CONNECTIONS}"
        )
        section.low_load = {**low, "mix": low_mix}
        run_flat(section, server)
    if section.kind == "sqlite":
        run_same_sql(section)


def run_without_gc_freeze(section: Section) -> None:
    """The mix at 8 connections on a fresh server, and on one that skips ``gc.freeze()``
    at start (``bench/without_gc_freeze.py``), each long enough for full garbage
    collections to come (every few seconds under load)."""
    plan = section.plan
    pool = str(section.pools["low"])
    duration = max(plan.duration, WITHOUT_MIN_DURATION)
    progress(f"{section.kind}: the mix with and without gc.freeze(), {P99_CONNECTIONS} connections")
    runs = {}
    for side, app in (("with", APP), ("without", WITHOUT_GC_FREEZE)):
        with section.server(app, 1, "/healthz") as server:
            run_wrk(server.url, "get_match", [pool], P99_CONNECTIONS, plan.warmup)  # warm-up
            runs[side] = section.measure(
                server,
                f"mix_gc_freeze_{side}",
                f"mix, {side} gc.freeze()",
                MIX_DESCRIPTION,
                "mix",
                [pool, str(plan.pool_rounds)],
                [200, 201],
                connections=P99_CONNECTIONS,
                duration=duration,
            )
    section.mechanisms["gc_freeze"] = {"what": f"the mix, {P99_CONNECTIONS} connections", **runs}


def run_same_sql(section: Section) -> None:
    """GET match and POST round on ``bench/same_sql_app.py``: the app's SQL on the same
    engine, with nothing else of the app around it. Its ratios to the bare endpoint are
    the most the app's could be on this stack (SQLite: on the event loop, as the app's)."""
    plan = section.plan
    pool = str(section.pools["same_sql"])
    progress(
        f"{section.kind}: the same SQL without the app (bench/same_sql_app.py), "
        f"{plan.connections} connections"
    )
    with section.server("bench.same_sql_app:app", plan.workers, "/healthz") as server:
        run_wrk(server.url, "get_match", [pool], plan.connections, plan.warmup)  # warm-up
        for op, request, status in (
            ("get_match", "GET /v1/matches/{id}", 200),
            ("post_round", "POST /v1/matches/{id}/rounds", 201),
        ):
            section.same_sql[op] = section.measure(
                server, f"same_sql_{op}", f"{op}, the same SQL only", request, op, [pool], [status]
            )


def measure_endpoints(
    section: Section,
    server: Server,
    pool: str,
    connections: int,
    mix_runs: int,
    *,
    suffix: str = "",
) -> tuple[dict[str, Measurement], list[Measurement]]:
    """Each endpoint on its own, then the mix ``mix_runs`` times, then create match: the
    endpoints by name, and the mix runs.

    The order matters for the writes: PUT corrects round K while it is still the last
    round, before POST round adds more. The mix runs are named ``mix_1``, ``mix_2``, ...
    (``mix`` when there is one); ``suffix`` is added to every name.
    """
    plan = section.plan
    n, k = plan.pool_matches, plan.pool_rounds
    rows = [
        ("get_match", f"GET match ({n} x {k} rounds)", "GET /v1/matches/{id}", [pool], [200]),
        ("get_sheet", f"GET sheet ({k} rows)", "GET /v1/matches/{id}/sheet", [pool], [200]),
        (
            "put_round",
            f"PUT round {k} (last) correction",
            f"PUT /v1/matches/{{id}}/rounds/{k}",
            [pool, str(k)],
            [200],
        ),
        ("post_round", f"POST round ({n} matches)", "POST /v1/matches/{id}/rounds", [pool], [201]),
    ]
    measured: dict[str, Measurement] = {}

    def one(
        name: str, scenario: str, what: str, request: str, args: list[str], ok: list[int]
    ) -> Measurement:
        measured[name] = section.measure(
            server,
            name + suffix,
            what,
            request,
            scenario,
            args,
            ok,
            connections=connections,
        )
        return measured[name]

    for scenario, what, request, args, ok in rows:
        one(scenario, scenario, what, request, args, ok)
    mix = [
        one(
            f"mix_{run}" if mix_runs > 1 else "mix",
            "mix",
            f"mix, run {run}/{mix_runs}" if mix_runs > 1 else "mix",
            MIX_DESCRIPTION,
            [pool, str(k)],
            [200, 201],
        )
        for run in range(1, mix_runs + 1)
    ]
    one("create_match", "create_match", "create match", "POST /v1/matches", [], [201])
    return {name: m for name, m in measured.items() if not name.startswith("mix")}, mix


@dataclass(frozen=True)
class Side:
    """One side of a flat-cost comparison: what to measure."""

    name: str
    what: str
    request: str
    scenario: str
    args: list[str]
    status: int
    connections: int | None = None  # None: the plan's


def run_flat(section: Section, server: Server) -> None:
    """The cost of each operation on a short and on a long match.

    Each comparison warms both sides for a second, then runs A, B, B, A at half the
    duration, and each side's req/s is its two runs together: the server's cost per
    request drifts by tens of percent over a minute on its own, and this order cancels a
    steady drift instead of charging it to whichever side came second.
    """
    plan, files = section.plan, section.pools
    long_k, rows, few = plan.long_rounds, plan.sheet_rows, plan.correction_connections
    short, sheet, long_, main = (str(files[k]) for k in ("short", "sheet", "long", "main"))
    match, sheet_path = "GET /v1/matches/{id}", "GET /v1/matches/{id}/sheet"
    post = "POST /v1/matches/{id}/rounds"
    progress(f"{section.kind}: flat cost, 1 / {rows} / {long_k} rounds, each pair A B B A")
    pairs = [
        (
            Side("get_match_short", "GET match, 1 round", match, "get_match", [short], 200),
            Side("get_match_long", f"GET match, {long_k} rounds", match, "get_match", [long_], 200),
        ),
        (
            Side(
                "get_sheet_short", f"GET sheet, {rows} rows", sheet_path, "get_sheet", [sheet], 200
            ),
            Side(
                "get_sheet_long", f"GET sheet, {long_k} rows", sheet_path, "get_sheet", [long_], 200
            ),
        ),
        (
            Side(
                "post_round_few", f"POST round, {few} conns", post, "post_round", [main], 201, few
            ),
            Side(
                "correction_long",
                f"PUT round 1 of {long_k}, {few} conns",
                "PUT /v1/matches/{id}/rounds/1",
                "put_round",
                [long_, "1"],
                200,
                few,
            ),
        ),
        (
            Side(
                "post_round_short", "POST round, 1-round matches", post, "post_round", [short], 201
            ),
            Side(
                "post_round_long",
                f"POST round, {long_k}-round matches",
                post,
                "post_round",
                [long_],
                201,
            ),
        ),
    ]
    half = max(1, plan.duration // 2)
    for first, second in pairs:
        for side in (first, second) if not plan.quick else ():  # the first writes cost more
            server.wait_idle()
            connections = side.connections or plan.connections
            run_wrk(server.url, side.scenario, side.args, connections, plan.warmup)
        for side, run in ((first, 1), (second, 1), (second, 2), (first, 2)):
            name = f"{side.name}_{run}"
            section.flat[name] = section.measure(
                server,
                name,
                f"{side.what} ({run})",
                side.request,
                side.scenario,
                side.args,
                [side.status],
                connections=side.connections,
                duration=half,
            )
    section.final_rss = server.rss()


def run_scale(section: Section, other_workers: int) -> None:
    """PostgreSQL: POST round (and the mix, for errors) with the other worker count.

    POST round with the run's own worker count is measured again just before and just
    after, on fresh servers over the same database: by this point of the run the
    database has taken thousands of writes (dead row versions, autovacuum), so the
    endpoint figure from the start of the run is no fair other side. The ratio is the
    other count's req/s over the mean of the two runs around it (A B A).
    """
    plan = section.plan
    progress(
        f"{section.kind}: scaling, {plan.workers} / {other_workers} / {plan.workers} worker(s)"
    )
    baseline = section.baseline_run(other_workers)
    main = str(section.pools["main"])

    def own_count(when: str) -> Measurement:
        with section.server(APP, plan.workers, "/healthz") as server:
            run_wrk(server.url, "get_match", [main], plan.connections, plan.warmup)  # warm-up
            return section.measure(
                server,
                f"post_round_w{plan.workers}_{when}",
                f"POST round, {plan.workers} worker(s), {when}",
                "POST /v1/matches/{id}/rounds",
                "post_round",
                [main],
                [201],
            )

    before = own_count("before")
    with section.server(APP, other_workers, "/healthz") as server:
        run_wrk(server.url, "get_match", [main], plan.connections, plan.warmup)  # warm-up
        post = section.measure(
            server,
            f"post_round_w{other_workers}",
            f"POST round, {other_workers} worker(s)",
            "POST /v1/matches/{id}/rounds",
            "post_round",
            [main],
            [201],
        )
        mix = section.measure(
            server,
            f"mix_w{other_workers}",
            f"mix, {other_workers} worker(s)",
            MIX_DESCRIPTION,
            "mix",
            [main, str(plan.pool_rounds)],
            [200, 201],
        )
    after = own_count("after")
    for each in (baseline, post, mix):
        each.ratio_to_bare = _ratio(each.rps, baseline.rps)
    assert section.baseline is not None
    for each in (before, after):
        each.ratio_to_bare = _ratio(each.rps, section.baseline.rps)
    own_rps = (before.rps + after.rps) / 2
    by_workers = {
        plan.workers: (own_rps, section.baseline.rps),
        other_workers: (post.rps, baseline.rps),
    }
    low, high = min(by_workers), max(by_workers)
    (one, bare_one), (two, bare_two) = by_workers[low], by_workers[high]
    section.scale = {
        "workers": [low, high],
        "post_round_ratio": _ratio(two, one),
        "bare_ratio": _ratio(bare_two, bare_one),
        "measurements": {
            "post_round_before": before,
            "bare": baseline,
            "post_round": post,
            "mix": mix,
            "post_round_after": after,
        },
    }


# -- resilience ----------------------------------------------------------------------------


def percentile(ordered: Sequence[float], percent: float) -> float:
    """Nearest rank: the smallest of the (sorted, not empty) values with at least
    ``percent``% of them at or below it."""
    return ordered[max(0, min(len(ordered) - 1, math.ceil(percent / 100 * len(ordered)) - 1))]


@dataclass
class Probe:
    """A request sent at a steady rate while something else goes on.

    Open loop: each request goes out on schedule whether or not the earlier ones were
    answered, so a server that stalls shows as slow requests, not as fewer of them.
    """

    name: str
    request: str  # what the table shows
    path: str
    headers: dict[str, str]
    latencies_ms: list[float] = field(default_factory=list)  # until answered, or failed
    statuses: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)  # no answer, by exception

    def percentile(self, percent: float) -> float | None:
        return percentile(sorted(self.latencies_ms), percent) if self.latencies_ms else None

    @property
    def all_ok(self) -> bool:
        return not self.errors and set(self.statuses) <= {"200"}

    def to_json(self) -> dict[str, Any]:
        return {
            "request": self.request,
            "rate_per_s": PROBE_RATE,
            "sent": len(self.latencies_ms),
            "p50_ms": self.percentile(50),
            "p99_ms": self.percentile(99),
            "max_ms": max(self.latencies_ms, default=None),
            "statuses": self.statuses,
            "errors": self.errors,
        }


def probes_for(match: Match) -> list[Probe]:
    """GET /healthz, and GET of a match nothing else touches meanwhile."""
    auth = {"Authorization": f"Bearer {match.token}"}
    return [
        Probe("healthz", "GET /healthz", "/healthz", {}),
        Probe("get_match", "GET /v1/matches/{id}", f"/v1/matches/{match.id}", auth),
    ]


@asynccontextmanager
async def probe_client(url: str) -> AsyncIterator[httpx.AsyncClient]:
    """A client for the probes, with PROBE_CONNECTIONS keep-alive connections open: a
    stalled request holds one, and opening more would add the server's accepts to the
    latencies."""
    limits = httpx.Limits(max_connections=256, max_keepalive_connections=PROBE_CONNECTIONS)
    async with httpx.AsyncClient(base_url=url, timeout=PROBE_TIMEOUT, limits=limits) as client:
        await asyncio.gather(*(client.get("/healthz") for _ in range(PROBE_CONNECTIONS)))
        yield client


async def run_probes(client: httpx.AsyncClient, probes: list[Probe], seconds: float) -> None:
    """Each probe's request PROBE_RATE times a second for ``seconds``, interleaved."""
    loop = asyncio.get_running_loop()

    async def one(probe: Probe) -> None:
        started = loop.time()
        try:
            response = await client.get(probe.path, headers=probe.headers)
        except httpx.HTTPError as error:
            kind = type(error).__name__
            probe.errors[kind] = probe.errors.get(kind, 0) + 1
        else:
            status = str(response.status_code)
            probe.statuses[status] = probe.statuses.get(status, 0) + 1
        probe.latencies_ms.append((loop.time() - started) * 1000)

    start, tasks = loop.time(), []
    for k in range(int(seconds * PROBE_RATE) * len(probes)):
        await asyncio.sleep(max(0.0, start + k / PROBE_RATE / len(probes) - loop.time()))
        tasks.append(asyncio.create_task(one(probes[k % len(probes)])))
    await asyncio.gather(*tasks)


@contextmanager
def latency_proxy(database_url: str, one_way_ms: float, log: Path) -> Iterator[tuple[str, int]]:
    """bench/latency_proxy.py in front of the database: the URL through it, and its pid."""
    url = make_url(database_url)
    command = [sys.executable, "-m", "bench.latency_proxy", "--delay-ms", f"{one_way_ms:g}"]
    command += ["--upstream", f"{url.host or HOST}:{url.port or 5432}"]
    with log.open("ab") as errors:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
            start_new_session=True,
        )
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], PROXY_START_TIMEOUT)
        line = process.stdout.readline().decode() if ready else ""
        if not (found := re.fullmatch(r"listening on [\d.]+:(\d+)\s*", line)):
            raise BenchError(f"the latency proxy did not start ({line!r}); see {log}")
        port = int(found[1])
        yield url.set(host=HOST, port=port).render_as_string(hide_password=False), process.pid
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=SERVER_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=SERVER_STOP_TIMEOUT)
        if process.stdout is not None:
            process.stdout.close()


def run_latency(section: Section) -> None:
    """PostgreSQL a few milliseconds away: POST round and GET match with every round trip
    to the database through bench/latency_proxy.py, over the same on loopback, measured
    just before on a fresh server; both 1 worker, 32 connections, the same database."""
    plan, connections = section.plan, LATENCY_CONNECTIONS
    database_url, main = section.env["DATABASE_URL"], str(section.pools["main"])
    added = plan.pg_latency_ms
    progress(f"{section.kind}: latency, +{added:g} ms per round trip to PostgreSQL")
    runs: dict[str, Measurement] = {}
    with latency_proxy(database_url, added / 2, section.workdir / "latency-proxy.log") as (
        proxied_url,
        proxy_pid,
    ):
        rtt = {"direct": query_rtt_ms(database_url), "proxied": query_rtt_ms(proxied_url)}
        progress(
            f"  SELECT 1 round trip: direct {rtt['direct']:.2f} ms, "
            f"through the proxy {rtt['proxied']:.2f} ms"
        )
        for where, url, network in (
            ("loopback", database_url, ()),
            (f"+{added:g} ms RTT", proxied_url, (proxy_pid,)),
        ):
            side = "loopback" if not network else "proxied"
            env = {**section.env, "DATABASE_URL": url}
            with section.server(APP, 1, "/healthz", env=env) as server:
                run_wrk(server.url, "get_match", [main], connections, plan.warmup)  # warm-up
                for op, what, request, status in (
                    ("get_match", "GET match", "GET /v1/matches/{id}", 200),
                    ("post_round", "POST round", "POST /v1/matches/{id}/rounds", 201),
                ):
                    runs[f"{op}_{side}"] = section.measure(
                        server,
                        f"{op}_{side}",
                        f"{what}, {where}",
                        request,
                        op,
                        [main],
                        [status],
                        connections=connections,
                        network_pids=network,
                    )
        # Without the one statement of a change: each of its rows a round trip.
        env = {**section.env, "DATABASE_URL": proxied_url}
        with section.server(WITHOUT_ONE_STATEMENT_CHANGE, 1, "/healthz", env=env) as server:
            run_wrk(server.url, "get_match", [main], connections, plan.warmup)  # warm-up
            runs["post_round_proxied_without"] = section.measure(
                server,
                "post_round_proxied_without",
                f"POST round, +{added:g} ms RTT, a change statement by statement",
                "POST /v1/matches/{id}/rounds",
                "post_round",
                [main],
                [201],
                connections=connections,
                network_pids=(proxy_pid,),
            )
    section.mechanisms["one_statement_change"] = {
        "what": f"POST round with +{added:g} ms per round trip to PostgreSQL",
        "with": runs["post_round_proxied"],
        "without": runs.pop("post_round_proxied_without"),
    }
    section.latency = {
        "added_rtt_ms": added,
        "select_1_rtt_ms": rtt,
        "workers": 1,
        "connections": connections,
        "ratios": {
            op: _ratio(runs[f"{op}_proxied"].rps, runs[f"{op}_loopback"].rps)
            for op in ("post_round", "get_match")
        },
        "measurements": runs,
    }


def hold_write_lock(
    path: Path, seconds: float, held: threading.Event, at: dict[str, float]
) -> None:
    """Another connection's write transaction: SQLite's write lock, held ``seconds``."""
    db = sqlite3.connect(path, isolation_level=None, timeout=30)
    try:
        db.execute("BEGIN IMMEDIATE")
        at["locked"] = time.monotonic()
        held.set()
        time.sleep(seconds)
        db.execute("ROLLBACK")
        at["released"] = time.monotonic()
    finally:
        db.close()
        held.set()  # the waiter wakes up even when BEGIN failed


async def _locked(
    url: str, path: Path, seconds: float, probes: list[Probe], match: Match
) -> dict[str, Any]:
    """The probes while the write lock is held, and a POST round sent into the lock."""
    held, at = threading.Event(), dict[str, float]()
    holder = threading.Thread(target=hold_write_lock, args=(path, seconds, held, at), daemon=True)
    async with probe_client(url) as client:
        holder.start()
        if not await asyncio.to_thread(held.wait, 30) or "locked" not in at:
            raise BenchError(f"could not take the write lock of {path}")

        async def post_round() -> dict[str, Any]:
            await asyncio.sleep(POST_INTO_LOCK)
            sent, status, detail = time.monotonic(), None, ""
            try:
                response = await client.post(
                    f"/v1/matches/{match.id}/rounds",
                    json=round_body(0),
                    headers={"Authorization": f"Bearer {match.token}"},
                )
                status, detail = response.status_code, response.text[:300]
            except httpx.HTTPError as error:
                detail = type(error).__name__
            answered = time.monotonic()
            return {"sent_s": sent, "answered_s": answered, "status": status, "detail": detail}

        posting = asyncio.create_task(post_round())
        await run_probes(client, probes, seconds - (time.monotonic() - at["locked"]))
        post = await posting
    await asyncio.to_thread(holder.join, seconds + 30)
    # seconds since the lock was taken
    post["sent_s"] -= at["locked"]
    post["answered_s"] -= at["locked"]
    post["lock_held_s"] = at["released"] - at["locked"] if "released" in at else None
    return post


def run_stall(section: Section) -> None:
    """SQLite, 1 worker: GET /healthz and GET match while another connection holds the
    write lock, and what a POST round sent into the lock gets."""
    plan = section.plan
    path = Path(make_url(section.env["DATABASE_URL"]).database or "")
    other, written = section.matches["main"][:2]
    probes = probes_for(other)
    progress(f"{section.kind}: no stall, the write lock held {plan.lock_seconds:g} s elsewhere")
    with section.server(APP, 1, "/healthz") as server:
        main = str(section.pools["main"])
        run_wrk(server.url, "get_match", [main], plan.connections, plan.warmup)  # warm-up
        server.wait_idle()
        post = asyncio.run(_locked(server.url, path, plan.lock_seconds, probes, written))
        rss = server.rss()
    section.stall = {
        "lock_seconds": plan.lock_seconds,
        "probes": probes,
        "post_round": post,
        "rss_kib": rss,
    }
    for probe in probes:
        progress(f"  {probe.name:<22} p99 {probe.percentile(99) or 0:>8.1f} ms {probe.statuses}")
    progress(f"  {post_during_lock_text(post)}")


def post_during_lock_text(post: dict[str, Any]) -> str:
    answered, held = post["answered_s"], post["lock_held_s"]
    when = (
        ""
        if held is None
        else f", {answered - held:.2f} s after the lock was released"
        if answered >= held
        else f", {held - answered:.2f} s before the lock was released"
    )
    return (
        f"POST round sent {post['sent_s']:.2f} s into the lock: {post['status'] or 'no answer'} "
        f"after {(answered - post['sent_s']) * 1000:,.0f} ms{when}"
        + ("" if post["status"] == 201 else f" ({post['detail'][:120]})")
    )


def connection_memory(server: Server, count: int = OPEN_CONNECTIONS) -> dict[str, Any]:
    """How much a 1-worker server's RSS grows with ``count`` idle keep-alive connections."""
    server.wait_idle()
    (pid,) = server.worker_pids()
    before = rss_kib(pid)
    request = f"GET /healthz HTTP/1.1\r\nHost: {HOST}:{server.port}\r\n\r\n".encode()
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            sockets.append(socket.create_connection((HOST, server.port), timeout=10))
            sockets[-1].sendall(request)
        answered = sum(sock.recv(4096).startswith(b"HTTP/1.1 200") for sock in sockets)
        time.sleep(0.2)
        with_open = rss_kib(pid)
    except OSError as error:
        raise BenchError(f"{count} open connections: {error}") from error
    finally:
        for sock in sockets:
            sock.close()
    if answered != count:
        raise BenchError(f"{count - answered} of {count} open connections got no 200")
    return {
        "connections": count,
        "rss_kib_before": before,
        "rss_kib_open": with_open,
        "kib_per_connection": (with_open - before) / count,
    }


def forget_kept_states(database_url: str, match_id: str) -> None:
    """Clear the fold states a match's rounds keep (``round.sheet``)."""
    engine = create_engine(database_url)
    try:
        with engine.begin() as connection:
            connection.execute(
                text("UPDATE round SET sheet = NULL WHERE match_id = :m"), {"m": match_id}
            )
    finally:
        engine.dispose()


def run_heavy_reads(section: Section) -> None:
    """1 worker: the memory of an open connection; then GET /healthz and GET match while
    4 clients page through a 5,000-round match, and the worker's RSS before and after; then
    the same probes while 32 clients read that match's sheet."""
    plan, rounds = section.plan, section.plan.heavy_rounds
    with section.server(APP, 1, "/healthz") as server:
        if "main" not in section.matches:  # --only-heavy-reads: a match to probe
            section.matches["main"] = [prefill_match(server.url, 1)]
        idle = server.rss()
        # first: a worker that has served more has freed memory that new connections reuse
        memory = connection_memory(server)
        progress(f"{section.kind}: heavy reads, prefilling a {rounds}-round match")
        started = time.monotonic()
        heavy = prefill_match(server.url, rounds)
        progress(f"  prefill took {time.monotonic() - started:.1f} s")
        pool = write_pool(section.workdir / "heavy.lua", [heavy], rounds)
        probes = probes_for(section.matches["main"][0])
        server.wait_idle()
        before = server.rss()

        async def paging_and_probes(name: str, probes: list[Probe]) -> Measurement:
            paging = asyncio.create_task(
                asyncio.to_thread(
                    section.measure,
                    server,
                    name,
                    f"{PAGING_CLIENTS} clients paging {rounds} rounds",
                    f"GET /v1/matches/{{id}}/rounds?limit={PAGE_LIMIT}, following next",
                    "page_rounds",
                    [str(pool), str(PAGE_LIMIT)],
                    [200],
                    connections=PAGING_CLIENTS,
                    duration=plan.duration + 2,
                )
            )
            async with probe_client(server.url) as client:
                await asyncio.sleep(1.0)  # wrk starts once the server is idle (>= 0.25 s)
                await run_probes(client, probes, plan.duration)
            return await paging

        paging = asyncio.run(paging_and_probes("page_rounds", probes))
        after = server.rss()

        async def sheets_and_probes(
            server: Server, name: str, probes: list[Probe], expected: list[int]
        ) -> Measurement:
            reading = asyncio.create_task(
                asyncio.to_thread(
                    section.measure,
                    server,
                    name,
                    f"{SHEET_READERS} clients reading a {rounds}-round sheet",
                    "GET /v1/matches/{id}/sheet",
                    "get_sheet",
                    [str(pool)],
                    expected,
                    connections=SHEET_READERS,
                    duration=plan.duration + 2,
                )
            )
            async with probe_client(server.url) as client:
                await asyncio.sleep(1.0)  # wrk starts once the server is idle (>= 0.25 s)
                await run_probes(client, probes, plan.duration)
            return await reading

        sheet_probes = probes_for(section.matches["main"][0])
        server.wait_idle()
        sheets = asyncio.run(sheets_and_probes(server, "read_sheets", sheet_probes, [200]))
        # The same again once the match's rounds keep no fold state (round.sheet, as
        # rounds entered before migration 0008): each page folds every round before it.
        forget_kept_states(section.env["DATABASE_URL"], heavy.id)
        unkept_probes = probes_for(section.matches["main"][0])
        server.wait_idle()
        unkept = asyncio.run(paging_and_probes("page_rounds_unkept", unkept_probes))
    # The same on a server that keeps no rendered body (READ_CACHE_BYTES=0): each read
    # renders the sheet again, as before issue #40. Reads that wait past the database
    # turn's timeout are answered 503 then: that is what the mechanism spares.
    unkept_env = {**section.env, "READ_CACHE_BYTES": "0"}
    with section.server(APP, 1, "/healthz", env=unkept_env) as server:
        unkept_sheet_probes = probes_for(section.matches["main"][0])
        server.wait_idle()
        unkept_sheets = asyncio.run(
            sheets_and_probes(server, "read_sheets_unkept", unkept_sheet_probes, [200, 503])
        )
    section.heavy = {
        "rounds": rounds,
        "page_limit": PAGE_LIMIT,
        "clients": PAGING_CLIENTS,
        "paging": paging,
        "probes": probes,
        "rss_kib": {"idle": idle, "before": before, "after": after},
        "connection_memory": memory,
        "without_kept_states": {"paging": unkept, "probes": unkept_probes},
        "sheets": {
            "clients": SHEET_READERS,
            "reading": sheets,
            "probes": sheet_probes,
            "without_kept_bodies": {"reading": unkept_sheets, "probes": unkept_sheet_probes},
        },
    }
    section.mechanisms["kept_fold_states"] = {
        "what": f"{PAGING_CLIENTS} clients paging a {rounds}-round match",
        "with": paging,
        "without": unkept,
    }
    section.mechanisms["kept_bodies"] = {
        "what": f"{SHEET_READERS} clients reading a {rounds}-round sheet",
        "with": sheets,
        "without": unkept_sheets,
    }
    for probe in probes:
        progress(f"  {probe.name:<22} p99 {probe.percentile(99) or 0:>8.1f} ms {probe.statuses}")
    for title, each in (("", sheet_probes), (" (no kept bodies)", unkept_sheet_probes)):
        progress(f"  while {SHEET_READERS} clients read the sheet{title}:")
        for probe in each:
            progress(
                f"  {probe.name:<22} p99 {probe.percentile(99) or 0:>8.1f} ms {probe.statuses}"
            )
    progress("  without the kept fold states:")
    for probe in unkept_probes:
        progress(f"  {probe.name:<22} p99 {probe.percentile(99) or 0:>8.1f} ms {probe.statuses}")
    progress(
        f"  worker RSS {sum(before.values()) / 1024:.1f} → {sum(after.values()) / 1024:.1f} MiB; "
        f"{memory['kib_per_connection']:.1f} KiB per open connection"
    )


# -- verdicts ------------------------------------------------------------------------------


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _within(ratio: float | None) -> bool:
    return ratio is not None and FLAT_LOW <= ratio <= FLAT_HIGH


def judge(section: Section) -> None:
    """Ratios to the baseline, the flat-cost checks and every target, PASS or MISS."""
    plan, bare = section.plan, section.baseline
    assert bare is not None
    for each in [
        bare,
        *section.endpoint_rows(),
        *section.flat.values(),
        *section.same_sql.values(),
    ]:
        each.ratio_to_bare = _ratio(each.rps, bare.rps)
    targets = section.targets

    def target(
        name: str,
        value: float | None,
        goal: str,
        ok: bool | None,
        unit: str = "",
        *,
        basis: list[Measurement],
    ) -> None:
        """A target; ``basis``: the measurements its value comes from."""
        disturbed = any(m.disturbed for m in basis)
        targets.append(
            {"name": name, "value": value, "target": goal, "pass": ok, "unit": unit}
            | {"disturbed": disturbed}
        )

    endpoints = section.endpoints
    note = "" if plan.workers == 1 and plan.connections == 32 else " (set: 1 worker, 32 conns)"
    for op, label in (("post_round", "POST round"), ("get_match", "GET match")):
        if op not in section.same_sql:
            continue
        ratio = _ratio(endpoints[op].rps, section.same_sql[op].rps)
        target(
            f"{label} / the same SQL alone, {plan.connections} connections{note}",
            ratio,
            f">= {TARGET_SAME_SQL:.2f}",
            ratio is not None and ratio >= TARGET_SAME_SQL,
            basis=[endpoints[op], section.same_sql[op]],
        )
    low_note = "" if plan.workers == 1 else " (set for 1 worker)"
    for name, each in section.low_load.items():
        p99 = each.latency_ms["p99"]
        target(
            f"p99 {name}, {each.connections} connections{low_note}",
            p99,
            f"< {TARGET_P99_MS:.0f} ms",
            p99 < TARGET_P99_MS,
            "ms",
            basis=[each],
        )
    flat, long_k = section.flat, plan.long_rounds

    def both(name: str) -> tuple[float, list[Measurement]]:
        """A flat-cost side: req/s over its two runs together, and the runs."""
        runs = [flat[f"{name}_1"], flat[f"{name}_2"]]
        seconds = sum(run.duration_s for run in runs)
        return (sum(run.requests for run in runs) / seconds if seconds else 0.0), runs

    for op, short_matches in (("post_round", plan.short_matches), ("get_match", None)):
        (short, short_runs), (long_, long_runs) = both(f"{op}_short"), both(f"{op}_long")
        r = _ratio(long_, short)
        if short_matches is None:
            lengths = f"{long_k} vs 1 round"
        else:  # the matches grow while they are written to: say by how much
            grown_short = 1 + sum(run.requests for run in short_runs) // short_matches
            grown_long = long_k + sum(run.requests for run in long_runs) // plan.long_matches
            lengths = f"{long_k}→{grown_long} vs 1→{grown_short} rounds"
        label = f"{op} req/s, {lengths}"
        section.flat_checks.append(
            {"name": label, "short": short, "long": long_, "unit": "req/s", "ratio": r}
        )
        goal = f"{FLAT_LOW:.2f}-{FLAT_HIGH:.2f}"
        target(f"flat: {label}", r, goal, _within(r), basis=short_runs + long_runs)
    (s_short, s_short_runs), (s_long, s_long_runs) = both("get_sheet_short"), both("get_sheet_long")
    per_row_short = 1e6 / s_short / plan.sheet_rows if s_short else None
    per_row_long = 1e6 / s_long / long_k if s_long else None
    sheet_ratio = _ratio(per_row_long, per_row_short)
    sheet_label = f"GET sheet time per row, {long_k} vs {plan.sheet_rows} rows"
    section.flat_checks.append(
        {
            "name": sheet_label,
            "short": per_row_short,
            "long": per_row_long,
            "unit": "µs/row",
            "ratio": sheet_ratio,
        }
    )
    target(
        f"flat: {sheet_label}",
        sheet_ratio,
        f"<= {TARGET_SHEET_PER_ROW:.2f} (no worse than linear)",
        sheet_ratio is not None and sheet_ratio <= TARGET_SHEET_PER_ROW,
        basis=s_short_runs + s_long_runs,
    )
    (plain, plain_runs), (corr, corr_runs) = both("post_round_few"), both("correction_long")
    correction = _ratio(plain, corr)  # time per correction over time per POST round
    section.flat_checks.append(
        {
            "name": f"correction of round 1 of {long_k} vs POST round, time per request",
            "short": 1e3 / plain if plain else None,
            "long": 1e3 / corr if corr else None,
            "unit": "ms/req",
            "ratio": correction,
            "connections": plan.correction_connections,
            # the worse of the two runs
            "p50_ms": {
                "post_round": max(run.latency_ms["p50"] for run in plain_runs),
                "correction": max(run.latency_ms["p50"] for run in corr_runs),
            },
            "p99_ms": {
                "post_round": max(run.latency_ms["p99"] for run in plain_runs),
                "correction": max(run.latency_ms["p99"] for run in corr_runs),
            },
        }
    )
    target(
        f"flat: correction of round 1 of {long_k} / POST round",
        correction,
        f"< {TARGET_CORRECTION:.0f}x",
        correction is not None and correction < TARGET_CORRECTION,
        "x",
        basis=plain_runs + corr_runs,
    )
    rss = [run.rss_total_kib for run in section.mix_runs]
    growth = (rss[2] - rss[1]) / rss[1] if len(rss) >= 3 and rss[1] else None
    target(
        "memory: RSS growth, mix run 2 → 3",
        growth,
        f"<= {TARGET_LEAK:.0%}",
        growth is not None and growth <= TARGET_LEAK,
        "%",
        basis=[],  # memory does not depend on the CPU left over
    )
    # The scaling runs (PostgreSQL) are information, not a target since issue #11; their
    # responses count in the last target, every response as expected.
    if (latency := section.latency) is not None:
        runs = latency["measurements"]
        for op, label in (("post_round", "POST round"), ("get_match", "GET match")):
            ratio = latency["ratios"][op]
            target(
                f"+{latency['added_rtt_ms']:g} ms to PostgreSQL: {label} / loopback",
                ratio,
                f">= {TARGET_LATENCY_RATIO:.2f}",
                ratio is not None and ratio >= TARGET_LATENCY_RATIO,
                basis=[runs[f"{op}_loopback"], runs[f"{op}_proxied"]],
            )
    judge_probes(section)
    unclean = [m.name for m in [bare, *section.all_measurements()] if not m.clean]
    target(
        "every response as expected, no socket errors",
        float(len(unclean)),
        "0 measurements with errors",
        not unclean,
        basis=[],
    )


def judge_probes(section: Section) -> None:
    """The targets on the probes: while SQLite is locked, while clients page through a
    long match and while they read its sheet."""
    plan = section.plan
    heavy = section.heavy
    # (the scenario, what went on meanwhile, the measurements it rests on, the p99 goal)
    scenarios: list[tuple[dict[str, Any] | None, str, list[Measurement], float]] = [
        (section.stall, f"SQLite locked {plan.lock_seconds:g} s", [], TARGET_PROBE_P99_MS)
    ]
    if heavy is not None:
        paging, sheets = heavy["paging"], heavy["sheets"]
        scenarios += [
            (heavy, f"{PAGING_CLIENTS} clients paging", [paging], TARGET_PROBE_P99_MS),
            (
                sheets,
                f"{SHEET_READERS} clients reading a {heavy['rounds']}-round sheet",
                [sheets["reading"]],
                TARGET_SHEET_PROBE_P99_MS,
            ),
        ]
    for scenario, during, basis, goal in scenarios:
        if scenario is None:
            continue
        for probe in scenario["probes"]:
            p99 = probe.percentile(99)
            section.targets.append(
                {
                    "name": f"p99 {probe.request}, {during}, all 200",
                    "value": p99,
                    "target": f"< {goal:.0f} ms",
                    "pass": p99 is not None and p99 < goal and probe.all_ok,
                    "unit": "ms",
                    "disturbed": any(m.disturbed for m in basis),
                }
            )


# -- output --------------------------------------------------------------------------------


def figure(value: float | None, digits: int = 0) -> str:
    """A figure for a report: thousands separated, ``-`` when there is none."""
    return "-" if value is None else f"{value:,.{digits}f}"


def _ms_text(value: float) -> str:
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def _rss_text(rss: dict[str, int]) -> str:
    total = sum(rss.values()) / 1024
    if len(rss) <= 1:
        return f"{total:.1f}"
    return f"{total:.1f} (" + "+".join(f"{v / 1024:.0f}" for v in rss.values()) + ")"


def table_rows(measurements: list[Measurement], with_db: bool) -> list[str]:
    header = (
        f"{'what':<34}{'conns':>6}{'req/s':>9}{'x bare':>8}{'p50 ms':>8}{'p99 ms':>8}"
        f"{'non-2xx':>8}{'sock err':>9}{'app µs/req':>11}"
        + (f"{'db µs/req':>10}" if with_db else "")
        + f"{'wrk cpu':>8}{'other':>7}  RSS MiB (per worker)"
    )
    lines = [header, "-" * len(header)]
    for m in measurements:
        errors = sum(m.socket_errors.values())
        flag = ("" if m.clean else "  <- UNEXPECTED") + ("  <- disturbed" if m.disturbed else "")
        lines.append(
            f"{m.what:<34}{m.connections:>6}{figure(m.rps):>9}{figure(m.ratio_to_bare, 2):>8}"
            f"{_ms_text(m.latency_ms['p50']):>8}{_ms_text(m.latency_ms['p99']):>8}"
            f"{m.non_2xx:>8}{errors:>9}{figure(m.server_cpu_us_per_request):>11}"
            + (f"{figure(m.db_cpu_us_per_request):>10}" if with_db else "")
            + f"{m.wrk_cores:>7.0%}{m.other_cores:>7.0%}  {_rss_text(m.rss_kib)}{flag}"
        )
    return lines


def p99_rows(section: Section) -> list[str]:
    """Each endpoint's p99 at the two connection counts side by side."""
    low, high = P99_CONNECTIONS, section.plan.connections
    lines = [f"{'p99 ms':<34}{f'{low} conns':>10}{f'{high} conns':>10}"]
    for name, each in section.low_load.items():
        loaded = section.endpoints.get(name)
        lines.append(
            f"  {name:<32}{_ms_text(each.latency_ms['p99']):>10}"
            f"{_ms_text(loaded.latency_ms['p99']) if loaded else '-':>10}"
        )
    return lines


def probe_rows(probes: list[Probe]) -> list[str]:
    header = (
        f"{'request (open loop, ' + f'{PROBE_RATE:.0f}/s each)':<34}{'sent':>6}{'p50 ms':>8}"
        f"{'p99 ms':>8}{'max ms':>8}  statuses, errors"
    )
    lines = [header, "-" * len(header)]
    for probe in probes:
        answers = ", ".join(f"{n} x {code}" for code, n in sorted(probe.statuses.items()))
        failures = ", ".join(f"{n} x {kind}" for kind, n in sorted(probe.errors.items()))
        lines.append(
            f"{probe.request:<34}{len(probe.latencies_ms):>6}"
            + "".join(
                f"{_ms_text(v) if v is not None else '-':>8}"
                for v in (
                    probe.percentile(50),
                    probe.percentile(99),
                    max(probe.latencies_ms, default=None),
                )
            )
            + f"  {'; '.join(filter(None, (answers, failures)))}"
        )
    return lines


def resilience_report(section: Section, with_db: bool) -> list[str]:
    """The latency, stall and heavy-read scenarios, where they ran."""
    out: list[str] = []
    if (latency := section.latency) is not None:
        rtt, ratios = latency["select_1_rtt_ms"], latency["ratios"]
        out += [
            "",
            f"Latency to PostgreSQL: +{latency['added_rtt_ms']:g} ms per round trip through "
            f"bench/latency_proxy.py (SELECT 1: direct {rtt['direct']:.2f} ms, through the "
            f"proxy {rtt['proxied']:.2f} ms); fresh servers, 1 worker, "
            f"{latency['connections']} connections:",
            *table_rows(list(latency["measurements"].values()), with_db),
            f"through the proxy / loopback: POST round {figure(ratios['post_round'], 2)}, "
            f"GET match {figure(ratios['get_match'], 2)}",
        ]
    if (stall := section.stall) is not None:
        out += [
            "",
            f"No stall: another connection holds SQLite's write lock for "
            f"{stall['lock_seconds']:g} s (BEGIN IMMEDIATE); a fresh server, 1 worker:",
            *probe_rows(stall["probes"]),
            post_during_lock_text(stall["post_round"]),
        ]
    if (heavy := section.heavy) is not None:
        rss, memory = heavy["rss_kib"], heavy["connection_memory"]
        sent = heavy["paging"].sent
        out += [
            "",
            f"Heavy reads: {heavy['clients']} clients page through a {heavy['rounds']}-round "
            f"match (?limit={heavy['page_limit']}, following next); a fresh server, 1 worker:",
            *table_rows([heavy["paging"]], with_db),
            f"pages: {sent.get('first_page', 0):,} first, {sent.get('next_page', 0):,} next"
            + ("" if sent.get("next_page") else " (no next link: every round in one answer)"),
            *probe_rows(heavy["probes"]),
            "the same once the match's rounds keep no fold state (each page folds every "
            "round before it):",
            *table_rows([heavy["without_kept_states"]["paging"]], with_db),
            *probe_rows(heavy["without_kept_states"]["probes"]),
            f"{heavy['sheets']['clients']} clients read the same match's sheet (GET …/sheet, "
            "the same version each time):",
            *table_rows([heavy["sheets"]["reading"]], with_db),
            *probe_rows(heavy["sheets"]["probes"]),
            "the same on a server that keeps no rendered body (READ_CACHE_BYTES=0):",
            *table_rows([heavy["sheets"]["without_kept_bodies"]["reading"]], with_db),
            *probe_rows(heavy["sheets"]["without_kept_bodies"]["probes"]),
            f"worker RSS: {_rss_text(rss['idle'])} MiB when started, "
            f"{_rss_text(rss['before'])} after the prefill, {_rss_text(rss['after'])} after "
            "the paging",
            f"open connections: {memory['connections']} idle keep-alive ones, just after the "
            f"start, took {(memory['rss_kib_open'] - memory['rss_kib_before']) / 1024:.1f} MiB: "
            f"{memory['kib_per_connection']:.1f} KiB each",
        ]
    return out


def mechanism_rows(section: Section) -> list[str]:
    """What each mechanism buys: p50 and p99 with it and without it, in this run."""
    if not section.mechanisms:
        return []
    out = [
        "",
        "What a mechanism buys: the same measurement with it and without it, in this run:",
        f"{'mechanism':<22} {'measurement':<52} {'p50 with/without ms':>20} "
        f"{'p99 with/without ms':>20} {'req/s with/without':>20}",
    ]
    for name, runs in section.mechanisms.items():
        p50, p99, rps = with_and_without(runs["with"].to_json(), runs["without"].to_json())
        out.append(f"{name:<22} {runs['what']:<52} {p50:>20} {p99:>20} {rps:>20}")
    return out


def with_and_without(with_: dict[str, Any], without: dict[str, Any]) -> tuple[str, str, str]:
    """p50, p99 and req/s of a mechanism's two measurements (as in the JSON), each as
    "with / without"."""
    return (
        f"{with_['latency_ms']['p50']:.1f} / {without['latency_ms']['p50']:.1f}",
        f"{with_['latency_ms']['p99']:.1f} / {without['latency_ms']['p99']:.1f}",
        f"{with_['rps']:,.0f} / {without['rps']:,.0f}",
    )


def report(section: Section) -> str:
    plan, bare = section.plan, section.baseline
    assert bare is not None
    with_db = section.kind == "postgresql"
    workers = f"{plan.workers} worker{'s' if plan.workers > 1 else ''}"
    out = [
        "",
        f"=== {section.title} · {workers} · {plan.connections} connections · "
        f"{plan.duration} s per measurement · app/ {section.app_fingerprint} ===",
        f"baseline: bare FastAPI GET /bare = {bare.rps:,.0f} req/s "
        f"(p50 {_ms_text(bare.latency_ms['p50'])} ms, p99 {_ms_text(bare.latency_ms['p99'])} ms, "
        f"app {figure(bare.server_cpu_us_per_request)} µs/req, "
        f"wrk {bare.wrk_cores:.0%} of a core); "
        "'x bare' divides by it",
    ]
    if plan.only_heavy_reads:
        out += resilience_report(section, with_db) + mechanism_rows(section)
        return "\n".join(out + warnings_and_targets(section, [bare, *section.all_measurements()]))
    out += [
        "",
        "Endpoints, each on its own; the mix three times "
        f"({MIX_DESCRIPTION}), all spread over {plan.pool_matches} matches "
        f"that start at {plan.pool_rounds} rounds:",
        *table_rows([bare, *section.endpoint_rows()], with_db),
        "",
        f"The same endpoints at {P99_CONNECTIONS} connections (the p99 targets), over another "
        f"{plan.pool_matches} matches of {plan.pool_rounds} rounds; the mix once:",
        *table_rows(list(section.low_load.values()), with_db),
        *p99_rows(section),
        "",
        "Flat cost with match length: each pair measured A B B A, "
        f"{max(1, plan.duration // 2)} s each; a side's req/s is its two runs together:",
        *table_rows(list(section.flat.values()), with_db),
        "",
        f"{'check':<62}{'short':>12}{'long':>12}{'ratio':>9}",
    ]
    for check in section.flat_checks:
        unit = check["unit"]
        out.append(
            f"{check['name']:<62}{figure(check['short'], 1):>12}{figure(check['long'], 1):>12}"
            f"{figure(check['ratio'], 2):>9}  ({unit})"
        )
    correction = section.flat_checks[-1]
    out.append(
        f"  correction latency (the worse of its two runs): "
        f"p50 {_ms_text(correction['p50_ms']['correction'])} ms, "
        f"p99 {_ms_text(correction['p99_ms']['correction'])} ms "
        f"(POST round at the same connections: p50 "
        f"{_ms_text(correction['p50_ms']['post_round'])} ms, "
        f"p99 {_ms_text(correction['p99_ms']['post_round'])} ms)"
    )
    if section.same_sql:
        same = section.same_sql
        out += [
            "",
            "The stack's own cost: GET match and POST round on bench/same_sql_app.py, the "
            "app's statements on the same engine with nothing else of the app (no middleware, "
            "dependencies, Database.run, scoring, live event or response model):",
            *table_rows(list(same.values()), with_db),
            "app / same SQL, x bare: "
            + ", ".join(
                f"{op} {figure(section.endpoints[op].ratio_to_bare, 2)} / "
                f"{figure(same[op].ratio_to_bare, 2)}"
                for op in ("post_round", "get_match")
            )
            + "; information, no target",
        ]
    if section.scale is not None:
        scale = section.scale
        low, high = scale["workers"]
        out += [
            "",
            f"Scaling from {low} to {high} workers (fresh servers, same database; POST round "
            f"with {plan.workers} worker(s) just before and just after):",
            *table_rows(list(scale["measurements"].values()), with_db),
            f"POST round {high} workers / {low} (over the mean of the runs around it): "
            f"{figure(scale['post_round_ratio'], 2)} "
            f"(bare: {figure(scale['bare_ratio'], 2)}; wrk and PostgreSQL share the same "
            f"{CPUS} cores); information, no target",
        ]
    rss = [run.rss_total_kib / 1024 for run in section.mix_runs]
    out += [
        "",
        "Memory: RSS per worker after the run: "
        + ", ".join(f"pid {pid} {kib / 1024:.1f} MiB" for pid, kib in section.final_rss.items()),
        "  after each mix run (all workers): " + " → ".join(f"{v:.1f}" for v in rss) + " MiB",
    ]
    if section.heavy is not None:
        memory = section.heavy["connection_memory"]
        out.append(
            f"  an open connection: {memory['kib_per_connection']:.1f} KiB "
            f"({memory['connections']:,} idle keep-alive ones; see Heavy reads)"
        )
    out += resilience_report(section, with_db)
    out += mechanism_rows(section)
    return "\n".join(out + warnings_and_targets(section, [bare, *section.all_measurements()]))


def warnings_and_targets(section: Section, measured: list[Measurement]) -> list[str]:
    """The end of a section's report: what makes its figures unreliable, and its targets."""
    out: list[str] = []
    if section.app_fingerprint_end != section.app_fingerprint:
        out += [
            "",
            f"WARNING: app/ changed while this section ran ({section.app_fingerprint} → "
            f"{section.app_fingerprint_end}): servers started after the change ran other code "
            "than those before it, on a database migrated for the first. Rerun on code "
            "nothing edits meanwhile (a checkout of its own).",
        ]
    if disturbed := [m for m in measured if m.disturbed]:
        out += [
            "",
            f"WARNING: {len(disturbed)} of {len(measured)} measurements ran while other "
            f"processes used more than {DISTURBED:.0%} of a core (the 'other' column): their "
            "req/s and ratios are unreliable. Rerun on a quiet machine.",
        ]
    out += ["", "Targets:"]
    for t in section.targets:
        verdict = "PASS" if t["pass"] else "MISS"
        value = t["value"]
        shown = (
            "-"
            if value is None
            else f"{value:+.1%}"
            if t["unit"] == "%"
            else f"{value:.1f} ms"
            if t["unit"] == "ms"
            else f"{value:.1f}x"
            if t["unit"] == "x"
            else f"{value:.2f}"
        )
        mark = "   (disturbed: other load)" if t["disturbed"] else ""
        out.append(f"  [{verdict}] {t['name']:<62} {shown:>10}   target {t['target']}{mark}")
    return out


def section_json(section: Section) -> dict[str, Any]:
    plan = section.plan
    scale = None
    if section.scale is not None:
        scale = {
            **{k: v for k, v in section.scale.items() if k != "measurements"},
            "measurements": {k: m.to_json() for k, m in section.scale["measurements"].items()},
        }
    assert section.baseline is not None
    return {
        "title": section.title,
        "app_fingerprint": section.app_fingerprint,
        "app_fingerprint_end": section.app_fingerprint_end,
        "workers": plan.workers,
        "connections": plan.connections,
        "duration_s": plan.duration,
        "baseline": section.baseline.to_json(),
        "endpoints": {name: m.to_json() for name, m in section.endpoints.items()},
        "mix": {"description": MIX_DESCRIPTION, "runs": [m.to_json() for m in section.mix_runs]},
        "low_load": {
            "connections": P99_CONNECTIONS,
            "endpoints": {name: m.to_json() for name, m in section.low_load.items()},
        },
        "flat": {
            "measurements": {name: m.to_json() for name, m in section.flat.items()},
            "checks": section.flat_checks,
        },
        "memory": {
            "rss_kib_after_run": section.final_rss,
            "rss_kib_after_mix_runs": [m.rss_total_kib for m in section.mix_runs],
        },
        "same_sql": {op: m.to_json() for op, m in section.same_sql.items()},
        "scale": scale,
        "latency_proxy": section.latency
        and {
            **section.latency,
            "measurements": {k: m.to_json() for k, m in section.latency["measurements"].items()},
        },
        "stall": section.stall
        and {**section.stall, "probes": [p.to_json() for p in section.stall["probes"]]},
        "heavy_reads": section.heavy
        and {
            **section.heavy,
            "paging": section.heavy["paging"].to_json(),
            "probes": [p.to_json() for p in section.heavy["probes"]],
            "without_kept_states": {
                "paging": section.heavy["without_kept_states"]["paging"].to_json(),
                "probes": [p.to_json() for p in section.heavy["without_kept_states"]["probes"]],
            },
            "sheets": {
                "clients": section.heavy["sheets"]["clients"],
                "reading": section.heavy["sheets"]["reading"].to_json(),
                "probes": [p.to_json() for p in section.heavy["sheets"]["probes"]],
                "without_kept_bodies": {
                    "reading": section.heavy["sheets"]["without_kept_bodies"]["reading"].to_json(),
                    "probes": [
                        p.to_json()
                        for p in section.heavy["sheets"]["without_kept_bodies"]["probes"]
                    ],
                },
            },
        },
        "mechanisms": {
            name: {
                "what": runs["what"],
                "with": runs["with"].to_json(),
                "without": runs["without"].to_json(),
            }
            for name, runs in section.mechanisms.items()
        },
        "targets": section.targets,
    }


def environment(
    plan: Any, *, packages: Sequence[str] = BENCH_PACKAGES, **more: Any
) -> dict[str, Any]:
    """The machine, the versions and the commit a run measured, with ``more`` (a bench's
    own facts) and its plan."""

    def version(package: str) -> str:
        try:
            return importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            return "missing"

    def git(*args: str) -> str:
        with suppress(OSError, subprocess.SubprocessError):
            run = subprocess.run(
                ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10, check=False
            )
            return run.stdout.strip()
        return ""

    return {
        "cpus": CPUS,
        "kernel": platform.release(),
        "python": platform.python_version(),
        "packages": {p: version(p) for p in packages},
        "uvicorn_flags": list(UVICORN_FLAGS),
        "wrk": wrk_version(),
        "git_commit": git("rev-parse", "HEAD"),
        "git_dirty_paths": len(git("status", "--porcelain").splitlines()),
        **more,
        "plan": {k: str(v) if isinstance(v, Path) else v for k, v in asdict(plan).items()},
    }


def results_markdown(results: dict[str, Any]) -> str:
    """The targets of a run, and what each mechanism buys (when the run measured it), as
    the Markdown tables docs/performance.md shows."""
    env = results["environment"]
    dirty = " (with uncommitted changes)" if env.get("git_dirty_paths") else ""
    lines = [
        f"Run of {results['started_at'][:16].replace('T', ' ')} UTC, commit "
        f"`{str(env.get('git_commit'))[:7]}`{dirty}, {env.get('cpus')} CPUs.",
        "",
        "| database | target | value | goal | result |",
        "|---|---|---|---|---|",
    ]
    for kind, section in results["databases"].items():
        for each in section["targets"]:
            value = each["value"]
            shown = "—" if value is None else f"{value:.2f} {each['unit']}".strip()
            verdict = "PASS" if each["pass"] else "MISS"
            if each["disturbed"]:
                verdict += " (disturbed)"
            lines.append(f"| {kind} | {each['name']} | {shown} | {each['target']} | {verdict} |")
    for kind, error in results["failures"].items():
        lines.append(f"| {kind} | could not be measured: {error.splitlines()[0]} | | | |")
    mechanisms = [
        (kind, name, runs)
        for kind, section in results["databases"].items()
        for name, runs in section["mechanisms"].items()
    ]
    if mechanisms:
        lines += [
            "",
            "What a mechanism buys: the same measurement with it and without it, in this "
            "run (disturbed: either one was measured while other processes used the CPU).",
            "",
            "| database | mechanism | measurement | p50 ms with / without "
            "| p99 ms with / without | req/s with / without |",
            "|---|---|---|---|---|---|",
        ]
        for kind, name, runs in mechanisms:
            p50, p99, rps = with_and_without(runs["with"], runs["without"])
            if runs["with"].get("disturbed") or runs["without"].get("disturbed"):
                name += " (disturbed)"
            lines.append(f"| {kind} | {name} | {runs['what']} | {p50} | {p99} | {rps} |")
    return "\n".join(lines) + "\n"


# -- main ----------------------------------------------------------------------------------


def run(plan: Plan) -> int:
    if shutil.which("wrk") is None:
        progress(
            "wrk is not installed. On Debian/Ubuntu: apt-get install -y wrk "
            "(make bench does it when run as root)."
        )
        return 2
    started = datetime.now(UTC)
    sections: list[Section] = []
    failures: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="squarescores-bench-") as tmp:
        for kind in plan.databases:
            workdir = Path(tmp) / kind
            workdir.mkdir()
            try:
                sections.append(run_database(kind, plan, workdir))
            except BenchError as error:  # the other database may still run
                failures[kind] = str(error)
                progress(f"{kind}: bench failed: {error}")
            else:
                print(report(sections[-1]), flush=True)
    results = {
        "started_at": started.isoformat(),
        "finished_at": datetime.now(UTC).isoformat(),
        "environment": environment(plan),
        "databases": {section.kind: section_json(section) for section in sections},
        "failures": failures,
    }
    plan.output.parent.mkdir(parents=True, exist_ok=True)
    plan.output.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    table = plan.output.with_suffix(".md")
    table.write_text(results_markdown(results))
    print(f"\nresults: {plan.output}, the targets and what each mechanism buys: {table}")
    if failures:
        print(f"FAILED to measure: {', '.join(failures)} (see above)")
        return 2
    unclean = [
        f"{section.kind}:{m.name}"
        for section in sections
        for m in [section.baseline, *section.all_measurements()]
        if m is not None and not m.clean
    ]
    if unclean:
        print(f"UNEXPECTED statuses or socket errors in: {', '.join(unclean)}")
        return 1
    return 0


def run_database(kind: str, plan: Plan, workdir: Path) -> Section:
    """Every measurement on one fresh database, judged; the database is gone afterwards."""
    database = (
        sqlite_database(workdir) if kind == "sqlite" else postgres_database(plan.postgres_url)
    )
    with database as (url, title):
        section = Section(kind, title, plan, workdir, server_env(url))
        if plan.only_heavy_reads:
            section.baseline = section.baseline_run(plan.workers)
            run_heavy_reads(section)
            section.app_fingerprint_end = app_fingerprint()
            judge_probes(section)
            return section
        run_section(section)
        if kind == "postgresql":
            run_scale(section, 2 if plan.workers == 1 else 1)
        if plan.resilience:
            if kind == "postgresql" and plan.pg_latency_ms > 0:
                run_latency(section)
            if kind == "sqlite":
                run_stall(section)
            run_heavy_reads(section)
            run_without_gc_freeze(section)
    # Each server loads app/ as it is when it starts: an edit meanwhile mixes two versions
    # of the code in one section (and a new migration is missing from its database).
    section.app_fingerprint_end = app_fingerprint()
    judge(section)
    return section


def run_bench(name: str, run: Callable[[P], int], plan: P) -> int:
    """A bench's exit status: what ``run(plan)`` returns; 2 when it could not measure,
    130 when interrupted (``make bench`` and ``make bench-live`` share it)."""
    try:
        return run(plan)
    except BenchError as error:
        progress(f"{name} failed: {error}")
        return 2
    except KeyboardInterrupt:
        progress("interrupted")
        return 130


def main(argv: list[str] | None = None) -> int:
    return run_bench("bench", run, parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
