"""A typo in a name is fixed in place, and an ended evening starts again at once:
rename a player, start a rematch."""

from __future__ import annotations

import uuid

from fastapi.testclient import TestClient

from tests.api.helpers import Table, amounts
from tests.api.test_event_payloads import _last_event


def _rename(table: Table, seat: int, name: str, who: str | int = "host", **headers: str) -> object:
    return table.client.patch(
        f"{table.url}/players/{seat}", json={"name": name}, headers={**table.auth(who), **headers}
    )


def test_host_renames_a_player_everywhere_and_the_history_records_it(table: Table) -> None:
    table.round(amounts(-9, 18, -9))
    before = table.match()
    renamed = _rename(table, 1, "Bertalan")
    assert renamed.status_code == 200, renamed.text
    assert renamed.headers["etag"] == f'"v{before["version"] + 1}"'
    assert renamed.json()["players"][1] == {"seat": 1, "name": "Bertalan"}
    assert table.match()["players"][1]["name"] == "Bertalan"
    sheet = table.get("/sheet", headers={"Accept": "text/csv"})
    assert "Bertalan" in sheet.text and "Berta," not in sheet.text
    history = table.get("/history", who="viewer").json()["items"]
    assert [(e["action"], e["seat"], e["old_name"], e["new_name"], e["by"]) for e in history] == [
        ("player_renamed", 1, "Berta", "Bertalan", "host")
    ]


def test_a_rename_is_a_live_match_updated_with_the_new_name(table: Table) -> None:
    assert _rename(table, 0, "Anikó").status_code == 200
    event = _last_event(table)
    assert event["kind"] == "match_updated" and event["version"] == 2
    assert event["match"] == table.match() and event["match"]["players"][0]["name"] == "Anikó"


def test_the_ended_match_tells_its_streams_of_its_rematch(table: Table) -> None:
    assert table.post("/end").status_code == 200
    new = _rematch(table).json()
    event = _last_event(table)
    assert event["kind"] == "match_updated" and event["match"]["rematch_id"] == new["id"]
    assert event["match"] == table.match()


def test_a_player_renames_their_own_seat_only(table: Table) -> None:
    own = _rename(table, 2, "Csabi", who=2)
    assert own.status_code == 200, own.text
    other = _rename(table, 0, "Annie", who=2)
    assert other.status_code == 403 and other.json()["code"] == "forbidden"
    viewer = _rename(table, 0, "Annie", who="viewer")
    assert viewer.status_code == 403
    assert [p["name"] for p in table.match()["players"]] == ["Anna", "Berta", "Csabi"]
    history = table.get("/history").json()["items"]
    assert [(e["seat"], e["by"]) for e in history] == [(2, "seat:2")]


def test_a_rename_is_checked_as_at_creation(table: Table) -> None:
    for name, words in (
        ("anna", "already the name of seat 0"),
        ("\u0410nna", "looks like 'Anna', the name of seat 0"),  # a Cyrillic A
        ("Csaba", "already the name of seat 2"),
    ):
        refused = _rename(table, 1, name)
        assert refused.status_code == 422, refused.text
        problem = refused.json()
        assert problem["code"] == "validation_error"
        assert problem["errors"][0]["loc"] == ["body", "name"]
        assert words in problem["errors"][0]["message"]
    for blank in ("   ", "\u200b", "x" * 41):
        refused = _rename(table, 1, blank)
        assert refused.status_code == 422 and refused.json()["errors"][0]["loc"][:2] == [
            "body",
            "name",
        ]
    seat = _rename(table, 3, "Dani")
    assert seat.status_code == 422 and seat.json()["errors"][0]["loc"] == ["path", "seat"]
    assert table.match()["version"] == 1 and table.get("/history").json()["items"] == []


def test_a_rename_to_its_own_name_changes_nothing(table: Table) -> None:
    same = _rename(table, 0, "Anna")
    assert same.status_code == 200 and same.json()["version"] == 1
    assert table.get("/history").json()["items"] == []


def test_a_rename_honours_if_match(table: Table) -> None:
    stale = _rename(table, 0, "Annie", **{"If-Match": '"v7"'})
    assert stale.status_code == 412 and stale.json()["code"] == "precondition_failed"
    fresh = _rename(table, 0, "Annie", **{"If-Match": '"v1"'})
    assert fresh.status_code == 200 and fresh.headers["etag"] == '"v2"'


