"""The shapes the game registry builds (a match's creation and settings, a round's body,
a round's breakdown), and the games' own reads: a new game adds its own without an edit
here."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast, get_args, get_origin

from annotated_types import Ge, Le
from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo
from typing_extensions import TypeAliasType

from app.games import GAMES
from app.games.base import RoundInput, StrictModel
from app.schemas.common import HOST_SEAT_DESCRIPTION, PlayerName, Read, TeamName, union_of

ROUND_TYPES: dict[str, type[RoundInput]] = {
    model.round_type: model for game in GAMES.values() for model in game.round_types
}


def _match_create(game_name: str) -> type[StrictModel]:
    game = GAMES[game_name]
    low, high = game.min_players, game.max_players
    count = f"exactly {low}" if low == high else f"{low} to {high}"
    fields: dict[str, Any] = {
        "game": (Literal[game_name], ...),
        "players": (
            list[PlayerName],
            Field(
                min_length=low,
                max_length=high,
                description=f"{count} player names, seat 0 first, unique ignoring case",
            ),
        ),
        "settings": (game.settings_model, Field(default_factory=game.settings_model)),
        "host_seat": (
            Annotated[int, Field(ge=0, le=high - 1)] | None,
            Field(None, description=HOST_SEAT_DESCRIPTION),
        ),
    }
    if game.max_teams:
        fields["team_names"] = (
            Annotated[list[TeamName], Field(min_length=2, max_length=game.max_teams)] | None,
            Field(None, description="one name per team, team 0 first (as many as it has teams)"),
        )
    teams = f" in {game.max_teams} teams" if game.team_count else ""
    if game.max_teams and not game.team_count:
        teams = f", optionally in 2 to {game.max_teams} teams"
    model: type[StrictModel] = create_model(
        f"{''.join(word.capitalize() for word in game_name.split('_'))}MatchCreate",
        __base__=StrictModel,
        __doc__=f"{game.title}: {count} players{teams}. "
        f"Its scoring rules: docs/rules.md, section {game.title}, in the repository.",
        **fields,
    )
    names = ["Anna", "Bela", "Cili", "Dani", "Ede", "Flora"][: min(high, 4)]
    example: dict[str, Any] = {
        "game": game_name,
        "players": names,
        "settings": game.settings_model().model_dump(),
    }
    model.model_config["json_schema_extra"] = {"examples": [example]}
    model.model_rebuild(force=True)
    return model


MATCH_CREATE_MODELS = {name: _match_create(name) for name in GAMES}


def _settings_read(game_name: str) -> type[BaseModel]:
    """A game's settings as a match reads them: every one, and the game they are of."""
    settings = GAMES[game_name].settings_model
    tag: dict[str, Any] = {
        "game": (Literal[game_name], Field(description="the game, which tells the settings apart"))
    }
    model = create_model(
        f"{settings.__name__}Read", __base__=(settings,), __doc__=settings.__doc__, **tag
    )
    extra = settings.model_config.get("json_schema_extra")
    examples = cast(list[dict[str, Any]], extra["examples"] if isinstance(extra, dict) else [])
    model.model_config["json_schema_extra"] = {
        "examples": [{"game": game_name, **example} for example in examples]
    }
    model.model_rebuild(force=True)
    return model


SETTINGS_READ_MODELS = {name: _settings_read(name) for name in GAMES}

GameName = StrEnum("GameName", {name: name for name in GAMES})  # type: ignore[misc]
RoundType = StrEnum("RoundType", {name: name for name in ROUND_TYPES})  # type: ignore[misc]

if TYPE_CHECKING:  # the unions below are built from the registry at import time
    RoundBody = RoundInput
    MatchCreate = StrictModel
    GameSettings = StrictModel
    Breakdown = StrictModel
else:
    # Named aliases, so the OpenAPI document (and SDKs) get one named schema each.
    RoundBody = TypeAliasType(
        "RoundInput",
        Annotated[union_of(ROUND_TYPES.values()), Field(discriminator="type")],
    )
    MatchCreate = TypeAliasType(
        "MatchCreate",
        Annotated[union_of(MATCH_CREATE_MODELS.values()), Field(discriminator="game")],
    )
    # What a match reads back carries a tag, `game`, as round bodies carry `type`: a
    # generated client picks the union's member by it, never by trying each in turn.
    GameSettings = TypeAliasType(
        "GameSettings",
        Annotated[union_of(SETTINGS_READ_MODELS.values()), Field(discriminator="game")],
    )
    Breakdown = TypeAliasType(
        "Breakdown",
        Annotated[
            union_of(game.breakdown_model for game in GAMES.values()), Field(discriminator="game")
        ],
    )


