"""Matches: create, read, change settings, preview a round, rename a player, end, start a
rematch."""

from typing import Annotated

from fastapi import APIRouter, Body, Path, Request, Response
from pydantic import BeforeValidator

from app.api.deps import (
    HostDep,
    PlayerDep,
    PlayerReaderDep,
    RateLimitDep,
    ReaderDep,
    ReaderWriteDep,
    SettingsDep,
    WriteSlotDep,
)
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
    NO_STORE,
    REPLAYABLE,
    IdempotencyKeyHeader,
    IfMatchHeader,
    idempotency_claim,
    if_match,
)
from app.api.idempotent_writes import WriteResult, keep_conflict, keep_response, replayed
from app.api.links import base_url, join_link, join_links
from app.api.pages import digits
from app.api.problems import responses
from app.api.strict_json import StrictJSONRoute
from app.db.database import UnitOfWork
from app.errors import ServiceError
from app.schemas import (
    MatchCreate,
    MatchCreated,
    MatchRead,
    MatchUpdate,
    PlayerUpdate,
    RematchSeat,
    RoundBody,
    ScoreRead,
    TokenRole,
    Tokens,
)
from app.services import matches, scoring, tokens
from app.services.answers import match_data
from app.services.idempotency import IdempotencyClaim
from app.services.match_state import MatchState
from app.services.matches import NewMatch

router = APIRouter(prefix="/v1/matches", tags=["matches"], route_class=StrictJSONRoute)

# (The validator comes after Path: so its bounds stay in the schema.)
SeatNumber = Annotated[
    int, Path(ge=0, le=15, description="the player's seat"), BeforeValidator(digits)
]


@router.post(
    "",
    status_code=201,
    response_model=MatchCreated,
    name="createMatch",
    summary="Create a match and its tokens",
    responses={201: {"headers": CREATED}, **responses(409, 413, 422, 429)},
)
def create_match(
    slot: WriteSlotDep,
    settings: SettingsDep,
    limit: RateLimitDep,
    request: Request,
    body: Annotated[MatchCreate, Body()],
    key: IdempotencyKeyHeader = None,
) -> Response:
    """Create a match. The response carries the host, player and viewer tokens, the
    host's recovery code and a join link per token: shown once, keep them."""
    claim = idempotency_claim(
        key, scope="", request="POST /v1/matches", body=body, secret_answer=True
    )
    with slot.db.unit_of_work(write=True) as uow:
        if (replay := replayed(uow, claim)) is not None:
            replay.headers.update(NO_STORE)  # kept before answers said so, perhaps
            return replay
        try:
            new = matches.create_match(uow, body, limits=limit)
        except ServiceError as error:
            return keep_conflict(uow, claim, error)
        return _created(uow, claim, new, base_url(request, settings))


def _created(uow: UnitOfWork, claim: IdempotencyClaim | None, new: NewMatch, base: str) -> Response:
    """A new match's answer, with its tokens (not stored), kept with the key if any."""
    match_id = new.match.row["id"]
    created = MatchCreated(
        **match_data(new.match),
        tokens=Tokens(
            **new.tokens, recovery=new.recovery, links=join_links(base, match_id, new.tokens)
        ),
    )
    location = {"Location": f"/v1/matches/{match_id}"}
    headers = {**location, **etag_header(created.version), **NO_STORE}
    return keep_response(uow, claim, WriteResult(201, created, headers))


@router.get(
    "/{match_id}",
    response_model=MatchRead,
    name="getMatch",
    summary="Read a match: status, totals, standings",
    responses={200: {"headers": ETAG_HEADER}, **NOT_MODIFIED, **responses(401, 403, 404)},
)
def get_match(slot: ReaderDep, match_id: str, if_none_match: IfNoneMatchHeader = None) -> Response:
    """The match with its running totals; answers 304 to a current If-None-Match."""
    with slot.unit_as_caller() as caller:
        state = MatchState.load(caller.match)
    # Most polls hold the current version already: their 304 renders nothing.
    return unchanged(if_none_match, state.version) or model_response(
        MatchRead.model_validate(match_data(state)), state.version
    )


@router.patch(
    "/{match_id}",
    response_model=MatchRead,
    name="updateMatch",
    summary="Change settings or names (host only)",
    responses={200: {"headers": ETAG_HEADER}, **responses(401, 403, 404, 409, 412, 413, 422)},
)
def update_match(
    slot: HostDep, match_id: str, body: MatchUpdate, versions: IfMatchHeader = None
) -> Response:
    """Change the target, planned deals, kontra, first dealer, or player and team names."""
    with slot.unit_as_caller() as caller:
        match = matches.update_match(caller, body, expected=if_match(versions))
    return model_response(MatchRead.model_validate(match_data(match)), match.version)


