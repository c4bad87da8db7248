"""Request dependencies: the database and the caller's principal."""

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.db.engine import Database
from app.services.auth import Principal, authenticate

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
