"""What every change of a match shares: the match locked for the transaction (a
caller's match comes locked: ``app.services.auth.Caller``), and the checks it passes
before anything is written (If-Match's expected version, not ended)."""

from __future__ import annotations

from app.db import repository
from app.db.database import UnitOfWork
from app.errors import MatchEnded, PreconditionFailed
from app.games.base import MatchStatus
from app.services.auth import or_not_found
from app.services.match_state import MatchState


def lock_match(uow: UnitOfWork, match_id: str) -> MatchState:
    """Load the match for a change, locking its row until the transaction ends."""
    return MatchState.load(
        or_not_found(repository.get_match(uow.connection, match_id, for_update=True), match_id)
    )


def check_expected(state: MatchState, expected: frozenset[int] | None) -> None:
    """The version the change was made against, if it named one (412): ``expected``,
    the versions If-Match names (None: any)."""
    version = state.version
    if expected is not None and version not in expected:
        raise PreconditionFailed(
            f"If-Match does not name the match's current version ({version}): "
            "read the match again and retry"
        )


def check_writable(state: MatchState, expected: frozenset[int] | None) -> None:
    """The state checks every change passes, once its body is known valid:
    the expected version (412), then an ended match (409)."""
    check_expected(state, expected)
    if state.status is MatchStatus.ENDED:
        raise MatchEnded("the match has ended; it accepts no change")
