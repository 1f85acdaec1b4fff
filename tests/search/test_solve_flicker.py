"""The solver in Flicker, whose repetition rule (F9) makes a position's value depend on the
earlier positions of its game: which earlier positions can come back (only positions with at
least n*n - 1 stones, docs/design/kernels.md "The solver"), the table's key (the position, the
restrictions, the positions that can come back) and the symmetries folded into it, each
against the rules core and plain minimax."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from engine.games.core import Game
from engine.games.flicker import Flicker
from engine.games.grid import coords, index
from engine.search.solve import Solver, minimax
from tests.search.test_solve import TooBig, capped_minimax

pytest.importorskip("numba")

VALUES = {1: "win", 0: "draw", -1: "loss"}

#: Example 4 of the rules (5x5): 25 placements fill the board with no connection (position P,
#: White to move), then six forced flips bring P back after turn 43: a draw.
EXAMPLE_4 = (
    "a1 b1 c1 d1 e1 c2 a2 a3 b2 c3 d2 d3 e2 a4 b3 b4 e3 e4 c4 b5 d4 c5 a5 e5 d5 "
    "b2 pass b2 c3 pass c3 d4 pass d4 b2 pass b2 c3 pass c3 d4 pass d4"
).split()


def stones(game: Flicker) -> int:
    n = game.board_size
    return sum(game.stone(f, r) is not None for f in range(n) for r in range(n))


def without_record(game: Flicker) -> Flicker:
    """``game``'s position with its restrictions and an empty repetition record."""
    fields = game.position_string().split()
    fields[5] = "-"
    return Flicker.from_position_string(" ".join(fields), **game.options)


