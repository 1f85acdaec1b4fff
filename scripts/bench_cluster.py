"""Games per minute of ``gtpgames match`` with ``--jobs 2`` on this machine against
``--cluster`` on a Ray cluster of two nodes (a head and a worker, one CPU each) started here on
loopback, and the cluster's scheduling overhead per game.

Usage: python -m scripts.bench_cluster [--games N] [--size N] [--address ADDRESS]

Both runs play the same N games (default 200) of Brique 7x7 between two random movers
(``gtpgames gtp brique --player random``), two at a time; the records go to a temporary
directory. With ``--address`` the cluster run uses that cluster instead of starting one.

Figures:

* games per minute: N over the wall time of ``Match.run`` (the cluster run includes
  connecting to the cluster and disconnecting);
* overhead per game: for each game's task, the time from submitting it to having its result
  in the driver, less the time the task spent on the node (starting the engines when the
  worker has none yet, playing the game): Ray's scheduling (a worker lease, reused), sending
  the game and the configuration's reference, returning the record, and the driver's loop;
  median, mean and 90th percentile, then without each node's first game (which waits for
  Ray to start a worker process on the node, once);
* the driver's CPU time per game (its process time over the run, N games): what bounds the
  number of nodes one driver can keep busy.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from adapters.match import Match, MatchConfig
from adapters.match_cluster import new_match
from adapters.match_engine import EngineSpec

SCRIPT = Path(sys.executable).with_name("gtpgames")
RAY = str(Path(sys.executable).with_name("ray"))
HOST = "127.0.0.2"  # loopback; `ray start` replaces 127.0.0.1 by the network address


def engines(size: int) -> list[EngineSpec]:
    command = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "gtpgames"]
    return [EngineSpec(name, (*command, "gtp", "brique", "--size", str(size), "--player",
                              "random", "--seed", str(seed)))
            for name, seed in (("a", 1), ("b", 2))]


def start_cluster(root: Path) -> tuple[str, list[subprocess.Popen[bytes]]]:
    """A head and a worker node, one CPU each, as ``ray start --block`` processes."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port = probe.getsockname()[1]
    address = f"{HOST}:{port}"
    common = ["--num-cpus", "1", "--object-store-memory", "100000000", "--node-ip-address",
              HOST, "--disable-usage-stats", "--block"]
    procs = []
    for name, args in (("head", ["--head", "--port", str(port), "--include-dashboard=false",
                                 "--temp-dir", str(root / "ray")]),
                       ("worker", ["--address", address])):
        log = root / f"{name}.log"
        with log.open("wb") as out:
            procs.append(subprocess.Popen([RAY, "start", *args, *common], stdout=out,
                                          stderr=subprocess.STDOUT, start_new_session=True))
        deadline = time.monotonic() + 180
        while b"Ray runtime started" not in log.read_bytes():
            if procs[-1].poll() is not None or time.monotonic() > deadline:
                stop_cluster(procs)
                raise SystemExit(f"ray start failed:\n{log.read_text()[-2000:]}")
            time.sleep(0.2)
    return address, procs


def stop_cluster(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in reversed(procs):
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def run(config: MatchConfig) -> tuple[Match, float, float]:
    """The match, its wall time and the driver's CPU time."""
    match = new_match(config)
    wall, cpu = time.perf_counter(), time.process_time()
    records = match.run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert len(records) == config.games_per_pairing, len(records)
    return match, wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--games", type=int, default=200, help="games per run (default 200)")
    parser.add_argument("--size", type=int, default=7, help="Brique board size (default 7)")
    parser.add_argument("--address", default=None,
                        help="a running Ray cluster to use (default: start a head and a worker "
                             "node on this machine)")
    args = parser.parse_args()
    # the cluster started here and this driver share a token of their own
    os.environ.setdefault("RAY_AUTH_MODE", "token")
    os.environ.setdefault("RAY_AUTH_TOKEN", secrets.token_hex(32))
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)

        def config(name: str, **kw: object) -> MatchConfig:
            return MatchConfig(game="brique", engines=engines(args.size),
                               options={"size": str(args.size)},
                               games_per_pairing=args.games, record=root / f"{name}.jsonl",
                               **kw)  # type: ignore[arg-type]

        _, jobs_wall, jobs_cpu = run(config("jobs", jobs=2))
        procs: list[subprocess.Popen[bytes]] = []
        address = args.address
        try:
            if address is None:
                address, procs = start_cluster(root)
            match, cluster_wall, cluster_cpu = run(config("cluster", cluster=address))
        finally:
            stop_cluster(procs)
    cluster_run = match.cluster_run
    timings = cluster_run.timings
    overhead = sorted(1000 * (t.round_trip - t.on_node) for t in timings)
    # a node's first game waits for Ray to start a worker process there
    firsts = {t.node: t for t in reversed(timings)}.values()
    later = sorted(1000 * (t.round_trip - t.on_node) for t in timings
                   if all(t is not first for first in firsts))
    on_node = statistics.median(t.on_node for t in timings)
    playing = cluster_run.last_result - cluster_run.first_submitted
    n = args.games
    print(f"{n} games of Brique {args.size}x{args.size}, random movers, two at a time")
    print(f"--jobs 2:            {jobs_wall:6.1f} s  {60 * n / jobs_wall:7.0f} games/min  "
          f"driver CPU {1000 * jobs_cpu / n:5.1f} ms/game")
    print(f"--cluster (2 nodes): {cluster_wall:6.1f} s  {60 * n / cluster_wall:7.0f} games/min  "
          f"driver CPU {1000 * cluster_cpu / n:5.1f} ms/game")
    print(f"  of which playing (first game sent to last result): {playing:.1f} s, "
          f"{60 * n / playing:.0f} games/min; connecting and disconnecting: "
          f"{cluster_wall - playing:.1f} s")
    print(f"game on the node: median {1000 * on_node:.1f} ms")
    print(f"overhead per game: median {statistics.median(overhead):.1f} ms, mean "
          f"{statistics.mean(overhead):.1f} ms, p90 {overhead[int(0.9 * len(overhead))]:.1f} ms, "
          f"max {overhead[-1]:.0f} ms")
    print(f"  without each node's first game: median {statistics.median(later):.1f} ms, mean "
          f"{statistics.mean(later):.1f} ms, max {later[-1]:.0f} ms")
    slow = [(n, round(1000 * (t.round_trip - t.on_node)))
            for n, t in enumerate(timings) if t.round_trip - t.on_node > 0.1]
    print(f"nodes used: {len({t.node for t in timings})}; overheads over 100 ms "
          f"(n-th result, ms): {slow}")


if __name__ == "__main__":
    main()
