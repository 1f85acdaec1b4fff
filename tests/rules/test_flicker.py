"""Tests of the Flicker rules core against docs/rules/flicker.md.

The worked examples are table-driven; invariants run on random games; the perft
file is cross-checked against :class:`NaiveFlicker`, a slow reference written straight from
the rules text (stones in a dict, every rule by a full rescan, positions in a plain list).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from engine.games.core import GameError, IllegalMoveError, MoveSyntaxError
from engine.games.flicker import PASS_MOVE, SWAP_MOVE, Flicker, FlickerMove
from engine.games.notation import Notation
from tests.perft_file import PERFT_DIR, PerftCase, read_perft_file

# --------------------------------------------------------------------------- naive reference

LETTERS = "abcdefghijklmnopqrstuvwxy"  # native notation


@dataclass
class NaiveFlicker:
    """Flicker from the rules text, with no cleverness: every question is a full rescan.

    Tokens are in native notation. ``turns`` holds (player, kind, point) for every turn;
    ``positions`` every position (stones, player to move) that has occurred, in order.
    """

    n: int
    pie: bool = True
    stones: dict[tuple[int, int], int] = field(default_factory=dict)
    turns: list[tuple[int, str, tuple[int, int] | None]] = field(default_factory=list)
    positions: list[tuple[frozenset[tuple[tuple[int, int], int]], int]] = field(
        default_factory=list
    )
    result: str | None = None  # "black", "white" or "draw"

    def __post_init__(self) -> None:
        self.positions.append(self.position())

    def mover(self) -> int:
        return len(self.turns) % 2  # Black (0) first, then alternate; the swap changes nothing

    def position(self) -> tuple[frozenset[tuple[tuple[int, int], int]], int]:
        return frozenset(self.stones.items()), self.mover()

    def name(self, p: tuple[int, int]) -> str:
        return f"{LETTERS[p[0]]}{p[1] + 1}"

    def point(self, token: str) -> tuple[int, int]:
        return LETTERS.index(token[0]), int(token[1:]) - 1

    def in_weak_pair(self, p: tuple[int, int]) -> bool:
        colour = self.stones[p]
        f, r = p
        for df in (-1, 1):
            for dr in (-1, 1):
                if self.stones.get((f + df, r + dr)) != colour:
                    continue
                # the two points orthogonally adjacent to both stones
                common = (self.stones.get((f + df, r)), self.stones.get((f, r + dr)))
                if colour not in common:
                    return True
        return False

    def legal(self) -> list[str]:
        if self.result is not None:
            return []
        me = self.mover()
        last = self.turns[-1] if self.turns else None
        prev = self.turns[-2] if len(self.turns) >= 2 else None
        tokens = []
        for f in range(self.n):
            for r in range(self.n):
                p = (f, r)
                if p in self.stones:
                    continue
                if last is not None and last[1] == "remove" and last[2] == p:
                    continue
                tokens.append(self.name(p))
        removal_banned = any(t is not None and t[1] == "remove" for t in (last, prev))
        if not removal_banned:
            for p, colour in self.stones.items():
                if colour == me or not self.in_weak_pair(p):
                    continue
                if last is not None and last[1] == "place" and last[2] == p:
                    continue
                tokens.append(self.name(p))
        if self.pie and len(self.turns) == 1:
            tokens.append("swap")
        return tokens or ["pass"]

    def connected(self, player: int) -> bool:
        mine = {p for p, c in self.stones.items() if c == player}
        if player == 0:
            start = {p for p in mine if p[1] == 0}
            goal = {p for p in mine if p[1] == self.n - 1}
        else:
            start = {p for p in mine if p[0] == 0}
            goal = {p for p in mine if p[0] == self.n - 1}
        seen = set(start)
        todo = list(start)
        while todo:
            f, r = todo.pop()
            if (f, r) in goal:
                return True
            for q in ((f + 1, r), (f - 1, r), (f, r + 1), (f, r - 1)):
                if q in mine and q not in seen:
                    seen.add(q)
                    todo.append(q)
        return False

    def play(self, token: str) -> None:
        assert token in self.legal(), token
        me = self.mover()
        if token == "pass":
            self.turns.append((me, "pass", None))
        elif token == "swap":
            ((f, r),) = self.stones
            del self.stones[(f, r)]
            self.stones[(self.n - 1 - r, self.n - 1 - f)] = 1
            self.turns.append((me, "swap", None))
        else:
            p = self.point(token)
            if p in self.stones:
                del self.stones[p]
                self.turns.append((me, "remove", p))
            else:
                self.stones[p] = me
                self.turns.append((me, "place", p))
                if self.connected(me):
                    self.result = ("black", "white")[me]
        now = self.position()
        if self.result is None and now in self.positions:
            self.result = "draw"
        self.positions.append(now)

    def clone(self) -> NaiveFlicker:
        return NaiveFlicker(
            self.n, self.pie, dict(self.stones), list(self.turns), list(self.positions),
            self.result,
        )

    def perft(self, depth: int) -> int:
        if depth == 0 or self.result is not None:
            return 1
        moves = self.legal()
        if depth == 1:
            return len(moves)
        total = 0
        for token in moves:
            child = self.clone()
            child.play(token)
            total += child.perft(depth - 1)
        return total


def result_name(game: Flicker) -> str | None:
    outcome = game.outcome()
    if outcome is None:
        return None
    return "draw" if outcome.winner is None else ("black", "white")[outcome.winner]


def tokens(game: Flicker, notation: Notation = "native") -> list[str]:
    return sorted(game.format_move(m, notation) for m in game.legal_moves())


def play_all(game: Flicker, moves: str) -> None:
    for token in moves.split():
        game.play_text(token, "native")


def grid(game: Flicker) -> str:
    """The stones only, top row first, as in the rules file (x Black, o White)."""
    n = game.board_size
    rows = []
    for r in range(n - 1, -1, -1):
        cells = []
        for f in range(n):
            stone = game.stone(f, r)
            cells.append("." if stone is None else "xo"[stone])
        rows.append(f"{r + 1}  " + " ".join(cells))
    rows.append("   " + " ".join(LETTERS[:n]))
    return "\n".join(rows)


def snapshot(game: Flicker) -> tuple[Any, ...]:
    """Everything undo must restore, including the restriction and repetition state."""
    return (
        tuple(game.history),
        game.to_move,
        game.outcome(),
        grid(game),
        game.banned_point(),
        game.protected_point(),
        game.removal_allowed(),
        game.swap_allowed(),
        game.position_key(),
        dict(game._seen),
        list(game._keys),
        tokens(game),
        game.board_text(),
    )


# ------------------------------------------------------------------------ worked examples

EXAMPLE_1_BOARD = """\
5  x . . . o
4  . . . o .
3  . . x . .
2  . x . . .
1  . . . . .
   a b c d e"""


def test_example_1_removal_and_protection_of_the_stone_just_placed() -> None:
    game = Flicker(size=5)
    play_all(game, "b2 d4 a5 e5 c3")
    assert grid(game) == EXAMPLE_1_BOARD
    assert game.to_move == 1
    assert game.removable_points() == [game.parse_move("b2").point]
    assert {t for t in tokens(game)} == {
        "a1", "b1", "c1", "d1", "e1", "a2", "c2", "d2", "e2", "a3", "b3", "d3", "e3",
        "a4", "b4", "c4", "e4", "b5", "c5", "d5", "b2",
    }
    with pytest.raises(IllegalMoveError, match="c3.*just placed"):
        game.play_text("c3")
    assert game.play_text("b2") == FlickerMove("remove", game.parse_move("b2").point)
    assert game.stone(1, 1) is None


# Example 2: (turn, player, legal removals, (token, reason fragment) that must be illegal,
# move played). The position continues Example 1 after White's removal on b2.
EXAMPLE_2 = [
    (7, 0, set(), [("b2", "just removed"), ("d4", "no removal now")], "d2"),
    (8, 1, set(), [("d2", "no removal now"), ("c3", "no removal now")], "a1"),
    (9, 0, {"d4", "e5"}, [("a1", "just placed"), ("a5", "holds your own stone")], "d4"),
    (10, 1, set(), [("d4", "just removed"), ("c3", "no removal now")], "c1"),
]


def test_example_2_the_ban_on_removing_after_a_removal() -> None:
    game = Flicker(size=5)
    play_all(game, "b2 d4 a5 e5 c3 b2")
    for turn, player, removals, illegal, played in EXAMPLE_2:
        assert len(game.history) + 1 == turn
        assert game.to_move == player
        assert {game.format_move(FlickerMove("remove", p), "native")
                for p in game.removable_points()} == removals
        removal_tokens = {t for t in tokens(game) if game.parse_move(t, "native").kind == "remove"}
        assert removal_tokens == removals
        for token, reason in illegal:
            before = snapshot(game)
            with pytest.raises(IllegalMoveError, match=reason):
                game.play_text(token, "native")
            assert snapshot(game) == before
        game.play_text(played, "native")
    # after turn 10, Black's removals are open again: White's d4-e5 pair lost d4, so check
    # the engine against the reference instead of a hand count
    naive = NaiveFlicker(5)
    for move in game.history:
        naive.play(game.format_move(move, "native"))
    assert sorted(naive.legal()) == tokens(game)


@pytest.mark.parametrize(
    ("size", "first", "white_point"),
    [(5, "d4", "b2"), (11, "f4", "h6"), (5, "c3", "c3"), (5, "a1", "e5"), (4, "a4", "a4")],
)
def test_example_3_the_swap(size: int, first: str, white_point: str) -> None:
    game = Flicker(size=size)
    game.play_text(first)
    assert SWAP_MOVE in game.legal_moves()
    assert game.play_text("swap") == SWAP_MOVE
    assert game.to_move == 0
    stones = [(f, r, game.stone(f, r)) for f in range(size) for r in range(size)
              if game.stone(f, r) is not None]
    point = game.parse_move(white_point)
    assert stones == [(point.point % size, point.point // size, 1)]
    assert game.outcome() is None
    game.undo()
    assert game.stone(*divmod(game.parse_move(first).point, size)[::-1]) == 0


EXAMPLE_4_FILL = "a1 b1 c1 d1 e1 c2 a2 a3 b2 c3 d2 d3 e2 a4 b3 b4 e3 e4 c4 b5 d4 c5 a5 e5 d5"
EXAMPLE_4_CYCLE = "b2 pass b2 c3 pass c3 d4 pass d4 b2 pass b2 c3 pass c3 d4 pass d4"
EXAMPLE_4_P = """\
5  x o o x o
4  o o x x o
3  o x o o x
2  x x o x x
1  x o x o x
   a b c d e"""
# colour each flip gives the point: b2 White, c3 Black, d4 White, b2 Black, c3 White, d4 Black
EXAMPLE_4_FLIPS = [("b2", 1), ("c3", 0), ("d4", 1), ("b2", 0), ("c3", 1), ("d4", 0)]


def test_example_4_draw_by_repetition_on_a_full_board() -> None:
    game = Flicker(size=5)
    naive = NaiveFlicker(5)
    for token in EXAMPLE_4_FILL.split():
        game.play_text(token, "native")
        naive.play(token)
        assert game.outcome() is None
    assert grid(game) == EXAMPLE_4_P
    assert game.to_move == 1
    position_p = game.position_key()
    cycle = EXAMPLE_4_CYCLE.split()
    for k, token in enumerate(cycle):
        turn = 26 + k
        assert game.outcome() is None, turn
        legal = tokens(game)
        if k % 3 == 1:  # the opponent of the remover: neither place nor remove
            assert legal == ["pass"]
        elif k % 3 == 2:  # the remover: only the point just emptied... by itself
            assert legal == [token]
        else:
            assert token in legal and game.parse_move(token, "native").kind == "remove"
            with pytest.raises(IllegalMoveError, match="pass is only allowed"):
                game.play_text("pass")
        game.play_text(token, "native")
        naive.play(token)
        if k % 3 == 2:
            name, colour = EXAMPLE_4_FLIPS[k // 3]
            assert game.stone(*naive.point(name)) == colour
        assert result_name(game) == naive.result
    assert len(game.history) == 43
    outcome = game.outcome()
    assert outcome is not None and outcome.winner is None
    assert "repeated" in outcome.reason
    assert grid(game) == EXAMPLE_4_P and game.to_move == 1
    assert game.position_key() == position_p
    # no position repeats earlier: only the last one is a repeat, of position P (turn 25)
    assert len(set(naive.positions)) == len(naive.positions) - 1
    assert naive.positions.index(naive.positions[-1]) == 25
    assert game.legal_moves() == []
    # undo takes the draw back, and d4 is again the only move
    game.undo()
    assert game.outcome() is None and tokens(game) == ["d4"]


# ------------------------------------------------------------------------ wins and passes

# (size, pie, moves, expected result after the last move)
WINS = [
    (3, True, "b1 a1 b2 a2 b3", "black"),  # a column of Black from row 1 to row 3
    (3, False, "a1 a2 c1 b2 a3 c2", "white"),  # a row of White from column a to column c
    (3, False, "a1 b2 a2 c2 b3 b1 a3", "black"),  # Black's chain ends in corners a1 and a3
    (4, False, "c1 a1 c2 a2 b2 a3 b3 d4 b4", "black"),  # a winding chain c1-c2-b2-b3-b4
]


@pytest.mark.parametrize(("size", "pie", "moves", "result"), WINS)
def test_wins_by_placement(size: int, pie: bool, moves: str, result: str) -> None:
    game = Flicker(size=size, pie=pie)
    naive = NaiveFlicker(size, pie)
    *head, last = moves.split()
    for token in head:
        game.play_text(token, "native")
        naive.play(token)
        assert game.outcome() is None
    game.play_text(last, "native")
    naive.play(last)
    assert result_name(game) == result == naive.result
    assert game.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="game over"):
        game.play_text("pass")


def test_removal_never_wins_and_pass_is_forced_only() -> None:
    game = Flicker(size=5)
    assert game.illegal_reason(PASS_MOVE) == "pass is only allowed when no other move exists"
    play_all(game, EXAMPLE_4_FILL + " b2")
    assert game.outcome() is None
    assert game.legal_moves() == [PASS_MOVE]
    assert game.illegal_reason(PASS_MOVE) is None


# ------------------------------------------------------------------ tokens and bad input

@pytest.mark.parametrize(
    "token", ["", "zz99", "a0", "a6", "f1", "+", "-", "!", "a1a1", "swap-", "passs", " a1", "i1"]
)
def test_bad_tokens_raise_move_syntax_error(token: str) -> None:
    game = Flicker(size=5)
    play_all(game, "b2 d4")
    before = snapshot(game)
    with pytest.raises(MoveSyntaxError) as info:
        game.play_text(token, "native")
    assert str(info.value).startswith(f"invalid move {token!r}: ")
    assert snapshot(game) == before


# (size, pie, moves before, token, reason fragment)
ILLEGAL = [
    (5, True, "b2 d4 c3", "d4", "d4 holds your own stone"),
    (5, True, "b2 d4", "b2", "b2 holds your own stone"),
    (5, True, "b2 d4 a5 e5 c3", "c3", "c3: Black just placed that stone"),
    (5, True, "b2", "b2", "b2: Black just placed that stone"),
    (5, True, "b2 d4 a5 e5 c3 b2", "b2", "b2: White just removed a stone there"),
    (5, True, "b2 d4 a5 e5 c3 b2", "d4", "d4: no removal now, White removed"),
    (5, True, "b2 d4 a5 e5 c3 b2 d2", "c3", "c3: no removal now, you removed"),
    (5, True, "b2 d4 a5 a1", "d4", "d4 is not part of a weak pair"),
    (5, True, "b2 d4", "swap", "swap is only allowed on White's first turn"),
    (5, False, "b2", "swap", "swap is not allowed: the pie option is off"),
    (5, True, "", "swap", "swap is only allowed on White's first turn"),
    (5, True, "b2 swap", "swap-pieces", "swap is only allowed on White's first turn"),
    (5, True, "b2", "pass", "pass is only allowed when no other move exists"),
]


@pytest.mark.parametrize(("size", "pie", "moves", "token", "reason"), ILLEGAL)
def test_illegal_moves_are_rejected_with_reason(
    size: int, pie: bool, moves: str, token: str, reason: str
) -> None:
    game = Flicker(size=size, pie=pie)
    play_all(game, moves)
    before = snapshot(game)
    move = game.parse_move(token, "native")
    assert game.illegal_reason(move) is not None
    assert move not in game.legal_moves()
    with pytest.raises(IllegalMoveError) as info:
        game.play_text(token, "native")
    assert str(info.value).startswith(reason)
    assert snapshot(game) == before


def test_moves_built_by_hand_are_checked() -> None:
    game = Flicker(size=5)
    play_all(game, "b2 d4")
    assert game.illegal_reason(FlickerMove("place", 6)) == "b2 is occupied"
    assert game.illegal_reason(FlickerMove("remove", 0)) == "a1 is empty"
    with pytest.raises(IllegalMoveError, match="b2 is occupied"):
        game.check_move(FlickerMove("place", 6))
    with pytest.raises(GameError):
        Flicker(size=5).undo()


def test_token_kind_depends_on_the_position_and_notations() -> None:
    game = Flicker(size=11)
    j5 = game.parse_move("j5", "native")
    assert j5 == game.parse_move("K5", "gtp") == FlickerMove("place", 4 * 11 + 9)
    assert game.format_move(j5, "gtp") == "k5" and game.format_move(j5, "native") == "j5"
    assert game.parse_move("SWAP-PIECES") == SWAP_MOVE and game.format_move(SWAP_MOVE) == "swap"
    assert game.parse_move("Pass") == PASS_MOVE
    with pytest.raises(MoveSyntaxError):
        game.parse_move("i5", "gtp")
    game.play_text("k5")
    game.play_text("a1")
    with pytest.raises(IllegalMoveError, match=r"^j5 holds your own stone$"):
        game.play_text("j5", "native")
    with pytest.raises(IllegalMoveError, match=r"^k5 holds your own stone$"):
        game.play_text("k5", "gtp")
    assert game.parse_move("j5", "native") == FlickerMove("remove", 4 * 11 + 9)
    with pytest.raises(GameError):
        Flicker(size=2)
    with pytest.raises(GameError):
        Flicker(size=26)


# ------------------------------------------------------------------------------ showboard

def test_board_text_marks_removable_stones_and_restrictions() -> None:
    game = Flicker(size=5)
    play_all(game, "b2 d4 a5 e5 c3")
    text = game.board_text("native")
    rows = text.splitlines()
    assert rows[0].split() == list("abcde")
    assert rows[1].split() == ["5", "X", ".", ".", ".", "O", "5"]
    assert rows[3].split() == ["3", ".", ".", "X", ".", ".", "3"]  # c3 just placed: upper
    assert rows[4].split() == ["2", ".", "x", ".", ".", ".", "2"]  # b2 removable: lower
    assert "last move: Black placed c3" in text and "removable now (lowercase): b2" in text
    assert "" not in rows
    game.play_text("b2")
    text = game.board_text("native")
    assert text.splitlines()[4].split() == ["2", ".", "-", ".", ".", ".", "2"]
    assert "no placing on b2" in text and "removals: none allowed" in text


# ---------------------------------------------------------------- invariants on random games

def random_game(size: int, pie: bool, seed: int, start: str = "") -> Flicker:
    game = Flicker(size=size, pie=pie)
    play_all(game, start)
    rng = random.Random(seed)
    while not game.is_over():
        game.play(game.random_move(rng))
        assert len(game.history) < 5000
    return game


GAMES = [(size, pie, seed) for size in (3, 4, 5, 7) for pie in (True, False) for seed in range(4)]


@pytest.mark.parametrize(("size", "pie", "seed"), GAMES)
def test_random_games_match_the_naive_reference(size: int, pie: bool, seed: int) -> None:
    """Legal moves, outcome and repetition detection agree with the reference at every ply;
    removals are spaced; undo restores everything (restriction and repetition state)."""
    game = random_game(size, pie, seed)
    history = list(game.history)
    replay = Flicker(size=size, pie=pie)
    naive = NaiveFlicker(size, pie)
    states = [snapshot(replay)]
    for k, move in enumerate(history):
        assert sorted(naive.legal()) == tokens(replay)
        token = replay.format_move(move, "native")
        # a removal is never followed by a removal within the next two turns
        if move.kind == "remove":
            assert all(m.kind != "remove" for m in history[k + 1:k + 3])
        replay.play_text(token, "native")
        naive.play(token)
        assert result_name(replay) == naive.result
        repeated = naive.positions[-1] in naive.positions[:-1]
        assert (result_name(replay) == "draw") == repeated
        states.append(snapshot(replay))
    assert replay.outcome() == game.outcome()
    for k in range(len(history), 0, -1):
        assert snapshot(replay) == states[k]
        assert replay.undo() == history[k - 1]
    assert snapshot(replay) == states[0]


def test_play_undo_of_every_move_restores_the_state() -> None:
    rng = random.Random(7)
    for start in ("", EXAMPLE_4_FILL, EXAMPLE_4_FILL + " b2 pass b2 c3"):
        game = Flicker(size=5)
        play_all(game, start)
        for _ in range(12):
            if game.is_over():
                break
            before = snapshot(game)
            for move in game.legal_moves():
                game.play(move)
                game.undo()
                assert snapshot(game) == before
            game.play(game.random_move(rng))


def flip_cycles(game: Flicker, flips: list[str], found: list[list[str]]) -> None:
    """Depth-first: every sequence of six flips (remove, forced pass, forced placement) from
    the current full board in which stones s1, s2, s3 flip and then flip back in the same
    order, so that the position of the start comes back; ``found`` gets each move list."""
    step = len(flips)
    if step == 6:
        found.append(list(flips))
        return
    if step < 3:
        candidates = [t for t in tokens(game) if t != "pass"]
    else:
        candidates = [flips[step - 3]]
    for token in candidates:
        move = game.parse_move(token, "native")
        if move.kind != "remove" or not game.is_legal(move):
            continue
        game.play(move)
        played = 1
        if game.outcome() is None:
            assert game.legal_moves() == [PASS_MOVE]
            game.play(PASS_MOVE)
            assert tokens(game) == [token]
            game.play(game.parse_move(token, "native"))
            played = 3
            if game.outcome() is None or step == 5:
                flips.append(token)
                flip_cycles(game, flips, found)
                flips.pop()
        for _ in range(played):
            game.undo()


def test_repetition_detection_on_every_short_flip_cycle() -> None:
    """All six-flip cycles from position P: each that completes without a win ends in a draw
    exactly at its last placement, as the reference's list of positions says."""
    game = Flicker(size=5)
    play_all(game, EXAMPLE_4_FILL)
    found: list[list[str]] = []
    flip_cycles(game, [], found)
    assert ["b2", "c3", "d4", "b2", "c3", "d4"] in found
    assert len(found) >= 2
    draws = 0
    for flips in found:
        moves = " ".join(f"{t} pass {t}" for t in flips)
        naive = NaiveFlicker(5)
        replay = Flicker(size=5)
        for token in (EXAMPLE_4_FILL + " " + moves).split():
            assert replay.outcome() is None
            replay.play_text(token, "native")
            naive.play(token)
            assert result_name(replay) == naive.result
        draws += naive.result == "draw"
        if naive.result == "draw":
            assert len(replay.history) == 43 and replay.position_key() == replay._keys[25]
    assert draws == len(found)


