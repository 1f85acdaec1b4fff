"""Bricka as arrays for the compiled search: the rules of :mod:`engine.games.bricka`
(docs/rules/bricka.md, rulings K1-K11) restated on an int32 state array, and the
:class:`~engine.search.kernels.mcts.Codec` that maps a :class:`engine.games.bricka.Bricka` game to
and from
them. Imports numba: reach it only through :mod:`engine.search.kernels`.

State: ``board`` (69 entries: -1 empty, 0 Black, 1 White, 2 neutral), then the player to
move, the result (-1 none, 0/1 the winner, 2 a draw), the previous placement (-1 after a pass
or at the start), whether the previous turn was a pass, and the number of free points.
Move codes: an intersection 0..68, or 69 for the (forced) pass.

The tree plays moves with :func:`_play` (a flood fill from the new piece). The playout draws
a free point uniformly, rejecting the points the previous placement blocks (K4), as the C
reference does, and keeps its own structures: per-cell counts for K5 and a union-find per
colour whose roots carry the sides their component touches. At knowledge k it draws again, k
times at most, when the piece would turn neutral (K5): a player keeps their pieces in their
own colour where they can, which counts in the end by count (K10) and keeps the opponent's
chains from using them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

import numpy as np

from engine.games.bricka import PASS, Bricka
from engine.games.core import Game
from engine.search.kernels.mcts import Codec
from engine.search.kernels.rt import (
    edge_distance,
    index_weight,
    inline,
    mix,
    rand_below,
    register,
    squared_distances,
    uf_find,
)

I32 = np.int32
N = 69
PASS_CODE = N
S_TO_MOVE, S_RESULT, S_LAST, S_PASSED, S_FREE = N, N + 1, N + 2, N + 3, N + 4


class BrickaTables(NamedTuple):
    """The board data of :mod:`engine.games.bricka_board` as padded arrays."""

    points: int
    nbr: np.ndarray[Any, np.dtype[np.int32]]  # [p, k] neighbours along lines, -1 padded
    cells: np.ndarray[Any, np.dtype[np.int32]]  # [c, k] points of cell c, -1 padded
    cell_size: np.ndarray[Any, np.dtype[np.int32]]
    cells_of: np.ndarray[Any, np.dtype[np.int32]]  # [p, k] cells containing p, -1 padded
    blocked: np.ndarray[Any, np.dtype[np.int32]]  # [last, p] 1 if p is blocked after last
    blocked_list: np.ndarray[Any, np.dtype[np.int32]]  # [last, k] the blocked points
    side_bit: np.ndarray[Any, np.dtype[np.int32]]  # 1 << side, 0 for inner points
    #: edge[k, p]: bit 1 / 2 if p is on the first / second side of the k-th pair of
    #: opposite sides (the solver's distances, :func:`_distance`)
    edge: np.ndarray[Any, np.dtype[np.int32]]
    #: sym[g, p]: the image of point p under the identity, the half turn and the two
    #: mirrors through g7, the symmetries the rules keep (:func:`_key`); each its own
    #: inverse.
    sym: np.ndarray[Any, np.dtype[np.int32]]


_TABLES: list[BrickaTables] = []


def tables_for() -> BrickaTables:
    if not _TABLES:
        from engine.games.bricka_board import (
            BLOCKED_AFTER,
            CELLS,
            CELLS_OF,
            INDEX,
            NEIGHBOURS,
            POINTS,
            SIDE_OF,
        )

        def padded(rows: Any, width: int) -> np.ndarray[Any, np.dtype[np.int32]]:
            table = np.full((len(rows), width), -1, dtype=I32)
            for i, row in enumerate(rows):
                table[i, : len(row)] = sorted(row)
            return table

        blocked = np.zeros((N, N), dtype=I32)
        for p, points in enumerate(BLOCKED_AFTER):
            blocked[p, list(points)] = 1
        edge = np.zeros((3, N), dtype=I32)
        for p, side in enumerate(SIDE_OF):
            if side >= 0:
                edge[side // 2, p] = 1 << (side % 2)
        _TABLES.append(
            BrickaTables(
                N,
                padded(NEIGHBOURS, max(map(len, NEIGHBOURS))),
                padded(CELLS, max(map(len, CELLS))),
                np.array([len(c) for c in CELLS], dtype=I32),
                padded(CELLS_OF, max(map(len, CELLS_OF))),
                blocked,
                padded(BLOCKED_AFTER, max(map(len, BLOCKED_AFTER))),
                np.array([0 if s < 0 else 1 << s for s in SIDE_OF], dtype=I32),
                edge,
                np.array([[INDEX[f, r] for f, r in POINTS],
                          [INDEX[12 - f, 12 - r] for f, r in POINTS],
                          [INDEX[12 - f, r] for f, r in POINTS],
                          [INDEX[f, 12 - r] for f, r in POINTS]], dtype=I32),
            )
        )
    return _TABLES[0]


def _legal(t: Any, s: Any, out: Any) -> int:
    if s[S_RESULT] >= 0:
        return 0
    last = s[S_LAST]
    k = 0
    for p in range(N):
        if s[p] == -1 and (last < 0 or t.blocked[last, p] == 0):
            out[k] = p
            k += 1
    if k == 0:
        out[0] = PASS_CODE
        k = 1
    return k


def _winner(t: Any, s: Any) -> int:
    return int(s[S_RESULT])


def _to_move(t: Any, s: Any) -> int:
    return int(s[S_TO_MOVE])


@inline
def _count(s: Any) -> int:
    """K10: the result by count on the board."""
    black = 0
    white = 0
    for p in range(N):
        if s[p] == 0:
            black += 1
        elif s[p] == 1:
            white += 1
    if white > black:
        return 1
    if black > white:
        return 0
    return 2


@inline
def _joined(t: Any, s: Any, w: Any, start: int, player: int) -> bool:
    """Whether ``player``'s own-or-neutral chain through ``start`` joins a pair of opposite
    sides (``w``: visit stamps, stack, stamp counter)."""
    w[2 * N] += 1
    mark = w[2 * N]
    w[start] = mark
    w[N] = start
    top = 1
    bits = 0
    while top > 0:
        top -= 1
        p = w[N + top]
        bits |= t.side_bit[p]
        for k in range(t.nbr.shape[1]):
            q = t.nbr[p, k]
            if q < 0:
                break
            v = s[q]
            if (v == player or v == 2) and w[q] != mark:
                w[q] = mark
                w[N + top] = q
                top += 1
    return (bits & 3) == 3 or (bits & 12) == 12 or (bits & 48) == 48


@inline
def _majority(t: Any, s: Any, move: int, mover: int) -> bool:
    """K5: whether ``mover``'s piece on ``move`` (placed, or about to be: the point counts as
    the mover's) holds a strict majority of the non-neutral points of a cell holding it."""
    for j in range(t.cells_of.shape[1]):
        c = t.cells_of[move, j]
        if c < 0:
            break
        free_of_neutral = 0
        mine = 0
        for k in range(t.cell_size[c]):
            p = t.cells[c, k]
            v = s[p]
            if v == 2:
                free_of_neutral += 1
            elif v == mover or p == move:
                mine += 1
        if mine >= (t.cell_size[c] - free_of_neutral) // 2 + 1:
            return True
    return False


