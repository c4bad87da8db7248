"""Request and response shapes of the HTTP API.

Per-game shapes (a match's settings, a round's body) come from the game
registry, so a new game adds its own without an edit here.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, cast, get_args, get_origin

from annotated_types import Ge, Le
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    WithJsonSchema,
    create_model,
)
from pydantic.fields import FieldInfo
from typing_extensions import TypeAliasType

from app.games import GAMES
from app.games.asszorti import HAND_EXAMPLE
from app.games.base import MatchStatus, RoundInput, StrictModel
from app.games.text import AS_SENT, check_text, fold_spaces, shows_something

MAX_NAME_LENGTH = 40


def clean_name(name: str) -> str:
    """A name as it is kept (``app.games.text``), for every name the API takes (players
    at creation, team names, renames by ``PATCH``): NFC, at most 40 characters as kept,
    and something one sees.

    Runs of spaces are folded silently into one space, and the ends trimmed ("Anna  B"
    is kept as "Anna B", and so clashes with an "Anna B" at the table): the name looks
    as it did. What renders as nothing (control and default-ignorable characters, a
    variation selector that selects nothing, the Hangul fillers, the blank braille
    pattern) and a pile of more than a few combining marks on one letter are refused,
    422 at the field, before the length and look-alike checks."""
    name = check_text(fold_spaces(name), what="a name", max_length=MAX_NAME_LENGTH)
    if not shows_something(name):
        raise ValueError("a name must show a letter, digit or symbol, not only blanks or marks")
    return name


PlayerName = Annotated[
    str,
    # Counted again as kept (clean_name), where the 40 holds.
    StringConstraints(strip_whitespace=True, min_length=1, max_length=AS_SENT * MAX_NAME_LENGTH),
    AfterValidator(clean_name),
    Field(
        description=f"1-{MAX_NAME_LENGTH} characters as stored (NFC-normalised; as sent, up "
        f"to {AS_SENT * MAX_NAME_LENGTH} code points, since a decomposed character "
        "composes into one), at least one of them "
        "visible; runs of spaces are kept as one space; no control, invisible or "
        "default-ignorable characters (but a zero-width joiner inside an emoji, and a "
        "variation selector after an emoji or ideograph), no more than four combining "
        "marks on one character; unique at the table ignoring case, compatibility forms "
        "and look-alike letters"
    ),
]
TeamName = PlayerName

ROUND_TYPES: dict[str, type[RoundInput]] = {
    model.round_type: model for game in GAMES.values() for model in game.round_types
}


def _union(models: Any) -> Any:
    return Union[tuple(models)]  # noqa: UP007


HOST_SEAT_DESCRIPTION = (
    "the seat of the player who holds the host's phone (a seat of the table), or null: "
    "the host only keeps score, or has not said. Rounds and changes the host's token "
    "makes are recorded as `host`; a client names them after this seat's player"
)
WHO_DESCRIPTION = (
    "who did it: host or seat:N (the host is the player at the match's host_seat, "
    "when it names one)"
)


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
        Annotated[_union(ROUND_TYPES.values()), Field(discriminator="type")],
    )
    MatchCreate = TypeAliasType(
        "MatchCreate",
        Annotated[_union(MATCH_CREATE_MODELS.values()), Field(discriminator="game")],
    )
    # What a match reads back carries a tag, `game`, as round bodies carry `type`: a
    # generated client picks the union's member by it, never by trying each in turn.
    GameSettings = TypeAliasType(
        "GameSettings",
        Annotated[_union(SETTINGS_READ_MODELS.values()), Field(discriminator="game")],
    )
    Breakdown = TypeAliasType(
        "Breakdown",
        Annotated[
            _union(game.breakdown_model for game in GAMES.values()), Field(discriminator="game")
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


class PlayerUpdate(StrictModel):
    """A seat's new name (updatePlayer)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"name": "Berta"}]})

    name: PlayerName


