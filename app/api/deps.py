"""Request dependencies: the database, the settings, and the request's slot at the
database, its turn held (``ReaderDep``, ``SnapshotReaderDep``, ``PlayerDep``,
``PlayerReaderDep``, ``HostDep``; ``WriteSlotDep`` for a write open to anyone).

A route declares what it needs, and gets its ``DbSlot``: the bearer token's shape has been
checked (401), and a turn at the database awaited on the event loop. The route then
runs its whole unit of work in its one worker thread, forward::

    with slot.unit_as_caller() as caller:  # the caller checked: 401, 404, 403
        result = <the use case>(caller.uow, ...)
    return <the answer rendered from result>

The unit commits when the ``with`` block ends, before the answer is sent, or rolls
back when it raises. FastAPI validates the request before the route runs: its 422
handler checks the caller first (``app.api.problems``), so 401/404/403 still come
before 422.
"""

import hashlib
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, partial
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from fastapi import Depends, Request, params
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.db.database import Database, UnitOfWork
from app.services.auth import (
    Access,
    Caller,
    Permission,
    Principal,
    match_for_caller,
    parse_token,
)
from app.services.ratelimit import RateLimit
from app.settings import Settings


def database_of(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


async def get_db(request: Request) -> Database:
    return database_of(request)


async def get_app_settings(request: Request) -> Settings:
    """The settings the app was built with (``create_app``)."""
    settings: Settings = request.app.state.settings
    return settings


DbDep = Annotated[Database, Depends(get_db)]
SettingsDep = Annotated[Settings, Depends(get_app_settings)]

BEARER_SCHEME = "HTTPBearer"
BEARER_DESCRIPTION = "A host, player or viewer token of the match"
bearer = HTTPBearer(auto_error=False, scheme_name=BEARER_SCHEME, description=BEARER_DESCRIPTION)
BearerDep = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


async def bearer_token(credentials: BearerDep) -> tuple[str, str]:
    """The bearer token sent, parsed once for the request: its credential id and
    secret (401 without asking the database)."""
    return parse_token(credentials.credentials if credentials is not None else None)


# Before the database slot: a request without a token of the right shape is 401 at once.
BearerTokenDep = Annotated[tuple[str, str], Depends(bearer_token)]


def access_of(
    credentials: HTTPAuthorizationCredentials | None, match_id: str, need: Permission
) -> Access:
    """The claim of the bearer token sent (401 when it has no token's shape)."""
    return Access.of(credentials.credentials if credentials is not None else None, match_id, need)


@dataclass(frozen=True, slots=True)
class DbSlot:
    """The request's slot at the database: its turn (``Database.turn``), held from
    before its route runs until the route returns, and the caller's claim. The route
    opens its one unit of work in it, in its worker thread: ``with
    slot.unit_as_caller() as caller:``, or ``slot.db.unit_of_work(write=True)`` for a
    write open to anyone or one that checks its caller later (``check``)."""

    db: Database
    write: bool
    snapshot: bool = False
    access: Access | None = None  # what the caller claims, checked by ``unit_as_caller()``

    @contextmanager
    def unit_as_caller(self) -> Iterator[Caller]:
        """The unit of work with the caller checked in it (``check``)."""
        with self.db.unit_of_work(write=self.write, snapshot=self.snapshot) as uow:
            yield self.check(uow)

    def check(self, uow: UnitOfWork) -> Caller:
        """The caller, checked in ``uow`` (401, 404, 403, in the contract's order), with
        the match read, and for a change locked, in the same statement
        (``match_for_caller``)."""
        assert self.access is not None, "a route open to anyone has no caller"
        # A change locks the match; a reader's write (a stream ticket) need not.
        lock = self.write and self.access.need is not Permission.READ
        match, who = match_for_caller(uow, self.access, for_update=lock)
        return Caller(uow, who, match)


class DbSlotForCaller:
    """The dependency of a route that needs ``need`` on the match of its path: the
    token's shape checked (401 at once), then the request's turn (``write``, or a
    ``snapshot`` read of several statements) awaited on the event loop.

    The caller is checked in the route's unit of work (``DbSlot.unit_as_caller``), so
    that the whole unit runs in one worker thread; a 422, which FastAPI answers before the
    route runs, checks the caller first in its handler (``app.api.problems``).
    """

    def __init__(self, need: Permission, *, write: bool = False, snapshot: bool = False) -> None:
        self.need = need
        self.write = write
        self.snapshot = snapshot

    async def __call__(
        self, request: Request, match_id: str, token: BearerTokenDep
    ) -> AsyncIterator[DbSlot]:
        credential_id, secret = token  # parsed once, by ``bearer_token``
        access = Access(
            match_id=match_id, credential_id=credential_id, need=self.need, secret=secret
        )
        db = database_of(request)
        async with db.turn(write=self.write):
            yield DbSlot(db, self.write, self.snapshot, access)


async def write_slot(request: Request) -> AsyncIterator[DbSlot]:
    """The slot of a write open to anyone (create a match; recover the host's token,
    whose recovery code the use case checks)."""
    db = database_of(request)
    async with db.turn(write=True):
        yield DbSlot(db, write=True)


# A read of one statement (the match with the caller's credential).
ReaderDep = Annotated[DbSlot, Depends(DbSlotForCaller(Permission.READ), scope="function")]
# A read of several statements, which must see one state.
SnapshotReaderDep = Annotated[
    DbSlot, Depends(DbSlotForCaller(Permission.READ, snapshot=True), scope="function")
]
# A write any role may make (a stream ticket).
ReaderWriteDep = Annotated[
    DbSlot, Depends(DbSlotForCaller(Permission.READ, write=True), scope="function")
]
PlayerDep = Annotated[
    DbSlot, Depends(DbSlotForCaller(Permission.PLAY, write=True), scope="function")
]
# A read only a player or the host may make (a round's preview): the match is not locked.
PlayerReaderDep = Annotated[DbSlot, Depends(DbSlotForCaller(Permission.PLAY), scope="function")]
HostDep = Annotated[DbSlot, Depends(DbSlotForCaller(Permission.HOST, write=True), scope="function")]
# A read only the host may make (the recovery code).
HostReaderDep = Annotated[DbSlot, Depends(DbSlotForCaller(Permission.HOST), scope="function")]
WriteSlotDep = Annotated[DbSlot, Depends(write_slot, scope="function")]


@cache
def caller_need(endpoint: Callable[..., Any]) -> Permission | None:
    """What the caller of an endpoint must be allowed (its ``ReaderDep``, ``PlayerDep``
    or ``HostDep``), read from its own annotations; None for an endpoint open to anyone."""
    for hint in get_type_hints(endpoint, include_extras=True).values():
        if get_origin(hint) is not Annotated:
            continue
        for metadata in get_args(hint)[1:]:
            if isinstance(metadata, params.Depends) and isinstance(
                metadata.dependency, DbSlotForCaller
            ):
                return metadata.dependency.need
    return None


async def check_caller(db: Database, access: Access) -> Principal:
    """Who the token of ``access`` stands for, checked in a unit of work of its own: for
    a request whose route opens none (a stream), or refused before its route's
    dependencies ran (a body that is not JSON)."""
    _, who = await db.run(partial(match_for_caller, access=access))
    return who


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


async def match_creation_limit(request: Request) -> tuple[RateLimit, ...]:
    """The client's limit on creating matches; none when the limit is off."""
    per_minute = request.app.state.settings.rate_limit_matches_per_minute
    if not per_minute:
        return ()
    client = client_address(request)
    return (RateLimit(f"matches {client}", per_minute, "matches created from one client"),)


RateLimits = tuple[RateLimit, ...]


class Limits:
    """The limits of an operation (``kind``), from its setting: per client address and
    per match at ``per_match`` addresses' worth, each counted apart (0: not per match);
    none when the setting is 0.

    A match's id is in every join link: a count for one match larger than one
    address's keeps any one address from using it up for every phone, while all of
    them together stay bounded.
    """

    def __init__(self, kind: str, setting: str, *, per_match: int) -> None:
        self.kind, self.setting, self.per_match = kind, setting, per_match

    async def __call__(self, request: Request, match_id: str) -> RateLimits:
        per_minute: int = getattr(request.app.state.settings, self.setting)
        if not per_minute:
            return ()
        client = client_address(request)
        limits = [RateLimit(f"{self.kind} {client}", per_minute, f"{self.kind} from one client")]
        if self.per_match:
            limits.append(
                RateLimit(
                    f"{self.kind} match {match_id}",
                    per_minute * self.per_match,
                    f"{self.kind} for one match",
                )
            )
        return tuple(limits)


class TokenLimits:
    """The limits of an operation (``kind``) that counts the token sent, from its
    setting: per token at each client address, and per address at ``per_address``
    tokens' worth, each counted apart; none when the setting is 0.

    A viewer's token is shared widely, and a match's id is in every link: a count for
    a whole token or match, whatever its size, is used up from a few addresses for
    every phone. Counted per address, one address spends its own only.
    """

    def __init__(self, kind: str, setting: str, *, per_address: int) -> None:
        self.kind, self.setting, self.per_address = kind, setting, per_address

    async def __call__(self, request: Request, token: BearerTokenDep) -> RateLimits:
        per_minute: int = getattr(request.app.state.settings, self.setting)
        if not per_minute:
            return ()
        client = client_address(request)
        credential_id, _ = token
        # A digest of the pair: a credential id and an IPv6 address outgrow the key.
        pair = f"{credential_id} {client}".encode()
        digest = hashlib.blake2b(pair, digest_size=16).hexdigest()
        return (
            RateLimit(
                f"{self.kind} token {digest}",
                per_minute,
                f"{self.kind} with one token from one client",
            ),
            RateLimit(
                f"{self.kind} {client}",
                per_minute * self.per_address,
                f"{self.kind} from one client",
            ),
        )


RateLimitDep = Annotated[RateLimits, Depends(match_creation_limit)]
REISSUE_LIMITS = Limits("re-issued tokens", "rate_limit_tokens_per_minute", per_match=1)
RECOVERY_LIMITS = Limits("host recoveries", "rate_limit_tokens_per_minute", per_match=10)
# An address's tickets: ten tokens' worth (the host's, the players' and the viewers'
# phones behind one router).
TICKET_LIMITS = TokenLimits("stream tickets", "rate_limit_tickets_per_minute", per_address=10)
# Reads whose size grows with the match (the sheet, its CSV, the histories): counted
# per address in each process (``ProcessCounts``), as a read takes no write turn.
READ_LIMITS = Limits("sheet and history reads", "rate_limit_reads_per_minute", per_match=0)
ReissueLimitDep = Annotated[RateLimits, Depends(REISSUE_LIMITS)]
RecoveryLimitDep = Annotated[RateLimits, Depends(RECOVERY_LIMITS)]
TicketLimitDep = Annotated[RateLimits, Depends(TICKET_LIMITS)]
ReadLimitDep = Annotated[RateLimits, Depends(READ_LIMITS)]
