"""The table of Brax endings (engine/search/endings.py): one piece against one and two pieces
against one, checked against the Python rules core move by move, against minimax and the
df-pn solver near the draw rules, and through the solver's and the engine's use of it."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from engine.games.brax import Brax
from engine.games.brax_board import POINTS, N
from engine.games.position_text import encode_board
from engine.search import endings
from engine.search.solve import Solution, minimax

PAIRS = [(a, b) for a in range(POINTS) for b in range(a + 1, POINTS)]


def board_field(red: list[int], blue: list[int]) -> str:
    codes = {**{p: "r" for p in red}, **{p: "b" for p in blue}}
    return encode_board([[codes.get(r * N + f) for f in range(N)] for r in reversed(range(N))])


def ending(
    red: list[int], blue: list[int], mover: int, quiet: int = 0, **options: object
) -> Brax:
    side = ("red", "blue")[mover]
    text = f"{board_field(red, blue)} {side} - - - {quiet} -"
    return Brax.from_position_string(text, **options)


def of_entry(which: str, i: int) -> tuple[list[int], list[int], int]:
    """The pieces (Red's, Blue's) and the side to move of entry ``i`` of a table."""
    mover = i % 2
    if which == "one":
        return [i // 2 // POINTS], [i // 2 % POINTS], mover
    single = i // 2 % POINTS
    pair = i // (2 * POINTS) % len(PAIRS)
    side = i // (2 * POINTS * len(PAIRS))
    a, b = PAIRS[pair]
    return ([a, b], [single], mover) if side == 0 else ([single], [a, b], mover)


def from_the_moves(game: Brax) -> tuple[str, int]:
    """The value and plies of ``game`` from its legal moves (rules core) and the table's
    values of the positions after them."""
    scores = []
    for move in game.legal_moves():
        child = game.copy()
        child.play(move)
        outcome = child.outcome()
        if outcome is not None:
            scores.append((1, 1) if outcome.winner == game.to_move else (0, 0))
            continue
        after = endings.lookup(child)
        assert after is not None, child.position_string()
        scores.append({"win": (-1, after.plies + 1), "loss": (1, after.plies + 1),
                       "draw": (0, 0)}[after.value])
    if any(v == 1 for v, _ in scores):
        return "win", min(p for v, p in scores if v == 1)
    if all(v == -1 for v, _ in scores):
        return "loss", max(p for _, p in scores)
    return "draw", 0


def test_the_table_is_shipped_and_holds_both_endings() -> None:
    data = endings.tables()
    assert data["one"].shape == (2 * POINTS * POINTS,)
    assert data["two"].shape == (2 * len(PAIRS) * POINTS * 2,)
    # wins, losses and draws in both tables
    for table in data.values():
        assert (table > 0).any() and (table < 0).any() and (table == 0).any()


def test_index_of_a_pair_counts_the_pairs_in_order() -> None:
    assert [endings.pair_index(a, b) for a, b in PAIRS] == list(range(len(PAIRS)))
    assert endings.pair_index(40, 3) == endings.pair_index(3, 40)


@pytest.mark.parametrize("which", ["one", "two"])
def test_each_value_follows_from_the_rules_cores_moves(which: str) -> None:
    """Decided entries (at the plies they take, one ply after, and with a fresh count) and
    random ones: the value and plies are what the moves of the rules core lead to."""
    rng = random.Random(7)
    data = endings.tables()[which]
    limit = endings.ONE_ON_ONE if which == "one" else endings.NO_CAPTURE
    decided = np.flatnonzero(np.abs(data) > (0 if which == "one" else 1))
    picks = [int(i) for i in rng.sample(list(decided), 60)]
    picks += [rng.randrange(data.shape[0]) for _ in range(60)]
    picks += [int(i) for i in np.flatnonzero(data < 0)[:8]]  # few in one against one
    seen = set()
    for i in picks:
        red, blue, mover = of_entry(which, i)
        if len(set(red + blue)) < len(red + blue):
            continue  # two pieces on one point: no position
        plies = abs(int(data[i]))
        quiet = min(limit - 1, rng.choice([0, limit - plies, limit - plies + 1]))
        game = ending(red, blue, mover, quiet)
        found = endings.lookup(game)
        assert found is not None
        assert (found.value, found.plies) == from_the_moves(game), game.position_string()
        seen.add(found.value)
    assert seen == {"win", "loss", "draw"}


def test_turning_the_board_and_swapping_the_colours_keeps_every_value() -> None:
    """The board maps onto itself turned half round with the line colours swapped (X2)."""
    data = endings.tables()
    i = np.arange(data["one"].shape[0])
    red, blue, mover = i // 2 // POINTS, i // 2 % POINTS, i % 2
    turned = ((POINTS - 1 - blue) * POINTS + (POINTS - 1 - red)) * 2 + (1 - mover)
    assert np.array_equal(data["one"], data["one"][turned])
    i = np.arange(data["two"].shape[0])
    first = np.array([a for a, _ in PAIRS])
    second = np.array([b for _, b in PAIRS])
    mover, single, pair, side = i % 2, i // 2 % POINTS, i // (2 * POINTS) % len(PAIRS), i // (
        2 * POINTS * len(PAIRS))
    a, b = POINTS - 1 - second[pair], POINTS - 1 - first[pair]  # a < b again
    index = (POINTS - 1) * a - a * (a - 1) // 2 + (b - a - 1)
    turned = (((1 - side) * len(PAIRS) + index) * POINTS + (POINTS - 1 - single)) * 2 + (
        1 - mover)
    assert np.array_equal(data["two"], data["two"][turned])


def test_values_three_plies_before_the_draw_rule_are_minimax_values() -> None:
    """One against one, 7 plies after a capture. (Two against one near its draw rule is
    checked against the df-pn solver: a capture by the single piece starts the 10 plies of
    one against one, too many for a plain minimax.)"""
    rng = random.Random(3)
    data = endings.tables()["one"]
    near = np.flatnonzero((data != 0) & (np.abs(data) <= 3))
    for i in [int(i) for i in rng.sample(list(near), 6)] + [rng.randrange(data.shape[0])]:
        red, blue, mover = of_entry("one", i)
        if len(set(red + blue)) < len(red + blue):
            continue
        game = ending(red, blue, mover, 7)
        found = endings.lookup(game)
        assert found is not None
        assert {1: "win", 0: "draw", -1: "loss"}[minimax(game)] == found.value


def test_what_the_table_does_not_cover() -> None:
    assert endings.lookup(Brax()) is None  # fourteen pieces
    assert endings.lookup(ending([3, 4, 5], [40], 0)) is None  # three against one
    assert endings.lookup(ending([3, 4], [40, 41], 0)) is None
    game = ending([0, 80], [40], 0)
    assert endings.lookup(game) is not None
    for step in ["a1-a2", "e5-e6", "a2-a1", "e6-e5"]:
        game.play_text(step)
    # the start again (its second time): covered, as no other position occurred twice
    assert not game.repeated_earlier() and endings.lookup(game) is not None
    game.play_text("a1-a2")
    # now the start occurred twice before: the repetition rule may decide what the table
    # does not know
    assert game.repeated_earlier() and endings.lookup(game) is None
    game = ending([0, 80], [40], 0, repetition=False)
    for step in ["a1-a2", "e5-e6", "a2-a1", "e6-e5", "a1-a2"]:
        game.play_text(step)
    assert endings.lookup(game) is not None


def test_a_won_ending_is_played_to_the_win_by_its_winning_moves() -> None:
    """From the longest wins of the table, the winner plays the table's fastest move and
    the loser a random move: the winner captures within the plies the table gives."""
    rng = random.Random(5)
    data = endings.tables()["two"]
    longest = np.flatnonzero(data == data.max())
    for i in [int(i) for i in rng.sample(list(longest), 3)]:
        red, blue, mover = of_entry("two", i)
        game = ending(red, blue, mover)
        found = endings.lookup(game)
        assert found is not None and found.value == "win"
        winner = game.to_move
        for _ in range(found.plies):
            move = (endings.proven_move(game) if game.to_move == winner
                    else rng.choice(game.legal_moves()))
            assert move is not None
            game.play(move)
            if game.outcome() is not None:
                break
        outcome = game.outcome()
        assert outcome is not None and outcome.winner == winner


def test_the_solver_reads_a_covered_position_from_the_table() -> None:
    pytest.importorskip("numba")
    from engine.search.solve import Solver

    data = endings.tables()["two"]
    i = int(np.flatnonzero(data == 5)[0])
    red, blue, mover = of_entry("two", i)
    game = ending(red, blue, mover)
    solver: Any = Solver.__new__(Solver)  # the table needs no compiled search
    found = Solver.solve(solver, game, all_moves=True)
    assert isinstance(found, Solution)
    assert (found.value, found.plies, found.nodes) == ("win", 5, 0)
    assert found.winning
    for text in found.winning:
        after = game.copy()
        after.play_text(text)
        reply = endings.lookup(after)
        assert reply is not None and reply.value == "loss"


@pytest.mark.slow  # compiles the numba kernels of the table and of the solver for Brax
def test_the_shipped_table_is_the_analysis_and_the_solver_agrees() -> None:
    built = endings.build()
    for name, table in endings.tables().items():
        assert np.array_equal(built[name], table), name
    from engine.search.solve import Solver

    rng = random.Random(11)
    data = endings.tables()["two"]
    solver = None
    for i in [int(i) for i in rng.sample(list(np.flatnonzero(np.abs(data) == 5)), 3)]:
        red, blue, mover = of_entry("two", i)
        for quiet in (endings.NO_CAPTURE - 5, endings.NO_CAPTURE - 4):
            game = ending(red, blue, mover, quiet)
            solver = solver or Solver(game, memory_mb=128)
            state = solver.state(game)  # the df-pn search itself, not the table
            searched = solver.value_of(state)
            found = endings.lookup(game)
            assert found is not None and searched == found.value


def test_the_engine_plays_a_win_of_the_table_and_shows_it_proven() -> None:
    from engine.search.mcts import MctsPlayer
    from engine.search.players import Limit
    from protocol.server import build_engine
    from tests.protocol.test_analysis import parse_line

    data = endings.tables()["two"]
    i = int(np.flatnonzero(data == 7)[0])
    red, blue, mover = of_entry("two", i)
    game = ending(red, blue, mover)
    wins = {game.format_move(move) for move in endings.winning_moves(game)}
    assert wins
    engine, _ = build_engine(game, MctsPlayer(random.Random(1)), None, Limit(playouts=50))
    response = engine.handle_line("gtpgames-analyze playouts 50")
    assert response is not None
    best = parse_line(response.split("\n")[-3])[0]
    assert best["proven"] == "win" and best["move"] in wins
    reply = engine.handle_line(f"genmove {('red', 'blue')[mover]}")
    assert reply is not None and reply.startswith("= ")
    assert reply[2:].strip() in wins


@pytest.mark.slow  # imports the compiled rules of Brax (the solver's, unused here)
def test_cli_solve_gives_a_brax_ending_from_the_table() -> None:
    from tests.search.test_solve import run_cli

    data = endings.tables()["two"]
    i = int(np.flatnonzero(data == -6)[0])
    red, blue, mover = of_entry("two", i)
    game = ending(red, blue, mover)
    code, out, _ = run_cli("brax", "--position", game.position_string(), "--memory", "32")
    assert code == 0
    lines = out.splitlines()
    assert lines[:4] == [f"{game.player_name(mover)} to move: loss",
                         "from: the table of Brax endings",
                         "plies to the deciding capture: 6", "nodes: 0"]
    game = ending(red, blue, 1 - mover)  # the other side to move: at least no loss
    code, out, _ = run_cli("brax", "--position", game.position_string(), "--memory", "32",
                           "--all")
    assert code == 0 and out.splitlines()[1] == "from: the table of Brax endings"


def some_ending(value: int, has_loss: bool = False) -> Brax:
    """A position of two pieces against one whose entry is ``value`` (a fresh count), with a
    losing move among its moves when ``has_loss``."""
    data = endings.tables()["two"]
    rng = random.Random(5)
    found = [int(i) for i in np.flatnonzero(data == value)]
    for i in rng.sample(found, min(200, len(found))):
        game = ending(*of_entry("two", i))
        if not has_loss or any(v.value == "loss" for _, v in endings.move_values(game)):
            return game
    raise AssertionError("no such position")


def test_best_moves_keep_the_value_of_the_position() -> None:
    for value in (-6, 0, 7):
        game = some_ending(value, has_loss=value == 0)
        found = endings.lookup(game)
        values = endings.move_values(game)
        best = endings.best_moves(game)
        assert found is not None and best
        assert {v.value for _, v in best} == {found.value}
        assert {m for m, _ in best} == {m for m, v in values if v.value == found.value}
        plies = [v.plies for _, v in best]
        assert plies == (sorted(plies, reverse=True) if value < 0 else sorted(plies))
        if value < 0:  # every move loses; the slowest is the position's own count
            assert len(best) == len(values) and plies[0] == found.plies


def test_the_engine_keeps_a_drawn_ending_drawn() -> None:
    from engine.search.mcts import MctsPlayer
    from engine.search.players import Limit
    from protocol.server import build_engine
    from tests.protocol.test_analysis import parse_line

    game = some_ending(0, has_loss=True)
    values = {game.format_move(m): v.value for m, v in endings.move_values(game)}
    color = ("red", "blue")[game.to_move]
    engine, _ = build_engine(game, MctsPlayer(random.Random(1)), None, Limit(playouts=30))
    response = engine.handle_line("gtpgames-analyze playouts 30")
    assert response is not None
    stats = parse_line(response.split("\n")[-3])
    assert stats[0]["proven"] == "draw"
    assert all(stat["proven"] == values[stat["move"]] for stat in stats)
    for seed in range(3):
        engine, _ = build_engine(game.copy(), MctsPlayer(random.Random(seed)), None,
                                 Limit(playouts=30))
        reply = engine.handle_line(f"genmove {color}")
        assert reply is not None and values[reply[2:].strip()] == "draw"


def test_the_engine_resists_a_lost_ending_longest() -> None:
    from engine.search.mcts import MctsPlayer
    from engine.search.players import Limit
    from protocol.server import build_engine
    from tests.protocol.test_analysis import parse_line

    game = some_ending(-6)
    plies = {game.format_move(m): v.plies for m, v in endings.move_values(game)}
    engine, _ = build_engine(game, MctsPlayer(random.Random(1)), None, Limit(playouts=30))
    response = engine.handle_line("gtpgames-analyze playouts 30")
    assert response is not None
    stats = parse_line(response.split("\n")[-3])
    assert {stat["proven"] for stat in stats} == {"loss"}
    reply = engine.handle_line(f"genmove {('red', 'blue')[game.to_move]}")
    assert reply is not None and plies[reply[2:].strip()] == max(plies.values()) == 6
