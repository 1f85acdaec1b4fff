"""The generic compiled MCTS loop (UCT with RAVE, MCTS-solver) over a game's array rules, and
:class:`KernelSearcher`, which runs it in slices behind :class:`engine.search.base.Searcher`.

Imports numba (through :mod:`engine.search.kernels.rt`): reach it only through
:mod:`engine.search.kernels`.

The tree lives in flat arrays, one entry per node: visits, wins (for the player who moved
into the node; draws count 1/2), AMAF visits and wins (RAVE), the move into the node, its
first child and number of children (children are contiguous, created all at once when a
node is expanded) and its proof (+1: the player who moved into the node wins with best play,
-1: loses, 0: unknown), as in Winands, Bjornsson and Saito's MCTS-Solver. An iteration copies
the root state, descends by the selection rule playing moves on the copy, expands the leaf
once it has ``expand_visits`` visits, plays the game out with the game's playout, and backs
the result up (value, AMAF and proofs). Proven-lost children are never selected; a
proven-won child is always selected (and proves its parent lost for the other side, or won
when the same player moved into the parent).

Moves and steps: a tree edge is one *step*, a move code of the game's array rules. In most
games a step is a whole move; a game whose turns are too many to expand at once (Trisq: one or
two placements, ~10^5 turns on an empty board) splits a turn into steps taken by the same
player, and its codec maps moves to steps (:meth:`Codec.steps`) and back
(:meth:`Codec.assemble`).
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

import numpy as np

from engine.games.core import Game
from engine.search.base import MoveStat, Progress, Proof, SearchResult, pauses_collector
from engine.search.kernels.rt import (
    copy_into,
    i64,
    inline,
    kernel,
    knowledge_level,
    new_rng,
    r_legal,
    r_play,
    r_playout,
    r_to_move,
    r_winner,
)
from engine.search.players import Limit

# Parameter slots (a float64 array, so that features can be switched without recompiling).
P_UCT = 0  # exploration constant
P_RAVE = 1  # RAVE bias b (0: RAVE off); beta = n_amaf / (n_amaf + n + b * n_amaf * n)
P_EXPAND = 2  # visits a leaf needs before it is expanded
P_SOLVER = 3  # 1: propagate proofs; 0: plain MCTS (terminal results only)
P_DECISIVE = 4  # 1: at expansion, mark the children that win at once as proven
P_GRAVE = 5  # GRAVE reference visits (0: plain RAVE, each node's own AMAF statistics)
P_CONTEMPT = 6  # a draw is worth 1/2 - contempt to the player to move at the root
N_PARAMS = 7
# (The playout's knowledge level is no slot: it is an argument whose type is the level,
# rt.knowledge_level, and the loop is compiled for it.)

# Meta slots (an int64 array).
M_NODES = 0  # nodes used
M_ITERATIONS = 1  # iterations run so far
M_ROOT = 2  # the root node (0: a reused subtree is copied into a tree of its own)
N_META = 3


@inline
def _select(
    node: int, tree: Any, rng: Any, c_uct: float, rave: float, ref: Any, it: int, base: int
) -> int:
    """The child of ``node`` to descend to. With RAVE on, a child's AMAF statistics are the
    reference node's for the same move (GRAVE) when ``ref`` holds them for this iteration
    (``ref[2][base + move] == it``), else its own."""
    visits, wins, amv, amw, mv, first, count, proof, _meta = tree
    ref_v, ref_w, ref_at = ref
    f = first[node]
    k = count[node]
    log_n = math.log(visits[node] + 1.0)
    start = 0
    if k > 1:
        start = (rng[0] >> np.uint64(33)) % np.uint64(k)
    best = -1
    best_score = -1e300
    for j in range(k):
        c: int = f + (int(start) + j) % k
        pc = proof[c]
        if pc == 1:
            return c
        if pc == -1:
            continue
        v = visits[c]
        av = amv[c]
        aw = amw[c]
        if rave > 0.0:
            r = base + mv[c]
            if ref_at[r] == it:
                av = ref_v[r]
                aw = ref_w[r]
        if rave > 0.0 and av > 0.0:
            a = aw / av
            if v > 0:
                beta = av / (av + v + rave * av * v)
                score = (1.0 - beta) * (wins[c] / v) + beta * a
            else:
                score = a
            score += c_uct * math.sqrt(log_n / (v + 1.0))
        elif v == 0:
            score = 1e9
        else:
            score = wins[c] / v + c_uct * math.sqrt(log_n / v)
        if score > best_score:
            best_score = score
            best = c
    if best < 0:  # every child is proven lost: any will do
        best = f
    return best


@inline
def _reference(
    node: int, tree: Any, ref: Any, it: int, base: int, grave: float, top: int
) -> None:
    """GRAVE (Cazenave 2015): when ``node`` has at least ``grave`` visits (the root always),
    its children's AMAF statistics become the reference for the same player's moves below it
    in this iteration. Off (plain RAVE) when ``grave`` is 0."""
    if grave <= 0.0 or (node != top and tree[0][node] < grave):
        return
    amv, amw, mv, first, count = tree[2], tree[3], tree[4], tree[5], tree[6]
    ref_v, ref_w, ref_at = ref
    f = first[node]
    for c in range(f, f + count[node]):
        r = base + mv[c]
        ref_v[r] = amv[c]
        ref_w[r] = amw[c]
        ref_at[r] = it


@inline
def _choose(
    t: Any, s: Any, node: int, tree: Any, rng: Any, c_uct: float, rave: float, ref: Any,
    it: int, grave: float, top: int,
) -> int:
    """The child of ``node`` (whose position is ``s``) to descend to: GRAVE's reference for
    the player to move there is taken first, then the selection rule."""
    codes = ref[0].shape[0] // 2  # the reference tables hold each player's move codes
    base = codes * r_to_move(t, s)
    _reference(node, tree, ref, it, base, grave, top)
    return _select(node, tree, rng, c_uct, rave, ref, it, base)


@inline
def _prove_up(tree: Any, path: Any, pl: Any, depth: int) -> None:
    """Propagate a new proof at ``path[depth]`` towards the root. ``pl[d]`` is the player
    who moved into ``path[d]``: a turn of several steps (Trisq) has one player move twice in
    a row, and then a child proven won proves its parent won for the same player."""
    proof = tree[7]
    first = tree[5]
    count = tree[6]
    for d in range(depth - 1, -1, -1):
        n = path[d]
        if proof[n] != 0:
            return
        f = first[n]
        all_lost = True
        won = False
        for c in range(f, f + count[n]):
            if proof[c] == 1:
                won = True
                break
            if proof[c] != -1:
                all_lost = False
        same = 1 if pl[d + 1] == pl[d] else -1
        if won:
            proof[n] = same
        elif all_lost:
            proof[n] = -same
        else:
            return


@inline
def _step(t: Any, s: Any, w: Any, mv: Any, path: Any, pl: Any, depth: int, child: int) -> int:
    """Play the move into ``child`` as step ``depth`` + 1 of the path; the result after it."""
    pl[depth + 1] = r_to_move(t, s)
    r_play(t, s, w, i64(mv[child]))  # int64 as in the playouts: one compilation
    path[depth + 1] = child
    return int(r_winner(t, s))


@kernel
def run(
    t: Any, root: Any, tree: Any, scratch: Any, rng: Any, params: Any, iters: int,
    knowledge: Any,
) -> int:
    """Run ``iters`` iterations (fewer if the root gets proven); return how many ran. The
    playouts are at the ``knowledge`` level (:func:`rt.knowledge_level`)."""
    visits, wins, amv, amw, mv, first, count, proof, meta = tree
    s, w, buf, rec, path, pl, stamp, who, s2, ref_v, ref_w, ref_at = scratch
    ref = (ref_v, ref_w, ref_at)
    decisive = params[P_DECISIVE] > 0.0
    c_uct = params[P_UCT]
    rave = params[P_RAVE]
    grave = params[P_GRAVE] if rave > 0.0 else 0.0
    expand_at = params[P_EXPAND]
    solver = params[P_SOLVER] > 0.0
    cap = visits.shape[0]
    room = buf.shape[0]
    root_mover = 1 - r_to_move(t, root)
    # what a draw is worth to each player: less than 1/2 to the searching player with contempt
    con = params[P_CONTEMPT]
    draw = (0.5 + con, 0.5 - con) if root_mover == 0 else (0.5 - con, 0.5 + con)
    top = meta[M_ROOT]
    deepest = path.shape[0] - 2
    done = 0
    for _ in range(iters):
        if proof[top] != 0:
            break
        it = meta[M_ITERATIONS] + 1
        meta[M_ITERATIONS] = it
        done += 1
        copy_into(s, root)
        depth = 0
        node = top
        path[0] = top
        pl[0] = root_mover
        res = r_winner(t, s)
        # Descend to a leaf, expand it if it may be, and step once more into its new children
        # (one call site of the selection and the step: each is compiled into this loop).
        while res < 0 and depth < deepest:
            leaf = first[node] < 0
            if leaf:
                if not (
                    (node == top or visits[node] >= expand_at) and meta[M_NODES] + room <= cap
                ):
                    break
                k = r_legal(t, s, buf)
                f = meta[M_NODES]
                meta[M_NODES] = f + k
                for j in range(k):
                    c = f + j
                    visits[c] = 0
                    wins[c] = 0.0
                    amv[c] = 0.0
                    amw[c] = 0.0
                    mv[c] = buf[j]
                    first[c] = -1
                    count[c] = 0
                    proof[c] = 0
                first[node] = f
                count[node] = k
                if decisive and solver:
                    mover = r_to_move(t, s)
                    for j in range(k):
                        copy_into(s2, s)
                        r_play(t, s2, w, i64(buf[j]))
                        if r_winner(t, s2) == mover:
                            proof[f + j] = 1
                            break
            child = _choose(t, s, node, tree, rng, c_uct, rave, ref, it, grave, top)
            res = _step(t, s, w, mv, path, pl, depth, child)
            depth += 1
            node = child
            if leaf:
                break
        if res >= 0:
            rec[0] = 0
            if depth > 0 and solver and res != 2:
                proof[node] = 1 if res == pl[depth] else -1
                _prove_up(tree, path, pl, depth)
        else:
            res = r_playout(t, s, w, rng, rec, knowledge)
        # AMAF marks: the first player to play each move code after the current node.
        if rave > 0.0:
            for j in range(rec[0] - 1, -1, -1):
                m = rec[1 + 2 * j]
                stamp[m] = it
                who[m] = rec[2 + 2 * j]
        for d in range(depth, -1, -1):
            n = path[d]
            visits[n] += 1
            if res == pl[d]:
                wins[n] += 1.0
            elif res == 2:
                wins[n] += draw[pl[d]]
            if rave > 0.0 and d < depth:
                m = mv[path[d + 1]]
                stamp[m] = it
                who[m] = pl[d + 1]
                mover = pl[d + 1]
                value = 1.0 if res == mover else (draw[mover] if res == 2 else 0.0)
                f = first[n]
                for c in range(f, f + count[n]):
                    m = mv[c]
                    if stamp[m] == it and who[m] == mover:
                        amv[c] += 1.0
                        amw[c] += value
    return done


@kernel
def playouts(
    t: Any, root: Any, scratch: Any, rng: Any, knowledge: Any, n: int, stats: Any
) -> int:
    """Run ``n`` playouts at the ``knowledge`` level (:func:`rt.knowledge_level`) from
    ``root`` (for the figures and the benchmarks); return the first player's wins (the player
    to move at ``root``). ``stats`` (five floats) gains the first player's wins, the
    second's, the draws, and the sum and the sum of squares of the playouts' lengths in turns
    (a turn: the moves of one player in a row)."""
    s, w, _buf, rec = scratch[0], scratch[1], scratch[2], scratch[3]
    first = r_to_move(t, root)
    wins = 0
    for _ in range(n):
        copy_into(s, root)
        result = r_playout(t, s, w, rng, rec, knowledge)
        if result == first:
            wins += 1
            stats[0] += 1.0
        elif result == 2 or result < 0:
            stats[2] += 1.0
        else:
            stats[1] += 1.0
        turns = 0
        before = -1
        for k in range(rec[0]):
            if rec[2 + 2 * k] != before:
                turns += 1
                before = rec[2 + 2 * k]
        stats[3] += turns
        stats[4] += turns * turns
    return wins


@kernel
def probe(
    t: Any, s: Any, w: Any, out: Any, rng: Any, rec: Any, op: int, move: int, knowledge: Any
) -> int:
    """The rules one at a time, for tests (one compilation per game and knowledge level):
    ``op`` 0 writes the legal moves to ``out`` and returns their number, 1 plays ``move``, 2
    plays a playout at the ``knowledge`` level (:func:`rt.knowledge_level`; returning its
    result), 3 returns the result so far."""
    if op == 0:
        return r_legal(t, s, out)
    if op == 1:
        r_play(t, s, w, move)
        return 0
    if op == 2:
        return r_playout(t, s, w, rng, rec, knowledge)
    return r_winner(t, s)


@kernel
def step(t: Any, s: Any, w: Any, out: Any, op: int, move: int) -> int:
    """The rules a search needs one at a time to complete a move of several steps: ``op`` 0
    writes the legal steps to ``out`` and returns their number, 1 plays ``move``. Not
    :func:`probe`, which compiles the playout once more inside it, nor the solver's
    :func:`engine.search.kernels.dfpn.rules`, which compiles the table's key too."""
    if op == 0:
        return r_legal(t, s, out)
    r_play(t, s, w, move)
    return 0


