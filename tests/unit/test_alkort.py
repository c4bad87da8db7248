"""Alkort scoring and sheet rules (spec/RULES.md §2), table-driven."""

from __future__ import annotations

import doctest
from typing import Any

import pytest
from pydantic import ValidationError

from app.games import alkort
from app.games.alkort import GAME, AlkortPoints, AlkortSettings, AlkortTricks
from app.games.base import GameRuleError, Score, SettingConflict, SheetState, Standing, Winner


def tricks(*winners: Any) -> AlkortTricks:
    return AlkortTricks(type="alkort_tricks", tricks=list(winners))


def points(team: Any, value: Any) -> AlkortPoints:
    return AlkortPoints(type="alkort_points", team=team, points=value)


def score(round_input: AlkortTricks | AlkortPoints) -> Score:
    return GAME.score(round_input, AlkortSettings())


def state(t0: int, t1: int) -> SheetState:
    return SheetState(totals=(t0, t1))


# RULES.md §2.2 worked checks 1-5: (tricks, team points, breakdown)
WORKED_CHECKS = [
    pytest.param(
        [0, 0, 0, 0, 0, 0, 1, 1, 0],
        (6, 0),
        {"kind": "stroke", "run": 6, "team": 0, "points": 6},
        id="1-six-card-stroke",
    ),
    pytest.param(
        [0, 0, 0, 0, 1, 0, 0, 0, 0],
        (1, 0),
        {"kind": "plain", "run": None, "team": 0, "points": 1},
        id="2-run-of-four-is-plain",
    ),
    pytest.param(
        [0, 0, 0, 0, 0, 1],
        (5, 0),
        {"kind": "muk", "run": 5, "team": 0, "points": 5},
        id="3-muk-locked-after-six",
    ),
    pytest.param(
        [1] * 9,
        (0, 9),
        {"kind": "stroke", "run": 9, "team": 1, "points": 9},
        id="4-all-nine-to-team-1",
    ),
    pytest.param(
        [1, 0, 1, 0, 1, 0, 1, 0, 1],
        (0, 1),
        {"kind": "plain", "run": None, "team": 1, "points": 1},
        id="5-alternating-plain",
    ),
]


@pytest.mark.parametrize(("winners", "expected_points", "breakdown"), WORKED_CHECKS)
def test_worked_checks_score_as_the_rules_say(
    winners: list[int], expected_points: tuple[int, int], breakdown: dict[str, Any]
) -> None:
    result = score(tricks(*winners))
    assert result.net is None
    assert result.points == expected_points
    assert dict(result.breakdown) == breakdown


def test_worked_check_6_five_unbroken_tricks_are_rejected() -> None:
    with pytest.raises(GameRuleError) as caught:
        score(tricks(0, 0, 0, 0, 0))
    assert caught.value.loc == ("tricks",)
    assert "could still change" in caught.value.message
    assert "grow" in caught.value.message


@pytest.mark.parametrize(
    ("winners", "expected_points", "kind", "run"),
    [
        ([0, 0, 0, 0, 0, 0, 0, 1], (7, 0), "stroke", 7),
        ([1, 1, 1, 1, 1, 1, 1, 1, 0], (0, 8), "stroke", 8),
        ([1, 1, 1, 1, 1, 1, 0], (0, 6), "stroke", 6),
        ([1, 1, 1, 1, 1, 0, 0, 0, 0], (0, 5), "muk", 5),
        ([0, 1, 1, 1, 1, 1], (0, 1), "plain", None),
        ([0, 0, 0, 0, 1, 0], (1, 0), "plain", None),
        ([1, 0, 0, 0, 0, 0], (1, 0), "plain", None),
        ([0, 0, 0, 1, 1, 1, 1, 1], (0, 1), "plain", None),
        ([0, 1, 0, 1, 0, 1, 0, 1, 1], (0, 1), "plain", None),
    ],
)
def test_runs_score_by_length(
    winners: list[int], expected_points: tuple[int, int], kind: str, run: int | None
) -> None:
    result = score(tricks(*winners))
    assert result.points == expected_points
    assert result.breakdown["kind"] == kind
    assert result.breakdown["run"] == run


@pytest.mark.parametrize(
    "winners",
    [
        pytest.param([0, 0, 0, 0, 0, 1], id="muk-after-six"),
        pytest.param([0, 0, 0, 0, 1, 0], id="plain-five-of-six"),
        pytest.param([1, 0, 0, 0, 0, 0], id="broken-at-once-then-five"),
        pytest.param([0, 1, 0, 1, 0, 1, 0, 0], id="five-of-eight"),
        pytest.param([0, 0, 0, 1, 1, 1, 1, 1], id="other-team-five-of-eight"),
        pytest.param([0, 0, 0, 0, 0, 0, 1], id="stroke-after-seven"),
    ],
)
def test_a_list_may_stop_once_the_result_is_settled(winners: list[int]) -> None:
    assert sum(score(tricks(*winners)).points) in alkort.DEAL_POINTS


