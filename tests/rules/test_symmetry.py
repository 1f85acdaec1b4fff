"""Which board symmetries the rules preserve (the solver folds Flicker's, Trisq's half turn
and Bricka's into its table: docs/design/kernels.md, "The solver"), and that the swap of
Brique and of Flicker changes sides exactly (the solver uses it in the pie rule's positions).

Flicker's rules are symmetric under the mirrors and the half turn of the board (each player's
edges map to themselves); with the pie rule the swap (a reflection in the diagonal) commutes
with the half turn only. Brique's square colours and fill directions break the half turn and
the mirrors: solved first moves of 3x3 differ from their images."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from engine.games.grid import coords, index, swap_mirror
from engine.games.registry import new_game

N = 5


def half_turn(f: int, r: int) -> tuple[int, int]:
    return N - 1 - f, N - 1 - r


def left_right(f: int, r: int) -> tuple[int, int]:
    return N - 1 - f, r


def up_down(f: int, r: int) -> tuple[int, int]:
    return f, N - 1 - r


def image(move: Any, sym: Callable[[int, int], tuple[int, int]]) -> Any:
    kind, point = move
    if point is None or point < 0:
        return move
    return type(move)(kind, index(*sym(*coords(point, N)), N))


def mirrored_games_agree(sym: Callable[[int, int], tuple[int, int]], pie: bool,
                         seed: int, games: int) -> bool:
    rng = random.Random(seed)
    for _ in range(games):
        game = new_game("flicker", size=N, pie=pie)
        other = new_game("flicker", size=N, pie=pie)
        while game.outcome() is None:
            legal = {image(m, sym) for m in game.legal_moves()}
            if legal != set(other.legal_moves()):
                return False
            moves = game.legal_moves()
            swaps = [m for m in moves if m.kind == "swap"]
            move = swaps[0] if swaps else rng.choice(moves)  # the swap whenever it is legal
            game.play(move)
            other.play(image(move, sym))
            a, b = game.outcome(), other.outcome()
            if (a is None) != (b is None) or (a is not None and b is not None
                                               and a.winner != b.winner):
                return False
    return True


@pytest.mark.parametrize("sym", [half_turn, left_right, up_down])
def test_flicker_symmetries_without_pie(sym: Callable[[int, int], tuple[int, int]]) -> None:
    assert mirrored_games_agree(sym, pie=False, seed=1, games=20)


def test_flicker_with_pie_keeps_the_half_turn_only() -> None:
    assert mirrored_games_agree(half_turn, pie=True, seed=2, games=20)
    assert not mirrored_games_agree(left_right, pie=True, seed=2, games=20)


@pytest.mark.parametrize("sym", [half_turn, left_right, up_down])
def test_brique_first_moves_are_not_symmetric(sym: Callable[[int, int], tuple[int, int]]) -> None:
    pytest.importorskip("numba")
    from engine.search.solve import Solver

    global N
    game = new_game("brique", size=3, pie=False)
    solver = Solver(game, memory_mb=8)
    values = {}
    for f in range(3):
        for r in range(3):
            after = game.copy()
            after.play(after.parse_move(f"{'abc'[f]}{r + 1}"))
            values[(f, r)] = solver.solve(after).value
    saved, N = N, 3
    try:
        assert any(values[sym(f, r)] != values[(f, r)] for f, r in values)
    finally:
        N = saved


@pytest.mark.parametrize(("size", "seed"), [(4, 3), (5, 4), (6, 5)])
def test_brique_swap_changes_sides_exactly(size: int, seed: int) -> None:
    """Brique's swap is the game seen from the other side: after ``m swap`` (White's stone on
    the reflection of m in the NW-SE diagonal, Black to move) every position of the game is
    the image of the game after ``m`` without the pie rule (White to move), each square
    reflected and each colour changed: the same legal moves, stones and winner, seen from
    the other side. The solver decides the pie rule's positions by it (pie_stage)."""
    from engine.games.brique import SWAP, BriqueMove

    rng = random.Random(seed)
    cells = size * size
    mirror = [swap_mirror(i, size) for i in range(cells)]
    for _ in range(15):
        first = BriqueMove(rng.randrange(cells))
        swapped = new_game("brique", size=size, pie=True)
        swapped.play(first)
        swapped.play(SWAP)
        plain = new_game("brique", size=size, pie=False)
        plain.play(first)
        while True:
            assert swapped.to_move == 1 - plain.to_move
            assert [1 - c if c in (0, 1) else c for c in swapped.cells()] == \
                [plain.cells()[mirror[i]] for i in range(cells)]
            a, b = swapped.outcome(), plain.outcome()
            assert (a is None) == (b is None)
            if a is not None and b is not None:
                assert b.winner is not None and a.winner == 1 - b.winner  # no draws
                break
            legal = swapped.legal_moves()
            assert sorted(mirror[m.square] for m in legal) == \
                sorted(m.square for m in plain.legal_moves())
            move = rng.choice(legal)
            swapped.play(move)
            plain.play(BriqueMove(mirror[move.square]))


