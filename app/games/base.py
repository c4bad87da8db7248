"""The small protocol every game implements, and the value types it speaks in.

Game modules are pure: no framework, no database, no clock, no randomness.
Pydantic is used only to describe the shape of a round's input.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, Protocol

from pydantic import BaseModel, ConfigDict

Loc = tuple[str | int, ...]


class GameRuleError(Exception):
    """Input that is well-formed but breaks a rule of the game (answered as 422)."""

    def __init__(self, loc: Loc, message: str) -> None:
        super().__init__(message)
        self.loc = loc
        self.message = message


class SettingConflict(GameRuleError):
    """A settings change the match's state does not allow (answered as 409)."""

    def __init__(self, loc: Loc, message: str, code: str = "setting_locked") -> None:
        super().__init__(loc, message)
        self.code = code


class StrictModel(BaseModel):
    """Base for every request shape: unknown fields are errors, nothing is coerced.

    In responses every field is always present, so the response-side schema marks
    them all required (and a generated client needs no "unset" states).
    """

    model_config = ConfigDict(
        extra="forbid", frozen=True, json_schema_serialization_defaults_required=True
    )


class RoundInput(StrictModel):
    """A round as the table enters it; subclasses add a literal ``type`` tag."""

    type: str
    round_type: ClassVar[str]


class Score(NamedTuple):
    """One round scored on its own, before the sheet sees it.

    Score and SheetState are named tuples rather than frozen dataclasses: a
    correction folds thousands of them, and a tuple is cheaper to build.
    """

    net: tuple[int, ...] | None
    points: tuple[int, ...]
    breakdown: Mapping[str, Any]


class SheetState(NamedTuple):
    """The running sheet after some rounds: what the fold carries forward."""

    totals: tuple[int, ...]
    owed: tuple[int, ...] | None = None
    net: tuple[int, ...] | None = None


class Refold(NamedTuple):
    """One pass over every round's points, from the empty sheet: what a correction
    needs to check that no result is decided before rounds already played, and the
    sheet after it."""

    decided_at: int | None  # the first round after which the match is decided
    decided_sheet: SheetState | None  # the sheet after that round
    row: tuple[tuple[int, ...], SheetState]  # round ``number``'s cells and the sheet after it
    last: SheetState  # the sheet after the last round


@dataclass(frozen=True, slots=True)
class Standing:
    """One place in the standings; ``team`` is set for partnership games."""

    rank: int
    seats: tuple[int, ...]
    total: int
    team: int | None = None


@dataclass(frozen=True, slots=True)
class Winner:
    """Who won: a set of seats (individual games) or a team."""

    seats: tuple[int, ...] | None = None
    team: int | None = None


def refold_by_apply(
    game: Game, points: Sequence[Sequence[int]], number: int, settings: Any
) -> Refold:
    """Fold ``points`` with ``apply`` from the initial sheet, asking ``is_decided``
    after each round: the definition ``Game.refold`` implementations keep to."""
    decided_at: int | None = None
    decided_sheet: SheetState | None = None
    row: tuple[tuple[int, ...], SheetState] | None = None
    sheet = game.initial_state()
    for index, each in enumerate(points, start=1):
        cells, sheet = game.apply(sheet, each)
        if decided_at is None and game.is_decided(sheet, settings, index):
            decided_at, decided_sheet = index, sheet
        if index == number:
            row = (cells, sheet)
    if row is None:
        raise ValueError(f"no round {number} among {len(points)}")
    return Refold(decided_at, decided_sheet, row, sheet)


