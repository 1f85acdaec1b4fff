"""Tests of the Trisq search kernel (engine/search/kernels/trisq.py), whose turns are one or two
steps: one truth with the Python rules core (every turn the array rules allow, step by step,
against ``legal_moves``; the state after every turn; the winner), kernel playouts replayed
through ``play_text``, the solver on a composed forced win, and searches returning legal
moves with consistent statistics.

The kernel compiles once per session (module fixture); with a warm cache it loads in a
fraction of a second.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from engine.games.trisq import Trisq, TrisqMove
from engine.search.players import Limit
from tests.search.test_kernels import ProbeArrays, every_reply_loses, wins_within

pytest.importorskip("numba")


@pytest.fixture(scope="module")
def kernel() -> Iterator[Any]:
    from engine.search import kernels

    kernels.wait("trisq")  # a background load another test may have started
    yield kernels.load("trisq")
    kernels.unload("trisq")


class Arrays(ProbeArrays):
    """The array rules of one game's position, driven through ``mcts.probe``."""

    def __init__(self, codec: Any, game: Trisq) -> None:
        super().__init__(codec, game)
        self.done = codec.sizes(game)[0] - 1

    probe = ProbeArrays.run

    def legal(self, state: Any) -> list[int]:
        return [int(code) for code in self.out[: self.probe(state, 0)]]

    def turns(self, first_turn: bool, mover: int) -> set[TrisqMove]:
        """Every turn the steps allow from the current state (a turn start)."""
        found: set[TrisqMove] = set()
        base = self.tables.base
        for p in self.legal(self.state):
            after = self.state.copy()
            self.probe(after, 1, p)
            if first_turn:  # Red's single placement ends the turn
                assert after[base] == 1 - mover
                found.add((p,))
                continue
            assert after[base] == mover  # the same player takes the second step
            assert self.probe(after, 3) == -1  # no winner in the middle of a turn
            seconds = self.legal(after)
            assert seconds, "a first step that begins no turn"
            for q in seconds:
                found.add((p,) if q == self.done else (min(p, q), max(p, q)))
        return found


def random_game_check(kernel: Any, size: int, games: int, seed: int, checked_turns: int) -> None:
    codec = kernel.codec
    rng = random.Random(seed)
    for _ in range(games):
        game = Trisq(size=size)
        arrays = Arrays(codec, game)
        while True:
            if len(game.history) < checked_turns:
                allowed = arrays.turns(not game.history, game.to_move)
                assert allowed == set(game.legal_moves())
            if game.is_over():
                assert arrays.legal(arrays.state) == []
                break
            move = game.random_move(rng)
            codes = codec.steps(game, move)
            assert codec.assemble(game, codes[:-1]) is None
            assert codec.assemble(game, codes) == move
            assert codec.assemble(game, codes[::-1]) == move or codes[-1] == arrays.done
            for code in codes:
                arrays.probe(arrays.state, 1, code)
            game.play(move)
            assert codec.meaning(game, arrays.state) == codec.meaning(game, codec.state(game))
            outcome = game.outcome()
            assert arrays.probe(arrays.state, 3) == (-1 if outcome is None else outcome.winner)


@pytest.mark.parametrize(("size", "games", "turns"), [(4, 10, 99), (5, 3, 99), (8, 2, 4)])
def test_array_turns_follow_the_python_rules(
    kernel: Any, size: int, games: int, turns: int
) -> None:
    """At every turn start (the first few on 8x8, where legal_moves is costly) the turns the
    steps allow are exactly the legal turns; the states and winners agree after each turn."""
    random_game_check(kernel, size, games, size, turns)


