"""Asszorti: three players, a declarer against two, the kontra ladder and arrivázs.

This module is where Asszorti's scoring rules live. Every amount is a whole number:
contract values are even, so half of one is too.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StrictBool, StrictInt

from app.games.base import (
    GameRuleError,
    Refold,
    RoundInput,
    Score,
    SettingConflict,
    SheetState,
    Standing,
    StrictModel,
    Winner,
    check_player_names,
    rank,
)

SEATS = 3
TRICKS_PER_HAND = 11
MAX_AMOUNT = 1_000_000


class Contract(StrEnum):
    """How many talon cards the declarer exchanged."""

    THREE = "3"
    TWO = "2"
    ONE = "1"
    HAND = "hand"


class Trumps(StrEnum):
    """The trump suit, or ``none`` for a no-trump game."""

    HEARTS = "hearts"
    DIAMONDS = "diamonds"
    CLUBS = "clubs"
    SPADES = "spades"
    NONE = "none"


class Kontra(StrEnum):
    """The doubling ladder; each step doubles the one before."""

    NONE = "none"
    KONTRA = "kontra"
    REKONTRA = "rekontra"
    SZUBKONTRA = "szubkontra"
    HIRSKONTRA = "hirskontra"
    MORDKONTRA = "mordkontra"

    @property
    def multiplier(self) -> int:
        """1, 2, 4, 8, 16 or 32."""
        return 1 << list(Kontra).index(self)


CONTRACT_VALUE_WITH_TRUMPS = {Contract.THREE: 2, Contract.TWO: 4, Contract.ONE: 6, Contract.HAND: 8}

Seat = Annotated[StrictInt, Field(ge=0, le=SEATS - 1)]
TrickCount = Annotated[StrictInt, Field(ge=0, le=TRICKS_PER_HAND)]
Amount = Annotated[StrictInt, Field(ge=-MAX_AMOUNT, le=MAX_AMOUNT)]


class AsszortiSettings(StrictModel):
    """Table rules of an Asszorti match."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"kontra": True, "planned_deals": 12, "first_dealer": 0}]}
    )

    kontra: StrictBool = Field(True, description="false: the table plays without doubling")
    planned_deals: Annotated[StrictInt, Field(ge=1, le=10_000)] | None = Field(
        None, description="the match is decided after this many rounds; null: no limit"
    )
    first_dealer: Seat = Field(0, description="seat that deals round 1")


class Arrivazs(StrictModel):
    """The declarer's announcement to take all of the last three tricks."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"won": True, "idegen": False, "kontra": "none"}]}
    )

    won: StrictBool
    idegen: StrictBool = Field(False, description="won in a trump contract without a trump")
    kontra: Kontra = Kontra.NONE


HAND_EXAMPLE: dict[str, Any] = {
    "type": "asszorti_hand",
    "declarer": 1,
    "contract": "1",
    "trumps": "diamonds",
    "tricks": [2, 7, 2],
    "kontra": "none",
    "arrivazs": None,
}


class AsszortiHand(RoundInput):
    """A hand as played: the declarer, the contract and the tricks each seat took."""

    model_config = ConfigDict(json_schema_extra={"examples": [HAND_EXAMPLE]})

    round_type = "asszorti_hand"
    type: Literal["asszorti_hand"]
    declarer: Seat
    contract: Contract
    trumps: Trumps
    tricks: Annotated[list[TrickCount], Field(min_length=SEATS, max_length=SEATS)] = Field(
        description="tricks taken by each seat, summing to 11"
    )
    kontra: Kontra = Kontra.NONE
    arrivazs: Arrivazs | None = None


class AsszortiAmounts(RoundInput):
    """A hand the table scored itself: each seat's signed net, summing to zero."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"type": "asszorti_amounts", "amounts": [-9, 18, -9]}]}
    )

    round_type = "asszorti_amounts"
    type: Literal["asszorti_amounts"]
    amounts: Annotated[list[Amount], Field(min_length=SEATS, max_length=SEATS)]


class AsszortiBreakdown(StrictModel):
    """What a hand was worth: per opponent, signed from the declarer's side.

    A hand the table scored itself (``manual``) has no parts to show.
    """

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"basic_game": 9, "arrivazs": 0, "declarer_won": True, "manual": False},
                {"basic_game": None, "arrivazs": None, "declarer_won": None, "manual": True},
            ]
        }
    )

    basic_game: int | None = Field(None, description="the basic game, per opponent")
    arrivazs: int | None = Field(None, description="the arrivázs, per opponent (0 if none)")
    declarer_won: bool | None = Field(None, description="whether the declarer won the basic game")
    manual: bool = Field(False, description="true for a hand entered as amounts")


