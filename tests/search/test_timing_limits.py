"""The time a search is given under a per-move limit (scripts/bench_timing.py found genmoves
over ``--time``): the session keeps a reserve for the protocol, and a search keeps a larger one
while a kernel loads on another thread (which holds the GIL in long stretches)."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest

from engine.games.core import Game
from engine.games.registry import new_game
from engine.search import kernels
from engine.search.base import MoveStat, Progress, Searcher, SearchResult
from engine.search.clock import (
    LOADING_RESERVE,
    MOVE_RESERVE,
    estimate_seconds,
    loading_time,
    move_time,
)
from engine.search.mcts import MctsPlayer, kernel_loading
from engine.search.players import Limit, Player
from protocol.server import build_engine
from tests.gtp_helpers import ok


class Recording(Player):
    """Plays a random move and remembers the limits it was given."""

    def __init__(self) -> None:
        super().__init__(random.Random(1))
        self.limits: list[Limit] = []

    def choose_move(self, game: Game[Any], limit: Limit) -> Any:
        self.limits.append(limit)
        return game.random_move(self.rng)


class RecordingSearcher(Searcher):
    def __init__(self) -> None:
        self.limits: list[Limit] = []

    def search(
        self,
        game: Game[Any],
        limit: Limit,
        rng: random.Random,
        progress: Progress | None = None,
        interval: float = 0.5,
    ) -> SearchResult:
        self.limits.append(limit)
        move = game.random_move(rng)
        return SearchResult(move, (MoveStat(move, 1, 0.5),), 1, 0.0)


@pytest.mark.parametrize("seconds", [0.0, 0.01, 0.05, 0.2, 1.0, 30.0])
def test_move_time_keeps_a_reserve_and_never_goes_negative(seconds: float) -> None:
    searched = move_time(seconds)
    assert 0.0 <= searched <= seconds
    if seconds > 0:
        assert searched < seconds
        assert seconds - searched <= MOVE_RESERVE + 1e-12
    loading = loading_time(seconds)
    assert 0.0 <= loading <= seconds
    if seconds > LOADING_RESERVE:
        assert loading == pytest.approx(max(seconds - LOADING_RESERVE, seconds / 4))


def test_genmove_searches_less_than_the_per_move_limit() -> None:
    player = Recording()
    engine, _ = build_engine(new_game("brique", size=5), player, None, Limit(time=0.2))
    ok(engine, "genmove b")
    ok(engine, "genmove w")
    assert [limit.time for limit in player.limits] == [move_time(0.2)] * 2
    assert all(limit.time is not None and limit.time < 0.2 for limit in player.limits)


def test_search_keeps_a_reserve_while_a_kernel_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    player = MctsPlayer(random.Random(1))
    searcher = RecordingSearcher()
    player.searcher = lambda game, wait=False: searcher  # type: ignore[method-assign]
    game = new_game("brique", size=5)
    release = threading.Event()
    loader = threading.Thread(target=release.wait, name="kernel-test", daemon=True)
    monkeypatch.setitem(kernels._loading, "test", loader)
    loader.start()
    try:
        assert kernel_loading()
        player.choose_move(game.copy(), Limit(time=1.0))
    finally:
        release.set()
        loader.join()
    assert not kernel_loading()
    player.choose_move(game.copy(), Limit(time=1.0))
    player.choose_move(game.copy(), Limit(playouts=10))
    times = [limit.time for limit in searcher.limits]
    assert times == [loading_time(1.0), 1.0, None]


def test_with_prove_the_search_has_what_the_solver_left_of_the_move() -> None:
    """The solver runs on the move's time first (half of it); the search then gets what is
    left, not the whole move's time again."""
    import time

    player = MctsPlayer(random.Random(1), prove=True)
    searcher = RecordingSearcher()
    player.searcher = lambda game, wait=False: searcher  # type: ignore[method-assign]

    def unproven(game: Game[Any], limit: Limit) -> None:
        time.sleep(0.3)  # a solve that proved nothing in 0.3 s

    player.proven = unproven  # type: ignore[method-assign,assignment]
    player.choose_move(new_game("brique", size=5), Limit(time=1.0))
    player.choose_move(new_game("brique", size=5), Limit(playouts=10))
    (timed, counted) = [limit.time for limit in searcher.limits]
    assert timed is not None and 0 < timed <= 0.7
    assert counted is None


def test_moves_left_estimate_is_cheap_when_the_clock_is_short(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The moves-left estimate runs inside the move's time: with 0.5 s left it may take only
    1% of that (a Brax estimate takes its whole allowance), with plenty left 20 ms."""
    import protocol.session

    allowed: list[float] = []

    def recording(game: Game[Any], samples: int = 2, max_seconds: float = 0.02) -> int:
        allowed.append(max_seconds)
        return 30

    monkeypatch.setattr(protocol.session, "moves_left", recording)
    engine, _ = build_engine(new_game("brax"), Recording(), None, Limit())
    ok(engine, "time_settings 60 0 0")
    ok(engine, "time_left b 0.5 0")
    ok(engine, "genmove b")
    ok(engine, "time_left w 60 0")
    ok(engine, "genmove w")
    assert allowed == [estimate_seconds(0.5), estimate_seconds(60)]
    assert allowed[0] <= 0.01 * 0.5 and allowed[1] == pytest.approx(0.02)
