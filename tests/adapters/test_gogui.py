"""GoGui transcripts: the exact command sequences GoGui 1.6 sends to the player and to the
ruler (a second process of the same command line), with the board strings, legal-move lists
and side to move they must give.

What GoGui sends, from its source (Remi-Coulom/gogui, src/net/sf/gogui):

* ruler start (GoGui.initGameRuler, GtpClientBase.queryInterruptSupport, GenericBoard):
  list_commands, gogui-interrupt, gogui-rules_game_id, gogui-rules_board_size, clear_board,
  then the sync below;
* after each click (Game.updateBoard: GenericBoard.copyBoardState) the ruler gets
  clear_board and every click again, then gogui-rules_board, gogui-rules_board_size,
  gogui-rules_captured_count, gogui-rules_side_to_move; then a copy of the click
  (GenericBoard.sendPlay), which must fail, and gogui-rules_legal_moves and
  gogui-rules_board_gfx (:func:`gogui_click` sends all of it);
* player start (GoGui.attachNewProgram, GtpSynchronizer.init): name, protocol_version,
  version, list_commands, gogui-interrupt, gogui-rules_game_id, gogui-rules_board_size,
  boardsize N, clear_board, komi; the player gets each click once, and undo one click at a
  time.
"""

from __future__ import annotations

import io
import os
import random
import threading
from typing import Any

import pytest

from adapters.gogui import gogui_handlers
from adapters.gogui_games import format_click, parse_click
from engine.games.brax import Brax
from engine.games.bricka import Bricka
from engine.games.bricka_board import POINTS
from engine.games.core import Game
from engine.games.registry import new_game
from engine.search.mcts import MctsPlayer
from engine.search.players import Limit, Player
from protocol.engine import GtpEngine
from protocol.server import build_engine
from protocol.session import GameSession
from tests.gtp_helpers import fail, make_engine, ok


def gogui_engine(game: str, seed: int = 1, **options: Any) -> tuple[GtpEngine, GameSession]:
    engine, session = make_engine(game, seed, **options)
    engine.add_commands(gogui_handlers(engine, session))
    return engine, session


def start_ruler(ruler: GtpEngine) -> tuple[str, str, str]:
    """GoGui's ruler start-up; returns (board, side to move, legal moves)."""
    assert "gogui-rules_game_id" in ok(ruler, "list_commands").split("\n")
    ok(ruler, "gogui-interrupt")
    ok(ruler, "gogui-rules_game_id")
    ok(ruler, "gogui-rules_board_size")
    ok(ruler, "clear_board")
    return sync(ruler)


def start_player(player: GtpEngine) -> None:
    ok(player, "name")
    ok(player, "protocol_version")
    ok(player, "version")
    commands = ok(player, "list_commands").split("\n")
    assert {"gogui-interrupt", "gogui-play_sequence", "gogui-analyze_commands"} <= set(commands)
    ok(player, "gogui-interrupt")
    ok(player, "gogui-rules_game_id")
    size = ok(player, "gogui-rules_board_size")
    ok(player, f"boardsize {size}")
    ok(player, "clear_board")
    ok(player, "komi 6.5")
    ok(player, "gogui-analyze_commands")


def handshake(engine: GtpEngine) -> str:
    """GoGui's handshake, which starts GoGui mode; returns the game id."""
    ok(engine, "gogui-interrupt")
    return ok(engine, "gogui-rules_game_id")


def sync(ruler: GtpEngine) -> tuple[str, str, str]:
    """The queries GoGui makes after a move; returns (board, side, legal moves)."""
    board = ok(ruler, "gogui-rules_board")
    ok(ruler, "gogui-rules_board_size")
    ok(ruler, "gogui-rules_captured_count")
    side = ok(ruler, "gogui-rules_side_to_move")
    assert ok(ruler, "gogui-rules_side_to_move") == side
    legal = ok(ruler, "gogui-rules_legal_moves")
    ok(ruler, "gogui-rules_board_gfx")
    return board, side, legal


def ruler_play(ruler: GtpEngine, color: str, point: str) -> tuple[str, str, str]:
    ok(ruler, f"play {color} {point}")
    return sync(ruler)


