"""The runtime shared by the compiled kernels: the cached ``jit`` decorator, a seeded
xorshift generator on a one-element array, and the generic rule functions that each game's
array rules implement.

This module imports numba: import it only through :mod:`engine.search.kernels` (which sets the
cache directory first), never at start-up.

How one search loop serves every game (docs/design/kernels.md): the loop in
:mod:`engine.search.kernels.mcts` calls the stubs below (``r_legal``, ``r_play``...) with the game's
*tables*, a NamedTuple class of its own per game. Each stub is a numba ``@overload`` that
picks the implementation registered for the tables' class, so numba compiles the loop once
per game, with the rules inlined, as one more signature of the same cached function. Unlike
closures over jitted functions or first-class function arguments, this caches (the loop's
cache index is keyed by the argument types).
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar, cast

from engine.search.kernels.cache import cache_dir, configure

# Set numba's cache directory before numba is imported, whichever kernel module is imported
# first (else numba caches next to the sources, where edits to the rules go unnoticed).
configure()

import numba  # noqa: E402
import numpy as np  # noqa: E402
from numba.core.caching import FunctionCache  # noqa: E402
from numba.extending import overload  # noqa: E402

from engine.search.kernels.inlining import install  # noqa: E402

install()  # numba's inlining without its repeated copies (engine.search.kernels.inlining)

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

F = TypeVar("F", bound=Callable[..., Any])


#: The options the search kernels and the game rules are compiled with: release the GIL, and
#: no reference counting (numba's ``_nrt``). They never allocate an array nor keep one: every
#: array they touch belongs to the Python caller for the whole call. With reference counting
#: on, numba increments and decrements an array's count with an atomic instruction each time
#: the array is taken from a tuple (the tables, the tree) or passed to an inlined helper,
#: which took 30-45% of a Bricka playout; and the threads of a search, which share the game's
#: tables, made those atomics bounce one cache line between the cores.
OPTIONS: dict[str, Any] = {"nogil": True, "_nrt": False}


class _LockedCache(FunctionCache):
    """numba's on-disk cache of one function, whose writes are made under an exclusive lock
    on a file of the cache directory. numba writes a new entry by reading the function's
    index, choosing the first free data file name, and writing both: two processes that
    compile the same function for different games at once (``gtpgames warmup`` compiles the
    games in parallel) would choose the same name, and one game's index entry could point to
    the other game's machine code."""

    def save_overload(self, sig: Any, data: Any) -> None:
        if fcntl is None:  # pragma: no cover - not a POSIX system: no lock
            super().save_overload(sig, data)  # type: ignore[no-untyped-call]
            return
        with open(cache_dir() / "save.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                super().save_overload(sig, data)  # type: ignore[no-untyped-call]
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)


def _cached(fn: F, **options: Any) -> F:
    """``numba.njit(**options)(fn)`` cached on disk through :class:`_LockedCache` (in place of
    the cache ``cache=True`` would make; lazy: nothing is compiled yet)."""
    dispatcher = numba.njit(**options)(fn)
    dispatcher._cache = _LockedCache(fn)  # type: ignore[no-untyped-call]
    return cast(F, dispatcher)


def jit(fn: F) -> F:
    """Compile ``fn`` with numba in nopython mode, cached on disk, releasing the GIL, with
    reference counting: for a function that makes arrays (a slice of a 2-d array is one)."""
    return _cached(fn, nogil=True)


def kernel(fn: F) -> F:
    """Compile ``fn`` as :func:`jit` does but with :data:`OPTIONS` (no reference counting): a
    function that makes no array. One that did would not compile ("NRT required")."""
    return _cached(fn, **OPTIONS)


def inline(fn: F) -> F:
    """A helper compiled into each caller (numba IR inlining): no call, and no reference
    counting of the array arguments, which costs more than the body of a small helper."""
    return cast(F, numba.njit(cache=True, inline="always", **OPTIONS)(fn))


def typed(result: Any, *arguments: Any) -> Callable[[F], F]:
    """Compile ``fn`` once, for these numba types (the result's, then the arguments'), and not
    into each caller: a helper called from many places in a game's rules. numba compiles a
    function called with other argument types (an int32 read from an array, an int64 loop
    index, a literal -1) once per combination, and a helper compiled into each caller
    (:func:`inline`) once per call site; this compiles it once (when its module is imported,
    or reads it from the cache), and callers' arguments are converted to its types."""

    def decorate(fn: F) -> F:
        return cast(F, numba.njit(result(*arguments), cache=True, **OPTIONS)(fn))

    return decorate


