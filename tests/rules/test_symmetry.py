"""Which board symmetries the rules preserve (the solver folds Flicker's into its table, none
of Brique's: docs/design/kernels.md, "The solver"), and that the swap of Brique and of
Flicker changes sides exactly (the solver uses it in the pie rule's positions).

Flicker's rules are symmetric under the mirrors and the half turn of the board (each player's
edges map to themselves); with the pie rule the swap (a reflection in the diagonal) commutes
with the half turn only. Brique's square colours and fill directions break the half turn and
the mirrors: solved first moves of 3x3 differ from their images."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from engine.games.grid import coords, index, swap_mirror
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


@pytest.mark.parametrize(("size", "seed"), [(4, 3), (5, 4), (6, 5)])
def test_brique_swap_changes_sides_exactly(size: int, seed: int) -> None:
    """Brique's swap is the game seen from the other side: after ``m swap`` (White's stone on
    the reflection of m in the NW-SE diagonal, Black to move) every position of the game is
    the image of the game after ``m`` without the pie rule (White to move), each square
    reflected and each colour changed: the same legal moves, stones and winner, seen from
    the other side. The solver decides the pie rule's positions by it (pie_stage)."""
    from engine.games.brique import SWAP, BriqueMove

    rng = random.Random(seed)
    cells = size * size
    mirror = [swap_mirror(i, size) for i in range(cells)]
    for _ in range(15):
        first = BriqueMove(rng.randrange(cells))
        swapped = new_game("brique", size=size, pie=True)
        swapped.play(first)
        swapped.play(SWAP)
        plain = new_game("brique", size=size, pie=False)
        plain.play(first)
        while True:
            assert swapped.to_move == 1 - plain.to_move
            assert [1 - c if c in (0, 1) else c for c in swapped.cells()] == \
                [plain.cells()[mirror[i]] for i in range(cells)]
            a, b = swapped.outcome(), plain.outcome()
            assert (a is None) == (b is None)
            if a is not None and b is not None:
                assert b.winner is not None and a.winner == 1 - b.winner  # no draws
                break
            legal = swapped.legal_moves()
            assert sorted(mirror[m.square] for m in legal) == \
                sorted(m.square for m in plain.legal_moves())
            move = rng.choice(legal)
            swapped.play(move)
            plain.play(BriqueMove(mirror[move.square]))


@pytest.mark.parametrize(("size", "fill"), [(4, False), (5, True)])
def test_flicker_swap_changes_sides_exactly(size: int, fill: bool) -> None:
    """Flicker's swap too: after ``m swap`` every position is the image of the game after
    ``m`` without the pie rule, each point reflected and each colour changed, with the same
    legal moves (placements, removals, passes) and the same result, draws by repetition
    included (the positions before the swap differ, but a position of one stone never comes
    back). Random games; with ``fill``, games from the full board of the rules' example of
    a draw: the example's flips to its draw by repetition, then random ones."""
    from engine.games.flicker import PLACE, SWAP_MOVE, FlickerMove
    from tests.rules.test_flicker import EXAMPLE_4_CYCLE, EXAMPLE_4_FILL

    rng = random.Random(size)
    points = size * size
    mirror = [swap_mirror(i, size) for i in range(points)]

    def image(move: FlickerMove) -> FlickerMove:
        return move if move.point < 0 else FlickerMove(move.kind, mirror[move.point])

    def stones(game: Any, mapped: bool) -> list[int | None]:
        at = [game.stone(*coords(mirror[i] if mapped else i, size)) for i in range(points)]
        return [None if c is None else (c if mapped else 1 - c) for c in at]

    results = set()
    for game in range(20):
        # the first game from the full board ends as the example does: a draw
        cycle = EXAMPLE_4_CYCLE.split() if fill and game == 0 else []
        plain = new_game("flicker", size=size, pie=False)
        opening = [plain.parse_move(t, "native") for t in EXAMPLE_4_FILL.split()] if fill \
            else [FlickerMove(PLACE, rng.randrange(points))]
        swapped = new_game("flicker", size=size, pie=True)
        swapped.play(opening[0])
        swapped.play(SWAP_MOVE)
        plain.play(opening[0])
        for move in opening[1:]:
            plain.play(move)
            swapped.play(image(move))
        while True:
            assert swapped.to_move == 1 - plain.to_move
            assert stones(swapped, False) == stones(plain, True)
            a, b = swapped.outcome(), plain.outcome()
            assert (a is None) == (b is None)
            if a is not None and b is not None:
                assert (a.winner is None) == (b.winner is None)
                assert b.winner is None or a.winner == 1 - b.winner
                results.add(b.winner)
                break
            legal = plain.legal_moves()
            assert sorted(image(m) for m in swapped.legal_moves()) == sorted(legal)
            move = rng.choice(legal) if not cycle else plain.parse_move(cycle.pop(0), "native")
            plain.play(move)
            swapped.play(image(move))
    if fill:
        assert None in results  # the example's draw by repetition
