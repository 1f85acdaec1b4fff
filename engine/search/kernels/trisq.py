"""Trisq as arrays for the compiled search: the rules of :mod:`engine.games.trisq`
(docs/rules/trisq.md, rulings T1-T11) restated on an int32 state array, in *steps*, a
playout of whole random turns, and the :class:`~engine.search.kernels.mcts.Codec` that maps a
:class:`engine.games.trisq.Trisq` game to and from them. Imports numba: reach it only through
:mod:`engine.search.kernels`.

Steps. A turn is one or two placements, and an empty 8x8 board offers about 10^5 two-placement
turns, so the tree does not expand whole turns: a turn is one or two *steps* of the same
player. Step codes: a slot index 0 .. 8n^2 - 1 (engine/games/trisq_geometry.py's numbering) for a
placement, and ``DONE`` = 8n^2 to end the turn after one placement.

- At a turn start the legal steps are the slots p that begin at least one legal turn: p is
  *good* (legal alone), or some q makes {p, q} legal (T8-T10; such a q bridges every
  unbridged point contact of p, so it is one of the bridges of p's first one). On Red's first
  turn (exactly one placement, T7) only the good slots, and the turn ends with the step.
- After a first step p (placed on the board at once, the turn pending): ``DONE`` if p is legal
  alone, and every slot q for which {p, q} is a legal turn. The player to move stays the same
  until the turn ends (``DONE``, a second placement, or Red's first placement); the winner is
  decided at the end of a turn only (T11). Both orders of a pair are steps: transpositions.

State: the owner of every slot (8n^2 entries: -1 empty, 0 Red, 1 Blue), the orientation of
every square (n^2 entries: -1 none, 0 h, 1 v), then the player to move, the result (-1 none,
else the winner: Trisq has no draws), the pending first step of the turn (-1 none) and 1
once a turn has been played (0: Red's single first placement; not a count of turns, so that
the same pieces reached in different numbers of turns are one position to the solver's
table). A slot is open when it is empty and
its orientation is its square's, or the square has none.

Playout: whole random turns. Uniform playouts (knowledge 0) draw each turn by the C
reference's random-turn procedure (:func:`_random_turn`: Red's first turn one uniform legal
single placement; otherwise a fair coin between a uniform legal single placement and up to 100
draws of a pair p, q among the open slots, played if legal). The search's default, knowledge 1
(:attr:`TrisqCodec.defaults`: it beat the uniform playouts 15-5 at 0.1 s a move), draws turns
as :meth:`engine.games.trisq.Trisq.random_move` draws them
(rejection sampling, not uniform over turns): a uniformly drawn open slot p; on Red's first
turn p alone if it is legal alone; else, if p is legal alone, p alone with probability
:data:`engine.games.trisq.SINGLE_PROBABILITY`, otherwise p with a uniformly drawn open slot q; if p
is not legal alone, p with a uniform choice among the open slots bridging all its unbridged
contacts; an illegal draw starts again. After :data:`engine.games.trisq.SAMPLE_ATTEMPTS` rejections
the playout falls back to a uniform choice among the legal first steps, then among the legal
second steps and ``DONE`` (the rules core falls back to a uniform choice among whole turns).
A playout started in the middle of a turn first finishes that turn the same way (``DONE``
with probability SINGLE_PROBABILITY if the first step is legal alone). Connections are
tracked with a union-find over the slots, with the player's edge bits on the roots. Every
placement is recorded for AMAF with its player (``DONE`` is not).

Playout knowledge (level 2): as level 1, and when an enemy piece of the last turn is
edge-adjacent to two of the mover's pieces in different chains, and those two pieces have
another open common edge-adjacent slot, the mover's turn starts there (the second placement
drawn as above), as a Hex playout saves a bridge. Not the default: no gain measured
(docs/design/figures.md).

Codec: a game's turn is :meth:`TrisqCodec.steps` (``(p,)`` -> ``[p, DONE]``, or ``[p]`` on
Red's first turn; ``(p, q)`` -> ``[p, q]``) and :meth:`TrisqCodec.assemble` makes the turn
back from its steps; :meth:`TrisqCodec.code` refuses (a turn is not one code) and
:meth:`TrisqCodec.move` covers only Red's single first placement.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

import numba
import numpy as np

from engine.games.core import Game
from engine.games.trisq import GOALS, SAMPLE_ATTEMPTS, SINGLE_PROBABILITY, Trisq, TrisqMove
from engine.games.trisq_geometry import BOTTOM, LEFT, RIGHT, TOP, geometry
from engine.search.kernels.mcts import Codec
from engine.search.kernels.rt import (
    chain_joins,
    edge_distance,
    i64,
    index_weight,
    inline,
    jit,
    kernel,
    mix,
    once,
    r_legal,
    rand_below,
    rand_next,
    rand_unit,
    register,
    squared_distances,
    typed,
    uf_find,
)

I32 = np.int32
# Offsets after the slots and the squares (TrisqTables.base).
TO_MOVE, RESULT, PENDING, TURNS = range(4)
#: Widths of the padded adjacency tables.
EDGE_WIDTH, POINT_WIDTH, BRIDGE_WIDTH = 8, 3, 4


class TrisqTables(NamedTuple):
    """The fixed arrays of an n x n board (see :class:`engine.games.trisq_geometry.Geometry`)."""

    n: int
    #: Number of slots, 8 n^2; also the step code DONE.
    slots: int
    #: Offset of the scalars in the state (slots + n^2).
    base: int
    #: edge[slot]: the edge-adjacent slots, -1 padded.
    edge: np.ndarray[Any, np.dtype[np.int32]]
    #: point[slot]: the point-adjacent slots, -1 padded.
    point: np.ndarray[Any, np.dtype[np.int32]]
    #: bridge[slot, k]: the bridge slots of the contact with point[slot, k], -1 padded.
    bridge: np.ndarray[Any, np.dtype[np.int32]]
    #: goal[player, slot]: bit 1 / 2 if the slot runs along the player's first / second edge.
    goal: np.ndarray[Any, np.dtype[np.int32]]
    #: The length of the ring of slots of the solver's distance search (:func:`_distance`):
    #: the smallest power of two above 3/2 of the slots (more than the slots, less than three
    #: times: with the slots and their distances it fits in the work array's 5 slots + 1).
    ring: int
    #: half[i]: the image of state entry i (a slot or a square; i < base) under the half
    #: turn of the board, which the rules keep (:func:`_key`); its own inverse.
    half: np.ndarray[Any, np.dtype[np.int32]]


_TABLES: dict[int, TrisqTables] = {}


def tables_for(n: int) -> TrisqTables:
    if n not in _TABLES:
        geo = geometry(n)
        count = 8 * n * n
        edge = np.full((count, EDGE_WIDTH), -1, dtype=I32)
        point = np.full((count, POINT_WIDTH), -1, dtype=I32)
        bridge = np.full((count, POINT_WIDTH, BRIDGE_WIDTH), -1, dtype=I32)
        goal = np.zeros((2, count), dtype=I32)
        for a in range(count):
            edge[a, : len(geo.edge_adj[a])] = geo.edge_adj[a]
            for k, (b, bridges) in enumerate(geo.point_adj[a]):
                point[a, k] = b
                bridge[a, k, : len(bridges)] = bridges
            bits = geo.touches[a]
            goal[0, a] = (1 if bits & BOTTOM else 0) | (2 if bits & TOP else 0)
            goal[1, a] = (1 if bits & LEFT else 0) | (2 if bits & RIGHT else 0)
        assert GOALS == (BOTTOM | TOP, LEFT | RIGHT)
        ring = 1
        while 2 * ring <= 3 * count:
            ring *= 2
        _TABLES[n] = TrisqTables(n, count, count + n * n, edge, point, bridge, goal, ring,
                                 half_turn(n))
    return _TABLES[n]


def half_turn(n: int) -> np.ndarray[Any, np.dtype[np.int32]]:
    """:attr:`TrisqTables.half` of an n x n board: square (f, r) goes to (n - 1 - f,
    n - 1 - r), keeping its orientation, and each piece to the piece of the opposite corner
    (``sw`` and ``ne``, ``se`` and ``nw``: corner c to 3 - c in the slot numbering), the
    piece turned half round; each player's two edges change places."""
    squares = n * n
    half = np.empty(9 * squares, dtype=I32)
    for slot in range(8 * squares):
        square, rest = divmod(slot, 8)
        half[slot] = (squares - 1 - square) * 8 + (rest & 4) + 3 - (rest & 3)
    for square in range(squares):
        half[8 * squares + square] = 8 * squares + squares - 1 - square
    return half


