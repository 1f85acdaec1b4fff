"""Tests of the Brique rules core against docs/rules/brique.md.

The worked examples are table-driven with ASCII diagrams; the invariants of the
issue run on random games; the perft file and the fast playout are checked against
:class:`Reference`, a deliberately naive implementation written straight from the rules text
(full rescan of every square for fills, flood fill from the edges for wins, no undo).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine.games.brique import EMPTY, SWAP, Brique, BriqueMove, fast_playout
from engine.games.core import BLACK, WHITE, GameError, IllegalMoveError, MoveSyntaxError
from tests.perft_file import PERFT_DIR, PerftCase, read_perft_file

Square = tuple[int, int]

# ----------------------------------------------------------------- the naive reference


class Reference:
    """Brique from the rules text, as plainly as possible: an immutable position."""

    def __init__(
        self,
        n: int,
        pie: bool,
        board: dict[Square, str] | None = None,
        mover: str = "x",
        plies: int = 0,
        winner: str | None = None,
    ) -> None:
        self.n = n
        self.pie = pie
        self.board: dict[Square, str] = board if board is not None else {}
        self.mover = mover
        self.plies = plies
        self.winner = winner

    def on_board(self, f: int, r: int) -> bool:
        return 0 <= f < self.n and 0 <= r < self.n

    def is_light(self, f: int, r: int) -> bool:
        # B3: the top-left square is light
        return (f + (self.n - 1 - r)) % 2 == 0

    def escorts(self, f: int, r: int) -> list[Square]:
        # 3.2: light -> above and left; dark -> below and right (B2); off-board ones dropped
        if self.is_light(f, r):
            candidates = [(f, r + 1), (f - 1, r)]
        else:
            candidates = [(f, r - 1), (f + 1, r)]
        return [(g, s) for g, s in candidates if self.on_board(g, s)]

    def squares(self) -> list[Square]:
        return [(f, r) for r in range(self.n) for f in range(self.n)]

    def moves(self) -> list[str]:
        if self.winner is not None:
            return []
        moves = [f"{chr(97 + f)}{r + 1}" for f, r in self.squares() if (f, r) not in self.board]
        if self.pie and self.plies == 1:
            moves.append("swap")
        return moves

    def fill(self, board: dict[Square, str], colour: str) -> list[Square]:
        """Every square with two escorts holding ``colour`` and not holding ``colour``."""
        return [
            sq for sq in self.squares()
            if len(self.escorts(*sq)) == 2
            and all(board.get(e) == colour for e in self.escorts(*sq))
            and board.get(sq) != colour
        ]

    def connected(self, board: dict[Square, str], colour: str) -> bool:
        """Flood fill from the colour's first edge; does it reach the second?"""
        n = self.n
        if colour == "x":
            start = [(f, 0) for f in range(n)]
            goal = {(f, n - 1) for f in range(n)}
        else:
            start = [(0, r) for r in range(n)]
            goal = {(n - 1, r) for r in range(n)}
        stack = [sq for sq in start if board.get(sq) == colour]
        seen = set(stack)
        while stack:
            f, r = stack.pop()
            if (f, r) in goal:
                return True
            for near in ((f + 1, r), (f - 1, r), (f, r + 1), (f, r - 1)):
                if near not in seen and board.get(near) == colour:
                    seen.add(near)
                    stack.append(near)
        return False

    def play(self, token: str) -> Reference:
        board = dict(self.board)
        other = "o" if self.mover == "x" else "x"
        if token == "swap":
            ((f, r),) = board
            del board[(f, r)]
            board[(self.n - 1 - r, self.n - 1 - f)] = "o"
            return Reference(self.n, self.pie, board, other, self.plies + 1)
        f, r = ord(token[0]) - 97, int(token[1:]) - 1
        assert (f, r) not in board
        board[(f, r)] = self.mover
        for sq in self.fill(board, self.mover):  # computed on the board after the placement
            board[sq] = self.mover
        winner = self.mover if self.connected(board, self.mover) else None
        return Reference(self.n, self.pie, board, other, self.plies + 1, winner)

    def perft(self, depth: int) -> int:
        if depth == 0 or self.winner is not None:
            return 1
        moves = self.moves()
        if depth == 1:
            return len(moves)
        return sum(self.play(m).perft(depth - 1) for m in moves)


