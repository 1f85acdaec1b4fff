"""The proof-number solver (engine/search/solve.py, engine/search/kernels/dfpn.py) against
plain exhaustive minimax on the Python rules cores: the values of small boards and of random
endings, the winning moves, the bounded table, checkpoints, and ``gtpgames solve``."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from engine.games.core import Game
from engine.games.registry import new_game
from engine.search.solve import LOOK_NODES, Solver, minimax

pytest.importorskip("numba")

DATA = Path(__file__).parent.parent / "data"
VALUES = {1: "win", 0: "draw", -1: "loss"}


class TooBig(Exception):
    pass


def capped_minimax(game: Game[Any], cap: int) -> int:
    """:func:`minimax` that gives up (TooBig) after ``cap`` positions."""
    memo: dict[str, int] = {}
    seen = [0]

    def go(g: Game[Any]) -> int:
        seen[0] += 1
        if seen[0] > cap:
            raise TooBig
        key = g.position_string() + " " + repr(g.history[-2:])
        if key in memo:
            return memo[key]
        mover = g.to_move
        best = -2
        for move in g.legal_moves():
            g.play(move)
            result = g.outcome()
            if result is not None:
                value = 0 if result.winner is None else (1 if result.winner == mover else -1)
            elif g.to_move == mover:
                value = go(g)
            else:
                value = -go(g)
            g.undo()
            if value > best:
                best = value
                if best == 1:
                    break
        memo[key] = best
        return best

    return go(game)


def winning_by_minimax(game: Game[Any]) -> set[str]:
    """The moves after which the mover wins, by minimax."""
    mover = game.to_move
    won = set()
    for move in game.legal_moves():
        game.play(move)
        result = game.outcome()
        if result is not None:
            good = result.winner == mover
        else:
            value = minimax(game)
            good = value == (1 if game.to_move == mover else -1)
        game.undo()
        if good:
            won.add(game.format_move(move))
    return won


@pytest.mark.parametrize(
    ("name", "options", "pie"),
    [
        ("brique", {"size": 3, "pie": False}, True),
        # decided by the pie rule (Solver.pie_stage), and searched
        ("brique", {"size": 3, "pie": True}, True),
        ("brique", {"size": 3, "pie": True}, False),
        # slow (11 s): Flicker's minimax over removals
        pytest.param("flicker", {"size": 3, "pie": False}, True, marks=pytest.mark.slow),
    ],
)
def test_small_boards_match_minimax(name: str, options: dict[str, object], pie: bool) -> None:
    game = new_game(name, **options)
    solver = Solver(game, memory_mb=16, pie=pie)
    found = solver.solve(game, all_moves=True)
    assert found.value == VALUES[minimax(game.copy())]
    if found.value == "win":
        assert found.winning is not None
        assert set(found.winning) == winning_by_minimax(game.copy())
        assert found.move in found.winning  # the move the proof goes through
    else:
        assert found.move is None
        # a lost position: every move of the mover is a win of the opponent
        for move in game.legal_moves():
            after = game.copy()
            after.play(move)
            if after.outcome() is None:
                value = solver.solve(after).value
                assert value == ("loss" if after.to_move == game.to_move else "win")


def test_the_pie_rule_decides_what_the_search_finds() -> None:
    """Brique 4x4 with the pie rule: the empty board is lost and each first move gives White
    a win, as the search finds them; decided without a node (the pie rule, pie_stage), while
    the winning moves after a first move (swap or not) still come from the search."""
    from engine.search.solve import PIE_SOURCE

    game = new_game("brique", size=4, pie=True)
    argued = Solver(game, memory_mb=32)
    searched = Solver(game, memory_mb=32, pie=False)
    found = argued.solve(game)
    assert (found.value, found.nodes, found.source) == ("loss", 0, PIE_SOURCE)
    plain = searched.solve(game)
    assert (plain.value, plain.source) == ("loss", None) and plain.nodes > 0
    swaps = 0
    for move in game.legal_moves():
        after = game.copy()
        after.play(move)
        found = argued.solve(after, all_moves=True)
        plain = searched.solve(after, all_moves=True)
        assert found.value == plain.value == "win"
        assert found.source == PIE_SOURCE and plain.source is None
        assert found.winning == plain.winning and found.winning
        swaps += "swap" in found.winning
    assert 0 < swaps < len(game.legal_moves())  # some first moves win, some lose


def test_the_pie_rule_bounds_what_the_search_finds_in_flicker() -> None:
    """Flicker 3x3 with the pie rule (a game with draws): the player who may swap does not
    lose, so the solver leaves out the searches that could only find that they lose; the
    values are those of the whole search, in fewer nodes."""
    from engine.search.solve import PIE_BOUND

    game = new_game("flicker", size=3, pie=True)
    bounded = Solver(game, memory_mb=32)
    searched = Solver(game, memory_mb=32, pie=False)
    found, plain = bounded.solve(game), searched.solve(game)
    assert found.value == plain.value != "unknown"
    assert (found.source, plain.source) == (PIE_BOUND, None)
    assert found.nodes < plain.nodes
    for move in game.legal_moves():
        after = game.copy()
        after.play(move)
        found = bounded.solve(after, all_moves=True)
        plain = searched.solve(after, all_moves=True)
        assert found.value == plain.value != "loss"
        assert found.winning == plain.winning and found.source == PIE_BOUND


@pytest.mark.parametrize(("size", "moves"), [(3, ""), (3, "b2"), (4, ""), (4, "a1")])
def test_an_unknown_value_keeps_what_one_search_decided(size: int, moves: str) -> None:
    """Flicker with the pie rule, each solve stopped after 100 nodes a search: the value is
    unknown, and the bound is what the pie rule decided (the first player does not win, the
    player who may swap does not lose); the whole solve agrees with it. Without the pie rule
    the same stopped solve has no bound (neither search finished)."""
    game = new_game("flicker", size=size, pie=True)
    for token in moves.split():
        game.play_text(token)
    stopped = Solver(game, memory_mb=32).solve(game, nodes=100)
    assert stopped.value == "unknown"
    assert stopped.bound == ("at least a draw" if moves else "at most a draw")
    if size == 3:
        whole = Solver(game, memory_mb=32).solve(game).value
        assert whole in (("win", "draw") if moves else ("loss", "draw"))
    plain = new_game("flicker", size=size, pie=False)
    for token in moves.split():
        plain.play_text(token)
    stopped = Solver(plain, memory_mb=32).solve(plain, nodes=100)
    assert (stopped.value, stopped.bound) == ("unknown", None)


def test_the_second_search_is_bounded_by_the_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """Flicker 4x4 without the pie rule after b2: White does not win (the first search)
    and loses (the second). With the second search cut short (ten nodes), the value is
    unknown, at most a draw for White. (In a game with draws the two searches share no
    table entries, and here each takes about 150,000 nodes: a cap on both cannot stop the
    second alone.) Before both, a first look of LOOK_NODES nodes at Black's win decides
    nothing."""
    game = new_game("flicker", size=4, pie=False)
    game.play_text("b2")
    calls: list[tuple[int, int | None]] = []
    prove = Solver.prove

    def second_cut(self: Solver, state: Any, attacker: int, deadline: float | None = None,
                   nodes: int | None = None, stop: Any = None) -> int:
        calls.append((attacker, nodes))
        cut = 10 if len(calls) == 3 else nodes
        return prove(self, state, attacker, deadline, cut, stop)

    monkeypatch.setattr(Solver, "prove", second_cut)
    stopped = Solver(game, memory_mb=32).solve(game)
    white, black = game.to_move, 1 - game.to_move
    assert calls == [(black, LOOK_NODES), (white, None), (black, None)]
    assert (stopped.value, stopped.bound) == ("unknown", "at most a draw")
    assert stopped.nodes > 100_000  # the first search ran to its end


def test_a_win_proven_alone_is_read_before_the_movers_search() -> None:
    """Flicker 3x3 without the pie rule after b2: once Black's win alone is proven
    (``Solver.prove``, as a long solve of one side does), a solve of the position reads the
    loss for White from the table, in the first look at Black's win, without White's search
    (which alone takes more nodes than the solve is allowed here)."""
    game = new_game("flicker", size=3, pie=False)
    game.play_text("b2")
    white_alone = Solver(game, memory_mb=32)
    assert white_alone.prove(white_alone.state(game), game.to_move, nodes=50) == 0
    solver = Solver(game, memory_mb=32)
    assert solver.prove(solver.state(game), 1 - game.to_move) == 1
    found = solver.solve(game, nodes=50)
    assert found.value == "loss" and found.nodes <= LOOK_NODES


@pytest.mark.parametrize("name", ["brique", "flicker"])
def test_no_winning_move_is_searched_for_the_first_player_with_the_pie_rule(name: str) -> None:
    """The engine's prover (winning_move) spends no time on the first move of a game with the
    pie rule, which cannot win; it still finds the win of the player who may swap."""
    game = new_game(name, size=3, pie=True)
    solver = Solver(game, memory_mb=16)
    assert solver.winning_move(game) is None and solver.nodes == 0
    game.play_text("b2")
    move = solver.winning_move(game)
    assert move is not None and game.format_move(move) == "swap" and solver.nodes > 0


@pytest.mark.parametrize(("name", "options", "moves", "stage"), [
    ("brique", {"size": 4, "pie": True}, "", "first"),
    ("brique", {"size": 4, "pie": True}, "b2", "swap"),
    ("brique", {"size": 4, "pie": False}, "", None),  # no pie rule
    ("brique", {"size": 4, "pie": True}, "b2 swap", None),  # the swap is past
    ("brique", {"size": 4, "pie": True}, "b2 c3", None),
    ("flicker", {"size": 3, "pie": True}, "", "first"),  # a game with draws
    ("flicker", {"size": 3, "pie": True}, "b2", "swap"),
    ("flicker", {"size": 3, "pie": False}, "", None),
    ("trisq", {"size": 4}, "", None),  # no pie rule at all
])
def test_the_pie_rule_applies_only_where_it_holds(
    name: str, options: dict[str, object], moves: str, stage: str | None
) -> None:
    game = new_game(name, **options)
    for token in moves.split():
        game.play_text(token)
    assert Solver(game, memory_mb=8).pie_stage(game) == stage


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "options"),
    [
        # the empty 4x4 boards take this minimax more than 7 minutes each: they are checked
        # by re-solving after every move (below) and by endings
        ("flicker", {"size": 3, "pie": True}),
    ],
)
def test_larger_small_boards_match_minimax(name: str, options: dict[str, object]) -> None:
    game = new_game(name, **options)
    solver = Solver(game, memory_mb=64)
    found = solver.solve(game, all_moves=True)
    assert found.value == VALUES[minimax(game.copy())]
    if found.value == "win":
        assert found.winning is not None
        assert set(found.winning) == winning_by_minimax(game.copy())


def random_endings(
    name: str, options: dict[str, object], seed: int, count: int, cap: int,
    setup: Any = None,
) -> list[tuple[Game[Any], int]]:
    """``count`` positions of random games, each as late as needed (counted back from the
    end of the game) for exhaustive minimax to finish within ``cap`` positions, with their
    minimax values. Positions go through their position string (a short history)."""
    rng = random.Random(seed)
    found: list[tuple[Game[Any], int]] = []
    tries = 0
    while len(found) < count:
        tries += 1
        assert tries < 50 * count, "no small enough ending found"
        game = new_game(name, **options) if setup is None else setup(rng)
        line = []
        while game.outcome() is None:
            move = game.random_move(rng)
            line.append(move)
            game.play(move)
        candidate: tuple[Game[Any], int] | None = None
        for back in range(2, 14):
            if back > len(line):
                break
            probe = game.copy()
            for _ in range(back):
                probe.undo()
            if probe.outcome() is not None:
                continue
            fresh = type(probe).from_position_string(probe.position_string(), **options)
            try:
                candidate = (fresh, capped_minimax(fresh.copy(), cap))
            except TooBig:
                break
        if candidate is not None:
            found.append(candidate)
    return found


def brax_skirmish(rng: random.Random) -> Game[Any]:
    """Brax (default options) with 1-3 pieces a side on a random 4x4 patch: random games
    from there end by captures, not by the 100-ply draw."""
    from engine.games.brax import Brax

    while True:
        nr, nb = rng.randint(1, 3), rng.randint(1, 3)
        f0, r0 = rng.randrange(6), rng.randrange(6)
        patch = [(f, r) for r in range(r0, r0 + 4) for f in range(f0, f0 + 4)]
        points = rng.sample(patch, nr + nb)
        names = [f"{'abcdefghi'[f]}{r + 1}" for f, r in points]
        game = Brax.from_position(
            {"red": " ".join(names[:nr]), "blue": " ".join(names[nr:])},
            rng.choice(["red", "blue"]),
        )
        if not game.is_over():
            return game


ENDINGS = [
    ("brique", {"size": 5, "pie": True}, None),
    ("flicker", {"size": 4, "pie": True}, None),
    # slow (8 s and 12 s): the minimax of their endings
    pytest.param("trisq", {"size": 4}, None, marks=pytest.mark.slow),
    pytest.param("bricka", {}, None, marks=pytest.mark.slow),
    # slow: most random skirmishes stay too big for minimax for many plies
    pytest.param("brax", {}, brax_skirmish, marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("name", "options", "setup"), ENDINGS)
def test_endings_match_minimax(name: str, options: dict[str, object], setup: Any) -> None:
    endings = random_endings(name, options, seed=7, count=6, cap=3000, setup=setup)
    solver = Solver(endings[0][0], memory_mb=16)
    values = set()
    for game, value in endings:
        found = solver.solve(game, all_moves=True)
        assert found.value == VALUES[value], game.position_string()
        values.add(found.value)
        if found.value == "win":
            assert found.winning is not None
            assert found.move in found.winning  # (each checked by minimax below)
            for token in found.winning:
                after = game.copy()
                move = after.parse_move(token)
                after.play(move)
                if after.outcome() is not None:
                    result = after.outcome()
                    assert result is not None and result.winner == game.to_move
                else:
                    expect = 1 if after.to_move == game.to_move else -1
                    assert capped_minimax(after, 10**6) == expect
    assert len(values) >= 1


def test_checkpoint_of_the_earlier_layout_is_converted() -> None:
    """A table saved before the entries took 16 bytes (layout 2: an array of keys, and a row
    of pn, dn, work and a check word per entry; this one by a solve of Brique 4x4 without the
    pie rule, 1,254 nodes in a 1 MB table) is read by converting its entries: every one in
    use is stored, and the root's proof is read back."""
    game = new_game("brique", size=4, pie=False)
    solver = Solver(game, memory_mb=1)
    assert solver.load(DATA / "brique4-layout2.npz") == 953
    assert solver.used() == 953
    found = solver.solve(game)
    assert found.value == "win" and found.nodes < 10
    move = solver.winning_move(game)
    assert move is not None
    after = game.copy()
    after.play(move)
    lost = solver.solve(after)  # the proof after the winning move, read back
    assert lost.value == "loss" and lost.nodes < 10


