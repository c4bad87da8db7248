"""Alkort: four players in two fixed partnerships, strokes, múk and plain wins.

This module is where Alkort's scoring rules live. Team 0 is seats 0 and 2, team 1 is
seats 1 and 3. A deal is worth 1, 5, 6, 7, 8 or 9 points to one team and 0 to
the other; the first team whose total reaches the target wins the match.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import ConfigDict, Field, StrictInt

from app.games.base import (
    BREAKDOWN_TAG,
    GameRuleError,
    Refold,
    RoundInput,
    Score,
    SheetState,
    Standing,
    StrictModel,
    TeamLabel,
    Winner,
    check_player_names,
    rank,
)
from app.games.decided import check_target_move

SEATS = 4
TEAMS = 2
TRICKS_PER_DEAL = 9
TRICKS_TO_WIN = 5
MUK_RUN = 5
STROKE_RUN = 6
PLAIN_POINTS = 1
DEAL_POINTS = frozenset({PLAIN_POINTS, MUK_RUN, *range(STROKE_RUN, TRICKS_PER_DEAL + 1)})
TEAM_SEATS: tuple[tuple[int, ...], ...] = tuple(
    tuple(range(team, SEATS, TEAMS)) for team in range(TEAMS)
)

Seat = Annotated[StrictInt, Field(ge=0, le=SEATS - 1)]
Team = Annotated[StrictInt, Field(ge=0, le=TEAMS - 1)]


class DealKind(StrEnum):
    """How a deal was won: the breakdown's ``kind``."""

    PLAIN = "plain"
    MUK = "muk"
    STROKE = "stroke"


class AlkortBreakdown(StrictModel):
    """How a deal was won, by whom, and what it was worth."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"game": "alkort", "kind": "stroke", "run": 6, "team": 0, "points": 6}]
        }
    )

    game: Literal["alkort"] = Field(description=BREAKDOWN_TAG)
    kind: DealKind
    run: int | None = Field(description="the first run's length; null for a plain win or points")
    team: int
    points: int


class AlkortSettings(StrictModel):
    """Table rules of an Alkort match."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"target": 11, "first_dealer": 0}]})

    target: Annotated[StrictInt, Field(ge=1, le=1000)] = Field(
        11, description="the match is decided when a team's total reaches this line"
    )
    first_dealer: Seat = Field(0, description="seat that deals round 1")


class AlkortTricks(RoundInput):
    """A deal as played: the team that won each trick, in play order."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"type": "alkort_tricks", "tricks": [0, 0, 0, 0, 0, 0, 1, 1, 0]}]
        }
    )

    round_type = "alkort_tricks"
    type: Literal["alkort_tricks"]
    tricks: Annotated[list[Team], Field(min_length=1, max_length=TRICKS_PER_DEAL)] = Field(
        description="the winning team of each trick in play order, stopping only once the "
        "deal's result is settled: 6 to 9 of them (five never settle a deal); a list "
        "that stops early or runs on is 422 (docs/rules.md)"
    )


class AlkortPoints(RoundInput):
    """A deal the table scored itself: the winning team and its points."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"type": "alkort_points", "team": 0, "points": 6}]}
    )

    round_type = "alkort_points"
    type: Literal["alkort_points"]
    team: Team
    points: StrictInt = Field(description="1, 5, 6, 7, 8 or 9")


def first_run(tricks: Sequence[int]) -> int:
    """R: how many tricks the team that won trick 1 took before the other team took one.

    >>> first_run([1, 1, 1, 0, 1])
    3
    """
    run = 0
    for team in tricks:
        if team != tricks[0]:
            break
        run += 1
    return run


def kind_of(points: int) -> DealKind:
    """The kind of a deal worth ``points``: 1 plain, 5 múk, 6 to 9 a stroke."""
    if points == PLAIN_POINTS:
        return DealKind.PLAIN
    if points == MUK_RUN:
        return DealKind.MUK
    return DealKind.STROKE


def _score(team: int, points: int, run: int | None) -> Score:
    return Score(
        net=None,
        points=tuple(points if t == team else 0 for t in range(TEAMS)),
        breakdown={"kind": kind_of(points).value, "run": run, "team": team, "points": points},
    )


def _check_settled(tricks: Sequence[int], run: int) -> None:
    """A list shorter than nine must already fix the result: run broken and 5 tricks won."""
    if len(tricks) == TRICKS_PER_DEAL:
        return
    if run == len(tricks):
        reason = f"team {tricks[0]}'s first run of {run} is unbroken and could still grow"
    elif max(tricks.count(t) for t in range(TEAMS)) < TRICKS_TO_WIN:
        reason = f"no team has {TRICKS_TO_WIN} tricks yet"
    else:
        return
    raise GameRuleError(
        ("tricks",),
        f"the result could still change after {len(tricks)} tricks: {reason}; "
        f"enter more tricks (up to {TRICKS_PER_DEAL})",
    )


