"""The live table, on real servers and both databases: a subscriber on one worker, the
writer on another (two one-worker servers on one database, so which process answers
is known), as the workers and machines of one deployment."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from queue import Empty, Queue
from typing import Any

import httpx
import pytest

from tests.live import LiveServer
from tests.live import live_database_url as live_database_url

PLAYERS = ["Anna", "Berta", "Csaba"]
AMOUNTS = {"type": "asszorti_amounts", "amounts": [2, -1, -1]}
WAIT = 10.0  # seconds an expected event may take at most (they take milliseconds)


@dataclass
class Event:
    kind: str
    id: str | None
    data: dict[str, Any]


def parse_events(lines: Iterator[str]) -> Iterator[Event]:
    """Server-Sent Events, from the stream's lines (comments skipped)."""
    kind, event_id, data = "message", None, []
    for line in lines:
        if line == "":
            if data:
                yield Event(kind, event_id, json.loads("\n".join(data)))
            kind, event_id, data = "message", None, []
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "event":
                kind = value
            elif name == "id":
                event_id = value
            elif name == "data":
                data.append(value)


class Follower:
    """A stream read in a thread; its events in a queue, ``None`` once it ended."""

    def __init__(self, url: str, headers: dict[str, Any]) -> None:
        self.events: Queue[Event | None] = Queue()
        self.status: int | None = None
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(url, headers), daemon=True)
        self.thread.start()
        assert self.ready.wait(WAIT)

    def _run(self, url: str, headers: dict[str, Any]) -> None:
        try:
            with httpx.stream("GET", url, headers=headers, timeout=30) as response:
                self.status = response.status_code
                self.ready.set()
                if response.status_code == 200:
                    for event in parse_events(response.iter_lines()):
                        self.events.put(event)
        except httpx.HTTPError:
            pass
        finally:
            self.ready.set()
            self.events.put(None)

    def next(self) -> Event | None:
        return self.events.get(timeout=WAIT)

    def kinds_until_end(self) -> list[tuple[str, str | None]]:
        seen = []
        while (event := self.next()) is not None:
            seen.append((event.kind, event.id))
        return seen


@pytest.fixture(scope="module")
def servers(live_database_url: str) -> Iterator[tuple[LiveServer, LiveServer]]:
    with (
        LiveServer(live_database_url, workers=1) as writer,
        LiveServer(live_database_url, workers=1) as reader,
    ):
        yield writer, reader


def _match(server: LiveServer) -> dict[str, Any]:
    response = httpx.post(f"{server.url}/v1/matches", json={"game": "asszorti", "players": PLAYERS})
    assert response.status_code == 201
    return response.json()


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_every_kind_of_change_arrives_once_in_version_order(
    servers: tuple[LiveServer, LiveServer],
) -> None:
    writer, reader = servers
    match = _match(writer)
    path, host = f"/v1/matches/{match['id']}", _auth(match["tokens"]["host"])
    follower = Follower(f"{reader.url}{path}/events", _auth(match["tokens"]["viewer"]))
    snapshot = follower.next()
    assert snapshot is not None and (snapshot.kind, snapshot.id) == ("snapshot", "1")
    assert snapshot.data["match"]["round_count"] == 0

    def ok(response: httpx.Response) -> None:
        assert response.is_success, response.text

    ok(httpx.post(f"{writer.url}{path}/rounds", json=AMOUNTS, headers=host))
    entered = follower.next()
    assert entered is not None and (entered.kind, entered.id) == ("round_entered", "2")
    assert entered.data["round"]["result"]["net"] == [2, -1, -1]
    assert entered.data["match"]["totals"] == [2, 0, 0]  # enough to redraw
    corrected = {"type": "asszorti_amounts", "amounts": [-2, 1, 1]}
    ok(httpx.put(f"{writer.url}{path}/rounds/1", json=corrected, headers=host))
    ok(httpx.patch(f"{writer.url}{path}", json={"settings": {"kontra": False}}, headers=host))
    ok(httpx.delete(f"{writer.url}{path}/rounds/1", headers=host))
    ok(httpx.post(f"{writer.url}{path}/tokens", json={"role": "player", "seat": 2}, headers=host))
    ok(httpx.post(f"{writer.url}{path}/end", headers=host))
    assert follower.kinds_until_end() == [
        ("round_corrected", "3"),
        ("match_updated", "4"),
        ("round_removed", "5"),
        ("token_reissued", "6"),
        ("ended", "7"),
    ]  # and then the stream closed


