"""Several writers at once: no "database is locked", no lost or duplicate round numbers."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from app.db.engine import Database
from app.games.asszorti import AsszortiAmounts
from app.schemas import MATCH_CREATE_MODELS
from app.services import matches, rounds
from app.services.auth import Principal, Role
from app.services.writes import WriteRequest
from app.settings import Settings

WRITERS = 6
ROUNDS_EACH = 10


def test_concurrent_writers_number_rounds_without_gaps(database_url: str) -> None:
    settings = Settings(database_url=database_url, sqlite_busy_timeout_ms=10_000)
    setup = Database(settings)
    body = MATCH_CREATE_MODELS["asszorti"].model_validate(
        {"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]}
    )
    created = matches.create_match(setup, WriteRequest(), body)
    assert created.body is not None
    match_id = created.body["id"]
    host = WriteRequest(who=Principal(match_id=match_id, role=Role.HOST, seat=None))
    hand = AsszortiAmounts(type="asszorti_amounts", amounts=[2, -1, -1])

    def writer(_: int) -> list[int]:
        db = Database(settings)  # an engine per writer: separate connections, as separate workers
        try:
            return [
                rounds.add_round(db, host, match_id, hand).body["number"]  # type: ignore[index]
                for _ in range(ROUNDS_EACH)
            ]
        finally:
            db.dispose()

    with ThreadPoolExecutor(WRITERS) as pool:
        numbers = [n for batch in pool.map(writer, range(WRITERS)) for n in batch]

    total = WRITERS * ROUNDS_EACH
    assert sorted(numbers) == list(range(1, total + 1))
    match = matches.get_match(setup, match_id)
    assert match.round_count == total
    assert match.version == total + 1
    assert match.net == [2 * total, -total, -total]
    setup.dispose()


def test_a_snapshot_read_sees_one_state(database_url: str) -> None:
    """The match and its rounds, read in one snapshot, agree even if a write lands between."""
    from app.db import repository

    settings = Settings(database_url=database_url)
    db, writer = Database(settings), Database(settings)
    body = MATCH_CREATE_MODELS["asszorti"].model_validate(
        {"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]}
    )
    created = matches.create_match(db, WriteRequest(), body)
    assert created.body is not None
    match_id = created.body["id"]
    host = WriteRequest(who=Principal(match_id=match_id, role=Role.HOST, seat=None))
    hand = AsszortiAmounts(type="asszorti_amounts", amounts=[2, -1, -1])
    with db.read(snapshot=True) as conn:
        match = repository.get_match(conn, match_id)
        rounds.add_round(writer, host, match_id, hand)  # another connection commits
        seen = repository.list_rounds(conn, match_id)
    assert match is not None
    assert len(seen) == match["round_count"] == 0
    db.dispose()
    writer.dispose()
