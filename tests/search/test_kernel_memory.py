"""What the compiled kernels do with memory (docs/design/kernels.md, "One loop for every game"
and "Slices").

numba counts references to arrays with atomic instructions: each time a function takes an
array from a tuple (a game's tables, the tree) or passes one to an inlined helper. The kernels
allocate nothing and keep no array, so they are compiled without it; these tests check that
every kernel entry point is, and that those options leave no counting in a loop over a tuple
of arrays. And the arrays of a search's trees, which its threads write at once, share no
cache line.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")


def _llvm(options: dict[str, Any]) -> str:
    """The LLVM code of a kernel-like loop compiled with ``options``: arrays taken from a
    tuple, and an inlined helper given an array."""
    import numba

    from engine.search.kernels.rt import rand_below

    def sum_rows(tables: Any, n: int) -> int:
        total = 0
        for i in range(n):
            nbr = tables[0]
            total += nbr[i % nbr.shape[0]] + rand_below(tables[1], 7)
        return total

    fn = numba.njit(**options)(sum_rows)
    tables = (np.arange(5, dtype=np.int32), np.ones(1, dtype=np.uint64))
    fn(tables, 10)
    return "\n".join(fn.inspect_llvm().values())


def test_kernel_options_compile_no_reference_counting() -> None:
    from engine.search.kernels import rt

    # numba's default options count references in this loop (the test can see them)...
    assert "NRT_incref" in _llvm({"nogil": True})
    # ...and the kernels' options do not.
    assert "NRT_incref" not in _llvm(rt.OPTIONS)
    assert "NRT_decref" not in _llvm(rt.OPTIONS)


def test_the_search_kernels_and_the_rules_are_compiled_with_the_kernel_options() -> None:
    import numba

    from engine.search import kernels
    from engine.search.kernels import mcts, rt

    kernels.import_module("engine.search.kernels.brax")  # its call check: rt.typed
    entry_points = [
        value
        for value in vars(mcts).values()
        if isinstance(value, numba.core.registry.CPUDispatcher)
    ]
    names = {fn.py_func.__name__ for fn in entry_points}
    assert {"run", "playouts", "probe", "compact", "copy_into"} <= names
    for fn in entry_points:
        assert fn.targetoptions.get("_nrt") is False, fn.py_func.__name__
    brax = kernels.import_module("engine.search.kernels.brax")
    assert brax._call_ok.targetoptions.get("_nrt") is False
    # the game rules behind the stubs: compiled with the same options
    assert rt._OPTIONS["_nrt"] is False


def test_the_arrays_of_two_trees_share_no_cache_line() -> None:
    # The trees of a search on several threads are written at once: an array that shared a
    # cache line with another tree's (false sharing) cost both threads.
    from engine.games.registry import new_game
    from engine.search import kernels
    from engine.search.kernels import mcts

    for name in ("bricka", "brax"):
        searcher = kernels.load(name)
        game = new_game(name)
        trees = [mcts.Tree(searcher.codec, game, mcts.Settings(max_nodes=4096), seed)
                 for seed in range(3)]

        def arrays(tree: Any) -> list[Any]:
            return [tree.root, tree.rng, tree.params, *tree.tree, *tree.scratch]

        def lines(a: Any) -> range:
            return range(a.ctypes.data // 64, (a.ctypes.data + a.nbytes - 1) // 64 + 1)

        for tree in trees:
            for a in arrays(tree):
                # its own memory two cache lines beyond each end
                base = a.base
                assert base is not None and a.base.ndim == 1
                start = a.ctypes.data - base.ctypes.data
                assert start >= mcts.GUARD
                assert base.nbytes - start - a.nbytes >= mcts.GUARD
        for i, tree in enumerate(trees):
            mine = {line for a in arrays(tree) for line in lines(a)}
            for other in trees[i + 1:]:
                assert not mine & {line for a in arrays(other) for line in lines(a)}