def score_tricks(deal: AlkortTricks) -> Score:
    """Score a deal from its trick winners; the breakdown names the kind and the run.

    >>> deal = AlkortTricks(type="alkort_tricks", tricks=[0, 0, 0, 0, 0, 0, 1, 1, 0])
    >>> score = score_tricks(deal)
    >>> score.points, score.breakdown
    ((6, 0), {'kind': 'stroke', 'run': 6, 'team': 0, 'points': 6})
    """
    tricks = deal.tricks
    run = first_run(tricks)
    _check_settled(tricks, run)
    if run >= MUK_RUN:
        return _score(tricks[0], run, run)
    # A plain win: whoever has five of the nine (or of the settled prefix).
    team = max(range(TEAMS), key=tricks.count)
    return _score(team, PLAIN_POINTS, None)


def score_points(entry: AlkortPoints) -> Score:
    """Take a deal the table scored itself, once its points are a possible deal value."""
    if entry.points not in DEAL_POINTS:
        *others, last = sorted(DEAL_POINTS)
        allowed = f"{', '.join(map(str, others))} or {last}"
        raise GameRuleError(("points",), f"a deal is worth {allowed} points, got {entry.points}")
    return _score(entry.team, entry.points, None)


class AlkortGame:
    """The Alkort implementation of the Game protocol."""

    name = "alkort"
    title = "Alkort"
    min_players = max_players = seat_count = SEATS
    max_teams = team_count = TEAMS
    settings_model: type[StrictModel] = AlkortSettings
    round_types: tuple[type[RoundInput], ...] = (AlkortTricks, AlkortPoints)
    breakdown_model: type[StrictModel] = AlkortBreakdown
    cells_carry = False

    def for_table(self, seat_count: int, settings: Any) -> Self:
        return self  # always the same table

    def validate_players(self, names: Sequence[str]) -> None:
        check_player_names(names, SEATS, self.title)

    def score(self, round_input: RoundInput, settings: AlkortSettings) -> Score:
        if isinstance(round_input, AlkortTricks):
            return score_tricks(round_input)
        if isinstance(round_input, AlkortPoints):
            return score_points(round_input)
        raise GameRuleError(("type",), f"{round_input.type} is not an Alkort round type")

    def initial_state(self) -> SheetState:
        return SheetState(totals=(0,) * TEAMS)

    def apply(self, state: SheetState, points: Sequence[int]) -> tuple[tuple[int, ...], SheetState]:
        cells = tuple(points)
        totals = tuple(t + c for t, c in zip(state.totals, cells, strict=True))
        return cells, SheetState(totals=totals)

    def is_decided(self, state: SheetState, settings: AlkortSettings, round_count: int) -> bool:
        return max(state.totals) >= settings.target

    def refold(
        self, points: Sequence[Sequence[int]], number: int, settings: AlkortSettings
    ) -> Refold:
        """The teams' running totals on plain integers; a sheet is built only where
        one is asked for."""
        count = len(points)
        if not 1 <= number <= count:
            raise ValueError(f"no round {number} among {count}")
        target = settings.target
        decided_at: int | None = None
        row: tuple[tuple[int, ...], SheetState] | None = None
        t0 = t1 = 0
        for index, (p0, p1) in enumerate(points, start=1):
            t0, t1 = t0 + p0, t1 + p1
            if decided_at is None and (t0 >= target or t1 >= target):
                decided_at = index
            if index == number:
                row = ((p0, p1), SheetState(totals=(t0, t1)))
        assert row is not None
        return Refold(decided_at, row, SheetState(totals=(t0, t1)))

    def past_target(self, state: SheetState, settings: AlkortSettings) -> int:
        return sum(total >= settings.target for total in state.totals)

    def winner(self, state: SheetState, settings: AlkortSettings) -> Winner | None:
        # The leading team. Where both teams reach the target (a correction after the
        # target was lowered), decided.winner asks about the sheet after the deal that
        # first reached it, where only that team does.
        best = max(state.totals)
        leaders = [t for t, total in enumerate(state.totals) if total == best]
        return Winner(team=leaders[0]) if len(leaders) == 1 else None

    def standings(self, state: SheetState) -> list[Standing]:
        return [
            Standing(rank=place, seats=TEAM_SEATS[t], total=state.totals[t], team=t)
            for place, t in rank(state.totals, TEAM_SEATS)
        ]

    def check_settings_change(
        self,
        old: AlkortSettings,
        new: AlkortSettings,
        state: SheetState,
        round_count: int,
    ) -> None:
        check_target_move(self, old, new, state)

    def columns(
        self,
        players: Sequence[str],
        team_names: Sequence[str] | None,
        *,
        team_label: TeamLabel = TeamLabel(),
    ) -> list[str]:
        if team_names is not None:
            return list(team_names)
        # A label for people: counted from 1, while a team's key (``team``) stays 0 or 1.
        return [
            team_label.heading(t, [players[s] for s in seats])
            for t, seats in enumerate(TEAM_SEATS, start=1)
        ]


GAME = AlkortGame()
