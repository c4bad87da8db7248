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
_STRONG_ETAG = re.compile(r'"v(\d{1,18})"|"[\x21\x23-\x7e]*"')


def _bad(header: str, message: str) -> InvalidHeader:
    return InvalidHeader(f"{header}: {message}", errors=[FieldError(("header", header), message)])


IdempotencyKeyHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        description="Any unique string (a UUID is best), 1-255 printable ASCII characters. "
        "A retry with the same key and body replays the first response.",
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
    key: str | None, *, scope: str, request: str, body: BaseModel | None
) -> IdempotencyClaim | None:
    """The request's Idempotency-Key, checked; None when the client sent none (the body
    is serialized for the key's fingerprint only when there is a key)."""
    if key is None:
        return None
    if not 1 <= len(key) <= MAX_KEY_LENGTH or not _PRINTABLE.fullmatch(key):
        raise _bad("Idempotency-Key", f"must be 1 to {MAX_KEY_LENGTH} printable ASCII characters")
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
REPLAYABLE = {
    "Idempotent-Replayed": {
        "description": "true when this is a replayed response",
        "schema": {"type": "string", "enum": ["true"]},
    },
    **ETAG_HEADER,
}
CREATED = {
    **REPLAYABLE,
    "Location": {
        "description": "where the new resource is",
        "required": True,
        "schema": {"type": "string"},
    },
}
