"""Rounds: enter, list, read, correct, remove the last, history."""

from typing import Annotated, TypeVar

from fastapi import APIRouter, Body, Path, Response

from app.api.deps import PlayerDep, ReaderDep
from app.api.etag import (
    ETAG_HEADER,
    NOT_MODIFIED,
    IfNoneMatchHeader,
    json_response,
    set_etag,
    unchanged,
)
from app.api.headers import (
    CREATED,
    IdempotencyKeyHeader,
    IfMatchHeader,
    idempotency_key,
    if_match,
    to_response,
)
from app.api.problems import responses
from app.api.routing import LeanRoute
from app.schemas import RoundBody, RoundHistory, RoundList, RoundRead
from app.services import rounds
from app.services.writes import Once, WriteRequest

router = APIRouter(prefix="/v1/matches/{match_id}/rounds", tags=["rounds"], route_class=LeanRoute)

T = TypeVar("T")
RoundNumber = Annotated[int, Path(ge=1, le=1_000_000, description="1 for the first round")]


@router.post(
    "",
    status_code=201,
    response_model=RoundRead,
    name="createRound",
    summary="Enter the next round",
    responses={201: {"headers": CREATED}, **responses(401, 403, 404, 409, 412, 413, 422)},
)
async def create_round(
    caller: PlayerDep,
    match_id: str,
    body: Annotated[RoundBody, Body()],
    versions: IfMatchHeader = None,
    key: IdempotencyKeyHeader = None,
) -> Response:
    """Score a round as the table entered it and add it to the sheet."""
    once = Once.of(
        idempotency_key(key),
        scope=match_id,
        request="POST rounds",
        body=body,
    )
    request = WriteRequest(who=caller.who, expected_versions=if_match(versions), once=once)
    return to_response(rounds.add_round(caller.db, request, match_id, body))


@router.get(
    "",
    response_model=RoundList,
    name="listRounds",
    summary="All rounds, in order",
    responses={200: {"headers": ETAG_HEADER}, **NOT_MODIFIED, **responses(401, 403, 404)},
)
async def list_rounds(
    caller: ReaderDep, match_id: str, response: Response, if_none_match: IfNoneMatchHeader = None
) -> RoundList | Response:
    """Every round of the match with its input and result."""
    items, version = rounds.list_rounds(caller.db, match_id)
    return unchanged(if_none_match, version) or json_response({"items": items}, version)


@router.get(
    "/{number}",
    response_model=RoundRead,
    name="getRound",
    summary="Read one round",
    responses={200: {"headers": ETAG_HEADER}, **NOT_MODIFIED, **responses(401, 403, 404, 422)},
)
async def get_round(
    caller: ReaderDep,
    match_id: str,
    number: RoundNumber,
    response: Response,
    if_none_match: IfNoneMatchHeader = None,
) -> RoundRead | Response:
    """One round with its input and result."""
    found, version = rounds.get_round(caller.db, match_id, number)
    return unchanged(if_none_match, version) or json_response(found, version)


@router.get(
    "/{number}/history",
    response_model=RoundHistory,
    name="getRoundHistory",
    summary="Every input a round has held",
    responses={200: {"headers": ETAG_HEADER}, **NOT_MODIFIED, **responses(401, 403, 404, 422)},
)
async def get_round_history(
    caller: ReaderDep,
    match_id: str,
    number: RoundNumber,
    response: Response,
    if_none_match: IfNoneMatchHeader = None,
) -> RoundHistory | Response:
    """Each entry, correction and removal of this round number, who made it and when."""
    history, version = rounds.round_history(caller.db, match_id, number)
    return unchanged(if_none_match, version) or _tagged(response, history, version)


@router.put(
    "/{number}",
    response_model=RoundRead,
    name="replaceRound",
    summary="Correct a round",
    responses={200: {"headers": ETAG_HEADER}, **responses(401, 403, 404, 409, 412, 413, 422)},
)
async def replace_round(
    caller: PlayerDep,
    match_id: str,
    number: RoundNumber,
    body: Annotated[RoundBody, Body()],
    versions: IfMatchHeader = None,
) -> Response:
    """Replace a round's input; every later row of the sheet is recomputed."""
    request = WriteRequest(who=caller.who, expected_versions=if_match(versions))
    return to_response(rounds.replace_round(caller.db, request, match_id, number, body))


@router.delete(
    "/{number}",
    status_code=204,
    name="deleteRound",
    summary="Remove the last round (undo)",
    responses={204: {"headers": ETAG_HEADER}, **responses(401, 403, 404, 409, 412, 422)},
)
async def delete_round(
    caller: PlayerDep, match_id: str, number: RoundNumber, versions: IfMatchHeader = None
) -> Response:
    """Remove the last round; only the last round can be removed. Its history is kept."""
    request = WriteRequest(who=caller.who, expected_versions=if_match(versions))
    return to_response(rounds.delete_round(caller.db, request, match_id, number))


def _tagged(response: Response, body: T, version: int) -> T:
    set_etag(response, version)
    return body
