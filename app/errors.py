"""Errors the services raise, each with a stable problem ``code`` and a title.

They know nothing of HTTP: ``app.api.problems`` gives each its status and turns
it into an RFC 9457 problem detail.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from app.games.base import Loc


@dataclass(frozen=True, slots=True)
class FieldError:
    """One thing wrong with the request, and where."""

    loc: Loc
    message: str


class ServiceError(Exception):
    """Base of every error a client can cause."""

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


class Unauthenticated(ServiceError):
    code, title = "unauthenticated", "Missing or unknown token"


class Forbidden(ServiceError):
    code, title = "forbidden", "Not allowed"


class MatchNotFound(ServiceError):
    code, title = "match_not_found", "Match not found"


class RoundNotFound(ServiceError):
    code, title = "round_not_found", "Round not found"


class InvalidInput(ServiceError):
    code, title = "validation_error", "The request is not valid"


class MatchEnded(ServiceError):
    code, title = "match_ended", "The match has ended"


class MatchDecided(ServiceError):
    code, title = "match_decided", "The match is decided"


class MatchFull(ServiceError):
    code, title = "match_full", "The match holds as many rounds as it can"


class MatchNotEnded(ServiceError):
    code, title = "match_not_ended", "The match has not ended"


class RematchExists(ServiceError):
    code, title = "rematch_exists", "The match has a rematch already"


class RematchNotStarted(ServiceError):
    code, title = "rematch_not_started", "The match has no rematch yet"


class RecoveryNotKept(ServiceError):
    code, title = "recovery_not_kept", "This host token holds no recovery code"


class NotLastRound(ServiceError):
    code, title = "not_last_round", "Only the last round can be removed"


class SettingLocked(ServiceError):
    code, title = "setting_locked", "That setting cannot change now"


class CorrectionConflict(ServiceError):
    code, title = "correction_conflict", "The correction would reorder the result"


class PreconditionFailed(ServiceError):
    code, title = "precondition_failed", "The match has changed"


class NotReady(ServiceError):
    code, title = "not_ready", "Not ready to serve"
    retry_after = 5


class IdempotencyKeyReused(ServiceError):
    code, title = (
        "idempotency_key_reused",
        "Idempotency-Key reused with another request",
    )


class IdempotencyKeyInFlight(ServiceError):
    code, title = "idempotency_key_in_flight", "A request with this key is in flight"


class InvalidHeader(ServiceError):
    code, title = "invalid_header", "A request header is not valid"


class RateLimited(ServiceError):
    code, title = "rate_limited", "Too many requests"

    def __init__(self, detail: str, *, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class DatabaseUnavailable(ServiceError):
    code, title = "database_unavailable", "The database is unavailable"
    retry_after = 5
