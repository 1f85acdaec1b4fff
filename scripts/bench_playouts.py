"""Random playouts per second for each game at its default options (or the options given).

Usage: python scripts/bench_playouts.py [GAME ...] [--seconds S] [--option KEY=VALUE ...]

Measures ``Game.random_playout`` (each game's fast path for search) and, side by side in the
same run, the generic contract loop (copy, then ``random_move``/``play`` until the end), so the
ratio is measured on the same machine at the same moment.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from engine.games.core import Game, Outcome
from engine.games.registry import available_games, new_game


def generic_playout(game: Game[Any], rng: random.Random) -> Outcome:
    return Game.random_playout(game, rng)


def rate(game: Game[Any], seconds: float, fast: bool) -> tuple[float, int]:
    rng = random.Random(1)
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        if fast:
            game.random_playout(rng)
        else:
            generic_playout(game, rng)
        count += 1
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - start), count


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("games", nargs="*", default=None,
                        help="games to measure (default: every game)")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="seconds of playouts per game and path (default 3)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a game option (repeatable); default options otherwise")
    args = parser.parse_args()
    options = dict(item.split("=", 1) for item in args.option)
    print(f"{'game':8} {'options':24} {'fast/s':>10} {'generic/s':>10} {'ratio':>7}")
    for name in args.games or available_games():
        game = new_game(name, **options)
        fast, _ = rate(game, args.seconds, fast=True)
        generic, _ = rate(game, args.seconds, fast=False)
        opts = ",".join(f"{k}={v}" for k, v in game.options.items())
        print(f"{name:8} {opts:24} {fast:10.1f} {generic:10.1f} {fast / generic:7.1f}")


if __name__ == "__main__":
    main()