# ------------------------------------------------------------------------------ helpers


def play(game: Brique, tokens: str, notation: str = "native") -> None:
    for token in tokens.split():
        game.play_text(token, "native" if notation == "native" else "gtp")


def picture(game: Brique) -> str:
    """The board as rows of x / o / . (top row first), for comparison with the diagrams."""
    n = game.n
    glyph = {BLACK: "x", WHITE: "o", -1: "."}
    return "\n".join(
        " ".join(glyph[game.stone(f, r)] for f in range(n)) for r in range(n - 1, -1, -1)
    )


def diagram_text(rows: str) -> str:
    """Strip the row numbers of a hand-written diagram (``4  o . . x``)."""
    lines = [line.split(None, 1)[1] for line in rows.strip().splitlines()]
    return "\n".join(" ".join(line.split()) for line in lines)


def state(game: Brique) -> tuple[object, ...]:
    return (game.cells(), game.to_move, game.outcome(), tuple(game.history))


# ---------------------------------------------------------------------------- geometry


def test_colours_on_4x4_match_section_3_4() -> None:
    expected = """
        4  L D L D
        3  D L D L
        2  L D L D
        1  D L D L
    """
    geo = Brique(size=4).geo
    rows = [
        " ".join("L" if geo.light[r * 4 + f] else "D" for f in range(4))
        for r in range(3, -1, -1)
    ]
    assert "\n".join(rows) == diagram_text(expected)


def test_odd_board_has_light_corners() -> None:
    geo = Brique(size=5).geo
    assert all(geo.light[i] for i in (0, 4, 20, 24))


# The squares of the 4x4 board with fewer than two escorts.
ESCORTS_4X4 = [
    ("a4", []), ("c4", ["b4"]), ("d4", ["d3"]), ("a2", ["a3"]), ("d2", ["d1"]),
    ("a1", ["b1"]), ("c1", ["d1"]),
    # and some with two (3.2): light b3 -> b4, a3; dark c3 -> c2, d3
    ("b3", ["b4", "a3"]), ("c3", ["c2", "d3"]), ("c2", ["c3", "b2"]),
]


@pytest.mark.parametrize(("square", "escorts"), ESCORTS_4X4)
def test_escorts_on_4x4(square: str, escorts: list[str]) -> None:
    game = Brique(size=4)
    cell = game.parse_move(square).square
    assert sorted(game.format_move(BriqueMove(e)) for e in game.geo.escorts[cell]) == sorted(
        escorts
    )


def test_exactly_seven_squares_of_4x4_lack_an_escort() -> None:
    geo = Brique(size=4).geo
    assert sum(len(e) < 2 for e in geo.escorts) == 7


@pytest.mark.parametrize("n", [3, 4, 5, 8, 11])
def test_fills_follow_the_diagonal_pair_table(n: int) -> None:
    """The diagonal form's table (a placement fills only next to itself) equals the escort form."""
    game = Brique(size=n)
    for s, pairs in enumerate(game.geo.fills):
        f, r = s % n, s // n
        table = []
        if f + 1 < n and r + 1 < n:  # mover's stone at NE
            target = (f, r + 1) if game.geo.light[s] else (f + 1, r)
            table.append(((f + 1) + (r + 1) * n, target[0] + target[1] * n))
        if f >= 1 and r >= 1:  # mover's stone at SW
            target = (f - 1, r) if game.geo.light[s] else (f, r - 1)
            table.append(((f - 1) + (r - 1) * n, target[0] + target[1] * n))
        assert sorted(pairs) == sorted(table)


