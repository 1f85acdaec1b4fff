"""Brique as arrays for the compiled search: the rules of :mod:`engine.games.brique`
(docs/rules/brique.md, rulings B1-B11) restated on an int32 state array, a fast playout,
and the :class:`~engine.search.kernels.mcts.Codec` that maps a :class:`engine.games.brique.Brique`
game
to and from them. Imports numba: reach it only through :mod:`engine.search.kernels`.

State: ``cells`` (n*n entries: -1 empty, 0 Black, 1 White), then the player to move, the
winner (-1 none), the number of moves played up to 2 and the first move's square while it is
the only move (for the swap).
Move codes: a square index r*n + f, or n*n for the pie swap.

Playout knowledge (level 1): the fill rule joins two stones on a NE-SW diagonal by itself,
but a NW-SE diagonal pair is joined only through one of its two common neighbours; when the
opponent places a stone on one of them, the playout answers on the other (as a Hex playout
saves a bridge).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from engine.games.brique import SWAP, Brique, BriqueMove
from engine.games.core import Game
from engine.games.grid import coords, index, swap_mirror
from engine.search.kernels.mcts import Codec
from engine.search.kernels.rt import (
    chain_joins,
    edge_distance,
    inline,
    r_play,
    rand_below,
    register,
    squared_distances,
    uf_find,
)

I32 = np.int32


class BriqueTables(NamedTuple):
    """The fixed arrays of an n x n board (see :class:`engine.games.brique.Geometry`)."""

    n: int
    pie: int
    #: fills[s, k] = (partner, target): a stone on s fills target if the mover holds partner.
    fills: np.ndarray[Any, np.dtype[np.int32]]
    #: nbr[i]: orthogonal neighbours, padded with -1.
    nbr: np.ndarray[Any, np.dtype[np.int32]]
    #: edge[p, i]: bit 1 / 2 if cell i is on player p's first / second edge.
    edge: np.ndarray[Any, np.dtype[np.int32]]
    mirror: np.ndarray[Any, np.dtype[np.int32]]
    #: save[p, k] = (a, b, c): after an enemy stone on p, the mover holding a and b (a NW-SE
    #: pair whose common neighbours are p and c) answers on c if it is empty.
    save: np.ndarray[Any, np.dtype[np.int32]]
    #: near[i]: the orthogonal neighbours and the NE and SW diagonal ones, padded with -1
    #: (two stones of a colour on a NE-SW diagonal are always joined, see the rules).
    near: np.ndarray[Any, np.dtype[np.int32]]
    #: The length of the ring of squares of the solver's distance search (:func:`_distance`):
    #: the largest power of two up to 4 n^2 (the ring and the distances fit in the 8 n^2 + 4
    #: of the work array).
    ring: int


_TABLES: dict[tuple[int, bool], BriqueTables] = {}


def tables_for(n: int, pie: bool) -> BriqueTables:
    key = (n, pie)
    if key not in _TABLES:
        from engine.games.brique import geometry

        geo = geometry(n)
        cells = n * n
        fills = np.full((cells, 2, 2), -1, dtype=I32)
        nbr = np.full((cells, 4), -1, dtype=I32)
        near = np.full((cells, 6), -1, dtype=I32)
        save = np.full((cells, 2, 3), -1, dtype=I32)
        for i in range(cells):
            for k, pair in enumerate(geo.fills[i]):
                fills[i, k] = pair
            for k, other in enumerate(geo.neighbours[i]):
                nbr[i, k] = other
            f, r = coords(i, n)
            diagonal = [index(f + d, r + d, n) for d in (1, -1)
                        if 0 <= f + d < n and 0 <= r + d < n]
            for k, other in enumerate([*geo.neighbours[i], *diagonal]):
                near[i, k] = other
            k = 0
            for a, b, c in (
                ((f, r + 1), (f + 1, r), (f + 1, r + 1)),
                ((f - 1, r), (f, r - 1), (f - 1, r - 1)),
            ):
                if all(0 <= x < n and 0 <= y < n for x, y in (a, b, c)):
                    save[i, k] = (index(*a, n), index(*b, n), index(*c, n))
                    k += 1
        edge = np.array(geo.edge_bits, dtype=I32)
        mirror = np.array([swap_mirror(i, n) for i in range(cells)], dtype=I32)
        ring = 1 << ((4 * cells).bit_length() - 1)
        _TABLES[key] = BriqueTables(n, int(pie), fills, nbr, edge, mirror, save, near, ring)
    return _TABLES[key]


def _legal(t: Any, s: Any, out: Any) -> int:
    size = t.n * t.n
    if s[size + 1] >= 0:
        return 0
    k = 0
    for i in range(size):
        if s[i] == -1:
            out[k] = i
            k += 1
    if t.pie == 1 and s[size + 2] == 1 and s[size] == 1:
        out[k] = size
        k += 1
    return k


def _winner(t: Any, s: Any) -> int:
    return int(s[t.n * t.n + 1])


def _to_move(t: Any, s: Any) -> int:
    return int(s[t.n * t.n])


@inline
def _count(s: Any, size: int, move: int) -> None:
    """Count a move in the state: the first move's square is kept for White's swap, then
    forgotten, and the count stops at 2 (so that positions reached by different move orders
    or numbers of moves are one position to the solver's table)."""
    played = s[size + 2]
    if played == 0:
        s[size + 3] = move
    elif played == 1:
        s[size + 3] = -1
    if played < 2:
        s[size + 2] = played + 1


@inline
def _fill(t: Any, s: Any, move: int, k: int, player: int) -> int:
    """The fill rule for the ``k``-th (partner, target) pair of a stone of ``player`` just
    placed on ``move``: with ``player`` on the partner, the target becomes theirs; the target
    filled, or -1 (none, or no such pair: the table pads each square's pairs with -1)."""
    partner = t.fills[move, k, 0]
    if partner < 0:
        return -1
    target = t.fills[move, k, 1]
    if s[partner] == player and s[target] != player:
        s[target] = player
        return int(target)
    return -1


def _play(t: Any, s: Any, w: Any, move: int) -> None:
    size = t.n * t.n
    p = s[size]
    if move == size:
        source = s[size + 3]
        target = t.mirror[source]
        if source != target:
            s[source] = -1
        s[target] = 1
    else:
        s[move] = p
        for k in range(2):
            _fill(t, s, move, k, p)
        # B9: the mover's chain through the new stone; the search's stamps and stack lie
        # after the playout's union-find arrays in w
        if chain_joins(t.nbr, t.edge, s, w, 6 * size, size, p, move):
            s[size + 1] = p
    _count(s, size, move)
    s[size] = 1 - p


@inline
def _distance(t: Any, s: Any, w: Any, p: int) -> int:
    """The fewest empty squares ``p`` must fill to join its edges, through its stones and
    empty squares, with the NE-SW diagonal neighbours as neighbours (:func:`edge_distance`,
    in the first 5 n^2 entries of ``w``: the playout's part, which the solver never uses;
    :func:`_play` keeps its visit stamps after 6 n^2)."""
    return edge_distance(t.near, t.edge, s, w, t.n * t.n, p, p, p, 1 - p, t.ring)


@inline
def _join(t: Any, s: Any, parent: Any, bits: Any, player: int, cell: int) -> int:
    size = t.n * t.n
    base = player * size
    root = uf_find(parent, base + cell)
    touched = bits[root] | t.edge[player, cell]
    for k in range(4):
        near = t.nbr[cell, k]
        if near < 0:
            break
        if s[near] == player:
            other = uf_find(parent, base + near)
            if other != root:
                parent[other] = root
                touched |= bits[other]
    bits[root] = touched
    return int(touched)


def _playout_for(knowledge: int) -> Callable[..., int]:
    """The playout below with ``knowledge`` a constant of its compiled code (numba leaves
    out the other levels' branches; :func:`engine.search.kernels.rt.knowledge_level`)."""

    def _playout(t: Any, s: Any, w: Any, rng: Any, rec: Any, level: Any) -> int:
        """As :func:`engine.games.brique.fast_playout` (union-find per colour with edge bits on the
        roots), plus the intrusion answer when ``knowledge`` > 0."""
        size = t.n * t.n
        rec[0] = 0
        if s[size + 1] >= 0:
            return int(s[size + 1])
        if t.pie == 1 and s[size + 2] == 1 and s[size] == 1:
            # White's first turn: any empty square or the swap, uniformly.
            empties = 0
            for i in range(size):
                if s[i] == -1:
                    empties += 1
            pick = rand_below(rng, empties + 1)
            move = size
            for i in range(size):
                if s[i] == -1:
                    if pick == 0:
                        move = i
                        break
                    pick -= 1
            r_play(t, s, w, move)
            rec[1] = move
            rec[2] = 1
            rec[0] = 1
            if s[size + 1] >= 0:
                return int(s[size + 1])
        parent = w[0: 2 * size]
        bits = w[2 * size: 4 * size]
        empt = w[4 * size: 5 * size]
        pos = w[5 * size: 6 * size]
        for i in range(2 * size):
            parent[i] = i
            bits[i] = 0
        k = 0
        for cell in range(size):
            c = s[cell]
            if c == -1:
                empt[k] = cell
                pos[cell] = k
                k += 1
            else:
                _join(t, s, parent, bits, c, cell)
        player = s[size]
        last = -1
        count = rec[0]
        while k > 0:
            move = -1
            if knowledge > 0 and last >= 0:
                for e in range(2):
                    a = t.save[last, e, 0]
                    if a < 0:
                        break
                    c = t.save[last, e, 2]
                    if s[a] == player and s[t.save[last, e, 1]] == player and s[c] == -1:
                        move = c
                        break
            if move >= 0:
                j = pos[move]
                k -= 1
                other = empt[k]
                empt[j] = other
                pos[other] = j
            else:
                while k > 0:
                    j = rand_below(rng, k)
                    cell = empt[j]
                    k -= 1
                    other = empt[k]
                    empt[j] = other
                    pos[other] = j
                    if s[cell] == -1:
                        move = cell
                        break
                if move < 0:
                    break
            s[move] = player
            rec[1 + 2 * count] = move
            rec[2 + 2 * count] = player
            count += 1
            touched = _join(t, s, parent, bits, player, move)
            for f in range(2):
                target = _fill(t, s, move, f, player)
                if target >= 0:
                    touched = _join(t, s, parent, bits, player, target)
            _count(s, size, move)
            if touched == 3:
                rec[0] = count
                s[size + 1] = player
                s[size] = 1 - player
                return int(player)
            last = move
            player = 1 - player
        rec[0] = count
        return -1  # a full board without a winner cannot happen (B11)

    return _playout


# The kernels run these through the generic stubs; tests and tools call the jitted copies.
register(
    BriqueTables,
    legal=_legal,
    play=_play,
    winner=_winner,
    to_move=_to_move,
    playout=_playout_for,
    init=squared_distances(_distance),
)


class BriqueCodec(Codec):
    """Maps :class:`engine.games.brique.Brique` games to the arrays above."""

    def tables(self, game: Game[Any]) -> BriqueTables:
        assert isinstance(game, Brique)
        return tables_for(game.n, game.pie)

    def state(self, game: Game[Any]) -> np.ndarray[Any, np.dtype[np.int32]]:
        assert isinstance(game, Brique)
        size = game.n * game.n
        s = np.full(size + 4, -1, dtype=I32)
        s[:size] = game.cells()
        s[size] = game.to_move
        outcome = game.outcome()
        s[size + 1] = -1 if outcome is None or outcome.winner is None else outcome.winner
        history = game.history
        s[size + 2] = min(len(history), 2)
        s[size + 3] = history[0].square if len(history) == 1 else -1
        return s

    def sizes(self, game: Game[Any]) -> tuple[int, int, int]:
        assert isinstance(game, Brique)
        size = game.n * game.n
        return size + 1, size + 1, 8 * size + 4

    def move(self, game: Game[Any], code: int) -> BriqueMove:
        assert isinstance(game, Brique)
        return SWAP if code == game.n * game.n else BriqueMove(code)

    def code(self, game: Game[Any], move: BriqueMove) -> int:
        assert isinstance(game, Brique)
        return game.n * game.n if move.is_swap else move.square
