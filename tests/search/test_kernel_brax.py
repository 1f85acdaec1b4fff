"""The Brax kernel (engine/search/kernels/brax.py) beside the rules core (engine/games/brax.py) on
composed
positions: the worked examples of docs/rules/brax.md, a repetition draw, the
fields of a position string (obligation, ban, call (b)), random games from crowded positions
(which reach calls, call (b), double captures and every draw far more often than games from
the start), playouts replayed through ``play_text``, the capture-first playouts, the solver,
and the variants the kernel leaves to the Python search.

Every step compares the legal move codes and the whole state (``Codec.meaning``) with the
rules core's; tests/search/test_kernels.py does the same along random games from the start.
"""

from __future__ import annotations

import collections
import random
from typing import Any

import pytest

from engine.games.brax import Brax, BraxMove, victims
from engine.search.players import Limit
from tests.search.test_kernels import ProbeArrays, every_reply_loses, wins_within

pytest.importorskip("numba")


@pytest.fixture(scope="module")
def codec() -> Any:
    from engine.search import kernels

    kernels.wait("brax")  # a background load another test may have started
    return kernels.load("brax").codec


class Mirror(ProbeArrays):
    """A game and its arrays, played side by side and compared after every move."""

    def __init__(self, codec: Any, game: Brax) -> None:
        super().__init__(codec, game)
        self.game = game

    def probe(self, op: int, move: int = 0, knowledge: int = 0) -> int:
        return self.run(self.state, op, move, knowledge)

    def codes(self) -> list[int]:
        k = self.probe(0)
        codes = sorted(self.out[:k].tolist())
        assert codes == sorted(self.codec.code(self.game, m) for m in self.game.legal_moves())
        return codes

    def legal(self) -> list[str]:
        """The kernel's legal moves in native notation (checked against the rules core)."""
        return sorted(
            self.game.format_move(self.codec.move(self.game, c), "native") for c in self.codes()
        )

    def plain(self) -> list[str]:
        return [token for token in self.legal() if not token.endswith("!")]

    def play(self, token: str | BraxMove) -> None:
        if isinstance(token, str):
            move = self.game.play_text(token, "native")
        else:
            move = token
            self.game.play(move)
        self.probe(1, self.codec.code(self.game, move))
        self.check()

    def check(self) -> None:
        assert self.codec.meaning(self.game, self.state) == self.codec.meaning(
            self.game, self.codec.state(self.game)
        )

    def result(self) -> int:
        return self.probe(3)


def replay_playout(mirror: Mirror, game: Brax) -> Brax:
    """Play the moves of ``mirror``'s last playout on ``game`` (changed and returned), checking
    that each was made by the recorded player in a game not yet over."""
    for j in range(int(mirror.rec[0])):
        assert game.outcome() is None
        assert int(mirror.rec[2 + 2 * j]) == game.to_move
        move = mirror.codec.move(game, int(mirror.rec[1 + 2 * j]))
        game.play_text(game.format_move(move))
    return game


