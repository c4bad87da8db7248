"""Idempotency keys: the first outcome of a write, kept with its key for replays.

A key is claimed in the same transaction as the write it guards, so a key and its
effect commit or vanish together. What is kept is opaque here: the API layer
stores the response it gave (status, body, headers) and replays it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from app.db import repository
from app.db.database import UnitOfWork
from app.errors import IdempotencyKeyInFlight, IdempotencyKeyReused
from app.services.state import utcnow

KEY_TTL = timedelta(hours=24)
PRUNE_BATCH = 500
IN_FLIGHT = 0


@dataclass(frozen=True, slots=True)
class IdempotencyClaim:
    """An Idempotency-Key, where it applies, and the request it was first sent with."""

    scope: str
    key: str
    fingerprint: str

    @classmethod
    def of(cls, key: str, *, scope: str, request: str, body: Any) -> IdempotencyClaim:
        """``body`` is the request's body as JSON data (None for none)."""
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
        digest = hashlib.sha256(f"{request}\n{canonical}".encode()).hexdigest()
        return cls(scope=scope, key=key, fingerprint=digest)


@dataclass(frozen=True, slots=True)
class KeptResponse:
    """The outcome kept with a key."""

    status: int
    body: Any
    headers: dict[str, str]


def claim(uow: UnitOfWork, key_claim: IdempotencyClaim) -> KeptResponse | None:
    """Claim the key for this request: None when it is new (the write goes ahead), the
    kept outcome when it was used before with the same request."""
    now = utcnow()
    values = {
        "scope": key_claim.scope,
        "key": key_claim.key,
        "fingerprint": key_claim.fingerprint,
        "status": IN_FLIGHT,
        "body": None,
        "headers": None,
        "created_at": now,
    }
    if repository.claim_idempotency_key(uow.connection, values):
        if key_claim.scope == "":
            repository.delete_idempotency_keys_before(
                uow.connection, now - KEY_TTL, limit=PRUNE_BATCH
            )
        return None
    row = repository.get_idempotency_key(uow.connection, key_claim.scope, key_claim.key)
    assert row is not None
    if row["fingerprint"] != key_claim.fingerprint:
        raise IdempotencyKeyReused(
            "this Idempotency-Key was first used with a different request; use a new key"
        )
    if row["status"] == IN_FLIGHT:
        raise IdempotencyKeyInFlight("a request with this Idempotency-Key is still running")
    return KeptResponse(status=row["status"], body=row["body"], headers=dict(row["headers"] or {}))


def keep(uow: UnitOfWork, key_claim: IdempotencyClaim, outcome: KeptResponse) -> None:
    """Keep the outcome of the write the key was claimed for."""
    values = {"status": outcome.status, "body": outcome.body, "headers": outcome.headers}
    repository.update_idempotency_key(uow.connection, key_claim.scope, key_claim.key, values)
