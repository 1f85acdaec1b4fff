"""The game session over GTP, in-process: standard commands and the gtpgames- extensions,
for every registered game, plus Brique transcripts."""

from __future__ import annotations

import random

import pytest

from engine.games.notation import natural_key
from engine.games.registry import GAMES, available_games, new_game
from protocol.engine import GtpEngine
from protocol.session import GameSession
from tests.gtp_helpers import check, fail, make_engine, ok

GAME_NAMES = available_games()
#: Smaller boards where a full move list at every ply would be slow (Trisq: ~10^5 turns).
SMALL: dict[str, dict[str, str]] = {"trisq": {"size": "5"}}
REQUIRED = (
    "protocol_version name version known_command list_commands quit boardsize clear_board "
    "komi play genmove undo showboard final_score reg_genmove time_settings time_left "
    "kgs-time_settings gtpgames-game gtpgames-games gtpgames-option gtpgames-notation "
    "gtpgames-legal_moves gtpgames-perft gtpgames-result"
).split()


def position(gtp: GtpEngine, session: GameSession) -> tuple[str, ...]:
    """What must not change after a failed command."""
    return (
        ok(gtp, "showboard"),
        ok(gtp, "gtpgames-game"),
        ok(gtp, "gtpgames-notation"),
        " ".join(session.game.format_move(m) for m in session.game.history),
    )


@pytest.mark.parametrize("name", GAME_NAMES)
def test_required_commands_are_listed(name: str) -> None:
    gtp, _ = make_engine(name)
    listed = ok(gtp, "list_commands").split("\n")
    for command in REQUIRED:
        assert command in listed
        check(gtp, f"known_command {command}", "= true\n\n")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_whole_game_by_genmove(name: str) -> None:
    gtp, session = make_engine(name, seed=7, **SMALL.get(name, {}))
    fail(gtp, "final_score").startswith("cannot score")
    assert ok(gtp, "gtpgames-result").startswith("none")
    plies = 0
    while True:
        board = ok(gtp, "showboard")
        assert board.startswith("\n")
        if session.game.is_over():
            break
        color = session.game.color_name(session.game.to_move)
        legal = ok(gtp, "gtpgames-legal_moves").split()
        assert legal == sorted(legal, key=natural_key)
        assert len(set(legal)) == len(legal)
        reg = ok(gtp, f"reg_genmove {color}")
        assert ok(gtp, "showboard") == board, "reg_genmove must not play"
        move = ok(gtp, f"genmove {color}")
        assert move != "resign"
        plies += 1
        assert plies < 5000
        del reg
    result = ok(gtp, "gtpgames-result")
    score = ok(gtp, "final_score")
    winner = result.split()[0]
    assert winner in (*session.game.side_names, "draw")
    expected = {"draw": "0", session.game.side_names[0]: "B+", session.game.side_names[1]: "W+"}
    assert score == expected[winner]
    # after the end genmove answers (it never fails): resign for a side that has lost,
    # pass for the winner or after a draw
    outcome = session.game.outcome()
    assert outcome is not None
    for color in session.game.COLORS:
        side = session.game.side_of(session.game.parse_color(color))
        lost = outcome.winner is not None and outcome.winner != side
        answer = "resign" if lost else "pass"
        check(gtp, f"genmove {color}", f"= {answer}\n\n")
        check(gtp, f"reg_genmove {color}", f"= {answer}\n\n")
    some = session.game.color_name(0)
    assert fail(gtp, f"play {some} a1") == "illegal move: game over"
    assert ok(gtp, "gtpgames-legal_moves") == ""
    # undo leaves the finished game and the game goes on
    ok(gtp, "undo")
    assert ok(gtp, "gtpgames-result").startswith("none")
    fail(gtp, "final_score")
    assert ok(gtp, "gtpgames-legal_moves") != ""


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("play", "syntax error: expected 2 arguments, got 0"),
        ("play b", "syntax error: expected 2 arguments, got 1"),
        ("play purple a1", "syntax error: invalid color 'purple'"),
        ("play b zz99", "syntax error: invalid move 'zz99'"),
        ("genmove", "syntax error: expected 1 argument, got 0"),
        ("genmove q", "syntax error: invalid color 'q'"),
        ("boardsize", "syntax error: expected 1 argument"),
        ("boardsize x", "syntax error: board size must be an integer, got 'x'"),
        ("boardsize 99", "unacceptable size"),
        ("boardsize 1", "unacceptable size"),
        ("komi", "syntax error: expected 1 argument"),
        ("komi abc", "syntax error: komi must be a number, got 'abc'"),
        ("komi nan", "syntax error: invalid komi 'nan'"),
        ("clear_board x", "syntax error: expected 0 arguments, got 1"),
        ("final_score", "cannot score"),
        ("time_settings 1 2", "syntax error: expected 3 arguments, got 2"),
        ("time_settings a 0 0", "syntax error: main time must be an integer, got 'a'"),
        ("time_settings -5 0 0", "syntax error: main time -5 is out of range 0.."),
        ("time_left b 10", "syntax error: expected 3 arguments"),
        ("time_left x 10 0", "syntax error: invalid color 'x'"),
        ("time_left b ten 0", "syntax error: time must be a number, got 'ten'"),
        ("kgs-time_settings", "syntax error: expected none, absolute, byoyomi or canadian"),
        ("kgs-time_settings fischer 1 2", "syntax error: unknown time system 'fischer'"),
        ("kgs-time_settings byoyomi 10 5", "syntax error: expected 4 arguments, got 3"),
        ("kgs-time_settings absolute x", "syntax error: main time must be an integer"),
        ("gtpgames-game nosuchgame", "unknown game 'nosuchgame'"),
        ("gtpgames-game brique size=2", "syntax error: option size: 2 is out of range"),
        ("gtpgames-game brique size", "syntax error: expected KEY=VALUE, got 'size'"),
        ("gtpgames-game brique colour=red", "syntax error: unknown option 'colour'"),
        ("gtpgames-option size", "syntax error: expected 2 arguments, got 1"),
        ("gtpgames-option nosuch 3", "syntax error: unknown option 'nosuch'"),
        ("gtpgames-notation klingon", "syntax error: unknown notation 'klingon'"),
        ("gtpgames-perft", "syntax error: expected 1 argument, got 0"),
        ("gtpgames-perft -1", "syntax error: depth -1 is out of range 0..64"),
        ("gtpgames-perft deep", "syntax error: depth must be an integer, got 'deep'"),
        ("gtpgames-games x", "syntax error: expected 0 arguments, got 1"),
    ],
)
def test_bad_input_fails_clearly_and_keeps_state(name: str, line: str, message: str) -> None:
    gtp, session = make_engine(name, seed=3)
    for _ in range(3):
        ok(gtp, f"genmove {session.game.color_name(session.game.to_move)}")
    before = position(gtp, session)
    assert fail(gtp, line).startswith(message)
    assert position(gtp, session) == before