def name(p: int) -> str:
    return "abcdefghi"[p % 9] + str(p // 9 + 1)


def point(text: str) -> int:
    return "abcdefghi".index(text[0]) + 9 * (int(text[1:]) - 1)


def setup(codec: Any, red: str, blue: str, to_move: str, **options: object) -> Mirror:
    mirror = Mirror(codec, Brax.from_position({"red": red, "blue": blue}, to_move, **options))
    mirror.check()
    return mirror


# ---------------------------------------------------------------------- worked examples


def test_example_1_the_start(codec: Any) -> None:
    mirror = Mirror(codec, Brax())
    assert mirror.legal() == sorted(
        "b1-a1 b1-b2 b1-b2-a2 c1-c2 d1-d2 d1-d2-c2 e1-e2 e1-e2-e3 e1-e2-f2 f1-f2 f1-f2-e2 "
        "g1-g2 h1-h2 h1-h2-g2 h1-i1 h1-i1-i2".split()
    )
    blue = Mirror(codec, Brax(first="blue"))
    assert len(blue.legal()) == 16 and blue.result() == -1


def test_example_2_movement(codec: Any) -> None:
    mirror = setup(codec, "b1", "e3", "blue")
    assert mirror.legal() == sorted(
        "e3-e4 e3-e4-e5 e3-e4-d4 e3-d3 e3-d3-c3 e3-d3-d2 e3-f3 e3-e2".split()
    )


def test_example_3_the_double_capture(codec: Any) -> None:
    mirror = setup(codec, "e6", "d6 f6 f5", "red")
    assert mirror.plain() == sorted(
        "e6-e7 e6-e7-f7 e6-f6 e6-f6-f5 e6-e5 e6-e5-d5 e6-d6".split()
    )
    mirror.play("e6-f6-f5")
    assert mirror.game.pieces(1) == [point("d6")]
    assert mirror.result() == -1
    # Without F5, or with a Red piece there, the double step through F6 is illegal.
    assert "e6-f6-f5" not in setup(codec, "e6", "d6 f6", "red").plain()
    assert "e6-f6-f5" not in setup(codec, "e6 f5", "d6 f6", "red").plain()


def test_example_4_a_call_forces_the_reply(codec: Any) -> None:
    mirror = setup(codec, "d6 b1", "f5 a9", "red")
    assert "d6-e6!" in mirror.legal()
    mirror.play("d6-e6!")
    assert mirror.plain() == sorted(
        "f5-e5 f5-e5-e4 f5-f4 f5-f4-g4 f5-f6 f5-g5 f5-g5-g6".split()
    )
    mirror.play("f5-g5-g6")
    legal = mirror.legal()
    assert "e6-f6" in legal and "e6-f6!" not in legal  # Red called last turn (X10)
    mirror.play("e6-f6")
    legal = mirror.legal()
    assert "a9-a8" in legal and "g6-f6" in legal


def test_example_5_call_b(codec: Any) -> None:
    mirror = setup(codec, "e6 b1", "g5 a9", "blue")
    mirror.play("g5-f5")
    assert "b1-b2!" in mirror.legal()
    mirror.play("b1-b2!")
    assert mirror.plain() == sorted(
        "f5-e5 f5-e5-e4 f5-f4 f5-f4-g4 f5-f6 f5-g5 f5-g5-g6".split()
    )
    contrast = setup(codec, "e6 b1", "g5 a9", "blue")
    contrast.play("a9-a8")
    assert "b1-b2!" not in contrast.legal() and "b1-b2" in contrast.legal()


def test_example_6_no_calls_at_two_against_one_and_the_one_against_one_draw(
    codec: Any,
) -> None:
    mirror = setup(codec, "e6 b1", "f5", "red")
    assert "e6-e5" in mirror.legal() and "e6-e5!" not in mirror.legal()
    alone = setup(codec, "e6", "a9", "red")
    plies = "e6-e5 a9-a8 e5-e4 a8-a7 e4-e3 a7-a6 e3-e2 a6-a5 e2-e1 a5-a4".split()
    for k, token in enumerate(plies):
        assert alone.result() == -1
        alone.play(token)
        assert alone.result() == (2 if k == 9 else -1)
    assert alone.codes() == []


# --------------------------------------------------------------- draws and the state


@pytest.mark.parametrize("repetition", [True, False])
def test_third_repetition(codec: Any, repetition: bool) -> None:
    mirror = setup(codec, "e6 b1", "a9 i9", "red", repetition=repetition)
    plies = "e6-e5 a9-a8 e5-e6 a8-a9 e6-e5 a9-a8 e5-e6 a8-a9".split()
    for k, token in enumerate(plies):
        mirror.play(token)
        assert mirror.result() == (2 if repetition and k == 7 else -1)
    if not repetition:
        mirror.play("e6-e5")
        assert mirror.result() == -1


def test_a_hundred_plies_without_capture(codec: Any) -> None:
    game = Brax.from_position({"red": "a1 c1", "blue": "g9 i9"}, "red")
    fields = game.position_string().split()
    fields[5] = "97"  # quiet plies
    mirror = Mirror(codec, Brax.from_position_string(" ".join(fields)))
    mirror.check()
    for token in ["a1-a2", "i9-i8", "a2-a3"]:
        assert mirror.result() == -1
        mirror.play(token)
    assert mirror.result() == 2


def with_fields(game: Brax, **fields: str) -> Brax:
    names = ("board", "to_move", "forced", "ban", "prev", "quiet", "rep")
    parts = game.position_string().split()
    for name, value in fields.items():
        parts[names.index(name)] = value
    return Brax.from_position_string(" ".join(parts))


def test_position_string_fields(codec: Any) -> None:
    # Blue's D5 threatens Red's E5 (one step); A1 is hemmed in by A2 and B1.
    base = Brax.from_position({"red": "e5 e6 i9", "blue": "a1 a2 b1 d5"}, "blue")
    # A forced piece that cannot move: the obligation lapses (X11).
    lapsed = Mirror(codec, with_fields(base, forced="a1"))
    lapsed.check()
    assert lapsed.plain() == Mirror(codec, base).plain()
    bound = Mirror(codec, with_fields(base, forced="a2"))
    assert {token[:2] for token in bound.legal()} == {"a2"}
    # Calls: d5-c5 keeps no threat; with E5 as Red's last move, call (b) allows the call.
    free = Mirror(codec, base)
    assert "d5-d6!" in free.legal() and "a2-a3!" not in free.legal()
    prev = Mirror(codec, with_fields(base, prev="e5"))
    assert "a2-a3!" in prev.legal()
    banned = Mirror(codec, with_fields(base, ban="blue", prev="e5"))
    assert not [token for token in banned.legal() if token.endswith("!")]
    prev.play("a2-a3!")
    assert {token[:2] for token in prev.legal()} == {"e5"}


# ------------------------------------------------------------------ random crowded games




OPTIONS: list[dict[str, object]] = [
    {}, {"repetition": False}, {"nocapture": False}, {"repetition": False, "nocapture": False},
]


def crowded(rng: random.Random) -> Brax:
    """1-5 pieces a side on a random 5x5 patch, a random side to move, random options."""
    while True:
        nr, nb = rng.randint(1, 5), rng.randint(1, 5)
        f0, r0 = rng.randrange(5), rng.randrange(5)
        patch = [r * 9 + f for r in range(r0, r0 + 5) for f in range(f0, f0 + 5)]
        points = rng.sample(patch, nr + nb)
        game = Brax.from_position(
            {"red": " ".join(map(name, points[:nr])), "blue": " ".join(map(name, points[nr:]))},
            rng.choice(["red", "blue"]),
            **rng.choice(OPTIONS),
        )
        if not game.is_over():
            return game


@pytest.mark.slow  # 2-3 s
def test_random_games_from_crowded_positions(codec: Any) -> None:
    rng = random.Random(5)
    seen: collections.Counter[str] = collections.Counter()
    for _ in range(50):
        mirror = Mirror(codec, crowded(rng))
        game = mirror.game
        while True:
            moves = game.legal_moves()
            mirror.codes()
            if game.is_over():
                break
            if game.forced:
                seen["obligation"] += 1
            board = game._board
            doubles = [m for m in moves if len(m.paths[0]) == 3 and board[m.paths[0][1]]]
            back = []
            if len(game.history) >= 2:  # undo one's last move: repetitions
                back = [m for m in moves if m.paths[0] == game.history[-2].paths[0][::-1]]
            if doubles and rng.random() < 0.5:
                move = rng.choice(doubles)
                seen["double capture"] += 1
            elif back and rng.random() < 0.7:
                move = rng.choice(back)
            else:
                move = rng.choice(moves)
            mirror.play(move)
            if move.call:
                seen["call"] += 1
                end = move.paths[0][-1]
                if not victims(game._board, end, 1 - game.to_move, (-1, 0, 1)):
                    seen["call (b)"] += 1
        outcome = game.outcome()
        assert outcome is not None
        seen[outcome.reason.split(":")[-1].split("(")[0].strip()] += 1
        assert mirror.result() == (2 if outcome.winner is None else outcome.winner)
    for event in (
        "obligation", "double capture", "call", "call (b)", "one piece each and 10 plies "
        "without capture", "the position occurred for the third time", "100 plies without "
        "capture",
    ):
        assert seen[event] > 0, (event, seen)
    assert sum(n for reason, n in seen.items() if reason.endswith("piece")) > 0, seen


@pytest.mark.parametrize("knowledge", [0, 1])
def test_playouts_from_crowded_positions_replay(codec: Any, knowledge: int) -> None:
    from engine.search.kernels.rt import new_rng

    rng = random.Random(knowledge)
    for _ in range(40):
        start = crowded(rng)
        mirror = Mirror(codec, start)
        mirror.rng = new_rng(rng.getrandbits(32))
        result = mirror.probe(2, 0, knowledge)
        replay = replay_playout(mirror, start.copy())
        outcome = replay.outcome()
        assert outcome is not None and mirror.result() >= 0
        assert result == (2 if outcome.winner is None else outcome.winner)
        assert codec.meaning(replay, mirror.state) == codec.meaning(replay, codec.state(replay))


@pytest.mark.parametrize("options", [{}, {"nocapture": False}])
def test_a_playout_stops_unfinished_after_max_plies(codec: Any, options: dict[str, Any]) -> None:
    # The bound is a field of the tables: 1500 plies by default, 9 here.
    game = Brax(**options)
    game.play_text("e1-e2", "native")
    mirror = Mirror(codec, game)
    mirror.tables = mirror.tables._replace(max_plies=9)
    assert mirror.probe(2, 0, 1) == 2 and mirror.result() == -1
    assert mirror.rec[0] == 9
    replay_playout(mirror, game)
    assert game.outcome() is None
    mirror.check()


def first_playout_moves(codec: Any, game: Brax, knowledge: int, trials: int) -> list[str]:
    from engine.search.kernels.rt import new_rng

    out = []
    mirror = Mirror(codec, game)
    mirror.rng = new_rng(knowledge + 1)
    for _ in range(trials):
        mirror.state = codec.state(game)
        mirror.probe(2, 0, knowledge)
        move = codec.move(game, int(mirror.rec[1]))
        out.append(game.format_move(BraxMove(move.paths), "native"))
    return out


def test_capture_first_playouts(codec: Any) -> None:
    # Red's e5 may take Blue's e6 (a step along a line, always allowed); Red has 15 paths.
    game = Brax.from_position({"red": "e5 a1 i1", "blue": "e6 a9 i9"}, "red")
    assert first_playout_moves(codec, game, 0, 200).count("e5-e6") < 40
    assert first_playout_moves(codec, game, 1, 200).count("e5-e6") > 150
    # a1-a2 takes one Blue piece, a1-a2-a3 (two steps along red lines) takes two.
    double = Brax.from_position({"red": "a7 a1", "blue": "a2 a3 d5 i9"}, "red")
    firsts = first_playout_moves(codec, double, 1, 100)
    assert firsts.count("a1-a2-a3") > 75 and firsts.count("a1-a2") < 10


@pytest.mark.parametrize(
    ("red", "blue", "expected"),
    [
        ("a1 c1 e1 g1", "e9", "red"),  # Red three pieces up: Red's share of the pieces
        ("a1 i1", "a9 i9", "even"),  # level and far apart: a coin toss at the cutoff
    ],
)
def test_material_playouts_stop_at_the_cutoff(
    codec: Any, red: str, blue: str, expected: str
) -> None:
    from engine.search.kernels.brax import CUTOFF
    from engine.search.kernels.rt import new_rng

    game = Brax.from_position({"red": red, "blue": blue}, "red")
    mirror = Mirror(codec, game)
    mirror.rng = new_rng(7)
    results = collections.Counter()
    for _ in range(200):
        mirror.state = codec.state(game)
        result = mirror.probe(2, 0, 2)
        results[result] += 1
        plies = int(mirror.rec[0])
        replay = replay_playout(mirror, game.copy())
        outcome = replay.outcome()
        if outcome is None:  # scored by material, after exactly CUTOFF plies
            assert plies == CUTOFF and mirror.result() == -1
        else:
            assert plies <= CUTOFF
            assert result == (2 if outcome.winner is None else outcome.winner)
        assert codec.meaning(replay, mirror.state) == codec.meaning(replay, codec.state(replay))
    # (after q plies without capture a playout is also drawn with probability q / 100)
    if expected == "red":  # four pieces to one: Red wins 4/5 of what is not drawn
        assert 0.7 < results[0] / (results[0] + results[1]) < 0.9 and results[2] < 80, results
    else:  # about a quarter drawn (24 quiet plies), the rest split
        assert results[0] > 50 and results[1] > 50 and 20 < results[2] < 100, results
    # uniform playouts from the same position run much longer than the cutoff
    mirror.state = codec.state(game)
    mirror.probe(2, 0, 0)
    assert mirror.rec[0] > CUTOFF


# ------------------------------------------------------------------------- search


def test_the_searcher_uses_the_codecs_defaults(codec: Any) -> None:
    from engine.search import kernels
    from engine.search.kernels.mcts import Settings

    assert codec.defaults  # Brax departs from the generic defaults (docs/design/kernels.md)
    assert kernels.load("brax").settings == Settings(**codec.defaults) != Settings()


def test_contempt_values_draws_below_one_half_for_the_searching_player(codec: Any) -> None:
    from engine.search.kernels.mcts import KernelSearcher, Settings

    # One piece each, far apart: nearly every playout ends in X13's draw.
    game = Brax.from_position({"red": "a1", "blue": "i9"}, "red")

    def mean_winrate(contempt: float) -> float:
        searcher = KernelSearcher(codec, Settings(contempt=contempt))
        result = searcher.search(game, Limit(playouts=2000), random.Random(3))
        return sum(s.winrate * s.visits for s in result.stats) / result.iterations

    assert abs(mean_winrate(0.0) - 0.5) < 0.05
    assert abs(mean_winrate(0.2) - 0.3) < 0.05


def test_solver_proves_a_brax_win_in_three(codec: Any) -> None:
    from engine.search.kernels.mcts import KernelSearcher, Settings

    game = Brax.from_position({"red": SOLVER_RED, "blue": SOLVER_BLUE}, "red")
    assert not wins_within(game, 1) and wins_within(game, 3)
    searcher = KernelSearcher(codec, Settings(reuse=False))
    result = searcher.search(game, Limit(playouts=100_000), random.Random(2))
    assert result.proven == "win" and result.stats[0].proven == "win"
    game.play(result.best)
    assert game.is_over() or every_reply_loses(game, 2, 1 - game.to_move)


SOLVER_RED = "c7 e5 c9 f7"
SOLVER_BLUE = "d6 d8"


def test_a_side_with_more_than_seven_pieces_keeps_the_python_search(codec: Any) -> None:
    # A set-up position may hold more pieces than the start; the arrays hold seven a side.
    import random as _random

    from engine.search import kernels
    from engine.search.mcts import MctsPlayer

    game = Brax.from_position({"red": "a1 b1 c1 d1 e1 f1 g1 h1 i1", "blue": "e9"}, "red")
    assert not codec.supports(game)
    assert kernels.searcher_for(game, wait=True) is None
    move = MctsPlayer(_random.Random(1)).choose_move(game, Limit(playouts=50))
    assert game.is_legal(move)
    seven = Brax.from_position({"red": "a1 b1 c1 d1 e1 f1 g1", "blue": "e9"}, "red")
    assert codec.supports(seven)


@pytest.mark.parametrize("options", [{"players": 3}, {"players": 4}, {"hunt": True}])
def test_variants_keep_the_python_search(codec: Any, options: dict[str, object]) -> None:
    from engine.search import kernels

    game = Brax(**options)
    assert not codec.supports(game)
    assert kernels.searcher_for(game, wait=True) is None
    assert kernels.searcher_for(game) is None
    assert codec.supports(Brax(first="blue", repetition=False, nocapture=False))
    assert kernels.searcher_for(Brax(), wait=True) is not None