def gogui_click(ruler: GtpEngine, clicks: list[str], click: str) -> tuple[str, str, str]:
    """What the ruler gets when GoGui adds ``click`` (``play C P``) to the game: the replay
    of every click from clear_board, the queries, and the copy of the click, which fails."""
    clicks.append(click)
    ok(ruler, "clear_board")
    for line in clicks:
        ok(ruler, line)
    state = sync(ruler)
    assert fail(ruler, click).startswith("illegal move")
    return state


def rows(*lines: str) -> str:
    return "\n".join(" ".join(line) for line in lines)


# ------------------------------------------------------------------------ points


def test_points_skip_i_and_use_two_letters_past_25_columns() -> None:
    # GoPoint.xToString: A..H, J..Z, then (x / 25 - 1, x % 25) as two letters
    assert [format_click((x, 0)) for x in (0, 7, 8, 24, 25, 26, 37)] == [
        "A1", "H1", "J1", "Z1", "AA1", "AB1", "AN1"]
    assert format_click(None) == "pass"
    assert parse_click("an38", 38) == (37, 37)
    assert parse_click("J9", 9) == (8, 8)
    assert parse_click("PASS", 9) is None
    for bad in ("I5", "A0", "K1", "A10", "5A", "A"):
        with pytest.raises(ValueError):
            parse_click(bad, 9)


# ------------------------------------------------------------------------ Brique


def test_brique_start_click_and_swap_on_the_black_stone() -> None:
    ruler, _ = gogui_engine("brique", size=5)
    board, side, legal = start_ruler(ruler)
    assert board == rows(*["....."] * 5)
    assert (side, len(legal.split())) == ("black", 25)
    assert ok(ruler, "gogui-rules_game_id") == "Brique"
    board, side, legal = ruler_play(ruler, "b", "A2")
    assert board == rows(".....", ".....", ".....", "X....", ".....")
    assert side == "white"
    # White's first turn: the 24 empty squares, and A2 itself (the swap)
    assert len(legal.split()) == 25 and "A2" in legal.split()
    # the swap mirrors (f, r) = (0, 1) to (n-1-r, n-1-f) = (3, 4): a White stone on D5
    board, side, legal = ruler_play(ruler, "w", "A2")
    assert board == rows("...O.", ".....", ".....", ".....", ".....")
    assert side == "black"
    assert "A2" in legal.split() and "D5" not in legal.split()
    assert fail(ruler, "play b D5").startswith("illegal move")


# ----------------------------------------------------------------------- Flicker


def test_flicker_click_on_an_enemy_stone_removes_it() -> None:
    ruler, _ = gogui_engine("flicker", size=5, pie=False)
    start_ruler(ruler)
    ruler_play(ruler, "b", "B2")
    ruler_play(ruler, "w", "E5")
    board, side, legal = ruler_play(ruler, "b", "C3")
    # B2-C3 is a black weak pair (B3, C2 empty); C3 was just placed, so only B2 is removable
    assert side == "white"
    assert "B2" in legal.split() and "C3" not in legal.split()
    assert "TRIANGLE B2" in ok(ruler, "gogui-rules_board_gfx").split("\n")
    board, side, legal = ruler_play(ruler, "w", "B2")
    assert board == rows("....O", ".....", "..X..", ".....", ".....")
    # Black may not place where White just removed
    assert side == "black" and "B2" not in legal.split()
    assert "MARK B2" in ok(ruler, "gogui-rules_board_gfx").split("\n")


def test_flicker_swap_is_a_click_on_the_black_stone() -> None:
    ruler, _ = gogui_engine("flicker", size=5)
    start_ruler(ruler)
    ruler_play(ruler, "b", "A2")
    board, side, _ = ruler_play(ruler, "w", "A2")
    assert board == rows("...O.", ".....", ".....", ".....", ".....")
    assert side == "black"


# ------------------------------------------------------------------------- Trisq


