"""A live event carries the match exactly as GET /v1/matches/{id} answers it at that
version, and the round as GET .../rounds/{n} does: the use cases build the event's
JSON without the API's models, so this holds them to the same shape."""

from __future__ import annotations

from typing import Any

from app.db import repository
from tests.api.helpers import Table, amounts


def _last_event(table: Table) -> dict[str, Any]:
    db = table.client.app.state.db  # type: ignore[attr-defined]
    rows = db.run_now(lambda uow: repository.changes_after(uow.connection, table.id, 0, limit=1000))
    payload: dict[str, Any] = rows[-1][1]
    return payload


def test_each_event_carries_the_match_and_round_as_get_answers_them(table: Table) -> None:
    table.round(amounts(2, -1, -1))
    event = _last_event(table)
    assert event["kind"] == "round_entered"
    assert event["match"] == table.match()
    assert event["round"] == table.get("/rounds/1").json()

    assert table.put("/rounds/1", amounts(-2, 4, -2)).status_code == 200
    event = _last_event(table)
    assert event["kind"] == "round_corrected"
    assert event["match"] == table.match() and event["round"] == table.get("/rounds/1").json()

    table.round(amounts(4, -2, -2))
    assert table.post("/end", None).status_code == 200
    event = _last_event(table)
    assert event["kind"] == "ended"
    ended = table.match()
    assert ended["status"] == "ended" and ended["settlement"] and ended["winner"]
    assert event["match"] == ended
