"""Tests of the Trisq rules core against docs/rules/trisq.md.

The reference used for cross-checks (:class:`Naive`) works straight from the rules text: it
decides contacts between two placed pieces from the polygons of the rules by counting the
lattice points their boundaries share (a method independent of the engine's segment
arithmetic), enumerates every slot and every pair of slots as candidate turns, applies them,
and rescans every pair of the mover's pieces for the end-of-turn restriction.
"""

from __future__ import annotations

import random
import time
from functools import cache
from itertools import combinations

import pytest

from engine.games.core import Game, GameError, IllegalMoveError, MoveSyntaxError
from engine.games.trisq import Trisq
from engine.games.trisq_geometry import (
    CORNERS,
    ORIENTATIONS,
    PIECES,
    area,
    contact,
    geometry,
    relative_contact,
    slot_index,
)
from tests.perft_file import PERFT_DIR, read_perft_file

Slot = tuple[int, int, int, int]  # f, r, o, c

# --------------------------------------------------------------------------- naive reference


def _on_segment(px: int, py: int, a: tuple[int, int], b: tuple[int, int]) -> bool:
    (ax, ay), (bx, by) = a, b
    if (bx - ax) * (py - ay) - (by - ay) * (px - ax) != 0:
        return False
    return min(ax, bx) <= px <= max(ax, bx) and min(ay, by) <= py <= max(ay, by)


def _boundary_points(poly: tuple[tuple[int, int], ...], dx: int, dy: int) -> set[tuple[int, int]]:
    pts = [(x + dx, y + dy) for x, y in poly]
    found = set()
    for x in range(min(p[0] for p in pts), max(p[0] for p in pts) + 1):
        for y in range(min(p[1] for p in pts), max(p[1] for p in pts) + 1):
            if any(_on_segment(x, y, pts[i], pts[(i + 1) % len(pts)]) for i in range(len(pts))):
                found.add((x, y))
    return found


@cache
def naive_contact(a: Slot, b: Slot) -> str | None:
    """Contact of two placed pieces from the polygons: the boundaries of two non-overlapping
    polygons with integer vertices meet at vertices and along collinear runs between
    vertices, so one shared lattice point means a point contact and two or more an edge."""
    if a == b:
        return None
    fa, ra, oa, ca = a
    fb, rb, ob, cb = b
    if (fa, ra) == (fb, rb) and oa != ob:
        return None  # cannot coexist
    shared = _boundary_points(PIECES[oa][ca], 4 * fa, 4 * ra) & _boundary_points(
        PIECES[ob][cb], 4 * fb, 4 * rb
    )
    if not shared:
        return None
    return "point" if len(shared) == 1 else "edge"


def naive_touches(slot: Slot, n: int) -> set[str]:
    """T6: the named corner on the board edge."""
    f, r, _, c = slot
    name = CORNERS[c]
    edges = set()
    if name[0] == "s" and r == 0:
        edges.add("bottom")
    if name[0] == "n" and r == n - 1:
        edges.add("top")
    if name[1] == "w" and f == 0:
        edges.add("left")
    if name[1] == "e" and f == n - 1:
        edges.add("right")
    return edges


