"""The own table (app/games/own_table.py): its settings, its rounds, and properties of
its sheet: a fold of the rounds, zero-sum tables settle to zero, and the decided rule
as the target moves."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from app.games import GAMES
from app.games.base import GameRuleError, SettingConflict, refold_by_apply
from app.games.own_table import GAME, OwnTableGame, OwnTablePoints, OwnTableSettings
from app.games.settlement import settle

NAMES = ["Anna", "Bela", "Cili", "Dani", "Ede", "Flora", "Gabi", "Hugo"]


def table(seats: int, **values: Any) -> tuple[OwnTableGame, OwnTableSettings]:
    rules = OwnTableSettings(**values)
    return GAME.for_table(seats, rules), rules


def points(*values: int) -> OwnTablePoints:
    return OwnTablePoints(type="own_points", points=list(values))


def play(game: OwnTableGame, rules: OwnTableSettings, rounds: list[list[int]]) -> Any:
    sheet = game.initial_state()
    for each in rounds:
        _, sheet = game.apply(sheet, game.score(points(*each), rules).points)
    return sheet


# -- settings ---------------------------------------------------------------------------


def test_it_is_in_the_registry_for_two_to_eight_players() -> None:
    assert GAMES["own_table"] is GAME
    assert (GAME.min_players, GAME.max_players, GAME.max_teams) == (2, 8, 4)


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"teams": 1}, "teams"),
        ({"teams": 5}, "teams"),
        ({"zero_sum": True, "negatives": False}, "negatives"),
        ({"target": 0}, "target"),
        ({"planned_rounds": 0}, "planned_rounds"),
        ({"table_rules": "x" * 501}, "table_rules"),
        ({"table_rules": "tabs\tare not text"}, "table_rules"),
        ({"first_dealer": 8}, "first_dealer"),
        ({"zero_sum": 1}, "zero_sum"),
    ],
)
def test_bad_settings_name_the_field(values: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as error:
        OwnTableSettings(**values)
    assert [e["loc"][0] for e in error.value.errors()] == [field]


def test_table_rules_keep_line_breaks_and_letters() -> None:
    rules = OwnTableSettings(table_rules="  Kétszemélyes alsós:\n8 lap, 4 a talon  ")
    assert rules.table_rules == "Kétszemélyes alsós:\n8 lap, 4 a talon"


@pytest.mark.parametrize(
    ("seats", "values", "loc"),
    [
        (3, {"teams": 2}, ("settings", "teams")),  # 3 players in teams of 2
        (4, {"teams": 4}, ("settings", "teams")),  # teams of one are no teams
        (6, {"teams": 4}, ("settings", "teams")),
        (3, {"first_dealer": 3}, ("settings", "first_dealer")),
    ],
)
def test_settings_that_do_not_fit_the_players_name_the_field(
    seats: int, values: dict[str, Any], loc: tuple[str, ...]
) -> None:
    game, _ = table(seats, **values)
    with pytest.raises(GameRuleError) as error:
        game.validate_players(NAMES[:seats])
    assert error.value.loc == loc


@pytest.mark.parametrize("seats", [1, 9])
def test_two_to_eight_players(seats: int) -> None:
    names = [*NAMES, "Ida"][:seats]
    game, _ = table(seats)
    with pytest.raises(GameRuleError) as error:
        game.validate_players(names)
    assert error.value.loc == ("players",)


def test_a_table_keeps_its_size_when_players_are_renamed() -> None:
    game, _ = table(4)
    game.validate_players(["Anna", "Bela", "Cili", "Dani"])
    with pytest.raises(GameRuleError, match="this table has 4 players"):
        game.validate_players(["Anna", "Bela", "Cili"])
    with pytest.raises(GameRuleError, match="already the name"):
        game.validate_players(["Anna", "Bela", "Cili", "ANNA"])


# -- rounds -----------------------------------------------------------------------------


def test_a_round_is_the_points_as_the_table_says_them() -> None:
    game, rules = table(3)
    score = game.score(points(3, 0, -1), rules)
    assert score.points == (3, 0, -1)
    assert score.net is None
    assert score.breakdown == {"sum": 2}


def test_a_table_in_teams_enters_one_number_per_team() -> None:
    game, rules = table(6, teams=3)
    assert game.score(points(1, 2, 3), rules).points == (1, 2, 3)
    with pytest.raises(GameRuleError, match="one number per team: 3 of them") as error:
        game.score(points(1, 2, 3, 4, 5, 6), rules)
    assert error.value.loc == ("points",)


def test_unnamed_teams_are_labelled_from_one_with_their_players() -> None:
    game, _ = table(6, teams=3)
    assert game.columns(NAMES[:6], None) == [
        "Team 1 (Anna & Dani)",
        "Team 2 (Bela & Ede)",
        "Team 3 (Cili & Flora)",
    ]
    assert game.columns(NAMES[:6], ["Red", "Green", "Blue"]) == ["Red", "Green", "Blue"]


def test_rounds_keep_the_tables_own_rules() -> None:
    game, rules = table(3, negatives=False)
    with pytest.raises(GameRuleError) as error:
        game.score(points(3, -1, 0), rules)
    assert error.value.loc == ("points", 1)
    game, rules = table(3, zero_sum=True)
    with pytest.raises(GameRuleError, match="sum to 0, these sum to 1"):
        game.score(points(3, -1, -1), rules)
    with pytest.raises(GameRuleError, match="one number per seat"):
        game.score(points(3, -3), rules)


def test_the_calculator_scores_a_round_at_no_table() -> None:
    """The registry's instance (no table yet) takes any number of columns."""
    assert GAME.score(points(1, 2, 3, 4, 5), OwnTableSettings()).points == (1, 2, 3, 4, 5)