@pytest.mark.parametrize(("size", "fill"), [(4, False), (5, True)])
def test_flicker_swap_changes_sides_exactly(size: int, fill: bool) -> None:
    """Flicker's swap too: after ``m swap`` every position is the image of the game after
    ``m`` without the pie rule, each point reflected and each colour changed, with the same
    legal moves (placements, removals, passes) and the same result, draws by repetition
    included (the positions before the swap differ, but a position of one stone never comes
    back). Random games; with ``fill``, games from the full board of the rules' example of
    a draw: the example's flips to its draw by repetition, then random ones."""
    from engine.games.flicker import PLACE, SWAP_MOVE, FlickerMove
    from tests.rules.test_flicker import EXAMPLE_4_CYCLE, EXAMPLE_4_FILL

    rng = random.Random(size)
    points = size * size
    mirror = [swap_mirror(i, size) for i in range(points)]

    def image(move: FlickerMove) -> FlickerMove:
        return move if move.point < 0 else FlickerMove(move.kind, mirror[move.point])

    def stones(game: Any, mapped: bool) -> list[int | None]:
        at = [game.stone(*coords(mirror[i] if mapped else i, size)) for i in range(points)]
        return [None if c is None else (c if mapped else 1 - c) for c in at]

    results = set()
    for game in range(20):
        # the first game from the full board ends as the example does: a draw
        cycle = EXAMPLE_4_CYCLE.split() if fill and game == 0 else []
        plain = new_game("flicker", size=size, pie=False)
        opening = [plain.parse_move(t, "native") for t in EXAMPLE_4_FILL.split()] if fill \
            else [FlickerMove(PLACE, rng.randrange(points))]
        swapped = new_game("flicker", size=size, pie=True)
        swapped.play(opening[0])
        swapped.play(SWAP_MOVE)
        plain.play(opening[0])
        for move in opening[1:]:
            plain.play(move)
            swapped.play(image(move))
        while True:
            assert swapped.to_move == 1 - plain.to_move
            assert stones(swapped, False) == stones(plain, True)
            a, b = swapped.outcome(), plain.outcome()
            assert (a is None) == (b is None)
            if a is not None and b is not None:
                assert (a.winner is None) == (b.winner is None)
                assert b.winner is None or a.winner == 1 - b.winner
                results.add(b.winner)
                break
            legal = plain.legal_moves()
            assert sorted(image(m) for m in swapped.legal_moves()) == sorted(legal)
            move = rng.choice(legal) if not cycle else plain.parse_move(cycle.pop(0), "native")
            plain.play(move)
            swapped.play(image(move))
    if fill:
        assert None in results  # the example's draw by repetition


