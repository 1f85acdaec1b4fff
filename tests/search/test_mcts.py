"""The Python MCTS (engine/search/mcts.py): the solver finds forced wins in small composed positions
of every game, searches are deterministic with a seed and a playout limit, the tree is reused,
huge branching is widened, and the mcts player plays legal moves in every game over GTP."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest

from engine.games.brax import Brax
from engine.games.core import Game
from engine.games.registry import new_game
from engine.search.mcts import LEVELS, NODE_BYTES, Mcts, MctsPlayer, Node
from engine.search.players import Limit
from engine.search.registry import make_player
from protocol.server import build_engine
from tests.gtp_helpers import ok


def immediate_wins(game: Game[Any]) -> list[Any]:
    """The moves that win at once for the side to move, by the rules core alone."""
    side = game.side_of(game.to_move)
    wins = []
    for move in game.legal_moves():
        game.play(move)
        outcome = game.outcome()
        game.undo()
        if outcome is not None and outcome.winner == side:
            wins.append(move)
    return wins


def position_with_one_move_win(name: str, seed: int, **options: Any) -> Game[Any]:
    """Random play from the start (seeded) up to the first position where the side to move
    has an immediate win but not every move wins."""
    rng = random.Random(seed)
    while True:
        game = new_game(name, **options)
        while not game.is_over():
            wins = immediate_wins(game)
            if wins and len(wins) < len(game.legal_moves()):
                return game
            game.play(game.random_move(rng))


def bricka_example_3() -> Game[Any]:
    """docs/rules/bricka.md#example-3, one move before White's winning c4."""
    game = new_game("bricka")
    for token in "k10 c7 j9 c6 i8 d5 h8 k3 g7 i2 f6 l4 e6 e12".split():
        game.play_text(token, "native")
    return game


ONE_MOVE_WINS = {
    "brique 4x4": lambda: position_with_one_move_win("brique", 1, size=4),
    "flicker 5x5": lambda: position_with_one_move_win("flicker", 1, size=5),
    "trisq 4x4": lambda: position_with_one_move_win("trisq", 1, size=4),
    "bricka example 3": bricka_example_3,
    # Red d4-d5 captures Blue's last piece
    "brax 2 v 1": lambda: Brax.from_position({"red": "d4 e4", "blue": "d5"}, "red"),
}


@pytest.mark.parametrize("make", ONE_MOVE_WINS.values(), ids=list(ONE_MOVE_WINS))
def test_solver_finds_the_winning_move(make: Any) -> None:
    game = make()
    wins = immediate_wins(game)
    assert wins
    before = list(game.history)
    result = Mcts().search(game, Limit(playouts=5000), random.Random(3))
    assert list(game.history) == before
    assert result.best in wins
    assert result.proven == "win"
    assert result.stats[0].proven == "win" and result.stats[0].winrate == 1.0


def test_bricka_example_3_names_c4_as_a_proven_win() -> None:
    game = bricka_example_3()
    c4 = game.parse_move("c4", "native")
    assert c4 in immediate_wins(game)
    result = Mcts(decisive=True).search(game, Limit(playouts=3000), random.Random(1))
    by_move = {stat.move: stat for stat in result.stats}
    # the root scan stops at the first win; search and scan together must not call c4 lost
    assert by_move.get(c4) is None or by_move[c4].proven != "loss"


def forced_win_in_two(game: Game[Any]) -> list[Any]:
    """Moves after which every reply leaves an immediate win (a naive 3-ply search)."""
    found = []
    for move in game.legal_moves():
        game.play(move)
        if game.outcome() is None and all(
            _reply_allows_win(game, reply) for reply in game.legal_moves()
        ):
            found.append(move)
        game.undo()
    return found


def _reply_allows_win(game: Game[Any], reply: Any) -> bool:
    game.play(reply)
    won = game.outcome() is None and bool(immediate_wins(game))
    game.undo()
    return won


def test_solver_proves_a_win_in_two_on_brique_4x4() -> None:
    rng = random.Random(5)
    for _ in range(200):
        game = new_game("brique", size=4, pie=False)
        while not game.is_over() and not immediate_wins(game):
            if forced_win_in_two(game):
                break
            game.play(game.random_move(rng))
        if not game.is_over() and not immediate_wins(game) and forced_win_in_two(game):
            break
    else:
        pytest.fail("no position with a win in two found")
    result = Mcts().search(game, Limit(playouts=20000), random.Random(2))
    assert result.proven == "win"
    assert result.best in forced_win_in_two(game)
    game.play(result.best)
    lost = Mcts().search(game, Limit(playouts=20000), random.Random(2))
    assert lost.proven == "loss"
    assert all(stat.proven == "loss" for stat in lost.stats)


