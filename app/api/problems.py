"""Every error becomes an RFC 9457 problem detail with a stable ``code``."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from sqlalchemy.exc import OperationalError, ProgrammingError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Match

from app import errors
from app.api.deps import access_of, bearer, caller_need, check_caller
from app.errors import DatabaseUnavailable, NotReady, RateLimited, ServiceError
from app.schemas import MATCH_CREATE_MODELS, ROUND_TYPES, Problem

PROBLEM_JSON = "application/problem+json"
# Set in the scope by app.api.limits when it cut a body short: FastAPI reports the
# failed read as a 400, which is answered 413.
BODY_TOO_LARGE = "squarescores.body_too_large"
logger = logging.getLogger(__name__)

# Tags of the discriminated unions, which pydantic puts into an error's location.
_UNION_TAGS = set(ROUND_TYPES) | set(MATCH_CREATE_MODELS)

_HTTP_CODES = {
    404: ("not_found", "Not found"),
    405: ("method_not_allowed", "Method not allowed"),
    406: ("not_acceptable", "Not acceptable"),
    413: ("payload_too_large", "Request body too large"),
    415: ("unsupported_media_type", "Unsupported media type"),
}


def problem(
    status: int,
    code: str,
    title: str,
    detail: str,
    *,
    errors: Iterable[dict[str, Any]] | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    body: dict[str, Any] = {
        "type": "about:blank",
        "title": title,
        "status": status,
        "detail": detail,
        "code": code,
    }
    if errors is not None:
        body["errors"] = list(errors)
    return JSONResponse(
        body, status_code=status, media_type=PROBLEM_JSON, headers=dict(headers or {})
    )


def payload_too_large(limit: int) -> JSONResponse:
    """413 ``payload_too_large``: a body over ``limit`` bytes."""
    code, title = _HTTP_CODES[413]
    return problem(413, code, title, f"the body must be at most {limit} bytes")


def _clean_loc(loc: Sequence[Any]) -> list[str | int]:
    cleaned: list[str | int] = []
    for index, part in enumerate(loc):
        if index == 1 and loc[0] == "body" and part in _UNION_TAGS:
            continue
        if isinstance(part, str) and (part.startswith("function-") or "[" in part):
            continue
        cleaned.append(part if isinstance(part, int) else str(part))
    return cleaned


def _error_loc(error: dict[str, Any]) -> list[str | int]:
    loc = _clean_loc(error["loc"])
    if error["type"] in ("union_tag_invalid", "union_tag_not_found"):
        # Point at the discriminator field itself (``type`` or ``game``).
        loc.append(str(error.get("ctx", {}).get("discriminator", "type")).strip("'\""))
    return loc


def _message(error: dict[str, Any]) -> str:
    if error["type"] == "missing":
        return "field required"
    if error["type"] == "extra_forbidden":
        return "unknown field"
    if error["type"] == "value_error" and "error" in error.get("ctx", {}):
        return str(error["ctx"]["error"])  # our own validator's words, without pydantic's prefix
    return str(error["msg"])


async def _refused_access(request: Request) -> JSONResponse | None:
    """The 401, 404 or 403 a request FastAPI refused as invalid is due first.

    A route checks its caller in its unit of work (``app.api.deps.DbSlot.unit_as_caller``),
    which opens only once FastAPI has parsed and validated the request; for one it
    refused, the caller is checked here, against the access the matched route
    declares, so 401/404/403 still come before 422. Only such refusals pay for it.
    """
    route = request.scope.get("route")
    match_id = request.path_params.get("match_id")
    need = caller_need(route.endpoint) if isinstance(route, APIRoute) else None
    if need is None or match_id is None:
        return None
    try:
        access = access_of(await bearer(request), match_id, need)
        await check_caller(request.app.state.db, access)
    except ServiceError as error:
        return _problem_of(error)
    except (OperationalError, ProgrammingError, PoolTimeout) as error:
        return await _database_unavailable(request, error)
    return None


async def _malformed(request: Request, reason: str = "malformed JSON") -> JSONResponse:
    """422 malformed_json, unless authentication or authorization fails first."""
    if request.scope.get(BODY_TOO_LARGE):
        return payload_too_large(request.app.state.settings.max_body_bytes)
    if (refused := await _refused_access(request)) is not None:
        return refused
    return problem(
        422,
        "malformed_json",
        "The request body is not valid JSON",
        f"the body could not be decoded and parsed as JSON: {reason}",
        errors=[{"loc": ["body"], "message": reason}],
    )


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    raw = exc.errors()
    invalid = [e for e in raw if e["type"] == "json_invalid"]
    if invalid:
        return await _malformed(
            request, str(invalid[0].get("ctx", {}).get("error", "malformed JSON"))
        )
    if (refused := await _refused_access(request)) is not None:
        return refused
    errors = [{"loc": _error_loc(e), "message": _message(e)} for e in raw]
    first = errors[0] if errors else {"loc": [], "message": "invalid"}
    where = ".".join(str(p) for p in first["loc"])
    return problem(
        422,
        "validation_error",
        "The request is not valid",
        f"{where}: {first['message']}",
        errors=errors,
    )


async def _service_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ServiceError)
    return _problem_of(exc)


async def _database_unavailable(request: Request, exc: Exception) -> JSONResponse:
    if isinstance(exc, ProgrammingError) and getattr(exc.orig, "sqlstate", None) != "42P01":
        logger.exception("database error on %s %s", request.method, request.url.path)
        return problem(
            500, "internal_error", "Internal server error", "an unexpected error occurred"
        )
    logger.error("database unavailable on %s %s: %s", request.method, request.url.path, exc)
    return _problem_of(
        DatabaseUnavailable("the database is unavailable or not migrated; retry shortly")
    )


# The HTTP status of each error the services raise (a subclass not listed takes its
# nearest listed base's).
STATUS: dict[type[ServiceError], int] = {
    ServiceError: 400,
    errors.Unauthenticated: 401,
    errors.Forbidden: 403,
    errors.MatchNotFound: 404,
    errors.RoundNotFound: 404,
    errors.InvalidInput: 422,
    errors.IdempotencyKeyReused: 422,
    errors.InvalidHeader: 422,
    errors.MatchEnded: 409,
    errors.MatchDecided: 409,
    errors.MatchFull: 409,
    errors.MatchNotEnded: 409,
    errors.RematchExists: 409,
    errors.RematchNotStarted: 409,
    errors.RecoveryNotKept: 409,
    errors.NotLastRound: 409,
    errors.SettingLocked: 409,
    errors.CorrectionConflict: 409,
    errors.IdempotencyKeyInFlight: 409,
    errors.PreconditionFailed: 412,
    errors.RateLimited: 429,
    errors.NotReady: 503,
    errors.DatabaseUnavailable: 503,
}


def status_of(error: ServiceError) -> int:
    """The HTTP status ``error`` is answered with."""
    for kind in type(error).__mro__:
        if kind in STATUS:
            return STATUS[kind]
    raise AssertionError(f"no status for {type(error).__name__}")  # pragma: no cover


def problem_body(error: ServiceError) -> dict[str, Any]:
    """The RFC 9457 problem detail of ``error``."""
    body: dict[str, Any] = {
        "type": "about:blank",
        "title": error.title,
        "status": status_of(error),
        "detail": error.detail,
        "code": error.code,
    }
    if error.errors:
        body["errors"] = [{"loc": list(e.loc), "message": e.message} for e in error.errors]
    return body


def _problem_of(exc: ServiceError) -> JSONResponse:
    headers = {}
    status = status_of(exc)
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    if isinstance(exc, RateLimited | DatabaseUnavailable | NotReady):
        headers["Retry-After"] = str(exc.retry_after)
    return JSONResponse(
        problem_body(exc), status_code=status, media_type=PROBLEM_JSON, headers=headers
    )


def _allowed_methods(request: Request, routes: Sequence[BaseRoute]) -> str:
    """Every method some route serves at this path (Starlette lists only the first route's)."""
    methods: set[str] = set()
    for route in routes:
        if isinstance(route, APIRoute) and route.matches(request.scope)[0] is not Match.NONE:
            methods |= route.methods or set()
    return ", ".join(sorted(methods))


async def _http_error(
    request: Request, exc: Exception, *, routes: Sequence[BaseRoute]
) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 405:
        return problem(
            405,
            "method_not_allowed",
            "Method not allowed",
            f"{request.method} is not allowed here",
            headers={"Allow": _allowed_methods(request, routes)},
        )
    if exc.status_code == 400:
        # FastAPI's only 400: a body it could not decode (not UTF-8, not parseable).
        return await _malformed(request)
    code, title = _HTTP_CODES.get(exc.status_code, ("http_error", "HTTP error"))
    detail = exc.detail if isinstance(exc.detail, str) else title
    return problem(exc.status_code, code, title, detail, headers=exc.headers)


def install(app: FastAPI, routes: Sequence[BaseRoute]) -> None:
    """Register the handlers that turn every error into problem+json; ``routes``: the
    app's routes, which a 405's Allow header lists the methods of."""
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(ServiceError, _service_error)
    app.add_exception_handler(OperationalError, _database_unavailable)
    # PostgreSQL reports a missing table (a database not migrated) as a ProgrammingError.
    app.add_exception_handler(ProgrammingError, _database_unavailable)
    # PostgreSQL: no pooled connection came free in time.
    app.add_exception_handler(PoolTimeout, _database_unavailable)
    app.add_exception_handler(StarletteHTTPException, partial(_http_error, routes=tuple(routes)))
    # Each route's access dependency is read now, so an endpoint whose annotations
    # cannot be resolved fails the app's start, not a request's 422.
    for route in routes:
        if isinstance(route, APIRoute):
            caller_need(route.endpoint)


DESCRIPTIONS = {
    500: "An unexpected error (a bug): `internal_error`, with the request id to report",
    401: "Missing, malformed or unknown token",
    403: "The token does not grant this on this match",
    404: "No such match or round",
    409: "The match's state does not allow this",
    412: "If-Match does not match the current ETag",
    413: "Request body too large",
    429: "Too many requests of this kind (`rate_limited`) from this client, for this match "
    "or with this token; see Retry-After",
    422: "The request is not valid; `errors` names each field",
    503: "The database is unreachable or not migrated (`database_unavailable`, "
    "`not_ready`): retry after `Retry-After`",
}


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI declarations of the problem responses a route can give."""
    return {
        status: {
            "model": Problem,
            "description": DESCRIPTIONS[status],
            "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
        for status in statuses
    }
