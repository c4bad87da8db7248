"""The decoded matches a process keeps between writes (``lock_match`` on SQLite).

A kept match must always be the match as the database holds it at that version,
whichever process wrote it, and nothing a write did is kept unless it committed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.db import repository
from app.db.engine import Database
from app.main import create_app
from app.services import state as state_module
from app.services.state import MatchState
from app.settings import Settings
from tests.api.helpers import PLAYERS, Table, hand

FOUR = ["Anna", "Béla", "Csaba", "Dóra"]


@pytest.fixture
def apps(sqlite_url: str) -> Iterator[tuple[TestClient, TestClient]]:
    """Two apps on one SQLite file, as two worker processes would be."""
    settings = Settings(database_url=sqlite_url, rate_limit_matches_per_minute=0)
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
        yield one, two


def _kept(client: TestClient, match_id: str) -> MatchState | None:
    kept = client.app.state.db._match_states.get(match_id)  # type: ignore[attr-defined]
    if kept is None:
        return None
    version, state = kept
    assert version == state.row["version"]
    return state  # type: ignore[no-any-return]


def _stored(client: TestClient, match_id: str) -> MatchState:
    db: Database = client.app.state.db  # type: ignore[attr-defined]
    with db.read() as conn:
        row = repository.get_match(conn, match_id)
    assert row is not None
    return MatchState.load(row)


def _same(kept: MatchState | None, stored: MatchState) -> None:
    assert kept is not None
    assert dict(kept.row) == dict(stored.row)
    assert kept.sheet == stored.sheet
    assert kept.settings == stored.settings
    assert kept.game is stored.game


@pytest.mark.parametrize(
    ("body", "rounds", "patch"),
    [
        (
            {"game": "asszorti", "players": PLAYERS},
            [hand(0, [7, 2, 2]), {"type": "asszorti_amounts", "amounts": [-4, 2, 2]}],
            {"settings": {"planned_deals": 9}, "players": ["Ági", "Bori", "Cili"]},
        ),
        (
            {"game": "alkort", "players": FOUR, "team_names": ["Us", "Them"]},
            [
                {"type": "alkort_tricks", "tricks": [0] * 5 + [1] * 4},
                {"type": "alkort_points", "team": 1, "points": 6},
            ],
            {"settings": {"target": 30}, "team_names": ["We", "They"]},
        ),
    ],
)
def test_what_a_process_keeps_is_the_match_as_stored(
    apps: tuple[TestClient, TestClient], body: dict[str, Any], rounds: list[Any], patch: Any
) -> None:
    one, _ = apps
    table = Table(one, body)
    assert _kept(one, table.id) is None  # a new match is kept by its first write
    for each in rounds:
        table.round(each)
        _same(_kept(one, table.id), _stored(one, table.id))
    steps = [
        lambda: table.put("/rounds/1", rounds[1]),
        lambda: table.delete("/rounds/2"),
        lambda: table.patch(patch),
        lambda: table.post("/end", who=1),
    ]
    for step in steps:
        response = step()
        assert response.status_code in (200, 204), response.text
        _same(_kept(one, table.id), _stored(one, table.id))


def test_writes_alternating_between_two_processes_see_each_other(
    apps: tuple[TestClient, TestClient],
) -> None:
    one, two = apps
    table = Table(one, {"game": "asszorti", "players": PLAYERS})
    other = Table.__new__(Table)
    other.__dict__.update(table.__dict__, client=two)
    amounts = [[2, -1, -1], [-1, 2, -1], [4, -2, -2], [-6, 3, 3], [1, 1, -2], [0, 3, -3]]
    for k, each in enumerate(amounts):
        writer = table if k % 2 == 0 else other
        entered = writer.round({"type": "asszorti_amounts", "amounts": each})
        assert entered["number"] == k + 1
    # A correction through the second process, then a round through the first: the
    # first must build on the corrected match, not on the one it kept.
    corrected = other.put("/rounds/1", {"type": "asszorti_amounts", "amounts": [-2, 1, 1]})
    assert corrected.status_code == 200, corrected.text
    last = table.round({"type": "asszorti_amounts", "amounts": [3, -3, 0]})
    assert last["number"] == len(amounts) + 1
    _same(_kept(one, table.id), _stored(one, table.id))
    # The second process still keeps the version it wrote (8): an older one, which its
    # next write must not build on.
    kept = _kept(two, table.id)
    assert kept is not None and kept.row["version"] == 8
    again = other.round({"type": "asszorti_amounts", "amounts": [-1, 0, 1]})
    assert again["number"] == len(amounts) + 2
    final = [[-2, 1, 1], *amounts[1:], [3, -3, 0], [-1, 0, 1]]
    expected = [sum(column) for column in zip(*final, strict=True)]
    for client in (one, two):
        match = Table.__new__(Table)
        match.__dict__.update(table.__dict__, client=client)
        read = match.match()
        assert read["round_count"] == len(final)
        assert read["version"] == 1 + len(final) + 1  # created, the rounds, the correction
    _same(_kept(two, table.id), _stored(two, table.id))
    sheet = table.get("/sheet").json()
    assert sheet["net"] == expected  # what each seat won and lost, all rounds together


def test_a_write_after_the_first_decodes_no_row(
    apps: tuple[TestClient, TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    one, _ = apps
    table = Table(one, {"game": "asszorti", "players": PLAYERS})
    loads: list[Any] = []
    original = MatchState.load.__func__  # type: ignore[attr-defined]

    def counting(cls: type[MatchState], row: Any) -> MatchState:
        loads.append(row["id"])
        return original(cls, row)  # type: ignore[no-any-return]

    monkeypatch.setattr(state_module.MatchState, "load", classmethod(counting))
    for each in ([2, -1, -1], [-1, 2, -1], [4, -2, -2]):
        table.round({"type": "asszorti_amounts", "amounts": each})
    assert loads == [table.id]  # the first write reads the row; the next ones, nothing
    one.app.state.db._match_states.put(table.id, (0, None))  # type: ignore[attr-defined]
    table.round({"type": "asszorti_amounts", "amounts": [1, 1, -2]})
    assert loads == [table.id, table.id]  # a version it did not keep: the row is read


def test_only_a_committed_unit_of_work_runs_its_on_commit(sqlite_url: str) -> None:
    db = Database(Settings(database_url=sqlite_url))
    ran: list[str] = []
    try:
        with pytest.raises(RuntimeError), db.write() as conn:
            conn.on_commit.append(lambda: ran.append("rolled back"))
            raise RuntimeError("the unit of work fails")
        with db.write() as conn:
            assert conn.on_commit == []
            conn.on_commit.append(lambda: ran.append("committed"))
        with db.write() as conn:
            assert conn.on_commit == []
    finally:
        db.dispose()
    assert ran == ["committed"]


def test_postgresql_keeps_no_decoded_matches(postgres_url: str) -> None:
    db = Database(Settings(database_url=postgres_url))
    try:
        with db.write() as conn:
            assert conn.memo is None
    finally:
        db.dispose()


def test_a_version_written_again_after_a_restore_is_not_taken_for_the_kept_one(
    apps: tuple[TestClient, TestClient], sqlite_url: str
) -> None:
    """A backup restored under running workers brings back an older version number; the
    next write then produces that number again with other content. The kept state of
    the first content must not be taken for it."""
    one, two = apps
    table = Table(one, {"game": "asszorti", "players": PLAYERS})
    other = Table.__new__(Table)
    other.__dict__.update(table.__dict__, client=two)
    path = sqlite_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as backup:
        saved = backup.execute('SELECT * FROM "match" WHERE id = ?', (table.id,)).fetchone()
        names = [d[0] for d in backup.execute('SELECT * FROM "match" LIMIT 0').description]
    table.round({"type": "asszorti_amounts", "amounts": [4, -2, -2]})  # one keeps version 2
    with sqlite3.connect(path) as restore:  # "restore the backup": version 1 again
        restore.execute('DELETE FROM "round" WHERE match_id = ?', (table.id,))
        sets = ", ".join(f'"{name}" = ?' for name in names)
        restore.execute(f'UPDATE "match" SET {sets} WHERE id = ?', (*saved, table.id))
    other.round({"type": "asszorti_amounts", "amounts": [-2, 1, 1]})  # version 2 again
    table.round({"type": "asszorti_amounts", "amounts": [1, 1, -2]})
    sheet = table.get("/sheet").json()
    assert [row["net"] for row in sheet["rows"]] == [[-2, 1, 1], [1, 1, -2]]
    assert sheet["net"] == [-1, 2, -1]
    _same(_kept(one, table.id), _stored(one, table.id))
