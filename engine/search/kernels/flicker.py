"""Flicker as arrays for the compiled search: the rules of :mod:`engine.games.flicker`
(docs/rules/flicker.md, rulings F1-F11) restated on an int64 state array, and the
:class:`~engine.search.kernels.mcts.Codec` that maps a :class:`engine.games.flicker.Flicker` game
to and
from them. Imports numba: reach it only through :mod:`engine.search.kernels`.

State: the points (0 empty, 1 Black, 2 White), then the player to move, the result (-1 none,
0/1 the winner, 2 a draw), the kinds of the last two turns and the last turn's point (for the
restrictions F4-F6), the number of turns while the swap is to come (0 at the start, 1 on
White's first turn, counted on from 2 once the swap is spent or the pie rule is off) and the
point of Black's first stone (for the swap; -2 without it), the number of stones, the key of
the position, the least number of stones among the record's entries (the number of points
when there is none), the number of entries, and the record (F9): the positions of the game
that can still come back. Only positions with at least n^2 - 1 stones ever do in a game
played from the start (docs/design/kernels.md, "The solver"), so only those are recorded; a
record the codec sets up from the rules core (a position string's, which could hold any
position) also keeps its positions with at least one stone less than the board holds, until
they can no longer come back. An entry is a position's key with its number of stones in the
low ten bits. The codec reads all of it from the rules core's current position (a game set
up from a position string has a short history), never by replaying the history. The rules
core keys positions exactly; the arrays use 64-bit Zobrist keys (a false repetition needs two
of the game's positions to collide, odds about 2^-54 per pair).

The solver's key of a state (``_key``, registered as ``key``) leaves out what cannot matter
any more and folds the symmetries the rules keep while the record is empty.

Move codes: a placement i, a removal size + i, the swap 2 size, the pass 2 size + 1. The playout
plays uniformly random legal moves (drawn by rejection); one longer than four moves per point
stops unfinished (scored as a draw; its state keeps no result).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from engine.games.core import Game
from engine.games.flicker import PASS, PLACE, REMOVE, SWAP, Flicker, FlickerMove
from engine.games.grid import swap_mirror
from engine.search.kernels.mcts import Codec
from engine.search.kernels.rt import finish, inline, mix, r_legal, rand_below, register

I64 = np.int64
K_NONE, K_PLACE, K_REMOVE, K_PASS, K_SWAP = 0, 1, 2, 3, 4
# Offsets after the points.
TO_MOVE, RESULT, LAST_KIND, LAST_POINT, PREV_KIND, PLIES, FIRST, STONES, CUR, LOWEST, NKEYS, \
    KEYS = range(12)
#: A record entry is a position's Zobrist key with its low bits replaced by its number of
#: stones (at most 625 on the largest board).
COUNT_BITS = 1023


class FlickerTables(NamedTuple):
    """The fixed arrays of an n x n board."""

    n: int
    nbr: np.ndarray[Any, np.dtype[np.int64]]
    #: pairs[k] = (a, b, c, d): a diagonal pair a, b and its common neighbours c, d
    pairs: np.ndarray[Any, np.dtype[np.int64]]
    #: member[i]: the pairs in which i is one of the two stones, -1 padded
    member: np.ndarray[Any, np.dtype[np.int64]]
    edge: np.ndarray[Any, np.dtype[np.int64]]
    mirror: np.ndarray[Any, np.dtype[np.int64]]
    #: zob[colour, i]: the Zobrist key of a stone; zob[0, 0] is the key of White to move
    zob: np.ndarray[Any, np.dtype[np.int64]]
    #: sym[g, i]: the image of point i under the identity, the half turn, the left-right
    #: mirror and the up-down mirror (each its own inverse), the symmetries the rules keep
    #: (the first two only while the pie swap is to come)
    sym: np.ndarray[Any, np.dtype[np.int64]]


_TABLES: dict[int, FlickerTables] = {}


def tables_for(n: int) -> FlickerTables:
    key = n
    if key not in _TABLES:
        from engine.games.brique import geometry  # the same square grid helpers

        size = n * n
        geo = geometry(n)
        nbr = np.full((size, 4), -1, dtype=I64)
        for i, near in enumerate(geo.neighbours):
            nbr[i, : len(near)] = near
        pairs = []
        for r in range(n - 1):
            for f in range(n):
                for df in (1, -1):
                    g = f + df
                    if 0 <= g < n:
                        pairs.append((r * n + f, (r + 1) * n + g, r * n + g, (r + 1) * n + f))
        member = np.full((size, 4), -1, dtype=I64)
        fill = [0] * size
        for k, (a, b, _c, _d) in enumerate(pairs):
            for p in (a, b):
                member[p, fill[p]] = k
                fill[p] += 1
        rng = random.Random(20121212)
        zob = np.array(
            [[rng.getrandbits(63) for _ in range(size)] for _ in range(3)], dtype=I64
        )
        _TABLES[key] = FlickerTables(
            n,
            nbr,
            np.array(pairs, dtype=I64).reshape(-1, 4),
            member,
            np.array(geo.edge_bits, dtype=I64),
            np.array([swap_mirror(i, n) for i in range(size)], dtype=I64),
            zob,
            symmetries(n),
        )
    return _TABLES[key]


def symmetries(n: int) -> np.ndarray[Any, np.dtype[np.int64]]:
    """The rows of :attr:`FlickerTables.sym` for an n x n board."""
    m = n - 1
    rows = []
    for flip_f, flip_r in ((False, False), (True, True), (True, False), (False, True)):
        rows.append([
            (m - i // n if flip_r else i // n) * n + (m - i % n if flip_f else i % n)
            for i in range(n * n)
        ])
    return np.array(rows, dtype=I64)


#: Exact position keys (engine.games.flicker's) -> the arrays' Zobrist keys, per board size.
_KEYS: dict[tuple[int, int], int] = {}


def _zobrist(t: FlickerTables, exact: int) -> int:
    """The Zobrist key of the position whose exact key (:meth:`Flicker.position_key`:
    ``colour << 2i`` for a stone on point i, bit ``2 n^2`` for White to move) is ``exact``."""
    size = t.n * t.n
    key = _KEYS.get((size, exact))
    if key is None:
        key = int(t.zob[0, 0]) if exact >> (2 * size) & 1 else 0
        for i in range(size):
            colour = exact >> (2 * i) & 3
            if colour:
                key ^= int(t.zob[colour, i])
        if len(_KEYS) > 1 << 16:
            _KEYS.clear()
        _KEYS[(size, exact)] = key
    return key


@inline
def _weak(t: Any, s: Any, i: int) -> bool:
    """Whether the stone on ``i`` belongs to a weak pair of its colour (F2)."""
    colour = s[i]
    for j in range(4):
        k = t.member[i, j]
        if k < 0:
            break
        a, b, c, d = t.pairs[k, 0], t.pairs[k, 1], t.pairs[k, 2], t.pairs[k, 3]
        if s[a] == colour and s[b] == colour and s[c] != colour and s[d] != colour:
            return True
    return False


def _legal(t: Any, s: Any, out: Any) -> int:
    size = t.n * t.n
    if s[size + RESULT] >= 0:
        return 0
    last_kind = s[size + LAST_KIND]
    last_point = s[size + LAST_POINT]
    banned = last_point if last_kind == K_REMOVE else -1
    k = 0
    for i in range(size):
        if s[i] == 0 and i != banned:
            out[k] = i
            k += 1
    p = s[size + TO_MOVE]
    if last_kind != K_REMOVE and s[size + PREV_KIND] != K_REMOVE:
        enemy = 2 - p
        protected = last_point if last_kind == K_PLACE else -1
        for i in range(size):
            if s[i] == enemy and i != protected and _weak(t, s, i):
                out[k] = size + i
                k += 1
    if p == 1 and s[size + PLIES] == 1 and _pie(t, s):
        out[k] = 2 * size
        k += 1
    if k == 0:
        out[0] = 2 * size + 1
        k = 1
    return k


@inline
def _pie(t: Any, s: Any) -> bool:
    # The pie option is folded into the state's FIRST slot: -2 means "no pie".
    return bool(s[t.n * t.n + FIRST] != -2)


def _winner(t: Any, s: Any) -> int:
    return int(s[t.n * t.n + RESULT])


def _to_move(t: Any, s: Any) -> int:
    return int(s[t.n * t.n + TO_MOVE])


@inline
def _connects(t: Any, s: Any, w: Any, start: int, player: int) -> bool:
    size = t.n * t.n
    colour = player + 1
    w[2 * size] += 1
    mark = w[2 * size]
    w[start] = mark
    w[size] = start
    top = 1
    touched = 0
    while top > 0:
        top -= 1
        i = w[size + top]
        touched |= t.edge[player, i]
        if touched == 3:
            return True
        for k in range(4):
            j = t.nbr[i, k]
            if j < 0:
                break
            if s[j] == colour and w[j] != mark:
                w[j] = mark
                w[size + top] = j
                top += 1
    return False


@inline
def _change(t: Any, s: Any, move: int) -> tuple[int, int, int, int]:
    """Play ``move`` on the board and the counters of ``s`` (not the result, not the record
    of positions): the mover, the kind of the move, its point (-1 for none) and the key of
    the new position (also written to the state)."""
    size = t.n * t.n
    p = s[size + TO_MOVE]
    key = s[size + CUR] ^ t.zob[0, 0]
    if move < size:
        kind = K_PLACE
        point = move
        s[point] = p + 1
        key ^= t.zob[p + 1, point]
        s[size + STONES] += 1
    elif move < 2 * size:
        kind = K_REMOVE
        point = move - size
        s[point] = 0
        key ^= t.zob[2 - p, point]
        s[size + STONES] -= 1
    elif move == 2 * size:
        kind = K_SWAP
        point = -1
        black = s[size + FIRST]
        white = t.mirror[black]
        s[black] = 0
        s[white] = 2
        key ^= t.zob[1, black] ^ t.zob[2, white]
    else:
        kind = K_PASS
        point = -1
    s[size + PREV_KIND] = s[size + LAST_KIND]
    s[size + LAST_KIND] = kind
    s[size + LAST_POINT] = point
    if s[size + PLIES] == 0 and s[size + FIRST] != -2:
        s[size + FIRST] = point
    s[size + PLIES] += 1
    s[size + TO_MOVE] = 1 - p
    s[size + CUR] = key
    return p, kind, point, key


@inline
def _entry(s: Any, size: int) -> int:
    """The record entry of the current position: its key, its number of stones in the low
    bits."""
    return int((s[size + CUR] & ~COUNT_BITS) | s[size + STONES])


@inline
def _record(s: Any, size: int, entry: int) -> bool:
    """Append ``entry`` to the record; False when the record is full."""
    nkeys = s[size + NKEYS]
    if nkeys >= s.shape[0] - size - KEYS:
        return False
    s[size + KEYS + nkeys] = entry
    s[size + NKEYS] = nkeys + 1
    if entry & COUNT_BITS < s[size + LOWEST]:
        s[size + LOWEST] = entry & COUNT_BITS
    return True


@inline
def _forget(s: Any, size: int) -> None:
    """Drop the entries of positions that can no longer come back: those with fewer stones
    than one less than the board holds now (docs/design/kernels.md, "The solver"). Only
    entries of the record a state was set up with can be dropped (a position the kernel
    records has at least ``size - 1`` stones), so this is one comparison in play."""
    floor = min(size - 1, s[size + STONES] - 1)
    if s[size + LOWEST] >= floor:
        return
    nkeys = s[size + NKEYS]
    kept = 0
    lowest = size
    for j in range(nkeys):
        entry = s[size + KEYS + j]
        count = entry & COUNT_BITS
        if count >= floor:
            s[size + KEYS + kept] = entry
            kept += 1
            if count < lowest:
                lowest = count
    for j in range(kept, nkeys):
        s[size + KEYS + j] = 0
    s[size + NKEYS] = kept
    s[size + LOWEST] = lowest


def _play(t: Any, s: Any, w: Any, move: int) -> None:
    size = t.n * t.n
    p, kind, point, key = _change(t, s, move)
    entry = _entry(s, size)
    if kind == K_PLACE and _connects(t, s, w, point, p):
        s[size + RESULT] = p
    elif s[size + STONES] >= s[size + LOWEST]:
        for j in range(s[size + NKEYS]):
            if s[size + KEYS + j] == entry:
                s[size + RESULT] = 2
                break
    if kind == K_PLACE:
        _forget(s, size)
    if s[size + STONES] >= size - 1 and not _record(s, size, entry) and s[size + RESULT] < 0:
        s[size + RESULT] = 2  # out of record room: never reached within the playout bound


@inline
def _allowed(t: Any, s: Any, code: int) -> bool:
    """Whether a placement or removal code is legal (the swap and the pass excepted)."""
    size = t.n * t.n
    last_kind = s[size + LAST_KIND]
    last_point = s[size + LAST_POINT]
    if code < size:
        return s[code] == 0 and not (last_kind == K_REMOVE and code == last_point)
    i = code - size
    if last_kind == K_REMOVE or s[size + PREV_KIND] == K_REMOVE:
        return False
    if s[i] != 2 - s[size + TO_MOVE] or (last_kind == K_PLACE and i == last_point):
        return False
    return _weak(t, s, i)


@inline
def _slot(s: Any, base: int, table: Any, hmask: int, key: int) -> int:
    """The slot of ``key`` in the open-addressing ``table`` (entries: indexes of keys in the
    state from ``base`` on, -1 empty): where it is, or the empty slot where it would go."""
    h = (key ^ (key >> 29)) & hmask
    while table[h] >= 0 and s[base + table[h]] != key:
        h = (h + 1) & hmask
    return h


@inline
def _play_hashed(t: Any, s: Any, w: Any, move: int, table: Any, hmask: int) -> None:
    """:func:`_play` with the repetition found through ``table`` (the record's entries)
    instead of a scan of the record, and no entry dropped (the table holds their places)."""
    size = t.n * t.n
    p, kind, point, key = _change(t, s, move)
    won = kind == K_PLACE and _connects(t, s, w, point, p)
    if won:
        s[size + RESULT] = p
    if s[size + STONES] < s[size + LOWEST] and s[size + STONES] < size - 1:
        return
    entry = _entry(s, size)
    h = _slot(s, size + KEYS, table, hmask, entry)
    if not won and table[h] >= 0:
        s[size + RESULT] = 2
    if s[size + STONES] >= size - 1:
        nkeys = s[size + NKEYS]
        if _record(s, size, entry):
            if table[h] < 0:
                table[h] = nkeys
        elif s[size + RESULT] < 0:
            s[size + RESULT] = 2  # out of record room: never reached within the playout bound


def _key(t: Any, s: Any) -> Any:
    """The solver's key of a state: what the rest of the game depends on, and nothing else.
    The board and the player to move; the restrictions as they act (a pass or the swap as no
    move, a stone just placed only while removals are allowed); the swap while it is to
    come; the set of the record's entries (the positions that can come back, in any order).
    With an empty record the key is the least over the symmetries the rules keep (the half
    turn while the swap is to come, else also the two mirrors), the points of the
    restrictions and of the swap mapped alike; a state with a record is keyed as it is
    (its entries are not mirrored)."""
    size = t.n * t.n
    kind = s[size + LAST_KIND]
    point = s[size + LAST_POINT]
    barred = s[size + PREV_KIND] == K_REMOVE
    if kind == K_REMOVE:
        barred = False  # removals are barred by the last turn anyway
    elif kind != K_PLACE or barred:
        kind = K_NONE
        point = -1
    plies = s[size + PLIES]
    first = s[size + FIRST]
    if plies >= 2 or first == -2:
        plies = 2
        first = -2
    nkeys = s[size + NKEYS]
    folds = 1 if nkeys > 0 else (2 if plies < 2 else 4)
    # the four images in one pass: four independent chains of multiplications run together
    h0 = h1 = h2 = h3 = np.uint64(0xCBF29CE484222325)
    sym = t.sym
    for i in range(size):
        h0 = mix(h0, s[i])
        h1 = mix(h1, s[sym[1, i]])
        h2 = mix(h2, s[sym[2, i]])
        h3 = mix(h3, s[sym[3, i]])
    best = np.uint64(0)
    for g in range(folds):
        h = h0 if g == 0 else (h1 if g == 1 else (h2 if g == 2 else h3))
        h = mix(h, sym[g, point] if point >= 0 else -1)
        h = mix(h, sym[g, first] if first >= 0 else first)
        if g == 0 or h < best:
            best = h
    h = mix(best, s[size + TO_MOVE])
    h = mix(h, s[size + RESULT])
    h = mix(h, kind)
    h = mix(h, 1 if barred else 0)
    h = mix(h, plies)
    entries = np.uint64(0)
    for j in range(nkeys):
        entries += finish(np.uint64(s[size + KEYS + j]))
    h = mix(h, nkeys)
    return h ^ entries


def _playout_for(knowledge: int) -> Callable[..., int]:
    """The playout below with ``knowledge`` a constant of its compiled code (numba leaves
    out the other levels' branches; :func:`engine.search.kernels.rt.knowledge_level`)."""

    def _playout(t: Any, s: Any, w: Any, rng: Any, rec: Any, level: Any) -> int:
        """Uniformly random legal moves, drawn as the C reference draws them: legal moves map
        one-to-one onto points (an empty point: a placement; an enemy stone: its removal), so a
        point is drawn uniformly (one more for the swap on its turn) until its move is legal
        (rejection: still uniform); after 16 misses the legal moves are listed. The keys of the
        game so far go into an open-addressing table in the scratch space (their indexes), so a
        repetition is one probe, not a scan. A connection is found by a flood fill from the new
        stone: Flicker's chains stay short (stones are removed), and a union-find rebuilt after
        every lost stone measured slower. A playout longer than four moves per point stops
        unfinished (a draw)."""
        size = t.n * t.n
        out = w[3 * size: 6 * size]
        table = w[6 * size + 4:]
        length = 1
        while 2 * length <= table.shape[0]:
            length *= 2
        hmask = length - 1
        for h in range(length):
            table[h] = -1
        base = size + KEYS
        for j in range(s[size + NKEYS]):
            h = _slot(s, base, table, hmask, s[base + j])
            if table[h] < 0:
                table[h] = j
        most = 4 * size
        count = 0
        while s[size + RESULT] < 0 and count < most:
            move = -1
            p = s[size + TO_MOVE]
            span = size + 1 if p == 1 and s[size + PLIES] == 1 and _pie(t, s) else size
            for _ in range(16):
                i = rand_below(rng, span)
                if i == size:
                    move = 2 * size  # the swap
                    break
                code = i if s[i] == 0 else size + i
                if _allowed(t, s, code):
                    move = code
                    break
            if move < 0:
                k = r_legal(t, s, out)
                move = out[rand_below(rng, k)]
            rec[1 + 2 * count] = move
            rec[2 + 2 * count] = p
            count += 1
            _play_hashed(t, s, w, move, table, hmask)
        rec[0] = count
        result = s[size + RESULT]
        return int(result) if result >= 0 else 2

    return _playout


register(
    FlickerTables,
    legal=_legal,
    play=_play,
    winner=_winner,
    to_move=_to_move,
    playout=_playout_for,
    key=_key,
)


class FlickerCodec(Codec):
    """Maps :class:`engine.games.flicker.Flicker` games to the arrays above."""

    def _room(self, game: Flicker, earlier: int) -> int:
        size = game.board_size ** 2
        return earlier + 1 + (2 * size + 10) + 4 * size + 4

    def tables(self, game: Game[Any]) -> FlickerTables:
        assert isinstance(game, Flicker)
        return tables_for(game.board_size)

    def record(self, game: Flicker) -> list[int]:
        """The record entries of ``game`` (F9): its earlier positions that can still come
        back, by their number of stones (at least the board's size less one, or one less than
        the board holds now), then the current position if it has at least the board's size
        less one stones (docs/design/kernels.md, "The solver")."""
        size = game.board_size ** 2
        t = self.tables(game)

        def entry(exact: int) -> tuple[int, int]:
            bits = exact & ((1 << 2 * size) - 1)
            count = sum(1 for i in range(size) if bits >> 2 * i & 3)
            return (_zobrist(t, exact) & ~COUNT_BITS) | count, count

        now = entry(game.position_key())
        floor = min(size - 1, now[1] - 1)
        kept = [e for e, count in map(entry, game.earlier_keys()) if count >= floor]
        if now[1] >= size - 1:
            kept.append(now[0])
        return kept

    def state(self, game: Game[Any]) -> np.ndarray[Any, np.dtype[np.int64]]:
        """The arrays of ``game``'s current position, read from the rules core's state (a
        game set up from a position string has a short history: it is never replayed)."""
        assert isinstance(game, Flicker)
        n = game.board_size
        size = n * n
        t = self.tables(game)
        record = self.record(game)
        s = np.zeros(size + KEYS + self._room(game, len(record)), dtype=I64)
        for r in range(n):
            for f in range(n):
                stone = game.stone(f, r)
                s[r * n + f] = 0 if stone is None else stone + 1
        s[size + TO_MOVE] = game.to_move
        outcome = game.outcome()
        s[size + RESULT] = -1 if outcome is None else (
            2 if outcome.winner is None else outcome.winner
        )
        # The restrictions of F4-F6: the point just emptied or just placed on, and whether
        # a removal on the mover's own previous turn bars removals now.
        banned = game.banned_point()
        protected = game.protected_point()
        s[size + LAST_KIND] = K_REMOVE if banned is not None else (
            K_PLACE if protected is not None else K_NONE
        )
        last = banned if banned is not None else protected
        s[size + LAST_POINT] = -1 if last is None else last
        barred = banned is None and not game.removal_allowed()
        s[size + PREV_KIND] = K_REMOVE if barred else K_NONE
        # The swap (F10): still to come at the start, on Black's first stone now, else spent.
        swap = game.swap_point()
        if swap is not None:
            s[size + PLIES], s[size + FIRST] = 1, swap
        elif game.pie_pending():
            s[size + PLIES], s[size + FIRST] = 0, -1
        else:
            s[size + PLIES], s[size + FIRST] = 2, -2
        # The repetition record (F9): the positions that can still come back.
        s[size + STONES] = sum(1 for i in range(size) if s[i])
        s[size + CUR] = _zobrist(t, game.position_key())
        s[size + NKEYS] = len(record)
        s[size + LOWEST] = min([e & COUNT_BITS for e in record], default=size)
        s[size + KEYS: size + KEYS + len(record)] = record
        return s

    def sizes(self, game: Game[Any]) -> tuple[int, int, int]:
        size = game.board_size ** 2
        assert isinstance(game, Flicker)
        # The playout's table of keys: a power of two, at most half full.
        length = 1
        while length < 2 * self._room(game, len(self.record(game))):
            length *= 2
        return 2 * size + 2, 2 * size + 2, 6 * size + 4 + length

    def meaning(self, game: Game[Any], state: np.ndarray[Any, Any]) -> list[int]:
        """The points, the player to move, the result, the restrictions, the swap while it
        is to come, the number of stones, the current key and the set of the record's
        entries with at least the board's size less one stones (in a game played from the
        start the others can never come back, and a state keeps those of a record it was set
        up with until they cannot either)."""
        size = game.board_size ** 2
        head = [int(x) for x in state[: size + KEYS]]
        kind = head[size + LAST_KIND]
        if kind not in (K_PLACE, K_REMOVE):
            head[size + LAST_KIND], head[size + LAST_POINT] = K_NONE, -1
        if head[size + PREV_KIND] != K_REMOVE:
            head[size + PREV_KIND] = K_NONE
        if head[size + PLIES] >= 2 or head[size + FIRST] == -2:
            head[size + PLIES], head[size + FIRST] = 2, -2
        keys = [int(x) for x in state[size + KEYS: size + KEYS + int(state[size + NKEYS])]]
        head[size + NKEYS] = head[size + LOWEST] = 0
        return head + sorted({k for k in keys if k & COUNT_BITS >= size - 1})

    def plies(self, game: Game[Any]) -> int:
        return 4 * game.board_size ** 2

    def move(self, game: Game[Any], code: int) -> FlickerMove:
        size = game.board_size ** 2
        if code < size:
            return FlickerMove(PLACE, code)
        if code < 2 * size:
            return FlickerMove(REMOVE, code - size)
        return FlickerMove(SWAP) if code == 2 * size else FlickerMove(PASS)

    def code(self, game: Game[Any], move: FlickerMove) -> int:
        size = game.board_size ** 2
        if move.kind == PLACE:
            return int(move.point)
        if move.kind == REMOVE:
            return size + int(move.point)
        return 2 * size if move.kind == SWAP else 2 * size + 1
