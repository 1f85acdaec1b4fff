"""Tests of the compiled search kernels (engine/kernels, docs/design/kernels.md).

One truth: the array rules are replayed move by move beside the Python rules core along
random games, and the kernels' playouts are replayed through ``play_text``. The solver is
checked against a plain minimax over the Python rules; searches are deterministic for a seed
and an iteration limit, whatever the slicing. Kernels compile once per session (module
fixtures); with a warm cache they load in a fraction of a second.
"""

from __future__ import annotations

import dataclasses
import os
import random
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.games.brique import Brique
from engine.games.core import Game
from engine.games.registry import new_game
from engine.search.mcts import Mcts
from engine.search.players import UNBOUNDED_PLAYOUTS, Limit

pytest.importorskip("numba")


@pytest.fixture(scope="module")
def brique_kernel() -> Iterator[Any]:
    from engine.search import kernels

    kernels.wait("brique")  # a background load another test may have started
    yield kernels.load("brique")
    kernels.unload("brique")


def solve(game: Game[Any]) -> bool:
    """Minimax over the Python rules: whether the player to move wins."""
    outcome = game.outcome()
    if outcome is not None:
        return outcome.winner == game.to_move
    for move in game.legal_moves():
        game.play(move)
        won = solve(game)
        game.undo()
        if not won:
            return True
    return False


def random_position(rng: random.Random, size: int, pie: bool, plies: int) -> Brique:
    game = Brique(size=size, pie=pie)
    for _ in range(plies):
        if game.is_over():
            break
        game.play(rng.choice(game.legal_moves()))
    return game


# ------------------------------------------------------------------------ start-up


def test_importing_the_engine_does_not_import_numba() -> None:
    code = (
        "import sys, engine, engine.search.kernels, engine.search.base, protocol.server\n"
        "from engine.games.registry import new_game\n"
        "assert 'numba' not in sys.modules and 'numpy' not in sys.modules, 'imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_child_process_uses_the_same_cache_directory(tmp_path: Any) -> None:
    """The parent's NUMBA_CACHE_DIR (set to its kernels' directory) reaches a child, which
    must find that directory again, not make one more level inside it."""
    from engine.search import kernels

    kernels.configure()  # what loading a kernel does first
    code = "from engine.search import kernels; print(kernels.cache_dir())"
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True)
    assert child.stdout.strip() == str(kernels.cache_dir())
    grandchild = subprocess.run(
        [sys.executable, "-c", "import subprocess, sys; from engine.search import kernels; "
         "kernels.configure(); subprocess.run([sys.executable, '-c', sys.argv[1]])", code],
        capture_output=True, text=True, check=True,
    )
    assert grandchild.stdout.strip() == str(kernels.cache_dir())
    # A directory the user gives a child is still the one used.
    own = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env=own)
    assert Path(child.stdout.strip()).parent == tmp_path
    assert Path(child.stdout.strip()).name == kernels.cache_dir().name


def test_a_compilation_is_told_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    import numba

    from engine.search import kernels

    def told() -> list[str]:
        """This test's lines on stderr (a kernel loading in the background on a cold cache
        may tell of its own compilation meanwhile); nothing on stdout."""
        out, err = capsys.readouterr()
        assert out == ""
        return [line for line in err.splitlines() if "Tiny" in line or "Inner" in line]

    with kernels.telling_compiles("Tiny"):
        assert numba.njit(lambda x: x + 1)(1) == 2  # compiled now: no cache
    start, end = told()
    assert start == (
        "gtpgames: compiling the Tiny search kernel (once: later runs load it from the cache)"
    )
    assert re.fullmatch(r"gtpgames: the Tiny search kernel compiled in \d+\.\d s", end)
    with kernels.telling_compiles("Tiny"):
        assert numba.njit(lambda x: x + 2)(1) == 3
        with kernels.telling_compiles("Inner"):
            pass  # nothing compiled here: nothing said
    lines = told()
    assert len(lines) == 2 and all("Tiny" in line for line in lines)
    with kernels.telling_compiles("Tiny"):
        pass  # nothing compiled: nothing said
    assert told() == []


def test_the_kernels_compile_at_their_optimisation_level_unless_numba_opt_says(
    tmp_path: Any,
) -> None:
    """numba compiles the kernels at ``OPT_LEVEL`` (LLVM's level 1), or at the user's
    ``NUMBA_OPT``, each level in a cache directory of its own."""
    code = ("from engine.search.kernels import cache, rt\nimport numba\n"
            "print(int(numba.config.OPT), cache.cache_dir().name)\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    env.pop("GTPGAMES_NUMBA_ROOT", None)
    seen = {}
    for level in (None, "3", "1"):
        if level is None:
            env.pop("NUMBA_OPT", None)
        else:
            env["NUMBA_OPT"] = level
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True, env=env)
        opt, name = done.stdout.split()
        seen[level] = (opt, name)
    assert seen[None][0] == "1" and seen["3"][0] == "3"
    assert seen[None] == seen["1"] and seen["3"][1] != seen["1"][1]


