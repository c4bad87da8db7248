"""Rounds: enter, list (a page at a time), read, correct, remove the last, history."""

from typing import Annotated

from fastapi import APIRouter, Body, Path, Request, Response
from pydantic import BeforeValidator

from app.api.deps import PlayerDep, SettingsDep, SnapshotReaderDep
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
    IdempotencyKeyHeader,
    IfMatchHeader,
    idempotency_claim,
    if_match,
)
from app.api.idempotent_writes import WriteResult, keep_conflict, keep_response, replayed
from app.api.pages import (
    LINK_HEADER,
    MAX_PAGE,
    After,
    Limit,
    digits,
    next_page,
    page_body,
    page_response,
)
from app.api.problems import responses
from app.api.rendered import HeavyReadDep, Kept
from app.api.strict_json import StrictJSONRoute
from app.errors import ServiceError
from app.schemas import RoundBody, RoundHistory, RoundList, RoundRead
from app.services import rounds

router = APIRouter(
    prefix="/v1/matches/{match_id}/rounds", tags=["rounds"], route_class=StrictJSONRoute
)


# (The validator comes after Path: so its bounds stay in the schema.)
RoundNumber = Annotated[
    int,
    Path(ge=1, le=1_000_000, description="1 for the first round"),
    BeforeValidator(digits),
]


@router.post(
    "",
    status_code=201,
    response_model=RoundRead,
    name="createRound",
    summary="Enter the next round",
    responses={201: {"headers": CREATED}, **responses(401, 403, 404, 409, 412, 413, 422)},
)
def create_round(
    slot: PlayerDep,
    settings: SettingsDep,
    match_id: str,
    body: Annotated[RoundBody, Body()],
    versions: IfMatchHeader = None,
    key: IdempotencyKeyHeader = None,
) -> Response:
    """Score a round as the table entered it and add it to the sheet.

    A match holds at most 5,000 rounds (the service's setting): past it, 409 `match_full`.
    """
    with slot.unit_as_caller() as caller:
        expected = if_match(versions)
        claim = idempotency_claim(key, scope=match_id, request="POST rounds", body=body)
        if (replay := replayed(caller.uow, claim)) is not None:
            return replay
        try:
            written = rounds.add_round(
                caller, body, expected=expected, max_rounds=settings.max_rounds_per_match
            )
        except ServiceError as error:
            return keep_conflict(caller.uow, claim, error)
        entered = RoundRead.model_validate(written.round)
        location = f"/v1/matches/{match_id}/rounds/{entered.number}"
        headers = {"Location": location, **etag_header(written.version)}
        return keep_response(caller.uow, claim, WriteResult(201, entered, headers))


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
def list_rounds(
    slot: SnapshotReaderDep,
    match_id: str,
    request: Request,
    after: After = 0,
    limit: Limit = MAX_PAGE,
    if_none_match: IfNoneMatchHeader = None,
) -> Response:
    """The rounds of the match with their input and result, in order, numbered after
    round `after`; follow `next` (or the `Link` header) for the following page."""
    with slot.unit_as_caller() as caller:
        page = rounds.list_rounds(caller.uow, caller.match, after=after, limit=limit)
    if (not_modified := unchanged(if_none_match, page.version)) is not None:
        return not_modified
    last = page.items[-1]["number"] if page.items else None
    next_url = next_page(request, last, page.round_count, limit)
    return page_response(RoundList.model_validate({"items": page.items}), next_url, page.version)


@router.get(
    "/{number}",
    response_model=RoundRead,
    name="getRound",
    summary="Read one round",
    responses={200: {"headers": ETAG_HEADER}, **NOT_MODIFIED, **responses(401, 403, 404, 422)},
)
def get_round(
    slot: SnapshotReaderDep,
    match_id: str,
    number: RoundNumber,
    if_none_match: IfNoneMatchHeader = None,
) -> Response:
    """One round with its input and result."""
    with slot.unit_as_caller() as caller:
        round_row, version = rounds.get_round(caller.uow, caller.match, number)
    return unchanged(if_none_match, version) or model_response(
        RoundRead.model_validate(round_row), version
    )


@router.get(
    "/{number}/history",
    response_model=RoundHistory,
    name="getRoundHistory",
    summary="Every input a round has held, a page at a time",
    responses={
        200: {"headers": {**ETAG_HEADER, **LINK_HEADER}},
        **NOT_MODIFIED,
        **responses(401, 403, 404, 422, 429),
    },
)
def get_round_history(
    slot: SnapshotReaderDep,
    read: HeavyReadDep,
    match_id: str,
    number: RoundNumber,
    request: Request,
    after: After = 0,
    limit: Limit = MAX_PAGE,
    if_none_match: IfNoneMatchHeader = None,
) -> Response:
    """Each entry, correction and removal of this round number, who made it and when,
    oldest first, numbered after revision `after`; follow `next` (or the `Link`
    header) for the following page."""
    with slot.unit_as_caller() as caller:
        version = int(caller.match["version"])
        if (not_modified := unchanged(if_none_match, version)) is not None:
            # 404, not 304, for a round the match never had (one revision read).
            rounds.round_history(caller.uow, caller.match, number, after=0, limit=1)
            return not_modified

        def render() -> Kept:
            page = rounds.round_history(caller.uow, caller.match, number, after=after, limit=limit)
            history = RoundHistory.model_validate({"number": number, "items": page.items})
            last = page.items[-1]["revision"] if page.items else None
            return page_body(history, next_page(request, last, page.revision_count, limit))

        # The path's id: the page's next link is built from the path.
        body = read.body((match_id, version, f"round-history-{number}-{after}-{limit}"), render)
    headers = body.headers | etag_header(version)
    return Response(body.content, media_type="application/json", headers=headers)


@router.put(
    "/{number}",
    response_model=RoundRead,
    name="replaceRound",
    summary="Correct a round",
    responses={200: {"headers": ETAG_HEADER}, **responses(401, 403, 404, 409, 412, 413, 422)},
)
def replace_round(
    slot: PlayerDep,
    match_id: str,
    number: RoundNumber,
    body: Annotated[RoundBody, Body()],
    versions: IfMatchHeader = None,
) -> Response:
    """Replace a round's input; every later row of the sheet is recomputed."""
    with slot.unit_as_caller() as caller:
        written = rounds.replace_round(caller, number, body, expected=if_match(versions))
    return model_response(RoundRead.model_validate(written.round), written.version)


@router.delete(
    "/{number}",
    status_code=204,
    name="deleteRound",
    summary="Remove the last round (undo)",
    responses={204: {"headers": ETAG_HEADER}, **responses(401, 403, 404, 409, 412, 422)},
)
def delete_round(
    slot: PlayerDep,
    match_id: str,
    number: RoundNumber,
    versions: IfMatchHeader = None,
) -> Response:
    """Remove the last round; only the last round can be removed. Its history is kept."""
    with slot.unit_as_caller() as caller:
        version = rounds.delete_round(caller, number, expected=if_match(versions))
    return Response(status_code=204, headers=etag_header(version))
