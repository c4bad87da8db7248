"""Matches: create, read, change settings, end."""

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request, Response

from app.api.deps import DbDep, HostDep, PlayerDep, ReaderDep, limit_match_creation
from app.api.etag import not_modified, set_etag
from app.api.headers import (
    REPLAYABLE,
    IdempotencyKeyHeader,
    IfMatchHeader,
    idempotency_key,
    if_match,
    to_response,
)
from app.api.problems import responses
from app.schemas import MatchCreate, MatchCreated, MatchRead, MatchUpdate
from app.services import matches
from app.services.writes import Once, WriteRequest

router = APIRouter(prefix="/v1/matches", tags=["matches"])


@router.post(
    "",
    status_code=201,
    response_model=MatchCreated,
    name="createMatch",
    summary="Create a match and its tokens",
    responses={201: {"headers": REPLAYABLE}, **responses(409, 413, 422, 429)},
    dependencies=[Depends(limit_match_creation)],
)
async def create_match(
    db: DbDep, body: Annotated[MatchCreate, Body()], key: IdempotencyKeyHeader = None
) -> Response:
    """Create a match. The response carries the host, player and viewer tokens, once."""
    once = Once.of(
        idempotency_key(key),
        scope="",
        request="POST /v1/matches",
        body=body.model_dump(mode="json"),
    )
    return to_response(matches.create_match(db, WriteRequest(once=once), body))


@router.get(
    "/{match_id}",
    response_model=MatchRead,
    name="getMatch",
    summary="Read a match: status, totals, standings",
    responses={304: {"description": "Not modified"}, **responses(401, 403, 404)},
)
async def get_match(
    caller: ReaderDep, match_id: str, request: Request, response: Response
) -> MatchRead | Response:
    """The match with its running totals; answers 304 to a current If-None-Match."""
    match = matches.get_match(caller.db, match_id)
    if not_modified(request, match.version):
        unchanged = Response(status_code=304)
        set_etag(unchanged, match.version)
        return unchanged
    set_etag(response, match.version)
    return match


@router.patch(
    "/{match_id}",
    response_model=MatchRead,
    name="updateMatch",
    summary="Change settings or names (host only)",
    responses=responses(401, 403, 404, 409, 412, 422),
)
async def update_match(
    caller: HostDep, match_id: str, body: MatchUpdate, versions: IfMatchHeader = None
) -> Response:
    """Change the target, planned deals, kontra, first dealer, or player and team names."""
    request = WriteRequest(who=caller.who, expected_versions=if_match(versions))
    return to_response(matches.update_match(caller.db, request, match_id, body))


@router.post(
    "/{match_id}/end",
    response_model=MatchRead,
    name="endMatch",
    summary="End the match (any player or the host)",
    responses={200: {"headers": REPLAYABLE}, **responses(401, 403, 404, 409, 412, 422)},
)
async def end_match(
    caller: PlayerDep,
    match_id: str,
    versions: IfMatchHeader = None,
    key: IdempotencyKeyHeader = None,
) -> Response:
    """Bank the sheet as it stands, name the winner and record who ended the match."""
    once = Once.of(idempotency_key(key), scope=match_id, request="POST end", body=None)
    request = WriteRequest(who=caller.who, expected_versions=if_match(versions), once=once)
    return to_response(matches.end_match(caller.db, request, match_id))