@pytest.mark.parametrize("name", GAME_NAMES)
def test_undo_on_empty_history_fails(name: str) -> None:
    gtp, session = make_engine(name)
    before = position(gtp, session)
    assert fail(gtp, "undo") == "cannot undo: no move to take back"
    assert position(gtp, session) == before


@pytest.mark.parametrize("name", GAME_NAMES)
def test_wrong_turn_and_illegal_moves_keep_state(name: str) -> None:
    gtp, session = make_engine(name, seed=5)
    game = session.game
    mover = game.to_move
    other = next(p for p in set(game.COLORS.values()) if p != mover)
    first = sorted(ok(gtp, "gtpgames-legal_moves").split(), key=natural_key)[0]
    before = position(gtp, session)
    assert fail(gtp, f"play {game.color_name(other)} {first}").startswith(
        f"illegal move: {game.color_name(other)} is not to move"
    )
    assert fail(gtp, f"genmove {game.color_name(other)}").startswith("illegal move:")
    assert position(gtp, session) == before
    ok(gtp, f"play {game.color_name(mover)} {first}")
    # the same token again is now illegal (every game here forbids replaying a move just
    # played by the other side, or the colour check catches it first)
    mover2 = game.color_name(game.to_move)
    before = position(gtp, session)
    if first not in ok(gtp, "gtpgames-legal_moves").split():
        assert fail(gtp, f"play {mover2} {first}").startswith("illegal move:")
    assert position(gtp, session) == before


@pytest.mark.parametrize("name", GAME_NAMES)
def test_legal_moves_perft_and_play(name: str) -> None:
    gtp, session = make_engine(name, seed=9)
    rng = random.Random(2)
    for _ in range(4):
        if session.game.is_over():
            break
        legal = ok(gtp, "gtpgames-legal_moves").split()
        expected = {session.game.format_move(m, session.notation)
                    for m in session.game.listed_moves()}
        assert set(legal) == expected
        assert ok(gtp, "gtpgames-perft 1") == str(len(session.game.legal_moves()))
        assert ok(gtp, "gtpgames-perft 0") == "1"
        token = rng.choice(legal)
        color = session.game.color_name(session.game.to_move)
        check(gtp, f"7 play {color.upper()} {token.upper()}", "=7 \n\n")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_game_switching_and_options(name: str) -> None:
    gtp, session = make_engine("brique" if name != "brique" else "flicker")
    reply = ok(gtp, f"gtpgames-game {name}")
    assert reply.split()[0] == name
    assert session.game.name == name
    assert ok(gtp, "gtpgames-game") == reply
    assert ok(gtp, "gtpgames-notation") == session.game.DEFAULT_NOTATION
    listing = ok(gtp, "gtpgames-games").split("\n")
    assert [line.split()[0] for line in listing] == GAME_NAMES
    for spec in session.game.OPTIONS:
        assert f"{spec.name}={spec.format(spec.default)}" in reply
        if spec.kind == "int":
            value = str(spec.minimum)
        elif spec.kind == "bool":
            value = "off" if spec.default else "on"
        else:
            value = next(c for c in spec.choices if c != spec.default)
        reply2 = ok(gtp, f"gtpgames-option {spec.name} {value}")
        assert f"{spec.name}={value}" in reply2
        assert session.game.options[spec.name] == spec.parse(value)
        ok(gtp, f"gtpgames-option {spec.name} {spec.format(spec.default)}")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_boardsize_and_clear_board(name: str) -> None:
    gtp, session = make_engine(name, seed=1)
    ok(gtp, f"genmove {session.game.color_name(session.game.to_move)}")
    size = session.game.board_size
    ok(gtp, f"boardsize {size}")
    assert not session.game.history
    ok(gtp, f"genmove {session.game.color_name(session.game.to_move)}")
    ok(gtp, "clear_board")
    assert not session.game.history
    if any(spec.name == "size" for spec in session.game.OPTIONS):
        ok(gtp, "boardsize 5")
        assert session.game.board_size == 5
    else:
        assert fail(gtp, f"boardsize {size + 1}").startswith("unacceptable size")


