"""The client guide's Python event loop, run as it is written.

The ``python`` block that follows ``MARKER`` in docs/client-guide.md ("Follow a match
live") is executed with the client openapi-python-client generates from the committed
document, type-checked with ``mypy --strict``, and its ``follow`` generator follows a
live server while an Alkort match is played over HTTP. A transport between the two
drops the stream mid-event, as a network does, and holds the reconnection until more
changes are made, so the resume must bring exactly the events that were missed.

What a live server cannot be made to send on demand (a ``resync``, a heartbeat
between two events) comes from a transport serving a written stream whose events
are the document's own examples.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import EventSource

from tests.conftest import ROOT, migrate
from tests.live import LiveServer
from tests.sdk.test_generated_client import PACKAGE, SPEC, generate_python_client

GUIDE = ROOT / "docs" / "client-guide.md"
MARKER = "<!-- tests/sdk/test_guide_event_loop.py runs this block -->"
WAIT = 10.0  # the longest any step may take before the test fails
RETRY = 0.01  # follow's pause before it reopens a stream: short, the server is up
OPENINGS = 4  # more than any test needs: a loop that keeps reopening fails, not hangs


@dataclass(frozen=True)
class Guide:
    """What the guide's block defines, and where it was read from."""

    follow: Callable[..., Iterator[Any]]
    events: dict[str, type[Any]]
    code: str
    sdk_path: Path


def guide_block() -> tuple[str, int]:
    """The code of the ``python`` block right after the marker, and its first line."""
    text = GUIDE.read_text(encoding="utf-8")
    found = re.search(
        re.escape(MARKER) + r"\n```python\n(.*?)^```$", text, re.DOTALL | re.MULTILINE
    )
    if found is None:
        pytest.fail(f"{GUIDE.name} has no ```python block right after {MARKER!r} to run")
    return found.group(1), text.count("\n", 0, found.start(1)) + 1


@pytest.fixture(scope="module")
def guide(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Guide]:
    """The guide's block, executed with the generated client importable."""
    output = tmp_path_factory.mktemp("sdk") / "python"
    generate_python_client(output)
    sys.path.insert(0, str(output))
    importlib.invalidate_caches()
    code, line = guide_block()
    # Blank lines before the code, so that a traceback names the guide's own line.
    compiled = compile("\n" * (line - 1) + code, str(GUIDE), "exec")
    namespace: dict[str, Any] = {"__name__": "client_guide"}
    try:
        exec(compiled, namespace)
        yield Guide(namespace["follow"], namespace["EVENTS"], code, output)
    finally:
        sys.path.remove(str(output))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One uvicorn worker on a loopback port, against a fresh migrated SQLite file."""
    url = f"sqlite:///{tmp_path_factory.mktemp('guide-live') / 'guide.db'}"
    migrate(url)
    with LiveServer(url, workers=1) as live:
        yield live


# --- The network between follow and the server --------------------------------------------


class Link(httpx.BaseTransport):
    """A transport in front of another: it records each opening's ``Last-Event-ID``,
    fails the read of the next chunk once ``drop`` is set (the chunk is lost, as on a
    broken connection), and holds an opening while ``reopen`` is clear."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner
        self.last_event_ids: list[str | None] = []
        self.drop = threading.Event()
        self.dropped = threading.Event()
        self.reopen = threading.Event()
        self.reopen.set()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.last_event_ids.append(request.headers.get("Last-Event-ID"))
        # Not a transport error: follow would retry one, and this must end it.
        assert len(self.last_event_ids) <= OPENINGS, f"reopened again: {self.last_event_ids}"
        assert self.reopen.wait(WAIT), "the test never let the stream reopen"
        response = self.inner.handle_request(request)
        assert isinstance(response.stream, httpx.SyncByteStream)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=DroppingStream(response.stream, self),
            extensions=response.extensions,
        )


class DroppingStream(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, link: Link) -> None:
        self.inner = inner
        self.link = link

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.inner:
            if self.link.drop.is_set():
                self.link.drop.clear()
                self.link.dropped.set()
                raise httpx.ReadError("the connection dropped (by the test)")
            yield chunk

    def close(self) -> None:
        self.inner.close()


