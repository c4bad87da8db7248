"""Asszorti scoring against the worked checks and validation rules of RULES.md §1."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from app.games.asszorti import (
    GAME,
    AsszortiAmounts,
    AsszortiHand,
    AsszortiSettings,
    Kontra,
    hand_values,
    score_hand,
    settle,
)
from app.games.base import GameRuleError, SettingConflict, SheetState

ANNA, BERTA, CSABA = 0, 1, 2
DEFAULT = AsszortiSettings()
NO_KONTRA = AsszortiSettings(kontra=False)


def hand_payload(**fields: Any) -> dict[str, Any]:
    """A valid hand as the table would send it, with ``fields`` overriding the defaults."""
    payload: dict[str, Any] = {
        "type": "asszorti_hand",
        "declarer": BERTA,
        "contract": "1",
        "trumps": "diamonds",
        "tricks": [2, 7, 2],
    }
    payload.update(fields)
    return payload


def hand(**fields: Any) -> AsszortiHand:
    return AsszortiHand.model_validate(hand_payload(**fields))


def amounts(*values: int) -> AsszortiAmounts:
    return AsszortiAmounts.model_validate({"type": "asszorti_amounts", "amounts": list(values)})


# --- §1.2 worked checks -------------------------------------------------------------------

# (id, hand fields, expected nets, basic_game, arrivazs, declarer_won)
WORKED_CHECKS = [
    pytest.param(
        {"declarer": BERTA, "contract": "1", "trumps": "diamonds", "tricks": [2, 7, 2]},
        (-9, 18, -9),
        9,
        0,
        True,
        id="1-contract-1-diamonds-7-tricks",
    ),
    pytest.param(
        {"declarer": ANNA, "contract": "2", "trumps": "hearts", "tricks": [5, 3, 3]},
        (-8, 4, 4),
        -4,
        0,
        False,
        id="2-contract-2-trumps-declarer-takes-5",
    ),
    pytest.param(
        {
            "declarer": CSABA,
            "contract": "1",
            "trumps": "none",
            "tricks": [2, 2, 7],
            "kontra": "szubkontra",
        },
        (-144, -144, 288),
        144,
        0,
        True,
        id="3-contract-1-no-trumps-szubkontra",
    ),
    pytest.param(
        {
            "declarer": ANNA,
            "contract": "2",
            "trumps": "clubs",
            "tricks": [6, 5, 0],
            "kontra": "rekontra",
        },
        (24, -12, -12),
        12,
        0,
        True,
        id="4-worth-4-trumps-650-rekontra",
    ),
    pytest.param(
        {
            "declarer": BERTA,
            "contract": "3",
            "trumps": "none",
            "tricks": [0, 6, 5],
            "kontra": "rekontra",
        },
        (-12, 24, -12),
        12,
        0,
        True,
        id="4-worth-4-no-trumps-605-rekontra",
    ),
    pytest.param(
        {"declarer": ANNA, "contract": "2", "trumps": "spades", "tricks": [6, 0, 5]},
        (0, 0, 0),
        0,
        0,
        True,
        id="5-650-split-undoubled-is-worth-nothing",
    ),
    pytest.param(
        {"declarer": ANNA, "contract": "3", "trumps": "hearts", "tricks": [11, 0, 0]},
        (14, -7, -7),
        7,
        0,
        True,
        id="6-contract-3-trumps-all-11",
    ),
    pytest.param(
        {"declarer": BERTA, "contract": "hand", "trumps": "none", "tricks": [6, 0, 5]},
        (56, -112, 56),
        -56,
        0,
        False,
        id="7-contract-hand-no-trumps-declarer-0",
    ),
    pytest.param(
        {
            "declarer": CSABA,
            "contract": "3",
            "trumps": "spades",
            "tricks": [3, 2, 6],
            "arrivazs": {"won": True, "idegen": True, "kontra": "kontra"},
        },
        (-34, -34, 68),
        2,
        32,
        True,
        id="8-arrivazs-won-idegen-kontra",
    ),
]


@pytest.mark.parametrize(
    ("fields", "nets", "basic_game", "arrivazs", "declarer_won"), WORKED_CHECKS
)
def test_worked_check_scores_as_rules_say(
    fields: dict[str, Any],
    nets: tuple[int, int, int],
    basic_game: int,
    arrivazs: int,
    declarer_won: bool,
) -> None:
    scored = score_hand(hand(**fields), DEFAULT)
    assert scored.net == nets
    assert scored.breakdown["basic_game"] == basic_game
    assert scored.breakdown["arrivazs"] == arrivazs
    assert scored.breakdown["declarer_won"] is declarer_won


@pytest.mark.parametrize(
    ("fields", "nets", "basic_game", "arrivazs", "declarer_won"), WORKED_CHECKS
)
def test_game_score_agrees_with_score_hand_on_worked_checks(
    fields: dict[str, Any],
    nets: tuple[int, int, int],
    basic_game: int,
    arrivazs: int,
    declarer_won: bool,
) -> None:
    scored = GAME.score(hand(**fields), DEFAULT)
    assert scored.net == nets
    assert scored.points == nets
    assert scored.breakdown["basic_game"] == basic_game
    assert scored.breakdown["arrivazs"] == arrivazs
    assert scored.breakdown["declarer_won"] is declarer_won


# Further hands computed by hand from the §1.2 formulas (not worked checks in the page).
# (hand fields, expected nets, basic_game, arrivazs)
FORMULA_CASES = [
    pytest.param(
        # V = 8, W = 9 (opponents: 11 - 2), S = 8 + 3*4 = 20
        {"declarer": ANNA, "contract": "hand", "trumps": "hearts", "tricks": [2, 4, 5]},
        (-40, 20, 20),
        -20,
        0,
        id="opponents-win-with-9",
    ),
    pytest.param(
        # V = 8 (contract 2, no trumps), D = 6 but split 6:4:1 is not the exception: S = 8
        {"declarer": ANNA, "contract": "2", "trumps": "none", "tricks": [6, 4, 1]},
        (16, -8, -8),
        8,
        0,
        id="six-four-one-is-not-the-exception",
    ),
    pytest.param(
        # basic: V = 2, S = 2 + 1*1 = 3, lost arrivázs in trumps: -8 -> each = -5
        {
            "declarer": ANNA,
            "contract": "3",
            "trumps": "clubs",
            "tricks": [7, 2, 2],
            "arrivazs": {"won": False},
        },
        (-10, 5, 5),
        3,
        -8,
        id="lost-arrivazs-after-won-basic-game",
    ),
    pytest.param(
        # basic lost: opponents have 7, V = 4, S = 4 + 2 = 6; arrivázs won in no trumps: +16
        {
            "declarer": BERTA,
            "contract": "3",
            "trumps": "none",
            "tricks": [4, 4, 3],
            "arrivazs": {"won": True},
        },
        (-10, 20, -10),
        -6,
        16,
        id="won-arrivazs-after-lost-basic-game",
    ),
    pytest.param(
        # arrivázs has its own ladder: lost, mordkontra (x32), trumps: -8*32 = -256; basic 2
        {
            "declarer": CSABA,
            "contract": "3",
            "trumps": "diamonds",
            "tricks": [3, 2, 6],
            "arrivazs": {"won": False, "kontra": "mordkontra"},
        },
        (254, 254, -508),
        2,
        -256,
        id="arrivazs-doubling-is-independent-of-the-basic-game",
    ),
    pytest.param(
        # 6:5:0 with hirskontra: V = 2, 2*16 - 2 = 30
        {
            "declarer": ANNA,
            "contract": "3",
            "trumps": "hearts",
            "tricks": [6, 0, 5],
            "kontra": "hirskontra",
        },
        (60, -30, -30),
        30,
        0,
        id="six-five-nothing-subtracts-after-doubling",
    ),
    pytest.param(
        # the 6:5:0 exception is the declarer's 6; an opponent's 6 is a plain loss of S = V
        {"declarer": BERTA, "contract": "2", "trumps": "hearts", "tricks": [6, 5, 0]},
        (4, -8, 4),
        -4,
        0,
        id="opponent-six-five-nothing-is-not-the-exception",
    ),
]


@pytest.mark.parametrize(("fields", "nets", "basic_game", "arrivazs"), FORMULA_CASES)
def test_hand_scores_follow_the_formulas(
    fields: dict[str, Any], nets: tuple[int, int, int], basic_game: int, arrivazs: int
) -> None:
    scored = GAME.score(hand(**fields), DEFAULT)
    assert scored.net == nets
    assert scored.breakdown["basic_game"] == basic_game
    assert scored.breakdown["arrivazs"] == arrivazs


# --- The kontra ladder --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "multiplier"),
    [
        ("none", 1),
        ("kontra", 2),
        ("rekontra", 4),
        ("szubkontra", 8),
        ("hirskontra", 16),
        ("mordkontra", 32),
    ],
)
def test_kontra_ladder_multiplier(level: str, multiplier: int) -> None:
    assert Kontra(level).multiplier == multiplier


def test_kontra_ladder_has_exactly_six_steps_in_order() -> None:
    assert [k.multiplier for k in Kontra] == [1, 2, 4, 8, 16, 32]


@pytest.mark.parametrize(
    ("level", "basic_game"),
    [
        ("none", 3),
        ("kontra", 6),
        ("rekontra", 12),
        ("szubkontra", 24),
        ("hirskontra", 48),
        ("mordkontra", 96),
    ],
)
def test_kontra_level_multiplies_the_basic_game(level: str, basic_game: int) -> None:
    # contract 3 in trumps, 7 tricks: S = 2 + 1 = 3 before doubling
    scored = GAME.score(
        hand(declarer=ANNA, contract="3", trumps="hearts", tricks=[7, 2, 2], kontra=level),
        DEFAULT,
    )
    assert scored.breakdown["basic_game"] == basic_game
    assert scored.net == (2 * basic_game, -basic_game, -basic_game)


# --- §1.3 the sheet -----------------------------------------------------------------------


def test_sheet_worked_check_after_hand_one() -> None:
    state = GAME.initial_state()
    assert state.totals == (0, 0, 0)
    assert state.owed == (0, 0, 0)
    cells, state = GAME.apply(
        state, GAME.score(hand(declarer=BERTA, tricks=[2, 7, 2]), DEFAULT).points
    )
    assert cells == (0, 18, 0)
    assert state.totals == (0, 18, 0)
    assert state.owed == (9, 0, 9)
    assert state.net == (-9, 18, -9)


def test_sheet_worked_check_anna_wins_plus_18_next() -> None:
    state = GAME.initial_state()
    first = GAME.score(hand(declarer=BERTA, tricks=[2, 7, 2]), DEFAULT)
    _, state = GAME.apply(state, first.points)
    second = GAME.score(hand(declarer=ANNA, tricks=[7, 2, 2]), DEFAULT)
    assert second.net is not None
    assert second.net[ANNA] == 18
    cells, state = GAME.apply(state, second.points)
    assert cells[ANNA] == 9
    assert state.owed is not None
    assert state.owed[ANNA] == 0
    # Berta loses 9 and now owes it; Csaba owes 9 more.
    assert cells == (9, 0, 0)
    assert state.owed == (0, 9, 18)
    assert state.totals == (9, 18, 0)
    assert state.net == (9, 9, -18)


@pytest.mark.parametrize(
    ("owed", "net", "cells", "new_owed"),
    [
        pytest.param((0, 0, 0), (-9, 18, -9), (0, 18, 0), (9, 0, 9), id="loss-becomes-debt"),
        pytest.param((9, 0, 9), (18, -9, -9), (9, 0, 0), (0, 9, 18), id="debt-paid-first"),
        pytest.param((20, 0, 0), (10, -5, -5), (0, 0, 0), (10, 5, 5), id="win-below-debt"),
        pytest.param((4, 0, 0), (4, -2, -2), (0, 0, 0), (0, 2, 2), id="win-equals-debt"),
        pytest.param((0, 3, 0), (0, 0, 0), (0, 0, 0), (0, 3, 0), id="zero-net-changes-nothing"),
    ],
)
def test_settle_pays_debt_before_writing_a_cell(
    owed: tuple[int, int, int],
    net: tuple[int, int, int],
    cells: tuple[int, int, int],
    new_owed: tuple[int, int, int],
) -> None:
    before = SheetState(totals=(1, 2, 3), owed=owed, net=(0, 0, 0))
    row, after = settle(before, net)
    assert row == cells
    assert after.owed == new_owed
    assert after.totals == tuple(t + c for t, c in zip((1, 2, 3), cells, strict=True))
    assert after.net == net


def test_amounts_round_is_treated_exactly_as_computed_nets() -> None:
    computed = GAME.score(hand(declarer=BERTA, tricks=[2, 7, 2]), DEFAULT)
    manual = GAME.score(amounts(-9, 18, -9), DEFAULT)
    assert manual.net == computed.net == (-9, 18, -9)
    assert GAME.apply(GAME.initial_state(), manual.points) == GAME.apply(
        GAME.initial_state(), computed.points
    )


# --- §1.2 validation: GameRuleError with the field's loc ----------------------------------

RULE_ERRORS = [
    pytest.param(DEFAULT, {"tricks": [2, 7, 3]}, ("tricks",), id="tricks-sum-12"),
    pytest.param(DEFAULT, {"tricks": [2, 6, 2]}, ("tricks",), id="tricks-sum-10"),
    pytest.param(DEFAULT, {"tricks": [0, 0, 0]}, ("tricks",), id="tricks-sum-0"),
    pytest.param(DEFAULT, {"tricks": [11, 11, 11]}, ("tricks",), id="tricks-sum-33"),
    pytest.param(
        DEFAULT,
        {"trumps": "none", "arrivazs": {"won": True, "idegen": True}},
        ("arrivazs", "idegen"),
        id="idegen-in-no-trumps",
    ),
    pytest.param(
        DEFAULT,
        {"trumps": "hearts", "arrivazs": {"won": False, "idegen": True}},
        ("arrivazs", "idegen"),
        id="idegen-on-lost-arrivazs",
    ),
    pytest.param(
        DEFAULT,
        {"tricks": [9, 2, 0], "arrivazs": {"won": True}},
        ("arrivazs", "won"),
        id="won-arrivazs-with-2-tricks",
    ),
    pytest.param(
        DEFAULT,
        {"tricks": [11, 0, 0], "arrivazs": {"won": True}},
        ("arrivazs", "won"),
        id="won-arrivazs-with-0-tricks",
    ),
    pytest.param(
        DEFAULT,
        {"tricks": [0, 11, 0], "arrivazs": {"won": False}},
        ("arrivazs", "won"),
        id="lost-arrivazs-with-all-11-tricks",
    ),
    *(
        pytest.param(NO_KONTRA, {"kontra": level}, ("kontra",), id=f"no-kontra-table-{level}")
        for level in ("kontra", "rekontra", "szubkontra", "hirskontra", "mordkontra")
    ),
    *(
        pytest.param(
            NO_KONTRA,
            {"arrivazs": {"won": True, "kontra": level}},
            ("arrivazs", "kontra"),
            id=f"no-kontra-table-arrivazs-{level}",
        )
        for level in ("kontra", "rekontra", "szubkontra", "hirskontra", "mordkontra")
    ),
]


@pytest.mark.parametrize(("settings", "fields", "loc"), RULE_ERRORS)
def test_impossible_hand_is_rejected_naming_the_field(
    settings: AsszortiSettings, fields: dict[str, Any], loc: tuple[str, ...]
) -> None:
    with pytest.raises(GameRuleError) as caught:
        GAME.score(hand(**fields), settings)
    assert caught.value.loc == loc
    assert caught.value.message


@pytest.mark.parametrize(
    ("settings", "fields"),
    [
        pytest.param(DEFAULT, {"tricks": [9, 2, 0], "arrivazs": {"won": False}}, id="lost-at-2"),
        pytest.param(DEFAULT, {"tricks": [8, 3, 0], "arrivazs": {"won": True}}, id="won-at-3"),
        pytest.param(DEFAULT, {"tricks": [1, 10, 0], "arrivazs": {"won": False}}, id="lost-at-10"),
        pytest.param(DEFAULT, {"tricks": [0, 11, 0], "arrivazs": {"won": True}}, id="won-at-11"),
        pytest.param(
            DEFAULT,
            {"trumps": "hearts", "arrivazs": {"won": True, "idegen": True}},
            id="idegen-won-in-trumps",
        ),
        pytest.param(NO_KONTRA, {"kontra": "none"}, id="no-kontra-table-undoubled"),
        pytest.param(
            NO_KONTRA, {"arrivazs": {"won": True, "kontra": "none"}}, id="no-kontra-arrivazs"
        ),
    ],
)
def test_hand_on_the_edge_of_a_rule_is_accepted(
    settings: AsszortiSettings, fields: dict[str, Any]
) -> None:
    scored = GAME.score(hand(**fields), settings)
    assert scored.net is not None
    assert sum(scored.net) == 0


@pytest.mark.parametrize(
    "values",
    [(1, 0, 0), (-9, 18, -8), (5, 5, 5), (0, 0, -1)],
)
def test_amounts_not_summing_to_zero_are_rejected(values: tuple[int, int, int]) -> None:
    with pytest.raises(GameRuleError) as caught:
        GAME.score(amounts(*values), DEFAULT)
    assert caught.value.loc == ("amounts",)


@pytest.mark.parametrize("values", [(0, 0, 0), (-9, 18, -9), (-56, -56, 112), (2, -1, -1)])
def test_amounts_a_hand_can_make_are_taken_as_nets(values: tuple[int, int, int]) -> None:
    assert GAME.score(amounts(*values), DEFAULT).net == values
    assert GAME.score(amounts(*values), NO_KONTRA).net == values


# --- §1.2 payment: amounts entered by hand must be what some hand nets ----------------------

LADDER = [1, 2, 4, 8, 16, 32]


def values_by_the_rules(kontra: bool) -> set[int]:
    """Every X (what each opponent pays the declarer) a hand can be worth, worked out
    from the rules' own figures with plain integers, apart from the game module."""
    multipliers = LADDER if kontra else [1]
    found: set[int] = set()
    for no_trumps in (False, True):
        for value in [4, 8, 12, 16] if no_trumps else [2, 4, 6, 8]:
            for declared in range(12):
                winning = declared if declared >= 6 else 11 - declared
                # 6 tricks with the other five all in one opponent's hand: V less, after doubling.
                exceptions = [0, value] if declared == 6 else [0]
                basics = {
                    (value + (winning - 6) * value // 2) * m - less
                    for m in multipliers
                    for less in exceptions
                }
                signed = basics if declared >= 6 else {-b for b in basics}
                arrivazs = {0}
                for m in multipliers:
                    if declared >= 3:  # won: all of the last three tricks
                        arrivazs |= {16 * m} if no_trumps else {8 * m, 16 * m}  # 16: idegen
                    if declared <= 10:  # lost: an opponent took one of them
                        arrivazs.add(-(16 if no_trumps else 8) * m)
                found |= {b + a for b in signed for a in arrivazs}
    return found


@pytest.mark.parametrize("settings", [DEFAULT, NO_KONTRA], ids=["kontra", "no-kontra"])
def test_hand_values_are_exactly_what_the_rules_can_make(settings: AsszortiSettings) -> None:
    assert hand_values(settings) == values_by_the_rules(settings.kontra)


@pytest.mark.parametrize(
    ("settings", "most"),
    [
        # hand, no trumps: 16 + 5 x 8 = 56 for all 11 tricks, and a 16 arrivázs won
        pytest.param(NO_KONTRA, 56 + 16, id="no-kontra-72"),
        # the same with mordkontra (x32) on both the basic game and the arrivázs
        pytest.param(DEFAULT, (56 + 16) * 32, id="kontra-2304"),
    ],
)
def test_the_largest_hand_is_bounded_by_the_table(settings: AsszortiSettings, most: int) -> None:
    values = hand_values(settings)
    assert max(values) == most and min(values) == -most
    declarer_takes_all = amounts(2 * most, -most, -most)
    declarer_takes_none = amounts(-2 * most, most, most)
    assert GAME.score(declarer_takes_all, settings).net == (2 * most, -most, -most)
    assert GAME.score(declarer_takes_none, settings).net == (-2 * most, most, most)
    beyond = [
        amounts(2 * most + 2, -most - 1, -most - 1),
        amounts(most + 1, most + 1, -2 * most - 2),
    ]
    for entered in beyond:
        with pytest.raises(GameRuleError, match=f"at most {most} a player"):
            GAME.score(entered, settings)


def test_worked_checks_5_and_8_are_hand_values() -> None:
    """Check 8 (idegen with kontra: 34 each) and check 5 (a 6:5:0 split undoubled: 0)."""
    idegen = hand(
        declarer=ANNA,
        contract="3",
        trumps="hearts",
        tricks=[6, 3, 2],
        arrivazs={"won": True, "idegen": True, "kontra": "kontra"},
    )
    assert GAME.score(idegen, DEFAULT).net == (68, -34, -34)
    assert 34 in hand_values(DEFAULT)
    nothing = hand(declarer=ANNA, contract="2", trumps="hearts", tricks=[6, 5, 0])
    assert GAME.score(nothing, NO_KONTRA).net == (0, 0, 0)
    assert 0 in hand_values(NO_KONTRA)


@pytest.mark.parametrize("settings", [DEFAULT, NO_KONTRA], ids=["kontra", "no-kontra"])
def test_every_hand_value_is_accepted_from_any_declarer(settings: AsszortiSettings) -> None:
    for each in hand_values(settings):
        for declarer in (ANNA, BERTA, CSABA):
            values = tuple(2 * each if s == declarer else -each for s in range(3))
            assert GAME.score(amounts(*values), settings).net == values


@pytest.mark.parametrize(
    "values",
    [
        pytest.param((3, -1, -2), id="opponents-pay-unequally"),
        pytest.param((1, -1, 0), id="only-one-opponent-pays"),
        pytest.param((0, -5, 5), id="no-declarer-at-all"),
        pytest.param((30, -10, -20), id="thirty-split-unevenly"),
        pytest.param((4, 2, -6), id="two-winners-paid-unequally"),
    ],
)
@pytest.mark.parametrize("settings", [DEFAULT, NO_KONTRA], ids=["kontra", "no-kontra"])
def test_amounts_not_one_declarer_against_both_are_rejected(
    settings: AsszortiSettings, values: tuple[int, int, int]
) -> None:
    with pytest.raises(GameRuleError) as caught:
        GAME.score(amounts(*values), settings)
    assert caught.value.loc == ("amounts",)
    assert "both opponents equally" in caught.value.message


@pytest.mark.parametrize(
    ("settings", "values", "reason"),
    [
        pytest.param(NO_KONTRA, (2000, -1000, -1000), "at most 72 a player", id="1000-no-kontra"),
        pytest.param(DEFAULT, (2000, -1000, -1000), "at most 2304 a player", id="1000-kontra"),
        pytest.param(NO_KONTRA, (76, -38, -38), "without kontra", id="38-needs-kontra"),
        pytest.param(NO_KONTRA, (142, -71, -71), "win 71 from each", id="71-below-the-bound"),
        pytest.param(NO_KONTRA, (-38, 19, 19), "pay 19 to each", id="minus-19-needs-kontra"),
        pytest.param(DEFAULT, (54, -27, -27), "win 27 from each", id="27-not-even-with-kontra"),
        pytest.param(DEFAULT, (-114, 57, 57), "pay 57 to each", id="minus-57-not-with-kontra"),
        pytest.param(DEFAULT, (4610, -2305, -2305), "at most 2304", id="past-mordkontra"),
    ],
)
def test_amounts_no_hand_at_the_table_is_worth_are_rejected(
    settings: AsszortiSettings, values: tuple[int, int, int], reason: str
) -> None:
    with pytest.raises(GameRuleError) as caught:
        GAME.score(amounts(*values), settings)
    assert caught.value.loc == ("amounts",)
    assert reason in caught.value.message


# --- Pydantic shape checks, both as JSON and as a Python dict (how FastAPI validates) --------

SHAPE_ERRORS = [
    pytest.param({"tricks": [4, 7]}, id="two-trick-entries"),
    pytest.param({"tricks": [2, 7, 2, 0]}, id="four-trick-entries"),
    pytest.param({"tricks": []}, id="no-trick-entries"),
    pytest.param({"tricks": [-1, 10, 2]}, id="negative-tricks"),
    pytest.param({"tricks": [0, 12, -1]}, id="trick-count-over-11"),
    pytest.param({"tricks": [2, 7.0, 2]}, id="float-trick-count"),
    pytest.param({"tricks": [2, "7", 2]}, id="string-trick-count"),
    pytest.param({"contract": "4"}, id="unknown-contract"),
    pytest.param({"contract": "all"}, id="unknown-contract-word"),
    pytest.param({"trumps": "stars"}, id="unknown-suit"),
    pytest.param({"trumps": "Hearts"}, id="suit-in-wrong-case"),
    pytest.param({"kontra": "superkontra"}, id="unknown-kontra"),
    pytest.param({"arrivazs": {"won": True, "kontra": "double"}}, id="unknown-arrivazs-kontra"),
    pytest.param({"bonus": 3}, id="unknown-field"),
    pytest.param({"arrivazs": {"won": True, "extra": 1}}, id="unknown-arrivazs-field"),
    pytest.param({"arrivazs": {}}, id="arrivazs-without-won"),
    pytest.param({"arrivazs": {"won": "yes"}}, id="arrivazs-won-not-a-bool"),
    pytest.param({"declarer": True}, id="true-for-declarer"),
    pytest.param({"declarer": 3}, id="declarer-seat-3"),
    pytest.param({"declarer": -1}, id="declarer-seat-negative"),
    pytest.param({"declarer": 1.0}, id="float-declarer"),
    pytest.param({"type": "alkort_deal"}, id="wrong-round-type"),
]


@pytest.mark.parametrize("fields", SHAPE_ERRORS)
def test_malformed_hand_json_is_a_validation_error(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        AsszortiHand.model_validate_json(json.dumps(hand_payload(**fields)))


@pytest.mark.parametrize("fields", SHAPE_ERRORS)
def test_malformed_hand_dict_is_a_validation_error(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        AsszortiHand.model_validate(hand_payload(**fields))


@pytest.mark.parametrize(
    "missing", ["type", "declarer", "contract", "trumps", "tricks"], ids=lambda f: f"no-{f}"
)
def test_hand_missing_a_required_field_is_a_validation_error(missing: str) -> None:
    payload = hand_payload()
    del payload[missing]
    with pytest.raises(ValidationError):
        AsszortiHand.model_validate(payload)
    with pytest.raises(ValidationError):
        AsszortiHand.model_validate_json(json.dumps(payload))


def test_valid_hand_validates_from_json_and_from_dict_alike() -> None:
    payload = hand_payload(kontra="rekontra", arrivazs={"won": True, "idegen": True})
    from_json = AsszortiHand.model_validate_json(json.dumps(payload))
    from_dict = AsszortiHand.model_validate(payload)
    assert from_json == from_dict
    assert from_dict.kontra is Kontra.REKONTRA
    assert from_dict.arrivazs is not None
    assert from_dict.arrivazs.idegen is True


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param({"type": "asszorti_amounts", "amounts": [0, 0]}, id="two-amounts"),
        pytest.param({"type": "asszorti_amounts", "amounts": [0, 0, 0, 0]}, id="four-amounts"),
        pytest.param({"type": "asszorti_amounts", "amounts": [1.0, -1, 0]}, id="float-amount"),
        pytest.param({"type": "asszorti_amounts", "amounts": [True, -1, 0]}, id="bool-amount"),
        pytest.param(
            {"type": "asszorti_amounts", "amounts": [0, 0, 0], "note": "x"}, id="unknown-field"
        ),
    ],
)
def test_malformed_amounts_are_a_validation_error(payload: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        AsszortiAmounts.model_validate(payload)
    with pytest.raises(ValidationError):
        AsszortiAmounts.model_validate_json(json.dumps(payload))


# --- Standings, winner, decided, settings changes ----------------------------------------


def state_with(totals: tuple[int, int, int]) -> SheetState:
    return SheetState(totals=totals, owed=(0, 0, 0), net=totals)


@pytest.mark.parametrize(
    ("totals", "places"),
    [
        pytest.param((5, 9, 5), [(1, (1,), 9), (2, (0,), 5), (2, (2,), 5)], id="tie-for-second"),
        pytest.param((9, 9, 5), [(1, (0,), 9), (1, (1,), 9), (3, (2,), 5)], id="tie-for-first"),
        pytest.param((0, 0, 0), [(1, (0,), 0), (1, (1,), 0), (1, (2,), 0)], id="all-tied"),
        pytest.param((1, 3, 2), [(1, (1,), 3), (2, (2,), 2), (3, (0,), 1)], id="no-tie"),
    ],
)
def test_standings_rank_by_total_and_equal_totals_share_a_place(
    totals: tuple[int, int, int], places: list[tuple[int, tuple[int, ...], int]]
) -> None:
    standings = GAME.standings(state_with(totals))
    assert [(s.rank, s.seats, s.total) for s in standings] == places
    assert all(s.team is None for s in standings)


def test_standings_rank_by_sheet_total_not_by_signed_net() -> None:
    # Seat 0 has the bigger sheet total but a worse signed net (it owes a lot).
    state = SheetState(totals=(20, 10, 0), owed=(50, 0, 0), net=(-30, 10, 20))
    standings = GAME.standings(state)
    assert [s.seats for s in standings] == [(0,), (1,), (2,)]


@pytest.mark.parametrize(
    ("totals", "seats"),
    [
        ((5, 9, 5), (1,)),
        ((9, 9, 5), (0, 1)),
        ((7, 7, 7), (0, 1, 2)),
        ((0, 0, 3), (2,)),
    ],
)
def test_winner_is_every_seat_with_the_best_total(
    totals: tuple[int, int, int], seats: tuple[int, ...]
) -> None:
    winner = GAME.winner(state_with(totals), DEFAULT)
    assert winner is not None
    assert winner.seats == seats
    assert winner.team is None


@pytest.mark.parametrize(
    ("planned_deals", "round_count", "decided"),
    [
        (None, 0, False),
        (None, 500, False),
        (3, 0, False),
        (3, 2, False),
        (3, 3, True),
        (3, 4, True),
        (4, 3, False),
        (1, 1, True),
    ],
)
def test_match_is_decided_once_planned_deals_are_played(
    planned_deals: int | None, round_count: int, decided: bool
) -> None:
    settings = AsszortiSettings(planned_deals=planned_deals)
    assert GAME.is_decided(GAME.initial_state(), settings, round_count) is decided


def test_planned_deals_not_a_multiple_of_three_is_accepted() -> None:
    assert AsszortiSettings(planned_deals=7).planned_deals == 7


@pytest.mark.parametrize(("old", "new"), [(None, 4), (10, 4), (None, 1), (12, 3)])
def test_planned_deals_below_rounds_played_is_a_setting_conflict(old: int | None, new: int) -> None:
    with pytest.raises(SettingConflict) as caught:
        GAME.check_settings_change(
            AsszortiSettings(planned_deals=old),
            AsszortiSettings(planned_deals=new),
            GAME.initial_state(),
            5,
        )
    assert caught.value.loc == ("settings", "planned_deals")
    assert isinstance(caught.value, GameRuleError)


@pytest.mark.parametrize(("old", "new"), [(None, 5), (3, 5), (None, 6), (5, None), (9, None)])
def test_planned_deals_at_or_above_rounds_played_is_allowed(
    old: int | None, new: int | None
) -> None:
    GAME.check_settings_change(
        AsszortiSettings(planned_deals=old),
        AsszortiSettings(planned_deals=new),
        GAME.initial_state(),
        5,
    )


# --- Players ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "names",
    [["Anna", "Berta"], ["Anna", "Berta", "Csaba", "Dóra"], ["Anna"], []],
    ids=lambda n: f"{len(n)}-players",
)
def test_asszorti_needs_exactly_three_players(names: list[str]) -> None:
    with pytest.raises(GameRuleError, match="Asszorti is for exactly three players") as caught:
        GAME.validate_players(names)
    assert caught.value.loc == ("players",)


@pytest.mark.parametrize(
    ("names", "loc"),
    [
        (["Anna", "Berta", "anna"], ("players", 2)),
        (["Anna", "BERTA", "berta"], ("players", 2)),
        (["Csaba", "csaba", "Anna"], ("players", 1)),
        (["Ärpád", "ärpád", "Anna"], ("players", 1)),
    ],
)
def test_duplicate_names_ignoring_case_are_rejected(
    names: list[str], loc: tuple[str | int, ...]
) -> None:
    with pytest.raises(GameRuleError) as caught:
        GAME.validate_players(names)
    assert caught.value.loc == loc


def test_three_distinct_names_are_accepted() -> None:
    GAME.validate_players(["Anna", "Berta", "Csaba"])
