"""Games: what is supported, and a calculator for one hand."""

from typing import Annotated

from fastapi import APIRouter, Body

from app.api.problems import responses
from app.api.strict_json import StrictJSONRoute
from app.schemas import GameList, GameName, RoundBody, ScoreRead
from app.services import games

router = APIRouter(prefix="/v1/games", tags=["games"], route_class=StrictJSONRoute)


@router.get("", response_model=GameList, name="listGames", summary="The supported games")
async def list_games() -> GameList:
    """Each game with its player count, round types and settings schema."""
    return games.list_games()


@router.post(
    "/{game}/score",
    response_model=ScoreRead,
    name="scoreRound",
    summary="Score one hand without a match",
    responses=responses(413, 422),
)
async def score_round(game: GameName, body: Annotated[RoundBody, Body()]) -> ScoreRead:
    """Score one round on its own, for previews and calculators."""
    return games.score_one(game.value, body)