def once(helper: F, result: Any, *arguments: Any) -> F:
    """An :func:`inline` helper compiled once more, as :func:`typed` does, for the call sites
    where compiling it into each caller costs more compile time than the call costs at run
    time (the rules' cold paths); its hot call sites keep it inlined."""
    return cast(F, typed(result, *arguments)(cast(Any, helper).py_func))


#: ``np.int64`` (a cast in compiled code), typed for mypy as the int it stands for: a value
#: passed to another compiled function as an int64 whatever its source (an int32 array entry,
#: a literal), so that the callee is compiled once.
i64 = cast(Callable[[Any], int], np.int64)


#: (tables class, rule name) -> the python implementation numba compiles for that game.
RULES: dict[tuple[type, str], Callable[..., Any]] = {}


def register(tables: type, **impls: Callable[..., Any]) -> None:
    """Register a game's array rules for its tables class (names as in the stubs below;
    ``playout`` is a function of the knowledge level that returns the playout at that
    level)."""
    for name, impl in impls.items():
        RULES[(tables, name)] = impl


#: The rules' compile options: those of :func:`jit`. numba keys the implementation of an
#: overload by the options of the function being compiled when it is called, so a rule called
#: both from the loop and from another rule (a playout that lists the legal moves) would
#: otherwise be compiled twice.
_OPTIONS: Any = {**OPTIONS, "no_cpython_wrapper": False}


def _resolve(name: str, tables_type: Any) -> Callable[..., Any] | None:
    cls = getattr(tables_type, "instance_class", None)
    impl = RULES.get((cls, name)) if isinstance(cls, type) else None
    return impl


def r_legal(t: Any, s: Any, out: Any) -> int:
    """Write the legal move codes of state ``s`` to ``out``; return how many."""
    raise NotImplementedError


def r_play(t: Any, s: Any, w: Any, move: int) -> None:
    """Play the legal move ``move`` on ``s`` (``w`` is scratch space). Callers pass ``move``
    as an int64 (:data:`i64` of an entry of an int32 array), so that the rule is compiled
    once for every caller."""
    raise NotImplementedError


def r_winner(t: Any, s: Any) -> int:
    """-1 while the game goes on, else the winner (0 or 1) or 2 for a draw."""
    raise NotImplementedError


def r_to_move(t: Any, s: Any) -> int:
    """The player to move (0 or 1)."""
    raise NotImplementedError


def r_playout(t: Any, s: Any, w: Any, rng: Any, rec: Any, knowledge: Any) -> int:
    """Play the game out on ``s`` (changed); return the result as :func:`r_winner` does.
    ``rec[0]`` receives the number of placements, ``rec[1 + 2k]`` and ``rec[2 + 2k]`` the
    move code and the player of placement k (for AMAF). ``knowledge`` is the value of
    :func:`knowledge_level` for the playout's knowledge level: its type says the level, so the
    playout is compiled for that level alone."""
    raise NotImplementedError


def r_key(t: Any, s: Any) -> Any:
    """A 64-bit key (``np.uint64``) of state ``s`` for the solver's table: equal for states
    whose games go on alike. A game may register its own (one that leaves out what cannot
    matter any more, or folds symmetries); the default hashes the whole array."""
    raise NotImplementedError


def r_init(t: Any, s: Any, w: Any, attacker: int) -> tuple[int, int]:
    """The first proof and disproof numbers (at least 1 each) of a new node of the solver,
    state ``s`` (not over), for ``attacker`` (``w`` is scratch space). A game may register
    an estimate of how far each side is from a win; the default is 1 and 1."""
    raise NotImplementedError


_P = np.uint64(0x100000001B3)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLD = np.uint64(0x9E3779B97F4A7C15)


@inline
def mix(h: Any, x: int) -> Any:
    """One step of the keys' hash: ``h`` (``np.uint64``) with the int ``x`` folded in."""
    h = (h ^ np.uint64(np.int64(x))) * _P
    return h ^ (h >> np.uint64(31))


@inline
def finish(h: Any) -> Any:
    """The last step of a key: every bit of ``h`` spread over all of them (splitmix64's
    finaliser)."""
    h = (h ^ (h >> np.uint64(30))) * _M1
    h = (h ^ (h >> np.uint64(27))) * _M2
    return h ^ (h >> np.uint64(31))


@inline
def index_weight(i: int) -> Any:
    """The pseudo-random odd number (``np.uint64``) of index ``i`` in :func:`sum_key`."""
    r = np.uint64(i + 1) * _GOLD
    r = (r ^ (r >> np.uint64(29))) * _M1
    r ^= r >> np.uint64(32)
    return r | np.uint64(1)