def full_board_game(n: int, rng: random.Random) -> Flicker | None:
    """A game of placements only that fills the n x n board with no connection, or None."""
    cells = list(range(n * n))
    rng.shuffle(cells)
    half = (n * n + 1) // 2
    black, white = cells[:half], cells[half:]
    game = Flicker(size=n, pie=False)
    for k in range(n * n):
        point = black[k // 2] if k % 2 == 0 else white[k // 2]
        game.play(next(m for m in game.legal_moves() if m.kind == "place" and m.point == point))
        if game.outcome() is not None:
            return None
    return game


def every_line(game: Flicker, depth: int, counts: list[int], seen: list[int]) -> None:
    """Walk every line of ``game`` up to ``depth`` turns, checking the claims the solver's
    key rests on: from a position of c stones every later one has at least c - 1, and a
    position that comes back has at least n*n - 1 stones (``seen[0]`` counts those)."""
    n = game.board_size
    now = stones(game)
    assert all(now >= c - 1 for c in counts)
    outcome = game.outcome()
    if outcome is not None:
        if outcome.winner is None:
            seen[0] += 1
            assert now >= n * n - 1
        return
    if depth == 0:
        return
    for move in game.legal_moves():
        game.play(move)
        every_line(game, depth - 1, counts + [now], seen)
        game.undo()


@pytest.mark.slow  # every line of several turns (2 s)
def test_only_nearly_full_positions_come_back() -> None:
    """Every line of several turns from positions of random 3x3 and 4x4 games (with and
    without pie), and every line of 24 turns from Example 4's full board (where removals,
    passes and repetitions happen)."""
    rng = random.Random(3)
    seen = [0]
    for n, pie, depth in ((3, False, 6), (3, True, 6), (4, False, 4), (4, True, 4)):
        for _ in range(3):
            game = Flicker(size=n, pie=pie)
            for _ in range(rng.randrange(2 * n * n // 3)):
                if game.outcome() is None:
                    game.play(game.random_move(rng))
            if game.outcome() is None:
                every_line(game, depth, [], seen)
    full = Flicker(size=5, pie=False)
    for token in EXAMPLE_4[:25]:
        full.play_text(token)
    every_line(full, 24, [], seen)
    assert seen[0] > 0  # repetitions were reached


def test_record_keeps_a_set_up_position_only_while_it_can_come_back() -> None:
    """A position string's earlier position with fewer stones than the board's size less
    one stays in the kernel's record while the board holds at most one stone more than it,
    and is dropped after (it can no longer come back); a game played from the start records
    nothing until the board is nearly full."""
    from engine.search.kernels.flicker import COUNT_BITS, KEYS, NKEYS, FlickerCodec

    codec = FlickerCodec()
    game = Flicker(size=4, pie=False)
    for token in ("a1", "d4", "b2"):
        game.play_text(token)
    after = game.copy()
    after.play_text("c3")  # 4 stones
    fields = game.position_string().split()
    fields[5] = format(after.position_key(), "x")
    setup = Flicker.from_position_string(" ".join(fields), size=4, pie=False)
    solver = Solver(setup, memory_mb=8)
    state = solver.state(setup)
    size = 16

    def counts() -> list[int]:
        record = state[size + KEYS: size + KEYS + state[size + NKEYS]]
        return sorted(int(entry) & COUNT_BITS for entry in record)

    assert 4 in counts()
    for token, kept in (("a2", True), ("a3", True), ("a4", False)):  # 4, 5, 6 stones
        move = setup.parse_move(token)
        solver.rule(state, 1, codec.code(setup, move))
        setup.play(move)
        assert (4 in counts()) == kept, token
        assert min(counts(), default=size) >= min(size - 1, stones(setup) - 1)
    start = Flicker(size=4, pie=False)
    state = solver.state(start)
    for token in ("a1", "d4", "b2", "c3", "a2", "d3"):
        solver.rule(state, 1, codec.code(start, start.parse_move(token)))
    assert counts() == []


def test_composed_repetition_matches_minimax() -> None:
    """Every position of Example 4's flips with its record, without it, and with the record's
    nearly full boards replaced by as many others (a1 of the other colour), where the values
    differ (the record makes the last flips a draw), solved with one table shared by all:
    the solver's values are minimax's. A key that left out the record would give the
    positions with the record the values of the others."""
    game = Flicker(size=5, pie=False)
    for token in EXAMPLE_4[:25]:
        game.play_text(token)

    def elsewhere(key: str) -> str:
        exact = int(key, 16)
        full = sum(1 for i in range(25) if exact >> 2 * i & 3) >= 24
        return format(exact ^ 3, "x") if full else key  # a1 (never flipped) turned

    solver = Solver(game, memory_mb=16)
    differ = 0
    for token in EXAMPLE_4[25:-1]:
        game.play_text(token)
        real = Flicker.from_position_string(game.position_string(), size=5, pie=False)
        fields = real.position_string().split()
        fields[5] = ",".join(map(elsewhere, fields[5].split(",")))
        other = Flicker.from_position_string(" ".join(fields), size=5, pie=False)
        variants = [without_record(real), other, real]
        expect = [minimax(v.copy()) for v in variants]
        differ += expect[0] != expect[2] and expect[1] != expect[2]
        for variant, value in zip(variants, expect, strict=True):
            assert solver.solve(variant).value == VALUES[value], token
    assert differ >= 2


def flicker_endings(
    n: int, pie: bool, seed: int, count: int, cap: int
) -> list[tuple[Flicker, int]]:
    """Positions of random n x n games from full boards, some plies in (removals, passes,
    repetitions), small enough for minimax, with their values."""
    rng = random.Random(seed)
    found: list[tuple[Flicker, int]] = []
    while len(found) < count:
        game = full_board_game(n, rng)
        if game is None:
            continue
        for _ in range(rng.randrange(8)):
            if game.outcome() is not None:
                break
            game.play(game.random_move(rng))
        if game.outcome() is not None:
            continue
        fresh = Flicker.from_position_string(game.position_string(), size=n, pie=pie)
        try:
            found.append((fresh, capped_minimax(fresh.copy(), cap)))
        except TooBig:
            continue
    return found


def test_endings_with_removals_match_minimax() -> None:
    """Random 4x4 positions without pie, solved with one table: the last turns of random
    games, and positions after full boards (removals, passes and repetitions one or a few
    turns away); minimax's values."""
    from tests.search.test_solve import random_endings

    endings: list[tuple[Game[Any], int]] = list(flicker_endings(4, False, 3, 8, 20000))
    endings += random_endings("flicker", {"size": 4, "pie": False}, seed=4, count=6, cap=3000)
    solver = Solver(endings[0][0], memory_mb=16)
    values = set()
    for game, value in endings:
        assert solver.solve(game).value == VALUES[value], game.position_string()
        values.add(value)
    assert len(values) >= 2


# ---------------------------------------------------------------------- symmetries

N = 5
SYMMETRIES: dict[str, Callable[[int, int], tuple[int, int]]] = {
    "half turn": lambda f, r: (N - 1 - f, N - 1 - r),
    "left-right": lambda f, r: (N - 1 - f, r),
    "up-down": lambda f, r: (f, N - 1 - r),
    # not kept: it swaps the players' edges
    "diagonal": lambda f, r: (r, f),
}


def mirrored(game: Flicker, name: str) -> Flicker:
    """The game of ``game``'s moves mapped by the symmetry ``name`` (from the start)."""
    sym = SYMMETRIES[name]
    other = Flicker(size=N, pie=game.options["pie"])
    for move in game.history:
        point = move.point
        if point is not None and point >= 0:
            move = type(move)(move.kind, index(*sym(*coords(point, N)), N))
        other.play(move)
    return other


def key(solver: Solver, game: Flicker) -> int:
    """The table's key of ``game``'s position reached in the kernel by its moves from the
    start (as in a search: the rules core's record of a set-up position keeps the last
    positions, which the kernel drops after the next placement)."""
    from engine.search.kernels.flicker import FlickerCodec

    codec = FlickerCodec()
    start = Flicker(size=game.board_size, pie=bool(game.options["pie"]))
    state = solver.state(start)
    for move in game.history:
        solver.rule(state, 1, codec.code(start, move))
        start.play(move)
    return solver.rule(state, 4)[0]


def random_game(pie: bool, rng: random.Random, plies: int) -> Flicker:
    game = Flicker(size=N, pie=pie)
    while len(game.history) < plies and game.outcome() is None:
        game.play(game.random_move(rng))
    return game


def test_keys_fold_the_symmetries_the_rules_keep() -> None:
    """Without pie, or once the swap is spent, a position and its images by the half turn
    and the two mirrors have one key; while the swap is to come only the half turn folds.
    The diagonal (which swaps the players' edges) never folds. A key that folded a symmetry
    the rules do not keep fails here."""
    rng = random.Random(5)
    solver = Solver(Flicker(size=N, pie=False), memory_mb=8)
    for pie in (False, True):
        for _ in range(30):
            game = random_game(pie, rng, rng.randrange(3, 14))
            if game.outcome() is not None:
                continue
            mine = key(solver, game)
            for name in SYMMETRIES:
                other = mirrored(game, name)
                if other.position_key() == game.position_key():
                    continue  # a symmetric position
                same = key(solver, other) == mine
                assert same == (name != "diagonal"), (name, game.history)
    # the swap to come: Black's first stone and its left-right image are told apart
    pie_game = Flicker(size=N, pie=True)
    pie_game.play_text("a2")
    assert pie_game.swap_allowed()
    assert key(solver, mirrored(pie_game, "half turn")) == key(solver, pie_game)
    assert key(solver, mirrored(pie_game, "left-right")) != key(solver, pie_game)
    assert key(solver, mirrored(pie_game, "up-down")) != key(solver, pie_game)


def test_key_holds_the_record_entries() -> None:
    """Two states that differ only in one recorded position have different keys; the order
    of the entries does not matter."""
    from engine.search.kernels.flicker import KEYS, NKEYS

    game = Flicker(size=N, pie=False)
    for token in EXAMPLE_4[:30]:
        game.play_text(token)
    solver = Solver(game, memory_mb=8)
    state = solver.state(game)
    size = N * N
    count = int(state[size + NKEYS])
    assert count >= 3
    mine = solver.rule(state, 4)[0]
    turned = state.copy()
    turned[size + KEYS: size + KEYS + count] = state[size + KEYS: size + KEYS + count][::-1]
    assert solver.rule(turned, 4)[0] == mine
    changed = state.copy()
    changed[size + KEYS] ^= 1 << 20  # another position, as many stones
    assert solver.rule(changed, 4)[0] != mine


def test_a_record_turns_folding_off() -> None:
    """A state with positions that can come back is keyed as it is: its mirror image (whose
    record would need mirroring too) has another key."""
    game = Flicker(size=N, pie=False)
    for token in EXAMPLE_4[:27]:
        game.play_text(token)
    solver = Solver(game, memory_mb=8)
    assert key(solver, mirrored(game, "half turn")) != key(solver, game)


@pytest.mark.slow
@pytest.mark.parametrize("pie", [False, True])
def test_folded_solver_matches_minimax_on_3x3(pie: bool) -> None:
    """Flicker 3x3 (about 10 s of minimax each): the value of the empty board and of every
    first move, and of the swap's answers, with one table (the mirror images of the first
    moves meet in it)."""
    game = Flicker(size=3, pie=pie)
    solver = Solver(game, memory_mb=32)
    memo: dict[str, int] = {}
    assert solver.solve(game).value == VALUES[minimax(game.copy(), memo)]
    for move in game.legal_moves():
        after = game.copy()
        after.play(move)
        assert solver.solve(after).value == VALUES[minimax(after.copy(), memo)]
        for reply in after.legal_moves():
            last = after.copy()
            last.play(reply)
            if last.outcome() is None:
                assert solver.solve(last).value == VALUES[minimax(last.copy(), memo)]


def test_key_rule_reads_no_padding() -> None:
    """The key of a state does not depend on the zero padding after the record (the solver
    pads each root for its deepest line)."""
    game = random_game(False, random.Random(2), 9)
    solver = Solver(game, memory_mb=8)
    state = solver.state(game)
    longer = np.concatenate([state, np.zeros(50, dtype=state.dtype)])
    assert solver.rule(longer, 4)[0] == solver.rule(state, 4)[0]
