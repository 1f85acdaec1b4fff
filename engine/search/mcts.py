"""A generic Monte Carlo tree search over the game contract (engine/core), in plain Python.

This is the baseline and fallback searcher (the compiled kernels of
:mod:`engine.search.kernels` replace it where they exist). It implements the
:class:`engine.search.base.Searcher` protocol:

* UCT selection (Kocsis and Szepesvari 2006) with rewards in [0, 1] for the side that made the
  move into a node (draws count 1/2);
* an MCTS-solver (Winands, Bjornsson and Saito 2008): terminal nodes are proven; a node with a
  proven winning child is a proven win for the side to move there, a node whose children are
  all proven takes the best of them (so proven draws propagate too). Values are per *side*
  (``Outcome.winner`` is a side index; player p plays for ``game.side_of(p)``), so the team
  variants of Brax search like two-player games;
* playouts with the game's fast path, :meth:`Game.random_playout` (or, with ``policy=True``,
  the game's playout policy :meth:`Game.playout`);
* decisive moves: before searching, every root move is tried for an immediate win (when the
  root has at most :data:`ROOT_SCAN_MAX` moves); optionally (``decisive=True``) every node
  scans its moves for an immediate win when it is first expanded;
* progressive widening (Coulom 2007; Chaslot et al. 2008) for huge branching: when the root
  has more than :data:`WIDEN_THRESHOLD` legal moves (Trisq: about 10^5 turns a position on
  8x8, 7 000 on 4x4 after one turn), no node lists its moves; a node visited n times may have
  ``1 + floor(WIDEN_C * sqrt(n))`` children, new ones drawn with :meth:`Game.random_move`. In
  that mode a node can be proven won (a child wins) but never proven lost (its moves are not
  all known);
* tree reuse between moves: the subtree of the moves played since the last search is kept;
* an explicit seeded RNG: with a playout limit and a seed the search is deterministic;
* the search runs in short slices; ``limit.time``, ``limit.playouts`` and ``limit.stop()``
  are checked between iterations. It never writes to stdout.
"""

from __future__ import annotations

import dataclasses
import math
import random
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from engine.games.core import Game, Outcome
from engine.search.base import MoveStat, Progress, Proof, Searcher, SearchResult, pauses_collector
from engine.search.clock import loading_time
from engine.search.players import Limit, Player

#: UCT exploration constant (rewards in [0, 1]).
EXPLORATION = 0.8
#: More root moves than this: progressive widening instead of full move lists.
WIDEN_THRESHOLD = 1000
#: Progressive widening: a node visited n times may have 1 + floor(WIDEN_C * sqrt(n)) children.
WIDEN_C = 1.0
#: The root is scanned for an immediately winning move when it has at most this many moves.
ROOT_SCAN_MAX = 20000
#: Iterations between two checks of ``limit.stop()`` (the clock is checked every iteration).
SLICE = 8
#: Length of the principal variations reported.
PV_LENGTH = 10
#: The most memory a tree takes, in MB, as :data:`NODE_BYTES` a node and a pointer and the
#: move object's size for each move listed at a node for later; past it, iterations play out
#: from the leaves they reach and nothing is added. An analysis until the next command would
#: otherwise grow without bound (measured: Brique 7x7 260 bytes an iteration, 2.6 MB a
#: second; Brax with four players 570 bytes, Trisq 4x4 3.2 KB).
MAX_TREE_MB = 512
#: A node's bytes: the object with its slots, its list of children, its place in its parent's.
NODE_BYTES = 200
#: The least of a move's time left for which the kernel, ready during the move, takes over
#: from the Python search.
SWITCH_SECONDS = 0.05


