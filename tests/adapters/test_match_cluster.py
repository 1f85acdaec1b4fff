"""``gtpgames match --cluster`` (adapters/match_cluster.py) on a real Ray cluster: a head and a
second worker node started by ``ray start`` as separate processes, on loopback, one CPU each.
The same seeded match gives the same records on the cluster as with ``--jobs``; a worker node
killed in the middle of a match loses no game and records none twice."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.match import Match, MatchConfig, MatchStopped
from adapters.match_cluster import ClusterMatch
from adapters.match_engine import EngineSpec
from adapters.match_record import RecordFile
from tests.protocol.test_e2e import COMMAND

# The test cluster's nodes and this process (its driver) share a token of their own, whatever
# ~/.ray holds; Ray reads these once per process, so before it is imported.
os.environ.update({"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),
                   "RAY_USAGE_STATS_ENABLED": "0"})
pytest.importorskip(
    "ray", reason="Ray is not installed (pip install 'gtpgames[cluster]'): the cluster tests "
    "are skipped")

ENGINES = Path(__file__).parents[1] / "engines"
PY = sys.executable
RAY = str(Path(sys.executable).with_name("ray"))
#: A loopback address other than 127.0.0.1, which `ray start` replaces by the machine's
#: network address.
HOST = "127.0.0.2"
OPENINGS = [["a1"], ["b1"], ["c1"], ["d1"], ["e1"], ["a2"], ["b2"], ["c2"], ["d2"], ["e2"]]
VOLATILE = ("started", "finished", "times")


def tiny(name: str, seed: int, *extra: str) -> EngineSpec:
    """The tiny random engine, reseeded at every game: a game depends only on its colours and
    opening, never on the node or worker process that plays it."""
    return EngineSpec(name, (PY, str(ENGINES / "tinygtp.py"), "--game", "brique", "--reseed",
                             "--seed", str(seed), *extra))


def config(record: Path, engines: list[EngineSpec], **kw: Any) -> MatchConfig:
    defaults: dict[str, Any] = {
        "game": "brique", "options": {"size": "5"}, "record": record, "move_timeout": 10.0,
        "grace": 1.0, "openings": OPENINGS,
    }
    return MatchConfig(engines=engines, **(defaults | kw))


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Ray starts its workers in sessions of their own)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


class Node:
    """One ``ray start --block`` process in a session of its own, with everything it
    started."""

    def __init__(self, args: list[str], log: Path, env: dict[str, str]) -> None:
        self.log = log
        with log.open("wb") as out:
            self.proc = subprocess.Popen([RAY, "start", "--block", *args], stdout=out,
                                         stderr=subprocess.STDOUT, env=env,
                                         start_new_session=True)

    def wait_started(self, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while b"Ray runtime started" not in self.log.read_bytes():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"ray start failed:\n{self.log.read_text()[-3000:]}")
            time.sleep(0.2)

    def kill(self) -> None:
        """SIGKILL the node and every process it started: a machine that dies."""
        pids = _descendants(self.proc.pid)
        for pid in [self.proc.pid, *pids]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()


class Cluster:
    """A head and one worker node, one CPU each, on loopback; :meth:`stop` kills them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.nodes: list[Node] = []

    def start(self) -> None:
        root = self.root
        with socket.socket() as probe:
            probe.bind((HOST, 0))
            port = probe.getsockname()[1]
        self.address = f"{HOST}:{port}"
        env = os.environ | {
            # a killed node is found dead within seconds
            "RAY_health_check_period_ms": "1000", "RAY_health_check_failure_threshold": "3",
        }
        common = ["--num-cpus", "1", "--object-store-memory", "100000000",
                  "--node-ip-address", HOST, "--disable-usage-stats"]
        self.head = self._start(
            ["--head", "--port", str(port), "--include-dashboard=false",
             "--temp-dir", str(root / "ray"), *common], root / "head.log", env)
        self.worker = self._start(["--address", self.address, *common],
                                  root / "worker.log", env)

    def _start(self, args: list[str], log: Path, env: dict[str, str]) -> Node:
        node = Node(args, log, env)
        self.nodes.append(node)
        node.wait_started()
        return node

    def stop(self) -> None:
        for node in reversed(self.nodes):
            node.kill()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """The nodes are killed at the end, always."""
    cluster = Cluster(Path(tmp_path_factory.mktemp("ray")))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


