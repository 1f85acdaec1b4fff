"""Compiled (numba) search kernels, one per game, behind the :class:`engine.search.base.Searcher`
interface (docs/design/kernels.md).

numba is imported only when a kernel is first needed, never at start-up: importing this
module imports neither numba nor numpy. :func:`searcher_for` is the one entry point the
players use: it returns a ready searcher for the game, or ``None`` when the game has no kernel
or its kernel is not loaded yet, in which case the caller searches with the Python MCTS. The
first request for a game starts loading its kernel on a background thread (from the on-disk
cache when warm, else compiling it: seconds), so a genmove never waits for numba;
``gtpgames warmup`` (:func:`warmup`) compiles every kernel ahead of time.

The cache lives in ``$NUMBA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/gtpgames/numba``
(``~/.cache/gtpgames/numba``), in a subdirectory named after a hash of the kernels' sources:
numba notices edits to a cached function's own file but not to the files of the functions it
calls, so any edit here starts a fresh cache. Child processes (match engines, GoGui's ruler)
use the same subdirectory as their parent.

Loading a kernel that has to be compiled (an empty or outdated cache: seconds) says so on
stderr, one line when the compilation starts and one with its seconds when it ends.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TextIO

from engine.games.core import Game
from engine.search.base import Searcher
from engine.search.kernels.cache import cache_dir as cache_dir
from engine.search.kernels.cache import compile_lock
from engine.search.kernels.cache import configure as configure

if TYPE_CHECKING:
    from engine.search.kernels.mcts import KernelSearcher

#: Game name -> "module:Codec class" of its array rules.
KERNELS: dict[str, str] = {
    "brique": "engine.search.kernels.brique:BriqueCodec",
    "bricka": "engine.search.kernels.bricka:BrickaCodec",
    "flicker": "engine.search.kernels.flicker:FlickerCodec",
    "trisq": "engine.search.kernels.trisq:TrisqCodec",
    "brax": "engine.search.kernels.brax:BraxCodec",
}

#: Set to "0" or "off" to disable the kernels (every search then uses the Python MCTS).
ENV_SWITCH = "GTPGAMES_KERNELS"

_lock = threading.Lock()
_ready: dict[str, KernelSearcher] = {}
_loading: dict[str, threading.Thread] = {}
_failed: dict[str, str] = {}
#: Seconds each kernel took to load (compile or read from the cache), for the figures.
load_seconds: dict[str, float] = {}


class _Compiling:
    """One kernel load on one thread: whether numba compiled anything yet, and since when."""

    def __init__(self, title: str, out: TextIO | None, what: str) -> None:
        self.title = title
        self.out = out
        self.what = what
        self.since: float | None = None

    def say(self, text: str) -> None:
        print(f"gtpgames: {text}", file=self.out or sys.stderr, flush=True)

    def started(self) -> None:
        if self.since is None:
            self.since = time.perf_counter()
            self.say(f"compiling the {self.title} {self.what} (once: later runs load it "
                     "from the cache)")

    def ended(self) -> None:
        if self.since is not None:
            seconds = time.perf_counter() - self.since
            self.say(f"the {self.title} {self.what} compiled in {seconds:.1f} s")


_compiling = threading.local()
_listening: list[object] = []
#: Held while numba or a kernel module is imported: two threads importing numba at once
#: (a kernel loading in the background, the solver in the foreground) can each see the
#: other's half-initialised modules ("partially initialized module 'numba'").
_import_lock = threading.RLock()


def import_module(name: str) -> ModuleType:
    """Import the kernel module ``name`` (and numba with it) under the import lock, with
    numba's cache pointed at :func:`cache_dir` first."""
    with _import_lock:
        configure()
        return importlib.import_module(name)


def _listen() -> None:
    """Register, once, a listener for numba's compile events (numba.core.event): the first
    one of a load on a thread marks its compilation as started. A function that numba
    finds in its cache sends none."""
    with _import_lock:
        if _listening:
            return
        configure()
        from numba.core import event

        class Listener(event.Listener):
            def on_start(self, _event: Any) -> None:
                job = getattr(_compiling, "job", None)
                if job is not None:
                    job.started()

            def on_end(self, _event: Any) -> None:
                pass

        listener = Listener()
        event.register("numba:compile", listener)  # type: ignore[no-untyped-call]
        _listening.append(listener)


