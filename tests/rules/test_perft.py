"""Perft counts for every game, from the files in tests/data/perft/ (see perft_file.py)."""

from __future__ import annotations

import pytest

from engine.games.registry import new_game
from tests.perft_file import PerftCase, all_cases

CASES = all_cases()


def _run(case: PerftCase) -> None:
    game = new_game(case.game, **case.options)
    for token in case.moves:
        game.play_text(token, "native")
    assert game.perft(case.depth) == case.nodes


@pytest.mark.parametrize("case", [c for c in CASES if not c.slow], ids=lambda c: c.id)
def test_perft(case: PerftCase) -> None:
    _run(case)


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in CASES if c.slow], ids=lambda c: c.id)
def test_perft_slow(case: PerftCase) -> None:
    _run(case)
