"""The games of a ``gtpgames match`` played on a Ray cluster (``--cluster ADDRESS``).

The driver (the ``gtpgames match`` process) keeps everything that is not playing: the
schedule, the record and SGF files, the statistics and the SPRT (:class:`adapters.match.Match`).
Each game is one Ray task that runs :func:`adapters.match.play_game` on a node, with both
engines started on that node by the match's command lines, and returns the game's record to the
driver, which writes it. Ray is imported only here, and only when a match asks for a cluster
(the ``cluster`` extra).

The driver places the games itself: each alive node gets as many games at once as it has CPUs
(``ray start --num-cpus``), each task pinned to its node (a hard node affinity), so that

- a node where an engine cannot start (checked with ``protocol_version`` when the task starts
  it) reports it once and gets no more games; the game goes to another node;
- a game whose node dies (or whose Ray worker dies beyond its retries) is played again, from
  the start, on a node that is alive; only results that reach the driver are recorded, once
  each (by game index), so a game is never lost and never recorded twice;
- the SPRT's decision, or a file that cannot be written, cancels the games still running.

A Ray worker process keeps its engine processes from one game to the next (as a ``--jobs``
thread does); they exit with the worker when the match ends.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import dataclasses
import logging
import os
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from adapters.match import EnginePool, GameSpec, Match, MatchConfig, MatchSetupError, play_game
from adapters.match_engine import EngineFailure

INSTALL_HINT = "pip install 'gtpgames[cluster]'"

#: How many times a game may be lost with its node or worker before the match stops.
MAX_LOSSES = 3

#: Seconds between two looks at the cluster's nodes while games run.
NODE_REFRESH = 1.0

#: Seconds a node gets no game after one was lost with it (Ray may still list a dead node as
#: alive for a while; a node that only lost a worker process gets games again after that).
SUSPECT = 10.0


def require_ray() -> ModuleType:
    """The ``ray`` module; a :class:`MatchSetupError` naming the extra to install if it is
    missing."""
    try:
        import ray
    except ImportError:
        raise MatchSetupError(f"--cluster needs Ray, which is not installed: {INSTALL_HINT}") \
            from None
    module: ModuleType = ray
    return module


# ------------------------------------------------------------------------------ on a node

#: The engine processes of this Ray worker process, kept between games of the same match.
_pool: tuple[tuple[Any, ...], EnginePool] | None = None


def _close_pool() -> None:
    global _pool
    if _pool is not None:
        _pool[1].close()
        _pool = None


atexit.register(_close_pool)


def _node_pool(config: MatchConfig) -> EnginePool:
    global _pool
    key = (tuple(config.engines), config.command_timeout)
    if _pool is None or _pool[0] != key:
        _close_pool()
        _pool = (key, EnginePool(config))
    return _pool[1]


def play_on_node(spec: GameSpec, config: MatchConfig) -> tuple[str, Any, float]:
    """The body of one game's Ray task: ``("played", record, seconds)``, or
    ``("unavailable", message, seconds)`` if one of the two engines cannot start on this
    node (it is started and asked ``protocol_version`` before the game)."""
    start = time.perf_counter()
    pool = _node_pool(config)
    for name in (spec.black, spec.white):
        if name in pool.procs:
            continue
        try:
            pool.get(name).send("protocol_version")
        except EngineFailure as failure:
            pool.restart(name)
            return "unavailable", f"engine {name} does not start: {failure}", \
                time.perf_counter() - start
    record = play_game(spec, config, pool)
    return "played", record, time.perf_counter() - start


# ------------------------------------------------------------------------------ the driver


@dataclasses.dataclass
class Timing:
    """One game's task as the driver saw it: from submitting it to having its result, and
    the part of that spent in the task on the node (the rest is Ray's scheduling and
    transport, and the driver's loop)."""

    index: int
    node: str
    round_trip: float
    on_node: float


@dataclasses.dataclass
class _Running:
    spec: GameSpec
    node: str
    submitted: float


class ClusterRun:
    """The driver's loop: keeps every usable node busy, records results as they arrive."""

    def __init__(self, match: Match, ray: ModuleType) -> None:
        self.match = match
        self.ray = ray
        self.pending: collections.deque[GameSpec] = collections.deque()
        self.running: dict[Any, _Running] = {}
        self.capacity: dict[str, int] = {}
        self.excluded: dict[str, str] = {}
        #: Nodes that lost a game, with the time until which they get none.
        self.suspect: dict[str, float] = {}
        self.losses: dict[int, int] = {}
        self.timings: list[Timing] = []
        #: perf_counter() at the first submission and at the last result.
        self.first_submitted = 0.0
        self.last_result = 0.0
        self._refreshed = 0.0
        self._remote: Any = None
        self._config_ref: Any = None

    def run(self, todo: list[GameSpec]) -> None:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        ray = self.ray
        self.pending.extend(todo)
        self._remote = ray.remote(play_on_node)
        self._config_ref = ray.put(node_config(self.match.config))
        self._strategy = NodeAffinitySchedulingStrategy
        try:
            while self.running or (self.pending and not self.match.stop.is_set()):
                self.refresh_nodes()
                self.submit()
                if not self.running:
                    if not self.pending or self.match.stop.is_set():
                        break
                    if any(node in self.capacity for node in self.suspect):
                        time.sleep(0.2)  # a node that lost a game may get games again
                        continue
                    self.match.fail(self.no_node_text())
                    break
                ready, _ = ray.wait(list(self.running), num_returns=1, timeout=NODE_REFRESH)
                for ref in ready:
                    self.collect(ref)
                if self.match.stop.is_set():
                    self.cancel_running()
        finally:
            self.cancel_running()

    def refresh_nodes(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._refreshed < NODE_REFRESH:
            return
        self._refreshed = now
        self.capacity = {
            node["NodeID"]: int(node.get("Resources", {}).get("CPU", 0))
            for node in self.ray.nodes() if node.get("Alive")
        }

    def submit(self) -> None:
        busy = collections.Counter(run.node for run in self.running.values())
        now = time.monotonic()
        for node, until in list(self.suspect.items()):
            if until <= now:
                del self.suspect[node]
        for node, slots in self.capacity.items():
            if node in self.excluded or node in self.suspect:
                continue
            for _ in range(slots - busy[node]):
                if not self.pending or self.match.stop.is_set():
                    return
                spec = self.pending.popleft()
                ref = self._remote.options(
                    num_cpus=1, max_retries=2,
                    scheduling_strategy=self._strategy(node_id=node, soft=False),
                ).remote(spec, self._config_ref)
                self.running[ref] = _Running(spec, node, time.perf_counter())
                self.first_submitted = self.first_submitted or self.running[ref].submitted

    def collect(self, ref: Any) -> None:
        ray = self.ray
        run = self.running.pop(ref)
        spec = run.spec
        try:
            kind, value, on_node = ray.get(ref)
        except ray.exceptions.RayTaskError as error:  # an exception in play_on_node
            self.match.fail(f"game {spec.index} failed on node {short(run.node)}: "
                            f"{error.cause if error.cause is not None else error}")
            return
        except ray.exceptions.RayError as error:  # the node or its worker process died
            losses = self.losses[spec.index] = self.losses.get(spec.index, 0) + 1
            what = type(error).__name__
            if losses >= MAX_LOSSES:
                self.match.fail(f"game {spec.index} was lost {losses} times, last on node "
                                f"{short(run.node)} ({what})")
                return
            self.match.notice(f"game {spec.index} was lost with node {short(run.node)} "
                              f"({what}); it is played again")
            self.pending.appendleft(spec)
            self.suspect[run.node] = time.monotonic() + SUSPECT
            self.refresh_nodes(force=True)
            return
        self.last_result = time.perf_counter()
        elapsed = self.last_result - run.submitted
        self.timings.append(Timing(spec.index, run.node, elapsed, on_node))
        if kind == "unavailable":
            if run.node not in self.excluded:
                self.excluded[run.node] = str(value)
                self.match.notice(f"node {short(run.node)}: {value}; it gets no more games")
            self.pending.appendleft(spec)
            return
        self.match.finish(value)

    def cancel_running(self) -> None:
        for ref in list(self.running):
            self.ray.cancel(ref, force=True)
        self.running.clear()

    def no_node_text(self) -> str:
        if not self.capacity:
            return "no node of the cluster is alive"
        if self.excluded:
            reasons = "; ".join(f"node {short(node)}: {text}"
                                for node, text in self.excluded.items())
            return f"no node of the cluster can play the games ({reasons})"
        return "no node of the cluster has a CPU (ray start --num-cpus)"


def short(node: str) -> str:
    return node[:8]


def node_config(config: MatchConfig) -> MatchConfig:
    """The configuration sent to the nodes: engines without ``dir=`` run in this directory
    (their ``dir=`` if relative is taken from it); the record and SGF files stay here."""
    here = Path.cwd()
    engines = [dataclasses.replace(spec, dir=str(here / (spec.dir or "")))
               for spec in config.engines]
    return dataclasses.replace(config, engines=engines, record=None, sgf_dir=None)


def connect(ray: ModuleType, address: str) -> None:
    """``local`` starts Ray on this machine; anything else is a Ray address (``auto``,
    ``HOST:PORT``, ``ray://HOST:10001``)."""
    options: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        if address == "local":
            ray.init(include_dashboard=False, **options)
        else:
            ray.init(address=address, **options)
    except Exception as error:  # noqa: BLE001 - Ray raises many kinds; one line for the user
        raise MatchSetupError(f"--cluster {address}: cannot connect: {error}") from None


def run_on_cluster(match: Match, todo: list[GameSpec]) -> None:
    """Play ``todo`` on the cluster of ``match.config.cluster``, recording through
    ``match.finish``; the run (games running, timings) is ``match.cluster_run``."""
    ray = require_ray()
    assert match.config.cluster is not None
    # Ray's driver prints the cluster's own messages (a node that died, a task retried) on
    # stdout, which carries the results table: they go to stderr while the games run.
    with contextlib.redirect_stdout(sys.stderr):
        connect(ray, match.config.cluster)
        run = match.cluster_run = ClusterRun(match, ray)
        try:
            run.run(todo)
        finally:
            ray.shutdown()


class ClusterMatch(Match):
    """A :class:`Match` whose games are played on the Ray cluster of ``config.cluster``
    (:func:`run_on_cluster`); everything else (schedule, record, SPRT, resume) is the
    match's own."""

    def play_games(self, todo: list[GameSpec]) -> None:
        run_on_cluster(self, todo)


def new_match(config: MatchConfig, **kwargs: Any) -> Match:
    """The match of ``config``: a :class:`ClusterMatch` when it names a cluster, else a
    :class:`Match` played on this machine's threads (keyword arguments go to the class)."""
    cls = ClusterMatch if config.cluster is not None else Match
    return cls(config, **kwargs)
