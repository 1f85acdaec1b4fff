"""Solve the small boards and write the results: docs/solved.md (values of the empty boards
with and without the pie rule, maps of the first moves, endings of Bricka and Brax) and the
opening book engine/search/book/<game>.json that the engine plays from, and the table of Brax
endings engine/search/book/brax-endings.npz (built by retrograde analysis, not by the solver).

Usage: python scripts/solve_boards.py [--budget S] [--memory MB] [--out docs/solved.md]
[--book engine/search/book] [--images docs/images/solved] [--only brique,flicker,...]
[--largest N] [--table FILE ...] [--threads N] [--cache DIR] [--notes FILE]
[--first-moves FILE]

``--only`` and ``--largest`` choose the boards to solve where they have no results yet; the
page still shows every board that has.

Each board gets at most ``--budget`` seconds per solve; what was not decided within it is
written as not reached. The figures (nodes, seconds) are those of the machine and the day of
each solve. Each board's results are kept as JSON in the ``--cache`` directory (by default
scripts/solved/boards/, committed), and a run writes the page from them, solving only the
boards that have no file there: delete a board's file to solve it again. Two files written
by hand go into the page as well: scripts/solved/notes.md, how the boards were solved and
what was not reached, and scripts/solved/first_moves.json, first moves decided by longer
solves of their own, which the maps and the book take in. A board with the pie rule in
:data:`FROM_FIRST_MOVES` is written from the first moves of the same board without it, once
every one is decided, without a search.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.games.core import Game, GameError  # noqa: E402
from engine.games.notation import parse_point  # noqa: E402
from engine.games.registry import new_game  # noqa: E402
from engine.search import endings as brax_endings  # noqa: E402
from engine.search.solve import PIE_SOURCE, Solver  # noqa: E402

BOARDS: list[tuple[str, dict[str, Any]]] = [
    ("brique", {"size": 3, "pie": False}),
    ("brique", {"size": 3, "pie": True}),
    ("brique", {"size": 4, "pie": False}),
    ("brique", {"size": 4, "pie": True}),
    ("brique", {"size": 5, "pie": False}),
    ("brique", {"size": 5, "pie": True}),
    ("brique", {"size": 6, "pie": False}),
    ("brique", {"size": 6, "pie": True}),
    ("flicker", {"size": 3, "pie": False}),
    ("flicker", {"size": 3, "pie": True}),
    ("flicker", {"size": 4, "pie": False}),
    ("flicker", {"size": 4, "pie": True}),
    ("flicker", {"size": 5, "pie": False}),
    ("trisq", {"size": 4}),
]

#: Boards with the pie rule whose values come from the first moves of the same board without it
#: (after the board's own solves and the first moves solved apart), once all are decided,
#: without a search. Flicker has draws and its swap changes sides exactly, so after a first
#: move the player who may swap wins if the move wins without the pie rule (by swapping) and
#: if it loses (by playing on), and draws if it draws: the board is a draw if a first move
#: draws, else a loss.
FROM_FIRST_MOVES: list[tuple[str, dict[str, Any]]] = [("flicker", {"size": 5, "pie": True})]

#: Boards with the pie rule up to this size are searched all the same, not decided by the pie
#: rule (Solver.pie_stage), so that their maps check it.
SEARCH_PIE_UP_TO = 5

#: The page's notes on how the boards were solved and what was not reached (Markdown, written
#: by hand), with the line :data:`FIRST_MOVE_SOLVES` where the tables of the first moves
#: solved apart go.
NOTES = Path(__file__).resolve().parent / "solved" / "notes.md"

#: First moves solved apart, by solves longer than a map's budget (``gtpgames solve ...
#: --moves M``): records of the board (``game``, ``options``), the ``move``, its ``value`` for
#: the player who makes it, the solve's ``nodes`` and ``seconds`` and the ``table`` it started
#: from; for a loss, optionally the opponent's winning ``reply`` the solve proved
#: (``Solver.winning_move`` on its table). The maps and the opening book take in those the
#: board's own solves left unknown, and the book the replies.
FIRST_MOVES = Path(__file__).resolve().parent / "solved" / "first_moves.json"

#: Each board's results (what :func:`solve_board` returns) and the endings' lines, as JSON
#: files named after the board: the page is written from them.
RESULTS = Path(__file__).resolve().parent / "solved" / "boards"

#: The line of :data:`NOTES` that the tables of :data:`FIRST_MOVES` replace.
FIRST_MOVE_SOLVES = "<!-- the first moves solved apart -->"

OPPOSITE = {"win": "loss", "loss": "win", "draw": "draw", "unknown": "unknown"}


def label(name: str, options: dict[str, Any]) -> str:
    parts = [f"{options['size']}x{options['size']}"] if "size" in options else []
    if "pie" in options:
        parts.append("pie rule" if options["pie"] else "no pie rule")
    return f"{name.capitalize()} " + ", ".join(parts)


def and_list(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join(filter(None, [", ".join(words[:-1]), words[-1]])) if words else ""


def first_moves(
    solver: Solver, game: Game[Any], budget: float, first: list[str] | None = None,
) -> tuple[dict[str, str], float, int, int]:
    """The value of each first move for the player who makes it (at most ``budget`` seconds
    each and three budgets in all: the rest are not decided), the moves ``first`` (those
    the solve of the board listed as winning) before the others; the seconds and nodes of
    their solves, and how many the pie rule decided without a search."""
    values: dict[str, str] = {}
    start = time.monotonic()
    nodes = 0
    argued = 0
    legal = game.legal_moves()
    ahead = [move for move in legal if game.format_move(move) in (first or [])]
    for move in ahead + [move for move in legal if move not in ahead]:
        if time.monotonic() - start > 3 * budget:
            values[game.format_move(move)] = "unknown"
            continue
        after = game.copy()
        after.play(move)
        token = game.format_move(move)
        if after.outcome() is not None:
            values[token] = "win"
            continue
        found = solver.solve(after, seconds=budget)
        nodes += found.nodes
        argued += found.source == PIE_SOURCE
        same = after.to_move == game.to_move
        values[token] = found.value if same else OPPOSITE[found.value]
    in_order = {game.format_move(move): values[game.format_move(move)] for move in legal}
    return in_order, time.monotonic() - start, nodes, argued


#: The mark of each value in the maps of first moves.
MARKS = {"win": "W", "loss": "L", "draw": "D", "unknown": "?"}


def board_name(name: str, options: dict[str, Any]) -> str:
    """A board's name in file names: ``brique-pie-false-size-3``."""
    return "-".join([name] + [f"{key}-{options[key]}".lower() for key in sorted(options)])