# ------------------------------------------------------------------ worked examples (5)

EXAMPLES = [
    (
        "1: a forced fill replaces an enemy stone",
        "b2 c2 c3",
        """
        4  . . . .
        3  . . x .
        2  . x x .
        1  . . . .
        """,
        WHITE,
        None,
    ),
    (
        "2: NW-SE diagonals fill nothing",
        "c2 a4 b3",
        """
        4  o . . .
        3  . x . .
        2  . . x .
        1  . . . .
        """,
        WHITE,
        None,
    ),
    (
        "3: two fills in one move, one a replacement",
        "d3 a4 b1 b2 c2",
        """
        4  o . . .
        3  . . x x
        2  . x x .
        1  . x . .
        """,
        WHITE,
        None,
    ),
    (
        "4: a win completed by a fill",
        "a1 d1 b2 a4 c3 d3 d4",
        """
        4  o . . x
        3  . . x x
        2  . x x .
        1  x x . o
        """,
        None,
        BLACK,
    ),
    (
        "5: the swap",
        "c3 swap",
        """
        4  . . . .
        3  . . . .
        2  . o . .
        1  . . . .
        """,
        BLACK,
        None,
    ),
]


@pytest.mark.parametrize(
    ("title", "moves", "board", "to_move", "winner"), EXAMPLES, ids=[e[0][:1] for e in EXAMPLES]
)
def test_worked_example(
    title: str, moves: str, board: str, to_move: int | None, winner: int | None
) -> None:
    game = Brique(size=4)
    tokens = moves.split()
    for k, token in enumerate(tokens, 1):
        game.play_text(token, "native")
        if k < len(tokens):
            assert game.outcome() is None, f"{title}: over after {k} moves"
    assert picture(game) == diagram_text(board), title
    outcome = game.outcome()
    if winner is None:
        assert outcome is None
        assert game.to_move == to_move
    else:
        assert outcome is not None and outcome.winner == winner
        assert "Black" in outcome.reason
        assert game.legal_moves() == []
    # the reference agrees on every example
    ref = Reference(4, True)
    for token in tokens:
        ref = ref.play(token)
    glyph = {"x": BLACK, "o": WHITE}
    assert {(f, r): glyph[c] for (f, r), c in ref.board.items()} == {
        (f, r): game.stone(f, r) for f in range(4) for r in range(4) if game.stone(f, r) >= 0
    }


def test_example_4_fills_move_by_move() -> None:
    """b2 fills b1, c3 fills c2, d4 fills d3 replacing White's stone."""
    game = Brique(size=4)
    expected = {"a1": [], "d1": [], "b2": ["b1"], "a4": [], "c3": ["c2"], "d3": [], "d4": ["d3"]}
    for token, fills in expected.items():
        before = game.cells()
        game.play_text(token, "native")
        changed = [i for i, (a, b) in enumerate(zip(before, game.cells(), strict=True)) if a != b]
        assert sorted(game.format_move(BriqueMove(i)) for i in changed) == sorted([token, *fills])
    assert game.outcome() is not None and game.outcome().winner == BLACK  # type: ignore[union-attr]


def test_undo_restores_a_removed_stone() -> None:
    game = Brique(size=4)
    play(game, "b2 c2")
    before = state(game)
    game.play_text("c3")
    assert game.stone(2, 1) == BLACK
    assert game.undo() == game.parse_move("c3")
    assert game.stone(2, 1) == WHITE
    assert state(game) == before


def test_undo_of_the_winning_move_and_of_swap() -> None:
    game = Brique(size=4)
    play(game, "a1 d1 b2 a4 c3 d3")
    before = state(game)
    game.play_text("d4")
    assert game.is_over()
    game.undo()
    assert state(game) == before and not game.is_over()
    assert game.stone(3, 2) == WHITE  # d3 is White again
    fresh = Brique(size=4)
    play(fresh, "c3")
    before = state(fresh)
    fresh.play_text("swap")
    assert fresh.undo() == SWAP
    assert state(fresh) == before


