"""Request dependencies: the database and the caller, authenticated and authorized.

Authentication (401), the match lookup (404) and authorization (403) run as
dependencies, so they answer before the body is validated (422), as API.md orders.
"""

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.db.engine import Database
from app.services.auth import Permission, Principal, authenticate, authorize
from app.services.ratelimit import check_match_creation

_bearer = HTTPBearer(auto_error=False, description="A host, player or viewer token of the match")


async def get_db(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


DbDep = Annotated[Database, Depends(get_db)]


async def get_principal(
    db: DbDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Principal:
    """Authenticate the bearer token (401 when missing or unknown)."""
    return authenticate(db, credentials.credentials if credentials else None)


PrincipalDep = Annotated[Principal, Depends(get_principal)]


def _allowed(need: Permission) -> object:
    async def dependency(db: DbDep, who: PrincipalDep, match_id: str) -> Principal:
        authorize(db, who, match_id, need)
        return who

    return Depends(dependency)


ReaderDep = Annotated[Principal, _allowed(Permission.READ)]
PlayerDep = Annotated[Principal, _allowed(Permission.PLAY)]
HostDep = Annotated[Principal, _allowed(Permission.HOST)]


async def limit_match_creation(request: Request, db: DbDep) -> None:
    """429 with Retry-After once a client creates too many matches a minute."""
    per_minute = request.app.state.settings.rate_limit_matches_per_minute
    if per_minute:
        client = request.client.host if request.client else "unknown"
        check_match_creation(db, client, per_minute=per_minute)
