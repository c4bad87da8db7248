"""Use cases of tokens: the host re-issues a lost one; the host recovers its own with
the recovery code; the match's history of both. One transaction each.

A re-issued token replaces the one before it at once: the old credential row is
deleted, and every request reads its credential afresh, on every worker. A recovery
gives a new recovery code, which retires the one it was made with: a leaked code
takes over a match once, not for good. The host re-issuing its own token gets a new
code too, for the same reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from app.db import repository
from app.db.database import UnitOfWork
from app.errors import FieldError, InvalidInput, MatchNotFound, Unauthenticated
from app.services import changes, ratelimit
from app.services.auth import (
    Role,
    is_match_id,
    new_credential,
    new_recovery_code,
    recovery_matches,
)
from app.services.ratelimit import RateLimit
from app.services.state import MatchState, utcnow
from app.services.writes import WriteRequest, lock_match


@dataclass(frozen=True, slots=True)
class Issued:
    """A token just issued, for one role (and seat)."""

    role: Role
    seat: int | None
    token: str
    recovery: str | None = None  # the host's new recovery code, with a new host token


def _replace(
    uow: UnitOfWork,
    state: MatchState,
    role: Role,
    seat: int | None,
    by: str,
    action: str,
    *,
    new_recovery: bool = False,
) -> Issued:
    """Replace the tokens of ``role`` (and ``seat``) with a new one. The match's version
    rises (its credentials changed), so live streams see the change in order."""
    connection = uow.connection
    match_id = state.row["id"]
    now = utcnow()
    repository.delete_credentials_of(connection, match_id, role.value, seat)
    token, row = new_credential(match_id, role, seat)
    repository.insert_credentials(connection, [row])
    repository.insert_history_entry(
        connection,
        {
            "match_id": match_id,
            "action": action,
            "detail": {"role": role.value, "seat": seat},
            "by": by,
            "recorded_at": now,
        },
    )
    changed: dict[str, Any] = {"version": state.version + 1, "updated_at": now}
    recovery = None
    if new_recovery:
        recovery, changed["recovery_hash"] = new_recovery_code()
    changes.save(uow, state, changed, "token_reissued", role=role.value, seat=seat)
    return Issued(role, seat, token, recovery)


def reissue(
    uow: UnitOfWork,
    request: WriteRequest,
    role: Role,
    seat: int | None,
    *,
    limits: Iterable[RateLimit] = (),
) -> Issued:
    """Issue a new token for ``role`` (and ``seat``); the one it replaces stops working.
    A new host token comes with a new recovery code. ``limits``: the rate limits it
    counts against."""
    state, who = request.state(), request.who
    seats = state.game.seat_count
    if role is Role.PLAYER and (seat is None or seat >= seats):
        message = f"a player's token needs its seat, 0 to {seats - 1}"
        raise InvalidInput(message, errors=[FieldError(("body", "seat"), message)])
    if role is not Role.PLAYER and seat is not None:
        message = f"a {role.value} token has no seat"
        raise InvalidInput(message, errors=[FieldError(("body", "seat"), message)])
    ratelimit.count(uow, limits)
    host = role is Role.HOST
    return _replace(uow, state, role, seat, who.label, "token_reissued", new_recovery=host)


def count_recovery(uow: UnitOfWork, match_id: str, limits: Iterable[RateLimit]) -> None:
    """Count a recovery attempt against ``limits``, in a unit of its own: a wrong code,
    whose own unit rolls back, counts too."""
    if is_match_id(match_id):  # else recover_host answers 404
        ratelimit.count(uow, limits)


def recover_host(uow: UnitOfWork, match_id: str, recovery_code: str) -> Issued:
    """A new host token, and a new recovery code, for the holder of the recovery code,
    which no longer works after this. (A retry after a lost answer replays it, by its
    Idempotency-Key.)"""
    if not is_match_id(match_id):  # answered without asking the database
        raise MatchNotFound(f"no match {match_id!r}")
    state = lock_match(uow, match_id)
    if not recovery_matches(recovery_code, state.row["recovery_hash"]):
        raise Unauthenticated("the recovery code is not known for this match")
    return _replace(
        uow, state, Role.HOST, None, "recovery", "host_token_recovered", new_recovery=True
    )


def history(
    uow: UnitOfWork, match_id: str, *, after: int, limit: int
) -> tuple[list[dict[str, Any]], int]:
    """Up to ``limit`` of the match's token changes and renames, oldest first, numbered after
    ``after`` (the MatchEventRead shape); and how many there are."""
    connection = uow.connection
    rows = repository.list_history(connection, match_id, after=after, limit=limit)
    history = [
        {
            "event": event,
            "action": row["action"],
            "role": (row["detail"] or {}).get("role"),
            "seat": (row["detail"] or {}).get("seat"),
            "by": row["by"],
            "recorded_at": row["recorded_at"],
            "old_name": (row["detail"] or {}).get("old_name"),
            "new_name": (row["detail"] or {}).get("new_name"),
        }
        for event, row in enumerate(rows, start=after + 1)
    ]
    return history, repository.count_history(connection, match_id)