def test_an_ended_match_can_still_be_renamed(table: Table) -> None:
    table.round(amounts(-9, 18, -9))
    assert table.post("/end").status_code == 200
    fixed = _rename(table, 0, "Anikó")
    assert fixed.status_code == 200, fixed.text
    assert fixed.json()["status"] == "ended" and fixed.json()["players"][0]["name"] == "Anikó"


def test_a_names_patch_is_in_the_history_too(table: Table) -> None:
    patched = table.patch({"players": ["Anna", "Bea", "Csaba"]})
    assert patched.status_code == 200
    history = table.get("/history").json()["items"]
    assert [(e["seat"], e["old_name"], e["new_name"]) for e in history] == [(1, "Berta", "Bea")]


def _rematch(table: Table, key: str | None = None, who: str | int = "host") -> object:
    headers = {"Idempotency-Key": key} if key is not None else {}
    return table.post("/rematch", None, who, headers)


def test_rematch_starts_a_linked_match_with_the_deal_moved_on(table: Table) -> None:
    table.round(amounts(-9, 18, -9))
    table.round(amounts(18, -9, -9))
    assert table.patch({"settings": {"kontra": False}}).status_code == 200
    assert table.post("/end").status_code == 200
    old = table.match()
    started = _rematch(table)
    assert started.status_code == 201, started.text
    assert started.headers["cache-control"] == "no-store"
    new = started.json()
    assert started.headers["location"] == f"/v1/matches/{new['id']}"
    assert new["id"] != table.id and new["rematch_of"] == table.id and new["rematch_id"] is None
    assert new["players"] == old["players"] and new["game"] == "asszorti"
    assert new["status"] == "in_progress" and new["round_count"] == 0
    # Rounds 1 and 2 were dealt by seats 0 and 1: seat 2 deals first.
    assert old["next_dealer"] == 2
    assert new["settings"] == {**old["settings"], "first_dealer": 2} and new["next_dealer"] == 2
    assert new["settings"]["kontra"] is False
    tokens = new["tokens"]
    assert tokens["host"] != table.tokens["host"] and len(tokens["players"]) == 3
    assert table.tokens["host"] not in started.text
    linked = table.match()
    assert linked["rematch_id"] == new["id"] and linked["version"] == old["version"] + 1
    fresh = table.client.get(
        f"/v1/matches/{new['id']}", headers={"Authorization": f"Bearer {tokens['players'][1]}"}
    )
    assert fresh.status_code == 200 and fresh.json()["rematch_of"] == table.id


def test_a_rematch_keeps_the_teams(client: TestClient) -> None:
    table = Table(
        client,
        {"game": "alkort", "players": ["A", "B", "C", "D"], "team_names": ["Us", "Them"]},
    )
    table.round({"type": "alkort_points", "team": 0, "points": 1})
    assert table.post("/end").status_code == 200
    new = _rematch(table).json()
    assert [t["name"] for t in new["teams"]] == ["Us", "Them"]
    assert new["settings"]["first_dealer"] == 1 and new["settings"]["target"] == 11


def test_a_rematch_needs_an_ended_match_and_the_host(table: Table) -> None:
    early = _rematch(table)
    assert early.status_code == 409 and early.json()["code"] == "match_not_ended"
    assert table.post("/end").status_code == 200
    player = _rematch(table, who=1)
    assert player.status_code == 403 and player.json()["code"] == "forbidden"
    assert table.match()["rematch_id"] is None


def test_a_retried_rematch_replays_and_a_second_one_is_refused(table: Table) -> None:
    assert table.post("/end").status_code == 200
    key = str(uuid.uuid4())
    first = _rematch(table, key)
    assert first.status_code == 201, first.text
    again = _rematch(table, key)
    assert again.status_code == 201 and again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json() and again.headers["cache-control"] == "no-store"
    other = _rematch(table, str(uuid.uuid4()))
    assert other.status_code == 409 and other.json()["code"] == "rematch_exists"
    assert first.json()["id"] in other.json()["detail"]
    plain = _rematch(table)
    assert plain.status_code == 409 and plain.json()["code"] == "rematch_exists"
    weak = _rematch(table, "retry-1")
    assert weak.status_code == 422 and weak.json()["code"] == "invalid_header"


def test_a_rematch_of_a_match_never_dealt_keeps_its_first_dealer(make_table: object) -> None:
    table = make_table(settings={"first_dealer": 1})  # type: ignore[operator]
    assert table.post("/end").status_code == 200
    assert _rematch(table).json()["settings"]["first_dealer"] == 1
