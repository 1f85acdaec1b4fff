"""The UGI front end (protocol/ugi.py, docs/ugi.md): in-process transcripts for every game,
driven the way cutegames drives an engine (position, query, go, query at the end), exact
query answers on known endings, position fen round trips, the limits a go turns into, stop
during go infinite, bad input; and a few end-to-end sessions with the real ``gtpgames ugi``
process through pexpect."""

from __future__ import annotations

import io
import random
import subprocess
import threading
import time
from typing import Any

import pexpect
import pytest
from pexpect.popen_spawn import PopenSpawn

from engine.games.core import Game
from engine.games.registry import new_game
from engine.search.mcts import MctsPlayer
from engine.search.players import UNBOUNDED_PLAYOUTS, Limit, Player, RandomPlayer
from engine.search.registry import make_player
from protocol.ugi import PLAYOUTS_PER_PLY, UgiEngine, UgiError
from tests.protocol.test_e2e import COMMAND
from tests.protocol.test_e2e import spawn as spawn_engine

#: Who moves first from the start position, from docs/rules/README.md (player index).
P1 = {"brique": 0, "flicker": 0, "trisq": 0, "brax": 0, "bricka": 1}


class Transcript:
    """An in-process engine whose output lines are collected."""

    def __init__(
        self, game: str, options: dict[str, object] | None = None,
        player: Player | None = None, notation: str = "native",
    ) -> None:
        self.lines: list[str] = []
        self.log = io.StringIO()
        self.engine = UgiEngine(
            game, options, player or RandomPlayer(random.Random(1)),
            "gtp" if notation == "gtp" else "native",
            write=self.lines.append, log=self.log,
        )

    def send(self, line: str) -> list[str]:
        """The lines the engine wrote for ``line`` (a bounded go is waited for)."""
        start = len(self.lines)
        self.engine.handle(line)
        if line.startswith("go") and "infinite" not in line:
            self.engine.wait()
        return self.lines[start:]

    def response(self, question: str) -> str:
        lines = self.send(f"query {question}")
        assert len(lines) == 1 and lines[0].startswith("response "), lines
        return lines[0].split()[1]


class WaitingPlayer(Player):
    """Searches until the limit's stop callback says so (the hook ``stop`` must reach)."""

    name = "waiting"

    def __init__(self) -> None:
        super().__init__(random.Random(0))
        self.started = threading.Event()
        self.limits: list[Limit] = []

    def choose_move(self, game: Game[Any], limit: Limit) -> Any:
        self.limits.append(limit)
        self.started.set()
        while not limit.stop():
            threading.Event().wait(0.001)
        return game.legal_moves()[0]


# ------------------------------------------------------------------------------ handshake


def test_handshake_lists_the_game_options() -> None:
    t = Transcript("brique")
    lines = t.send("ugi")
    assert lines[0] == "id name gtpgames brique"
    assert lines[1].startswith("id author ")
    assert "option name size type spin default 11 min 3 max 25" in lines
    assert "option name pie type check default true" in lines
    assert "option name notation type combo default native var native var gtp" in lines
    assert lines[-1] == "ugiok"
    assert t.send("isready") == ["readyok"]
    brax = Transcript("brax").send("ugi")
    assert "option name first type combo default red var red var blue" in brax


def test_brax_with_more_than_two_players_is_refused() -> None:
    with pytest.raises(UgiError, match="not a two-player game"):
        UgiEngine("brax", {"players": 3})
    t = Transcript("brax")
    assert t.send("setoption name players value 4")[0].startswith(
        "info string error: Brax with players=4 is not a two-player game"
    )
    assert t.engine.options["players"] == 2
    assert t.response("p1turn") == "true"


# ------------------------------------------------------------------- whole games, cutegames


GAMES: list[tuple[str, dict[str, object]]] = [
    ("brique", {"size": 5}),
    ("flicker", {"size": 4}),
    ("trisq", {"size": 4}),
    ("brax", {"hunt": True}),
    ("bricka", {}),
]