@pytest.mark.parametrize(("name", "options", "moves"), [
    ("brique", {"size": 4, "pie": False}, ""),
    ("brique", {"size": 4, "pie": True}, "b2"),
    ("flicker", {"size": 4, "pie": False}, "b2 c3 a4"),  # a game with draws: two searches
])
def test_threads_find_what_one_thread_finds(
    name: str, options: dict[str, object], moves: str
) -> None:
    """Two threads sharing the table give the value and the winning moves one thread gives
    (which the tests above check against minimax and against solves after each move), and
    both threads search."""
    game = new_game(name, **options)
    for token in moves.split():
        game.play_text(token)
    alone = Solver(game, memory_mb=32).solve(game, all_moves=True)
    solver = Solver(game, memory_mb=32, threads=2)
    found = solver.solve(game, all_moves=True)
    assert found.value == alone.value != "unknown"
    assert found.winning == alone.winning
    assert found.nodes == sum(solver.thread_nodes)
    assert min(solver.thread_nodes) > 0


def test_threads_solve_endings_as_minimax_does() -> None:
    endings = random_endings("brique", {"size": 5, "pie": True}, seed=11, count=6, cap=3000)
    solver = Solver(endings[0][0], memory_mb=16, threads=2)
    for game, value in endings:
        assert solver.solve(game).value == VALUES[value], game.position_string()


