"""What every change of a match shares: the match locked for the transaction, with
the caller's access checked in the same statement, and the checks it passes before
anything is written (If-Match's expected version, not ended)."""

from __future__ import annotations

from dataclasses import dataclass

from app.db import repository
from app.db.database import UnitOfWork
from app.errors import MatchEnded, PreconditionFailed
from app.schemas import MatchStatus
from app.services.auth import Access, Principal, match_for_caller, or_not_found
from app.services.state import MatchState


@dataclass(frozen=True, slots=True)
class WriteRequest:
    """Who asks for a change (their token's claim, checked when the match is locked),
    and the match versions it was made against (None: any)."""

    access: Access
    expected_versions: frozenset[int] | None = None

    @property
    def match_id(self) -> str:
        """The match the change is for: the one the caller's claim names."""
        return self.access.match_id


def lock_match(uow: UnitOfWork, match_id: str) -> MatchState:
    """Load the match for a change, locking its row until the transaction ends."""
    return MatchState.load(
        or_not_found(repository.get_match(uow.connection, match_id, for_update=True), match_id)
    )


def lock_match_as(uow: UnitOfWork, request: WriteRequest) -> tuple[MatchState, Principal]:
    """``lock_match`` for the caller of ``request``, and who they are: the match and
    the caller's credential are read in one statement, which finds them when the
    token is one of this match's and its role grants the change. Otherwise
    ``check_access`` says why not (401, 404 or 403), before anything else is checked."""
    row, who = match_for_caller(uow, request.access, for_update=True)
    return MatchState.load(row), who


def check_writable(state: MatchState, request: WriteRequest) -> None:
    """The state checks every change passes, once its body is known valid:
    the expected version (412), then an ended match (409)."""
    version = state.version
    if request.expected_versions is not None and version not in request.expected_versions:
        raise PreconditionFailed(
            f"If-Match does not name the match's current version ({version}): "
            "read the match again and retry"
        )
    if state.status is MatchStatus.ENDED:
        raise MatchEnded("the match has ended; it accepts no change")