def _widest(shared: list[FieldInfo]) -> Any:
    """One setting's type, from the games that have it: its lowest lower bound and its
    highest upper bound."""
    shapes = [_shape(info) for info in shared]
    annotation, first = shapes[0]
    others = [m for m in first if not isinstance(m, Ge | Le)]
    for base, metadata in shapes:  # the games differ in their bounds only
        assert base == annotation and others == [
            m for m in metadata if not isinstance(m, Ge | Le)
        ], shared
    lows = [[cast(int, m.ge) for m in metadata if isinstance(m, Ge)] for _, metadata in shapes]
    highs = [[cast(int, m.le) for m in metadata if isinstance(m, Le)] for _, metadata in shapes]
    bounds: list[Any] = [Ge(min(min(low) for low in lows))] if all(lows) else []
    bounds += [Le(max(max(high) for high in highs))] if all(highs) else []
    return Annotated[(annotation, *others, *bounds)] if others or bounds else annotation


def _shape(info: FieldInfo) -> tuple[Any, list[Any]]:
    """A setting's type without its ``None`` (a settings update may always send null),
    and its constraints."""
    annotation, metadata = info.annotation, list(info.metadata)
    if type(None) in get_args(annotation):
        (annotation,) = [arg for arg in get_args(annotation) if arg is not type(None)]
    if get_origin(annotation) is Annotated:
        annotation, *extra = get_args(annotation)
        for item in extra:
            metadata += item.metadata if isinstance(item, FieldInfo) else [item]
    return annotation, metadata


def _settings_update() -> type[StrictModel]:
    """Every game's settings, each optional; the match's own game re-checks the result.

    A setting several games share with different bounds (``first_dealer``, ``target``)
    takes the widest of them here: one plain schema per setting, which every client
    generator reads as one type.
    """
    infos: dict[str, list[FieldInfo]] = {}
    for game in GAMES.values():
        for name, info in game.settings_model.model_fields.items():
            infos.setdefault(name, []).append(info)
    fields: dict[str, Any] = {
        name: (_widest(shared) | None, Field(None, description=shared[0].description))
        for name, shared in infos.items()
    }
    model: type[StrictModel] = create_model("SettingsUpdate", __base__=StrictModel, **fields)
    model.model_config["json_schema_extra"] = {"examples": [{"target": 15}, {"planned_deals": 12}]}
    model.model_rebuild(force=True)
    return model


SettingsUpdate = _settings_update()


class GameRead(Read):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "name": "alkort",
                    "title": "Alkort",
                    "players": 4,
                    "min_players": 4,
                    "teams": 2,
                    "max_teams": 2,
                    "round_types": ["alkort_tricks", "alkort_points"],
                    "settings": {"type": "object"},
                }
            ]
        }
    )
    name: GameName
    title: str
    players: int = Field(
        description="how many players the game is for; for a game played by a range of "
        "players, the most (min_players is the fewest)"
    )
    min_players: int = Field(description="the fewest players (players, for a fixed table)")
    teams: int = Field(description="how many fixed teams it is played in; 0: none, or chosen")
    max_teams: int = Field(
        description="the most teams a match can choose (teams, for a fixed table; 0: never)"
    )
    round_types: list[RoundType]
    settings: dict[str, Any] = Field(description="JSON Schema of the match settings")


class GameList(Read):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "items": [
                        {
                            "name": "alkort",
                            "title": "Alkort",
                            "players": 4,
                            "min_players": 4,
                            "teams": 2,
                            "max_teams": 2,
                            "round_types": ["alkort_tricks", "alkort_points"],
                            "settings": {"type": "object"},
                        }
                    ]
                }
            ]
        }
    )
    items: list[GameRead]


class ScoreRead(Read):
    """One hand scored on its own, as a round's result would have it."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "net": [-9, 18, -9],
                    "cells": None,
                    "breakdown": {
                        "game": "asszorti",
                        "basic_game": 9,
                        "arrivazs": 0,
                        "declarer_won": True,
                        "manual": False,
                    },
                }
            ]
        }
    )

    net: list[int] | None
    cells: list[int] | None
    breakdown: Breakdown
