"""Request dependencies: the database, the settings, and the caller's claim on the
match of the path (``ReaderDep``, ``PlayerDep``, ``HostDep``).

The claim is checked (401, 404, 403, in the contract's order) in the use case's unit
of work, before anything else is checked: ``app.api.reads.read``, and for a change
as the match is locked (``app.services.writes.lock_match_as``, which
``app.api.writes.answer_write`` runs the use case with).
A request refused before its use case runs (a body or header that does not validate)
is checked by the 422 handler first (``app.api.problems``), so the order holds.
"""

from collections.abc import Callable
from functools import cache, partial
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from fastapi import Depends, Request, params
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.db.database import Database
from app.services import auth
from app.services.auth import Access, Permission, Principal
from app.services.ratelimit import RateLimit
from app.settings import Settings


async def get_db(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


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


async def principal_of(db: Database, access: Access) -> Principal:
    """Who the token of ``access`` stands for, checked in a unit of work of its own: for
    the few requests whose use case does not run one (a stream opening, a refusal
    answered before the use case ran)."""
    return await db.run(partial(auth.check_access, access=access))


class Allowed(HTTPBearer):
    """The dependency of a route that needs ``need`` on the match of its path: the
    bearer token's claim on it, its shape checked (401 without a query). The use case
    checks the claim itself in its own unit of work (``auth.check_access``, or the
    credential read with the match), so a request reads the database once, not once
    to authorize and again to answer.

    It is FastAPI's ``HTTPBearer`` (the OpenAPI security scheme, the header parsed)
    with the permission the route needs."""

    def __init__(self, need: Permission) -> None:
        super().__init__(
            auto_error=False, scheme_name=BEARER_SCHEME, description=BEARER_DESCRIPTION
        )
        self.need = need

    async def __call__(self, request: Request, match_id: str) -> Access:  # type: ignore[override]
        credentials = await super().__call__(request)
        token = credentials.credentials if credentials is not None else None
        return Access.of(token, match_id, self.need)


@cache
def access_dependency(endpoint: Callable[..., Any]) -> Allowed | None:
    """The access dependency an endpoint declares (``ReaderDep``, ``PlayerDep`` or
    ``HostDep`` in its signature), read from its own annotations; None without one."""
    for hint in get_type_hints(endpoint, include_extras=True).values():
        if get_origin(hint) is not Annotated:
            continue
        for metadata in get_args(hint)[1:]:
            if isinstance(metadata, params.Depends) and isinstance(metadata.dependency, Allowed):
                return metadata.dependency
    return None


ReaderDep = Annotated[Access, Depends(Allowed(Permission.READ))]
PlayerDep = Annotated[Access, Depends(Allowed(Permission.PLAY))]
HostDep = Annotated[Access, Depends(Allowed(Permission.HOST))]


async def match_creation_limit(request: Request) -> RateLimit | None:
    """The client's limit on creating matches; None when the limit is off."""
    per_minute = request.app.state.settings.rate_limit_matches_per_minute
    if not per_minute:
        return None
    return RateLimit(
        client=request.client.host if request.client else "unknown", per_minute=per_minute
    )


RateLimitDep = Annotated[RateLimit | None, Depends(match_creation_limit)]