@pytest.mark.parametrize(
    ("name", "options"),
    [("brique", {"size": 5}), ("trisq", {"size": 5}), ("flicker", {"size": 5}),
     ("brax", {}), ("bricka", {})],
)
def test_search_is_deterministic_with_a_seed_and_playouts(
    name: str, options: dict[str, Any]
) -> None:
    def run() -> list[tuple[Any, int, float]]:
        game = new_game(name, **options)
        game.play(game.random_move(random.Random(4)))
        result = Mcts().search(game, Limit(playouts=150), random.Random(9))
        assert result.iterations == 150 or result.proven is not None
        return [(s.move, s.visits, s.winrate) for s in result.stats]

    first = run()
    assert first == run()
    assert sum(visits for _, visits, _ in first) > 0


def test_tree_is_reused_for_the_moves_played_since() -> None:
    game = new_game("brique", size=6)
    search = Mcts()
    rng = random.Random(1)
    first = search.search(game, Limit(playouts=2000), rng)
    game.play(first.best)
    reply = first.stats[0].pv[1]
    game.play(reply)
    kept = next(c for c in search._root.children if c.move == first.best)  # type: ignore[union-attr]
    kept_visits = next(c for c in kept.children if c.move == reply).visits
    assert kept_visits > 0
    second = search.search(game, Limit(playouts=100), rng)
    assert search._root is not None and search._root.visits == kept_visits + 100
    assert second.iterations == 100


def test_no_reuse_after_another_line() -> None:
    game = new_game("brique", size=5)
    game.play(game.parse_move("a1"))
    search = Mcts()
    rng = random.Random(1)
    search.search(game, Limit(playouts=300), rng)
    other = new_game("brique", size=5)
    other.play(other.parse_move("b1"))
    search.search(other, Limit(playouts=50), rng)
    assert search._root is not None and search._root.visits == 50


def test_no_reuse_for_another_position_with_the_same_history() -> None:
    from engine.games.brique import Brique

    search = Mcts()
    rng = random.Random(1)
    start = Brique.from_position_string("5/5/5/5/5 b -")  # no history
    search.search(start, Limit(playouts=300), rng)
    # Another position with an empty history: equal histories, other positions.
    played = Brique(size=5)
    for text in ("a1", "e5", "b2", "d4"):
        played.play(played.parse_move(text))
    other = Brique.from_position_string(played.position_string())
    assert not other.history
    found = search.search(other, Limit(playouts=50), rng)
    assert search._root is not None and search._root.visits == 50
    for stat in found.stats:
        assert other.is_legal(stat.move), other.format_move(stat.move)
    # "c3" continues both histories, and the position of the tree's root: the tree is kept.
    other.play(other.parse_move("c3"))
    search.search(other, Limit(playouts=50), rng)
    assert search._root is not None and search._root.visits > 50


def test_trisq_8x8_uses_progressive_widening() -> None:
    game = new_game("trisq")
    rng = random.Random(2)
    for _ in range(2):
        game.play(game.random_move(rng))
    search = Mcts()
    result = search.search(game, Limit(playouts=200), random.Random(1))
    assert search._widen
    assert search._root is not None
    assert len(search._root.children) < 40 < len(game.legal_moves())
    assert game.illegal_reason(result.best) is None


def tree_size(node: Node) -> int:
    return 1 + sum(tree_size(child) for child in node.children)


@pytest.mark.parametrize(("name", "playouts"), [("brique", 3000), ("trisq", 300)])
def test_a_tree_stops_growing_at_its_memory_bound(name: str, playouts: int) -> None:
    """Past ``max_tree_mb`` an iteration plays out from the leaf it reaches and adds no node,
    nor a list of its moves: an analysis until the next command stays in its memory."""
    game = new_game(name, size=5)
    search = Mcts(max_tree_mb=0.5)
    result = search.search(game, Limit(playouts=playouts), random.Random(1))
    root = search._root
    assert root is not None and result.iterations == playouts and root.visits == playouts
    nodes = tree_size(root)
    assert min(search._size(root), search._bytes) >= search.max_bytes > nodes * NODE_BYTES

    def lists(node: Node) -> int:
        return (node.untried is not None) + sum(lists(child) for child in node.children)

    listed = lists(root)
    search.search(game, Limit(playouts=50), random.Random(2))  # the same tree, reused
    assert tree_size(root) == nodes and lists(root) == listed and root.visits == playouts + 50
    unbounded = Mcts().search(game, Limit(playouts=playouts), random.Random(1))
    assert unbounded.stats != result.stats


