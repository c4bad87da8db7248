"""Real servers for the tests: uvicorn with two workers on a loopback port.

``LiveServer`` runs ``uvicorn app.main:app`` in a process group of its own, so the
whole group (the supervisor and its workers) can be stopped, or killed with
SIGKILL mid-request, and started again on the same database. Traffic goes to
127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import httpx
import pytest

from app.serving import UVICORN_FLAGS
from tests.conftest import ROOT, PostgresDatabases, migrate

HOST = "127.0.0.1"
WORKERS = 2
STARTUP_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0
START_ATTEMPTS = 3  # a free port can be taken between picking it and uvicorn binding it


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _group_alive(pgid: int) -> bool:
    """Whether a process of the group is still running (not merely awaiting its reaper)."""
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...: comm may hold spaces, so split after its ")".
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            return True
    return False


class ServerFailed(RuntimeError):
    """The server did not come up; the message carries what it wrote."""


class LiveServer:
    """``uvicorn app.main:app --workers 2`` on a free loopback port, against one database.

    Use it as a context manager; ``kill()`` SIGKILLs the whole process group at
    once and ``start()`` brings a new server up on the same database.
    """

    def __init__(
        self,
        database_url: str,
        *,
        workers: int = WORKERS,
        startup_timeout: float = STARTUP_TIMEOUT,
        stop_timeout: float = STOP_TIMEOUT,
        environment: Mapping[str, str] | None = None,
    ) -> None:
        self.database_url = database_url
        self.environment = dict(environment or {})  # settings for the server, over os.environ
        self.workers = workers
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.port: int | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._logs: list[str] = []  # everything every run of the server wrote, in order

    @property
    def url(self) -> str:
        if self.port is None or self.process is None:
            raise RuntimeError("the server is not running")
        return f"http://{HOST}:{self.port}"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> LiveServer:
        """Start the server and wait until /healthz answers (bounded)."""
        if self.running:
            raise RuntimeError("the server is already running")
        failure: ServerFailed | None = None
        for _ in range(START_ATTEMPTS):
            try:
                self._spawn(free_port())
                self._wait_healthy()
                return self
            except ServerFailed as error:
                failure = error
                self._terminate(kill=True)
        assert failure is not None
        raise failure

    def kill(self) -> None:
        """SIGKILL the supervisor and every worker at once: no shutdown, no cleanup."""
        self._terminate(kill=True)

    def stop(self) -> None:
        """SIGTERM the process group; SIGKILL it if it is still there after the timeout."""
        self._terminate(kill=False)

    def output(self) -> str:
        """What the server wrote to stdout and stderr, across every start."""
        return "".join(self._logs) + self._current()

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def _spawn(self, port: int) -> None:
        env = {
            **os.environ,
            **self.environment,
            "DATABASE_URL": self.database_url,
            "PYTHONUNBUFFERED": "1",
        }
        # A file, not a pipe, so nobody has to drain it; it lives as long as the server.
        self._log = tempfile.TemporaryFile()  # noqa: SIM115
        self.port = port
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "app.main:app",
                *UVICORN_FLAGS,
                "--host",
                HOST,
                "--port",
                str(port),
                "--workers",
                str(self.workers),
            ],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def _wait_healthy(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + self.startup_timeout
        with httpx.Client(base_url=self.url, timeout=2.0) as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise ServerFailed(
                        f"uvicorn exited with {self.process.returncode} before serving:\n"
                        + self._tail()
                    )
                try:
                    if client.get("/healthz").status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                time.sleep(0.1)
        raise ServerFailed(
            f"uvicorn did not answer /healthz within {self.startup_timeout:.0f} s:\n" + self._tail()
        )

    def _terminate(self, *, kill: bool) -> None:
        process = self.process
        if process is None:
            return
        if process.poll() is None or kill:
            self._signal_group(process.pid, signal.SIGKILL if kill else signal.SIGTERM)
        try:
            process.wait(timeout=self.stop_timeout)
        except subprocess.TimeoutExpired:
            self._signal_group(process.pid, signal.SIGKILL)
            process.wait(timeout=self.stop_timeout)
        # The workers may outlive the supervisor for a moment: make sure the group is gone.
        self._signal_group(process.pid, signal.SIGKILL)
        self._wait_group_gone(process.pid)
        self._collect()
        self.process = None

    @staticmethod
    def _signal_group(pgid: int, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, sig)

    def _wait_group_gone(self, pgid: int) -> None:
        """Wait (bounded) until no live process is left in the group; zombies hold nothing."""
        deadline = time.monotonic() + self.stop_timeout
        while time.monotonic() < deadline and _group_alive(pgid):
            time.sleep(0.02)

    def _collect(self) -> None:
        if self._log is None:
            return
        self._logs.append(self._current())
        self._log.close()
        self._log = None

    def _current(self) -> str:
        """What the running server wrote so far.

        Read with pread: the file offset is shared with the server, which writes at it.
        """
        if self._log is None:
            return ""
        fd = self._log.fileno()
        return os.pread(fd, os.fstat(fd).st_size, 0).decode(errors="replace")

    def _tail(self, limit: int = 8000) -> str:
        return self._current()[-limit:]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def live_database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> str:
    """A fresh, migrated database of each kind, for the servers of one test module.

    Module-scoped so that one server can serve several scenarios (starting a
    two-worker server costs seconds); every scenario creates its own match.
    """
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('live') / 'live.db'}"
    else:
        databases: PostgresDatabases = request.getfixturevalue("postgres")
        url = databases.create()
    migrate(url)
    return url


@pytest.fixture(scope="module")
def live_server(live_database_url: str) -> Iterator[LiveServer]:
    """A running two-worker server on the module's database, stopped after the module."""
    with LiveServer(live_database_url) as server:
        yield server


def server_output(server: LiveServer, limit: int = 6000) -> str:
    """The end of what the server wrote, for an assertion message."""
    return server.output()[-limit:]


def json_of(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text
