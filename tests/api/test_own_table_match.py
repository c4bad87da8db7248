"""A table of its own through the HTTP API, on SQLite and PostgreSQL: a 2-man Alkort
evening to 11, a Hearts evening where the lowest wins, a zero-sum table in teams, and
settings that do not fit."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.helpers import Table

TWO_MAN_RULES = "Two-man Alkort: 8 cards each, the stock of 4 is not used"


def own(*values: int) -> dict[str, Any]:
    return {"type": "own_points", "points": list(values)}


def own_table(client: TestClient, players: list[str], **body: Any) -> Table:
    return Table(client, {"game": "own_table", "players": players, **body})


def test_a_two_man_alkort_evening_to_eleven(client: TestClient) -> None:
    table = own_table(
        client,
        ["Anna", "Bela"],
        settings={"target": 11, "negatives": False, "table_rules": TWO_MAN_RULES},
    )
    created = table.created
    assert created["game"] == "own_table"
    assert created["settings"]["table_rules"] == TWO_MAN_RULES
    assert len(created["tokens"]["players"]) == 2
    assert created["totals"] == [0, 0] and created["teams"] is None and created["net"] is None

    first = table.round(own(6, 0), who=0)
    assert first["result"]["cells"] == [6, 0] and first["result"]["breakdown"] == {
        "game": "own_table",
        "sum": 6,
    }
    assert first["dealer"] == 0 and first["entered_by"] == "seat:0"
    assert table.round(own(0, 1), who=1)["dealer"] == 1
    table.round(own(0, 4))
    # Round 3 was a muk: corrected, and the sheet follows.
    corrected = table.put("/rounds/3", own(0, 5), who=1)
    assert corrected.status_code == 200, corrected.text
    assert corrected.json()["result"]["totals"] == [6, 6]
    # A slip, undone.
    table.round(own(0, 1))
    assert table.delete("/rounds/4").status_code == 204
    match = table.match()
    assert (match["round_count"], match["totals"], match["status"]) == (3, [6, 6], "in_progress")

    assert table.round(own(5, 0))["result"]["totals"] == [11, 6]
    match = table.match()
    assert match["status"] == "decided"
    assert match["winner"] == {"seats": [0], "team": None}
    refused = table.post("/rounds", own(1, 0))
    assert refused.status_code == 409 and refused.json()["code"] == "match_decided"

    # The host moves the target: the match reopens, and is decided again when moved back.
    assert table.patch({"settings": {"target": 15}}).json()["status"] == "in_progress"
    assert table.patch({"settings": {"target": 11}}).json()["status"] == "decided"
    assert table.patch({"settings": {"target": 9}}, who=0).status_code == 403

    csv = table.get("/sheet", headers={"Accept": "text/csv"}).text.splitlines()
    assert csv == [
        f'rules,"{TWO_MAN_RULES}"',
        "round,dealer,Anna,Bela",
        "1,Anna,6,0",
        "2,Bela,0,1",
        "3,Anna,0,5",
        "4,Bela,5,0",
        "total,,11,6",
    ]
    sheet = table.get("/sheet").json()
    assert sheet["columns"] == ["Anna", "Bela"] and sheet["settlement"] is None
    assert "table_rules" not in sheet  # the match's settings carry them

    ended = table.post("/end", who=1)
    assert ended.status_code == 200, ended.text
    assert ended.json()["status"] == "ended" and ended.json()["winner"]["seats"] == [0]
    assert ended.json()["standings"][0] == {"rank": 1, "seats": [0], "total": 11, "team": None}


def test_a_hearts_evening_the_lowest_wins(client: TestClient) -> None:
    players = ["Anna", "Bela", "Cili", "Dani"]
    table = own_table(
        client,
        players,
        settings={"target": 100, "lowest_wins": True, "negatives": False, "first_dealer": 2},
    )
    assert table.round(own(26, 0, 0, 0))["dealer"] == 2
    before = table.snapshot()
    negative = table.post("/rounds", own(-26, 26, 0, 0))
    assert negative.status_code == 422
    assert [e["loc"] for e in negative.json()["errors"]] == [["body", "points", 0]]
    short = table.post("/rounds", own(13, 13, 0))
    assert short.status_code == 422
    assert short.json()["errors"][0]["loc"] == ["body", "points"]
    assert table.snapshot() == before  # refused rounds change nothing

    table.round(own(0, 13, 13, 0))
    table.round(own(60, 3, 10, 0))
    match = table.match()
    assert match["status"] == "in_progress"
    assert [s["seats"] for s in match["standings"]] == [[3], [1], [2], [0]]  # lowest first
    table.round(own(20, 0, 0, 6))
    match = table.match()
    assert match["totals"] == [106, 16, 23, 6]
    assert match["status"] == "decided"
    assert match["winner"] == {"seats": [3], "team": None}
    assert match["standings"][0] == {"rank": 1, "seats": [3], "total": 6, "team": None}
    assert match["next_dealer"] == 2  # round 5: 2, 3, 0, 1, then 2 again

    # Lowest-wins is how the rounds were played: it cannot change after round 1.
    locked = table.patch({"settings": {"lowest_wins": False}})
    assert locked.status_code == 409 and locked.json()["code"] == "setting_locked"


def test_a_zero_sum_table_in_teams_settles(client: TestClient) -> None:
    table = own_table(
        client,
        ["Anna", "Bela", "Cili", "Dani", "Ede", "Flora"],
        team_names=["Red", "Green", "Blue"],
        settings={"teams": 3, "zero_sum": True, "planned_rounds": 3},
    )
    created = table.created
    assert [(t["name"], t["seats"]) for t in created["teams"]] == [
        ("Red", [0, 3]),
        ("Green", [1, 4]),
        ("Blue", [2, 5]),
    ]
    assert created["net"] == [0, 0, 0] and created["settlement"] == []

    unbalanced = table.post("/rounds", own(10, -5, -4))
    assert unbalanced.status_code == 422
    assert unbalanced.json()["errors"][0]["loc"] == ["body", "points"]
    # Idempotent like any round: a retry with the same key is answered from the first.
    key = {"Idempotency-Key": "own-table-1"}
    first = table.post("/rounds", own(10, -5, -5), headers=key)
    again = table.post("/rounds", own(10, -5, -5), headers=key)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    table.round(own(-20, 30, -10), who=4)
    table.round(own(4, -4, 0))
    match = table.match()
    assert match["round_count"] == 3 and match["status"] == "decided"
    assert match["totals"] == match["net"] == [-6, 21, -15]
    settlement = match["settlement"]
    assert settlement == table.get("/sheet").json()["settlement"]
    balance = list(match["net"])
    for payment in settlement:
        balance[payment["payer"]] += payment["amount"]
        balance[payment["payee"]] -= payment["amount"]
    assert balance == [0, 0, 0] and len(settlement) == 2
    assert match["winner"] == {"seats": None, "team": 1}
    csv = table.get("/sheet.csv").text.splitlines()
    assert csv[0] == "round,dealer,Red,Green,Blue"  # no rules: no rules row


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"players": ["A", "B", "C"], "settings": {"teams": 2}}, ["body", "settings", "teams"]),
        ({"players": ["A", "B"], "settings": {"teams": 2}}, ["body", "settings", "teams"]),
        (
            {"players": ["A", "B", "C"], "settings": {"zero_sum": True, "negatives": False}},
            ["body", "settings", "negatives"],
        ),
        (
            {"players": ["A", "B"], "settings": {"first_dealer": 2}},
            ["body", "settings", "first_dealer"],
        ),
        ({"players": ["A", "B"], "team_names": ["X", "Y"]}, ["body", "team_names"]),
        (
            {"players": ["A", "B", "C", "D"], "settings": {"teams": 2}, "team_names": ["X"]},
            ["body", "team_names"],
        ),
        ({"players": ["A"]}, ["body", "players"]),
        ({"players": list("ABCDEFGHI")}, ["body", "players"]),
        ({"players": ["A", "B"], "settings": {"table_rules": "a\x1b[2Jb"}}, None),
    ],
)
def test_bad_settings_are_422_naming_the_field(
    client: TestClient, body: dict[str, Any], loc: list[str] | None
) -> None:
    response = client.post("/v1/matches", json={"game": "own_table", **body})
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    locs = [e["loc"] for e in response.json()["errors"]]
    if loc is None:
        assert locs[0][-1] == "table_rules"
    else:
        assert loc in locs


def test_settings_changes_keep_the_table_whole(client: TestClient) -> None:
    table = own_table(client, ["Anna", "Bela", "Cili", "Dani"], settings={"target": 20})
    for change, code in (({"teams": 2}, "setting_locked"), ({"zero_sum": True}, "setting_locked")):
        refused = table.patch({"settings": change})
        assert refused.status_code == 409, refused.text
        assert refused.json()["code"] == code
    bad_dealer = table.patch({"settings": {"first_dealer": 5}})
    assert bad_dealer.status_code == 422
    assert bad_dealer.json()["errors"][0]["loc"] == ["body", "settings", "first_dealer"]
    fewer = table.patch({"players": ["Anna", "Bela", "Cili"]})
    assert fewer.status_code == 422 and fewer.json()["errors"][0]["loc"] == ["body", "players"]
    renamed = table.patch({"players": ["Anna", "Bela", "Cili", "Dora"]})
    assert renamed.status_code == 200 and renamed.json()["players"][3]["name"] == "Dora"

    table.round(own(12, 0, 25, 3))
    # Two totals are past 10: which got there first is not on the sheet.
    two_past = table.patch({"settings": {"target": 10}})
    assert two_past.status_code == 409 and two_past.json()["code"] == "target_already_reached"
    one_past = table.patch({"settings": {"target": 13}})
    assert one_past.status_code == 200
    assert one_past.json()["status"] == "decided"
    assert one_past.json()["winner"] == {"seats": [2], "team": None}


def test_the_calculator_and_the_games_list(client: TestClient) -> None:
    scored = client.post("/v1/games/own_table/score", json=own(3, -1, 0))
    assert scored.status_code == 200
    assert scored.json() == {
        "net": None,
        "cells": [3, -1, 0],
        "breakdown": {"game": "own_table", "sum": 2},
    }
    games = {g["name"]: g for g in client.get("/v1/games").json()["items"]}
    own_game = games["own_table"]
    assert (own_game["min_players"], own_game["players"]) == (2, 8)
    assert (own_game["teams"], own_game["max_teams"]) == (0, 4)
    assert own_game["round_types"] == ["own_points"]
    assert "table_rules" in own_game["settings"]["properties"]
    assert (games["alkort"]["min_players"], games["alkort"]["max_teams"]) == (4, 2)


def test_hearts_takes_corrections_after_the_host_moved_the_target(client: TestClient) -> None:
    settings = {"lowest_wins": True, "negatives": False, "target": 1000}
    table = own_table(client, ["Anna", "Bela", "Cili"], settings=settings)
    for each in ((60, 0, 10), (0, 70, 10), (0, 0, 20)):
        table.round(own(*each))
    moved = table.patch({"settings": {"target": 50}}).json()
    assert moved["status"] == "decided" and moved["winner"] == {"seats": [2], "team": None}
    unchanged = table.put("/rounds/3", own(0, 0, 20))
    assert unchanged.status_code == 200, unchanged.text
    # A real correction: the lowest total, as it now stands, wins.
    assert table.put("/rounds/2", own(0, 40, 30)).status_code == 200
    match = table.match()
    assert match["totals"] == [60, 40, 60] and match["winner"] == {"seats": [1], "team": None}


def test_a_correction_in_progress_after_a_target_move_is_accepted(client: TestClient) -> None:
    table = own_table(client, ["Anna", "Bela", "Cili"], settings={"target": 1000})
    table.round(own(60, 0, 10))
    table.round(own(-30, 20, 10))
    assert table.patch({"settings": {"target": 50}}).json()["status"] == "in_progress"
    corrected = table.put("/rounds/2", own(-20, 10, 10))
    assert corrected.status_code == 200, corrected.text
    assert table.match()["status"] == "in_progress"
    # Row 1 (60) decides the match at target 50 before and after: k stays 1, so a
    # correction that takes seat 0 back to the line is accepted, and decides it.
    table.round(own(0, 5, 0))
    corrected = table.put("/rounds/2", own(-5, 10, 10))
    assert corrected.status_code == 200, corrected.text
    match = table.match()
    assert match["totals"] == [55, 15, 20] and match["status"] == "decided"
    assert match["winner"] == {"seats": [0], "team": None}


def test_planned_rounds_below_the_rounds_played_are_refused(client: TestClient) -> None:
    table = own_table(client, ["Anna", "Bela"])
    for _ in range(3):
        table.round(own(1, 2))
    before = table.snapshot()
    below = table.patch({"settings": {"planned_rounds": 2}})
    assert below.status_code == 409 and below.json()["code"] == "setting_locked"
    assert "planned_rounds cannot be 2" in below.json()["detail"]
    assert table.snapshot() == before
    exactly = table.patch({"settings": {"planned_rounds": 3}})
    assert exactly.status_code == 200 and exactly.json()["status"] == "decided"


@pytest.mark.parametrize("names", [["X", "X"], ["X", "x"], ["\uff38", "X"]])  # full-width X
def test_team_names_are_unique_like_players(client: TestClient, names: list[str]) -> None:
    players = ["Anna", "Bela", "Cili", "Dani"]
    body = {"game": "own_table", "players": players, "settings": {"teams": 2}}
    created = client.post("/v1/matches", json={**body, "team_names": names})
    assert created.status_code == 422
    assert created.json()["errors"][0]["loc"] == ["body", "team_names", 1]
    table = own_table(client, players, settings={"teams": 2}, team_names=["Us", "Them"])
    before = table.snapshot()
    renamed = table.patch({"team_names": names})
    assert renamed.status_code == 422
    assert renamed.json()["errors"][0]["loc"] == ["body", "team_names", 1]
    assert table.snapshot() == before