@pytest.mark.parametrize(("name", "options"), GAMES)
def test_whole_games_as_cutegames_plays_them(name: str, options: dict[str, object]) -> None:
    """cutegames' loop: position startpos moves ..., query p1turn, query gameover, go; at the
    end query result. The answers agree with a reference game replayed from the tokens."""
    for seed in range(3):
        t = Transcript(name, player=RandomPlayer(random.Random(seed)))
        for key, value in options.items():
            assert t.send(f"setoption name {key} value {value}") == []
        t.send("uginewgame")
        reference = new_game(name, **options)
        moves: list[str] = []
        while True:
            assert t.send("position startpos" + "".join(f" moves {' '.join(moves)}"
                                                       if moves else "")) == []
            expected_turn = reference.to_move == P1[name]
            assert t.response("p1turn") == ("true" if expected_turn else "false")
            over = reference.outcome() is not None
            assert t.response("gameover") == ("true" if over else "false")
            if over:
                break
            assert t.response("result") == "none"
            lines = t.send("go nodes 1")
            assert len(lines) == 1 and lines[0].startswith("bestmove "), lines
            token = lines[0].split()[1]
            reference.play_text(token, "native")  # raises if the engine's move is illegal
            moves.append(token)
        outcome = reference.outcome()
        assert outcome is not None
        if outcome.winner is None:
            expected = "draw"
        else:
            expected = "p1win" if outcome.winner == P1[name] else "p2win"
        assert t.response("result") == expected
        assert t.send("go movetime 10") == ["info string the game is over", "bestmove 0000"]


@pytest.mark.parametrize(
    ("name", "options", "moves", "result"),
    [
        # Black's b-file joins bottom and top / White's second row joins left and right
        ("brique", {"size": 3, "pie": "off"}, "b1 a1 b2 a3 b3", "p1win"),
        ("brique", {"size": 3, "pie": "off"}, "a1 a2 c1 b2 a3 c2", "p2win"),
        ("flicker", {"size": 3, "pie": "off"}, "b1 a1 b2 a2 b3", "p1win"),
        ("flicker", {"size": 3, "pie": "off"}, "a1 a2 c1 b2 a3 c2", "p2win"),
        # docs/rules/flicker.md#example-4: the 18-turn cycle brings position P back: a draw
        ("flicker", {"size": 5},
         "a1 b1 c1 d1 e1 c2 a2 a3 b2 c3 d2 d3 e2 a4 b3 b4 e3 e4 c4 b5 d4 c5 a5 e5 d5 "
         "b2 pass b2 c3 pass c3 d4 pass d4 b2 pass b2 c3 pass c3 d4 pass d4", "draw"),
        # Brax: the start position for the third time (X14)
        ("brax", {}, "e1-e2 e9-e8 e2-e1 e8-e9 e1-e2 e9-e8 e2-e1 e8-e9", "draw"),
    ],
)
def test_known_endings(name: str, options: dict[str, object], moves: str, result: str) -> None:
    t = Transcript(name)
    for key, value in options.items():
        t.send(f"setoption name {key} value {value}")
    tokens = moves.split()
    t.send(f"position startpos moves {' '.join(tokens[:-1])}")
    assert t.response("gameover") == "false"
    assert t.response("result") == "none"
    t.send(f"position startpos moves {moves}")
    assert t.response("gameover") == "true"
    assert t.response("result") == result


def test_bricka_p1_is_white() -> None:
    t = Transcript("bricka")
    t.send("position startpos")
    assert t.response("p1turn") == "true"
    assert t.engine.game.to_move == 1  # White
    t.send("position startpos moves g7")
    assert t.response("p1turn") == "false"


def test_brax_first_blue_makes_blue_p1() -> None:
    t = Transcript("brax")
    t.send("setoption name first value blue")
    t.send("position startpos")
    assert t.response("p1turn") == "true"
    t.send("position startpos moves e9-e8")
    assert t.response("p1turn") == "false"


# ----------------------------------------------------------------------------- positions


@pytest.mark.parametrize(("name", "options"), GAMES)
def test_position_fen_round_trips(name: str, options: dict[str, object]) -> None:
    rng = random.Random(7)
    t = Transcript(name, options)
    game = new_game(name, **options)
    for _ in range(12):
        if game.outcome() is not None:
            break
        text = game.position_string()
        t.send(f"position fen {text}")
        assert t.engine.game.position_string() == text
        move = game.random_move(rng)
        token = game.format_move(move, "native")
        assert t.send(f"position fen {text} moves {token}") == []
        game.play(move)
        assert t.engine.game.position_string() == game.position_string()


