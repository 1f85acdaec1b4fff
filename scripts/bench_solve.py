"""Speed of the proof-number solver: positions (nodes) per second, solve times per board and
the table's size and use, on the empty small boards and on endings of random games (the kernel
is compiled or loaded from the cache first, outside the time).

Usage: python scripts/bench_solve.py [--memory MB] [--time S] [--nodes N] [--only GAME,...]
[--threads N] [--size N] [--back PLIES,...] [--seeds S,...] [--moves "M ..."]
[--pie-rule use|search|both]

With --back the endings are taken that many plies before the end of the seeded game instead
of at each board's own distance (``--only trisq --size 4 --back 12,14 --nodes 3000000``);
with --seeds, from the random game of each seed in turn (default: the game of seed 5 alone),
to see how a solve grows with the distance from the end over several games
(``--only trisq --size 4 --back 10,12,14 --seeds 1,2,3 --nodes 3000000``).

With --threads N each solve runs on N threads sharing the table (``gtpgames solve
--threads``); compare thread counts in one run by alternating invocations, since a shared
machine's speed drifts.

With --pie-rule search the positions where the pie rule decides or bounds the value
(``Solver.pie_stage``: Brique's and Flicker's first two moves with the pie rule) are searched
as any other; with both, each board is solved that way and then with the pie rule, side by
side (``--only flicker --size 4 --pie-rule both --memory 512``).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.games.core import Game  # noqa: E402
from engine.games.registry import new_game  # noqa: E402
from engine.search.solve import Solver  # noqa: E402

#: (game, options, plies before the end of a seeded random game; 0: the empty board)
BOARDS: list[tuple[str, dict[str, Any], int]] = [
    ("brique", {"size": 3, "pie": False}, 0),
    ("brique", {"size": 4, "pie": False}, 0),
    ("brique", {"size": 4, "pie": True}, 0),
    ("brique", {"size": 5, "pie": False}, 0),
    ("flicker", {"size": 3, "pie": False}, 0),
    ("flicker", {"size": 4, "pie": False}, 0),
    ("flicker", {"size": 4, "pie": True}, 0),
    ("trisq", {"size": 4}, 12),
    ("trisq", {"size": 4}, 0),
    ("bricka", {}, 18),
    ("bricka", {}, 24),
]


def position(name: str, options: dict[str, Any], back: int, seed: int = 5) -> Game[Any]:
    """The empty board, or the position ``back`` plies before the end of the random game of
    ``seed``, through its position string."""
    game = new_game(name, **options)
    if back == 0:
        return game
    rng = random.Random(seed)
    while game.outcome() is None:
        game.play(game.random_move(rng))
    for _ in range(min(back, len(game.history) - 1)):
        game.undo()
    return type(game).from_position_string(game.position_string(), **options)


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--memory", type=float, default=256.0,
                        help="megabytes for each solver's table and stack")
    parser.add_argument("--time", type=float, default=120.0,
                        help="seconds at most per board")
    parser.add_argument("--only", default="", help="comma-separated games (default: all)")
    parser.add_argument("--threads", type=int, default=1, help="search threads per solve")
    parser.add_argument("--size", type=int, default=None, help="only the boards of this size")
    parser.add_argument("--back", default="",
                        help="comma-separated plies before the end of the seeded game, in "
                             "place of the boards' own (endings only)")
    parser.add_argument("--seeds", default="",
                        help="comma-separated seeds of the random games the endings are "
                             "taken from (default: 5)")
    parser.add_argument("--nodes", type=int, default=None,
                        help="nodes at most per search (besides --time)")
    parser.add_argument("--moves", default="",
                        help="moves played on each chosen board first (gtp), e.g. to a lost "
                             "root")
    parser.add_argument("--pie-rule", choices=("use", "search", "both"), default="use",
                        help="use the pie rule where it decides or bounds a value, search "
                             "those positions as any other, or both, side by side")
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    print("| board | value | nodes | seconds | nodes/s | table entries used | table MB | "
          "load |")
    print("|---|---|---|---|---|---|---|---|")
    backs = [int(back) for back in args.back.split(",") if back]
    seeds = [int(seed) for seed in args.seeds.split(",") if seed]
    chosen = [
        (name, options, back, seed) for name, options, own in BOARDS
        if (not only or name in only)
        and (args.size is None or options.get("size") == args.size)
        for seed in (seeds if own and seeds else [5])
        for back in (backs if own and backs else [own])
    ]
    for name, options, back, seed in chosen:
        game = position(name, options, back, seed)
        for token in args.moves.split():
            game.play_text(token)
        ways = {"use": [True], "search": [False], "both": [False, True]}[args.pie_rule]
        text = " ".join([name] + [f"{k}={v}" for k, v in options.items()])
        text += f", {back} plies from the end" if back else ""
        text += f" of seed {seed}'s game" if back and seeds else ""
        text += f", after {args.moves}" if args.moves else ""
        text += f", {args.threads} threads" if args.threads > 1 else ""
        for pie in ways if options.get("pie") else [True]:
            solver = Solver(game, memory_mb=args.memory, threads=args.threads, pie=pie)
            found = solver.solve(game, seconds=args.time, nodes=args.nodes)
            rate = found.nodes / found.seconds if found.seconds else 0.0
            where = ""
            if options.get("pie"):
                where = ", pie rule used" if pie else ", pie rule searched"
            print(f"| {text}{where} | {found.value} | {found.nodes:,} | "
                  f"{found.seconds:.2f} | {rate:,.0f} | {solver.used():,} of "
                  f"{solver.entries:,} | {solver.table_bytes() / 2**20:.0f} | "
                  f"{os.getloadavg()[0]:.2f} |", flush=True)


if __name__ == "__main__":
    main()
