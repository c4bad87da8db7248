"""Bearer tokens: issued once per role, stored as hashes, checked in constant time.

A token is ``<id>.<secret>``: the id finds the credential row, the secret is
checked against its SHA-256 with ``hmac.compare_digest``. Secrets carry 256
bits of randomness, so a fast hash is the right one (there is nothing to brute-force).
"""

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple, TypeVar

from app.db import repository
from app.db.engine import Database, LRUCache
from app.errors import Forbidden, MatchNotFound, Unauthenticated

MAX_TOKEN_LENGTH = 128
CLUSTER = 4  # leading characters of a credential id taken from its match's id
CREDENTIAL_CACHE_SIZE = 50_000

M = TypeVar("M")


class Role(StrEnum):
    HOST = "host"
    PLAYER = "player"
    VIEWER = "viewer"


class Permission(StrEnum):
    """What a request needs: read, play (rounds, End match) or host (settings)."""

    READ = "read"
    PLAY = "play"
    HOST = "host"


GRANTS = {
    Role.HOST: {Permission.READ, Permission.PLAY, Permission.HOST},
    Role.PLAYER: {Permission.READ, Permission.PLAY},
    Role.VIEWER: {Permission.READ},
}


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is asking: a role at one match (and a seat, for a player)."""

    match_id: str
    role: Role
    seat: int | None

    @property
    def label(self) -> str:
        """How the sheet records this principal: ``host``, ``seat:N`` or ``viewer``."""
        return f"seat:{self.seat}" if self.role is Role.PLAYER else self.role.value


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def new_credentials(match_id: str, seat_count: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Fresh tokens for a new match: the clear tokens and the rows to store."""
    clear: dict[str, Any] = {"players": []}
    rows: list[dict[str, Any]] = []
    roles = [(Role.HOST, None), *((Role.PLAYER, s) for s in range(seat_count)), (Role.VIEWER, None)]
    for role, seat in roles:
        # The id starts with the match's: a match's credentials sit side by side in the
        # primary-key index, so creating a match writes one page of it, not one a token.
        credential_id = match_id[:CLUSTER] + secrets.token_urlsafe(9)  # 16 characters
        secret = secrets.token_urlsafe(32)
        token = f"{credential_id}.{secret}"
        rows.append(
            {
                "id": credential_id,
                "match_id": match_id,
                "role": role.value,
                "seat": seat,
                "secret_hash": _hash(secret),
            }
        )
        if role is Role.PLAYER:
            clear["players"].append(token)
        else:
            clear[role.value] = token
    return clear, rows


def authenticate(db: Database, token: str | None) -> Principal:
    """The principal behind a bearer token, or Unauthenticated."""
    if not token or len(token) > MAX_TOKEN_LENGTH or token.count(".") != 1:
        raise Unauthenticated("send Authorization: Bearer <token> with a token of this match")
    if not token.isascii():  # tokens are URL-safe base64; compare_digest takes ASCII only
        raise Unauthenticated("the token is not known")
    credential_id, secret = token.split(".")
    cache = _credentials(db)
    known = cache.get(credential_id)
    if known is None:
        with db.read() as conn:
            row = repository.get_credential(conn, credential_id)
        if row is None:
            raise Unauthenticated("the token is not known")
        principal = Principal(row["match_id"], Role(row["role"]), row["seat"])
        known = _Known(secret_hash=row["secret_hash"], principal=principal, secret=None)
        cache.put(credential_id, known)
    if known.secret is not None:  # verified before: no need to hash it again
        if hmac.compare_digest(known.secret, secret):
            return known.principal
        raise Unauthenticated("the token is not known")
    if not hmac.compare_digest(known.secret_hash, _hash(secret)):
        raise Unauthenticated("the token is not known")
    cache.put(credential_id, known._replace(secret=secret))
    return known.principal


class _Known(NamedTuple):
    """A credential this process has read; ``secret`` once a token has matched its hash."""

    secret_hash: str
    principal: Principal
    secret: str | None


def _credentials(db: Database) -> LRUCache[_Known]:
    """Credentials never change once issued, so each process keeps the ones it has seen,
    and the secret that matched, so a token is hashed once per process, not per request."""
    return db.cache("credentials", CREDENTIAL_CACHE_SIZE)


def authorize(db: Database, who: Principal, match_id: str, need: Permission) -> None:
    """Check, in the contract's order, that the match exists (404) and ``who`` may act (403).

    A token's own match always exists (credentials go with their match), so the
    database is asked only when the token names another match.
    """
    if who.match_id != match_id:
        with db.read() as conn:
            exists = repository.get_match(conn, match_id) is not None
        if not exists:
            raise MatchNotFound(f"no match {match_id!r}")
        raise Forbidden("this token belongs to another match")
    if need not in GRANTS[who.role]:
        raise Forbidden(f"a {who.role.value} token cannot {need.value} this match")


def found(match: M | None, match_id: str) -> M:
    """The match row, or MatchNotFound."""
    if match is None:
        raise MatchNotFound(f"no match {match_id!r}")
    return match
