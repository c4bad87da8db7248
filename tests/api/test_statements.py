"""The statements the requests every phone makes send to the database: each is a
round trip to PostgreSQL, so their number is part of the design
(docs/architecture.md, "One unit of work per request"). Transaction control (BEGIN, COMMIT) is
not counted: SQLite's BEGIN is a statement, PostgreSQL's driver sends its own."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import bindparam, event, func, select

from app.db import repository
from tests.api.helpers import Table, amounts


@contextmanager
def statements(client: TestClient) -> Iterator[list[str]]:
    """The statements the app's engine runs for requests inside the block, in order."""
    with recorded(client) as seen:
        texts: list[str] = []
        yield texts
    texts.extend(statement for _, statement in seen)


@contextmanager
def recorded(client: TestClient) -> Iterator[list[tuple[str, str]]]:
    """(thread, statement) of each statement run for requests inside the block."""
    engine = client.app.state.db.engine  # type: ignore[attr-defined]
    seen: list[tuple[str, str]] = []

    def record(*args: Any) -> None:
        statement = " ".join(args[2].replace('"', "").split())
        if statement.upper().startswith("BEGIN"):
            return  # a transaction's start
        seen.append((threading.current_thread().name, statement))

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
    sqlite = table.client.app.state.db.is_sqlite  # type: ignore[attr-defined]
    lock, *writes = seen
    assert lock.startswith("SELECT") and " JOIN credential " in lock
    if sqlite:
        assert len(seen) == 4, _first_words(seen)
        insert_round, update_match, log_change = writes
        assert insert_round.startswith("INSERT INTO round "), insert_round
        assert update_match.startswith("UPDATE match "), update_match
        assert log_change.startswith("INSERT INTO match_change "), log_change
    else:
        assert lock.endswith("FOR UPDATE OF match, credential")  # (SQLite: a writer's lock)
        # The round inserted, the match row updated, the change logged and the live
        # streams told, in one statement.
        assert len(seen) == 2, _first_words(seen)
        (saved,) = writes
        assert saved.startswith("WITH "), saved
        for part in ("UPDATE match SET ", "INSERT INTO round ", "INSERT INTO match_change "):
            assert part in saved, (part, saved)
        assert "pg_notify(" in saved, saved


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("PATCH", "", {"players": ["Anna", "Berta", "Dóra"]}),
        ("POST", "/end", None),
        ("PUT", "/rounds/1", amounts(-1, -1, 2)),
        ("DELETE", "/rounds/1", None),
        ("POST", "/tokens", {"role": "viewer"}),
    ],
)
def test_every_change_is_written_and_announced_together(
    table: Table, method: str, path: str, body: Any
) -> None:
    """Every write ends with the match row and the change log written, on PostgreSQL in
    one statement that also tells the other processes (pg_notify)."""
    table.round(amounts(2, -1, -1))
    with statements(table.client) as seen:
        response = table.client.request(method, table.url + path, json=body, headers=table.auth())
    assert response.status_code in (200, 201, 204), response.text
    sqlite = table.client.app.state.db.is_sqlite  # type: ignore[attr-defined]
    updates = [s for s in seen if "UPDATE match SET " in s]
    logs = [s for s in seen if "INSERT INTO match_change " in s]
    assert len(updates) == len(logs) == 1, _first_words(seen)
    if sqlite:
        assert updates[0] != logs[0], _first_words(seen)
    else:
        assert updates == logs and "pg_notify(" in logs[0], _first_words(seen)


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


def test_a_write_with_a_key_claims_it_once_the_caller_is_checked(table: Table) -> None:
    call: Callable[[], Any] = lambda: table.post(  # noqa: E731
        "/rounds", amounts(2, -1, -1), headers={"Idempotency-Key": "k-statements"}
    )
    with statements(table.client) as seen:
        first = call()
    assert first.status_code == 201, first.text
    # The statements of a round entered (above) with the claim after the caller's
    # check, and the response kept.
    sqlite = table.client.app.state.db.is_sqlite  # type: ignore[attr-defined]
    assert len(seen) == (6 if sqlite else 4), _first_words(seen)
    assert " JOIN credential " in seen[0] and "idempotency_key" in seen[1], _first_words(seen)
    with statements(table.client) as seen:
        replay = call()
    assert replay.status_code == 201 and replay.headers["Idempotent-Replayed"] == "true"
    assert replay.json() == first.json()
    # The caller checked, then the claim finds the key taken and reads the kept
    # response: nothing is written.
    assert len(seen) == 3, _first_words(seen)
    assert " JOIN credential " in seen[0] and "idempotency_key" in seen[-1], _first_words(seen)


LONG = 303  # rounds: longer than an evening