def _play(t: Any, s: Any, w: Any, move: int) -> None:
    mover = s[S_TO_MOVE]
    s[S_TO_MOVE] = 1 - mover
    if move == PASS_CODE:
        if s[S_PASSED] == 1:
            s[S_RESULT] = _count(s)
        s[S_PASSED] = 1
        s[S_LAST] = -1
        return
    s[S_PASSED] = 0
    s[S_LAST] = move
    s[S_FREE] -= 1
    s[move] = mover
    neutral = _majority(t, s, move, mover)
    if neutral:
        s[move] = 2
    if _joined(t, s, w, move, mover):
        s[S_RESULT] = mover
        return
    if neutral and _joined(t, s, w, move, 1 - mover):
        s[S_RESULT] = 1 - mover
        return
    if s[S_FREE] == 0:
        s[S_RESULT] = _count(s)


@inline
def _add(t: Any, s: Any, parent: Any, mask: Any, p: int, player: int) -> bool:
    """Join the piece on ``p`` to ``player``'s union-find (own and neutral pieces, each
    component's root carrying the 6-bit mask of the sides it touches); whether its component
    now joins a pair of opposite sides. ``player``'s entries are ``N * player`` on."""
    base = N * player
    root = uf_find(parent, base + p)
    bits = mask[root] | t.side_bit[p]
    for k in range(t.nbr.shape[1]):
        q = t.nbr[p, k]
        if q < 0:
            break
        v = s[q]
        if v == player or v == 2:
            other = uf_find(parent, base + q)
            if other != root:
                parent[other] = root
                bits |= mask[other]
    mask[root] = bits
    return bool((bits & 3) == 3 or (bits & 12) == 12 or (bits & 48) == 48)