@pytest.mark.parametrize(
    ("winners", "reason"),
    [
        pytest.param([0], "grow", id="one-trick"),
        pytest.param([0, 1, 0, 1], "5 tricks", id="four-tricks"),
        pytest.param([0, 0, 0, 0, 0], "grow", id="unbroken-five"),
        pytest.param([0, 0, 0, 0, 0, 0, 0, 0], "grow", id="unbroken-eight"),
        pytest.param([0, 1, 0, 1, 0], "5 tricks", id="three-two"),
        pytest.param([0, 0, 0, 0, 1, 1, 1, 1], "5 tricks", id="four-four"),
        pytest.param([1, 0, 1, 0, 1, 0, 1, 0], "5 tricks", id="alternating-eight"),
    ],
)
def test_a_list_that_could_still_change_is_rejected(winners: list[int], reason: str) -> None:
    with pytest.raises(GameRuleError) as caught:
        score(tricks(*winners))
    assert caught.value.loc == ("tricks",)
    assert "could still change" in caught.value.message
    assert reason in caught.value.message


def test_tricks_after_the_settled_point_change_nothing() -> None:
    settled = score(tricks(0, 0, 0, 0, 0, 1))
    for tail in ([0], [1, 1], [0, 1, 0], [1, 1, 1]):
        assert score(tricks(0, 0, 0, 0, 0, 1, *tail)) == settled


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param([], id="empty"),
        pytest.param([0] * 10, id="ten-tricks"),
        pytest.param([0, 0, 0, 0, 2], id="value-2"),
        pytest.param([0, 0, 0, 0, -1], id="value-minus-1"),
        pytest.param([True, 0, 0, 0, 0, 1], id="bool"),
        pytest.param([0.0, 0, 0, 0, 0, 1], id="float"),
        pytest.param(["0", 0, 0, 0, 0, 1], id="string"),
    ],
)
def test_malformed_trick_lists_are_rejected_by_the_schema(bad: list[Any]) -> None:
    with pytest.raises(ValidationError):
        AlkortTricks(type="alkort_tricks", tricks=bad)


def test_unknown_fields_are_rejected() -> None:
    with pytest.raises(ValidationError):
        AlkortTricks.model_validate({"type": "alkort_tricks", "tricks": [1] * 9, "x": 1})


@pytest.mark.parametrize(
    ("value", "kind"),
    [(1, "plain"), (5, "muk"), (6, "stroke"), (7, "stroke"), (8, "stroke"), (9, "stroke")],
)
@pytest.mark.parametrize("team", [0, 1])
def test_manual_points_name_their_kind(value: int, kind: str, team: int) -> None:
    result = score(points(team, value))
    assert result.net is None
    assert result.points[team] == value
    assert result.points[1 - team] == 0
    assert dict(result.breakdown) == {"kind": kind, "run": None, "team": team, "points": value}


@pytest.mark.parametrize("value", [0, 2, 3, 4, 10, -1])
def test_manual_points_that_no_deal_is_worth_are_rejected(value: int) -> None:
    with pytest.raises(GameRuleError) as caught:
        score(points(0, value))
    assert caught.value.loc == ("points",)
    assert str(value) in caught.value.message


@pytest.mark.parametrize(
    ("team", "value"),
    [(2, 1), (-1, 1), (True, 1), (0, True), (0, 5.0), ("0", 5)],
)
def test_manual_points_schema_is_strict(team: Any, value: Any) -> None:
    with pytest.raises(ValidationError):
        points(team, value)


def test_a_round_of_another_type_is_rejected() -> None:
    from app.games.asszorti import AsszortiAmounts

    other = AsszortiAmounts(type="asszorti_amounts", amounts=[0, 0, 0])
    with pytest.raises(GameRuleError) as caught:
        GAME.score(other, AlkortSettings())
    assert caught.value.loc == ("type",)


def test_settings_defaults_and_bounds() -> None:
    assert AlkortSettings() == AlkortSettings(target=11, first_dealer=0)
    for bad in ({"target": 0}, {"target": 1001}, {"first_dealer": 4}, {"target": "11"}):
        with pytest.raises(ValidationError):
            AlkortSettings.model_validate(bad)


def test_fold_puts_points_under_the_winning_team() -> None:
    sheet = GAME.initial_state()
    assert sheet == SheetState(totals=(0, 0))
    rows = []
    for round_input in (
        tricks(0, 0, 0, 0, 0, 0, 1, 1, 0),
        tricks(1, 0, 1, 0, 1, 0, 1, 0, 1),
        points(1, 5),
    ):
        cells, sheet = GAME.apply(sheet, score(round_input).points)
        rows.append(cells)
    assert rows == [(6, 0), (0, 1), (0, 5)]
    assert sheet == SheetState(totals=(6, 6), owed=None, net=None)


