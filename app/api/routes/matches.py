"""Matches: create, read, change settings, end."""

from typing import Annotated

from fastapi import APIRouter, Body, Request, Response

from app.api.deps import DbDep, HostDep, PlayerDep, ReaderDep, match_creation_limit
from app.api.etag import ETAG_HEADER, NOT_MODIFIED, IfNoneMatchHeader, set_etag, unchanged
from app.api.headers import (
    CREATED,
    REPLAYABLE,
    IdempotencyKeyHeader,
    IfMatchHeader,
    idempotency_key,
    if_match,
    to_response,
)
from app.api.problems import responses
from app.api.routing import LeanRoute
from app.schemas import MatchCreate, MatchCreated, MatchRead, MatchUpdate
from app.services import matches
from app.services.writes import Once, WriteRequest

router = APIRouter(prefix="/v1/matches", tags=["matches"], route_class=LeanRoute)


@router.post(
    "",
    status_code=201,
    response_model=MatchCreated,
    name="createMatch",
    summary="Create a match and its tokens",
    responses={201: {"headers": CREATED}, **responses(409, 413, 422, 429)},
)
async def create_match(
    db: DbDep,
    body: Annotated[MatchCreate, Body()],
    request: Request,
    key: IdempotencyKeyHeader = None,
) -> Response:
    """Create a match. The response carries the host, player and viewer tokens, once."""
    once = Once.of(
        idempotency_key(key),
        scope="",
        request="POST /v1/matches",
        body=body,
    )
    written = matches.create_match(
        db, WriteRequest(once=once), body, limit=match_creation_limit(request)
    )
    return to_response(written)


@router.get(
    "/{match_id}",
    response_model=MatchRead,
    name="getMatch",
    summary="Read a match: status, totals, standings",
    responses={200: {"headers": ETAG_HEADER}, **NOT_MODIFIED, **responses(401, 403, 404)},
)
async def get_match(
    caller: ReaderDep, match_id: str, if_none_match: IfNoneMatchHeader = None
) -> Response:
    """The match with its running totals; answers 304 to a current If-None-Match.

    The body is the match as rendered at its last write: a read re-renders nothing.
    """
    view, version = matches.get_match_view(caller.db, match_id)
    if (not_modified := unchanged(if_none_match, version)) is not None:
        return not_modified
    response = Response(view, media_type="application/json")
    set_etag(response, version)
    return response


@router.patch(
    "/{match_id}",
    response_model=MatchRead,
    name="updateMatch",
    summary="Change settings or names (host only)",
    responses={200: {"headers": ETAG_HEADER}, **responses(401, 403, 404, 409, 412, 422)},
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