def test_a_dropped_stream_resumes_with_exactly_what_it_missed(
    servers: tuple[LiveServer, LiveServer],
) -> None:
    writer, reader = servers
    match = _match(writer)
    path, host = f"/v1/matches/{match['id']}", _auth(match["tokens"]["host"])
    for _ in range(3):
        assert httpx.post(f"{writer.url}{path}/rounds", json=AMOUNTS, headers=host).is_success
    headers = {**_auth(match["tokens"]["players"][0]), "Last-Event-ID": "2"}
    follower = Follower(f"{reader.url}{path}/events", headers)
    missed = [follower.next(), follower.next()]
    assert [(e.kind, e.id) for e in missed if e] == [("round_entered", "3"), ("round_entered", "4")]
    assert httpx.post(f"{writer.url}{path}/rounds", json=AMOUNTS, headers=host).is_success
    live = follower.next()
    assert live is not None and (live.kind, live.id) == ("round_entered", "5")
    assert httpx.post(f"{writer.url}{path}/end", headers=host).is_success
    assert follower.kinds_until_end() == [("ended", "6")]
    # Too far back to replay (or a version the match never had): a snapshot.
    again = Follower(f"{reader.url}{path}/events?after=99", _auth(match["tokens"]["viewer"]))
    assert [(e.kind, e.id) for e in iter(again.next, None)] == [("snapshot", "6")]


def test_401_403_404_before_any_stream_opens(servers: tuple[LiveServer, LiveServer]) -> None:
    writer, reader = servers
    match, other = _match(writer), _match(writer)
    url = f"{reader.url}/v1/matches/{match['id']}/events"
    for headers, status, code in (
        ({}, 401, "unauthenticated"),
        (_auth(other["tokens"]["viewer"]), 403, "forbidden"),
    ):
        response = httpx.get(url, headers=headers)
        assert (response.status_code, response.json()["code"]) == (status, code)
        assert response.headers["content-type"] == "application/problem+json"
    missing = httpx.get(
        f"{reader.url}/v1/matches/{'0' * 32}/events", headers=_auth(match["tokens"]["viewer"])
    )
    assert (missing.status_code, missing.json()["code"]) == (404, "match_not_found")


def test_a_last_event_id_that_is_not_a_version_starts_afresh(
    servers: tuple[LiveServer, LiveServer],
) -> None:
    writer, reader = servers
    match = _match(writer)
    url = f"{reader.url}/v1/matches/{match['id']}/events"
    host = _auth(match["tokens"]["host"])
    assert httpx.post(f"{writer.url}/v1/matches/{match['id']}/end", headers=host).is_success
    for last_id in ("\u00b2", "9" * 5000, "-1", "abc"):
        headers: dict[str, Any] = {
            **_auth(match["tokens"]["viewer"]),
            "Last-Event-ID": last_id.encode("latin-1"),
        }
        follower = Follower(url, headers)
        assert follower.status == 200
        assert [(e.kind, e.id) for e in iter(follower.next, None)][:1] == [("snapshot", "2")]


def test_a_revoked_token_s_stream_closes(servers: tuple[LiveServer, LiveServer]) -> None:
    writer, reader = servers
    match = _match(writer)
    path = f"/v1/matches/{match['id']}"
    follower = Follower(f"{reader.url}{path}/events", _auth(match["tokens"]["viewer"]))
    assert follower.next() is not None  # the snapshot
    reissued = httpx.post(
        f"{writer.url}{path}/tokens",
        json={"role": "viewer"},
        headers=_auth(match["tokens"]["host"]),
    )
    assert reissued.is_success
    assert follower.kinds_until_end() == [("token_reissued", "2"), ("revoked", "2")]


