"""How every write runs: one transaction, its Idempotency-Key claimed inside it,
the If-Match precondition checked under the match lock.

A write's outcome is kept as the client saw it (status, body, headers) so that
a retry with the same key can be answered with exactly the first response.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, cast

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from app.db import repository
from app.db.driver import Tx
from app.db.engine import Database
from app.errors import (
    IdempotencyKeyInFlight,
    IdempotencyKeyReused,
    MatchEnded,
    PreconditionFailed,
    ServiceError,
)
from app.schemas import MatchStatus
from app.services.auth import Principal, found
from app.services.state import MatchState, utcnow

KEY_TTL = timedelta(hours=24)
PRUNE_BATCH = 500
IN_FLIGHT = 0


@dataclass(frozen=True, slots=True)
class Once:
    """An Idempotency-Key, where it applies, and the request it was first sent with."""

    scope: str
    key: str
    fingerprint: str

    @classmethod
    def of(
        cls, key: str | None, *, scope: str, request: str, body: BaseModel | None
    ) -> Once | None:
        """The key of a request, or None when the client sent none (the body is only
        serialized for its fingerprint when there is a key)."""
        if key is None:
            return None
        data = body.model_dump(mode="json") if body is not None else None
        canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
        digest = hashlib.sha256(f"{request}\n{canonical}".encode()).hexdigest()
        return cls(scope=scope, key=key, fingerprint=digest)


@dataclass(frozen=True, slots=True)
class WriteRequest:
    """What a write carries besides its body."""

    who: Principal | None = None
    expected_versions: frozenset[int] | None = None
    once: Once | None = None


@dataclass(frozen=True, slots=True)
class Written:
    """A write's outcome as the client sees it; ``replayed`` when it came from the key store."""

    status: int
    body: dict[str, Any] | None  # what pydantic-core's to_json can write (datetimes too)
    headers: dict[str, str] = field(default_factory=dict)
    replayed: bool = False


def etag(version: int) -> str:
    """The strong ETag of a match version."""
    return f'"v{version}"'


def run_write(db: Database, request: WriteRequest, work: Callable[[Tx], Written]) -> Written:
    """Run ``work`` in one write transaction, honouring the request's Idempotency-Key.

    The first response of a request that passed validation is stored with the key:
    a success, or a state conflict (409), which is committed (with nothing else)
    and then raised. Anything else (422, 412) rolls back and stores nothing.
    """
    once = request.once
    conflict: ServiceError | None = None
    with db.write() as conn:
        if once is not None:
            prior = _claim(conn, once)
            if prior is not None:
                return prior
        try:
            written = work(conn)
        except ServiceError as error:
            if once is None or error.status != 409:
                raise
            conflict = error
            _record(conn, once, Written(status=error.status, body=error.problem()))
        else:
            if once is not None:
                _record(conn, once, written)
            return written
    raise conflict


def lock_match(conn: Tx, match_id: str) -> MatchState:
    """Load the match for a write, locking its row until the transaction ends.

    Where the database keeps decoded matches (``conn.memo``, SQLite), the row's
    version and last change are read first, and the row itself only when this
    process has not kept that pair: every change of a match row raises its
    version and sets its time, so the pair names one content of the match, and a
    kept one is never stale, whichever process wrote it (the time also tells a
    version apart from the same number written again after a restored backup).
    A kept state is shared: nothing may change it in place.
    """
    memo = conn.memo
    if memo is not None:
        version, changed = found(repository.get_match_stamp(conn, match_id), match_id)
        kept = memo.get(match_id)
        if kept is not None and kept[0] == version and kept[1].row["updated_at"] == changed:
            return cast(MatchState, kept[1])
    row = found(repository.get_match(conn, match_id, for_update=True), match_id)
    state = MatchState.load(row)
    if memo is not None:
        memo.put(match_id, (row["version"], state))
    return state


def check_writable(state: MatchState, request: WriteRequest) -> None:
    """The state checks every change passes, once its body is known valid:
    If-Match (412), then an ended match (409)."""
    version = state.row["version"]
    if request.expected_versions is not None and version not in request.expected_versions:
        raise PreconditionFailed(
            f"If-Match does not name the current ETag {etag(version)}: "
            "read the match again and retry"
        )
    if state.status is MatchStatus.ENDED:
        raise MatchEnded("the match has ended; it accepts no change")


def _claim(conn: Tx, once: Once) -> Written | None:
    now = utcnow()
    values = {
        "scope": once.scope,
        "key": once.key,
        "fingerprint": once.fingerprint,
        "status": IN_FLIGHT,
        "body": None,
        "headers": None,
        "created_at": now,
    }
    if repository.claim_idempotency_key(conn, values):
        if once.scope == "":
            repository.delete_idempotency_keys_before(conn, now - KEY_TTL, limit=PRUNE_BATCH)
        return None
    row = repository.get_idempotency_key(conn, once.scope, once.key)
    assert row is not None
    if row["fingerprint"] != once.fingerprint:
        raise IdempotencyKeyReused(
            "this Idempotency-Key was first used with a different request; use a new key"
        )
    if row["status"] == IN_FLIGHT:
        raise IdempotencyKeyInFlight("a request with this Idempotency-Key is still running")
    return Written(
        status=row["status"], body=row["body"], headers=dict(row["headers"] or {}), replayed=True
    )


def _record(conn: Tx, once: Once, written: Written) -> None:
    repository.update_idempotency_key(
        conn,
        once.scope,
        once.key,
        {
            "status": written.status,
            # As pydantic-core writes it (timestamps ending in Z), like the response.
            "body": to_jsonable_python(written.body),
            "headers": written.headers,
        },
    )
