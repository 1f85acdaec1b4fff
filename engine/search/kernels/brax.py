"""Brax (two players) as arrays for the compiled search: the rules of :mod:`engine.games.brax`
(docs/rules/brax.md, rulings X1-X15) restated on an int64 state array, and the
:class:`~engine.search.kernels.mcts.Codec` that maps a two-player :class:`engine.games.brax.Brax`
game to
and from them. The team variants and the hunt keep the Python search (``supports``).
Imports numba: reach it only through :mod:`engine.search.kernels`.

State (int64): the 81 points (0 empty, 1 Red, 2 Blue; point ``r * 9 + f``), then
``TO_MOVE`` (0 Red, 1 Blue), ``RESULT`` (-1 none, 0/1 the winner, 2 a draw), the forced set
of the player to move as a bit mask over the points (``FORCED_LO``: points 0-62,
``FORCED_HI``: 63-80; X8-X11), ``CALLED`` + side (1 if that side called on its last turn:
X10's wait), ``PREV`` (the point the opponent's last move ended on, -1 at the start: the
piece of call (b), X9; whether it was threatened right after that move is read off the
board when a call is tried, since nothing has moved since), ``QUIET`` (plies without
capture: X14's 100 plies and also X13's one-against-one count, as in the rules core, where
one piece each can only follow a capture or a composed position), ``COUNT`` + side (pieces
per side), ``KEY`` (the Zobrist key of the position: pieces and side to move), ``NKEYS`` and
the keys of the positions since the last capture, the current one included (X14's third
repetition; a capture makes every earlier position unreachable, so the list restarts; with
the ``repetition`` option off no keys are kept). The rules core keys positions exactly; a
false repetition here needs two positions between two captures to collide in 63 bits.

Move codes: ``(point * 16 + path) * 2 + call``: ``path`` 0-3 one step north, east, south or
west; 4 + 3 d + j two steps, first in direction d, then straight on (j = 0), turning right
(1) or left (2); ``call`` 1 for a move with "Brax!". 2592 codes; a turn whose call is
allowed has both codes legal, as :meth:`engine.games.brax.Brax.legal_moves` lists it twice.

Playout: each turn picks one of the mover's legal paths (the forced pieces' paths if one can
move, X11), at knowledge 0 uniformly, at knowledge 1 by the capture-first policy of
:func:`engine.games.brax.capture_choice` (its rate and sample count are passed in the tables);
then, at knowledge 1 and 2, as :meth:`engine.games.brax.Brax.random_playout` does, a call is tried
with probability 1/2 when the mover did not call on its last turn, and made if it is allowed
(uniform playouts never call, as the C reference plays them). With ``nocapture``
on a game cannot outlast 1400 plies; with it off a playout stops unfinished after
:data:`MAX_PLIES` plies (scored as a draw, its state keeps no result). Knowledge 2 plays
capture-first turns for :data:`CUTOFF` plies at most and scores a playout still running by
material (the usual remedy for MCTS in capture games, whose random games are long and
decided late): after q plies without capture it is a draw with probability q / 100 (with the
100-ply rule on: a lead is worth less as that draw draws near, so the search hurries to
capture), else each side wins with probability its share of the pieces on the board.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

import numba
import numpy as np

from engine.games.brax import CAPTURE_RATE, SAMPLES, Brax, BraxMove
from engine.games.core import Game
from engine.search.kernels.mcts import Codec
from engine.search.kernels.rt import (
    finish,
    inline,
    once,
    r_play,
    rand_below,
    rand_unit,
    register,
    sum_key,
    typed,
)

I64 = np.int64
N = 9
POINTS = N * N
#: Paths per point: 4 one-step directions, then 4 x 3 two-step paths.
PATHS = 16
CODES = POINTS * PATHS * 2
#: The most pieces a side has (a game set up with more keeps the Python search: ``supports``).
PIECES = 7
#: The most legal codes: 7 pieces, 16 paths, with and without the call.
MOST = PIECES * PATHS * 2
#: Direction steps (north, east, south, west) as (df, dr).
DIRECTIONS = ((0, 1), (1, 0), (0, -1), (-1, 0))
#: Second direction of two-step path j (0 straight, 1 right, 2 left) after direction d.
TURNS = (0, 1, 3)
#: A playout stops unfinished after this many plies (reached only with ``nocapture`` off).
MAX_PLIES = 1500
#: Knowledge 2: plies of a capture-first playout before it is scored by material.
CUTOFF = 24
# Offsets of the scalars after the points.
(TO_MOVE, RESULT, FORCED_LO, FORCED_HI, CALLED, _CALLED_BLUE, PREV, QUIET, COUNT, _COUNT_BLUE,
 KEY, NKEYS) = range(POINTS, POINTS + 12)
KEYS = POINTS + 12
#: Work array (int32): the playout's paths, their captures and the picks, then each side's
#: pieces (:data:`PIECES` entries a side, in increasing point order).
WORK = 3 * PIECES * PATHS + 2 * PIECES


class BraxTables(NamedTuple):
    """The board's fixed arrays and the options."""

    repetition: int
    nocapture: int
    capture_rate: float
    samples: int
    #: a playout stops unfinished after this many plies (:data:`MAX_PLIES`)
    max_plies: int
    #: at knowledge 2 a playout stops after this many plies and is scored by material
    #: (:data:`CUTOFF`)
    cutoff: int
    #: step[p, d]: the neighbour of p in direction d, -1 off the board
    step: np.ndarray[Any, np.dtype[np.int64]]
    #: mid[p, k], end[p, k]: the middle point (-1 for a one-step path) and the end point
    #: (-1: the path leaves the board) of path k from p
    mid: np.ndarray[Any, np.dtype[np.int64]]
    end: np.ndarray[Any, np.dtype[np.int64]]
    #: pcol[p, k]: for a two-step path the colour of both lines (-1: two colours or off the
    #: board); -2 for the one-step paths (any colour)
    pcol: np.ndarray[Any, np.dtype[np.int64]]
    #: two[a, p, j] = (k, mid, end): the two-step paths k from p along lines of side a's
    #: colour, in increasing k, -1 padded (the paths a piece of side a may take in two steps)
    two: np.ndarray[Any, np.dtype[np.int64]]
    #: att_end[a, t, j] = (q, m): a piece of side a on q reaches t in two steps through m
    att_end: np.ndarray[Any, np.dtype[np.int64]]
    #: att_mid[a, t, j] = (q, e): a piece of side a on q passes t on the way to e
    att_mid: np.ndarray[Any, np.dtype[np.int64]]
    #: zob[code, p]: the key of a piece (code 1 Red, 2 Blue); zob[0, 0]: Blue to move
    zob: np.ndarray[Any, np.dtype[np.int64]]


