"""Retrograde analysis of the Brax endings with one piece against one and two pieces against
one: every such position's value for the player to move, and the plies it takes.

Imports numba: reach it only through :mod:`engine.search.endings`.

No player may call "Brax" once one side has one piece and the other one or two (X10), so
these positions hold no obligation, and a position is the points of the pieces and the side
to move. What bounds a game from them is the count of plies without a capture: one against
one is a draw after 10 of them (X13), two against one after 100 (X14). So the tables are
built ply by ply: at step k, a position is decided if its player to move wins, or loses
whatever they play, within k plies; ``dist`` keeps the first step at which it was decided
(the plies the win or the loss takes with both sides playing best), ``val`` the value (1 the
player to move wins, -1 they lose). A position still undecided at step k is a draw when k
plies are left before the draw rule ends the game. The steps go on until one decides nothing
new (then no later step would: step k reads only step k - 1).

A capture ends two against one: the pair's capture wins, the single piece's leads to one
against one with the count at zero (its table, read at 10 plies), and a double capture by
the single piece wins. Threefold repetition (X14) is left out: it cannot change the value of
a position whose earlier positions did not occur twice (docs/design/kernels.md, "Brax
endings").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.games.brax_board import NEIGHBOURS, POINTS, TWO_STEPS
from engine.search.endings import ONE_ON_ONE, PAIRS, pair_index
from engine.search.kernels.rt import inline, jit


def tables() -> tuple[np.ndarray[Any, Any], ...]:
    """The board as arrays: each point's neighbours (padded with -1), the (middle, end) of
    each point's two-step paths per side (padded), and the pairs of points in both
    directions (``pair[a, b]`` for a != b, :func:`engine.search.endings.pair_index`;
    ``first``, ``second`` of each pair index)."""
    one = np.full((POINTS, 4), -1, dtype=np.int32)
    for p, near in enumerate(NEIGHBOURS):
        one[p, : len(near)] = near
    most = max(len(steps) for side in TWO_STEPS for steps in side)
    two = np.full((2, POINTS, most, 2), -1, dtype=np.int32)
    for side in range(2):
        for p, steps in enumerate(TWO_STEPS[side]):
            for j, (q, t) in enumerate(steps):
                two[side, p, j] = (q, t)
    pair = np.full((POINTS, POINTS), -1, dtype=np.int32)
    first = np.zeros(PAIRS, dtype=np.int32)
    second = np.zeros(PAIRS, dtype=np.int32)
    for a in range(POINTS):
        for b in range(a + 1, POINTS):
            k = pair[a, b] = pair[b, a] = pair_index(a, b)
            first[k] = a
            second[k] = b
    return one, two, pair, first, second


@inline
def _path(one: Any, two: Any, side: int, p: int, j: int) -> tuple[int, int]:
    """The (middle, end) of path ``j`` of a piece of ``side`` on ``p``: its one-step paths
    first (middle -1), then its two-step paths; end -1 past the last (``j`` runs to
    ``one.shape[1] + two.shape[2]``)."""
    n1 = one.shape[1]
    if j < n1:
        return -1, one[p, j]
    return two[side, p, j - n1, 0], two[side, p, j - n1, 1]


@inline
def _earlier(val: Any, dist: Any, c: int, k: int) -> int:
    """The value of position ``c`` for the player who moves into it, if a step before ``k``
    decided it, else 0 (not decided yet)."""
    return -int(val[c]) if 0 < dist[c] < k else 0


@jit
def solve_one(one: Any, two: Any, val: Any, dist: Any) -> int:
    """Fill the table of one against one (``val``, ``dist``: zero, ``2 * POINTS**2``
    entries) for its 10 plies; the number of positions decided."""
    decided = 0
    for k in range(1, ONE_ON_ONE + 1):
        for red in range(POINTS):
            for blue in range(POINTS):
                if red == blue:
                    continue
                for mover in range(2):
                    i = (red * POINTS + blue) * 2 + mover
                    if dist[i] > 0:
                        continue
                    me = red if mover == 0 else blue
                    enemy = blue if mover == 0 else red
                    best = -1
                    for j in range(one.shape[1] + two.shape[2]):
                        mid, end = _path(one, two, mover, me, j)
                        if end < 0 or mid == enemy:
                            continue  # a double capture needs two enemy pieces
                        if end == enemy:
                            best = 1
                            break
                        r2 = end if mover == 0 else red
                        b2 = end if mover == 1 else blue
                        c = (r2 * POINTS + b2) * 2 + (1 - mover)
                        v = _earlier(val, dist, c, k)
                        if v > best:
                            best = v
                            if best == 1:
                                break
                    if best != 0:
                        val[i] = best
                        dist[i] = k
                        decided += 1
    return decided


@jit
def solve_two(
    one: Any, two: Any, pair: Any, first: Any, second: Any, val1: Any, dist1: Any, val: Any,
    dist: Any,
) -> int:
    """Fill the table of two against one (``val``, ``dist``: zero, ``2 * PAIRS * POINTS * 2``
    entries) from the table of one against one, step by step until a step decides nothing
    new; the number of steps."""
    n1 = one.shape[1]
    k = 0
    while True:
        k += 1
        changed = 0
        for side in range(2):
            for pr in range(PAIRS):
                a = first[pr]
                b = second[pr]
                for single in range(POINTS):
                    if single == a or single == b:
                        continue
                    for mover in range(2):
                        i = ((side * PAIRS + pr) * POINTS + single) * 2 + mover
                        if dist[i] > 0:
                            continue
                        best = -1
                        if mover == side:  # the pair moves
                            for h in range(2):
                                me = a if h == 0 else b
                                other = b if h == 0 else a
                                for j in range(n1 + two.shape[2]):
                                    mid, end = _path(one, two, mover, me, j)
                                    if end < 0 or mid == other or mid == single:
                                        continue
                                    if end == other:
                                        continue
                                    if end == single:
                                        best = 1
                                        break
                                    c = ((side * PAIRS + pair[other, end]) * POINTS
                                         + single) * 2 + (1 - mover)
                                    v = _earlier(val, dist, c, k)
                                    if v > best:
                                        best = v
                                        if best == 1:
                                            break
                                if best == 1:
                                    break
                        else:  # the single piece moves
                            for j in range(n1 + two.shape[2]):
                                mid, end = _path(one, two, mover, single, j)
                                if end < 0:
                                    continue
                                if mid == a or mid == b:
                                    if end == a or end == b:
                                        best = 1  # both pieces of the pair taken
                                        break
                                    continue
                                if end == a or end == b:
                                    # one against one, the count at zero, the pair's side
                                    # to move
                                    left = b if end == a else a
                                    red = left if side == 0 else end
                                    blue = end if side == 0 else left
                                    c = (red * POINTS + blue) * 2 + side
                                    v = -val1[c] if dist1[c] > 0 else 0
                                else:
                                    c = ((side * PAIRS + pr) * POINTS + end) * 2 + side
                                    v = _earlier(val, dist, c, k)
                                if v > best:
                                    best = v
                                    if best == 1:
                                        break
                        if best != 0:
                            val[i] = best
                            dist[i] = k
                            changed += 1
        if changed == 0:
            return k - 1
