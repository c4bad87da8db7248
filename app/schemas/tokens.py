"""A match's tokens (issued, re-issued, recovered), and what happened to the match besides
its rounds: token changes and renames."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import ConfigDict, Field

from app.games.base import StrictModel
from app.schemas.common import Read


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