def test_trisq_corner_then_orientation_then_pass() -> None:
    ruler, session = gogui_engine("trisq", size=4)
    board, side, legal = start_ruler(ruler)
    assert ok(ruler, "gogui-rules_board_size") == "8"
    assert (side, len(legal.split())) == ("black", 64)
    # A1 is the sw corner of square a1 (empty): a half-move, Red still to move
    board, side, legal = ruler_play(ruler, "b", "A1")
    assert side == "black"
    assert board.split("\n")[-1] == "X . . . . . . ."
    # v: the corner above, or pass; h: the corner beside, or the diagonal one
    assert legal == "A2 B1 B2 pass"
    board, side, legal = ruler_play(ruler, "b", "B1")
    assert side == "white"
    assert session.game.format_move(session.game.history[-1]) == "a1hsw"
    assert board.split("\n")[-1] == "X . . . . . . ."
    # square a1 is now h: one click places Blue's a1hse, then pass ends the turn
    board, side, legal = ruler_play(ruler, "w", "B1")
    assert side == "white" and "pass" in legal.split()
    assert board.split("\n")[-1] == "X O . . . . . ."
    board, side, legal = ruler_play(ruler, "w", "pass")
    assert side == "black"
    assert session.game.format_move(session.game.history[-1]) == "a1hse"
    assert "pass" not in legal.split()


def test_trisq_two_placements_and_undo_click_by_click() -> None:
    player, session = gogui_engine("trisq", size=4)
    start_player(player)
    for line in ("play b A1", "play b B1", "play w H8", "play w G8", "play w pass"):
        ok(player, line)
    for click in ("C3", "D3", "E5", "F5"):
        ok(player, f"play b {click}")
    assert session.game.format_move(session.game.history[-1]) == "b2hsw+c3hsw"
    assert ok(player, "gogui-rules_side_to_move") == "white"
    ok(player, "undo")  # back to C3 D3 E5: the corner E5 waits for its orientation
    assert ok(player, "gogui-rules_side_to_move") == "black"
    assert ok(player, "gogui-rules_legal_moves") == "E6 F5 F6 pass"
    assert ok(player, "gogui-rules_board").split("\n")[3] == ". . . . X . . ."
    assert "TEXT orientation" in ok(player, "gogui-rules_board_gfx")
    ok(player, "undo")
    assert "pass" in ok(player, "gogui-rules_legal_moves").split()
    assert fail(player, "play b b2hsw").startswith("illegal move: a half-move is pending")


def test_trisq_boardsize_is_twice_the_squares() -> None:
    player, session = gogui_engine("trisq")
    ok(player, "gogui-interrupt")
    ok(player, "gogui-rules_board_size")
    ok(player, "boardsize 12")
    assert session.game.options["size"] == 6
    assert fail(player, "boardsize 7").startswith("unacceptable size")
    assert session.game.options["size"] == 6


# -------------------------------------------------------------------------- Brax


def test_brax_from_then_to() -> None:
    ruler, session = gogui_engine("brax")
    board, side, legal = start_ruler(ruler)
    assert board.split("\n")[0] == ". O O O O O O O ."
    assert board.split("\n")[-1] == ". X X X X X X X ."
    assert (side, legal) == ("black", "B1 C1 D1 E1 F1 G1 H1")
    board, side, legal = ruler_play(ruler, "b", "E1")
    # docs/rules/brax.md#board: E1-E2, E2-E3 and E2-F2 are red, D1 and F1 are Red's
    assert (side, legal) == ("black", "E2 E3 F2")
    assert fail(ruler, "play b E1").startswith("illegal move")  # the repeated click
    board, side, legal = ruler_play(ruler, "b", "E3")
    assert side == "white"
    assert session.game.format_move(session.game.history[-1]) == "e1-e2-e3"
    assert board.split("\n")[-3:] == [". . . . X . . . .", ". . . . . . . . .",
                                      ". X X X . X X X ."]


