"""The game registry: a game's name maps to its pure implementation."""

from app.games.alkort import GAME as ALKORT
from app.games.asszorti import GAME as ASSZORTI
from app.games.base import Game
from app.games.own_table import GAME as OWN_TABLE

GAMES: dict[str, Game] = {game.name: game for game in (ASSZORTI, ALKORT, OWN_TABLE)}

__all__ = ["GAMES", "Game"]