# --------------------------------------------------------------------------------------------
# Trisq: the pieces are one chiral trapezium, turned but never reflected (rulings T2, T5), so
# the half turn and the quarter turns of the board map pieces to pieces and the mirrors do
# not. The half turn keeps each player's edges; a quarter turn exchanges them (Red's bottom
# and top become the right and left sides), so it is a symmetry with the colours exchanged,
# apart from Red's single first placement. The solver folds the half turn
# (engine/search/kernels/trisq.py, ``_key``).

TRISQ_N = 4
SIDE = 4 * TRISQ_N  # the board's side in polygon units

TRISQ_MAPS: dict[str, Callable[[int, int], tuple[int, int]]] = {
    "half turn": lambda x, y: (SIDE - x, SIDE - y),
    "quarter turn": lambda x, y: (SIDE - y, x),  # anticlockwise
    "left-right": lambda x, y: (SIDE - x, y),
    "up-down": lambda x, y: (x, SIDE - y),
}


def trisq_outlines(n: int) -> dict[frozenset[tuple[int, int]], int]:
    """Each slot of the n x n board by the corners of its piece, in board units."""
    from engine.games.trisq_geometry import PIECES, slot_parts

    outlines = {}
    for slot in range(8 * n * n):
        f, r, o, c = slot_parts(slot, n)
        outlines[frozenset((x + 4 * f, y + 4 * r) for x, y in PIECES[o][c])] = slot
    return outlines


def trisq_slot_map(name: str) -> list[int] | None:
    """The image of each slot under the board map ``name``, from the piece polygons; None
    when some piece's image is no piece."""
    outlines = trisq_outlines(TRISQ_N)
    image = [-1] * len(outlines)
    for corners, slot in outlines.items():
        mapped = frozenset(TRISQ_MAPS[name](x, y) for x, y in corners)
        if mapped not in outlines:
            return None
        image[slot] = outlines[mapped]
    return image


def test_trisq_turns_map_pieces_to_pieces_and_mirrors_do_not() -> None:
    from engine.games.trisq_geometry import BOTTOM, LEFT, RIGHT, TOP, geometry

    geo = geometry(TRISQ_N)
    sides = {"half turn": {BOTTOM: TOP, TOP: BOTTOM, LEFT: RIGHT, RIGHT: LEFT},
             "quarter turn": {BOTTOM: RIGHT, RIGHT: TOP, TOP: LEFT, LEFT: BOTTOM}}
    for name, edges in sides.items():
        image = trisq_slot_map(name)
        assert image is not None and sorted(image) == list(range(8 * TRISQ_N**2))
        # the adjacencies (computed from the polygons) and the board edges go along
        for a in range(len(image)):
            assert sorted(image[b] for b in geo.edge_adj[a]) == sorted(geo.edge_adj[image[a]])
            assert sorted((image[b], sorted(image[x] for x in bridges))
                          for b, bridges in geo.point_adj[a]) == \
                sorted((b, sorted(bridges)) for b, bridges in geo.point_adj[image[a]])
            bits = sum(edges[bit] for bit in edges if geo.touches[a] & bit)
            assert geo.touches[image[a]] == bits
    assert trisq_slot_map("left-right") is None
    assert trisq_slot_map("up-down") is None


def test_trisq_games_turned_half_round_are_games() -> None:
    """Random games and their images under the half turn: the same legal turns (mapped),
    the same player to move and the same winner at every turn."""
    image = trisq_slot_map("half turn")
    assert image is not None
    rng = random.Random(6)
    for _ in range(8):
        game = new_game("trisq", size=TRISQ_N)
        trisq_play_along(game, new_game("trisq", size=TRISQ_N), image, rng, exchanged=False)