def test_an_entry_read_while_written_is_no_entry() -> None:
    """An entry whose numbers are not the ones its key was written with (what a read
    between another thread's writes of its two words would see) is not found, and a search
    that finds no entry starts from 1 and 1: it is slower, never wrong."""
    import numpy as np

    from engine.search.kernels import dfpn

    table = dfpn.new_table(64)
    h = np.uint64(0x123456789ABCDEF1)
    dfpn.tt_store(table, h, 3, 5, 7)
    assert dfpn.tt_get(table, h) == (3, 5)
    other = np.uint64(int(h) + 16)  # the same bucket (16 buckets of four), the next slot
    dfpn.tt_store(table, other, 0, dfpn.INF, 9)
    assert dfpn.tt_get(table, other) == (0, dfpn.INF)
    slot, theirs = map(int, np.nonzero(table[:, dfpn.E_NUMBERS])[0])
    # another position's numbers written over h's, its lock word not yet
    table[slot, dfpn.E_NUMBERS] = table[theirs, dfpn.E_NUMBERS]
    assert dfpn.tt_get(table, h) == (-1, -1)
    assert dfpn.tt_get(table, other) == (0, dfpn.INF)
    assert dfpn.tt_get(table, np.uint64(int(h) + 32)) == (-1, -1)


