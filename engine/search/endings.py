"""The Brax endings table: the exact value of every two-player Brax position with one piece
against one or two pieces against one, from a retrograde analysis
(:mod:`engine.search.kernels.brax_endings`), shipped as package data beside the opening book
and read with importlib.resources.

A position's entry is a signed number of plies: +d, the player to move wins (captures the
last enemy piece, or, with two pieces against one, makes the capture that leaves one against
one won) in d plies against the best defence; -d, they lose in d plies; 0, neither side can
force a win. A draw rule cuts those plies short: one against one is drawn after 10 plies
without a capture (X13), two against one after 100 (X14). So the value of a position with q
plies already played without a capture is the entry's when d fits in what is left (10 - q
or 100 - q plies), else a draw.

The value is exact for a position none of whose earlier positions occurred twice (the
repetition rule, X14): the winner's best line never comes back to a position (each one is
nearer the win than the one before), so such a game cannot reach a third occurrence. Where
an earlier position did occur twice, :func:`lookup` gives nothing.

Importing this module imports neither numba nor numpy; :func:`build` imports numba.
"""

from __future__ import annotations

import dataclasses
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from engine.games.brax import Brax, BraxMove
from engine.games.brax_board import POINTS
from engine.games.core import Game

#: The table's file in :mod:`engine.search.book`.
TABLE_FILE = "brax-endings.npz"
#: Plies without a capture that end one against one (X13) and two against one (X14).
ONE_ON_ONE = 10
NO_CAPTURE = 100
PAIRS = POINTS * (POINTS - 1) // 2


@dataclasses.dataclass(frozen=True)
class Ending:
    """The value of an ending for its player to move, and the plies it takes (0 for a
    draw): plies to the capture that decides the game."""

    value: Literal["win", "loss", "draw"]
    plies: int


def build() -> dict[str, Any]:
    """The two tables from scratch (compiled: a few seconds): ``one`` (one against one, by
    :func:`one_index`) and ``two`` (two against one, by :func:`two_index`), signed plies as
    int8."""
    import numpy as np

    from engine.search import kernels

    kernel = kernels.import_module("engine.search.kernels.brax_endings")
    one, two, pair, first, second = kernel.tables()
    val1 = np.zeros(2 * POINTS * POINTS, dtype=np.int8)
    dist1 = np.zeros(val1.shape[0], dtype=np.int16)
    kernel.solve_one(one, two, val1, dist1)
    val2 = np.zeros(2 * PAIRS * POINTS * 2, dtype=np.int8)
    dist2 = np.zeros(val2.shape[0], dtype=np.int16)
    kernel.solve_two(one, two, pair, first, second, val1, dist1, val2, dist2)
    if max(int(dist1.max()), int(dist2.max())) > 127:  # pragma: no cover - not so
        raise OverflowError("an ending takes more plies than the table's int8 holds")
    return {
        "one": (val1.astype(np.int16) * dist1).astype(np.int8),
        "two": (val2.astype(np.int16) * dist2).astype(np.int8),
    }


def write(path: Path) -> dict[str, Any]:
    """Build the tables, write them to ``path`` (a compressed .npz) and return them."""
    import numpy as np

    data = build()
    np.savez_compressed(path, **data)
    return data


@cache
def tables() -> dict[str, Any]:
    """The shipped tables (empty if the file is missing)."""
    import numpy as np

    try:
        with resources.files("engine.search.book").joinpath(TABLE_FILE).open("rb") as f:
            data = np.load(f)
            return {name: data[name] for name in data.files}
    except (FileNotFoundError, OSError):
        return {}


def pair_index(a: int, b: int) -> int:
    """The index of the unordered pair of distinct points ``a`` and ``b``."""
    if a > b:
        a, b = b, a
    return (POINTS - 1) * a - a * (a - 1) // 2 + (b - a - 1)


def one_index(red: int, blue: int, mover: int) -> int:
    return (red * POINTS + blue) * 2 + mover


