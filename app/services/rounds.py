"""Use cases of rounds: enter, correct, remove the last, read. One transaction each.

The match row holds the sheet after its last round, so entering a round reads
one row and writes two; a correction refolds only the rounds from it on.
"""

from __future__ import annotations

from sqlalchemy import Connection, RowMapping

from app.db import repository
from app.db.engine import Database
from app.errors import (
    CorrectionConflict,
    FieldError,
    InvalidInput,
    MatchDecided,
    MatchEnded,
    NotLastRound,
    RoundNotFound,
)
from app.games.base import GameRuleError, RoundInput, Score, SheetState
from app.schemas import ROUND_GAME, MatchStatus, RoundList, RoundRead
from app.services.auth import Principal, found
from app.services.matches import rule_error
from app.services.state import (
    MatchState,
    round_read,
    round_result,
    state_from_json,
    state_to_json,
    status_of,
    stored_score,
    utcnow,
    winner_of,
)


def _open_for_writing(conn: Connection, who: Principal, match_id: str) -> MatchState:
    row = repository.get_match(conn, match_id, for_update=True)
    return MatchState.load(found(row, match_id))


def _check_not_ended(state: MatchState) -> None:
    if state.status is MatchStatus.ENDED:
        raise MatchEnded("the match has ended; it accepts no change")


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
    repository.update_match(
        conn,
        state.row["id"],
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


def add_round(
    db: Database, who: Principal, match_id: str, body: RoundInput
) -> tuple[RoundRead, int]:
    """Enter the next round; the round and the match's new version."""
    with db.write() as conn:
        state = _open_for_writing(conn, who, match_id)
        score = _score(state, body)
        _check_not_ended(state)
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
            "entered_by": who.label,
            "created_at": now,
            "updated_at": now,
        }
        repository.insert_round(conn, values)
        version = _save_match(conn, state, sheet, number)
    return round_read(values), version


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


def replace_round(
    db: Database, who: Principal, match_id: str, number: int, body: RoundInput
) -> tuple[RoundRead, int]:
    """Correct a round; every later row of the sheet is recomputed (RULES.md §3)."""
    with db.write() as conn:
        state = _open_for_writing(conn, who, match_id)
        if not 1 <= number <= state.round_count:
            raise RoundNotFound(f"match has no round {number}")
        score = _score(state, body)
        _check_not_ended(state)
        rows = repository.list_rounds(conn, match_id, from_number=number)
        before = _sheet_before(conn, state, number)
        old_sheets = [state_from_json(row["result"]["sheet"]) for row in rows]
        scores = [score, *(stored_score(row) for row in rows[1:])]
        new_cells, new_sheets, sheet = [], [], before
        for each in scores:
            cells, sheet = state.game.apply(sheet, each)
            new_cells.append(cells)
            new_sheets.append(sheet)
        decided_before = number > 1 and state.game.is_decided(before, state.settings, number - 1)
        if not decided_before:
            old_k = _first_decided(state, old_sheets, number)
            new_k = _first_decided(state, new_sheets, number)
            last = state.round_count
            if new_k is not None and new_k < last and (old_k is None or new_k < old_k):
                raise CorrectionConflict(
                    f"with this correction the match would be decided after round {new_k}, "
                    "before rounds that were already played"
                )
        now = utcnow()
        first = rows[0]
        repository.update_round(
            conn,
            first["id"],
            {
                "type": body.type,
                "input": body.model_dump(mode="json"),
                "points": list(score.points),
                "result": round_result(score, new_cells[0], new_sheets[0]),
                "entered_by": who.label,
                "updated_at": now,
            },
        )
        for row, each, cells, after in zip(
            rows[1:], scores[1:], new_cells[1:], new_sheets[1:], strict=True
        ):
            repository.update_round(conn, row["id"], {"result": round_result(each, cells, after)})
        version = _save_match(conn, state, sheet, state.round_count)
        updated = repository.get_round(conn, match_id, number)
    assert updated is not None
    return round_read(updated), version


def delete_round(db: Database, who: Principal, match_id: str, number: int) -> int:
    """Remove the last round (undo); a decided match reopens if no longer decided."""
    with db.write() as conn:
        state = _open_for_writing(conn, who, match_id)
        if not 1 <= number <= state.round_count:
            raise RoundNotFound(f"match has no round {number}")
        _check_not_ended(state)
        if number != state.round_count:
            raise NotLastRound(f"only the last round ({state.round_count}) can be removed")
        sheet = _sheet_before(conn, state, number)
        repository.delete_round(conn, match_id, number)
        return _save_match(conn, state, sheet, number - 1)


def list_rounds(db: Database, who: Principal, match_id: str) -> RoundList:
    with db.read() as conn:
        found(repository.get_match(conn, match_id), match_id)
        rows = repository.list_rounds(conn, match_id)
    return RoundList(items=[round_read(row) for row in rows])


def get_round(db: Database, who: Principal, match_id: str, number: int) -> RoundRead:
    with db.read() as conn:
        found(repository.get_match(conn, match_id), match_id)
        row = repository.get_round(conn, match_id, number)
    if row is None:
        raise RoundNotFound(f"match has no round {number}")
    return round_read(row)


def round_rows(db: Database, who: Principal, match_id: str) -> tuple[MatchState, list[RowMapping]]:
    """The match and all its rounds, for the sheet."""
    with db.read() as conn:
        row = found(repository.get_match(conn, match_id), match_id)
        rows = list(repository.list_rounds(conn, match_id))
    return MatchState.load(row), rows
