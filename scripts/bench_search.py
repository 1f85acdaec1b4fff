"""Search speed and memory per game at the default options: the Python MCTS (engine/search/mcts.py)
and, side by side in the same run, the compiled kernel when engine.search.kernels has one.

Usage: python -m scripts.bench_search [GAME ...] [--seconds S] [--moves K] [--threads N]
                                      [--rounds R]

For each game, K random opening moves are played (seeded) and the position is searched for S
seconds: iterations per second. With ``--threads N`` (N > 1) the kernel is also measured on N
threads (root parallelisation, docs/design/search.md), in the same run. Peak memory is
measured in a second, traced search of the same number of iterations (tracemalloc: Python and numpy
allocations; tracing slows the search, so it is not timed).

With ``--rounds R`` and ``--threads N``, the kernel's scaling is then measured R times more,
one thread and N threads alternately, each search in a searcher of its own (no tree kept from
an earlier search), and the median of the R ratios printed: a machine's load drifts between
two searches of a few seconds, so one pair of figures is not enough to judge a ratio.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import tracemalloc
from typing import Any

from engine.games.core import Game
from engine.games.registry import available_games, new_game
from engine.search.base import Searcher
from engine.search.mcts import Mcts
from engine.search.players import Limit


def kernel_for(game: Game[Any], wait: float) -> Searcher | None:
    """The game's compiled searcher, waiting up to ``wait`` seconds for it to load."""
    from engine.search import kernels

    deadline = time.monotonic() + wait
    while True:
        found = kernels.searcher_for(game)
        if found is not None or time.monotonic() >= deadline:
            return found
        if game.name not in getattr(kernels, "KERNELS", {game.name: ""}):
            return None
        time.sleep(0.2)


def measure(
    searcher: Searcher, game: Game[Any], seconds: float, threads: int = 1
) -> tuple[float, int, float]:
    """(iterations/s, iterations, peak MiB of a traced search of as many iterations)."""
    result = searcher.search(game, Limit(time=seconds, threads=threads), random.Random(1))
    rate = result.iterations / max(result.seconds, 1e-9)
    tracemalloc.start()
    searcher.search(game, Limit(playouts=max(result.iterations, 1), threads=threads),
                    random.Random(1))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return rate, result.iterations, peak / 2**20


def fresh(kernel: Searcher) -> Searcher:
    """A searcher like ``kernel`` (a compiled kernel's) that keeps no tree of an earlier
    search."""
    return type(kernel)(kernel.codec, kernel.settings)  # type: ignore[call-arg, attr-defined]


def scaling(kernel: Searcher, game: Game[Any], seconds: float, threads: int,
            rounds: int) -> tuple[list[float], float]:
    """The ratios of the kernel's iterations/s on ``threads`` threads to one thread, one per
    round (the two searched alternately), and their median."""
    ratios = []
    for _ in range(rounds):
        rates = []
        for count in (1, threads):
            result = fresh(kernel).search(game, Limit(time=seconds, threads=count),
                                          random.Random(1))
            rates.append(result.iterations / max(result.seconds, 1e-9))
        ratios.append(rates[1] / rates[0])
    return ratios, statistics.median(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("games", nargs="*", help="games to measure (default: every game)")
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="seconds of search per game and searcher (default 2)")
    parser.add_argument("--moves", type=int, default=4,
                        help="random opening moves before the search (default 4)")
    parser.add_argument("--threads", type=int, default=1,
                        help="also measure the kernel on this many threads")
    parser.add_argument("--rounds", type=int, default=0,
                        help="with --threads: the scaling measured this many times more, "
                        "one thread and --threads alternately (median ratio)")
    parser.add_argument("--wait", type=float, default=120.0,
                        help="seconds to wait for a kernel to compile or load")
    args = parser.parse_args()
    print(f"{'game':8} {'searcher':8} {'iter/s':>10} {'iters':>8} {'peak MiB':>9}")
    for name in args.games or available_games():
        game = new_game(name)
        rng = random.Random(7)
        for _ in range(args.moves):
            game.play(game.random_move(rng))
        rows: list[tuple[str, Searcher, int]] = [("python", Mcts(reuse=False), 1)]
        kernel = kernel_for(game, args.wait)
        if kernel is not None:
            rows.append(("kernel", kernel, 1))
            if args.threads > 1:
                rows.append((f"kernel*{args.threads}", kernel, args.threads))
        for label, searcher, threads in rows:
            rate, iterations, peak = measure(searcher, game, args.seconds, threads)
            print(f"{name:8} {label:8} {rate:10.0f} {iterations:8d} {peak:9.1f}", flush=True)
        if kernel is None:
            print(f"{name:8} {'kernel':8} {'(none)':>10}", flush=True)
        elif args.threads > 1 and args.rounds > 0:
            ratios, median = scaling(kernel, game, args.seconds, args.threads, args.rounds)
            listed = " ".join(f"{r:.2f}" for r in ratios)
            print(f"{name:8} {'scaling':8} {median:10.2f}  x{args.threads} threads / 1, "
                  f"median of {listed}", flush=True)


if __name__ == "__main__":
    main()
