"""Use cases of rounds: enter, correct, remove the last, read, history. One transaction each.

The match row holds the sheet after its last round, so entering a round reads
one row and writes two (the round, the match); a correction refolds the rounds'
points and rewrites only the corrected round. Every input a round number held is
kept: the current one in ``round``, the ones it replaced in ``round_revision``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic_core import to_jsonable_python
from sqlalchemy import RowMapping

from app.db import repository
from app.db.database import UnitOfWork
from app.errors import (
    CorrectionConflict,
    MatchDecided,
    MatchFull,
    NotLastRound,
    RoundNotFound,
)
from app.games import Game
from app.games.base import MatchStatus, RoundInput, SheetState
from app.games.decided import CorrectionRefused, check_correction
from app.services import changes
from app.services.answers import round_read
from app.services.auth import Caller, or_not_found
from app.services.match_state import (
    MatchState,
    fold,
    state_from_json,
    state_to_json,
    stored_result,
    utcnow,
)
from app.services.scoring import score_round
from app.services.write_checks import check_writable

# Every this many rounds, a round keeps the fold's state after it (``round.sheet``):
# a page, a round or an undo folds at most this many rounds' points to start from.
CHECKPOINT_EVERY = 100


@dataclass(frozen=True, slots=True)
class RoundWritten:
    """A round as it now reads (``round_read``), and the match version the change made."""

    round: dict[str, Any]
    version: int


@dataclass(frozen=True, slots=True)
class RoundPage:
    """Rounds in order, the match version they are as of, and the last number of the
    match (a page ends the list when its last round is that one)."""

    items: list[dict[str, Any]]
    version: int
    round_count: int


def _revision(
    by: str, match_id: str, number: int, action: str, body: RoundInput | None
) -> dict[str, Any]:
    """The revision that records a correction (its new input) or a removal."""
    return {
        "match_id": match_id,
        "number": number,
        "action": action,
        "type": body.type if body is not None else None,
        "input": body.model_dump(mode="json") if body is not None else None,
        "by": by,
        "recorded_at": utcnow(),
    }


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


def _keep_entered(uow: UnitOfWork, row: Mapping[Any, Any]) -> None:
    """Record a round's first input before it is corrected or removed, if not yet
    (``row``: the round with its ``last_action``, ``get_round_with_last_action``)."""
    if _unrecorded(row["last_action"]):
        repository.insert_revision(uow.connection, _entered(row))


def add_round(
    caller: Caller,
    body: RoundInput,
    *,
    expected: frozenset[int] | None = None,
    max_rounds: int,
) -> RoundWritten:
    """Enter the next round: O(1) in the match's length, from the match's stored sheet.
    ``expected``: the versions If-Match names (None: any)."""
    uow, who, state = caller.uow, caller.who, MatchState.load(caller.match)
    match_id = state.row["id"]
    score = score_round(state.game, body, state.settings)
    check_writable(state, expected)
    if state.status is MatchStatus.DECIDED:
        raise MatchDecided("the match is decided: end it, or correct or remove a round")
    if state.round_count >= max_rounds:
        raise MatchFull(f"a match holds at most {max_rounds} rounds: end it and start another")
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
        "entered_by": who.label,
        "created_at": now,
        "updated_at": now,
        "sheet": state_to_json(sheet) if number % CHECKPOINT_EVERY == 0 else None,
    }
    written = round_read(state.game.name, values, cells, sheet)
    entered = to_jsonable_python(written)
    rounds = repository.RoundWrite(entered=values)

    def points() -> list[list[int]]:
        earlier = repository.list_points(uow.connection, match_id, through=number - 1)
        return [*earlier, list(score.points)]

    changed = {"round_count": number, "version": state.version + 1, "updated_at": now}
    saved = changes.save(
        uow,
        state,
        changed,
        "round_entered",
        sheet=sheet,
        points=points,
        rounds=rounds,
        round=entered,
    )
    return RoundWritten(written, saved.version)


def _existing(state: MatchState, number: int) -> None:
    if not 1 <= number <= state.round_count:
        raise RoundNotFound(f"the match has no round {number}")


def replace_round(
    caller: Caller, number: int, body: RoundInput, *, expected: frozenset[int] | None = None
) -> RoundWritten:
    """Correct a round; every later row of the sheet follows.

    Rounds store their own points, not the sheet, so only this round, its revision
    and the match's stored sheet are written: the new sheet is one fold over the points.
    """
    uow, who, state = caller.uow, caller.who, MatchState.load(caller.match)
    connection, match_id = uow.connection, state.row["id"]
    _existing(state, number)
    score = score_round(state.game, body, state.settings)
    check_writable(state, expected)
    points = repository.list_points(connection, match_id, through=state.round_count)
    old_points = list(points)
    points[number - 1] = list(score.points)
    new = state.game.refold(points, number, state.settings)
    try:
        check_correction(state.game, state.settings, old_points=old_points, number=number, new=new)
    except CorrectionRefused as refused:
        raise CorrectionConflict(str(refused)) from None
    row = or_not_found(
        repository.get_round_with_last_action(connection, match_id, number), match_id
    )
    _keep_entered(uow, row)
    # The states kept from this round on no longer hold; reads fold from the one before.
    first_kept = math.ceil(number / CHECKPOINT_EVERY) * CHECKPOINT_EVERY
    if first_kept <= state.round_count:
        repository.forget_sheets_from(connection, match_id, number)
    updates = {
        "type": body.type,
        "input": body.model_dump(mode="json"),
        "points": list(score.points),
        "result": stored_result(score),
        "entered_by": who.label,
        "updated_at": utcnow(),
    }
    rounds = repository.RoundWrite(
        corrected=(row["id"], updates),
        revision=_revision(who.label, match_id, number, "corrected", body),
    )
    cells, sheet_after = new.row
    written = round_read(state.game.name, {**row, **updates}, cells, sheet_after)
    corrected = to_jsonable_python(written)
    # Where a row's cells depend on the rounds before it, the event carries the later
    # rows' cells too, so that a phone redraws the sheet from the event alone.
    later_cells = (
        [list(later) for later, _ in fold(state.game, points[number:], sheet_after)]
        if state.game.cells_carry
        else None
    )
    changed = {
        "round_count": state.round_count,
        "version": state.version + 1,
        "updated_at": utcnow(),
    }
    saved = changes.save(
        uow,
        state,
        changed,
        "round_corrected",
        sheet=new.last,
        points=lambda: points,
        rounds=rounds,
        round=corrected,
        later_cells=later_cells,
    )
    return RoundWritten(written, saved.version)


def delete_round(caller: Caller, number: int, *, expected: frozenset[int] | None = None) -> int:
    """Remove the last round (undo); a decided match reopens if no longer decided.
    The match version the removal made."""
    uow, who, state = caller.uow, caller.who, MatchState.load(caller.match)
    connection, match_id = uow.connection, state.row["id"]
    _existing(state, number)
    check_writable(state, expected)
    if number != state.round_count:
        raise NotLastRound(f"only the last round ({state.round_count}) can be removed")
    sheet = _sheet_after(uow, state.game, match_id, number - 1)
    row = or_not_found(
        repository.get_round_with_last_action(connection, match_id, number), match_id
    )
    _keep_entered(uow, row)
    rounds = repository.RoundWrite(
        removed=number, revision=_revision(who.label, match_id, number, "removed", None)
    )
    changed = {"round_count": number - 1, "version": state.version + 1, "updated_at": utcnow()}
    return changes.save(
        uow,
        state,
        changed,
        "round_removed",
        sheet=sheet,
        points=lambda: repository.list_points(connection, match_id, through=number - 1),
        rounds=rounds,
        number=number,
    ).version


def _sheet_after(uow: UnitOfWork, game: Game, match_id: str, number: int) -> SheetState:
    """The sheet after round ``number`` (0: the empty sheet), folded from the latest
    state kept at or before it: at most ``CHECKPOINT_EVERY`` rounds' points."""
    connection = uow.connection
    after, sheet = 0, game.initial_state()
    if number >= CHECKPOINT_EVERY:  # (before that no round keeps one)
        kept = repository.last_kept_sheet(connection, match_id, through=number)
        if kept is not None:
            after, sheet = kept[0], state_from_json(kept[1])
    if number > after:
        for points in repository.points_between(connection, match_id, after=after, through=number):
            _, sheet = game.apply(sheet, points)
    return sheet


