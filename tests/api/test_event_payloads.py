"""A live event carries the match exactly as GET /v1/matches/{id} answers it at that
version, and the round as GET .../rounds/{n} does: the use cases build the event's
JSON without the API's models, so this holds them to the same shape."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from app.db import repository
from app.schemas import MatchEvent
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


def test_a_correction_carries_the_later_rows_it_changed(table: Table) -> None:
    """Correcting an early Asszorti hand changes later cells (a win pays the debt
    first): the event carries every later row's cells as the sheet now has them."""
    table.round(amounts(-4, 2, 2))  # seat 0 owes 4
    table.round(amounts(6, -3, -3))  # ... and pays it first: its cell is 2
    table.round(amounts(2, -1, -1))
    before = [row["cells"] for row in table.get("/sheet").json()["rows"]]
    assert table.put("/rounds/1", amounts(2, -1, -1)).status_code == 200
    event = _last_event(table)
    after = [row["cells"] for row in table.get("/sheet").json()["rows"]]
    assert after[1] != before[1]  # the correction moved a later row
    assert event["kind"] == "round_corrected"
    assert event["round"]["result"]["cells"] == after[0]
    assert event["later_cells"] == after[1:]


def test_every_event_is_the_member_of_the_event_union_its_kind_names(table: Table) -> None:
    """Each change a stream sends parses as the `MatchEvent` member of its `kind`, and
    dumps back to the same JSON (nothing lost or changed), as a generated client reads
    it; so do the events a stream makes itself."""
    table.round(amounts(2, -1, -1))
    table.round(amounts(4, -2, -2))
    assert table.put("/rounds/2", amounts(-2, 4, -2)).status_code == 200
    assert table.delete("/rounds/2").status_code == 204
    assert table.patch({"settings": {"kontra": False}}).status_code == 200
    assert table.post("/tokens", {"role": "player", "seat": 1}).status_code == 200
    assert table.post("/end", None).status_code == 200
    db = table.client.app.state.db  # type: ignore[attr-defined]
    rows = db.run_now(lambda uow: repository.changes_after(uow.connection, table.id, 0, limit=1000))
    events = [payload for _, payload in rows]
    events += [{"kind": "resync", "version": 9}, {"kind": "revoked", "version": 9}]
    reader = TypeAdapter(MatchEvent)
    kinds = []
    for event in events:
        parsed = reader.validate_python(event)
        kinds.append(parsed.kind)
        assert type(parsed).__name__ == KIND_CLASSES[event["kind"]]
        assert parsed.model_dump(mode="json") == event  # nothing lost or changed
    assert set(kinds) == set(KIND_CLASSES) - {"snapshot"}
    snapshot = {"kind": "snapshot", "version": table.match()["version"], "match": table.match()}
    assert type(reader.validate_python(snapshot)).__name__ == "SnapshotEvent"


KIND_CLASSES = {
    "snapshot": "SnapshotEvent",
    "round_entered": "RoundEnteredEvent",
    "round_corrected": "RoundCorrectedEvent",
    "round_removed": "RoundRemovedEvent",
    "match_updated": "MatchUpdatedEvent",
    "token_reissued": "TokenReissuedEvent",
    "ended": "EndedEvent",
    "resync": "ResyncEvent",
    "revoked": "RevokedEvent",
}
