"""The games on offer, and scoring one hand without a match."""

from app.games import GAMES
from app.games.base import RoundInput
from app.schemas import GameList, GameRead, ScoreRead
from app.services.scoring import score_round


def list_games() -> GameList:
    return GameList(
        items=[
            GameRead(
                name=game.name,
                title=game.title,
                players=game.seat_count,
                teams=game.team_count,
                round_types=[model.round_type for model in game.round_types],
                settings=game.settings_model.model_json_schema(),
            )
            for game in GAMES.values()
        ]
    )


def score_one(game_name: str, body: RoundInput) -> ScoreRead:
    """Score one round with the game's default settings, as a preview."""
    game = GAMES[game_name]
    score = score_round(game, body, game.settings_model())
    return ScoreRead(
        net=list(score.net) if score.net is not None else None,
        cells=None if score.net is not None else list(score.points),
        breakdown=dict(score.breakdown),
    )