@router.post(
    "/{match_id}/score",
    response_model=ScoreRead,
    name="scoreMatchRound",
    summary="Score a round with the match's settings, without entering it (players, host)",
    responses=responses(401, 403, 404, 409, 413, 422),
)
def score_match_round(
    slot: PlayerReaderDep, match_id: str, body: Annotated[RoundBody, Body()]
) -> ScoreRead:
    """What entering this round next would score, by the match's own settings and
    players; nothing is stored. A round the match would refuse is the same 422 here,
    and an ended match, which takes no round, the same 409 `match_ended`. A viewer
    cannot enter rounds, so cannot preview them either (403)."""
    with slot.unit_as_caller() as caller:
        scored = scoring.preview(caller.match, body)
    return ScoreRead.model_validate(scored)


@router.post(
    "/{match_id}/end",
    response_model=MatchRead,
    name="endMatch",
    summary="End the match (any player or the host)",
    responses={200: {"headers": REPLAYABLE}, **responses(401, 403, 404, 409, 412, 422)},
)
def end_match(
    slot: PlayerDep,
    match_id: str,
    versions: IfMatchHeader = None,
    key: IdempotencyKeyHeader = None,
) -> Response:
    """Bank the sheet as it stands, name the winner and record who ended the match."""
    with slot.unit_as_caller() as caller:
        expected = if_match(versions)
        claim = idempotency_claim(key, scope=match_id, request="POST end", body=None)
        if (replay := replayed(caller.uow, claim)) is not None:
            return replay
        try:
            match = matches.end_match(caller, expected=expected)
        except ServiceError as error:
            return keep_conflict(caller.uow, claim, error)
        ended = MatchRead.model_validate(match_data(match))
        return keep_response(caller.uow, claim, WriteResult(200, ended, etag_header(match.version)))


@router.patch(
    "/{match_id}/players/{seat}",
    response_model=MatchRead,
    name="updatePlayer",
    summary="Rename a player (the host, or the player themself)",
    responses={200: {"headers": ETAG_HEADER}, **responses(401, 403, 404, 412, 413, 422)},
)
def update_player(
    slot: PlayerDep,
    match_id: str,
    seat: SeatNumber,
    body: PlayerUpdate,
    versions: IfMatchHeader = None,
) -> Response:
    """Give a seat a new name, checked as at creation. The host renames any seat, a
    player their own; an ended match too. The history records old and new name, and
    live streams send `match_updated`."""
    with slot.unit_as_caller() as caller:
        match = matches.rename_player(caller, seat, body.name, expected=if_match(versions))
    return model_response(MatchRead.model_validate(match_data(match)), match.version)


@router.post(
    "/{match_id}/rematch",
    status_code=201,
    response_model=MatchCreated,
    name="startRematch",
    summary="Start the rematch of an ended match, with its tokens (host only)",
    responses={201: {"headers": CREATED}, **responses(401, 403, 404, 409, 412, 422, 429)},
)
def start_rematch(
    slot: HostDep,
    settings: SettingsDep,
    limit: RateLimitDep,
    request: Request,
    match_id: str,
    versions: IfMatchHeader = None,
    key: IdempotencyKeyHeader = None,
) -> Response:
    """A new match with the same players, game, settings and team names, the deal moved
    on to the seat after the last deal's dealer. Every role gets a new token, in this
    answer only, as at creation: send an `Idempotency-Key`, so that a retry after a lost
    answer gets the same match and tokens again. A match has one rematch: another
    request is answered 409 `rematch_exists`."""
    with slot.unit_as_caller() as caller:
        expected = if_match(versions)
        claim = idempotency_claim(
            key, scope=match_id, request="POST rematch", body=None, secret_answer=True
        )
        if (replay := replayed(caller.uow, claim)) is not None:
            replay.headers.update(NO_STORE)
            return replay
        try:
            new = matches.start_rematch(caller, expected=expected, limits=limit)
        except ServiceError as error:
            return keep_conflict(caller.uow, claim, error)
        return _created(caller.uow, claim, new, base_url(request, settings))


@router.post(
    "/{match_id}/rematch/seat",
    response_model=RematchSeat,
    name="takeRematchSeat",
    summary="Your own token in the match's rematch: the same role and seat (any role)",
    responses=responses(401, 403, 404, 409),
)
def take_rematch_seat(
    slot: ReaderWriteDep, settings: SettingsDep, request: Request, match_id: str
) -> Response:
    """Sent with a token of an ended match that has a rematch: a token of the rematch
    for the same role and seat (a player's own seat, a viewer's, the host's), shown in
    this answer only. A token re-issued since is unknown here (401); once the host has
    replaced that seat's tokens in the rematch, this is `403`; no rematch yet is `409
    rematch_not_started`. Taking the seat again with the same token replaces the token
    it took before, so a retry after a lost answer is safe."""
    with slot.unit_as_caller() as caller:
        taken = tokens.take_rematch_seat(caller.uow, caller.who, caller.match)
    issued = taken.issued
    answer = RematchSeat(
        match_id=taken.match_id,
        role=TokenRole(issued.role.value),
        seat=issued.seat,
        token=issued.token,
        link=join_link(base_url(request, settings), taken.match_id, issued.token),
    )
    # The token is in this answer only: no cache may keep it.
    return Response(answer.model_dump_json(), media_type="application/json", headers=NO_STORE)
