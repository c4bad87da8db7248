"""Game rule errors as 422s, and scoring one round for any use case."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.errors import FieldError, InvalidInput, MatchEnded
from app.games import Game
from app.games.base import GameRuleError, MatchStatus, RoundInput, Score
from app.services.match_state import MatchState


def rule_error(error: GameRuleError, *prefix: str | int) -> InvalidInput:
    """A game's rule error as a 422 naming the field."""
    return InvalidInput(
        error.message, errors=[FieldError(("body", *prefix, *error.loc), error.message)]
    )


def score_round(game: Game, body: RoundInput, settings: Any) -> Score:
    """Score ``body`` by ``game``'s rules: a round of another game, or one the rules
    forbid, is a 422 naming the field."""
    if not isinstance(body, tuple(game.round_types)):
        message = f"{body.type} is not a round type of {game.title}"
        raise InvalidInput(message, errors=[FieldError(("body", "type"), message)])
    try:
        return game.score(body, settings)
    except GameRuleError as error:
        raise rule_error(error) from None


def score_data(game: Game, scored: Score) -> dict[str, Any]:
    """A hand's score as the calculator and the preview answer it (the ScoreRead shape)."""
    return {
        "net": list(scored.net) if scored.net is not None else None,
        "cells": None if scored.net is not None else list(scored.points),
        "breakdown": {"game": game.name, **scored.breakdown},
    }


def preview(match: Mapping[Any, Any], body: RoundInput) -> dict[str, Any]:
    """Score ``body`` as entering it next at ``match`` would (its settings, its players),
    storing nothing: a 422 exactly where entering it would be one, and then the 409 an
    ended match gives. (Not a decided match's 409: the same preview serves the
    correction of a round, which a decided match takes.)"""
    state = MatchState.load(match)
    score = score_round(state.game, body, state.settings)
    if state.status is MatchStatus.ENDED:
        raise MatchEnded("the match has ended; it accepts no change")
    return score_data(state.game, score)
