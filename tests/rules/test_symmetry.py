"""Which board symmetries the rules preserve (the solver folds Flicker's into its table, none
of Brique's: docs/design/kernels.md, "The solver").

Flicker's rules are symmetric under the mirrors and the half turn of the board (each player's
edges map to themselves); with the pie rule the swap (a reflection in the diagonal) commutes
with the half turn only. Brique's square colours and fill directions break the half turn and
the mirrors: solved first moves of 3x3 differ from their images."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from engine.games.grid import coords, index
from engine.games.registry import new_game

N = 5


def half_turn(f: int, r: int) -> tuple[int, int]:
    return N - 1 - f, N - 1 - r


def left_right(f: int, r: int) -> tuple[int, int]:
    return N - 1 - f, r


def up_down(f: int, r: int) -> tuple[int, int]:
    return f, N - 1 - r


def image(move: Any, sym: Callable[[int, int], tuple[int, int]]) -> Any:
    kind, point = move
    if point is None or point < 0:
        return move
    return type(move)(kind, index(*sym(*coords(point, N)), N))


def mirrored_games_agree(sym: Callable[[int, int], tuple[int, int]], pie: bool,
                         seed: int, games: int) -> bool:
    rng = random.Random(seed)
    for _ in range(games):
        game = new_game("flicker", size=N, pie=pie)
        other = new_game("flicker", size=N, pie=pie)
        while game.outcome() is None:
            legal = {image(m, sym) for m in game.legal_moves()}
            if legal != set(other.legal_moves()):
                return False
            moves = game.legal_moves()
            swaps = [m for m in moves if m.kind == "swap"]
            move = swaps[0] if swaps else rng.choice(moves)  # the swap whenever it is legal
            game.play(move)
            other.play(image(move, sym))
            a, b = game.outcome(), other.outcome()
            if (a is None) != (b is None) or (a is not None and b is not None
                                               and a.winner != b.winner):
                return False
    return True


@pytest.mark.parametrize("sym", [half_turn, left_right, up_down])
def test_flicker_symmetries_without_pie(sym: Callable[[int, int], tuple[int, int]]) -> None:
    assert mirrored_games_agree(sym, pie=False, seed=1, games=20)


def test_flicker_with_pie_keeps_the_half_turn_only() -> None:
    assert mirrored_games_agree(half_turn, pie=True, seed=2, games=20)
    assert not mirrored_games_agree(left_right, pie=True, seed=2, games=20)


@pytest.mark.parametrize("sym", [half_turn, left_right, up_down])
def test_brique_first_moves_are_not_symmetric(sym: Callable[[int, int], tuple[int, int]]) -> None:
    pytest.importorskip("numba")
    from engine.search.solve import Solver

    global N
    game = new_game("brique", size=3, pie=False)
    solver = Solver(game, memory_mb=8)
    values = {}
    for f in range(3):
        for r in range(3):
            after = game.copy()
            after.play(after.parse_move(f"{'abc'[f]}{r + 1}"))
            values[(f, r)] = solver.solve(after).value
    saved, N = N, 3
    try:
        assert any(values[sym(f, r)] != values[(f, r)] for f, r in values)
    finally:
        N = saved
