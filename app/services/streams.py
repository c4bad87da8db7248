"""What a live stream of a match needs from the database: where it starts (a snapshot,
or the changes a resuming client missed), and the short-lived tickets browsers use."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app.db import repository
from app.db.database import UnitOfWork
from app.errors import Forbidden, MatchNotFound, Unauthenticated
from app.games.base import MatchStatus
from app.services import ratelimit
from app.services.auth import (
    Principal,
    Role,
    credential_exists,
    hash_secret,
    is_match_id,
    or_not_found,
)
from app.services.ratelimit import RateLimit
from app.services.state import MatchState, match_json, utcnow

TICKET_TTL = timedelta(seconds=60)
REPLAY_LIMIT = 256  # at most this many missed changes are replayed; further behind: a snapshot


@dataclass(frozen=True, slots=True)
class Opening:
    """The first events of a stream, as (event, version, data), and the version sent."""

    events: list[tuple[str, int, dict[str, Any]]]
    version: int
    ended: bool


def opening(uow: UnitOfWork, who: Principal, after: int | None) -> Opening:
    """A snapshot of the match; or, for a client that has seen version ``after``, the
    changes since, once each and in order, when the log still holds them all.

    The reader's token is checked again in the same read (401 once replaced): a token
    replaced after the stream's first check, before this read, gets no state from
    after its replacement. One replaced later arrives as a ``token_reissued`` change."""
    connection, match_id = uow.connection, who.match_id
    if who.credential_id is not None and not credential_exists(uow, who.credential_id):
        raise Unauthenticated("the token has been replaced by a re-issued one")
    state = MatchState.load(or_not_found(repository.get_match(connection, match_id), match_id))
    version, ended = state.version, state.status is MatchStatus.ENDED
    if after is not None and after <= version:
        rows = repository.changes_after(connection, match_id, after, limit=REPLAY_LIMIT)
        complete = (not rows and after == version) or (
            bool(rows) and rows[0][0] == after + 1 and rows[-1][0] == version
        )
        if complete:
            events = [(str(payload["kind"]), int(number), payload) for number, payload in rows]
            return Opening(events, version, ended or (bool(events) and events[-1][0] == "ended"))
    data = {"kind": "snapshot", "version": version, "match": match_json(state)}
    return Opening([("snapshot", version, data)], version, ended)


def changes_after(uow: UnitOfWork, match_id: str, after: int) -> Any:
    return repository.changes_after(uow.connection, match_id, after, limit=REPLAY_LIMIT)


def issue_ticket(
    uow: UnitOfWork, who: Principal, *, limits: Iterable[RateLimit] = ()
) -> tuple[str, datetime]:
    """A ticket that opens this match's stream, and when it stops doing so. Read-only:
    no other route takes it. Stored as its hash, bound to the caller's credential.
    ``limits``: the rate limits it counts against."""
    assert who.credential_id is not None
    ratelimit.count(uow, limits)
    now = utcnow()
    repository.delete_expired_tickets(uow.connection, now)
    ticket = secrets.token_urlsafe(32)
    expires_at = now + TICKET_TTL
    repository.insert_ticket(
        uow.connection,
        {
            "id": hash_secret(ticket),
            "match_id": who.match_id,
            "credential_id": who.credential_id,
            "expires_at": expires_at,
        },
    )
    return ticket, expires_at


def ticket_reader(uow: UnitOfWork, match_id: str, ticket: str) -> Principal:
    """The reader a stream ticket stands for, or 401 (unknown, expired, its token
    re-issued since) / 404 (no such match)."""
    row = repository.get_ticket(uow.connection, hash_secret(ticket)) if ticket.isascii() else None
    if row is None or row["expires_at"] < utcnow():
        raise Unauthenticated("the stream ticket is not known, or has expired: ask for a new one")
    if row["match_id"] != match_id:  # a ticket is for one match (which exists)
        if not is_match_id(match_id) or repository.get_match(uow.connection, match_id) is None:
            raise MatchNotFound(f"no match {match_id!r}")
        raise Forbidden("this ticket is for another match")
    credential = repository.get_credential(uow.connection, row["credential_id"])
    if credential is None:
        raise Unauthenticated("the token this ticket was issued to has been replaced")
    return Principal(match_id, Role(credential["role"]), credential["seat"], row["credential_id"])