class Node:
    """A tree node: the position after ``move``. ``wins`` and ``proof`` are for the side that
    played ``move`` (``mover``); ``side`` is the side to move here (-1 when terminal). No
    parent link: the search keeps its path, and the tree has no reference cycles."""

    __slots__ = (
        "move", "mover", "side", "children", "untried", "by_move",
        "visits", "wins", "proof", "terminal",
    )

    def __init__(self, move: Any, mover: int, side: int) -> None:
        self.move = move
        self.mover = mover
        self.side = side
        self.children: list[Node] = []
        #: Full mode: the moves not yet expanded (None until the node is first expanded).
        self.untried: list[Any] | None = None
        #: Widening mode: children by move.
        self.by_move: dict[Any, Node] | None = None
        self.visits = 0
        self.wins = 0.0
        #: Proven value for ``mover``: 1 win, 0 loss, 0.5 draw, None unknown.
        self.proof: float | None = None
        self.terminal = False

    def mean(self) -> float:
        if self.proof is not None:
            return self.proof
        return self.wins / self.visits if self.visits else 0.5


def _proof_name(value: float | None) -> Proof | None:
    if value is None:
        return None
    return "win" if value == 1.0 else "loss" if value == 0.0 else "draw"


class Mcts(Searcher):
    """The Python MCTS. Keep one instance per game being played to reuse the tree."""

    def __init__(
        self,
        exploration: float = EXPLORATION,
        solver: bool = True,
        decisive: bool = False,
        reuse: bool = True,
        widen_threshold: int = WIDEN_THRESHOLD,
        policy: bool = False,
        max_tree_mb: float = MAX_TREE_MB,
    ) -> None:
        self.exploration = exploration
        self.solver = solver
        self.decisive = decisive
        self.reuse = reuse
        #: Playouts with the game's policy (:meth:`Game.playout`, e.g. Brax's captures
        #: first) instead of uniform ones; off until the ladder shows a gain.
        self.policy = policy
        self.widen_threshold = widen_threshold
        self.max_bytes = int(max_tree_mb * 2**20)
        #: The tree's estimated bytes (:data:`MAX_TREE_MB`).
        self._bytes = 0
        self._root: Node | None = None
        self._root_key: tuple[Any, ...] = ()
        #: The root's game (its position and history), for :meth:`_find_root`.
        self._root_game: Game[Any] | None = None
        self._widen = False

    # ------------------------------------------------------------------ tree reuse

    def _find_root(self, game: Game[Any], widen: bool) -> Node:
        """The last search's node of ``game``'s position, or a new root. The moves that
        ``game``'s history adds to the last root's must lead from the root's position to
        ``game``'s (a game set up from a position string has a short history: equal histories
        do not make equal positions)."""
        history = tuple(game.history)
        key = (type(game), tuple(sorted(game.options.items())), widen)
        old = self._root
        before = self._root_game
        if self.reuse and old is not None and before is not None and self._root_key == key:
            played = tuple(before.history)
            if history[: len(played)] == played and self._leads_to(before, history, game):
                node: Node | None = old
                for move in history[len(played):]:
                    assert node is not None
                    node = next((c for c in node.children if c.move == move), None)
                    if node is None:
                        break
                if node is not None and not node.terminal:
                    self._root, self._root_game = node, game.copy()
                    return node
        side = game.side_of(game.to_move)
        root = Node(None, -1, side)
        self._root, self._root_key, self._root_game = root, key, game.copy()
        return root

    def _size(self, root: Node) -> int:
        """The estimated bytes of the tree under ``root`` (kept from the last search), counted
        up to :attr:`max_bytes`."""
        size, stack = 0, [root]
        while stack and size < self.max_bytes:
            node = stack.pop()
            size += NODE_BYTES + _listed_bytes(node.untried)
            stack.extend(node.children)
        return size

    @staticmethod
    def _leads_to(before: Game[Any], history: tuple[Any, ...], game: Game[Any]) -> bool:
        """Whether the moves ``history`` adds to ``before``'s history, played from
        ``before``'s position, reach ``game``'s position."""
        replay = before.copy()
        for move in history[len(before.history):]:
            if replay.is_over() or not replay.is_legal(move):
                return False
            replay.play(move)
        return replay.position_string() == game.position_string()

    # ------------------------------------------------------------------ the search

    @pauses_collector  # the tree has no reference cycles: reference counting frees it
    def search(
        self,
        game: Game[Any],
        limit: Limit,
        rng: random.Random,
        progress: Progress | None = None,
        interval: float = 0.5,
    ) -> SearchResult:
        if game.is_over():
            raise ValueError("cannot search: the game is over")
        start = time.perf_counter()
        root_moves = game.legal_moves()
        widen = len(root_moves) > self.widen_threshold
        self._widen = widen
        root = self._find_root(game, widen)
        self._bytes = self._size(root)
        if len(root_moves) <= ROOT_SCAN_MAX and root.proof is None:
            self._scan_root(game, root, root_moves)
        if len(root_moves) == 1 and progress is None and not root.children:
            move = root_moves[0]
            return SearchResult(move, (MoveStat(move, 0, 0.5),), 0, time.perf_counter() - start)
        # Stop a little early: the result (statistics and lines) takes a few milliseconds,
        # and the last iteration of a slice may run past the check.
        deadline = None if limit.time is None else start + max(limit.time, 0.0) - min(
            0.01, 0.05 * max(limit.time, 0.0)
        )
        budget = limit.budget
        iterations = 0
        next_report = start + interval
        while True:
            if self._root_value(root) is not None and iterations > 0:
                break
            for _ in range(SLICE):
                self._iterate(game, root, rng)
                iterations += 1
                if budget is not None and iterations >= budget:
                    break
                if deadline is not None and time.perf_counter() >= deadline:
                    break
                if self._root_value(root) is not None:
                    break
            if budget is not None and iterations >= budget:
                break
            now = time.perf_counter()
            if deadline is not None and now >= deadline:
                break
            if limit.stop():
                break
            if progress is not None and now >= next_report:
                progress(self._result(game, root, iterations, now - start))
                next_report = now + interval
        return self._result(game, root, iterations, time.perf_counter() - start)

    def _scan_root(self, game: Game[Any], root: Node, moves: list[Any]) -> None:
        """Expand an immediately winning root move, if there is one (a decisive move)."""
        side = root.side
        work = game.copy()
        for move in moves:
            work.play(move)
            outcome = work.outcome()
            work.undo()
            if outcome is not None and outcome.winner == side:
                if all(c.move != move for c in root.children):
                    child = Node(move, side, -1)
                    child.terminal, child.proof = True, 1.0
                    root.children.append(child)
                    if root.by_move is not None:
                        root.by_move[move] = child
                    if root.untried is not None and move in root.untried:
                        root.untried.remove(move)
                return

    def _root_value(self, root: Node) -> float | None:
        """The proven value of the root for its side to move, or None."""
        if not self.solver:
            return None
        return self._value_to_move(root)

    def _value_to_move(self, node: Node) -> float | None:
        best = -1.0
        complete = node.untried is not None and not node.untried and not self._widen
        for child in node.children:
            proof = child.proof
            if proof is None:
                complete = False
                continue
            value = proof if child.mover == node.side else 1.0 - proof
            if value == 1.0:
                return 1.0
            best = max(best, value)
        if complete and node.children:
            return best
        return None

    def _iterate(self, root_game: Game[Any], root: Node, rng: random.Random) -> None:
        game = root_game.copy()
        node = root
        path = [root]
        created = False
        while not node.terminal and (node.proof is None or node is root):
            child = self._descend(game, node, rng)
            if child is None:
                break
            node, created = child
            path.append(node)
            if created:
                break
        # evaluate the leaf
        if node.proof is not None and node is not root:
            ref, value = node.mover, node.proof
        else:
            outcome: Outcome = game.playout(rng) if self.policy else game.random_playout(rng)
            if outcome.winner is None:
                ref, value = -1, 0.5
            else:
                ref, value = outcome.winner, 1.0
        for item in path:
            item.visits += 1
            item.wins += value if item.mover == ref else 1.0 - value
        if self.solver and created and node.proof is not None:
            self._propagate(path)
        elif self.solver and node.proof is not None and len(path) > 1:
            self._propagate(path)

    def _propagate(self, path: list[Node]) -> None:
        """After a child proof appears, prove its ancestors where that follows."""
        for node in reversed(path[1:-1]):
            if node.proof is not None:
                continue
            value = self._value_to_move(node)
            if value is None:
                return
            node.proof = value if node.mover == node.side else 1.0 - value

    def _new_child(self, game: Game[Any], node: Node, move: Any) -> Node:
        """Play ``move`` in ``game`` and add its node under ``node``."""
        game.play(move)
        outcome = game.outcome()
        if outcome is None:
            child = Node(move, node.side, game.side_of(game.to_move))
        else:
            child = Node(move, node.side, -1)
            child.terminal = True
            if outcome.winner is None:
                child.proof = 0.5
            else:
                child.proof = 1.0 if outcome.winner == node.side else 0.0
        node.children.append(child)
        if node.by_move is not None:
            node.by_move[move] = child
        self._bytes += NODE_BYTES
        return child

    def _descend(
        self, game: Game[Any], node: Node, rng: random.Random
    ) -> tuple[Node, bool] | None:
        """One step down: (child, newly created); the move is played in ``game``."""
        room = self._bytes < self.max_bytes
        if self._widen:
            if node.by_move is None:
                node.by_move = {c.move: c for c in node.children}
            if room and len(node.children) < 1 + int(WIDEN_C * math.sqrt(node.visits)):
                move = game.random_move(rng)
                known = node.by_move.get(move)
                if known is None:
                    return self._new_child(game, node, move), True
        elif room:  # a full tree lists no more moves: a leaf stays a leaf
            if node.untried is None:
                self._expand(game, node, rng)
            assert node.untried is not None
            if node.untried:
                move = node.untried.pop()
                self._bytes -= _listed_bytes([move])
                return self._new_child(game, node, move), True
        if not node.children:
            return None
        child = self._select(node)
        game.play(child.move)
        return child, False

    def _expand(self, game: Game[Any], node: Node, rng: random.Random) -> None:
        tried = {c.move for c in node.children}
        moves = [m for m in game.legal_moves() if m not in tried]
        rng.shuffle(moves)
        if self.decisive:
            for i, move in enumerate(moves):
                game.play(move)
                outcome = game.outcome()
                game.undo()
                if outcome is not None and outcome.winner == node.side:
                    moves[i], moves[-1] = moves[-1], moves[i]
                    break
        node.untried = moves
        self._bytes += _listed_bytes(moves)

    def _select(self, node: Node) -> Node:
        log_n = math.log(max(node.visits, 1))
        c = self.exploration
        best: Node | None = None
        best_score = -math.inf
        for child in node.children:
            proof = child.proof
            if proof is not None and self.solver:
                if proof == 1.0:
                    return child
                if proof == 0.0:
                    score = -1.0 + child.visits * 1e-9
                    if score > best_score:
                        best, best_score = child, score
                    continue
            n = child.visits
            if n == 0:
                return child
            score = child.wins / n + c * math.sqrt(log_n / n)
            if score > best_score:
                best, best_score = child, score
        assert best is not None
        return best

    # ------------------------------------------------------------------ results

    def _order_key(self, child: Node) -> tuple[int, int, float]:
        rank = 1
        if self.solver and child.proof is not None:
            rank = 2 if child.proof == 1.0 else 0 if child.proof == 0.0 else 1
        return (rank, child.visits, child.mean())

    def _result(
        self, game: Game[Any], root: Node, iterations: int, seconds: float
    ) -> SearchResult:
        children = sorted(root.children, key=self._order_key, reverse=True)
        stats = tuple(
            MoveStat(
                c.move,
                c.visits,
                c.mean(),
                _proof_name(c.proof) if self.solver else None,
                self._pv(c),
            )
            for c in children
        )
        if children:
            best = children[0].move
        else:
            best = game.random_move(random.Random(0))
        return SearchResult(
            best, stats, iterations, seconds, _proof_name(self._root_value(root))
        )

    @staticmethod
    def _pv(node: Node) -> tuple[Any, ...]:
        line = [node.move]
        while node.children and len(line) < PV_LENGTH:
            node = max(node.children, key=lambda c: (c.proof == 1.0, c.visits))
            line.append(node.move)
        return tuple(line)