def test_the_kernel_searches_the_position_of_a_fen() -> None:
    """A Flicker fen keeps only its last turns in the history; the compiled search must see
    its board and its repetition record (it used to replay the history from an empty
    board and answer occupied points)."""
    pytest.importorskip("numba")
    from engine.search.mcts import MctsPlayer

    fen = "5/5/1ox2/1x3/5 w - +b3 xc2 0,9000,1809000,4000000001000,4000001009000"
    for seed in (1, 2, 3):
        t = Transcript("flicker", {"size": 5, "pie": False}, MctsPlayer(random.Random(seed)))
        t.send(f"position fen {fen} moves b4")
        (answer,) = t.send("go nodes 200")
        token = answer.split()[1]
        assert t.engine.game.is_legal(t.engine.game.parse_move(token, "native")), answer


def test_an_illegal_move_in_position_loses_for_its_mover() -> None:
    t = Transcript("brique", {"size": 5})
    lines = t.send("position startpos moves c3 c3")
    assert lines[0].startswith("info string error: illegal move 'c3'")
    assert t.response("gameover") == "true"
    assert t.response("result") == "p1win"  # White (p2) sent the occupied square
    t.send("position startpos moves zz")
    assert t.response("result") == "p2win"
    t.send("position startpos moves c3")
    assert t.response("gameover") == "false"


def test_bad_input_is_reported_and_changes_nothing() -> None:
    t = Transcript("brique", {"size": 5})
    t.send("position startpos moves c3")
    before = t.engine.game.position_string()
    for line in ["go nodes many", "go sideways 3"]:  # a go always ends with a bestmove
        lines = t.send(line)
        assert len(lines) == 2 and lines[0].startswith("info string error: "), (line, lines)
        assert lines[1] == "bestmove 0000"
        assert t.engine.game.position_string() == before
    for line in [
        "frobnicate",
        "position fen 5/5/5 b -",
        "position fen",
        "position somewhere",
        "setoption name size value 99",
        "setoption value 3",
        "query colour",
        "query",
    ]:
        lines = t.send(line)
        assert len(lines) == 1 and lines[0].startswith("info string error: "), (line, lines)
        assert t.engine.game.position_string() == before
    assert t.send("position fen 5/5/5 b -") == [
        "info string error: Brique position string: board field '5/5/5' has 3 rows, "
        "expected 5"
    ]
    assert t.send("setoption name hash value 128") == []  # cutegames' defaults: ignored
    assert "ignoring unknown option 'hash'" in t.log.getvalue()
    assert t.send("") == []


@pytest.mark.parametrize(
    "line",
    [
        "position moves c3",
        "position moves",
        f"position fen {'9' * 5000}/5/5/5/5 b -",
        f"position fen {'9' * 30}/5/5/5/5 b -",
        "position fen 99999999/5/5/5/5 b -",
        "position fen 6/5/5/5/5 b -",
        f"position fen {'x' * 100000}/5/5/5/5 b -",
        "position fen 5/5/5/5/5 ١ -",
    ],
)
def test_malformed_positions_are_errors_naming_the_input(line: str) -> None:
    t = Transcript("brique", {"size": 5})
    t.send("position startpos moves c3")
    before = t.engine.game.position_string()
    lines = t.send(line)
    assert len(lines) == 1 and lines[0].startswith("info string error: "), lines
    assert "internal error" not in lines[0] and len(lines[0]) < 400, lines
    assert t.engine.game.position_string() == before
    assert t.log.getvalue() == ""  # no traceback


def test_a_board_row_is_bounded_before_it_is_allocated() -> None:
    """A run of empty cells longer than the row is refused before a list of that length is
    made (99999999 cells would be 800 MB)."""
    import tracemalloc

    t = Transcript("brique", {"size": 11})
    tracemalloc.start()
    try:
        lines = t.send("position fen 99999999/11/11/11/11/11/11/11/11/11/11 b -")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert lines == ["info string error: Brique position string: row 11 of the board "
                     "('99999999') has 99999999 cells, expected 11"]
    assert peak < 10_000_000