_TABLES: dict[tuple[bool, bool], BraxTables] = {}


def tables_for(repetition: bool, nocapture: bool) -> BraxTables:
    key = (repetition, nocapture)
    if key not in _TABLES:
        from engine.games.brax_board import COLOUR, TWO_STEPS, index

        step = np.full((POINTS, 4), -1, dtype=I64)
        for p in range(POINTS):
            f, r = p % N, p // N
            for d, (df, dr) in enumerate(DIRECTIONS):
                if 0 <= f + df < N and 0 <= r + dr < N:
                    step[p, d] = index(f + df, r + dr)
        mid = np.full((POINTS, PATHS), -1, dtype=I64)
        end = np.full((POINTS, PATHS), -1, dtype=I64)
        pcol = np.full((POINTS, PATHS), -1, dtype=I64)
        for p in range(POINTS):
            for d in range(4):
                q = int(step[p, d])
                end[p, d] = q
                pcol[p, d] = -2
                for j, turn in enumerate(TURNS):
                    k = 4 + 3 * d + j
                    if q < 0:
                        continue
                    e = int(step[q, (d + turn) % 4])
                    if e < 0:
                        continue
                    mid[p, k] = q
                    end[p, k] = e
                    if COLOUR[p][q] == COLOUR[q][e]:
                        pcol[p, k] = COLOUR[p][q]
        rows = [
            [[(k, mid[p, k], end[p, k]) for k in range(4, PATHS) if pcol[p, k] == a]
             for p in range(POINTS)]
            for a in range(2)
        ]
        two = np.full((2, POINTS, max(len(row) for side in rows for row in side), 3), -1,
                      dtype=I64)
        for a, side in enumerate(rows):
            for p, row in enumerate(side):
                for j, entry in enumerate(row):
                    two[a, p, j] = entry
        ends: list[list[list[tuple[int, int]]]] = [[[] for _ in range(POINTS)] for _ in range(2)]
        mids: list[list[list[tuple[int, int]]]] = [[[] for _ in range(POINTS)] for _ in range(2)]
        for a in range(2):
            for q in range(POINTS):
                for m, e in TWO_STEPS[a][q]:
                    ends[a][e].append((q, m))
                    mids[a][m].append((q, e))

        def padded(rows: list[list[list[tuple[int, int]]]]) -> np.ndarray[Any, Any]:
            width = max(len(row) for side in rows for row in side)
            table = np.full((2, POINTS, width, 2), -1, dtype=I64)
            for a, side in enumerate(rows):
                for p, row in enumerate(side):
                    for j, pair in enumerate(row):
                        table[a, p, j] = pair
            return table

        rng = random.Random(18890604)
        zob = np.array(
            [[rng.getrandbits(63) for _ in range(POINTS)] for _ in range(3)], dtype=I64
        )
        _TABLES[key] = BraxTables(
            int(repetition), int(nocapture), CAPTURE_RATE, SAMPLES, MAX_PLIES, CUTOFF,
            step, mid, end, pcol, two, padded(ends), padded(mids), zob,
        )
    return _TABLES[key]


