"""Own table: a plain, correct sheet for any game the group agrees on.

This module is where the own table's rules live. The table says each round's
points, per seat or, with fixed teams, per team; the sheet adds them up. The
table's settings say:

- **teams**: 0 (everyone for themselves) or 2 to 4 fixed teams of equal size, at
  least two players each. Seat ``s`` plays in team ``s % teams``: partners sit
  apart, as at Alkort.
- **zero_sum**: every round's points sum to zero (a money game). The sheet then
  carries ``net`` (the totals, which sum to zero) and a settlement: who pays whom.
- **negatives**: whether a round may give negative points (a zero-sum table needs them).
- **target** and **lowest_wins**: with a target, the match is decided when a total
  reaches it; the highest total wins ("first to reach wins"), or with
  ``lowest_wins`` the lowest (games like Hearts). Without a target the match runs
  until End match (or the planned rounds), and the same rule names the winner.
- **planned_rounds**: the match is decided after that many rounds.
- **table_rules**: the group's own rules in a few words (how the pack and the stock
  split for two), shown with the match and at the head of the CSV sheet.

A table's size comes from its players: ``OwnTableGame.for_table`` gives the game as
played at one table (its seat and team count), which is what a match uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StringConstraints,
    ValidationInfo,
    field_validator,
)

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
    refold_by_apply,
)
from app.games.decided import check_target_move
from app.games.text import AS_SENT, check_text

MIN_PLAYERS = 2
MAX_PLAYERS = 8
MAX_TEAMS = 4
MIN_TEAM_SIZE = 2
MAX_POINTS = 1_000_000
MAX_TARGET = 1_000_000
MAX_PLANNED = 5_000
MAX_RULES_LENGTH = 500


def _printable(text: str) -> str:
    """Free text of the table: the characters a name may hold (``app.games.text``),
    and line breaks."""
    return check_text(text, what="the text", max_length=MAX_RULES_LENGTH, lines=True)


TableRules = Annotated[
    str,
    # Counted again as kept (_printable), where the limit holds.
    StringConstraints(strip_whitespace=True, max_length=AS_SENT * MAX_RULES_LENGTH),
    AfterValidator(_printable),
    Field(
        description=f"the table's own rules as the group agreed them, at most "
        f"{MAX_RULES_LENGTH} characters as stored (NFC-normalised, as a name's length; "
        "line breaks allowed, "
        "no other control or invisible character, as in names); shown with the match "
        "and at the head of the CSV sheet"
    ),
]


class OwnTableSettings(StrictModel):
    """Table rules of an own table: teams, what a round may hold, how the match ends."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "teams": 0,
                    "zero_sum": False,
                    "negatives": False,
                    "target": 100,
                    "lowest_wins": True,
                    "planned_rounds": None,
                    "first_dealer": 0,
                    "table_rules": "Hearts: the queen of spades is 13",
                }
            ]
        }
    )

    teams: Annotated[StrictInt, Field(ge=0, le=MAX_TEAMS)] = Field(
        0,
        description="0: everyone for themselves; 2 to 4: fixed teams of equal size, at "
        "least two players each (seat s plays in team s % teams), scored per team",
    )
    zero_sum: StrictBool = Field(
        False,
        description="every round's points must sum to zero (a money game): the sheet "
        "then has nets and a settlement",
    )
    negatives: StrictBool = Field(
        True, description="a round may give negative points (a zero-sum table needs them)"
    )
    target: Annotated[StrictInt, Field(ge=1, le=MAX_TARGET)] | None = Field(
        None,
        description="the match is decided when a total reaches this line; null: no target",
    )
    lowest_wins: StrictBool = Field(
        False,
        description="the lowest total wins (when a total reaches the target, or at the "
        "end); otherwise the highest",
    )
    planned_rounds: Annotated[StrictInt, Field(ge=1, le=MAX_PLANNED)] | None = Field(
        None, description="the match is decided after this many rounds; null: no plan"
    )
    first_dealer: Annotated[StrictInt, Field(ge=0, le=MAX_PLAYERS - 1)] = Field(
        0, description="seat that deals round 1 (below the number of players)"
    )
    table_rules: TableRules = ""

    @field_validator("teams")
    @classmethod
    def _teams(cls, teams: int) -> int:
        if teams == 1:
            raise ValueError("teams must be 0 (no teams) or 2 to 4")
        return teams

    @field_validator("negatives")
    @classmethod
    def _negatives(cls, negatives: bool, info: ValidationInfo) -> bool:
        if info.data.get("zero_sum") and not negatives:
            raise ValueError(
                "a zero-sum table needs negative points: set negatives to true, "
                "or zero_sum to false"
            )
        return negatives


