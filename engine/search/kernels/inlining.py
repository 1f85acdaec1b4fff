"""numba's IR inlining (``inline="always"``) without its quadratic copy and its repeated
front end.

To inline a helper, numba translates the helper's bytecode to IR again at each call site
(its untyped pipeline, which inlines the helpers the helper calls, and so on down), then
copies the helper's IR block by block, each block with a
``copy.deepcopy`` of its own (``numba.core.inline_closurecall.InlineWorker.inline_ir``, twice
per call site: a copy to change and one to keep). Every variable in a block refers to the
function's scope, which lists every variable of the function, so each block's copy copies the
whole scope again: the cost grows with the helper's blocks times its variables (numba issue
8989, open). The two took about a fifth of Trisq's cold compile (1.5-2.2 of 8-10 CPU s).

:func:`install` makes the blocks of one copy share one ``deepcopy`` memo, so that the scope
is copied once per copy (the copy is the same, made once), and keeps each helper's IR from
the untyped pipeline, for the same compiler settings, to inline it again at the next call site
(numba's inliner copies the IR it is given before it changes anything, so the kept IR stays as
it was made). It changes one name in numba's module (its ``copy``, through which the inliner
calls ``deepcopy``) and wraps two methods, and does nothing unless that module is as this was
written against; numba then inlines as it always has, only slower.

Imports numba: import it only through :mod:`engine.search.kernels.rt`.
"""

from __future__ import annotations

import copy
import functools
import threading
from typing import Any

from numba.core import inline_closurecall, ir


class _Copier:
    """Stands for the ``copy`` module in numba's inliner. While numba's ``inline_ir`` runs
    (:func:`install` wraps it in :meth:`begin` and :meth:`end`), the blocks of one function's
    IR (one scope) are deep-copied with one memo; a block of another scope starts another
    memo, as does a block copied before (a second copy of the same IR). Anything else is
    copied as ``copy`` would."""

    def __init__(self) -> None:
        self._local = threading.local()

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    def begin(self) -> Any:
        """Enter one inlining; return what :meth:`end` restores (inlinings may nest)."""
        outer = getattr(self._local, "state", None)
        self._local.state = [None, None]  # the scope being copied, its memo
        return outer

    def end(self, outer: Any) -> None:
        self._local.state = outer

    def deepcopy(self, x: Any, memo: Any = None) -> Any:
        state = getattr(self._local, "state", None)
        if state is None or memo is not None or not isinstance(x, ir.Block):
            return copy.deepcopy(x, memo)
        if state[0] is not x.scope or id(x) in state[1]:
            state[0], state[1] = x.scope, {}
        return copy.deepcopy(x, state[1])


_copier = _Copier()


def expected(module: Any = inline_closurecall) -> bool:
    """numba's inliner (``module``) is the one :func:`install` was written against: its
    ``InlineWorker`` has ``inline_ir``, which calls ``copy.deepcopy`` on the blocks of the IR
    it inlines through the module's name ``copy``, and ``inline_function``."""
    worker = getattr(module, "InlineWorker", None)
    inline_ir = getattr(worker, "inline_ir", None)
    code = getattr(inline_ir, "__code__", None)
    return (
        getattr(module, "copy", None) is copy
        and callable(getattr(worker, "inline_function", None))
        and code is not None
        and any(
            {"copy", "deepcopy"} <= set(getattr(c, "co_names", ())) for c in code.co_consts
        )
    )


#: (helper, compiler settings) -> the helper's IR from numba's untyped pipeline, as made.
_untyped: dict[tuple[Any, ...], Any] = {}


def _settings(worker: Any) -> tuple[Any, ...] | None:
    """What a helper's untyped IR depends on besides the helper: the contexts, the pipeline
    and the caller's flags; None (do not keep the IR) where the caller declares the types of
    its locals or a typed inlining is asked for."""
    if worker.locals or worker._permit_update_type_and_call_maps:
        return None
    flags = tuple(sorted((k, repr(v)) for k, v in worker.flags.values().items()))
    return id(worker.typingctx), id(worker.targetctx), worker.pipeline, flags


def install() -> bool:
    """Make numba's inliner copy each helper's IR with one memo per copy and translate each
    helper once (idempotent); False if numba's inliner is not as expected, and then nothing
    is changed."""
    worker: Any = inline_closurecall.InlineWorker
    if getattr(worker.inline_ir, "_one_memo", False):
        return True
    if not expected():
        return False
    plain_ir = worker.inline_ir

    @functools.wraps(plain_ir)
    def inline_ir(self: Any, *args: Any, **kwargs: Any) -> Any:
        outer = _copier.begin()
        try:
            return plain_ir(self, *args, **kwargs)
        finally:
            _copier.end(outer)

    plain_function = worker.inline_function

    @functools.wraps(plain_function)
    def inline_function(
        self: Any, caller_ir: Any, block: Any, i: int, function: Any, arg_typs: Any = None
    ) -> Any:
        settings = _settings(self) if arg_typs is None else None
        if settings is None:
            return plain_function(self, caller_ir, block, i, function, arg_typs)
        key = (function, *settings)
        callee_ir = _untyped.get(key)
        if callee_ir is None:
            callee_ir = _untyped[key] = self.run_untyped_passes(function)
        return self.inline_ir(caller_ir, block, i, callee_ir, function.__code__.co_freevars)

    setattr(inline_ir, "_one_memo", True)  # noqa: B010 (a mark on a function)
    setattr(inline_closurecall, "copy", _copier)  # noqa: B010 (not a name numba exports)
    worker.inline_ir = inline_ir
    worker.inline_function = inline_function
    return True