# ----------------------------------------------------------------------------- helpers


# _call_ok, called from the legal moves and the playout, is compiled once for these types
# (rt.typed), not into both. The threat helpers and the path lists stay inlined: compiled
# apart they cost the capture-first playouts a quarter of their speed.
_T = numba.typeof(tables_for(False, False))  # type: ignore[no-untyped-call]
_S = numba.int64[::1]
_I = numba.int64
_PAIR = numba.types.UniTuple(_I, 2)  # type: ignore[no-untyped-call]


@inline
def _forced_at(s: Any, p: int) -> bool:
    if p < 63:
        return bool((s[FORCED_LO] >> p) & 1)
    return bool((s[FORCED_HI] >> (p - 63)) & 1)


@inline
def _paths(t: Any, s: Any, p: int, me: int, out: Any, caps: Any, n: int) -> int:
    """Append the plain codes of the legal paths (X4, X5) of ``me``'s piece on ``p`` to
    ``out`` from index ``n`` (with the number of pieces each captures in ``caps``, when it is
    not empty); return the new count."""
    mine = me + 1
    enemy = 2 - me
    base = p * 2 * PATHS
    track = caps.shape[0] > 0
    for k in range(4):
        e = t.step[p, k]
        if e >= 0 and s[e] != mine:
            out[n] = base + 2 * k
            if track:
                caps[n] = 1 if s[e] == enemy else 0
            n += 1
    for j in range(t.two.shape[2]):
        k = t.two[me, p, j, 0]
        if k < 0:
            break
        x = s[t.two[me, p, j, 1]]
        y = s[t.two[me, p, j, 2]]
        if x == 0:
            if y != mine:
                out[n] = base + 2 * k
                if track:
                    caps[n] = 1 if y == enemy else 0
                n += 1
        elif x == enemy and y == enemy:
            out[n] = base + 2 * k
            if track:
                caps[n] = 2
            n += 1
    return n


