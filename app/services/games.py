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
                players=game.max_players,
                min_players=game.min_players,
                teams=game.team_count,
                max_teams=game.max_teams,
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
