"""Every process the tests start runs the code of this checkout: the source tree comes first
on PYTHONPATH, so that ``gtpgames`` (installed or not) imports the same files as the tests.
numba keys its cache by source file, and an installed copy beside the source tree would make
every kernel compile twice on a cold cache (once in the test process, once in its children)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
)

# numba's cache directory and optimisation level, set before any test module imports numba
# (`pytest.importorskip("numba")`): numba reads the level when it is imported, and the
# background compile below, the tests and the processes they start must all compile at the
# kernels' level into one directory.
from engine.search.kernels.cache import configure  # noqa: E402

configure()

# The tests start several hundred Python processes that import this source tree (engines,
# the command line, the web server). Where imports write no bytecode (PYTHONDONTWRITEBYTECODE,
# set in many containers), each of them would compile the sources again: about 0.15 s of CPU
# a process, a third of a default run's time. Their bytecode is written once here instead
# (compileall leaves files whose bytecode is up to date alone; a read-only tree only loses
# the saving), and so is pytest's of the test modules with their asserts rewritten (8 s of
# each run's collection), which it writes only where imports write bytecode.
if sys.dont_write_bytecode:
    import compileall

    for _package in ("engine", "protocol", "adapters", "gtpgames", "tests"):
        compileall.compile_dir(ROOT / _package, quiet=2)
    sys.dont_write_bytecode = False


# A run of many tests (the default run, CI) compiles the search kernels and the solvers of all
# five games: on a cold cache that is most of its time, in short bursts spread over the run.
# A background process compiles them on the other core meanwhile: the search kernels first,
# in the order the tests first need them, then each game's rules one at a time (`probe`,
# which the kernels' tests call), then the solvers. A test that needs a game's kernels or
# solver while they compile there waits for them (the compile lock of
# engine.search.kernels.cache) instead of compiling them a second time; one that calls
# `probe` before it is ready compiles it itself. GTPGAMES_TEST_WARMUP=0 turns it off.
_WARMUP_FROM = 200  # tests in the run
_WARMUP = """
from engine.games.registry import new_game
from engine.search import kernels, solve
games = ["brique", "trisq", "brax", "bricka", "flicker"]
kernels.warmup(games)
for game in games:
    kernels.load(game).warm(new_game(game), rules=True)
for game in games:
    solve.warm(game)
"""
_warming: list[subprocess.Popen[bytes]] = []


def _warming_up(config: pytest.Config, items: list[pytest.Item]) -> bool:
    return (len(items) >= _WARMUP_FROM and not config.option.collectonly
            and os.environ.get("GTPGAMES_TEST_WARMUP", "1") != "0")


#: With the background compile, these run last, in this order (a stable sort: each file's
#: own order kept): GoGui's live-graphics tests, whose playout-bounded searches wait for
#: three games' kernels, then tests/search/, most of which compile something.
_LATE = (ROOT / "tests" / "adapters" / "test_gogui.py", ROOT / "tests" / "search")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With the background compile: the tests that need the kernels most last (:data:`_LATE`),
    the others first while it runs."""
    if _warming_up(config, items):
        items.sort(key=lambda item: next(
            (k + 1 for k, late in enumerate(_LATE) if item.path.is_relative_to(late)), 0))


def pytest_collection_finish(session: pytest.Session) -> None:
    if not _warming_up(session.config, session.items):
        return
    _warming.append(subprocess.Popen(
        [sys.executable, "-c", _WARMUP],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    for process in _warming:
        if process.poll() is None:
            process.kill()
        process.wait()
