"""What every search (the Python MCTS and the compiled kernels) reports, and the interface
players use to call it.

A :class:`SearchResult` is what the protocol turns into ``genmove`` answers and analysis lines
(``info move M visits V winrate W pv M1 M2 ...``): the statistics of each root move, from
the point of view of the player to move at the root.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import random
from collections.abc import Callable
from typing import Any, Literal, Protocol, TypeVar, cast

from engine.games.core import Game
from engine.search.players import Limit

Proof = Literal["win", "loss", "draw"]


F = TypeVar("F", bound=Callable[..., Any])


def pauses_collector(search: F) -> F:
    """Run ``search`` with the cyclic garbage collector paused. A full collection walks every
    object of the process (a Python search tree among them: tens of milliseconds), and would
    pause the search past its deadline; reference counting still frees what it drops."""

    @functools.wraps(search)
    def paused(*args: Any, **kwargs: Any) -> Any:
        collecting = gc.isenabled()
        gc.disable()
        try:
            return search(*args, **kwargs)
        finally:
            if collecting:
                gc.enable()

    return cast(F, paused)


@dataclasses.dataclass(frozen=True)
class MoveStat:
    """One root move: visits, mean value in [0, 1] for the player to move at the root
    (draws count 1/2), a proof where the solver has one, and the principal variation that
    starts with this move."""

    move: Any
    visits: int
    winrate: float
    proven: Proof | None = None
    pv: tuple[Any, ...] = ()


@dataclasses.dataclass(frozen=True)
class SearchResult:
    """The outcome of one search: the chosen move and the root statistics, best first."""

    best: Any
    stats: tuple[MoveStat, ...]
    iterations: int
    seconds: float
    #: The solver's verdict on the root position for the player to move, if proven.
    proven: Proof | None = None


#: Called during a search, every so often, with the statistics so far (analysis output).
Progress = Callable[[SearchResult], None]


class Searcher(Protocol):
    """Anything that can search a position: the Python MCTS, a compiled kernel."""

    def search(
        self,
        game: Game[Any],
        limit: Limit,
        rng: random.Random,
        progress: Progress | None = None,
        interval: float = 0.5,
    ) -> SearchResult:
        """Search ``game`` (not modified) within ``limit`` (and until ``limit.stop()`` says
        so), calling ``progress`` about every ``interval`` seconds."""
        ...
