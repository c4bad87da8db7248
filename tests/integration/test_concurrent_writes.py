"""Several writers at once: no "database is locked", no lost or duplicate round numbers."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy import text

from app.db import repository
from app.db.database import Database, UnitOfWork
from app.errors import ServiceError, Unauthenticated
from app.games.asszorti import AsszortiAmounts
from app.schemas import MATCH_CREATE_MODELS
from app.services import matches, rounds
from app.services.auth import Access, Caller, Permission, match_for_caller
from app.settings import Settings

WRITERS = 6
ROUNDS_EACH = 10
BODY = {"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]}
HAND = AsszortiAmounts(type="asszorti_amounts", amounts=[2, -1, -1])


def _new_match(db: Database) -> tuple[str, Access]:
    body = MATCH_CREATE_MODELS["asszorti"].model_validate(BODY)
    created = db.run_now(lambda uow: matches.create_match(uow, body), write=True)
    host = Access.of(created.tokens["host"], created.match.row["id"], Permission.PLAY)
    return created.match.row["id"], host


def _add_round(uow: UnitOfWork, access: Access) -> Any:
    """A round entered as the API enters it: the caller checked as the match is locked."""
    match, who = match_for_caller(uow, access, for_update=True)
    return rounds.add_round(Caller(uow, who, match), HAND, max_rounds=5000)


def test_concurrent_writers_number_rounds_without_gaps(database_url: str) -> None:
    """Each writer has its own engine (as separate workers do) and its own event loop;
    on SQLite they meet the write lock and wait, in their worker threads, until it is
    free."""
    settings = Settings(database_url=database_url, sqlite_busy_timeout_ms=10_000)
    setup = Database(settings)
    match_id, host = _new_match(setup)

    async def enter_rounds(db: Database) -> list[int]:
        numbers = []
        for _ in range(ROUNDS_EACH):
            written = await db.run(lambda uow: _add_round(uow, host), write=True)
            numbers.append(written.round["number"])
        return numbers

    def writer(_: int) -> list[int]:
        db = Database(settings)
        try:
            return asyncio.run(enter_rounds(db))
        finally:
            db.dispose()

    with ThreadPoolExecutor(WRITERS) as pool:
        numbers = [n for batch in pool.map(writer, range(WRITERS)) for n in batch]

    total = WRITERS * ROUNDS_EACH
    assert sorted(numbers) == list(range(1, total + 1))
    match = setup.run_now(lambda uow: repository.get_match(uow.connection, match_id))
    assert match is not None
    assert match["round_count"] == total
    assert match["version"] == total + 1
    assert match["sheet"]["net"] == [2 * total, -total, -total]
    setup.dispose()


def test_a_read_unit_of_work_sees_one_state(database_url: str) -> None:
    """The match and its rounds, read in one unit of work, agree even if a write lands
    between the two reads."""
    settings = Settings(database_url=database_url)
    db, writer = Database(settings), Database(settings)
    match_id, host = _new_match(db)
    with db.unit_of_work(snapshot=True) as uow:
        match = repository.get_match(uow.connection, match_id)
        asyncio.run(  # another connection commits a round meanwhile
            writer.run(lambda w: _add_round(w, host), write=True)
        )
        seen = repository.page_of_rounds(uow.connection, match_id, after=0, limit=100)
    assert match is not None
    assert len(seen) == match["round_count"] == 0
    after = writer.run_now(lambda uow: repository.get_match(uow.connection, match_id))
    assert after is not None and after["round_count"] == 1
    db.dispose()
    writer.dispose()


def test_a_write_waiting_for_the_match_sees_its_token_revoked_meanwhile(
    postgres_url: str,
) -> None:
    """PostgreSQL: a write that waits for the match's lock while the host re-issues the
    writer's token (the old credential deleted) is refused once it gets the lock: 401,
    not a write with a token that no longer exists."""
    db = Database(Settings(database_url=postgres_url))
    body = MATCH_CREATE_MODELS["asszorti"].model_validate(BODY)
    created = db.run_now(lambda uow: matches.create_match(uow, body), write=True)
    match_id, seat_1 = created.match.row["id"], created.tokens["players"][1]
    player = Access.of(seat_1, match_id, Permission.PLAY)
    outcome: list[object] = []

    def write() -> None:
        try:
            outcome.append(
                db.run_now(
                    lambda uow: match_for_caller(uow, player, for_update=True)[1], write=True
                )
            )
        except ServiceError as error:
            outcome.append(error)

    try:
        with db.engine.connect() as host:  # the re-issue, holding the match's lock
            host.execute(text('SELECT id FROM "match" WHERE id = :id FOR UPDATE'), {"id": match_id})
            host.execute(
                text("DELETE FROM credential WHERE id = :id"), {"id": seat_1.split(".")[0]}
            )
            writer = threading.Thread(target=write)
            writer.start()
            time.sleep(0.3)
            assert not outcome  # the write waits for the match's lock
            host.commit()
        writer.join(5)
    finally:
        db.dispose()
    assert len(outcome) == 1 and isinstance(outcome[0], Unauthenticated), outcome
