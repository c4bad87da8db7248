"""The client's address, as the limits count it and the access log records it, on a
real server (``tests/live.py``): a client's ``X-Forwarded-For`` is believed by
default from nobody, from a trusted proxy only when it names an IP address, and
through the nginx site of docs/operations.md (run here, the block taken from the
docs) never as the client wrote it.

Each scenario's client counts under an address of its own (127.0.0.0/8 is all
loopback on Linux), so the counts of one minute on one database never meet.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.api.helpers import PLAYERS
from tests.api.test_operational import _clear_of_a_window_edge
from tests.conftest import ROOT
from tests.integration.test_live_table import AMOUNTS, parse_events
from tests.live import LiveServer, free_port
from tests.live import live_database_url as live_database_url

MATCH_BODY = {"game": "asszorti", "players": PLAYERS}
PROXY_LIMIT = 3  # matches a minute, on the server behind the proxy
DEFAULT_LIMIT = 30  # RATE_LIMIT_MATCHES_PER_MINUTE's default
NGINX_START_TIMEOUT = 10.0
LOG_TIMEOUT = 5.0


@pytest.fixture(scope="module")
def default_server(live_database_url: str) -> Iterator[LiveServer]:
    """The server as `make run` starts it: no proxy named (FORWARDED_ALLOW_IPS unset, as
    uvicorn's --proxy-headers would read it too)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("FORWARDED_ALLOW_IPS", raising=False)
        with LiveServer(live_database_url) as server:
            yield server


@pytest.fixture(scope="module")
def proxied_server(live_database_url: str) -> Iterator[LiveServer]:
    """The server as the docs have it behind nginx on the same host, with a second
    proxy (127.0.0.5) for the scenarios that play one themselves."""
    environment = {
        "FORWARDED_ALLOW_IPS": "127.0.0.1, 127.0.0.5",
        "RATE_LIMIT_MATCHES_PER_MINUTE": str(PROXY_LIMIT),
        "LOG_JSON": "true",
    }
    with LiveServer(live_database_url, environment=environment) as server:
        yield server


def client_from(base_url: str, source: str) -> httpx.Client:
    """A client whose connections come from ``source``, a loopback address."""
    return httpx.Client(
        base_url=base_url, timeout=10.0, transport=httpx.HTTPTransport(local_address=source)
    )


def create_matches(client: httpx.Client, forwarded: list[str]) -> list[int]:
    """One creation per value, each claiming that X-Forwarded-For; their statuses."""
    return [
        client.post("/v1/matches", json=MATCH_BODY, headers={"X-Forwarded-For": value}).status_code
        for value in forwarded
    ]


def logged_client(server: LiveServer, request_id: str) -> str | None:
    """The client the server's access log records for the request with this id."""
    deadline = time.monotonic() + LOG_TIMEOUT
    while True:
        for line in server.output().splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("request_id") == request_id and "client" in entry:
                client: str | None = entry["client"]
                return client
        # The line is written as the answer ends: it may come just after the client has it.
        if time.monotonic() > deadline:
            raise AssertionError(f"no access log line for {request_id}:\n{server.output()[-4000:]}")
        time.sleep(0.05)


def seen_as(server: LiveServer, client: httpx.Client, forwarded: str) -> str | None:
    """The address the server takes a request of ``client`` claiming ``forwarded`` from."""
    request_id = str(uuid.uuid4())
    client.get("/healthz", headers={"X-Forwarded-For": forwarded, "X-Request-ID": request_id})
    return logged_client(server, request_id)


def test_by_default_a_forged_forwarded_for_changes_no_address(default_server: LiveServer) -> None:
    """From loopback, which uvicorn's own --proxy-headers would believe: so would a
    client of a proxy on the same host that passes the header through."""
    _clear_of_a_window_edge()
    with client_from(default_server.url, "127.0.0.1") as client:
        forged = [f"198.51.100.{n}" for n in range(DEFAULT_LIMIT + 1)]
        statuses = create_matches(client, forged)
        assert statuses == [201] * DEFAULT_LIMIT + [429], default_server.output()[-4000:]
        assert seen_as(default_server, client, "198.51.100.200") == "127.0.0.1"


def test_a_trusted_proxy_names_the_client(proxied_server: LiveServer) -> None:
    """The other side: from a listed proxy, each forwarded address counts apart."""
    _clear_of_a_window_edge()
    with client_from(proxied_server.url, "127.0.0.5") as proxy:
        statuses = create_matches(proxy, [f"192.0.2.{n}" for n in range(PROXY_LIMIT + 1)])
        assert statuses == [201] * (PROXY_LIMIT + 1)
        assert seen_as(proxied_server, proxy, "192.0.2.99") == "192.0.2.99"
        assert seen_as(proxied_server, proxy, "2001:db8::7") == "2001:db8::7"


def test_a_forwarded_value_that_is_no_ip_address_keeps_the_socket_s(
    proxied_server: LiveServer,
) -> None:
    _clear_of_a_window_edge()
    with client_from(proxied_server.url, "127.0.0.5") as proxy:
        assert seen_as(proxied_server, proxy, "not-an-ip") == "127.0.0.5"
        statuses = create_matches(proxy, [f"not-an-ip-{n}" for n in range(PROXY_LIMIT + 1)])
        assert statuses == [201] * PROXY_LIMIT + [429]


def test_an_untrusted_peer_names_no_client(proxied_server: LiveServer) -> None:
    """Past the proxy, straight to the app's port: the header counts for nothing."""
    with client_from(proxied_server.url, "127.0.0.4") as stranger:
        assert seen_as(proxied_server, stranger, "192.0.2.50") == "127.0.0.4"


# --- nginx, as docs/operations.md configures it ------------------------------------


def nginx_binary() -> str:
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
    if found is None:
        message = "nginx is not installed (apt-get install nginx, or make test as root)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}: required under CI")
        pytest.skip(message)
    return found