# The helpers called from many places are compiled once each, for these types (rt.typed),
# not into every caller: inlined at every call site, they made the rules take half a minute to
# compile. _defect stays inlined: the uniform playouts call it in their tightest loop.
_T = numba.typeof(tables_for(4))  # type: ignore[no-untyped-call]
_S = numba.int32[::1]
_I = numba.int64
_U = numba.uint64[::1]


@inline
def _open(t: Any, s: Any, slot: int) -> bool:
    """Whether ``slot`` can take a piece: empty, and its square unoriented or oriented its
    way."""
    if s[slot] != -1:
        return False
    o = s[t.slots + (slot >> 3)]
    return bool(o < 0 or o == (slot >> 2) & 1)


@typed(numba.boolean, _T, _S, _I, _I, _I)
def _covered(t: Any, s: Any, mover: int, a: int, b: int) -> bool:
    """Whether every point contact of slot ``a`` with a mover's piece, or with slot ``b``
    (placed in the same turn; -1 for none), has a bridge that is the mover's or is ``b``."""
    for k in range(POINT_WIDTH):
        x = t.point[a, k]
        if x < 0:
            break
        if s[x] == mover or x == b:
            ok = False
            for j in range(BRIDGE_WIDTH):
                y = t.bridge[a, k, j]
                if y < 0:
                    break
                if s[y] == mover or y == b:
                    ok = True
                    break
            if not ok:
                return False
    return True


