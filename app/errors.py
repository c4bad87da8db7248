"""Errors the services raise, each with an HTTP status and a stable problem ``code``.

They know nothing of the framework; ``app.api.problems`` turns them into RFC 9457
problem details.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.games.base import Loc


@dataclass(frozen=True, slots=True)
class FieldError:
    """One thing wrong with the request, and where."""

    loc: Loc
    message: str


class ServiceError(Exception):
    """Base of every error a client can cause."""

    status = 400
    code = "bad_request"
    title = "Bad request"

    def __init__(
        self, detail: str, *, errors: Sequence[FieldError] = (), code: str | None = None
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.errors = tuple(errors)
        if code is not None:
            self.code = code

    def problem(self) -> dict[str, Any]:
        """The RFC 9457 problem body of this error."""
        body: dict[str, Any] = {
            "type": "about:blank",
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }
        if self.errors:
            body["errors"] = [{"loc": list(e.loc), "message": e.message} for e in self.errors]
        return body


class Unauthenticated(ServiceError):
    status, code, title = 401, "unauthenticated", "Missing or unknown token"


class Forbidden(ServiceError):
    status, code, title = 403, "forbidden", "Not allowed"


class MatchNotFound(ServiceError):
    status, code, title = 404, "match_not_found", "Match not found"


class RoundNotFound(ServiceError):
    status, code, title = 404, "round_not_found", "Round not found"


class InvalidInput(ServiceError):
    status, code, title = 422, "validation_error", "The request is not valid"


class MatchEnded(ServiceError):
    status, code, title = 409, "match_ended", "The match has ended"


class MatchDecided(ServiceError):
    status, code, title = 409, "match_decided", "The match is decided"


class MatchFull(ServiceError):
    status, code, title = 409, "match_full", "The match holds as many rounds as it can"


class NotLastRound(ServiceError):
    status, code, title = 409, "not_last_round", "Only the last round can be removed"


class SettingLocked(ServiceError):
    status, code, title = 409, "setting_locked", "That setting cannot change now"


class CorrectionConflict(ServiceError):
    status, code, title = 409, "correction_conflict", "The correction would reorder the result"


class PreconditionFailed(ServiceError):
    status, code, title = 412, "precondition_failed", "The match has changed"


class NotReady(ServiceError):
    status, code, title = 503, "not_ready", "Not ready to serve"


class IdempotencyKeyReused(ServiceError):
    status, code, title = (
        422,
        "idempotency_key_reused",
        "Idempotency-Key reused with another request",
    )


class IdempotencyKeyInFlight(ServiceError):
    status, code, title = 409, "idempotency_key_in_flight", "A request with this key is in flight"


class InvalidHeader(ServiceError):
    status, code, title = 422, "invalid_header", "A request header is not valid"


class RateLimited(ServiceError):
    status, code, title = 429, "rate_limited", "Too many requests"

    def __init__(self, detail: str, *, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class DatabaseUnavailable(ServiceError):
    status, code, title = 503, "database_unavailable", "The database is unavailable"
    retry_after = 5
