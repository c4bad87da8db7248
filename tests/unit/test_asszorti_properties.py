"""Hypothesis properties of Asszorti scoring and the sheet fold (RULES.md §1.2, §1.3)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.games.asszorti import (
    GAME,
    AsszortiAmounts,
    AsszortiHand,
    AsszortiSettings,
    Contract,
    Kontra,
    Trumps,
    hand_values,
)
from app.games.base import GameRuleError, RoundInput

PROPERTY_SETTINGS = settings(max_examples=200, deadline=None)
TABLE = AsszortiSettings()
NO_KONTRA = AsszortiSettings(kontra=False)

# RULES.md §1.2, the contract value table, written out literally as an independent oracle.
CONTRACT_VALUE = {
    ("3", False): 2,
    ("2", False): 4,
    ("1", False): 6,
    ("hand", False): 8,
    ("3", True): 4,
    ("2", True): 8,
    ("1", True): 12,
    ("hand", True): 16,
}
MULTIPLIER = {
    "none": 1,
    "kontra": 2,
    "rekontra": 4,
    "szubkontra": 8,
    "hirskontra": 16,
    "mordkontra": 32,
}


@st.composite
def tricks_split(draw: st.DrawFn) -> list[int]:
    """A random composition of 11 into three non-negative parts."""
    first = draw(st.integers(min_value=0, max_value=11))
    second = draw(st.integers(min_value=0, max_value=11 - first))
    return [first, second, 11 - first - second]


@st.composite
def valid_hands(draw: st.DrawFn, kontra: bool = True) -> AsszortiHand:
    """A hand every rule of §1.2 accepts at a table that plays kontra (or not)."""
    levels = list(Kontra) if kontra else [Kontra.NONE]
    declarer = draw(st.integers(min_value=0, max_value=2))
    tricks = draw(tricks_split())
    trumps = draw(st.sampled_from(list(Trumps)))
    payload: dict[str, Any] = {
        "type": "asszorti_hand",
        "declarer": declarer,
        "contract": draw(st.sampled_from(list(Contract))).value,
        "trumps": trumps.value,
        "tricks": tricks,
        "kontra": draw(st.sampled_from(levels)).value,
    }
    declared = tricks[declarer]
    outcomes = [won for won in (True, False) if (declared >= 3 if won else declared <= 10)]
    if draw(st.booleans()):
        won = draw(st.sampled_from(outcomes))
        idegen = won and trumps is not Trumps.NONE and draw(st.booleans())
        payload["arrivazs"] = {
            "won": won,
            "idegen": idegen,
            "kontra": draw(st.sampled_from(levels)).value,
        }
    return AsszortiHand.model_validate(payload)


@st.composite
def valid_amounts(draw: st.DrawFn, kontra: bool = True) -> AsszortiAmounts:
    """A hand the table scored itself: what some valid hand nets, entered as amounts
    (worked out with the rules' own formulas below, not by the game module)."""
    hand = draw(valid_hands(kontra))
    gain = expected_declarer_gain(hand)
    nets = [2 * gain if seat == hand.declarer else -gain for seat in range(3)]
    return AsszortiAmounts.model_validate({"type": "asszorti_amounts", "amounts": nets})


valid_rounds = st.one_of(valid_hands(), valid_hands(), valid_amounts())
round_sequences = st.lists(valid_rounds, min_size=1, max_size=20)


def expected_declarer_gain(hand: AsszortiHand) -> int:
    """X of §1.2, computed straight from the page's formulas: what each opponent pays."""
    value = CONTRACT_VALUE[(hand.contract.value, hand.trumps is Trumps.NONE)]
    declared = hand.tricks[hand.declarer]
    winning = declared if declared >= 6 else 11 - declared
    basic = (value + (winning - 6) * (value // 2)) * MULTIPLIER[hand.kontra.value]
    others = [t for seat, t in enumerate(hand.tricks) if seat != hand.declarer]
    if declared == 6 and 5 in others and 0 in others:
        basic -= value
    if declared < 6:
        basic = -basic
    arrivazs = 0
    if hand.arrivazs is not None:
        worth = 16 if hand.arrivazs.idegen or hand.trumps is Trumps.NONE else 8
        worth *= MULTIPLIER[hand.arrivazs.kontra.value]
        arrivazs = worth if hand.arrivazs.won else -worth
    return basic + arrivazs


@PROPERTY_SETTINGS
@given(valid_rounds)
def test_every_rounds_nets_sum_to_zero(round_input: RoundInput) -> None:
    scored = GAME.score(round_input, TABLE)
    assert scored.net is not None
    assert len(scored.net) == 3
    assert sum(scored.net) == 0


@PROPERTY_SETTINGS
@given(valid_hands())
def test_declarer_net_is_minus_twice_each_opponents(hand: AsszortiHand) -> None:
    scored = GAME.score(hand, TABLE)
    assert scored.net is not None
    for seat in range(3):
        if seat != hand.declarer:
            assert scored.net[hand.declarer] == -2 * scored.net[seat]


@PROPERTY_SETTINGS
@given(valid_hands())
def test_hand_net_matches_the_rules_formulas(hand: AsszortiHand) -> None:
    scored = GAME.score(hand, TABLE)
    gain = expected_declarer_gain(hand)
    assert scored.net == tuple(2 * gain if s == hand.declarer else -gain for s in range(3))
    assert scored.breakdown["declarer_won"] is (hand.tricks[hand.declarer] >= 6)
    assert scored.breakdown["basic_game"] + scored.breakdown["arrivazs"] == gain


@PROPERTY_SETTINGS
@given(round_sequences)
def test_total_minus_owed_is_the_sum_of_nets_after_every_round(
    rounds: list[RoundInput],
) -> None:
    state = GAME.initial_state()
    nets_so_far = [0, 0, 0]
    for round_input in rounds:
        scored = GAME.score(round_input, TABLE)
        assert scored.net is not None
        _, state = GAME.apply(state, scored.points)
        nets_so_far = [s + n for s, n in zip(nets_so_far, scored.net, strict=True)]
        assert state.owed is not None
        for seat in range(3):
            assert state.totals[seat] - state.owed[seat] == nets_so_far[seat]
        assert state.net == tuple(nets_so_far)


@PROPERTY_SETTINGS
@given(round_sequences)
def test_cells_totals_and_owed_are_never_negative(rounds: list[RoundInput]) -> None:
    state = GAME.initial_state()
    running_totals = [0, 0, 0]
    for round_input in rounds:
        cells, state = GAME.apply(state, GAME.score(round_input, TABLE).points)
        assert len(cells) == 3
        assert all(cell >= 0 for cell in cells)
        assert state.owed is not None
        assert all(debt >= 0 for debt in state.owed)
        assert all(total >= 0 for total in state.totals)
        running_totals = [t + c for t, c in zip(running_totals, cells, strict=True)]
        assert state.totals == tuple(running_totals)


@PROPERTY_SETTINGS
@given(round_sequences)
def test_a_player_never_both_writes_a_cell_and_stays_in_debt(rounds: list[RoundInput]) -> None:
    state = GAME.initial_state()
    for round_input in rounds:
        cells, state = GAME.apply(state, GAME.score(round_input, TABLE).points)
        assert state.owed is not None
        for seat in range(3):
            # debts are paid first: a positive cell means the debt is cleared
            assert cells[seat] == 0 or state.owed[seat] == 0


@PROPERTY_SETTINGS
@given(st.booleans(), st.data())
def test_every_hand_is_worth_one_of_the_tables_hand_values(
    kontra: bool, data: st.DataObject
) -> None:
    table = TABLE if kontra else NO_KONTRA
    hand = data.draw(valid_hands(kontra))
    scored = GAME.score(hand, table)
    assert scored.net is not None
    assert scored.net[hand.declarer] // 2 in hand_values(table)


@PROPERTY_SETTINGS
@given(st.booleans(), st.data())
def test_amounts_a_hand_nets_are_taken_as_they_are(kontra: bool, data: st.DataObject) -> None:
    table = TABLE if kontra else NO_KONTRA
    entered = data.draw(valid_amounts(kontra))
    assert GAME.score(entered, table).net == tuple(entered.amounts)


@PROPERTY_SETTINGS
@given(
    st.booleans(),
    st.integers(min_value=-5000, max_value=5000),
    st.integers(min_value=-5000, max_value=5000),
)
def test_zero_sum_amounts_are_accepted_only_as_one_declarer_against_both(
    kontra: bool, first: int, second: int
) -> None:
    table = TABLE if kontra else NO_KONTRA
    values = [first, second, -first - second]
    declarers = [
        seat
        for seat in range(3)
        if len({v for s, v in enumerate(values) if s != seat}) == 1
        and -2 * values[(seat + 1) % 3] == values[seat]
    ]
    entered = AsszortiAmounts.model_validate({"type": "asszorti_amounts", "amounts": values})
    possible = bool(declarers) and values[declarers[0]] // 2 in hand_values(table)
    try:
        scored = GAME.score(entered, table)
    except GameRuleError as error:
        assert not possible
        assert error.loc == ("amounts",)
    else:
        assert possible
        assert scored.net == tuple(values)