@inline
def sum_key(s: Any, n: int) -> Any:
    """A key (unmixed: :func:`finish` mixes it) of the first ``n`` entries of ``s``: a sum
    over the entries of (entry + 3) times a pseudo-random odd number of its index. The terms
    do not depend on each other, so the loop runs at several entries a cycle, where a chain
    of multiplications, one entry after another, took five times longer on Trisq's 148
    entries (most of the time of a solver's node)."""
    h = np.uint64(0)
    for i in range(n):
        h += np.uint64(np.int64(s[i]) + 3) * index_weight(i)
    return h


def _whole_key(t: Any, s: Any) -> Any:
    return sum_key(s, s.shape[0])


@overload(r_legal, strict=False, jit_options=_OPTIONS)
def _legal(t: Any, s: Any, out: Any) -> Callable[..., Any] | None:
    return _resolve("legal", t)


@overload(r_play, strict=False, jit_options=_OPTIONS)
def _play(t: Any, s: Any, w: Any, move: Any) -> Callable[..., Any] | None:
    return _resolve("play", t)


@overload(r_winner, strict=False, jit_options=_OPTIONS)
def _winner(t: Any, s: Any) -> Callable[..., Any] | None:
    return _resolve("winner", t)


@overload(r_to_move, strict=False, jit_options=_OPTIONS)
def _to_move(t: Any, s: Any) -> Callable[..., Any] | None:
    return _resolve("to_move", t)


#: The playout knowledge levels (``Settings.knowledge``) a kernel can be compiled for.
KNOWLEDGE_LEVELS = 8

#: One class per knowledge level, ``Knowledge0`` to ``Knowledge7`` (module attributes, so
#: that numba's on-disk cache can name them): the level is in the type of the value passed.
_LEVELS: list[type] = [
    collections.namedtuple(f"Knowledge{level}", ["level"], module=__name__)
    for level in range(KNOWLEDGE_LEVELS)
]
globals().update((cls.__name__, cls) for cls in _LEVELS)
_LEVEL_OF = {cls: level for level, cls in enumerate(_LEVELS)}


def knowledge_level(level: int) -> Any:
    """What the kernels pass as the ``knowledge`` of :func:`r_playout` for playouts at
    ``level``. A playout's level is a constant of its compiled code, whose other levels'
    branches numba leaves out: a game's uniform playout and its search's policies share one
    function, but a search compiles only its own level's code. A search at another level
    compiles its loop once more, when first asked."""
    if not 0 <= level < KNOWLEDGE_LEVELS:
        raise ValueError(f"knowledge {level} is out of range 0..{KNOWLEDGE_LEVELS - 1}")
    return _LEVELS[level](level)


@functools.cache
def _playout_at(factory: Callable[[int], Callable[..., int]], level: int) -> Callable[..., int]:
    """The game's playout at ``level`` (its registered ``playout`` is a factory that returns
    the playout with its level a constant, whose other levels' branches numba prunes), one
    function object per level."""
    return factory(level)


@overload(r_playout, strict=False, jit_options=_OPTIONS)
def _playout(
    t: Any, s: Any, w: Any, rng: Any, rec: Any, knowledge: Any
) -> Callable[..., Any] | None:
    impl = _resolve("playout", t)
    level = _LEVEL_OF.get(getattr(knowledge, "instance_class", None))  # type: ignore[arg-type]
    if impl is None or level is None:
        return None
    return _playout_at(impl, level)


def _unit_init(t: Any, s: Any, w: Any, attacker: Any) -> tuple[int, int]:
    return 1, 1


@overload(r_init, strict=False, jit_options=_OPTIONS)
def _init(t: Any, s: Any, w: Any, attacker: Any) -> Callable[..., Any] | None:
    return _resolve("init", t) or _unit_init


@overload(r_key, strict=False, jit_options=_OPTIONS)
def _key(t: Any, s: Any) -> Callable[..., Any] | None:
    return _resolve("key", t) or _whole_key