# -- how it ends ----------------------------------------------------------------------


def test_a_two_man_alkort_evening_to_eleven() -> None:
    game, rules = table(2, target=11, negatives=False)
    sheet = play(game, rules, [[6, 0], [0, 1], [0, 5]])
    assert sheet.totals == (6, 6) and not game.is_decided(sheet, rules, 3)
    sheet = play(game, rules, [[6, 0], [0, 1], [0, 5], [5, 0]])
    assert game.is_decided(sheet, rules, 4)
    assert game.winner(sheet, rules).seats == (0,)
    assert [s.seats for s in game.standings(sheet)] == [(0,), (1,)]


def test_hearts_lowest_wins_when_someone_reaches_the_target() -> None:
    game, rules = table(4, target=100, lowest_wins=True, negatives=False)
    sheet = play(game, rules, [[26, 0, 0, 0], [0, 13, 13, 0], [60, 3, 10, 0]])
    assert sheet.totals == (86, 16, 23, 0) and not game.is_decided(sheet, rules, 3)
    sheet = play(game, rules, [[26, 0, 0, 0], [0, 13, 13, 0], [60, 3, 10, 0], [20, 0, 0, 6]])
    assert game.is_decided(sheet, rules, 4)
    assert game.winner(sheet, rules).seats == (3,)
    standings = game.standings(sheet)
    assert [(s.rank, s.seats, s.total) for s in standings] == [
        (1, (3,), 6),
        (2, (1,), 16),
        (3, (2,), 23),
        (4, (0,), 106),
    ]


def test_planned_rounds_decide_the_match() -> None:
    game, rules = table(2, planned_rounds=2)
    assert not game.is_decided(game.initial_state(), rules, 1)
    assert game.is_decided(game.initial_state(), rules, 2)


def test_a_tie_names_no_winner() -> None:
    game, rules = table(3)
    assert game.winner(play(game, rules, [[2, 2, 1]]), rules) is None


def test_the_shape_of_the_sheet_is_fixed_at_creation() -> None:
    game, rules = table(4, teams=2, zero_sum=True)
    sheet = game.initial_state()
    for name, value in (("teams", 0), ("zero_sum", False)):
        with pytest.raises(SettingConflict) as error:
            game.check_settings_change(rules, rules.model_copy(update={name: value}), sheet, 0)
        assert error.value.loc == ("settings", name)
    with pytest.raises(SettingConflict):
        game.check_settings_change(rules, rules.model_copy(update={"lowest_wins": True}), sheet, 1)
    game.check_settings_change(rules, rules.model_copy(update={"lowest_wins": True}), sheet, 0)