@inline
def _turns_neutral(t: Any, counts: Any, move: int, mover: int) -> bool:
    """Whether the mover's piece on ``move`` turns neutral (K5): in one of the point's cells
    (``t.cells_of``) the mover's pieces with it would be more than half of the cell's points
    less its neutral pieces (``counts``: four a cell, Black, White, neutral, size)."""
    for j in range(t.cells_of.shape[1]):
        c = t.cells_of[move, j]
        if c < 0:
            break
        if 2 * (counts[4 * c + mover] + 1) > counts[4 * c + 3] - counts[4 * c + 2]:
            return True
    return False


def _playout_for(knowledge: int) -> Callable[..., int]:
    """The playout below with ``knowledge`` a constant of its compiled code (numba leaves
    out the other levels' branches; :func:`engine.search.kernels.rt.knowledge_level`)."""

    def _playout(t: Any, s: Any, w: Any, rng: Any, rec: Any, level: Any) -> int:
        """Placements drawn uniformly among the unblocked free points, as the C reference does:
        rejection over the 69 points, the exact list after 16 misses, a pass when there is none.
        At ``knowledge`` k > 0 (the search's playouts), a point where the mover's piece would turn
        neutral (K5) is drawn again, k times at most. Per-cell counts of each colour and of
        neutral pieces decide K5, and a union-find per colour (own and neutral pieces) with the
        sides each component touches decides the wins: nothing is scanned per placement.

        Scratch ``w``: the union-finds (two times 69 parents and masks), the cell counts (four a
        cell: Black, White, neutral, size) and a list of points."""
        rec[0] = 0
        if s[S_RESULT] >= 0:
            return int(s[S_RESULT])
        cells = t.cells.shape[0]
        parent = w[0: 2 * N]
        mask = w[2 * N: 4 * N]
        counts = w[4 * N: 4 * N + 4 * cells]
        buf = w[4 * N + 4 * cells: 5 * N + 4 * cells]
        for c in range(cells):
            counts[4 * c] = 0
            counts[4 * c + 1] = 0
            counts[4 * c + 2] = 0
            counts[4 * c + 3] = t.cell_size[c]
        for p in range(N):
            parent[p] = p
            parent[N + p] = N + p
            mask[p] = t.side_bit[p]
            mask[N + p] = t.side_bit[p]
        for p in range(N):
            v = s[p]
            if v < 0:
                continue
            for j in range(t.cells_of.shape[1]):
                c = t.cells_of[p, j]
                if c < 0:
                    break
                counts[4 * c + v] += 1
            for player in range(2):
                if v == player or v == 2:
                    _add(t, s, parent, mask, p, player)
        free = s[S_FREE]
        last = s[S_LAST]
        passed = s[S_PASSED]
        mover = s[S_TO_MOVE]
        count = 0
        result = -1
        while True:
            retries = knowledge
            move = -1
            checked = False  # whether ``neutral`` below is already known for ``move``
            neutral = False
            while True:
                move = -1
                for _ in range(16):
                    p = rand_below(rng, N)
                    if s[p] == -1 and (last < 0 or t.blocked[last, p] == 0):
                        move = p
                        break
                if move < 0:
                    m = 0
                    for p in range(N):
                        if s[p] == -1 and (last < 0 or t.blocked[last, p] == 0):
                            buf[m] = p
                            m += 1
                    if m > 0:
                        move = buf[rand_below(rng, m)]
                if move < 0 or retries == 0:
                    checked = False
                    break
                checked = True
                neutral = _turns_neutral(t, counts, move, mover)
                if not neutral:
                    break
                retries -= 1  # one more draw instead of a piece that turns neutral
            rec[1 + 2 * count] = PASS_CODE if move < 0 else move
            rec[2 + 2 * count] = mover
            count += 1
            if move < 0:
                last = -1
                mover = 1 - mover
                if passed == 1:
                    result = _count(s)
                    break
                passed = 1
                continue
            passed = 0
            last = move
            free -= 1
            if not checked:
                neutral = _turns_neutral(t, counts, move, mover)
            v = 2 if neutral else mover
            s[move] = v
            for j in range(t.cells_of.shape[1]):
                c = t.cells_of[move, j]
                if c < 0:
                    break
                counts[4 * c + v] += 1
            other = 1 - mover
            if _add(t, s, parent, mask, move, mover):
                result = mover
            elif neutral and _add(t, s, parent, mask, move, other):
                result = other
            elif free == 0:
                result = _count(s)
            mover = other
            if result >= 0:
                break
        rec[0] = count
        s[S_RESULT] = result
        s[S_TO_MOVE] = mover
        s[S_LAST] = last
        s[S_PASSED] = passed
        s[S_FREE] = free
        return int(result)

    return _playout


