"""Compiled search kernels against the Python contract, per game, side by side in one run.

Usage: python -m scripts.bench_kernels [GAME ...] [--seconds S] [--option KEY=VALUE ...]

For each game with a kernel (default options unless given): the kernel's compile time into
an empty cache (cold) and its load time from that cache (warm), each in a fresh process, with
the process's peak memory; then, in the warm process, whole-loop MCTS iterations per second
and playouts per second inside the kernel, beside the Python contract's playouts per second
(``Game.random_playout``, the rules cores' fast path) measured in this process.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

from engine.games.registry import new_game

CHILD = r"""
import json, random, resource, sys, time
start = time.perf_counter()
from engine.search import kernels
name, seconds, options = sys.argv[1], float(sys.argv[2]), json.loads(sys.argv[3])
searcher = kernels.load(name)
loaded = time.perf_counter() - start
out = {"load": loaded}
if seconds > 0:
    from engine.search.kernels.mcts import Tree, playouts
    from engine.games.registry import new_game
    game = new_game(name, **options)
    tree = Tree(searcher.codec, game, searcher.settings, 1)
    n, t0 = 256, time.perf_counter()
    while time.perf_counter() - t0 < seconds and tree.root_proof == 0:
        tree.run(n)
        n = min(n * 2, 1 << 16)
    out["iterations"] = tree.iterations / (time.perf_counter() - t0)
    out["nodes"] = int(tree.tree[8][0])
    out["tree_mb"] = sum(a.nbytes for a in tree.tree) / 1e6
    import numpy as np
    stats = np.zeros(5)
    # compile first, at the search's knowledge level
    playouts(tree.tables, tree.root, tree.scratch, tree.rng, tree.knowledge, 1, stats)
    n, count, t0 = 64, 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        playouts(tree.tables, tree.root, tree.scratch, tree.rng, tree.knowledge, n, stats)
        count += n
        n = min(n * 2, 1 << 14)
    out["playouts"] = count / (time.perf_counter() - t0)
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def child(name: str, cache: str, seconds: float, options: dict[str, str]) -> dict[str, float]:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, name, str(seconds), json.dumps(options)],
        env=env, capture_output=True, text=True, check=True,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def python_playouts(name: str, options: dict[str, str], seconds: float) -> float:
    game = new_game(name, **options)
    rng = random.Random(1)
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game.random_playout(rng)
        count += 1
    return count / (time.perf_counter() - start)


def play_match(
    name: str,
    options: dict[str, str],
    first: dict[str, float],
    second: dict[str, float],
    games: int,
    playouts: int,
    movetime: float | None = None,
) -> tuple[float, float]:
    """Kernel searches with settings ``first`` against ``second`` at ``playouts`` iterations a
    move, alternating colours; the first's score and its 95% half-interval."""
    from engine.search import kernels
    from engine.search.kernels.mcts import KernelSearcher, Settings
    from engine.search.players import Limit

    base = kernels.load(name)
    a = KernelSearcher(base.codec, Settings(**first))  # type: ignore[arg-type]
    b = KernelSearcher(base.codec, Settings(**second))  # type: ignore[arg-type]
    score = 0.0
    for number in range(games):
        rng = random.Random(number)
        game = new_game(name, **options)
        seats = (a, b) if number % 2 == 0 else (b, a)
        while (outcome := game.outcome()) is None:
            mover = seats[game.to_move]
            limit = Limit(time=movetime) if movetime else Limit(playouts=playouts)
            game.play(mover.search(game, limit, rng).best)
        if outcome.winner is None:
            score += 0.5
        elif seats[outcome.winner] is a:
            score += 1.0
    mean = score / games
    return mean, 1.96 * (max(mean * (1 - mean), 0.25 / games) / games) ** 0.5


FEATURES: dict[str, tuple[dict[str, float], dict[str, float]]] = {
    "rave": ({}, {"rave": 0.0}),
    "knowledge": ({"knowledge": 1}, {}),
    "solver": ({}, {"solver": False}),
    "reuse": ({"reuse": True}, {}),
    "decisive": ({"decisive": True}, {}),
    "grave": ({"grave": 50}, {}),
}


def main() -> None:
    from engine.search.kernels import KERNELS

    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("games", nargs="*", default=None,
                        help="games to measure (default: every game with a kernel)")
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="seconds of search and of playouts per game (default 2)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a game option (repeatable); default options otherwise")
    parser.add_argument(
        "--features", type=int, default=0, metavar="GAMES",
        help="instead: each feature on against off, GAMES games each",
    )
    parser.add_argument("--playouts", type=int, default=3000,
                        help="with --features: iterations a move (default 3000)")
    parser.add_argument("--movetime", type=float, default=None,
                        help="with --features: seconds a move instead of --playouts")
    parser.add_argument("--only", action="append", default=None,
                        help="with --features: only the features named (repeatable)")
    parser.add_argument(
        "--match", nargs=2, metavar=("A", "B"), default=None,
        help="with --features GAMES: settings A against B instead (KEY=VALUE,KEY=VALUE)",
    )
    args = parser.parse_args()
    options = dict(item.split("=", 1) for item in args.option)
    if args.features and args.match:
        first, second = ({
            key: float(value) for key, _, value in (item.partition("=") for item in side.split(","))
        } for side in args.match)
        for name in args.games or list(KERNELS):
            mean, half = play_match(
                name, options, first, second, args.features, args.playouts, args.movetime
            )
            print(f"{name:8} {args.match[0]} vs {args.match[1]}: {mean:.3f} +- {half:.3f} "
                  f"({args.features} games, {options or 'default options'})", flush=True)
        return
    if args.features:
        for name in args.games or list(KERNELS):
            for feature, (on, off) in FEATURES.items():
                if args.only and feature not in args.only:
                    continue
                t0 = time.perf_counter()
                mean, half = play_match(
                    name, options, on, off, args.features, args.playouts, args.movetime
                )
                budget = f"{args.movetime} s" if args.movetime else f"{args.playouts} iterations"
                print(
                    f"{name:8} {feature:10} on vs off: {mean:.3f} +- {half:.3f} "
                    f"({args.features} games, {budget} a move, {options or 'default options'}, "
                    f"{time.perf_counter() - t0:.0f} s)", flush=True,
                )
        return
    print(
        f"{'game':8} {'cold s':>7} {'warm s':>7} {'iter/s':>9} {'kplay/s':>9} "
        f"{'pyplay/s':>9} {'x':>6} {'tree MB':>8} {'peak MB':>8}"
    )
    for name in args.games or list(KERNELS):
        with tempfile.TemporaryDirectory() as cache:
            cold = child(name, cache, 0.0, options)
            warm = child(name, cache, args.seconds, options)
        py = python_playouts(name, options, args.seconds)
        print(
            f"{name:8} {cold['load']:7.2f} {warm['load']:7.2f} {warm['iterations']:9.0f} "
            f"{warm['playouts']:9.0f} {py:9.0f} {warm['playouts'] / py:6.1f} "
            f"{warm['tree_mb']:8.0f} {warm['peak_mb']:8.0f}"
        )


if __name__ == "__main__":
    main()