def trisq_play_along(
    game: Any, other: Any, image: list[int], rng: random.Random, exchanged: bool
) -> int | None:
    """Play ``game`` to its end by random turns and ``other`` by their images, checking at
    every turn that the legal turns are the images of ``game``'s, and that the player to
    move and the winner are the same (``exchanged``: the other player); ``game``'s winner."""
    while game.outcome() is None:
        legal = {tuple(sorted(image[p] for p in m)) for m in game.legal_moves()}
        assert legal == {tuple(sorted(m)) for m in other.legal_moves()}
        move = game.random_move(rng)
        game.play(move)
        other.play(tuple(image[p] for p in move))
        assert other.to_move == (1 - game.to_move if exchanged else game.to_move)
        a, b = game.outcome(), other.outcome()
        assert (a is None) == (b is None)
    a, b = game.outcome(), other.outcome()
    assert a is not None and b is not None and a.winner is not None
    assert b.winner == (1 - a.winner if exchanged else a.winner)
    return a.winner


def trisq_turned(game: Any, image: list[int]) -> Any:
    """The position of ``game`` (after Red's first turn) with every piece mapped by
    ``image`` and its colour exchanged, the other player to move."""
    from engine.games.position_text import encode_board
    from engine.games.trisq import Trisq
    from engine.games.trisq_geometry import ORIENTATIONS, slot_index

    n = game.n
    colours = [-1] * (8 * n * n)
    for slot, colour in enumerate(game.slot_colours()):
        if colour >= 0:
            colours[image[slot]] = 1 - colour
    rows: list[list[str | None]] = []
    for r in reversed(range(n)):
        row: list[str | None] = []
        for f in range(n):
            cell = None
            for o in range(2):
                base = slot_index(f, r, o, 0, n)
                if any(colours[base + c] >= 0 for c in range(4)):
                    cell = ORIENTATIONS[o] + "".join(".rb"[colours[base + c] + 1]
                                                     for c in range(4))
            row.append(cell)
        rows.append(row)
    return Trisq.from_position_string(f"{encode_board(rows)} {'rb'[1 - game.to_move]} -")


def test_trisq_quarter_turn_with_the_colours_exchanged_keeps_the_game() -> None:
    """After Red's first turn the rules are the same for both players, so a position turned
    a quarter round with the colours exchanged (Red's edges go to Blue's) is the same game
    seen from the other side: the same legal turns (mapped) and the other player winning,
    along random games."""
    image = trisq_slot_map("quarter turn")
    assert image is not None
    rng = random.Random(8)
    wins = set()
    for _ in range(8):
        game = new_game("trisq", size=TRISQ_N)
        game.play(game.random_move(rng))
        other = trisq_turned(game, image)
        wins.add(trisq_play_along(game, other, image, rng, exchanged=True))
    assert wins == {0, 1}


# --------------------------------------------------------------------------------------------
# Bricka: both players have the same goal (any pair of opposite sides) and the same rules, so
# the symmetries of its board (tests/rules/test_bricka.py: the half turn and the two mirrors
# through g7) are symmetries of the game, the colours kept. The solver folds them
# (engine/search/kernels/bricka.py, ``_key``).

BRICKA_MAPS: dict[str, Callable[[int, int], tuple[int, int]]] = {
    "half turn": lambda f, r: (12 - f, 12 - r),
    "left-right": lambda f, r: (12 - f, r),
    "up-down": lambda f, r: (f, 12 - r),
}


def bricka_point_map(name: str) -> list[int]:
    from engine.games import bricka_board as bb

    return [bb.INDEX[BRICKA_MAPS[name](f, r)] for f, r in bb.POINTS]


