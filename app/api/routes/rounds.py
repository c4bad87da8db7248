"""Rounds: enter, list, read, correct, remove the last, history."""

from typing import Annotated

from fastapi import APIRouter, Body, Path, Response

from app.api.deps import DbDep, PlayerDep, ReaderDep
from app.api.headers import REPLAYABLE, IdempotencyKeyDep, IfMatchDep, to_response
from app.api.problems import responses
from app.schemas import RoundBody, RoundHistory, RoundList, RoundRead
from app.services import rounds
from app.services.writes import Once, WriteRequest

router = APIRouter(prefix="/v1/matches/{match_id}/rounds", tags=["rounds"])

RoundNumber = Annotated[int, Path(ge=1, le=1_000_000, description="1 for the first round")]


@router.post(
    "",
    status_code=201,
    response_model=RoundRead,
    name="createRound",
    summary="Enter the next round",
    responses={201: {"headers": REPLAYABLE}, **responses(401, 403, 404, 409, 412, 413, 422)},
)
async def create_round(
    db: DbDep,
    who: PlayerDep,
    match_id: str,
    versions: IfMatchDep,
    key: IdempotencyKeyDep,
    body: Annotated[RoundBody, Body()],
) -> Response:
    """Score a round as the table entered it and add it to the sheet."""
    once = Once.of(key, scope=match_id, request="POST rounds", body=body.model_dump(mode="json"))
    request = WriteRequest(who=who, expected_versions=versions, once=once)
    return to_response(rounds.add_round(db, request, match_id, body))


@router.get(
    "",
    response_model=RoundList,
    name="listRounds",
    summary="All rounds, in order",
    responses=responses(401, 403, 404),
)
async def list_rounds(db: DbDep, who: ReaderDep, match_id: str) -> RoundList:
    """Every round of the match with its input and result."""
    return rounds.list_rounds(db, match_id)


@router.get(
    "/{number}",
    response_model=RoundRead,
    name="getRound",
    summary="Read one round",
    responses=responses(401, 403, 404, 422),
)
async def get_round(db: DbDep, who: ReaderDep, match_id: str, number: RoundNumber) -> RoundRead:
    """One round with its input and result."""
    return rounds.get_round(db, match_id, number)


@router.get(
    "/{number}/history",
    response_model=RoundHistory,
    name="getRoundHistory",
    summary="Every input a round has held",
    responses=responses(401, 403, 404, 422),
)
async def get_round_history(
    db: DbDep, who: ReaderDep, match_id: str, number: RoundNumber
) -> RoundHistory:
    """Each entry, correction and removal of this round number, who made it and when."""
    return rounds.round_history(db, match_id, number)


@router.put(
    "/{number}",
    response_model=RoundRead,
    name="replaceRound",
    summary="Correct a round",
    responses=responses(401, 403, 404, 409, 412, 413, 422),
)
async def replace_round(
    db: DbDep,
    who: PlayerDep,
    match_id: str,
    number: RoundNumber,
    versions: IfMatchDep,
    body: Annotated[RoundBody, Body()],
) -> Response:
    """Replace a round's input; every later row of the sheet is recomputed."""
    request = WriteRequest(who=who, expected_versions=versions)
    return to_response(rounds.replace_round(db, request, match_id, number, body))


@router.delete(
    "/{number}",
    status_code=204,
    name="deleteRound",
    summary="Remove the last round (undo)",
    responses=responses(401, 403, 404, 409, 412, 422),
)
async def delete_round(
    db: DbDep, who: PlayerDep, match_id: str, number: RoundNumber, versions: IfMatchDep
) -> Response:
    """Remove the last round; only the last round can be removed. Its history is kept."""
    request = WriteRequest(who=who, expected_versions=versions)
    return to_response(rounds.delete_round(db, request, match_id, number))