@inline
def edge_distance(
    near: Any, edge: Any, s: Any, w: Any, size: int, player: int, mine: int, ally: int,
    enemy: int, ring: int,
) -> int:
    """A connection game's distance to a win: the fewest empty points ``player`` must fill to
    join their two edges (``edge[player, i]`` bits 1 and 2), through their stones (``mine``
    or ``ally`` in ``s``: free; ``ally`` is Bricka's neutral pieces, which count for both
    players) and empty points (one each), never through the ``enemy``'s, from point
    to point by ``near`` (padded with -1); ``size + 1`` when they cannot. A 0-1
    breadth-first search: ``w[:size]`` holds the distances, ``w[size:size + ring]`` a ring of
    the points to visit (``ring`` a power of two; a ring full, never seen in practice, only
    cuts the search short: a larger estimate)."""
    far = size + 1
    mask = ring - 1
    for i in range(size):
        w[i] = far
    head = 0
    count = 0
    for i in range(size):
        if edge[player, i] & 1 and s[i] != enemy:
            w[i] = 0 if s[i] == mine or s[i] == ally else 1
            w[size + count] = i
            count += 1
    while count > 0:
        x = w[size + head]
        head = (head + 1) & mask
        count -= 1
        dx = w[x]
        for k in range(near.shape[1]):
            y = near[x, k]
            if y < 0:
                break
            v = s[y]
            if v == enemy:
                continue
            if count == ring:
                break
            if v == mine or v == ally:
                if dx < w[y]:
                    w[y] = dx
                    head = (head - 1) & mask
                    w[size + head] = y
                    count += 1
            elif dx + 1 < w[y]:
                w[y] = dx + 1
                w[size + ((head + count) & mask)] = y
                count += 1
    best = far
    for i in range(size):
        if edge[player, i] & 2 and w[i] < best:
            best = w[i]
    return int(best)


@inline
def chain_joins(
    near: Any, goal: Any, s: Any, w: Any, base: int, size: int, player: int, start: int
) -> bool:
    """Whether ``player``'s chain through ``start`` (their pieces, ``s[i] == player``, joined
    from point to point by ``near``, padded with -1) touches both of their edges
    (``goal[player, i]`` bits 1 and 2): a depth-first search, with a visit stamp per point
    in ``w[base:base + size]``, the stack after it and the stamp counter at
    ``w[base + 2 * size]`` (a new stamp per search, so nothing is cleared)."""
    w[base + 2 * size] += 1
    mark = w[base + 2 * size]
    w[base + start] = mark
    w[base + size] = start
    top = 1
    touched = 0
    while top > 0:
        top -= 1
        x = w[base + size + top]
        touched |= goal[player, x]
        if touched == 3:
            return True
        for k in range(near.shape[1]):
            y = near[x, k]
            if y < 0:
                break
            if s[y] == player and w[base + y] != mark:
                w[base + y] = mark
                w[base + size + top] = y
                top += 1
    return False


def squared_distances(distance: Callable[..., int]) -> Callable[..., tuple[int, int]]:
    """The solver's first numbers of a new node (:func:`r_init`) from a game's ``distance(t,
    s, w, player)`` to a win: the squares of the attacker's and the defender's (at least 1;
    docs/design/kernels.md, "The solver")."""

    def init(t: Any, s: Any, w: Any, attacker: int) -> tuple[int, int]:
        a = distance(t, s, w, attacker)
        b = distance(t, s, w, 1 - attacker)
        return max(1, a * a), max(1, b * b)

    return init


@inline
def uf_find(parent: Any, x: int) -> int:
    """The root of ``x`` in the union-find ``parent`` (a root is its own parent), halving
    the path on the way."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@inline
def copy_into(dst: Any, src: Any) -> None:
    """``dst[:] = src`` for two 1-d arrays of one length, as a plain loop: numba's slice
    assignment compiles the formatting of its shape-mismatch error message (about a second of
    compile time per function that uses it), and this loop is as fast (a memcpy)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@inline
def rand_next(rng: Any) -> int:
    """The next 63-bit value of the xorshift64* generator whose state is ``rng[0]``."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return int((x * np.uint64(2685821657736338717)) >> np.uint64(1))


@inline
def rand_below(rng: Any, k: int) -> int:
    """A value in [0, k) (0 < k < 2^31), by multiply-shift on the top 32 bits (no division:
    a 64-bit modulo costs more than the generator; the bias is below k / 2^32)."""
    return ((rand_next(rng) >> 31) * k) >> 32


@inline
def rand_unit(rng: Any) -> float:
    """A float in [0, 1)."""
    return (rand_next(rng) >> 10) / 9007199254740992.0


def new_rng(seed: int) -> np.ndarray[Any, np.dtype[np.uint64]]:
    """A generator state array from ``seed`` (any int; never the all-zero state)."""
    x = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) % (1 << 64)
    return np.array([x or 1], dtype=np.uint64)
