"""Time from process start to the answer of ``protocol_version``, per game.

Usage: python scripts/bench_startup.py [--runs N]

Target (bot issue): under 0.3 s. Reports the median and the worst of N runs per game.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from engine.games.registry import available_games

SCRIPT = Path(sys.executable).with_name("gtpgames")
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "gtpgames"]


def once(game: str) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen([*COMMAND, "gtp", game], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"protocol_version\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - start
    assert line == b"= 2\n", line
    proc.stdin.write(b"quit\n")
    proc.stdin.close()
    proc.wait()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--runs", type=int, default=10,
                        help="processes started per game (default 10)")
    args = parser.parse_args()
    for game in available_games():
        times = [once(game) for _ in range(args.runs)]
        print(f"{game:8} median {statistics.median(times):.3f} s  worst {max(times):.3f} s")


if __name__ == "__main__":
    main()
