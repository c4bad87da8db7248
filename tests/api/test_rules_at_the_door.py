"""Rounds the rules cannot produce are refused at the door, and refusals give the real reason.

Asszorti: every hand is the declarer against both opponents equally, so amounts entered
by hand must net one seat +2X and each other seat -X, with X what some hand at that table
is worth (at most 72 a player without kontra, 2304 with the whole kontra ladder).
Alkort: a target both teams already reach is refused because the match was decided at an
earlier round; a correction that would decide it before rounds already played, likewise.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.helpers import Table, amounts

FOUR = ["Anna", "Bela", "Cili", "Dani"]


def points(team: int, value: int) -> dict[str, Any]:
    return {"type": "alkort_points", "team": team, "points": value}


def assert_refused_amounts(response: Any, reason: str) -> None:
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["code"] == "validation_error"
    [error] = problem["errors"]
    assert error["loc"] == ["body", "amounts"]
    assert reason in error["message"]


@pytest.mark.parametrize(
    ("values", "reason"),
    [
        pytest.param((3, -1, -2), "both opponents equally", id="opponents-pay-unequally"),
        pytest.param((1, -1, 0), "both opponents equally", id="only-one-opponent-pays"),
        pytest.param((2000, -1000, -1000), "at most 72 a player", id="beyond-any-hand"),
        pytest.param((146, -73, -73), "at most 72 a player", id="one-past-the-largest-hand"),
        pytest.param((142, -71, -71), "win 71 from each opponent", id="no-hand-is-worth-71"),
        pytest.param((76, -38, -38), "without kontra", id="38-needs-a-kontra"),
    ],
)
def test_amounts_no_hand_can_make_are_422_and_change_nothing(
    make_table: Any, values: tuple[int, int, int], reason: str
) -> None:
    table: Table = make_table(settings={"kontra": False})
    table.round(amounts(18, -9, -9))
    before = table.snapshot()
    assert_refused_amounts(table.post("/rounds", amounts(*values)), reason)
    assert_refused_amounts(table.put("/rounds/1", amounts(*values)), reason)
    assert table.snapshot() == before


@pytest.mark.parametrize(
    "values",
    [
        pytest.param((0, 0, 0), id="a-6-5-0-split-undoubled"),
        pytest.param((2, -1, -1), id="9-basic-game-less-an-8-arrivazs-lost"),
        pytest.param((-4, 2, 2), id="declarer-pays-2-each"),
        pytest.param((-72, 144, -72), id="the-largest-hand"),
        pytest.param((72, 72, -144), id="the-largest-loss"),
    ],
)
def test_amounts_a_hand_without_kontra_can_make_are_accepted(
    make_table: Any, values: tuple[int, int, int]
) -> None:
    table: Table = make_table(settings={"kontra": False})
    assert table.round(amounts(*values))["result"]["net"] == list(values)


def test_the_kontra_ladder_raises_the_bound(make_table: Any) -> None:
    table: Table = make_table()
    mordkontra = table.round(amounts(4608, -2304, -2304))
    assert mordkontra["result"]["net"] == [4608, -2304, -2304]
    assert table.round(amounts(76, -38, -38))["result"]["net"] == [76, -38, -38]
    assert_refused_amounts(table.post("/rounds", amounts(2000, -1000, -1000)), "at most 2304")
    assert_refused_amounts(table.post("/rounds", amounts(4610, -2305, -2305)), "at most 2304")
    # Turning kontra off applies to amounts entered from then on.
    assert table.patch({"settings": {"kontra": False}}).status_code == 200
    assert_refused_amounts(table.post("/rounds", amounts(76, -38, -38)), "without kontra")


@pytest.mark.parametrize(
    ("values", "status"),
    [
        pytest.param((3, -1, -2), 422, id="not-a-hand-anywhere"),
        pytest.param((2000, -1000, -1000), 422, id="no-hand-is-worth-1000"),
        pytest.param((4608, -2304, -2304), 200, id="mordkontra-allowed"),
        pytest.param((0, 0, 0), 200, id="all-zero"),
    ],
)
def test_the_calculator_checks_amounts_as_a_table_with_kontra(
    client: Any, values: tuple[int, int, int], status: int
) -> None:
    response = client.post("/v1/games/asszorti/score", json=amounts(*values))
    assert response.status_code == status, response.text
    if status == 200:
        assert response.json()["net"] == list(values)
    else:
        assert response.json()["errors"][0]["loc"] == ["body", "amounts"]


@pytest.fixture
def alkort(client: Any) -> Any:
    def make(**body: Any) -> Table:
        return Table(client, {"game": "alkort", "players": FOUR, **body})

    return make


def test_a_target_both_teams_reach_is_refused_for_the_real_reason(alkort: Any) -> None:
    table: Table = alkort()
    table.round(points(0, 9))
    table.round(points(1, 6))
    refused = table.patch({"settings": {"target": 6}})
    assert refused.status_code == 409
    problem = refused.json()
    assert problem["code"] == "target_already_reached"
    assert "decided at an earlier round" in problem["detail"]
    assert "does not rewrite which round decided the match" in problem["detail"]


def test_a_correction_that_decides_earlier_is_refused_for_the_real_reason(alkort: Any) -> None:
    table: Table = alkort(settings={"target": 10})
    table.round(points(0, 1))
    table.round(points(1, 1))
    table.round(points(0, 1))
    refused = table.put("/rounds/1", points(1, 9))
    assert refused.status_code == 409
    problem = refused.json()
    assert problem["code"] == "correction_conflict"
    assert "decided after round 2" in problem["detail"]
    assert "rounds were played after it" in problem["detail"]
    assert "team" not in problem["detail"]