class Follower(threading.Thread):
    """``for event in follow(client, match_id)`` in a thread, keeping what it yields."""

    def __init__(self, guide: Guide, client: httpx.Client, match_id: str) -> None:
        super().__init__(daemon=True)
        self.guide, self.client, self.match_id = guide, client, match_id
        self.events: list[Any] = []
        self.error: BaseException | None = None
        self.changed = threading.Condition()

    def run(self) -> None:
        try:
            for event in self.guide.follow(self.client, self.match_id, retry=RETRY):
                with self.changed:
                    self.events.append(event)
                    self.changed.notify_all()
        except BaseException as error:  # handed to the test, which fails with it
            self.error = error
        finally:
            self.client.close()
            with self.changed:
                self.changed.notify_all()

    def wait_for(self, version: int) -> None:
        """Wait until follow has yielded the event that brings the match to ``version``."""
        with self.changed:
            self.changed.wait_for(
                lambda: self.versions()[-1:] >= [version] or not self.is_alive(), timeout=WAIT
            )
        if self.error is not None:
            raise self.error
        assert version in self.versions(), (version, self.versions())

    def finish(self) -> list[Any]:
        """What follow yielded, once it has returned by itself."""
        self.join(WAIT)
        if self.error is not None:
            raise self.error
        assert not self.is_alive(), f"follow did not stop after {self.versions()}"
        return self.events

    def versions(self) -> list[int]:
        return [event.version for event in self.events]


def follower(guide: Guide, server: LiveServer, token: str, match_id: str) -> tuple[Follower, Link]:
    link = Link(httpx.HTTPTransport())
    client = httpx.Client(
        base_url=server.url,
        headers={"Authorization": f"Bearer {token}"},
        transport=link,
        timeout=httpx.Timeout(WAIT),
    )
    follow = Follower(guide, client, match_id)
    follow.start()
    return follow, link


def ok(response: httpx.Response, status: int) -> Any:
    assert response.status_code == status, response.text
    return response.json() if response.content else None


def create_alkort(api: httpx.Client) -> Any:
    """An Alkort match whose target the tests' rounds never reach."""
    body = {
        "game": "alkort",
        "players": ["Anna", "Bela", "Cili", "Dani"],
        "settings": {"target": 30},
    }
    return ok(api.post("/v1/matches", json=body), 201)


def points(team: int, points: int) -> dict[str, Any]:
    return {"type": "alkort_points", "team": team, "points": points}


# --- The guide's block --------------------------------------------------------------------


def test_the_guides_event_loop_type_checks_strictly(guide: Guide, tmp_path: Path) -> None:
    """mypy --strict on the block, against the generated client: the events are typed."""
    module = tmp_path / "follow.py"
    module.write_text(guide.code, encoding="utf-8")
    cache = str(tmp_path / "mypy-cache")
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", cache, "follow.py"],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(guide.sdk_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_every_event_kind_has_its_model(guide: Guide) -> None:
    """EVENTS has one class per kind of MatchEvent, and each parses its own example only."""
    schemas = json.loads(SPEC.read_text(encoding="utf-8"))["components"]["schemas"]
    mapping = schemas["MatchEvent"]["discriminator"]["mapping"]
    assert set(guide.events) == set(mapping)
    for kind, ref in mapping.items():
        name = ref.rsplit("/", 1)[-1]
        model = guide.events[kind]
        assert model.__name__ == name
        example = schemas[name]["examples"][0]
        parsed = model.from_dict(example)
        assert (parsed.kind, parsed.version) == (kind, example["version"])
        assert parsed.additional_properties == {}  # every field has its typed attribute
        other = next(k for k in mapping if k != kind)
        with pytest.raises(ValueError, match="kind must match"):
            model.from_dict({**example, "kind": other})


# --- Against a live server ----------------------------------------------------------------