@inline
def _defect(t: Any, s: Any, mover: int, a: int) -> int:
    """The index k of slot ``a``'s first point contact with a mover's piece that has no
    mover's bridge, or -1 if ``a`` is legal alone."""
    for k in range(POINT_WIDTH):
        x = t.point[a, k]
        if x < 0:
            break
        if s[x] == mover:
            ok = False
            for j in range(BRIDGE_WIDTH):
                y = t.bridge[a, k, j]
                if y < 0:
                    break
                if s[y] == mover:
                    ok = True
                    break
            if not ok:
                return k
    return -1


#: :func:`_defect` compiled once, for the legal moves and the playout's rarely run turns;
#: the playout's sampling has it inlined.
_defect_once = once(_defect, _I, _T, _S, _I, _I)


@typed(numba.boolean, _T, _S, _I, _I, _I)
def _pair_ok(t: Any, s: Any, mover: int, p: int, q: int) -> bool:
    """Whether {p, q}, two distinct open slots, is a legal turn (T8, T9)."""
    if p >> 3 == q >> 3 and (p ^ q) & 4:
        return False  # both orientations of one empty square
    return _covered(t, s, mover, p, q) and _covered(t, s, mover, q, p)


@inline
def _starts(t: Any, s: Any, mover: int, p: int, d: int) -> bool:
    """Whether the open slot ``p``, illegal alone (its first defect is contact ``d``), begins
    a legal two-placement turn: the second slot must bridge that contact."""
    for j in range(BRIDGE_WIDTH):
        q = t.bridge[p, d, j]
        if q < 0:
            break
        if _open(t, s, q) and _pair_ok(t, s, mover, p, q):
            return True
    return False


def _legal(t: Any, s: Any, out: Any) -> int:
    b = t.base
    if s[b + RESULT] >= 0:
        return 0
    mover = s[b + TO_MOVE]
    p = s[b + PENDING]
    k = 0
    if p < 0:
        first = s[b + TURNS] == 0
        for slot in range(t.slots):
            if _open(t, s, slot):
                d = _defect_once(t, s, mover, slot)
                if d < 0 or (not first and _starts(t, s, mover, slot, d)):
                    out[k] = slot
                    k += 1
        return k
    # p is on the board: the turn goes on with DONE or a second placement.
    d = _defect_once(t, s, mover, p)
    if d < 0:
        out[0] = t.slots
        k = 1
        for q in range(t.slots):
            if _open(t, s, q) and _covered(t, s, mover, q, -1):
                out[k] = q
                k += 1
    else:
        for j in range(BRIDGE_WIDTH):
            q = t.bridge[p, d, j]
            if q < 0:
                break
            if _open(t, s, q) and _covered(t, s, mover, p, q) and _covered(t, s, mover, q, -1):
                out[k] = q
                k += 1
    return k


