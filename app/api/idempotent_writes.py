"""How a write honours its Idempotency-Key: the key claimed in the request's unit of
work, a kept response replayed, and the response kept with the key so a retry
replays it exactly.

A route with a key, once its dependency has checked the caller (so a replay goes
only to a caller allowed to make the write), runs forward::

    if (replay := replayed(uow, claim)) is not None:
        return replay
    try:
        result = <the use case>
    except ServiceError as error:
        return keep_conflict(uow, claim, error)
    return keep_response(uow, claim, WriteResult(...))

The first response of a request that passed validation is kept with its key: a
success, or a state conflict (409), which is committed (with nothing else: every
409 is raised before the use case writes) and answered. Anything else (422, 412,
429) rolls back and keeps nothing, so a corrected retry with the same key goes ahead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi import Response
from pydantic import BaseModel
from pydantic_core import to_json

from app import metrics
from app.api.problems import PROBLEM_JSON, problem_body, status_of
from app.db.database import UnitOfWork
from app.errors import ServiceError
from app.services import idempotency
from app.services.idempotency import IdempotencyClaim, KeptResponse


@dataclass(frozen=True, slots=True)
class WriteResult:
    """A write's response: its status, body (a declared response model) and headers."""

    status: int
    body: BaseModel | None = None
    headers: dict[str, str] = field(default_factory=dict)


def replayed(uow: UnitOfWork, claim: IdempotencyClaim | None) -> Response | None:
    """Claim the key: the response kept with it, when it was used before with the same
    request; None when the write goes ahead (or has no key)."""
    if claim is None:
        return None
    kept_response = idempotency.claim(uow, claim)
    if kept_response is None:
        return None
    metrics.REPLAYS.inc()
    return _replay(kept_response)


def keep_response(uow: UnitOfWork, claim: IdempotencyClaim | None, result: WriteResult) -> Response:
    """The response of a write, kept with its key (if it has one) for a retry to
    replay."""
    if claim is not None:
        body = result.body.model_dump(mode="json") if result.body is not None else None
        idempotency.keep(uow, claim, KeptResponse(result.status, body, result.headers))
    if result.body is None:
        return Response(status_code=result.status, headers=result.headers)
    return Response(
        result.body.model_dump_json(),
        status_code=result.status,
        headers=result.headers,
        media_type="application/json",
    )


def keep_conflict(uow: UnitOfWork, claim: IdempotencyClaim | None, error: ServiceError) -> Response:
    """The response of a state conflict (409) of a write with a key, kept with the key
    for a retry to replay; any other error is raised again (and the unit of work
    rolled back)."""
    if claim is None or status_of(error) != 409:
        raise error
    kept_response = KeptResponse(status=409, body=problem_body(error), headers={})
    idempotency.keep(uow, claim, kept_response)
    return _replay(kept_response, replayed=False)


def _replay(kept_response: KeptResponse, *, replayed: bool = True) -> Response:
    headers = dict(kept_response.headers)
    if replayed:
        headers["Idempotent-Replayed"] = "true"
    if kept_response.body is None:
        return Response(status_code=kept_response.status, headers=headers)
    media_type = PROBLEM_JSON if kept_response.status >= 400 else "application/json"
    body: Any = kept_response.body
    return Response(
        to_json(body), status_code=kept_response.status, headers=headers, media_type=media_type
    )