@pytest.mark.slow
def test_a_cold_load_says_it_compiles_on_stderr_only(tmp_path: Any) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    env.pop("GTPGAMES_NUMBA_ROOT", None)
    command = [sys.executable, "-m", "gtpgames", "warmup", "bricka"]
    cold = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    assert re.fullmatch(r"bricka: ready in \d+\.\d s\ncache: .*\n", cold.stdout)
    assert re.fullmatch(
        r"gtpgames: compiling the Bricka search kernel \(.*\)\n"
        r"gtpgames: the Bricka search kernel compiled in \d+\.\d s\n",
        cold.stderr,
    )
    warm = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    assert warm.stderr == ""


@pytest.mark.slow
def test_a_cold_solve_says_it_compiles_on_stderr_only(tmp_path: Any) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    env.pop("GTPGAMES_NUMBA_ROOT", None)
    command = [sys.executable, "-m", "gtpgames", "solve", "brique", "--size", "3", "--option",
               "pie=off"]
    cold = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    assert cold.stdout.startswith("Black to move: win\n")
    assert re.fullmatch(
        r"gtpgames: compiling the Brique solver \(once: later runs load it from the cache\)\n"
        r"gtpgames: the Brique solver compiled in \d+\.\d s\n",
        cold.stderr,
    )
    warm = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    assert warm.stdout.startswith("Black to move: win\n") and warm.stderr == ""


@pytest.mark.slow
def test_warmup_in_parallel_leaves_a_warm_cache_for_each_game(tmp_path: Any) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    env.pop("GTPGAMES_NUMBA_ROOT", None)
    command = [sys.executable, "-m", "gtpgames", "warmup", "bricka", "brique"]
    cold = subprocess.run([*command, "--jobs", "2"], capture_output=True, text=True,
                          check=True, env=env)
    assert re.fullmatch(r"bricka: ready in \d+\.\d s\nbrique: ready in \d+\.\d s\ncache: .*\n",
                        cold.stdout)
    assert cold.stderr.count("compiled in") == 2
    # the two processes shared one cache file of the search loop (one entry per game)
    for game in ("bricka", "brique"):
        warm = subprocess.run([*command[:-2], game, "--jobs", "1"], capture_output=True,
                              text=True, check=True, env=env)
        assert warm.stderr == "", game


@pytest.mark.slow
def test_warmup_solver_compiles_the_solver_too(tmp_path: Any) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    env.pop("GTPGAMES_NUMBA_ROOT", None)
    command = [sys.executable, "-m", "gtpgames", "warmup", "brique", "--jobs", "1"]

    def solver_cached() -> bool:
        return any(tmp_path.rglob("dfpn.search-*.nbi"))

    subprocess.run(command, capture_output=True, check=True, env=env)
    assert not solver_cached()
    done = subprocess.run([*command, "--solver"], capture_output=True, text=True, check=True,
                          env=env)
    # the search kernel came from the cache; the solver's compile is told
    assert solver_cached()
    assert re.fullmatch(
        r"gtpgames: compiling the Brique solver \(.*\)\n"
        r"gtpgames: the Brique solver compiled in \d+\.\d s\n",
        done.stderr,
    )


def waiting_for_the_lock(x: int) -> int:
    return x + 1


def test_warming_the_rules_compiles_probe() -> None:
    """``warm(game, rules=True)`` (what the test run's background compile does) compiles
    ``probe`` for the game too, in a fresh process that has loaded nothing else; plain
    ``warm`` does not (for Brique, whose moves are one step)."""
    code = (
        "import sys\n"
        "from engine.games.registry import new_game\n"
        "from engine.search import kernels\n"
        "from engine.search.kernels import mcts\n"
        "kernels.load('brique').warm(new_game('brique'), rules=sys.argv[1] == '1')\n"
        "print(len(mcts.probe.signatures))\n"
    )
    for rules, compiled in (("0", "0"), ("1", "1")):
        child = subprocess.run([sys.executable, "-c", code, rules], capture_output=True,
                               text=True, check=True)
        assert child.stdout.strip() == compiled


