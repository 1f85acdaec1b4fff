"""Where numba caches the compiled kernels: ``$NUMBA_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/gtpgames/numba`` (``~/.cache/gtpgames/numba``), in a subdirectory named after
a hash of the kernels' sources (numba notices edits to a cached function's own file but not to
the files of the functions it calls, so any edit here starts a fresh cache). Child processes
(match engines, GoGui's ruler) use the same subdirectory as their parent.

This module imports neither numba nor its siblings: :mod:`engine.search.kernels.rt` calls
:func:`configure` before it imports numba, and :mod:`engine.search.kernels` before it loads a
kernel.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

#: Set beside ``NUMBA_CACHE_DIR`` when this process points numba at :func:`cache_dir`: the
#: directory that it is a subdirectory of. A child process inherits both variables and takes
#: its subdirectory in the same place (it would otherwise nest one inside its parent's).
ROOT_ENV = "GTPGAMES_NUMBA_ROOT"
_PREFIX = "kernels-"


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
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("[!_]*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return _root() / f"{_PREFIX}{digest.hexdigest()[:12]}"


_configured: list[Path] = []


def configure() -> None:
    """Point numba's cache at :func:`cache_dir`, before or after numba is imported."""
    if _configured:
        return
    path = cache_dir()
    _configured.append(path)
    path.mkdir(parents=True, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    os.environ[ROOT_ENV] = str(path.parent)
    if "numba" in sys.modules:
        sys.modules["numba"].config.CACHE_DIR = str(path)
