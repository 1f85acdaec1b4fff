"""A strength ladder: in-process matches between players, every game, alternating colours.

Usage: python -m scripts.ladder [--games G,...] [--match A-B ...] [-n GAMES]
                                [--time S | --playouts N] [--seed S] [--show-draws]

A player spec is ``random``, ``mcts`` (the player of ``gtpgames gtp``: a compiled kernel when
there is one, else the Python MCTS), or ``py`` (always the Python MCTS), with options after
slashes: ``py/solver=0``, ``py/decisive=1``, ``py/reuse=0``, ``py/exploration=1.2``,
``mcts/threads=2`` (the kernel on two threads), fields of the kernel's
``engine.search.kernels.mcts.Settings`` such as ``mcts/knowledge=1`` or ``mcts/rave=0``, and
``py/policy=1`` (playouts with the game's policy ``Game.playout``, e.g. Brax's captures first,
instead of uniform ``Game.random_playout``). The
default matches are mcts vs random, mcts vs py (meaningful once kernels exist) and each
feature of the Python MCTS on vs off. Each match prints the first player's score (wins + half
the draws) with a 95% Wilson interval, and how many games each draw rule ended
(``--show-draws`` also prints the final position of each drawn game).
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections import Counter
from typing import Any

from engine.games.core import Game
from engine.games.registry import available_games, new_game
from engine.search.mcts import MctsPlayer
from engine.search.players import Limit, Player, RandomPlayer

DEFAULT_MATCHES = [
    "mcts-random",
    "mcts-py",
    "py-py/solver=0",
    "py/decisive=1-py",
    "py-py/reuse=0",
]


#: Player options that take a number (the others are switches: 0, off or false is off).
NUMBERS = ("exploration", "uct", "rave", "contempt", "widen_threshold", "threads",
           "knowledge", "expand_visits", "grave", "max_nodes")


def number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


def make(spec: str, seed: int) -> Player:
    name, *settings = spec.split("/")
    rng = random.Random(seed)
    if name == "random":
        return RandomPlayer(rng)
    if name not in ("mcts", "py"):
        raise SystemExit(f"unknown player {spec!r}")
    options: dict[str, Any] = {}
    for item in settings:
        key, _, value = item.partition("=")
        options[key] = number(value) if key in NUMBERS else value not in ("0", "off", "false")
    threads = int(options.pop("threads", 1))
    if name == "mcts":  # the options are the kernel's Settings
        return MctsPlayer(rng, threads=threads, kernel_settings=options)
    return MctsPlayer(rng, kernel=False, **options)


#: A move counts as over time when it takes longer than the limit plus this (the clock's
#: SAFETY margin in engine/search/clock.py).
GRACE = 0.05


def play_game(
    game: Game[Any], players: list[Player], limit: Limit
) -> tuple[int | None, list[float], str]:
    """Play to the end: (winning player index of ``players`` or None, seconds per move of
    the search players, the outcome's reason)."""
    times = []
    while (outcome := game.outcome()) is None:
        player = players[game.to_move]
        start = time.perf_counter()
        move = player.choose_move(game.copy(), limit)
        if not isinstance(player, RandomPlayer):
            times.append(time.perf_counter() - start)
        game.play(move)
    if outcome.winner is None:
        return None, times, outcome.reason
    seats = [p for p in range(game.num_players) if game.side_of(p) == outcome.winner]
    return seats[0], times, outcome.reason


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = score / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def match(
    name: str, first: str, second: str, games: int, limit: Limit, seed: int,
    show_draws: bool = False,
) -> str:
    wins = 0
    times: list[float] = []
    draw_reasons: Counter[str] = Counter()
    start = time.perf_counter()
    for i in range(games):
        game = new_game(name)
        a, b = make(first, seed + 2 * i), make(second, seed + 2 * i + 1)
        a_seat = i % 2  # alternate colours
        players = [b, b]
        players[a_seat] = a
        winner, spent, reason = play_game(game, players, limit)
        times += spent
        if winner is None:
            draw_reasons[reason] += 1
            if show_draws:
                side = game.side_names[game.side_of(a_seat)]
                print(f"game {i + 1} ({first} as {side}): {reason} after "
                      f"{len(game.history)} moves\n{game.position_string()}\n"
                      f"{game.board_text()}", flush=True)
        elif winner == a_seat:
            wins += 1
    draws = draw_reasons.total()
    score = wins + draws / 2
    low, high = wilson(score, games)
    over = "" if limit.time is None else (
        f" over {limit.time + GRACE:.2f}s: {sum(t > limit.time + GRACE for t in times)}"
        f"/{len(times)}"
    )
    return (
        f"{name:8} {first:>16} vs {second:<16} {wins:3d}W {draws:3d}D "
        f"{games - wins - draws:3d}L  score {score / games:6.1%} "
        f"[{low:6.1%}, {high:6.1%}]  longest move {max(times, default=0):.2f}s{over}  "
        f"({time.perf_counter() - start:.0f}s)"
        + "".join(f"\n{'':9}{count} x {reason}" for reason, count in draw_reasons.items())
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--games", default=",".join(available_games()),
                        help="comma-separated games (default: every game)")
    parser.add_argument("--match", action="append", default=None, metavar="A-B",
                        help="a match of player spec A against B (repeatable; default: the "
                        "matches described above)")
    parser.add_argument("-n", type=int, default=20, help="games per match")
    parser.add_argument("--time", type=float, default=None,
                        help="seconds per move (default 0.1 when --playouts is not given)")
    parser.add_argument("--playouts", type=int, default=None, help="playouts per move")
    parser.add_argument("--seed", type=int, default=1,
                        help="base seed: game i's players use S+2i and S+2i+1 (default 1)")
    parser.add_argument("--show-draws", action="store_true",
                        help="print the final position of each drawn game")
    args = parser.parse_args()
    if args.time is None and args.playouts is None:
        args.time = 0.1
    limit = Limit(args.time, args.playouts)
    print(f"limit per move: time {args.time} s, playouts {args.playouts}; "
          f"{args.n} games per match, colours alternating", flush=True)
    specs = args.match or DEFAULT_MATCHES
    if any(part.split("/")[0] == "mcts" for spec in specs for part in spec.split("-")):
        from engine.search import kernels

        for name in args.games.split(","):
            # load (or compile) the kernels first, so that every game is played with them
            found = kernels.searcher_for(new_game(name), wait=True)
            print(f"{name}: {'kernel' if found else 'no kernel: mcts is the Python search'}",
                  flush=True)
    for spec in specs:
        first, _, second = spec.partition("-")
        for name in args.games.split(","):
            print(match(name, first, second, args.n, limit, args.seed, args.show_draws),
                  flush=True)


if __name__ == "__main__":
    main()
