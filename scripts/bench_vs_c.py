"""The compiled kernels against the C random-playout programs, side by side in one run.

Usage: python -m scripts.bench_vs_c [GAME ...] [--c-reference DIR] [--seconds S]
       [--rounds R] [--stats N] [--sizes default|all]

DIR holds the built C programs, one per game, named after it (``brique``, ``trisq``,
``flicker``, ``brax``, ``bricka``; each takes ``--playouts K --seed S`` and, for the games
with a size, ``--size N``, and prints ``key value`` lines with ``playouts_per_s``,
``first_wins``, ``second_wins``, ``draws``, ``mean_plies`` and ``sd_plies``). Nothing is
built here.

For each game, at its default size and (``--sizes all``) at the smallest and largest sizes
it allows: ``--rounds`` rounds, each running the C program for about ``--seconds`` seconds
and then the kernel's uniform playouts (knowledge 0) for as long, from the start position;
the ratio is the median of the kernel's rates over the median of C's. At the default size the
kernel's MCTS (its default settings, one thread) runs as long in each round too, beside C's
playout rate. Then (``--stats N``, 0 to skip) N playouts of each at the default size, and the
z-scores of the differences: first player's wins, draws, and mean game length in turns.
Rates are per second of CPU time (the C program's from the kernel's accounting of the
child process), which a shared machine disturbs less than the wall clock; the load average is
printed with each line.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from engine.games.registry import new_game

#: (default, smallest, largest) board sizes of the games with a size.
SIZES: dict[str, tuple[int, int, int]] = {
    "brique": (11, 3, 25),
    "trisq": (8, 4, 19),
    "flicker": (11, 3, 25),
}
GAMES = ("brique", "trisq", "flicker", "brax", "bricka")


def load() -> str:
    return "{:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def run_c(program: Path, size: int | None, count: int, seed: int) -> dict[str, float]:
    """Run the C program for ``count`` playouts; its ``key value`` lines as numbers."""
    command = [str(program), "--playouts", str(count), "--seed", str(seed)]
    if size is not None:
        command += ["--size", str(size)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    found: dict[str, float] = {"cpu_rate": count / max(cpu, 1e-6)}
    for line in done.stdout.splitlines():
        key, _, rest = line.partition(" ")
        try:
            found[key] = float(rest.split()[0])
        except (ValueError, IndexError):
            continue
    return found


class Kernel:
    """One game's kernel at one size: uniform playouts and the default MCTS."""

    def __init__(self, name: str, size: int | None) -> None:
        import numpy as np

        from engine.search import kernels
        from engine.search.kernels.mcts import Settings, Tree

        self.np = np
        options: dict[str, Any] = {} if size is None else {"size": size}
        self.game = new_game(name, **options)
        self.searcher = kernels.load(name)
        # The uniform path: the playouts at knowledge 0, no tree.
        self.tree = Tree(self.searcher.codec, self.game, Settings(max_nodes=4096), 1)
        self.Tree = Tree

    def playouts(self, count: int, stats: Any = None) -> Any:
        from engine.search.kernels.mcts import playouts

        tree = self.tree
        if stats is None:
            stats = self.np.zeros(5)
        playouts(tree.tables, tree.root, tree.scratch, tree.rng, tree.knowledge, count, stats)
        return stats

    def playout_rate(self, seconds: float) -> float:
        """Playouts per second of CPU time."""
        self.playouts(1)
        n, count, start = 16, 0, time.process_time()
        while time.process_time() - start < seconds:
            self.playouts(n)
            count += n
            n = min(n * 2, 1 << 14)
        return count / (time.process_time() - start)

    def mcts_rate(self, seconds: float) -> float:
        """Iterations per second of the whole loop at the kernel's default settings, one
        thread, from the start position (a timed search's tree: 2 million nodes)."""
        tree = self.Tree(self.searcher.codec, self.game, self.searcher.settings, 1)
        tree.run(16)
        n, start, before = 256, time.process_time(), tree.iterations
        while time.process_time() - start < seconds and tree.root_proof == 0:
            tree.run(n)
            n = min(n * 2, 1 << 16)
        return (tree.iterations - before) / (time.process_time() - start)


def z_proportion(a: float, n: float, b: float, m: float) -> float:
    p = (a + b) / (n + m)
    se = math.sqrt(max(p * (1 - p), 1e-12) * (1 / n + 1 / m))
    return (a / n - b / m) / se