def picture_name(name: str, options: dict[str, Any]) -> str:
    """The file name of a board's map of first moves."""
    return board_name(name, options) + ".svg"


def picture_line(name: str, options: dict[str, Any], images: str) -> str:
    """The page's line that shows a board's map of first moves (``images``: where the page
    finds the pictures)."""
    return (f"![First moves of {label(name, options)}: W wins, L loses, D draws, "
            f"? not decided]({images}/{picture_name(name, options)})")


def write_picture(
    name: str, options: dict[str, Any], values: dict[str, str], directory: Path
) -> None:
    """The map of first moves: the empty board with each first move marked W, L, D or ?."""
    from adapters.render import render_svg

    game = new_game(name, **options)
    marks = {game.parse_move(token): MARKS[value] for token, value in values.items()}
    directory.mkdir(parents=True, exist_ok=True)
    (directory / picture_name(name, options)).write_text(
        render_svg(game, marks=marks, last_move=False, width=260))


def solve_board(
    name: str, options: dict[str, Any], budget: float, memory: float, tables: list[Path],
    threads: int = 1,
) -> dict[str, Any]:
    """Solve a board (the empty board with every winning move, then each first move): what
    :func:`board_section` writes, as JSON data (the cache keeps it)."""
    game = new_game(name, **options)
    solver = Solver(game, memory_mb=memory, threads=threads,
                    pie=options.get("size", 0) > SEARCH_PIE_UP_TO)

    def read_tables() -> None:
        for path in tables:  # a table saved by `gtpgames solve --checkpoint` for this board
            try:
                solver.load(path)
            except ValueError as error:  # another board's, or another --memory or --threads
                print(f"{label(name, options)}: not read: {error}", file=sys.stderr,
                      flush=True)
                continue
            print(f"{label(name, options)}: read {path}", file=sys.stderr, flush=True)

    read_tables()
    found = solver.solve(game, seconds=budget, all_moves=True)
    result: dict[str, Any] = {
        "value": found.value, "by_pie_rule": found.source == PIE_SOURCE,
        "nodes": found.nodes, "seconds": found.seconds, "winning": found.winning,
        "undecided": bool(found.undecided)}
    if found.value == "unknown":
        return result
    # the map checks the board's solve: its solves start from an empty table (or from the
    # tables given, those of other solves), not from the entries the board's solve wrote
    solver.clear()
    read_tables()
    values, seconds, nodes, argued = first_moves(solver, game, budget, found.winning)
    for token in found.winning or []:
        if values[token] not in ("win", "unknown"):
            raise SystemExit(f"{label(name, options)}: {token} listed as winning, "
                             f"but the position after it solves as {values[token]}")
    result.update(map=values, map_nodes=nodes, map_seconds=seconds,
                  by_pie_rule_all=argued == len(values))
    # the book: the replies of the second player after each losing first move (boards up
    # to 4x4: on larger ones the engine's solver finds them within a move's time, or not)
    replies: list[dict[str, Any]] = []
    for move in game.legal_moves() if options.get("size", 0) <= 4 else []:
        token = game.format_move(move)
        if values.get(token) != "loss":
            continue
        after = game.copy()
        after.play(move)
        reply = solver.solve(after, seconds=budget, all_moves=True)
        if reply.value == "win" and reply.winning:
            replies.append({"options": options, "position": after.position_string(),
                            "value": "win", "moves": reply.winning})
    result["replies"] = replies
    if solver.nodes:  # (none when the pie rule decided everything)
        result["table"] = [solver.entries, solver.memory_bytes() / 2**20]
    return result