def test_every_registry_game_has_a_session() -> None:
    assert GAME_NAMES == list(GAMES)


def test_time_commands_shape_the_player_limit() -> None:
    gtp, session = make_engine("brique")
    ok(gtp, "time_settings 300 0 0")
    assert session.time_control.kind == "absolute"
    ok(gtp, "time_left b 30 0")
    assert session.clocks[0].seconds == 30
    budget = session.time_control.budget(session.clocks[0])
    assert budget is not None and 0 < budget < 30
    ok(gtp, "time_settings 0 10 0")
    assert session.time_control.kind == "none"
    ok(gtp, "kgs-time_settings byoyomi 60 10 3")
    assert (session.time_control.kind, session.time_control.stones) == ("byoyomi", 3)
    ok(gtp, "kgs-time_settings canadian 60 30 5")
    assert session.time_control.kind == "canadian"
    ok(gtp, "time_left w 20 4")
    budget = session.time_control.budget(session.clocks[1])
    assert budget is not None and budget <= 5
    ok(gtp, "kgs-time_settings none")
    assert session.time_control.budget(None) is None
    ok(gtp, "komi 6.5")
    assert session.komi == 6.5


BRIQUE_TRANSCRIPT = [
    ("1 boardsize 4", "=1 \n\n"),
    ("play b b2", "= \n\n"),
    ("play w c2", "= \n\n"),
    ("play b c2", "? illegal move: c2 is occupied by White\n\n"),
    ("play b c3", "= \n\n"),
    ("gtpgames-legal_moves", "= a1 a2 a3 a4 b1 b3 b4 c1 c4 d1 d2 d3 d4\n\n"),
    ("undo", "= \n\n"),
    ("gtpgames-legal_moves", "= a1 a2 a3 a4 b1 b3 b4 c1 c3 c4 d1 d2 d3 d4\n\n"),
    ("play b c3", "= \n\n"),
    ("final_score", "? cannot score: the game is not over\n\n"),
    ("play w swap", "? illegal move: swap is only allowed on White's first turn\n\n"),
]


def test_brique_transcript() -> None:
    gtp, _ = make_engine("brique")
    for line, response in BRIQUE_TRANSCRIPT:
        check(gtp, line, response)


def test_brique_worked_example_4_over_gtp() -> None:
    gtp, _ = make_engine("brique", size=4)
    for i, move in enumerate("a1 d1 b2 a4 c3 d3 d4".split()):
        check(gtp, f"play {'bw'[i % 2]} {move}", "= \n\n")
    check(gtp, "final_score", "= B+\n\n")
    assert ok(gtp, "gtpgames-result").startswith("black ")
    check(gtp, "genmove w", "= resign\n\n")
    check(gtp, "genmove b", "= pass\n\n")


def test_notation_switch_changes_tokens() -> None:
    gtp, session = make_engine("brique")
    ok(gtp, "play b j10")
    assert ok(gtp, "gtpgames-notation native") == "native"
    ok(gtp, "play w i3")
    assert [session.game.format_move(m, "gtp") for m in session.game.history] == ["j10", "j3"]
    assert fail(gtp, "play b z1").startswith("syntax error: invalid move 'z1'")
    assert new_game("brique").name == "brique"


@pytest.mark.parametrize("name", ["brique", "trisq", "flicker", "brax", "bricka"])
def test_position_string_out_and_in(name: str) -> None:
    gtp, session = make_engine(name, seed=3, **SMALL.get(name, {}))
    for _ in range(4):
        ok(gtp, f"genmove {session.game.color_name(session.game.to_move)}")
    text = ok(gtp, "gtpgames-position")
    assert text == session.game.position_string()
    legal = ok(gtp, "gtpgames-legal_moves")
    other, other_session = make_engine(name, seed=3, **SMALL.get(name, {}))
    assert ok(other, f"gtpgames-position {text}") == ""
    assert ok(other, "gtpgames-position") == text
    assert ok(other, "gtpgames-legal_moves") == legal
    before = position(other, other_session)
    assert fail(other, "gtpgames-position zz b -").startswith("syntax error: ")
    assert position(other, other_session) == before


def test_position_of_a_team_game_fails_clearly() -> None:
    gtp, _ = make_engine("brax", players=3)
    assert fail(gtp, "gtpgames-position").startswith("cannot write the position: ")
