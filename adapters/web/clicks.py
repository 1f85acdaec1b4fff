"""Turning clicks on the board into moves, one game at a time.

The page sends the token of the place clicked (the ``data-target`` or ``data-piece`` of the
board picture: a point ``c3``, or a Trisq slot ``c3hne``). A :class:`Clicks` keeps the clicks
of the turn so far (``pending``) and says, after each click, whether they make a whole move
(to be sent to the engine, which alone decides whether it is legal), need more clicks, or
cannot begin any legal move. Partial clicks are judged with the rules core, on the game the
server keeps beside the engine: Brax from its list of turns (short), Trisq slot by slot with
the core's own ``illegal_reason`` (its list of turns is huge on big boards).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.games.core import Game, GameError
from engine.games.notation import Notation
from engine.games.trisq import Trisq
from engine.games.trisq_geometry import slot_index, slot_parts

NOTATION: Notation = "gtp"


@dataclass
class Step:
    """What a click did: ``move`` to send to the engine, or new ``pending`` clicks (with a
    ``hint`` for the player), or an ``error`` (pending unchanged)."""

    move: str | None = None
    pending: list[str] = field(default_factory=list)
    hint: str = ""
    error: str | None = None


class Clicks:
    """The click rules of one game; subclasses for the games whose turns take several."""

    #: Whether a turn can need a confirmation (Trisq's single piece, a Brax path that
    #: could go on).
    def __init__(self, game: Game[Any]) -> None:
        self.game = game

    def specials(self) -> list[str]:
        """The moves played by a button, not a click on the board (``swap``, ``pass``)."""
        tokens = [self.game.format_move(m, NOTATION) for m in self.game.listed_moves()]
        return [t for t in tokens if t in ("swap", "pass")]

    def click(self, pending: list[str], token: str) -> Step:
        return Step(move=token)

    def confirm(self, pending: list[str]) -> Step:
        return Step(error="nothing to confirm: click on the board")

    def targets(self, pending: list[str]) -> list[str]:
        """The places whose click can go on with a legal move (highlighted on request)."""
        tokens = [self.game.format_move(m, NOTATION) for m in self.game.listed_moves()]
        return [t for t in tokens if t not in ("swap", "pass")]


class BraxClicks(Clicks):
    """A piece, then the points of its path one by one (or straight to the end when only one
    path leads there); the team game's second path follows the first. A path that could
    also go on is played by ``confirm``."""

    def _turns(self) -> list[list[str]]:
        turns = []
        for move in self.game.listed_moves():
            text = self.game.format_move(move, NOTATION)
            if text != "pass":
                turns.append(text.replace("+", "-").split("-"))
        return turns

    def _token(self, points: list[str]) -> str:
        for move in self.game.listed_moves():
            text = self.game.format_move(move, NOTATION)
            if text.replace("+", "-").split("-") == points:
                return text
        return "-".join(points)

    def click(self, pending: list[str], token: str) -> Step:
        if pending and token == pending[-1]:
            return Step(pending=pending[:-1], hint="click taken back")
        clicks = pending + [token]
        turns = self._turns()
        exact = [t for t in turns if t == clicks]
        longer = [t for t in turns if len(t) > len(clicks) and t[: len(clicks)] == clicks]
        if exact and not longer:
            return Step(move=self._token(clicks))
        if longer:
            hint = "click the next point" + (", or confirm to stop here" if exact else "")
            return Step(pending=clicks, hint=hint)
        if not pending:
            return Step(error=f"{token}: no piece of the player to move can move from there")
        ends = [t for t in turns if t[: len(pending)] == pending and t[-1] == token]
        if len(ends) == 1:
            return Step(move=self._token(ends[0]))
        if len(ends) > 1:
            return Step(pending=pending,
                        error=f"two paths reach {token}: click the point passed through first")
        # no legal turn: the engine says why
        return Step(move="-".join(clicks))

    def confirm(self, pending: list[str]) -> Step:
        if pending in self._turns():
            return Step(move=self._token(pending))
        return Step(error="the clicks so far are not a whole move: click on")

    def targets(self, pending: list[str]) -> list[str]:
        depth = len(pending)
        return sorted({t[depth] for t in self._turns()
                       if len(t) > depth and t[:depth] == pending})


class TrisqClicks(Clicks):
    """A slot (square, orientation, corner: ``c3hne``), then a second slot, or confirm to
    end the turn with one piece; Red's first turn is the one slot. Clicking the chosen slot
    again takes it back."""

    game: Trisq

    def specials(self) -> list[str]:
        return []

    def _slot(self, token: str) -> int:
        move = self.game.parse_move(token, NOTATION)
        if len(move) != 1:
            raise GameError(f"{token!r} is not one slot")
        return move[0]

    def _legal(self, slots: tuple[int, ...]) -> bool:
        return self.game.illegal_reason(tuple(sorted(slots))) is None

    def _partners(self, slot: int) -> list[int]:
        """The slots that could be placed with ``slot`` to bridge it: they touch it by an
        edge, so they lie in its square or the eight around it."""
        n = self.game.n
        f, r, _, _ = slot_parts(slot, n)
        return [slot_index(g, s, o, c, n)
                for g in range(max(f - 1, 0), min(f + 2, n))
                for s in range(max(r - 1, 0), min(r + 2, n))
                for o in (0, 1) for c in range(4)
                if slot_index(g, s, o, c, n) != slot]

    def _opens(self, slot: int) -> bool:
        """Whether ``slot`` can be the first piece of a legal turn."""
        if self._legal((slot,)):
            return True
        return bool(self.game.history) and any(
            self._legal((slot, q)) for q in self._partners(slot))

    def click(self, pending: list[str], token: str) -> Step:
        try:
            slot = self._slot(token)
        except GameError as error:
            return Step(pending=pending, error=str(error))
        if not pending:
            if not self.game.history or not self._opens(slot):
                return Step(move=token)  # the engine plays it or says why not
            if not any(self._legal((slot, q)) for q in self._partners(slot)):
                return Step(move=token)  # alone is the only way
            return Step(pending=[token],
                        hint="click a second piece, or confirm to place only this one")
        if token == pending[0]:
            return Step(pending=[], hint="piece taken back")
        return Step(move=f"{pending[0]}+{token}")

    def confirm(self, pending: list[str]) -> Step:
        if not pending:
            return Step(error="nothing to confirm: click a piece's place first")
        return Step(move=pending[0])

    def targets(self, pending: list[str]) -> list[str]:
        game, n = self.game, self.game.n
        if game.is_over():
            return []
        if pending:
            first = self._slot(pending[0])
            slots = [q for q in range(8 * n * n) if q != first and self._legal((first, q))]
        else:
            slots = [s for s in range(8 * n * n) if self._opens(s)]
        return [game.format_slot(s, NOTATION) for s in slots]


CLICKS: dict[str, type[Clicks]] = {"brax": BraxClicks, "trisq": TrisqClicks}


def clicks_for(game: Game[Any]) -> Clicks:
    return CLICKS.get(game.name, Clicks)(game)
