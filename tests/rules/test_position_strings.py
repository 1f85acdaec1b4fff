"""Position strings (Game.position_string / from_position_string, docs/ugi.md): the start
strings written out by hand from the format, round trips along random games for every game
(the rebuilt game has the same legal moves, continues to the same outcome, and its copies do
too), the state beyond the board that the strings carry (swap, Flicker's restrictions and
repetition record, Brax's obligation, ban and repetition counts, Bricka's blocking and passes,
Trisq's first turn), and bad strings rejected with errors that name the bad field."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.games.brax import Brax
from engine.games.bricka import PASS, Bricka
from engine.games.brique import Brique
from engine.games.core import Game, GameError, PositionError
from engine.games.flicker import Flicker
from engine.games.registry import new_game
from engine.games.trisq import Trisq

# -------------------------------------------------------------------- the start positions


@pytest.mark.parametrize(
    ("game", "text"),
    [
        (Brique(), "/".join(["11"] * 11) + " b swap"),
        (Brique(size=5, pie=False), "5/5/5/5/5 b -"),
        (Flicker(size=4), "4/4/4/4 b swap - - -"),
        (Trisq(), "/".join(["8"] * 8) + " r -"),
        # rules: Red on b1-h1, Blue on b9-h9; the start position counted once (X14)
        (Brax(), "1bbbbbbb1/9/9/9/9/9/9/9/1rrrrrrr1 red - - - 0 "
                 "1bbbbbbb1/9/9/9/9/9/9/9/1rrrrrrr1:red:1"),
        (Brax(hunt=True, first="blue"), "1bbbbbbb1/9/9/9/9/9/9/9/4r4 blue - - - 0 "
                                        "1bbbbbbb1/9/9/9/9/9/9/9/4r4:blue:1"),
    ],
)
def test_start_strings(game: Game[Any], text: str) -> None:
    assert game.position_string() == text
    again = type(game).from_position_string(text, **game.options)
    assert again.position_string() == text
    assert len(again.history) == 0


def test_bricka_start_string_lists_the_69_intersections_row_by_row() -> None:
    text = Bricka().position_string()
    board, side, last = text.split()
    assert (side, last) == ("w", "-")  # White moves first (K3)
    assert sum(int(row) for row in board.split("/")) == 69
    assert len(board.split("/")) == 13


def test_brique_swap_example_from_the_rules() -> None:
    # docs/rules/README.md: on 11x11, "f4 swap" leaves a White stone on h6, Black to move
    game = Brique()
    game.play_text("f4")
    text = game.position_string()
    assert text == "11/11/11/11/11/11/11/5x5/11/11/11 w swap"
    loaded = Brique.from_position_string(text)
    loaded.play_text("swap")
    assert loaded.position_string() == "11/11/11/11/11/7o3/11/11/11/11/11 b -"
    assert loaded.undo().is_swap  # the first stone is real history: undo goes back to it
    assert loaded.position_string() == text


def test_a_midgame_brique_string_has_the_swap_spent() -> None:
    game = Brique.from_position_string("5/5/2x2/5/5 b -")
    game.play_text("a1")
    assert "swap" not in [game.format_move(m) for m in game.legal_moves()]
    assert game.position_string() == "5/5/2x2/5/x4 w -"
    game.undo()
    assert game.position_string() == "5/5/2x2/5/5 b -"
    with pytest.raises(GameError, match="no move to undo"):
        game.undo()


# ------------------------------------------------------------------ round trips, every game

CASES: list[tuple[str, dict[str, object], int, int]] = [
    # name, options, games, check every k-th ply (the last position is always checked)
    ("brique", {"size": 5}, 12, 1),
    ("brique", {"size": 9, "pie": False}, 3, 1),
    ("flicker", {"size": 3}, 20, 1),
    ("flicker", {"size": 5}, 6, 1),
    ("trisq", {"size": 4}, 3, 1),
    ("trisq", {}, 1, 1),
    ("brax", {}, 1, 3),
    ("brax", {"hunt": True, "first": "blue", "nocapture": False}, 1, 3),
    ("bricka", {}, 12, 1),
]


def game_size(options: dict[str, object]) -> int:
    return int(str(options.get("size", 8)))


def moves_of(game: Game[Any]) -> list[str]:
    return sorted(game.format_move(move, "native") for move in game.legal_moves())


def continue_both(a: Game[Any], b: Game[Any], rng: random.Random, plies: int) -> None:
    """Play the same random moves in ``a`` and ``b``; they must agree all the way."""
    for _ in range(plies):
        assert a.outcome() == b.outcome()
        if a.outcome() is not None:
            return
        move = a.random_move(rng)
        assert b.illegal_reason(move) is None
        a.play(move)
        b.play(move)
        assert a.position_string() == b.position_string()


@pytest.mark.parametrize(("name", "options", "games", "stride"), CASES)
def test_round_trip_along_random_games(
    name: str, options: dict[str, object], games: int, stride: int
) -> None:
    rng = random.Random(f"{name}{options}")
    full = name != "trisq" or game_size(options) < 8  # 8x8 Trisq: ~10^5 turns, counted
    for _ in range(games):
        game = new_game(name, **options)
        while True:
            if len(game.history) % stride and game.outcome() is None:
                game.play(game.random_move(rng))
                continue
            text = game.position_string()
            loaded = type(game).from_position_string(text, **game.options)
            assert loaded.position_string() == text
            assert loaded.outcome() == game.outcome(), text
            if game.outcome() is not None:
                break
            assert loaded.to_move == game.to_move
            if full:
                assert moves_of(loaded) == moves_of(game), text
            else:
                assert loaded.perft(1) == game.perft(1), text
            seed = rng.random()
            continue_both(game.copy(), loaded.copy(), random.Random(seed), 8)
            continue_both(game.copy(), loaded, random.Random(seed), 8)
            game.play(game.random_move(rng))


def test_the_undone_last_moves_are_real() -> None:
    """Flicker and Bricka replay the turns their strings record: undoing them gives the
    boards the original game had."""
    rng = random.Random(5)
    games: list[Game[Any]] = [Flicker(size=5), Bricka()]
    for game in games:
        for _ in range(20):
            game.play(game.random_move(rng))
        loaded = type(game).from_position_string(game.position_string(), **game.options)
        steps = 2 if isinstance(game, Flicker) else 1
        for _ in range(steps):
            game.undo()
            loaded.undo()
            assert loaded.position_string().split()[0] == game.position_string().split()[0]
        with pytest.raises(GameError):
            loaded.undo()


# ------------------------------------------------------------- the state beyond the board


def test_flicker_restrictions_survive() -> None:
    # Example 4 of the rules: the fill, then a removal cycle whose every turn is restricted
    fill = "a1 b1 c1 d1 e1 c2 a2 a3 b2 c3 d2 d3 e2 a4 b3 b4 e3 e4 c4 b5 d4 c5 a5 e5 d5"
    game = Flicker(size=5)
    for token in fill.split():
        game.play_text(token, "native")
    game.play_text("b2", "native")  # White removes Black's b2
    loaded = Flicker.from_position_string(game.position_string())
    assert game.position_string().split()[3:5] == ["+d5", "xb2"]
    # Black may neither place on b2 (just emptied) nor remove (a removal last turn): pass
    assert moves_of(loaded) == ["pass"]
    loaded.play_text("pass")
    game.play_text("pass")
    # White removed on its previous turn: no removal, only the placement on b2
    assert moves_of(loaded) == moves_of(game) == ["b2"]


def test_flicker_repetition_record_survives() -> None:
    """Example 4: position P repeats after the 18-turn cycle and the game is drawn; a game
    rebuilt halfway through the cycle draws at the same turn, one without the record not."""
    fill = "a1 b1 c1 d1 e1 c2 a2 a3 b2 c3 d2 d3 e2 a4 b3 b4 e3 e4 c4 b5 d4 c5 a5 e5 d5"
    cycle = "b2 pass b2 c3 pass c3 d4 pass d4 b2 pass b2 c3 pass c3 d4 pass d4".split()
    game = Flicker(size=5)
    for token in fill.split() + cycle[:9]:
        game.play_text(token, "native")
    text = game.position_string()
    loaded = Flicker.from_position_string(text)
    forgetful = Flicker.from_position_string(" ".join(text.split()[:5] + ["-"]))
    for token in cycle[9:]:
        for each in (game, loaded, forgetful):
            assert each.outcome() is None
            each.play_text(token, "native")
    assert game.outcome() == loaded.outcome()
    outcome = loaded.outcome()
    assert outcome is not None and outcome.winner is None
    assert forgetful.outcome() is None


def test_brax_repetition_counts_survive() -> None:
    # e1-e2 e9-e8 e2-e1 e8-e9 brings the start back (count 2); once more is the third (X14)
    shuffle = ["e1-e2", "e9-e8", "e2-e1", "e8-e9"]
    game = Brax()
    for token in shuffle:
        game.play_text(token, "native")
    text = game.position_string()
    assert text.endswith(":red:2") or ":red:2," in text
    loaded = Brax.from_position_string(text)
    forgetful = Brax.from_position_string(" ".join(text.split()[:6] + ["-"]))
    for token in shuffle:
        for each in (game, loaded, forgetful):
            each.play_text(token, "native")
    assert loaded.outcome() == game.outcome()
    outcome = loaded.outcome()
    assert outcome is not None and "third" in outcome.reason
    assert forgetful.outcome() is None


def test_brax_obligation_and_ban_survive() -> None:
    """Along random games, every position with a pending obligation or a call ban rebuilds
    with the same legal turns (calls included); such positions do occur."""
    rng = random.Random(11)
    seen = {"forced": 0, "ban": 0}
    game = Brax()
    while game.outcome() is None and min(seen.values()) < 5:
        fields = game.position_string().split()
        if fields[2] != "-" or fields[3] != "-":
            seen["forced"] += fields[2] != "-"
            seen["ban"] += fields[3] != "-"
            loaded = Brax.from_position_string(game.position_string())
            assert moves_of(loaded) == moves_of(game)
        game.play(game.random_move(rng))
        if game.outcome() is not None:
            game = Brax()
    assert min(seen.values()) >= 5


def test_bricka_blocking_and_passes() -> None:
    game = Bricka()
    game.play_text("g7", "native")
    loaded = Bricka.from_position_string(game.position_string())
    assert loaded.blocked() == game.blocked() != frozenset()
    assert moves_of(loaded) == moves_of(game)
    # two passes in a row end the game by count (K10): "pass" then a pass ends it
    text = game.position_string().replace(" g7", " pass")
    after_pass = Bricka.from_position_string(text)
    assert after_pass.history == [PASS]
    after_pass.play(PASS)
    assert after_pass.outcome() is not None
    ended = Bricka.from_position_string(after_pass.position_string())
    assert after_pass.position_string().endswith(" pass,pass")
    assert ended.outcome() == after_pass.outcome()


def test_trisq_first_turn_is_a_single_placement() -> None:
    start = Trisq.from_position_string("/".join(["4"] * 4) + " r -")
    assert all(len(move) == 1 for move in start.legal_moves())
    start.play_text("b2hne", "native")
    later = Trisq.from_position_string(start.position_string())
    assert any(len(move) == 2 for move in later.legal_moves())
    # the same board written without its last turn is still not a first turn
    bare = Trisq.from_position_string(start.position_string().rsplit(" ", 1)[0] + " -")
    assert bare.perft(1) == later.perft(1)


# ----------------------------------------------------------------------------- bad strings


@pytest.mark.parametrize(
    ("cls", "options", "text", "names"),
    [
        (Brique, {}, "5/5/5/5/5 b", "expected 3 fields"),
        (Brique, {}, "5/5/5/5/5 x swap", "to-move field 'x'"),
        (Brique, {}, "5/5/5/5/4z b -", "row 1 of the board"),
        (Brique, {}, "5/5/5/5/6 b -", "row 1 of the board ('6') has 6 cells"),
        (Brique, {"size": 7}, "5/5/5/5/5 b -", "has 5 rows, expected 7"),
        (Brique, {"pie": False}, "5/5/5/5/5 b swap", "pie option is off"),
        (Brique, {}, "5/5/1x3/5/5 b swap", "swap field 'swap' needs"),
        (Brique, {}, "x4/x4/x4/x4/x4 b -", "already connects"),
        (Brique, {}, "3/1x1/x2 w -", "a2 must hold a Black stone, as its escorts a1 and b2"),
        (Brique, {}, "3/1o1/o2 b -", "a2 must hold a White stone"),
        (Flicker, {}, "3/3/3 b - - +b2 -", "needs a white stone"),
        (Flicker, {}, "3/3/3 b - - q9 -", "last field 'q9'"),
        (Flicker, {}, "3/3/3 b - - - zz", "seen field has 'zz'"),
        (Flicker, {}, "3/3/3 b - +a1 - -", "prev field '+a1' needs a last turn"),
        (Trisq, {}, "4/4/4/4 b -", "Red moves first"),
        (Trisq, {}, "4/4/4/hr...3 b a1hsw+b1hsw", "last field"),
        (Trisq, {}, "4/4/4/h....3 b -", "orientation but no piece"),
        (Brax, {}, "9/9/9/9/9/9/9/9/4r4 red e5 - - 0 -", "forced field 'e5'"),
        (Brax, {}, "4b4/9/9/9/9/9/9/9/4r4 red - - - x -", "quiet field 'x'"),
        (Brax, {}, "4b4/9/9/9/9/9/9/9/4r4 red - - - 0 9/9:red:1", "rep entry"),
        (Brax, {"players": 3}, "9/9/9/9/9/9/9/9/9 red - - - 0 -", "two-player game only"),
        (Bricka, {}, "2/4/5/8/4/8/7/8/4/8/5/4/2 b g7", "last field 'g7' needs"),
        (Bricka, {}, "2/4/5/8/4/8/7/8/4/8/5/4/2 w n1", "last field"),
    ],
)
def test_bad_strings_are_rejected_naming_the_bad_part(
    cls: type[Game[Any]], options: dict[str, object], text: str, names: str
) -> None:
    with pytest.raises(GameError) as error:
        cls.from_position_string(text, **options)
    assert names in str(error.value)
    assert isinstance(error.value, PositionError) or "option" in str(error.value)


# ------------------------------------------------------------------------ docs/ugi.md examples

DOC_EXAMPLES = [
    ("brique", {"size": 7}, "d4 swap c5 e3"),
    ("flicker", {"size": 5, "pie": False}, "b2 c2 c3 b3 c2"),
    ("trisq", {"size": 4}, "b2hne c3vsw+b3hsw"),
    ("brax", {}, "e1-e2-e3 d9-d8"),
    ("bricka", {}, "g7 c3"),
]


@pytest.mark.parametrize(("name", "options", "moves"), DOC_EXAMPLES)
def test_the_examples_in_the_docs_are_true(
    name: str, options: dict[str, object], moves: str
) -> None:
    from pathlib import Path

    docs = (Path(__file__).parents[2] / "docs" / "ugi.md").read_text()
    game = new_game(name, **options)
    for token in moves.split():
        game.play_text(token, "native")
    assert f"```text\n{game.position_string()}\n```" in docs
    assert f"After `{moves}`" in docs
