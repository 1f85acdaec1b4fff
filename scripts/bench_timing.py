"""Timed genmoves through the real engine process, as a GTP controller sees them.

Usage: python -m scripts.bench_timing [--moves N] [--cold N] [--main S] [--canadian M P K]
       [--jobs J] [--games a,b,...] [--skip cold,move,absolute,canadian] [--engine "ARGS"]

Target: 0 moves over time in 500 timed genmoves; never exceed the time left.
Every figure is the wall time a controller measures from writing ``genmove`` to reading the
whole response (one command at a time, as a GTP controller does). Regimes:

* ``move``: ``--time 0.2`` per move; N genmoves per game (self-play, new game when one ends).
  Over = longer than 0.2 s (no tolerance); the column ``+50ms`` counts those over 0.25 s.
  Each process first answers ``protocol_version`` (a controller's handshake; start-up itself
  is scripts/bench_startup.py's figure), so the first genmove is timed from a running process.
* ``cold``: the same with a fresh process whose ``NUMBA_CACHE_DIR`` is a new empty directory,
  so the kernels compile in the background while the first genmoves search (the GIL is
  shared); its first N genmoves.
* ``absolute``: ``time_settings S 0 0``; two engine processes play whole games; before every
  genmove the controller sends ``time_left`` with what its own clock says is left. Over = a
  move longer than what was left (a game lost on time).
* ``canadian``: ``time_settings M P K`` (Canadian byo-yomi); the controller runs main time and
  then periods of P seconds for K stones. Over = a move longer than main time left plus one
  period in main time, or longer than what is left of the period in byo-yomi (an overrun).

Games run J at a time (default 2: the machine has 2 cores; only one engine of a game thinks
at a time). ``--engine "ARGS"`` adds arguments to every engine's command line (``--prove``:
the solver first on half of each move's time).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from engine.games.registry import available_games, new_game

SCRIPT = Path(sys.executable).with_name("gtpgames")
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "gtpgames"]
MOVE_TIME = 0.2
MARGIN = 0.05
#: Arguments added to every engine's command line (``--engine``).
EXTRA: list[str] = []


class Engine:
    """One engine process spoken to over pipes, one command at a time."""

    def __init__(self, game: str, *extra: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [*COMMAND, "gtp", game, *extra, *EXTRA], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=env, text=True, bufsize=1,
        )

    def send(self, command: str) -> tuple[str, float]:
        """The response's text and the seconds from writing the command to its last line."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        start = time.perf_counter()
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines: list[str] = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"engine exited after {command!r}")
            if line == "\n" and lines:
                break
            if line != "\n":
                lines.append(line.rstrip("\n"))
        elapsed = time.perf_counter() - start
        text = "\n".join(lines)
        if not text.startswith("="):
            raise RuntimeError(f"{command!r} failed: {text}")
        return text[1:].strip(), elapsed

    def close(self) -> None:
        try:
            self.send("quit")
        except (RuntimeError, OSError):
            pass
        self.proc.wait(timeout=10)


@dataclasses.dataclass
class Record:
    """Genmoves of one regime and game: the wall times and the limit each had."""

    regime: str
    game: str
    times: list[float] = dataclasses.field(default_factory=list)
    limits: list[float] = dataclasses.field(default_factory=list)
    games: int = 0
    lost_on_time: int = 0
    overruns: int = 0  # byo-yomi periods overrun

    def add(self, elapsed: float, limit: float) -> None:
        self.times.append(elapsed)
        self.limits.append(limit)


def self_play(game: str, moves: int, regime: str, env: dict[str, str] | None) -> Record:
    """``moves`` genmoves at ``--time 0.2`` by one process playing both sides."""
    record = Record(regime, game)
    engine = Engine(game, "--time", str(MOVE_TIME), "--seed", "1", env=env)
    local = new_game(game)
    try:
        engine.send("protocol_version")  # a controller's handshake: the process is up
        while len(record.times) < moves:
            if local.is_over():
                engine.send("clear_board")
                local = new_game(game)
                record.games += 1
            token, elapsed = engine.send(f"genmove {local.color_name(local.to_move)}")
            record.add(elapsed, MOVE_TIME)
            local.play_text(token, local.DEFAULT_NOTATION)
    finally:
        engine.close()
    return record


@dataclasses.dataclass
class Clock:
    """The controller's clock for one side: main time, then Canadian periods."""

    main: float
    period: float
    stones: int
    in_period: bool = False
    stones_left: int = 0
    period_left: float = 0.0

    def time_left(self) -> tuple[float, int]:
        """What ``time_left`` says: seconds and stones (0 in main time)."""
        return (self.main, 0) if not self.in_period else (self.period_left, self.stones_left)

    def allowed(self) -> float:
        """The longest the next move may take without losing on time."""
        if self.in_period:
            return self.period_left
        return self.main + (self.period if self.stones > 0 else 0.0)

    def charge(self, elapsed: float) -> bool:
        """Charge a move; False if it overran the clock."""
        if not self.in_period:
            if elapsed <= self.main:
                self.main -= elapsed
                return True
            if self.stones == 0:
                self.main = 0.0
                return False
            elapsed -= self.main
            self.main = 0.0
            self.in_period, self.period_left, self.stones_left = True, self.period, self.stones
        self.period_left -= elapsed
        self.stones_left -= 1
        if self.period_left < 0:
            return False
        if self.stones_left == 0:
            self.period_left, self.stones_left = self.period, self.stones
        return True


