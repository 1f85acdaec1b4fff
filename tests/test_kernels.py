"""Tests of the compiled search kernels (engine/kernels, docs/kernels.md).

One truth: the array rules are replayed move by move beside the Python rules core along
random games, and the kernels' playouts are replayed through ``play_text``. The solver is
checked against a plain minimax over the Python rules; searches are deterministic for a seed
and an iteration limit, whatever the slicing. Kernels compile once per session (module
fixtures); with a warm cache they load in a fraction of a second.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from engine.brique import Brique
from engine.core import Game
from engine.players import Limit

pytest.importorskip("numba")


@pytest.fixture(scope="module")
def brique_kernel() -> Iterator[Any]:
    from engine import kernels

    kernels.wait("brique")  # a background load another test may have started
    yield kernels.load("brique")
    kernels.unload("brique")


def solve(game: Game[Any]) -> bool:
    """Minimax over the Python rules: whether the player to move wins."""
    outcome = game.outcome()
    if outcome is not None:
        return outcome.winner == game.to_move
    for move in game.legal_moves():
        game.play(move)
        won = solve(game)
        game.undo()
        if not won:
            return True
    return False


def random_position(rng: random.Random, size: int, pie: bool, plies: int) -> Brique:
    game = Brique(size=size, pie=pie)
    for _ in range(plies):
        if game.is_over():
            break
        game.play(rng.choice(game.legal_moves()))
    return game


# ------------------------------------------------------------------------ start-up


def test_importing_the_engine_does_not_import_numba() -> None:
    code = (
        "import sys, engine, engine.kernels, engine.search, protocol.server\n"
        "from engine.registry import new_game\n"
        "from engine.kernels import searcher_for\n"
        "assert searcher_for(new_game('trisq')) is None\n"
        "assert 'numba' not in sys.modules and 'numpy' not in sys.modules, 'imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_games_without_a_kernel_get_none() -> None:
    from engine.kernels import KERNELS, searcher_for
    from engine.registry import new_game

    for name in ("trisq", "flicker", "brax", "bricka"):
        if name not in KERNELS:
            assert searcher_for(new_game(name)) is None


def test_searcher_for_returns_the_loaded_kernel(brique_kernel: Any) -> None:
    from engine import kernels

    assert kernels.searcher_for(Brique()) is brique_kernel
    assert kernels.searcher_for(Brique(), wait=True) is brique_kernel
    with pytest.raises(ValueError, match="'nosuchgame'"):
        kernels.warmup(["nosuchgame"])


# ------------------------------------------------------------------------ one truth


@pytest.mark.parametrize(("size", "pie"), [(3, True), (4, False), (5, True), (8, True), (11, True)])
def test_array_rules_follow_the_python_rules(brique_kernel: Any, size: int, pie: bool) -> None:
    from engine.kernels import brique as kb

    codec = kb.BriqueCodec()
    rng = random.Random(size * 10 + pie)
    for _ in range(8):
        game = Brique(size=size, pie=pie)
        tables = codec.tables(game)
        state = codec.state(game)
        work = np.zeros(codec.sizes(game)[2], dtype=np.int32)
        out = np.zeros(codec.sizes(game)[1], dtype=np.int32)
        while True:
            k = kb.legal(tables, state, out)
            expected = sorted(size * size if m.is_swap else m.square for m in game.legal_moves())
            assert sorted(out[:k].tolist()) == expected
            if game.is_over():
                break
            move = game.legal_moves()[rng.randrange(len(expected))]
            code = size * size if move.is_swap else move.square
            game.play(move)
            kb.play(tables, state, work, code)
            assert state.tolist() == codec.state(game).tolist()


@pytest.mark.parametrize("knowledge", [0, 1])
@pytest.mark.parametrize(("size", "pie"), [(4, True), (7, True), (11, False)])
def test_playouts_replay_through_play_text(
    brique_kernel: Any, size: int, pie: bool, knowledge: int
) -> None:
    from engine.kernels import brique as kb
    from engine.kernels.rt import new_rng

    codec = kb.BriqueCodec()
    rng = random.Random(size + 100 * knowledge)
    generator = new_rng(size)
    for _ in range(20):
        start = random_position(rng, size, pie, rng.randrange(3))
        if start.is_over():
            continue
        state = codec.state(start)
        work = np.zeros(codec.sizes(start)[2], dtype=np.int32)
        rec = np.zeros(2 * size * size + 8, dtype=np.int32)
        winner = kb.playout(codec.tables(start), state, work, generator, rec, knowledge)
        replay = start.copy()
        for j in range(int(rec[0])):
            assert replay.outcome() is None
            code = int(rec[1 + 2 * j])
            assert int(rec[2 + 2 * j]) == replay.to_move
            replay.play_text(replay.format_move(codec.move(replay, code)))
        outcome = replay.outcome()
        assert outcome is not None and outcome.winner == winner
        assert state.tolist()[: size * size] == list(replay.cells())


# --------------------------------------------------------------------------- search


def test_searches_are_deterministic_whatever_the_slices(brique_kernel: Any) -> None:
    from engine.kernels.mcts import Settings, Tree

    game = random_position(random.Random(3), 7, True, 5)
    whole = Tree(brique_kernel.codec, game, Settings(max_nodes=200_000), 42)
    whole.run(3000)
    parts = Tree(brique_kernel.codec, game, Settings(max_nodes=200_000), 42)
    for n in (1, 999, 2000):
        parts.run(n)
    for a, b in zip(whole.tree, parts.tree, strict=True):
        assert np.array_equal(a, b)
    first = brique_kernel.search(game, Limit(playouts=2000), random.Random(9))
    again = brique_kernel.search(game, Limit(playouts=2000), random.Random(9))
    assert first.stats == again.stats and first.iterations == 2000


def test_search_result_is_consistent(brique_kernel: Any) -> None:
    game = random_position(random.Random(4), 6, True, 1)  # White may swap
    result = brique_kernel.search(game, Limit(playouts=3000), random.Random(1))
    assert result.iterations == 3000
    assert {s.move for s in result.stats} == set(game.legal_moves())
    assert sum(s.visits for s in result.stats) == 3000  # each iteration passes one child
    assert result.best == result.stats[0].move
    for stat in result.stats:
        assert 0.0 <= stat.winrate <= 1.0
        line = game.copy()
        for move in stat.pv:
            assert line.is_legal(move)
            line.play(move)


def test_search_stops_when_asked(brique_kernel: Any) -> None:
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 3

    result = brique_kernel.search(Brique(), Limit(time=60, stop=stop), random.Random(1))
    assert len(calls) == 4 and 0 < result.iterations


# --------------------------------------------------------------------------- solver


def test_solver_proves_a_composed_forced_win(brique_kernel: Any) -> None:
    #    a b c d e
    #  5 X : . O O  5
    #  4 O . X X X  4
    #  3 . X X : .  3      White to move: no winning move now, a forced win later
    #  2 : . X O O  2
    #  1 O : X O O  1
    game = Brique(size=5, pie=False)
    for token in "e4 d2 c3 d5 d4 a1 a5 e2 c1 e5 e1 d1 b3 a4 c2".split():
        game.play_text(token)
    assert game.to_move == 1 and solve(game)
    for move in game.legal_moves():
        game.play(move)
        assert not game.is_over()
        game.undo()
    result = brique_kernel.search(game, Limit(playouts=200_000), random.Random(1))
    assert result.proven == "win"
    assert result.iterations < 200_000
    game.play(result.best)
    assert not solve(game)
    assert result.stats[0].proven == "win"


def test_solver_agrees_with_minimax(brique_kernel: Any) -> None:
    rng = random.Random(11)
    checked = 0
    while checked < 12:
        game = random_position(rng, 4, False, 9)
        if game.is_over():
            continue
        checked += 1
        wins = solve(game)
        result = brique_kernel.search(game, Limit(playouts=100_000), rng)
        assert result.proven == ("win" if wins else "loss")
        for stat in result.stats:
            if stat.proven is not None:
                game.play(stat.move)
                assert solve(game) == (stat.proven == "loss")
                game.undo()