class MatchUpdate(StrictModel):
    """What the host may change: settings (only those sent), player and team names, and
    the host's seat (sent: changed, null included)."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"settings": {"target": 15}}, {"host_seat": 0}]}
    )

    settings: SettingsUpdate | None = None  # type: ignore[valid-type]  # built from the registry
    players: Annotated[list[PlayerName], Field(min_length=1, max_length=16)] | None = None
    team_names: Annotated[list[TeamName], Field(min_length=1, max_length=16)] | None = None
    host_seat: Annotated[int, Field(ge=0, le=15)] | None = Field(
        None,
        description="the seat of the player who holds the host's phone; null: none (the "
        "host only keeps score). Left out: unchanged",
    )

    @property
    def host_seat_sent(self) -> bool:
        """Whether the body names the host's seat (null included), not just leaves it out."""
        return "host_seat" in self.model_fields_set


class Read(BaseModel):
    """Base of every response shape."""

    model_config = ConfigDict(frozen=True, json_schema_serialization_defaults_required=True)


class PlayerRead(Read):
    model_config = ConfigDict(json_schema_extra={"examples": [{"seat": 1, "name": "Berta"}]})
    seat: int
    name: str


class TeamRead(Read):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"team": 0, "name": "Us", "seats": [0, 2]}]}
    )
    team: int
    name: str | None
    seats: list[int]


class StandingRead(Read):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"rank": 1, "seats": [1], "total": 18, "team": None}]}
    )
    rank: int
    seats: list[int]
    total: int
    team: int | None = None


class WinnerRead(Read):
    model_config = ConfigDict(json_schema_extra={"examples": [{"seats": [1], "team": None}]})
    seats: list[int] | None = None
    team: int | None = None


_MATCH_EXAMPLE: dict[str, Any] = {
    "id": "4f6c2b0e9a8d4c1b8e7f6a5b4c3d2e1f",
    "game": "asszorti",
    "status": "in_progress",
    "players": [
        {"seat": 0, "name": "Anna"},
        {"seat": 1, "name": "Berta"},
        {"seat": 2, "name": "Csaba"},
    ],
    "teams": None,
    "settings": {"game": "asszorti", "kontra": True, "planned_deals": None, "first_dealer": 0},
    "round_count": 1,
    "next_dealer": 1,
    "totals": [0, 18, 0],
    "owed": [9, 0, 9],
    "net": [-9, 18, -9],
    "standings": [
        {"rank": 1, "seats": [1], "total": 18, "team": None},
        {"rank": 2, "seats": [0], "total": 0, "team": None},
        {"rank": 2, "seats": [2], "total": 0, "team": None},
    ],
    "winner": None,
    "version": 2,
    "created_at": "2026-11-29T20:15:00Z",
    "updated_at": "2026-11-29T20:15:00Z",
    "ended_at": None,
    "ended_by": None,
    "rematch_id": None,
    "rematch_of": None,
    "host_seat": 0,
}


class PaymentRead(Read):
    """One payment of the settlement: seat ``payer`` gives seat ``payee`` ``amount``
    (teams, at an own table played in teams)."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"payer": 0, "payee": 1, "amount": 9}]}
    )

    payer: int
    payee: int
    amount: int


SETTLEMENT_DESCRIPTION = (
    "Who pays whom, in the fewest payments, so that every seat ends at its net "
    "(Asszorti: totals less owed; a zero-sum own table: its totals, per team when it "
    "plays in teams); null for a game without money (Alkort, an own table that is not "
    "zero-sum)"
)


class MatchRead(Read):
    """A match as every client sees it."""

    model_config = ConfigDict(json_schema_extra={"examples": [_MATCH_EXAMPLE]})

    id: str
    game: GameName
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
    settlement: list[PaymentRead] | None = Field(None, description=SETTLEMENT_DESCRIPTION)
    version: int
    created_at: datetime
    updated_at: datetime
    ended_at: datetime | None
    ended_by: str | None = Field(
        None,
        description="who ended the match: host or seat:N (the host is the player at "
        "host_seat, when it names one)",
    )
    rematch_id: str | None = Field(
        None, description="the match started as this one's rematch (startRematch); null if none"
    )
    rematch_of: str | None = Field(
        None, description="the ended match this one is the rematch of; null if none"
    )
    host_seat: int | None = Field(None, description=HOST_SEAT_DESCRIPTION)


class JoinLinks(Read):
    """Each token as a link a phone can open, e.g. from a QR code. The token is in the
    URL's fragment (``#/m/{match_id}?t={token}``), which a browser never sends to a
    server, so it appears in no request line and no log. A link is absolute when the
    service knows its public address (``PUBLIC_BASE_URL``); otherwise it is relative to
    the service's root (``/#/m/...``): resolve it against the URL you called."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "host": "https://squarescores.example/#/m/4f1c.../?t=h5Vq...",
                    "players": ["https://squarescores.example/#/m/4f1c...?t=p0..."],
                    "viewer": "https://squarescores.example/#/m/4f1c...?t=v...",
                }
            ]
        }
    )

    host: str
    players: list[str]
    viewer: str