def test_swap_on_11x11_puts_white_on_h6() -> None:
    game = Brique()
    play(game, "f4 swap", "gtp")
    stones = {(f, r): game.stone(f, r) for f in range(11) for r in range(11)}
    assert {sq: c for sq, c in stones.items() if c >= 0} == {(7, 5): WHITE}
    assert game.to_move == BLACK
    assert game.format_move(game.history[1]) == "swap"


def test_swap_on_the_diagonal_changes_colour_in_place() -> None:
    game = Brique(size=5)
    play(game, "a5 swap")  # a5 = (0, 4) -> (0, 4)
    assert game.stone(0, 4) == WHITE
    assert sum(c >= 0 for c in game.cells()) == 1


@pytest.mark.parametrize(
    ("options", "moves", "why"),
    [
        ({}, "", "White's first turn"),
        ({}, "c3 swap", "White's first turn"),
        ({}, "c3 d4", "White's first turn"),
        ({}, "c3 d4 a1", "White's first turn"),
        ({"pie": "off"}, "c3", "pie option is off"),
    ],
)
def test_swap_is_illegal_elsewhere(options: dict[str, str], moves: str, why: str) -> None:
    game = Brique(size=4, **options)
    play(game, moves)
    before = state(game)
    assert SWAP not in game.legal_moves()
    with pytest.raises(IllegalMoveError, match=why):
        game.play_text("swap")
    with pytest.raises(IllegalMoveError, match=why):
        game.play_text("swap-pieces")
    assert state(game) == before


def test_swap_is_legal_exactly_on_whites_first_turn() -> None:
    game = Brique(size=4)
    play(game, "c3")
    assert game.legal_moves().count(SWAP) == 1
    assert len(game.legal_moves()) == 16  # 15 squares and swap


# -------------------------------------------------------------------------------- tokens


@pytest.mark.parametrize(
    "token", ["", "zz99", "a0", "a5", "e1", "+", "-", "!", "a1a1", "swap-", "pass", "1a", "a01"]
)
def test_bad_tokens_name_the_token(token: str) -> None:
    game = Brique(size=4)
    play(game, "b2")
    before = state(game)
    for notation in ("gtp", "native"):
        with pytest.raises(MoveSyntaxError, match="invalid move") as info:
            game.play_text(token, notation)
        assert repr(token) in str(info.value)
    assert state(game) == before


def test_tokens_case_aliases_and_notations() -> None:
    game = Brique()
    assert game.parse_move("SWAP") == game.parse_move("swap-pieces") == SWAP
    assert game.parse_move("Swap-Pieces", "native") == SWAP
    assert game.format_move(SWAP, "native") == "swap"
    # column index 8: gtp j, native i; gtp has no i
    assert game.parse_move("j1", "gtp") == game.parse_move("i1", "native") == BriqueMove(8)
    assert game.parse_move("l11", "gtp") == game.parse_move("k11", "native") == BriqueMove(120)
    with pytest.raises(MoveSyntaxError):
        game.parse_move("i1", "gtp")
    with pytest.raises(MoveSyntaxError):
        game.parse_move("l1", "native")
    assert game.format_move(BriqueMove(8), "gtp") == "j1"
    assert game.format_move(BriqueMove(8), "native") == "i1"


def test_occupied_square_is_rejected_with_reason() -> None:
    game = Brique(size=4)
    play(game, "b2 c2 c3")  # c2 is now a filled Black square
    before = state(game)
    for token in ("c2", "b2", "C3"):
        with pytest.raises(IllegalMoveError, match=f"^{token.lower()} is occupied by Black$"):
            game.play_text(token)
    assert state(game) == before