def test_a_position_string_is_not_red_first_turn(kernel: Any) -> None:
    game = Trisq(size=4)
    rng = random.Random(7)
    for _ in range(9):
        game.play(game.random_move(rng))
    text = game.position_string()
    board = text.split()[0]
    setup = Trisq.from_position_string(f"{board} {text.split()[1]} -")  # history: [()]
    assert setup.history == [()]
    arrays = Arrays(kernel.codec, setup)
    assert arrays.turns(False, setup.to_move) == set(setup.legal_moves())
    assert any(len(move) == 2 for move in setup.legal_moves())


def replay_turns(start: Trisq, rec: Any, pending: list[int]) -> Trisq:
    """Replay a playout's placements (rec) grouped into turns: consecutive placements of one
    player; ``pending`` is a first step already taken in the starting position."""
    replay = start.copy()
    slots = list(pending)
    player = start.to_move
    for j in range(int(rec[0])):
        slot, who = int(rec[1 + 2 * j]), int(rec[2 + 2 * j])
        if who != player:
            assert replay.outcome() is None
            replay.play_text("+".join(replay.format_slot(x) for x in slots))
            slots = []
            player = who
        assert who == replay.to_move
        slots.append(slot)
    assert slots and replay.outcome() is None
    replay.play_text("+".join(replay.format_slot(x) for x in slots))
    return replay


@pytest.mark.parametrize("knowledge", [0, 1, 2])
@pytest.mark.parametrize("size", [4, 5, 8])
def test_playouts_replay_through_play_text(kernel: Any, size: int, knowledge: int) -> None:
    """Kernel playouts, from turn starts (Red's first turn included) and from the middle of
    a turn, replayed through the rules core end in the same winner and state."""
    from engine.search.kernels.rt import new_rng

    codec = kernel.codec
    rng = random.Random(size * 10 + knowledge)
    generator = new_rng(knowledge)
    for k in range(20):
        start = Trisq(size=size)
        for _ in range(rng.randrange(3)):
            start.play(start.random_move(rng))
        arrays = Arrays(codec, start)
        pending = []
        if k % 4 == 3 and start.history:  # a playout from a pending first step
            pending = [rng.choice(arrays.legal(arrays.state))]
            arrays.probe(arrays.state, 1, pending[0])
        arrays.rng = generator
        result = arrays.probe(arrays.state, 2, 0, knowledge)
        replay = replay_turns(start, arrays.rec, pending)
        outcome = replay.outcome()
        assert outcome is not None and outcome.winner == result
        assert codec.meaning(replay, arrays.state) == codec.meaning(replay, codec.state(replay))


def test_the_playout_fallback_draws_legal_turns(kernel: Any) -> None:
    """The turn a playout draws after too many rejections (rare in playouts) is legal."""
    from engine.search.kernels.rt import new_rng
    from engine.search.kernels.trisq import _fallback

    rng = random.Random(5)
    generator = new_rng(5)
    for size, turns in ((4, 0), (4, 9), (5, 20), (8, 3)):
        game = Trisq(size=size)
        for _ in range(turns):
            game.play(game.random_move(rng))
        arrays = Arrays(kernel.codec, game)
        s, count = arrays.state, arrays.tables.slots
        free = np.array([x for x in range(count) if s[x] == -1 and s[count + (x >> 3)] in (
            -1, (x >> 2) & 1)], dtype=np.int32)
        drawn = set()
        for _ in range(30):
            p, q = _fallback(arrays.tables, s, free, len(free), generator, game.to_move,
                             not game.history, arrays.out)
            move = (p,) if q < 0 else (min(p, q), max(p, q))
            assert game.is_legal(move)
            drawn.add(move)
        assert len(drawn) > 1


# --------------------------------------------------------------------------- search


