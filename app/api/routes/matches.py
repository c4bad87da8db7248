"""Matches: create, read, change settings, end."""

from typing import Annotated

from fastapi import APIRouter, Body, Request, Response

from app.api.deps import DbDep, HostDep, PlayerDep, RateLimitDep, ReaderDep, SettingsDep
from app.api.etag import (
    ETAG_HEADER,
    NOT_MODIFIED,
    IfNoneMatchHeader,
    etag_header,
    model_response,
    unchanged,
)
from app.api.headers import (
    CREATED,
    REPLAYABLE,
    IdempotencyKeyHeader,
    IfMatchHeader,
    idempotency_claim,
    if_match,
)
from app.api.links import base_url, join_links
from app.api.problems import responses
from app.api.strict_json import StrictJSONRoute
from app.api.writes import WriteResult, answer_open_write, answer_write
from app.db.database import UnitOfWork
from app.schemas import MatchCreate, MatchCreated, MatchRead, MatchUpdate, Tokens
from app.services import matches
from app.services.state import match_read
from app.services.writes import WriteRequest

router = APIRouter(prefix="/v1/matches", tags=["matches"], route_class=StrictJSONRoute)


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
    settings: SettingsDep,
    limit: RateLimitDep,
    request: Request,
    body: Annotated[MatchCreate, Body()],
    key: IdempotencyKeyHeader = None,
) -> Response:
    """Create a match. The response carries the host, player and viewer tokens, the
    host's recovery code and a join link per token: shown once, keep them."""
    base = base_url(request, settings)

    def work(uow: UnitOfWork) -> WriteResult:
        new = matches.create_match(uow, body, limit=limit)
        match_id = new.match.id
        created = MatchCreated(
            **dict(new.match),
            tokens=Tokens(
                **new.tokens,
                recovery=new.recovery,
                links=join_links(base, match_id, new.tokens),
            ),
        )
        headers = {"Location": f"/v1/matches/{match_id}", **etag_header(created.version)}
        return WriteResult(201, created, headers)

    key_of = idempotency_claim(key, scope="", request="POST /v1/matches", body=body)
    return await answer_open_write(db, key_of, work)


@router.get(
    "/{match_id}",
    response_model=MatchRead,
    name="getMatch",
    summary="Read a match: status, totals, standings",
    responses={200: {"headers": ETAG_HEADER}, **NOT_MODIFIED, **responses(401, 403, 404)},
)
async def get_match(
    access: ReaderDep, db: DbDep, match_id: str, if_none_match: IfNoneMatchHeader = None
) -> Response:
    """The match with its running totals; answers 304 to a current If-None-Match."""
    state = await db.run(lambda uow: matches.read_match(uow, access))
    # Most polls hold the current version already: their 304 renders nothing.
    return unchanged(if_none_match, state.version) or model_response(
        match_read(state), state.version
    )


@router.patch(
    "/{match_id}",
    response_model=MatchRead,
    name="updateMatch",
    summary="Change settings or names (host only)",
    responses={200: {"headers": ETAG_HEADER}, **responses(401, 403, 404, 409, 412, 422)},
)
async def update_match(
    access: HostDep, db: DbDep, match_id: str, body: MatchUpdate, versions: IfMatchHeader = None
) -> Response:
    """Change the target, planned deals, kontra, first dealer, or player and team names."""
    expected = if_match(versions)

    def work(uow: UnitOfWork) -> WriteResult:
        match = matches.update_match(uow, WriteRequest(access, expected), body)
        return WriteResult(200, match, etag_header(match.version))

    return await answer_write(db, access, None, work)


@router.post(
    "/{match_id}/end",
    response_model=MatchRead,
    name="endMatch",
    summary="End the match (any player or the host)",
    responses={200: {"headers": REPLAYABLE}, **responses(401, 403, 404, 409, 412, 422)},
)
async def end_match(
    access: PlayerDep,
    db: DbDep,
    match_id: str,
    versions: IfMatchHeader = None,
    key: IdempotencyKeyHeader = None,
) -> Response:
    """Bank the sheet as it stands, name the winner and record who ended the match."""
    expected = if_match(versions)

    def work(uow: UnitOfWork) -> WriteResult:
        match = matches.end_match(uow, WriteRequest(access, expected))
        return WriteResult(200, match, etag_header(match.version))

    key_of = idempotency_claim(key, scope=match_id, request="POST end", body=None)
    return await answer_write(db, access, key_of, work)
