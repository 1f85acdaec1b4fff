"""The kernels' compile time: per game, a cold compile into an empty cache, then a warm load
from that cache, each in a fresh process, in CPU seconds.

Usage: python -m scripts.bench_compile [GAME ...] [--rounds R] [--all] [--functions]
       python -m scripts.bench_compile [GAME ...] --against DIR [--rounds R]

For each game with a kernel, a child process loads its kernel as ``gtpgames warmup GAME``
does (``engine.search.kernels.load``) with ``NUMBA_CACHE_DIR`` set to a fresh temporary
directory (cold: everything is compiled), then a second child loads it from that directory
(warm: everything is read from the cache). The figures are CPU seconds, which other work on a
busy machine disturbs far less than the wall clock: the load's own (``time.process_time``
around it in the child, numba already imported) and the whole child's (user + system, from
the accounting of the process, ``os.wait4``: the interpreter, the imports and the load), with
the wall seconds of the child beside them. A child that only imports numba is measured first,
for reference. With ``--rounds`` the medians of the rounds are printed; with ``--all`` also
every game in one process. With ``--warmup`` also the command itself: ``gtpgames warmup``
(every kernel, one process per core at a time) and ``gtpgames warmup --jobs 1`` (one after
the other in one process), each on an empty cache, in wall seconds and CPU seconds (the
processes it started included).

With ``--against DIR`` it compares instead: each game's cold load here and in the checkout in
DIR (say a ``git worktree`` of an earlier commit), both at the same time, one process per core
(the cores swapped each round), so that both run on the machine as it is at that moment; the
CPU seconds of both, their ratio, and over ``--rounds`` the medians (the median ratio is that
of the rounds' ratios, each taken at one moment, not the ratio of the two medians).

With ``--functions`` the cold load of each game also lists the functions numba compiled, by
their own CPU seconds (numba's ``numba:compile`` events, the compilations nested in a function
subtracted from it), the largest first.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: Child: load the kernels named in argv[2:] (``engine.search.kernels.load``, what
#: ``gtpgames warmup`` runs) after importing numba, and print each load's CPU and wall seconds;
#: with argv[1] == "1", also each compiled function's own CPU seconds (numba's
#: ``numba:compile`` events, the compilations nested in it subtracted) and its compilations.
CHILD = r"""
import json, sys, time
from engine.search import kernels
from engine.search.kernels import rt  # sets the cache directory, then imports numba
from numba.core import event

stack = []
own = {}

class Recorder(event.Listener):
    def on_start(self, ev):
        stack.append([time.process_time(), 0.0])

    def on_end(self, ev):
        start, nested = stack.pop()
        took = time.process_time() - start
        if stack:
            stack[-1][1] += took
        fn = ev.data["dispatcher"].py_func
        key = fn.__module__.rsplit(".", 1)[-1] + "." + fn.__qualname__
        entry = own.setdefault(key, [0.0, 0])
        entry[0] += took - nested
        entry[1] += 1

if sys.argv[1] == "1":
    event.register("numba:compile", Recorder())
loads = {}
for name in sys.argv[2:]:
    cpu, wall = time.process_time(), time.perf_counter()
    kernels.load(name)
    loads[name] = [time.process_time() - cpu, time.perf_counter() - wall]