@dataclasses.dataclass(frozen=True)
class Settings:
    """Search parameters of the kernels (see the ``P_*`` slots)."""

    uct: float = 0.35
    rave: float = 0.001
    expand_visits: int = 1
    #: The playouts' knowledge level, 0 (uniform) to 7; what the levels above 0 do is each
    #: game's (docs/design/kernels.md). The search loop is compiled for its level.
    knowledge: int = 0
    solver: bool = True
    #: Try every child at expansion for an immediate win (the solver then proves it).
    decisive: bool = False
    #: GRAVE: AMAF statistics come from the deepest ancestor with at least this many visits
    #: (0: plain RAVE, each node's own).
    grave: int = 0
    #: A draw is worth 1/2 - contempt to the searching player (and 1/2 + contempt to the
    #: other) in the statistics: with contempt > 0 the search prefers an even fight to a
    #: draw. Proofs and the reported winrates of proven moves are not affected.
    contempt: float = 0.0
    #: Keep the tree for the next search when its position follows from this one.
    reuse: bool = False
    #: Tree capacity in nodes (memory: about 41 bytes a node).
    max_nodes: int = 2_000_000

    def __post_init__(self) -> None:
        knowledge_level(self.knowledge)  # ValueError when out of range

    def array(self) -> np.ndarray[Any, np.dtype[np.float64]]:
        values = [0.0] * N_PARAMS
        values[P_UCT] = self.uct
        values[P_RAVE] = self.rave
        values[P_EXPAND] = float(self.expand_visits)
        values[P_SOLVER] = 1.0 if self.solver else 0.0
        values[P_DECISIVE] = 1.0 if self.decisive else 0.0
        values[P_GRAVE] = float(self.grave)
        values[P_CONTEMPT] = self.contempt
        return np.array(values, dtype=np.float64)


