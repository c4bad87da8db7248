"""Request dependencies: the database, the settings, and the request's unit of work
with the caller checked in it (``ReaderDep``, ``SnapshotReaderDep``, ``PlayerDep``,
``HostDep``; ``WriteUnitDep`` for a write open to anyone).

A route declares what it needs, and gets it ready: the unit of work is open, the
bearer token's claim on the match of the path has been checked in it (401, 404,
403, in the contract's order, before FastAPI validates the body: 422 comes after),
and for a change the match's row is locked. The route calls its use case and
answers; the unit commits when the route returns, before the answer is sent
(``scope="function"``), or rolls back when it raises.
"""

from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from functools import cache, partial
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from fastapi import Depends, Request, params
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import RowMapping

from app.db.database import Database, UnitOfWork
from app.services.auth import Access, Permission, Principal, match_for_caller, parse_token
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


async def bearer_token(credentials: BearerDep) -> str:
    """The bearer token sent, its shape checked (401 without asking the database)."""
    token = credentials.credentials if credentials is not None else None
    parse_token(token)
    assert token is not None
    return token


# Before the database turn: a request without a token of the right shape is 401 at once.
BearerTokenDep = Annotated[str, Depends(bearer_token)]


def access_of(
    credentials: HTTPAuthorizationCredentials | None, match_id: str, need: Permission
) -> Access:
    """The claim of the bearer token sent (401 when it has no token's shape)."""
    return Access.of(credentials.credentials if credentials is not None else None, match_id, need)


async def database_turn(request: Request) -> AsyncIterator[None]:
    """The request's turn at the database (``Database.turn``: a request that is not a
    GET writes), awaited on the event loop before its unit of work takes a thread."""
    async with database_of(request).turn(write=request.method not in ("GET", "HEAD")):
        yield


TurnDep = Annotated[None, Depends(database_turn, scope="function")]


@dataclass(frozen=True, slots=True)
class Caller:
    """The request's unit of work, and in it the caller found allowed: who they are
    and the match's row (locked until the commit, for a change)."""

    uow: UnitOfWork
    who: Principal
    match: RowMapping


class CallerUnit:
    """The dependency of a route that needs ``need`` on the match of its path: it opens
    the request's unit of work (``write``, or a ``snapshot`` read of several
    statements) and checks the caller in it, with the match read (and, for a write,
    locked) in the same statement (``match_for_caller``)."""

    def __init__(self, need: Permission, *, write: bool = False, snapshot: bool = False) -> None:
        self.need = need
        self.write = write
        self.snapshot = snapshot

    def __call__(
        self, request: Request, match_id: str, token: BearerTokenDep, turn: TurnDep
    ) -> Iterator[Caller]:
        access = Access.of(token, match_id, self.need)
        # A change locks the match; a reader's write (a stream ticket) need not.
        lock = self.write and self.need is not Permission.READ
        with database_of(request).unit_of_work(write=self.write, snapshot=self.snapshot) as uow:
            match, who = match_for_caller(uow, access, for_update=lock)
            yield Caller(uow, who, match)


def write_unit(request: Request, turn: TurnDep) -> Iterator[UnitOfWork]:
    """The unit of work of a write open to anyone (create a match; recover the host's
    token, whose recovery code the use case checks)."""
    with database_of(request).unit_of_work(write=True) as uow:
        yield uow


# A read of one statement (the match with the caller's credential).
ReaderDep = Annotated[Caller, Depends(CallerUnit(Permission.READ), scope="function")]
# A read of several statements, which must see one state.
SnapshotReaderDep = Annotated[
    Caller, Depends(CallerUnit(Permission.READ, snapshot=True), scope="function")
]
# A write any role may make (a stream ticket).
ReaderWriteDep = Annotated[
    Caller, Depends(CallerUnit(Permission.READ, write=True), scope="function")
]
PlayerDep = Annotated[Caller, Depends(CallerUnit(Permission.PLAY, write=True), scope="function")]
HostDep = Annotated[Caller, Depends(CallerUnit(Permission.HOST, write=True), scope="function")]
WriteUnitDep = Annotated[UnitOfWork, Depends(write_unit, scope="function")]


@cache
def caller_need(endpoint: Callable[..., Any]) -> Permission | None:
    """What the caller of an endpoint must be allowed (its ``ReaderDep``, ``PlayerDep``
    or ``HostDep``), read from its own annotations; None for an endpoint open to anyone."""
    for hint in get_type_hints(endpoint, include_extras=True).values():
        if get_origin(hint) is not Annotated:
            continue
        for metadata in get_args(hint)[1:]:
            if isinstance(metadata, params.Depends) and isinstance(metadata.dependency, CallerUnit):
                return metadata.dependency.need
    return None


async def check_caller(db: Database, access: Access) -> Principal:
    """Who the token of ``access`` stands for, checked in a unit of work of its own: for
    a request whose route opens none (a stream), or refused before its route's
    dependencies ran (a body that is not JSON)."""
    _, who = await db.run(partial(match_for_caller, access=access))
    return who


async def match_creation_limit(request: Request) -> RateLimit | None:
    """The client's limit on creating matches; None when the limit is off."""
    per_minute = request.app.state.settings.rate_limit_matches_per_minute
    if not per_minute:
        return None
    return RateLimit(
        client=request.client.host if request.client else "unknown", per_minute=per_minute
    )


RateLimitDep = Annotated[RateLimit | None, Depends(match_creation_limit)]