#: Strength levels: playouts per move when no time limit is given (see docs/guide.md).
LEVELS: dict[int, int] = {1: 100, 2: 300, 3: 1000, 4: 3000, 5: 10000, 6: 30000, 7: 100000}
DEFAULT_LEVEL = 3


class MctsPlayer(Player):
    """Plays the move a search prefers: a compiled kernel when :func:`searcher_for` has one
    for the game, else the Python :class:`Mcts` (whose tree is kept between moves)."""

    name = "mcts"

    def __init__(
        self,
        rng: random.Random | None = None,
        level: int | None = None,
        threads: int = 1,
        kernel: bool = True,
        kernel_settings: dict[str, Any] | None = None,
        prove: bool = False,
        **options: Any,
    ) -> None:
        super().__init__(rng)
        #: Whether to run the proof-number solver (engine/search/solve.py) first, on part of the
        #: move's budget (on :attr:`threads` threads), and play its winning move when it proves
        #: the position won. Moves
        #: from the opening book of solved boards (engine/search/book) are played in any case.
        self.prove = prove
        #: The solvers built, by game and options (None: the game's compiled rules do not
        #: cover them), and those being built on a background thread for timed moves.
        self._solvers: dict[str, Any] = {}
        self._building: dict[str, threading.Thread] = {}
        #: Whether to use a compiled kernel when there is one (False: always Python).
        self.kernel = kernel
        #: Fields of :class:`engine.search.kernels.mcts.Settings` this player's kernel searches with
        #: instead of the defaults (the ladder's ``mcts/knowledge=1``); empty: the shared
        #: searcher of :func:`engine.search.kernels.searcher_for`.
        self.kernel_settings = dict(kernel_settings or {})
        self._own: dict[str, Searcher] = {}
        if level is not None and level not in LEVELS:
            raise ValueError(f"level {level} is out of range 1..{max(LEVELS)}")
        self.level = level
        #: Threads a compiled kernel searches on (independent trees, root statistics
        #: summed); the Python search runs on one thread whatever this says (the GIL).
        self.threads = max(1, threads)
        self.options = options
        self.mcts = Mcts(**options)
        #: The last search's result, and the analysis hook used by ``choose_move``.
        self.last: SearchResult | None = None
        self.progress: Progress | None = None
        self.interval = 0.5

    def limit_for(self, limit: Limit) -> Limit:
        """The limit actually searched: the level's playouts when no time or playouts are
        given (unless the limit is ``infinite``); an explicit level also caps the playouts
        under a time limit."""
        limit = dataclasses.replace(limit, threads=self.threads)
        if limit.playouts is not None or (limit.infinite and limit.time is None):
            return limit
        if limit.time is None or self.level is not None:
            playouts = LEVELS[self.level or DEFAULT_LEVEL]
            return dataclasses.replace(limit, playouts=playouts)
        return limit

    def searcher(self, game: Game[Any], wait: bool = False) -> Searcher:
        """The kernel for ``game`` if one is loaded (with ``wait``: loaded now, compiling if
        need be), else the Python search."""
        if not self.kernel:
            return self.mcts
        from engine.search.kernels import searcher_for

        found = searcher_for(game, wait=wait)
        if found is None:
            return self.mcts
        if self.kernel_settings:
            own = self._own.get(game.name)
            if own is None:
                from engine.search.kernels.mcts import KernelSearcher

                assert isinstance(found, KernelSearcher)
                settings = dataclasses.replace(found.settings, **self.kernel_settings)
                own = self._own[game.name] = KernelSearcher(found.codec, settings)
            return own
        return found

    def search(
        self,
        game: Game[Any],
        limit: Limit,
        progress: Progress | None = None,
        interval: float = 0.5,
    ) -> SearchResult:
        # a search bounded by playouts alone (--playouts, or a level without --time) is
        # reproducible: wait for the kernel rather than let the state of the numba cache
        # decide who searches (a cold cache compiles it first, a few seconds once)
        limit = self.limit_for(limit)
        started = time.perf_counter()
        proven = self.proven(game, limit)
        if proven is not None:
            self.last = proven
            if progress is not None:
                progress(proven)
            return proven
        if self.prove and limit.time is not None:
            # the move's time includes what the solver spent (up to half of it)
            spent = time.perf_counter() - started
            limit = dataclasses.replace(limit, time=max(limit.time - spent, 0.01))
        # an infinite search waits too: it would stay with the Python search to the end
        wait = (limit.playouts is not None or limit.infinite) and limit.time is None
        searcher = self.searcher(game, wait)
        if limit.time is not None and kernel_loading():
            # another thread holds the GIL in long stretches: the clock is seen late
            limit = dataclasses.replace(limit, time=loading_time(limit.time))
        mark = table_draw(game)
        report = progress
        if progress is not None and mark is not None:

            def report(result: SearchResult) -> None:
                progress(mark(result))

        result = self.run(searcher, game, limit, report, interval)
        if mark is not None:
            result = mark(result)
        self.last = result
        return result

    def run(
        self,
        searcher: Searcher,
        game: Game[Any],
        limit: Limit,
        progress: Progress | None = None,
        interval: float = 0.5,
    ) -> SearchResult:
        """``searcher``'s search of ``game``. When that is the Python search because the
        game's kernel is still loading (the first timed moves or analysis of a process; with
        an empty cache, seconds of compiling) and no playout budget binds it, only until the
        kernel is ready: the kernel then searches what is left of the limit, from a new tree
        (the Python search's result stands if it proved the position)."""
        if searcher is not self.mcts or not self.kernel or limit.playouts is not None:
            return searcher.search(game, limit, self.rng, progress, interval)

        def ready() -> bool:
            return self.searcher(game) is not self.mcts

        started = time.perf_counter()
        until_ready = dataclasses.replace(limit, stop=lambda: limit.stop() or ready())
        first = searcher.search(game, until_ready, self.rng, progress, interval)
        if first.proven is not None or limit.stop() or not ready():
            return first
        if limit.time is not None:
            left = limit.time - (time.perf_counter() - started)
            if left < SWITCH_SECONDS:
                return first
            limit = dataclasses.replace(limit, time=left)
        return self.searcher(game).search(game, limit, self.rng, progress, interval)

    def proven(self, game: Game[Any], limit: Limit) -> SearchResult | None:
        """A proven winning move of ``game`` as a search result: from the opening book, or
        (with ``prove``) from the solver within half the move's time (or 20 nodes per
        playout of its budget); None when neither proves one."""
        from engine.search import book

        start = time.perf_counter()
        move = book.proven_move(game) if game.outcome() is None else None
        if move is None and ending_covered(game):
            return table_loss(game, start)
        if move is None and self.prove and game.outcome() is None:
            move = self._solve(game, limit)
        if move is None:
            return None
        stat = MoveStat(move, 0, 1.0, "win", (move,))
        return SearchResult(move, (stat,), 0, time.perf_counter() - start, "win")

    def _solve(self, game: Game[Any], limit: Limit) -> Any | None:
        from engine.search.kernels import KERNELS

        if game.name not in KERNELS:
            return None
        key = f"{game.name} {sorted(game.options.items())} {self.threads}"
        if key not in self._solvers:
            if limit.time is None:
                self._build_solver(key, game)
            else:
                # a timed move never waits for the solver's compile (seconds on a cold
                # cache): it is built on a background thread, and the moves until it is
                # ready are searched without it
                self._build_solver_apart(key, game.copy())
                return None
        solver = self._solvers[key]
        if solver is None:
            return None
        seconds = None if limit.time is None else limit.time / 2
        nodes = None if limit.playouts is None else 20 * limit.playouts
        if seconds is None and nodes is None:
            # no bound (an analysis until interrupted): a short proof first, so that the
            # analysis starts within a second (100,000 nodes of Trisq 8x8 take 13 minutes)
            seconds, nodes = UNBOUNDED_PROOF_SECONDS, 100_000
        return solver.winning_move(game, seconds, nodes, limit.stop)

    def _build_solver(self, key: str, game: Game[Any]) -> None:
        from engine.search.solve import Solver

        try:
            self._solvers[key] = Solver(game, memory_mb=64, threads=self.threads)
        except ValueError:  # options the compiled rules do not cover
            self._solvers[key] = None

    def _build_solver_apart(self, key: str, game: Game[Any]) -> None:
        """:meth:`_build_solver` on a background thread, once; :func:`kernel_loading` counts
        it, so that a search meanwhile keeps a reserve for the GIL the compile holds."""
        from engine.search import kernels

        if key not in self._building:
            self._building[key] = kernels.in_background(
                f"solver {key}", lambda: self._build_solver(key, game))

    def choose_move(self, game: Game[Any], limit: Limit) -> Any:
        return self.search(game, limit, self.progress, self.interval).best

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self.mcts = Mcts(**self.options)