def test_an_entry_keeps_proofs_exact_and_holds_large_numbers() -> None:
    """An entry's 28-bit numbers: 0, "infinite" and the depth limit's UNKNOWN read back as
    they were, other numbers up to CAP too; a larger one as CAP, or from UNKNOWN on as
    UNKNOWN (ordering hints, never a proof); the work's code grows with the work, four
    steps to a doubling."""
    import numpy as np

    from engine.search.kernels import dfpn

    table = dfpn.new_table(4096)
    cases = [(0, dfpn.INF), (dfpn.INF, 0), (dfpn.UNKNOWN, dfpn.UNKNOWN), (1, 1),
             (dfpn.CAP, 12345), (dfpn.CAP + 1, dfpn.INF - 1), (2**35, 7)]
    for i, (pn, dn) in enumerate(cases):
        dfpn.tt_store(table, np.uint64(1000 + i), pn, dn, i)
    read = [dfpn.tt_get(table, np.uint64(1000 + i)) for i in range(len(cases))]
    assert read[:5] == cases[:5]
    assert read[5] == (dfpn.CAP, dfpn.UNKNOWN)  # past UNKNOWN but finite: UNKNOWN
    assert read[6] == (dfpn.UNKNOWN, 7)
    codes = [int(dfpn.work_code(w)) for w in (0, 1, 2, 3, 4, 8, 16, 2**20, 2**62)]
    assert codes == sorted(codes) and len(set(codes)) == len(codes)
    assert codes[5] - codes[4] == 4 and codes[-1] <= 255


def test_a_full_bucket_keeps_the_entries_of_most_work_and_proofs() -> None:
    """A new entry in a full bucket takes the slot of the entry of least work; a proof
    gives way to no entry that is not one."""
    import numpy as np

    from engine.search.kernels import dfpn

    table = dfpn.new_table(4)  # one bucket
    for i, work in enumerate([50, 10, 5000, 30]):
        dfpn.tt_store(table, np.uint64(i + 1), 2, 3, work)
    dfpn.tt_store(table, np.uint64(9), 4, 4, 1)  # gives the entry of least work its slot
    assert dfpn.tt_get(table, np.uint64(2)) == (-1, -1)
    assert dfpn.tt_get(table, np.uint64(9)) == (4, 4)
    dfpn.tt_store(table, np.uint64(9), 0, dfpn.INF, 1)  # its own slot, now a proof
    for h in (10, 11, 12):
        dfpn.tt_store(table, np.uint64(h), 2, 2, 10**6)
    assert dfpn.tt_get(table, np.uint64(9)) == (0, dfpn.INF)


def test_table_stays_inside_memory() -> None:
    game = new_game("brique", size=4, pie=False)
    for megabytes in (1.0, 3.0, 10.0):
        solver = Solver(game, memory_mb=megabytes)
        assert solver.memory_bytes() <= megabytes * 2**20
        assert solver.memory_bytes() > 0.9 * megabytes * 2**20


def test_small_table_still_exact() -> None:
    """With a table far too small for the whole search, entries get replaced, and the value is
    still right."""
    game = new_game("brique", size=4, pie=True)
    solver = Solver(game, memory_mb=0.06, pie=False)  # searched, not decided by the pie rule
    found = solver.solve(game)
    assert found.nodes > 4 * solver.entries  # far more positions than entries
    big = Solver(game, memory_mb=32, pie=False).solve(game)
    assert found.value == big.value != "unknown"
    assert solver.used() <= solver.entries


def test_memory_too_small_is_an_error() -> None:
    with pytest.raises(ValueError, match="too small"):
        Solver(new_game("brique", size=5), memory_mb=0.001)


def test_node_limit_gives_unknown() -> None:
    game = new_game("brique", size=5, pie=False)
    solver = Solver(game, memory_mb=16)
    assert solver.solve(game, nodes=50).value == "unknown"


def test_a_deadline_is_looked_at_before_the_first_node() -> None:
    """Against a deadline the solver looks at the clock before each call of the compiled
    search, and first calls it for one node: a deadline already past expands none (a slice
    of 20,000 nodes took over a second on Brique 7x7, the whole time of a move)."""
    import time

    game = new_game("brique", size=7, pie=False)
    solver = Solver(game, memory_mb=16)
    state = solver.state(game)
    assert solver.prove(state, 0, deadline=time.monotonic() - 1.0) == 0
    assert solver.nodes == 0
    assert solver.prove(state, 0, deadline=time.monotonic() + 0.05) == 0
    assert 0 < solver.nodes


def test_winning_move_is_read_from_the_proof() -> None:
    """Once the position is proven won, the winning move is read from the proof (the root's
    children in the search that decided it), not found by searching the children one by one
    without a limit: one that does not win could take minutes (a Brique 11x11 genmove under
    a clock with --prove did)."""
    game = new_game("brique", size=5, pie=False)
    for token in "e4 d2 c3 d5 d4 a1 a5 e2 c1 e5 e1 d1 b3 a4 c2".split():
        game.play_text(token)  # White to move wins, but not at once
    assert all(after.outcome() is None for after in _children(game))
    solver = Solver(game, memory_mb=16)
    calls: list[tuple[float | None, int | None]] = []
    search = solver.prove

    def spy(state: Any, attacker: int, deadline: float | None = None,
            nodes: int | None = None, stop: Any = None) -> int:
        calls.append((deadline, nodes))
        return search(state, attacker, deadline, nodes, stop)

    solver.prove = spy  # type: ignore[method-assign]
    move = solver.winning_move(game, 30.0)
    assert move is not None
    after = game.copy()
    after.play(move)
    assert Solver(after, memory_mb=16).solve(after).value == "loss"
    assert len(calls) == 1  # the winning step is read from the root's search


