"""Perfect play: the engine plays proven moves from the opening book of solved boards
(engine/search/book) and from the solver within a move's budget, and says so in analysis."""

from __future__ import annotations

import json
import random

import pytest

from engine.games.registry import new_game
from engine.search import book
from engine.search.mcts import MctsPlayer
from engine.search.players import Limit
from engine.search.solve import Solver, minimax
from protocol.server import build_engine
from tests.protocol.test_analysis import parse_line

pytest.importorskip("numba")


@pytest.mark.slow
def test_book_entries_are_right() -> None:
    """Every entry of the shipped book on a 3x3 board agrees with minimax, and its moves win."""
    checked = 0
    for name in ("brique", "flicker"):
        for (_, position), entry in book._entries(name).items():
            options = entry["options"]
            if options.get("size") != 3:
                continue
            game = new_game(name, **options)
            game = type(game).from_position_string(position, **options)
            value = minimax(game.copy())
            assert entry["value"] == {1: "win", 0: "draw", -1: "loss"}[value]
            for token in entry["moves"]:
                after = game.copy()
                after.play_text(token)
                result = after.outcome()
                if result is None:
                    assert minimax(after.copy()) == (1 if after.to_move == game.to_move else -1)
                else:
                    assert result.winner == game.to_move
            checked += 1
    assert checked >= 4


def test_book_move_is_played_and_reported_proven() -> None:
    game = new_game("brique", size=3, pie=False)
    engine, session = build_engine(game, MctsPlayer(random.Random(1)), None,
                                   Limit(playouts=50))
    response = engine.handle_line("gtpgames-analyze playouts 50")
    assert response is not None
    best = parse_line(response.split("\n")[-3])[0]
    assert best["proven"] == "win"
    assert best["move"] in book.lookup(game)["moves"]  # type: ignore[index]


@pytest.mark.parametrize("first", ["a1", "a3", "c3"])
def test_the_swap_is_played_after_a_first_move_that_wins(first: str) -> None:
    """Flicker 5x5 with the pie rule, whose book is written from the first moves without it
    (docs/solved.md): after a first move that wins without the pie rule, the engine swaps,
    reported proven; after one that loses (c1), the book has no move (White must play on)."""
    game = new_game("flicker", size=5, pie=True)
    game.play_text(first)
    engine, _ = build_engine(game, MctsPlayer(random.Random(1)), None, Limit(playouts=50))
    response = engine.handle_line("gtpgames-analyze playouts 50")
    assert response is not None
    best = parse_line(response.split("\n")[-3])[0]
    assert (best["move"], best["proven"]) == ("swap", "win")
    loses = new_game("flicker", size=5, pie=True)
    loses.play_text("c1")
    assert book.lookup(loses) is None and book.proven_move(loses) is None


def test_the_proven_reply_to_a_losing_first_move_is_played() -> None:
    """Each winning reply that a solve of its own proved after a losing first move
    (scripts/solved/first_moves.json, with docs/solved.md's maps) is the engine's move there,
    reported proven."""
    from scripts.solve_boards import FIRST_MOVES

    records = json.loads(FIRST_MOVES.read_text())
    replies = [record for record in records if "reply" in record]
    assert replies  # Brique 6x6's c4
    for record in replies:
        game = new_game(record["game"], **record["options"])
        game.play_text(record["move"])
        engine, _ = build_engine(game, MctsPlayer(random.Random(1)), None, Limit(playouts=50))
        response = engine.handle_line("gtpgames-analyze playouts 50")
        assert response is not None
        best = parse_line(response.split("\n")[-3])[0]
        assert (best["move"], best["proven"]) == (record["reply"], "win")


@pytest.mark.parametrize(("size", "pie", "threads"), [(3, False, 1), (3, True, 2), (4, False, 1)])
def test_self_play_winner_is_the_solved_side(size: int, pie: bool, threads: int) -> None:
    """The engine (solver on, on one thread or two) against itself: the side the solution says
    wins, wins."""
    game = new_game("brique", size=size, pie=pie)
    value = Solver(game, memory_mb=16).solve(game).value
    winner_expected = game.to_move if value == "win" else 1 - game.to_move
    player = MctsPlayer(random.Random(3), prove=True, threads=threads)
    proven_moves = 0
    while game.outcome() is None:
        result = player.search(game, Limit(playouts=20_000))
        if result.proven == "win":
            proven_moves += 1
        game.play(result.best)
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == winner_expected
    assert proven_moves > 0


def test_prove_on_two_threads_plays_a_winning_move() -> None:
    """Out of the book, a player with two threads proves the position with the solver on
    both and plays a move after which the opponent is lost."""
    game = new_game("brique", size=5, pie=False)
    for token in ("c3", "c2"):  # Black to move wins (some 30,000 nodes)
        game.play_text(token)
    assert book.proven_move(game) is None
    player = MctsPlayer(random.Random(1), prove=True, threads=2)
    result = player.search(game, Limit(playouts=20_000))
    assert result.proven == "win"
    after = game.copy()
    after.play(result.best)
    assert Solver(after, memory_mb=16).solve(after).value == "loss"
    (solver,) = player._solvers.values()
    assert solver.threads == 2 and min(solver.thread_nodes) > 0


def test_a_timed_move_does_not_wait_for_the_solver_to_be_built() -> None:
    """With prove and a time limit, the first move starts building the solver (compiling it
    on a cold cache: seconds) on a background thread and is searched without it; once it is
    built, a timed move proves the position and plays a winning move."""
    game = new_game("brique", size=5, pie=False)
    for token in ("c3", "c2"):  # Black to move wins (some 30,000 nodes)
        game.play_text(token)
    player = MctsPlayer(random.Random(1), prove=True)
    assert player._solve(game, Limit(time=4.0)) is None  # not built yet: no wait
    (building,) = player._building.values()
    building.join(120.0)
    move = player._solve(game, Limit(time=4.0))
    assert move is not None
    after = game.copy()
    after.play(move)
    assert Solver(after, memory_mb=16).solve(after).value == "loss"
    assert len(player._building) == 1  # built once


def test_an_unbounded_search_proves_for_a_second_at_most_first() -> None:
    """An analysis (no time, no playouts) with prove runs the solver first within a second
    and a node budget, then searches: 100,000 nodes alone would take minutes on Trisq 8x8."""
    from engine.search.mcts import UNBOUNDED_PROOF_SECONDS

    game = new_game("brique", size=5, pie=False)
    player = MctsPlayer(random.Random(1), prove=True)
    player._solve(game, Limit(playouts=1))  # builds the solver (a playout bound waits)
    (solver,) = player._solvers.values()
    asked: list[tuple[object, ...]] = []
    solver.winning_move = lambda *args: asked.append(args)  # type: ignore[method-assign]
    player._solve(game, Limit())
    ((_, seconds, nodes, _stop),) = asked
    assert seconds == UNBOUNDED_PROOF_SECONDS <= 1.0 and nodes == 100_000