#: A child compiling the playouts of a game of its own, whose level 0 and level 1 each call a
#: helper of their own, and printing which helpers numba compiled after each level's playouts.
LEVELS_CHILD = """
from typing import NamedTuple
import numba
import numpy as np
from engine.search.kernels import mcts, rt

class Toy(NamedTuple):
    size: int

uniform = numba.njit(lambda s: 0)
policy = numba.njit(lambda s: 1)

def to_move(t, s):
    return 0

def playout_for(knowledge):
    def playout(t, s, w, rng, rec, level):
        rec[0] = 0
        if knowledge == 0:
            return uniform(s)
        return policy(s)
    return playout

rt.register(Toy, to_move=to_move, playout=playout_for)
state = np.zeros(4, dtype=np.int32)
scratch = (state.copy(), state.copy(), state.copy(), np.zeros(8, dtype=np.int32))
for level in (1, 0):
    stats = np.zeros(5)
    wins = mcts.playouts(Toy(4), state, scratch, rt.new_rng(1), rt.knowledge_level(level), 3,
                         stats)
    print(level, wins, len(uniform.signatures), len(policy.signatures))
"""


def test_a_playout_is_compiled_for_its_knowledge_level_alone(tmp_path: Path) -> None:
    """A search compiles its playouts' level only: the branches of the other levels are
    not compiled (helpers they call stay uncompiled) until a playout at that level runs."""
    script = tmp_path / "levels.py"
    script.write_text(LEVELS_CHILD)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("GTPGAMES_NUMBA_ROOT", None)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, cwd=Path(__file__).resolve().parents[2], timeout=300)
    assert done.returncode == 0, done.stderr
    # level 1 compiles the policy's helper only (its playouts: the second player wins); then
    # level 0 the uniform one (the first player wins)
    assert done.stdout.split("\n")[:2] == ["1 0 0 1", "0 3 1 1"]


def test_knowledge_levels_out_of_range_are_refused() -> None:
    from engine.search.kernels.mcts import Settings
    from engine.search.kernels.rt import KNOWLEDGE_LEVELS

    Settings(knowledge=KNOWLEDGE_LEVELS - 1)
    for level in (-1, KNOWLEDGE_LEVELS):
        with pytest.raises(ValueError, match=f"knowledge {level} is out of range"):
            Settings(knowledge=level)


