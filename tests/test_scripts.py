"""The scripts under scripts/ describe themselves: ``--help`` has a description and a help
text for every argument, and only prints it (``update_doc_sessions --help`` rewrites no file)."""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.games.registry import new_game

ROOT = Path(__file__).parent.parent
SCRIPTS = sorted(path.stem for path in (ROOT / "scripts").glob("*.py") if path.stem[0] != "_")


@pytest.mark.parametrize("name", SCRIPTS)
def test_script_help_describes_every_argument(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsers: list[argparse.ArgumentParser] = []

    def capture(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        parsers.append(self)
        raise SystemExit(0)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", capture)
    module = importlib.import_module(f"scripts.{name}")
    with pytest.raises(SystemExit):
        module.main()
    assert len(parsers) == 1, f"scripts.{name} parses no arguments"
    parser = parsers[0]
    assert parser.description and parser.description.endswith(".")  # a whole sentence
    undescribed = [action.option_strings or action.dest for action in parser._actions
                   if not action.help or action.help == argparse.SUPPRESS]
    assert undescribed == []


def test_update_doc_sessions_help_only_prints_help() -> None:
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    before = {path: path.stat().st_mtime_ns for path in docs}
    done = subprocess.run([sys.executable, "-m", "scripts.update_doc_sessions", "--help"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:") and "--check" in done.stdout
    assert {path: path.stat().st_mtime_ns for path in docs} == before


@pytest.mark.slow
def test_bench_online_runs_small() -> None:
    """The load benchmark of the game server, with a handful of games: the server killed and
    restarted in the middle, and no game lost or corrupted (its exit status says so)."""
    done = subprocess.run([sys.executable, "-m", "scripts.bench_online", "--games", "5",
                           "--kill-at", "30", "--timeout", "300"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "killed and restarted: yes" in done.stdout
    assert "lost games: 0, corrupted games: 0" in done.stdout


@pytest.mark.slow
def test_bench_endings_runs_small() -> None:
    """The endings benchmark on a few positions: the engine never chooses a losing move in
    a drawn ending (the table's draw is kept)."""
    done = subprocess.run([sys.executable, "-m", "scripts.bench_endings", "--positions", "5",
                           "--playouts", "50"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "drawn positions with a losing move: 5;" in done.stdout
    assert "the engine in 0" in done.stdout


def bench_solve_rows(*args: str) -> list[list[str]]:
    """The table rows of ``scripts.bench_solve`` on Trisq 4x4 with ``args``, split in cells."""
    done = subprocess.run([sys.executable, "-m", "scripts.bench_solve", "--only", "trisq",
                           "--size", "4", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return [line.split(" | ") for line in done.stdout.splitlines()[2:]]


@pytest.mark.slow
def test_bench_solve_takes_the_endings_asked_for() -> None:
    """``--back`` picks the endings' distances from the end of the seeded game, one row each,
    and ``--nodes`` bounds each search."""
    rows = bench_solve_rows("--back", "2,5", "--nodes", "1000")
    assert [row[0] for row in rows] == ["| trisq size=4, 2 plies from the end",
                                        "| trisq size=4, 5 plies from the end",
                                        "| trisq size=4"]
    assert rows[0][1] in ("win", "loss")
    assert all(int(row[2].replace(",", "")) <= 1000 + 1 for row in rows)


@pytest.mark.slow
def test_bench_solve_takes_the_endings_of_each_seed() -> None:
    """``--seeds`` takes the endings from the random game of each seed, one row a seed and
    distance, and the empty board once."""
    from scripts.bench_solve import position

    rows = bench_solve_rows("--back", "2", "--seeds", "1,2", "--nodes", "1000")
    assert [row[0] for row in rows] == ["| trisq size=4, 2 plies from the end of seed 1's game",
                                        "| trisq size=4, 2 plies from the end of seed 2's game",
                                        "| trisq size=4"]
    games = [position("trisq", {"size": 4}, 2, seed) for seed in (1, 2)]
    assert games[0].position_string() != games[1].position_string()
    assert all(game.outcome() is None for game in games)


@pytest.mark.slow
def test_bench_compile_compares_with_another_checkout(tmp_path: Path) -> None:
    """``--against DIR`` loads the kernel cold here and from DIR's sources, one row a round."""
    shutil.copytree(ROOT / "engine", tmp_path / "engine",
                    ignore=shutil.ignore_patterns("__pycache__"))
    with (tmp_path / "engine" / "__init__.py").open("a") as init:
        init.write("\nimport pathlib\npathlib.Path(__file__).with_name('imported').touch()\n")
    done = subprocess.run([sys.executable, "-m", "scripts.bench_compile", "brique", "--against",
                           str(tmp_path), "--rounds", "2"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[2:]]
    assert [row[0] for row in rows] == ["brique", "brique", "median"]
    rounds = [tuple(map(float, row[1:])) for row in rows[:2]]
    for here, there, ratio in rounds:
        assert here > 0 and there > 0 and ratio == pytest.approx(here / there, abs=0.01)
    # The median row: each column's median; the ratio is the median of the rounds' ratios
    # (paired round by round), not the ratio of the two medians.
    medians = tuple(map(float, rows[2][1:]))
    columns = zip(*rounds, strict=True)
    assert medians == pytest.approx([statistics.median(column) for column in columns], abs=0.011)
    assert (tmp_path / "engine" / "imported").exists()
    assert not (ROOT / "engine" / "imported").exists()


#: Brique 3x3 without the pie rule and its winning first moves (docs/solved.md).
BRIQUE_3 = {"size": 3, "pie": False}
BRIQUE_3_WINS = ["a1", "a2", "b2", "b3", "c3"]


def brique_3_results(unknown: set[str], listed: list[str] | None = None) -> dict[str, Any]:
    """Brique 3x3's results as ``solve_boards`` keeps them in its cache, with the first moves
    ``unknown`` left undecided by the map and ``listed`` the complete listing of the winning
    moves (None: the listing ran out of time after b2)."""
    game = new_game("brique", **BRIQUE_3)
    tokens = [game.format_move(move) for move in game.legal_moves()]
    values = {token: "unknown" if token in unknown else
              "win" if token in BRIQUE_3_WINS else "loss" for token in tokens}
    return {"value": "win", "by_pie_rule": False, "nodes": 322, "seconds": 0.7,
            "winning": listed or ["b2"], "undecided": listed is None, "map": values,
            "map_nodes": 386, "map_seconds": 0.2, "by_pie_rule_all": False, "replies": [],
            "table": [1000, 1.0]}


def write_solved_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str,
                      kept: list[tuple[dict[str, Any], dict[str, Any]]],
                      records: list[dict[str, Any]]) -> str:
    """``scripts/solve_boards.py --only NAME --largest 3`` with the boards' results ``kept``
    (options, results) in its cache, the first moves ``records`` solved apart and notes of one
    line; the page it writes."""
    import scripts.solve_boards as solve_boards

    cache = tmp_path / "cache"
    cache.mkdir()
    for options, results in kept:
        (cache / f"{solve_boards.board_name(name, options)}.json").write_text(
            json.dumps(results))
    (tmp_path / "notes.md").write_text(f"Notes:\n\n{solve_boards.FIRST_MOVE_SOLVES}\n")
    (tmp_path / "first.json").write_text(json.dumps(records))
    monkeypatch.setattr(sys, "argv", [
        "solve_boards.py", "--only", name, "--largest", "3", "--cache", str(cache),
        "--out", str(tmp_path / "solved.md"), "--book", str(tmp_path / "book"),
        "--images", str(tmp_path / "images"), "--notes", str(tmp_path / "notes.md"),
        "--first-moves", str(tmp_path / "first.json")])
    solve_boards.main()
    return (tmp_path / "solved.md").read_text()


def run_solve_boards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                     results: dict[str, Any], records: list[dict[str, Any]]) -> str:
    """:func:`write_solved_page` of Brique with Brique 3x3's ``results`` (with the pie rule:
    every first move loses, by the rule)."""
    pie = {"size": 3, "pie": True}
    game = new_game("brique", **pie)
    by_rule = {"value": "loss", "by_pie_rule": True, "nodes": 0, "seconds": 0.0,
               "winning": None, "undecided": False, "by_pie_rule_all": True, "replies": [],
               "map": {game.format_move(move): "loss" for move in game.legal_moves()}}
    return write_solved_page(tmp_path, monkeypatch, "brique",
                             [(BRIQUE_3, results), (pie, by_rule)], records)


def record(move: str, value: str) -> dict[str, Any]:
    return {"game": "brique", "options": BRIQUE_3, "move": move, "value": value,
            "nodes": 1234567, "seconds": 60, "table": "empty"}


def test_solve_boards_takes_in_the_first_moves_solved_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """First moves that solves of their own decided fill the map where the board's own
    solves left them unknown: in the page's lines, its picture and the opening book; the
    notes get the table of those solves."""
    page = run_solve_boards(tmp_path, monkeypatch, brique_3_results({"a1", "c1", "a3"}),
                            [record("a1", "win"), record("c1", "loss"),
                             record("a3", "unknown")])
    notes, board = page.split("### Brique 3x3, no pie rule")
    assert "| a1 | win | 1,234,567 | 60 | empty |" in notes
    assert "| a3 | unknown | 1,234,567 | 60 (the limit) | empty |" in notes
    assert "- winning first moves: a1 a2 b2 b3 c3 (each proven by" in board
    assert ("- first moves decided: 8 of 9 (386 nodes, 0.2 s; a1 and c1 by solves of their "
            "own, listed above)") in board
    book = json.loads((tmp_path / "book" / "brique.json").read_text())
    # the centre first, as the engine plays the book's first winning move
    assert book[0]["options"] == BRIQUE_3 and book[0]["moves"] == ["b2", "a2", "b3", "a1", "c3"]
    picture = (tmp_path / "images" / "brique-pie-false-size-3.svg").read_text()
    assert [picture.count(f">{mark}</text>") for mark in "WL?"] == [5, 3, 1]


def test_solve_boards_puts_the_reply_to_a_losing_first_move_in_the_book(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first move solved apart as a loss, with the opponent's winning reply its solve
    proved: the page's table names the reply and the opening book gets it as the proven
    move after the first move (on 3x3 White wins after c1 by b2 or c3)."""
    page = run_solve_boards(tmp_path, monkeypatch, brique_3_results({"c1"}),
                            [{**record("c1", "loss"), "reply": "C3"}])
    assert "| c1 | loss (White's reply c3 wins) | 1,234,567 | 60 | empty |" in page
    after = new_game("brique", **BRIQUE_3)
    after.play_text("c1")
    book = json.loads((tmp_path / "book" / "brique.json").read_text())
    assert {"options": BRIQUE_3, "position": after.position_string(), "value": "win",
            "moves": ["c3"]} in book


def brique_3_results_after_c1(value: str, moves: list[str]) -> tuple[dict[str, Any], str]:
    """Brique 3x3's results (:func:`brique_3_results`, every first move decided) with the
    book entry of the board's own solves for the position after c1 (``value`` for White,
    its winning ``moves``); and that position."""
    after = new_game("brique", **BRIQUE_3)
    after.play_text("c1")
    position = after.position_string()
    results = brique_3_results(set())
    results["replies"] = [{"options": BRIQUE_3, "position": position, "value": value,
                           "moves": moves}]
    return results, position


@pytest.mark.parametrize("listed, moves", [(["b2"], ["b2", "c3"]), (["c3", "b2"], ["c3", "b2"])],
                         ids=["another-reply", "the-same-reply"])
def test_solve_boards_adds_the_reply_to_the_entry_the_board_has(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listed: list[str], moves: list[str]
) -> None:
    """Where the board's own solves wrote a book entry for the position after the losing
    first move, the reply joins its moves: the book keeps one entry for the position."""
    results, position = brique_3_results_after_c1("win", listed)
    run_solve_boards(tmp_path, monkeypatch, results, [{**record("c1", "loss"), "reply": "C3"}])
    book = json.loads((tmp_path / "book" / "brique.json").read_text())
    entries = [entry for entry in book
               if entry["position"] == position and entry["options"] == BRIQUE_3]
    assert entries == [{"options": BRIQUE_3, "position": position, "value": "win",
                        "moves": moves}]


def test_solve_boards_refuses_a_reply_where_the_board_has_a_loss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results, _ = brique_3_results_after_c1("loss", [])
    with pytest.raises(SystemExit, match="gives the reply c3 to c1, but the board's solves "
                       "give the position after c1 as a loss for White"):
        run_solve_boards(tmp_path, monkeypatch, results,
                         [{**record("c1", "loss"), "reply": "c3"}])


@pytest.mark.parametrize("reply, value, message", [
    ("c1", "loss", "gives the reply c1 to c1: "),
    ("z9", "loss", "gives the reply z9 to c1: "),
    ("b2", "win", "gives a reply to c1, a win"),
], ids=["occupied", "off-the-board", "to-a-win"])
def test_solve_boards_refuses_a_reply_that_cannot_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: str, value: str, message: str
) -> None:
    """A reply that is no legal move after the first move, or one given to a first move
    that is not a loss, stops the script with a message that names it."""
    with pytest.raises(SystemExit, match=message):
        run_solve_boards(tmp_path, monkeypatch, brique_3_results({"c1"}),
                         [{**record("c1", value), "reply": reply}])


@pytest.mark.parametrize("results, solved_apart", [
    (brique_3_results(set()), record("a1", "loss")),
    (brique_3_results({"c1"}, BRIQUE_3_WINS), record("c1", "win")),
    (brique_3_results({"a1"}, ["a2", "b2", "b3", "c3"]), record("a1", "win")),
], ids=["against-the-map", "a-win-not-listed", "listed-without-it"])
def test_solve_boards_refuses_a_first_move_its_solves_contradict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, results: dict[str, Any],
    solved_apart: dict[str, Any]
) -> None:
    with pytest.raises(SystemExit, match=f"gives {solved_apart['move']} as a"):
        run_solve_boards(tmp_path, monkeypatch, results, [solved_apart])


@pytest.mark.parametrize("draw, unknown", [("", ""), ("a1", ""), ("", "c1")],
                         ids=["no-draw", "a-draw", "one-undecided"])
def test_solve_boards_writes_a_pie_board_from_the_first_moves_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, draw: str, unknown: str
) -> None:
    """A board with the pie rule written from the first moves without it (Flicker, whose
    swap changes sides exactly): a loss for the first player if no first move draws, a draw
    if one does; each first move a loss (a draw where it draws), the swap the book's winning
    move after each first move that wins without the pie rule. a1, which the board's map
    leaves undecided, is decided by a solve of its own; no section while another first move
    stays undecided."""
    import scripts.solve_boards as solve_boards

    wins = {"a2", "b2", "c2"}  # Flicker 3x3's winning first moves (docs/solved.md)
    plain, pie = {"size": 3, "pie": False}, {"size": 3, "pie": True}
    game = new_game("flicker", **plain)
    tokens = [game.format_move(move) for move in game.legal_moves()]
    values = {t: "unknown" if t in ("a1", unknown) else "win" if t in wins else "loss"
              for t in tokens}
    results = {"value": "win", "by_pie_rule": False, "nodes": 3104, "seconds": 4.1,
               "winning": sorted(wins), "undecided": False, "map": values, "map_nodes": 2732,
               "map_seconds": 0.0, "by_pie_rule_all": False, "replies": []}
    monkeypatch.setattr(solve_boards, "BOARDS", [("flicker", plain)])
    monkeypatch.setattr(solve_boards, "FROM_FIRST_MOVES", [("flicker", pie)])
    a1 = {"game": "flicker", "options": plain, "move": "a1", "value": "draw" if draw else "loss",
          "nodes": 10, "seconds": 1, "table": "empty"}
    page = write_solved_page(tmp_path, monkeypatch, "flicker", [(plain, results)], [a1])
    pictures = tmp_path / "images"
    if unknown:
        assert "### Flicker 3x3, pie rule" not in page
        assert not (pictures / "flicker-pie-true-size-3.svg").exists()
        return
    section = page.split("### Flicker 3x3, pie rule")[1]
    value = "draw" if draw else "loss"
    assert f"- empty board: **{value}** for Black (the first player), from the values" in section
    assert "- first moves decided: 9 of 9, from their values without the pie rule" in section
    picture = (pictures / "flicker-pie-true-size-3.svg").read_text()
    marks = [picture.count(f">{mark}</text>") for mark in "WLD?"]
    assert marks == ([0, 8, 1, 0] if draw else [0, 9, 0, 0])
    book = json.loads((tmp_path / "book" / "flicker.json").read_text())
    derived = [entry for entry in book if entry["options"] == pie]
    empty = new_game("flicker", **pie)
    assert derived[0] == {"options": pie, "position": empty.position_string(),
                          "value": value, "moves": []}
    after = {}  # the position after each first move, by its string
    for token in tokens:
        game = empty.copy()
        game.play(game.parse_move(token))
        after[game.position_string()] = (token, game)
    by_move = {after[entry["position"]][0]: entry for entry in derived[1:]}
    assert set(by_move) == wins | ({"a1"} if draw else set())
    for token, entry in by_move.items():
        if token in wins:
            assert (entry["value"], entry["moves"]) == ("win", ["swap"])
            game = after[entry["position"]][1]
            assert game.parse_move("swap") in game.legal_moves()
        else:
            assert (entry["value"], entry["moves"]) == ("draw", [])


def test_the_solved_page_is_what_its_results_give(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/solved.md, its maps of first moves, the opening books and the table of Brax
    endings are what ``scripts/solve_boards.py`` writes from the committed results
    (scripts/solved/), without a solve: a page edited by hand, or results changed without
    writing the page again, fail here."""
    import scripts.solve_boards as solve_boards

    root = Path(__file__).resolve().parent.parent
    monkeypatch.setattr(solve_boards, "solve_board", None)  # any solve would fail
    monkeypatch.setattr(solve_boards, "endings", None)
    monkeypatch.setattr(sys, "argv", [
        "solve_boards.py", "--out", str(tmp_path / "solved.md"),
        "--book", str(tmp_path / "book"), "--images", str(tmp_path / "images" / "solved")])
    solve_boards.main()
    assert (tmp_path / "solved.md").read_text() == (root / "docs" / "solved.md").read_text()
    pictures = sorted(p.name for p in (tmp_path / "images" / "solved").iterdir())
    assert pictures == sorted(p.name for p in (root / "docs" / "images" / "solved").iterdir())
    for name in pictures:
        assert (tmp_path / "images" / "solved" / name).read_text() == \
            (root / "docs" / "images" / "solved" / name).read_text(), name
    book = root / "engine" / "search" / "book"
    for path in (tmp_path / "book").iterdir():
        assert path.read_bytes() == (book / path.name).read_bytes(), path.name

