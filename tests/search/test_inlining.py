"""Tests of engine.search.kernels.inlining: numba's IR inlining with one copy of a helper's
scope per copy, and each helper translated once.

The kernels' own tests (the array rules replayed beside the Python rules) check the compiled
rules through it; these check the parts: the copy, helpers inlined at several call sites and
into callers of other types, and that numba is left alone when it is not as expected.
"""

from __future__ import annotations

import copy
import types
from typing import Any, cast

import pytest

pytest.importorskip("numba")

import numba  # noqa: E402
from numba.core import inline_closurecall, ir  # noqa: E402
from numba.core.compiler import run_frontend  # noqa: E402

from engine.search.kernels import inlining, rt  # noqa: E402, F401 (rt installs it)


def _blocks(x: int) -> int:
    total = 0
    for i in range(x):
        if i % 3 == 0:
            total += i
        elif i % 3 == 1:
            total -= 1
        else:
            while total > 10:
                total //= 2
    return total


def _inner_py(a: Any, b: Any) -> Any:
    if a > b:
        return a - b
    s = 0
    i = a
    while i < b:
        s += i * i
        i += 1
    return s


_inner: Any = numba.njit(inline="always")(_inner_py)


def _outer_py(a: Any, b: Any) -> Any:
    return _inner(a, b) + _inner(b, a) * 2


_outer: Any = numba.njit(inline="always")(_outer_py)


def _caller_py(a: Any, b: Any) -> Any:
    return _outer(a, b) - _inner(a + 1, b) + _outer(b, a + 3)


def _float_caller_py(a: Any, b: Any) -> Any:
    return _outer(a, b) + _inner(a, b)


_caller: Any = numba.njit(_caller_py)
_float_caller: Any = numba.njit(_float_caller_py)


def test_numba_inlines_through_it_or_as_it_always_has() -> None:
    installed = inlining.install()
    swapped = cast(Any, getattr(inline_closurecall, "copy")) is inlining._copier  # noqa: B009
    marked = getattr(inline_closurecall.InlineWorker.inline_ir, "_one_memo", False)
    assert (swapped, marked) == (installed, installed)  # all of it or nothing
    # it was written against numba 0.68's inliner; a later numba may have changed it
    version = tuple(int(part) for part in numba.__version__.split(".")[:2])
    assert installed or version > (0, 68)


def test_helpers_inlined_at_several_call_sites_compute_as_python_does() -> None:
    # _inner is inlined five times into _caller (twice through each _outer, once itself),
    # from the IR kept the first time, each call site with its own arguments.
    # (In Python, the helpers called from the *_py functions are numba's dispatchers, which
    # run the compiled helper alone: the reference is the helpers' code, not inlined.)
    for a, b in [(0, 0), (2, 9), (9, 2), (5, 5), (-3, 4), (17, 30)]:
        assert _caller(a, b) == _caller_py(a, b)
    # the kept IR serves callers of other argument types too
    for x, y in [(1.5, 4.0), (6.0, 2.5)]:
        assert _float_caller(x, y) == pytest.approx(_float_caller_py(x, y))


def test_one_copy_shares_one_scope_and_copies_again_share_nothing() -> None:
    func_ir = cast(Any, run_frontend)(_blocks)
    blocks = list(func_ir.blocks.values())
    assert len(blocks) > 3
    outer = inlining._copier.begin()
    try:
        first = [inlining._copier.deepcopy(b) for b in blocks]
        again = [inlining._copier.deepcopy(b) for b in blocks]
    finally:
        inlining._copier.end(outer)
    for copies in (first, again):
        scopes = {id(s.target.scope) for b in copies for s in b.find_insts(ir.Assign)}
        scopes |= {id(b.scope) for b in copies}
        assert len(scopes) == 1  # one copy of the scope for all the blocks of one copy
        assert scopes.isdisjoint({id(b.scope) for b in blocks})
    assert {id(b) for b in first}.isdisjoint({id(b) for b in again})
    assert first[0].scope is not again[0].scope
    # each copy is the block it copies
    for original, made in zip(blocks, first, strict=True):
        assert [str(s) for s in made.body] == [str(s) for s in original.body]
        assert made.scope.localvars._con.keys() == original.scope.localvars._con.keys()


def test_outside_an_inlining_blocks_are_copied_as_copy_does() -> None:
    block = next(iter(cast(Any, run_frontend)(_blocks).blocks.values()))
    a, b = inlining._copier.deepcopy(block), inlining._copier.deepcopy(block)
    assert a.scope is not b.scope  # no memo kept between two plain copies
    assert inlining._copier.copy is copy.copy


def test_numba_is_left_alone_when_its_inliner_is_not_as_expected() -> None:
    class Worker:
        def inline_ir(self) -> None:
            return None

        def inline_function(self) -> None:
            return None

    assert not inlining.expected(types.SimpleNamespace(copy=copy, InlineWorker=Worker))
    assert not inlining.expected(types.SimpleNamespace(copy=object(), InlineWorker=Worker))
    assert not inlining.expected(types.SimpleNamespace(copy=copy))