def test_brax_call_is_a_pass_before_the_move_and_captures_count() -> None:
    ruler, session = gogui_engine("brax")
    handshake(ruler)
    session.game = Brax.from_position({"red": "e5 a1", "blue": "e7 a9"}, "red")
    board, side, legal = sync(ruler)
    assert "pass" in legal.split()  # e5-e6 would threaten e7: a call is possible
    board, side, legal = ruler_play(ruler, "b", "pass")
    assert side == "black" and "E5" in legal.split() and "pass" not in legal.split()
    assert "TEXT Brax called" in ok(ruler, "gogui-rules_board_gfx")
    ruler_play(ruler, "b", "E5")
    board, side, legal = ruler_play(ruler, "b", "E6")
    assert session.game.format_move(session.game.history[-1]) == "e5-e6!"
    assert side == "white"
    # the call forces Blue to move the threatened e7
    assert legal.split()[:1] == ["E7"] and "A9" not in legal.split()
    ruler_play(ruler, "w", "E7")
    assert "E6" in ok(ruler, "gogui-rules_legal_moves").split()
    board, side, legal = ruler_play(ruler, "w", "E6")
    assert ok(ruler, "gogui-rules_captured_count") == "0 1"


# ------------------------------------------------------------------------ Bricka


def test_bricka_grid_holes_white_first_and_blocked_marks() -> None:
    ruler, session = gogui_engine("bricka")
    board, side, legal = start_ruler(ruler)
    cells = board.split()
    assert len(cells) == 169 and cells.count("?") == 100 and cells.count(".") == 69
    assert (side, len(legal.split())) == ("white", 69)
    assert "A1" not in legal.split()
    # native f6 is the grid point F6; native i8 is GoGui J8 (GoGui skips I)
    board, side, legal = ruler_play(ruler, "w", "J8")
    assert session.game.format_move(session.game.history[-1], "native") == "i8"
    assert side == "black"
    gfx = ok(ruler, "gogui-rules_board_gfx").split("\n")
    marked = next(line for line in gfx if line.startswith("MARK")).split()[1:]
    assert marked and not set(marked) & set(legal.split())
    assert len(legal.split()) == 69 - 1 - len(marked)


def test_bricka_token_play_keeps_native_letters_until_gogui_mode() -> None:
    player, session = gogui_engine("bricka")
    ok(player, "play w l4")  # no GoGui command yet: the native token l4
    assert session.game.format_move(session.game.history[-1], "native") == "l4"
    assert ok(player, "gtpgames-gogui") == "off"
    ok(player, "undo")
    handshake(player)
    ok(player, "play w l4")  # GoGui L4 is the 11th column (no I): native k4
    assert session.game.format_move(session.game.history[-1], "native") == "k4"


# ------------------------------------------------------- player and ruler together


def neutral_points(game: Game[Any]) -> list[str]:
    assert isinstance(game, Bricka)
    return [format_click(POINTS[p]) for p in range(len(POINTS)) if game.piece_at(p) == 2]


@pytest.mark.parametrize(
    ("name", "options"),
    [("brique", {"size": 5}), ("flicker", {"size": 5}), ("trisq", {"size": 4}),
     ("brax", {}), ("bricka", {})],
)
def test_player_and_ruler_stay_in_step(name: str, options: dict[str, Any]) -> None:
    """A human (random legal clicks) against genmove, with GoGui's command stream to the
    ruler (every click replayed from clear_board, then a copy of the click that fails) and
    an occasional undo (player: undo; ruler: clear_board and replay)."""
    player, psession = gogui_engine(name, seed=5, **options)
    ruler, rsession = gogui_engine(name, seed=9, **options)
    start_player(player)
    state = start_ruler(ruler)
    rng = random.Random(7)
    clicks: list[str] = []
    for turn in range(240):
        board, side, legal = state
        if not legal:
            break
        color = side[0]
        if turn % 3 == 2:
            point = ok(player, f"genmove {color}")
            assert point in legal.split()
        elif turn % 17 == 16 and clicks:
            clicks.pop()
            ok(player, "undo")
            ok(ruler, "clear_board")
            for line in clicks:
                ok(ruler, line)
            state = sync(ruler)
            assert state[0] == ok(player, "gogui-rules_board")
            continue
        else:
            point = rng.choice(legal.split())
            ok(player, f"play {color} {point}")
        state = gogui_click(ruler, clicks, f"play {color} {point}")
        assert state == (ok(player, "gogui-rules_board"), ok(player, "gogui-rules_side_to_move"),
                         ok(player, "gogui-rules_legal_moves"))
        assert psession.game.history == rsession.game.history
        if name == "bricka":
            gfx = ok(ruler, "gogui-rules_board_gfx")
            for point in neutral_points(rsession.game):
                assert f"{point} N" in gfx
    if not state[2]:
        assert rsession.game.is_over()
        assert ok(ruler, "gogui-rules_final_result") == ok(player, "gogui-rules_final_result")