def list_rounds(uow: UnitOfWork, match: RowMapping, *, after: int, limit: int) -> RoundPage:
    """Up to ``limit`` rounds numbered after ``after``, in order, each with its row of
    the sheet. The sheet after round ``after`` is folded from the points before it."""
    connection = uow.connection
    match_id = match["id"]
    state = MatchState.load(match)
    rows = repository.page_of_rounds(connection, match_id, after=after, limit=limit)
    start = _sheet_after(uow, state.game, match_id, after) if rows else None
    sheets = fold(state.game, (row["points"] for row in rows), start)
    items = [
        round_read(state.game.name, row, cells, sheet)
        for row, (cells, sheet) in zip(rows, sheets, strict=True)
    ]
    return RoundPage(items=items, version=int(match["version"]), round_count=state.round_count)


def get_round(uow: UnitOfWork, match: RowMapping, number: int) -> tuple[dict[str, Any], int]:
    """One round, and the match version it is as of."""
    connection = uow.connection
    match_id = match["id"]
    row = repository.get_round(connection, match_id, number)
    if row is None:
        raise RoundNotFound(f"the match has no round {number}")
    game = MatchState.load(match).game
    before = _sheet_after(uow, game, match_id, number - 1)
    cells, sheet = game.apply(before, row["points"])
    return round_read(game.name, row, cells, sheet), int(match["version"])


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """Inputs of a round in order (the RoundRevisionRead shape), the match version they
    are as of, and how many the round has held (a page ends the history when its last
    revision is that one)."""

    items: list[dict[str, Any]]
    version: int
    revision_count: int


def round_history(
    uow: UnitOfWork, match: RowMapping, number: int, *, after: int, limit: int
) -> HistoryPage:
    """Up to ``limit`` of the inputs round ``number`` has held, who entered each and
    when, oldest first, numbered after revision ``after``."""
    connection = uow.connection
    match_id, version = match["id"], match["version"]
    recorded = repository.count_revisions(connection, match_id, number)
    current = repository.get_round_with_last_action(connection, match_id, number)
    # The input a round holds now is recorded only once it is replaced (_keep_entered):
    # until then it is the last revision, read from the round itself.
    unrecorded = current if current is not None and _unrecorded(current["last_action"]) else None
    count = recorded + (unrecorded is not None)
    if count == 0:
        raise RoundNotFound(f"the match has no round {number}, and never had")
    rows: list[Mapping[Any, Any]] = []
    if after < recorded:
        rows.extend(
            repository.list_revisions(connection, match_id, number, after=after, limit=limit)
        )
    if unrecorded is not None and after + len(rows) == recorded and len(rows) < limit:
        rows.append(_entered(unrecorded))
    items = [
        {
            "revision": index,
            "action": row["action"],
            "type": row["type"],
            "input": row["input"],
            "by": row["by"],
            "recorded_at": row["recorded_at"],
        }
        for index, row in enumerate(rows, start=after + 1)
    ]
    return HistoryPage(items=items, version=version, revision_count=count)
