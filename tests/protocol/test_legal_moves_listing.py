"""``gtpgames-legal_moves``: Trisq writes its (very long) listing directly; the text must be
the one the generic listing gives (every move formatted, the tokens in natural order), at a
small multiple of the answer's own size in memory."""

from __future__ import annotations

import random
import tracemalloc

import pytest

from engine.games.notation import NOTATIONS, Notation, natural_key
from engine.games.trisq import Trisq
from tests.gtp_helpers import make_engine, ok


def reference_text(game: Trisq, notation: Notation) -> str:
    """The listing as the protocol wrote it before: build, format and sort every move."""
    tokens = {game.format_move(move, notation) for move in game.listed_moves()}
    return " ".join(sorted(tokens, key=natural_key))


def positions(size: int, seed: int, turns: int) -> list[Trisq]:
    """The positions of a random game, from the empty board to ``turns`` turns or its end."""
    rng = random.Random(seed)
    game = Trisq(size=size)
    found = [game.copy()]
    for _ in range(turns):
        if game.is_over():
            break
        game.play(game.random_move(rng))
        found.append(game.copy())
    return found


@pytest.mark.parametrize(("size", "seed", "turns"), [
    (4, 1, 40),
    pytest.param(5, 2, 30, marks=pytest.mark.slow),
    pytest.param(6, 3, 12, marks=pytest.mark.slow),
])
def test_listing_is_the_generic_text_through_a_game(size: int, seed: int, turns: int) -> None:
    """Every position of a random game (first turn, crowded boards with pieces that need a
    bridge, the end), in both notations."""
    for game in positions(size, seed, turns):
        for notation in NOTATIONS:
            assert game.listed_moves_text(notation) == reference_text(game, notation)


@pytest.mark.slow  # 2-3 s each
@pytest.mark.parametrize("notation", NOTATIONS)
def test_listing_is_the_generic_text_at_8x8(notation: Notation) -> None:
    for game in positions(8, 4, 3)[1:]:
        assert game.listed_moves_text(notation) == reference_text(game, notation)


@pytest.mark.parametrize("notation", NOTATIONS)
def test_listing_is_the_generic_text_at_9x9(notation: Notation) -> None:
    """From 9 columns on, the two notations name the columns differently (i)."""
    game = positions(9, 5, 8)[-1]
    assert game.listed_moves_text(notation) == reference_text(game, notation)


@pytest.mark.slow  # 2-3 s
def test_legal_moves_answer_is_the_generic_text_at_a_small_multiple_of_its_size() -> None:
    """At size 10, Blue's first turn lists 313,833 moves (3.8 MB): building, formatting and
    sorting every move took 24 times the answer's size; writing it directly, the
    answer, its framing and one copy."""
    gtp, session = make_engine("trisq", size=10)
    ok(gtp, "play b e5hsw")
    expected = reference_text(session.game, "gtp")  # type: ignore[arg-type]
    tracemalloc.start()
    try:
        answer = ok(gtp, "gtpgames-legal_moves")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert answer == expected
    assert len(answer.split()) == 313833
    assert peak < 4 * len(answer) + 1_000_000, (peak, len(answer))