def contract_value(contract: Contract, trumps: Trumps) -> int:
    """V: the value of the contract, doubled in a no-trump game.

    >>> contract_value(Contract.ONE, Trumps.NONE)
    12
    """
    value = CONTRACT_VALUE_WITH_TRUMPS[contract]
    return value * 2 if trumps is Trumps.NONE else value


def _check_hand(hand: AsszortiHand, settings: AsszortiSettings) -> None:
    if sum(hand.tricks) != TRICKS_PER_HAND:
        raise GameRuleError(
            ("tricks",), f"tricks must sum to {TRICKS_PER_HAND}, got {sum(hand.tricks)}"
        )
    if not settings.kontra:
        if hand.kontra is not Kontra.NONE:
            raise GameRuleError(("kontra",), "this table plays without kontra")
        if hand.arrivazs and hand.arrivazs.kontra is not Kontra.NONE:
            raise GameRuleError(("arrivazs", "kontra"), "this table plays without kontra")
    arrivazs = hand.arrivazs
    if arrivazs is None:
        return
    declared = hand.tricks[hand.declarer]
    if arrivazs.idegen and not arrivazs.won:
        raise GameRuleError(("arrivazs", "idegen"), "idegen is only for a won arrivázs")
    if arrivazs.idegen and hand.trumps is Trumps.NONE:
        raise GameRuleError(("arrivazs", "idegen"), "idegen needs a trump contract")
    if arrivazs.won and declared < 3:
        raise GameRuleError(
            ("arrivazs", "won"), "a won arrivázs needs the declarer to take at least 3 tricks"
        )
    if not arrivazs.won and declared > TRICKS_PER_HAND - 1:
        raise GameRuleError(
            ("arrivazs", "won"), "the declarer took every trick, so the arrivázs was won"
        )


