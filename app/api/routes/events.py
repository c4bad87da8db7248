"""The live table: a match's changes as Server-Sent Events, for any role.

``GET /v1/matches/{id}/events`` answers ``text/event-stream`` (FastAPI's
``EventSourceResponse``): first a ``snapshot`` of the match (or, for a client that
sends ``Last-Event-ID`` or ``?after=``, exactly the changes it missed, in order),
then one event per change, each with the match version as its SSE id. A comment
every ``HEARTBEAT_S`` seconds keeps proxies from closing an idle stream; the
``retry`` hint tells a browser how soon to reconnect. The stream closes after the
match's ``ended`` event, when the token it was opened with is replaced
(``revoked``), or when it falls behind (``resync``).
"""

import asyncio
from collections.abc import AsyncIterable
from functools import partial
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Depends, Header, Query, Request, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent

from app import metrics
from app.api.deps import (
    BearerDep,
    DbDep,
    ReaderWriteDep,
    TicketLimitDep,
    access_of,
    check_caller,
)
from app.api.headers import NO_STORE
from app.api.problems import responses
from app.api.strict_json import StrictJSONRoute
from app.db.database import Database
from app.live import ChangeHub
from app.schemas import MatchEvent, StreamTicket
from app.services import streams
from app.services.auth import Permission, Principal, credential_exists

router = APIRouter(prefix="/v1/matches/{match_id}", tags=["live"], route_class=StrictJSONRoute)

HEARTBEAT_S = 10.0  # a comment line on an idle stream, this often
RETRY_MS = 3000  # how soon a browser reconnects after a dropped stream


async def stream_reader(
    request: Request,
    match_id: str,
    credentials: BearerDep,
    ticket: Annotated[
        str | None,
        Query(max_length=128, description="A stream ticket (for EventSource), instead of a token"),
    ] = None,
) -> Principal:
    """Any role may follow a match: with its bearer token, or a stream ticket."""
    if ticket is not None:
        db: Database = request.app.state.db
        return await db.run(
            partial(streams.ticket_reader, match_id=match_id, ticket=ticket), snapshot=True
        )
    access = access_of(credentials, match_id, Permission.READ)
    return await check_caller(request.app.state.db, access)


StreamReaderDep = Annotated[Principal, Depends(stream_reader)]


async def stream_opening(
    who: StreamReaderDep,
    request: Request,
    last_event_id: Annotated[
        str | None,
        Header(alias="Last-Event-ID", description="The id of the last event received"),
    ] = None,
    after: Annotated[
        int | None,
        Query(ge=0, le=2**31 - 1, description="Resume after this match version"),
    ] = None,
) -> streams.Opening:
    """Where the stream starts, read before it opens, so that a 404 or a 503 is still
    an answer of its own (problem+json), not a stream cut short. An id that is not a
    version this service sends (``Last-Event-ID`` is the client's) starts afresh."""
    start = after
    if start is None and last_event_id is not None:
        text = last_event_id.strip()
        if text.isascii() and text.isdigit() and len(text) <= 10 and int(text) < 2**31:
            start = int(text)
    db: Database = request.app.state.db
    return await db.run(partial(streams.opening, who=who, after=start), snapshot=True)


OpeningDep = Annotated[streams.Opening, Depends(stream_opening)]


def _event(kind: str, version: int, data: dict[str, Any] | str) -> ServerSentEvent:
    """An event; its data as JSON text (the hub's changes come encoded once)."""
    text = data if isinstance(data, str) else orjson.dumps(data).decode()
    return ServerSentEvent(event=kind, id=str(version), raw_data=text)


@router.get(
    "/events",
    response_class=EventSourceResponse,
    name="followMatch",
    summary="Follow the match live (Server-Sent Events)",
    # Each event's data is a MatchEvent (app/api/openapi.py says so in the document).
    responses={200: {"model": MatchEvent}, **responses(401, 403, 404, 422)},
)
async def follow_match(
    who: StreamReaderDep,
    opened: OpeningDep,
    db: DbDep,
    request: Request,
    match_id: str,
) -> AsyncIterable[ServerSentEvent]:
    """A `snapshot` of the match, then one event per change. Resume with
    `Last-Event-ID` (or `?after=version`): the changes missed are sent once each, in
    order, or a `snapshot` when they are too old to replay."""
    hub: ChangeHub = request.app.state.hub
    sent = opened.version
    subscription = await hub.subscribe(match_id, from_version=sent)
    metrics.OPEN_STREAMS.inc()
    try:
        yield ServerSentEvent(comment="following", retry=RETRY_MS)
        for kind, version, first in opened.events:
            yield _event(kind, version, first)
        if opened.ended:
            return
        # What landed between the opening read and the subscription, then what the
        # hub hands over.
        missed = partial(streams.changes_after, match_id=match_id, after=sent)
        pending: list[tuple[int, str, dict[str, Any] | str]] = [
            (version, str(change["kind"]), change) for version, change in await db.run(missed)
        ]
        while True:
            for version, kind, data in pending:
                if version <= sent:
                    continue
                sent = version
                yield _event(kind, version, data)
                if kind == "ended":
                    return
                if kind == "token_reissued" and not await _still_valid(db, who):
                    yield _event("revoked", sent, {"kind": "revoked", "version": sent})
                    return
            pending = []
            # An idle stream reads nothing: a token replaced meanwhile arrives as its
            # ``token_reissued`` change (the hub reads every followed match again after
            # a lost LISTEN connection), and a stream ticket counts only at the opening.
            if not await _woken(subscription.wake, HEARTBEAT_S):
                yield ServerSentEvent(comment="heartbeat")
                continue
            subscription.wake.clear()
            if subscription.overflowed:
                if not hub.closed:
                    yield _event("resync", sent, {"kind": "resync", "version": sent})
                return
            while not subscription.queue.empty():
                pending.append(subscription.queue.get_nowait())
    finally:
        metrics.OPEN_STREAMS.dec()
        hub.unsubscribe(subscription)


async def _woken(event: asyncio.Event, timeout: float) -> bool:
    try:
        await asyncio.wait_for(event.wait(), timeout)
    except TimeoutError:
        return False
    return True


async def _still_valid(db: Database, who: Principal) -> bool:
    if who.credential_id is None:
        return True
    return await db.run(partial(credential_exists, credential_id=who.credential_id))


@router.post(
    "/events/tickets",
    status_code=201,
    response_model=StreamTicket,
    name="createStreamTicket",
    summary="A short-lived ticket to follow the match from a browser",
    responses=responses(401, 403, 404, 429),
)
def create_stream_ticket(
    turn: ReaderWriteDep,
    limits: TicketLimitDep,
    request: Request,
    response: Response,
    match_id: str,
) -> StreamTicket:
    """For `new EventSource(url)`, which cannot send an Authorization header: the
    ticket opens this match's stream for 60 s, with the rights of the token that asked
    for it, and nothing else. The long-lived token never goes into a URL."""
    with turn.caller() as caller:
        ticket, expires_at = streams.issue_ticket(caller.uow, caller.who, limits=limits)
    response.headers.update(NO_STORE)
    return StreamTicket(
        ticket=ticket,
        expires_at=expires_at,
        url=f"{request.url.path.removesuffix('/tickets')}?ticket={ticket}",
    )