def test_follow_resumes_after_a_drop_with_exactly_the_missed_events(
    guide: Guide, server: LiveServer
) -> None:
    with httpx.Client(base_url=server.url, timeout=WAIT) as api:
        created = create_alkort(api)
        match_id, tokens = created["id"], created["tokens"]
        rounds = f"/v1/matches/{match_id}/rounds"
        host = {"Authorization": f"Bearer {tokens['host']}"}
        cili = {"Authorization": f"Bearer {tokens['players'][2]}"}
        follow, link = follower(guide, server, tokens["viewer"], match_id)

        follow.wait_for(1)
        ok(api.post(rounds, headers=cili, json=points(0, 1)), 201)
        ok(api.post(rounds, headers=cili, json=points(1, 5)), 201)
        follow.wait_for(3)

        # The stream breaks as round 3 comes in: that event never reaches follow,
        # and it cannot reopen until three more changes have been made.
        link.reopen.clear()
        link.drop.set()
        ok(api.post(rounds, headers=cili, json=points(0, 6)), 201)
        assert link.dropped.wait(WAIT), "the stream was not dropped"
        ok(api.put(f"{rounds}/3", headers=cili, json=points(0, 7)), 200)
        ok(api.delete(f"{rounds}/3", headers=cili), 204)
        renamed = ["Anna", "Béla", "Cili", "Dani"]
        ok(api.patch(f"/v1/matches/{match_id}", headers=host, json={"players": renamed}), 200)
        link.reopen.set()
        follow.wait_for(7)

        reissue = {"role": "player", "seat": 1}
        ok(api.post(f"/v1/matches/{match_id}/tokens", headers=host, json=reissue), 200)
        ok(api.post(f"/v1/matches/{match_id}/end", headers=host), 200)
        events = follow.finish()

    m = importlib.import_module(f"{PACKAGE}.models")
    assert [(e.kind, e.version, e.match.totals) for e in events] == [
        ("snapshot", 1, [0, 0]),
        ("round_entered", 2, [1, 0]),
        ("round_entered", 3, [1, 5]),
        ("round_entered", 4, [7, 5]),  # missed while dropped: from here on, replayed
        ("round_corrected", 5, [8, 5]),
        ("round_removed", 6, [1, 5]),
        ("match_updated", 7, [1, 5]),
        ("token_reissued", 8, [1, 5]),  # a player's token: the viewer's stream goes on
        ("ended", 9, [1, 5]),
    ]
    # The one reopening sent the id of the last event follow had yielded.
    assert link.last_event_ids == [None, "3"]
    for event in events:
        assert type(event) is guide.events[event.kind]
        assert isinstance(event.match, m.MatchRead)
    entered, corrected, removed, updated, reissued, ended = events[3:]
    assert isinstance(entered.round_, m.RoundRead) and entered.round_.number == 3
    assert isinstance(entered.round_.input_, m.AlkortPoints) and entered.round_.input_.points == 6
    assert corrected.round_.input_.points == 7
    assert removed.number == 3
    assert [p.name for p in updated.match.players] == renamed
    assert (reissued.role, reissued.seat) == (m.TokenRole.PLAYER, 1)
    assert ended.match.status is m.MatchStatus.ENDED


def test_follow_stops_when_its_token_is_reissued(guide: Guide, server: LiveServer) -> None:
    with httpx.Client(base_url=server.url, timeout=WAIT) as api:
        created = create_alkort(api)
        match_id, tokens = created["id"], created["tokens"]
        follow, link = follower(guide, server, tokens["viewer"], match_id)
        follow.wait_for(1)
        host = {"Authorization": f"Bearer {tokens['host']}"}
        reissue = {"role": "viewer"}
        ok(api.post(f"/v1/matches/{match_id}/tokens", headers=host, json=reissue), 200)
        events = follow.finish()
    assert [(e.kind, e.version) for e in events] == [
        ("snapshot", 1),
        ("token_reissued", 2),
        ("revoked", 2),
    ]
    assert link.last_event_ids == [None]


def test_follow_on_an_ended_match_yields_its_snapshot_and_stops(
    guide: Guide, server: LiveServer
) -> None:
    """The stream of an ended match sends the snapshot and closes: follow must not reopen
    it (it would get ``: following`` and a close, again and again)."""
    with httpx.Client(base_url=server.url, timeout=WAIT) as api:
        created = create_alkort(api)
        match_id, tokens = created["id"], created["tokens"]
        host = {"Authorization": f"Bearer {tokens['host']}"}
        ok(api.post(f"/v1/matches/{match_id}/end", headers=host), 200)
        follow, link = follower(guide, server, tokens["viewer"], match_id)
        events = follow.finish()
    assert [(e.kind, e.version, str(e.match.status)) for e in events] == [("snapshot", 2, "ended")]
    assert link.last_event_ids == [None]