@pytest.mark.parametrize("name", BRICKA_MAPS)
def test_bricka_games_mapped_by_the_board_symmetries_are_games(name: str) -> None:
    """Random games and their images: the same legal moves (mapped), the same pieces (each
    mapped, neutral ones too) and the same result at every turn."""
    from engine.games.bricka import PASS

    image = bricka_point_map(name)

    def mapped(move: int) -> int:
        return move if move == PASS else image[move]

    rng = random.Random(9)
    for _ in range(6):
        game = new_game("bricka")
        other = new_game("bricka")
        while game.outcome() is None:
            assert {mapped(m) for m in game.legal_moves()} == set(other.legal_moves())
            move = game.random_move(rng)
            game.play(move)
            other.play(mapped(move))
            assert [other.piece_at(image[p]) for p in range(69)] == \
                [game.piece_at(p) for p in range(69)]
            a, b = game.outcome(), other.outcome()
            assert (a is None) == (b is None)
            assert a is None or b is None or a.winner == b.winner


# --------------------------------------------------------------------------------------------
# Brax: the half turn of the board exchanges the colours of the lines (the only one of the
# eight symmetries of the square that maps the lines' colours onto themselves or onto their
# exchange) and maps the start onto itself with the pieces' colours exchanged. So a game and
# its image under the half turn with the colours exchanged, Blue moving first, are one game
# seen from the other side. Not folded into the solver's table (docs/design/kernels.md).

BRAX_MAPS: dict[str, Callable[[int, int], tuple[int, int]]] = {
    "half turn": lambda f, r: (8 - f, 8 - r),
    "left-right": lambda f, r: (8 - f, r),
    "up-down": lambda f, r: (f, 8 - r),
    "diagonal": lambda f, r: (r, f),
    "antidiagonal": lambda f, r: (8 - r, 8 - f),
    "quarter turn": lambda f, r: (8 - r, f),
    "three quarter turn": lambda f, r: (r, 8 - f),
}


def brax_point_map(name: str) -> list[int]:
    from engine.games import brax_board as bb

    return [bb.index(*BRAX_MAPS[name](p % 9, p // 9)) for p in range(bb.POINTS)]


def test_brax_lines_keep_their_colours_only_under_the_half_turn_exchanged() -> None:
    from engine.games import brax_board as bb

    found = {}
    for name in BRAX_MAPS:
        image = brax_point_map(name)
        segments = [(p, q) for p in range(bb.POINTS) for q in bb.NEIGHBOURS[p]]
        assert all(image[q] in bb.NEIGHBOURS[image[p]] for p, q in segments)
        changed = {bb.segment_colour(p, q) != bb.segment_colour(image[p], image[q])
                   for p, q in segments}
        found[name] = changed
    assert found == {name: ({True} if name == "half turn" else {True, False})
                     for name in BRAX_MAPS}


def test_brax_games_turned_half_round_with_the_colours_exchanged_are_games() -> None:
    """Random games from the start, Red first, and their images, Blue first: the same legal
    turns (mapped, calls included), each piece on the image of a piece of the other colour,
    and the result with the colours exchanged, at every turn."""
    from engine.games.brax import BraxMove

    image = brax_point_map("half turn")

    def mapped(move: BraxMove) -> BraxMove:
        paths = tuple(tuple(image[p] for p in path) for path in move.paths)
        return BraxMove(paths, move.call)

    rng = random.Random(10)
    results = set()
    for _ in range(6):
        game = new_game("brax")
        other = new_game("brax", first="blue")
        while game.outcome() is None:
            legal = game.legal_moves()
            assert {mapped(m) for m in legal} == set(other.legal_moves())
            # captures first, so that games end in wins as well as draws
            enemy = set(game.pieces(1 - game.to_move))
            captures = [m for m in legal if m.paths and m.paths[0][-1] in enemy]
            move = rng.choice(captures or legal)
            game.play(move)
            other.play(mapped(move))
            assert other.to_move == 1 - game.to_move
            for player in (0, 1):
                assert sorted(image[p] for p in game.pieces(player)) == \
                    other.pieces(1 - player)
            a, b = game.outcome(), other.outcome()
            assert (a is None) == (b is None)
            if a is not None and b is not None:
                assert (a.winner is None) == (b.winner is None)
                assert a.winner is None or b.winner == 1 - a.winner
                results.add(a.winner)
    assert len(results) >= 2
