"""What every change of a match shares: the caller and the match locked for the
transaction, and the checks it passes before anything is written (If-Match's
expected version, not ended)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import RowMapping

from app.db import repository
from app.db.database import UnitOfWork
from app.errors import MatchEnded, PreconditionFailed
from app.games.base import MatchStatus
from app.services.auth import Principal, or_not_found
from app.services.state import MatchState


@dataclass(frozen=True, slots=True)
class WriteRequest:
    """Who asks for a change, the match's row (read with their access checked, and
    locked until the transaction ends: ``app.api.deps.Turn.caller``), and the match
    versions the change was made against (None: any)."""

    who: Principal
    match: RowMapping
    expected_versions: frozenset[int] | None = None

    @property
    def match_id(self) -> str:
        match_id: str = self.match["id"]
        return match_id

    def state(self) -> MatchState:
        """The match as the change finds it."""
        return MatchState.load(self.match)


def lock_match(uow: UnitOfWork, match_id: str) -> MatchState:
    """Load the match for a change, locking its row until the transaction ends."""
    return MatchState.load(
        or_not_found(repository.get_match(uow.connection, match_id, for_update=True), match_id)
    )


def check_expected(state: MatchState, request: WriteRequest) -> None:
    """The version the change was made against, if it named one (412)."""
    version = state.version
    if request.expected_versions is not None and version not in request.expected_versions:
        raise PreconditionFailed(
            f"If-Match does not name the match's current version ({version}): "
            "read the match again and retry"
        )


def check_writable(state: MatchState, request: WriteRequest) -> None:
    """The state checks every change passes, once its body is known valid:
    the expected version (412), then an ended match (409)."""
    check_expected(state, request)
    if state.status is MatchStatus.ENDED:
        raise MatchEnded("the match has ended; it accepts no change")
