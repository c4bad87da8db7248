"""Rounds: enter, list (a page at a time), read, correct, remove the last, history."""

from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Body, Path, Query, Request, Response
from pydantic import BeforeValidator

from app.api.deps import DbDep, PlayerDep, ReaderDep, SettingsDep
from app.api.etag import ETAG_HEADER, NOT_MODIFIED, IfNoneMatchHeader, model_response, unchanged
from app.api.headers import CREATED, IdempotencyKeyHeader, IfMatchHeader, if_match, once
from app.api.problems import responses
from app.api.reads import read
from app.api.strict_json import StrictJSONRoute
from app.api.writes import Answer, answer_write, etag
from app.db.database import UnitOfWork
from app.schemas import RoundBody, RoundHistory, RoundList, RoundRead
from app.services import rounds
from app.services.writes import WriteRequest

router = APIRouter(
    prefix="/v1/matches/{match_id}/rounds", tags=["rounds"], route_class=StrictJSONRoute
)


def _digits(value: object) -> object:
    """A number in a path or query is written in digits only: ``1``, never ``1.0``,
    ``+1`` or `` 1`` (pydantic would read those as 1)."""
    if isinstance(value, str) and not (value.isascii() and value.isdigit()):
        raise ValueError("must be written in digits only")
    return value


# (The validator comes after Path and Query: so their bounds stay in the schema.)
RoundNumber = Annotated[
    int,
    Path(ge=1, le=1_000_000, description="1 for the first round"),
    BeforeValidator(_digits),
]
After = Annotated[
    int,
    Query(ge=0, le=1_000_000, description="Start after this number (0: from the first)"),
    BeforeValidator(_digits),
]
Limit = Annotated[
    int,
    Query(ge=1, le=rounds.MAX_PAGE, description="At most this many items"),
    BeforeValidator(_digits),
]
LINK_HEADER = {
    "Link": {
        "description": 'The next page, `<url>; rel="next"`, when there is one',
        "schema": {"type": "string"},
    }
}


@router.post(
    "",
    status_code=201,
    response_model=RoundRead,
    name="createRound",
    summary="Enter the next round",
    responses={201: {"headers": CREATED}, **responses(401, 403, 404, 409, 412, 413, 422)},
)
async def create_round(
    access: PlayerDep,
    db: DbDep,
    settings: SettingsDep,
    match_id: str,
    body: Annotated[RoundBody, Body()],
    versions: IfMatchHeader = None,
    key: IdempotencyKeyHeader = None,
) -> Response:
    """Score a round as the table entered it and add it to the sheet.

    A match holds at most 5,000 rounds (the service's setting): past it, 409 `match_full`.
    """
    expected = if_match(versions)

    def work(uow: UnitOfWork) -> Answer:
        request = WriteRequest(access, expected)
        written = rounds.add_round(
            uow, request, match_id, body, max_rounds=settings.max_rounds_per_match
        )
        location = f"/v1/matches/{match_id}/rounds/{written.round.number}"
        return Answer(201, written.round, {"Location": location, **etag(written.version)})

    key_of = once(key, scope=match_id, request="POST rounds", body=body)
    return await answer_write(db, access, key_of, work)


@router.get(
    "",
    response_model=RoundList,
    name="listRounds",
    summary="The rounds, in order, a page at a time",
    responses={
        200: {"headers": {**ETAG_HEADER, **LINK_HEADER}},
        **NOT_MODIFIED,
        **responses(401, 403, 404, 422),
    },
)
async def list_rounds(
    access: ReaderDep,
    db: DbDep,
    match_id: str,
    request: Request,
    after: After = 0,
    limit: Limit = rounds.MAX_PAGE,
    if_none_match: IfNoneMatchHeader = None,
) -> Response:
    """The rounds of the match with their input and result, in order, numbered after
    round `after`; follow `next` (or the `Link` header) for the following page."""
    page = await read(
        db,
        access,
        lambda uow: rounds.list_rounds(uow, match_id, after=after, limit=limit),
        snapshot=True,
    )
    if (not_modified := unchanged(if_none_match, page.version)) is not None:
        return not_modified
    last = page.items[-1].number if page.items else None
    next_url = _next_page(request, last, page.round_count, limit)
    return _page(RoundList(items=page.items, next=next_url), page.version)


