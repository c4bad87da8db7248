"""Asszorti: three players, a declarer against two, the kontra ladder and arrivázs.

This module is where Asszorti's scoring rules live. Every amount is a whole number:
contract values are even, so half of one is too.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from enum import StrEnum
from functools import cache
from typing import Annotated, Any, Literal, Self

from pydantic import ConfigDict, Field, StrictBool, StrictInt

from app.games.base import (
    BREAKDOWN_TAG,
    GameRuleError,
    Refold,
    RoundInput,
    Score,
    SettingConflict,
    SheetState,
    Standing,
    StrictModel,
    TeamLabel,
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
    """A hand the table scored itself: each seat's signed net. One seat nets 2X and
    each other seat -X (the declarer against both opponents equally), X a value some
    hand at this table can be worth (at most 72 a player without kontra)."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"type": "asszorti_amounts", "amounts": [-9, 18, -9]}]}
    )

    round_type = "asszorti_amounts"
    type: Literal["asszorti_amounts"]
    amounts: Annotated[list[Amount], Field(min_length=SEATS, max_length=SEATS)] = Field(
        description="each seat's net, seat 0 first: one seat 2X and each other seat -X, X "
        "a value some hand at this table can be worth (at most 72 without kontra; "
        "docs/rules.md); anything else is 422"
    )


class AsszortiBreakdown(StrictModel):
    """What a hand was worth: per opponent, signed from the declarer's side.

    A hand the table scored itself (``manual``) has no parts to show.
    """

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "game": "asszorti",
                    "basic_game": 9,
                    "arrivazs": 0,
                    "declarer_won": True,
                    "manual": False,
                },
                {
                    "game": "asszorti",
                    "basic_game": None,
                    "arrivazs": None,
                    "declarer_won": None,
                    "manual": True,
                },
            ]
        }
    )

    game: Literal["asszorti"] = Field(description=BREAKDOWN_TAG)
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


def _doubling_allowed(level: Kontra, settings: AsszortiSettings) -> bool:
    """Whether the table lets a game be doubled to ``level``."""
    return settings.kontra or level is Kontra.NONE


def _check_arrivazs(
    arrivazs: Arrivazs, trumps: Trumps, declared: int, settings: AsszortiSettings
) -> None:
    """An arrivázs announced in ``trumps`` by a declarer who took ``declared`` tricks."""
    if not _doubling_allowed(arrivazs.kontra, settings):
        raise GameRuleError(("arrivazs", "kontra"), "this table plays without kontra")
    if arrivazs.idegen and not arrivazs.won:
        raise GameRuleError(("arrivazs", "idegen"), "idegen is only for a won arrivázs")
    if arrivazs.idegen and trumps is Trumps.NONE:
        raise GameRuleError(("arrivazs", "idegen"), "idegen needs a trump contract")
    if arrivazs.won and declared < 3:
        raise GameRuleError(
            ("arrivazs", "won"), "a won arrivázs needs the declarer to take at least 3 tricks"
        )
    if not arrivazs.won and declared > TRICKS_PER_HAND - 1:
        raise GameRuleError(
            ("arrivazs", "won"), "the declarer took every trick, so the arrivázs was won"
        )


def _check_hand(hand: AsszortiHand, settings: AsszortiSettings) -> None:
    if sum(hand.tricks) != TRICKS_PER_HAND:
        raise GameRuleError(
            ("tricks",), f"tricks must sum to {TRICKS_PER_HAND}, got {sum(hand.tricks)}"
        )
    if not _doubling_allowed(hand.kontra, settings):
        raise GameRuleError(("kontra",), "this table plays without kontra")
    if hand.arrivazs is not None:
        _check_arrivazs(hand.arrivazs, hand.trumps, hand.tricks[hand.declarer], settings)