def documented_site() -> str:
    """The one ```nginx block of docs/operations.md."""
    blocks = re.findall(r"```nginx\n(.*?)```", (ROOT / "docs" / "operations.md").read_text(), re.S)
    assert len(blocks) == 1, "docs/operations.md should hold one nginx block"
    return str(blocks[0])


def substituted(site: str, replacements: dict[str, str]) -> str:
    for old, new in replacements.items():
        assert site.count(old) == 1, f"the documented site should say {old!r} once"
        site = site.replace(old, new)
    return site


class Nginx:
    """nginx in the foreground, its prefix, pid, logs and temporary files in ``root``."""

    def __init__(self, binary: str, root: Path, site: str) -> None:
        self.root = root
        self.port = free_port()
        self.site = substituted(site, {"listen 80;": f"listen 127.0.0.1:{self.port};"})
        (root / "squarescores.conf").write_text(self.site)
        temp = "\n".join(
            f"    {kind}_temp_path {root / kind};"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        (root / "nginx.conf").write_text(
            f"worker_processes 1;\npid {root / 'nginx.pid'};\n"
            "events { worker_connections 256; }\n"
            f"http {{\n{temp}\n    include {root / 'squarescores.conf'};\n}}\n"
        )
        self.command = [binary, "-p", f"{root}/", "-c", str(root / "nginx.conf")]
        self.command += ["-e", str(root / "error.log"), "-g", "daemon off;"]
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def errors(self) -> str:
        path = self.root / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def __enter__(self) -> Nginx:
        self.process = subprocess.Popen(
            self.command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + NGINX_START_TIMEOUT
        while True:
            if self.process.poll() is not None:
                raise AssertionError(
                    f"nginx exited with {self.process.returncode}:\n{self.errors()}"
                )
            try:
                httpx.get(f"{self.url}/healthz", timeout=1.0)
                return self
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise AssertionError(f"nginx did not answer:\n{self.errors()}") from None
                time.sleep(0.05)

    def __exit__(self, *_: object) -> None:
        assert self.process is not None
        self.process.terminate()  # SIGTERM: nginx's fast shutdown, workers included
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def nginx(proxied_server: LiveServer) -> Iterator[Nginx]:
    binary = nginx_binary()
    assert proxied_server.port is not None
    site = substituted(
        documented_site(), {"server 127.0.0.1:8000;": f"server 127.0.0.1:{proxied_server.port};"}
    )
    # Traversable by nginx's workers, which drop root's rights when it runs as root.
    root = Path(tempfile.mkdtemp(prefix="squarescores-nginx-"))
    root.chmod(0o755)
    site = substituted(site, {"/var/log/nginx/": f"{root}/"})
    try:
        with Nginx(binary, root, site) as running:
            yield running
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_through_nginx_a_client_s_forwarded_for_is_not_believed(
    nginx: Nginx, proxied_server: LiveServer
) -> None:
    _clear_of_a_window_edge()
    with client_from(nginx.url, "127.0.0.2") as client:
        # The proxy is trusted: the app sees the address nginx saw, not nginx's own...
        assert seen_as(proxied_server, client, "203.0.113.9") == "127.0.0.2"
        # ...and a client rotating the header through it still meets its one limit.
        statuses = create_matches(client, [f"203.0.113.{n}" for n in range(PROXY_LIMIT + 1)])
        assert statuses == [201] * PROXY_LIMIT + [429], nginx.errors()


def test_a_stream_through_nginx_comes_as_it_happens_and_its_ticket_is_not_logged(
    nginx: Nginx,
) -> None:
    with client_from(nginx.url, "127.0.0.6") as client:
        created = client.post("/v1/matches", json=MATCH_BODY)
        assert created.status_code == 201, created.text
        match = created.json()
        path, host = (
            f"/v1/matches/{match['id']}",
            {"Authorization": f"Bearer {match['tokens']['host']}"},
        )
        issued = client.post(f"{path}/events/tickets", headers=host)
        assert issued.status_code == 201, issued.text
        ticket = issued.json()["ticket"]
        with client.stream("GET", f"{path}/events", params={"ticket": ticket}) as stream:
            assert stream.status_code == 200
            events = parse_events(stream.iter_lines())
            assert next(events).kind == "snapshot"
            # Passed on as it comes (proxy_buffering off, and the answer says
            # X-Accel-Buffering: no): one held back would time the read out.
            assert client.post(f"{path}/rounds", json=AMOUNTS, headers=host).is_success
            assert next(events).kind == "round_entered"
    log = nginx.root / "squarescores.access.log"
    deadline = time.monotonic() + LOG_TIMEOUT
    # The stream's line is written once nginx sees the client gone.
    while f"{path}/events " not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    logged = log.read_text()
    assert f"GET {path}/events HTTP/1.1" in logged
    assert ticket not in logged
