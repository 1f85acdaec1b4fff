"""Compiled (numba) search kernels, one per game, behind the :class:`engine.search.Searcher`
interface.

numba is imported only when a kernel is first needed, never at start-up.
:func:`searcher_for` is the one entry point the players use: it returns a ready searcher for
the game, or ``None`` when the game has no kernel (yet) or its kernel is not compiled, in which
case the caller searches with the Python MCTS.
"""

from __future__ import annotations

from typing import Any

from engine.core import Game
from engine.search import Searcher


def searcher_for(game: Game[Any]) -> Searcher | None:
    """A compiled searcher for ``game``, or ``None`` (use the Python fallback)."""
    return None