def take_first_moves(
    name: str, options: dict[str, Any], result: dict[str, Any], records: list[dict[str, Any]]
) -> list[str]:
    """Put the first moves that solves of their own decided (``records``, read from
    :data:`FIRST_MOVES`) into the board's map where its own solves left them unknown; the
    moves taken. SystemExit where a record contradicts the board's solves."""
    taken: list[str] = []
    values = result.get("map")
    for record in records:
        if record["game"] != name or record["options"] != options:
            continue
        token, value = record["move"], record["value"]
        if value == "unknown":
            continue
        if values is None or token not in values:
            raise SystemExit(f"{label(name, options)}: {FIRST_MOVES.name} gives first move "
                             f"{token} as a {value}, but the board has no map with it")
        listed = result["winning"] or []
        if values[token] not in ("unknown", value) or (
                result["value"] == "win" and not result["undecided"]
                and (value == "win") != (token in listed)):
            raise SystemExit(f"{label(name, options)}: {FIRST_MOVES.name} gives {token} as "
                             f"a {value}, but the board's solves do not")
        if values[token] == "unknown":
            values[token] = value
            taken.append(token)
    return taken


def first_move_reply(record: dict[str, Any]) -> tuple[Game[Any], str]:
    """The position after the first move of a record of :data:`FIRST_MOVES` that gives the
    opponent's winning ``reply``, and the reply's canonical token. SystemExit for a reply to
    a move that does not lose, or one that is not a legal move there."""
    name, options = record["game"], record["options"]
    token, reply = record["move"], record["reply"]
    if record["value"] != "loss":
        raise SystemExit(f"{label(name, options)}: {FIRST_MOVES.name} gives a reply to "
                         f"{token}, a {record['value']}: only a loss has a winning reply")
    after = new_game(name, **options)
    after.play_text(token)
    try:
        move = after.copy().play_text(reply)
    except GameError as error:
        raise SystemExit(f"{label(name, options)}: {FIRST_MOVES.name} gives the reply "
                         f"{reply} to {token}: {error}") from None
    return after, after.format_move(move)


