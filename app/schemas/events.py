"""A match's live stream: its events, and the ticket a browser opens it with."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import ConfigDict, Field
from typing_extensions import TypeAliasType

from app.schemas.common import Read, union_of
from app.schemas.matches import MATCH_EXAMPLE, MatchRead
from app.schemas.rounds import ROUND_EXAMPLE, RoundRead
from app.schemas.tokens import TokenRole


def _event_example(kind: str, **fields: Any) -> ConfigDict:
    """An event's example: its kind, a version and the match (``match=None``: none)."""
    example = {"kind": kind, "version": 2, "match": MATCH_EXAMPLE, **fields}
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

    model_config = _event_example("round_entered", round=ROUND_EXAMPLE)

    kind: Literal["round_entered"]
    round: RoundRead


class RoundCorrectedEvent(_MatchChange):
    """A round was corrected."""

    model_config = _event_example("round_corrected", round=ROUND_EXAMPLE, later_cells=[])

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
        "MatchEvent", Annotated[union_of(MATCH_EVENTS), Field(discriminator="kind")]
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