def _children(game: Game[Any]) -> list[Game[Any]]:
    found = []
    for move in game.legal_moves():
        after = game.copy()
        after.play(move)
        found.append(after)
    return found


def test_the_solve_stops_when_asked() -> None:
    """``stop()`` is asked between calls of the compiled search (an interrupt of a genmove
    or an analysis with --prove), which are short when there is one to ask, with or without
    a deadline: the first time it says yes, the search ends undecided."""
    game = new_game("brique", size=7, pie=False)
    solver = Solver(game, memory_mb=16)
    asked: list[bool] = []

    def stop() -> bool:
        asked.append(True)
        return True

    assert solver.winning_move(game, None, None, stop) is None
    assert asked == [True] and 0 < solver.nodes < 1_000


def test_listing_reads_the_moves_the_table_decides_first() -> None:
    """Listing the winning moves within a deadline: a winning move whose proof is in the
    table is listed even when the moves before it take the whole time (a first look of a
    few nodes at every move comes before the search of any)."""
    import time

    game = new_game("brique", size=5, pie=False)
    solver = Solver(game, memory_mb=64)
    after = game.copy()
    after.play_text("c3")
    assert solver.solve(after).value == "loss"  # c3 wins for Black
    won, undecided = solver.winning_moves(game, deadline=time.monotonic() + 1.0)
    assert "c3" in won
    assert undecided and undecided[0] == "a1"  # the first move took the time


def test_checkpoint_resumes(tmp_path: Path) -> None:
    game = new_game("brique", size=4, pie=False)
    first = Solver(game, memory_mb=8)
    assert first.solve(game).value == "win"
    path = tmp_path / "table.npz"
    first.save(path)
    again = Solver(game, memory_mb=8)
    again.load(path)
    assert (again.table == first.table).all()
    resumed = again.solve(game)
    assert resumed.value == "win"
    assert resumed.nodes < 10  # the root's proof is in the table
    other = Solver(new_game("brique", size=4, pie=True), memory_mb=8)
    with pytest.raises(ValueError, match="holds a table"):
        other.load(path)


def test_checkpoint_of_another_size_is_stored_entry_by_entry(tmp_path: Path) -> None:
    """A table saved by a solve with another size of table (more memory, or, in Flicker,
    another root whose stack takes another share of it) is read by storing its entries:
    into a larger table, nearly all (the buckets are other ones: a full one still gives
    way); into a smaller one, as many as its buckets hold, proofs first. The root's proof
    is read back either way."""
    game = new_game("flicker", size=4, pie=False)
    game.play_text("b2")
    first = Solver(game, memory_mb=16)
    assert first.solve(game).value == "loss"
    path = tmp_path / "table.npz"
    first.save(path)
    used = first.used()
    empty = new_game("flicker", size=4, pie=False)
    larger = Solver(empty, memory_mb=64)
    assert larger.entries > 2 * first.entries
    assert larger.load(path) == used
    assert 0.99 * used < larger.used() <= used
    after = larger.solve(game)
    assert after.value == "loss" and after.nodes < 10
    found = larger.solve(empty)  # b2 wins for Black, and the table says so
    assert found.value == "win" and found.nodes < 1_000
    smaller = Solver(game, memory_mb=2)
    assert smaller.entries < used
    assert smaller.load(path) == used  # stored one by one, most of them given way again
    assert 0 < smaller.used() <= smaller.entries
    again = smaller.solve(game)
    assert again.value == "loss" and again.nodes < 10


@pytest.mark.parametrize(("name", "options", "moves"), [
    ("brique", {"size": 4, "pie": False}, ""),
    pytest.param("brique", {"size": 5, "pie": True}, "c3 swap b2 b4 d2",
                 marks=pytest.mark.slow),  # 8 s
    ("flicker", {"size": 4, "pie": False}, "b2 c3 c2 b3"),
])
def test_winning_moves_resolved_from_the_position_after(
    name: str, options: dict[str, object], moves: str
) -> None:
    """Each winning move the solver lists on a board too large for minimax is a loss for the
    opponent when solved again, by a fresh solver, from the position after it; and a move it
    does not list is not a loss for the opponent."""
    game = new_game(name, **options)
    for token in moves.split():
        game.play_text(token)
    found = Solver(game, memory_mb=32).solve(game, seconds=120, all_moves=True)
    assert found.value in ("win", "loss") and not found.undecided
    winning = found.winning or []
    assert bool(winning) == (found.value == "win")
    fresh = Solver(game, memory_mb=32)
    for move in game.legal_moves():
        after = game.copy()
        after.play(move)
        if after.outcome() is not None:
            continue
        value = fresh.solve(after, seconds=120).value
        assert value != "unknown"
        listed = game.format_move(move) in winning
        assert (value == ("win" if after.to_move == game.to_move else "loss")) == listed


def run_cli(*args: str) -> tuple[int, str, str]:
    from typer.testing import CliRunner

    from gtpgames.cli import app

    done = CliRunner().invoke(app, ["solve", *args])
    return done.exit_code, done.stdout, done.stderr