@pytest.mark.parametrize(
    ("totals", "target", "decided"),
    [
        ((0, 0), 11, False),
        ((10, 9), 11, False),
        ((11, 0), 11, True),
        ((3, 14), 11, True),
        ((1, 0), 1, True),
    ],
)
def test_decided_when_a_team_reaches_the_target(
    totals: tuple[int, int], target: int, decided: bool
) -> None:
    settings = AlkortSettings(target=target)
    assert GAME.is_decided(state(*totals), settings, 3) is decided


@pytest.mark.parametrize(
    ("totals", "target", "winner"),
    [
        ((11, 4), 11, Winner(team=0)),
        ((4, 15), 11, Winner(team=1)),
        ((7, 4), 11, Winner(team=0)),  # ended early: the higher total
        ((4, 9), 11, Winner(team=1)),
        ((6, 6), 11, None),  # ended on a tie
        ((12, 14), 11, Winner(team=1)),  # both past the line: the higher total
        ((12, 12), 11, None),
    ],
)
def test_winner(totals: tuple[int, int], target: int, winner: Winner | None) -> None:
    assert GAME.winner(state(*totals), AlkortSettings(target=target)) == winner


def test_standings_rank_teams_with_their_seats() -> None:
    assert GAME.standings(state(3, 9)) == [
        Standing(rank=1, seats=(1, 3), total=9, team=1),
        Standing(rank=2, seats=(0, 2), total=3, team=0),
    ]
    assert GAME.standings(state(5, 5)) == [
        Standing(rank=1, seats=(0, 2), total=5, team=0),
        Standing(rank=1, seats=(1, 3), total=5, team=1),
    ]


@pytest.mark.parametrize(
    ("totals", "old", "new"),
    [
        ((8, 3), 11, 20),  # raising reopens nothing that was closed
        ((12, 3), 11, 20),  # raising above both reopens
        ((8, 3), 11, 5),  # lowering to decide it for one team
        ((8, 3), 11, 8),  # exactly one team's total
        ((8, 8), 11, 9),
        ((8, 8), 8, 8),  # unchanged target is not a change
    ],
)
def test_target_changes_that_are_allowed(totals: tuple[int, int], old: int, new: int) -> None:
    GAME.check_settings_change(
        AlkortSettings(target=old), AlkortSettings(target=new), state(*totals), 4
    )


@pytest.mark.parametrize(
    ("totals", "new"),
    [((8, 3), 3), ((8, 3), 1), ((8, 8), 8), ((12, 11), 11)],
)
def test_a_target_both_teams_already_reach_is_a_conflict(totals: tuple[int, int], new: int) -> None:
    with pytest.raises(SettingConflict) as caught:
        GAME.check_settings_change(
            AlkortSettings(target=20), AlkortSettings(target=new), state(*totals), 4
        )
    assert caught.value.loc == ("settings", "target")
    assert caught.value.code == "target_already_reached"
    assert "2 totals" in caught.value.message
    assert "decided at an earlier round" in caught.value.message
    assert "does not rewrite which round decided the match" in caught.value.message


def test_four_players_with_unique_names() -> None:
    GAME.validate_players(["Anna", "Bela", "Cili", "Dani"])
    with pytest.raises(GameRuleError, match="exactly four players"):
        GAME.validate_players(["Anna", "Bela", "Cili"])
    with pytest.raises(GameRuleError, match="exactly four players"):
        GAME.validate_players(["Anna", "Bela", "Cili", "Dani", "Erik"])
    with pytest.raises(GameRuleError) as caught:
        GAME.validate_players(["Anna", "Bela", "anna", "Dani"])
    assert caught.value.loc == ("players", 2)


def test_columns_are_the_teams() -> None:
    players = ["Anna", "Bela", "Cili", "Dani"]
    assert GAME.columns(players, ["Us", "Them"]) == ["Us", "Them"]
    assert GAME.columns(players, None) == ["Team 1 (Anna & Cili)", "Team 2 (Bela & Dani)"]


def test_game_facts() -> None:
    assert (GAME.name, GAME.title, GAME.seat_count, GAME.team_count) == ("alkort", "Alkort", 4, 2)
    assert GAME.settings_model is AlkortSettings
    assert [t.round_type for t in GAME.round_types] == ["alkort_tricks", "alkort_points"]


def test_doctests() -> None:
    results = doctest.testmod(alkort)
    assert results.attempted >= 2
    assert results.failed == 0
