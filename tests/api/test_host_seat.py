"""The host's seat: which player holds the host's phone (``host_seat``), so that what
the host's token enters (recorded as ``host``) can be named after that player."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.db import repository
from tests.api.helpers import PLAYERS, Table, amounts


def _last_event(table: Table) -> dict[str, Any]:
    db = table.client.app.state.db  # type: ignore[attr-defined]
    rows = db.run_now(lambda uow: repository.changes_after(uow.connection, table.id, 0, limit=1000))
    payload: dict[str, Any] = rows[-1][1]
    return payload


def test_a_match_created_without_a_host_seat_has_none(table: Table) -> None:
    assert table.created["host_seat"] is None
    assert table.match()["host_seat"] is None


def test_a_match_created_with_a_host_seat_reads_it_back(make_table: Any) -> None:
    table = make_table(host_seat=2)
    assert table.created["host_seat"] == 2
    assert table.match()["host_seat"] == 2
    entered = table.round(amounts(2, -1, -1))
    assert entered["entered_by"] == "host"  # the record stays: clients map it to seat 2


def test_an_own_table_takes_any_of_its_seats(client: TestClient) -> None:
    body = {"game": "own_table", "players": ["A", "B", "C", "D", "E"], "host_seat": 4}
    table = Table(client, body)
    assert table.match()["host_seat"] == 4


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"game": "asszorti", "players": PLAYERS, "host_seat": 3}, "host_seat"),
        ({"game": "asszorti", "players": PLAYERS, "host_seat": -1}, "host_seat"),
        # An own table's seats are as many as its players: the service says which.
        ({"game": "own_table", "players": ["A", "B", "C"], "host_seat": 3}, "no seat 3"),
        ({"game": "asszorti", "players": PLAYERS, "host_seat": 1.5}, "host_seat"),
    ],
)
def test_a_host_seat_that_is_not_a_seat_of_the_table_is_refused(
    client: TestClient, body: dict[str, Any], where: str
) -> None:
    response = client.post("/v1/matches", json=body)
    assert response.status_code == 422, response.text
    problem = response.json()
    assert response.headers["content-type"].startswith("application/problem+json")
    assert [error["loc"] for error in problem["errors"]] == [["body", "host_seat"]]
    assert where in problem["detail"]


def test_the_host_sets_changes_and_clears_the_host_seat(table: Table) -> None:
    version = table.match()["version"]
    patched = table.patch({"host_seat": 1})
    assert patched.status_code == 200, patched.text
    assert patched.json()["host_seat"] == 1 and patched.json()["version"] == version + 1
    event = _last_event(table)
    assert event["kind"] == "match_updated" and event["match"]["host_seat"] == 1
    assert event["match"] == table.match()

    # A PATCH that leaves it out leaves it alone.
    assert table.patch({"settings": {"kontra": False}}).json()["host_seat"] == 1
    assert table.patch({"host_seat": 0}).json()["host_seat"] == 0

    cleared = table.patch({"host_seat": None})
    assert cleared.status_code == 200 and cleared.json()["host_seat"] is None
    assert table.match()["host_seat"] is None
    assert _last_event(table)["match"]["host_seat"] is None


def test_a_patch_to_the_same_host_seat_changes_nothing(make_table: Any) -> None:
    table = make_table(host_seat=1)
    version = table.match()["version"]
    same = table.patch({"host_seat": 1})
    assert same.status_code == 200 and same.json()["version"] == version


def test_a_patch_host_seat_outside_the_table_is_refused_and_changes_nothing(
    make_table: Any,
) -> None:
    table = make_table(host_seat=1)
    before = table.snapshot()
    for seat in (3, -1):
        refused = table.patch({"host_seat": seat})
        assert refused.status_code == 422, refused.text
        assert [e["loc"] for e in refused.json()["errors"]] == [["body", "host_seat"]]
    assert table.snapshot() == before


def test_only_the_host_sets_the_host_seat(table: Table) -> None:
    refused = table.patch({"host_seat": 1}, who=1)
    assert refused.status_code == 403
    assert table.match()["host_seat"] is None


def test_every_event_carries_the_host_seat(make_table: Any) -> None:
    table = make_table(host_seat=2)
    table.round(amounts(2, -1, -1))
    event = _last_event(table)
    assert event["kind"] == "round_entered" and event["match"]["host_seat"] == 2
    assert table.post("/end").status_code == 200
    event = _last_event(table)
    assert event["kind"] == "ended" and event["match"]["host_seat"] == 2


def test_a_rematch_keeps_the_host_seat(make_table: Any) -> None:
    table = make_table(host_seat=2)
    table.round(amounts(2, -1, -1))
    assert table.post("/end").status_code == 200
    started = table.post("/rematch")
    assert started.status_code == 201, started.text
    new = started.json()
    assert new["host_seat"] == 2 and new["players"] == table.match()["players"]
    read = table.client.get(
        f"/v1/matches/{new['id']}", headers={"Authorization": f"Bearer {new['tokens']['host']}"}
    )
    assert read.json()["host_seat"] == 2


def test_a_rematch_of_a_match_without_a_host_seat_has_none(table: Table) -> None:
    assert table.post("/end").status_code == 200
    started = table.post("/rematch")
    assert started.status_code == 201 and started.json()["host_seat"] is None
