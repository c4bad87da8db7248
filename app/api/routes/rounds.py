"""Rounds: enter, list, read, correct, remove the last."""

from typing import Annotated

from fastapi import APIRouter, Body, Path, Response

from app.api.deps import DbDep, PlayerDep, ReaderDep
from app.api.etag import set_etag
from app.api.problems import responses
from app.schemas import RoundBody, RoundList, RoundRead
from app.services import rounds

router = APIRouter(prefix="/v1/matches/{match_id}/rounds", tags=["rounds"])

RoundNumber = Annotated[int, Path(ge=1, le=1_000_000, description="1 for the first round")]


@router.post(
    "",
    status_code=201,
    response_model=RoundRead,
    name="createRound",
    summary="Enter the next round",
    responses=responses(401, 403, 404, 409, 413, 422),
)
async def create_round(
    db: DbDep,
    who: PlayerDep,
    match_id: str,
    body: Annotated[RoundBody, Body()],
    response: Response,
) -> RoundRead:
    """Score a round as the table entered it and add it to the sheet."""
    created, version = rounds.add_round(db, who, match_id, body)
    response.headers["Location"] = f"/v1/matches/{match_id}/rounds/{created.number}"
    set_etag(response, version)
    return created


@router.get(
    "",
    response_model=RoundList,
    name="listRounds",
    summary="All rounds, in order",
    responses=responses(401, 403, 404),
)
async def list_rounds(db: DbDep, who: ReaderDep, match_id: str) -> RoundList:
    """Every round of the match with its input and result."""
    return rounds.list_rounds(db, who, match_id)


@router.get(
    "/{number}",
    response_model=RoundRead,
    name="getRound",
    summary="Read one round",
    responses=responses(401, 403, 404, 422),
)
async def get_round(db: DbDep, who: ReaderDep, match_id: str, number: RoundNumber) -> RoundRead:
    """One round with its input and result."""
    return rounds.get_round(db, who, match_id, number)


@router.put(
    "/{number}",
    response_model=RoundRead,
    name="replaceRound",
    summary="Correct a round",
    responses=responses(401, 403, 404, 409, 413, 422),
)
async def replace_round(
    db: DbDep,
    who: PlayerDep,
    match_id: str,
    number: RoundNumber,
    body: Annotated[RoundBody, Body()],
    response: Response,
) -> RoundRead:
    """Replace a round's input; every later row of the sheet is recomputed."""
    replaced, version = rounds.replace_round(db, who, match_id, number, body)
    set_etag(response, version)
    return replaced


@router.delete(
    "/{number}",
    status_code=204,
    name="deleteRound",
    summary="Remove the last round (undo)",
    responses=responses(401, 403, 404, 409, 422),
)
async def delete_round(db: DbDep, who: PlayerDep, match_id: str, number: RoundNumber) -> Response:
    """Remove the last round; only the last round can be removed."""
    version = rounds.delete_round(db, who, match_id, number)
    response = Response(status_code=204)
    set_etag(response, version)
    return response
