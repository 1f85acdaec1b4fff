"""The solver's key of a Brax state (engine/search/kernels/brax.py ``_key``): the points, the
scalars and the positions since the last capture as a multiset, and nothing past them (what a
capture left over, the solver's padding)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine.games.registry import new_game
from engine.search.solve import Solver

pytest.importorskip("numba")


@pytest.mark.slow  # compiles the solver for Brax (about 10 s on an empty cache)
def test_key_reads_the_record_as_a_multiset_and_nothing_past_it() -> None:
    from engine.search.kernels.brax import KEYS, NKEYS

    rng = random.Random(4)
    game = new_game("brax")
    for _ in range(6):
        game.play(game.random_move(rng))
    assert game.outcome() is None
    solver = Solver(game, memory_mb=64)
    state = solver.state(game)
    count = int(state[NKEYS])
    assert count >= 3

    def key(s: np.ndarray) -> int:
        return solver.rule(s, 4)[0]

    mine = key(state)
    stale = state.copy()
    stale[KEYS + count: KEYS + count + 5] = 12345  # left over from before a capture
    assert key(stale) == mine
    padded = np.concatenate([state, np.zeros(40, dtype=state.dtype)])
    assert key(padded) == mine
    turned = state.copy()
    turned[KEYS: KEYS + count] = state[KEYS: KEYS + count][::-1]
    assert key(turned) == mine  # the order of the earlier positions does not matter (X14)
    twice = state.copy()
    twice[KEYS + 1] = state[KEYS]  # one position seen twice, another not at all
    assert key(twice) != mine
    later = state.copy()
    later[NKEYS] = count - 1
    assert key(later) != mine
