"""The rules side of the engine: one exact rules core per game behind the contract of
:mod:`engine.games.core`, their board data, the notations and position strings, and the
registry that finds a game by name. Nothing here imports :mod:`engine.search`."""