def test_cache_writes_wait_for_the_lock() -> None:
    import fcntl
    import threading

    from engine.search.kernels import cache_dir, rt

    compiled = rt.kernel(waiting_for_the_lock)
    for path in list(cache_dir().rglob("*waiting_for_the_lock*.nbi")):
        path.unlink()
    done = []
    with open(cache_dir() / "save.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        thread = threading.Thread(target=lambda: done.append(compiled(1)), daemon=True)
        thread.start()
        thread.join(3.0)
        assert thread.is_alive() and not done  # compiled, and waiting to write its cache
        assert not list(cache_dir().rglob("*waiting_for_the_lock*.nbi"))
        fcntl.flock(lock, fcntl.LOCK_UN)
    thread.join(30.0)
    assert done == [2] and list(cache_dir().rglob("*waiting_for_the_lock*.nbi"))


def test_a_game_compiles_in_one_place_at_a_time(capfd: pytest.CaptureFixture[str]) -> None:
    """While another process (here: this test) holds a game's compile lock, loading its kernel
    or building its solver waits, says so on stderr, and goes on once the lock is free."""
    import fcntl
    import threading

    from engine.search import kernels
    from engine.search.solve import Solver

    kernels.wait("brique")
    kernels.load("brique")
    kernels.unload("brique")
    done: list[str] = []
    jobs = {
        "kernel": lambda: kernels.load("brique"),
        "solver": lambda: Solver(Brique(size=3), memory_mb=4),
    }
    try:
        for what, job in jobs.items():
            with open(kernels.cache_dir() / "brique.lock", "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                thread = threading.Thread(
                    target=lambda job=job, what=what: (job(), done.append(what)), daemon=True)
                thread.start()
                thread.join(1.0)
                assert thread.is_alive() and what not in done
                assert ("gtpgames: waiting for another compilation of the Brique kernels"
                        in capfd.readouterr().err)
                fcntl.flock(lock, fcntl.LOCK_UN)
            thread.join(60.0)
            assert what in done
        assert "waiting" not in capfd.readouterr().err
    finally:
        kernels.unload("brique")


def test_the_solver_compiles_under_a_lock_of_its_own(capfd: pytest.CaptureFixture[str]) -> None:
    """While another process holds a game's solver lock (compiling its solver), loading the
    game's kernel goes on at once, and building a solver waits for it, saying so."""
    import fcntl
    import threading

    from engine.search import kernels
    from engine.search.solve import Solver

    kernels.wait("brique")
    Solver(Brique(size=3), memory_mb=4)  # compiled (or read from the cache) before the lock
    kernels.unload("brique")
    done: list[str] = []
    try:
        with open(kernels.cache_dir() / "brique-solver.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            loader = threading.Thread(
                target=lambda: (kernels.load("brique"), done.append("kernel")), daemon=True)
            loader.start()
            loader.join(60.0)
            assert done == ["kernel"]
            builder = threading.Thread(
                target=lambda: (Solver(Brique(size=3), memory_mb=4), done.append("solver")),
                daemon=True)
            builder.start()
            builder.join(1.0)
            assert builder.is_alive() and done == ["kernel"]
            err = capfd.readouterr().err
            assert "gtpgames: waiting for another compilation of the Brique solver" in err
            assert "Brique kernels" not in err
            fcntl.flock(lock, fcntl.LOCK_UN)
        builder.join(60.0)
        assert done == ["kernel", "solver"]
    finally:
        kernels.unload("brique")


def test_a_wait_for_another_thread_of_this_process_says_nothing() -> None:
    """A background load in this process holding a game's compile lock (the solver of a timed
    move waiting for the kernel, say) is waited for without the message meant for another
    process."""
    import threading

    from engine.search.kernels.cache import compile_lock

    said: list[str] = []
    entered: list[str] = []
    holding = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with compile_lock("test-silent-wait"):
            holding.set()
            release.wait()

    def wait() -> None:
        with compile_lock("test-silent-wait", lambda: said.append("waiting")):
            entered.append("second")

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    assert holding.wait(10.0)
    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    waiter.join(0.5)
    assert waiter.is_alive() and not entered  # it waits for the lock...
    release.set()
    holder.join(10.0)
    waiter.join(10.0)
    assert entered == ["second"] and said == []  # ...and says nothing


def test_a_background_load_shares_the_gil_in_short_turns() -> None:
    """While a kernel loads on another thread, the GIL changes hands every 0.1 ms rather than
    5 ms: the load, which gives it up on every file it reads, is not starved by a Python
    search; the interval is restored when the last load ends."""
    from engine.search import kernels

    before = sys.getswitchinterval()
    seen: list[float] = []
    release = threading.Event()

    def load() -> None:
        seen.append(sys.getswitchinterval())
        release.wait(10)

    first = kernels.in_background("test-load-1", load)
    second = kernels.in_background("test-load-2", load)
    try:
        while len(seen) < 2:
            time.sleep(0.01)
        assert kernels.loading()
    finally:
        release.set()
        first.join()
        second.join()
    assert seen == [pytest.approx(kernels.LOADING_SWITCH_INTERVAL)] * 2
    assert sys.getswitchinterval() == before and not kernels.loading()


def test_no_kernel_when_switched_off_or_not_supported(
    brique_kernel: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.search import kernels

    assert kernels.searcher_for(Brique(), wait=True) is brique_kernel
    monkeypatch.setenv(kernels.ENV_SWITCH, "0")
    assert kernels.searcher_for(Brique(), wait=True) is None
    monkeypatch.setenv(kernels.ENV_SWITCH, "1")
    monkeypatch.setattr(brique_kernel.codec, "supports", lambda game: game.n != 5)
    assert kernels.searcher_for(Brique(size=5), wait=True) is None
    assert kernels.searcher_for(Brique(size=5)) is None
    assert kernels.searcher_for(Brique(size=6)) is brique_kernel


def test_searcher_for_returns_the_loaded_kernel(brique_kernel: Any) -> None:
    from engine.search import kernels

    assert kernels.searcher_for(Brique()) is brique_kernel
    assert kernels.searcher_for(Brique(), wait=True) is brique_kernel
    with pytest.raises(ValueError, match="'nosuchgame'"):
        kernels.warmup(["nosuchgame"])


def test_a_player_with_its_own_kernel_settings(brique_kernel: Any) -> None:
    from engine.search.mcts import MctsPlayer

    plain = MctsPlayer(random.Random(1))
    own = MctsPlayer(random.Random(1), kernel_settings={"knowledge": 1, "rave": 0.0})
    game = Brique(size=6)
    assert plain.searcher(game) is brique_kernel
    searcher = own.searcher(game)
    assert searcher is not brique_kernel and searcher is own.searcher(game)
    assert searcher.settings == dataclasses.replace(
        brique_kernel.settings, knowledge=1, rave=0.0
    )
    assert brique_kernel.settings.knowledge == 0
    limit = Limit(playouts=500)
    assert own.search(game, limit).stats != plain.search(game, limit).stats


def test_warmup_command(brique_kernel: Any) -> None:
    from typer.testing import CliRunner

    from gtpgames.cli import app

    runner = CliRunner()
    done = runner.invoke(app, ["warmup", "brique"])
    assert done.exit_code == 0 and done.output.startswith("brique: ready in ")
    refused = runner.invoke(app, ["warmup", "nosuchgame"])
    assert refused.exit_code == 2 and "no compiled kernel for 'nosuchgame'" in refused.output


# ------------------------------------------------------------------------ one truth


#: (game, options) pairs the rules are cross-checked on.
CASES = [
    ("brique", {"size": 3}),
    ("brique", {"size": 4, "pie": False}),
    ("brique", {"size": 5}),
    ("brique", {"size": 8}),
    ("brique", {"size": 11}),
    ("bricka", {}),
    ("flicker", {"size": 3}),
    ("flicker", {"size": 4, "pie": False}),
    ("flicker", {"size": 5}),
    ("flicker", {"size": 11}),
    ("brax", {}),
    ("brax", {"first": "blue"}),
    ("brax", {"repetition": False}),
    ("brax", {"nocapture": False}),
]


def case_id(case: tuple[str, dict[str, Any]]) -> str:
    name, options = case
    return name + "".join(f"-{k}={v}" for k, v in options.items())


def probe(*args: Any) -> int:
    """:func:`engine.search.kernels.mcts.probe`, imported late (it needs numba), with the
    knowledge level (the last argument) an int."""
    from engine.search.kernels.mcts import probe as compiled
    from engine.search.kernels.rt import knowledge_level

    result: int = compiled(*args[:-1], knowledge_level(args[-1]))
    return result


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_array_rules_follow_the_python_rules(case: tuple[str, dict[str, Any]]) -> None:
    name, options = case
    codec = kernels_codec(name)
    rng = random.Random(case_id(case))
    rng_array = np.ones(1, dtype=np.uint64)
    for _ in range(8):
        game = new_game(name, **options)
        tables = codec.tables(game)
        state = codec.state(game)
        work = np.zeros(codec.sizes(game)[2], dtype=np.int32)
        out = np.zeros(codec.sizes(game)[1], dtype=np.int32)
        rec = np.zeros(2 * codec.plies(game) + 8, dtype=np.int32)
        while True:
            k = probe(tables, state, work, out, rng_array, rec, 0, 0, 0)
            moves = game.legal_moves()
            assert sorted(out[:k].tolist()) == sorted(codec.code(game, m) for m in moves)
            if game.is_over():
                break
            move = rng.choice(moves)
            game.play(move)
            probe(tables, state, work, out, rng_array, rec, 1, codec.code(game, move), 0)
            assert codec.meaning(game, state) == codec.meaning(game, codec.state(game))


@pytest.mark.parametrize("knowledge", [0, 1])
@pytest.mark.parametrize("case", [c for c in CASES if c[1].get("size", 5) >= 5], ids=case_id)
def test_playouts_replay_through_play_text(
    case: tuple[str, dict[str, Any]], knowledge: int
) -> None:
    from engine.search.kernels.rt import new_rng

    name, options = case
    codec = kernels_codec(name)
    rng = random.Random(case_id(case) + str(knowledge))
    generator = new_rng(knowledge)
    for _ in range(20):
        start = new_game(name, **options)
        for _ in range(rng.randrange(3)):
            start.play(rng.choice(start.legal_moves()))
        state = codec.state(start)
        work = np.zeros(codec.sizes(start)[2], dtype=np.int32)
        rec = np.zeros(2 * codec.plies(start) + 8, dtype=np.int32)
        tables = codec.tables(start)
        out = np.zeros(codec.sizes(start)[1], dtype=np.int32)
        result = probe(tables, state, work, out, generator, rec, 2, 0, knowledge)
        replay = start.copy()
        for j in range(int(rec[0])):
            assert replay.outcome() is None
            assert int(rec[2 + 2 * j]) == replay.to_move
            replay.play_text(replay.format_move(codec.move(replay, int(rec[1 + 2 * j]))))
        outcome = replay.outcome()
        if probe(tables, state, work, out, generator, rec, 3, 0, 0) < 0:  # stopped unfinished
            assert outcome is None and result == 2
            continue
        assert outcome is not None
        assert result == (2 if outcome.winner is None else outcome.winner)
        assert codec.meaning(replay, state) == codec.meaning(replay, codec.state(replay))


class ProbeArrays:
    """The arrays that :func:`engine.search.kernels.mcts.probe` needs for one game's rules (its
    tables, a state, and scratch space), built once; ``run`` applies one rule to a state."""

    def __init__(self, codec: Any, game: Game[Any]) -> None:
        self.codec = codec
        self.tables = codec.tables(game)
        self.state = codec.state(game)
        _codes, most, work = codec.sizes(game)
        self.work = np.zeros(work, dtype=np.int32)
        self.out = np.zeros(most, dtype=np.int32)
        self.rec = np.zeros(2 * codec.plies(game) + 8, dtype=np.int32)
        self.rng = np.ones(1, dtype=np.uint64)

    def run(self, state: Any, op: int, move: int = 0, knowledge: int = 0) -> int:
        return probe(self.tables, state, self.work, self.out, self.rng, self.rec, op, move,
                     knowledge)


def kernels_codec(name: str) -> Any:
    from engine.search import kernels

    return kernels.load(name).codec


# --------------------------------------------------------------------------- search


@pytest.mark.parametrize("kernel", [True, False])
def test_searches_pause_the_garbage_collector(brique_kernel: Any, kernel: bool) -> None:
    """A full collection walks every object of the process (a Python search tree among
    them) and would pause a timed search past its deadline: both searches run without it
    and turn it back on when they end."""
    import gc

    from engine.search.mcts import Mcts

    searcher = brique_kernel if kernel else Mcts()
    seen: list[bool] = []
    assert gc.isenabled()
    searcher.search(Brique(size=5), Limit(playouts=3000), random.Random(1),
                    lambda result: seen.append(gc.isenabled()), interval=0.0)
    assert seen and not any(seen) and gc.isenabled()


def test_searches_are_deterministic_whatever_the_slices(brique_kernel: Any) -> None:
    from engine.search.kernels.mcts import Settings, Tree

    game = random_position(random.Random(3), 7, True, 5)
    whole = Tree(brique_kernel.codec, game, Settings(max_nodes=200_000), 42)
    whole.run(3000)
    parts = Tree(brique_kernel.codec, game, Settings(max_nodes=200_000), 42)
    for n in (1, 999, 2000):
        parts.run(n)
    for a, b in zip(whole.tree, parts.tree, strict=True):
        assert np.array_equal(a, b)
    first = brique_kernel.search(game, Limit(playouts=2000), random.Random(9))
    again = brique_kernel.search(game, Limit(playouts=2000), random.Random(9))
    assert first.stats == again.stats and first.iterations == 2000


@pytest.mark.parametrize("name", ["brique", "trisq"])
def test_grave_takes_its_reference_from_the_deepest_node_with_enough_visits(
    name: str,
) -> None:
    """GRAVE with a reference of 1 visit uses each node's own AMAF statistics, so it is plain
    RAVE, iteration for iteration; a higher reference changes the search; without RAVE the
    reference does nothing. Trisq's two-step turns check the per-player references."""
    from engine.search import kernels
    from engine.search.kernels.mcts import Settings, Tree

    if name == "trisq":
        game = new_game(name, size=4)
        rng = random.Random(3)
        for _ in range(4):
            game.play(game.random_move(rng))
    else:
        game = random_position(random.Random(3), 7, True, 5)
    codec = kernels.load(name).codec

    def tree(**settings: Any) -> tuple[Any, ...]:
        searched = Tree(codec, game, Settings(max_nodes=200_000, **settings), 42)
        searched.run(3000)
        return searched.tree

    def same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
        return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))

    rave = tree()
    assert same(tree(grave=1), rave)
    assert not same(tree(grave=40), rave)
    assert same(tree(grave=40, rave=0.0), tree(rave=0.0))


