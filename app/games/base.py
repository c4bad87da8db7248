"""The small protocol every game implements, and the value types it speaks in.

Game modules are pure: no framework, no database, no clock, no randomness.
Pydantic is used only to describe the shape of a round's input.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, NamedTuple, Protocol

import icu
from pydantic import BaseModel, ConfigDict

Loc = tuple[str | int, ...]


class MatchStatus(StrEnum):
    """Where a match stands."""

    IN_PROGRESS = "in_progress"
    DECIDED = "decided"
    ENDED = "ended"


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


class TeamLabel(NamedTuple):
    """How a team's column is headed when the table named no teams: ``template`` with
    ``{n}`` (the team counted from 1) and ``{players}`` (its players, ``joiner`` between)."""

    template: str = "Team {n} ({players})"
    joiner: str = " & "

    def heading(self, number: int, players: Sequence[str]) -> str:
        """One team's heading, e.g. ``Team 1 (Anna & Cili)``."""
        return self.template.format(n=number, players=self.joiner.join(players))


# A breakdown's `game`: the tag that tells a client which game's breakdown it reads.
# A game's score() leaves it out; the service adds it where a round is read.
BREAKDOWN_TAG = "the game, which tells the breakdowns apart"


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
    """One pass over every round's points, from the empty sheet: what a correction of
    round ``number`` needs to check (``check_correction``), and the sheet after it."""

    decided_at: int | None  # k: the first round after which the match is decided
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
    row: tuple[tuple[int, ...], SheetState] | None = None
    sheet = game.initial_state()
    for index, each in enumerate(points, start=1):
        cells, sheet = game.apply(sheet, each)
        if decided_at is None and game.is_decided(sheet, settings, index):
            decided_at = index
        if index == number:
            row = (cells, sheet)
    if row is None:
        raise ValueError(f"no round {number} among {len(points)}")
    return Refold(decided_at, row, sheet)


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
    # Whether a row's cells depend on the rounds before it, so that correcting a round
    # can change later rows (Asszorti: a win pays an earlier loss's debt first).
    cells_carry: bool

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

    def past_target(self, state: SheetState, settings: Any) -> int:
        """How many totals are at or past the target at a table where the first to
        reach it wins; 0 where there is no such race (no target, or lowest wins)."""

    def winner(self, state: SheetState, settings: Any) -> Winner | None:
        """Who won, for a decided or ended match; None on a tie that names nobody."""

    def standings(self, state: SheetState) -> list[Standing]:
        """Rank the players or teams by sheet total, highest first; ties share a place."""

    def check_settings_change(
        self, old: Any, new: Any, state: SheetState, round_count: int
    ) -> None:
        """Raise SettingConflict when ``new`` cannot replace ``old`` at this point
        (answered 409), or GameRuleError when ``new`` does not fit the table (422)."""

    def columns(
        self,
        players: Sequence[str],
        team_names: Sequence[str] | None,
        *,
        team_label: TeamLabel = TeamLabel(),
    ) -> list[str]:
        """Headings of the sheet's cell columns; unnamed teams headed by ``team_label``."""


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
    check_unique_names(names, field="players", holder="seat")


# ICU's checker of look-alike text (Unicode TS #39); its skeletons are thread-safe.
SPOOF_CHECKER = icu.SpoofChecker()


def check_unique_names(
    names: Sequence[str], *, field: str, holder: str, numbers: Sequence[int] | None = None
) -> None:
    """Raise GameRuleError at ``(field, number)`` for a name already held by an earlier
    ``holder`` (a seat, a team) of the list. ``numbers`` are the holders' numbers, in
    the list's order (default: their places in it).

    Names that look the same are the same name: compatibility forms (a full-width
    letter) and case are folded away before they are compared, and so are look-alike
    letters of other scripts (a Cyrillic A, U+0410, for a Latin A): two names with the same
    UTS #39 skeleton are one.
    """
    seen: dict[str, int] = {}
    looks: dict[str, tuple[int, str]] = {}
    number_of = list(numbers) if numbers is not None else list(range(len(names)))
    for number, name in zip(number_of, names, strict=True):
        key = unicodedata.normalize("NFKC", name).casefold()
        skeleton = SPOOF_CHECKER.getSkeleton(0, key)
        if key in seen:
            raise GameRuleError(
                (field, number), f"{name!r} is already the name of {holder} {seen[key]}"
            )
        if skeleton in looks:
            other, other_name = looks[skeleton]
            raise GameRuleError(
                (field, number),
                f"{name!r} looks like {other_name!r}, the name of {holder} {other}",
            )
        seen[key], looks[skeleton] = number, (number, name)