@inline
def _plain(t: Any, s: Any, out: Any, caps: Any) -> int:
    """The plain codes of the legal paths of the player to move (X11: the forced pieces'
    paths if one of them can move, else every piece's); return how many."""
    me = s[TO_MOVE]
    mine = me + 1
    restrict = s[FORCED_LO] != 0 or s[FORCED_HI] != 0
    n = 0
    while True:  # one call site of _paths: each is compiled again
        for p in range(POINTS):
            if s[p] == mine and (not restrict or _forced_at(s, p)):
                n = _paths(t, s, p, me, out, caps, n)
        if n > 0 or not restrict:
            return n
        restrict = False


@inline
def _listed(t: Any, s: Any, pieces: Any, count: int, out: Any, caps: Any) -> int:
    """:func:`_plain` over the mover's pieces as listed in ``pieces`` (``count`` of them, in
    increasing point order: the same codes in the same order, without scanning the board)."""
    me = s[TO_MOVE]
    restrict = s[FORCED_LO] != 0 or s[FORCED_HI] != 0
    n = 0
    while True:  # the forced pieces' paths, else (none can move) every piece's: X11
        for i in range(count):
            p = pieces[i]
            if not restrict or _forced_at(s, p):
                n = _paths(t, s, p, me, out, caps, n)
        if n > 0 or not restrict:
            return n
        restrict = False


@inline
def _moved(pieces: Any, count: int, p: int, e: int) -> None:
    """The listed piece on ``p`` moved to ``e``: the list stays in increasing point order."""
    i = 0
    while pieces[i] != p:
        i += 1
    while i > 0 and pieces[i - 1] > e:
        pieces[i] = pieces[i - 1]
        i -= 1
    while i + 1 < count and pieces[i + 1] < e:
        pieces[i] = pieces[i + 1]
        i += 1
    pieces[i] = e


@inline
def _taken(pieces: Any, count: int, p: int) -> None:
    """The listed piece on ``p`` was captured: the later ones move down one place."""
    i = 0
    while pieces[i] != p:
        i += 1
    for j in range(i, count - 1):
        pieces[j] = pieces[j + 1]


@inline
def _threatened(t: Any, s: Any, target: int, a: int) -> bool:
    """Whether a piece of side ``a`` threatens the enemy piece on ``target`` (X7)."""
    code = a + 1
    other = 2 - a
    for k in range(4):
        q = t.step[target, k]
        if q >= 0 and s[q] == code:
            return True
    for j in range(t.att_end.shape[2]):
        q = t.att_end[a, target, j, 0]
        if q < 0:
            break
        if s[q] == code:
            x = s[t.att_end[a, target, j, 1]]
            if x == 0 or x == other:
                return True
    for j in range(t.att_mid.shape[2]):
        q = t.att_mid[a, target, j, 0]
        if q < 0:
            break
        if s[q] == code and s[t.att_mid[a, target, j, 1]] == other:
            return True
    return False


@inline
def _victims(t: Any, s: Any, p: int, me: int, first: bool) -> tuple[int, int]:
    """The enemy pieces ``me``'s piece on ``p`` threatens (X7) as a (low, high) bit mask;
    with ``first``, stop at the first one."""
    enemy = 2 - me
    lo = 0
    hi = 0
    for k in range(PATHS):
        c = t.pcol[p, k]
        if c == -2:
            e = t.step[p, k]
            if e < 0 or s[e] != enemy:
                continue
            q = -1
        elif c == me:
            e = t.end[p, k]
            if s[e] != enemy:
                continue
            x = s[t.mid[p, k]]
            if x == 0:
                q = -1
            elif x == enemy:
                q = t.mid[p, k]
            else:
                continue
        else:
            continue
        if e < 63:
            lo |= 1 << e
        else:
            hi |= 1 << (e - 63)
        if q >= 0:
            if q < 63:
                lo |= 1 << q
            else:
                hi |= 1 << (q - 63)
        if first:
            break
    return lo, hi


