"""The search side of the engine: players (:mod:`engine.search.players`, found by name in
:mod:`engine.search.registry`), the Python MCTS, the clock, the searcher interface
(:mod:`engine.search.base`) and the compiled kernels (:mod:`engine.search.kernels`). It
depends on :mod:`engine.games`, never the reverse."""