def _winner(t: Any, s: Any) -> int:
    return int(s[t.base + RESULT])


def _to_move(t: Any, s: Any) -> int:
    return int(s[t.base + TO_MOVE])


@inline
def _place(t: Any, s: Any, mover: int, slot: int) -> bool:
    """Put a mover's piece on ``slot``; return whether it oriented its square."""
    s[slot] = mover
    square = t.slots + (slot >> 3)
    if s[square] < 0:
        s[square] = (slot >> 2) & 1
        return True
    return False


@typed(numba.none, _T, _S, _S, _I, _I, _I)
def _end_turn(t: Any, s: Any, w: Any, mover: int, p: int, q: int) -> None:
    b = t.base
    for k in range(2):  # one call site: each is compiled again
        start = p if k == 0 else q
        # the search's stamps and stack lie after the playout's arrays in w
        if start >= 0 and chain_joins(t.edge, t.goal, s, w, 5 * t.slots + 1, t.slots, mover,
                                      start):
            s[b + RESULT] = mover
            break
    s[b + PENDING] = -1
    s[b + TURNS] = 1
    s[b + TO_MOVE] = 1 - mover


def _play(t: Any, s: Any, w: Any, move: int) -> None:
    b = t.base
    mover = s[b + TO_MOVE]
    p = s[b + PENDING]
    if p < 0:
        _place(t, s, mover, move)
        if s[b + TURNS] > 0:
            s[b + PENDING] = move
        else:
            _end_turn(t, s, w, mover, move, -1)  # Red's first turn: one placement
    elif move == t.slots:
        _end_turn(t, s, w, mover, p, -1)
    else:
        _place(t, s, mover, move)
        _end_turn(t, s, w, mover, p, move)


# ------------------------------------------------------------------------------ playout


@typed(_I, _T, _S, _S, _S, _I, _I)
def _join(t: Any, s: Any, parent: Any, bits: Any, player: int, slot: int) -> int:
    """Join the piece on ``slot`` to its edge-adjacent pieces of ``player``; return the edge
    bits of the chain."""
    root = uf_find(parent, slot)
    touched = bits[root] | t.goal[player, slot]
    for k in range(EDGE_WIDTH):
        near = t.edge[slot, k]
        if near < 0:
            break
        if s[near] == player:
            other = uf_find(parent, near)
            if other != root:
                parent[other] = root
                touched |= bits[other]
    bits[root] = touched
    return int(touched)


@inline
def _unlist(free: Any, pos: Any, nfree: int, slot: int) -> int:
    """Remove ``slot`` from the list of open slots; return the new length."""
    j = pos[slot]
    nfree -= 1
    other = free[nfree]
    free[j] = other
    pos[other] = j
    return nfree


@inline
def _put(t: Any, s: Any, free: Any, pos: Any, nfree: int, mover: int, slot: int) -> int:
    """Place a piece in the playout, keeping the list of open slots; return its length."""
    nfree = _unlist(free, pos, nfree, slot)
    if _place(t, s, mover, slot):
        other = (slot & ~7) | (4 - (slot & 4))
        for c in range(4):
            nfree = _unlist(free, pos, nfree, other + c)
    return nfree