def _basic_game(value: int, tricks: Sequence[int], declarer: int, kontra: Kontra) -> int:
    """The basic game per opponent, signed from the declarer's side: ``value`` (V) for
    six tricks, half of V for every trick past the sixth, doubled up the ladder."""
    declared = tricks[declarer]
    declarer_won = declared >= 6
    winning_tricks = declared if declarer_won else TRICKS_PER_HAND - declared
    basic = (value + (winning_tricks - 6) * value // 2) * kontra.multiplier
    opponents = sorted(t for seat, t in enumerate(tricks) if seat != declarer)
    if declared == 6 and opponents == [0, 5]:
        basic -= value  # the 6:5:0 exception, after doubling
    return basic if declarer_won else -basic


def _arrivazs_worth(arrivazs: Arrivazs, trumps: Trumps) -> int:
    """The arrivázs per opponent, signed from the declarer's side, whatever the basic game."""
    worth = 16 if arrivazs.idegen or trumps is Trumps.NONE else 8
    worth *= arrivazs.kontra.multiplier
    return worth if arrivazs.won else -worth


def score_hand(hand: AsszortiHand, settings: AsszortiSettings) -> Score:
    """Score one hand; the breakdown is signed from the declarer's side, per opponent.

    >>> hand = AsszortiHand(type="asszorti_hand", declarer=1, contract=Contract.ONE,
    ...     trumps=Trumps.DIAMONDS, tricks=[2, 7, 2])
    >>> score_hand(hand, AsszortiSettings()).net
    (-9, 18, -9)
    """
    _check_hand(hand, settings)
    value = contract_value(hand.contract, hand.trumps)
    basic_signed = _basic_game(value, hand.tricks, hand.declarer, hand.kontra)
    arrivazs = hand.arrivazs
    arrivazs_signed = 0 if arrivazs is None else _arrivazs_worth(arrivazs, hand.trumps)
    each = basic_signed + arrivazs_signed
    net = tuple(2 * each if seat == hand.declarer else -each for seat in range(SEATS))
    return Score(
        net=net,
        points=net,
        breakdown={
            "basic_game": basic_signed,
            "arrivazs": arrivazs_signed,
            "declarer_won": hand.tricks[hand.declarer] >= 6,
            "manual": False,
        },
    )


def _splits() -> Iterator[list[int]]:
    """Every way the 11 tricks can fall among the three seats."""
    for first in range(TRICKS_PER_HAND + 1):
        for second in range(TRICKS_PER_HAND + 1 - first):
            yield [first, second, TRICKS_PER_HAND - first - second]


def _fits(arrivazs: Arrivazs, trumps: Trumps, declared: int, settings: AsszortiSettings) -> bool:
    try:
        _check_arrivazs(arrivazs, trumps, declared, settings)
    except GameRuleError:
        return False
    return True


@cache
def _hand_values(kontra: bool) -> frozenset[int]:
    """``hand_values`` for a table that does (or does not) play kontra."""
    settings = AsszortiSettings(kontra=kontra)
    levels = [level for level in Kontra if _doubling_allowed(level, settings)]
    announcements = [
        Arrivazs(won=won, idegen=idegen, kontra=level)
        for won in (True, False)
        for idegen in (False, True)
        for level in Kontra
    ]
    declarer = 0  # who declares changes who pays, not what the hand is worth
    values: set[int] = set()
    for trumps in Trumps:
        for tricks in _splits():
            declared = tricks[declarer]
            # The arrivázs is scored apart from the basic game and whatever its result:
            # a hand is worth any basic game plus no arrivázs or any that fits it.
            arrivazs = {0} | {
                _arrivazs_worth(announced, trumps)
                for announced in announcements
                if _fits(announced, trumps, declared, settings)
            }
            for contract in Contract:
                value = contract_value(contract, trumps)
                for level in levels:
                    basic = _basic_game(value, tricks, declarer, level)
                    values.update(basic + extra for extra in arrivazs)
    return frozenset(values)


def hand_values(settings: AsszortiSettings) -> frozenset[int]:
    """Every X a hand can be worth to the declarer from each opponent at this table.

    Found by scoring every hand there is: each contract and trump suit, every split
    of the tricks, every doubling level the table allows on the basic game and on
    the arrivázs, with or without an arrivázs won or lost. Only the kontra setting
    changes the answer, so it is worked out once per setting.

    >>> values = hand_values(AsszortiSettings(kontra=False))
    >>> min(values), max(values), 0 in values, 71 in values
    (-72, 72, True, False)
    """
    return _hand_values(settings.kontra)


def _per_opponent(values: Sequence[int]) -> int | None:
    """X when ``values`` are one seat's +2X against -X for each other seat, else None."""
    for seat in range(SEATS):
        first, second = (value for other, value in enumerate(values) if other != seat)
        if first == second and values[seat] == -2 * first:
            return -first
    return None


def score_amounts(amounts: AsszortiAmounts, settings: AsszortiSettings) -> Score:
    """Take a hand the table scored itself, once its nets are checked to be a hand's.

    Every hand is the declarer against both opponents equally, never just one of the
    two: it nets the declarer +2X and each opponent -X, and X must be what some hand
    at this table is worth (``hand_values``). All zeros is a hand too: a 6:5:0 split
    without doubling, for one. The calculator, which scores without a match, uses the
    default settings: kontra allowed, the most any table lets a hand be worth.

    >>> score_amounts(AsszortiAmounts(type="asszorti_amounts", amounts=[-9, 18, -9]),
    ...     AsszortiSettings(kontra=False)).net
    (-9, 18, -9)
    """
    values = amounts.amounts
    if sum(values) != 0:
        raise GameRuleError(("amounts",), f"amounts must sum to 0, got {sum(values)}")
    each = _per_opponent(values)
    if each is None:
        raise GameRuleError(
            ("amounts",),
            f"amounts {values} are not a hand's: every hand is the declarer against both "
            "opponents equally, never just one of the two, so one seat nets 2X and each "
            "of the other two -X",
        )
    possible = hand_values(settings)
    if each not in possible:
        table, parts = (
            ("with kontra", "contract, tricks, kontra and arrivázs")
            if settings.kontra
            else ("without kontra", "contract, tricks and arrivázs")
        )
        deal = f"win {each} from" if each > 0 else f"pay {-each} to"
        raise GameRuleError(
            ("amounts",),
            f"amounts {values} are not a hand's: no hand at a table {table} has the "
            f"declarer {deal} each opponent; there a hand is worth at most "
            f"{max(abs(value) for value in possible)} a player, and only the sums its "
            f"{parts} can make",
        )
    net = tuple(values)
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
    min_players = max_players = seat_count = SEATS
    max_teams = team_count = 0
    settings_model: type[StrictModel] = AsszortiSettings
    round_types: tuple[type[RoundInput], ...] = (AsszortiHand, AsszortiAmounts)
    breakdown_model: type[StrictModel] = AsszortiBreakdown
    cells_carry = True

    def for_table(self, seat_count: int, settings: Any) -> Self:
        return self  # always the same table

    def validate_players(self, names: Sequence[str]) -> None:
        check_player_names(names, SEATS, self.title)

    def score(self, round_input: RoundInput, settings: AsszortiSettings) -> Score:
        if isinstance(round_input, AsszortiHand):
            return score_hand(round_input, settings)
        if isinstance(round_input, AsszortiAmounts):
            return score_amounts(round_input, settings)
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
        marks = {number, count}
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
        decided_at = planned if planned is not None and planned <= count else None
        return Refold(decided_at, (cells, sheets[number]), sheets[count])

    def past_target(self, state: SheetState, settings: AsszortiSettings) -> int:
        return 0  # no target

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

    def columns(
        self,
        players: Sequence[str],
        team_names: Sequence[str] | None,
        *,
        team_label: TeamLabel = TeamLabel(),
    ) -> list[str]:
        return list(players)


GAME = AsszortiGame()
