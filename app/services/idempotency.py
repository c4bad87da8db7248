"""Idempotency keys: the first outcome of a write, kept with its key for replays.

A key is claimed in the same transaction as the write it guards, so a key and its
effect commit or vanish together. What is kept is opaque here: the API layer
stores the response it gave (status, body, headers) and replays it.

Nothing kept can be read without the key itself. The row is found by the key's
SHA-256, and the outcome is sealed (AES-GCM) with a key derived from the
Idempotency-Key (HKDF-SHA256): a create's answer holds every token of the match and
its recovery code, and the table alone gives none of them away.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import orjson

from app.db import repository
from app.db.database import UnitOfWork
from app.errors import IdempotencyKeyInFlight, IdempotencyKeyReused
from app.services import sealing
from app.services.match_state import utcnow

KEY_TTL = timedelta(hours=24)
PRUNE_BATCH = 500
IN_FLIGHT = 0
SEAL_INFO = b"squarescores idempotent replay v1"  # HKDF's info: what the derived key is for


@dataclass(frozen=True, slots=True)
class IdempotencyClaim:
    """An Idempotency-Key, where it applies, and the request it was first sent with."""

    scope: str
    key: str = field(repr=False)  # never stored, logged or shown in a traceback's locals
    fingerprint: str

    @classmethod
    def of(cls, key: str, *, scope: str, request: str, body: Any) -> IdempotencyClaim:
        """``body`` is the request's body as JSON data (None for none)."""
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
        digest = hashlib.sha256(f"{request}\n{canonical}".encode()).hexdigest()
        return cls(scope=scope, key=key, fingerprint=digest)

    @property
    def digest(self) -> str:
        """What the row is found by: the key's SHA-256."""
        return key_digest(self.key)

    def seal(self, status: int, outcome: dict[str, Any]) -> bytes:
        """``outcome``, encrypted with a key only this Idempotency-Key gives."""
        return sealing.seal(
            self.key, info=SEAL_INFO, data=orjson.dumps(outcome), bound_to=self._bound_to(status)
        )

    def open(self, status: int, sealed: bytes) -> dict[str, Any]:
        opened: dict[str, Any] = orjson.loads(
            sealing.open_sealed(
                self.key, info=SEAL_INFO, sealed=sealed, bound_to=self._bound_to(status)
            )
        )
        return opened

    def _bound_to(self, status: int) -> bytes:
        # The sealed outcome opens only in its own row, with its own status.
        return f"{self.scope}\n{self.fingerprint}\n{status}".encode()


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


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
        "key": key_claim.digest,
        "fingerprint": key_claim.fingerprint,
        "status": IN_FLIGHT,
        "sealed": None,
        "created_at": now,
    }
    if repository.claim_idempotency_key(uow.connection, values):
        if key_claim.scope == "":
            repository.delete_idempotency_keys_before(
                uow.connection, now - KEY_TTL, limit=PRUNE_BATCH
            )
        return None
    row = repository.get_idempotency_key(uow.connection, key_claim.scope, key_claim.digest)
    assert row is not None
    if row["fingerprint"] != key_claim.fingerprint:
        raise IdempotencyKeyReused(
            "this Idempotency-Key was first used with a different request; use a new key"
        )
    if row["status"] == IN_FLIGHT:
        raise IdempotencyKeyInFlight("a request with this Idempotency-Key is still running")
    outcome = key_claim.open(row["status"], row["sealed"])
    return KeptResponse(status=row["status"], body=outcome["body"], headers=outcome["headers"])


def keep(uow: UnitOfWork, key_claim: IdempotencyClaim, outcome: KeptResponse) -> None:
    """Keep the outcome of the write the key was claimed for, sealed."""
    sealed = key_claim.seal(outcome.status, {"body": outcome.body, "headers": outcome.headers})
    values = {"status": outcome.status, "sealed": sealed}
    repository.update_idempotency_key(uow.connection, key_claim.scope, key_claim.digest, values)
