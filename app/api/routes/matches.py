"""Matches: create, read, change settings, end."""

from typing import Annotated

from fastapi import APIRouter, Body, Request, Response

from app.api.deps import DbDep, HostDep, PlayerDep, ReaderDep
from app.api.etag import not_modified, set_etag
from app.api.problems import responses
from app.schemas import MatchCreate, MatchCreated, MatchRead, MatchUpdate
from app.services import matches

router = APIRouter(prefix="/v1/matches", tags=["matches"])


@router.post(
    "",
    status_code=201,
    response_model=MatchCreated,
    name="createMatch",
    summary="Create a match and its tokens",
    responses=responses(413, 422),
)
async def create_match(
    db: DbDep, response: Response, body: Annotated[MatchCreate, Body()]
) -> MatchCreated:
    """Create a match. The response carries the host, player and viewer tokens, once."""
    created = matches.create_match(db, body)
    response.headers["Location"] = f"/v1/matches/{created.id}"
    set_etag(response, created.version)
    return created


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
    match = matches.get_match(db, who, match_id)
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
    responses=responses(401, 403, 404, 409, 422),
)
async def update_match(
    db: DbDep, who: HostDep, match_id: str, body: MatchUpdate, response: Response
) -> MatchRead:
    """Change the target, planned deals, kontra, first dealer, or player and team names."""
    match = matches.update_match(db, who, match_id, body)
    set_etag(response, match.version)
    return match


@router.post(
    "/{match_id}/end",
    response_model=MatchRead,
    name="endMatch",
    summary="End the match (any player or the host)",
    responses=responses(401, 403, 404, 409),
)
async def end_match(db: DbDep, who: PlayerDep, match_id: str, response: Response) -> MatchRead:
    """Bank the sheet as it stands and name the winner."""
    match = matches.end_match(db, who, match_id)
    set_etag(response, match.version)
    return match
