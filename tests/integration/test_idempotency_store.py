"""Idempotency keys are kept for at least a day and forgotten after, with no daemon."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from app.db import repository
from app.db.database import Database
from app.db.models import IDEMPOTENCY_KEY
from app.services import idempotency
from app.services.idempotency import KEY_TTL, IdempotencyClaim, key_digest
from app.services.match_state import utcnow
from app.settings import Settings


def _key(db: Database, key: str, age: timedelta) -> None:
    with db.unit_of_work(write=True) as uow:
        repository.claim_idempotency_key(
            uow.connection,
            {
                "scope": "m" * 32,
                "key": key,
                "fingerprint": "f" * 64,
                "status": 201,
                "sealed": b"",
                "created_at": utcnow() - age,
            },
        )


def test_creating_a_match_forgets_keys_older_than_a_day(database_url: str) -> None:
    db = Database(Settings(database_url=database_url))
    _key(db, "old-key", KEY_TTL + timedelta(minutes=1))
    _key(db, "recent-key", KEY_TTL - timedelta(minutes=1))
    body = {"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]}
    once = IdempotencyClaim.of("prune-trigger", scope="", request="POST /v1/matches", body=body)
    # A key claimed for a new match prunes the old ones in the same transaction.
    assert db.run_now(lambda uow: idempotency.claim(uow, once), write=True) is None
    with db.engine.connect() as conn:
        kept = set(conn.execute(select(IDEMPOTENCY_KEY.c.key)).scalars())
    assert "old-key" not in kept
    assert {"recent-key", key_digest("prune-trigger")} <= kept
    db.dispose()
