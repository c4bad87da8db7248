"""Use cases of tokens: the host re-issues a lost one; the host recovers its own with
the recovery code; the match's history of both. One transaction each.

A re-issued token replaces the one before it at once: the old credential row is
deleted, and every request reads its credential afresh, on every worker. A recovery
gives a new recovery code, which retires the one it was made with: a leaked code
takes over a match once, not for good. The host re-issuing its own token gets a new
code too, for the same reason. The code is also kept sealed for the host token it came
with (app/services/recovery.py), so the host can see it again (``recovery_code``).

A phone of an ended match takes its own seat in the match's rematch with the token it
holds (``take_rematch_seat``): the same role and seat, never more. The token must still
work (one the host re-issued meanwhile is unknown, so gets nothing), and the seat's
tokens in the rematch must not have been replaced since it began (a host who re-issued
them there has decided who holds them). Each token of the old match holds at most one
token of the rematch: taking the seat again replaces the one taken before.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidTag

from app.db import repository
from app.db.database import UnitOfWork
from app.errors import (
    FieldError,
    Forbidden,
    InvalidInput,
    MatchNotFound,
    RecoveryNotKept,
    RematchNotStarted,
    Unauthenticated,
)
from app.services import changes, ratelimit
from app.services.auth import (
    CLUSTER,
    Caller,
    Principal,
    Role,
    is_match_id,
    new_credential,
    new_recovery_code,
    recovery_matches,
)
from app.services.match_state import MatchState, utcnow
from app.services.ratelimit import RateLimit
from app.services.recovery import open_sealed, sealed_for
from app.services.write_checks import lock_match


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
    recovery = None
    changed: dict[str, Any] = {"version": state.version + 1, "updated_at": now}
    if new_recovery:
        recovery, changed["recovery_hash"] = new_recovery_code()
        row["recovery_sealed"] = sealed_for(token, recovery)  # the host sees it again
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
    changes.save(uow, state, changed, "token_reissued", role=role.value, seat=seat)
    return Issued(role, seat, token, recovery)


def reissue(
    caller: Caller,
    role: Role,
    seat: int | None,
    *,
    limits: Iterable[RateLimit] = (),
) -> Issued:
    """Issue a new token for ``role`` (and ``seat``); the one it replaces stops working.
    A new host token comes with a new recovery code. ``limits``: the rate limits it
    counts against."""
    uow, who, state = caller.uow, caller.who, MatchState.load(caller.match)
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


def recovery_code(uow: UnitOfWork, who: Principal, secret: str) -> str:
    """The match's current recovery code, for the host token ``who`` stands for (its
    ``secret`` opens the code sealed for it); RecoveryNotKept when it holds none."""
    assert who.credential_id is not None
    row = repository.get_credential(uow.connection, who.credential_id)
    if row is None or row["recovery_sealed"] is None:
        raise RecoveryNotKept(
            "this host token holds no recovery code (a match made before codes were kept, "
            "or a host token taken in a rematch): re-issue the host token for a new one"
        )
    try:
        return open_sealed(secret, who.credential_id, row["recovery_sealed"])
    except InvalidTag:  # sealed under another key (a row restored or moved): not readable
        raise RecoveryNotKept(
            "this host token cannot open the recovery code kept for it: "
            "re-issue the host token for a new one"
        ) from None


@dataclass(frozen=True, slots=True)
class RematchToken:
    """A token of the rematch, taken with a token of the match before it."""

    match_id: str
    issued: Issued


# Changes of a match's history that replace the tokens of a role (and seat).
_REPLACING = frozenset({"token_reissued", "host_token_recovered"})


def take_rematch_seat(uow: UnitOfWork, who: Principal, match: Any) -> RematchToken:
    """A token of the rematch of ``match`` for the role and seat of ``who``, the caller
    (checked with their token, which still works). Refused while there is no rematch
    (409), and once the rematch's tokens of that role and seat were replaced (403)."""
    rematch_id = match["rematch_id"]
    if rematch_id is None:
        raise RematchNotStarted("the match has no rematch yet: the host starts it once it ended")
    connection = uow.connection
    # Locked: a re-issue of the seat in the rematch comes wholly before or after this.
    repository.get_match(connection, rematch_id, for_update=True)
    if _replaced_in(uow, rematch_id, who):
        raise Forbidden(
            "the host has replaced this seat's tokens in the rematch: ask the host for its link"
        )
    assert who.credential_id is not None
    # The same token of the old match always names the same credential of the rematch,
    # so taking the seat again replaces it: one token of the rematch per token of before.
    digest = hashlib.sha256(f"{rematch_id}:{who.credential_id}".encode()).digest()
    credential_id = rematch_id[:CLUSTER] + base64.urlsafe_b64encode(digest).decode()[:12]
    repository.delete_credential(connection, credential_id)
    token, row = new_credential(rematch_id, who.role, who.seat)
    secret = token.split(".", 1)[1]
    row["id"] = credential_id
    repository.insert_credentials(connection, [row])
    return RematchToken(rematch_id, Issued(who.role, who.seat, f"{credential_id}.{secret}"))


def _replaced_in(uow: UnitOfWork, match_id: str, who: Principal) -> bool:
    """Whether the tokens of ``who``'s role (and seat) at ``match_id`` were replaced."""
    return repository.tokens_replaced(
        uow.connection, match_id, actions=_REPLACING, role=who.role.value, seat=who.seat
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
