"""The live table: a match's changes as Server-Sent Events, for any role.

``GET /v1/matches/{id}/events`` answers ``text/event-stream``: first a ``snapshot`` of
the match (or, for a client that sends ``Last-Event-ID`` or ``?after=``, exactly the
changes it missed, in order), then one event per change, each with the match version as
its SSE id. The first event carries the ``retry`` hint (how soon a browser reconnects);
a comment every ``HEARTBEAT_S`` seconds keeps proxies from closing an idle stream. The
stream closes after the match's ``ended`` event (unless it was opened with
``?past_end=true``: an ended match still changes, by a rename, a re-issued token or its
rematch), when the token it was opened with is replaced (``revoked``), or when it falls
behind (``resync``). One client address, and one token, hold only so many streams open
on a process (``STREAMS_PER_ADDRESS``, ``STREAMS_PER_TOKEN``: 429 past either).

A stream is one plain ``StreamingResponse`` of bytes: each change comes from the hub
already encoded (``app.live.Change``), so a stream only writes it.
"""

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Depends, Header, Query, Request, Response
from fastapi.responses import StreamingResponse
from fastapi.sse import format_sse_event
from starlette.types import Receive, Scope, Send

from app import metrics
from app.api.deps import BearerDep, ReaderWriteDep, TicketLimitDep, access_of, client_address
from app.api.headers import NO_STORE
from app.api.problems import responses
from app.api.strict_json import StrictJSONRoute
from app.db.database import Database
from app.errors import RateLimited
from app.live import Change, ChangeHub
from app.schemas import MatchEvent, StreamTicket
from app.services import streams
from app.services.auth import Permission, Principal

router = APIRouter(prefix="/v1/matches/{match_id}", tags=["live"], route_class=StrictJSONRoute)

HEARTBEAT_S = 15.0  # a comment line on an idle stream, this often (as FastAPI's own)
RETRY_MS = 3000  # how soon a browser reconnects after a dropped stream
HEARTBEAT = format_sse_event(comment="heartbeat")
FOLLOWING = format_sse_event(comment="following")  # a resumed stream with nothing missed


STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
# A stream over its cap waits for another to close, which happens as phones leave: a
# while, not the next second (the page retries sooner on its own, and is refused again).
STREAMS_RETRY_AFTER_S = 30


class EventStream(StreamingResponse):
    """Server-Sent Events, written as they come: no proxy may buffer them.

    A server speaking ASGI before 2.4 (uvicorn on HTTP) tells of a client gone only
    through ``receive``, so a stream must listen for it while it waits. Starlette does
    that in a task group per response; most open streams are idle, so here it is one
    plain task that cancels the stream when the client leaves, which holds less."""

    media_type = "text/event-stream"

    def __init__(self, events: AsyncGenerator[bytes, None], status_code: int = 200) -> None:
        super().__init__(events, status_code, headers=STREAM_HEADERS)
        self.events = events
        self.streaming: asyncio.Task[Any] | None = None  # cancelled when the client leaves
        self.gone = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            if scope["type"] != "http" or _spec_version(scope) >= (2, 4):
                await super().__call__(scope, receive, send)  # a send fails once gone
            else:
                await self.stream_until_gone(receive, send)
        finally:
            # A client gone while its stream waited to send leaves the generator
            # paused at a yield: close it, so it leaves the hub now.
            await self.events.aclose()

    async def stream_until_gone(self, receive: Receive, send: Send) -> None:
        """Stream until the events end or the client leaves, whichever comes first."""
        self.streaming = streaming = asyncio.current_task()
        listener = asyncio.create_task(self.listen_for_disconnect(receive))
        listener.add_done_callback(self.client_left)
        try:
            await self.stream_response(send)
        except asyncio.CancelledError:
            # Only this stream's own cancellation ends it quietly, not the server's.
            if not self.gone or streaming is None or streaming.uncancel() > 0:
                raise
        finally:
            self.streaming = None  # a listener ending from now on cancels nothing
            listener.cancel()
        if self.background is not None:
            await self.background()

    async def stream_response(self, send: Send) -> None:
        """Starlette's, except that a stream waiting for its next event holds none of
        what it sent (its opening can be a long match's whole snapshot)."""
        start = {"type": "http.response.start", "status": self.status_code}
        await send({**start, "headers": self.raw_headers})
        async for chunk in self.events:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            del chunk
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    def client_left(self, listener: asyncio.Task[None]) -> None:
        """The listener's end: the client left (or ``receive`` failed), so the stream
        stops, unless it has ended already."""
        if listener.cancelled():
            return
        listener.exception()  # retrieved: a failed receive also means the client is gone
        if self.streaming is not None:
            self.gone = True
            self.streaming.cancel()


def _spec_version(scope: Scope) -> tuple[int, ...]:
    spec = str(scope.get("asgi", {}).get("spec_version", "2.0"))
    return tuple(int(part) for part in spec.split(".") if part.isdigit())