class TokenRole(StrEnum):
    """Whom a token stands for."""

    HOST = "host"
    PLAYER = "player"
    VIEWER = "viewer"


class TokenAction(StrEnum):
    """What happened to the match besides its rounds: a token re-issued or recovered, a
    player renamed."""

    TOKEN_REISSUED = "token_reissued"
    HOST_TOKEN_RECOVERED = "host_token_recovered"
    PLAYER_RENAMED = "player_renamed"


class RevisionAction(StrEnum):
    """What a round's revision did to it."""

    ENTERED = "entered"
    CORRECTED = "corrected"
    REMOVED = "removed"


class TokenOwner(Read):
    """Whom a token stands for."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"role": "player", "seat": 1}]})

    role: TokenRole
    seat: int | None = Field(description="the seat, for a player's token; null otherwise")


class TokenReissue(StrictModel):
    """Which token to re-issue: the host's, the viewers', or one seat's."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"role": "player", "seat": 1}, {"role": "viewer"}]}
    )

    role: TokenRole
    seat: int | None = Field(
        None, ge=0, le=15, description="the seat, for a player's token; absent otherwise"
    )


class IssuedToken(Read):
    """A token just issued: the one it replaces no longer works."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "role": "player",
                    "seat": 1,
                    "token": "4f1cQm3xY0aB9cDe.Zq...",
                    "link": "https://squarescores.example/#/m/4f1c...?t=4f1cQm3xY0aB9cDe.Zq...",
                    "recovery": None,
                }
            ]
        }
    )

    role: TokenRole
    seat: int | None
    token: str
    link: str = Field(description="the token as a join link (see JoinLinks)")
    recovery: str | None = Field(
        description="the host's new recovery code, after a recovery or a re-issue of the "
        "host's token; the one before it no longer works. Null otherwise"
    )


class RecoveryCode(Read):
    """The match's current recovery code, shown to the host token it is kept for."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"recovery_code": "q8ZfK2..."}]})

    recovery_code: str


class RematchSeat(Read):
    """A token of the rematch, for the role and seat of the token of the match before it
    that asked: the host's, a player's own seat, or a viewer's."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "match_id": "9a0c...",
                    "role": "player",
                    "seat": 1,
                    "token": "9a0cW1xk2LmQpR3s.Zq...",
                    "link": "https://squarescores.example/#/m/9a0c...?t=9a0cW1xk2LmQpR3s.Zq...",
                }
            ]
        }
    )

    match_id: str = Field(description="the rematch's id")
    role: TokenRole
    seat: int | None
    token: str
    link: str = Field(description="the token as a join link (see JoinLinks)")


class HostRecovery(StrictModel):
    """The match's current recovery code: the one shown at creation, or the last one a
    recovery or a re-issue of the host's token gave."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"recovery_code": "q8ZfK2..."}]})

    recovery_code: str = Field(min_length=1, max_length=128)


_EVENT_EXAMPLE: dict[str, Any] = {
    "event": 1,
    "action": "token_reissued",
    "role": "player",
    "seat": 1,
    "by": "host",
    "recorded_at": "2026-12-01T20:15:00Z",
    "old_name": None,
    "new_name": None,
}


