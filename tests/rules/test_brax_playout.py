"""Brax's capture-first playout policy (``Brax.playout``, :func:`engine.games.brax.capture_choice`):
exactly legal games under the same rules as the uniform fast playout, state left alone, and
captures preferred in composed positions."""

from __future__ import annotations

import random

import pytest

from engine.games.brax import Brax, BraxMove, capture_choice, exposed
from engine.games.brax_board import index

VARIANTS: list[dict[str, object]] = [
    {},
    {"players": 3},
    {"players": 4},
    {"hunt": True},
    {"repetition": False},
]


def pt(name: str) -> int:
    return index("abcdefghi".index(name[0]), int(name[1:]) - 1)


def captures(game: Brax, move: BraxMove) -> int:
    """The pieces the move's first path lands on or jumps onto, read off the board."""
    board = game._board
    return sum(1 for q in move.paths[0][1:] if board[q])


def first_moves(game: Brax, policy: bool, trials: int, seed: int) -> list[BraxMove]:
    rng = random.Random(seed)
    out = []
    for _ in range(trials):
        record: list[BraxMove] = []
        if policy:
            game._playout(rng, record, capture_choice)
        else:
            game._playout(rng, record)
        out.append(record[0])
    return out


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: ",".join(map(str, o.items())) or "2p")
def test_policy_playouts_are_legal_games_and_terminate(options: dict[str, object]) -> None:
    rng = random.Random(11)
    game = Brax(**options)
    for _ in range(5):
        record: list[BraxMove] = []
        result = game._playout(rng, record, capture_choice)
        replay = Brax(**options)
        for move in record:
            # play_text checks every move against the rules
            replay.play_text(replay.format_move(move, "native"), "native")
        assert replay.outcome() == result
        assert len(record) < 2000


def test_playout_is_the_policy_and_leaves_the_state_alone() -> None:
    game = Brax()
    rng = random.Random(2)
    for _ in range(12):
        game.play(game.random_move(rng))
    before = (game.position_string(), game.board_text(), list(game.history),
              game.legal_moves(), game.outcome())
    assert game.playout(random.Random(7)) == game._playout(random.Random(7), None, capture_choice)
    for seed in range(5):
        game.playout(random.Random(seed))
    assert (game.position_string(), game.board_text(), list(game.history),
            game.legal_moves(), game.outcome()) == before
    game.undo()  # the undo stack is intact too
    assert len(game.history) == 11


def test_policy_takes_an_available_capture_far_more_often_than_uniform() -> None:
    # Red's e5 may take Blue's e6 (a step along a line, always allowed); Red has 15 paths.
    game = Brax.from_position({"red": "e5 a1 i1", "blue": "e6 a9 i9"}, "red")
    moves = game.listed_moves()
    taking = [m for m in moves if captures(game, m)]
    assert [game.format_move(m, "native") for m in taking] == ["e5-e6"]
    uniform = sum(captures(game, m) > 0 for m in first_moves(game, False, 200, 1))
    policy = sum(captures(game, m) > 0 for m in first_moves(game, True, 200, 1))
    # uniform: about 200/15 = 13; policy: about 0.9 * 200 = 180
    assert uniform < 40
    assert policy > 150


def test_policy_prefers_the_double_capture() -> None:
    # a1-a2 takes one Blue piece, a1-a2-a3 (two steps along red lines) takes two.
    game = Brax.from_position({"red": "a7 a1", "blue": "a2 a3 d5 i9"}, "red")
    counts = {game.format_move(m, "native"): captures(game, m) for m in game.listed_moves()}
    assert counts["a1-a2"] == 1 and counts["a1-a2-a3"] == 2
    firsts = [game.format_move(m, "native") for m in first_moves(game, True, 100, 3)]
    assert firsts.count("a1-a2-a3") > 75
    assert firsts.count("a1-a2") < 10


def test_exposed_sees_a_neighbouring_enemy() -> None:
    game = Brax.from_position({"red": "e4 a1", "blue": "e6 i9"}, "red")
    board = bytearray(game._board)
    snapshot = bytes(board)
    sideof = (-1, 0, 1)
    # e4-e5 lands next to e6, and a step along any line captures. Whether Blue's e6 reaches
    # d4 is read off the rules core's move list, not from the geometry.
    assert exposed(board, (pt("e4"), pt("e5")), 0, sideof)
    assert bytes(board) == snapshot
    after = Brax.from_position({"red": "d4 a1", "blue": "e6 i9"}, "blue")
    reaches = any(m.paths[0][-1] == pt("d4") for m in after.listed_moves())
    assert exposed(board, (pt("e4"), pt("d4")), 0, sideof) == reaches