def test_play_sequence_is_all_or_nothing() -> None:
    player, session = gogui_engine("trisq", size=4)
    handshake(player)
    ok(player, "gogui-play_sequence b A1 b B1 w B1 w pass")
    assert len(session.game.history) == 2
    message = fail(player, "gogui-play_sequence b C3 b D3 b A1")
    assert "move 3 of the sequence" in message
    assert len(session.game.history) == 2
    assert ok(player, "gogui-rules_side_to_move") == "black"
    assert "pass" not in ok(player, "gogui-rules_legal_moves").split()


# ------------------------------------------------------------ analyze, interrupt


def test_analyze_commands_and_parameters() -> None:
    player, session = gogui_engine("brique", size=5)
    entries = ok(player, "gogui-analyze_commands").split("\n")
    assert "param/Parameters/gtpgames-param" in entries
    assert "plist/Legal Moves/gogui-rules_legal_moves" in entries
    search = [line for line in entries if "gtpgames-analyze" in line]
    assert bool(search) == ("gtpgames-analyze" in player.handlers)
    player.handlers.pop("gtpgames-analyze", None)
    assert "gtpgames-analyze" not in ok(player, "gogui-analyze_commands")
    player.add_commands({"gtpgames-analyze": lambda args: ""})
    assert "gtpgames-analyze" in ok(player, "gogui-analyze_commands")
    assert "[list/gtp/native] notation gtp" in ok(player, "gtpgames-param").split("\n")
    ok(player, "gtpgames-param time 2.5")
    ok(player, "gtpgames-param playouts 300")
    assert (session.limit.time, session.limit.playouts) == (2.5, 300)
    assert "time 2.5" in ok(player, "gtpgames-param")
    assert "time" in fail(player, "gtpgames-param time soon")
    assert session.limit.time == 2.5
    assert "unknown parameter" in fail(player, "gtpgames-param komi 3")
    ok(player, "gtpgames-param notation native")
    assert session.notation == "native"
    assert "Brique" in ok(player, "gtpgames-rules")


class WaitsForStop(Player):
    """A player that thinks until it is told to stop (bounded, so a broken interrupt fails
    the test instead of hanging it)."""

    stopped = False
    thinking = threading.Event()

    def choose_move(self, game: Game[Any], limit: Limit) -> Any:
        WaitsForStop.thinking.set()
        for _ in range(20000):
            if limit.stop():
                WaitsForStop.stopped = True
                break
            threading.Event().wait(0.001)
        return game.legal_moves()[0]


def test_interrupt_line_stops_genmove_which_answers_a_click() -> None:
    engine, session = build_engine(new_game("brax"), WaitsForStop(), None, Limit())
    engine.add_commands(gogui_handlers(engine, session))
    assert ok(engine, "known_command gogui-interrupt") == "true"
    read_end, write_end = os.pipe()
    out = io.BytesIO()
    with open(read_end, "rb", buffering=0) as stdin, open(write_end, "wb", buffering=0) as feed:
        feed.write(b"gogui-interrupt\ngogui-rules_game_id\ngenmove b\n")
        server = threading.Thread(target=engine.serve, args=(stdin, out))
        server.start()
        # GoGui sends the interrupt while genmove runs
        assert WaitsForStop.thinking.wait(20)
        feed.write(b"# interrupt\nquit\n")
        server.join(20)
    responses = out.getvalue().decode().split("\n\n")
    assert responses[1] == "= Brax"
    assert responses[2] == "= B1"  # the first click of b1-b2, the first legal move
    assert WaitsForStop.stopped