class OwnTablePoints(RoundInput):
    """A round as the table says it: the points of each seat, or of each team."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"type": "own_points", "points": [3, 0, 11, 12]}]}
    )

    round_type = "own_points"
    type: Literal["own_points"]
    points: Annotated[
        list[Annotated[StrictInt, Field(ge=-MAX_POINTS, le=MAX_POINTS)]],
        Field(min_length=MIN_PLAYERS, max_length=MAX_PLAYERS),
    ] = Field(
        description="one number per seat, seat 0 first; per team (team 0 first) at a "
        "table with teams. They must sum to zero at a zero-sum table, and be 0 or "
        "more unless the table allows negatives"
    )


class OwnTableBreakdown(StrictModel):
    """What a round of an own table was: the points as entered, and their sum."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"game": "own_table", "sum": 26}]})

    game: Literal["own_table"] = Field(description=BREAKDOWN_TAG)
    sum: int = Field(description="the round's points added up (0 at a zero-sum table)")


class OwnTableGame:
    """The own-table implementation of the Game protocol.

    ``GAME`` is the game as the registry lists it (no table yet: 2 to 8 players);
    ``for_table`` gives it as played at one table, with its seat and team count.
    """

    name = "own_table"
    title = "Own table"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    max_teams = MAX_TEAMS
    settings_model: type[StrictModel] = OwnTableSettings
    round_types: tuple[type[RoundInput], ...] = (OwnTablePoints,)
    breakdown_model: type[StrictModel] = OwnTableBreakdown
    cells_carry = False

    def __init__(self, seat_count: int = MAX_PLAYERS, settings: OwnTableSettings | None = None):
        self.at_table = settings is not None  # the registry's instance is at none
        self.settings = settings if settings is not None else OwnTableSettings()
        self.seat_count = seat_count
        self.team_count = self.settings.teams

    def for_table(self, seat_count: int, settings: OwnTableSettings) -> OwnTableGame:
        return OwnTableGame(seat_count, settings)

    @property
    def column_count(self) -> int:
        """Columns of the sheet: one per team at a table with teams, else one per seat."""
        return self.team_count or self.seat_count

    def validate_players(self, names: Sequence[str]) -> None:
        """The players, and the table's settings with them: teams of equal size, at
        least two players each, and a first dealer who sits at the table."""
        seats = len(names)
        if not MIN_PLAYERS <= seats <= MAX_PLAYERS:
            raise GameRuleError(
                ("players",),
                f"{self.title} is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got {seats}",
            )
        if seats != self.seat_count:  # renaming keeps the table's size
            raise GameRuleError(
                ("players",), f"this table has {self.seat_count} players, got {seats} names"
            )
        check_player_names(names, seats, self.title)
        self._check_seats(seats, self.settings)

    @staticmethod
    def _check_seats(seats: int, settings: OwnTableSettings) -> None:
        teams = settings.teams
        if teams and (seats % teams or seats // teams < MIN_TEAM_SIZE):
            raise GameRuleError(
                ("settings", "teams"),
                f"{seats} players cannot sit in {teams} teams of equal size "
                f"with at least {MIN_TEAM_SIZE} players each",
            )
        if settings.first_dealer >= seats:
            raise GameRuleError(
                ("settings", "first_dealer"),
                f"the first dealer must be one of the seats 0 to {seats - 1}",
            )

    def score(self, round_input: RoundInput, settings: OwnTableSettings) -> Score:
        if not isinstance(round_input, OwnTablePoints):
            raise GameRuleError(("type",), f"{round_input.type} is not an own-table round type")
        points = tuple(round_input.points)
        columns, per = self.column_count, "team" if self.team_count else "seat"
        # (The calculator scores a round at no table: any number of columns then.)
        if self.at_table and len(points) != columns:
            raise GameRuleError(
                ("points",), f"give one number per {per}: {columns} of them, got {len(points)}"
            )
        if not settings.negatives:
            for index, value in enumerate(points):
                if value < 0:
                    raise GameRuleError(
                        ("points", index), f"this table has no negative points, got {value}"
                    )
        total = sum(points)
        if settings.zero_sum and total != 0:
            raise GameRuleError(
                ("points",), f"at a zero-sum table a round's points sum to 0, these sum to {total}"
            )
        return Score(net=None, points=points, breakdown={"sum": total})

    def initial_state(self) -> SheetState:
        zero = (0,) * self.column_count
        return SheetState(totals=zero, net=zero if self.settings.zero_sum else None)

    def apply(self, state: SheetState, points: Sequence[int]) -> tuple[tuple[int, ...], SheetState]:
        cells = tuple(points)
        totals = tuple(t + c for t, c in zip(state.totals, cells, strict=True))
        # At a zero-sum table the totals are what each seat (or team) is up or down:
        # its net, which the settlement pays out.
        return cells, SheetState(totals=totals, net=totals if self.settings.zero_sum else None)

    def is_decided(self, state: SheetState, settings: OwnTableSettings, round_count: int) -> bool:
        if settings.planned_rounds is not None and round_count >= settings.planned_rounds:
            return True
        return settings.target is not None and max(state.totals) >= settings.target

    def refold(
        self, points: Sequence[Sequence[int]], number: int, settings: OwnTableSettings
    ) -> Refold:
        # Rounds are few and cheap to add: the definition is fast enough here.
        return refold_by_apply(self, points, number, settings)

    def past_target(self, state: SheetState, settings: OwnTableSettings) -> int:
        if settings.target is None or settings.lowest_wins:
            return 0  # no race to the line: at a lowest-wins table it only ends the match
        return sum(total >= settings.target for total in state.totals)

    def winner(self, state: SheetState, settings: OwnTableSettings) -> Winner | None:
        best = (min if settings.lowest_wins else max)(state.totals)
        leaders = [c for c, total in enumerate(state.totals) if total == best]
        if len(leaders) != 1:
            return None
        if self.team_count:
            return Winner(team=leaders[0])
        return Winner(seats=(leaders[0],))

    def standings(self, state: SheetState) -> list[Standing]:
        """Best first: the highest total, or the lowest at a lowest-wins table."""
        totals = state.totals
        order = [-t for t in totals] if self.settings.lowest_wins else totals
        teams = self.team_count
        if teams:
            groups = [tuple(range(t, self.seat_count, teams)) for t in range(teams)]
        else:
            groups = [(s,) for s in range(self.seat_count)]
        return [
            Standing(rank=place, seats=groups[c], total=totals[c], team=c if teams else None)
            for place, c in rank(order, groups)
        ]

    def check_settings_change(
        self, old: OwnTableSettings, new: OwnTableSettings, state: SheetState, round_count: int
    ) -> None:
        for name in ("teams", "zero_sum"):  # the sheet's shape: its columns, its nets
            if getattr(new, name) != getattr(old, name):
                raise SettingConflict(
                    ("settings", name), f"{name} is fixed when the match is created"
                )
        self._check_seats(self.seat_count, new)  # a GameRuleError: bad input, not a conflict
        for name in ("negatives", "lowest_wins"):  # what the rounds played were under
            if getattr(new, name) != getattr(old, name) and round_count > 0:
                raise SettingConflict(("settings", name), f"{name} can only change before round 1")
        planned = new.planned_rounds
        if planned != old.planned_rounds and planned is not None and planned < round_count:
            raise SettingConflict(
                ("settings", "planned_rounds"),
                f"{round_count} rounds are already played; planned_rounds cannot be {planned}",
            )
        check_target_move(self, old, new, state)

    def columns(
        self,
        players: Sequence[str],
        team_names: Sequence[str] | None,
        *,
        team_label: TeamLabel = TeamLabel(),
    ) -> list[str]:
        if not self.team_count:
            return list(players)
        if team_names is not None:
            return list(team_names)
        # A label for people: counted from 1, while a team's key (``team``) counts from 0.
        seats = [range(t, len(players), self.team_count) for t in range(self.team_count)]
        return [
            team_label.heading(t, [players[s] for s in each])
            for t, each in enumerate(seats, start=1)
        ]


GAME = OwnTableGame()
