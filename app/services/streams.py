"""What a live stream of a match needs from the database: where it starts (a snapshot,
or the changes a resuming client missed), and the short-lived tickets browsers use."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app.db import repository
from app.db.database import UnitOfWork
from app.errors import Forbidden, MatchNotFound, Unauthenticated
from app.games.base import MatchStatus
from app.services import ratelimit
from app.services.answers import match_json
from app.services.auth import (
    Access,
    Principal,
    Role,
    hash_secret,
    is_match_id,
    match_for_caller,
    or_not_found,
)
from app.services.match_state import MatchState, utcnow
from app.services.ratelimit import RateLimit

TICKET_TTL = timedelta(seconds=60)
# At most this many missed changes are replayed; further behind, a snapshot, read without
# the log. A replay is read and encoded per stream (a snapshot is one row), so a long one
# costs an opening many times a snapshot's: a flood of far-behind resumes would hold the
# openings' turns. A few dozen covers a phone that slept through a busy evening's minutes
# (as many as a subscription holds, ``app.live.QUEUE_SIZE``); the page reads a snapshot
# newer than what it holds as it reads the match again.
REPLAY_LIMIT = 32


@dataclass(frozen=True, slots=True)
class Opening:
    """Who follows the match, the first events of their stream as (version, data),
    and the version those bring them to."""

    who: Principal
    events: list[tuple[int, dict[str, Any]]]
    version: int
    ended: bool


def opening(
    uow: UnitOfWork, match_id: str, access: Access | None, ticket: Ticket | None, after: int | None
) -> Opening:
    """Who the token (``access``), else the stream ticket taken (``take_ticket``; None for
    one unknown, expired or used), stands for (401, 404, 403 as for
    any request), and in the same read a snapshot of the match; or, for a client that
    has seen version ``after``, the changes since, once each and in order, when the log
    still holds them all (none to read when ``after`` is the match's version).

    A token replaced before this read is refused; one replaced later reaches the stream
    as the ``token_reissued`` change that replaced it (``revokes``)."""
    if access is not None:
        row, who = match_for_caller(uow, access)
    else:
        who = ticket_reader(uow, match_id, ticket)
        row = or_not_found(repository.get_match(uow.connection, match_id), match_id)
    state = MatchState.load(row)
    version, ended = state.version, state.status is MatchStatus.ENDED
    if after == version:
        return Opening(who, [], version, ended)
    if after is not None and version - REPLAY_LIMIT <= after < version:
        rows = repository.changes_after(uow.connection, who.match_id, after, limit=REPLAY_LIMIT)
        # Outside a snapshot the log may already hold changes past ``version``: those
        # reach the stream from the hub, after its opening.
        rows = [row for row in rows if row[0] <= version]
        if rows and rows[0][0] == after + 1 and rows[-1][0] == version:
            events = [(int(number), payload) for number, payload in rows]
            return Opening(who, events, version, ended or events[-1][1]["kind"] == "ended")
    data = {"kind": "snapshot", "version": version, "match": match_json(state)}
    return Opening(who, [(version, data)], version, ended)


def revokes(change: Mapping[str, Any], who: Principal) -> bool:
    """Whether a change replaced the token ``who`` follows with: a ``token_reissued``
    of its role (and seat), which replaced every token of them."""
    return (
        change["kind"] == "token_reissued"
        and change.get("role") == who.role.value
        and change.get("seat") == who.seat
    )


def changes_after(uow: UnitOfWork, match_id: str, after: int) -> list[tuple[int, Any]]:
    """The match's changes after version ``after``: what a stream missed between its
    opening read and following the match."""
    rows = repository.changes_after(uow.connection, match_id, after, limit=REPLAY_LIMIT)
    return [(int(version), payload) for version, payload in rows]


def issue_ticket(
    uow: UnitOfWork, who: Principal, *, limits: Iterable[RateLimit] = ()
) -> tuple[str, datetime]:
    """A ticket that opens this match's stream once, and when it stops doing so.
    Read-only: no other route takes it. Stored as its hash, bound to the caller's
    credential; deleted when it is used (``take_ticket``), or expired, by a later issue.
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


@dataclass(frozen=True, slots=True)
class Ticket:
    """A stream ticket taken: the match it opens, and the credential it was issued to."""

    match_id: str
    credential_id: str


def take_ticket(uow: UnitOfWork, ticket: str) -> Ticket | None:
    """The stream ticket, once: taking it deletes it, so that it opens one stream, on
    whichever worker (its URL may be kept in a log on the way). None for a ticket
    unknown, expired, or taken already. A write of its own, before the opening's read."""
    row = repository.take_ticket(uow.connection, hash_secret(ticket)) if ticket.isascii() else None
    if row is None or row["expires_at"] < utcnow():
        return None
    return Ticket(row["match_id"], row["credential_id"])


def ticket_reader(uow: UnitOfWork, match_id: str, ticket: Ticket | None) -> Principal:
    """The reader a stream ticket taken stands for, or 401 (none: unknown, expired or
    used; its token re-issued since) / 404 (no such match)."""
    if ticket is None:
        raise Unauthenticated(
            "the stream ticket is not known, has expired or has been used: ask for a new one"
        )
    if ticket.match_id != match_id:  # a ticket is for one match (which exists)
        if not is_match_id(match_id) or repository.get_match(uow.connection, match_id) is None:
            raise MatchNotFound(f"no match {match_id!r}")
        raise Forbidden("this ticket is for another match")
    credential = repository.get_credential(uow.connection, ticket.credential_id)
    if credential is None:
        raise Unauthenticated("the token this ticket was issued to has been replaced")
    return Principal(match_id, Role(credential["role"]), credential["seat"], ticket.credential_id)