def test_brax_last_capture_ends_the_game() -> None:
    ruler, session = gogui_engine("brax")
    handshake(ruler)
    session.game = Brax.from_position({"red": "e5", "blue": "e6"}, "red")
    ok(ruler, "play b E5")
    board, side, legal = ruler_play(ruler, "b", "E6")
    assert legal == ""  # GoGui ends the game on an empty list
    assert board.split("\n")[3] == ". . . . X . . . ."
    assert ok(ruler, "gogui-rules_captured_count") == "1 0"
    assert ok(ruler, "gogui-rules_final_result").endswith("(B+).")


def test_team_brax_plays_tokens_but_refuses_gogui() -> None:
    player, session = gogui_engine("brax", players=3)
    ok(player, "play p1 c9-c8+d9-d8")
    assert len(session.game.history) == 1
    ok(player, "undo")
    assert "two-player Brax only" in fail(player, "gogui-rules_game_id")
    assert len(session.game.history) == 0


@pytest.mark.parametrize("name", ["brique", "trisq", "brax", "bricka"])
def test_genmove_shows_the_search_as_live_gfx_on_stderr(name: str) -> None:
    """In GoGui mode a searching genmove writes gogui-gfx blocks on stderr (GoGui's live
    graphics); every point in them is a GoGui point of the board, and stdout framing is
    untouched."""
    log = io.StringIO()
    options = {"size": 4} if name == "trisq" else {}
    engine, session = build_engine(new_game(name, **options), MctsPlayer(random.Random(3)),
                                   None, Limit(playouts=200))
    engine.log = log
    engine.add_commands(gogui_handlers(engine, session))
    start_player(engine)
    legal = set(ok(engine, "gogui-rules_legal_moves").split())
    color = ok(engine, "gogui-rules_side_to_move")[0]
    click = ok(engine, f"genmove {color}")
    assert click in legal
    blocks = log.getvalue().split("gogui-gfx:\n")[1:]
    assert blocks, log.getvalue()
    final = blocks[-1]
    assert final.endswith("\n\n")
    lines = final.strip("\n").split("\n")
    kinds = [line.split()[0] for line in lines]
    assert kinds[-1] == "TEXT" and "LABEL" in kinds and "INFLUENCE" in kinds
    label = next(line for line in lines if line.startswith("LABEL")).split()[1:]
    points = label[0::2]
    assert all(int(v) >= 0 for v in label[1::2])
    assert set(points) <= legal, (points, legal)
    influence = next(line for line in lines if line.startswith("INFLUENCE")).split()[1:]
    assert all(-1 <= float(v) <= 1 for v in influence[1::2])
    var = next((line for line in lines if line.startswith("VAR")), None)
    if var is not None:
        words = var.split()[1:]
        assert words[0] == color.lower()
        assert words[1] in legal


@pytest.mark.parametrize("name", ["flicker", "brax"])
def test_search_analyze_command_answers_gfx_and_keeps_the_game(name: str) -> None:
    engine, session = gogui_engine(name)
    start_player(engine)
    assert "gfx/Search on the board (1000 playouts)/gtpgames-gogui_search 1000" in ok(
        engine, "gogui-analyze_commands").split("\n")
    before = (ok(engine, "gogui-rules_board"), ok(engine, "gogui-rules_legal_moves"))
    legal = set(before[1].split())
    gfx = ok(engine, "gtpgames-gogui_search 200").split("\n")
    assert [line.split()[0] for line in gfx] == ["VAR", "LABEL", "INFLUENCE", "TEXT"]
    labels = gfx[1].split()[1:]
    assert set(labels[0::2]) <= legal
    assert sum(int(v) for v in labels[1::2]) <= 200
    assert "after 200 playouts" in gfx[3]
    assert (ok(engine, "gogui-rules_board"), ok(engine, "gogui-rules_legal_moves")) == before
    assert fail(engine, "gtpgames-gogui_search x").startswith("syntax error: playouts")


# ------------------------------------------------------------ mode, rollback, replay