def test_occupied_message_names_the_square_in_the_notation_of_the_move() -> None:
    game = Brique()
    play(game, "j3", "native")  # gtp k3
    with pytest.raises(IllegalMoveError, match=r"^j3 is occupied by Black$"):
        game.play_text("j3", "native")
    with pytest.raises(IllegalMoveError, match=r"^k3 is occupied by Black$"):
        game.play_text("k3", "gtp")
    assert game.illegal_reason(game.parse_move("c3")) is None
    assert game.illegal_reason(BriqueMove(121)) == "not a square of this board"


def test_no_move_after_the_win() -> None:
    game = Brique(size=4)
    play(game, "a1 d1 b2 a4 c3 d3 d4")
    before = state(game)
    with pytest.raises(IllegalMoveError, match="game over"):
        game.play_text("a2")
    assert game.illegal_reason(game.parse_move("a2")) == "the game is over"
    assert state(game) == before


def test_undo_on_a_fresh_game_raises() -> None:
    with pytest.raises(GameError):
        Brique().undo()


def test_options() -> None:
    assert Brique().options == {"size": 11, "pie": True}
    assert Brique(size="25", pie="off").options == {"size": 25, "pie": False}
    for bad in ("2", "26"):
        with pytest.raises(GameError, match="size"):
            Brique(size=bad)


# ------------------------------------------------------------------------------ board_text


def test_board_text_marks_light_dark_and_stones() -> None:
    game = Brique(size=4)
    play(game, "b2 c2")
    text = game.board_text()
    assert "" not in text.splitlines()
    rows = text.splitlines()
    assert rows[0].split() == ["a", "b", "c", "d"]
    # row 2: a2 light, b2 Black, c2 White, d2 dark (3.4)
    assert rows[3].split() == ["2", ".", "X", "O", ":", "2"]
    assert rows[4].split() == ["1", ":", ".", ":", ".", "1"]
    assert rows[-1] == "X Black (rows 1-4)  O White (columns a-d)  . light  : dark"


def test_board_text_notations_differ_past_h() -> None:
    game = Brique()
    assert "j k l" in game.board_text("gtp").splitlines()[0]
    assert "i j k" in game.board_text("native").splitlines()[0]


# ------------------------------------------------------------------------ random invariants


def escorted_by(game: Brique, square: int) -> set[int]:
    return {q for q, esc in enumerate(game.geo.escorts) if square in esc and len(esc) == 2}


