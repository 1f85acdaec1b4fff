"""The players by name: the one place that knows every player class (``gtpgames gtp
--player``, the UGI ``player`` option, the ladder)."""

from __future__ import annotations

import random

from engine.search.mcts import MctsPlayer
from engine.search.players import Player, RandomPlayer

PLAYERS: dict[str, type[Player]] = {"random": RandomPlayer, "mcts": MctsPlayer}


def make_player(name: str, seed: int | None = None) -> Player:
    """A player by name, with a seeded RNG."""
    cls = PLAYERS.get(name.lower())
    if cls is None:
        raise ValueError(f"unknown player {name!r} (players: {', '.join(PLAYERS)})")
    return cls(random.Random(seed))
