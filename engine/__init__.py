"""gtpgames rules cores: one exact rules implementation per game behind one contract."""

from engine.games.core import (
    BLACK,
    WHITE,
    Game,
    GameError,
    IllegalMoveError,
    MoveSyntaxError,
    OptionError,
    OptionSpec,
    Outcome,
)
from engine.games.registry import GAMES, available_games, game_class, new_game

__all__ = [
    "BLACK",
    "GAMES",
    "WHITE",
    "Game",
    "GameError",
    "IllegalMoveError",
    "MoveSyntaxError",
    "OptionError",
    "OptionSpec",
    "Outcome",
    "available_games",
    "game_class",
    "new_game",
]