#: :func:`_threatened` and :func:`_victims` compiled once each, for the rules (the move, the
#: legal moves, the calls); the playout's landing check has them inlined, where they are hot
#: (compiled once there too, the search lost 16% of its iterations per second).
_threatened_once = once(_threatened, numba.boolean, _T, _S, _I, _I)
_victims_once = once(_victims, _PAIR, _T, _S, _I, _I, numba.boolean)


@inline
def _pre_call(t: Any, s: Any, me: int) -> int:
    """Call (b)'s candidate before ``me`` moves: the point the opponent's last move ended on
    if ``me`` threatens that piece now, else -1 (X9)."""
    prev = s[PREV]
    if prev >= 0 and s[prev] == 2 - me and _threatened_once(t, s, prev, me):
        return int(prev)
    return -1


@inline
def _path(t: Any, code: int) -> tuple[int, int, int]:
    """The points of move ``code``: (start, the middle point or -1, end); bit 0 (the call) is
    ignored."""
    p = code >> 1
    k = p % PATHS
    p //= PATHS
    return p, t.mid[p, k], t.end[p, k]


@typed(numba.boolean, _T, _S, _I, _I)
def _call_ok(t: Any, s: Any, code: int, pre: int) -> bool:
    """Whether the plain move ``code`` of the player to move may carry a call (X8-X10; the
    mover's own wait is checked by the caller): played on ``s`` and taken back."""
    me = s[TO_MOVE]
    mine = me + 1
    enemy = 2 - me
    p, m, e = _path(t, code)
    saved_m = s[m] if m >= 0 else 0
    saved_e = s[e]
    taken = 0
    if saved_m != 0:
        taken += 1
    if saved_e != 0:
        taken += 1
    theirs = s[COUNT + 1 - me] - taken
    ours = s[COUNT + me]
    if theirs == 0:
        return False  # the move wins: a call is ignored, no call variant (X12)
    if min(theirs, ours) == 1 and max(theirs, ours) <= 2:
        return False  # rule 7
    s[p] = 0
    if m >= 0:
        s[m] = 0
    s[e] = mine
    lo, hi = _victims_once(t, s, e, me, True)
    ok = lo != 0 or hi != 0
    if not ok and pre >= 0 and s[pre] == enemy:
        ok = _threatened_once(t, s, pre, me)
    s[e] = saved_e
    if m >= 0:
        s[m] = saved_m
    s[p] = mine
    return ok


# ------------------------------------------------------------------------------ rules


def _legal(t: Any, s: Any, out: Any) -> int:
    if s[RESULT] >= 0:
        return 0
    n = _plain(t, s, out, out[:0])
    me = s[TO_MOVE]
    if s[CALLED + me] != 0:
        return n
    pre = _pre_call(t, s, me)
    total = n
    for j in range(n):
        if _call_ok(t, s, out[j], pre):
            out[total] = out[j] + 1
            total += 1
    return total


def _winner(t: Any, s: Any) -> int:
    return int(s[RESULT])


def _to_move(t: Any, s: Any) -> int:
    return int(s[TO_MOVE])