print(json.dumps({"loads": loads, "functions": own}))
"""


@dataclass
class Run:
    """One child process: its CPU and wall seconds, and what it printed."""

    cpu: float
    wall: float
    out: dict[str, Any]


class Child:
    """A command started in a fresh process with numba's cache in ``cache``: the kernels of
    this tree, or with ``tree`` those of another checkout (its directory first on the path);
    with ``core``, the process runs on that core alone."""

    def __init__(self, command: list[str], cache: str, what: str, tree: str | None = None,
                 core: int | None = None) -> None:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        env.pop("GTPGAMES_NUMBA_ROOT", None)
        if tree is not None:
            env["PYTHONPATH"] = os.pathsep.join([tree, env.get("PYTHONPATH", "")]).rstrip(
                os.pathsep)
        self.what = what
        self.out = tempfile.TemporaryFile("w+")
        self.err = tempfile.TemporaryFile("w+")
        self.start = time.perf_counter()
        pin = None if core is None else (lambda: os.sched_setaffinity(0, {core}))
        self.process = subprocess.Popen(command, env=env, stdout=self.out, stderr=self.err,
                                        text=True, cwd=tree, preexec_fn=pin)

    def wait(self) -> tuple[float, float, str]:
        """Its CPU seconds (user + system, from ``os.wait4``: the process and the children it
        reaped), its wall seconds and its standard output. RuntimeError, naming what it
        did, if it failed."""
        with self.out, self.err:
            _pid, status, usage = os.wait4(self.process.pid, 0)
            wall = time.perf_counter() - self.start
            self.out.seek(0)
            self.err.seek(0)
            if os.waitstatus_to_exitcode(status) != 0:
                raise RuntimeError(f"{self.what} failed: {self.err.read()}")
            return usage.ru_utime + usage.ru_stime, wall, self.out.read()


def timed(command: list[str], cache: str, what: str) -> tuple[float, float, str]:
    """Run ``command`` in a fresh process with numba's cache in ``cache`` (:class:`Child`):
    its CPU seconds, wall seconds and standard output."""
    return Child(command, cache, what).wait()


def side_by_side(name: str, tree: str, rounds: int) -> list[tuple[float, float]]:
    """Cold loads of ``name``'s kernel, each round one of this tree's and one of ``tree``'s
    at the same time, each process on a core of its own, the cores swapped every round (one
    after the other where there is one core): so that both see the same machine, whose speed
    drifts. The pairs of load CPU seconds (this tree's, the other's)."""
    cores = sorted(os.sched_getaffinity(0))
    pairs = []
    for r in range(rounds):
        with (tempfile.TemporaryDirectory(prefix="bench-compile-") as here,
              tempfile.TemporaryDirectory(prefix="bench-compile-") as there):
            command = child_command([name])
            if len(cores) > 1:
                mine, other = cores[r % 2], cores[(r + 1) % 2]
                started = [Child(command, here, f"loading {name}", core=mine),
                           Child(command, there, f"loading {name} in {tree}", tree, other)]
                texts = [child.wait()[2] for child in started]
            else:
                texts = [Child(command, here, f"loading {name}").wait()[2],
                         Child(command, there, f"loading {name} in {tree}", tree).wait()[2]]
        loads = [report(text)["loads"][name][0] for text in texts]
        pairs.append((loads[0], loads[1]))
    return pairs


def child_command(names: list[str], functions: bool = False) -> list[str]:
    """The command of a child that loads the kernels of ``names`` (:data:`CHILD`)."""
    return [sys.executable, "-c", CHILD, "1" if functions else "0", *names]


def report(text: str) -> dict[str, Any]:
    """What a :data:`CHILD` reports: the last line of its output, as JSON."""
    found: dict[str, Any] = json.loads(text.strip().splitlines()[-1])
    return found


def child(names: list[str], cache: str, functions: bool = False) -> Run:
    """Load the kernels of ``names`` in a fresh process with numba's cache in ``cache``: the
    process's CPU and wall seconds (:func:`timed`) and its report (see :data:`CHILD`)."""
    cpu, wall, text = timed(child_command(names, functions), cache,
                            f"loading {' '.join(names)}")
    return Run(cpu, wall, report(text))


def measure(names: list[str], functions: bool = False) -> tuple[Run, Run]:
    """A cold load of ``names`` into a fresh cache directory, then a warm one from it."""
    with tempfile.TemporaryDirectory(prefix="bench-compile-") as cache:
        cold = child(names, cache, functions)
        warm = child(names, cache)
    return cold, warm


def fresh(command: list[str], what: str) -> Run:
    """``command`` on an empty cache: its CPU and wall seconds (:func:`timed`)."""
    with tempfile.TemporaryDirectory(prefix="bench-compile-") as cache:
        cpu, wall, _text = timed(command, cache, what)
        return Run(cpu, wall, {})


def bare_import() -> Run:
    """A child that imports numba and nothing else (what every process pays first)."""
    return fresh([sys.executable, "-c", "import numba"], "importing numba")


def warmup_command(jobs: int | None) -> Run:
    """``gtpgames warmup`` (with ``--jobs``) on an empty cache: wall and CPU seconds (the
    processes it starts included)."""
    command = [sys.executable, "-m", "gtpgames", "warmup"]
    command += [] if jobs is None else ["--jobs", str(jobs)]
    return fresh(command, " ".join(command[1:]))


