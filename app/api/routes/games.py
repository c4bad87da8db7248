"""Games: what is supported, and a calculator for one hand."""

from typing import Annotated

from fastapi import APIRouter, Body

from app.api.problems import responses
from app.api.strict_json import StrictJSONRoute
from app.games import GAMES
from app.schemas import GameList, GameName, GameRead, RoundBody, ScoreRead
from app.services.scoring import score_data
from app.services.scoring import score_round as score

router = APIRouter(prefix="/v1/games", tags=["games"], route_class=StrictJSONRoute)


@router.get("", response_model=GameList, name="listGames", summary="The supported games")
async def list_games() -> GameList:
    """Each game with its player count, round types and settings schema."""
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


@router.post(
    "/{game}/score",
    response_model=ScoreRead,
    name="scoreRound",
    summary="Score one hand without a match",
    responses=responses(413, 422),
)
async def score_round(game: GameName, body: Annotated[RoundBody, Body()]) -> ScoreRead:
    """Score one round on its own, for previews and calculators."""
    # With the game's default settings.
    played = GAMES[game.value]
    return ScoreRead.model_validate(
        score_data(played, score(played, body, played.settings_model()))
    )
