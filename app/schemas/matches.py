"""A match: its changes, and what every client reads of it."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import ConfigDict, Field

from app.games.base import MatchStatus, StrictModel
from app.schemas.common import HOST_SEAT_DESCRIPTION, PlayerName, Read, TeamName
from app.schemas.games import GameName, GameSettings, SettingsUpdate
from app.schemas.tokens import Tokens


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


MATCH_EXAMPLE: dict[str, Any] = {
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

    model_config = ConfigDict(json_schema_extra={"examples": [MATCH_EXAMPLE]})

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


class MatchCreated(MatchRead):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    **MATCH_EXAMPLE,
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
