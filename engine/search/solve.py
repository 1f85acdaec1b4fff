"""Solving positions: the game-theoretic value of a position for the side to move, by the
compiled depth-first proof-number search of :mod:`engine.search.kernels.dfpn`, and a plain minimax
over the Python rules cores that the tests check it against.

Drives the compiled search in slices (a time limit, a node limit), keeps its transposition
table across searches (one table for both attackers: the attacker is part of every key), saves
it to a file and loads it back (``--checkpoint``), and finds every winning move of a position.

Importing this module imports neither numba nor numpy; :class:`Solver` does.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from engine.games.core import Game
from engine.games.registry import new_game

Value = Literal["win", "loss", "draw", "unknown"]
#: What one of a game's two searches decided when the other did not: the player to move
#: does not lose ("at least a draw") or does not win ("at most a draw").
Bound = Literal["at least a draw", "at most a draw"]

#: Games that can never end in a draw (docs/rules: "A game can never be drawn"): one search
#: ("the side to move wins") decides them.
DRAWLESS = frozenset({"brique", "trisq"})

#: Games whose swap (the pie rule) changes sides exactly: the position after the swap is the
#: one before it seen from the other side (Black's stone reflected in the diagonal that
#: exchanges the players' edges and made White's, Black to move; tests/rules/test_symmetry.py
#: checks it; in Flicker the positions before it differ, but a position of one stone never
#: comes back). There the player who may swap does not lose, whatever the first move was:
#: they swap if it wins for the player who made it, and play on if it loses (or draws). So in
#: a game without draws the player who may swap wins, and a position where every move gives
#: the opponent the swap is lost, with no search; in a game with draws the search that could
#: only find a loss of the swapper (a win of the first player) is left out
#: (:meth:`Solver.pie_stage`).
SWAP_CHANGES_SIDES = frozenset({"brique", "flicker"})

#: How :class:`Solution` names a value decided by the pie rule (:data:`SWAP_CHANGES_SIDES`)
#: in a game without draws, and one the pie rule bounded and a search decided.
PIE_SOURCE = "the pie rule (the player who may swap wins)"
PIE_BOUND = "a search, and the pie rule (the player who may swap does not lose)"

#: Games whose array state ends in a record of earlier positions (for the repetition rule)
#: sized for the MCTS's descents and playouts, where running out of room ends the game as a
#: draw: the solver gives each root room for its deepest line, so that never happens in a
#: search.
PADDED = frozenset({"flicker", "brax"})

#: Games whose search decides a child when its player to move wins at once, without a frame
#: of its own (:data:`engine.search.kernels.dfpn.M_THREATS`), where it was measured to save
#: more than it costs: Brique 5x5 took a fifth of the nodes, Bricka and Trisq endings a
#: twentieth (in Trisq the look is one step: it sees a turn completed by a win), Flicker 4x4
#: half the time. Not Brax: on its endings it saved a twentieth of the nodes in twice the
#: time (a capture that wins at once is rare until the last pieces).
THREATS = frozenset({"brique", "bricka", "trisq", "flicker"})

#: Nodes of the first look at each move when listing the winning moves: enough to read a
#: proof the table holds (:meth:`Solver.winning_moves`).
LOOK_NODES = 100

#: Nodes per call of the compiled search between looks at the node limit.
SLICE = 20_000
#: Against a deadline or with a stop callback: the first call's nodes, then as many as take
#: about :data:`LOOK` seconds at the rate seen so far (a node costs from 20 microseconds to
#: 8 milliseconds, by game, board and estimate: Brax, Trisq 8x8).
FIRST_SLICE = 1
LOOK = 0.02
#: Nodes to prove the next step of a move of several steps again (its proof is in the
#: table, unless other entries replaced it).
STEP_NODES = 256

#: The table's layout in a checkpoint's header: 3, the entries of 16 bytes
#: (:mod:`engine.search.kernels.dfpn`); a table of layout 2 (a key array, and a row of
#: pn, dn, work and a check word per entry: 40 bytes) is converted as it is read.
TABLE_LAYOUT = 3


def minimax(game: Game[Any], memo: dict[str, int] | None = None) -> int:
    """The exact value of ``game`` for the player to move by exhaustive minimax on the rules
    core: +1 win, 0 draw, -1 loss (for small positions only; memoised on the position string
    where the game has one, which holds everything the rules go on from)."""
    outcome = game.outcome()
    if outcome is not None:
        raise ValueError("the game is over")
    if memo is None:
        memo = {}
    key = _key(game)
    if key is not None and key in memo:
        return memo[key]
    mover = game.to_move
    best = -2
    for move in game.legal_moves():
        game.play(move)
        result = game.outcome()
        if result is not None:
            value = 0 if result.winner is None else (1 if result.winner == mover else -1)
        elif game.to_move == mover:
            value = minimax(game, memo)
        else:
            value = -minimax(game, memo)
        game.undo()
        if value > best:
            best = value
            if best == 1:
                break
    if key is not None:
        memo[key] = best
    return best


def _key(game: Game[Any]) -> str | None:
    try:
        return game.position_string() + " " + repr(game.history[-2:])
    except Exception:
        return None


@dataclasses.dataclass
class Solution:
    """What :meth:`Solver.solve` found."""

    #: The value for the player to move ("unknown": the limits ran out first).
    value: Value
    #: Nodes the searches expanded.
    nodes: int
    seconds: float
    #: Every winning move (text, as the game writes it), when asked for and the value is a win.
    winning: list[str] | None = None
    #: Moves that were not decided within the limits while listing the winning moves.
    undecided: list[str] | None = None
    #: The plies to the capture that decides the game, when the value comes from the table
    #: of Brax endings (:mod:`engine.search.endings`) rather than from a search.
    plies: int | None = None
    #: Where the value comes from when not from a search alone: the table of Brax endings,
    #: the pie rule (:data:`PIE_SOURCE`), or a search with the pie rule (:data:`PIE_BOUND`).
    source: str | None = None
    #: In a game with draws, when the value is "unknown" but one of its two searches (or the
    #: pie rule) decided: what the player to move is sure of.
    bound: Bound | None = None
    #: A winning move (text) of a won position: the one the search's proof goes through,
    #: read without a further search, or the fastest in the table of Brax endings.
    move: str | None = None


class Solver:
    """The compiled df-pn search of one game (with its options), its table and its stack.

    ``memory_mb`` bounds the table and the stacks together: the stacks (a frame per depth,
    one stack per thread) take what they need and the table the rest, in whole buckets of
    four entries of :data:`engine.search.kernels.dfpn.ENTRY_BYTES` bytes.
    ``threats``: decide a child whose player to move has a move that wins at once without
    a frame of its own (default: the games of :data:`THREATS`). ``threads``: searches of the
    same position at once, one per thread, sharing the table (each with a stack of its own).
    ``pie``: use the pie rule where it decides or bounds a value (:meth:`pie_stage`; default
    on), else search those positions as any other.
    """

    def __init__(
        self, game: Game[Any], memory_mb: float = 256.0, eps: float = 0.25,
        max_depth: int | None = None, threats: bool | None = None, threads: int = 1,
        pie: bool = True,
    ) -> None:
        from engine.search import kernels

        if game.name not in kernels.KERNELS:
            raise ValueError(f"{game.title} has no compiled rules to solve with")
        # one notice on stderr if anything compiles (the helpers the import compiles, the
        # rules and the search), none when everything comes from the cache
        with kernels.telling_compiles(game.title, what="solver"):
            module_name, _, codec_name = kernels.KERNELS[game.name].partition(":")
            with kernels.compiling(game):  # importing compiles a game's helpers of fixed types
                codec = getattr(kernels.import_module(module_name), codec_name)()
                dfpn = kernels.import_module("engine.search.kernels.dfpn")
            if not codec.supports(game):
                raise ValueError(f"the compiled rules of {game.title} do not cover these options")

            self.dfpn = dfpn
            self.codec = codec
            self.game = game.copy()
            self.tables = codec.tables(game)
            codes, most, work = codec.sizes(game)
            depth = max_depth if max_depth is not None else min(2 * codes + 8, 600)
            self.depth = depth
            self.padded = game.name in PADDED
            root = self.state(game)
            budget = int(memory_mb * 1024 * 1024)
            # room for longer records of earlier positions at later roots
            length = root.shape[0] + (256 if self.padded else 0)
            if threads < 1:
                raise ValueError(f"threads must be at least 1, not {threads}")
            self.threads = threads
            stack = threads * dfpn.frame_bytes(depth, most, length, root.dtype.itemsize, work)
            if stack + dfpn.ENTRY_BYTES * dfpn.BUCKET > budget:
                raise ValueError(
                    f"--memory {memory_mb:g} MB is too small: the search stack alone takes "
                    f"{stack / 2**20:.1f} MB")
            entries = (budget - stack) // dfpn.ENTRY_BYTES
            self.table = dfpn.new_table(entries)
            self.frames = [dfpn.new_frames(depth, most, root, work) for _ in range(threads)]
            self.stop, self.busy = dfpn.new_shared(threads)
            self.most = most
            self.work = work
            self.eps = eps
            self.nodes = 0
            #: The nodes each thread expanded (their sum is ``nodes``).
            self.thread_nodes = [0] * threads
            self.depth_hit = False
            self.decider = 0
            self.memory_mb = memory_mb
            self.threats = game.name in THREATS if threats is None else threats
            #: a game without draws: one table entry serves both attackers (dfpn.M_DRAWLESS)
            self.drawless = game.name in DRAWLESS
            self.pie = pie and game.name in SWAP_CHANGES_SIDES
            if game.outcome() is None:  # load (or compile) the search now, not in a timed solve
                with kernels.compiling(game, solver=True):
                    dfpn.search(self.tables, root, 0, self.table, self.frames[0],
                                dfpn.new_meta(), eps, 0, self.stop, self.busy)

    # ------------------------------------------------------------------------- sizes

    @property
    def entries(self) -> int:
        return int(self.table.shape[0])

    def table_bytes(self) -> int:
        return int(self.table.nbytes)

    def memory_bytes(self) -> int:
        """Bytes of the table and the stacks together (within ``memory_mb``)."""
        return self.table_bytes() + sum(
            int(a.nbytes) for frames in self.frames for a in frames)

    def used(self) -> int:
        """Table entries in use."""
        return int((self.table[:, self.dfpn.E_NUMBERS] != 0).sum())

    def clear(self) -> None:
        """Empty the table: later solves find nothing of the earlier ones."""
        self.table[:] = 0

    # ------------------------------------------------------------------------ proving

    def state(self, game: Game[Any]) -> Any:
        """The array state of ``game`` for the search (see :data:`PADDED`)."""
        state = self.codec.state(game)
        if self.padded:
            import numpy as np

            state = np.concatenate([state, np.zeros(self.depth + 2, dtype=state.dtype)])
        return state

    def prove(
        self, state: Any, attacker: int, deadline: float | None = None,
        nodes: int | None = None, stop: Callable[[], bool] | None = None,
    ) -> int:
        """Whether ``attacker`` wins from the array ``state`` (not over): 1 yes, -1 no,
        0 undecided when the deadline (``time.monotonic()``) or the node limit came first,
        or ``stop()`` said so (it is asked between calls of the compiled search).
        With several threads, each runs a search of ``state`` (they share the table) until
        one of them decides it."""
        dfpn = self.dfpn
        if self.frames[0][0].shape[1] != state.shape[0]:
            self.frames = [dfpn.new_frames(self.depth, self.most, state, self.work)
                           for _ in range(self.threads)]
        metas = [dfpn.new_meta(self.threats, me, self.threads, self.drawless)
                 for me in range(self.threads)]
        self.stop[0] = 0
        results = [0] * self.threads

        def spent() -> int:
            return sum(int(meta[dfpn.M_NODES]) for meta in metas)

        def run(me: int) -> None:
            meta = metas[me]
            rate = 0.0  # nodes a second, once a call has been timed
            while True:
                step = SLICE
                if deadline is not None or stop is not None:
                    # slices of about LOOK seconds, so that the clock and stop() are seen
                    # in time (slicing does not change the search: its state is in the frames)
                    left = LOOK if deadline is None else deadline - time.monotonic()
                    if left <= 0:
                        break
                    step = FIRST_SLICE if rate == 0.0 else int(rate * min(LOOK, left)) + 1
                    step = min(step, SLICE)
                if nodes is not None:
                    step = min(step, nodes - spent())
                    if step <= 0:
                        break
                before = int(meta[dfpn.M_NODES])
                started = time.monotonic()
                result = int(dfpn.search(
                    self.tables, state, attacker, self.table, self.frames[me], meta,
                    self.eps, step, self.stop, self.busy))
                took = time.monotonic() - started
                if took > 0:
                    rate = (int(meta[dfpn.M_NODES]) - before) / took
                if result != 0:
                    results[me] = result
                    break
                if self.stop[0] != 0 or int(meta[dfpn.M_SP]) < 0:
                    break
                if int(meta[dfpn.M_SP]) == 0 and int(meta[dfpn.M_PN]) != 0 and \
                        _stalled(meta, dfpn):
                    break
                if stop is not None and stop():
                    break  # (a deadline is looked at at the top of the loop)
            self.stop[0] = 1  # the others stop too (the compiled search looks at each node)

        if self.threads == 1:
            run(0)
        else:
            import threading

            helpers = [threading.Thread(target=run, args=(me,), name=f"solve-{me}", daemon=True)
                       for me in range(1, self.threads)]
            for helper in helpers:
                helper.start()
            try:
                run(0)
            finally:
                self.stop[0] = 1
                for helper in helpers:
                    helper.join()
        self.nodes += spent()
        for me, meta in enumerate(metas):
            self.thread_nodes[me] += int(meta[dfpn.M_NODES])
        self.depth_hit = self.depth_hit or any(bool(m[dfpn.M_DEPTH_HIT]) for m in metas)
        decided = [me for me, r in enumerate(results) if r != 0]
        if not decided:
            return 0
        self.decider = decided[0]  # its root frame holds the children (_proven_step)
        return results[decided[0]]

    def _proven_step(self, state: Any) -> tuple[int, Any] | None:
        """After :meth:`prove` returned 1 for ``state``: a step the proof goes through (a
        child proven for the attacker in the root frame of the thread that decided it) and
        the state after it."""
        # the frames' arrays 4-8, in the order dfpn.new_frames makes them
        moves, _hashes, cpn, _cdn, count = self.frames[self.decider][4:9]
        for j in range(int(count[0])):
            if cpn[0, j] == 0:
                code = int(moves[0, j])
                child = state.copy()
                self.rule(child, 1, code)
                return code, child
        return None  # pragma: no cover - a proven root has a proven child

    def rule(self, state: Any, op: int, move: int = 0) -> tuple[int, Any]:
        """One rule on ``state`` (see :func:`engine.search.kernels.dfpn.rules`)."""
        import numpy as np

        out = np.zeros(self.most, dtype=np.int32)
        w = np.zeros(self.work, dtype=np.int32)
        n = int(self.dfpn.rules(self.tables, state, w, out, op, move))
        return n, out[:n] if op == 0 else out

    def value_of(
        self, state: Any, deadline: float | None = None, nodes: int | None = None,
        drawless: bool = False, pie: str | None = None,
    ) -> Value:
        """The value of the array ``state`` (not over) for its player to move. ``pie``: the
        position's stage of the pie rule (:meth:`pie_stage`) in a game with draws, where the
        player who may swap cannot lose: "swap" leaves out the search of the opponent's win,
        "first" that of the mover's."""
        return self.bounded_value(state, deadline, nodes, drawless, pie)[0]

    def bounded_value(
        self, state: Any, deadline: float | None = None, nodes: int | None = None,
        drawless: bool = False, pie: str | None = None,
    ) -> tuple[Value, Bound | None]:
        """:meth:`value_of`, and when that is "unknown" in a game with draws, what the
        search that did finish (or the pie rule) tells: the player to move does not win
        ("at most a draw"), or does not lose ("at least a draw")."""
        mover = self.rule(state, 3)[0]
        other = 0  # the opponent's win, where a first look at it decided it
        if not drawless and pie is None:
            # a first look of a few nodes at the opponent's win: the table (read from a
            # checkpoint, or written by a search of that win alone) may hold its proof or
            # disproof, which the mover's search would not read
            other = self.prove(state, 1 - mover, deadline, min(LOOK_NODES, nodes or LOOK_NODES))
            if other == 1:
                return "loss", None
        first = -1 if pie == "first" else self.prove(state, mover, deadline, nodes)
        if first == 1:
            return "win", None
        if first == 0:
            return "unknown", ("at least a draw" if other == -1 or (pie == "swap" and not drawless)
                               else None)
        if drawless:
            return "loss", None
        if pie == "swap" or other == -1:
            return "draw", None
        second = self.prove(state, 1 - mover, deadline, nodes)
        if second == 1:
            return "loss", None
        return ("draw", None) if second == -1 else ("unknown", "at most a draw")

    def solve(
        self, game: Game[Any], seconds: float | None = None, nodes: int | None = None,
        all_moves: bool = False,
    ) -> Solution:
        """The value of ``game``'s position for its player to move (and, with
        ``all_moves``, every winning move). A Brax ending of three pieces at most is read
        from the endings table (:mod:`engine.search.endings`), without a search."""
        if game.outcome() is not None:
            raise ValueError("the game is over: nothing to solve")
        start = time.monotonic()
        if game.name == "brax":
            from engine.search import endings

            ending = endings.lookup(game)
            if ending is not None:
                winning = None
                if ending.value == "win":
                    winning = [game.format_move(m) for m in endings.winning_moves(game)]
                return Solution(ending.value, 0, time.monotonic() - start,
                                winning if all_moves else None, plies=ending.plies,
                                source="the table of Brax endings",
                                move=winning[0] if winning else None)
        deadline = None if seconds is None else start + seconds
        before = self.nodes
        drawless = game.name in DRAWLESS
        stage = self.pie_stage(game)
        move = None
        if stage is not None and drawless:
            value: Value = "win" if stage == "swap" else "loss"
            source: str | None = PIE_SOURCE
            bound: Bound | None = None
        else:
            state = self.state(game)
            value, bound = self.bounded_value(state, deadline, nodes, drawless, stage)
            source = None if stage is None else PIE_BOUND
            if value == "win":
                # the last search was the mover's, and proved the root: its frames hold it
                found = self._read_move(game, state, self.rule(state, 3)[0])
                move = None if found is None else game.format_move(found)
        winning = undecided = None
        if all_moves and value == "win":
            winning, undecided = self.winning_moves(game, deadline, nodes)
        return Solution(value, self.nodes - before, time.monotonic() - start, winning,
                        undecided, source=source, bound=bound, move=move)

    def pie_stage(self, game: Game[Any]) -> Literal["swap", "first"] | None:
        """Where the pie rule bounds the value of ``game`` for its player to move (a game of
        :data:`SWAP_CHANGES_SIDES`, solved with ``pie`` on): "swap" where the player to move
        may swap (they do not lose), "first" where every move gives the opponent the swap
        (the first move of the game: the player to move does not win); else None. Which move
        wins after a first move takes a search all the same."""
        if not self.pie or game.outcome() is not None:
            return None
        legal = game.legal_moves()
        if _swaps(game, legal):
            return "swap"
        if not legal:
            return None
        for move in legal:
            after = game.copy()
            after.play(move)
            if after.outcome() is not None or not _swaps(after, after.legal_moves()):
                return None
        return "first"

    def winning_moves(
        self, game: Game[Any], deadline: float | None = None, nodes: int | None = None,
    ) -> tuple[list[str], list[str]]:
        """The winning moves of the player to move in ``game`` (as text), and the moves the
        limits left undecided. A move of several steps (Trisq) wins when its steps do."""
        state = self.state(game)
        mover = self.rule(state, 3)[0]
        won: list[str] = []
        open_: list[str] = []
        self._walk(game, state, mover, [], won, open_, deadline, nodes)
        return won, open_

    def winning_move(
        self, game: Game[Any], seconds: float | None = None, nodes: int | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> Any | None:
        """One winning move of ``game``'s player to move, if the search proves the position
        won within the limits, before ``stop()`` says to stop (else None)."""
        if game.outcome() is not None or self.pie_stage(game) == "first":
            return None  # (the first player cannot win with the pie rule: no search)
        deadline = None if seconds is None else time.monotonic() + seconds
        state = self.state(game)
        mover = self.rule(state, 3)[0]
        if self.prove(state, mover, deadline, nodes, stop) != 1:
            return None
        return self._read_move(game, state, mover)

    def _read_move(self, game: Game[Any], state: Any, mover: int) -> Any | None:
        """After :meth:`prove` returned 1 for ``mover`` in the array ``state`` of ``game``:
        the move (of one or several steps) the proof goes through, or None when the proof
        of a later step of it is no longer in the table."""
        codes: list[int] = []
        while True:
            # the step the proof goes through, read from the search's root: no search of
            # the children (one that does not win could take any time)
            found = self._proven_step(state)
            if found is None:
                return None
            code, state = found
            codes.append(code)
            move = self.codec.assemble(game, codes)
            if move is not None:
                return move
            # a move of several steps (Trisq): the proof of the next one is in the table
            if self.rule(state, 2)[0] >= 0 or self.prove(state, mover, None, STEP_NODES) != 1:
                return None

    def _walk(
        self, game: Game[Any], state: Any, mover: int, codes: list[int], won: list[str],
        open_: list[str], deadline: float | None, nodes: int | None,
    ) -> None:
        _, legal = self.rule(state, 0)
        children = []
        for code in [int(c) for c in legal]:
            child = state.copy()
            self.rule(child, 1, code)
            children.append((code, child, self.rule(child, 2)[0]))
        # a first look of a few nodes at each child: those the table already decides (a
        # table read from a checkpoint, or filled by the solve of the position) are decided
        # before a child that takes the whole time is searched
        results = [(1 if winner == mover else -1) if winner >= 0 else
                   self.prove(child, mover, deadline, LOOK_NODES)
                   for _, child, winner in children]
        for (code, child, winner), result in zip(children, results, strict=True):
            path = codes + [code]
            if result == 0:
                result = self.prove(child, mover, deadline, nodes)
            if result == 0:
                open_.append(self._text(game, path))
                continue
            if result != 1:
                continue
            if winner < 0 and self.rule(child, 3)[0] == mover and \
                    self.codec.assemble(game, path) is None:
                self._walk(game, child, mover, path, won, open_, deadline, nodes)
            else:
                won.append(self._text(game, path))

    def _text(self, game: Game[Any], codes: list[int]) -> str:
        move = self.codec.assemble(game, codes)
        if move is None:
            return "+".join(str(c) for c in codes)
        return game.format_move(move)

    # ---------------------------------------------------------------------- checkpoints

    def header(self) -> str:
        return json.dumps({"game": self.game.name, "options": {
            k: str(v) for k, v in sorted(self.game.options.items())},
            "entries": self.entries, "layout": TABLE_LAYOUT})

    def save(self, path: Path) -> None:
        """Write the table to ``path`` (numpy's .npz)."""
        import numpy as np

        with open(path, "wb") as out:
            np.savez(out, header=np.array(self.header()), table=self.table)

    def load(self, path: Path) -> int:
        """Read a table written by :meth:`save` for the same game and options; ValueError
        if it is for something else. A table of this size (the same memory and threads, and
        a root that needs as deep a stack) is read as it is; one of another size, or of the
        earlier layout (:data:`TABLE_LAYOUT`), has its entries stored in this table one by
        one (:func:`engine.search.kernels.dfpn.merge`: where this one is smaller, a full
        bucket keeps the entries of most work, proofs first). Both are read in pieces, so
        that a table of several gigabytes is never in memory twice. Returns the entries
        read."""
        import zipfile

        import numpy as np

        with zipfile.ZipFile(path) as archive:
            with archive.open("header.npy") as part:
                header = str(np.load(part))
            theirs, mine = json.loads(header), json.loads(self.header())
            earlier = theirs.get("layout") == 2
            if earlier:
                theirs["layout"] = TABLE_LAYOUT  # converted as it is read
            if {**theirs, "entries": 0} != {**mine, "entries": 0}:
                raise ValueError(
                    f"{path} holds a table for {header}, not for {self.header()}")
            table = self.table
            entries = int(theirs["entries"])
            if not earlier and entries == self.entries:
                with archive.open("table.npy") as part:
                    _read_into(part, table.reshape(-1).view(np.uint8), path, "table",
                               table.shape, table.dtype)
                return self.used()
            return self._merge_file(archive, path, entries, earlier)

    def _merge_file(self, archive: Any, path: Path, entries: int, earlier: bool) -> int:
        """Store the ``entries`` entries of a checkpoint's table in this one (:meth:`load`),
        in pieces of a million; ``earlier``: a table of layout 2, converted."""
        import numpy as np

        step = 2**20
        more = np.empty((step, 2), dtype=np.uint64)
        stored = 0
        if not earlier:
            with archive.open("table.npy") as part:
                _read_header(part, path, "table", (entries, 2), more.dtype)
                for start in range(0, entries, step):
                    count = min(step, entries - start)
                    _read_chunk(part, more[:count].reshape(-1).view(np.uint8), path, "table")
                    stored += self.dfpn.merge(self.table, more[:count])
            return stored
        keys = np.empty(step, dtype=np.uint64)
        data = np.empty((step, 4), dtype=np.int64)
        with archive.open("keys.npy") as key_part, archive.open("data.npy") as data_part:
            _read_header(key_part, path, "keys", (entries,), keys.dtype)
            _read_header(data_part, path, "data", (entries, 4), data.dtype)
            for start in range(0, entries, step):
                count = min(step, entries - start)
                _read_chunk(key_part, keys[:count].view(np.uint8), path, "keys")
                _read_chunk(data_part, data[:count].reshape(-1).view(np.uint8), path, "data")
                self.dfpn.from_layout_2(keys[:count], data[:count], more[:count])
                stored += self.dfpn.merge(self.table, more[:count])
        return stored


def _read_header(part: Any, path: Path, name: str, shape: tuple[int, ...], dtype: Any) -> None:
    """Read the header of the .npy member ``name`` of a checkpoint; ValueError unless its
    array has this shape and type."""
    from numpy.lib import format as npy

    version = npy.read_magic(part)
    found, _, kind = (npy.read_array_header_1_0(part) if version == (1, 0)
                      else npy.read_array_header_2_0(part))
    if found != shape or kind != dtype:
        raise ValueError(f"{path}: its {name} do not fit the table")


def _read_chunk(part: Any, into: Any, path: Path, name: str) -> None:
    """Fill the bytes ``into`` from the open member ``part``, in pieces of 16 MB."""
    view = memoryview(into)
    done = 0
    while done < len(view):
        chunk = part.read(min(2**24, len(view) - done))
        if not chunk:
            raise ValueError(f"{path}: its {name} are cut short")
        view[done: done + len(chunk)] = chunk
        done += len(chunk)


def _read_into(
    part: Any, into: Any, path: Path, name: str, shape: tuple[int, ...], dtype: Any
) -> None:
    """Read the .npy member ``name`` (header and array) straight into a table's bytes."""
    _read_header(part, path, name, shape, dtype)
    _read_chunk(part, into, path, name)


def warm(name: str) -> None:
    """Compile (or load from the cache) the solver of game ``name``
    (``gtpgames warmup --solver``)."""
    Solver(new_game(name), memory_mb=16)


def _swaps(game: Game[Any], legal: list[Any]) -> bool:
    """Whether the legal moves ``legal`` of ``game`` include the swap (the pie rule)."""
    return any(game.format_move(move) == "swap" for move in legal)


def _stalled(meta: Any, dfpn: Any) -> bool:
    """The search cannot go on (the depth limit made every line at the root unknown)."""
    return bool(meta[dfpn.M_DEPTH_HIT]) and int(meta[dfpn.M_PN]) >= int(dfpn.UNKNOWN)