def test_search_result_is_consistent(brique_kernel: Any) -> None:
    game = random_position(random.Random(4), 6, True, 1)  # White may swap
    result = brique_kernel.search(game, Limit(playouts=3000), random.Random(1))
    assert result.iterations == 3000
    assert {s.move for s in result.stats} == set(game.legal_moves())
    assert sum(s.visits for s in result.stats) == 3000  # each iteration passes one child
    assert result.best == result.stats[0].move
    for stat in result.stats:
        assert 0.0 <= stat.winrate <= 1.0
        line = game.copy()
        for move in stat.pv:
            assert line.is_legal(move)
            line.play(move)


def test_threads_share_the_budget_and_add_up_their_statistics(brique_kernel: Any) -> None:
    game = random_position(random.Random(5), 6, True, 3)
    limit = Limit(playouts=3001, threads=3)
    result = brique_kernel.search(game, limit, random.Random(7))
    again = brique_kernel.search(game, limit, random.Random(7))
    single = brique_kernel.search(game, Limit(playouts=3001), random.Random(7))
    assert result.iterations == 3001 and sum(s.visits for s in result.stats) == 3001
    assert result.stats == again.stats  # independent trees: reproducible from the seed
    assert result.stats != single.stats
    assert {s.move for s in result.stats} == set(game.legal_moves())
    assert [s.visits for s in result.stats] == sorted((s.visits for s in result.stats),
                                                      reverse=True)
    timed = brique_kernel.search(game, Limit(time=0.3, threads=2), random.Random(7))
    assert timed.iterations > 0 and sum(s.visits for s in timed.stats) == timed.iterations