class Naive:
    """A slow Trisq position: pieces {slot: colour}, the player to move, the turn count."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.pieces: dict[Slot, int] = {}
        self.to_move = 0
        self.turns = 0
        self.winner: int | None = None

    def orientation(self, f: int, r: int) -> int | None:
        for (g, s, o, _), _colour in self.pieces.items():
            if (g, s) == (f, r):
                return o
        return None

    def free_slots(self) -> list[Slot]:
        n = self.n
        slots = []
        for r in range(n):
            for f in range(n):
                current = self.orientation(f, r)
                for o in (0, 1):
                    if current is not None and current != o:
                        continue
                    for c in range(4):
                        if (f, r, o, c) not in self.pieces:
                            slots.append((f, r, o, c))
        return slots

    def restriction_holds(self, colour: int) -> bool:
        mine = [s for s, c in self.pieces.items() if c == colour]
        for a, b in combinations(mine, 2):
            if abs(a[0] - b[0]) > 1 or abs(a[1] - b[1]) > 1:
                continue  # pieces lie in their squares
            if naive_contact(a, b) == "point" and not any(
                naive_contact(a, x) == "edge" and naive_contact(b, x) == "edge" for x in mine
            ):
                return False
        return True

    def connected(self, colour: int) -> bool:
        goal = ("bottom", "top") if colour == 0 else ("left", "right")
        mine = [s for s, c in self.pieces.items() if c == colour]
        start = [s for s in mine if goal[0] in naive_touches(s, self.n)]
        seen = set(start)
        while start:
            a = start.pop()
            if goal[1] in naive_touches(a, self.n):
                return True
            for b in mine:
                if b not in seen and naive_contact(a, b) == "edge":
                    seen.add(b)
                    start.append(b)
        return False

    def legal_turns(self) -> list[tuple[Slot, ...]]:
        if self.winner is not None:
            return []
        free = self.free_slots()
        candidates: list[tuple[Slot, ...]] = [(s,) for s in free]
        if self.turns > 0:
            candidates += [
                (a, b)
                for a, b in combinations(free, 2)
                if (a[0], a[1]) != (b[0], b[1]) or a[2] == b[2]
            ]
        legal = []
        for turn in candidates:
            for s in turn:
                self.pieces[s] = self.to_move
            if self.restriction_holds(self.to_move):
                legal.append(turn)
            for s in turn:
                del self.pieces[s]
        return legal

    def play(self, turn: tuple[Slot, ...]) -> None:
        for s in turn:
            self.pieces[s] = self.to_move
        if self.connected(self.to_move):
            self.winner = self.to_move
        self.to_move = 1 - self.to_move
        self.turns += 1

    def perft(self, depth: int) -> int:
        if depth == 0 or self.winner is not None:
            return 1
        turns = self.legal_turns()
        if depth == 1:
            return len(turns)
        total = 0
        for turn in turns:
            saved = dict(self.pieces), self.to_move, self.turns, self.winner
            self.play(turn)
            total += self.perft(depth - 1)
            self.pieces, self.to_move, self.turns, self.winner = saved
        return total


def parse_slot(token: str) -> Slot:
    f = "abcdefghijklmnopqrs".index(token[0])
    r = int(token[1:-3]) - 1
    return f, r, ORIENTATIONS.index(token[-3]), CORNERS.index(token[-2:])


def naive_from(game: Trisq) -> Naive:
    naive = Naive(game.n)
    replay = Trisq(size=game.n)
    for move in game.history:
        naive.play(tuple(parse_slot(t) for t in replay.format_move(move, "native").split("+")))
        replay.play(move)
    return naive


def naive_tokens(naive: Naive) -> set[str]:
    def tok(s: Slot) -> str:
        f, r, o, c = s
        return f"{'abcdefghijklmnopqrs'[f]}{r + 1}{ORIENTATIONS[o]}{CORNERS[c]}"

    return {"+".join(sorted(tok(s) for s in turn)) for turn in naive.legal_turns()}


def engine_tokens(game: Trisq) -> set[str]:
    return {
        "+".join(sorted(game.format_move(m, "native").split("+"))) for m in game.legal_moves()
    }


def play_all(game: Trisq, tokens: str) -> None:
    for token in tokens.split():
        game.play_text(token, "native")


# ------------------------------------------------------------------------------ geometry

NAMES = {"sw": 0, "se": 1, "nw": 2, "ne": 3}

# docs/rules/trisq.md#geometry, which pieces touch: (offset of t from s, orientations (s, t),
# edge pairs, point pairs).
ADJACENCY_TABLE = [
    ((0, 0), "hh", "sw-se sw-nw sw-ne se-ne nw-ne", ""),
    ((0, 0), "vv", "sw-se sw-nw se-nw se-ne nw-ne", ""),
    ((1, 0), "hh", "se-sw ne-nw", "se-nw ne-sw"),
    ((1, 0), "hv", "se-sw ne-sw ne-nw", ""),
    ((1, 0), "vh", "se-sw ne-sw ne-nw", ""),
    ((1, 0), "vv", "se-sw ne-sw ne-nw", ""),
    ((0, 1), "hh", "nw-sw nw-se ne-se", ""),
    ((0, 1), "hv", "nw-sw nw-se ne-se", ""),
    ((0, 1), "vh", "nw-sw nw-se ne-se", ""),
    ((0, 1), "vv", "nw-sw ne-se", "nw-se ne-sw"),
    ((1, 1), "hh", "", "ne-sw"),
    ((1, 1), "hv", "", "ne-sw"),
    ((1, 1), "vh", "", "ne-sw"),
    ((1, 1), "vv", "", "ne-sw"),
    ((-1, 1), "hh", "", "nw-se"),
    ((-1, 1), "hv", "", "nw-se"),
    ((-1, 1), "vh", "", "nw-se"),
    ((-1, 1), "vv", "", "nw-se"),
]


def _pairs(text: str, same_square: bool) -> set[tuple[int, int]]:
    found = set()
    for item in text.split():
        a, b = item.split("-")
        found.add((NAMES[a], NAMES[b]))
        if same_square:
            found.add((NAMES[b], NAMES[a]))
    return found


@pytest.mark.parametrize("offset,orients,edges,points", ADJACENCY_TABLE)
def test_adjacency_table_is_what_the_polygons_give(
    offset: tuple[int, int], orients: str, edges: str, points: str
) -> None:
    df, dr = offset
    oa, ob = ORIENTATIONS.index(orients[0]), ORIENTATIONS.index(orients[1])
    same = offset == (0, 0)
    got_edges = set()
    got_points = set()
    for ca in range(4):
        for cb in range(4):
            kind = relative_contact(df, dr, oa, ca, ob, cb)
            # the independent lattice-point method agrees with the engine's arithmetic
            assert naive_contact((1, 1, oa, ca), (1 + df, 1 + dr, ob, cb)) == kind
            if kind == "edge":
                got_edges.add((ca, cb))
            elif kind == "point":
                got_points.add((ca, cb))
    assert got_edges == _pairs(edges, same)
    assert got_points == _pairs(points, same)


def test_pieces_are_congruent_quarters_of_the_square() -> None:
    for o in (0, 1):
        assert sum(area(PIECES[o][c]) for c in range(4)) == 16
        for c in range(4):
            assert area(PIECES[o][c]) == 4  # counter-clockwise, a quarter of 4x4
    # v is h turned a quarter turn anticlockwise about the centre: (x, y) -> (4 - y, x)
    turned = {c: {(4 - y, x) for x, y in PIECES[0][c]} for c in range(4)}
    assert turned[NAMES["sw"]] == set(PIECES[1][NAMES["se"]])
    assert turned[NAMES["nw"]] == set(PIECES[1][NAMES["sw"]])
    assert contact(PIECES[0][NAMES["se"]], PIECES[0][NAMES["nw"]]) is None


def test_edges_touched_follow_t6() -> None:
    n = 4
    geo = geometry(n)
    bits = {"bottom": 1, "top": 2, "left": 4, "right": 8}
    for f in range(n):
        for r in range(n):
            for o in (0, 1):
                for c in range(4):
                    want = sum(bits[e] for e in naive_touches((f, r, o, c), n))
                    assert geo.touches[slot_index(f, r, o, c, n)] == want


# docs/rules/trisq.md#bridges on a 3x3 board around the centre square s = b2 (f=1, r=1).
BRIDGE_TABLE = [
    # (s, corner), (t, corner), orientations of s, t, bridges as (square, corner)
    (((1, 1), "se"), ((2, 1), "nw"), "hh", {((1, 1), "ne"), ((2, 1), "sw")}),
    (((1, 1), "ne"), ((2, 1), "sw"), "hh", {((1, 1), "se"), ((2, 1), "nw")}),
    (((1, 1), "nw"), ((1, 2), "se"), "vv", {((1, 1), "ne"), ((1, 2), "sw")}),
    (((1, 1), "ne"), ((1, 2), "sw"), "vv", {((1, 1), "nw"), ((1, 2), "se")}),
]


@pytest.mark.parametrize("a,b,orients,bridges", BRIDGE_TABLE)
def test_side_bridges(
    a: tuple[tuple[int, int], str],
    b: tuple[tuple[int, int], str],
    orients: str,
    bridges: set[tuple[tuple[int, int], str]],
) -> None:
    geo = geometry(3)
    oa, ob = ORIENTATIONS.index(orients[0]), ORIENTATIONS.index(orients[1])
    sa = slot_index(*a[0], oa, NAMES[a[1]], 3)
    sb = slot_index(*b[0], ob, NAMES[b[1]], 3)
    got = dict(geo.point_adj[sa])[sb]
    want = {
        slot_index(f, r, oa if (f, r) == a[0] else ob, NAMES[c], 3) for (f, r), c in bridges
    }
    assert set(got) == want


@pytest.mark.parametrize("oa", [0, 1])
@pytest.mark.parametrize("ou", [0, 1])
def test_corner_bridges(oa: int, ou: int) -> None:
    """s.ne-u.sw (u north-east): E.nw and N.se in either orientation; s.nw-u.se (u
    north-west): W.ne and N.sw."""
    geo = geometry(3)
    s = (1, 1)
    sa = slot_index(1, 1, oa, NAMES["ne"], 3)
    su = slot_index(2, 2, ou, NAMES["sw"], 3)
    want = {slot_index(2, 1, o, NAMES["nw"], 3) for o in (0, 1)}
    want |= {slot_index(1, 2, o, NAMES["se"], 3) for o in (0, 1)}
    assert set(dict(geo.point_adj[sa])[su]) == want
    sa = slot_index(*s, oa, NAMES["nw"], 3)
    su = slot_index(0, 2, ou, NAMES["se"], 3)
    want = {slot_index(0, 1, o, NAMES["ne"], 3) for o in (0, 1)}
    want |= {slot_index(1, 2, o, NAMES["sw"], 3) for o in (0, 1)}
    assert set(dict(geo.point_adj[sa])[su]) == want


def test_every_point_pair_has_two_bridge_squares() -> None:
    geo = geometry(5)
    for a, b, bridges in geo.point_pairs:
        assert len({(x >> 3, x & 3) for x in bridges}) == 2, (a, b)


# ------------------------------------------------------------------------ worked examples

EXAMPLE_2 = [
    ("d3hnw", "c3hse and d3hnw"),
    ("d3hnw+d3hsw", None),
    ("d3hnw+c3hne", None),
    ("d3vnw", None),
    ("c3vne", "c3 is already oriented h"),
]


def test_example_1_first_turn_is_one_piece() -> None:
    game = Trisq()
    with pytest.raises(IllegalMoveError, match="first turn"):
        game.play_text("c3hse+c3hne")
    assert game.history == []
    game.play_text("c3hse")
    assert game.to_move == 1


@pytest.mark.parametrize("token,problem", EXAMPLE_2)
def test_example_2_restriction(token: str, problem: str | None) -> None:
    game = Trisq()
    play_all(game, "c3hse h8hne")
    reason = game.illegal_reason(game.parse_move(token))
    if problem is None:
        assert reason is None
    else:
        assert reason is not None
        for word in problem.split(" and "):
            assert word in reason
        before = game.board_text()
        with pytest.raises(IllegalMoveError):
            game.play_text(token)
        assert game.board_text() == before and len(game.history) == 2


@pytest.mark.parametrize("token,legal", [("c3hne+d3hsw", False), ("c3hne+d3hnw", True)])
def test_example_3_no_crossing(token: str, legal: bool) -> None:
    game = Trisq()
    play_all(game, "c3hse")
    assert game.is_legal(game.parse_move(token)) is legal


EXAMPLE_4 = (
    "b1vsw d4hne b1vnw+b2vsw d3hne b2vnw+b3vsw d2hne b3vnw+b4vsw d1hne b4vnw".split()
)


def test_example_4_red_wins() -> None:
    game = Trisq(size=4)
    for token in EXAMPLE_4[:-1]:
        game.play_text(token)
        assert game.outcome() is None
    game.play_text(EXAMPLE_4[-1])
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0 and "Red" in outcome.reason
    assert game.legal_moves() == []
    assert game.perft(3) == 1
    with pytest.raises(IllegalMoveError, match="game over"):
        game.play_text("a1hsw")
    game.undo()
    assert game.outcome() is None and game.to_move == 0
    naive = naive_from(game)
    assert not naive.connected(0)


# --------------------------------------------------------------------- tokens and errors


@pytest.mark.parametrize(
    "token",
    ["", "c3", "c3h", "c3hn", "c3xne", "c3hnn", "c9hne", "i3hne", "c0hne", "c03hne",
     "c3hne+", "+c3hne", "c3hne+d3hsw+e3hsw", "c3hne d3hsw", "pass", "swap"],
)
def test_bad_tokens(token: str) -> None:
    game = Trisq()
    with pytest.raises(MoveSyntaxError) as info:
        game.play_text(token)
    assert repr(token) in str(info.value)
    assert game.history == []


def test_tokens_round_trip_and_order() -> None:
    game = Trisq(size=10)
    game.play_text("c3hse")
    a = game.parse_move("D4VSW+c3HNE")
    assert a == game.parse_move("c3hne+d4vsw")
    assert game.format_move(a) == "c3hne+d4vsw"
    # canonical order is the slot order: rows from the bottom first
    assert game.format_move(game.parse_move("a2hsw+b1hsw")) == "b1hsw+a2hsw"
    # gtp skips i, native includes it
    j = game.parse_move("j5hne", "gtp")
    assert game.format_move(j, "native") == "i5hne"
    assert game.parse_move("i5hne", "native") == j
    with pytest.raises(MoveSyntaxError):
        game.parse_move("i5hne", "gtp")


@pytest.mark.parametrize(
    "setup,token,reason",
    [
        ("c3hse", "c3hse", "c3hse is occupied"),
        ("c3hse", "c3vsw", "c3 is already oriented h"),
        ("c3hse", "d3hsw+d3vnw", "same orientation"),
        ("c3hse", "d3hsw+d3hsw", "same slot"),
        ("c3hse", "c3hne+d3hsw", "c3hne and d3hsw"),
    ],
)
def test_illegal_moves_keep_state(setup: str, token: str, reason: str) -> None:
    game = Trisq()
    play_all(game, setup)
    before = (list(game.history), game.board_text(), sorted(game.legal_moves()))
    with pytest.raises(IllegalMoveError, match=reason):
        game.play_text(token)
    assert (list(game.history), game.board_text(), sorted(game.legal_moves())) == before


def test_colours() -> None:
    game = Trisq()
    assert game.parse_color("red") == game.parse_color("b") == 0
    assert game.parse_color("BLUE") == game.parse_color("w") == 1
    assert game.color_name(0) == "b" and game.color_name(1) == "w"
    with pytest.raises(GameError):
        game.parse_color("green")


def test_board_text() -> None:
    game = Trisq(size=4)
    play_all(game, "b2hse a4vnw+d1hne")
    text = game.board_text()
    assert "" not in text.splitlines()
    lines = text.splitlines()
    # rows 4 .. 1, two lines each, after the header
    row4_top, row4_bottom = lines[1], lines[2]
    row2_top, row2_bottom = lines[5], lines[6]
    row1_top = lines[7]
    assert row4_top.startswith(" 4  vB.") and row4_top.endswith("4")
    assert row4_bottom.split()[0] == ".."
    assert row2_top.split()[2] == "h.." and row2_bottom.split()[1] == ".R"
    assert row1_top.split()[-2] == "h.B"
    assert lines[-1].startswith("R = Red") and lines[-3] == lines[0]


# -------------------------------------------------------------------------- random games


def _random_game(seed: int, size: int) -> Trisq:
    rng = random.Random(seed)
    game = Trisq(size=size)
    naive = Naive(size)
    while game.outcome() is None:
        mover = game.to_move
        move = game.random_move(rng)
        assert game.is_legal(move)
        game.play(move)
        tokens = game.format_move(move, "native").split("+")
        naive.play(tuple(parse_slot(t) for t in tokens))
        assert naive.restriction_holds(mover), game.format_move(move)
        outcome = game.outcome()
        if outcome is None:
            assert naive.winner is None
            assert game.perft(1) > 0  # a legal turn always exists (T10)
        else:
            assert outcome.winner == mover == naive.winner  # only the mover wins, no draws
    return game


@pytest.mark.parametrize("seed", range(4))
def test_random_games_keep_the_restriction(seed: int) -> None:
    game = _random_game(seed, 5)
    assert game.outcome() is not None


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_random_games_keep_the_restriction_8x8(seed: int) -> None:
    _random_game(seed, 8)


@pytest.mark.parametrize("seed", range(3))
def test_legal_moves_match_naive_reference(seed: int) -> None:
    rng = random.Random(seed)
    game = Trisq(size=4)
    for _ in range(12):
        if game.is_over():
            break
        moves = game.legal_moves()
        assert len(moves) == len(set(moves)) == game.perft(1)
        assert all(m == tuple(sorted(m)) for m in moves)
        assert engine_tokens(game) == naive_tokens(naive_from(game))
        game.play(game.random_move(rng))


def test_perft_counts_match_on_positions_near_pieces() -> None:
    """Crowded positions where bad slots, fixers and orientation conflicts all occur."""
    rng = random.Random(7)
    for _ in range(3):
        game = Trisq(size=5)
        for _ in range(rng.randrange(6, 14)):
            if game.is_over():
                break
            game.play(game.random_move(rng))
        if not game.is_over():
            assert game.perft(1) == len(game.legal_moves()) == len(naive_tokens(naive_from(game)))


def test_legal_moves_are_fast_at_4x4() -> None:
    game = Trisq(size=4)
    game.play_text("b2hse")
    start = time.perf_counter()
    moves = game.legal_moves()
    elapsed = time.perf_counter() - start
    assert len(moves) > 5000
    assert elapsed < 0.1


def test_fast_playout_agrees_with_contract_loop() -> None:
    """The fast playout draws the same turns as random_move with the same seed, so its
    outcomes must equal those of the generic copy/random_move/play loop."""
    for size in (4, 6):
        game = Trisq(size=size)
        for seed in range(6):
            fast = game.random_playout(random.Random(seed))
            slow = Game.random_playout(game, random.Random(seed))
            assert fast == slow
        play_all(game, "b2hse a1vne+c3hnw")
        for seed in range(4):
            assert game.random_playout(random.Random(seed)) == Game.random_playout(
                game, random.Random(seed)
            )


def test_random_move_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.games.trisq as module

    monkeypatch.setattr(module, "SAMPLE_ATTEMPTS", 0)
    game = Trisq(size=4)
    rng = random.Random(2)
    for _ in range(4):
        move = game.random_move(rng)
        assert game.is_legal(move)
        game.play(move)


def test_undo_restores_everything() -> None:
    game = Trisq(size=5)
    rng = random.Random(4)
    states = []
    while not game.is_over():
        states.append((game.board_text(), game.perft(1), game.to_move))
        game.play(game.random_move(rng))
    while game.history:
        game.undo()
        assert (game.board_text(), game.perft(1), game.to_move) == states[len(game.history)]
    with pytest.raises(GameError):
        game.undo()


# ------------------------------------------------------------------------------- perft


def test_perft_file_counts_for_small_boards_match_naive() -> None:
    """Depth-1 lines of the perft file from the naive reference; depth-2 ones from the
    naive depth-1 count after a sample of first turns (all of them in the slow test)."""
    cases = read_perft_file(PERFT_DIR / "trisq.perft")
    checked = 0
    for case in cases:
        size = int(case.options.get("size", 8))
        if case.depth != 1 or size > 5 or case.slow:
            continue
        game = Trisq(size=size)
        play_all(game, " ".join(case.moves))
        assert Naive.perft(naive_from(game), 1) == case.nodes
        checked += 1
    assert checked >= 3


def test_depth_two_from_start_sample_matches_naive() -> None:
    game = Trisq(size=4)
    for token in ("a1hsw", "b2vne", "d4hne", "c1vnw"):
        game.play_text(token)
        assert game.perft(1) == Naive.perft(naive_from(game), 1)
        game.undo()


@pytest.mark.slow
def test_perft_4x4_depth_2_matches_naive() -> None:
    game = Trisq(size=4)
    assert game.perft(2) == Naive(4).perft(2)


def test_winning_turns_match_naive() -> None:
    """Before Red's winning turn of worked example 4: the turns that win, by the engine and
    by the naive flood fill over polygon contacts."""
    game = Trisq(size=4)
    for token in EXAMPLE_4[:-1]:
        game.play_text(token)
    naive = naive_from(game)
    naive_wins = set()
    for turn in naive.legal_turns():
        for s in turn:
            naive.pieces[s] = 0
        if naive.connected(0):
            naive_wins.add("+".join(sorted(
                f"{'abcd'[f]}{r + 1}{ORIENTATIONS[o]}{CORNERS[c]}" for f, r, o, c in turn)))
        for s in turn:
            del naive.pieces[s]
    engine_wins = set()
    for move in game.legal_moves():
        game.play(move)
        if game.outcome() is not None:
            engine_wins.add("+".join(sorted(game.format_move(move).split("+"))))
        game.undo()
    assert "b4vnw" in engine_wins
    assert engine_wins == naive_wins
