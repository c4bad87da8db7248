"""How a write is answered over HTTP: one unit of work, its Idempotency-Key claimed,
the caller's access checked as the use case locks the match, and the response kept
with the key so a retry replays it exactly (to a caller allowed to make the write).

The first response of a request that passed validation is kept with its key: a
success, or a state conflict (409), which is committed (with nothing else: every
409 is raised before the use case writes) and answered. Anything else (422, 412,
429) rolls back and keeps nothing, so a corrected retry with the same key goes ahead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import Response
from pydantic import BaseModel
from pydantic_core import to_json

from app.api.problems import PROBLEM_JSON, problem_body, status_of
from app.db.database import Database, UnitOfWork
from app.errors import ServiceError
from app.services import idempotency
from app.services.auth import Access, check_access
from app.services.idempotency import IdempotencyClaim, KeptResponse


class AccessNotChecked(RuntimeError):
    """A write's use case ran to its end without checking the caller's access: a bug,
    answered 500 with nothing committed."""


@dataclass(frozen=True, slots=True)
class WriteResult:
    """A write's response: its status, body (a declared response model) and headers."""

    status: int
    body: BaseModel | None = None
    headers: dict[str, str] = field(default_factory=dict)


async def answer_write(
    db: Database,
    access: Access,
    key_claim: IdempotencyClaim | None,
    work: Callable[[UnitOfWork], WriteResult],
) -> Response:
    """Run ``work``, a change ``access`` asks for, in one write unit of work honouring
    the Idempotency-Key, and answer.

    The key is claimed first. The use case checks ``access`` as it locks the match
    (``lock_match_as``), before it checks anything else; a kept response is replayed,
    and a key refused, only once ``check_access`` has found the caller allowed to
    make the write. Nothing is committed unless the unit checked ``access``
    (``AccessNotChecked`` otherwise)."""

    def unit(uow: UnitOfWork) -> Response:
        kept = None
        if key_claim is not None:
            try:
                kept = idempotency.claim(uow, key_claim)
            except ServiceError:  # the key reused for another request: 401/404/403 first
                check_access(uow, access)
                raise
        if kept is not None:
            check_access(uow, access)
            response = _replay(kept)
        else:
            response = _answer_claimed(uow, key_claim, work)
        if uow.allowed is not access:
            raise AccessNotChecked("the use case did not check the caller's access")
        return response

    return await db.run(unit, write=True)


async def answer_open_write(
    db: Database, key_claim: IdempotencyClaim | None, work: Callable[[UnitOfWork], WriteResult]
) -> Response:
    """``answer_write`` for a write open to anyone (create a match; recover the host's
    token, whose recovery code the use case checks)."""

    def unit(uow: UnitOfWork) -> Response:
        if key_claim is not None and (kept := idempotency.claim(uow, key_claim)) is not None:
            return _replay(kept)
        return _answer_claimed(uow, key_claim, work)

    return await db.run(unit, write=True)


def _answer_claimed(
    uow: UnitOfWork, key_claim: IdempotencyClaim | None, work: Callable[[UnitOfWork], WriteResult]
) -> Response:
    """Run ``work``; keep the first response of a request with a key (``key_claim``)."""
    try:
        answer = work(uow)
    except ServiceError as error:
        if key_claim is None or status_of(error) != 409:
            raise
        kept = KeptResponse(status=409, body=problem_body(error), headers={})
        idempotency.keep(uow, key_claim, kept)
        return _replay(kept, replayed=False)
    if key_claim is not None:
        body = answer.body.model_dump(mode="json") if answer.body is not None else None
        idempotency.keep(uow, key_claim, KeptResponse(answer.status, body, answer.headers))
    return _response(answer)


def _response(answer: WriteResult) -> Response:
    if answer.body is None:
        return Response(status_code=answer.status, headers=answer.headers)
    return Response(
        answer.body.model_dump_json(),
        status_code=answer.status,
        headers=answer.headers,
        media_type="application/json",
    )


def _replay(kept: KeptResponse, *, replayed: bool = True) -> Response:
    headers = dict(kept.headers)
    if replayed:
        headers["Idempotent-Replayed"] = "true"
    if kept.body is None:
        return Response(status_code=kept.status, headers=headers)
    media_type = PROBLEM_JSON if kept.status >= 400 else "application/json"
    body: Any = kept.body
    return Response(to_json(body), status_code=kept.status, headers=headers, media_type=media_type)