def _next_page(request: Request, last: int | None, count: int, limit: int) -> str | None:
    """The URL of the page after the one that ended at number ``last`` of ``count``."""
    if last is None or last >= count:
        return None
    return f"{request.url.path}?{urlencode({'after': last, 'limit': limit})}"


def _page(body: RoundList | RoundHistory, version: int) -> Response:
    """A page, tagged with the match version, its ``next`` also in the Link header."""
    response = model_response(body, version)
    if body.next is not None:
        response.headers["Link"] = f'<{body.next}>; rel="next"'
    return response


@router.get(
    "/{number}",
    response_model=RoundRead,
    name="getRound",
    summary="Read one round",
    responses={200: {"headers": ETAG_HEADER}, **NOT_MODIFIED, **responses(401, 403, 404, 422)},
)
async def get_round(
    access: ReaderDep,
    db: DbDep,
    match_id: str,
    number: RoundNumber,
    if_none_match: IfNoneMatchHeader = None,
) -> Response:
    """One round with its input and result."""
    found, version = await read(
        db, access, lambda uow: rounds.get_round(uow, match_id, number), snapshot=True
    )
    return unchanged(if_none_match, version) or model_response(found, version)


@router.get(
    "/{number}/history",
    response_model=RoundHistory,
    name="getRoundHistory",
    summary="Every input a round has held, a page at a time",
    responses={
        200: {"headers": {**ETAG_HEADER, **LINK_HEADER}},
        **NOT_MODIFIED,
        **responses(401, 403, 404, 422),
    },
)
async def get_round_history(
    access: ReaderDep,
    db: DbDep,
    match_id: str,
    number: RoundNumber,
    request: Request,
    after: After = 0,
    limit: Limit = rounds.MAX_PAGE,
    if_none_match: IfNoneMatchHeader = None,
) -> Response:
    """Each entry, correction and removal of this round number, who made it and when,
    oldest first, numbered after revision `after`; follow `next` (or the `Link`
    header) for the following page."""
    page = await read(
        db,
        access,
        lambda uow: rounds.round_history(uow, match_id, number, after=after, limit=limit),
        snapshot=True,
    )
    if (not_modified := unchanged(if_none_match, page.version)) is not None:
        return not_modified
    items = page.history.items
    last = items[-1].revision if items else None
    next_url = _next_page(request, last, page.revision_count, limit)
    return _page(page.history.model_copy(update={"next": next_url}), page.version)


@router.put(
    "/{number}",
    response_model=RoundRead,
    name="replaceRound",
    summary="Correct a round",
    responses={200: {"headers": ETAG_HEADER}, **responses(401, 403, 404, 409, 412, 413, 422)},
)
async def replace_round(
    access: PlayerDep,
    db: DbDep,
    match_id: str,
    number: RoundNumber,
    body: Annotated[RoundBody, Body()],
    versions: IfMatchHeader = None,
) -> Response:
    """Replace a round's input; every later row of the sheet is recomputed."""
    expected = if_match(versions)

    def work(uow: UnitOfWork) -> Answer:
        written = rounds.replace_round(uow, WriteRequest(access, expected), match_id, number, body)
        return Answer(200, written.round, etag(written.version))

    return await answer_write(db, access, None, work)


@router.delete(
    "/{number}",
    status_code=204,
    name="deleteRound",
    summary="Remove the last round (undo)",
    responses={204: {"headers": ETAG_HEADER}, **responses(401, 403, 404, 409, 412, 422)},
)
async def delete_round(
    access: PlayerDep,
    db: DbDep,
    match_id: str,
    number: RoundNumber,
    versions: IfMatchHeader = None,
) -> Response:
    """Remove the last round; only the last round can be removed. Its history is kept."""
    expected = if_match(versions)

    def work(uow: UnitOfWork) -> Answer:
        version = rounds.delete_round(uow, WriteRequest(access, expected), match_id, number)
        return Answer(204, None, etag(version))

    return await answer_write(db, access, None, work)