class Codec:
    """What a game's kernel module provides: its arrays and the move codes of one game."""

    #: The game's own defaults for :class:`Settings` (the searcher of
    #: :func:`engine.search.kernels.load` uses them), where a feature showed a gain in that game
    #: only.
    defaults: ClassVar[dict[str, Any]] = {}

    #: Whether the game's moves take several steps (then :meth:`steps` and :meth:`assemble`
    #: are the game's own, and searches complete moves with :func:`probe`).
    multistep = False

    def supports(self, game: Game[Any]) -> bool:
        """Whether the kernel covers ``game`` with its options (else the Python MCTS
        searches it)."""
        return True

    def tables(self, game: Game[Any]) -> tuple[Any, ...]:
        """The game's fixed tables (a NamedTuple registered with :func:`rt.register`)."""
        raise NotImplementedError

    def state(self, game: Game[Any]) -> np.ndarray[Any, Any]:
        """The array state of ``game`` (int32, or int64 where a game needs it)."""
        raise NotImplementedError

    def sizes(self, game: Game[Any]) -> tuple[int, int, int]:
        """(number of move codes, most legal moves in a position, work array length)."""
        raise NotImplementedError

    def move(self, game: Game[Any], code: int) -> Any:
        """The game's move for a move code."""
        raise NotImplementedError

    def code(self, game: Game[Any], move: Any) -> int:
        """The move code of one of the game's moves."""
        raise NotImplementedError

    def steps(self, game: Game[Any], move: Any) -> list[int]:
        """The step codes of one of the game's moves (one step per move unless a game's
        turns are split into steps)."""
        return [self.code(game, move)]

    def assemble(self, game: Game[Any], codes: list[int]) -> Any | None:
        """The game's move made by the step codes ``codes`` from ``game``'s position, or
        ``None`` while they do not complete a move."""
        return self.move(game, codes[0]) if len(codes) == 1 else None

    def plies(self, game: Game[Any]) -> int:
        """The most moves one playout may record."""
        return self.sizes(game)[0] + 2

    def meaning(self, game: Game[Any], state: np.ndarray[Any, Any]) -> list[int]:
        """The part of a state array that defines the position (tests compare it)."""
        return [int(x) for x in state]


