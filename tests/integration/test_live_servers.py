"""Real servers, real concurrency: no acknowledged round is lost or doubled.

Each scenario drives ``uvicorn app.main:app --workers 2`` (see ``tests/live.py``)
over loopback HTTP from many threads at once, on SQLite and on PostgreSQL, then
reads everything back and replays the stored rounds through an independent fold
of the Asszorti sheet rule.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

import httpx

from app.games.asszorti import AsszortiSettings, hand_values
from tests.live import LiveServer, json_of, server_output

# The fixtures, imported as explicit re-exports so pytest finds them here.
from tests.live import live_database_url as live_database_url
from tests.live import live_server as live_server

PLAYERS = ["Anna", "Berta", "Csaba"]
TIMEOUT = httpx.Timeout(30.0)
BARRIER_TIMEOUT = 30.0
WHO: list[str | int] = ["host", 0, 1, 2]  # the tokens the writers take turns with


# -- a match over HTTP ---------------------------------------------------------------------


@dataclass
class LiveTable:
    """A match created on a live server, with its tokens."""

    base_url: str
    id: str
    tokens: dict[str, Any]

    @classmethod
    def create(cls, server: LiveServer) -> LiveTable:
        with httpx.Client(base_url=server.url, timeout=TIMEOUT) as client:
            response = client.post("/v1/matches", json={"game": "asszorti", "players": PLAYERS})
        assert response.status_code == 201, (response.status_code, json_of(response))
        body = response.json()
        return cls(base_url=server.url, id=body["id"], tokens=body["tokens"])

    @property
    def path(self) -> str:
        return f"/v1/matches/{self.id}"

    def auth(self, who: str | int = "host") -> dict[str, str]:
        token = self.tokens["players"][who] if isinstance(who, int) else self.tokens[who]
        return {"Authorization": f"Bearer {token}"}

    def client(self, base_url: str | None = None) -> httpx.Client:
        return httpx.Client(base_url=base_url or self.base_url, timeout=TIMEOUT)

    def read(self, base_url: str | None = None) -> tuple[httpx.Response, list[dict[str, Any]]]:
        """The match (the response, for its ETag) and every stored round."""
        with self.client(base_url) as client:
            match = client.get(self.path, headers=self.auth("viewer"))
            rounds = client.get(self.path + "/rounds", headers=self.auth("viewer"))
            sheet = client.get(self.path + "/sheet", headers=self.auth("viewer"))
        assert match.status_code == 200, json_of(match)
        assert rounds.status_code == 200, json_of(rounds)
        assert sheet.status_code == 200, json_of(sheet)
        items: list[dict[str, Any]] = rounds.json()["items"]
        # The sheet view agrees with the match and its rounds.
        sheet_body = sheet.json()
        assert [row["number"] for row in sheet_body["rows"]] == [r["number"] for r in items]
        assert [row["cells"] for row in sheet_body["rows"]] == [r["result"]["cells"] for r in items]
        for key in ("totals", "owed", "net"):
            assert sheet_body[key] == match.json()[key], key
        return match, items


# -- round bodies ----------------------------------------------------------------------------

# What a hand can be worth from each opponent at a table with the default settings.
HAND_VALUES = sorted(x for x in hand_values(AsszortiSettings()) if x > 0)


def amounts_body(i: int) -> dict[str, Any]:
    """A distinct asszorti_amounts body per i, each a hand's (one seat nets 2X, the
    other two -X, X one a hand can be worth): winners and losers rotate so debts are
    run up and paid back."""
    x = HAND_VALUES[i % len(HAND_VALUES)]
    if i % 4 == 3:  # one big loser, two winners
        x = -x
    amounts = [-x, -x, -x]
    amounts[i % 3] = 2 * x
    assert sum(amounts) == 0
    return {"type": "asszorti_amounts", "amounts": amounts}


def hand_body(i: int) -> dict[str, Any]:
    """A played hand: declarer i % 3 makes contract 1 in diamonds with 7 tricks."""
    declarer = i % 3
    tricks = [2, 2, 2]
    tricks[declarer] = 7
    return {
        "type": "asszorti_hand",
        "declarer": declarer,
        "contract": "1",
        "trumps": "diamonds",
        "tricks": tricks,
        "kontra": "none",
    }


def same_input(sent: dict[str, Any], stored: dict[str, Any]) -> bool:
    """The stored input is what was sent (it may also spell out defaults, as null)."""
    return all(stored.get(k) == v for k, v in sent.items()) and all(
        stored[k] is None or k in sent for k in stored
    )


# -- the independent fold ---------------------------------------------------------------------


@dataclass
class Fold:
    totals: list[int] = field(default_factory=lambda: [0, 0, 0])
    owed: list[int] = field(default_factory=lambda: [0, 0, 0])
    net: list[int] = field(default_factory=lambda: [0, 0, 0])

    def apply(self, net: list[int]) -> list[int]:
        """The Asszorti sheet rule: a loss is owed, a win pays the debt first."""
        cells = []
        for seat, amount in enumerate(net):
            if amount <= 0:
                cells.append(0)
                self.owed[seat] += -amount
            else:
                paid = min(amount, self.owed[seat])
                cells.append(amount - paid)
                self.owed[seat] -= paid
            self.totals[seat] += cells[-1]
            self.net[seat] += amount
        return cells


def assert_sheet_is_fold(
    match: dict[str, Any], items: list[dict[str, Any]], other_writes: int = 0
) -> None:
    """Rounds are numbered 1..N, each row and the match equal a fold of the stored nets.

    ``other_writes``: writes to the match besides entering rounds (each bumps the version).
    """
    numbers = [item["number"] for item in items]
    assert numbers == list(range(1, len(items) + 1)), f"round numbers {numbers}"
    assert match["round_count"] == len(items)
    assert match["version"] == 1 + len(items) + other_writes
    fold = Fold()
    for item in items:
        result = item["result"]
        if item["type"] == "asszorti_amounts":
            assert result["net"] == item["input"]["amounts"], item
        assert sum(result["net"]) == 0, item
        cells = fold.apply(result["net"])
        where = f"round {item['number']}"
        assert result["cells"] == cells, where
        assert result["totals"] == fold.totals, where
        assert result["owed"] == fold.owed, where
    assert (match["totals"], match["owed"], match["net"]) == (fold.totals, fold.owed, fold.net)


# -- running many requests at once -----------------------------------------------------------


def at_once(
    server: LiveServer, count: int, request: Callable[[httpx.Client, int], httpx.Response]
) -> list[httpx.Response]:
    """Send ``count`` requests from ``count`` clients, released together by a barrier."""
    assert count <= 50
    barrier = threading.Barrier(count)
    with ExitStack() as stack:
        clients = [
            stack.enter_context(httpx.Client(base_url=server.url, timeout=TIMEOUT))
            for _ in range(count)
        ]

        def one(i: int) -> httpx.Response:
            barrier.wait(timeout=BARRIER_TIMEOUT)
            return request(clients[i], i)

        with ThreadPoolExecutor(count) as pool:
            return list(pool.map(one, range(count)))


def describe(responses: list[httpx.Response]) -> list[tuple[int, Any]]:
    return [(r.status_code, json_of(r)) for r in responses]


def problem_code(response: httpx.Response) -> Any:
    body = json_of(response)
    return body.get("code") if isinstance(body, dict) else body


# -- a. many writers, one match ---------------------------------------------------------------

WRITERS = 50


def test_concurrent_rounds_are_numbered_once_each(live_server: LiveServer) -> None:
    table = LiveTable.create(live_server)
    bodies = [hand_body(i) if i % 5 == 4 else amounts_body(i) for i in range(WRITERS)]

    def post(client: httpx.Client, i: int) -> httpx.Response:
        return client.post(
            table.path + "/rounds", json=bodies[i], headers=table.auth(WHO[i % len(WHO)])
        )

    responses = at_once(live_server, WRITERS, post)

    statuses = [r.status_code for r in responses]
    assert statuses == [201] * WRITERS, (
        f"{describe([r for r in responses if r.status_code != 201])}\n" + server_output(live_server)
    )
    acked = {r.json()["number"]: (i, r.json()) for i, r in enumerate(responses)}
    assert sorted(r.json()["number"] for r in responses) == list(range(1, WRITERS + 1))

    match, items = table.read()
    assert match.json()["round_count"] == WRITERS
    assert match.json()["version"] == WRITERS + 1
    assert match.headers["ETag"] == f'"v{WRITERS + 1}"'
    assert_sheet_is_fold(match.json(), items)
    for item in items:
        i, answered = acked[item["number"]]
        assert same_input(bodies[i], item["input"]), (bodies[i], item)
        assert item["result"] == answered["result"], item["number"]
        assert item["entered_by"] == answered["entered_by"]


# -- b. one idempotent request, retried at once --------------------------------------------------

RETRIES = 20


def test_concurrent_retries_of_one_key_write_once(live_server: LiveServer) -> None:
    table = LiveTable.create(live_server)
    key = str(uuid.uuid4())
    body = amounts_body(7)

    def post(client: httpx.Client, _: int) -> httpx.Response:
        headers = {**table.auth(1), "Idempotency-Key": key}
        return client.post(table.path + "/rounds", json=body, headers=headers)

    responses = at_once(live_server, RETRIES, post)

    created = [r for r in responses if r.status_code == 201]
    others = [r for r in responses if r.status_code != 201]
    assert all(
        r.status_code == 409 and problem_code(r) == "idempotency_key_in_flight" for r in others
    ), f"{describe(others)}\n" + server_output(live_server)
    assert created, describe(responses)
    first = [r for r in created if r.headers.get("Idempotent-Replayed") != "true"]
    assert len(first) == 1, [dict(r.headers) for r in created]
    assert all(r.json() == first[0].json() for r in created), describe(created)
    for header in ("ETag", "Location"):
        assert {r.headers.get(header) for r in created} == {first[0].headers[header]}, header
    assert first[0].json()["number"] == 1

    match, items = table.read()
    assert match.json()["round_count"] == 1
    assert match.json()["version"] == 2
    assert_sheet_is_fold(match.json(), items)
    assert same_input(body, items[0]["input"])

    # The same key with another body is refused, and nothing is written.
    with table.client() as client:
        reused = client.post(
            table.path + "/rounds",
            json=amounts_body(8),
            headers={**table.auth(1), "Idempotency-Key": key},
        )
        assert reused.status_code == 422, json_of(reused)
        assert problem_code(reused) == "idempotency_key_reused"
        # ...while the first body is still replayed.
        again = client.post(
            table.path + "/rounds", json=body, headers={**table.auth(1), "Idempotency-Key": key}
        )
        assert again.status_code == 201, json_of(again)
        assert again.headers.get("Idempotent-Replayed") == "true"
        assert again.json() == first[0].json()
    match, items = table.read()
    assert (match.json()["round_count"], match.json()["version"], len(items)) == (1, 2, 1)


# -- c. two players end the match at once ---------------------------------------------------------


def test_two_players_ending_at_once_end_it_once(live_server: LiveServer) -> None:
    table = LiveTable.create(live_server)
    with table.client() as client:
        for i in range(3):
            response = client.post(
                table.path + "/rounds", json=amounts_body(i), headers=table.auth(0)
            )
            assert response.status_code == 201, json_of(response)
    enders = [0, 1]

    def end(client: httpx.Client, i: int) -> httpx.Response:
        return client.post(table.path + "/end", headers=table.auth(enders[i]))

    responses = at_once(live_server, len(enders), end)

    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200, 409], f"{describe(responses)}\n" + server_output(live_server)
    loser = next(r for r in responses if r.status_code == 409)
    assert problem_code(loser) == "match_ended", json_of(loser)
    winner_seat = enders[next(i for i, r in enumerate(responses) if r.status_code == 200)]
    ended = next(r for r in responses if r.status_code == 200).json()

    match, items = table.read()
    body = match.json()
    assert body["status"] == "ended"
    assert body["ended_by"] in {f"seat:{seat}" for seat in enders}
    assert body["ended_by"] == f"seat:{winner_seat}" == ended["ended_by"]
    assert body["version"] == ended["version"] == 3 + 2
    assert_sheet_is_fold(body, items, other_writes=1)


# -- d. a stale If-Match, raced -------------------------------------------------------------------

RACERS = 10


def test_racing_writes_with_one_etag_let_one_through(live_server: LiveServer) -> None:
    table = LiveTable.create(live_server)
    with table.client() as client:
        response = client.post(table.path + "/rounds", json=amounts_body(0), headers=table.auth())
        assert response.status_code == 201, json_of(response)
    match, _ = table.read()
    tag = match.headers["ETag"]
    assert tag == '"v2"'

    def post(client: httpx.Client, i: int) -> httpx.Response:
        headers = {**table.auth(WHO[i % len(WHO)]), "If-Match": tag}
        return client.post(table.path + "/rounds", json=amounts_body(i + 1), headers=headers)

    responses = at_once(live_server, RACERS, post)

    created = [r for r in responses if r.status_code == 201]
    refused = [r for r in responses if r.status_code != 201]
    assert len(created) == 1, f"{describe(responses)}\n" + server_output(live_server)
    assert all(
        r.status_code == 412 and problem_code(r) == "precondition_failed" for r in refused
    ), describe(refused)
    assert created[0].json()["number"] == 2
    assert created[0].headers["ETag"] == '"v3"'

    match, items = table.read()
    assert match.json()["round_count"] == 2
    assert_sheet_is_fold(match.json(), items)
    assert items[1]["result"] == created[0].json()["result"]


# -- e. SIGKILL mid-burst -------------------------------------------------------------------------

BURST_THREADS = 6
BURST_ATTEMPTS = 300
KILL_AFTER_ACKS = 40
KILL_DEADLINE = 20.0


@dataclass
class Burst:
    """Rounds fired at one match from several threads until the server dies."""

    table: LiveTable
    server_url: str
    attempts: Iterator[int] = field(default_factory=lambda: itertools.count())
    lock: threading.Lock = field(default_factory=threading.Lock)
    acked: dict[int, tuple[int, dict[str, Any]]] = field(default_factory=dict)  # number -> ack
    sent: set[int] = field(default_factory=set)
    errors: list[tuple[int, str]] = field(default_factory=list)
    unexpected: list[tuple[int, int, Any]] = field(default_factory=list)
    two_acks_one_number: list[int] = field(default_factory=list)

    def next_attempt(self) -> int | None:
        with self.lock:
            i = next(self.attempts)
            if i >= BURST_ATTEMPTS:
                return None
            self.sent.add(i)
            return i

    def fire(self, thread: int) -> None:
        with self.table.client(self.server_url) as client:
            while (i := self.next_attempt()) is not None:
                try:
                    response = client.post(
                        self.table.path + "/rounds",
                        json=amounts_body(i),
                        headers=self.table.auth(WHO[thread % len(WHO)]),
                    )
                except httpx.TransportError as error:
                    with self.lock:
                        self.errors.append((i, f"{type(error).__name__}: {error}"))
                    return  # the server is gone: this writer stops
                with self.lock:
                    if response.status_code == 201:
                        answered = response.json()
                        if answered["number"] in self.acked:
                            self.two_acks_one_number.append(answered["number"])
                        self.acked[answered["number"]] = (i, answered)
                    else:
                        self.unexpected.append((i, response.status_code, json_of(response)))
                        return


def test_sigkill_mid_burst_loses_no_acknowledged_round(live_database_url: str) -> None:
    with LiveServer(live_database_url) as server:
        table = LiveTable.create(server)
        burst = Burst(table=table, server_url=server.url)
        threads = [
            threading.Thread(target=burst.fire, args=(t,), daemon=True)
            for t in range(BURST_THREADS)
        ]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + KILL_DEADLINE
        while time.monotonic() < deadline:
            with burst.lock:
                if len(burst.acked) >= KILL_AFTER_ACKS or burst.unexpected:
                    break
            time.sleep(0.005)
        time.sleep(random.uniform(0.0, 0.02))  # land the kill at varying points
        server.kill()
        with burst.lock:
            sent_before_kill = len(burst.sent)
        for thread in threads:
            thread.join(timeout=60)
        assert not any(thread.is_alive() for thread in threads), "a writer did not stop"

        log = server_output(server)
        assert not burst.unexpected, f"{burst.unexpected[:5]}\n{log}"
        assert not burst.two_acks_one_number, f"two 201s named rounds {burst.two_acks_one_number}"
        assert len(burst.acked) >= KILL_AFTER_ACKS, f"only {len(burst.acked)} acks\n{log}"
        assert sent_before_kill < BURST_ATTEMPTS, "the burst ended before the kill"

        server.start()  # the same database, a fresh server
        match, items = table.read(server.url)
        stored = {item["number"]: item for item in items}
        log = server_output(server)

        # Every acknowledged round is there, as it was entered and as it was answered.
        for number, (i, answered) in sorted(burst.acked.items()):
            assert number in stored, f"acknowledged round {number} is lost\n{log}"
            assert same_input(amounts_body(i), stored[number]["input"]), (number, i)
            assert stored[number]["result"] == answered["result"], number
        # No round is written twice, and nothing was stored that was never sent.
        by_body = {tuple(amounts_body(i)["amounts"]): i for i in burst.sent}
        stored_attempts = [by_body.get(tuple(item["input"]["amounts"])) for item in items]
        assert None not in stored_attempts, "a stored round matches no request sent"
        assert len(set(stored_attempts)) == len(stored_attempts), "a request was stored twice"
        assert len(items) >= len(burst.acked)
        assert_sheet_is_fold(match.json(), items)

        # The restarted server carries on from the stored sheet.
        with table.client(server.url) as client:
            response = client.post(
                table.path + "/rounds", json=amounts_body(BURST_ATTEMPTS), headers=table.auth()
            )
        assert response.status_code == 201, json_of(response)
        assert response.json()["number"] == len(items) + 1
        match, items = table.read(server.url)
        assert_sheet_is_fold(match.json(), items)
