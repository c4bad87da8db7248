"""Use cases of rounds: enter, correct, remove the last, read, history. One transaction each.

The match row holds the sheet after its last round, so entering a round reads
one row and writes two (the round, the match); a correction refolds the rounds'
points and rewrites only the corrected round. Every input a round number held is
kept: the current one in ``round``, the ones it replaced in ``round_revision``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from app.db import repository
from app.db.driver import Tx
from app.db.engine import Database
from app.errors import (
    CorrectionConflict,
    MatchDecided,
    NotLastRound,
    RoundNotFound,
)
from app.games.base import RoundInput, SheetState
from app.schemas import (
    MatchStatus,
    RoundHistory,
    RoundRevisionRead,
)
from app.services.auth import found
from app.services.scoring import score_round
from app.services.state import (
    MatchState,
    fold,
    last_row,
    round_read,
    save_match,
    state_to_json,
    status_of,
    stored_result,
    utcnow,
    winner_of,
)
from app.services.writes import WriteRequest, Written, check_writable, etag, lock_match, run_write


def _save_match(
    conn: Tx,
    state: MatchState,
    sheet: SheetState,
    round_count: int,
    now: datetime | None = None,
) -> int:
    """Store the sheet and status after a change (at ``now``, the change's own time
    when it has one); the new version."""
    version = int(state.row["version"]) + 1
    status = status_of(state.game, state.settings, sheet, round_count)
    save_match(
        conn,
        state,
        {
            "sheet": state_to_json(sheet),
            "round_count": round_count,
            "status": status.value,
            "winner": winner_of(state.game, state.settings, sheet, status),
            "version": version,
            "updated_at": now or utcnow(),
        },
        sheet=sheet,
    )
    return version


def _revision(
    conn: Tx,
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


def _entered(row: Mapping[Any, Any]) -> dict[str, Any]:
    """The "entered" revision of a round, from the round's row as first entered."""
    return {
        "match_id": row["match_id"],
        "number": row["number"],
        "action": "entered",
        "type": row["type"],
        "input": row["input"],
        "by": row["entered_by"],
        "recorded_at": row["created_at"],
    }


def _unrecorded(last_action: str | None) -> bool:
    """Whether the round that now holds its number is missing from its revisions,
    given the action of the latest: a round's first input is recorded only when a
    correction or a removal replaces it (one insert less for every round entered)."""
    return last_action is None or last_action == "removed"


def _keep_entered(conn: Tx, row: Mapping[Any, Any]) -> None:
    """Record a round's first input before it is corrected or removed, if not yet."""
    last = repository.last_revision_action(conn, row["match_id"], row["number"])
    if _unrecorded(last):
        repository.insert_revision(conn, _entered(row))


def _round_written(
    round_: dict[str, Any], version: int, status: int, location: str | None
) -> Written:
    headers = {"ETag": etag(version)}
    if location is not None:
        headers["Location"] = location
    return Written(status=status, body=round_, headers=headers)


def add_round(db: Database, request: WriteRequest, match_id: str, body: RoundInput) -> Written:
    """Enter the next round: O(1) in the match's length, from the match's snapshot."""
    assert request.who is not None

    def work(conn: Tx) -> Written:
        state = lock_match(conn, match_id)
        score = score_round(state.game, body, state.settings)
        check_writable(state, request)
        if state.status is MatchStatus.DECIDED:
            raise MatchDecided("the match is decided: end it, or correct or remove a round")
        cells, sheet = state.game.apply(state.sheet, score.points)
        number = state.round_count + 1
        now = utcnow()
        values = {
            "match_id": match_id,
            "number": number,
            "type": body.type,
            "input": body.model_dump(mode="json"),
            "dealer": state.dealer_of(number),
            "points": list(score.points),
            "result": stored_result(score),
            "entered_by": request.who.label,  # type: ignore[union-attr]
            "created_at": now,
            "updated_at": now,
        }
        repository.insert_round(conn, values)
        version = _save_match(conn, state, sheet, number, now)
        location = f"/v1/matches/{match_id}/rounds/{number}"
        return _round_written(round_read(values, cells, sheet), version, 201, location)

    return run_write(db, request, work)


def _existing(state: MatchState, number: int) -> None:
    if not 1 <= number <= state.round_count:
        raise RoundNotFound(f"the match has no round {number}")


