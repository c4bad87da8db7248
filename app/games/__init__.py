"""The game registry: a game's name maps to its pure implementation."""

from app.games.alkort import GAME as ALKORT
from app.games.asszorti import GAME as ASSZORTI
from app.games.base import Game

GAMES: dict[str, Game] = {game.name: game for game in (ASSZORTI, ALKORT)}

__all__ = ["GAMES", "Game"]
