"""Every compiled kernel builds its state from the game's current position, never from a
replay of its history: a game set up from a position string (UGI's ``position fen``) has a
short history, or none. Random positions of every game, reached by random play (ends of
games included, where repetitions and wins are one move away), go through their position
string into a fresh game; the kernel's legal moves there are the rules core's, the result and
the legal moves after each legal move agree, and every move a small search answers is legal.
Random games seldom repeat a position: Flicker's repetition record has a test of its own.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from engine.games.brique import Brique
from engine.games.core import Game
from engine.games.registry import new_game
from engine.search.players import Limit

pytest.importorskip("numba")

#: (game, options) pairs; small boards, so that games end and positions repeat.
CASES = [
    ("brique", {"size": 5}),
    ("brique", {"size": 4, "pie": False}),
    ("bricka", {}),
    ("flicker", {"size": 4}),
    ("flicker", {"size": 5, "pie": False}),
    ("trisq", {"size": 4}),
    ("brax", {}),
    ("brax", {"first": "blue", "nocapture": False}),
]


def case_id(case: tuple[str, dict[str, Any]]) -> str:
    name, options = case
    return name + "".join(f"-{k}={v}" for k, v in options.items())


def kernel(name: str) -> Any:
    from engine.search import kernels

    kernels.wait(name)  # a background load another test may have started
    return kernels.load(name)


def positions(name: str, options: dict[str, Any], rng: random.Random, count: int) -> list[Any]:
    """``count`` positions of random games: the start, the first plies (the swap), the
    middle, and the last plies before the end (a win or a repetition one move away)."""
    found = []
    for k in range(count):
        game = new_game(name, **options)
        while not game.is_over() and len(game.history) < 300:
            game.play(game.random_move(rng))
        total = len(game.history)
        keep = (0, 1, 2, rng.randrange(total + 1), total - 1, total - 2, total - 3)[k % 7]
        while len(game.history) > max(keep, 0):
            game.undo()
        found.append(game)
    return found


def fresh(game: Game[Any]) -> Game[Any]:
    """The game of ``game``'s position string: its history holds at most the last turns."""
    again = type(game).from_position_string(game.position_string(), **game.options)
    assert again.position_string() == game.position_string()
    return again


class Rules:
    """A kernel's array rules at one game's state, through ``mcts.probe``."""

    def __init__(self, codec: Any, game: Game[Any]) -> None:
        self.codec = codec
        self.tables = codec.tables(game)
        _codes, most, work = codec.sizes(game)
        self.work = np.zeros(work, dtype=np.int32)
        self.out = np.zeros(most, dtype=np.int32)
        self.rec = np.zeros(2 * codec.plies(game) + 8, dtype=np.int32)
        self.rng = np.ones(1, dtype=np.uint64)

    def probe(self, state: Any, op: int, move: int = 0) -> int:
        from engine.search.kernels.mcts import probe
        from engine.search.kernels.rt import knowledge_level

        result: int = probe(self.tables, state, self.work, self.out, self.rng, self.rec, op,
                            move, knowledge_level(0))
        return result

    def steps(self, state: Any) -> list[int]:
        return sorted(int(code) for code in self.out[: self.probe(state, 0)])

    def moves(self, game: Game[Any], state: Any) -> set[Any]:
        """The game's moves the array rules allow at ``state`` (a turn start): moves of one
        step, and of two (Trisq: a first step, then a second or the end of the turn)."""
        found = set()
        for first in self.steps(state):
            move = self.codec.assemble(game, [first])
            if move is not None:
                found.add(move)
                continue
            after = state.copy()
            self.probe(after, 1, first)
            seconds = self.steps(after)
            assert seconds, "a first step that begins no move"
            found.update(self.codec.assemble(game, [first, second]) for second in seconds)
        return found

    def play(self, game: Game[Any], state: Any, move: Any) -> Any:
        after = state.copy()
        for code in self.codec.steps(game, move):
            self.probe(after, 1, code)
        return after


def result_code(game: Game[Any]) -> int:
    outcome = game.outcome()
    if outcome is None:
        return -1
    return 2 if outcome.winner is None else outcome.winner


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_kernels_read_the_position_not_the_history(case: tuple[str, dict[str, Any]]) -> None:
    name, options = case
    searcher = kernel(name)
    codec = searcher.codec
    rng = random.Random(case_id(case))
    for k, original in enumerate(positions(name, options, rng, 14)):
        game = fresh(original)
        rules = Rules(codec, game)
        state = codec.state(game)
        assert rules.probe(state, 3) == result_code(game)
        assert rules.moves(game, state) == set(game.legal_moves())
        if game.is_over():
            continue
        moves = game.legal_moves()
        checked = moves if len(moves) <= 24 else rng.sample(moves, 24)
        for move in checked:
            after = rules.play(game, state, move)
            line = game.copy()
            line.play(move)
            assert rules.probe(after, 3) == result_code(line), game.format_move(move)
            if not line.is_over() and (name != "trisq" or move is checked[0]):
                assert rules.moves(line, after) == set(line.legal_moves())
        found = searcher.search(game, Limit(playouts=200), random.Random(k))
        assert game.is_legal(found.best)
        for stat in found.stats:
            line = game.copy()
            for move in stat.pv:
                assert line.is_legal(move), (game.position_string(), stat.pv)
                line.play(move)


def test_flicker_repetition_record_reaches_the_kernel() -> None:
    """A key in the position string's ``seen`` field makes the move that brings its position
    back a draw (F9), in the kernel as in the rules core."""
    from engine.games.flicker import Flicker

    codec = kernel("flicker").codec
    game = Flicker(size=4, pie=False)
    for token in ("a1", "d4", "b2"):
        game.play_text(token)
    after = game.copy()
    after.play_text("c3")
    fields = game.position_string().split()
    seen = [] if fields[5] == "-" else fields[5].split(",")
    fields[5] = ",".join([*seen, format(after.position_key(), "x")])
    setup = Flicker.from_position_string(" ".join(fields), size=4, pie=False)
    c3 = setup.parse_move("c3")
    line = setup.copy()
    line.play(c3)
    assert result_code(line) == 2  # the rules core: a repetition
    rules = Rules(codec, setup)
    assert rules.probe(rules.play(setup, codec.state(setup), c3), 3) == 2
    assert rules.probe(rules.play(game, codec.state(game), c3), 3) == -1  # without the key


def test_a_reused_tree_is_kept_only_for_a_continuation_of_its_position() -> None:
    from engine.search.kernels.mcts import KernelSearcher, Settings

    codec = kernel("brique").codec
    searcher = KernelSearcher(codec, Settings(reuse=True, max_nodes=200_000))
    start = Brique.from_position_string("5/5/5/5/5 b -")  # no history
    searcher.search(start, Limit(playouts=2000), random.Random(1))
    tree = searcher._last
    assert tree is not None
    after = start.copy()
    after.play_text("c3")
    assert tree.find(after) > 0  # a continuation: its node
    # Another position with an empty history: "c3" continues the history, not the position.
    played = Brique(size=5, pie=False)
    for token in ("a5", "b5", "e1", "d1", "a4", "b4"):
        played.play_text(token)
    other = Brique.from_position_string(played.position_string())
    assert not other.history and other.position_string() != start.position_string()
    other.play_text("c3")
    assert tree.find(other) == -1
    found = searcher.search(other, Limit(playouts=100), random.Random(1))
    for stat in found.stats:
        assert other.is_legal(stat.move), other.format_move(stat.move)
