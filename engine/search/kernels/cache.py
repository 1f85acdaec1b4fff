"""Where numba caches the compiled kernels: ``$NUMBA_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/gtpgames/numba`` (``~/.cache/gtpgames/numba``), in a subdirectory named after
a hash of the kernels' sources and of numba's optimisation level (numba notices edits to a
cached function's own file but not to the files of the functions it calls, so any edit here
starts a fresh cache). Child processes (match engines, GoGui's ruler) use the same
subdirectory as their parent.

This module imports neither numba nor its siblings: :mod:`engine.search.kernels.rt` calls
:func:`configure` before it imports numba, and :mod:`engine.search.kernels` before it loads a
kernel.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # pragma: no cover - not a POSIX system
    fcntl = None

#: Set beside ``NUMBA_CACHE_DIR`` when this process points numba at :func:`cache_dir`: the
#: directory that it is a subdirectory of. A child process inherits both variables and takes
#: its subdirectory in the same place (it would otherwise nest one inside its parent's).
ROOT_ENV = "GTPGAMES_NUMBA_ROOT"
_PREFIX = "kernels-"

#: LLVM's optimisation level for the kernels, numba's ``NUMBA_OPT`` unless that is set: 1, not
#: numba's default 3, which took 10-15% longer to compile the same kernels and made them no
#: faster (docs/design/kernels.md, "The cache and gtpgames warmup").
OPT_LEVEL = "1"


def _opt_level() -> str:
    """The level numba compiles at: numba's own once it is imported, else ``NUMBA_OPT`` or
    :data:`OPT_LEVEL` (what :func:`configure` sets before numba is imported)."""
    numba = sys.modules.get("numba")
    if numba is not None:
        return str(int(numba.config.OPT))
    return os.environ.get("NUMBA_OPT", OPT_LEVEL)


def _root() -> Path:
    """The directory the kernels' cache directories are made in."""
    base = os.environ.get("NUMBA_CACHE_DIR")
    inherited = os.environ.get(ROOT_ENV)
    if base and inherited:
        path = Path(base)
        if path.name.startswith(_PREFIX) and path.parent == Path(inherited):
            return path.parent  # set by a parent process of this program
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "gtpgames" / "numba"


def cache_dir() -> Path:
    """The directory numba caches the kernels in (see the module docstring)."""
    if _configured:
        return _configured[0]
    digest = hashlib.sha256(f"NUMBA_OPT={_opt_level()}\n".encode())
    for path in sorted(Path(__file__).parent.glob("[!_]*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return _root() / f"{_PREFIX}{digest.hexdigest()[:12]}"


_configured: list[Path] = []


def configure() -> None:
    """Point numba's cache at :func:`cache_dir`, before or after numba is imported, and set
    its optimisation level (:data:`OPT_LEVEL`; numba reads it when it is imported: a process
    that imported numba before keeps numba's, caches in a directory of its own, and passes
    that level on to its child processes)."""
    if _configured:
        return
    path = cache_dir()
    _configured.append(path)
    path.mkdir(parents=True, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    os.environ[ROOT_ENV] = str(path.parent)
    os.environ["NUMBA_OPT"] = _opt_level()  # so that child processes take the same directory
    if "numba" in sys.modules:
        sys.modules["numba"].config.CACHE_DIR = str(path)


@contextlib.contextmanager
def compile_lock(name: str, waiting: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold, across processes, the right to compile (or read from the cache) the kernels of
    game ``name`` (or, for ``GAME-solver``, that game's solver): an exclusive lock on a file of
    :func:`cache_dir`. Two engines started
    together on a cold cache (a match, gogui-twogtp, a test run) would otherwise both compile
    the same functions; the second waits here, then reads them from the cache in a fraction
    of a second. ``waiting`` is called once if another process holds the lock, before
    waiting (a wait for another thread of this process, a background load, says nothing).
    Not reentrant. The lock goes with its process, however that ends; where no lock can be
    taken (not a POSIX system, a read-only cache), nothing is held."""
    configure()
    with contextlib.ExitStack() as held:
        if fcntl is not None:
            try:
                handle = held.enter_context(open(cache_dir() / f"{name}.lock", "a"))
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    with _here_lock:
                        here = name in _held_here
                    if waiting is not None and not here:
                        waiting()
                    fcntl.flock(handle, fcntl.LOCK_EX)
                with _here_lock:
                    _held_here.add(name)
                held.callback(_release_here, name)
            except OSError:
                held.close()  # no lock: compile without one
        yield  # closing the file releases the lock


#: The games whose compile lock a thread of this process holds.
_held_here: set[str] = set()
_here_lock = threading.Lock()


def _release_here(name: str) -> None:
    with _here_lock:
        _held_here.discard(name)