class MatchEventRead(Read):
    """One thing that happened to the match besides its rounds."""

    model_config = ConfigDict(json_schema_extra={"examples": [_EVENT_EXAMPLE]})

    event: int = Field(description="1 for the match's first, in the order they happened")
    action: TokenAction
    role: TokenRole | None
    seat: int | None
    by: str = Field(description="host, seat:N, or recovery (the host's recovery code)")
    recorded_at: datetime
    old_name: str | None = Field(None, description="a renamed player's name before; else null")
    new_name: str | None = Field(None, description="a renamed player's name after; else null")


class MatchHistory(Read):
    """A page of the token changes and renames, oldest first (each round's own history is
    at its
    /history); ``next`` is where the following page is."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"items": [_EVENT_EXAMPLE], "next": None}]}
    )

    items: list[MatchEventRead]
    next: str | None = Field(
        None,
        description='The URL of the next page (also sent as a `Link: <...>; rel="next"` '
        "header); null on the last page",
        examples=["/v1/matches/4f1c2a9e0b7d4e6f8a1b2c3d4e5f6a7b/history?after=100&limit=100"],
    )


class Tokens(Read):
    """Bearer tokens, shown once: keep them; only their hashes are stored."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "host": "h5Vq0pTnB2xYc8Rw.Zq...",
                    "players": ["p0...", "p1...", "p2..."],
                    "viewer": "v...",
                    "recovery": "r...",
                    "links": {
                        "host": "https://squarescores.example/#/m/4f1c...?t=h5Vq...",
                        "players": ["https://squarescores.example/#/m/4f1c...?t=p0..."],
                        "viewer": "https://squarescores.example/#/m/4f1c...?t=v...",
                    },
                }
            ]
        }
    )

    host: str
    players: list[str] = Field(description="one token per seat, seat 0 first")
    viewer: str
    recovery: str = Field(
        description="The host's recovery code: with it the host re-issues a lost host token "
        "(recoverHostToken). Keep it apart from the host token; shown only here."
    )
    links: JoinLinks = Field(description="each token as a join link, for a QR code")


class MatchCreated(MatchRead):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    **_MATCH_EXAMPLE,
                    "round_count": 0,
                    "next_dealer": 0,
                    "totals": [0, 0, 0],
                    "owed": [0, 0, 0],
                    "net": [0, 0, 0],
                    "standings": [
                        {"rank": 1, "seats": [seat], "total": 0, "team": None} for seat in range(3)
                    ],
                    "version": 1,
                    "tokens": {
                        "host": "h5Vq0pTnB2xYc8Rw.Zq...",
                        "players": ["p0...", "p1...", "p2..."],
                        "viewer": "v...",
                        "recovery": "r...",
                        "links": {
                            "host": "https://squarescores.example/#/m/4f1c...?t=h5Vq...",
                            "players": ["https://squarescores.example/#/m/4f1c...?t=p0..."],
                            "viewer": "https://squarescores.example/#/m/4f1c...?t=v...",
                        },
                    },
                }
            ]
        }
    )
    tokens: Tokens


_RESULT_EXAMPLE: dict[str, Any] = {
    "net": [-9, 18, -9],
    "cells": [0, 18, 0],
    "totals": [0, 18, 0],
    "owed": [9, 0, 9],
    "breakdown": {
        "game": "asszorti",
        "basic_game": 9,
        "arrivazs": 0,
        "declarer_won": True,
        "manual": False,
    },
}


class RoundResult(Read):
    """What a round did to the sheet."""

    model_config = ConfigDict(json_schema_extra={"examples": [_RESULT_EXAMPLE]})

    net: list[int] | None
    cells: list[int]
    totals: list[int]
    owed: list[int] | None
    breakdown: Breakdown


_ROUND_EXAMPLE: dict[str, Any] = {
    "number": 1,
    "type": "asszorti_hand",
    "input": HAND_EXAMPLE,
    "dealer": 0,
    "result": _RESULT_EXAMPLE,
    "entered_by": "seat:1",
    "created_at": "2026-11-29T20:15:00Z",
    "updated_at": "2026-11-29T20:15:00Z",
}


class RoundRead(Read):
    model_config = ConfigDict(json_schema_extra={"examples": [_ROUND_EXAMPLE]})
    number: int
    type: RoundType
    input: RoundBody
    dealer: int
    result: RoundResult
    entered_by: str = Field(description=WHO_DESCRIPTION)
    created_at: datetime
    updated_at: datetime