def test_a_first_dealer_past_the_last_seat_is_bad_input_not_a_conflict() -> None:
    game, rules = table(3)
    moved = rules.model_copy(update={"first_dealer": 3})
    with pytest.raises(GameRuleError) as error:
        game.check_settings_change(rules, moved, game.initial_state(), 0)
    assert not isinstance(error.value, SettingConflict)
    assert error.value.loc == ("settings", "first_dealer")


# -- properties -------------------------------------------------------------------------


@st.composite
def tables(draw: Any, zero_sum: bool | None = None) -> tuple[OwnTableGame, OwnTableSettings]:
    teams = draw(st.sampled_from([0, 2, 3, 4]))
    size = draw(st.integers(2, 4)) if teams else 1
    seats = teams * size if teams else draw(st.integers(2, 8))
    assume(seats <= 8)
    zero = draw(st.booleans()) if zero_sum is None else zero_sum
    return table(seats, teams=teams, zero_sum=zero)


@st.composite
def evenings(draw: Any, zero_sum: bool | None = None) -> Any:
    game, rules = draw(tables(zero_sum))
    columns = game.team_count or game.seat_count
    rounds = []
    for _ in range(draw(st.integers(0, 12))):
        values = draw(st.lists(st.integers(-50, 50), min_size=columns, max_size=columns))
        if rules.zero_sum:
            values[-1] = -sum(values[:-1])
        rounds.append(values)
    return game, rules, rounds


@settings(deadline=None, max_examples=200)
@given(evenings())
def test_the_sheet_is_a_fold_of_the_rounds(evening: Any) -> None:
    game, rules, rounds = evening
    sheet = play(game, rules, rounds)
    columns = game.team_count or game.seat_count
    assert sheet.totals == tuple(sum(r[c] for r in rounds) for c in range(columns))
    for number in range(1, len(rounds) + 1):
        refold = game.refold(rounds, number, rules)
        assert refold.row[0] == tuple(rounds[number - 1])
        assert refold.row[1] == play(game, rules, rounds[:number])
        assert refold == refold_by_apply(game, rounds, number, rules)
        assert refold.last == sheet


@settings(deadline=None, max_examples=200)
@given(evenings(zero_sum=True))
def test_zero_sum_tables_settle_to_zero(evening: Any) -> None:
    game, rules, rounds = evening
    sheet = play(game, rules, rounds)
    assert sheet.net == sheet.totals and sum(sheet.net) == 0
    balance = list(sheet.net)
    payments = settle(sheet.net)
    for payer, payee, amount in payments:
        assert amount > 0 and balance[payer] < 0 < balance[payee]
        balance[payer] += amount
        balance[payee] -= amount
    assert balance == [0] * len(balance)
    assert len(payments) <= max(len(balance) - 1, 0)


@settings(deadline=None, max_examples=200)
@given(evenings(zero_sum=False))
def test_a_table_that_is_not_zero_sum_has_no_money(evening: Any) -> None:
    game, rules, rounds = evening
    assert play(game, rules, rounds).net is None


@settings(deadline=None, max_examples=300)
@given(evenings(zero_sum=False), st.integers(1, 300), st.integers(1, 300), st.booleans())
def test_the_decided_rule_follows_the_target_as_it_moves(
    evening: Any, old: int, new: int, lowest: bool
) -> None:
    game, base, rounds = evening
    before = base.model_copy(update={"target": old, "lowest_wins": lowest})
    after = before.model_copy(update={"target": new})
    sheet = play(game, before, rounds)
    reached = [c for c, total in enumerate(sheet.totals) if total >= new]
    try:
        game.check_settings_change(before, after, sheet, len(rounds))
    except SettingConflict as error:
        # Only a highest-wins table refuses, and only when the sheet cannot tell which
        # of two totals past the new line got there first.
        assert not lowest and old != new and len(reached) > 1
        assert error.code == "target_already_reached"
        return
    assert game.is_decided(sheet, after, len(rounds)) == bool(reached)
    winner = game.winner(sheet, after)
    if not lowest and len(reached) == 1:
        assert winner is not None
        assert (winner.team if game.team_count else winner.seats[0]) == reached[0]