def test_cli_solves_and_lists_winning_moves(tmp_path: Path) -> None:
    path = tmp_path / "t.npz"
    code, out, _ = run_cli("brique", "--size", "3", "--option", "pie=off", "--all",
                           "--memory", "8", "--checkpoint", str(path))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Black to move: win"
    assert lines[-1] == "winning moves: a1 a2 b2 b3 c3"
    assert path.exists()
    code, out, err = run_cli("brique", "--size", "3", "--option", "pie=off", "--memory", "8",
                             "--checkpoint", str(path))
    assert code == 0 and "nodes: 1\n" in out  # the root's proof came from the file
    # without --all: the one winning move the proof goes through, read from the table
    assert out.splitlines()[-1] in {f"winning move: {m}" for m in ("a1", "a2", "b2", "b3", "c3")}
    assert err.startswith("gtpgames: ") and f"table entries read from {path}" in err
    code, out, _ = run_cli("brique", "--size", "3", "--moves", "a1", "--memory", "8",
                           "--threads", "2", "--all")
    assert code == 0 and out.splitlines()[:2] == [
        "White to move: win", "from: the pie rule (the player who may swap wins)"]
    assert out.splitlines()[-1] == "winning moves: swap"  # a1 wins (above): White swaps


def test_cli_prints_the_bound_of_an_unknown_value() -> None:
    """With no time, Flicker 3x3 with the pie rule is unknown for Black, who does not win
    (the pie rule); without the pie rule nothing is known."""
    code, out, _ = run_cli("flicker", "--size", "3", "--time", "0", "--memory", "8")
    assert code == 0 and out.splitlines()[:2] == ["Black to move: unknown",
                                                  "bound: at most a draw"]
    code, out, _ = run_cli("flicker", "--size", "3", "--option", "pie=off", "--time", "0",
                           "--memory", "8")
    assert code == 0 and out.splitlines()[0] == "Black to move: unknown"
    assert "bound:" not in out


@pytest.mark.parametrize(("args", "message"), [
    (("nosuch",), "unknown game"),
    (("brique", "--moves", "zz"), "invalid move 'zz'"),
    (("brique", "--size", "3", "--moves", "a1", "--position", "3/3/3 b -"), "not both"),
    (("brique", "--size", "3", "--memory", "1", "--option", "pie"), "KEY=VALUE"),
    (("brique", "--size", "3", "--moves", "b1 a1 b2 a2 b3"), "game is over"),
    (("brique", "--threads", "0"), "'--threads'"),
    (("brique", "--size", "9", "--memory", "2", "--time", "0.5", "--checkpoint",
      "/nonexistent/x.npz"),
     "No such file"),
])
def test_cli_errors_are_one_line_and_exit_2(args: tuple[str, ...], message: str) -> None:
    code, out, err = run_cli(*args)
    assert code == 2
    assert out == ""
    assert err.startswith("gtpgames: ") and err.count("\n") == 1 and message in err


def played(solver: Solver, game: Game[Any], line: str) -> Any:
    """The solver's array state after the moves of ``line`` played by the compiled rules."""
    state = solver.state(game)
    for token in line.split():
        move = game.parse_move(token)
        for code in solver.codec.steps(game, move):
            solver.rule(state, 1, code)
        game.play(move)
    return state


@pytest.mark.parametrize(
    ("name", "options", "one", "other"),
    [
        # the same stones in another order: the first move (kept for the swap) differs
        ("brique", {"size": 4, "pie": True}, "a1 d4 c2 b4 a3", "a3 b4 c2 d4 a1"),
        # the same pieces in five turns and in three (compiles the solver for Trisq)
        pytest.param("trisq", {"size": 4}, "a1hsw d4hne a4hnw d1hse c2hsw",
                     "a1hsw d4hne+d1hse a4hnw+c2hsw", marks=pytest.mark.slow),
    ],
)
def test_transpositions_are_one_state(
    name: str, options: dict[str, object], one: str, other: str
) -> None:
    first, second = new_game(name, **options), new_game(name, **options)
    solver = Solver(first, memory_mb=16)
    a, b = played(solver, first, one), played(solver, second, other)
    assert first.to_move == second.to_move
    assert a.tolist() == b.tolist()
    assert a.tolist() == solver.state(first).tolist()


@pytest.mark.slow  # compiles the solver for Trisq
def test_trisq_keys_fold_the_half_turn() -> None:
    """While at most a quarter of the slots hold pieces, Trisq's table key is the same for a
    position and its image under the half turn (the pending first step of a turn mapped
    too), and not for its image under a quarter turn with the colours exchanged (a symmetry
    of the rules that is not folded) nor for other positions; fuller positions are keyed as
    they are. The kernel's map is the one the piece polygons give. A solve of the image of
    a position reads the position's proof from the table."""
    from engine.search.kernels.trisq import TrisqCodec, half_turn
    from tests.rules.test_symmetry import trisq_slot_map, trisq_turned

    half = trisq_slot_map("half turn")
    quarter = trisq_slot_map("quarter turn")
    assert half is not None and quarter is not None
    count = 8 * 4 * 4
    assert half_turn(4)[:count].tolist() == half
    assert half_turn(4)[count:].tolist() == [count + 15 - k for k in range(16)]
    codec = TrisqCodec()
    rng = random.Random(4)
    solver = Solver(new_game("trisq", size=4), memory_mb=16)

    def key(game: Any, step: int = -1) -> int:
        state = solver.state(game)
        if step >= 0:  # the first step of a turn played, the turn pending
            solver.rule(state, 1, step)
        return solver.rule(state, 4)[0]

    def image_of(moves: list[Any]) -> Any:
        image = new_game("trisq", size=4)
        for move in moves:
            image.play(tuple(half[p] for p in move))
        return image

    seen = set()
    for _ in range(12):  # up to 15 pieces
        game = new_game("trisq", size=4)
        turns = rng.randrange(1, 9)
        while len(game.history) < turns and game.outcome() is None:
            game.play(game.random_move(rng))
        if game.outcome() is not None:
            continue
        assert key(game) == key(image_of(game.history))
        step = codec.steps(game, game.random_move(rng))[0]
        assert key(game, step) == key(image_of(game.history), half[step]) != key(game)
        assert key(trisq_turned(game, quarter)) != key(game)
        seen.add(key(game))
    assert len(seen) >= 10  # other positions, other keys
    for _ in range(3):  # fuller positions
        game = new_game("trisq", size=4)
        while game.outcome() is None:
            game.play(game.random_move(rng))
        game.undo()
        assert sum(colour >= 0 for colour in game.slot_colours()) > count // 4
        assert key(game) != key(image_of(game.history))
    # the rules' example of a win on 4x4 before Red's last two turns: 10 pieces
    game = new_game("trisq", size=4)
    for token in "b1vsw d4hne b1vnw+b2vsw d3hne b2vnw+b3vsw d2hne b3vnw+b4vsw".split():
        game.play_text(token)
    image = image_of(game.history)
    solver.clear()
    found = solver.solve(game)
    assert found.value == "loss" and found.nodes > 100
    again = solver.solve(image)
    assert (again.value, again.nodes) == ("loss", 1)  # the position's proof, read
    fresh = Solver(image, memory_mb=16).solve(image)
    assert (fresh.value, fresh.nodes) == ("loss", found.nodes)