def test_a_browser_follows_with_a_ticket_that_cannot_write(
    servers: tuple[LiveServer, LiveServer],
) -> None:
    writer, reader = servers
    match = _match(writer)
    path = f"/v1/matches/{match['id']}"
    issued = httpx.post(
        f"{reader.url}{path}/events/tickets", headers=_auth(match["tokens"]["viewer"])
    )
    assert issued.status_code == 201, issued.text
    ticket = issued.json()
    assert ticket["url"] == f"{path}/events?ticket={ticket['ticket']}"
    follower = Follower(reader.url + ticket["url"], {})  # no Authorization header at all
    snapshot = follower.next()
    assert snapshot is not None and snapshot.kind == "snapshot"
    # The ticket is for reading this stream only: no write, no other read takes it.
    as_token = _auth(ticket["ticket"])
    assert (
        httpx.post(f"{writer.url}{path}/rounds", json=AMOUNTS, headers=as_token).status_code == 401
    )
    assert httpx.get(f"{writer.url}{path}?ticket={ticket['ticket']}").status_code == 401
    # It opened its stream: on any worker, it opens no other.
    assert httpx.get(writer.url + ticket["url"]).status_code == 401
    other = _match(writer)
    another = httpx.post(
        f"{reader.url}{path}/events/tickets", headers=_auth(match["tokens"]["viewer"])
    ).json()["ticket"]
    elsewhere = httpx.get(f"{writer.url}/v1/matches/{other['id']}/events?ticket={another}")
    assert elsewhere.status_code == 403  # a ticket is for one match
    host = _auth(match["tokens"]["host"])
    assert httpx.post(f"{writer.url}{path}/end", headers=host).is_success
    assert follower.kinds_until_end() == [("ended", "2")]


def test_past_end_a_stream_follows_an_ended_match_s_rename_and_rematch(
    servers: tuple[LiveServer, LiveServer],
) -> None:
    writer, reader = servers
    match = _match(writer)
    path, host = f"/v1/matches/{match['id']}", _auth(match["tokens"]["host"])
    url = f"{reader.url}{path}/events?past_end=true"
    during = Follower(url, _auth(match["tokens"]["players"][1]))
    assert during.next() is not None  # the snapshot
    assert httpx.post(f"{writer.url}{path}/end", headers=host).is_success
    ended = during.next()
    assert ended is not None and (ended.kind, ended.id) == ("ended", "2")
    # Opened on the ended match: its snapshot, and the stream stays open too.
    after = Follower(url, _auth(match["tokens"]["viewer"]))
    snapshot = after.next()
    assert snapshot is not None and (snapshot.kind, snapshot.id) == ("snapshot", "2")
    renamed = httpx.patch(f"{writer.url}{path}/players/0", json={"name": "Anikó"}, headers=host)
    assert renamed.is_success
    started = httpx.post(f"{writer.url}{path}/rematch", headers=host)
    assert started.status_code == 201
    for follower in (during, after):
        rename = follower.next()
        assert rename is not None and (rename.kind, rename.id) == ("match_updated", "3")
        assert rename.data["match"]["players"][0]["name"] == "Anikó"
        rematch = follower.next()
        assert rematch is not None and (rematch.kind, rematch.id) == ("match_updated", "4")
        assert rematch.data["match"]["rematch_id"] == started.json()["id"]
    # Without it, the stream of an ended match still closes after its snapshot.
    plain = Follower(f"{reader.url}{path}/events", _auth(match["tokens"]["viewer"]))
    assert plain.kinds_until_end() == [("snapshot", "4")]


def test_sigterm_with_100_open_streams_exits_within_5_seconds(live_database_url: str) -> None:
    server = LiveServer(live_database_url, workers=1).start()
    try:
        match = _match(server)
        url = f"{server.url}/v1/matches/{match['id']}/events"
        followers = [Follower(url, _auth(match["tokens"]["viewer"])) for _ in range(100)]
        for follower in followers:
            assert follower.status == 200
            assert follower.next() is not None  # each stream is open: it sent its snapshot
        assert server.process is not None
        started = time.monotonic()
        os.killpg(server.process.pid, signal.SIGTERM)
        server.process.wait(timeout=10)
        assert time.monotonic() - started < 5.0
        for follower in followers:  # every stream was closed
            while True:
                try:
                    if follower.events.get(timeout=WAIT) is None:
                        break
                except Empty:
                    pytest.fail("a stream stayed open after the server stopped")
    finally:
        server.stop()