def _play(t: Any, s: Any, w: Any, move: int) -> None:
    me = s[TO_MOVE]
    mine = me + 1
    enemy = 2 - me
    call = move & 1
    p, m, e = _path(t, move)
    pre = _pre_call(t, s, me) if call else -1
    key = s[KEY] ^ t.zob[mine, p] ^ t.zob[mine, e]
    s[p] = 0
    taken = 0
    if m >= 0 and s[m] != 0:
        key ^= t.zob[enemy, m]
        s[m] = 0
        taken += 1
    if s[e] != 0:
        key ^= t.zob[enemy, e]
        taken += 1
    s[e] = mine
    theirs = s[COUNT + 1 - me] - taken
    s[COUNT + 1 - me] = theirs
    won = theirs == 0
    # After the last capture the rules core leaves the winner to move (a side without
    # pieces is skipped), with no previous move for call (b).
    if not won:
        key ^= t.zob[0, 0]
        s[TO_MOVE] = 1 - me
    s[KEY] = key
    lo = 0
    hi = 0
    if call == 1 and not won:
        lo, hi = _victims_once(t, s, e, me, False)
        if pre >= 0 and s[pre] == enemy and _threatened_once(t, s, pre, me):
            if pre < 63:
                lo |= 1 << pre
            else:
                hi |= 1 << (pre - 63)
    s[FORCED_LO] = lo
    s[FORCED_HI] = hi
    s[CALLED + me] = 1 if call == 1 and not won else 0
    s[PREV] = -1 if won else e
    quiet = 0 if taken else s[QUIET] + 1
    s[QUIET] = quiet
    seen = 0
    if t.repetition:
        nkeys = s[NKEYS]
        if taken:
            nkeys = 0
        else:
            for j in range(nkeys):
                if s[KEYS + j] == key:
                    seen += 1
        if KEYS + nkeys < s.shape[0]:
            s[KEYS + nkeys] = key
            s[NKEYS] = nkeys + 1
        elif not won:
            s[RESULT] = 2  # out of key room: never reached within the playout bound
            return
    # docs/rules/brax.md#checklist: the win, then the draws in order. A player with a piece
    # always has a move in the two-player game (X12), so there is no stalemate to look for.
    if won:
        s[RESULT] = me
    elif s[COUNT] == 1 and s[COUNT + 1] == 1 and quiet >= 10:
        s[RESULT] = 2
    elif seen >= 2:
        s[RESULT] = 2
    elif t.nocapture and quiet >= 100:
        s[RESULT] = 2


@inline
def _landing(t: Any, s: Any, code: int, me: int) -> int:
    """Capture-first sampling's rank of the plain move ``code``: 0 if the moved piece can be
    captured where it lands, else 2 if it threatens an enemy piece there, else 1."""
    mine = me + 1
    p, m, e = _path(t, code)
    saved_m = s[m] if m >= 0 else 0
    saved_e = s[e]
    s[p] = 0
    if m >= 0:
        s[m] = 0
    s[e] = mine
    if _threatened(t, s, e, 1 - me):
        rank = 0
    else:
        lo, hi = _victims(t, s, e, me, True)
        rank = 2 if lo != 0 or hi != 0 else 1
    s[e] = saved_e
    if m >= 0:
        s[m] = saved_m
    s[p] = mine
    return rank