_PROOF_OF_CHILD: dict[int, Proof] = {1: "win", -1: "loss"}
#: The root's proof is for the player who moved into it: the other side from the one to move.
_PROOF_OF_ROOT: dict[int, Proof] = {1: "loss", -1: "win"}


#: Bytes kept free on each side of a search's arrays (two cache lines: one, and the
#: neighbour a processor may fetch with it).
GUARD = 128


def apart(
    length: int, dtype: Any, fill: float = 0, like: np.ndarray[Any, Any] | None = None
) -> np.ndarray[Any, Any]:
    """A 1-d array of ``length`` entries (``fill``, or a copy of ``like``) in memory of its
    own: :data:`GUARD` bytes of unused space on each side, so that no cache line holds both
    it and another array. The trees of a search on several threads are written at once, each
    by its thread; where two small arrays of two trees (a playout's work array, the state)
    shared a cache line, every write of one thread took the line from the other core (false
    sharing)."""
    pad = -(-GUARD // np.dtype(dtype).itemsize)
    block = np.zeros(length + 2 * pad, dtype=dtype) if fill == 0 else np.full(
        length + 2 * pad, fill, dtype=dtype)
    view = block[pad: pad + length]
    if like is not None:
        view[:] = like
    return view


def _copy(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """:func:`apart` of a copy of ``a``."""
    return apart(a.shape[0], a.dtype, like=a)


class Tree:
    """The arrays of one search: tree, scratch space, generator state."""

    def __init__(
        self,
        codec: Codec,
        game: Game[Any],
        settings: Settings,
        seed: int,
        iterations: int | None = None,
    ) -> None:
        codes, most, work = codec.sizes(game)
        cap = settings.max_nodes
        if iterations is not None:  # each iteration expands one node at most
            cap = min(cap, (iterations + 1) * most + 1)
        cap = max(cap, 4 * most + 1)
        self.tables = codec.tables(game)
        self.root = _copy(codec.state(game))
        self.tree: tuple[np.ndarray[Any, Any], ...] = (
            apart(cap, np.int32),
            apart(cap, np.float64),
            apart(cap, np.float64),
            apart(cap, np.float64),
            apart(cap, np.int32, -1),
            apart(cap, np.int32, -1),
            apart(cap, np.int32),
            apart(cap, np.int8),
            apart(N_META, np.int64),
        )
        self.tree[8][M_NODES] = 1
        self.codec = codec
        self.most = most
        #: The root's game (its position and history), for :meth:`find`.
        self.game = game.copy()
        depth = codes + 8
        plies = codec.plies(game)
        self.scratch: tuple[np.ndarray[Any, Any], ...] = (
            _copy(self.root),
            apart(work, np.int32),
            apart(most, np.int32),
            apart(2 * (plies + depth) + 2, np.int32),
            apart(depth, np.int32),
            apart(depth, np.int32),
            apart(codes, np.int64),
            apart(codes, np.int32),
            _copy(self.root),
            # GRAVE's reference AMAF statistics, per player and move code
            apart(2 * codes, np.float64),
            apart(2 * codes, np.float64),
            apart(2 * codes, np.int64),
        )
        self.rng = _copy(new_rng(seed))
        self.params = _copy(settings.array())
        #: The playouts' knowledge level, as the kernels take it.
        self.knowledge = knowledge_level(settings.knowledge)

    def run(self, iters: int) -> int:
        done: int = run(self.tables, self.root, self.tree, self.scratch, self.rng,
                        self.params, iters, self.knowledge)
        return done

    @property
    def iterations(self) -> int:
        return int(self.tree[8][M_ITERATIONS])

    @property
    def top(self) -> int:
        """The root node."""
        return int(self.tree[8][M_ROOT])

    @property
    def root_proof(self) -> int:
        return int(self.tree[7][self.top])

    @property
    def capacity(self) -> int:
        """Nodes the tree holds at most."""
        return int(self.tree[0].shape[0])

    @property
    def room(self) -> int:
        """Nodes still free."""
        return int(self.tree[0].shape[0] - self.tree[8][M_NODES])

    def find(self, game: Game[Any]) -> int:
        """The node of ``game``'s position if ``game`` continues the root's game by one move
        or more that the tree holds, else -1. The moves are those ``game``'s history adds to
        the root's, and they must lead from the root's position to ``game``'s (a game set up
        from a position string has a short history: equal histories do not make equal
        positions)."""
        history = tuple(game.history)
        old = tuple(self.game.history)
        if len(history) <= len(old) or history[: len(old)] != old:
            return -1
        if self.codec.tables(game) is not self.tables:
            return -1
        replay = self.game.copy()
        for move in history[len(old):]:
            if replay.is_over() or not replay.is_legal(move):
                return -1
            replay.play(move)
        codec = self.codec
        if codec.meaning(game, codec.state(replay)) != codec.meaning(game, codec.state(game)):
            return -1
        _v, _w, _a, _b, mv, first, count, _p, _meta = self.tree
        node = self.top
        replay = self.game.copy()
        for move in history[len(old):]:
            for code in self.codec.steps(replay, move):
                f = int(first[node])
                if f < 0:
                    return -1
                kids = [c for c in range(f, f + int(count[node])) if mv[c] == code]
                if not kids:
                    return -1
                node = kids[0]
            replay.play(move)
        return node

    @property
    def used(self) -> int:
        return int(self.tree[8][M_NODES])


@kernel
def compact(old: Any, top: int, new: Any, queue: Any) -> int:
    """Copy the subtree of ``old`` under node ``top`` into the empty tree ``new`` (``top``
    becomes node 0, children stay contiguous); return the number of nodes copied. ``queue``
    is scratch space for as many entries as ``old`` has nodes (the kernels allocate
    nothing)."""
    ov, ow, oa, ob, om, of, oc, op, ometa = old
    nv, nw, na, nb, nm, nf, nc, nq, nmeta = new
    queue[0] = top
    head = 0
    tail = 1
    while head < tail:
        o = queue[head]
        n = head
        head += 1
        nv[n] = ov[o]
        nw[n] = ow[o]
        na[n] = oa[o]
        nb[n] = ob[o]
        nm[n] = om[o]
        nq[n] = op[o]
        if of[o] >= 0:
            nf[n] = tail
            nc[n] = oc[o]
            for j in range(oc[o]):
                queue[tail] = of[o] + j
                tail += 1
        else:
            nf[n] = -1
            nc[n] = 0
    nmeta[M_NODES] = tail
    nmeta[M_ITERATIONS] = ometa[M_ITERATIONS]
    nmeta[M_ROOT] = 0
    return tail


def _timed_run(tree: Tree, iterations: int) -> float:
    """Run ``iterations`` more iterations of ``tree`` (none if not positive); the seconds
    they took."""
    start = time.perf_counter()
    if iterations > 0:
        tree.run(iterations)
    return time.perf_counter() - start


class KernelSearcher:
    """A :class:`engine.search.base.Searcher` over one game's compiled kernel."""

    #: Seconds one slice should take: the clock and ``limit.stop()`` are checked between.
    slice_seconds = 0.02
    #: How many root moves get a full principal variation in a result.
    lines = 16

    def __init__(self, codec: Codec, settings: Settings | None = None) -> None:
        self.codec = codec
        self.settings = settings if settings is not None else Settings(**codec.defaults)
        self._last: Tree | None = None

    @pauses_collector
    def search(
        self,
        game: Game[Any],
        limit: Limit,
        rng: random.Random,
        progress: Progress | None = None,
        interval: float = 0.5,
    ) -> SearchResult:
        """Search ``game`` within ``limit``. With ``limit.threads`` > 1, as many independent
        trees search at once, one per thread (root parallelisation: the kernels release
        the GIL), a playout budget is shared among them, and the result adds up their root
        statistics."""
        start = time.perf_counter()
        budget = limit.budget
        threads = max(1, limit.threads)
        seeds = [rng.getrandbits(63) for _ in range(threads)]
        shares: list[int | None] = [
            None if budget is None else budget // threads + (i < budget % threads)
            for i in range(threads)
        ]
        old = self._last
        node = -1 if old is None else old.find(game)
        if old is not None and node >= 0:
            # Keep the subtree of the new position: copied into a tree of its own.
            share = shares[0]
            first = Tree(self.codec, game, self.settings, seeds[0],
                         None if share is None else share + old.used // old.most + 1)
            compact(old.tree, node, first.tree, np.empty(old.used, dtype=np.int32))
        else:
            first = Tree(self.codec, game, self.settings, seeds[0], shares[0])
        trees = [first] + [
            Tree(self.codec, game, self.settings, seed, share)
            for seed, share in zip(seeds[1:], shares[1:], strict=True)
        ]
        self._last = first if self.settings.reuse else None
        base = self.settings.expand_visits
        for tree, share in zip(trees, shares, strict=True):
            tree.params[P_EXPAND] = base
            if share is not None:  # expand later if the budget would fill the tree
                tree.params[P_EXPAND] = max(base, math.ceil(share * tree.most / max(tree.room, 1)))
        done = [tree.iterations for tree in trees]
        # Stop a little early: the result (statistics and lines) takes a few milliseconds.
        deadline = None if limit.time is None else start + limit.time - min(
            0.01, 0.05 * limit.time
        )
        # Each tree's slice is sized from its own rate, so that the trees of a threaded
        # search end their slices together (one that waits for a slower one wastes a core).
        sizes = [64] * threads
        next_report = start + interval
        pool = ThreadPoolExecutor(threads - 1) if threads > 1 else None
        try:
            while not any(tree.root_proof for tree in trees):
                left = [
                    size if share is None else min(size, share - (tree.iterations - d))
                    for tree, share, d, size in zip(trees, shares, done, sizes, strict=True)
                ]
                if max(left) <= 0 or limit.stop():
                    break
                if pool is None:
                    took = [_timed_run(first, left[0])]
                else:
                    others = [
                        pool.submit(_timed_run, tree, n)
                        for tree, n in zip(trees[1:], left[1:], strict=True)
                    ]
                    took = [_timed_run(first, left[0])] + [f.result() for f in others]
                # The deadline is checked after a slice: one that passed while the trees were
                # set up (a loaded machine) still leaves a searched move, not the first legal
                # one.
                if deadline is not None and time.perf_counter() >= deadline:
                    break
                remaining = None if deadline is None else deadline - time.perf_counter()
                for i, tree in enumerate(trees):
                    if left[i] <= 0:
                        continue
                    # Aim each slice at slice_seconds, and never past the deadline.
                    rate = left[i] / max(took[i], 1e-6)
                    sizes[i] = max(16, min(int(rate * self.slice_seconds), 1 << 20))
                    if remaining is not None:
                        sizes[i] = max(1, min(sizes[i], int(rate * remaining * 0.9)))
                        # Expand leaves later when a tree would fill up before the deadline.
                        nodes = rate * remaining * tree.most
                        tree.params[P_EXPAND] = max(base, math.ceil(nodes / max(tree.room, 1)))
                    elif shares[i] is None:
                        # No end known (an analysis until the next command): the fuller the
                        # tree, the later its leaves expand (twice the visits at half full,
                        # four times at three quarters), so that it grows ever slower but
                        # never stops (full, it would stop within a second or two).
                        free = max(tree.room, 1) / tree.capacity
                        tree.params[P_EXPAND] = max(base, math.ceil(base / free))
                if progress is not None and time.perf_counter() >= next_report:
                    progress(self._result(game, trees, time.perf_counter() - start, done))
                    next_report = time.perf_counter() + interval
        finally:
            if pool is not None:
                pool.shutdown()
        return self._result(game, trees, time.perf_counter() - start, done)

    def _result(
        self, game: Game[Any], trees: list[Tree], seconds: float, done: list[int]
    ) -> SearchResult:
        iterations = sum(tree.iterations - d for tree, d in zip(trees, done, strict=True))
        # The root moves by move code, summed over the trees: [visits, wins, proof, the tree
        # and node with the most visits (its lines are shown)].
        merged: dict[int, list[Any]] = {}
        for tree in trees:
            visits, wins, _a, _b, mv, first, count, proof, _meta = tree.tree
            f = int(first[tree.top])
            for c in range(f, f + int(count[tree.top])) if f >= 0 else ():
                entry = merged.setdefault(int(mv[c]), [0, 0.0, 0, tree, c])
                entry[0] += int(visits[c])
                entry[1] += float(wins[c])
                entry[2] = entry[2] or int(proof[c])
                if visits[c] > entry[3].tree[0][entry[4]]:
                    entry[3], entry[4] = tree, c
        if not merged:
            move = game.legal_moves()[0]
            stat = MoveStat(move, 0, 0.5, None, (move,))
            return SearchResult(move, (stat,), iterations, seconds, None)

        def rank(entry: list[Any]) -> tuple[int, int, float]:
            return (entry[2], entry[0], entry[1] / max(entry[0], 1))

        stats = []
        seen = set()
        for rank_of, (v, w, p, tree, c) in enumerate(sorted(merged.values(), key=rank,
                                                            reverse=True)):
            winrate = 1.0 if p == 1 else 0.0 if p == -1 else (w / v if v else 0.5)
            # Full lines for the best moves; the others start the line only (it is costly).
            if rank_of < self.lines:
                pv = self._pv(game, tree, c)
            else:
                # Beyond the best lines, a move of several steps is listed only when the
                # tree holds all its steps (completing hundreds of them would take too long).
                move = self._turn(game, tree, c, False)[0]
                if move is None:
                    continue
                pv = (move,)
            if pv[0] in seen:  # a turn of two steps taken in the other order
                continue
            seen.add(pv[0])
            stats.append(MoveStat(pv[0], v, winrate, _PROOF_OF_CHILD.get(p), pv))
        proofs = [tree.root_proof for tree in trees if tree.root_proof]
        root = _PROOF_OF_ROOT.get(proofs[0]) if proofs else None
        return SearchResult(stats[0].move, tuple(stats), iterations, seconds, root)

    def _pv(self, game: Game[Any], tree: Tree, child: int, most: int = 12) -> tuple[Any, ...]:
        """The principal variation that starts with the step into the root's ``child``."""
        line = game.copy()
        moves: list[Any] = []
        node = child
        while True:
            move, end = self._turn(line, tree, node, not moves)
            if move is None:
                break
            moves.append(move)
            line.play(move)
            if end < 0 or len(moves) >= most or line.is_over():
                break
            node = self._best_child(tree, end)
            if node < 0:
                break
        return tuple(moves)

    @staticmethod
    def _best_child(tree: Tree, node: int) -> int:
        """The child of ``node`` a line follows (proven wins first, then visits); -1 if the
        node has no children or none has been tried."""
        visits, _w, _a, _b, _mv, first, count, proof, _meta = tree.tree
        f = int(first[node])
        if f < 0:
            return -1
        end = f + int(count[node])
        key = proof[f:end].astype(np.int64) * (1 << 40) + visits[f:end]
        best = f + int(np.argmax(key))  # the first of equals, as max() would take
        return -1 if visits[best] == 0 and proof[best] == 0 else best

    def _turn(
        self, game: Game[Any], tree: Tree, node: int, complete: bool
    ) -> tuple[Any | None, int]:
        """The move of ``game`` that starts with the step into ``node``, continued along the
        tree's best steps, and the node where it ends. Where the tree ends before the move
        does: with ``complete`` (a move from the root) the move is completed with the first
        legal steps and the node is -1; else (None, -1)."""
        mv = tree.tree[4]
        codes = [int(mv[node])]
        while (move := self.codec.assemble(game, codes)) is None:
            node = self._best_child(tree, node)
            if node < 0:
                return (self._complete(game, tree, codes) if complete else None), -1
            codes.append(int(mv[node]))
        return move, node

    def _complete(self, game: Game[Any], tree: Tree, codes: list[int]) -> Any:
        """The root ``game``'s move that starts with the steps ``codes``, completed with the
        first legal step each time (the array rules' order), through :func:`step`."""
        s = tree.root.copy()
        _s, w, out = tree.scratch[:3]
        for code in codes:
            step(tree.tables, s, w, out, 1, code)
        while True:
            step(tree.tables, s, w, out, 0, 0)
            codes = codes + [int(out[0])]
            move = self.codec.assemble(game, codes)
            if move is not None:
                return move
            step(tree.tables, s, w, out, 1, codes[-1])

    def warm(self, game: Game[Any], *, rules: bool = False) -> None:
        """Compile (or load from the cache) what a search of ``game`` runs; with ``rules``,
        also :func:`probe`, the rules one at a time that the tests call (with the uniform
        playouts, knowledge 0)."""
        tree = Tree(self.codec, game, dataclasses.replace(self.settings, max_nodes=4096), 1)
        tree.run(2)
        _s, w, out, rec = tree.scratch[:4]
        if self.codec.multistep:
            step(tree.tables, tree.root.copy(), w, out, 0, 0)
        if rules:
            probe(tree.tables, tree.root.copy(), w, out, tree.rng, rec, 0, 0, knowledge_level(0))


#: Builds a searcher for a game (the kernels' registry entries).
SearcherFactory = Callable[[], KernelSearcher]
