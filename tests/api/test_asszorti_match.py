"""An Asszorti evening through the HTTP API, on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.helpers import PLAYERS, Table, amounts, hand


def test_create_match_returns_tokens_location_and_etag(client: Any) -> None:
    response = client.post("/v1/matches", json={"game": "asszorti", "players": PLAYERS})
    assert response.status_code == 201
    body = response.json()
    assert response.headers["location"] == f"/v1/matches/{body['id']}"
    assert response.headers["etag"] == '"v1"'
    assert body["status"] == "in_progress"
    assert body["settings"] == {
        "game": "asszorti",
        "kontra": True,
        "planned_deals": None,
        "first_dealer": 0,
    }
    assert [p["name"] for p in body["players"]] == PLAYERS
    assert body["totals"] == [0, 0, 0] and body["owed"] == [0, 0, 0]
    tokens = body["tokens"]
    assert len(tokens["players"]) == 3
    every = [tokens["host"], tokens["viewer"], *tokens["players"]]
    assert len(set(every)) == 5 and all(len(t) > 40 for t in every)


def test_names_are_trimmed(client: Any) -> None:
    table = Table(client, {"game": "asszorti", "players": ["  Anna ", "Berta", "Csaba"]})
    assert table.created["players"][0]["name"] == "Anna"


@pytest.mark.parametrize(
    ("players", "loc"),
    [
        (["Anna", "Berta"], ["body", "players"]),
        (["Anna", "Berta", "Csaba", "Dora"], ["body", "players"]),
        (["Anna", "anna", "Csaba"], ["body", "players", 1]),
        (["Anna", "   ", "Csaba"], ["body", "players", 1]),
        (["Anna", "B" * 41, "Csaba"], ["body", "players", 1]),
        (["Anna", 7, "Csaba"], ["body", "players", 1]),
    ],
)
def test_bad_tables_are_rejected(client: Any, players: list[Any], loc: list[Any]) -> None:
    response = client.post("/v1/matches", json={"game": "asszorti", "players": players})
    assert response.status_code == 422
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["code"] == "validation_error"
    assert loc in [error["loc"] for error in problem["errors"]]


def test_player_count_is_in_the_schema_and_the_message_names_it(client: Any) -> None:
    response = client.post("/v1/matches", json={"game": "asszorti", "players": ["A", "B"]})
    assert response.json()["errors"][0]["loc"] == ["body", "players"]
    assert "at least 3 items" in response.json()["detail"]
    alkort = client.post("/v1/matches", json={"game": "alkort", "players": ["A", "B", "C"]})
    assert "at least 4 items" in alkort.json()["detail"]
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    for name, seats in (("AsszortiMatchCreate", 3), ("AlkortMatchCreate", 4)):
        players = schema[name]["properties"]["players"]
        assert players["minItems"] == players["maxItems"] == seats


@pytest.mark.parametrize(
    "body",
    [
        {"game": "tarokk", "players": PLAYERS},
        {"game": "asszorti", "players": PLAYERS, "colour": "red"},
        {"game": "asszorti", "players": PLAYERS, "settings": {"kontra": "yes"}},
        {"game": "asszorti", "players": PLAYERS, "settings": {"planned_deals": 0}},
        {"game": "asszorti", "players": PLAYERS, "settings": {"planned_deals": False}},
        {"game": "asszorti", "players": PLAYERS, "settings": {"first_dealer": 3}},
        {"game": "asszorti", "players": PLAYERS, "settings": {"target": 11}},
        {"game": "asszorti", "players": ["x"] * 10_000},
        {"game": "asszorti"},
    ],
)
def test_invalid_match_bodies_are_422(client: Any, body: dict[str, Any]) -> None:
    response = client.post("/v1/matches", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["errors"]


def test_malformed_json_is_422(client: Any) -> None:
    response = client.post(
        "/v1/matches", content=b'{"game": "asszorti",', headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert response.json()["code"] == "malformed_json"


def test_huge_body_is_413(client: Any) -> None:
    response = client.post(
        "/v1/matches",
        content=b'{"game": "asszorti", "players": ["' + b"x" * 200_000 + b'"]}',
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 413
    assert response.json()["code"] == "payload_too_large"


def test_worked_sheet_check(table: Table) -> None:
    """RULES.md §1.3: after hand 1, Berta 18; then Anna nets +18 and pays her debt first."""
    first = table.round(hand(declarer=1, tricks=[2, 7, 2]), who=1)
    assert first["number"] == 1 and first["dealer"] == 0
    assert first["entered_by"] == "seat:1"
    assert first["result"] == {
        "net": [-9, 18, -9],
        "cells": [0, 18, 0],
        "totals": [0, 18, 0],
        "owed": [9, 0, 9],
        "breakdown": {
            "game": "asszorti",
            "basic_game": 9,
            "arrivazs": 0,
            "declarer_won": True,
            "manual": False,
        },
    }
    second = table.round(amounts(18, -9, -9), who=0)
    assert second["result"]["cells"] == [9, 0, 0]
    assert second["result"]["owed"] == [0, 9, 18]
    match = table.match()
    assert match["totals"] == [9, 18, 0]
    assert match["owed"] == [0, 9, 18]
    assert match["net"] == [9, 9, -18]
    assert match["round_count"] == 2 and match["next_dealer"] == 2
    assert match["standings"][0] == {"rank": 1, "seats": [1], "total": 18, "team": None}
    for seat in range(3):
        assert match["totals"][seat] - match["owed"][seat] == match["net"][seat]


def test_round_defaults_are_filled_in(table: Table) -> None:
    body = hand(declarer=0, tricks=[6, 3, 2], contract="3", trumps="hearts")
    del body["kontra"]
    created = table.round(body)
    assert created["input"]["kontra"] == "none"
    assert created["input"]["arrivazs"] is None


def test_arrivazs_and_kontra_through_the_api(table: Table) -> None:
    """Worked check 8: idegen arrivázs with kontra on a 6:3:2 contract 3."""
    created = table.round(
        hand(
            declarer=0,
            tricks=[6, 3, 2],
            contract="3",
            trumps="clubs",
            arrivazs={"won": True, "idegen": True, "kontra": "kontra"},
        )
    )
    assert created["result"]["net"] == [68, -34, -34]
    assert created["result"]["breakdown"] == {
        "game": "asszorti",
        "basic_game": 2,
        "arrivazs": 32,
        "declarer_won": True,
        "manual": False,
    }


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        (hand(declarer=0, tricks=[6, 3, 1]), ["body", "tricks"]),
        (hand(declarer=0, tricks=[6, 5]), ["body", "tricks"]),
        (hand(declarer=0, tricks=[12, -1, 0]), ["body", "tricks", 0]),
        (hand(declarer=0, tricks=[6, 3, 2], contract="4"), ["body", "contract"]),
        (hand(declarer=0, tricks=[6, 3, 2], trumps="stars"), ["body", "trumps"]),
        (hand(declarer=0, tricks=[6, 3, 2], kontra="ultra"), ["body", "kontra"]),
        (hand(declarer=3, tricks=[6, 3, 2]), ["body", "declarer"]),
        (hand(declarer=True, tricks=[6, 3, 2]), ["body", "declarer"]),  # type: ignore[arg-type]
        (hand(declarer=0, tricks=[6.0, 3, 2]), ["body", "tricks", 0]),  # type: ignore[list-item]
        (hand(declarer=0, tricks=["6", 3, 2]), ["body", "tricks", 0]),  # type: ignore[list-item]
        (
            hand(
                declarer=0, tricks=[6, 3, 2], trumps="none", arrivazs={"won": True, "idegen": True}
            ),
            ["body", "arrivazs", "idegen"],
        ),
        (
            hand(declarer=0, tricks=[6, 3, 2], arrivazs={"won": False, "idegen": True}),
            ["body", "arrivazs", "idegen"],
        ),
        (hand(declarer=0, tricks=[2, 5, 4], arrivazs={"won": True}), ["body", "arrivazs", "won"]),
        (hand(declarer=0, tricks=[11, 0, 0], arrivazs={"won": False}), ["body", "arrivazs", "won"]),
        ({**hand(declarer=0, tricks=[6, 3, 2]), "bonus": 1}, ["body", "bonus"]),
        (amounts(5, 5, 5), ["body", "amounts"]),
        (amounts(5, -5), ["body", "amounts"]),
        ({"type": "alkort_tricks", "tricks": [0] * 9}, ["body", "type"]),
        ({"type": "poker"}, ["body", "type"]),
        ({"declarer": 0}, ["body"]),
    ],
)
def test_impossible_hands_are_422_and_change_nothing(
    table: Table, body: dict[str, Any], loc: list[Any]
) -> None:
    table.round(hand(declarer=1, tricks=[2, 7, 2]))
    before = table.snapshot()
    response = table.post("/rounds", body)
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["code"] == "validation_error"
    assert any(error["loc"][: len(loc)] == loc for error in problem["errors"]), problem
    assert table.snapshot() == before


def test_table_without_kontra_rejects_doubling(make_table: Any) -> None:
    table = make_table(settings={"kontra": False})
    response = table.post("/rounds", hand(declarer=0, tricks=[7, 2, 2], kontra="kontra"))
    assert response.status_code == 422
    assert response.json()["errors"][0]["loc"] == ["body", "kontra"]
    response = table.post(
        "/rounds",
        hand(declarer=0, tricks=[7, 2, 2], arrivazs={"won": False, "kontra": "rekontra"}),
    )
    assert response.json()["errors"][0]["loc"] == ["body", "arrivazs", "kontra"]
    assert table.match()["round_count"] == 0


def test_correction_recomputes_every_later_row(table: Table) -> None:
    table.round(hand(declarer=1, tricks=[2, 7, 2]))  # Berta +18
    table.round(amounts(18, -9, -9))  # Anna +18: pays her 9 debt, cell 9
    table.round(amounts(-4, 2, 2))
    # Round 1 was really Csaba's: Csaba +18, Anna and Berta owe 9.
    corrected = table.put("/rounds/1", hand(declarer=2, tricks=[2, 2, 7]))
    assert corrected.status_code == 200, corrected.text
    assert corrected.headers["etag"] == '"v5"'
    assert corrected.json()["result"]["cells"] == [0, 0, 18]
    rounds = table.get("/rounds").json()["items"]
    assert [r["result"]["cells"] for r in rounds] == [[0, 0, 18], [9, 0, 0], [0, 0, 0]]
    assert [r["result"]["owed"] for r in rounds] == [[9, 9, 0], [0, 18, 9], [4, 16, 7]]
    match = table.match()
    assert match["totals"] == [9, 0, 18]
    assert match["owed"] == [4, 16, 7]
    assert match["net"] == [5, -16, 11]
    assert match["version"] == 5


def test_correction_may_change_the_round_type(table: Table) -> None:
    table.round(amounts(2, -1, -1))
    replaced = table.put("/rounds/1", hand(declarer=1, tricks=[2, 7, 2]))
    assert replaced.json()["type"] == "asszorti_hand"
    assert replaced.json()["result"]["net"] == [-9, 18, -9]


def test_undo_removes_only_the_last_round(table: Table) -> None:
    table.round(hand(declarer=1, tricks=[2, 7, 2]))
    table.round(amounts(18, -9, -9))
    before = table.snapshot()
    not_last = table.delete("/rounds/1")
    assert not_last.status_code == 409
    assert not_last.json()["code"] == "not_last_round"
    assert table.snapshot() == before
    assert table.delete("/rounds/9").json()["code"] == "round_not_found"
    undone = table.delete("/rounds/2", who=2)
    assert undone.status_code == 204
    assert undone.headers["etag"] == '"v4"'
    match = table.match()
    assert match["round_count"] == 1
    assert match["totals"] == [0, 18, 0] and match["owed"] == [9, 0, 9]
    assert table.round(amounts(0, 0, 0))["number"] == 2


def test_end_match_by_a_player(table: Table) -> None:
    table.round(hand(declarer=1, tricks=[2, 7, 2]))
    ended = table.post("/end", who=2)
    assert ended.status_code == 200
    body = ended.json()
    assert body["status"] == "ended" and body["ended_at"] is not None
    assert body["ended_by"] == "seat:2"
    assert body["winner"] == {"seats": [1], "team": None}
    assert body["owed"] == [9, 0, 9] and body["net"] == [-9, 18, -9]
    assert [s["rank"] for s in body["standings"]] == [1, 2, 2]


def test_ended_match_accepts_no_change(table: Table) -> None:
    table.round(amounts(2, -1, -1))
    table.post("/end")
    before = table.snapshot()
    attempts = [
        table.post("/end", who=0),
        table.post("/rounds", amounts(2, -1, -1)),
        table.put("/rounds/1", amounts(4, -2, -2)),
        table.delete("/rounds/1"),
        table.patch({"settings": {"kontra": False}}),
    ]
    assert [r.status_code for r in attempts] == [409] * 5
    assert {r.json()["code"] for r in attempts} == {"match_ended"}
    assert table.snapshot() == before


def test_tied_end_names_every_leader(table: Table) -> None:
    table.round(amounts(2, 2, -4))
    assert table.post("/end").json()["winner"]["seats"] == [0, 1]


def test_planned_deals_decide_the_match(make_table: Any) -> None:
    table = make_table(settings={"planned_deals": 2})
    table.round(amounts(2, -1, -1))
    assert table.match()["status"] == "in_progress"
    table.round(amounts(-2, 4, -2))
    match = table.match()
    assert match["status"] == "decided"
    assert match["winner"] == {"seats": [1], "team": None}
    before = table.snapshot()
    late = table.post("/rounds", amounts(-2, 1, 1))
    assert late.status_code == 409 and late.json()["code"] == "match_decided"
    assert table.snapshot() == before
    # Corrections stay possible; undo reopens the match.
    assert table.put("/rounds/2", amounts(-2, -2, 4)).status_code == 200
    assert table.delete("/rounds/2").status_code == 204
    assert table.match()["status"] == "in_progress"
    assert table.match()["winner"] is None


def test_patch_planned_deals(table: Table) -> None:
    table.round(amounts(2, -1, -1))
    table.round(amounts(2, -1, -1))
    below = table.patch({"settings": {"planned_deals": 1}})
    assert below.status_code == 409 and below.json()["code"] == "setting_locked"
    equal = table.patch({"settings": {"planned_deals": 2}})
    assert equal.status_code == 200 and equal.json()["status"] == "decided"
    cleared = table.patch({"settings": {"planned_deals": None}})
    assert cleared.json()["status"] == "in_progress"
    assert cleared.json()["settings"]["planned_deals"] is None


def test_patch_kontra_applies_from_then_on(table: Table) -> None:
    table.round(hand(declarer=0, tricks=[7, 2, 2], kontra="kontra"))
    assert table.patch({"settings": {"kontra": False}}).status_code == 200
    refused = table.post("/rounds", hand(declarer=0, tricks=[7, 2, 2], kontra="kontra"))
    assert refused.status_code == 422
    assert table.match()["totals"] == [36, 0, 0]


def test_first_dealer_and_dealer_rotation(make_table: Any) -> None:
    table = make_table(settings={"first_dealer": 2})
    assert table.match()["next_dealer"] == 2
    assert table.patch({"settings": {"first_dealer": 1}}).json()["next_dealer"] == 1
    dealers = [table.round(amounts(0, 0, 0))["dealer"] for _ in range(4)]
    assert dealers == [1, 2, 0, 1]
    locked = table.patch({"settings": {"first_dealer": 0}})
    assert locked.status_code == 409 and locked.json()["code"] == "setting_locked"


@pytest.mark.parametrize(
    "body",
    [
        {"settings": {"target": 15}},
        {"settings": {"first_dealer": 5}},
        {"settings": {"kontra": 1}},
        {"players": ["Anna", "Berta"]},
        {"players": ["Anna", "ANNA", "Csaba"]},
        {"team_names": ["Us", "Them"]},
        {"owner": "me"},
    ],
)
def test_invalid_patches_are_422_and_change_nothing(table: Table, body: dict[str, Any]) -> None:
    before = table.snapshot()
    response = table.patch(body)
    assert response.status_code == 422, response.text
    assert response.json()["errors"]
    assert table.snapshot() == before


def test_players_can_be_renamed(table: Table) -> None:
    renamed = table.patch({"players": ["Anna", "Bea", "Csaba"]})
    assert renamed.status_code == 200
    assert renamed.json()["players"][1] == {"seat": 1, "name": "Bea"}
    assert renamed.json()["version"] == 2


def test_sheet_json_and_csv(table: Table) -> None:
    table.round(hand(declarer=1, tricks=[2, 7, 2]))
    table.round(amounts(18, -9, -9))
    sheet = table.get("/sheet", who="viewer").json()
    assert sheet["columns"] == PLAYERS
    assert [row["cells"] for row in sheet["rows"]] == [[0, 18, 0], [9, 0, 0]]
    assert [row["dealer"] for row in sheet["rows"]] == [0, 1]
    assert sheet["totals"] == [9, 18, 0] and sheet["owed"] == [0, 9, 18]
    csv = table.get("/sheet", who="viewer", headers={"Accept": "text/csv"})
    assert csv.headers["content-type"].startswith("text/csv")
    assert csv.text.splitlines() == [
        "round,dealer,Anna,Berta,Csaba",
        "1,Anna,0,18,0",
        "2,Berta,9,0,0",
        "total,,9,18,0",
        "owed,,0,9,18",
    ]


def test_csv_neutralises_formula_names(client: Any) -> None:
    table = Table(client, {"game": "asszorti", "players": ["=SUM(A1)", "Berta", "Csaba"]})
    table.round(amounts(0, 0, 0))
    csv = table.get("/sheet", headers={"Accept": "text/csv"})
    # The dealer's name too: the first dealer is the player named like a formula.
    assert csv.text.splitlines()[:2] == ["round,dealer,'=SUM(A1),Berta,Csaba", "1,'=SUM(A1),0,0,0"]


@pytest.mark.parametrize(
    "formula",
    [
        "|cmd",  # a DDE call
        "\uff1dSUM(A1)",  # full-width =
        "\uff0bSUM(A1)",  # full-width +
        "\uff0dSUM(A1)",  # full-width -
        "\uff20SUM(A1)",  # full-width @
    ],
)
def test_csv_neutralises_pipes_and_full_width_formula_names(client: Any, formula: str) -> None:
    table = Table(client, {"game": "asszorti", "players": [formula, "Berta", "Csaba"]})
    table.round(amounts(0, 0, 0))
    csv = table.get("/sheet", headers={"Accept": "text/csv"})
    assert csv.text.splitlines()[:2] == [
        f"round,dealer,'{formula},Berta,Csaba",
        f"1,'{formula},0,0,0",
    ]


def test_get_match_etag_and_304(table: Table) -> None:
    first = table.get()
    etag = first.headers["etag"]
    assert table.get(headers={"If-None-Match": etag}).status_code == 304
    table.round(amounts(0, 0, 0))
    again = table.get(headers={"If-None-Match": etag})
    assert again.status_code == 200
    assert again.headers["etag"] != etag


def test_a_current_poll_renders_no_match(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """A poll whose If-None-Match names the current version is answered 304 from the
    version alone: the match is not rendered for it."""
    from app.services import answers

    etag = table.get().headers["etag"]

    def refuse(match: object) -> None:
        raise AssertionError("a 304 rendered the match")

    # Every rendering of a match (GET, the live events) goes through match_data.
    monkeypatch.setattr(answers, "match_data", refuse)
    again = table.get(headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.headers["etag"] == etag and again.content == b""


def test_rounds_list_and_get(table: Table) -> None:
    table.round(amounts(2, -1, -1))
    table.round(amounts(-2, 1, 1))
    items = table.get("/rounds").json()["items"]
    assert [r["number"] for r in items] == [1, 2]
    assert table.get("/rounds/2").json()["input"] == {
        "type": "asszorti_amounts",
        "amounts": [-2, 1, 1],
    }
    assert table.get("/rounds/3").status_code == 404
    assert table.get("/rounds/3").json()["code"] == "round_not_found"
    not_number = table.get("/rounds/two")
    assert not_number.status_code == 422
    assert not_number.json()["errors"][0]["loc"] == ["path", "number"]
    assert table.get("/rounds/0").status_code == 422


def test_a_patch_that_changes_nothing_keeps_the_version(table: Table) -> None:
    same = table.patch({"settings": {"kontra": True}, "players": PLAYERS})
    assert same.status_code == 200
    assert same.json()["version"] == 1 and same.headers["etag"] == '"v1"'
    assert table.patch({}).json()["version"] == 1


def test_every_read_has_an_etag_and_answers_304(table: Table) -> None:
    table.round(amounts(2, -1, -1))
    for path in ("", "/rounds", "/rounds/1", "/rounds/1/history", "/sheet", "/sheet.csv"):
        first = table.get(path)
        assert first.status_code == 200, path
        etag = first.headers["etag"]
        assert etag == ('"v2-csv"' if path.endswith(".csv") else '"v2"')
        again = table.get(path, headers={"If-None-Match": etag})
        assert again.status_code == 304, path
        assert again.content == b""
    table.round(amounts(2, -1, -1))
    assert table.get("/sheet", headers={"If-None-Match": '"v2"'}).status_code == 200


def test_sheet_csv_has_its_own_operation(table: Table) -> None:
    table.round(hand(declarer=1, tricks=[2, 7, 2]))
    csv = table.get("/sheet.csv")
    assert csv.headers["content-type"].startswith("text/csv")
    assert csv.text.splitlines()[1] == "1,Anna,0,18,0"


def test_json_and_csv_sheets_are_distinct_representations(table: Table) -> None:
    json_sheet = table.get("/sheet")
    csv_sheet = table.get("/sheet", headers={"Accept": "text/csv"})
    assert json_sheet.headers["vary"] == csv_sheet.headers["vary"] == "Accept"
    assert json_sheet.headers["etag"] == '"v1"'
    assert csv_sheet.headers["etag"] == '"v1-csv"'
    cross = table.get("/sheet", headers={"Accept": "text/csv", "If-None-Match": '"v1"'})
    assert cross.status_code == 200