@kernel
def _answer(t: Any, s: Any, parent: Any, mover: int, c: int) -> int:
    """Playout knowledge: after an enemy piece on ``c``, an open slot edge-adjacent to two
    mover's pieces in different chains that were both edge-adjacent to ``c`` (the other
    common neighbour of a pair the enemy piece cut in), or -1. Compiled apart, when knowledge 2
    first needs it."""
    for i in range(EDGE_WIDTH):
        x = t.edge[c, i]
        if x < 0:
            break
        if s[x] != mover:
            continue
        rx = uf_find(parent, x)
        for j in range(i + 1, EDGE_WIDTH):
            y = t.edge[c, j]
            if y < 0:
                break
            if s[y] != mover or uf_find(parent, y) == rx:
                continue
            for k in range(EDGE_WIDTH):
                a = t.edge[x, k]
                if a < 0:
                    break
                if a == c or not _open(t, s, a):
                    continue
                for m in range(EDGE_WIDTH):
                    e = t.edge[y, m]
                    if e < 0:
                        break
                    if e == a:
                        return int(a)
    return -1


@inline
def _fixers(t: Any, s: Any, mover: int, p: int, d: int, buf: Any) -> int:
    """The open slots bridging every unbridged contact of ``p`` (whose first one is contact
    ``d``): written to ``buf``; return how many."""
    k = 0
    for j in range(BRIDGE_WIDTH):
        y = t.bridge[p, d, j]
        if y < 0:
            break
        if _open(t, s, y) and _covered(t, s, mover, p, y):
            buf[k] = y
            k += 1
    return k


@inline
def _second(
    t: Any, s: Any, free: Any, nfree: int, rng: Any, mover: int, p: int, buf: Any
) -> int:
    """A second step after ``p`` (already on the board, legal as a first step): DONE (t.slots)
    or a slot q completing a legal turn, drawn as the playout draws turns."""
    d = _defect(t, s, mover, p)
    if d < 0:
        if nfree == 0 or rand_unit(rng) < SINGLE_PROBABILITY:
            return int(t.slots)
        for _ in range(SAMPLE_ATTEMPTS):
            q = free[rand_below(rng, nfree)]
            if _covered(t, s, mover, q, -1):
                return int(q)
        return int(t.slots)
    found = _fixers(t, s, mover, p, d, buf)
    k = 0
    for j in range(found):
        if _covered(t, s, mover, buf[j], -1):
            buf[k] = buf[j]
            k += 1
    return int(buf[rand_below(rng, k)])  # k > 0: p began a legal turn


@inline
def _sample(
    t: Any, s: Any, free: Any, nfree: int, rng: Any, mover: int, first: bool, buf: Any
) -> tuple[int, int]:
    """A turn (p, q), q = -1 for a single placement, drawn as
    :meth:`engine.games.trisq.Trisq.random_move` draws it; (-1, -1) after SAMPLE_ATTEMPTS
    rejections."""
    for _ in range(SAMPLE_ATTEMPTS):
        p = free[rand_below(rng, nfree)]
        d = _defect(t, s, mover, p)
        if first:
            if d < 0:
                return int(p), -1
            continue
        if d < 0:
            if rand_unit(rng) < SINGLE_PROBABILITY or nfree < 2:
                return int(p), -1
            q = free[rand_below(rng, nfree)]
            while q == p:
                q = free[rand_below(rng, nfree)]
        else:
            found = _fixers(t, s, mover, p, d, buf)
            if found == 0:
                continue
            q = buf[rand_below(rng, found)]
        if _pair_ok(t, s, mover, p, q):
            return int(p), int(q)
    return -1, -1


@jit
def _fallback(
    t: Any, s: Any, free: Any, nfree: int, rng: Any, mover: int, first: bool, out: Any
) -> tuple[int, int]:
    """A turn after SAMPLE_ATTEMPTS rejections: a uniform legal first step, then a uniform
    second step or DONE; (-1, -1) if there is no legal turn (never: T10). Compiled apart
    from the playout (rarely run)."""
    k = r_legal(t, s, out)
    if k == 0:
        return -1, -1
    p = out[rand_below(rng, k)]
    if first:
        return int(p), -1
    k = 0
    if _defect_once(t, s, mover, p) < 0:
        out[0] = t.slots
        k = 1
    for j in range(nfree):
        y = free[j]
        if y != p and _pair_ok(t, s, mover, p, y):
            out[k] = y
            k += 1
    q = out[rand_below(rng, k)]
    return int(p), (-1 if q == t.slots else int(q))