#: The solver's seconds at most before a search with neither a time nor a playout bound.
UNBOUNDED_PROOF_SECONDS = 1.0


def ending_covered(game: Game[Any]) -> bool:
    """Whether the table of Brax endings (:mod:`engine.search.endings`) covers ``game``."""
    if game.name != "brax":
        return False
    from engine.search import endings

    return endings.covered(game)


def table_loss(game: Game[Any], start: float) -> SearchResult | None:
    """In a Brax ending the table proves lost (and covers): its slowest loss, every move
    proven lost; else None."""
    from engine.search import endings

    kept = endings.best_moves(game)
    if not kept or kept[0][1].value != "loss":
        return None
    stats = tuple(MoveStat(move, 0, 0.0, "loss", (move,)) for move, _ in kept)
    return SearchResult(kept[0][0], stats, 0, time.perf_counter() - start, "loss")


#: The winrate of a move the endings table proves (:func:`table_draw`).
PROVEN_WINRATE = {"win": 1.0, "draw": 0.5, "loss": 0.0}


def table_draw(game: Game[Any]) -> Callable[[SearchResult], SearchResult] | None:
    """In a Brax ending the table proves drawn (and covers): what makes a search's result of
    ``game`` follow the table (its moves marked with the table's values, those that keep the
    draw first, in the search's order, and the best of them chosen); else None. The table is
    read once, here, for all the results of one search."""
    if not ending_covered(game):
        return None
    from engine.search import endings

    ending = endings.lookup(game)
    if ending is None or ending.value != "draw":
        return None
    values = endings.move_values(game)
    table = dict(values)
    holding = next(move for move, value in values if value.value == "draw")

    def marked(stat: MoveStat) -> MoveStat:
        value = table.get(stat.move)
        if value is None:
            return stat
        return dataclasses.replace(stat, proven=value.value,
                                   winrate=PROVEN_WINRATE[value.value])

    def mark(result: SearchResult) -> SearchResult:
        stats = sorted((marked(stat) for stat in result.stats),
                       key=lambda stat: stat.proven != "draw")
        # no move the search lists keeps the draw: the table's first that does
        best = stats[0].move if stats and stats[0].proven == "draw" else holding
        return dataclasses.replace(result, best=best, stats=tuple(stats), proven="draw")

    return mark


def _listed_bytes(moves: list[Any] | None) -> int:
    """The estimated bytes of a node's list of moves not yet tried."""
    if not moves:
        return 0
    return len(moves) * (8 + sys.getsizeof(moves[0]))


def kernel_loading() -> bool:
    """Whether a search kernel is being loaded on a background thread now
    (:func:`engine.search.kernels.loading`; importing engine.search.kernels does not import
    numba)."""
    from engine.search.kernels import loading

    return loading()