def replace_round(
    db: Database, request: WriteRequest, match_id: str, number: int, body: RoundInput
) -> Written:
    """Correct a round; every later row of the sheet follows (RULES.md §3).

    Rounds store their own points, not the sheet, so only this round, its revision
    and the match's snapshot are written: the new sheet is one fold over the points.
    """
    assert request.who is not None

    def work(conn: Tx) -> Written:
        state = lock_match(conn, match_id)
        _existing(state, number)
        score = score_round(state.game, body, state.settings)
        check_writable(state, request)
        points = repository.list_points(conn, match_id, through=state.round_count)
        old_points = list(points)
        points[number - 1] = list(score.points)
        new = state.game.refold(points, number, state.settings)
        new_k = new.decided_at
        if new_k is not None and new_k < state.round_count:
            old_k = state.game.refold(old_points, number, state.settings).decided_at
            if old_k is None or new_k < old_k:
                raise CorrectionConflict(
                    f"with this correction the match would be decided after round {new_k}, "
                    "before rounds that were already played"
                )
        if new.decided_sheet is not None:
            decided_by = state.game.winner(new.decided_sheet, state.settings)
            if state.game.winner(new.last, state.settings) != decided_by:
                # e.g. Alkort after the target was lowered: the later rounds would take
                # the other team past the target too, and nobody could say who won.
                raise CorrectionConflict(
                    f"with this correction the result decided after round {new_k} would "
                    "change in later rounds (both teams past the target)"
                )
        row = found(repository.get_round(conn, match_id, number), match_id)
        _keep_entered(conn, row)
        changes = {
            "type": body.type,
            "input": body.model_dump(mode="json"),
            "points": list(score.points),
            "result": stored_result(score),
            "entered_by": request.who.label,  # type: ignore[union-attr]
            "updated_at": utcnow(),
        }
        repository.update_round(conn, row["id"], changes)
        _revision(conn, request, match_id, number, "corrected", body)
        version = _save_match(conn, state, new.last, state.round_count)
        cells, after = new.row
        return _round_written(round_read({**row, **changes}, cells, after), version, 200, None)

    return run_write(db, request, work)


def delete_round(db: Database, request: WriteRequest, match_id: str, number: int) -> Written:
    """Remove the last round (undo); a decided match reopens if no longer decided."""

    def work(conn: Tx) -> Written:
        state = lock_match(conn, match_id)
        _existing(state, number)
        check_writable(state, request)
        if number != state.round_count:
            raise NotLastRound(f"only the last round ({state.round_count}) can be removed")
        points = repository.list_points(conn, match_id, through=number - 1)
        _, sheet = last_row(state.game, points)
        _keep_entered(conn, found(repository.get_round(conn, match_id, number), match_id))
        repository.delete_round(conn, match_id, number)
        _revision(conn, request, match_id, number, "removed", None)
        version = _save_match(conn, state, sheet, number - 1)
        return Written(status=204, body=None, headers={"ETag": etag(version)})

    return run_write(db, request, work)


def list_rounds(db: Database, match_id: str) -> tuple[list[dict[str, Any]], int]:
    """Every round in order (RoundRead shapes), and the match version they are as of."""
    state, rows = round_rows(db, match_id)
    sheets = fold(state.game, (row["points"] for row in rows))
    items = [
        round_read(row, cells, sheet) for row, (cells, sheet) in zip(rows, sheets, strict=True)
    ]
    return items, int(state.row["version"])


def get_round(db: Database, match_id: str, number: int) -> tuple[dict[str, Any], int]:
    """One round (the RoundRead shape), and the match version it is as of."""
    with db.read(snapshot=True) as conn:
        match = found(repository.get_match(conn, match_id), match_id)
        row = repository.get_round(conn, match_id, number)
        points = repository.list_points(conn, match_id, through=number) if row else []
    if row is None:
        raise RoundNotFound(f"the match has no round {number}")
    cells, sheet = last_row(MatchState.load(match).game, points)
    return round_read(row, cells, sheet), int(match["version"])


def round_history(db: Database, match_id: str, number: int) -> tuple[RoundHistory, int]:
    """Every input round ``number`` has held, who entered it and when, oldest first;
    and the match version it is as of."""
    with db.read(snapshot=True) as conn:
        version = found(repository.get_match(conn, match_id), match_id)["version"]
        rows: list[Mapping[Any, Any]] = list(repository.list_revisions(conn, match_id, number))
        current = repository.get_round(conn, match_id, number)
    if current is not None and _unrecorded(rows[-1]["action"] if rows else None):
        rows.append(_entered(current))
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


def round_rows(db: Database, match_id: str) -> tuple[MatchState, list[dict[str, Any]]]:
    """The match and all its rounds, for the sheet."""
    with db.read(snapshot=True) as conn:
        row = found(repository.get_match(conn, match_id), match_id)
        rows = list(repository.list_rounds(conn, match_id))
    return MatchState.load(row), rows