@inline
def _compatible(p: int, q: int) -> bool:
    """Whether slot ``q`` stays open once ``p`` is placed (``q`` open now, ``q != p``)."""
    return q != p and (p >> 3 != q >> 3 or (p ^ q) & 4 == 0)


@kernel
def _uniform_single(
    t: Any, s: Any, free: Any, nfree: int, rng: Any, mover: int, buf: Any
) -> int:
    """A uniform legal single placement (32 draws among the open slots, then the list of
    them), or -1 if there is none. Compiled apart, when a uniform playout first needs it."""
    for _ in range(32):
        p = free[rand_below(rng, nfree)]
        if _defect(t, s, mover, p) < 0:
            return int(p)
    m = 0
    for j in range(nfree):
        if _defect(t, s, mover, free[j]) < 0:
            buf[m] = free[j]
            m += 1
    return int(buf[rand_below(rng, m)]) if m > 0 else -1


@jit
def _uniform_pair(t: Any, s: Any, free: Any, nfree: int, rng: Any, mover: int) -> tuple[int, int]:
    """A uniform legal two-placement turn (an unordered pair), by listing them all (rarely
    run: compiled apart from the playout); (-1, -1) if there is none."""
    total = 0
    for i in range(nfree):
        for j in range(i + 1, nfree):
            p, q = free[i], free[j]
            if _compatible(p, q) and _pair_ok(t, s, mover, p, q):
                total += 1
    if total == 0:
        return -1, -1
    pick = rand_below(rng, total)
    for i in range(nfree):
        for j in range(i + 1, nfree):
            p, q = free[i], free[j]
            if _compatible(p, q) and _pair_ok(t, s, mover, p, q):
                if pick == 0:
                    return int(p), int(q)
                pick -= 1
    return -1, -1


@inline
def _random_turn(
    t: Any, s: Any, free: Any, nfree: int, rng: Any, mover: int, first: bool, buf: Any
) -> tuple[int, int]:
    """The C reference's random turn (p, q), q = -1 for a single placement: Red's first turn
    is a uniform legal single placement; otherwise a fair coin: heads, a uniform legal single
    placement (if there is one, else tails); tails, up to 100 tries of p uniform among the
    open slots, then q uniform among the slots that stay open with p, played if the pair is
    legal; after 100 failures a uniform legal single placement, else a uniform legal pair."""
    if first:
        return _uniform_single(t, s, free, nfree, rng, mover, buf), -1
    if rand_next(rng) & 1 == 0:
        p = _uniform_single(t, s, free, nfree, rng, mover, buf)
        if p >= 0:
            return p, -1
    for _ in range(100):
        p = free[rand_below(rng, nfree)]
        rest = nfree - 1 - (4 if s[t.slots + (p >> 3)] < 0 else 0)
        if rest <= 0:
            continue
        q = free[rand_below(rng, nfree)]
        while not _compatible(p, q):
            q = free[rand_below(rng, nfree)]
        if _pair_ok(t, s, mover, p, q):
            return int(p), int(q)
    p = _uniform_single(t, s, free, nfree, rng, mover, buf)
    if p >= 0:
        return p, -1
    return _uniform_pair(t, s, free, nfree, rng, mover)


@jit
def _answer_start(t: Any, s: Any, parent: Any, mover: int, last_p: int, last_q: int) -> int:
    """The knowledge's first step after the enemy turn {last_p, last_q} (see :func:`_answer`)
    if it begins a legal turn, else -1. Compiled apart from the playout."""
    p = _answer(t, s, parent, mover, last_p)
    if p < 0 and last_q >= 0:
        p = _answer(t, s, parent, mover, last_q)
    if p >= 0:
        d = _defect_once(t, s, mover, p)
        if d >= 0 and not _starts(t, s, mover, p, d):
            return -1
    return p


