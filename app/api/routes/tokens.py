"""Tokens: the host re-issues one; the host recovers its own; the match's history."""

from typing import Annotated

from fastapi import APIRouter, Body, Request, Response

from app.api.deps import HostDep, ReaderDep, SettingsDep, SnapshotReaderDep, WriteTurnDep
from app.api.links import base_url, join_link
from app.api.pages import LINK_HEADER, MAX_PAGE, After, Limit, next_page, page_response
from app.api.problems import responses
from app.api.strict_json import StrictJSONRoute
from app.schemas import (
    HostRecovery,
    IssuedToken,
    MatchHistory,
    TokenOwner,
    TokenReissue,
    TokenRole,
)
from app.services import tokens
from app.services.auth import Role
from app.services.tokens import Issued
from app.services.writes import WriteRequest

router = APIRouter(prefix="/v1/matches/{match_id}", tags=["tokens"], route_class=StrictJSONRoute)


def _issued(issued: Issued, base: str, match_id: str) -> IssuedToken:
    return IssuedToken(
        role=TokenRole(issued.role.value),
        seat=issued.seat,
        token=issued.token,
        link=join_link(base, match_id, issued.token),
    )


@router.post(
    "/tokens",
    response_model=IssuedToken,
    name="reissueToken",
    summary="Re-issue a token (host only); the one it replaces stops working",
    responses=responses(401, 403, 404, 413, 422),
)
def reissue_token(
    turn: HostDep,
    settings: SettingsDep,
    request: Request,
    match_id: str,
    body: Annotated[TokenReissue, Body()],
) -> IssuedToken:
    """A new token for a seat, the viewers or the host; the old one is refused at once,
    by every worker. The change is in the match's history."""
    with turn.caller() as caller:
        request_of = WriteRequest(caller.who, caller.match)
        issued = tokens.reissue(caller.uow, request_of, Role(body.role.value), body.seat)
    return _issued(issued, base_url(request, settings), match_id)


@router.post(
    "/recover",
    response_model=IssuedToken,
    name="recoverHostToken",
    summary="A new host token, with the recovery code shown at creation",
    responses=responses(401, 404, 413, 422),
)
def recover_host_token(
    turn: WriteTurnDep,
    settings: SettingsDep,
    request: Request,
    match_id: str,
    body: Annotated[HostRecovery, Body()],
) -> IssuedToken:
    """For a host who lost the host token: send the recovery code (no bearer token).
    The answer is a new host token; the old one stops working. The code stays valid:
    a retry after a lost answer just issues another host token."""
    with turn.unit() as uow:
        issued = tokens.recover_host(uow, match_id, body.recovery_code)
    return _issued(issued, base_url(request, settings), match_id)


@router.get(
    "/me",
    response_model=TokenOwner,
    name="getTokenOwner",
    summary="Whom the token stands for: its role and seat",
    responses=responses(401, 403, 404),
)
def get_token_owner(turn: ReaderDep, match_id: str) -> TokenOwner:
    """The role (host, player, viewer) and, for a player, the seat of the token sent:
    what a client opened from a join link needs to show the right controls."""
    with turn.caller() as caller:
        who = caller.who
    return TokenOwner(role=TokenRole(who.role.value), seat=who.seat)


@router.get(
    "/history",
    response_model=MatchHistory,
    name="getMatchHistory",
    summary="The match's token changes, oldest first, a page at a time",
    responses={200: {"headers": LINK_HEADER}, **responses(401, 403, 404, 422)},
)
def get_match_history(
    turn: SnapshotReaderDep,
    match_id: str,
    request: Request,
    after: After = 0,
    limit: Limit = MAX_PAGE,
) -> Response:
    """Each token re-issued, and each host token recovered: which, by whom, when;
    numbered after event `after`; follow `next` (or the `Link` header) for the
    following page."""
    with turn.caller() as caller:
        items, count = tokens.history(caller.uow, match_id, after=after, limit=limit)
    history = MatchHistory.model_validate({"items": items})
    last = items[-1]["event"] if items else None
    return page_response(history, next_page(request, last, count, limit))
