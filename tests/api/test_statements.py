"""The statements the requests every phone makes send to the database: each is a
round trip to PostgreSQL, so their number is part of the design
(docs/architecture.md, "Units of work"). Transaction control (BEGIN, COMMIT) is
not counted: SQLite's BEGIN is a statement, PostgreSQL's driver sends its own."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import event

from app.db.database import SHORT_ROUNDS
from tests.api.helpers import Table, amounts


@contextmanager
def statements(client: TestClient) -> Iterator[list[str]]:
    """The statements the app's engine runs for requests inside the block, in order."""
    engine = client.app.state.db.engine  # type: ignore[attr-defined]
    seen: list[str] = []

    def record(*args: Any) -> None:
        statement = " ".join(args[2].replace('"', "").split())
        if statement.upper().startswith("BEGIN"):
            return
        if statement.startswith("SELECT match_change.id, match_change.match_id FROM"):
            return  # the live streams' poller (SQLite, app.live), not the request
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def _first_words(seen: list[str]) -> list[str]:
    return [statement.split(" (")[0][:40] for statement in seen]


def test_entering_a_round_reads_the_caller_and_the_match_in_one_statement(
    table: Table,
) -> None:
    table.round(amounts(2, -1, -1))
    with statements(table.client) as seen:
        response = table.post("/rounds", amounts(2, -1, -1), who=1)
    assert response.status_code == 201, response.text
    assert len(seen) == 4, _first_words(seen)
    lock, insert_round, update_match, log_change = seen
    assert lock.startswith("SELECT") and " JOIN credential " in lock
    assert insert_round.startswith("INSERT INTO round ")
    assert update_match.startswith("UPDATE match "), update_match
    assert "INSERT INTO match_change " in log_change


def test_reading_the_match_is_one_statement(table: Table) -> None:
    with statements(table.client) as seen:
        response = table.get(who="viewer")
    assert response.status_code == 200, response.text
    assert len(seen) == 1, _first_words(seen)
    assert " JOIN credential " in seen[0]


def test_a_refused_write_says_why_and_writes_nothing(table: Table) -> None:
    """When the one statement finds no allowed caller, the reason is read after it:
    a viewer is 403, and nothing is inserted or updated."""
    before = table.snapshot()
    with statements(table.client) as seen:
        response = table.post("/rounds", amounts(2, -1, -1), who="viewer")
    assert response.status_code == 403, response.text
    assert response.json()["code"] == "forbidden"
    assert all(statement.startswith("SELECT") for statement in seen), _first_words(seen)
    assert table.snapshot() == before


def test_a_write_with_a_key_claims_it_before_the_match_is_locked(table: Table) -> None:
    call: Callable[[], Any] = lambda: table.post(  # noqa: E731
        "/rounds", amounts(2, -1, -1), headers={"Idempotency-Key": "k-statements"}
    )
    with statements(table.client) as seen:
        first = call()
    assert first.status_code == 201, first.text
    assert len(seen) == 6, _first_words(seen)  # the claim, the four, the response kept
    with statements(table.client) as seen:
        replay = call()
    assert replay.status_code == 201 and replay.headers["Idempotent-Replayed"] == "true"
    assert replay.json() == first.json()
    # The claim finds the key taken and reads the kept response; the caller is
    # checked before it is replayed, and the match is not locked.
    assert len(seen) == 3, _first_words(seen)
    assert seen[-1].startswith("SELECT credential.")


@contextmanager
def threads(client: TestClient) -> Iterator[set[str]]:
    """The threads the app's statements run in, inside the block."""
    engine = client.app.state.db.engine  # type: ignore[attr-defined]
    seen: set[str] = set()

    def record(*args: Any) -> None:
        if not args[2].startswith("SELECT match_change.id, match_change.match_id FROM"):
            seen.add(threading.current_thread().name)  # (not the live streams' poller)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def test_a_long_match_is_folded_in_the_long_lane_and_reads_the_same(table: Table) -> None:
    """Past SHORT_ROUNDS rounds, a sheet, a page, a round and a correction are folded
    in the long lane (on SQLite: a worker thread, not the event loop's), and answer
    as the short lane does."""
    for k in range(SHORT_ROUNDS + 3):
        table.round(amounts(2, -1, -1) if k % 2 else amounts(-2, 4, -2))
    with threads(table.client) as short:
        first_page = table.get("/rounds?limit=3")
    with threads(table.client) as long:
        sheet = table.get("/sheet")
        last_page = table.get(f"/rounds?after={SHORT_ROUNDS}&limit=3")
        last = table.get(f"/rounds/{SHORT_ROUNDS + 3}")
    assert first_page.status_code == sheet.status_code == last_page.status_code == 200
    if table.client.app.state.db.is_sqlite:  # type: ignore[attr-defined]
        # The short lane is the loop; a long unit starts there, and is run again in
        # the worker thread once it says it is long.
        assert len(short) == 1
        assert long - short, long
    rows = sheet.json()["rows"]
    assert len(rows) == SHORT_ROUNDS + 3
    numbers = [SHORT_ROUNDS + 1, SHORT_ROUNDS + 2, SHORT_ROUNDS + 3]
    assert [item["number"] for item in last_page.json()["items"]] == numbers
    assert last.json() == last_page.json()["items"][-1]
    assert [row["cells"] for row in rows[:3]] == [
        item["result"]["cells"] for item in first_page.json()["items"]
    ]
    assert [row["cells"] for row in rows[-3:]] == [
        item["result"]["cells"] for item in last_page.json()["items"]
    ]

    corrected = table.put("/rounds/1", amounts(-1, -1, 2))
    assert corrected.status_code == 200, corrected.text
    assert table.get("/sheet").json()["totals"] == table.match()["totals"]
