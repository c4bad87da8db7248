"""Bearer tokens: issued once per role, stored as hashes, checked in constant time.

A token is ``<id>.<secret>``: the id finds the credential row, the secret is
checked against its SHA-256 with ``hmac.compare_digest``. Secrets carry 256
bits of randomness, so a fast hash is the right one (there is nothing to brute-force).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from sqlalchemy import RowMapping

from app.db import repository
from app.db.database import UnitOfWork
from app.errors import Forbidden, MatchNotFound, Unauthenticated

MAX_TOKEN_LENGTH = 128
CLUSTER = 4  # leading characters of a credential id taken from its match's id

TOKEN = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
MATCH_ID = re.compile(r"[0-9a-f]{32}")

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
    credential_id: str | None = None  # the token's, when a token says who it is

    @property
    def label(self) -> str:
        """How the sheet records this principal: ``host``, ``seat:N`` or ``viewer``."""
        return f"seat:{self.seat}" if self.role is Role.PLAYER else self.role.value


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def new_credential(match_id: str, role: Role, seat: int | None) -> tuple[str, dict[str, Any]]:
    """A fresh token for one role at a match: the clear token and the row to store."""
    # The id starts with the match's: a match's credentials sit side by side in the
    # primary-key index, so creating a match writes one page of it, not one a token.
    credential_id = match_id[:CLUSTER] + secrets.token_urlsafe(9)  # 16 characters
    secret = secrets.token_urlsafe(32)
    row = {
        "id": credential_id,
        "match_id": match_id,
        "role": role.value,
        "seat": seat,
        "secret_hash": hash_secret(secret),
        "recovery_sealed": None,  # a host's, once its recovery code is sealed for it
    }
    return f"{credential_id}.{secret}", row


def new_credentials(match_id: str, seat_count: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Fresh tokens for a new match: the clear tokens and the rows to store."""
    clear: dict[str, Any] = {"players": []}
    rows: list[dict[str, Any]] = []
    roles = [(Role.HOST, None), *((Role.PLAYER, s) for s in range(seat_count)), (Role.VIEWER, None)]
    for role, seat in roles:
        token, row = new_credential(match_id, role, seat)
        rows.append(row)
        if role is Role.PLAYER:
            clear["players"].append(token)
        else:
            clear[role.value] = token
    return clear, rows


def new_recovery_code() -> tuple[str, str]:
    """A host recovery code, shown once, and the hash to store."""
    code = secrets.token_urlsafe(32)
    return code, hash_secret(code)


def recovery_matches(code: str, stored_hash: str | None) -> bool:
    """Whether ``code`` is the recovery code whose hash is stored (constant time)."""
    if stored_hash is None or not code.isascii():
        return False
    return _secret_matches(stored_hash, code)


def parse_token(token: str | None) -> tuple[str, str]:
    """A bearer token's credential id and secret, or Unauthenticated. Only a token
    of the shape this service issues reaches the database."""
    if not token or len(token) > MAX_TOKEN_LENGTH or token.count(".") != 1:
        raise Unauthenticated("send Authorization: Bearer <token> with a token of this match")
    if not TOKEN.fullmatch(token):  # tokens are URL-safe base64
        raise Unauthenticated("the token is not known")
    credential_id, secret = token.split(".")
    return credential_id, secret


def is_match_id(text: str) -> bool:
    """Whether ``text`` has the shape of a match id (32 lowercase hex digits); one that
    has not names no match, and is answered without asking the database."""
    return MATCH_ID.fullmatch(text) is not None


@dataclass(frozen=True, slots=True)
class Access:
    """What a request claims: the token it sent (its shape checked, its secret not yet),
    the match of its path, and what it needs there. Decided in the unit of work of the
    request's use case: by ``check_access``, or with the match (``match_for_caller``)."""

    match_id: str
    credential_id: str
    need: Permission
    secret: str = field(repr=False)  # never in a log or a traceback's locals

    @classmethod
    def of(cls, token: str | None, match_id: str, need: Permission) -> Access:
        """The claim of a bearer token, or Unauthenticated when it has no token's shape."""
        credential_id, secret = parse_token(token)
        return cls(match_id=match_id, credential_id=credential_id, need=need, secret=secret)


@dataclass(frozen=True, slots=True)
class Caller:
    """The request's unit of work, and in it the caller found allowed: who they are
    and the match's row (locked until the commit, for a change)."""

    uow: UnitOfWork
    who: Principal
    match: RowMapping


def check_access(uow: UnitOfWork, access: Access) -> Principal:
    """Who the token stands for, allowed ``access.need`` on its match; or the service
    error that says why not, in the contract's order: unknown token (401), no such
    match (404), another match's token or a role without the right (403).

    Read on every request, never kept: a token the host re-issued stops working at
    once, on every worker.
    """
    row = repository.get_credential(uow.connection, access.credential_id)
    if row is None or not _secret_matches(row["secret_hash"], access.secret):
        raise Unauthenticated("the token is not known")
    who = Principal(row["match_id"], Role(row["role"]), row["seat"], access.credential_id)
    match_id = access.match_id
    if who.match_id != match_id:
        # A token's own match always exists (credentials go with their match); an id
        # without a match id's shape names none, and is answered without a query.
        if not is_match_id(match_id) or not repository.match_exists(uow.connection, match_id):
            raise MatchNotFound(f"no match {match_id!r}")
        raise Forbidden("this token belongs to another match")
    if access.need not in GRANTS[who.role]:
        raise Forbidden(f"a {who.role.value} token cannot {access.need.value} this match")
    return who


def match_for_caller(
    uow: UnitOfWork, access: Access, *, for_update: bool = False
) -> tuple[RowMapping, Principal]:
    """The match row of ``access`` (``for_update``: locked, with the credential's row,
    until the transaction ends) and who the token stands for, read in one statement
    when the token is one of this match's and its role grants the need. Otherwise
    ``check_access`` says why not: 401, 404 or 403."""
    row = None
    if is_match_id(access.match_id):  # another id names no match, and is not sent
        row = repository.get_match_with_credential(
            uow.connection, access.match_id, access.credential_id, for_update=for_update
        )
    if row is None or not _allows(access, row["credential_role"], row["credential_secret_hash"]):
        # Raises with the reason. (Should the caller be allowed after all, the two
        # statements the join stands for are taken one after the other.)
        who = check_access(uow, access)
        match = repository.get_match(uow.connection, access.match_id, for_update=for_update)
        return or_not_found(match, access.match_id), who
    role = Role(row["credential_role"])
    return row, Principal(access.match_id, role, row["credential_seat"], access.credential_id)


def _allows(access: Access, role: str, secret_hash: str) -> bool:
    """Whether a credential of the match, read with it, lets the token do what
    ``access`` needs: its secret is the token's and its role grants the need."""
    return _secret_matches(secret_hash, access.secret) and access.need in GRANTS[Role(role)]


def _secret_matches(secret_hash: str, secret: str) -> bool:
    return hmac.compare_digest(secret_hash, hash_secret(secret))


def credential_exists(uow: UnitOfWork, credential_id: str) -> bool:
    """Whether a token is still valid (not replaced by a re-issued one)."""
    return repository.get_credential(uow.connection, credential_id) is not None


def or_not_found(match: M | None, match_id: str) -> M:
    """The match row, or MatchNotFound."""
    if match is None:
        raise MatchNotFound(f"no match {match_id!r}")
    return match
