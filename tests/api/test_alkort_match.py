"""An Alkort evening through the HTTP API, on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.helpers import Table

FOUR = ["Anna", "Bela", "Cili", "Dani"]


def tricks(*winners: int) -> dict[str, Any]:
    return {"type": "alkort_tricks", "tricks": list(winners)}


def points(team: int, value: int) -> dict[str, Any]:
    return {"type": "alkort_points", "team": team, "points": value}


@pytest.fixture
def alkort(client: Any) -> Any:
    def make(**body: Any) -> Table:
        return Table(client, {"game": "alkort", "players": FOUR, **body})

    return make


def expected_points(winners: list[int]) -> tuple[int, int]:
    """A second, plain reading of RULES.md §2.2, for the evening below."""
    run = 1
    while run < len(winners) and winners[run] == winners[0]:
        run += 1
    if run >= 5:
        team, value = winners[0], run
    else:
        team, value = (0 if winners.count(0) >= 5 else 1), 1
    return (value, 0) if team == 0 else (0, value)


def test_create_shows_teams_and_target(alkort: Any) -> None:
    table = alkort(team_names=["Us", "Them"])
    match = table.created
    assert match["teams"] == [
        {"team": 0, "name": "Us", "seats": [0, 2]},
        {"team": 1, "name": "Them", "seats": [1, 3]},
    ]
    assert match["settings"] == {"game": "alkort", "target": 11, "first_dealer": 0}
    assert match["totals"] == [0, 0]
    assert match["owed"] is None and match["net"] is None
    assert len(match["tokens"]["players"]) == 4
    unnamed = alkort().created["teams"]
    assert [t["name"] for t in unnamed] == [None, None]


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"players": FOUR[:3]}, ["body", "players"]),
        ({"players": [*FOUR, "Edit"]}, ["body", "players"]),
        ({"settings": {"target": 0}}, ["body", "settings", "target"]),
        ({"settings": {"target": -3}}, ["body", "settings", "target"]),
        ({"settings": {"target": 1001}}, ["body", "settings", "target"]),
        ({"settings": {"target": 11.0}}, ["body", "settings", "target"]),
        ({"settings": {"kontra": True}}, ["body", "settings", "kontra"]),
        ({"team_names": ["Us"]}, ["body", "team_names"]),
        ({"team_names": ["Us", ""]}, ["body", "team_names", 1]),
    ],
)
def test_bad_alkort_matches_are_422(client: Any, body: dict[str, Any], loc: list[Any]) -> None:
    response = client.post("/v1/matches", json={"game": "alkort", "players": FOUR, **body})
    assert response.status_code == 422, response.text
    assert loc in [e["loc"] for e in response.json()["errors"]], response.json()


def test_deal_results_and_breakdowns(alkort: Any) -> None:
    table = alkort(settings={"target": 100})
    stroke = table.round(tricks(0, 0, 0, 0, 0, 0, 1, 1, 0))
    assert stroke["result"] == {
        "net": None,
        "cells": [6, 0],
        "totals": [6, 0],
        "owed": None,
        "breakdown": {"game": "alkort", "kind": "stroke", "run": 6, "team": 0, "points": 6},
    }
    plain = table.round(tricks(0, 0, 0, 0, 1, 0, 0, 0, 0))
    assert plain["result"]["breakdown"] == {
        "game": "alkort",
        "kind": "plain",
        "run": None,
        "team": 0,
        "points": 1,
    }
    muk = table.round(tricks(0, 0, 0, 0, 0, 1))
    assert muk["result"]["breakdown"] == {
        "game": "alkort",
        "kind": "muk",
        "run": 5,
        "team": 0,
        "points": 5,
    }
    nine = table.round(tricks(*[1] * 9))
    assert nine["result"]["cells"] == [0, 9]
    alternate = table.round(tricks(1, 0, 1, 0, 1, 0, 1, 0, 1))
    assert alternate["result"]["cells"] == [0, 1]
    manual = table.round(points(1, 7))
    assert manual["result"]["breakdown"] == {
        "game": "alkort",
        "kind": "stroke",
        "run": None,
        "team": 1,
        "points": 7,
    }
    assert table.match()["totals"] == [12, 17]
    assert [d["dealer"] for d in table.get("/rounds").json()["items"]] == [0, 1, 2, 3, 0, 1]


@pytest.mark.parametrize(
    ("body", "loc", "words"),
    [
        (tricks(0, 0, 0, 0, 0), ["body", "tricks"], "could still change"),
        (tricks(0, 1, 0, 1, 0, 1), ["body", "tricks"], "could still change"),
        (tricks(*[0] * 10), ["body", "tricks"], ""),
        (tricks(0, 0, 2, 0, 0, 1), ["body", "tricks", 2], ""),
        ({"type": "alkort_tricks", "tricks": [0, True, 0, 0, 0, 1]}, ["body", "tricks", 1], ""),
        (points(0, 0), ["body", "points"], ""),
        (points(0, 2), ["body", "points"], ""),
        (points(0, 3), ["body", "points"], ""),
        (points(0, 4), ["body", "points"], ""),
        (points(0, 10), ["body", "points"], ""),
        (points(2, 5), ["body", "team"], ""),
        (
            {"type": "asszorti_amounts", "amounts": [1, -1, 0]},
            ["body", "type"],
            "not a round type of Alkort",
        ),
    ],
)
def test_bad_deals_are_422_and_change_nothing(
    alkort: Any, body: dict[str, Any], loc: list[Any], words: str
) -> None:
    table = alkort()
    table.round(points(0, 1))
    before = table.snapshot()
    response = table.post("/rounds", body)
    assert response.status_code == 422, response.text
    problem = response.json()
    assert any(e["loc"] == loc for e in problem["errors"]), problem
    assert words in problem["detail"]
    assert table.snapshot() == before


def test_target_reached_decides_and_end_by_a_player_banks_it(alkort: Any) -> None:
    table = alkort()
    table.round(tricks(*[1] * 9))
    assert table.match()["status"] == "in_progress"
    table.round(points(1, 5))
    match = table.match()
    assert match["status"] == "decided" and match["winner"] == {"seats": None, "team": 1}
    before = table.snapshot()
    refused = table.post("/rounds", points(0, 1))
    assert refused.status_code == 409 and refused.json()["code"] == "match_decided"
    assert table.snapshot() == before
    ended = table.post("/end", who=2)
    assert ended.status_code == 200
    body = ended.json()
    assert body["status"] == "ended" and body["winner"]["team"] == 1
    assert body["ended_by"] == "seat:2"
    assert body["standings"][0] == {"rank": 1, "seats": [1, 3], "total": 14, "team": 1}
    after = [
        table.post("/rounds", points(0, 1)),
        table.patch({"settings": {"target": 30}}),
        table.put("/rounds/1", points(0, 1)),
        table.post("/end", who=0),
    ]
    assert [r.json()["code"] for r in after] == ["match_ended"] * 4


def test_moving_the_target(alkort: Any) -> None:
    table = alkort()
    table.round(points(0, 9))
    table.round(points(1, 6))
    assert table.patch({"settings": {"target": 9}}).json()["status"] == "decided"
    assert table.match()["winner"]["team"] == 0
    raised = table.patch({"settings": {"target": 15}})
    assert raised.json()["status"] == "in_progress" and raised.json()["winner"] is None
    before = table.snapshot()
    both = table.patch({"settings": {"target": 6}})
    assert both.status_code == 409 and both.json()["code"] == "target_already_reached"
    assert table.snapshot() == before
    for who in (0, "viewer"):
        refused = table.patch({"settings": {"target": 20}}, who=who)
        assert refused.status_code == 403
    assert table.snapshot() == before


def test_undo_reopens_a_decided_match(alkort: Any) -> None:
    table = alkort(settings={"target": 5})
    table.round(points(0, 1))
    table.round(tricks(1, 1, 1, 1, 1, 0))
    assert table.match()["status"] == "decided"
    assert table.delete("/rounds/2").status_code == 204
    assert table.match()["status"] == "in_progress"


def test_correction_that_would_decide_earlier_is_409(alkort: Any) -> None:
    table = alkort(settings={"target": 10})
    table.round(points(0, 1))
    table.round(points(1, 1))
    table.round(points(0, 1))
    before = table.snapshot()
    conflict = table.put("/rounds/1", points(1, 9))
    assert conflict.status_code == 409 and conflict.json()["code"] == "correction_conflict"
    assert table.snapshot() == before
    # Decided exactly at the last round is fine: nothing stands after it.
    fine = table.put("/rounds/3", points(1, 9))
    assert fine.status_code == 200
    assert table.match()["totals"] == [1, 10]
    assert table.match()["status"] == "decided"


def test_correction_after_the_target_was_lowered_is_accepted(alkort: Any) -> None:
    table = alkort(settings={"target": 30})
    table.round(points(0, 9))
    table.round(points(1, 1))
    table.round(points(1, 1))
    assert table.patch({"settings": {"target": 8}}).json()["status"] == "decided"
    assert table.put("/rounds/3", points(1, 5)).status_code == 200
    assert table.match()["totals"] == [9, 6]


def test_sheet_has_team_columns(alkort: Any) -> None:
    table = alkort(team_names=["Us", "Them"])
    table.round(tricks(0, 0, 0, 0, 0, 0, 1, 1, 0))
    table.round(points(1, 1))
    sheet = table.get("/sheet").json()
    assert sheet["columns"] == ["Us", "Them"]
    assert [r["cells"] for r in sheet["rows"]] == [[6, 0], [0, 1]]
    assert sheet["owed"] is None
    csv = table.get("/sheet", headers={"Accept": "text/csv"}).text.splitlines()
    assert csv == ["round,dealer,Us,Them", "1,Anna,6,0", "2,Bela,0,1", "total,,6,1"]
    assert alkort().get("/sheet").json()["columns"] == [
        "Team 1 (Anna & Cili)",
        "Team 2 (Bela & Dani)",
    ]


def test_team_names_can_be_corrected(alkort: Any) -> None:
    table = alkort()
    renamed = table.patch({"team_names": ["North-South", "East-West"]})
    assert [t["name"] for t in renamed.json()["teams"]] == ["North-South", "East-West"]


EVENING = [
    [0, 0, 0, 0, 0, 0, 1, 1, 0],
    [1, 0, 1, 0, 1, 0, 1, 0, 1],
    [0, 0, 0, 0, 0, 1],
    [1, 1, 0, 0, 1, 1, 0, 1],
    [0, 0, 0, 0, 1, 0, 0, 0, 0],
    [1, 1, 1, 1, 1, 1, 1, 0],
]


def test_an_evening_against_an_independent_calculation(alkort: Any) -> None:
    table = alkort(settings={"target": 25})
    totals = [0, 0]
    for number, winners in enumerate(EVENING, start=1):
        created = table.round(tricks(*winners), who=number % 4)
        expected = expected_points(winners)
        assert created["result"]["cells"] == list(expected)
        totals = [totals[0] + expected[0], totals[1] + expected[1]]
        assert created["result"]["totals"] == totals
    assert table.match()["totals"] == totals == [12, 9]
    table.patch({"settings": {"target": 12}})
    assert table.match()["status"] == "decided"
    table.patch({"settings": {"target": 20}})
    assert table.match()["status"] == "in_progress"
    table.round(tricks(*[1] * 9))
    match = table.match()
    assert match["totals"] == [12, 18] and match["status"] == "in_progress"
    ended = table.post("/end", who=3).json()
    assert ended["winner"] == {"seats": None, "team": 1}


def test_calculator_scores_alkort(client: Any) -> None:
    response = client.post("/v1/games/alkort/score", json=tricks(0, 0, 0, 0, 0, 1))
    assert response.json() == {
        "net": None,
        "cells": [5, 0],
        "breakdown": {"game": "alkort", "kind": "muk", "run": 5, "team": 0, "points": 5},
    }
    wrong = client.post(
        "/v1/games/alkort/score", json={"type": "asszorti_amounts", "amounts": [0, 0, 0]}
    )
    assert wrong.status_code == 422


def test_games_lists_both(client: Any) -> None:
    games = {g["name"]: g for g in client.get("/v1/games").json()["items"]}
    assert games["alkort"]["players"] == 4 and games["alkort"]["teams"] == 2
    assert games["alkort"]["round_types"] == ["alkort_tricks", "alkort_points"]
    assert games["alkort"]["settings"]["properties"]["target"]["default"] == 11
    assert games["asszorti"]["round_types"] == ["asszorti_hand", "asszorti_amounts"]


def test_a_correction_that_leaves_k_takes_both_teams_past_a_lowered_target(alkort: Any) -> None:
    """Team 0 reached the lowered target first, at round 1; a correction of round 3 that
    leaves that so is accepted, and team 0, the first to reach the target, still wins."""
    table = alkort(settings={"target": 11})
    table.round(points(0, 9))
    table.round(points(1, 1))
    table.round(points(1, 1))
    assert table.patch({"settings": {"target": 9}}).json()["winner"] == {"seats": None, "team": 0}
    corrected = table.put("/rounds/3", points(1, 9))
    assert corrected.status_code == 200, corrected.text
    match = table.match()
    assert match["totals"] == [9, 10] and match["status"] == "decided"
    assert match["winner"] == {"seats": None, "team": 0}


def test_the_team_that_reached_the_target_first_wins_through_every_later_change(
    alkort: Any,
) -> None:
    """Target 21: team 1 +6, team 0 +9, team 0 +9; the target lowered to 7 (team 0 wins);
    deal 2 corrected to team 1 +1. Running totals 0:6, 0:7, 9:7: team 1 reached 7 first.
    The winner stays when the match is judged again (a PATCH) and through End match."""
    team_1 = {"seats": None, "team": 1}
    table = alkort(settings={"target": 21})
    for deal in (points(1, 6), points(0, 9), points(0, 9)):
        table.round(deal)
    assert table.patch({"settings": {"target": 7}}).json()["winner"] == {"seats": None, "team": 0}
    corrected = table.put("/rounds/2", points(1, 1))
    assert corrected.status_code == 200, corrected.text
    match = table.match()
    assert match["totals"] == [9, 7] and match["status"] == "decided"
    assert match["winner"] == team_1
    kept = table.patch({"settings": {"target": 7}})  # judged again: nothing changes
    assert kept.status_code == 200, kept.text
    assert (kept.json()["winner"], kept.json()["version"]) == (team_1, match["version"])
    ended = table.post("/end")
    assert ended.status_code == 200, ended.text
    assert ended.json()["winner"] == team_1


@pytest.mark.parametrize("names", [["X", "X"], ["X", "x"], ["\uff38", "X"]])  # full-width X
def test_team_names_are_unique_like_players(client: Any, alkort: Any, names: list[str]) -> None:
    created = client.post(
        "/v1/matches", json={"game": "alkort", "players": FOUR, "team_names": names}
    )
    assert created.status_code == 422
    assert created.json()["errors"][0]["loc"] == ["body", "team_names", 1]
    table = alkort(team_names=["Us", "Them"])
    before = table.snapshot()
    renamed = table.patch({"team_names": names})
    assert renamed.status_code == 422 and renamed.json()["code"] == "validation_error"
    assert renamed.json()["errors"][0]["loc"] == ["body", "team_names", 1]
    assert table.snapshot() == before


def test_a_correction_after_the_target_was_lowered_follows_the_totals(alkort: Any) -> None:
    table = alkort(settings={"target": 30})
    for deal in (points(0, 9), points(1, 1), points(0, 1), points(1, 6)):
        table.round(deal)
    assert table.patch({"settings": {"target": 10}}).json()["winner"]["team"] == 0
    # Round 3 unchanged, then a real correction that leaves team 0 short of 10.
    assert table.put("/rounds/3", points(0, 1)).status_code == 200
    assert table.put("/rounds/3", points(1, 1)).status_code == 200
    match = table.match()
    assert match["totals"] == [9, 8] and match["status"] == "in_progress"
    assert match["winner"] is None
