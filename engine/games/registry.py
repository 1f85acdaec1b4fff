"""The registry of games: find a game class by name.

Games are listed here by module path and imported on first use, so that looking up one game
does not import the others.
"""

from __future__ import annotations

import importlib
from typing import Any

from engine.games.core import Game, GameError

#: Registry name -> "module:Class". Every rules core of the suite is listed here.
GAMES: dict[str, str] = {
    "brique": "engine.games.brique:Brique",
    "trisq": "engine.games.trisq:Trisq",
    "flicker": "engine.games.flicker:Flicker",
    "brax": "engine.games.brax:Brax",
    "bricka": "engine.games.bricka:Bricka",
}


class UnknownGameError(GameError):
    """No game of that name."""


def available_games() -> list[str]:
    """Names of the games whose rules core is importable, in registry order."""
    names = []
    for name in GAMES:
        try:
            game_class(name)
        except UnknownGameError:
            continue
        names.append(name)
    return names


def game_summaries() -> list[tuple[str, str, str]]:
    """``(name, title, options)`` for every available game, options described as
    ``size=11 (int 3..25) pie=on (on|off)`` (``(no options)`` if none)."""
    rows = []
    for name in available_games():
        cls = game_class(name)
        options = " ".join(spec.describe() for spec in cls.OPTIONS) or "(no options)"
        rows.append((name, cls.title, options))
    return rows


def game_class(name: str) -> type[Game[Any]]:
    """The class registered as ``name`` (case-insensitive)."""
    target = GAMES.get(name.lower())
    if target is None:
        raise UnknownGameError(
            f"unknown game {name!r} (games: {', '.join(GAMES)})"
        )
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        raise UnknownGameError(f"game {name!r} is not available in this build") from None
    cls: type[Game[Any]] = getattr(module, class_name)
    return cls


def new_game(name: str, **options: object) -> Game[Any]:
    """A new game of ``name`` with validated options."""
    return game_class(name)(**options)