@pytest.mark.parametrize("mode", ["tokens", "gogui"])
def test_play_sequence_with_tokens_leaves_the_session_as_it_was(mode: str) -> None:
    """A failed gogui-play_sequence takes back every click and every whole move it played."""
    player, session = gogui_engine("trisq")
    if mode == "gogui":
        handshake(player)
        ok(player, "gogui-play_sequence b A1 b A2")  # Red's a1vsw
        ok(player, "play w G7")  # a pending half-move of Blue
        ok(player, "undo")
    before = (ok(player, "showboard"), ok(player, "gogui-rules_board"),
              ok(player, "gogui-rules_side_to_move"), ok(player, "gogui-rules_legal_moves"),
              list(session.game.history))
    first = "w" if mode == "gogui" else "b"
    second = "b" if mode == "gogui" else "w"
    message = fail(player, f"gogui-play_sequence {first} e3vse {second} a3hne {first} zz")
    assert "move 3 of the sequence" in message
    after = (ok(player, "showboard"), ok(player, "gogui-rules_board"),
             ok(player, "gogui-rules_side_to_move"), ok(player, "gogui-rules_legal_moves"),
             list(session.game.history))
    assert after == before
    # nothing is pending: a whole move in the session's notation is accepted
    ok(player, f"play {first} e3vse")


def test_brax_play_sequence_of_clicks_and_tokens_is_all_or_nothing() -> None:
    player, session = gogui_engine("brax")
    handshake(player)
    board = ok(player, "gogui-rules_board")
    message = fail(player, "gogui-play_sequence b E1 b E3 w e9-e8 b D1 b D1")
    assert "move 5 of the sequence" in message
    assert (ok(player, "gogui-rules_board"), ok(player, "gogui-rules_side_to_move")) == (
        board, "black")
    assert session.game.history == [] and ok(player, "gogui-rules_legal_moves").startswith("B1")


def test_rules_queries_leave_the_mode_to_gogui_handshake() -> None:
    """Queries alone (a regress script, a Sabaki-style client) do not start GoGui mode:
    play, genmove, undo and boardsize keep their GTP meaning."""
    player, session = gogui_engine("trisq", size=4)
    for query in ("gogui-rules_game_id", "gogui-rules_board_size", "gogui-rules_board",
                  "gogui-rules_legal_moves", "gogui-rules_side_to_move",
                  "gogui-rules_board_gfx", "gogui-rules_final_result"):
        ok(player, query)
    assert ok(player, "gtpgames-gogui") == "off"
    ok(player, "boardsize 6")
    assert session.game.options["size"] == 6
    token = ok(player, "genmove b")
    assert session.game.format_move(session.game.history[-1]) == token
    ok(player, "undo")
    assert session.game.history == []
    # GoGui's handshake: gogui-interrupt (its probe), then gogui-rules_game_id
    assert handshake(player) == "Trisq"
    assert ok(player, "gtpgames-gogui") == "on"


def test_team_brax_gogui_commands_fail_without_changing_the_mode() -> None:
    player, session = gogui_engine("brax", players=3)
    ok(player, "gogui-interrupt")
    assert "two-player Brax only" in fail(player, "gogui-rules_game_id")
    assert "two-player Brax only" in fail(player, "gogui-rules_board_size")
    assert "two-player Brax only" in fail(player, "gtpgames-gogui on")
    assert ok(player, "gtpgames-gogui") == "off"
    ok(player, "genmove p1")
    ok(player, "undo")
    assert session.game.history == []


def test_trisq_pass_for_v_then_pass_ends_a_one_piece_turn_in_gogui() -> None:
    """The documented clicks: a corner of an empty square, ``pass`` (v), ``pass`` (end of
    the turn), through GoGui's ruler stream and to the player."""
    player, psession = gogui_engine("trisq", size=4)
    ruler, rsession = gogui_engine("trisq", size=4)
    start_player(player)
    start_ruler(ruler)
    clicks: list[str] = []
    for line in ("play b A1", "play b B1", "play w G7", "play w pass"):
        ok(player, line)
        board, side, legal = gogui_click(ruler, clicks, line)
    # G7 waits for its orientation: pass chose v; Pass stays enabled to end the turn
    assert side == "white" and "pass" in legal.split()
    assert "TEXT second piece" in ok(ruler, "gogui-rules_board_gfx")
    # the player may be asked its analyze commands (legal clicks, markings) between clicks
    assert "pass" in ok(player, "gogui-rules_legal_moves").split()
    ok(player, "gogui-rules_board_gfx")
    ok(player, "play w pass")
    board, side, legal = gogui_click(ruler, clicks, "play w pass")
    assert side == "black"
    assert rsession.game.format_move(rsession.game.history[-1]) == "d4vsw"
    assert psession.game.history == rsession.game.history