def clock_game(game: str, settings: tuple[int, int, int], regime: str, seed: int) -> Record:
    """One whole game between two engine processes under ``time_settings``."""
    record = Record(regime, game, games=1)
    main, period, stones = settings
    engines = [Engine(game, "--seed", str(seed + side)) for side in range(2)]
    local = new_game(game)
    clocks = [Clock(float(main), float(period), stones) for _ in range(2)]
    try:
        for engine in engines:
            engine.send(f"time_settings {main} {period} {stones}")
        while not local.is_over():
            side = local.to_move
            colour = local.color_name(side)
            engine, clock = engines[side], clocks[side]
            seconds, stones_left = clock.time_left()
            engine.send(f"time_left {colour} {seconds:.3f} {stones_left}")
            allowed = clock.allowed()
            token, elapsed = engine.send(f"genmove {colour}")
            record.add(elapsed, allowed)
            if not clock.charge(elapsed):
                if clock.in_period:
                    record.overruns += 1
                record.lost_on_time += 1
                break
            local.play_text(token, local.DEFAULT_NOTATION)
            engines[1 - side].send(f"play {colour} {token}")
    finally:
        for engine in engines:
            engine.close()
    return record


def merge(records: list[Record]) -> list[Record]:
    merged: dict[tuple[str, str], Record] = {}
    for record in records:
        into = merged.setdefault((record.regime, record.game), Record(record.regime, record.game))
        into.times += record.times
        into.limits += record.limits
        into.games += record.games
        into.lost_on_time += record.lost_on_time
        into.overruns += record.overruns
    return list(merged.values())


def p99(values: list[float]) -> float:
    if len(values) < 2:
        return values[0] if values else 0.0
    return statistics.quantiles(values, n=100, method="inclusive")[98]


def row(record: Record) -> str:
    over = sum(t > lim for t, lim in zip(record.times, record.limits, strict=True))
    over50 = sum(t > lim + MARGIN for t, lim in zip(record.times, record.limits, strict=True))
    slack = min((lim - t for t, lim in zip(record.times, record.limits, strict=True)), default=0.0)
    extra = ""
    if record.regime in ("absolute", "canadian"):
        extra = f" | {record.games} | {record.lost_on_time} | {record.overruns}"
    else:
        extra = " | | |"
    return (f"| {record.regime} | {record.game} | {len(record.times)} | "
            f"{max(record.times, default=0):.3f} | {p99(record.times):.3f} | {over} | {over50} "
            f"| {slack:.3f}{extra} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--moves", type=int, default=60, help="genmoves per game at --time 0.2")
    parser.add_argument("--cold", type=int, default=10,
                        help="genmoves of a fresh process with an empty numba cache")
    parser.add_argument("--main", type=int, default=20, help="absolute main time per side")
    parser.add_argument("--canadian", type=int, nargs=3, default=(5, 2, 5),
                        metavar=("MAIN", "PERIOD", "STONES"),
                        help="Canadian byo-yomi of the canadian regime (default 5 2 5)")
    parser.add_argument("--clock-games", type=int, default=1, help="games per game and clock")
    parser.add_argument("--jobs", type=int, default=2,
                        help="games run at a time (default 2)")
    parser.add_argument("--games", default=",".join(available_games()),
                        help="comma-separated games (default: every game)")
    parser.add_argument("--skip", default="", help="regimes to skip, comma-separated")
    parser.add_argument("--engine", default="",
                        help="arguments added to every engine's command line, e.g. --prove")
    args = parser.parse_args()
    EXTRA[:] = shlex.split(args.engine)
    games = args.games.split(",")
    skip = set(args.skip.split(",")) - {""}
    started = time.perf_counter()
    tasks = []
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        if "cold" not in skip and args.cold:
            for game in games:
                env = {**os.environ, "NUMBA_CACHE_DIR": tempfile.mkdtemp(dir=tmp)}
                tasks.append(pool.submit(self_play, game, args.cold, "cold", env))
        if "move" not in skip:
            tasks += [pool.submit(self_play, g, args.moves, "move", None) for g in games]
        for n in range(args.clock_games):
            if "absolute" not in skip:
                tasks += [pool.submit(clock_game, g, (args.main, 0, 0), "absolute", 10 * n)
                          for g in games]
            if "canadian" not in skip:
                tasks += [pool.submit(clock_game, g, tuple(args.canadian), "canadian", 10 * n)
                          for g in games]
        records = merge([task.result() for task in tasks])
    print(f"limits: move/cold --time {MOVE_TIME}; absolute time_settings {args.main} 0 0; "
          "canadian time_settings " + " ".join(map(str, args.canadian))
          + (f"; engines with {args.engine}" if args.engine else ""))
    print("| regime | game | moves | max s | p99 s | over limit | over limit+50ms "
          "| least slack s | games | lost on time | period overruns |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for record in records:
        print(row(record))
    total = sum(len(r.times) for r in records)
    over = sum(t > lim for r in records for t, lim in zip(r.times, r.limits, strict=True))
    print(f"total {total} timed genmoves, {over} over their limit, "
          f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