def test_repetition_detection_from_the_full_board() -> None:
    """Random play from position P (flips until someone connects or a position repeats)
    agrees with the reference at every ply."""
    for seed in range(20):
        rng = random.Random(seed)
        game = Flicker(size=5)
        naive = NaiveFlicker(5)
        for token in EXAMPLE_4_FILL.split():
            game.play_text(token, "native")
            naive.play(token)
        while not game.is_over():
            assert sorted(naive.legal()) == tokens(game)
            move = game.random_move(rng)
            token = game.format_move(move, "native")
            game.play(move)
            naive.play(token)
            assert result_name(game) == naive.result


def test_random_games_terminate() -> None:
    rng = random.Random(5)
    for size in (3, 4, 5, 11):
        for pie in (True, False):
            game = Flicker(size=size, pie=pie)
            for _ in range(20):
                clone = game.copy()
                while not clone.is_over():
                    clone.play(clone.random_move(rng))
                    assert len(clone.history) < 20 * size * size
                outcome = game.random_playout(rng)
                assert outcome.winner in (None, 0, 1)


# --------------------------------------------------------------------------- fast playouts

@pytest.mark.parametrize("size", [3, 4, 5, 8, 11])
@pytest.mark.parametrize("pie", [True, False])
def test_fast_playout_follows_the_rules(size: int, pie: bool) -> None:
    """Replaying a recorded fast playout through play_text gives the same outcome."""
    rng = random.Random(size * 2 + pie)
    for trial in range(25):
        game = Flicker(size=size, pie=pie)
        for _ in range(rng.randrange(0, 8)):
            if game.is_over():
                break
            game.play(game.random_move(rng))
        if trial == 0 and size == 5:
            game = Flicker(size=5, pie=pie)
            play_all(game, EXAMPLE_4_FILL)
        if game.is_over():
            continue
        before = snapshot(game)
        record: list[FlickerMove] = []
        outcome = game.random_playout(rng, record)
        assert snapshot(game) == before
        replay = game.copy()
        for move in record:
            assert replay.outcome() is None
            replay.play_text(replay.format_move(move, "native"), "native")
        assert replay.outcome() == outcome


