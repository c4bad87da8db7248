"""When a match is decided, and the changes that may not rewrite it: one rule for
every game (docs/rules.md, "When a match is decided").

A match is judged on its sheet as it stands: the totals after its last round and
the number of rounds, under the settings it has now. A total that passed the
target in an earlier round and fell back below it has not reached it. Two kinds
of change could make that sheet disagree with how the match was played, and are
refused:

- a correction after which the match would be decided after a round that other
  rounds followed, where it was not before (``check_correction``);
- a correction or a target move that puts a second total at or past the target
  where the first to reach it wins: the match would have ended when the first of
  them got there, and the totals as they stand cannot name that winner
  (``check_correction``, ``check_target_move``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.games.base import Game, Refold, SettingConflict, SheetState


class CorrectionRefused(Exception):
    """A correction the rule above refuses (answered 409 ``correction_conflict``)."""


def check_correction(
    game: Game,
    settings: Any,
    *,
    old_points: Sequence[Sequence[int]],
    number: int,
    new: Refold,
) -> None:
    """Raise CorrectionRefused when correcting round ``number`` (the rounds were
    ``old_points``; ``new`` is their refold with the correction) breaks the rule.

    The old rounds are refolded only when the new ones need comparing with them.
    """
    old: Refold | None = None
    if new.early:
        old = game.refold(old_points, number, settings)
        earlier = sorted(set(new.early) - set(old.early))
        if earlier:
            raise CorrectionRefused(
                f"with this correction the match would be decided after round {earlier[0]}, "
                "and rounds were played after it: a correction does not end a match "
                "before rounds already played"
            )
    past = game.past_target(new.last, settings)
    if past > 1:
        old = old or game.refold(old_points, number, settings)
        if past > game.past_target(old.last, settings):
            raise CorrectionRefused(
                f"with this correction {past} totals would be at or past the target: the "
                "match would have ended when the first of them reached it, and the totals "
                "as they stand cannot name that winner"
            )


def check_target_move(game: Game, old: Any, new: Any, state: SheetState) -> None:
    """Raise SettingConflict (``target_already_reached``) when moving the target from
    ``old``'s to ``new``'s puts a second total at or past it."""
    past = game.past_target(state, new)
    if past > 1 and past > game.past_target(state, old):
        raise SettingConflict(
            ("settings", "target"),
            f"{past} totals are already at or past {new.target}: at that target the match "
            "would have ended when the first of them reached it, and the totals as they "
            "stand cannot name that winner",
            code="target_already_reached",
        )