def _playout_for(knowledge: int) -> Callable[..., int]:
    """The playout below with ``knowledge`` a constant of its compiled code (numba leaves
    out the other levels' branches; :func:`engine.search.kernels.rt.knowledge_level`)."""

    def _playout(t: Any, s: Any, w: Any, rng: Any, rec: Any, level: Any) -> int:
        """Random turns until the game ends or :data:`MAX_PLIES` plies: at ``knowledge`` 0 a
        path drawn uniformly among the legal ones, never a call (as the C reference plays); at
        knowledge 1 and 2 captures first, each turn with a call tried half the time. At knowledge 2
        a playout still running after ``t.cutoff`` plies is scored by material: a draw with
        probability q / 100 after q plies without capture (X14's 100-ply draw draws near), else
        each side wins with probability its share of the pieces on the board: every piece
        counts, so a side far ahead still gains by the next capture and loses by the next loss
        (a logistic of the lead saturates there), and a level position still to be fought is a
        coin toss, worth more than a dead draw to a search with contempt."""
        width = PIECES * PATHS
        out = w[0:width]
        caps = w[width: 2 * width]
        picks = w[2 * width: 3 * width]
        # Each side's pieces, in increasing point order (side a's from PIECES * a), so that a turn
        # lists its paths from the pieces and not from a scan of the board.
        pieces = w[3 * width: 3 * width + 2 * PIECES]
        red = 0
        blue = PIECES
        for p in range(POINTS):
            if s[p] == 1:
                pieces[red] = p
                red += 1
            elif s[p] == 2:
                pieces[blue] = p
                blue += 1
        count = 0
        bound = t.max_plies if knowledge < 2 else min(t.max_plies, t.cutoff)
        while s[RESULT] < 0 and count < bound:
            me = s[TO_MOVE]
            mine = pieces[PIECES * me: PIECES * me + PIECES]
            n = _listed(t, s, mine, s[COUNT + me], out, caps)
            if n == 0:  # X12 (cannot happen with two players: see _play)
                s[RESULT] = 1 - me
                break
            j = -1
            if knowledge > 0:
                best = 0
                npicks = 0
                for i in range(n):
                    c = caps[i]
                    if c > best:
                        best = c
                        npicks = 0
                    if c > 0 and c == best:
                        picks[npicks] = i
                        npicks += 1
                if npicks > 0 and rand_unit(rng) < t.capture_rate:
                    j = picks[rand_below(rng, npicks)]
                else:
                    j = 0
                    rank = -1
                    for _ in range(t.samples):
                        i = rand_below(rng, n)
                        score = _landing(t, s, out[i], me)
                        if score > rank:
                            j = i
                            rank = score
                            if score == 2:
                                break
            else:
                j = rand_below(rng, n)
            move = out[j]
            # Uniform playouts (knowledge 0) never call, as the C reference plays them.
            if knowledge > 0 and s[CALLED + me] == 0 and rand_unit(rng) < 0.5:
                if _call_ok(t, s, move, _pre_call(t, s, me)):
                    move += 1
            rec[1 + 2 * count] = move
            rec[2 + 2 * count] = me
            count += 1
            p, m, e = _path(t, move)
            theirs = pieces[PIECES * (1 - me): PIECES * (1 - me) + PIECES]
            left = s[COUNT + 1 - me]  # _play counts the pieces taken
            if m >= 0 and s[m] != 0:
                _taken(theirs, left, m)
                left -= 1
            if s[e] != 0:
                _taken(theirs, left, e)
            _moved(mine, s[COUNT + me], p, e)
            r_play(t, s, w, move)
        rec[0] = count
        result = s[RESULT]
        if result >= 0:
            return int(result)
        if knowledge >= 2:
            if t.nocapture and rand_unit(rng) * 100.0 < s[QUIET]:
                return 2
            red_share = s[COUNT] / (s[COUNT] + s[COUNT + 1])
            return 0 if rand_unit(rng) < red_share else 1
        return 2

    return _playout


def _key(t: Any, s: Any) -> Any:
    """The solver's key of a state: the points and the scalars, and the positions since the
    last capture as a multiset (their order does not matter to X14; what lies past
    ``NKEYS`` is left over from before a capture, or the solver's padding)."""
    h = sum_key(s, KEYS)
    entries = np.uint64(0)
    for j in range(s[NKEYS]):
        entries += finish(np.uint64(s[KEYS + j]))
    return h ^ entries


register(
    BraxTables,
    legal=_legal,
    play=_play,
    winner=_winner,
    to_move=_to_move,
    playout=_playout_for,
    key=_key,
)


# ------------------------------------------------------------------------------ codec

#: The Zobrist key of a rules-core position key (board bytes + side to move), memoized:
#: a game's successive states share most of their repetition tables.
_KEYS: dict[bytes, int] = {}


def _zobrist(t: BraxTables, position: bytes) -> int:
    key = _KEYS.get(position)
    if key is None:
        key = int(t.zob[0, 0]) if position[POINTS] == 1 else 0
        for p in range(POINTS):
            x = position[p]
            if x:
                key ^= int(t.zob[x, p])
        if len(_KEYS) > 1 << 16:
            _KEYS.clear()
        _KEYS[position] = key
    return key