@contextlib.contextmanager
def telling_compiles(
    title: str, out: TextIO | None = None, what: str = "search kernel"
) -> Iterator[None]:
    """Within the block, on this thread: the first compilation by numba prints
    ``gtpgames: compiling the <title> <what> ...`` and the end of the block
    ``gtpgames: the <title> <what> compiled in <seconds> s``, on ``out`` (default:
    stderr, never stdout); nothing when everything comes from the cache. Imports numba."""
    _listen()
    job = _Compiling(title, out, what)
    outer = getattr(_compiling, "job", None)
    _compiling.job = job
    try:
        yield
    finally:
        _compiling.job = outer
        job.ended()


def enabled() -> bool:
    return os.environ.get(ENV_SWITCH, "1").lower() not in ("0", "off", "false", "no")


def load(name: str) -> KernelSearcher:
    """The searcher of game ``name``, compiling its kernel (or loading it from the cache)
    now, in this thread; KeyError if the game has no kernel."""
    with _lock:
        if name in _ready:
            return _ready[name]
        loader = _loading.get(name)
    if loader is not None and loader is not threading.current_thread():
        loader.join()  # a background load of this kernel: wait for it, not load it twice
        with _lock:
            if name in _ready:
                return _ready[name]
    target = KERNELS[name]
    start = time.perf_counter()
    configure()
    module_name, _, codec_name = target.partition(":")
    from engine.games.registry import new_game

    game = new_game(name)
    with compiling(game), telling_compiles(game.title):
        # inside: a module may compile its helpers of fixed types when it is imported
        module = import_module(module_name)
        mcts = import_module("engine.search.kernels.mcts")
        searcher: KernelSearcher = mcts.KernelSearcher(getattr(module, codec_name)())
        searcher.warm(game)
    with _lock:
        load_seconds.setdefault(name, time.perf_counter() - start)
        _ready[name] = searcher
    return searcher


def compiling(game: Game[Any], solver: bool = False) -> contextlib.AbstractContextManager[None]:
    """:func:`engine.search.kernels.cache.compile_lock` for ``game``'s kernels (its rules and
    search loop), or with ``solver`` for its solver's search, which has a lock of its own: a
    process loading the kernels never waits for another that compiles the solver (about as
    long as the kernels). Says on stderr when it waits for another process."""
    name, what, it = ((f"{game.name}-solver", "solver", "it") if solver
                      else (game.name, "kernels", "they"))

    def waiting() -> None:
        print(f"gtpgames: waiting for another compilation of the {game.title} {what} ({it} "
              "will then load from the cache)", file=sys.stderr, flush=True)

    return compile_lock(name, waiting)


def _load_quietly(name: str) -> None:
    try:
        with sharing_the_gil():
            load(name)
    except Exception as error:  # pragma: no cover - reported, never fatal
        _failed[name] = f"{type(error).__name__}: {error}"
        print(f"gtpgames: the {name} kernel failed to load: {error}", file=sys.stderr)


#: The GIL's switch interval (seconds) while a kernel loads on a background thread; Python's
#: own is 5 ms. A load from the cache gives the GIL up on each of its thousands of file reads
#: (importing numba, reading the cache) and waits for it again: beside a Python search, which
#: keeps it for the whole interval, that wait is the whole interval. Loading Brique's kernel
#: from the cache took 25 s instead of 1 s (Trisq's: 22 s even with the search yielding the
#: GIL after every iteration); with 0.1 ms, about 2 s each.
LOADING_SWITCH_INTERVAL = 1e-4

_sharing = 0
_sharing_lock = threading.Lock()
_switch_interval = 0.0


@contextlib.contextmanager
def sharing_the_gil() -> Iterator[None]:
    """Run a background load with the GIL's switch interval at
    :data:`LOADING_SWITCH_INTERVAL`, Python's own restored when the last such load ends."""
    global _sharing, _switch_interval
    with _sharing_lock:
        if _sharing == 0:
            _switch_interval = sys.getswitchinterval()
            sys.setswitchinterval(min(_switch_interval, LOADING_SWITCH_INTERVAL))
        _sharing += 1
    try:
        yield
    finally:
        with _sharing_lock:
            _sharing -= 1
            if _sharing == 0:
                sys.setswitchinterval(_switch_interval)