def test_follow_raises_what_the_server_refuses(guide: Guide, server: LiveServer) -> None:
    """A 401 is an answer, not a dropped connection: follow raises it, and does not retry."""
    with httpx.Client(base_url=server.url, timeout=WAIT) as api:
        match_id = create_alkort(api)["id"]
    follow, link = follower(guide, server, "no-such-token", match_id)
    follow.join(WAIT)
    assert isinstance(follow.error, httpx.HTTPStatusError), follow.error
    assert follow.error.response.status_code == 401
    assert link.last_event_ids == [None]


# --- Against a written stream -------------------------------------------------------------


def example(kind: str, version: int) -> dict[str, Any]:
    """The document's example of an event of this kind, at this version."""
    schemas = json.loads(SPEC.read_text(encoding="utf-8"))["components"]["schemas"]
    name = schemas["MatchEvent"]["discriminator"]["mapping"][kind].rsplit("/", 1)[-1]
    event = {**schemas[name]["examples"][0], "version": version}
    if "match" in event:
        event["match"] = {**event["match"], "version": version}
    return event


def frame(kind: str, version: int) -> bytes:
    data = json.dumps(example(kind, version))
    return f"event: {kind}\ndata: {data}\nid: {version}\n\n".encode()


HEARTBEAT = b": heartbeat\n\n"


def written(*streams: bytes) -> tuple[httpx.Client, list[str | None]]:
    """A client whose n-th request to the stream gets the n-th written stream."""
    last_event_ids: list[str | None] = []

    def answer(request: httpx.Request) -> httpx.Response:
        last_event_ids.append(request.headers.get("Last-Event-ID"))
        assert len(last_event_ids) <= len(streams), f"reopened again: {last_event_ids}"
        body = streams[len(last_event_ids) - 1]
        return httpx.Response(200, headers={"Content-Type": "text/event-stream"}, content=body)

    transport = httpx.MockTransport(answer)
    return httpx.Client(base_url="http://squarescores.test", transport=transport), last_event_ids


def test_a_heartbeat_between_events_is_no_event(guide: Guide) -> None:
    client, last_event_ids = written(
        HEARTBEAT
        + frame("snapshot", 1)
        + HEARTBEAT
        + frame("round_entered", 2)
        + HEARTBEAT
        + b": following\n\n"
        + frame("ended", 3)
    )
    events = list(guide.follow(client, "m", retry=RETRY))
    assert [(e.kind, e.version) for e in events] == [
        ("snapshot", 1),
        ("round_entered", 2),
        ("ended", 3),
    ]
    assert last_event_ids == [None]


def test_resync_reopens_the_stream_afresh(guide: Guide) -> None:
    """After ``resync`` the stream is opened again without Last-Event-ID: a new snapshot."""
    client, last_event_ids = written(
        frame("snapshot", 1) + frame("round_entered", 2) + frame("resync", 2),
        frame("snapshot", 40) + frame("ended", 41),
    )
    events = list(guide.follow(client, "m", retry=RETRY))
    assert [(e.kind, e.version) for e in events] == [
        ("snapshot", 1),
        ("round_entered", 2),
        ("snapshot", 40),
        ("ended", 41),
    ]
    assert last_event_ids == [None, None]


def test_httpx_sse_still_passes_a_comment_after_an_id_on_as_an_event() -> None:
    """Why follow skips events without data (httpx-sse issue 35). When this fails,
    httpx-sse ignores such comments as the SSE standard says, and the skip can go."""
    body = frame("snapshot", 1) + HEARTBEAT
    response = httpx.Response(200, headers={"Content-Type": "text/event-stream"}, content=body)
    events = list(EventSource(response).iter_sse())
    assert [(sse.event, sse.data, sse.id) for sse in events[1:]] == [("message", "", "1")]