def _playout_for(knowledge: int) -> Callable[..., int]:
    """The playout below with ``knowledge`` a constant of its compiled code (numba leaves
    out the other levels' branches; :func:`engine.search.kernels.rt.knowledge_level`)."""

    def _playout(t: Any, s: Any, w: Any, rng: Any, rec: Any, level: Any) -> int:
        """Whole random turns until a player wins (see the module docstring)."""
        b = t.base
        count = t.slots
        rec[0] = 0
        if s[b + RESULT] >= 0:
            return int(s[b + RESULT])
        parent = w[0:count]
        bits = w[count: 2 * count]
        free = w[2 * count: 3 * count]
        pos = w[3 * count: 4 * count]
        out = w[4 * count: 5 * count + 1]
        for slot in range(count):
            parent[slot] = slot
            bits[slot] = 0
        # The variables passed to the helpers compiled apart (_random_turn's, _fallback,
        # _answer_start) are int64 from the start: numba would otherwise compile each helper once
        # more for the first types it infers (the literal 0 or -1, the state's int32).
        nfree = i64(0)
        for slot in range(count):
            c = s[slot]
            if c >= 0:
                _join(t, s, parent, bits, c, slot)
            elif _open(t, s, slot):
                free[nfree] = slot
                pos[slot] = nfree
                nfree += 1
        mover = i64(s[b + TO_MOVE])
        n = 0
        p = s[b + PENDING]  # a first step taken before the playout (not recorded here)
        second = p >= 0
        last_p = i64(-1)
        last_q = i64(-1)
        while True:
            q = -1
            if p < 0:
                if knowledge > 1 and last_p >= 0:
                    p = _answer_start(t, s, parent, mover, last_p, last_q)
                    second = p >= 0
                if p < 0:
                    first = s[b + TURNS] == 0
                    if knowledge == 0:  # uniform playouts: the C reference's procedure
                        p, q = _random_turn(t, s, free, nfree, rng, mover, first, out)
                    else:
                        p, q = _sample(t, s, free, nfree, rng, mover, first, out)
                        if p < 0:
                            p, q = _fallback(t, s, free, nfree, rng, mover, first, out)
                    if p < 0:
                        break
                nfree = _put(t, s, free, pos, nfree, mover, p)
                rec[1 + 2 * n] = p
                rec[2 + 2 * n] = mover
                n += 1
            if second:  # the second step after a first one already placed
                q = _second(t, s, free, nfree, rng, mover, p, out)
                if q == count:
                    q = -1
                second = False
            touched = _join(t, s, parent, bits, mover, p)
            if q >= 0:
                nfree = _put(t, s, free, pos, nfree, mover, q)
                rec[1 + 2 * n] = q
                rec[2 + 2 * n] = mover
                n += 1
                if _join(t, s, parent, bits, mover, q) == 3:
                    touched = 3
            s[b + PENDING] = -1
            s[b + TURNS] = 1
            s[b + TO_MOVE] = 1 - mover
            if touched == 3:
                s[b + RESULT] = mover
                rec[0] = n
                return int(mover)
            mover = 1 - mover
            last_p = p
            last_q = q
            p = -1
        rec[0] = n
        return 2

    return _playout


# ------------------------------------------------------------------------------- solver


@inline
def _distance(t: Any, s: Any, w: Any, p: int) -> int:
    """The fewest open slots ``p`` must fill to join its edges, through its pieces and open
    slots from side to side (:func:`edge_distance`; a slot its square's orientation closes is
    as good as an enemy piece). An empty square offers the slots of both orientations, so a
    line may use both in one square: an estimate, never more than the truth. It works in the
    playout's part of ``w`` (``w[:5 count + 1]``), which the solver never uses: the slots as
    the search sees them, the distances, then a ring of the slots to visit."""
    count = t.slots
    seen = w[:count]
    for i in range(count):
        v = s[i]
        if v == -1:
            o = s[count + (i >> 3)]
            if o >= 0 and o != (i >> 2) & 1:
                v = 1 - p
        seen[i] = v
    return edge_distance(t.edge, t.goal, seen, w[count:], count, p, p, p, 1 - p, t.ring)