class Game(Protocol):
    """What the service needs from a game; one module per game implements it."""

    name: str
    title: str
    min_players: int
    max_players: int
    max_teams: int  # 0: never in teams
    seat_count: int  # at this table
    team_count: int  # at this table: 0, or seats s, s + team_count, ... play together
    settings_model: type[StrictModel]
    round_types: tuple[type[RoundInput], ...]
    breakdown_model: type[StrictModel]

    def for_table(self, seat_count: int, settings: Any) -> Game:
        """The game as played at one table: ``seat_count`` players under ``settings``.
        A game always played by the same table returns itself; one whose table size
        or teams the match chooses returns an instance with its own seat and team count."""

    def validate_players(self, names: Sequence[str]) -> None:
        """Raise GameRuleError when the table (its players, and the settings it was
        made for) is not one this game is played at."""

    def score(self, round_input: RoundInput, settings: Any) -> Score:
        """Score one round on its own; raise GameRuleError for an impossible round."""

    def initial_state(self) -> SheetState:
        """The sheet before any round."""

    def apply(self, state: SheetState, points: Sequence[int]) -> tuple[tuple[int, ...], SheetState]:
        """Add one round to the sheet from its score's ``points``: the row's cells and
        the new state. Points are all a round keeps for the fold: a correction refolds
        later rounds from their stored points alone."""

    def is_decided(self, state: SheetState, settings: Any, round_count: int) -> bool:
        """Whether the match is over but for End match (target reached, deals played)."""

    def refold(self, points: Sequence[Sequence[int]], number: int, settings: Any) -> Refold:
        """``refold_by_apply``'s answer (a test holds them equal), in one tight pass: a
        correction of an early round refolds every later one, thousands of rounds."""

    def winner(self, state: SheetState, settings: Any) -> Winner | None:
        """Who won, for a decided or ended match; None on a tie that names nobody."""

    def standings(self, state: SheetState) -> list[Standing]:
        """Rank the players or teams by sheet total, highest first; ties share a place."""

    def check_settings_change(
        self, old: Any, new: Any, state: SheetState, round_count: int
    ) -> None:
        """Raise SettingConflict when ``new`` cannot replace ``old`` at this point
        (answered 409), or GameRuleError when ``new`` does not fit the table (422)."""

    def columns(self, players: Sequence[str], team_names: Sequence[str] | None) -> list[str]:
        """Headings of the sheet's cell columns."""


def rank(totals: Sequence[int], groups: Sequence[tuple[int, ...]]) -> list[tuple[int, int]]:
    """Competition ranking of ``groups`` by ``totals``: (rank, index) pairs, best first.

    >>> rank([5, 9, 5], [(0,), (1,), (2,)])
    [(1, 1), (2, 0), (2, 2)]
    """
    order = sorted(range(len(groups)), key=lambda i: -totals[i])
    ranked: list[tuple[int, int]] = []
    for position, index in enumerate(order):
        if position and totals[index] == totals[order[position - 1]]:
            ranked.append((ranked[-1][0], index))
        else:
            ranked.append((position + 1, index))
    return ranked


def dealer(first_dealer: int, round_number: int, seat_count: int) -> int:
    """Seat that deals round ``round_number`` (1-based); the deal passes clockwise."""
    return (first_dealer + round_number - 1) % seat_count


def check_player_names(names: Sequence[str], seat_count: int, title: str) -> None:
    """Shared table rules: the seat count, and names unique ignoring case.

    Names arrive trimmed and 1-40 characters long (the request schema sees to that).
    """
    words = {3: "three", 4: "four"}
    if len(names) != seat_count:
        raise GameRuleError(
            ("players",),
            f"{title} is for exactly {words.get(seat_count, seat_count)} players, got {len(names)}",
        )
    seen: dict[str, int] = {}
    for seat, name in enumerate(names):
        # Names that look the same are the same name: compatibility forms (a
        # full-width letter) and case are folded away before they are compared.
        key = unicodedata.normalize("NFKC", name).casefold()
        if key in seen:
            raise GameRuleError(
                ("players", seat), f"{name!r} is already the name of seat {seen[key]}"
            )
        seen[key] = seat


class Payment(NamedTuple):
    """One payment that settles a sheet: ``payer`` gives ``payee`` ``amount``."""

    payer: int
    payee: int
    amount: int


def settle(net: Sequence[int]) -> list[Payment]:
    """Who pays whom, in the fewest payments, so that every seat ends at its net (the
    nets sum to zero). The largest debt is paid to the largest credit first; each
    payment clears one side, so there are at most seats - 1 of them.

    >>> settle([-9, 18, -9])
    [Payment(payer=0, payee=1, amount=9), Payment(payer=2, payee=1, amount=9)]
    >>> settle([0, 0, 0])
    []
    """
    if sum(net) != 0:
        raise ValueError(f"nets must sum to zero, got {list(net)}")
    balance = list(net)
    payments: list[Payment] = []
    while any(balance):
        payer = min(range(len(balance)), key=lambda seat: (balance[seat], seat))
        payee = max(range(len(balance)), key=lambda seat: (balance[seat], -seat))
        amount = min(-balance[payer], balance[payee])
        payments.append(Payment(payer, payee, amount))
        balance[payer] += amount
        balance[payee] -= amount
    return payments