@pytest.mark.parametrize(
    "line",
    [
        "go movetime abc",
        "go movetime",
        "go movetime ١٠٠",
        f"go movetime {'9' * 5000}",
        "go wtime 1000 btime 1000",
        "go wtime 1000 btime 1000 winc 10 binc 10",
        "go nodes",
        "go depth -",
    ],
)
def test_every_go_ends_with_a_bestmove(line: str) -> None:
    """A controller waits for the bestmove of each go: a go it cannot run says why and
    answers bestmove 0000 (cutegames hung on these)."""
    t = Transcript("brique", {"size": 5})
    t.send("position startpos moves c3")
    lines = t.send(line)
    assert len(lines) == 2, lines
    assert lines[0].startswith("info string error: go: ") and len(lines[0]) < 200, lines
    assert lines[1] == "bestmove 0000"
    assert t.engine._worker is None
    assert t.send("go nodes 1")[0].startswith("bestmove ")  # and the next go searches


def test_errors_echo_only_a_prefix_of_their_input() -> None:
    t = Transcript("brique", {"size": 5})
    huge = "z" * 10_000_000
    for line in [huge, f"query {huge}", f"position {huge}", f"position startpos moves {huge}",
                 f"setoption name size value {huge}", f"position fen {huge} b -",
                 f"go {huge} 1", f"go nodes {huge}"]:
        lines = t.send(line)
        assert lines and all(len(out) < 400 for out in lines), (line[:20], lines)
        assert lines[0].startswith("info string error: ")


def test_setoption_starts_a_new_game_with_the_option() -> None:
    t = Transcript("brique")
    t.send("position startpos moves c3")
    assert t.send("setoption name size value 5") == []
    assert t.engine.game.position_string() == "5/5/5/5/5 b swap"
    t.send("setoption name pie value false")
    assert t.engine.game.position_string() == "5/5/5/5/5 b -"


def test_threads_option_reaches_the_search() -> None:
    from engine.search.mcts import MctsPlayer

    player = MctsPlayer(random.Random(1), level=1)
    t = Transcript("brique", {"size": 5}, player=player)
    assert "option name threads type spin default 1 min 1 max 64" in t.send("ugi")
    assert t.send("setoption name threads value 2") == []
    assert player.threads == 2 and player.limit_for(Limit()).threads == 2
    for bad in ("0", "65", "two", ""):
        lines = t.send(f"setoption name threads value {bad}")
        assert lines == [f"info string error: setoption: threads must be 1..64, got {bad!r}"]
        assert player.threads == 2
    assert t.send("go movetime 50")[-1].startswith("bestmove ")
    assert "option name threads" not in " ".join(Transcript("brique").send("ugi"))


def test_gtp_notation_skips_i() -> None:
    t = Transcript("brique", notation="gtp")
    t.send("position startpos moves j1")
    native = Transcript("brique")
    native.send("position startpos moves i1")
    assert t.engine.game.position_string() == native.engine.game.position_string()
    t.send("setoption name notation value native")
    t.send("position startpos moves i1")
    assert t.engine.game.position_string() == native.engine.game.position_string()


# ------------------------------------------------------------------------- go and limits


def test_limits_from_go() -> None:
    t = Transcript("brique", {"size": 5})
    engine = t.engine
    assert engine.limit_for({"nodes": 500}, False).playouts == 500
    assert engine.limit_for({"depth": 3}, False).playouts == 3 * PLAYOUTS_PER_PLY
    movetime = engine.limit_for({"movetime": 1000}, False).time
    assert movetime is not None and 0 < movetime <= 1.0
    # p1 (Black) to move: its clock, never more than what is left
    for ms in (10, 1000, 60000):
        limit = engine.limit_for({"p1time": ms, "p2time": 10**7, "p1inc": ms}, False)
        assert limit.time is not None and 0 <= limit.time < ms / 1000
    t.send("position startpos moves c3")
    limit = engine.limit_for({"p1time": 10**7, "p2time": 200}, False)
    assert limit.time is not None and limit.time < 0.2
    both = engine.limit_for({"movetime": 5000, "nodes": 7}, False)
    assert both.playouts == 7 and both.time is not None and both.time <= 5.0
    assert engine.limit_for({}, True).time is None


def test_stop_ends_go_infinite() -> None:
    player = WaitingPlayer()
    t = Transcript("flicker", {"size": 5}, player=player)
    t.send("position startpos moves c3")
    assert t.send("go infinite") == []
    assert player.started.wait(10)
    assert t.send("isready") == ["readyok"]  # answered during the search
    assert t.engine._worker is not None and t.engine._worker.is_alive()
    lines = t.send("stop")
    assert len(lines) == 1 and lines[0].startswith("bestmove ")
    game = new_game("flicker", size=5)
    game.play_text("c3", "native")
    game.play_text(lines[0].split()[1], "native")
    assert player.limits[0].time is None