def chain(game: Brique, colour: int) -> bool:
    ref = Reference(game.n, game.pie)
    glyph = {BLACK: "x", WHITE: "o"}
    board = {(i % game.n, i // game.n): glyph[c] for i, c in enumerate(game.cells()) if c >= 0}
    return ref.connected(board, glyph[colour])


@pytest.mark.parametrize(("n", "seed"), [(4, 0), (4, 1), (5, 2), (7, 3), (11, 4), (11, 5)])
def test_random_game_invariants(n: int, seed: int) -> None:
    rng = random.Random(seed)
    game = Brique(size=n)
    geo = game.geo
    while not game.is_over():
        mover = game.to_move
        before = game.cells()
        move = game.random_move(rng)
        game.play(move)
        after = game.cells()
        if move.is_swap:
            continue
        # B7 by full rescan: no square has both escorts of one colour without that colour
        for q, esc in enumerate(geo.escorts):
            if len(esc) == 2:
                for colour in (BLACK, WHITE):
                    if all(after[e] == colour for e in esc):
                        assert after[q] == colour, (game.format_move(BriqueMove(q)), colour)
        # fills never cascade: at most two, only squares the placed stone escorts
        changed = {i for i in range(n * n) if before[i] != after[i]}
        fills = changed - {move.square}
        assert len(fills) <= 2
        assert fills <= escorted_by(game, move.square)
        assert all(after[i] == mover for i in changed)
        # only the mover can win; the opponent never holds a chain
        assert not chain(game, 1 - mover)
        outcome = game.outcome()
        assert (outcome is not None) == chain(game, mover)
        if outcome is not None:
            assert outcome.winner == mover
    # no draws: every random game ends with a winner
    outcome = game.outcome()
    assert outcome is not None and outcome.winner in (BLACK, WHITE)


@pytest.mark.parametrize("n", [3, 4, 5, 6, 9])
def test_full_board_always_has_exactly_one_chain(n: int) -> None:
    """No draws: fill the whole board by the rules (ignoring the end of the game) with the
    naive reference; exactly one colour then holds a chain between its edges."""
    rng = random.Random(n)
    for _ in range(20):
        ref = Reference(n, False)
        while True:
            empty = [sq for sq in ref.squares() if sq not in ref.board]
            if not empty:
                break
            f, r = rng.choice(empty)
            ref = ref.play(f"{chr(97 + f)}{r + 1}")
            ref.winner = None
        assert ref.connected(ref.board, "x") != ref.connected(ref.board, "o")


# ----------------------------------------------------------------- fast playout vs the rules


@pytest.mark.parametrize(
    ("n", "pie", "prefix"),
    [(11, True, ""), (11, True, "f4"), (11, False, "f4"), (4, True, "b2"), (5, True, "c3 swap"),
     (7, True, "d4 c5 e5"), (3, False, "")],
)
def test_fast_playout_replays_through_play_text(n: int, pie: bool, prefix: str) -> None:
    rng = random.Random(n * 7 + len(prefix))
    game = Brique(size=n, pie=pie)
    play(game, prefix)
    before = state(game)
    for _ in range(30):
        record: list[BriqueMove] = []
        outcome = fast_playout(game, rng, record)
        assert state(game) == before
        replay = game.copy()
        for k, move in enumerate(record):
            assert replay.outcome() is None, f"game over before move {k}"
            replay.play_text(replay.format_move(move, "native"), "native")
        assert replay.outcome() == outcome


def test_fast_playout_plays_swap_about_uniformly() -> None:
    game = Brique(size=4)
    play(game, "b2")
    rng = random.Random(9)
    swaps = 0
    for _ in range(400):
        record: list[BriqueMove] = []
        fast_playout(game, rng, record)
        swaps += record[0] == SWAP
    assert 10 <= swaps <= 45  # expected 400 / 16 = 25


def test_random_playout_statistics_match_the_generic_loop() -> None:
    """Black's win rate from the empty 5x5 board, fast path vs. the contract's loop."""
    game = Brique(size=5, pie=False)
    rng = random.Random(4)
    runs = 600
    fast = sum(game.random_playout(rng).winner == BLACK for _ in range(runs))
    slow = 0
    for _ in range(runs):
        copy = game.copy()
        while copy.outcome() is None:
            copy.play(copy.random_move(rng))
        slow += copy.outcome().winner == BLACK  # type: ignore[union-attr]
    assert abs(fast - slow) < 90  # about 4.5 standard deviations of the difference


def test_copy_is_independent() -> None:
    game = Brique(size=5)
    play(game, "c3 swap b2")
    clone = game.copy()
    clone.play_text("d4")
    clone.undo()
    clone.undo()
    assert len(game.history) == 3 and len(clone.history) == 2
    assert game.stone(1, 1) == BLACK and clone.stone(1, 1) == -1


# ------------------------------------------------------------------------ perft cross-check


def reference_perft(case: PerftCase) -> int:
    ref = Reference(int(case.options["size"]), case.options["pie"] == "on")
    for token in case.moves:
        ref = ref.play(token)
    return ref.perft(case.depth)


PERFT_CASES = read_perft_file(PERFT_DIR / "brique.perft")
#: Lines the naive reference can recompute quickly; the rest run behind the slow marker.
CHEAP = [c for c in PERFT_CASES if not c.slow and c.nodes <= 20_000]
DEAR = [c for c in PERFT_CASES if c not in CHEAP and c.nodes <= 200_000]


def test_perft_file_covers_the_issue() -> None:
    sizes = {(c.options["size"], c.options["pie"]) for c in PERFT_CASES if not c.slow}
    assert {(s, p) for s in ("4", "5", "11") for p in ("on", "off")} <= sizes
    assert Path(PERFT_DIR / "brique.perft").exists()


@pytest.mark.parametrize("case", CHEAP, ids=lambda c: f"line{c.line}")
def test_perft_file_matches_reference(case: PerftCase) -> None:
    assert reference_perft(case) == case.nodes


@pytest.mark.slow
@pytest.mark.parametrize("case", DEAR, ids=lambda c: f"line{c.line}")
def test_perft_file_matches_reference_slow(case: PerftCase) -> None:
    assert reference_perft(case) == case.nodes


@pytest.mark.parametrize(("n", "pie", "depth"), [(3, True, 4), (4, False, 3), (6, True, 2)])
def test_engine_perft_matches_reference(n: int, pie: bool, depth: int) -> None:
    assert Brique(size=n, pie=pie).perft(depth) == Reference(n, pie).perft(depth)


# ----------------------------------------------------------------- an extra stone never hurts


def with_stone(game: Brique, square: int, colour: int) -> Brique:
    """``game`` with one more stone of ``colour`` on the empty ``square``, and the fills it
    forces (only ever ``colour``'s), the same side to move."""
    from engine.games.position_text import encode_board

    n = game.n
    cells = list(game.cells())
    cells[square] = colour
    for partner, target in game.geo.fills[square]:  # fills never cascade (B7)
        if cells[partner] == colour:
            cells[target] = colour
    codes = {BLACK: "x", WHITE: "o"}
    rows = [[codes.get(cells[r * n + f]) for f in range(n)] for r in reversed(range(n))]
    side = "bw"[game.to_move]
    return Brique.from_position_string(f"{encode_board(rows)} {side} -", pie=False)


@pytest.mark.parametrize(("n", "seed", "plies"), [(4, 6, (4, 8)), (5, 7, (11, 15))])
def test_an_extra_stone_never_hurts_its_owner(n: int, seed: int, plies: tuple[int, int]) -> None:
    """Monotony, the lemma some results on 6x6 stand on (docs/solved.md, with its proof): a
    position is worth at least as much to a player with one more stone of theirs on it (and
    the fills that stone forces), whoever is to move. Random positions of 4x4 and 5x5 without
    the pie rule, each empty square, each colour, by exhaustive minimax."""
    from engine.games.core import PositionError
    from engine.search.solve import minimax

    memo: dict[str, int] = {}

    def value(game: Brique, player: int) -> int:
        outcome = game.outcome()
        if outcome is not None:
            return 1 if outcome.winner == player else -1
        v = minimax(game, memo)
        return v if game.to_move == player else -v

    rng = random.Random(seed)
    seen: dict[tuple[int, int], int] = {}
    for _ in range(4):
        game = Brique(size=n, pie=False)
        for _ in range(rng.randrange(*plies)):
            if game.is_over():
                break
            game.play(game.random_move(rng))
        if game.is_over():
            continue
        for colour in (BLACK, WHITE):
            before = value(game, colour)
            for square in range(n * n):
                if game.cells()[square] != EMPTY:
                    continue
                try:
                    more = with_stone(game, square, colour)
                except PositionError:
                    continue  # the mover already connected: not a position of the game
                after = value(more, colour)
                assert after >= before, (game.position_string(), square, colour)
                seen[(before, after)] = seen.get((before, after), 0) + 1
    # both values occur, and some extra stones turn a loss into a win
    assert seen.get((-1, 1), 0) > 0 and seen.get((1, 1), 0) > 0 and seen.get((-1, -1), 0) > 0