#: Where the solver's distance search works in ``w``: after :func:`_play`'s visit stamps,
#: stack and counter (``w[:2 N + 1]``), in the playout's part, which the solver never uses;
#: the distances, then a ring of 256 points to visit (the work array has 6 N + 4 x 30).
DISTANCE_AT = 2 * N + 2
RING = 256


@inline
def _distance(t: Any, s: Any, w: Any, p: int) -> int:
    """The fewest free points ``p`` must fill to join a pair of opposite sides, through
    their own and neutral pieces (:func:`edge_distance` for each pair; blocking is left
    out: it lasts one turn)."""
    d = w[DISTANCE_AT:]
    best = N + 1
    for k in range(3):
        best = min(best, edge_distance(t.nbr, t.edge, s, d, N, k, p, 2, 1 - p, RING))
    return best


def _key(t: Any, s: Any) -> Any:
    """The solver's key of a state: while at most a quarter of the points hold pieces, the
    least of the keys of its images under the symmetries of the board
    (:attr:`BrickaTables.sym`), the previous placement mapped alike, so that a position and
    its images share one table entry; later the key of the state as it is. Both players
    have the same goal and the same rules, so the board's symmetries are the game's, the
    colours kept (tests/rules/test_symmetry.py). The images cost 8% of a node's time on
    endings, where a search from an asymmetric position meets none of them; near the empty
    board they quarter the positions. Images hold as many pieces: all are folded or none."""
    sym = t.sym
    folds = 4 if 4 * (N - s[S_FREE]) <= N else 1
    h0 = h1 = h2 = h3 = np.uint64(0)
    for i in range(N):
        r = index_weight(i)
        h0 += np.uint64(np.int64(s[i]) + 3) * r
        if folds > 1:
            h1 += np.uint64(np.int64(s[sym[1, i]]) + 3) * r
            h2 += np.uint64(np.int64(s[sym[2, i]]) + 3) * r
            h3 += np.uint64(np.int64(s[sym[3, i]]) + 3) * r
    last = s[S_LAST]
    best = np.uint64(0)
    for g in range(folds):
        h = h0 if g == 0 else (h1 if g == 1 else (h2 if g == 2 else h3))
        h = mix(h, sym[g, last] if last >= 0 else last)
        if g == 0 or h < best:
            best = h
    h = mix(best, s[S_TO_MOVE])
    h = mix(h, s[S_RESULT])
    h = mix(h, s[S_PASSED])
    return mix(h, s[S_FREE])


register(
    BrickaTables,
    legal=_legal,
    play=_play,
    winner=_winner,
    to_move=_to_move,
    playout=_playout_for,
    init=squared_distances(_distance),
    key=_key,
)


class BrickaCodec(Codec):
    """Maps :class:`engine.games.bricka.Bricka` games to the arrays above."""

    #: Playouts draw again, twice at most, instead of a piece that would turn neutral
    #: (docs/design/figures.md has the matches that chose this).
    defaults: ClassVar[dict[str, Any]] = {"knowledge": 2}

    def tables(self, game: Game[Any]) -> BrickaTables:
        return tables_for()

    def state(self, game: Game[Any]) -> np.ndarray[Any, np.dtype[np.int32]]:
        assert isinstance(game, Bricka)
        s = np.full(N + 5, -1, dtype=I32)
        s[:N] = [game.piece_at(p) for p in range(N)]
        s[S_TO_MOVE] = game.to_move
        outcome = game.outcome()
        if outcome is not None:
            s[S_RESULT] = 2 if outcome.winner is None else outcome.winner
        last = game.last_placement()
        s[S_LAST] = -1 if last is None else last
        history = game.history
        s[S_PASSED] = 1 if history and history[-1] == PASS else 0
        s[S_FREE] = int(np.count_nonzero(s[:N] == -1))
        return s

    def sizes(self, game: Game[Any]) -> tuple[int, int, int]:
        return N + 1, N + 1, 6 * N + 4 * len(tables_for().cell_size)

    def move(self, game: Game[Any], code: int) -> int:
        return PASS if code == PASS_CODE else code

    def code(self, game: Game[Any], move: int) -> int:
        return PASS_CODE if move == PASS else move

    def plies(self, game: Game[Any]) -> int:
        return 2 * N + 2  # a pass at most between two placements