def main() -> None:
    from engine.search.kernels import KERNELS

    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("games", nargs="*", default=None,
                        help="games to measure (default: every game with a kernel)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="rounds per game; the medians are printed (default 1)")
    parser.add_argument("--all", action="store_true",
                        help="also every game named in one process, as `gtpgames warmup`")
    parser.add_argument("--warmup", action="store_true",
                        help="also `gtpgames warmup` itself, in parallel and in one process")
    parser.add_argument("--functions", action="store_true",
                        help="also list each game's compiled functions by CPU seconds")
    parser.add_argument("--against", metavar="DIR",
                        help="instead, compare with the kernels of the checkout in DIR: cold "
                        "loads side by side, one process per core, --rounds times")
    args = parser.parse_args()
    names = [name.lower() for name in args.games] or list(KERNELS)
    if args.against:
        against(names, args.against, args.rounds)
        return
    bare = bare_import()
    print(f"a process that imports numba alone: {bare.cpu:.2f} CPU s ({bare.wall:.2f} wall s); "
          f"load average {os.getloadavg()[0]:.1f}")
    print("load: the kernel's load in the process (numba already imported); "
          "process: the whole child")
    print(f"{'game':8} {'cold load':>9} {'process':>8} {'wall':>7} | "
          f"{'warm load':>9} {'process':>8} {'wall':>7}   (CPU seconds, wall seconds)",
          flush=True)
    groups = [[name] for name in names] + ([names] if args.all and len(names) > 1 else [])
    total = 0.0
    profiles: dict[str, dict[str, list[float]]] = {}
    for group in groups:
        single = len(group) == 1
        runs = [measure(group, args.functions and single and r == 0)
                for r in range(args.rounds)]
        if args.functions and single:
            profiles[group[0]] = runs[0][0].out["functions"]

        def median(
            pick: Callable[[Run], float], which: int, runs: list[tuple[Run, Run]] = runs
        ) -> float:
            return statistics.median(pick(pair[which]) for pair in runs)

        def load(run: Run) -> float:
            return float(sum(cpu for cpu, _wall in run.out["loads"].values()))

        cold_load = median(load, 0)
        if single:
            total += cold_load
        print(f"{group[0] if single else 'all':8} {cold_load:9.2f} "
              f"{median(lambda run: run.cpu, 0):8.2f} {median(lambda run: run.wall, 0):7.2f} | "
              f"{median(load, 1):9.2f} {median(lambda run: run.cpu, 1):8.2f} "
              f"{median(lambda run: run.wall, 1):7.2f}", flush=True)
    if len(names) > 1:
        print(f"{'sum':8} {total:9.2f}   (the cold loads, each game in its own process)")
    if args.warmup:
        from engine.search.kernels import cores

        for jobs, label in ((None, f"gtpgames warmup ({cores()} cores)"),
                            (1, "gtpgames warmup --jobs 1")):
            timed = [warmup_command(jobs) for _ in range(args.rounds)]
            print(f"{label}: {statistics.median(run.wall for run in timed):.2f} wall s, "
                  f"{statistics.median(run.cpu for run in timed):.2f} CPU s (empty cache)",
                  flush=True)
    for name, own in profiles.items():
        rows = sorted(own.items(), key=lambda item: -item[1][0])
        spent = sum(seconds for seconds, _count in own.values())
        print(f"\n{name}: {spent:.2f} CPU s in numba:compile events, by function "
              "(own seconds, compilations)")
        for key, (seconds, count) in rows:
            if seconds >= 0.05:
                print(f"  {seconds:7.2f}  {int(count):3}x  {key}")


def against(names: list[str], tree: str, rounds: int) -> None:
    """Print each game's cold loads here and in ``tree`` side by side (:func:`side_by_side`),
    round by round, with their ratios and the medians."""
    print(f"cold load CPU s: this tree against {tree}, side by side (load average "
          f"{os.getloadavg()[0]:.1f})")
    print(f"{'game':8} {'here':>7} {'there':>7} {'ratio':>6}")
    for name in names:
        pairs = side_by_side(name, tree, rounds)
        for here, there in pairs:
            print(f"{name:8} {here:7.2f} {there:7.2f} {here / there:6.3f}", flush=True)
        if len(pairs) > 1:
            print(f"{'median':8} {statistics.median(p[0] for p in pairs):7.2f} "
                  f"{statistics.median(p[1] for p in pairs):7.2f} "
                  f"{statistics.median(p[0] / p[1] for p in pairs):6.3f}", flush=True)


if __name__ == "__main__":
    main()
