"""Time controls as GTP describes them, and a simple allocation of thinking time per move.

``time_settings main byo_yomi_time byo_yomi_stones`` (GTP 2, section 6.3.3: Canadian byo-yomi,
``byo_yomi_time > 0`` with ``stones == 0`` meaning no time limit) and ``kgs-time_settings``
(none, absolute, byoyomi with periods, canadian). ``time_left`` updates a player's clock.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

Kind = Literal["none", "absolute", "byoyomi", "canadian"]

#: Seconds kept in reserve for process and pipe latency.
SAFETY = 0.05


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
        if self.kind == "none":
            return None
        clock = clock or self.fresh_clock()
        moves_left = max(moves_left, 1)
        if self.kind == "absolute":
            return max(0.0, clock.seconds / moves_left - SAFETY)
        if self.kind == "byoyomi":
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
