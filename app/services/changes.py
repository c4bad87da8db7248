"""The match's change log: each change of a match, under the version it made, with
the event a live stream sends for it. Written in the change's own transaction.

Kinds: ``round_entered``, ``round_corrected``, ``round_removed``, ``match_updated``
(settings or names), ``ended``, ``token_reissued``. Each event carries the match as
it now is (status, totals, owed, standings, winner), and the round when there is
one, so a client redraws without a second request.
"""

from __future__ import annotations

from typing import Any

from app.db import repository
from app.db.database import UnitOfWork
from app.schemas import MatchRead
from app.services.state import MatchState, match_read, utcnow

CHANNEL = "squarescores_changes"  # PostgreSQL's NOTIFY channel
KEEP = 256  # changes kept per match: a stream further behind gets a snapshot
PRUNE_EVERY = 32  # versions between prunings of a match's log


def record(uow: UnitOfWork, after: MatchState, kind: str, **extra: Any) -> MatchRead:
    """Log a change of the match ``after`` shows (its version is the change's); the
    match as clients read it, which the event carries."""
    match = match_read(after)
    version = match.version
    payload = {"kind": kind, "version": version, "match": match.model_dump(mode="json"), **extra}
    connection = uow.connection
    change = {
        "match_id": match.id,
        "version": version,
        "kind": kind,
        "payload": payload,
        "created_at": utcnow(),
    }
    if connection.dialect.name == "postgresql":
        # Every process's live streams are told by NOTIFY, sent at commit (app.live).
        repository.insert_change_notifying(connection, change, channel=CHANNEL)
    else:
        # This process's hub is told after the commit; other processes poll (app.live).
        repository.insert_change(connection, change)
    if version % PRUNE_EVERY == 0:
        repository.prune_changes(connection, match.id, before=version - KEEP)
    uow.changed.add(match.id)
    return match
