"""Time controls as GTP describes them, and a simple allocation of thinking time per move.

``time_settings main byo_yomi_time byo_yomi_stones`` (GTP 2, section 6.3.3: Canadian byo-yomi,
``byo_yomi_time > 0`` with ``stones == 0`` meaning no time limit) and ``kgs-time_settings``
(none, absolute, byoyomi with periods, canadian). ``time_left`` updates a player's clock.

The allocation (docs/design/search.md): main time is shared over the expected remaining moves,
:func:`moves_left`, estimated from the length of a few random games from the current position
(a random game runs longer than a real one, so the estimate errs on the side of saving time);
the answer is never more than what is left less :func:`reserve`.
"""

from __future__ import annotations

import dataclasses
import random
import time
from typing import Any, Literal

from engine.games.core import Game

Kind = Literal["none", "absolute", "byoyomi", "canadian"]

#: Seconds kept in reserve for process and pipe latency.
SAFETY = 0.05
#: Fewest own moves the allocation assumes are left (so late moves keep some time).
MIN_MOVES_LEFT = 6
#: Random games played by :func:`moves_left`; the share of their length counted.
SAMPLE_GAMES = 2
LENGTH_FACTOR = 0.6
#: A sample game is cut after this many plies.
SAMPLE_PLIES = 400


#: Seconds of a per-move limit (``--time``) kept back for reading the command, formatting and
#: writing the answer, and the process being descheduled: at most this, and 10% of short limits.
MOVE_RESERVE = 0.02
#: Seconds kept back while a search kernel loads on another thread: loading from the numba cache
#: holds the GIL for up to ~35 ms at a time, compiling it (a cold cache) for up to ~120 ms, and
#: the search only sees the clock between those (scripts/bench_timing.py, cold runs).
LOADING_RESERVE = 0.15


def move_time(seconds: float) -> float:
    """The seconds a search may take under a per-move limit of ``seconds``, which a controller
    measures from sending ``genmove`` to reading the answer: less :data:`MOVE_RESERVE`."""
    return max(0.0, seconds - min(MOVE_RESERVE, 0.1 * seconds))


def loading_time(seconds: float) -> float:
    """The seconds a search may take while a kernel loads on another thread (which holds the
    GIL in long stretches): less :data:`LOADING_RESERVE`, and at least a quarter."""
    return max(0.25 * seconds, seconds - LOADING_RESERVE)


def estimate_seconds(seconds_left: float) -> float:
    """How long :func:`moves_left` may take with ``seconds_left`` on the clock: 20 ms, and 1%
    of a short clock (a Brax estimate always takes the full 20 ms; with a second left, that
    alone would eat the reserve)."""
    return max(0.0, min(0.02, 0.01 * seconds_left))


def reserve(seconds: float) -> float:
    """Seconds kept back from ``seconds`` left: :data:`SAFETY` plus 5% (at most 1 s), for
    start-up, move generation and one search iteration past the deadline."""
    return SAFETY + min(0.05 * seconds, 1.0)


def moves_left(game: Game[Any], samples: int = SAMPLE_GAMES, max_seconds: float = 0.02) -> int:
    """The number of moves the player to move is expected still to make: the mean length of
    ``samples`` random games from here (seeded by the move number: deterministic), divided
    by the number of players, times :data:`LENGTH_FACTOR`; at least :data:`MIN_MOVES_LEFT`.

    The estimate takes at most about ``max_seconds``: a sample game still running then counts
    as :data:`SAMPLE_PLIES` long (many moves left: the safe side, a smaller share)."""
    if game.is_over():
        return MIN_MOVES_LEFT
    deadline = time.perf_counter() + max_seconds
    rng = random.Random(len(game.history))
    total = 0
    for _ in range(samples):
        work = game.copy()
        plies = 0
        while work.outcome() is None:
            if plies >= SAMPLE_PLIES or time.perf_counter() > deadline:
                plies = SAMPLE_PLIES
                break
            work.play(work.random_move(rng))
            plies += 1
        total += plies
    own = total / samples / max(game.num_players, 1) * LENGTH_FACTOR
    return max(MIN_MOVES_LEFT, round(own))


@dataclasses.dataclass
class PlayerClock:
    """What ``time_left`` last said: seconds left, and stones left in the period (0 while in
    main time)."""

    seconds: float
    stones: int


@dataclasses.dataclass
class TimeControl:
    kind: Kind = "none"
    main: float = 0.0
    period: float = 0.0
    #: Canadian: stones per period. Japanese byo-yomi: number of periods.
    stones: int = 0

    def fresh_clock(self) -> PlayerClock:
        return PlayerClock(self.main, 0)

    def budget(self, clock: PlayerClock | None, moves_left: int = 30) -> float | None:
        """Seconds to spend on the next move, or ``None`` if there is no limit. Never more
        than what is left on the clock, less a safety margin."""
        share = self._share(clock, moves_left)
        if share is None:
            return None
        clock = clock or self.fresh_clock()
        if self.kind == "absolute" or (self.kind == "canadian" and clock.stones > 0):
            # everything left must last: never more than it, less the reserve
            return max(0.0, min(share, clock.seconds - reserve(clock.seconds)))
        if self.kind == "byoyomi" and clock.stones > 0:
            # in the periods (time_left gives the period's seconds and the periods left)
            return max(0.0, min(share, clock.seconds - reserve(clock.seconds)))
        if self.kind == "byoyomi":
            # a period is not lost while a move stays inside it
            return max(0.0, min(share, clock.seconds + self.period - reserve(self.period)))
        # canadian in main time: what is left plus the first period
        room = clock.seconds + self.period
        return max(0.0, min(share, room - reserve(room)))

    def _share(self, clock: PlayerClock | None, moves_left: int) -> float | None:
        if self.kind == "none":
            return None
        clock = clock or self.fresh_clock()
        moves_left = max(moves_left, 1)
        if self.kind == "absolute":
            return max(0.0, clock.seconds / moves_left - SAFETY)
        if self.kind == "byoyomi":
            if clock.stones > 0:
                return clock.seconds
            main_share = clock.seconds / moves_left if clock.seconds > 0 else 0.0
            return max(0.0, main_share + self.period - SAFETY * 4)
        # canadian: in main time, a share of main time plus a share of the first period;
        # in a period, the period's time over its remaining stones.
        if clock.stones > 0:
            return max(0.0, clock.seconds / clock.stones - SAFETY)
        share = clock.seconds / moves_left if clock.seconds > 0 else 0.0
        if self.stones > 0:
            share += self.period / self.stones / 2
        return max(0.0, min(share, clock.seconds + self.period / max(self.stones, 1)) - SAFETY)
