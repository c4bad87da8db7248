"""Tokens: the host re-issues one; the host recovers its own, and sees its recovery code
again; the match's history (token changes and renames)."""

from typing import Annotated

from fastapi import APIRouter, Body, Request, Response

from app.api.deps import (
    HostDep,
    HostReaderDep,
    ReaderDep,
    RecoveryLimitDep,
    ReissueLimitDep,
    SettingsDep,
    SnapshotReaderDep,
    WriteSlotDep,
)
from app.api.etag import ETAG_HEADER, NOT_MODIFIED, IfNoneMatchHeader, etag_header, unchanged
from app.api.headers import NO_STORE, REPLAYED_HEADER, IdempotencyKeyHeader, idempotency_claim
from app.api.idempotent_writes import WriteResult, keep_response, replayed
from app.api.links import base_url, join_link
from app.api.pages import LINK_HEADER, MAX_PAGE, After, Limit, next_page, page_body
from app.api.problems import responses
from app.api.rendered import HeavyReadDep, Kept
from app.api.strict_json import StrictJSONRoute
from app.errors import InvalidHeader, ServiceError
from app.schemas import (
    HostRecovery,
    IssuedToken,
    MatchHistory,
    RecoveryCode,
    TokenOwner,
    TokenReissue,
    TokenRole,
)
from app.services import tokens
from app.services.auth import Role, hash_secret
from app.services.tokens import Issued

router = APIRouter(prefix="/v1/matches/{match_id}", tags=["tokens"], route_class=StrictJSONRoute)


def _issued(issued: Issued, base: str, match_id: str) -> IssuedToken:
    return IssuedToken(
        role=TokenRole(issued.role.value),
        seat=issued.seat,
        token=issued.token,
        link=join_link(base, match_id, issued.token),
        recovery=issued.recovery,
    )


@router.post(
    "/tokens",
    response_model=IssuedToken,
    name="reissueToken",
    summary="Re-issue a token (host only); the one it replaces stops working",
    responses={200: {"headers": REPLAYED_HEADER}, **responses(401, 403, 404, 413, 422, 429)},
)
def reissue_token(
    slot: HostDep,
    limits: ReissueLimitDep,
    settings: SettingsDep,
    request: Request,
    match_id: str,
    body: Annotated[TokenReissue, Body()],
    key: IdempotencyKeyHeader = None,
) -> Response:
    """A new token for a seat, the viewers or the host; the old one is refused at once,
    by every worker. The change is in the match's history. A new host token comes with
    a new recovery code (`recovery`), and the one before it stops working: send an
    `Idempotency-Key`, so that a retry after a lost answer, with the token it was sent
    with (now replaced), gets the same answer again."""
    assert slot.access is not None
    with slot.db.unit_of_work(write=True) as uow:
        try:
            # The key is bound to the whole token that sent it (its hash): a replay
            # needs both. (Keys claimed before the caller's check share one scope, as a
            # create's.)
            sender = hash_secret(f"{slot.access.credential_id}.{slot.access.secret}")
            request_by = f"POST /v1/matches/{match_id}/tokens by {sender}"
            claim = idempotency_claim(
                key, scope="", request=request_by, body=body, secret_answer=True
            )
        except InvalidHeader:
            slot.check(uow)  # 401, 404 and 403 come first
            raise
        # A replay before the caller's check: the token it was sent with may be the one
        # this write replaced.
        try:
            replay = replayed(uow, claim)
        except ServiceError:  # the key in use, or used for another request
            slot.check(uow)
            raise
        if replay is not None:
            replay.headers.update(NO_STORE)  # kept before it said so, perhaps
            return replay
        caller = slot.check(uow)
        role, seat = Role(body.role.value), body.seat
        issued = tokens.reissue(caller, role, seat, limits=limits)
        answer = _issued(issued, base_url(request, settings), match_id)
        return keep_response(caller.uow, claim, WriteResult(200, answer, dict(NO_STORE)))


