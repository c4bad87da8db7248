"""The write headers: Idempotency-Key and If-Match, checked before anything runs."""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import Header
from pydantic import BaseModel

from app.api.etag import ETAG_HEADER
from app.errors import FieldError, InvalidHeader
from app.services.idempotency import IdempotencyClaim

MAX_KEY_LENGTH = 255
_PRINTABLE = re.compile(r"[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?")
# Keys as hard to guess as a token: a random (version 4) UUID, 32+ hex digits, or 22+
# URL-safe characters that are not all hex digits (16 random bytes in base64url).
_RANDOM_UUID = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}"
)
_HEX = re.compile(r"[0-9a-fA-F]{32,}")
_URL_SAFE = re.compile(r"[A-Za-z0-9_-]{22,}")


_ANY_UUID = re.compile(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


def strong_key(key: str) -> bool:
    if _ANY_UUID.fullmatch(key):  # only a random one: others hold a clock or a name
        return bool(_RANDOM_UUID.fullmatch(key))
    if _HEX.fullmatch(key):
        return True
    return bool(_URL_SAFE.fullmatch(key)) and not re.fullmatch(r"[0-9a-fA-F]+", key)


_STRONG_ETAG = re.compile(r'"v(\d{1,18})"|"[\x21\x23-\x7e]*"')


def _bad(header: str, message: str) -> InvalidHeader:
    return InvalidHeader(f"{header}: {message}", errors=[FieldError(("header", header), message)])


IdempotencyKeyHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        description="Any unique string (a UUID is best), 1-255 printable ASCII characters. "
        "A retry with the same key and body replays the first response. Where the answer "
        "carries tokens (creating a match, recovering or re-issuing a token), the key must "
        "hold 128 random bits: a random (version 4) UUID, 32+ hex digits, or 22+ URL-safe "
        "characters (16 random bytes in base64url).",
    ),
]
IfMatchHeader = Annotated[
    str | None,
    Header(
        alias="If-Match",
        description='The ETag of the match as last read (e.g. "v7"), or *. '
        "A stale one is answered 412 and nothing is written.",
    ),
]


def idempotency_claim(
    key: str | None,
    *,
    scope: str,
    request: str,
    body: BaseModel | None,
    secret_answer: bool = False,
) -> IdempotencyClaim | None:
    """The request's Idempotency-Key, checked; None when the client sent none (the body
    is serialized for the key's fingerprint only when there is a key).

    The key of a write whose answer carries a token (``secret_answer``) opens that
    answer again, so it must be as hard to guess as one: at least 128 random bits."""
    if key is None:
        return None
    if not 1 <= len(key) <= MAX_KEY_LENGTH or not _PRINTABLE.fullmatch(key):
        raise _bad("Idempotency-Key", f"must be 1 to {MAX_KEY_LENGTH} printable ASCII characters")
    if secret_answer and not strong_key(key):
        raise _bad(
            "Idempotency-Key",
            "this answer carries tokens, so its key must be as hard to guess as one "
            "(128 random bits): a random (version 4) UUID, 32 or more hex digits, or 22 "
            "or more URL-safe characters (16 random bytes in base64url)",
        )
    data = body.model_dump(mode="json") if body is not None else None
    return IdempotencyClaim.of(key, scope=scope, request=request, body=data)


def if_match(value: str | None) -> frozenset[int] | None:
    """The match versions If-Match accepts; None when absent or ``*``."""
    if value is None or value.strip() == "*":
        return None
    versions: set[int] = set()
    for part in value.split(","):
        tag = part.strip()
        if tag.startswith("W/"):
            raise _bad("If-Match", "a weak ETag cannot be used for a write; send the strong one")
        match = _STRONG_ETAG.fullmatch(tag)
        if match is None:
            raise _bad("If-Match", f'{tag!r} is not an entity tag (a quoted string such as "v7")')
        if match.group(1) is not None:
            versions.add(int(match.group(1)))
    return frozenset(versions)


# The header a replayed write carries, as the OpenAPI document declares it.
REPLAYED_HEADER = {
    "Idempotent-Replayed": {
        "description": "true when this is a replayed response",
        "schema": {"type": "string", "enum": ["true"]},
    },
}
REPLAYABLE = {**REPLAYED_HEADER, **ETAG_HEADER}
CREATED = {
    **REPLAYABLE,
    "Location": {
        "description": "where the new resource is",
        "required": True,
        "schema": {"type": "string"},
    },
}


# An answer that carries a token or the recovery code: no cache (a browser's, a
# proxy's) may keep it.
NO_STORE = {"Cache-Control": "no-store"}