@pytest.mark.parametrize("threads", [1, 2])
def test_a_deadline_passed_before_the_search_began_still_leaves_a_searched_move(
    brique_kernel: Any, threads: int
) -> None:
    """Setting up the trees can take a whole short budget on a loaded machine: the search
    then runs one slice rather than answer the first legal move unsearched."""
    game = random_position(random.Random(5), 6, True, 3)
    result = brique_kernel.search(game, Limit(time=0.0, threads=threads), random.Random(7))
    assert 0 < result.iterations == sum(s.visits for s in result.stats)
    assert result.stats[0].visits > 0 and result.best == result.stats[0].move


def test_search_stops_when_asked(brique_kernel: Any) -> None:
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 3

    result = brique_kernel.search(Brique(), Limit(time=60, stop=stop), random.Random(1))
    assert len(calls) == 4 and 0 < result.iterations


@pytest.mark.parametrize("kernel", [True, False])
def test_with_nothing_but_stop_a_search_runs_until_stop(brique_kernel: Any, kernel: bool) -> None:
    """An analysis with no bound (``gtpgames-analyze`` without ``playouts``) searches until
    the next command; a search with no bound at all has a playout budget."""
    searcher = brique_kernel if kernel else Mcts()
    start = time.perf_counter()
    result = searcher.search(Brique(size=5), Limit(stop=lambda: time.perf_counter() > start + 0.5),
                             random.Random(1))
    assert result.iterations > UNBOUNDED_PLAYOUTS
    result = searcher.search(Brique(size=5), Limit(), random.Random(1))
    assert result.iterations == UNBOUNDED_PLAYOUTS


