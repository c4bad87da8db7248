"""Use cases of rounds: enter, correct, remove the last, read, history. One transaction each.

The match row holds the sheet after its last round, so entering a round reads
one row and writes two; a correction refolds only the rounds from it on. Every
input a round number held is kept in ``round_revision``.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, RowMapping

from app.db import repository
from app.db.engine import Database
from app.errors import (
    CorrectionConflict,
    FieldError,
    InvalidInput,
    MatchDecided,
    NotLastRound,
    RoundNotFound,
)
from app.games.base import GameRuleError, RoundInput, Score, SheetState
from app.schemas import (
    ROUND_GAME,
    MatchStatus,
    RoundHistory,
    RoundList,
    RoundRead,
    RoundRevisionRead,
)
from app.services.auth import found
from app.services.matches import rule_error
from app.services.state import (
    MatchState,
    round_read,
    round_result,
    save_match,
    state_from_json,
    state_to_json,
    status_of,
    stored_score,
    utcnow,
    winner_of,
)
from app.services.writes import WriteRequest, Written, check_writable, etag, lock_match, run_write


def _score(state: MatchState, body: RoundInput) -> Score:
    if ROUND_GAME[body.type] != state.game.name:
        message = f"{body.type} is not a round type of {state.game.title}"
        raise InvalidInput(message, errors=[FieldError(("body", "type"), message)])
    try:
        return state.game.score(body, state.settings)
    except GameRuleError as error:
        raise rule_error(error) from None


def _save_match(conn: Connection, state: MatchState, sheet: SheetState, round_count: int) -> int:
    """Store the sheet and status after a change; the new version."""
    version = int(state.row["version"]) + 1
    status = status_of(state.game, state.settings, sheet, round_count)
    save_match(
        conn,
        state.row,
        {
            "sheet": state_to_json(sheet),
            "round_count": round_count,
            "status": status.value,
            "winner": winner_of(state.game, state.settings, sheet, status),
            "version": version,
            "updated_at": utcnow(),
        },
    )
    return version


def _revision(
    conn: Connection,
    request: WriteRequest,
    match_id: str,
    number: int,
    action: str,
    body: RoundInput | None,
) -> None:
    assert request.who is not None
    repository.insert_revision(
        conn,
        {
            "match_id": match_id,
            "number": number,
            "action": action,
            "type": body.type if body is not None else None,
            "input": body.model_dump(mode="json") if body is not None else None,
            "by": request.who.label,
            "recorded_at": utcnow(),
        },
    )


def _round_written(round_: RoundRead, version: int, status: int, location: str | None) -> Written:
    headers = {"ETag": etag(version)}
    if location is not None:
        headers["Location"] = location
    return Written(status=status, body=round_.model_dump(mode="json"), headers=headers)


def add_round(db: Database, request: WriteRequest, match_id: str, body: RoundInput) -> Written:
    """Enter the next round."""
    assert request.who is not None

    def work(conn: Connection) -> Written:
        state = lock_match(conn, match_id)
        score = _score(state, body)
        check_writable(state, request)
        if state.status is MatchStatus.DECIDED:
            raise MatchDecided("the match is decided: end it, or correct or remove a round")
        cells, sheet = state.game.apply(state.sheet, score)
        number = state.round_count + 1
        now = utcnow()
        values = {
            "match_id": match_id,
            "number": number,
            "type": body.type,
            "input": body.model_dump(mode="json"),
            "dealer": state.dealer_of(number),
            "points": list(score.points),
            "result": round_result(score, cells, sheet),
            "entered_by": request.who.label,  # type: ignore[union-attr]
            "created_at": now,
            "updated_at": now,
        }
        repository.insert_round(conn, values)
        _revision(conn, request, match_id, number, "entered", body)
        version = _save_match(conn, state, sheet, number)
        location = f"/v1/matches/{match_id}/rounds/{number}"
        return _round_written(round_read(values), version, 201, location)

    return run_write(db, request, work)


def _sheet_before(conn: Connection, state: MatchState, number: int) -> SheetState:
    if number == 1:
        return state.game.initial_state()
    previous = repository.get_round(conn, state.row["id"], number - 1)
    assert previous is not None
    return state_from_json(previous["result"]["sheet"])


def _first_decided(state: MatchState, sheets: list[SheetState], first_number: int) -> int | None:
    for offset, sheet in enumerate(sheets):
        if state.game.is_decided(sheet, state.settings, first_number + offset):
            return first_number + offset
    return None


def _existing(state: MatchState, number: int) -> None:
    if not 1 <= number <= state.round_count:
        raise RoundNotFound(f"the match has no round {number}")


def replace_round(
    db: Database, request: WriteRequest, match_id: str, number: int, body: RoundInput
) -> Written:
    """Correct a round; every later row of the sheet is recomputed (RULES.md §3)."""
    assert request.who is not None

    def work(conn: Connection) -> Written:
        state = lock_match(conn, match_id)
        _existing(state, number)
        score = _score(state, body)
        check_writable(state, request)
        rows = repository.list_rounds(conn, match_id, from_number=number)
        before = _sheet_before(conn, state, number)
        scores = [score, *(stored_score(row) for row in rows[1:])]
        new_cells, new_sheets, sheet = [], [], before
        for each in scores:
            cells, sheet = state.game.apply(sheet, each)
            new_cells.append(cells)
            new_sheets.append(sheet)
        _check_decided_round_stays(state, rows, before, new_sheets, number)
        now = utcnow()
        repository.update_round(
            conn,
            rows[0]["id"],
            {
                "type": body.type,
                "input": body.model_dump(mode="json"),
                "points": list(score.points),
                "result": round_result(score, new_cells[0], new_sheets[0]),
                "entered_by": request.who.label,  # type: ignore[union-attr]
                "updated_at": now,
            },
        )
        later = zip(rows[1:], scores[1:], new_cells[1:], new_sheets[1:], strict=True)
        for row, each, cells, after in later:
            repository.update_round(conn, row["id"], {"result": round_result(each, cells, after)})
        _revision(conn, request, match_id, number, "corrected", body)
        version = _save_match(conn, state, sheet, state.round_count)
        updated = found(repository.get_round(conn, match_id, number), match_id)
        return _round_written(round_read(updated), version, 200, None)

    return run_write(db, request, work)


def _check_decided_round_stays(
    state: MatchState,
    rows: Sequence[RowMapping],
    before: SheetState,
    new_sheets: list[SheetState],
    number: int,
) -> None:
    """RULES.md §3: a correction may not move the deciding round k earlier, nor create
    a k before the last round; it may leave k where it was."""
    if number > 1 and state.game.is_decided(before, state.settings, number - 1):
        return  # k lies before the corrected round, so the correction cannot move it
    old_sheets = [state_from_json(row["result"]["sheet"]) for row in rows]
    old_k = _first_decided(state, old_sheets, number)
    new_k = _first_decided(state, new_sheets, number)
    if new_k is not None and new_k < state.round_count and (old_k is None or new_k < old_k):
        raise CorrectionConflict(
            f"with this correction the match would be decided after round {new_k}, "
            "before rounds that were already played"
        )


def delete_round(db: Database, request: WriteRequest, match_id: str, number: int) -> Written:
    """Remove the last round (undo); a decided match reopens if no longer decided."""

    def work(conn: Connection) -> Written:
        state = lock_match(conn, match_id)
        _existing(state, number)
        check_writable(state, request)
        if number != state.round_count:
            raise NotLastRound(f"only the last round ({state.round_count}) can be removed")
        sheet = _sheet_before(conn, state, number)
        repository.delete_round(conn, match_id, number)
        _revision(conn, request, match_id, number, "removed", None)
        version = _save_match(conn, state, sheet, number - 1)
        return Written(status=204, body=None, headers={"ETag": etag(version)})

    return run_write(db, request, work)


def list_rounds(db: Database, match_id: str) -> tuple[RoundList, int]:
    """Every round in order, and the match version they are as of."""
    with db.read(snapshot=True) as conn:
        version = found(repository.get_match(conn, match_id), match_id)["version"]
        rows = repository.list_rounds(conn, match_id)
    return RoundList(items=[round_read(row) for row in rows]), version


def get_round(db: Database, match_id: str, number: int) -> tuple[RoundRead, int]:
    """One round, and the match version it is as of."""
    with db.read(snapshot=True) as conn:
        version = found(repository.get_match(conn, match_id), match_id)["version"]
        row = repository.get_round(conn, match_id, number)
    if row is None:
        raise RoundNotFound(f"the match has no round {number}")
    return round_read(row), version


def round_history(db: Database, match_id: str, number: int) -> tuple[RoundHistory, int]:
    """Every input round ``number`` has held, who entered it and when, oldest first;
    and the match version it is as of."""
    with db.read(snapshot=True) as conn:
        version = found(repository.get_match(conn, match_id), match_id)["version"]
        rows = repository.list_revisions(conn, match_id, number)
    if not rows:
        raise RoundNotFound(f"the match has no round {number}, and never had")
    history = RoundHistory(
        number=number,
        items=[
            RoundRevisionRead(
                revision=index,
                action=row["action"],
                type=row["type"],
                input=row["input"],
                by=row["by"],
                recorded_at=row["recorded_at"],
            )
            for index, row in enumerate(rows, start=1)
        ],
    )
    return history, version


def round_rows(db: Database, match_id: str) -> tuple[MatchState, list[RowMapping]]:
    """The match and all its rounds, for the sheet."""
    with db.read(snapshot=True) as conn:
        row = found(repository.get_match(conn, match_id), match_id)
        rows = list(repository.list_rounds(conn, match_id))
    return MatchState.load(row), rows
