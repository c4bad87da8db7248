"""Request dependencies: the database, the settings, and the caller authenticated and
authorized for the route (``ReaderDep``, ``PlayerDep``, ``HostDep``).

Authentication (401), the match lookup (404) and authorization (403) run in one
dependency, before the endpoint, in the order the contract gives.
"""

from dataclasses import dataclass
from functools import partial
from typing import Annotated

from fastapi import Depends, Request
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.db.database import Database
from app.services import auth
from app.services.auth import Permission, Principal
from app.services.ratelimit import RateLimit
from app.settings import Settings


async def get_db(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


DbDep = Annotated[Database, Depends(get_db)]
SettingsDep = Annotated[Settings, Depends(get_settings)]

bearer = HTTPBearer(
    auto_error=False,
    scheme_name="HTTPBearer",
    description="A host, player or viewer token of the match",
)
BearerDep = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


async def principal_of(
    request: Request, token: str | None, match_id: str, need: Permission
) -> Principal:
    """Who ``token`` stands for, allowed ``need`` on match ``match_id``; or the
    service error (401, 404, 403) that says why not."""
    db: Database = request.app.state.db
    credential_id, secret = auth.parse_token(token)
    # Read on every request, never kept: a token the host re-issued stops working at
    # once, on every worker.
    credential = await db.run(partial(auth.load_credential, credential_id=credential_id))
    who = auth.verify(credential, secret)
    exists = who.match_id == match_id or (
        auth.is_match_id(match_id) and await db.run(partial(auth.match_exists, match_id=match_id))
    )
    auth.authorize(who, match_id, need, match_exists=exists)
    return who


@dataclass(frozen=True, slots=True)
class Allowed:
    """The dependency of a route that needs ``need`` on the match of its path."""

    need: Permission

    async def __call__(self, request: Request, match_id: str, credentials: BearerDep) -> Principal:
        token = credentials.credentials if credentials is not None else None
        return await principal_of(request, token, match_id, self.need)


def access_of(route: APIRoute) -> Permission | None:
    """What the route's access dependency requires, when it has one."""
    for dependency in route.dependant.dependencies:
        if isinstance(dependency.call, Allowed):
            return dependency.call.need
    return None


ReaderDep = Annotated[Principal, Depends(Allowed(Permission.READ))]
PlayerDep = Annotated[Principal, Depends(Allowed(Permission.PLAY))]
HostDep = Annotated[Principal, Depends(Allowed(Permission.HOST))]


async def match_creation_limit(request: Request) -> RateLimit | None:
    """The client's limit on creating matches; None when the limit is off."""
    per_minute = request.app.state.settings.rate_limit_matches_per_minute
    if not per_minute:
        return None
    return RateLimit(
        client=request.client.host if request.client else "unknown", per_minute=per_minute
    )


RateLimitDep = Annotated[RateLimit | None, Depends(match_creation_limit)]