def add_first_move_replies(
    book: list[dict[str, Any]], name: str, options: dict[str, Any],
    records: list[dict[str, Any]]
) -> None:
    """Add to a board's opening book entries (``book``) the winning replies to losing first
    moves that solves of their own proved (:func:`first_move_reply`): an entry for the
    position after the first move, or the reply added to the moves of the entry the board's
    own solves wrote there (the book holds one entry a position). SystemExit where that
    entry says the reply's player does not win."""
    at = {entry["position"]: entry for entry in book if entry["options"] == options}
    for record in records:
        if (record["game"], record["options"]) != (name, options) or "reply" not in record:
            continue
        after, reply = first_move_reply(record)
        position = after.position_string()
        entry = at.get(position)
        if entry is None:
            entry = at[position] = {"options": options, "position": position,
                                    "value": "win", "moves": []}
            book.append(entry)
        elif entry["value"] != "win":
            raise SystemExit(f"{label(name, options)}: {FIRST_MOVES.name} gives the reply "
                             f"{reply} to {record['move']}, but the board's solves give the "
                             f"position after {record['move']} as a {entry['value']} for "
                             f"{after.player_name(after.to_move)}")
        if reply not in entry["moves"]:
            entry["moves"].append(reply)


def centre_first(game: Game[Any], tokens: list[str]) -> list[str]:
    """First moves of a square board, those nearest its centre first (in the given order
    where as near). The book's first winning move is the one the engine plays, and where the
    board is not solved to the end the engine must then find the win by its own search:
    the proven wins from the centre have the smaller proofs (docs/solved.md: Brique 6x6's c3
    against its a1), so the search has the better chance."""
    n = int(game.options["size"])

    def distance(token: str) -> int:
        point = parse_point(token, n, n)
        assert point is not None, token
        f, r = point
        return (2 * f - n + 1) ** 2 + (2 * r - n + 1) ** 2

    return sorted(tokens, key=distance)


def board_section(
    name: str, options: dict[str, Any], result: dict[str, Any], images: str, taken: list[str]
) -> tuple[list[str], list[dict[str, Any]]]:
    """A board's section of the page and its opening book entries, from what
    :func:`solve_board` found (with the first moves ``taken`` from solves of their own);
    ``images`` is where the page finds the map's picture."""
    game = new_game(name, **options)
    lines = [f"### {label(name, options)}", ""]
    mover = game.player_name(game.to_move)
    value = result["value"]
    if result["by_pie_rule"]:
        lines.append(f"- empty board: **{value}** for {mover} (the first player), "
                     "by the pie rule (no search)")
    else:
        lines.append(f"- empty board: **{value}** for {mover} (the first player), "
                     f"{result['nodes']:,} nodes, {result['seconds']:.1f} s")
    book: list[dict[str, Any]] = []
    if value == "unknown":
        return lines + ["- first moves: not solved", ""], book
    values: dict[str, str] = result["map"]
    winning = result["winning"]
    listed = winning
    if value == "win" and result["undecided"]:
        # the listing ran out of time: the winning moves are those the first moves' own
        # solves proved (each a loss for the opponent after it)
        winning = [token for token, v in values.items() if v == "win"]
        listed = centre_first(game, winning)
        lines.append(f"- winning first moves: {' '.join(winning)} (each proven by a solve of "
                     "the position after it, or of those after each reply)")
    elif value == "win" and winning is not None:
        lines.append(f"- winning first moves: {' '.join(winning) or '(none)'}")
    book.append({"options": options, "position": game.position_string(), "value": value,
                 "moves": listed or []})
    decided = sum(v != "unknown" for v in values.values())
    if result["by_pie_rule_all"]:
        lines.append(f"- first moves decided: {decided} of {len(values)}, by the pie rule "
                     "(no search)")
    else:
        apart = f"; {and_list(taken)} by solves of their own, listed above" if taken else ""
        lines.append(f"- first moves decided: {decided} of {len(values)} "
                     f"({result['map_nodes']:,} nodes, {result['map_seconds']:.1f} s{apart})")
    if name == "trisq":
        won = sorted(t for t, v in values.items() if v == "win")
        lines.append(f"- winning first placements: {' '.join(won) or '(none)'}")
    lines += ["", picture_line(name, options, images), ""]
    book += result["replies"]
    if "table" in result:
        entries, megabytes = result["table"]
        lines += [f"- table: {entries:,} entries, {megabytes:.0f} MB with the stack", ""]
    return lines, book


