"""One conformance test of the game contract, parametrised over every registered game
(the OpenSpiel habit): random games end with an outcome; undo equals replay; copies are
independent; parse(format(move)) round-trips in both notations; legal moves are empty exactly
when the game is over; play_text rejects what is illegal and leaves the state unchanged."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.games.core import Game, GameError, IllegalMoveError
from engine.games.registry import GAMES, available_games, new_game

GAME_NAMES = available_games()
SEEDS = range(6)
#: Options for the conformance games: the defaults, except where a full legal-move list at
#: every ply would make the test slow (Trisq has ~10^5 turns a position at its default 8x8).
CONFORMANCE_OPTIONS: dict[str, dict[str, str]] = {"trisq": {"size": "4"}}


def make(name: str) -> Game[Any]:
    return new_game(name, **CONFORMANCE_OPTIONS.get(name, {}))


def snapshot(game: Game[Any]) -> tuple[Any, ...]:
    """What must be equal between two equal states, seen through the public contract."""
    outcome = game.outcome()
    return (
        tuple(game.history),
        None if outcome is None else game.to_move,
        outcome,
        sorted(game.format_move(m, "native") for m in game.legal_moves()),
        game.board_text("native"),
    )


def test_every_registered_game_is_available() -> None:
    assert GAME_NAMES == list(GAMES)


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("seed", SEEDS)
def test_random_game_invariants(name: str, seed: int) -> None:
    rng = random.Random(seed)
    game = make(name)
    states = [snapshot(game)]
    while True:
        moves = game.legal_moves()
        over = game.outcome() is not None
        assert (not moves) == over, "legal moves must be empty exactly when the game is over"
        if over:
            break
        for notation in ("gtp", "native"):
            for move in rng.sample(moves, min(5, len(moves))):
                token = game.format_move(move, notation)
                assert token == token.lower()
                assert game.parse_move(token, notation) == move
                assert game.parse_move(token.upper(), notation) == move
                assert game.is_legal(move)
        move = game.random_move(rng)
        assert game.is_legal(move)
        game.play(move)
        states.append(snapshot(game))
        assert len(game.history) < 100_000
    assert game.outcome() is not None
    # undo equals replay, all the way back
    history = list(game.history)
    for k in range(len(history), 0, -1):
        assert snapshot(game) == states[k]
        undone = game.undo()
        assert undone == history[k - 1]
    assert snapshot(game) == states[0]
    with pytest.raises(GameError):
        game.undo()
    # replay from a fresh game gives the same states
    replay = make(name)
    for k, move in enumerate(history, 1):
        replay.play_text(replay.format_move(move, "native"), "native")
        if k % 7 == 0 or k == len(history):
            assert snapshot(replay) == states[k]


@pytest.mark.parametrize("name", GAME_NAMES)
def test_copies_are_independent(name: str) -> None:
    rng = random.Random(1)
    game = make(name)
    for _ in range(6):
        if game.is_over():
            break
        game.play(game.random_move(rng))
    before = snapshot(game)
    clone = game.copy()
    assert snapshot(clone) == before
    while not clone.is_over():
        clone.play(clone.random_move(rng))
    assert snapshot(game) == before
    if game.history:
        game.undo()
        assert snapshot(clone) != snapshot(game)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_random_playout_leaves_state_alone(name: str) -> None:
    game = make(name)
    rng = random.Random(3)
    before = snapshot(game)
    for _ in range(5):
        outcome = game.random_playout(rng)
        assert outcome.winner is None or 0 <= outcome.winner < len(game.side_names)
    assert snapshot(game) == before


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("token", ["", "zz99", "a0", "a100", "+", "-", "!", "swap-", "a1a1"])
def test_bad_tokens_raise_and_keep_state(name: str, token: str) -> None:
    game = make(name)
    before = snapshot(game)
    with pytest.raises(GameError):
        game.play_text(token)
    assert snapshot(game) == before


@pytest.mark.parametrize("name", GAME_NAMES)
def test_illegal_move_is_rejected_with_reason(name: str) -> None:
    """Replaying the first legal move after it was played is illegal in every game here
    except where the rules let the same token be played again; then any illegal move we
    can find in the second position is used."""
    game = make(name)
    rng = random.Random(5)
    game.play(game.random_move(rng))
    legal = {game.format_move(m) for m in game.legal_moves()}
    first = game.format_move(game.history[0])
    before = snapshot(game)
    if first not in legal:
        with pytest.raises(IllegalMoveError) as info:
            game.play_text(first)
        assert str(info.value)
        assert snapshot(game) == before


@pytest.mark.parametrize("name", GAME_NAMES)
def test_options_are_validated(name: str) -> None:
    cls = type(new_game(name))
    with pytest.raises(GameError, match="nosuchoption"):
        new_game(name, nosuchoption="1")
    for spec in cls.OPTIONS:
        if spec.kind == "int":
            assert spec.maximum is not None
            with pytest.raises(GameError, match=spec.name):
                new_game(name, **{spec.name: str(spec.maximum + 1)})
            with pytest.raises(GameError, match=spec.name):
                new_game(name, **{spec.name: "x"})
            game = new_game(name, **{spec.name: str(spec.minimum)})
            assert game.options[spec.name] == spec.minimum
        elif spec.kind == "bool":
            with pytest.raises(GameError, match=spec.name):
                new_game(name, **{spec.name: "maybe"})
        else:
            with pytest.raises(GameError, match=spec.name):
                new_game(name, **{spec.name: "nosuchchoice"})


@pytest.mark.parametrize("name", GAME_NAMES)
def test_perft_equals_legal_move_recursion(name: str) -> None:
    """A game's own perft (which may be a fast counter) agrees with the contract's generic
    recursion at depth 2 from the start and from a random position."""
    game = make(name)
    rng = random.Random(11)
    for _ in range(2):
        assert game.perft(2) == Game.perft(game, 2)
        for _ in range(3):
            if not game.is_over():
                game.play(game.random_move(rng))