def _version(text: str | None) -> int | None:
    """A match version a client sent back, or None for anything this service never
    sends as one (``Last-Event-ID`` is the client's to send)."""
    text = (text or "").strip()
    if text.isascii() and text.isdigit() and len(text) <= 10 and int(text) < 2**31:
        return int(text)
    return None


@dataclass(eq=False, slots=True)
class StreamHold:
    """The counts of open streams (``ChangeHub.streams``) this stream holds a place in:
    its client address's, and once its opening read whose it is, its token's."""

    hub: ChangeHub
    keys: list[str]

    def take(self, key: str, cap: int, whose: str) -> None:
        """A place in ``key``'s count, or 429 when it holds ``cap`` streams already."""
        if not self.hub.streams.take(key, cap):
            metrics.RATE_LIMITED.labels(f"live streams {whose}").inc()
            raise RateLimited(
                f"at most {cap} live streams {whose} at once; retry when one has closed",
                retry_after=STREAMS_RETRY_AFTER_S,
            )
        self.keys.append(key)


async def hold_stream(request: Request) -> AsyncIterator[StreamHold]:
    """The stream's place among its address's open streams, taken before anything is
    read (a flood from one address is refused, not queued), and given back once its
    answer is done, however it ends: the stream closed, or its opening was refused.

    The caps are per process: each worker counts its own streams."""
    settings = request.app.state.settings
    hold = StreamHold(request.app.state.hub, [])
    try:
        address = f"address {client_address(request)}"
        hold.take(address, settings.streams_per_address, "from one client")
        yield hold
    finally:
        for key in hold.keys:
            hold.hub.streams.give_back(key)


@dataclass(slots=True)
class StreamStart:
    """Who follows the match, the version their stream starts at, and what it sends
    first, encoded: the stream takes ``first`` as it sends it, so that an open stream
    holds none of its opening."""

    who: Principal
    version: int
    ended: bool
    first: list[bytes]
    past_end: bool = False


async def stream_opening(
    request: Request,
    match_id: str,
    credentials: BearerDep,
    hold: Annotated[StreamHold, Depends(hold_stream)],
    ticket: Annotated[
        str | None,
        Query(
            max_length=128,
            description="A stream ticket (for EventSource), instead of a token; it opens one "
            "stream",
        ),
    ] = None,
    last_event_id: Annotated[
        str | None,
        Header(alias="Last-Event-ID", description="The id of the last event received"),
    ] = None,
) -> StreamStart:
    """Who follows the match, with their token or a stream ticket, and where their
    stream starts: one read, before the stream opens, so that a 401, 404, 403, 429 or
    503 is an answer of its own (problem+json), not a stream cut short.

    ``?after=`` is taken here as sent: the route declares it, and FastAPI refuses an
    invalid one (422) only after this dependency has checked the caller; so is
    ``?past_end=``."""
    access = None if ticket is not None else access_of(credentials, match_id, Permission.READ)
    after = request.query_params.get("after")
    start = _version(after) if after is not None else _version(last_event_id)
    db: Database = request.app.state.db
    hub: ChangeHub = request.app.state.hub
    # A ticket opens one stream: it is taken first, in a write of its own (in its write
    # turn, as every write). A token's opening needs no snapshot: one statement reads the
    # credential with the match (streams.opening). A ticket's reads its credential, then
    # the match, which must see the same state, or a token replaced between the two
    # would go unnoticed.
    taken = None
    if ticket is not None:
        taken = await db.run(partial(streams.take_ticket, ticket=ticket), write=True)
    read = partial(streams.opening, match_id=match_id, access=access, ticket=taken)
    async with hub.opening(client_address(request)):
        opened = await db.run(partial(read, after=start), snapshot=access is None)
    # A ticket says whose token it is only once read: the token's count comes after.
    cap = request.app.state.settings.streams_per_token
    hold.take(f"token {opened.who.credential_id}", cap, "with one token")
    first = [
        _frame(version, data, retry=RETRY_MS if i == 0 else None)
        for i, (version, data) in enumerate(opened.events)
    ]
    past_end = request.query_params.get("past_end", "").lower() in TRUE
    return StreamStart(opened.who, opened.version, opened.ended, first, past_end)


OpeningDep = Annotated[StreamStart, Depends(stream_opening)]


async def resume_after(
    after: Annotated[
        int | None,
        Query(ge=0, le=2**31 - 1, description="Resume after this match version"),
    ] = None,
) -> int | None:
    """``?after=``, declared and validated (after ``stream_opening``, which used it)."""
    return after


AfterDep = Annotated[int | None, Depends(resume_after)]

TRUE = frozenset({"1", "true", "yes", "on", "t", "y"})  # as FastAPI reads a true bool