def contents(records: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """The records by game index, without the timestamps and the thinking times."""
    return {record["index"]: {k: v for k, v in record.items() if k not in VOLATILE}
            for record in records}


@pytest.mark.slow
def test_a_cluster_match_records_what_jobs_records(cluster: Cluster, tmp_path: Path) -> None:
    engines = [tiny("a", 1), tiny("b", 2)]
    on_cluster = ClusterMatch(config(tmp_path / "cluster.jsonl", engines, games_per_pairing=20,
                              cluster=cluster.address, sgf_dir=tmp_path / "sgf"))
    records = on_cluster.run()
    here = Match(config(tmp_path / "jobs.jsonl", engines, games_per_pairing=20, jobs=2)).run()
    written = RecordFile(tmp_path / "cluster.jsonl").read()
    assert sorted(record["index"] for record in written) == list(range(20))
    assert contents(written) == contents(records) == contents(here)
    assert len({json.dumps([r["black"], r["opening"], r["moves"]]) for r in written}) == 20
    assert len(list((tmp_path / "sgf").glob("brique-*.sgf"))) == 20  # by the driver
    assert len({timing.node for timing in on_cluster.cluster_run.timings}) == 2  # both nodes


@pytest.mark.slow
def test_an_engine_that_cannot_start_on_the_cluster_stops_the_match(
    cluster: Cluster, tmp_path: Path
) -> None:
    notices: list[str] = []
    missing = EngineSpec("gone", (str(tmp_path / "no-such-engine"),))
    match = ClusterMatch(config(tmp_path / "m.jsonl", [tiny("a", 1), missing], games_per_pairing=6,
                         cluster=cluster.address), on_notice=notices.append)
    with pytest.raises(MatchStopped, match="no node of the cluster can play the games") as error:
        match.run()
    assert "engine gone does not start" in str(error.value)
    # reported once per node, not once per game
    assert 1 <= len(notices) == len(set(notices)) <= 2, notices
    assert all("gets no more games" in notice for notice in notices)
    assert RecordFile(tmp_path / "m.jsonl").read() == []


@pytest.mark.slow
def test_a_cluster_match_resumes_a_record_and_stops_on_the_sprt(
    cluster: Cluster, tmp_path: Path
) -> None:
    from adapters.match_stats import Sprt

    engines = [tiny("a", 1), tiny("b", 2)]
    here = Match(config(tmp_path / "jobs.jsonl", engines, games_per_pairing=6)).run()
    lines = (tmp_path / "jobs.jsonl").read_text().splitlines(keepends=True)
    (tmp_path / "cluster.jsonl").write_text("".join(lines[:3]) + '{"index": 3, "bla')
    ClusterMatch(config(tmp_path / "cluster.jsonl", engines, games_per_pairing=6,
                 cluster=cluster.address)).run()
    written = RecordFile(tmp_path / "cluster.jsonl").read()
    assert [json.dumps(r, sort_keys=True) + "\n" for r in written[:3]] == lines[:3]
    assert sorted(r["index"] for r in written) == list(range(6))
    assert contents(written) == contents(here)

    # every game a win for good: the SPRT decides after exactly `first` games, and the game
    # still running on the other node is cancelled, not recorded
    sprt = Sprt(0, 200)
    bad = EngineSpec("bad", (PY, str(ENGINES / "illegal.py"), "--game", "brique"))
    match = ClusterMatch(config(tmp_path / "sprt.jsonl", [tiny("good", 1), bad],
                                games_per_pairing=40, sprt=sprt, cluster=cluster.address))
    records = match.run()
    first = next(n for n in range(1, 40) if sprt.decision(n, 0, 0) == "H1")
    assert match.decision == "H1"
    assert len(records) == len(RecordFile(tmp_path / "sprt.jsonl").read()) == first < 40


@pytest.mark.slow
def test_a_node_killed_mid_match_loses_no_game_and_records_none_twice(
    cluster: Cluster, tmp_path: Path
) -> None:
    record = tmp_path / "killed.jsonl"
    engines = [tiny("a", 1, "--delay", "0.05"), tiny("b", 2, "--delay", "0.05")]
    notices: list[str] = []
    match = ClusterMatch(config(record, engines, games_per_pairing=8, cluster=cluster.address),
                  on_notice=notices.append)

    def kill_during_a_game_on_the_worker() -> None:
        """Once the worker node has played a game (its Ray worker process is up), kill it
        while it plays another (sent to it a quarter of a second before)."""
        import ray

        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            run = match.cluster_run
            if run is not None and run.timings:
                worker = next(node["NodeID"] for node in ray.nodes()
                              if "node:__internal_head__" not in node["Resources"])
                played = any(timing.node == worker for timing in list(run.timings))
                games = [game for game in list(run.running.values())
                         if game.node == worker and time.perf_counter() - game.submitted > 0.25]
                if played and games:
                    break
            time.sleep(0.02)
        cluster.worker.kill()

    killer = threading.Thread(target=kill_during_a_game_on_the_worker)
    killer.start()
    try:
        records = match.run()
    finally:
        killer.join()
    written = RecordFile(record).read()
    assert sorted(r["index"] for r in written) == list(range(8))  # each exactly once
    assert contents(written) == contents(records)
    assert any("was lost with node" in notice and "played again" in notice
               for notice in notices), notices


def test_without_ray_cluster_exits_with_what_to_install(tmp_path: Path) -> None:
    # a Python that cannot import ray: a module named ray that raises ImportError first
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "ray.py").write_text("raise ImportError('no ray here')\n")
    env = os.environ | {"PYTHONPATH": str(fake)}
    done = subprocess.run([*COMMAND, "match", "brique", "-e", "a", "-e", "b", "--cluster",
                           "auto"], capture_output=True, text=True, env=env, timeout=120,
                          cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == ("gtpgames: --cluster needs Ray, which is not installed: "
                                   "pip install 'gtpgames[cluster]'")


def test_jobs_and_cluster_do_not_mix(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="--jobs and --cluster"):
        Match(config(tmp_path / "m.jsonl", [tiny("a", 1), tiny("b", 2)], jobs=2,
                     cluster="auto"))
