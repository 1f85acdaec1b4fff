"""What a person reads: the players named by the game's own colours (Trisq's and Brax's
GTP ``b`` is Red), results without doubled words, counts with plural agreement, and what
``genmove`` answers once the game is over."""

from __future__ import annotations

import pytest

from engine.games.brax import Brax
from tests.gtp_helpers import check, make_engine, ok
from tests.rules.test_bricka import COUNT_GAMES


def status(board: str) -> str:
    """The line after a showboard diagram: who is to move, or the result."""
    return board.split("\n")[-1]


@pytest.mark.parametrize(
    ("game", "options", "first", "second"),
    [
        ("brique", {}, "Black", "White"),
        ("trisq", {}, "Red", "Blue"),
        ("flicker", {}, "Black", "White"),
        ("brax", {}, "Red", "Blue"),
        ("brax", {"players": 3}, "p1 (Blue)", "p2 (Red)"),
        ("bricka", {}, "White", "Black"),
    ],
)
def test_showboard_names_the_player_to_move_by_the_games_colour(
    game: str, options: dict[str, object], first: str, second: str
) -> None:
    gtp, session = make_engine(game, seed=3, **options)
    assert status(ok(gtp, "showboard")) == f"{first} to move"
    ok(gtp, f"genmove {session.game.color_name(session.game.to_move)}")
    assert status(ok(gtp, "showboard")) == f"{second} to move"


def test_trisq_legend_and_result_use_red_and_blue() -> None:
    """Rules worked example 4 on 4x4: Red joins its edges."""
    gtp, _ = make_engine("trisq", size=4)
    legend = ok(gtp, "showboard").split("\n")[-2]
    assert legend == "R = Red (bottom and top edges), B = Blue (left and right edges), . = empty"
    for move in ("b b1vsw", "w d4hne", "b b1vnw+b2vsw", "w d3hne", "b b2vnw+b3vsw",
                 "w d2hne", "b b3vnw+b4vsw", "w d1hne", "b b4vnw"):
        check(gtp, f"play {move}", "= \n\n")
    assert status(ok(gtp, "showboard")) == "game over: Red joins the bottom and top edges"
    assert ok(gtp, "gtpgames-result") == "red Red joins the bottom and top edges"
    assert ok(gtp, "final_score") == "B+"  # B+ is the GTP colour b: Red
    check(gtp, "genmove w", "= resign\n\n")
    check(gtp, "genmove b", "= pass\n\n")


def test_brax_counts_agree_and_a_draw_is_said_once() -> None:
    gtp, session = make_engine("brax")
    session.replace_game(Brax.from_position({"red": "b1", "blue": "b9 c9"}, "red"))
    board = ok(gtp, "showboard")
    assert "Red 1 piece, Blue 2 pieces; 0 plies without capture" in board
    check(gtp, "play red b1-b2", "= \n\n")
    assert "; 1 ply without capture" in ok(gtp, "showboard")
    session.replace_game(Brax.from_position({"red": "b1 c1", "blue": "b9 c9"}, "red"))
    for _ in range(2):
        for move in ("b b1-b2", "w b9-b8", "b b2-b1", "w b8-b9"):
            check(gtp, f"play {move}", "= \n\n")
    assert ok(gtp, "gtpgames-result") == "draw the position occurred for the third time (X14)"
    assert status(ok(gtp, "showboard")) == (
        "game over: draw: the position occurred for the third time (X14)"
    )
    assert ok(gtp, "final_score") == "0"
    for color in ("b", "w"):
        check(gtp, f"genmove {color}", "= pass\n\n")  # a draw: nobody has lost


def test_bricka_results_do_not_repeat_the_winner_or_the_draw() -> None:
    gtp, session = make_engine("bricka")
    for k, token in enumerate(COUNT_GAMES["draw"].split()):
        check(gtp, f"play {'wb'[k % 2]} {token}", "= \n\n")
    result = ok(gtp, "gtpgames-result")
    assert result.startswith("draw equal count on a full board, ")
    assert status(ok(gtp, "showboard")).startswith("game over: draw: equal count on a full")
    check(gtp, "genmove w", "= pass\n\n")
    check(gtp, "genmove b", "= pass\n\n")
    gtp, session = make_engine("bricka")
    for k, token in enumerate(COUNT_GAMES["white"].split()):
        check(gtp, f"play {'wb'[k % 2]} {token}", "= \n\n")
    result = ok(gtp, "gtpgames-result")
    assert result.startswith("white White has more pieces on a full board, ")
    assert "wins" not in result
    check(gtp, "genmove w", "= pass\n\n")
    check(gtp, "genmove b", "= resign\n\n")