def compare_stats(name: str, c_dir: Path, count: int, seed: int) -> None:
    size = SIZES[name][0] if name in SIZES else None
    start = time.perf_counter()
    c = run_c(c_dir / name, size, count, seed)
    c_seconds = time.perf_counter() - start
    kernel = Kernel(name, size)
    start = time.perf_counter()
    stats = kernel.playouts(count)
    k_seconds = time.perf_counter() - start
    first, second, draws, total, squares = (float(x) for x in stats)
    mean = total / count
    sd = math.sqrt(max(squares / count - mean * mean, 0.0))
    c_first, c_draws = c["first_wins"], c["draws"]
    z_first = z_proportion(first, count, c_first, c["playouts"])
    z_draws = z_proportion(draws, count, c_draws, c["playouts"]) if draws + c_draws else 0.0
    se = math.sqrt(sd**2 / count + c["sd_plies"] ** 2 / c["playouts"])
    z_length = (mean - c["mean_plies"]) / se if se > 0 else 0.0
    label = name if size is None else f"{name} {size}"
    print(
        f"| {label} | {count:,} | {first / count:.4f} / {c_first / c['playouts']:.4f} "
        f"| {z_first:+.2f} | {draws / count:.4f} / {c_draws / c['playouts']:.4f} "
        f"| {z_draws:+.2f} | {mean:.2f} / {c['mean_plies']:.2f} | {z_length:+.2f} "
        f"| {k_seconds:.1f} / {c_seconds:.1f} | {load()} |",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("games", nargs="*", default=list(GAMES),
                        help="the games to measure (default: all five)")
    parser.add_argument("--c-reference", type=Path, default=Path("/tmp/perfref"),
                        help="the directory of the built C programs")
    parser.add_argument("--seconds", type=float, default=1.0, help="per measure and round")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of C then kernel; the median is printed (default 3)")
    parser.add_argument("--stats", type=int, default=200_000,
                        help="playouts of each for the statistics (0: none)")
    parser.add_argument("--sizes", choices=("default", "all"), default="all",
                        help="the default size only, or also the smallest and largest (default)")
    parser.add_argument("--seed", type=int, default=1, help="seed of C and kernel playouts")
    args = parser.parse_args()
    for name in args.games:
        if name not in GAMES:
            parser.error(f"no C program for {name!r} (games: {', '.join(GAMES)})")
        if not (args.c_reference / name).is_file():
            parser.error(f"{args.c_reference / name} is missing: build the C programs first")

    print(f"load average at the start: {load()}")
    print("| game | C playouts/s | kernel playouts/s | ratio | kernel MCTS iter/s | "
          "MCTS / C | load |")
    print("|---|---|---|---|---|---|---|")
    for name in args.games:
        sizes: list[int | None] = [None]
        if name in SIZES:
            default, low, high = SIZES[name]
            sizes = [default, low, high] if args.sizes == "all" else [default]
        for size in sizes:
            kernel = Kernel(name, size)
            is_default = size is None or size == SIZES[name][0]
            c_rates, k_rates, m_rates = [], [], []
            count = 2000
            for round_ in range(args.rounds):
                # C first, then the kernel: alternately, in the same run.
                while True:
                    c = run_c(args.c_reference / name, size, count, args.seed + round_)
                    if c["seconds"] >= 0.5 * args.seconds or count > 10**8:
                        break
                    count = int(count * min(20.0, 1.2 * args.seconds / max(c["seconds"], 1e-3)))
                c_rates.append(c["cpu_rate"])
                k_rates.append(kernel.playout_rate(args.seconds))
                if is_default:
                    m_rates.append(kernel.mcts_rate(args.seconds))
            c_rate, k_rate = statistics.median(c_rates), statistics.median(k_rates)
            label = name if size is None else f"{name} {size}"
            mcts = (
                f"{statistics.median(m_rates):,.0f} | {statistics.median(m_rates) / c_rate:.2f}"
                if m_rates else "| "
            )
            print(f"| {label} | {c_rate:,.0f} | {k_rate:,.0f} | {k_rate / c_rate:.2f} | "
                  f"{mcts} | {load()} |", flush=True)
    if args.stats:
        print()
        print("| game | playouts | first player wins, kernel / C | z | draws, kernel / C | z "
              "| mean turns, kernel / C | z | seconds, kernel / C | load |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for name in args.games:
            compare_stats(name, args.c_reference, args.stats, args.seed)


if __name__ == "__main__":
    main()