def from_first_moves(
    name: str, options: dict[str, Any], values: dict[str, str], images: str
) -> tuple[list[str], list[dict[str, Any]], dict[str, str]] | None:
    """The section and the book entries of the board ``options`` with the pie rule, from
    ``values``, the first moves of the same board without it (:data:`FROM_FIRST_MOVES`),
    and its map of first moves; None while a first move is not decided."""
    if "unknown" in values.values():
        return None
    game = new_game(name, **options)
    mover = game.player_name(game.to_move)
    value = "draw" if "draw" in values.values() else "loss"
    pie_map = {token: "draw" if v == "draw" else "loss" for token, v in values.items()}
    lines = [f"### {label(name, options)}", "",
             f"- empty board: **{value}** for {mover} (the first player), from the values of "
             "the first moves without the pie rule (no search)",
             f"- first moves decided: {len(values)} of {len(values)}, from their values "
             f"without the pie rule (no search): {game.player_name(1 - game.to_move)} swaps "
             "after each that wins without it and plays on after each that loses", "",
             picture_line(name, options, images), ""]
    book = [{"options": options, "position": game.position_string(), "value": value,
             "moves": []}]
    for move in game.legal_moves():
        token = game.format_move(move)
        after = game.copy()
        after.play(move)
        if values[token] == "win":  # the swap wins for the player who may make it
            book.append({"options": options, "position": after.position_string(),
                         "value": "win", "moves": ["swap"]})
        elif values[token] == "draw":
            book.append({"options": options, "position": after.position_string(),
                         "value": "draw", "moves": []})
    return lines, book, pie_map


def first_move_solves(records: list[dict[str, Any]]) -> list[str]:
    """The tables of the first moves solved apart (:data:`FIRST_MOVES`), one per board."""
    lines: list[str] = []
    boards: list[tuple[str, dict[str, Any]]] = []
    for record in records:
        if (record["game"], record["options"]) not in boards:
            boards.append((record["game"], record["options"]))
    for name, options in boards:
        lines += [f"{label(name, options)}, the value for the player who makes the move:", "",
                  "| first move | value | nodes | seconds | table |", "|---|---|---|---|---|"]
        for record in records:
            if (record["game"], record["options"]) != (name, options):
                continue
            limit = " (the limit)" if record["value"] == "unknown" else ""
            # what one of the two searches of a game with draws decided (Solution.bound),
            # for the player who makes the move
            bound = f", {record['bound']}" if record.get("bound") else ""
            if "reply" in record:
                after, reply = first_move_reply(record)
                bound += f" ({after.player_name(after.to_move)}'s reply {reply} wins)"
            lines.append(f"| {record['move']} | {record['value']}{bound} | {record['nodes']:,} | "
                         f"{record['seconds']:,.0f}{limit} | {record['table']} |")
        lines.append("")
    return lines


def endings(name: str, budget: float, memory: float, seed: int, threads: int = 1) -> list[str]:
    """Random games of ``name`` solved from N plies before their end, N growing until a
    solve does not finish within the budget."""
    rng = random.Random(seed)
    title = {"brax": "Brax positions a few plies before the end of a random game"}.get(
        name, f"{name.capitalize()} endings")
    lines = [f"### {title}", "",
             "| plies before the end | solved | values | nodes (most) | seconds (most) |",
             "|---|---|---|---|---|"]
    solver: Solver | None = None
    for back in (2, 4, 6, 8, 10, 12, 16, 20, 24, 32):
        solved = 0
        tried = 0
        values: list[str] = []
        most_nodes = 0
        most_seconds = 0.0
        for _ in range(3):
            game = new_game(name)
            while game.outcome() is None:
                game.play(game.random_move(rng))
            if len(game.history) <= back:
                continue
            for _ in range(back):
                game.undo()
            if game.outcome() is not None:
                continue
            position = type(game).from_position_string(game.position_string())
            if solver is None:
                solver = Solver(position, memory_mb=memory, threads=threads)
            found = solver.solve(position, seconds=budget)
            tried += 1
            most_nodes = max(most_nodes, found.nodes)
            most_seconds = max(most_seconds, found.seconds)
            values.append(found.value)
            solved += found.value != "unknown"
        lines.append(f"| {back} | {solved} of {tried} | {' '.join(values)} | "
                     f"{most_nodes:,} | {most_seconds:.1f} |")
        if tried and solved < tried:
            break
    lines.append("")
    return lines


