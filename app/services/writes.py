"""What every change of a match shares: the match locked for the transaction, and the
checks it passes before anything is written (If-Match's expected version, not ended)."""

from __future__ import annotations

from dataclasses import dataclass

from app.db import repository
from app.db.database import UnitOfWork
from app.errors import MatchEnded, PreconditionFailed
from app.schemas import MatchStatus
from app.services.auth import Principal, found
from app.services.state import MatchState


@dataclass(frozen=True, slots=True)
class WriteRequest:
    """Who makes a change, and the match versions it was made against (None: any)."""

    who: Principal
    expected_versions: frozenset[int] | None = None


def etag(version: int) -> str:
    """The strong ETag of a match version, as error messages quote it."""
    return f'"v{version}"'


def lock_match(uow: UnitOfWork, match_id: str) -> MatchState:
    """Load the match for a change, locking its row until the transaction ends."""
    return MatchState.load(
        found(repository.get_match(uow.connection, match_id, for_update=True), match_id)
    )


def check_writable(state: MatchState, request: WriteRequest) -> None:
    """The state checks every change passes, once its body is known valid:
    the expected version (412), then an ended match (409)."""
    version = state.row["version"]
    if request.expected_versions is not None and version not in request.expected_versions:
        raise PreconditionFailed(
            f"If-Match does not name the current ETag {etag(version)}: "
            "read the match again and retry"
        )
    if state.status is MatchStatus.ENDED:
        raise MatchEnded("the match has ended; it accepts no change")
