"""A match's change log stays bounded however long the match: every ``PRUNE_EVERY``
versions the changes older than the newest ``KEEP`` go (a stream resumes from the
newest few; further behind, it gets a snapshot)."""

from __future__ import annotations

import pytest

from app.db import repository
from app.services import changes
from tests.api.helpers import Table, amounts

KEEP = 8
PRUNE_EVERY = 4


def test_a_long_match_keeps_only_its_newest_changes(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small bounds, so that a few rounds go past them several times.
    monkeypatch.setattr(changes, "KEEP", KEEP)
    monkeypatch.setattr(changes, "PRUNE_EVERY", PRUNE_EVERY)
    for _ in range(5 * PRUNE_EVERY + 1):
        table.round(amounts(2, -1, -1))
    version = table.match()["version"]
    db = table.client.app.state.db  # type: ignore[attr-defined]
    rows = db.run_now(lambda uow: repository.changes_after(uow.connection, table.id, 0, limit=1000))
    kept = [number for number, _ in rows]
    assert len(kept) <= KEEP + PRUNE_EVERY, kept
    # The newest are all there, in order, up to the match's version.
    assert kept == list(range(version - len(kept) + 1, version + 1))
    assert len(kept) >= KEEP