def test_a_timed_move_goes_on_with_the_kernel_once_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first timed moves of a process are searched in Python while the kernel loads; the
    kernel, once ready, searches what is left of the move."""
    from tests.protocol.test_analysis import LateKernel

    player = MctsPlayer(random.Random(1))
    kernel = LateKernel(player)
    monkeypatch.setattr(player, "searcher", kernel.searcher)
    timer = threading.Timer(0.2, kernel.ready.set)
    timer.start()
    result = player.search(new_game("brique", size=5), Limit(time=0.6))
    timer.join()
    assert result.iterations == 777  # the kernel's
    assert len(kernel.limits) == 1
    left = kernel.limits[0].time
    assert left is not None and 0 < left < 0.45


def test_levels_map_to_playouts() -> None:
    assert MctsPlayer(level=1).limit_for(Limit()).playouts == LEVELS[1]
    assert MctsPlayer().limit_for(Limit(time=1.0)).playouts is None
    assert MctsPlayer(level=2).limit_for(Limit(time=1.0)).playouts == LEVELS[2]
    assert MctsPlayer(level=7).limit_for(Limit(playouts=5)).playouts == 5
    with pytest.raises(ValueError, match="level 9"):
        MctsPlayer(level=9)
    assert isinstance(make_player("mcts", 1), MctsPlayer)
    assert make_player("random").name == "random"


@pytest.mark.parametrize("name", ["brique", "trisq", "flicker", "brax", "bricka"])
def test_mcts_genmove_plays_legal_moves(name: str) -> None:
    game = new_game(name)
    engine, session = build_engine(
        game, make_player("mcts", 1), None, Limit(time=0.2, playouts=30)
    )
    for _ in range(3):
        for colour in ("b", "w") if game.to_move == 0 else ("w", "b"):
            if session.game.is_over():
                break
            token = ok(engine, f"genmove {colour}")
            assert token == session.game.format_move(
                session.game.history[-1], session.notation
            ) or token in ("pass", "swap")
    assert len(session.game.history) >= 4


def test_cli_rejects_a_bad_level() -> None:
    import subprocess

    from tests.protocol.test_e2e import COMMAND

    done = subprocess.run([*COMMAND, "gtp", "brique", "--level", "9"], input=b"",
                          capture_output=True, timeout=30)
    assert done.returncode == 2 and b"level 9" in done.stderr
    done = subprocess.run([*COMMAND, "gtp", "brique", "--player", "random", "--level", "2"],
                          input=b"", capture_output=True, timeout=30)
    assert done.returncode == 2 and b"mcts" in done.stderr


def test_contempt_flag_sets_the_kernels_contempt() -> None:
    import subprocess

    from gtpgames.cli import search_player
    from tests.protocol.test_e2e import COMMAND

    pytest.importorskip("numba")
    from engine.search.kernels.mcts import KernelSearcher

    def contempt(flag: float | None, name: str) -> float:
        player = search_player("mcts", 1, contempt=flag)
        assert isinstance(player, MctsPlayer)
        searcher = player.searcher(new_game(name), wait=True)
        assert isinstance(searcher, KernelSearcher)
        return searcher.settings.contempt

    assert contempt(0.3, "brax") == contempt(0.3, "bricka") == 0.3
    # without the flag each game keeps its kernel's default (Brax 0.1, the others 0)
    assert (contempt(None, "brax"), contempt(None, "bricka")) == (0.1, 0.0)
    for flags, message in ((["--contempt", "0.7"], b"--contempt"),
                           (["--player", "random", "--contempt", "0.1"], b"mcts")):
        done = subprocess.run([*COMMAND, "gtp", "brax", *flags], input=b"",
                              capture_output=True, timeout=30)
        assert done.returncode == 2 and message in done.stderr, done.stderr


@pytest.mark.parametrize("policy", [False, True])
def test_policy_switch_chooses_the_playout(policy: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Mcts(policy=True) evaluates with the game's policy (Game.playout), the default with
    the uniform fast path (Game.random_playout)."""
    calls = {"playout": 0, "random_playout": 0}
    for name in calls:
        original = getattr(Brax, name)

        def counting(self: Brax, rng: random.Random, _name: str = name,
                     _original: Any = original) -> Any:
            calls[_name] += 1
            return _original(self, rng)

        monkeypatch.setattr(Brax, name, counting)
    Mcts(policy=policy).search(Brax(), Limit(playouts=30), random.Random(1))
    used, unused = ("playout", "random_playout") if policy else ("random_playout", "playout")
    assert calls[used] > 0
    assert calls[unused] == 0