def test_fast_playout_statistics_match_the_generic_loop() -> None:
    """Both draw uniformly among legal moves: Black's share of wins agrees on 5x5."""
    game = Flicker(size=5)
    fast_rng, slow_rng = random.Random(1), random.Random(2)
    runs = 600
    fast = sum(game.random_playout(fast_rng).winner == 0 for _ in range(runs))
    slow = 0
    for _ in range(runs):
        clone = game.copy()
        while not clone.is_over():
            clone.play(clone.random_move(slow_rng))
        slow += result_name(clone) == "black"
    assert abs(fast - slow) < 0.1 * runs


# ---------------------------------------------------------------------------------- perft

FLICKER_PERFT = read_perft_file(PERFT_DIR / "flicker.perft")


def test_perft_file_has_the_required_cases() -> None:
    seen = {(c.options.get("size"), c.options.get("pie")) for c in FLICKER_PERFT if not c.slow}
    for size in ("3", "4", "5", "11"):
        for pie in ("on", "off"):
            assert (size, pie) in seen


@pytest.mark.parametrize(
    "case", [c for c in FLICKER_PERFT if not c.slow],
    ids=lambda c: c.id,
)
def test_perft_file_against_the_naive_reference(case: PerftCase) -> None:
    naive = NaiveFlicker(int(case.options["size"]), case.options["pie"] == "on")
    game = Flicker(**case.options)
    for token in case.moves:
        naive.play(token)
        game.play_text(token, "native")
    assert naive.perft(case.depth) == case.nodes == game.perft(case.depth)


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in FLICKER_PERFT if c.slow], ids=lambda c: c.id)
def test_slow_perft_lines(case: PerftCase) -> None:
    game = Flicker(**case.options)
    for token in case.moves:
        game.play_text(token, "native")
    assert game.perft(case.depth) == case.nodes