_REVISION_EXAMPLE: dict[str, Any] = {
    "revision": 1,
    "action": "entered",
    "type": "asszorti_amounts",
    "input": {"type": "asszorti_amounts", "amounts": [2, -1, -1]},
    "by": "seat:0",
    "recorded_at": "2026-11-29T20:15:00Z",
}


class RoundRevisionRead(Read):
    """One input a round number held: entered, corrected, or removed (input null)."""

    model_config = ConfigDict(json_schema_extra={"examples": [_REVISION_EXAMPLE]})

    revision: int
    action: RevisionAction
    type: RoundType | None
    input: RoundBody | None
    by: str = Field(description=WHO_DESCRIPTION)
    recorded_at: datetime


class RoundHistory(Read):
    """A page of the inputs a round number has held, oldest first; ``next`` is where
    the following page is."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "number": 1,
                    "items": [_REVISION_EXAMPLE],
                    "next": None,
                }
            ]
        }
    )
    number: int
    items: list[RoundRevisionRead]
    next: str | None = Field(
        None,
        description='The URL of the next page (also sent as a `Link: <...>; rel="next"` '
        "header); null on the last page",
        examples=[
            "/v1/matches/4f1c2a9e0b7d4e6f8a1b2c3d4e5f6a7b/rounds/1/history?after=100&limit=100"
        ],
    )


class RoundList(Read):
    """One page of rounds, in order; ``next`` is where the following page is."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"items": [_ROUND_EXAMPLE], "next": None}]}
    )
    items: list[RoundRead]
    next: str | None = Field(
        None,
        description='The URL of the next page (also sent as a `Link: <...>; rel="next"` '
        "header); null on the last page",
        examples=["/v1/matches/4f1c2a9e0b7d4e6f8a1b2c3d4e5f6a7b/rounds?after=100&limit=100"],
    )


class SheetRow(Read):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"number": 1, "dealer": 0, "cells": [0, 18, 0], "net": [-9, 18, -9]}]
        }
    )
    number: int
    dealer: int
    cells: list[int]
    net: list[int] | None


class SheetRead(Read):
    """The score sheet: one row of cells per round, then the totals."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "columns": ["Anna", "Berta", "Csaba"],
                    "rows": [{"number": 1, "dealer": 0, "cells": [0, 18, 0], "net": [-9, 18, -9]}],
                    "totals": [0, 18, 0],
                    "owed": [9, 0, 9],
                    "net": [-9, 18, -9],
                    "settlement": [
                        {"payer": 0, "payee": 1, "amount": 9},
                        {"payer": 2, "payee": 1, "amount": 9},
                    ],
                }
            ]
        }
    )

    columns: list[str]
    rows: list[SheetRow]
    totals: list[int]
    owed: list[int] | None
    net: list[int] | None
    settlement: list[PaymentRead] | None = Field(None, description=SETTLEMENT_DESCRIPTION)


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


class HealthRead(Read):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"status": "ok", "detail": "schema at 0003"}]}
    )
    status: str
    detail: str


class Problem(BaseModel):
    """An RFC 9457 problem detail; ``errors`` is present on validation errors only."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "type": "about:blank",
                    "title": "The request is not valid",
                    "status": 422,
                    "detail": "tricks must sum to 11, got 10",
                    "code": "validation_error",
                    "errors": [
                        {"loc": ["body", "tricks"], "message": "tricks must sum to 11, got 10"}
                    ],
                }
            ]
        },
    )

    type: str = Field(description="always about:blank: `code` says what happened")
    title: str
    status: int
    detail: str
    code: str
    # Left out, not null, when there is nothing to list: a generator reads an optional
    # nullable property as one to send back as null.
    errors: list[ProblemField] = Field(
        default_factory=list, description="on a 422 only: each field at fault"
    )


class ProblemField(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"loc": ["body", "tricks"], "message": "tricks must sum to 11, got 10"}]
        }
    )
    # oneOf, not pydantic's anyOf: typescript-fetch types an anyOf of primitives as an
    # empty interface. The two are the same here, as no value is both.
    loc: list[
        Annotated[str | int, WithJsonSchema({"oneOf": [{"type": "string"}, {"type": "integer"}]})]
    ]
    message: str