def two_index(pair_side: int, a: int, b: int, single: int, mover: int) -> int:
    return ((pair_side * PAIRS + pair_index(a, b)) * POINTS + single) * 2 + mover


def covered(game: Game[Any]) -> bool:
    """Whether the table holds ``game``'s position: two-player Brax, not over, at most three
    pieces with one on each side at least, no obligation, and no earlier position that
    occurred twice."""
    if not isinstance(game, Brax) or game.num_players != 2 or game.outcome() is not None:
        return False
    red, blue = len(game.pieces(0)), len(game.pieces(1))
    if min(red, blue) != 1 or red + blue > 3 or game.forced:
        return False
    return not (game.options["repetition"] and game.repeated_earlier())


def _entry(game: Brax) -> tuple[int, int]:
    """The signed plies of ``game``'s position (covered) and the plies left before a draw
    (-1: no limit)."""
    data = tables()
    red, blue = game.pieces(0), game.pieces(1)
    mover = game.to_move
    if len(red) == 1 and len(blue) == 1:
        return int(data["one"][one_index(red[0], blue[0], mover)]), ONE_ON_ONE - game.quiet
    side = 0 if len(red) == 2 else 1
    pair, single = (red, blue[0]) if side == 0 else (blue, red[0])
    left = NO_CAPTURE - game.quiet if game.options["nocapture"] else -1
    return int(data["two"][two_index(side, pair[0], pair[1], single, mover)]), left


def lookup(game: Game[Any]) -> Ending | None:
    """The value of ``game``'s position for its player to move, if the table covers it."""
    if not covered(game) or not tables():
        return None
    assert isinstance(game, Brax)
    plies, left = _entry(game)
    if plies == 0 or (left >= 0 and abs(plies) > left):
        return Ending("draw", 0)
    return Ending("win" if plies > 0 else "loss", abs(plies))


def move_values(game: Game[Any]) -> list[tuple[BraxMove, Ending]]:
    """Each legal move of ``game``'s position with its value for the player who makes it,
    from the table: a move that ends the game is a win or a draw in 1 ply, any other takes
    the value of the position after it, one ply longer. Empty unless the table covers the
    position (:func:`lookup`)."""
    if lookup(game) is None:
        return []
    assert isinstance(game, Brax)
    me = game.side_of(game.to_move)
    values = []
    for move in game.legal_moves():
        child = game.copy()
        child.play(move)
        outcome = child.outcome()
        if outcome is not None:
            ending = Ending("draw", 0) if outcome.winner is None else \
                Ending("win" if outcome.winner == me else "loss", 1)
        else:
            # the position after it: covered but for the repetition rule, which cannot
            # change a value the winner reaches by moves that bring the win nearer
            plies, left = _entry(child)
            if plies == 0 or (left >= 0 and abs(plies) > left):
                ending = Ending("draw", 0)
            else:
                ending = Ending("loss" if plies > 0 else "win", abs(plies) + 1)
        values.append((move, ending))
    return values


def best_moves(game: Game[Any]) -> list[tuple[BraxMove, Ending]]:
    """The moves of ``game``'s player to move that keep the value the table gives the
    position (:func:`lookup`), with their values: the fastest wins first, the slowest losses
    first, draws in the order of the legal moves. Empty unless the table covers it."""
    ending = lookup(game)
    if ending is None:
        return []
    kept = [(move, value) for move, value in move_values(game) if value.value == ending.value]
    sign = -1 if ending.value == "loss" else 1
    kept.sort(key=lambda pair: sign * pair[1].plies)
    return kept


def winning_moves(game: Game[Any]) -> list[BraxMove]:
    """The moves of ``game``'s player to move that keep a win the table proves, the fastest
    first (empty unless the position is a proven win)."""
    return [move for move, value in best_moves(game) if value.value == "win"]


def proven_move(game: Game[Any]) -> BraxMove | None:
    """The fastest winning move of ``game``'s position from the table, or None."""
    moves = winning_moves(game)
    return moves[0] if moves else None
