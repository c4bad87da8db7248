"""When a match is decided, and the changes that may not rewrite it: one rule for
every game (docs/rules.md, "When a match is decided").

A match is judged on its sheet as it stands: the totals after its last round and
the number of rounds, under the settings it has now. A total that passed the
target after an earlier round and fell back below it has not reached it; the
winner is the best total as it stands, except where the first to reach the
target wins and two or more totals now reach it: then the match was decided at
k, the first round after which a total reached it, and the best total after
round k wins (``winner``). Two changes are refused:

- a correction that moves k, the first round after which the match is decided,
  earlier, or gives the match a k before its last round where it had none:
  rounds would then stand after the match was decided (``check_correction``);
- where the first to reach the target wins, a target that two or more totals
  already reach: at that target the match was decided at an earlier round, and
  moving the target does not rewrite which (``check_target_move``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from app.games.base import Game, Refold, SettingConflict, SheetState, Winner


class CorrectionRefused(Exception):
    """A correction the rule above refuses (answered 409 ``correction_conflict``)."""


def winner(
    game: Game,
    settings: Any,
    sheet: SheetState,
    points: Callable[[], Sequence[Sequence[int]]],
) -> Winner | None:
    """Who won a decided or ended match whose sheet is ``sheet``; ``points`` gives its
    rounds' points in order, asked for only where two or more totals reach the target.

    Alkort, target 21: deals team 1 +6, team 0 +9, team 0 +9; the target lowered to 7
    (team 0 wins); deal 2 corrected to team 1 +1. The running totals are [0, 6],
    [0, 7], [9, 7]: both teams reach 7, team 1 first, after deal 2, and it wins.

    >>> from app.games.alkort import GAME as ALKORT, AlkortSettings
    >>> rounds = [[0, 6], [0, 1], [9, 0]]
    >>> sheet = SheetState(totals=(9, 7))
    >>> winner(ALKORT, AlkortSettings(target=7), sheet, lambda: rounds)
    Winner(seats=None, team=1)
    """
    if game.past_target(sheet, settings) < 2:
        return game.winner(sheet, settings)
    rounds = points()
    first = game.refold(rounds, len(rounds), settings).decided_at
    assert first is not None  # a total reaches the target, so some round reached it first
    return game.winner(game.refold(rounds[:first], first, settings).row[1], settings)


def check_correction(
    game: Game,
    settings: Any,
    *,
    old_points: Sequence[Sequence[int]],
    number: int,
    new: Refold,
) -> None:
    """Raise CorrectionRefused when correcting round ``number`` (the rounds were
    ``old_points``; ``new`` is their refold with the correction) makes k earlier,
    or gives the match a k before its last round where it had none.

    The old rounds are refolded only when the new k stands before the last round.
    """
    new_k = new.decided_at
    if new_k is None or new_k >= len(old_points):
        return
    old_k = game.refold(old_points, number, settings).decided_at
    if old_k is None or new_k < old_k:
        raise CorrectionRefused(
            f"with this correction the match would be decided after round {new_k}, "
            "and rounds were played after it: a correction does not end a match "
            "before rounds already played"
        )


def check_target_move(game: Game, old: Any, new: Any, state: SheetState) -> None:
    """Raise SettingConflict (``target_already_reached``) when a new target is one
    that two or more totals already reach, where the first to reach it wins."""
    past = game.past_target(state, new)
    if new.target != old.target and past > 1:
        raise SettingConflict(
            ("settings", "target"),
            f"{past} totals already reach {new.target}: at that target the match was "
            "decided at an earlier round, when the first of them reached it, and "
            "moving the target does not rewrite which round decided the match",
            code="target_already_reached",
        )