Problem.model_rebuild()


def _event_example(kind: str, **fields: Any) -> ConfigDict:
    """An event's example: its kind, a version and the match (``match=None``: none)."""
    example = {"kind": kind, "version": 2, "match": _MATCH_EXAMPLE, **fields}
    return ConfigDict(
        json_schema_extra={"examples": [{k: v for k, v in example.items() if v is not None}]}
    )


class _Event(Read):
    version: int = Field(description="the match version this event brings it to (its SSE id)")


class _MatchChange(_Event):
    match: MatchRead = Field(description="the match after the change: redraw from it")


class SnapshotEvent(_MatchChange):
    """The match as it is: a stream's first event, unless it resumes."""

    model_config = _event_example("snapshot")

    kind: Literal["snapshot"]


class RoundEnteredEvent(_MatchChange):
    """A round was entered."""

    model_config = _event_example("round_entered", round=_ROUND_EXAMPLE)

    kind: Literal["round_entered"]
    round: RoundRead


class RoundCorrectedEvent(_MatchChange):
    """A round was corrected."""

    model_config = _event_example("round_corrected", round=_ROUND_EXAMPLE, later_cells=[])

    kind: Literal["round_corrected"]
    round: RoundRead
    later_cells: list[list[int]] | None = Field(
        None,
        description="the cells of every later round, in order (round number + 1 to the "
        "last), as the correction left them, where a game's cells depend on the rounds "
        "before (Asszorti: a win pays an earlier loss's debt first); null where they "
        "never do (the later rows are as they were)",
    )


class RoundRemovedEvent(_MatchChange):
    """The last round was removed."""

    model_config = _event_example("round_removed", number=2)

    kind: Literal["round_removed"]
    number: int = Field(description="the round removed")


class MatchUpdatedEvent(_MatchChange):
    """Settings or names changed."""

    model_config = _event_example("match_updated")

    kind: Literal["match_updated"]


class TokenReissuedEvent(_MatchChange):
    """A role's (or a seat's) token was replaced; a stream opened with it ends with
    ``revoked``."""

    model_config = _event_example("token_reissued", role="player", seat=1)

    kind: Literal["token_reissued"]
    role: TokenRole
    seat: int | None = Field(description="the seat, for a player's token")


class EndedEvent(_MatchChange):
    """The match ended; the stream closes."""

    model_config = _event_example("ended")

    kind: Literal["ended"]


class ResyncEvent(_Event):
    """This stream fell behind and closes: open it again."""

    model_config = _event_example("resync", match=None)

    kind: Literal["resync"]


class RevokedEvent(_Event):
    """The token this stream was opened with was replaced; the stream closes."""

    model_config = _event_example("revoked", match=None)

    kind: Literal["revoked"]


MATCH_EVENTS = (
    SnapshotEvent,
    RoundEnteredEvent,
    RoundCorrectedEvent,
    RoundRemovedEvent,
    MatchUpdatedEvent,
    TokenReissuedEvent,
    EndedEvent,
    ResyncEvent,
    RevokedEvent,
)
if TYPE_CHECKING:
    MatchEvent = _Event
else:
    # One event of a match's live stream: its SSE ``event`` is ``kind``, its SSE ``id``
    # the match version, which a client sends back as ``Last-Event-ID`` to resume.
    MatchEvent = TypeAliasType(
        "MatchEvent", Annotated[_union(MATCH_EVENTS), Field(discriminator="kind")]
    )


class StreamTicket(Read):
    """A short-lived ticket to open a match's stream once from a browser's
    ``EventSource``, which cannot send an Authorization header. Read-only: no other route
    takes it; a new stream (a reconnection too) takes a new ticket."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "ticket": "Xr2...",
                    "expires_at": "2026-12-01T20:16:00Z",
                    "url": "/v1/matches/4f1c.../events?ticket=Xr2...",
                }
            ]
        }
    )

    ticket: str
    expires_at: datetime = Field(description="open the stream before this (60 s), once")
    url: str = Field(description="the stream's URL with the ticket, for new EventSource(url)")
