"""Matches: create, read, change settings, end."""

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request, Response

from app.api.deps import DbDep, HostDep, PlayerDep, ReaderDep, limit_match_creation
from app.api.etag import not_modified, set_etag
from app.api.headers import REPLAYABLE, IdempotencyKeyDep, IfMatchDep, to_response
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
    db: DbDep, key: IdempotencyKeyDep, body: Annotated[MatchCreate, Body()]
) -> Response:
    """Create a match. The response carries the host, player and viewer tokens, once."""
    once = Once.of(key, scope="", request="POST /v1/matches", body=body.model_dump(mode="json"))
    return to_response(matches.create_match(db, WriteRequest(once=once), body))


@router.get(
    "/{match_id}",
    response_model=MatchRead,
    name="getMatch",
    summary="Read a match: status, totals, standings",
    responses={304: {"description": "Not modified"}, **responses(401, 403, 404)},
)
async def get_match(
    db: DbDep, who: ReaderDep, match_id: str, request: Request, response: Response
) -> MatchRead | Response:
    """The match with its running totals; answers 304 to a current If-None-Match."""
    match = matches.get_match(db, match_id)
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
    db: DbDep, who: HostDep, match_id: str, versions: IfMatchDep, body: MatchUpdate
) -> Response:
    """Change the target, planned deals, kontra, first dealer, or player and team names."""
    request = WriteRequest(who=who, expected_versions=versions)
    return to_response(matches.update_match(db, request, match_id, body))


@router.post(
    "/{match_id}/end",
    response_model=MatchRead,
    name="endMatch",
    summary="End the match (any player or the host)",
    responses={200: {"headers": REPLAYABLE}, **responses(401, 403, 404, 409, 412, 422)},
)
async def end_match(
    db: DbDep, who: PlayerDep, match_id: str, versions: IfMatchDep, key: IdempotencyKeyDep
) -> Response:
    """Bank the sheet as it stands, name the winner and record who ended the match."""
    once = Once.of(key, scope=match_id, request="POST end", body=None)
    request = WriteRequest(who=who, expected_versions=versions, once=once)
    return to_response(matches.end_match(db, request, match_id))