def _key(t: Any, s: Any) -> Any:
    """The solver's key of a state: the whole state's key (as the default key,
    :func:`engine.search.kernels.rt.sum_key`), and while at most a quarter of the slots
    hold pieces the least of it and its image's under the half turn
    (:attr:`TrisqTables.half`, the pending first step mapped alike), so that a position and
    its image share one table entry. The rules keep the half turn
    (tests/rules/test_symmetry.py); the mirrors turn each piece into its mirror image, which
    is no piece, and the quarter turns exchange the players' edges. The image's pass over
    the state cost 7% of a node's time on 4x4 endings, where a search from an asymmetric
    position meets no images; near the empty board, whose first moves come in pairs of
    images, it halves the positions. A position and its image hold as many pieces, so both
    are folded or neither."""
    base = t.base
    count = t.slots
    h0 = np.uint64(0)
    pieces = 0
    for i in range(base):
        v = s[i]
        h0 += np.uint64(np.int64(v) + 3) * index_weight(i)
        if i < count and v >= 0:
            pieces += 1
    p = s[base + PENDING]
    h = mix(h0, p)
    if 4 * pieces <= count:
        half = t.half
        h1 = np.uint64(0)
        for i in range(base):
            h1 += np.uint64(np.int64(s[half[i]]) + 3) * index_weight(i)
        h = min(h, mix(h1, half[p] if p >= 0 else p))
    h = mix(h, s[base + TO_MOVE])
    h = mix(h, s[base + RESULT])
    return mix(h, s[base + TURNS])


register(
    TrisqTables,
    legal=_legal,
    play=_play,
    winner=_winner,
    to_move=_to_move,
    playout=_playout_for,
    init=squared_distances(_distance),
    key=_key,
)


class TrisqCodec(Codec):
    """Maps :class:`engine.games.trisq.Trisq` games to the arrays above; moves are one or two
    steps (see :meth:`steps` and :meth:`assemble`)."""

    multistep = True
    #: Playouts drawn as the rules core draws random turns (knowledge 1), not the uniform
    #: ones of the C reference (knowledge 0): they scored 15-5 against them at 0.1 s a move.
    defaults: ClassVar[dict[str, Any]] = {"knowledge": 1}

    def tables(self, game: Game[Any]) -> TrisqTables:
        assert isinstance(game, Trisq)
        return tables_for(game.n)

    def state(self, game: Game[Any]) -> np.ndarray[Any, np.dtype[np.int32]]:
        assert isinstance(game, Trisq)
        t = self.tables(game)
        s = np.full(t.base + 4, -1, dtype=I32)
        s[: t.slots] = game._col
        s[t.slots: t.base] = game._orient
        s[t.base + TO_MOVE] = game.to_move
        outcome = game.outcome()
        if outcome is not None and outcome.winner is not None:
            s[t.base + RESULT] = outcome.winner
        s[t.base + TURNS] = min(len(game.history), 1)
        return s

    def sizes(self, game: Game[Any]) -> tuple[int, int, int]:
        assert isinstance(game, Trisq)
        count = 8 * game.n * game.n
        return count + 1, count + 1, 7 * count + 4

    def plies(self, game: Game[Any]) -> int:
        assert isinstance(game, Trisq)
        return 4 * game.n * game.n + 2

    def steps(self, game: Game[Any], move: TrisqMove) -> list[int]:
        """The step codes of a turn from ``game``'s position."""
        assert isinstance(game, Trisq)
        if len(move) == 2:
            return [move[0], move[1]]
        if not game.history:
            return [move[0]]  # Red's first turn ends with its one placement
        return [move[0], 8 * game.n * game.n]

    def assemble(self, game: Game[Any], codes: list[int]) -> TrisqMove | None:
        """The turn made by the step codes ``codes`` from ``game``'s position (a turn start),
        or None while the turn is incomplete."""
        assert isinstance(game, Trisq)
        done = 8 * game.n * game.n
        if not codes or (len(codes) == 1 and game.history):
            return None
        if len(codes) == 1 or codes[1] == done:
            return (codes[0],)
        return (min(codes[0], codes[1]), max(codes[0], codes[1]))

    def move(self, game: Game[Any], code: int) -> TrisqMove:
        """The turn of a single step code: only Red's first placement is one."""
        assert isinstance(game, Trisq)
        if game.history:
            raise ValueError("a Trisq turn after the first is more than one step")
        return (code,)

    def code(self, game: Game[Any], move: TrisqMove) -> int:
        raise ValueError("a Trisq turn is one or two steps: use TrisqCodec.steps")