@pytest.mark.slow  # compiles the solver for Bricka
def test_bricka_keys_fold_the_board_symmetries() -> None:
    """While at most a quarter of the points hold pieces, Bricka's table key is the same for
    a position and its images under the half turn and the two mirrors (the previous
    placement, which blocks points, mapped too), and differs between other positions;
    fuller positions are keyed as they are."""
    from engine.games.bricka import PASS
    from tests.rules.test_symmetry import BRICKA_MAPS, bricka_point_map

    images = [bricka_point_map(name) for name in BRICKA_MAPS]
    rng = random.Random(12)
    solver = Solver(new_game("bricka"), memory_mb=16)

    def key(game: Any) -> int:
        return solver.rule(solver.state(game), 4)[0]

    def mapped(game: Any, image: list[int]) -> Any:
        other = new_game("bricka")
        for move in game.history:
            other.play(move if move == PASS else image[move])
        return other

    seen = set()
    for _ in range(10):
        game = new_game("bricka")
        plies = rng.randrange(1, 18)
        while len(game.history) < plies and game.outcome() is None:
            game.play(game.random_move(rng))
        if game.outcome() is not None:
            continue
        for image in images:
            assert key(mapped(game, image)) == key(game)
        seen.add(key(game))
    assert len(seen) >= 8
    for _ in range(3):
        game = new_game("bricka")
        while game.outcome() is None:
            game.play(game.random_move(rng))
        game.undo()
        assert sum(game.piece_at(p) >= 0 for p in range(69)) > 69 // 4
        for image in images:
            assert key(mapped(game, image)) != key(game)


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("brique", {"size": 3, "pie": True}),
        ("brique", {"size": 4, "pie": True}),
        ("flicker", {"size": 4, "pie": True}),
        # slow (8 s and 12 s): the minimax of their endings
        pytest.param("trisq", {"size": 4}, marks=pytest.mark.slow),
        pytest.param("bricka", {}, marks=pytest.mark.slow),
    ],
)
def test_children_won_at_once_are_decided_exactly(name: str, options: dict[str, Any]) -> None:
    """A child whose player to move wins at once is decided without a frame of its own
    (the default of these games): the values of random endings still agree with minimax,
    and with the search that expands such children, in fewer nodes."""
    endings = random_endings(name, options, seed=11, count=8, cap=3000)
    if options.get("size") == 3:
        endings.append((new_game(name, **options), -1))  # the empty board
    # (searched, not decided by the pie rule)
    fast = Solver(endings[0][0], memory_mb=16, pie=False)
    plain = Solver(endings[0][0], memory_mb=16, threats=False, pie=False)
    assert fast.threats and not plain.threats
    for game, value in endings:
        assert fast.solve(game).value == VALUES[value], game.position_string()
        assert plain.solve(game).value == VALUES[value], game.position_string()
    assert fast.nodes < plain.nodes


def fewest_to_fill(
    cells: Any, neighbours: Any, starts: Any, ends: Any, player: int, far: int
) -> int:
    """A plain Dijkstra: the fewest empty points ``player`` fills to join a point of
    ``starts`` to one of ``ends`` through its own points and neutral ones (2, Bricka's),
    never through the other player's; ``far`` when it cannot."""
    import heapq

    enemy = 1 - player
    dist = {i: (0 if cells[i] in (player, 2) else 1) for i in starts if cells[i] != enemy}
    heap = [(d, i) for i, d in dist.items()]
    heapq.heapify(heap)
    while heap:
        d, x = heapq.heappop(heap)
        if d > dist[x]:
            continue
        for y in neighbours(x):
            if cells[y] == enemy:
                continue
            e = d + (0 if cells[y] in (player, 2) else 1)
            if e < dist.get(y, far):
                dist[y] = e
                heapq.heappush(heap, (e, y))
    return min([dist.get(i, far) for i in ends] + [far])