def test_search_labels_one_total_per_legal_next_click() -> None:
    player, session = gogui_engine("brax")
    start_player(player)
    for pending in ((), ("E1",)):
        for point in pending:
            ok(player, f"play b {point}")
        legal = ok(player, "gogui-rules_legal_moves").split()
        gfx = ok(player, "gtpgames-gogui_search 300").split("\n")
        label = next(line for line in gfx if line.startswith("LABEL")).split()[1:]
        points, visits = label[0::2], [int(v) for v in label[1::2]]
        assert len(points) == len(set(points)), points  # one label per point
        assert set(points) <= set(legal)
        assert visits == sorted(visits, reverse=True)
        var = next(line for line in gfx if line.startswith("VAR")).split()
        # the best move's line starts at one of the labelled next clicks (not always the
        # one with the largest total: several weaker moves may share a click)
        assert var[1] == "b" and var[2] in points
    # from the start: the visits of all root moves but the calls (first click: pass)
    assert sum(visits) <= 300 and len(points) == 3


def test_parameters_analyze_labels_and_title() -> None:
    mcts = MctsPlayer(random.Random(1))
    engine, session = build_engine(new_game("trisq", size=5), mcts, None, Limit())
    engine.add_commands(gogui_handlers(engine, session))
    params = ok(engine, "gtpgames-param").split("\n")
    assert "[string] level" in params
    for line in params:  # GoGui sends every parameter back as shown
        kind, key, *value = line.split(" ", 2)
        ok(engine, f"gtpgames-param {key} {value[0] if value else ''}".strip())
    assert mcts.level is None
    labels = [line.split("/")[1] for line in ok(engine, "gogui-analyze_commands").split("\n")]
    assert len(labels) == len(set(labels)), labels
    assert ok(engine, "gogui-title") == "Trisq size=5 - gtpgames " + engine.version


def test_gogui_replay_from_clear_board_does_not_compute_the_legal_clicks_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """GoGui replays every click into the ruler after each click; a click replayed from
    the same position is played from the tape without computing the legal clicks."""
    from adapters import gogui_games

    ruler, session = gogui_engine("brax")
    start_ruler(ruler)
    clicks: list[str] = []
    rng = random.Random(3)
    for _ in range(40):
        side = ok(ruler, "gogui-rules_side_to_move")[0]
        point = rng.choice(ok(ruler, "gogui-rules_legal_moves").split())
        gogui_click(ruler, clicks, f"play {side} {point}")
    history = list(session.game.history)
    board = ok(ruler, "gogui-rules_board")
    calls: list[int] = []
    original = gogui_games.BraxMap.options

    def counted(self: Any, pending: Any = ()) -> Any:
        calls.append(1)
        return original(self, pending)

    monkeypatch.setattr(gogui_games.BraxMap, "options", counted)
    ok(ruler, "clear_board")
    for line in clicks:
        ok(ruler, line)
    assert calls == []
    assert session.game.history == history and ok(ruler, "gogui-rules_board") == board
    # GoGui's back button: the replay stops one click short, and a new click is checked
    ok(ruler, "clear_board")
    for line in clicks[:-1]:
        ok(ruler, line)
    assert calls == []
    side = ok(ruler, "gogui-rules_side_to_move")[0]
    other = [line for line in (f"play {side} {point}" for point in
                               ok(ruler, "gogui-rules_legal_moves").split())
             if line != clicks[-1]]
    calls.clear()
    ok(ruler, other[0])
    assert calls