def brax_table(data: dict[str, Any]) -> list[str]:
    """The tables of Brax endings (:func:`engine.search.endings.build`): how many positions
    of each kind the player to move wins, loses and draws with a fresh count of plies without
    a capture, and the longest wins and losses."""
    import numpy as np

    from engine.games.brax_board import POINTS

    one = data["one"].reshape(POINTS, POINTS, 2)
    two = data["two"].reshape(2, brax_endings.PAIRS, POINTS, 2)
    real_one = ~np.eye(POINTS, dtype=bool)[:, :, None].repeat(2, axis=2)
    pairs = [(a, b) for a in range(POINTS) for b in range(a + 1, POINTS)]
    real_two = np.ones((2, brax_endings.PAIRS, POINTS, 2), dtype=bool)
    for k, (a, b) in enumerate(pairs):
        real_two[:, k, [a, b], :] = False
    mover = np.arange(2)
    pair_moves = (np.arange(2)[:, None, None, None] == mover[None, None, None, :]) & real_two
    single_moves = (np.arange(2)[:, None, None, None] != mover[None, None, None, :]) & real_two
    rows = [("one against one", one[real_one]), ("two against one, the pair to move",
                                                  two[pair_moves]),
            ("two against one, the single piece to move", two[single_moves])]
    lines = ["### Brax endings", "",
             "Every position of one piece against one and of two pieces against one, each "
             "side to move, with the count of plies without a capture at zero, as just "
             "after a capture (built by retrograde analysis, `engine/search/endings.py`; "
             "`gtpgames solve` reads it for these positions). A win or a loss counts the "
             "plies until the capture that decides it against the best defence: the capture "
             "of the last piece, or one that leaves one against one won.", "",
             "| position | positions | player to move wins | loses | draws | longest win "
             "(plies) | longest loss (plies) |",
             "|---|---|---|---|---|---|---|"]
    for label, values in rows:
        wins, losses = values[values > 0], values[values < 0]
        lines.append(f"| {label} | {values.size:,} | {wins.size:,} | {losses.size:,} | "
                     f"{(values == 0).sum():,} | {int(wins.max()) if wins.size else '-'} | "
                     f"{-int(losses.min()) if losses.size else '-'} |")
    lines.append("")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--budget", type=float, default=300.0,
                        help="seconds at most per solve (a tenth of it per ending)")
    parser.add_argument("--memory", type=float, default=512.0,
                        help="megabytes for each solver's table and stack")
    parser.add_argument("--out", type=Path, default=Path("docs/solved.md"),
                        help="the page to write")
    parser.add_argument("--book", type=Path, default=Path("engine/search/book"),
                        help="directory of the opening book files to write")
    parser.add_argument("--only", default="", help="comma-separated games (default: all)")
    parser.add_argument("--notes", type=Path, default=NOTES,
                        help="the page's notes on how the boards were solved (Markdown)")
    parser.add_argument("--first-moves", type=Path, default=FIRST_MOVES,
                        help="first moves solved apart (JSON records)")
    parser.add_argument("--table", type=Path, action="append", default=[],
                        help="a checkpoint table to start from (used where it fits)")
    parser.add_argument("--cache", type=Path, default=RESULTS,
                        help="directory keeping each board's results: boards found there "
                        "are not solved again")
    parser.add_argument("--largest", type=int, default=99, help="largest board size")
    parser.add_argument("--threads", type=int, default=1,
                        help="search threads of each solve (gtpgames solve --threads)")
    parser.add_argument("--images", type=Path, default=Path("docs/images/solved"),
                        help="directory of the maps of first moves (SVG)")
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    records: list[dict[str, Any]] = json.loads(args.first_moves.read_text())
    body: list[str] = []
    books: dict[str, list[dict[str, Any]]] = {}
    for name, options in BOARDS:
        kept = args.cache / f"{board_name(name, options)}.json"
        if kept.exists():  # written from its results, whether chosen or not
            result = json.loads(kept.read_text())
        elif (only and name not in only) or options.get("size", 0) > args.largest:
            continue
        else:
            print(f"solving {label(name, options)}", file=sys.stderr, flush=True)
            result = solve_board(name, options, args.budget, args.memory, args.table,
                                 args.threads)
            kept.parent.mkdir(parents=True, exist_ok=True)
            kept.write_text(json.dumps(result, indent=1) + "\n")
        taken = take_first_moves(name, options, result, records)
        if "map" in result:
            write_picture(name, options, result["map"], args.images)
        images = Path(os.path.relpath(args.images, args.out.parent)).as_posix()
        lines, book = board_section(name, options, result, images, taken)
        add_first_move_replies(book, name, options, records)
        with_pie = {**options, "pie": True}
        if (name, with_pie) in FROM_FIRST_MOVES and "map" in result and (
                derived := from_first_moves(name, with_pie, result["map"], images)):
            lines += derived[0]
            book += derived[1]
            write_picture(name, with_pie, derived[2], args.images)
        body += lines
        books.setdefault(name, []).extend(book)
        print("\n".join(lines), file=sys.stderr, flush=True)
    for name in ("bricka", "brax"):
        kept = args.cache / f"{name}-endings.json"
        if (only and name not in only) and not kept.exists():
            continue
        if name == "brax":
            print("building the table of brax endings", file=sys.stderr, flush=True)
            args.book.mkdir(parents=True, exist_ok=True)
            body += brax_table(brax_endings.write(args.book / brax_endings.TABLE_FILE))
        if kept.exists():
            lines = json.loads(kept.read_text())
        else:
            print(f"solving {name} endings", file=sys.stderr, flush=True)
            lines = endings(name, args.budget / 10, args.memory, seed=1, threads=args.threads)
            kept.parent.mkdir(parents=True, exist_ok=True)
            kept.write_text(json.dumps(lines, indent=1) + "\n")
        body += lines
        print("\n".join(lines), file=sys.stderr, flush=True)
    for name, entries in books.items():
        args.book.mkdir(parents=True, exist_ok=True)
        (args.book / f"{name}.json").write_text(json.dumps(entries, indent=1) + "\n")
    head = [
        "# Solved boards", "",
        "Values proven by `gtpgames solve` (a depth-first proof-number search, see the guide)",
        "for the player to move, written by `scripts/solve_boards.py` on a 2-core machine",
        "shared with other work; the nodes and seconds of each solve are given. In the maps of",
        "first moves (pictures of the empty board drawn by `gtpgames render`), W marks a first",
        "move that wins for the player who makes it, L one that loses, D a draw and ? one not",
        "decided within the time. A board marked unknown was not",
        "decided within its time. A first move's value comes from a solve of the position",
        "after it, which checks the winning moves the solve of the empty board lists.", "",
        "Brique with the pie rule needs no search: Brique has no draws, and its swap changes",
        "sides exactly (the position after it is the one before it seen from the other",
        "side), so the player who may swap wins, by swapping after a first move that wins",
        "and by playing on after one that loses. Every first move loses, and so the empty",
        "board is lost for the first player, on every size. `gtpgames solve` gives these",
        "values at once (`from: the pie rule`); which move wins after a first move (the swap",
        "or a reply) takes a search. The boards up to 5x5 below were searched all the same,",
        "and agree; 6x6 is decided by the rule. Flicker's swap changes sides exactly too, but",
        "Flicker has draws: there the player who may swap does not lose, so with the pie",
        "rule the first player does not win, on any size (a draw or a loss: the boards below",
        "are losses).", "",
    ]
    notes = args.notes.read_text().rstrip().split("\n")
    at = notes.index(FIRST_MOVE_SOLVES)
    notes[at:at + 1] = first_move_solves(records)
    args.out.write_text("\n".join(head + notes + [""] + body).rstrip() + "\n")


if __name__ == "__main__":
    main()