def searcher_for(game: Game[Any], *, wait: bool = False) -> Searcher | None:
    """A compiled searcher for ``game``, or ``None`` (use the Python fallback).

    ``None`` also when the game's kernel does not cover its options (the codec's
    ``supports``, e.g. Brax's three- and four-player variants).

    The first call for a game starts loading its kernel on a background thread and returns
    ``None``; later calls return the kernel once it is loaded. With ``wait`` the call loads
    it first (compiling if the cache is cold: seconds), so that a search limited only by
    playouts is reproducible from its seed whatever the state of the cache."""
    name = game.name
    if name not in KERNELS or not enabled():
        return None
    if wait:
        loaded = load(name)
        return loaded if loaded.codec.supports(game) else None
    with _lock:
        ready = _ready.get(name)
        if ready is not None:
            return ready if ready.codec.supports(game) else None
        if name in _failed or name in _loading:
            return None
        thread = threading.Thread(
            target=_load_quietly, args=(name,), name=f"kernel-{name}", daemon=True
        )
        _loading[name] = thread
        thread.start()  # under the lock: a load() that finds it can join it
    return None


def loading() -> bool:
    """Whether a kernel is being loaded (or compiled) on a background thread now: that thread
    holds the GIL in long stretches, so a timed search sees its clock late."""
    with _lock:
        return any(thread.is_alive() for thread in _loading.values())


def in_background(name: str, target: Callable[[], object]) -> threading.Thread:
    """Run ``target`` (a compile: the solver's for a timed move) on a daemon thread named
    ``name`` (not a game's name), which :func:`loading` counts while it runs."""

    def run() -> None:
        with sharing_the_gil():
            target()

    thread = threading.Thread(target=run, name=name, daemon=True)
    with _lock:
        _loading[name] = thread
        thread.start()
    return thread


def unload(name: str) -> None:
    """Forget the loaded kernel of ``name`` (tests: later searches use the fallback again
    until :func:`searcher_for` loads it anew)."""
    with _lock:
        _ready.pop(name, None)
        _loading.pop(name, None)


def wait(name: str, timeout: float | None = None) -> bool:
    """Wait for a background load of ``name`` started by :func:`searcher_for`; whether the
    kernel is ready."""
    thread = _loading.get(name)
    if thread is not None:
        thread.join(timeout)
    return name in _ready


def warmup(
    names: list[str] | None = None, jobs: int = 1, also: Callable[[str], object] | None = None
) -> dict[str, float]:
    """Compile (or load from the cache) the kernels of ``names`` (default: all), each followed
    by ``also(name)`` if given (a module-level function: :func:`engine.search.solve.warm`
    compiles the game's solver); seconds per game. ValueError for a game without a kernel.

    With ``jobs`` > 1 and more than one kernel, each kernel is compiled in a child process of
    its own, ``jobs`` at a time, the largest first (numba compiles one function at a time in a
    process, and most of a compilation is numba's own Python): the cache is then warm for
    every process, this one included, but this one has loaded none of them."""
    chosen = list(KERNELS) if not names else [name.lower() for name in names]
    for name in chosen:
        if name not in KERNELS:
            raise ValueError(
                f"no compiled kernel for {name!r} (kernels: {', '.join(KERNELS)})"
            )
    if jobs > 1 and len(chosen) > 1:
        return _warmup_apart(chosen, jobs, also)
    return {name: _load_apart(name, also) for name in chosen}


def cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1  # pragma: no cover - not Linux


def _source_size(name: str) -> int:
    """The size of the source of ``name``'s kernel module: roughly what compiling it costs."""
    module = KERNELS[name].partition(":")[0]
    return (Path(__file__).parent / f"{module.rpartition('.')[2]}.py").stat().st_size


def _load_apart(name: str, also: Callable[[str], object] | None = None) -> float:
    """:func:`load` ``name``, then ``also(name)``, in this process; its seconds."""
    start = time.perf_counter()
    load(name)
    if also is not None:
        also(name)
    return time.perf_counter() - start


def _warmup_apart(
    names: list[str], jobs: int, also: Callable[[str], object] | None
) -> dict[str, float]:
    """:func:`warmup` in ``jobs`` child processes (spawned: a fork of a process that has
    imported numba may hold its locks), the largest kernels first so that the last one
    started is a small one; seconds per kernel, in the order of ``names``. Each child reads
    and writes the same cache directory (the environment says where), and numba's writes to
    a function's cache files are made under a lock (``rt``)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    configure()  # the children inherit the cache directory through the environment
    context = multiprocessing.get_context("spawn")
    order = sorted(names, key=_source_size, reverse=True)
    with ProcessPoolExecutor(max_workers=min(jobs, len(names)), mp_context=context) as pool:
        futures = {name: pool.submit(_load_apart, name, also) for name in order}
        return {name: futures[name].result() for name in names}
