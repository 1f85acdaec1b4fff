"""Players: injected strategies that choose a move from a state under a limit.

A player never writes to stdout and never changes the game it is given.
"""

from __future__ import annotations

import abc
import dataclasses
import random
from collections.abc import Callable
from typing import Any

from engine.games.core import Game


def _never() -> bool:
    return False


@dataclasses.dataclass(frozen=True)
class Limit:
    """How much a player may think: seconds and/or playouts (``None`` means no bound), a
    ``stop`` callback that a search polls between slices (the protocol sets it so that an
    interrupt or the next command ends the search early), and how many threads it may
    search on (a playout budget is shared among them). ``infinite``: no time or playouts
    given is meant, searching until ``stop`` says so, rather than a player's own default
    (UGI's ``go infinite``)."""

    time: float | None = None
    playouts: int | None = None
    stop: Callable[[], bool] = _never
    threads: int = 1
    infinite: bool = False

    @property
    def budget(self) -> int | None:
        """The playouts a search may make: ``playouts``, or :data:`UNBOUNDED_PLAYOUTS` when
        nothing else would end it (no time, no playouts, no ``stop``); with a ``stop``
        callback alone (an analysis, ``go infinite``), ``None``: until it says stop."""
        if self.playouts is None and self.time is None and self.stop is _never:
            return UNBOUNDED_PLAYOUTS
        return self.playouts


#: The playouts of a search given no bound at all.
UNBOUNDED_PLAYOUTS = 1000


class Player(abc.ABC):
    """Chooses a move for the side to move."""

    name: str = "player"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random()

    @abc.abstractmethod
    def choose_move(self, game: Game[Any], limit: Limit) -> Any:
        """A legal move for ``game.to_move``; ``game`` must not be over."""

    def seed(self, seed: int | None) -> None:
        self.rng = random.Random(seed)


class RandomPlayer(Player):
    """Plays a random legal move (uniform unless the game samples turns specially)."""

    name = "random"

    def choose_move(self, game: Game[Any], limit: Limit) -> Any:
        return game.random_move(self.rng)