#     a   b   c   d
#  4  v.B h.B hRR vRR  4       Blue (w) to move: no winning turn now, a forced win
#      B.  BB  RB  BB           within three turns (each square: orientation, then
#  3  vBR hBB vRB vRR  3        nw ne over sw se)
#      R.  .B  .R  B.
#  2  hRR vBR h.. h..  2
#      RR  R.  .B  .B
#  1  v.R hBB vB. hRB  1
#      R.  BB  .R  ..
#     a   b   c   d
TRISQ_WIN_IN_3 = (
    "d4vne b1hnw+d4vse d1hnw+a3vsw c3vne+a4vne a2hne+c3vse b1hsw+c2hse b2vne+a3vne "
    "c4hse+d4vsw b2vsw+c4hne b2vnw+b3hne c1vse+d3vne c1vnw+a3vnw a1vsw+d3vnw d2hse a2hse "
    "b1hne+a4vsw c3vnw+d4vnw b3hse+b4hne a1vne d1hne+b4hsw a2hnw b1hse+d3vsw c4hsw "
    "b3hnw+b4hse a2hsw+c4hnw"
)


def test_solver_proves_a_trisq_win_in_three(kernel: Any) -> None:
    """Proofs cross turns of two steps (one player moving twice in a row in the tree)."""
    from engine.search.kernels.mcts import KernelSearcher, Settings

    game = Trisq(size=4)
    for token in TRISQ_WIN_IN_3.split():
        game.play_text(token)
    assert game.to_move == 1
    assert not wins_within(game, 1) and wins_within(game, 3)
    searcher = KernelSearcher(kernel.codec, Settings(reuse=False))
    result = searcher.search(game, Limit(playouts=100_000), random.Random(2))
    assert result.proven == "win" and result.stats[0].proven == "win"
    assert result.iterations < 100_000
    game.play(result.best)
    assert game.is_over() or every_reply_loses(game, 2, 1 - game.to_move)


@pytest.mark.parametrize(("size", "turns"), [(5, 3), (8, 4)])
def test_search_returns_legal_turns_with_consistent_stats(
    kernel: Any, size: int, turns: int
) -> None:
    game = Trisq(size=size)
    rng = random.Random(size)
    for _ in range(turns):
        game.play(game.random_move(rng))
    result = kernel.search(game, Limit(playouts=3000), random.Random(1))
    assert result.iterations == 3000
    assert result.best == result.stats[0].move
    assert game.is_legal(result.best)
    moves = [stat.move for stat in result.stats]
    assert len(moves) == len(set(moves))  # a pair reached in both orders is listed once
    assert 0 < sum(stat.visits for stat in result.stats) <= 3000
    for stat in result.stats:
        assert stat.pv[0] == stat.move
        assert 0.0 <= stat.winrate <= 1.0
        line = game.copy()
        for move in stat.pv:
            assert line.is_legal(move)
            line.play(move)


def test_the_tree_is_reused_across_turns(kernel: Any) -> None:
    from engine.search.kernels.mcts import KernelSearcher, Settings, Tree

    searcher = KernelSearcher(kernel.codec, Settings(reuse=True, max_nodes=400_000))
    game = Trisq(size=4)
    first = searcher.search(game, Limit(playouts=3000), random.Random(1))
    game.play(first.best)  # Red's first turn: one step
    again = searcher.search(game, Limit(playouts=300), random.Random(1))
    assert again.iterations == 300
    assert sum(s.visits for s in again.stats) > 330  # the kept subtree's visits
    # A turn of two steps is found two levels down.
    tree = Tree(kernel.codec, game, Settings(max_nodes=400_000), 1)
    tree.run(3000)
    mv, first_child, count = tree.tree[4], tree.tree[5], tree.tree[6]
    p = max(range(first_child[0], first_child[0] + count[0]), key=lambda c: tree.tree[0][c])
    q = first_child[p]
    assert q >= 0
    turn = kernel.codec.assemble(game, [int(mv[p]), int(mv[q])])
    line = game.copy()
    line.play(turn)
    assert tree.find(line) == q


def test_searcher_for_uses_the_kernel(kernel: Any) -> None:
    from engine.search import kernels

    assert kernels.searcher_for(Trisq(size=6), wait=True) is kernel