def test_a_long_match_reads_the_same_whole_and_by_pages(table: Table) -> None:
    """A sheet, a page, a round and a correction of a long match agree with each other."""
    for k in range(LONG):
        table.round(amounts(2, -1, -1) if k % 2 else amounts(-2, 4, -2))
    first_page = table.get("/rounds?limit=3")
    answers = {
        "sheet": table.get("/sheet"),
        "page": table.get(f"/rounds?after={LONG - 3}&limit=3"),
        "round": table.get(f"/rounds/{LONG}"),
        "correction": table.put("/rounds/1", amounts(-1, -1, 2)),
    }
    for name, answer in answers.items():
        assert answer.status_code == 200, (name, answer.text)
    rows = answers["sheet"].json()["rows"]
    page = answers["page"].json()["items"]
    assert len(rows) == LONG
    assert [item["number"] for item in page] == [LONG - 2, LONG - 1, LONG]
    assert answers["round"].json() == page[-1]
    assert [row["cells"] for row in rows[:3]] == [
        item["result"]["cells"] for item in first_page.json()["items"]
    ]
    assert [row["cells"] for row in rows[-3:]] == [item["result"]["cells"] for item in page]
    assert table.get("/sheet").json()["totals"] == table.match()["totals"]


def test_a_correction_writes_the_round_its_revision_and_the_match_together(table: Table) -> None:
    """A correction reads the round with its latest revision's action in one statement;
    on PostgreSQL the round, its revision, the match and the change log are then one
    statement. (The first correction of a round records its first input before.)"""
    table.round(amounts(2, -1, -1))
    table.round(amounts(-1, 2, -1))
    first = table.client.put(table.url + "/rounds/1", json=amounts(-1, -1, 2), headers=table.auth())
    assert first.status_code == 200, first.text
    with statements(table.client) as seen:
        response = table.client.put(
            table.url + "/rounds/1", json=amounts(4, -2, -2), headers=table.auth()
        )
    assert response.status_code == 200, response.text
    lock, points, round_row, *writes = seen
    assert " JOIN credential " in lock
    assert points.startswith("SELECT round.points FROM round "), points
    assert round_row.startswith("SELECT round.id") and "round_revision.action" in round_row
    if table.client.app.state.db.is_sqlite:  # type: ignore[attr-defined]
        starts = ("UPDATE round SET ", "INSERT INTO round_revision ", "UPDATE match SET ")
        assert len(writes) == 4, _first_words(seen)
        for write, start in zip(writes, (*starts, "INSERT INTO match_change "), strict=True):
            assert write.startswith(start), (start, write)
    else:
        (saved,) = writes
        for part in (
            "UPDATE round SET ",
            "INSERT INTO round_revision ",
            "UPDATE match SET ",
            "INSERT INTO match_change ",
            "pg_notify(",
        ):
            assert part in saved, (part, saved)
    history = table.get("/rounds/1/history").json()["items"]
    assert [item["action"] for item in history] == ["entered", "corrected", "corrected"]
    assert [item["input"]["amounts"] for item in history] == [[2, -1, -1], [-1, -1, 2], [4, -2, -2]]


def test_an_undo_removes_the_round_and_records_it_with_the_change(table: Table) -> None:
    table.round(amounts(2, -1, -1))
    table.round(amounts(-1, 2, -1))
    with statements(table.client) as seen:
        response = table.client.delete(table.url + "/rounds/2", headers=table.auth())
    assert response.status_code == 204, response.text
    lock, points, round_row, entered, *writes = seen
    assert " JOIN credential " in lock and points.startswith("SELECT round.points FROM round ")
    assert "round_revision.action" in round_row
    assert entered.startswith("INSERT INTO round_revision "), entered  # its first input
    if table.client.app.state.db.is_sqlite:  # type: ignore[attr-defined]
        assert [w.split(" ")[0] for w in writes] == ["DELETE", "INSERT", "UPDATE", "INSERT"]
    else:
        (saved,) = writes
        for part in (
            "DELETE FROM round ",
            "INSERT INTO round_revision ",
            "UPDATE match SET ",
            "INSERT INTO match_change ",
            "pg_notify(",
        ):
            assert part in saved, (part, saved)
    assert table.get().json()["round_count"] == 1
    history = table.get("/rounds/2/history").json()["items"]
    assert [item["action"] for item in history] == ["entered", "removed"]


def test_a_change_statement_names_no_parameter_after_a_column() -> None:
    """SQLAlchemy takes a parameter named after a column of the table an UPDATE or an
    INSERT writes for that column's new value, in a CTE too: the change's statement is
    refused when it is built if one would be (it never is today: every name has a
    prefix)."""
    statement = select(func.pg_notify(bindparam("channel"), bindparam("version")))
    with pytest.raises(ValueError, match=r"\['version'\]"):
        repository.no_parameter_named_as_a_column(statement)
    fine = select(func.pg_notify(bindparam("channel"), bindparam("set_version")))
    assert repository.no_parameter_named_as_a_column(fine) is fine
