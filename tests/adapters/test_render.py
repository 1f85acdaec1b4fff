"""Board pictures (adapters.render): well-formed SVG with the true geometry of each game, the
pieces where the rules core has them, the click contract, the GTP extension gtpgames-svg and
the ``gtpgames render`` command."""

from __future__ import annotations

import random
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.render import render_png, render_svg
from adapters.render.gtp import svg_handlers
from engine.games.brax_board import HORIZONTAL_ROWS, VERTICAL_ROWS
from engine.games.bricka import NEUTRAL
from engine.games.bricka_board import CELL_NAMES, POINTS
from engine.games.core import Game
from engine.games.notation import format_point, parse_point
from engine.games.registry import GAMES, new_game
from engine.search.base import MoveStat
from tests.gtp_helpers import make_engine

NS = "{http://www.w3.org/2000/svg}"
ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).with_name("gtpgames")
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "gtpgames"]


def parse(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == f"{NS}svg"
    return root


def elements(root: ET.Element, cls: str) -> Iterator[ET.Element]:
    """Elements whose class list contains every word of ``cls``."""
    words = set(cls.split())
    for element in root.iter():
        if words <= set(element.get("class", "").split()):
            yield element


def visible(root: ET.Element) -> Iterator[ET.Element]:
    """Every element not inside a ``display="none"`` group."""
    def walk(node: ET.Element) -> Iterator[ET.Element]:
        if node.get("display") == "none":
            return
        yield node
        for child in node:
            yield from walk(child)
    yield from walk(root)


def pieces(root: ET.Element) -> dict[str, set[str]]:
    """Owner class (p0, p1, neutral) -> the data-piece tokens."""
    out: dict[str, set[str]] = {}
    for element in root.iter():
        token = element.get("data-piece")
        if token is None:
            continue
        classes = element.get("class", "").split()
        assert "piece" in classes
        owner = next(c for c in classes if c in ("p0", "p1", "p2", "p3", "neutral"))
        out.setdefault(owner, set()).add(token)
    return out


def random_game(name: str, plies: int, seed: int = 7, **options: Any) -> Game[Any]:
    game = new_game(name, **options)
    rng = random.Random(seed)
    for _ in range(plies):
        if game.is_over():
            break
        game.play(game.random_move(rng))
    return game


# ------------------------------------------------------------------------ every game


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("notation", ["gtp", "native"])
def test_every_game_renders_well_formed_svg(name: str, notation: str) -> None:
    game = random_game(name, 12)
    text = render_svg(game, notation=notation, legal=True, width=500)
    root = parse(text)
    assert "\n" not in text
    assert root.get("viewBox", "").startswith("0 0 ")
    assert root.get("width") == "500"
    assert float(root.get("height", "0")) > 0
    assert f"board {name}" == root.get("class")
    # every target parses as a move of the game in this notation (Trisq: one placement;
    # Brax: a point of the board, which the path of a move joins with '-')
    targets = [e.get("data-target") for e in root.iter() if e.get("data-target")]
    assert targets
    for token in targets:
        assert token is not None
        if name == "brax":
            assert parse_point(token, 9, 9, notation) is not None  # type: ignore[arg-type]
        else:
            game.parse_move(token, notation)  # type: ignore[arg-type]
    assert len(targets) == len(set(targets))
    # the game is untouched
    assert len(game.history) == 12 or game.is_over()


@pytest.mark.parametrize(("name", "options"), [
    *((name, {}) for name in GAMES), ("brax", {"players": 3}), ("brax", {"players": 4}),
    ("brax", {"hunt": True}), ("brique", {"size": 4}), ("flicker", {"size": 25}),
])
def test_pieces_are_where_the_rules_core_has_them(name: str, options: dict[str, Any]) -> None:
    game = random_game(name, 30, seed=3, **options)
    for notation in ("gtp", "native"):
        root = parse(render_svg(game, notation=notation))
        assert pieces(root) == expected_pieces(game, notation)


def expected_pieces(game: Game[Any], notation: Any) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}

    def put(owner: str, token: str) -> None:
        out.setdefault(owner, set()).add(token)

    name = game.name
    if name in ("brique", "flicker"):
        n = int(game.options["size"])
        for r in range(n):
            for f in range(n):
                stone = game.stone(f, r)  # type: ignore[attr-defined]
                if stone is not None and stone >= 0:
                    put(f"p{stone}", format_point(f, r, notation))
    elif name == "trisq":
        for slot, owner in enumerate(game.slot_colours()):  # type: ignore[attr-defined]
            if owner >= 0:
                put(f"p{owner}", game.format_slot(slot, notation))  # type: ignore[attr-defined]
    elif name == "brax":
        for seat in range(game.num_players):
            for p in game.pieces(seat):  # type: ignore[attr-defined]
                put(f"p{seat}", format_point(p % 9, p // 9, notation))
    else:
        for p, (f, r) in enumerate(POINTS):
            owner = game.piece_at(p)  # type: ignore[attr-defined]
            if owner >= 0:
                put("neutral" if owner == NEUTRAL else f"p{owner}", format_point(f, r, notation))
    return out


# ----------------------------------------------------------------------- geometry


def test_brique_checkered_top_left_light_and_known_stones() -> None:
    game = new_game("brique", size=5)
    for token in ("c3", "b2", "d3"):
        game.play_text(token)
    root = parse(render_svg(game))
    places = {g.get("data-target"): g for g in elements(root, "place")}
    assert len(places) == 25
    assert "light" in places["a5"][0].get("class", "")
    assert "dark" in places["b5"][0].get("class", "")
    assert "dark" in places["a4"][0].get("class", "")
    assert pieces(root) == {"p0": {"c3", "d3"}, "p1": {"b2"}}
    # the squares a move of White (to move) would fill, as the rules core fills them
    fills = {e.get("data-fill") for e in elements(root, "fill")}
    assert fills == expected_fills(game)


def expected_fills(game: Any) -> set[str]:
    """Squares a move of the player to move would fill, by playing every move on a copy."""
    out = set()
    mover = game.to_move
    for move in game.legal_moves():
        if move.is_swap:
            continue
        trial = game.copy()
        before = trial.cells()
        trial.play(move)
        after = trial.cells()
        for i, (a, b) in enumerate(zip(before, after, strict=True)):
            if i != move.square and a != b and b == mover:
                out.add(format_point(i % game.n, i // game.n))
    return out


def test_brique_fills_match_the_rules_on_random_positions() -> None:
    for seed in range(6):
        game = random_game("brique", 14, seed=seed, size=7)
        if game.is_over():
            continue
        root = parse(render_svg(game))
        assert {e.get("data-fill") for e in elements(root, "fill")} == expected_fills(game)


def test_trisq_four_polygons_per_square() -> None:
    game = random_game("trisq", 20, seed=2, size=6)
    root = parse(render_svg(game))
    shown = [e for e in visible(root) if e.tag == f"{NS}polygon"
             and ({"piece", "slot"} & set(e.get("class", "").split()))]
    assert len(shown) == 4 * 36
    per_square: dict[str, int] = {}
    for element in shown:
        token = element.get("data-piece") or element.get("data-target") or ""
        per_square[token[:-3]] = per_square.get(token[:-3], 0) + 1
    assert set(per_square.values()) == {4}
    # an oriented square shows its orientation only; an empty one offers v hidden
    empty_groups = [g for g in elements(root, "slots v") if g.get("display") == "none"]
    orientations = game.orientations()  # type: ignore[attr-defined]
    assert len(empty_groups) == orientations.count(-1)


def test_trisq_legal_overlay_is_the_union_of_the_legal_turns() -> None:
    for seed in range(8):
        game = random_game("trisq", 2 + 3 * seed, seed=seed, size=4)
        if game.is_over():
            continue
        union = {slot for move in game.legal_moves() for slot in move}
        assert game.playable_slots() == union  # type: ignore[attr-defined]
        root = parse(render_svg(game, legal=True))
        shown = {e.get("data-target") for e in elements(root, "slot legal")}
        assert shown == {game.format_slot(s) for s in union}  # type: ignore[attr-defined]


def test_trisq_polygons_come_from_the_rules_geometry() -> None:
    game = new_game("trisq", size=4)
    game.play_text("a1vne")
    root = parse(render_svg(game))
    piece = next(elements(root, "piece p0"))
    assert piece.get("data-piece") == "a1vne"
    xs_ys = [tuple(map(float, p.split(","))) for p in (piece.get("points") or "").split()]
    # v ne is (2,3) (4,1) (4,4) (2,4) in quarters of the square: x goes right, y down in SVG
    quarters = [(x - xs_ys[0][0], xs_ys[0][1] - y) for x, y in xs_ys]
    unit = quarters[1][0] / 2
    assert [(round(x / unit), round(y / unit)) for x, y in quarters] == [
        (0, 0), (2, -2), (2, 1), (0, 1)]


def test_brax_144_segments_in_the_rules_colours() -> None:
    root = parse(render_svg(new_game("brax")))
    segments = list(elements(root, "segment"))
    assert len(segments) == 144
    letter = {"red": "R", "blue": "B"}
    horizontal: dict[tuple[int, int], str] = {}
    vertical: dict[tuple[int, int], str] = {}
    for s in segments:
        colour = s.get("data-colour", "")
        assert colour in s.get("class", "").split()
        x, y = "abcdefghj".index(s.get("data-from", "")[0]), int(s.get("data-from", "")[1:]) - 1
        to = s.get("data-to", "")
        if to == f"{'abcdefghj'[x + 1] if x < 8 else ''}{y + 1}":
            horizontal[(x, y)] = letter[colour]
        else:
            assert to == f"{'abcdefghj'[x]}{y + 2}"
            vertical[(x, y)] = letter[colour]
    for y in range(9):
        assert "".join(horizontal[(x, y)] for x in range(8)) == HORIZONTAL_ROWS[8 - y]
    for y in range(8):
        assert "".join(vertical[(x, y)] for x in range(9)) == VERTICAL_ROWS[7 - y]
    assert pieces(root) == {
        "p0": {f"{c}1" for c in "bcdefgh"}, "p1": {f"{c}9" for c in "bcdefgh"}}


def test_brax_obligation_marks_the_forced_pieces() -> None:
    game = new_game("brax")
    rng = random.Random(3)
    while True:
        calls = [m for m in game.legal_moves() if m.call]
        if calls and len(game.history) > 6:
            game.play(calls[0])
            break
        game.play(rng.choice(game.legal_moves()))
    forced = {format_point(p % 9, p // 9) for p in game.forced}  # type: ignore[attr-defined]
    assert forced
    root = parse(render_svg(game))
    marked = {e.get("data-piece") for e in elements(root, "piece forced")}
    assert marked == forced
    caption = "".join(next(elements(root, "caption")).itertext())
    assert "Brax!" in caption


def test_brax_obligation_that_lapses_is_said() -> None:
    from engine.games.brax import Brax

    # Red's a1 is forced but boxed in by its own pieces: the obligation lapses
    game = Brax.from_position_string("1b7/9/9/9/9/9/9/r8/rr7 red a1 blue b9 0 -")
    root = parse(render_svg(game))
    assert {e.get("data-piece") for e in elements(root, "piece forced")} == {"a1"}
    caption = "".join(next(elements(root, "caption")).itertext())
    assert "Brax! Red must move one of: a1 (none can move: the obligation lapses)" in caption


def test_bricka_30_cells_and_69_points() -> None:
    root = parse(render_svg(new_game("bricka")))
    cells = list(elements(root, "cell"))
    assert sorted(c.get("data-cell", "") for c in cells) == sorted(CELL_NAMES)
    assert len(list(elements(root, "place"))) == 69
    sides = {s.get("data-side") for s in elements(root, "side")}
    assert sides == {"light", "green", "dark"}


def test_bricka_blocked_points_and_neutral_pieces() -> None:
    game = new_game("bricka")
    game.play_text("f6", "native")
    root = parse(render_svg(game, notation="native"))
    blocked = {e.get("data-point") for e in elements(root, "blocked")}
    assert blocked == {"e8", "f8", "e7", "g7", "e6", "h6", "d5", "f5", "h5", "e4", "f4"}
    game = random_game("bricka", 40, seed=11)
    root = parse(render_svg(game))
    assert pieces(root) == expected_pieces(game, "gtp")


def test_flicker_removable_and_restricted() -> None:
    game = new_game("flicker", size=7)
    for token in ("b2", "f6", "c3", "e5", "d4"):
        game.play_text(token)
    root = parse(render_svg(game))
    marks = {e.get("data-point") for e in elements(root, "removable") if e.tag == f"{NS}path"}
    assert marks == {"b2", "c3"}
    assert {e.get("data-piece") for e in elements(root, "piece removable")} == {"b2", "c3"}
    assert {e.get("data-point") for e in elements(root, "restricted")} == {"d4"}
    game.play_text("c3")  # White removes c3: Black may not place there now
    root = parse(render_svg(game))
    assert {e.get("data-point") for e in elements(root, "restricted no-place")} == {"c3"}


# ----------------------------------------------------------------------- overlays


def test_last_move_and_analysis_overlay() -> None:
    game = new_game("brique", size=7)
    game.play_text("d4")
    moves = [game.parse_move(t) for t in ("c3", "e5", "b2")]
    stats = [MoveStat(moves[0], 120, 0.61, pv=(moves[0], moves[1], moves[2])),
             MoveStat(moves[1], 40, 0.45)]
    root = parse(render_svg(game, analysis=stats))
    assert len(list(elements(root, "last-move"))) == 1
    labels = {e.get("data-move"): e for e in elements(root, "stat")}
    assert set(labels) == {"c3", "e5"}
    assert labels["c3"].get("data-visits") == "120"
    assert [e.get("data-move") for e in elements(root, "pv")] == ["1", "2", "3"]
    plain = parse(render_svg(game, last_move=False))
    assert not list(elements(plain, "last-move"))


@pytest.mark.parametrize("name", list(GAMES))
def test_analysis_overlay_names_the_moves_of_every_game(name: str) -> None:
    game = random_game(name, 5, seed=4)
    moves = game.listed_moves()[:3]
    stats = [MoveStat(move, 30 - k, 0.5, pv=tuple(moves)) for k, move in enumerate(moves)]
    root = parse(render_svg(game, analysis=stats, notation="native"))
    shown = [e.get("data-move") for e in elements(root, "stat")]
    assert shown == [game.format_move(move, "native") for move in moves]
    assert [e.get("data-move") for e in elements(root, "pv")] == ["1", "2", "3"]


@pytest.mark.parametrize("name", list(GAMES))
def test_marks_label_each_move_at_its_place(name: str) -> None:
    game = random_game(name, 3, seed=2)
    moves = game.listed_moves()[:4]
    labels = dict(zip(moves, ["W", "L", "D", "?"], strict=False))
    root = parse(render_svg(game, marks=labels))
    shown = {e.get("data-move"): e.get("data-mark") for e in elements(root, "mark")}
    assert shown == {game.format_move(m): text for m, text in labels.items()}
    texts = {e.get("data-move"): "".join(e.itertext()) for e in elements(root, "mark")}
    assert texts == shown
    assert not list(elements(parse(render_svg(game)), "mark"))


def test_a_mark_without_a_place_goes_to_the_caption() -> None:
    game = new_game("brique", size=3)
    game.play_text("b2")
    swap = game.parse_move("swap")
    root = parse(render_svg(game, marks={swap: "W"}))
    assert not list(elements(root, "mark"))
    assert "swap: W" in "".join(next(elements(root, "caption")).itertext())


@pytest.mark.parametrize("name", list(GAMES))
def test_caption_gives_the_result_once(name: str) -> None:
    game = random_game(name, 1000, seed=0, **({"size": 5} if name in ("brique", "flicker",
                                                                      "trisq") else {}))
    outcome = game.outcome()
    assert outcome is not None
    caption = "".join(next(elements(parse(render_svg(game)), "caption")).itertext())
    assert outcome.reason.split(":")[-1].strip() in caption
    assert caption.lower().count("wins") + caption.lower().count("draw") == 1, caption


def test_bad_arguments_raise() -> None:
    game = new_game("brique")
    with pytest.raises(ValueError, match="notation"):
        render_svg(game, notation="chess")
    with pytest.raises(ValueError, match="width"):
        render_svg(game, width=0)


def test_png(tmp_path: Path) -> None:
    target = tmp_path / "b.png"
    data = render_png(new_game("bricka"), target, width=300)
    assert data.startswith(b"\x89PNG") and target.read_bytes() == data


# ----------------------------------------------------------------------------- GTP


def test_gtp_svg_is_one_well_framed_response() -> None:
    engine, session = make_engine("trisq", size=5)
    engine.add_commands(svg_handlers(session))
    assert engine.handle_line("play b c3hne") == "= \n\n"
    response = engine.handle_line("7 gtpgames-svg legal 300")
    assert response is not None
    assert response.startswith("=7 <svg") and response.endswith("</svg>\n\n")
    assert response.count("\n") == 2
    root = parse(response[3:-2])
    assert root.get("width") == "300"
    assert pieces(root) == {"p0": {"c3hne"}}
    bad = engine.handle_line("8 gtpgames-svg huge")
    assert bad == ("?8 syntax error: invalid argument 'huge' (expected legal and/or a width "
                   "in pixels, 16..4096)\n\n")
    assert "gtpgames-svg" in (engine.handle_line("list_commands") or "")


@pytest.mark.parametrize("args", ["0", "15", "4097", "legal legal", "100 200", "x", "\u00e9",
                                  "-5", "1e3"])
def test_gtp_svg_bad_arguments_fail_and_change_nothing(args: str) -> None:
    engine, session = make_engine("brax")
    engine.add_commands(svg_handlers(session))
    engine.handle_line("play b e1-e2")
    before = session.game.position_string()
    response = engine.handle_line(f"gtpgames-svg {args}")
    assert response is not None and response.startswith("? syntax error: invalid argument")
    assert response.endswith("\n\n") and response.count("\n") == 2
    assert session.game.position_string() == before


def test_gtp_svg_over_the_real_process() -> None:
    done = subprocess.run([*COMMAND, "gtp", "bricka"], input="play w f6\n1 gtpgames-svg\nquit\n",
                          capture_output=True, text=True, timeout=60, check=True)
    responses = done.stdout.split("\n\n")
    assert responses[0] == "= " and responses[2] == "= " and responses[3] == ""
    assert responses[1].startswith("=1 <svg") and "\n" not in responses[1]
    root = parse(responses[1][3:])
    assert pieces(root) == {"p1": {"f6"}}
    assert len(list(elements(root, "blocked"))) == 11


# ----------------------------------------------------------------------------- CLI


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*COMMAND, *args], capture_output=True, text=True, timeout=60,
                          check=False)


def test_cli_render_svg_and_png(tmp_path: Path) -> None:
    result = run("render", "flicker", "--size", "5", "--moves", "c3 b2")
    assert result.returncode == 0, result.stderr
    assert pieces(parse(result.stdout)) == {"p0": {"c3"}, "p1": {"b2"}}
    svg_file, png_file = tmp_path / "t.svg", tmp_path / "t.png"
    assert run("render", "trisq", "--moves", "c3hne", "-o", str(svg_file)).returncode == 0
    assert pieces(parse(svg_file.read_text())) == {"p0": {"c3hne"}}
    assert run("render", "bricka", "--notation", "gtp", "-o", str(png_file)).returncode == 0
    assert png_file.read_bytes().startswith(b"\x89PNG")


@pytest.mark.slow  # several CLI processes (2 s)
def test_cli_render_position_and_errors() -> None:
    game = random_game("brax", 6)
    result = run("render", "brax", "--position", game.position_string())
    assert result.returncode == 0, result.stderr
    assert pieces(parse(result.stdout)) == expected_pieces(game, "gtp")
    for args, message in (
        (("render", "brique", "--moves", "c3 c3"), "c3"),
        (("render", "chess"), "unknown game"),
        (("render", "brique", "-o", "x.gif"), ".svg or .png"),
        (("render", "brique", "--moves", "c3", "--position", "x"), "not both"),
        (("render", "brique", "-o", "/nonexistent/dir/x.png"), "cannot write"),
        (("render", "trisq", "--position", "garbage"), "position string"),
    ):
        result = run(*args)
        assert result.returncode == 2
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("gtpgames: ") and message in lines[0]


# --------------------------------------------------------------------------- match


@pytest.mark.parametrize(("game", "options", "sgf"), [
    ("brique", {"size": "5"}, True),
    ("trisq", {"size": "4"}, False),
])
def test_match_pictures_show_the_final_positions(
    tmp_path: Path, game: str, options: dict[str, str], sgf: bool
) -> None:
    from adapters.match import Match, MatchConfig
    from adapters.match_engine import EngineSpec

    tiny = Path(__file__).parents[1] / "engines" / "tinygtp.py"
    engines = [EngineSpec(name, (sys.executable, str(tiny), "--game", game, "--seed", seed))
               for name, seed in (("a", "1"), ("b", "2"))]
    folder = tmp_path / "sgf"
    cfg = MatchConfig(game=game, engines=engines, options=options, games_per_pairing=2,
                      record=tmp_path / "m.jsonl", sgf_dir=folder if sgf else None,
                      move_timeout=5.0, grace=0.5, pictures=True)
    records = Match(cfg).run()
    assert len(records) == 2
    for record in records:
        referee = new_game(game, **options)
        for token in record["opening"] + record["moves"]:
            referee.play_text(token, record["notation"])
        name = f"{game}-{record['index']:05d}"
        picture = (folder if sgf else tmp_path) / f"{name}.svg"
        if sgf:
            assert (folder / f"{name}.sgf").exists()
        root = parse(picture.read_text(encoding="utf-8"))
        assert pieces(root) == expected_pieces(referee, record["notation"])
        caption = "".join(next(elements(root, "caption")).itertext())
        assert "wins" in caption or "Draw" in caption


# ---------------------------------------------------------------------------- docs


def test_doc_pictures_are_up_to_date(tmp_path: Path) -> None:
    from scripts.render_docs import IMAGES, write

    written = write(tmp_path)
    assert len(written) == 10
    for path in written:
        committed = IMAGES / path.name
        assert committed.exists(), f"{committed} is missing: run python -m scripts.render_docs"
        assert committed.read_text(encoding="utf-8") == path.read_text(encoding="utf-8"), (
            f"{committed} is stale: run python -m scripts.render_docs")
        parse(path.read_text(encoding="utf-8"))
    for name in GAMES:
        page = (ROOT / "docs" / "games" / f"{name}.md").read_text(encoding="utf-8")
        assert f"../images/{name}-start.svg" in page and f"../images/{name}-midgame.svg" in page
    assert "docs/images/" in (ROOT / "README.md").read_text(encoding="utf-8")