@router.post(
    "/recover",
    response_model=IssuedToken,
    name="recoverHostToken",
    summary="A new host token and recovery code, for the host's recovery code",
    responses={200: {"headers": REPLAYED_HEADER}, **responses(401, 404, 413, 422, 429)},
)
def recover_host_token(
    slot: WriteSlotDep,
    limits: RecoveryLimitDep,
    settings: SettingsDep,
    request: Request,
    match_id: str,
    body: Annotated[HostRecovery, Body()],
    key: IdempotencyKeyHeader = None,
) -> Response:
    """For a host who lost the host token: send the recovery code (no bearer token).
    The answer is a new host token and a new recovery code (`recovery`); the old token
    and the old code stop working. Send an `Idempotency-Key`: a retry after a lost
    answer then gets the same answer again, where without one it is refused (the code
    it sends is no longer valid)."""
    # Keys of writes open to anyone share one scope, as a create's; the path is part of
    # the request the key was first used for.
    request_of = f"POST /v1/matches/{match_id}/recover"
    claim = idempotency_claim(key, scope="", request=request_of, body=body, secret_answer=True)
    with slot.db.unit_of_work(write=True) as uow:
        tokens.count_recovery(uow, match_id, limits)
    with slot.db.unit_of_work(write=True) as uow:
        if (replay := replayed(uow, claim)) is not None:
            replay.headers.update(NO_STORE)
            return replay
        issued = tokens.recover_host(uow, match_id, body.recovery_code)
        answer = _issued(issued, base_url(request, settings), match_id)
        return keep_response(uow, claim, WriteResult(200, answer, dict(NO_STORE)))


@router.get(
    "/recovery",
    response_model=RecoveryCode,
    name="getRecoveryCode",
    summary="The match's current recovery code, again (host only)",
    responses=responses(401, 403, 404, 409),
)
def get_recovery_code(slot: HostReaderDep, match_id: str) -> Response:
    """The recovery code the host token was issued with (at creation, at a rematch, by a
    recovery or a re-issue of the host's token), for a host who did not write it down.
    It is kept sealed with that token, so no other token, and no reader of the database,
    opens it. A host token that holds none (a match made before codes were kept, a host
    seat taken in a rematch) is `409 recovery_not_kept`: re-issue the host token."""
    assert slot.access is not None
    with slot.unit_as_caller() as caller:
        code = tokens.recovery_code(caller.uow, caller.who, slot.access.secret)
    body = RecoveryCode(recovery_code=code).model_dump_json()
    return Response(body, media_type="application/json", headers=dict(NO_STORE))


@router.get(
    "/me",
    response_model=TokenOwner,
    name="getTokenOwner",
    summary="Whom the token stands for: its role and seat",
    responses=responses(401, 403, 404),
)
def get_token_owner(slot: ReaderDep, match_id: str) -> TokenOwner:
    """The role (host, player, viewer) and, for a player, the seat of the token sent:
    what a client opened from a join link needs to show the right controls."""
    with slot.unit_as_caller() as caller:
        who = caller.who
    return TokenOwner(role=TokenRole(who.role.value), seat=who.seat)


@router.get(
    "/history",
    response_model=MatchHistory,
    name="getMatchHistory",
    summary="The match's token changes and renames, oldest first, a page at a time",
    responses={
        200: {"headers": {**ETAG_HEADER, **LINK_HEADER}},
        **NOT_MODIFIED,
        **responses(401, 403, 404, 422, 429),
    },
)
def get_match_history(
    slot: SnapshotReaderDep,
    read: HeavyReadDep,
    match_id: str,
    request: Request,
    after: After = 0,
    limit: Limit = MAX_PAGE,
    if_none_match: IfNoneMatchHeader = None,
) -> Response:
    """Each token re-issued, each host token recovered and each player renamed (old and
    new name): which, by whom, when; numbered after event `after`; follow `next` (or
    the `Link` header) for the following page. Its ETag is the match version, which
    every entry raises."""
    with slot.unit_as_caller() as caller:
        version = int(caller.match["version"])
        if (not_modified := unchanged(if_none_match, version)) is not None:
            return not_modified

        def render() -> Kept:
            items, count = tokens.history(caller.uow, match_id, after=after, limit=limit)
            history = MatchHistory.model_validate({"items": items})
            last = items[-1]["event"] if items else None
            return page_body(history, next_page(request, last, count, limit))

        # The path's id: the page's next link is built from the path.
        body = read.body((match_id, version, f"match-history-{after}-{limit}"), render)
    headers = body.headers | etag_header(version)
    return Response(body.content, media_type="application/json", headers=headers)