async def follow_past_end(
    past_end: Annotated[
        bool,
        Query(
            description="Keep the stream open after the match ends: its renames, re-issued "
            "tokens and rematch still arrive"
        ),
    ] = False,
) -> bool:
    """``?past_end=``, declared and validated (after ``stream_opening``, which used it)."""
    return past_end


PastEndDep = Annotated[bool, Depends(follow_past_end)]


def _frame(version: int, data: dict[str, Any], *, retry: int | None = None) -> bytes:
    """An event this stream alone sends (its opening, resync, revoked)."""
    kind = str(data["kind"])
    text = orjson.dumps(data).decode()
    return format_sse_event(data_str=text, event=kind, id=str(version), retry=retry)


@router.get(
    "/events",
    response_class=EventStream,
    name="followMatch",
    summary="Follow the match live (Server-Sent Events)",
    # Each event's data is a MatchEvent (app/api/openapi.py says so in the document).
    responses={
        200: {"model": MatchEvent},
        **responses(401, 403, 404, 422),
        429: {
            **responses(429)[429],
            "description": "Too many live streams open from this client address, or with "
            "this token (`rate_limited`); see Retry-After",
        },
    },
)
async def follow_match(
    opened: OpeningDep, _after: AfterDep, _past_end: PastEndDep, request: Request
) -> EventStream:
    """A `snapshot` of the match, then one event per change. Resume with
    `Last-Event-ID` (or `?after=version`): the changes missed are sent once each, in
    order, or a `snapshot` when they are too old to replay. The stream closes after
    `ended`; with `?past_end=true` it stays open, and the ended match's renames,
    re-issued tokens and the start of its rematch (`match_updated`, `rematch_id`) arrive
    as in play. One client address, and one token, may hold only so many streams open
    at once (429 past it)."""
    return EventStream(_events(request.app.state.hub, request.app.state.db, opened))


async def _events(hub: ChangeHub, db: Database, opened: StreamStart) -> AsyncGenerator[bytes, None]:
    who, sent = opened.who, opened.version
    if opened.ended and not opened.past_end:
        yield b"".join(opened.first) or FOLLOWING
        return
    subscription = hub.subscribe(who.match_id, from_version=sent)
    missed = hub.offered_after(who.match_id, sent)  # before this stream followed the match
    metrics.OPEN_STREAMS.inc()
    try:
        first, opened.first = opened.first, []
        yield b"".join(first) or FOLLOWING
        del first
        changes: list[Change] = []
        if missed:
            read = partial(streams.changes_after, match_id=who.match_id, after=sent)
            rows = await db.run(read)
            if len(rows) == streams.REPLAY_LIMIT:  # too many to replay: start afresh
                yield _frame(sent, {"kind": "resync", "version": sent})
                return
            changes = [Change.of(version, change) for version, change in rows]
        while True:
            frames = []
            for change in changes:
                if change.version <= sent:
                    continue
                sent = change.version
                frames.append(change.frame)
                if change.kind == "ended" and not opened.past_end:
                    yield b"".join(frames)
                    return
                if streams.revokes(change.event, who):
                    frames.append(_frame(sent, {"kind": "revoked", "version": sent}))
                    yield b"".join(frames)
                    return
            if frames:
                yield b"".join(frames)
            # An idle stream reads nothing: a token replaced meanwhile arrives as its
            # ``token_reissued`` change (the hub reads every followed match again after
            # a lost LISTEN connection), and a stream ticket counts only at the opening.
            if not await subscription.wait(HEARTBEAT_S):
                changes = []
                yield HEARTBEAT
                continue
            if subscription.overflowed:
                if not hub.closed:
                    yield _frame(sent, {"kind": "resync", "version": sent})
                return
            changes = subscription.take()
    finally:
        metrics.OPEN_STREAMS.dec()
        hub.unsubscribe(subscription)


@router.post(
    "/events/tickets",
    status_code=201,
    response_model=StreamTicket,
    name="createStreamTicket",
    summary="A short-lived ticket to follow the match from a browser",
    responses=responses(401, 403, 404, 429),
)
def create_stream_ticket(
    slot: ReaderWriteDep,
    limits: TicketLimitDep,
    request: Request,
    response: Response,
    match_id: str,
) -> StreamTicket:
    """For `new EventSource(url)`, which cannot send an Authorization header: the
    ticket opens this match's stream once, within 60 s, with the rights of the token
    that asked for it, and nothing else. The long-lived token never goes into a URL; a
    new stream (a reconnection too) takes a new ticket."""
    with slot.unit_as_caller() as caller:
        ticket, expires_at = streams.issue_ticket(caller.uow, caller.who, limits=limits)
    response.headers.update(NO_STORE)
    return StreamTicket(
        ticket=ticket,
        expires_at=expires_at,
        url=f"{request.url.path.removesuffix('/tickets')}?ticket={ticket}",
    )