def test_brique_distance_is_the_fewest_squares_to_fill() -> None:
    """The solver's first numbers in Brique come from each side's distance to a win
    (engine/search/kernels/brique.py ``_distance``): here against a plain Dijkstra over the
    same squares (orthogonal and NE-SW diagonal neighbours, enemy stones closed), on random
    positions of random games."""
    import numpy as np

    from engine.games.grid import coords, index
    from engine.search.kernels import brique as kernel

    rng = random.Random(2)
    for size in (3, 4, 6, 9, 17):
        tables = kernel.tables_for(size, False)
        codec = kernel.BriqueCodec()

        def neighbours(x: int, size: int = size) -> list[int]:
            f, r = coords(x, size)
            return [index(f + df, r + dr, size)
                    for df, dr in ((0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (-1, -1))
                    if 0 <= f + df < size and 0 <= r + dr < size]

        for _ in range(12):
            game = new_game("brique", size=size, pie=False)
            w = np.zeros(codec.sizes(game)[2], dtype=np.int32)  # the solver's work array
            for _ in range(rng.randrange(size * size // 2 + 1)):
                if game.outcome() is not None:
                    break
                game.play(game.random_move(rng))
            state = codec.state(game)
            for player in (0, 1):
                squares = range(size * size)
                starts = [i for i in squares if tables.edge[player, i] & 1]
                ends = [i for i in squares if tables.edge[player, i] & 2]
                want = fewest_to_fill(state[: size * size], neighbours, starts, ends, player,
                                      size * size + 1)
                assert kernel._distance(tables, state, w, player) == want


def test_bricka_distance_is_the_fewest_points_to_fill() -> None:
    """Bricka's first numbers of the solver come from each player's distance to a
    connection (engine/search/kernels/bricka.py ``_distance``): here against a plain Dijkstra
    from each side to the opposite one over the board's lines (the board data, not the
    kernel's tables), own and neutral pieces free, on random positions of random games."""
    import numpy as np

    from engine.games.bricka_board import NEIGHBOURS, SIDES
    from engine.search.kernels import bricka as kernel

    rng = random.Random(4)
    tables = kernel.tables_for()
    codec = kernel.BrickaCodec()
    points = len(NEIGHBOURS)
    seen_neutral = False
    for _ in range(30):
        game = new_game("bricka")
        for _ in range(rng.randrange(60)):
            if game.outcome() is not None:
                break
            game.play(game.random_move(rng))
        state = codec.state(game)
        w = np.zeros(codec.sizes(game)[2], dtype=np.int32)  # the solver's work array
        seen_neutral |= bool((state[:points] == 2).any())
        for player in (0, 1):
            want = min(fewest_to_fill(state[:points], lambda x: NEIGHBOURS[x], SIDES[2 * k],
                                      SIDES[2 * k + 1], player, points + 1) for k in range(3))
            assert kernel._distance(tables, state, w, player) == want
    assert seen_neutral


def test_trisq_distance_is_the_fewest_slots_to_fill() -> None:
    """Trisq's first numbers of the solver come from each player's distance to a win
    (engine/search/kernels/trisq.py ``_distance``): here against a plain Dijkstra over the
    board's geometry (the rules core's slots and orientations, not the kernel's tables),
    a slot its square's orientation closes counted as the enemy's, on random positions of
    random games."""
    import numpy as np

    from engine.games.trisq_geometry import BOTTOM, LEFT, RIGHT, TOP, geometry
    from engine.search.kernels import trisq as kernel

    rng = random.Random(5)
    codec = kernel.TrisqCodec()
    for size in (4, 5, 8):
        geo = geometry(size)
        count = 8 * size * size
        tables = kernel.tables_for(size)
        edges = ((BOTTOM, TOP), (LEFT, RIGHT))
        for _ in range(12):
            game = new_game("trisq", size=size)
            for _ in range(rng.randrange(3 * size * size // 2)):
                if game.outcome() is not None:
                    break
                game.play(game.random_move(rng))
            state = codec.state(game)
            w = np.zeros(codec.sizes(game)[2], dtype=state.dtype)  # the solver's work array
            orient = game.orientations()
            for player in (0, 1):
                cells = [
                    1 - player if colour < 0 and orient[i >> 3] not in (-1, (i >> 2) & 1)
                    else colour for i, colour in enumerate(game.slot_colours())
                ]
                first, second = edges[player]
                want = fewest_to_fill(
                    cells, geo.edge_adj.__getitem__,
                    [i for i in range(count) if geo.touches[i] & first],
                    [i for i in range(count) if geo.touches[i] & second], player, count + 1)
                assert kernel._distance(tables, state, w, player) == want


@pytest.mark.parametrize(("name", "options", "back"), [
    ("brique", {"size": 4, "pie": False}, None),
    ("trisq", {"size": 4}, 3),
])
def test_a_game_without_draws_shares_its_entries_between_attackers(
    name: str, options: dict[str, Any], back: int | None
) -> None:
    """In Brique and Trisq a disproof for one player is a proof for the other, so the table
    keeps one entry for both (kernels/dfpn.py ``_key_of``): after a solve, the position
    after a winning move, where the other player is to move and attacks, is answered from
    the entries of the first solve, in a handful of nodes where a new table needs many.
    The position: the empty board (``back`` None), else the first won one ``back`` plies or
    more before the end of a seeded random game."""
    game = new_game(name, **options)
    if back is not None:
        rng = random.Random(1)
        while game.outcome() is None:
            game.play(game.random_move(rng))
        for _ in range(back):
            game.undo()
    solver = Solver(game, memory_mb=64)
    after = None
    while after is None:
        if solver.solve(game).value == "win":
            won, _ = solver.winning_moves(game)
            ongoing = [game.copy() for _ in won]
            for position, text in zip(ongoing, won, strict=True):
                position.play_text(text)
            after = next((position for position in ongoing if position.outcome() is None),
                         None)
        if after is None:
            game.undo()
    assert after.to_move != game.to_move
    again = solver.solve(after)
    fresh = Solver(after, memory_mb=64).solve(after)
    assert again.value == fresh.value == "loss"
    assert again.nodes * 10 < fresh.nodes, (again.nodes, fresh.nodes)
    solver.clear()  # an empty table: the solve starts over, as a new solver's does
    assert solver.used() == 0
    assert solver.solve(after).nodes == fresh.nodes