def test_go_infinite_grows_a_tree_until_stop() -> None:
    """The search bot under ``go infinite`` has no playout budget (which its compiled search
    would spread over the whole tree, expanding no node past the root: a flat search) and
    no level's default: it searches until ``stop``."""
    pytest.importorskip("numba")
    from engine.search import kernels

    kernels.load("brique")  # on a cold cache a compilation: before the half second of search
    player = make_player("mcts", 1)
    assert isinstance(player, MctsPlayer)
    t = Transcript("brique", {"size": 5}, player=player)
    limit = player.limit_for(t.engine.limit_for({}, True))
    assert limit.playouts is None and limit.budget is None
    t.send("position startpos moves c3")
    assert t.send("go infinite") == []
    time.sleep(0.5)
    lines = t.send("stop")
    assert len(lines) == 1 and lines[0].startswith("bestmove ")
    assert player.last is not None and player.last.iterations > UNBOUNDED_PLAYOUTS
    assert len(player.last.stats[0].pv) > 2


def test_infinite_waits_for_stop_even_when_the_player_is_done() -> None:
    t = Transcript("trisq", {"size": 4})
    t.send("position startpos")
    assert t.send("go infinite") == []
    assert t.send("query p1turn") == ["response true"]
    lines = t.send("stop")
    assert len(lines) == 1 and lines[0].startswith("bestmove ")
    assert t.send("stop") == []  # nothing running: no second bestmove


def test_a_new_command_ends_a_running_search_first() -> None:
    player = WaitingPlayer()
    t = Transcript("bricka", player=player)
    t.send("position startpos")
    t.send("go infinite")
    assert player.started.wait(10)
    lines = t.send("position startpos moves g7")
    assert len(lines) == 1 and lines[0].startswith("bestmove ")
    assert t.response("p1turn") == "false"


# ----------------------------------------------------------------------- the real process


def spawn(*args: str) -> PopenSpawn:
    return spawn_engine(*args, command="ugi", timeout=30, encoding="utf-8")


def test_e2e_session() -> None:
    proc = spawn("brique", "-o", "size=5", "--player", "random", "--seed", "1")
    proc.sendline("ugi")
    proc.expect("ugiok")
    assert "id name gtpgames brique" in proc.before
    proc.sendline("isready")
    proc.expect("readyok")
    proc.sendline("position startpos moves c3")
    proc.sendline("query p1turn")
    proc.expect("response (true|false)")
    assert proc.match.group(1) == "false"
    proc.sendline("go infinite")
    proc.sendline("isready")
    proc.expect("readyok")
    proc.sendline("stop")
    proc.expect(r"bestmove (\S+)")
    first = proc.match.group(1)
    proc.sendline("go p1time 1000 p2time 1000 p1inc 10 p2inc 10")
    proc.expect(r"bestmove (\S+)")
    game = new_game("brique", size=5)
    game.play_text("c3", "native")
    game.play_text(first, "native")
    proc.sendline("nonsense")
    proc.expect("info string error: unknown command 'nonsense'")
    proc.sendline("quit")
    proc.expect(pexpect.EOF)
    assert proc.wait() == 0


def test_e2e_whole_game_with_exact_result() -> None:
    proc = spawn("flicker", "-o", "size=3", "-o", "pie=off", "--player", "random")
    proc.sendline("ugi")
    proc.expect("ugiok")
    proc.sendline("position startpos moves b1 a1 b2 a2 b3")
    proc.sendline("query gameover")
    proc.expect(r"response (\w+)")
    assert proc.match.group(1) == "true"
    proc.sendline("query result")
    proc.expect(r"response (\w+)")
    assert proc.match.group(1) == "p1win"
    proc.sendline("quit")
    assert proc.wait() == 0


def test_e2e_refuses_brax_for_three() -> None:
    done = subprocess.run(
        [*COMMAND, "ugi", "brax", "-o", "players=3"], input="ugi\n", capture_output=True,
        text=True, timeout=60, check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""  # the message goes to stderr, not to the protocol stream
    assert "Brax with players=3 is not a two-player game" in done.stderr