class BraxCodec(Codec):
    """Maps two-player :class:`engine.games.brax.Brax` games to the arrays above."""

    #: Material playouts and contempt (docs/design/figures.md has the matches that chose them).
    defaults: ClassVar[dict[str, Any]] = {"knowledge": 2, "contempt": 0.1}

    def supports(self, game: Game[Any]) -> bool:
        return (
            isinstance(game, Brax)
            and int(game.options["players"]) == 2
            and not game.options["hunt"]
            # the arrays hold the moves of seven pieces a side (a set-up position may have more)
            and max(game._board.count(1), game._board.count(2)) <= PIECES
        )

    def tables(self, game: Game[Any]) -> BraxTables:
        return tables_for(bool(game.options["repetition"]), bool(game.options["nocapture"]))

    def state(self, game: Game[Any]) -> np.ndarray[Any, np.dtype[np.int64]]:
        assert isinstance(game, Brax) and self.supports(game)
        t = self.tables(game)
        # The rules core's own fields (its position string holds the same, docs/ugi.md, but
        # encodes every repeated board: milliseconds a state).
        board = bytes(game._board)
        to_move = game.to_move
        position = board + bytes((to_move,))
        red, blue = board.count(1), board.count(2)
        keys: list[int] = []
        if t.repetition:
            # The positions since the last capture: those with the same pieces per side.
            for other, times in game._rep.items():
                if other[:POINTS].count(1) == red and other[:POINTS].count(2) == blue:
                    keys.extend([_zobrist(t, other)] * times)
        room = len(keys) + 2
        if t.repetition and not t.nocapture:
            room += CODES + 8 + MAX_PLIES  # the tree's deepest descent, then a playout
        elif t.repetition:
            room += 100  # 100 plies without capture end the game
        s = np.zeros(KEYS + room, dtype=I64)
        s[:POINTS] = np.frombuffer(board, dtype=np.uint8)
        s[TO_MOVE] = to_move
        outcome = game.outcome()
        s[RESULT] = -1 if outcome is None else (2 if outcome.winner is None else outcome.winner)
        lo = hi = 0
        for p in game.forced:
            if p < 63:
                lo |= 1 << p
            else:
                hi |= 1 << (p - 63)
        s[FORCED_LO] = lo
        s[FORCED_HI] = hi
        s[CALLED] = int(game._called[0])
        s[CALLED + 1] = int(game._called[1])
        prev = game._prev_moved if game._prev_player == 1 - to_move else ()
        assert len(prev) <= 1
        s[PREV] = prev[0] if prev else -1
        s[QUIET] = game._quiet
        s[COUNT] = red
        s[COUNT + 1] = blue
        s[KEY] = _zobrist(t, position)
        s[NKEYS] = len(keys)
        s[KEYS: KEYS + len(keys)] = keys
        return s

    def sizes(self, game: Game[Any]) -> tuple[int, int, int]:
        return CODES, MOST, WORK

    def plies(self, game: Game[Any]) -> int:
        return MAX_PLIES

    def meaning(self, game: Game[Any], state: np.ndarray[Any, Any]) -> list[int]:
        keys = sorted(int(x) for x in state[KEYS: KEYS + int(state[NKEYS])])
        return [int(x) for x in state[:KEYS]] + keys

    def move(self, game: Game[Any], code: int) -> BraxMove:
        call = bool(code & 1)
        p, k = divmod(code >> 1, PATHS)
        t = tables_for(True, True)
        e = int(t.end[p, k])
        if k < 4:
            return BraxMove(((p, e),), call)
        return BraxMove(((p, int(t.mid[p, k]), e),), call)

    def code(self, game: Game[Any], move: BraxMove) -> int:
        (path,) = move.paths
        p = path[0]
        d = _direction(p, path[1])
        k = d
        if len(path) == 3:
            k = 4 + 3 * d + TURNS.index((_direction(path[1], path[2]) - d) % 4)
        return (p * PATHS + k) * 2 + int(move.call)


def _direction(a: int, b: int) -> int:
    """The direction (0 north, 1 east, 2 south, 3 west) of the step from ``a`` to ``b``."""
    return {N: 0, 1: 1, -N: 2, -1: 3}[b - a]
