"""When a match is decided, and which corrections and target moves may not rewrite it:
one rule for every game (app/games/decided.py), judged on the sheet as it stands."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.games.alkort import GAME as ALKORT
from app.games.alkort import AlkortSettings
from app.games.asszorti import GAME as ASSZORTI
from app.games.asszorti import AsszortiSettings
from app.games.base import Game, SettingConflict, SheetState, Winner
from app.games.decided import CorrectionRefused, check_correction, winner
from app.games.own_table import GAME as OWN
from app.games.own_table import OwnTableSettings


def sheet_of(game: Game, rounds: list[list[int]]) -> SheetState:
    sheet = game.initial_state()
    for each in rounds:
        _, sheet = game.apply(sheet, each)
    return sheet


def correct(game: Game, rules: Any, rounds: list[list[int]], number: int, new: list[int]) -> None:
    """Run the correction rule on round ``number`` of ``rounds`` becoming ``new``."""
    corrected = [*rounds[: number - 1], new, *rounds[number:]]
    check_correction(
        game,
        rules,
        old_points=rounds,
        number=number,
        new=game.refold(corrected, number, rules),
    )


def move_target(game: Game, old: Any, target: int, rounds: list[list[int]]) -> Any:
    new = old.model_copy(update={"target": target})
    game.check_settings_change(old, new, sheet_of(game, rounds), len(rounds))
    return new


HEARTS = [[60, 0, 10], [0, 70, 10], [0, 0, 20]]


def test_corrections_after_the_planned_rounds_were_lowered_to_the_rounds_played() -> None:
    for game, old, field in (
        (ASSZORTI, AsszortiSettings(), "planned_deals"),
        (OWN.for_table(3, OwnTableSettings()), OwnTableSettings(), "planned_rounds"),
    ):
        rounds = [[2, -1, -1], [-2, 4, -2], [0, 0, 0]]
        new = old.model_copy(update={field: 3})
        game.check_settings_change(old, new, sheet_of(game, rounds), 3)
        assert game.is_decided(sheet_of(game, rounds), new, 3)
        for number in (1, 2, 3):
            correct(game, new, rounds, number, [4, -2, -2])


def test_hearts_after_the_target_moved_is_decided_as_it_stands_and_takes_corrections() -> None:
    game = OWN.for_table(3, OwnTableSettings(lowest_wins=True, negatives=False, target=1000))
    rules = move_target(game, game.settings, 50, HEARTS)
    sheet = sheet_of(game, HEARTS)
    assert game.is_decided(sheet, rules, 3)
    assert game.winner(sheet, rules) is not None and game.winner(sheet, rules).seats == (2,)
    correct(game, rules, HEARTS, 3, [0, 0, 20])  # unchanged: accepted
    correct(game, rules, HEARTS, 1, [50, 0, 10])  # row 1 still decides, as it did
    correct(game, rules, HEARTS, 2, [0, 40, 30])  # the winner changes with the totals


def test_a_correction_that_leaves_nobody_at_a_moved_target_is_accepted() -> None:
    game = OWN.for_table(3, OwnTableSettings(target=1000))
    rounds = [[60, 0, 10], [-30, 20, 10]]
    rules = move_target(game, game.settings, 50, rounds)
    assert not game.is_decided(sheet_of(game, rounds), rules, 2)  # 30 is not at 50
    correct(game, rules, rounds, 2, [-20, 10, 10])
    correct(game, rules, rounds, 1, [55, 0, 10])


def test_a_total_that_fell_back_below_the_line_has_not_reached_it() -> None:
    game = OWN.for_table(2, OwnTableSettings(target=1000))
    rounds = [[60, 0], [-30, 40]]
    rules = move_target(game, game.settings, 40, rounds)  # seat 0 passed 40, then fell to 30
    sheet = sheet_of(game, rounds)
    assert game.past_target(sheet, rules) == 1
    assert game.winner(sheet, rules) is not None and game.winner(sheet, rules).seats == (1,)


def test_a_correction_may_not_end_the_match_before_rounds_already_played() -> None:
    game = OWN.for_table(2, OwnTableSettings(target=50))
    rounds = [[10, 0], [10, 0], [10, 0]]
    with pytest.raises(CorrectionRefused, match="after round 2"):
        correct(game, game.settings, rounds, 1, [40, 0])
    correct(game, game.settings, rounds, 3, [40, 0])  # decided at the last round: fine


def test_a_correction_may_not_move_k_earlier() -> None:
    game = OWN.for_table(2, OwnTableSettings(target=1000))
    rounds = [[10, 0], [50, 0], [-40, 0], [0, 10]]
    rules = move_target(game, game.settings, 60, rounds)  # k = 2, and round 4 stands after it
    correct(game, rules, rounds, 3, [-5, 0])  # k stays 2: accepted
    with pytest.raises(CorrectionRefused, match="after round 1"):
        correct(game, rules, rounds, 1, [60, 0])


def test_a_correction_that_leaves_k_where_it_was_is_accepted_and_the_first_still_wins() -> None:
    rules = AlkortSettings(target=11)
    rounds = [[9, 0], [0, 1], [0, 1]]
    lowered = move_target(ALKORT, rules, 9, rounds)  # k = 1: team 0 reached 9 first
    correct(ALKORT, lowered, rounds, 3, [0, 9])  # k stays 1: accepted
    corrected = [[9, 0], [0, 1], [0, 9]]
    sheet = sheet_of(ALKORT, corrected)  # 9 to 10: both teams reach 9, team 0 first
    assert ALKORT.is_decided(sheet, lowered, 3)
    assert winner(ALKORT, lowered, sheet, lambda: corrected) == Winner(team=0)


def test_alkort_is_won_by_the_team_that_reached_the_target_first_in_deal_order() -> None:
    rounds = [[0, 6], [9, 0], [9, 0]]
    lowered = move_target(ALKORT, AlkortSettings(target=21), 7, rounds)
    assert winner(ALKORT, lowered, sheet_of(ALKORT, rounds), lambda: rounds) == Winner(team=0)
    correct(ALKORT, lowered, rounds, 2, [0, 1])  # k stays 2: accepted
    corrected = [[0, 6], [0, 1], [9, 0]]  # running [0, 6], [0, 7], [9, 7]
    sheet = sheet_of(ALKORT, corrected)
    assert sheet.totals == (9, 7)
    assert winner(ALKORT, lowered, sheet, lambda: corrected) == Winner(team=1)


def test_the_rounds_are_read_only_where_two_totals_reach_the_target() -> None:
    def unread() -> list[list[int]]:
        raise AssertionError("the rounds were read")

    sheet = sheet_of(ALKORT, [[9, 0], [0, 1]])
    assert winner(ALKORT, AlkortSettings(target=9), sheet, unread) == Winner(team=0)


def test_two_totals_that_reached_the_target_in_one_round_name_the_higher() -> None:
    game = OWN.for_table(3, OwnTableSettings(target=100))
    rounds = [[90, 95, 10], [20, 10, 0]]
    sheet = sheet_of(game, rounds)
    assert game.past_target(sheet, game.settings) == 2
    assert game.winner(sheet, game.settings) == Winner(seats=(0,))
    correct(game, game.settings, rounds, 2, [10, 20, 0])  # still both, at round 2
    correct(game, game.settings, rounds, 1, [90, 90, 10])


def test_a_target_two_totals_already_reach_is_refused_where_the_first_wins() -> None:
    with pytest.raises(SettingConflict) as alkort:
        move_target(ALKORT, AlkortSettings(target=30), 6, [[9, 0], [0, 6]])
    game = OWN.for_table(3, OwnTableSettings(target=100))
    with pytest.raises(SettingConflict) as own:
        move_target(game, game.settings, 10, [[12, 0, 25]])
    with pytest.raises(SettingConflict) as same_round:  # whatever the path to it
        move_target(game, game.settings, 95, [[90, 95, 10], [20, 10, 0]])
    codes = {alkort.value.code, own.value.code, same_round.value.code}
    assert codes == {"target_already_reached"}
    move_target(game, game.settings, 13, [[12, 0, 25]])  # one total: decided for it
    lowest = OWN.for_table(3, OwnTableSettings(target=100, lowest_wins=True))
    move_target(lowest, lowest.settings, 10, [[12, 0, 25]])  # no race: decided as it stands


def test_undo_reopens_or_keeps_the_match_as_its_totals_stand() -> None:
    game = OWN.for_table(3, OwnTableSettings(target=1000))
    rounds = [[60, 0, 0], [0, 70, 0], [-30, -30, 0]]
    rules = move_target(game, game.settings, 50, rounds)  # [30, 40, 0]: nobody at 50
    assert not game.is_decided(sheet_of(game, rounds), rules, 3)
    undone = sheet_of(game, rounds[:2])  # the last round removed: [60, 70, 0]
    assert game.is_decided(undone, rules, 2)
    assert game.winner(undone, rules) == Winner(seats=(1,))


@pytest.mark.parametrize(
    ("game", "old", "new", "field"),
    [
        (ASSZORTI, AsszortiSettings(), AsszortiSettings(planned_deals=2), "planned_deals"),
        (
            OWN.for_table(3, OwnTableSettings()),
            OwnTableSettings(),
            OwnTableSettings(planned_rounds=2),
            "planned_rounds",
        ),
    ],
)
def test_planned_rounds_below_the_rounds_played_are_refused_at_every_game(
    game: Game, old: Any, new: Any, field: str
) -> None:
    rounds = [[0, 0, 0]] * 3
    with pytest.raises(SettingConflict) as refused:
        game.check_settings_change(old, new, sheet_of(game, rounds), 3)
    assert refused.value.loc == ("settings", field)
    exactly = new.model_copy(update={field: 3})
    game.check_settings_change(old, exactly, sheet_of(game, rounds), 3)
    assert game.is_decided(sheet_of(game, rounds), exactly, 3)


# -- a round entered again unchanged is always accepted ----------------------------------


@st.composite
def own_cases(draw: Any) -> tuple[Game, Any, list[list[int]]]:
    seats = draw(st.integers(2, 5))
    lowest = draw(st.booleans())
    target = draw(st.none() | st.integers(1, 80))
    planned = draw(st.none() | st.integers(1, 12))
    rules = OwnTableSettings(target=target, lowest_wins=lowest, planned_rounds=planned)
    size = st.lists(st.integers(-30, 40), min_size=seats, max_size=seats)
    return OWN.for_table(seats, rules), rules, draw(st.lists(size, min_size=1, max_size=12))


@st.composite
def alkort_cases(draw: Any) -> tuple[Game, Any, list[list[int]]]:
    deal = st.tuples(st.integers(0, 1), st.sampled_from([1, 5, 6, 7, 8, 9]))
    deals = draw(st.lists(deal, min_size=1, max_size=12))
    rounds = [[points, 0] if team == 0 else [0, points] for team, points in deals]
    return ALKORT, AlkortSettings(target=draw(st.integers(1, 40))), rounds


@st.composite
def asszorti_cases(draw: Any) -> tuple[Game, Any, list[list[int]]]:
    hands = draw(st.lists(st.integers(-20, 20), min_size=1, max_size=12))
    rounds = [[2 * x, -x, -x] for x in hands]
    planned = draw(st.none() | st.integers(1, 12))
    return ASSZORTI, AsszortiSettings(planned_deals=planned), rounds


@settings(max_examples=300, deadline=None)
@given(st.one_of(own_cases(), alkort_cases(), asszorti_cases()), st.data())
def test_a_round_entered_again_unchanged_is_always_accepted(
    case: tuple[Game, Any, list[list[int]]], data: st.DataObject
) -> None:
    """Whatever the target or the plan was moved to after the rounds were played: the
    settings drawn are any the host could have moved to."""
    game, rules, rounds = case
    number = data.draw(st.integers(1, len(rounds)))
    correct(game, rules, rounds, number, rounds[number - 1])
