"""Request and response shapes of the HTTP API.

Per-game shapes (a match's settings, a round's body) come from the game
registry, so a new game adds its own without an edit here.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, create_model

from app.games import GAMES
from app.games.base import RoundInput, StrictModel

PlayerName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]
TeamName = PlayerName

ROUND_TYPES: dict[str, type[RoundInput]] = {
    model.round_type: model for game in GAMES.values() for model in game.round_types
}
ROUND_GAME: dict[str, str] = {
    model.round_type: game.name for game in GAMES.values() for model in game.round_types
}


def _union(models: Any) -> Any:
    return Union[tuple(models)]  # noqa: UP007


def _match_create(game_name: str) -> type[StrictModel]:
    game = GAMES[game_name]
    fields: dict[str, Any] = {
        "game": (Literal[game_name], ...),
        "players": (
            list[PlayerName],
            Field(
                min_length=1,
                max_length=16,
                description=f"the {game.seat_count} player names, seat 0 first, "
                "unique ignoring case",
            ),
        ),
        "settings": (game.settings_model, Field(default_factory=game.settings_model)),
    }
    if game.team_count:
        fields["team_names"] = (
            Annotated[list[TeamName], Field(min_length=game.team_count, max_length=game.team_count)]
            | None,
            None,
        )
    model: type[StrictModel] = create_model(
        f"{game.title}MatchCreate", __base__=StrictModel, **fields
    )
    return model


MATCH_CREATE_MODELS = {name: _match_create(name) for name in GAMES}

if TYPE_CHECKING:  # the unions below are built from the registry at import time
    RoundBody = RoundInput
    MatchCreate = StrictModel
    GameSettings = StrictModel
else:
    RoundBody = Annotated[_union(ROUND_TYPES.values()), Field(discriminator="type")]
    MatchCreate = Annotated[_union(MATCH_CREATE_MODELS.values()), Field(discriminator="game")]
    GameSettings = _union(game.settings_model for game in GAMES.values())


def _settings_update() -> type[StrictModel]:
    """Every game's settings, each optional; the match's own game re-checks the result.

    A setting several games share with different bounds (``first_dealer``)
    accepts any of their shapes here.
    """
    shapes: dict[str, list[Any]] = {}
    descriptions: dict[str, str | None] = {}
    for game in GAMES.values():
        for name, info in game.settings_model.model_fields.items():
            annotation: Any = info.annotation
            if info.metadata:
                annotation = Annotated[(annotation, *info.metadata)]
            if annotation not in shapes.setdefault(name, []):
                shapes[name].append(annotation)
            descriptions.setdefault(name, info.description)
    fields: dict[str, Any] = {
        name: (_union(options) | None, Field(None, description=descriptions[name]))
        for name, options in shapes.items()
    }
    model: type[StrictModel] = create_model("SettingsUpdate", __base__=StrictModel, **fields)
    return model


SettingsUpdate = _settings_update()


class MatchUpdate(StrictModel):
    """What the host may change: settings (only those sent), player and team names."""

    settings: SettingsUpdate | None = None  # type: ignore[valid-type]  # built from the registry
    players: Annotated[list[PlayerName], Field(min_length=1, max_length=16)] | None = None
    team_names: Annotated[list[TeamName], Field(min_length=1, max_length=16)] | None = None


class MatchStatus(StrEnum):
    """Where a match stands."""

    IN_PROGRESS = "in_progress"
    DECIDED = "decided"
    ENDED = "ended"


class Read(BaseModel):
    """Base of every response shape."""

    model_config = ConfigDict(frozen=True)


class PlayerRead(Read):
    seat: int
    name: str


class TeamRead(Read):
    team: int
    name: str | None
    seats: list[int]


class StandingRead(Read):
    rank: int
    seats: list[int]
    total: int
    team: int | None = None


class WinnerRead(Read):
    seats: list[int] | None = None
    team: int | None = None


class MatchRead(Read):
    """A match as every client sees it."""

    id: str
    game: str
    status: MatchStatus
    players: list[PlayerRead]
    teams: list[TeamRead] | None
    settings: GameSettings
    round_count: int
    next_dealer: int
    totals: list[int]
    owed: list[int] | None
    net: list[int] | None
    standings: list[StandingRead]
    winner: WinnerRead | None
    version: int
    created_at: datetime
    updated_at: datetime
    ended_at: datetime | None
    ended_by: str | None = Field(None, description="who ended the match: host or seat:N")


class Tokens(Read):
    """Bearer tokens, shown once: keep them; only their hashes are stored."""

    host: str
    players: list[str]
    viewer: str


class MatchCreated(MatchRead):
    tokens: Tokens


Breakdown = dict[str, int | bool | str | None]


class RoundResult(Read):
    """What a round did to the sheet."""

    net: list[int] | None
    cells: list[int]
    totals: list[int]
    owed: list[int] | None
    breakdown: Breakdown


class RoundRead(Read):
    number: int
    type: str
    input: RoundBody
    dealer: int
    result: RoundResult
    entered_by: str
    created_at: datetime
    updated_at: datetime


class RoundRevisionRead(Read):
    """One input a round number held: entered, corrected, or removed (input null)."""

    revision: int
    action: Literal["entered", "corrected", "removed"]
    type: str | None
    input: RoundBody | None
    by: str = Field(description="who did it: host or seat:N")
    recorded_at: datetime


class RoundHistory(Read):
    number: int
    items: list[RoundRevisionRead]


class RoundList(Read):
    items: list[RoundRead]


class SheetRow(Read):
    number: int
    dealer: int
    cells: list[int]
    net: list[int] | None


class SheetRead(Read):
    """The score sheet: one row of cells per round, then the totals."""

    columns: list[str]
    rows: list[SheetRow]
    totals: list[int]
    owed: list[int] | None
    net: list[int] | None


class GameRead(Read):
    name: str
    title: str
    players: int
    teams: int
    round_types: list[str]
    settings: dict[str, Any] = Field(description="JSON Schema of the match settings")


class GameList(Read):
    items: list[GameRead]


class ScoreRead(Read):
    """One hand scored on its own, as a round's result would have it."""

    net: list[int] | None
    cells: list[int] | None
    breakdown: Breakdown


class HealthRead(Read):
    status: str
    detail: str


class Problem(BaseModel):
    """An RFC 9457 problem detail."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str
    code: str
    errors: list[ProblemField] | None = None


class ProblemField(BaseModel):
    loc: list[str | int]
    message: str


Problem.model_rebuild()
