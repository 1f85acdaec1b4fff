"""The opening book of proven moves: positions of small boards solved by
``scripts/solve_boards.py`` (docs/solved.md), shipped as package data (one JSON file per game,
read with importlib.resources), and the table of Brax endings (``brax-endings.npz``, see
:mod:`engine.search.endings`).

A file holds a list of entries ``{"options": {...}, "position": "<position string>",
"value": "win" | "loss" | "draw", "moves": [winning moves]}``: the value is for the player to
move, the moves (written as the game writes them) win when the value is a win.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from engine.games.core import Game


@cache
def _entries(name: str) -> dict[tuple[str, str], dict[str, Any]]:
    try:
        text = resources.files(__name__).joinpath(f"{name}.json").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return {}
    table = {}
    for entry in json.loads(text):
        table[(_options_key(entry["options"]), entry["position"])] = entry
    return table


def _options_key(options: dict[str, Any]) -> str:
    return json.dumps({k: str(v).lower() for k, v in sorted(options.items())})


def lookup(game: Game[Any]) -> dict[str, Any] | None:
    """The book entry of ``game``'s current position (with its options), or None."""
    entries = _entries(game.name)
    if not entries or len(game.history) > 2:  # the book holds openings only
        return None
    try:
        position = game.position_string()
    except Exception:
        return None
    return entries.get((_options_key(game.options), position))


def proven_move(game: Game[Any]) -> Any | None:
    """A winning move of ``game``'s position from the book (or, in a Brax ending of three
    pieces at most, from the endings table of :mod:`engine.search.endings`), or None."""
    entry = lookup(game)
    if entry is None or entry["value"] != "win" or not entry["moves"]:
        if game.name == "brax":
            from engine.search import endings

            return endings.proven_move(game)
        return None
    return game.parse_move(entry["moves"][0])
