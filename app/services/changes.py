"""A change of a match, and the match's change log: each change under the version it
made, with the event a live stream sends for it, written with the change.

Kinds: ``round_entered``, ``round_corrected``, ``round_removed``, ``match_updated``
(settings or names), ``ended``, ``token_reissued``. Each event carries the match as
it now is (status, totals, owed, standings, winner), and the round when there is
one, so a client redraws without a second request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app.db import repository
from app.db.database import LoggedChange, UnitOfWork
from app.games.base import SheetState
from app.services.answers import match_json
from app.services.match_state import MatchState, state_to_json, status_of, utcnow, winner_of

CHANNEL = "squarescores_changes"  # PostgreSQL's NOTIFY channel
KEEP = 256  # changes kept per match: a stream further behind gets a snapshot
PRUNE_EVERY = 32  # versions between prunings of a match's log


def save(
    uow: UnitOfWork,
    state: MatchState,
    changed: Mapping[str, Any],
    kind: str,
    *,
    sheet: SheetState | None = None,
    points: Callable[[], Sequence[Sequence[int]]] | None = None,
    rounds: repository.RoundWrite | None = None,
    **extra: Any,
) -> MatchState:
    """Make a change of the match ``state`` shows: write ``changed`` to its row and
    log the change under the version it makes; the match as it now is, which the
    change's event carries as clients read it (``match_json``).

    ``changed`` raises the match's version by one (it is the ETag clients hold).
    A change of the rounds gives the new ``sheet`` (``changed`` holds the new
    ``round_count``): it is written with the status and winner it decides, from
    ``points``, the rounds' points after the change, in order (read only where the
    winner needs them); ``rounds`` is what the change writes to a round (entered,
    corrected or removed, and its revision). ``extra`` goes into the event. On
    PostgreSQL the rows are written in one statement, one round trip.
    """
    assert changed["version"] == state.version + 1
    if sheet is not None:
        assert points is not None, "a new sheet's winner may need the rounds' points"
        game, settings = state.game, state.settings
        status = status_of(game, settings, sheet, changed["round_count"])
        changed = {
            **changed,
            "sheet": state_to_json(sheet),
            "status": status.value,
            "winner": winner_of(game, settings, sheet, status, points),
        }
    new = state.changed(changed, sheet=sheet)
    match_id, version = new.row["id"], new.version
    match = match_json(new)
    payload = {"kind": kind, "version": version, "match": match, **extra}
    connection = uow.connection
    change = {
        "match_id": match_id,
        "version": version,
        "kind": kind,
        "payload": payload,
        "created_at": utcnow(),
    }
    if connection.dialect.name == "postgresql":
        # Every process's live streams are told by NOTIFY, sent at commit (app.live).
        repository.save_change_notifying(
            connection, changed, change, channel=CHANNEL, rounds=rounds
        )
    else:
        # This process's hub is told after the commit; other processes poll (app.live).
        if rounds is not None:
            repository.write_round(connection, match_id, rounds)
        repository.update_match(connection, match_id, changed)
        repository.insert_change(connection, change)
    if version % PRUNE_EVERY == 0:
        repository.prune_changes(connection, match_id, before=version - KEEP)
    uow.changed.append(LoggedChange(match_id, version, payload))
    return new
