"""Game rule errors as 422s, and scoring one round for any use case."""

from __future__ import annotations

from typing import Any

from app.errors import FieldError, InvalidInput
from app.games import Game
from app.games.base import GameRuleError, RoundInput, Score


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