def score_hand(hand: AsszortiHand, settings: AsszortiSettings) -> Score:
    """Score one hand; the breakdown is signed from the declarer's side, per opponent.

    >>> hand = AsszortiHand(type="asszorti_hand", declarer=1, contract=Contract.ONE,
    ...     trumps=Trumps.DIAMONDS, tricks=[2, 7, 2])
    >>> score_hand(hand, AsszortiSettings()).net
    (-9, 18, -9)
    """
    _check_hand(hand, settings)
    value = contract_value(hand.contract, hand.trumps)
    declared = hand.tricks[hand.declarer]
    declarer_won = declared >= 6
    winning_tricks = declared if declarer_won else TRICKS_PER_HAND - declared
    basic = (value + (winning_tricks - 6) * value // 2) * hand.kontra.multiplier
    opponents = sorted(t for seat, t in enumerate(hand.tricks) if seat != hand.declarer)
    if declared == 6 and opponents == [0, 5]:
        basic -= value  # the 6:5:0 exception, after doubling
    basic_signed = basic if declarer_won else -basic

    arrivazs_signed = 0
    if hand.arrivazs is not None:
        no_trumps = hand.trumps is Trumps.NONE
        worth = 16 if hand.arrivazs.idegen or no_trumps else 8
        worth *= hand.arrivazs.kontra.multiplier
        arrivazs_signed = worth if hand.arrivazs.won else -worth

    each = basic_signed + arrivazs_signed
    net = tuple(2 * each if seat == hand.declarer else -each for seat in range(SEATS))
    return Score(
        net=net,
        points=net,
        breakdown={
            "basic_game": basic_signed,
            "arrivazs": arrivazs_signed,
            "declarer_won": declarer_won,
            "manual": False,
        },
    )


def score_amounts(amounts: AsszortiAmounts) -> Score:
    """Take a hand the table scored itself, once its nets are checked to sum to zero."""
    if sum(amounts.amounts) != 0:
        raise GameRuleError(("amounts",), f"amounts must sum to 0, got {sum(amounts.amounts)}")
    net = tuple(amounts.amounts)
    breakdown = {"basic_game": None, "arrivazs": None, "declarer_won": None, "manual": True}
    return Score(net=net, points=net, breakdown=breakdown)


def settle(state: SheetState, net: Sequence[int]) -> tuple[tuple[int, ...], SheetState]:
    """One row of the sheet: debts are paid from winnings first, losses become debts.

    >>> row, state = settle(SheetState(totals=(0, 0, 0), owed=(0, 0, 0), net=(0, 0, 0)),
    ...     (-9, 18, -9))
    >>> row, state.owed
    ((0, 18, 0), (9, 0, 9))
    """
    assert state.owed is not None and state.net is not None
    # A win first pays the debt: the cell is what exceeds it, the debt what remains
    # (a loss, n <= 0 <= debt, only adds to the debt). Written out for three seats:
    # a correction refolds every round, and this is its inner loop.
    n0, n1, n2 = net
    d0, d1, d2 = state.owed
    cells = (n0 - d0 if n0 > d0 else 0, n1 - d1 if n1 > d1 else 0, n2 - d2 if n2 > d2 else 0)
    owed = (d0 - n0 if n0 <= d0 else 0, d1 - n1 if n1 <= d1 else 0, d2 - n2 if n2 <= d2 else 0)
    t0, t1, t2 = state.totals
    s0, s1, s2 = state.net
    return cells, SheetState(
        totals=(t0 + cells[0], t1 + cells[1], t2 + cells[2]),
        owed=owed,
        net=(s0 + n0, s1 + n1, s2 + n2),
    )


class AsszortiGame:
    """The Asszorti implementation of the Game protocol."""

    name = "asszorti"
    title = "Asszorti"
    seat_count = SEATS
    team_count = 0
    settings_model: type[StrictModel] = AsszortiSettings
    round_types: tuple[type[RoundInput], ...] = (AsszortiHand, AsszortiAmounts)
    breakdown_model: type[StrictModel] = AsszortiBreakdown

    def validate_players(self, names: Sequence[str]) -> None:
        check_player_names(names, SEATS, self.title)

    def score(self, round_input: RoundInput, settings: AsszortiSettings) -> Score:
        if isinstance(round_input, AsszortiHand):
            return score_hand(round_input, settings)
        if isinstance(round_input, AsszortiAmounts):
            return score_amounts(round_input)
        raise GameRuleError(("type",), f"{round_input.type} is not an Asszorti round type")

    def initial_state(self) -> SheetState:
        zero = (0,) * SEATS
        return SheetState(totals=zero, owed=zero, net=zero)

    def apply(self, state: SheetState, points: Sequence[int]) -> tuple[tuple[int, ...], SheetState]:
        return settle(state, points)

    def is_decided(self, state: SheetState, settings: AsszortiSettings, round_count: int) -> bool:
        return settings.planned_deals is not None and round_count >= settings.planned_deals

    def refold(
        self, points: Sequence[Sequence[int]], number: int, settings: AsszortiSettings
    ) -> Refold:
        """``settle`` round after round on plain integers; a sheet is built only where
        one is asked for. Decided depends on the round count alone (planned deals)."""
        count = len(points)
        if not 1 <= number <= count:
            raise ValueError(f"no round {number} among {count}")
        planned = settings.planned_deals
        decided_at = planned if planned is not None and planned <= count else None
        marks = {number, count} if decided_at is None else {number, count, decided_at}
        sheets: dict[int, SheetState] = {}
        cells: tuple[int, ...] = ()
        t0 = t1 = t2 = d0 = d1 = d2 = s0 = s1 = s2 = 0
        for index, (n0, n1, n2) in enumerate(points, start=1):
            # settle(), written out: a win pays the debt first, a loss adds to it.
            c0, d0 = (n0 - d0, 0) if n0 > d0 else (0, d0 - n0)
            c1, d1 = (n1 - d1, 0) if n1 > d1 else (0, d1 - n1)
            c2, d2 = (n2 - d2, 0) if n2 > d2 else (0, d2 - n2)
            t0, t1, t2 = t0 + c0, t1 + c1, t2 + c2
            s0, s1, s2 = s0 + n0, s1 + n1, s2 + n2
            if index in marks:
                sheets[index] = SheetState((t0, t1, t2), (d0, d1, d2), (s0, s1, s2))
                if index == number:
                    cells = (c0, c1, c2)
        decided_sheet = sheets[decided_at] if decided_at is not None else None
        return Refold(decided_at, decided_sheet, (cells, sheets[number]), sheets[count])

    def winner(self, state: SheetState, settings: AsszortiSettings) -> Winner | None:
        best = max(state.totals)
        return Winner(seats=tuple(s for s, t in enumerate(state.totals) if t == best))

    def standings(self, state: SheetState) -> list[Standing]:
        groups = [(seat,) for seat in range(SEATS)]
        return [
            Standing(rank=place, seats=groups[i], total=state.totals[i])
            for place, i in rank(state.totals, groups)
        ]

    def check_settings_change(
        self,
        old: AsszortiSettings,
        new: AsszortiSettings,
        state: SheetState,
        round_count: int,
    ) -> None:
        planned = new.planned_deals
        if planned != old.planned_deals and planned is not None and planned < round_count:
            raise SettingConflict(
                ("settings", "planned_deals"),
                f"{round_count} rounds are already played; planned_deals cannot be {planned}",
            )

    def columns(self, players: Sequence[str], team_names: Sequence[str] | None) -> list[str]:
        return list(players)


GAME = AsszortiGame()