def test_an_unbounded_search_keeps_its_tree_growing(brique_kernel: Any) -> None:
    """An analysis until the next command has no deadline to spread its expansions over: its
    leaves expand later the fuller the tree (full, it would stop growing within a second and
    analyse a fixed tree from then on)."""
    from engine.search.kernels.mcts import P_EXPAND, KernelSearcher

    settings = dataclasses.replace(brique_kernel.settings, max_nodes=100_000, reuse=True)
    searcher = KernelSearcher(brique_kernel.codec, settings)
    rooms: list[int] = []

    def progress(_: Any) -> None:
        assert searcher._last is not None
        rooms.append(searcher._last.room)

    start = time.perf_counter()
    searcher.search(Brique(size=5), Limit(stop=lambda: time.perf_counter() > start + 1.5),
                    random.Random(1), progress, 0.05)
    tree = searcher._last
    assert tree is not None and tree.room > 0
    assert tree.params[P_EXPAND] > settings.expand_visits
    assert len(rooms) > 10 and rooms[-1] < rooms[len(rooms) // 2]  # still growing late


# --------------------------------------------------------------------------- solver


@pytest.mark.parametrize("decisive", [False, True])
def test_solver_proves_a_composed_forced_win(brique_kernel: Any, decisive: bool) -> None:
    from engine.search.kernels.mcts import KernelSearcher, Settings

    #    a b c d e
    #  5 X : . O O  5
    #  4 O . X X X  4
    #  3 . X X : .  3      White to move: no winning move now, a forced win later
    #  2 : . X O O  2
    #  1 O : X O O  1
    game = Brique(size=5, pie=False)
    for token in "e4 d2 c3 d5 d4 a1 a5 e2 c1 e5 e1 d1 b3 a4 c2".split():
        game.play_text(token)
    assert game.to_move == 1 and solve(game)
    for move in game.legal_moves():
        game.play(move)
        assert not game.is_over()
        game.undo()
    searcher = KernelSearcher(brique_kernel.codec, Settings(decisive=decisive))
    result = searcher.search(game, Limit(playouts=200_000), random.Random(1))
    assert result.proven == "win"
    assert result.iterations < 200_000
    game.play(result.best)
    assert not solve(game)
    assert result.stats[0].proven == "win"


def wins_within(game: Game[Any], plies: int) -> bool:
    """Whether the player to move can force a win within ``plies`` plies (odd)."""
    me = game.to_move
    for move in game.legal_moves():
        game.play(move)
        outcome = game.outcome()
        won = outcome.winner == me if outcome is not None else (
            plies >= 3 and every_reply_loses(game, plies - 1, me)
        )
        game.undo()
        if won:
            return True
    return False


def every_reply_loses(game: Game[Any], plies: int, me: int) -> bool:
    for move in game.legal_moves():
        game.play(move)
        outcome = game.outcome()
        lost = outcome.winner == me if outcome is not None else wins_within(game, plies - 1)
        game.undo()
        if not lost:
            return False
    return True


BRICKA_WIN_IN_3 = (
    "e3 k3 i2 a7 k11 e4 e12 c11 h9 b6 e6 k10 k4 f10 e2 b10 i11 h4 f9 f13 i7 e11 e7 h12 e8 "
    "l10 f6 f2 i3 i8 c6 k8 i12 f8 j5 l8 b4 m7 c4 f5 k6 f1 h5 h8 i4 d5 i10 e10 k7 h13 l4 h10 "
    "d9 i6 g11"
)


def test_solver_proves_a_bricka_win_in_three() -> None:
    from engine.search import kernels
    from engine.search.kernels.mcts import KernelSearcher, Settings

    game = new_game("bricka")
    for token in BRICKA_WIN_IN_3.split():
        game.play_text(token, "native")
    assert not wins_within(game, 1) and wins_within(game, 3)
    searcher = KernelSearcher(kernels.load("bricka").codec, Settings(reuse=False))
    result = searcher.search(game, Limit(playouts=100_000), random.Random(2))
    assert result.proven == "win" and result.stats[0].proven == "win"
    game.play(result.best)
    assert game.is_over() or every_reply_loses(game, 2, 1 - game.to_move)


def test_bricka_playouts_draw_again_instead_of_a_piece_that_turns_neutral() -> None:
    """At knowledge k a Bricka playout draws again (up to k times) when the drawn point
    would turn the mover's piece neutral (K5): its first placements turn neutral less often,
    and its playouts still replay legally."""
    from engine.games.bricka import NEUTRAL, PASS

    codec = kernels_codec("bricka")
    rng = random.Random(4)
    neutral = {0: 0, 2: 0}
    for trial in range(300):
        start = new_game("bricka")
        for _ in range(rng.randrange(10, 40)):
            start.play(rng.choice(start.legal_moves()))
        if start.is_over():
            continue
        for knowledge in neutral:
            arrays = ProbeArrays(codec, start)
            arrays.rng[0] = trial + 1
            result = arrays.run(arrays.state, 2, 0, knowledge)
            replay = start.copy()
            for j in range(int(arrays.rec[0])):
                move = codec.move(replay, int(arrays.rec[1 + 2 * j]))
                replay.play_text(replay.format_move(move))
                if j == 0 and move != PASS:
                    neutral[knowledge] += replay.piece_at(move) == NEUTRAL
            outcome = replay.outcome()
            assert outcome is not None
            assert result == (2 if outcome.winner is None else outcome.winner)
    # about one point in five would turn neutral: one in a hundred or so after two draws more
    assert neutral[0] > 30 and neutral[2] < neutral[0] / 3, neutral


def test_solver_proves_a_flicker_win_in_three() -> None:
    from engine.search import kernels
    from engine.search.kernels.mcts import KernelSearcher, Settings

    #    a b c d e
    #  5 O O O x O  5
    #  4 . X x O x  4      White to move: no winning move now, a forced win in three
    #  3 O O X O O  3
    #  2 X X X . X  2
    #  1 X X O . .  1
    game = new_game("flicker", size=5, pie=False)
    for token in (
        "b1 a3 a1 b3 e4 e5 b4 d4 c4 c5 b2 d2 a2 c1 c2 a5 c3 e3 c5 d3 d5 b5 d2 c5 e2"
    ).split():
        game.play_text(token)
    assert not wins_within(game, 1) and wins_within(game, 3)
    searcher = KernelSearcher(kernels.load("flicker").codec, Settings(reuse=False))
    result = searcher.search(game, Limit(playouts=100_000), random.Random(2))
    assert result.proven == "win" and result.stats[0].proven == "win"
    game.play(result.best)
    assert game.is_over() or every_reply_loses(game, 2, 1 - game.to_move)


def test_the_tree_is_reused_for_the_next_position(brique_kernel: Any) -> None:
    from engine.search.kernels.mcts import KernelSearcher, Settings

    searcher = KernelSearcher(brique_kernel.codec, Settings(reuse=True, max_nodes=100_000))
    game = Brique(size=6)
    first = searcher.search(game, Limit(playouts=2000), random.Random(1))
    game.play(first.best)
    game.play(first.stats[0].pv[1])
    again = searcher.search(game, Limit(playouts=500), random.Random(1))
    # The reused root keeps its visits: its children have more than this search's 500.
    assert again.iterations == 500 and sum(s.visits for s in again.stats) > 500
    assert {s.move for s in again.stats} == set(game.legal_moves())
    for stat in again.stats:
        line = game.copy()
        for move in stat.pv:
            assert line.is_legal(move)
            line.play(move)
    other = Brique(size=6)
    other.play(game.history[1])  # not a continuation: a fresh tree
    fresh = searcher.search(other, Limit(playouts=100), random.Random(1))
    assert sum(s.visits for s in fresh.stats) == 100
    # Without reuse, the same continuation starts afresh.
    plain = KernelSearcher(brique_kernel.codec, Settings(reuse=False))
    plain.search(Brique(size=6), Limit(playouts=2000), random.Random(1))
    alone = plain.search(game, Limit(playouts=500), random.Random(1))
    assert sum(s.visits for s in alone.stats) == 500


def test_solver_agrees_with_minimax(brique_kernel: Any) -> None:
    rng = random.Random(11)
    checked = 0
    while checked < 12:
        game = random_position(rng, 4, False, 9)
        if game.is_over():
            continue
        checked += 1
        wins = solve(game)
        result = brique_kernel.search(game, Limit(playouts=100_000), rng)
        assert result.proven == ("win" if wins else "loss")
        for stat in result.stats:
            if stat.proven is not None:
                game.play(stat.move)
                assert solve(game) == (stat.proven == "loss")
                game.undo()
