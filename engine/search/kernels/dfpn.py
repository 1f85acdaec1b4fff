"""A compiled depth-first proof-number search (df-pn, Nagai 2002, with the 1 + epsilon
threshold of Pawlewicz and Lew 2007) over a game's array rules, through the generic stubs of
:mod:`engine.search.kernels.rt` (``r_legal``, ``r_play``, ``r_winner``, ``r_to_move``): one loop,
compiled once per game like the MCTS loop (docs/design/kernels.md).

Imports numba: reach it only through :mod:`engine.search.solve` (which goes through
:mod:`engine.search.kernels` first, for the cache directory).

The search proves or disproves "the *attacker* wins" from a root state: OR nodes are the
positions where the attacker is to move, AND nodes the others (a game whose turn takes several
steps, Trisq, has one player move several times in a row: the node type follows the player to
move). A draw, or a win of the other side, disproves. A game with draws is solved by two
searches, one per attacker (:mod:`engine.search.solve`).

The transposition table is one fixed array (bounded memory) of 16-byte entries in buckets of
four, a bucket to a 64-byte cache line. An entry is two words: its numbers packed in one
(:func:`pack`: the proof and disproof numbers in 28 bits each, exact for 0, "infinite" and
:data:`UNKNOWN`, larger ones held at :data:`CAP`; the work of its subtree on a logarithmic
scale in 8 bits), and its key xor that word in the other, so that a read finds the
key only with the numbers it was written with (:func:`tt_get`). A key is a 64-bit hash of
the game's key of the state (``r_key``: by default a hash of the whole state array) and the
attacker; a new entry replaces the entry of the bucket whose subtree took the least work.
The state arrays of the games with a repetition rule (Flicker, Brax) hold the earlier
positions that can come back, so a position's key includes the history its result depends
on, and the graph the search sees has no cycles.

A new child starts at the numbers the game estimates for it (``r_init``: 1 and 1 unless the
game registers an estimate; Brique's are the squares of each side's distance to a win),
unless it is over or in the table, or (with the
``M_THREATS`` option of the search) its player to move has a move that wins at once: such a
child is decided at once, so a player who threatens to win leaves the other only the moves
that stop it, without a frame for each of the others.

The search runs in slices of at most ``budget`` expanded nodes: its stack lives in the frame
arrays, so a later call continues where the last one stopped (the caller checks the clock).
Several threads may search one root with one table (:func:`search`; docs/design/kernels.md,
"Threads").
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.search.kernels.rt import (
    copy_into,
    finish,
    i64,
    inline,
    kernel,
    r_init,
    r_key,
    r_legal,
    r_play,
    r_to_move,
    r_winner,
)

#: pn or dn of a proven (0) node's other number: "infinite".
INF = np.int64(1) << np.int64(40)
#: pn = dn = UNKNOWN for a child past the depth limit: never proven, seldom chosen.
UNKNOWN = np.int64(1) << np.int64(30)
BUCKET = 4
# the two words of an entry
E_LOCK = 0  # the key xor the numbers word (see _lock)
E_NUMBERS = 1  # the numbers, packed (see pack)
#: Bits of each of the proof and disproof numbers in an entry; the work takes the top 8.
NUMBER_BITS = 28
_FIELD = (1 << NUMBER_BITS) - 1
#: The largest number an entry holds other than INF and UNKNOWN: a larger one reads back as
#: this, or from UNKNOWN on as UNKNOWN (never as a proof or disproof, which stay exact).
#: Searches of hundreds of millions of nodes stored numbers below 2^17
#: (docs/design/kernels.md, "The solver").
CAP = _FIELD - 2
#: Slots of each thread's marks of the positions on its stack (:func:`search`).
BUSY = 4096

# meta slots (int64)
M_SP = 0  # the top frame (-1: not started)
M_NODES = 1  # nodes expanded so far
M_PN = 2  # the root's proof number when the search stopped
M_DN = 3  # the root's disproof number
M_DEPTH_HIT = 4  # 1 if the depth limit was reached (the search may then not end)
M_STORES = 5  # table writes
M_MAXDEPTH = 6  # deepest frame used
M_THREATS = 7  # 1: decide a child whose player to move wins at once (see _expand)
M_ME = 8  # this search's thread (its row of the busy marks)
M_THREADS = 9  # threads searching the same root with the same table
M_DRAWLESS = 10  # 1: a game without draws, whose table is kept for one attacker (_key_of)
N_META = 11

_ATT = np.uint64(0x9E3779B97F4A7C15)


@inline
def state_hash(t: Any, s: Any, attacker: int) -> Any:
    """A 64-bit hash (never 0) of the game's key of the state array ``s`` (``r_key``) and
    the attacker."""
    h = finish(r_key(t, s) ^ (_ATT * np.uint64(attacker + 1)))
    if h == np.uint64(0):
        h = np.uint64(1)
    return h


@inline
def _field(x: Any) -> Any:
    """A proof or disproof number as an entry holds it: INF and UNKNOWN (or more) as codes of
    their own, other numbers up to :data:`CAP`."""
    if x >= INF:
        return np.uint64(_FIELD)
    if x >= UNKNOWN:
        return np.uint64(_FIELD - 1)
    return np.uint64(min(x, CAP))


@inline
def _number(code: Any) -> Any:
    """The number of an entry's field (the inverse of :func:`_field` up to :data:`CAP`)."""
    if code == np.uint64(_FIELD):
        return INF
    if code == np.uint64(_FIELD - 1):
        return UNKNOWN
    return np.int64(code)


@inline
def work_code(work: Any) -> Any:
    """The work of an entry's subtree (nodes expanded under it) on the scale an entry keeps:
    8 bits, four steps to each doubling, never less for more work."""
    if work <= 1:
        return np.uint64(max(work, 0))
    return np.uint64(min(255, 1 + int(4.0 * math.log2(work))))


@inline
def pack(pn: Any, dn: Any, work: Any) -> Any:
    """The numbers word of an entry: pn and dn (:func:`_field`) and the work's code
    (:func:`work_code`). Never 0: an empty slot is all zeros."""
    return (_field(pn) | (_field(dn) << np.uint64(NUMBER_BITS))
            | (work_code(work) << np.uint64(2 * NUMBER_BITS)))


@inline
def _lock(h: Any, numbers: Any) -> Any:
    """The lock word of an entry: its key xor its numbers word (Hyatt and Mann's lockless
    hashing), so that an entry read while another thread writes it (one word old, one new)
    fails the check of :func:`tt_get` instead of pairing a key with another position's
    numbers."""
    return h ^ numbers


@inline
def tt_get(table: Any, h: Any) -> Any:
    """The numbers (pn, dn) the table holds for ``h``, or (-1, -1)."""
    nb = table.shape[0] // BUCKET
    b = int(h % np.uint64(nb)) * BUCKET
    for j in range(b, b + BUCKET):
        numbers = table[j, E_NUMBERS]
        if table[j, E_LOCK] == _lock(h, numbers):  # never an empty slot: h is never 0
            return (_number(numbers & np.uint64(_FIELD)),
                    _number((numbers >> np.uint64(NUMBER_BITS)) & np.uint64(_FIELD)))
    return np.int64(-1), np.int64(-1)


@inline
def _key_of(attacker: int, drawless: int) -> int:
    """The attacker a table entry is kept for. In a game without draws, "the attacker does
    not win" is "the other player wins", so a position's disproof for one player is its
    proof for the other: its numbers for player 0 are the ones for player 1, swapped. Such
    a game keeps all its entries for player 1 (and a search for player 0 swaps them as it
    reads and writes, :func:`_get` and :func:`_put`), so that searches for either player
    share them: the solve of a position after a move reads the proof of the position
    before it, whichever player each attacks for."""
    return 1 if drawless else attacker


@inline
def _get(table: Any, h: Any, flip: bool) -> Any:
    """:func:`tt_get` for the search's attacker (``flip``: the entry is kept for the other
    player, :func:`_key_of`)."""
    a, b = tt_get(table, h)
    if flip:
        return b, a
    return a, b


@inline
def _put(table: Any, h: Any, pn: Any, dn: Any, wk: Any, flip: bool) -> None:
    """:func:`tt_store` for the search's attacker (see :func:`_get`)."""
    if flip:
        pn, dn = dn, pn
    tt_store(table, h, pn, dn, wk)


@inline
def _store_packed(table: Any, h: Any, numbers: Any) -> None:
    """Write the numbers word ``numbers`` (:func:`pack`) for ``h``: its own slot, the first
    free one, or the bucket's entry of least work (a proven entry only gives way to another
    proof)."""
    nb = table.shape[0] // BUCKET
    b = int(h % np.uint64(nb)) * BUCKET
    victim = -1
    least = np.int64(1) << np.int64(62)
    field = np.uint64(_FIELD)
    for j in range(b, b + BUCKET):
        theirs = table[j, E_NUMBERS]
        if theirs == np.uint64(0):
            if least >= 0:  # the first free slot
                victim = j
                least = np.int64(-1)
            continue
        if table[j, E_LOCK] == _lock(h, theirs):
            victim = j
            break
        cost = np.int64(theirs >> np.uint64(2 * NUMBER_BITS))
        if (theirs & field) == np.uint64(0) or (theirs >> np.uint64(NUMBER_BITS)) & field == 0:
            cost += np.int64(1) << np.int64(50)
        if cost < least:
            least = cost
            victim = j
    table[victim, E_NUMBERS] = numbers
    table[victim, E_LOCK] = _lock(h, numbers)


@inline
def tt_store(table: Any, h: Any, pn: Any, dn: Any, wk: Any) -> None:
    """Write (pn, dn, work) for ``h`` (:func:`_store_packed`)."""
    _store_packed(table, h, pack(pn, dn, wk))


@kernel
def merge(table: Any, more: Any) -> int:
    """Store the entries of another table (``more``: all of it or a piece, of any size) in
    this one, each as :func:`tt_store` stores an entry; returns how many were stored."""
    stored = 0
    for i in range(more.shape[0]):
        numbers = more[i, E_NUMBERS]
        if numbers == np.uint64(0):
            continue
        _store_packed(table, more[i, E_LOCK] ^ numbers, numbers)
        stored += 1
    return stored


_MIX_PN = np.uint64(0xD6E8FEB86659FD93)
_MIX_DN = np.uint64(0xA0761D6478BD642F)


@kernel
def from_layout_2(keys: Any, data: Any, into: Any) -> None:
    """Write into ``into`` (of as many rows) the entries of a piece of a table of the earlier
    layout (``engine.search.solve.TABLE_LAYOUT`` 2: an array of keys, and a row of pn, dn,
    work and a check word per entry, the key mixed with pn and dn), as entries of this one;
    an empty entry, or one whose check word fails (read while written), as an empty one."""
    for i in range(keys.shape[0]):
        h = keys[i]
        pn = data[i, 0]
        dn = data[i, 1]
        sealed = np.int64(h ^ (np.uint64(pn) * _MIX_PN) ^ (np.uint64(dn) * _MIX_DN))
        if h == np.uint64(0) or data[i, 3] != sealed:
            into[i, E_LOCK] = 0
            into[i, E_NUMBERS] = 0
            continue
        numbers = pack(pn, dn, data[i, 2])
        into[i, E_NUMBERS] = numbers
        into[i, E_LOCK] = _lock(h, numbers)


@inline
def _wins(t: Any, s: Any, s2: Any, w: Any, code: int, z: int) -> bool:
    """Whether the legal move ``code`` wins at once for ``z``, the player to move in ``s``
    (played on ``s2``, a copy)."""
    copy_into(s2, s)
    r_play(t, s2, w, i64(code))
    return bool(r_winner(t, s2) == z)


@inline
def _expand(
    t: Any, d: int, attacker: int, states: Any, s2: Any, w: Any, buf: Any, moves: Any,
    hashes: Any, cpn: Any, cdn: Any, count: Any, table: Any, threats: int,
    s3: Any, buf2: Any, cand: Any, keyed: int, flip: bool,
) -> None:
    """Generate the children of frame ``d``: their moves, hashes and first numbers (a
    terminal child proven or disproven, else the table's numbers, else the game's estimate,
    ``r_init``).

    With ``threats``, a child whose player to move has a move that wins at once is decided
    too, without a frame of its own: every move of the first two open children is tried, and
    the ones that win there are the candidates tried in the others, which are not looked at
    when there are none (a winning move missed only leaves a child open: the values stay
    exact)."""
    s = states[d]
    k = r_legal(t, s, buf)
    count[d] = k
    ncand = 0
    scans = 0
    for j in range(k):
        moves[d, j] = buf[j]
        copy_into(s2, s)
        r_play(t, s2, w, i64(buf[j]))
        res = r_winner(t, s2)
        h = state_hash(t, s2, keyed)
        hashes[d, j] = h
        if res < 0:
            a, b = _get(table, h, flip)
            if a >= 0:
                cpn[d, j] = a
                cdn[d, j] = b
                continue
            a, b = r_init(t, s2, w, attacker)
            cpn[d, j] = a
            cdn[d, j] = b
            if threats == 0:
                continue
            z = r_to_move(t, s2)
            if scans < 2:
                # every move of the first two open children: the winning ones are the
                # candidates (a move that wins in no child may be the one each took)
                scans += 1
                kk = r_legal(t, s2, buf2)
                for i in range(kk):
                    if _wins(t, s2, s3, w, buf2[i], z):
                        res = z
                        known = False
                        for c in range(ncand):
                            if cand[c] == buf2[i]:
                                known = True
                                break
                        if not known:
                            cand[ncand] = buf2[i]
                            ncand += 1
            elif ncand > 0:
                kk = r_legal(t, s2, buf2)
                for c in range(ncand):
                    code = cand[c]
                    for i in range(kk):
                        if buf2[i] == code:
                            if _wins(t, s2, s3, w, code, z):
                                res = z
                            break
                    if res >= 0:
                        break
            if res < 0:
                continue
        if res == attacker:
            cpn[d, j] = 0
            cdn[d, j] = INF
        else:
            cpn[d, j] = INF
            cdn[d, j] = 0


@inline
def _child_threshold(th_mine: Any, first_v: Any, second_v: Any, eps: float) -> Any:
    """The threshold of the chosen child on the number its parent minimises (the 1 + epsilon
    rule): past the second best by a factor, within the parent's own threshold."""
    grow = np.int64(second_v * (1.0 + eps)) + 1 if second_v < INF else INF
    return min(th_mine, max(first_v + 1, grow))


@kernel
def search(
    t: Any, root: Any, attacker: int, table: Any, frames: Any, meta: Any, eps: float,
    budget: int, stop: Any, busy: Any,
) -> int:
    """Run df-pn from ``root`` for at most ``budget`` more expanded nodes (continuing the
    search whose stack ``frames`` and ``meta`` hold, or starting one when ``meta[M_SP]`` is
    -1). Returns 1 when the root is proven (the attacker wins), -1 when disproven, 0 when
    the budget ran out first or ``stop[0]`` was set. The root must not be over.

    Several threads may search the same root with the same table, each with its own
    frames and meta (``meta[M_ME]`` its number, ``meta[M_THREADS]`` how many): each marks the
    positions on its stack in its row of ``busy``; at a node that looks decided by all its
    children (the number it adds up over them is the smaller of its two), a thread choosing
    a child takes one that another thread is in as twice as hard as its numbers say, so the
    threads share out the children that all need a proof. Each sees the others' results
    through the table, and the one that decides the root sets ``stop[0]``, which ends the
    others' calls."""
    states, s2, w, buf, moves, hashes, cpn, cdn, count, thpn, thdn, chosen, nh, work0, s3, \
        buf2, cand = frames
    threats = meta[M_THREATS]
    keyed = _key_of(attacker, meta[M_DRAWLESS])
    flip = keyed != attacker
    me = meta[M_ME]
    nthreads = meta[M_THREADS]
    mask = busy.shape[1] - 1
    depth_cap = states.shape[0]
    # a new frame is expanded at the top of the loop: one call of _expand to compile
    fresh = meta[M_SP] < 0
    if fresh:
        copy_into(states[0], root)
        nh[0] = state_hash(t, root, keyed)
        thpn[0] = INF - 1
        thdn[0] = INF - 1
        work0[0] = meta[M_NODES]
        meta[M_SP] = 0
        for i in range(busy.shape[1]):
            busy[me, i] = 0
    spent = 0
    while True:
        if stop[0] != 0:
            return 0
        d = meta[M_SP]
        if fresh:
            _expand(t, d, attacker, states, s2, w, buf, moves, hashes, cpn, cdn, count, table,
                    threats, s3, buf2, cand, keyed, flip)
            meta[M_NODES] += 1
            fresh = False
        k = count[d]
        is_or = r_to_move(t, states[d]) == attacker
        # refresh the children from the table; find the node's numbers and the best child:
        # the least "mine" (the number the node minimises over), the next, and its child
        least = INF + 1
        least2 = INF + 1
        best = -1
        total = np.int64(0)  # the sum of "theirs" (the number the node adds up)
        for j in range(k):
            a = cpn[d, j]
            b = cdn[d, j]
            if a != 0 and b != 0 and a != UNKNOWN:
                ta, tb = _get(table, hashes[d, j], flip)
                if ta >= 0:
                    a = ta
                    b = tb
                    cpn[d, j] = a
                    cdn[d, j] = b
            mine = a if is_or else b
            total += b if is_or else a
            if mine < least:
                least2 = least
                least = mine
                best = j
            elif mine < least2:
                least2 = mine
        if least == 0:  # a child proven for the player who chooses
            m_node = np.int64(0)
            t_node = INF
        elif k == 0 or least >= INF:
            m_node = INF
            t_node = np.int64(0)
        else:
            m_node = least
            t_node = min(total, INF - 2)
        first_v = least
        second_v = least2
        if nthreads > 1 and 0 < m_node < INF and t_node <= m_node:
            # the node looks decided by all its children rather than by one (the number
            # they add up is the smaller): the threads may share them out, so a child
            # another thread is in counts double for the choice
            first_v = INF + 1
            second_v = INF + 1
            best_v = best
            for j in range(k):
                mine = cpn[d, j] if is_or else cdn[d, j]
                if mine < INF:
                    slot = np.int64(hashes[d, j] & np.uint64(mask))
                    for o in range(nthreads):
                        if o != me and busy[o, slot] > 0:
                            mine = mine * 2
                            break
                if mine < first_v:
                    second_v = first_v
                    first_v = mine
                    best_v = j
                elif mine < second_v:
                    second_v = mine
            if best_v != best:
                c_mine = _child_threshold(thpn[d] if is_or else thdn[d], first_v, second_v,
                                          eps)
                if c_mine > (cpn[d, best_v] if is_or else cdn[d, best_v]):
                    best = best_v
                else:
                    # the free child is past the node's threshold: the least one it is
                    first_v = least
                    second_v = least2
        pn = m_node if is_or else t_node
        dn = t_node if is_or else m_node
        if nthreads > 1 and d > 0 and pn != 0 and dn != 0:
            # decided by another thread meanwhile: no use searching on under it
            ta, tb = _get(table, nh[d], flip)
            if ta == 0 or tb == 0:
                pn = ta
                dn = tb
        if pn >= thpn[d] or dn >= thdn[d] or pn == 0 or dn == 0:
            _put(table, nh[d], pn, dn, meta[M_NODES] - work0[d], flip)
            meta[M_STORES] += 1
            if d == 0:
                meta[M_PN] = pn
                meta[M_DN] = dn
                if pn == 0:
                    stop[0] = 1
                    return 1
                if dn == 0:
                    stop[0] = 1
                    return -1
                # thresholds of the root are never reached otherwise
                return 0
            busy[me, np.int64(nh[d] & np.uint64(mask))] -= 1
            meta[M_SP] = d - 1
            c = chosen[d - 1]
            cpn[d - 1, c] = pn
            cdn[d - 1, c] = dn
            continue
        if spent >= budget:
            meta[M_PN] = pn
            meta[M_DN] = dn
            return 0
        # thresholds of the best child (1 + epsilon on the number it minimises)
        th_mine = thpn[d] if is_or else thdn[d]
        th_theirs = thdn[d] if is_or else thpn[d]
        c_mine = _child_threshold(th_mine, first_v, second_v, eps)
        c_theirs_v = cdn[d, best] if is_or else cpn[d, best]
        c_theirs = th_theirs - t_node + c_theirs_v
        if c_theirs > INF - 1:
            c_theirs = INF - 1
        if d + 1 >= depth_cap:
            meta[M_DEPTH_HIT] = 1
            cpn[d, best] = UNKNOWN
            cdn[d, best] = UNKNOWN
            spent += 1
            continue
        chosen[d] = best
        e = d + 1
        copy_into(states[e], states[d])
        r_play(t, states[e], w, i64(moves[d, best]))
        nh[e] = hashes[d, best]
        busy[me, np.int64(nh[e] & np.uint64(mask))] += 1
        thpn[e] = c_mine if is_or else c_theirs
        thdn[e] = c_theirs if is_or else c_mine
        work0[e] = meta[M_NODES]
        fresh = True
        spent += 1
        meta[M_SP] = e
        if e > meta[M_MAXDEPTH]:
            meta[M_MAXDEPTH] = e


@kernel
def rules(t: Any, s: Any, w: Any, out: Any, op: int, move: int) -> int:
    """The rules one at a time for the Python driver: ``op`` 0 writes the legal moves to
    ``out`` and returns their number, 1 plays ``move``, 2 returns the result so far (as
    ``r_winner``), 3 the player to move, 4 the table's key of the state (``r_key``, as a
    signed int)."""
    if op == 4:
        return int(np.int64(r_key(t, s)))
    if op == 0:
        return r_legal(t, s, out)
    if op == 1:
        r_play(t, s, w, move)
        return 0
    if op == 2:
        return r_winner(t, s)
    return r_to_move(t, s)


def new_table(entries: int) -> np.ndarray[Any, np.dtype[np.uint64]]:
    """An empty table of ``entries`` slots (rounded down to whole buckets, at least one): a
    row of two words (``E_LOCK``, ``E_NUMBERS``) per entry."""
    n = max(BUCKET, entries // BUCKET * BUCKET)
    return np.zeros((n, 2), dtype=np.uint64)


def new_shared(threads: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """What the threads of one search share besides the table: the stop flag and each
    thread's busy marks (see :func:`search`)."""
    return np.zeros(1, dtype=np.int64), np.zeros((threads, BUSY), dtype=np.int32)


#: Bytes of one table entry (its lock and numbers words).
ENTRY_BYTES = 16


def frame_bytes(depth: int, most: int, length: int, itemsize: int, work: int) -> int:
    """Bytes of the frame arrays of :func:`new_frames`."""
    per_frame = most * (4 + 8 + 8 + 8) + length * itemsize + 8 * 7
    return depth * per_frame + 2 * length * itemsize + work * 4 + 4 * most * 4


def new_frames(
    depth: int, most: int, root: np.ndarray[Any, Any], work: int
) -> tuple[np.ndarray[Any, Any], ...]:
    """The stack of a search: ``depth`` frames of at most ``most`` children each."""
    length = root.shape[0]
    return (
        np.zeros((depth, length), dtype=root.dtype),  # states
        np.zeros(length, dtype=root.dtype),  # s2
        np.zeros(work, dtype=np.int32),  # w
        np.zeros(most, dtype=np.int32),  # buf
        np.zeros((depth, most), dtype=np.int32),  # moves
        np.zeros((depth, most), dtype=np.uint64),  # hashes
        np.zeros((depth, most), dtype=np.int64),  # cpn
        np.zeros((depth, most), dtype=np.int64),  # cdn
        np.zeros(depth, dtype=np.int64),  # count
        np.zeros(depth, dtype=np.int64),  # thpn
        np.zeros(depth, dtype=np.int64),  # thdn
        np.zeros(depth, dtype=np.int64),  # chosen
        np.zeros(depth, dtype=np.uint64),  # nh
        np.zeros(depth, dtype=np.int64),  # work0
        np.zeros(length, dtype=root.dtype),  # s3
        np.zeros(most, dtype=np.int32),  # buf2
        np.zeros(2 * most, dtype=np.int32),  # cand
    )


def new_meta(
    threats: bool = False, me: int = 0, threads: int = 1, drawless: bool = False,
) -> np.ndarray[Any, np.dtype[np.int64]]:
    """The counters of a new search (``threats``: see :data:`M_THREATS`; ``drawless``, a game
    without draws: :data:`M_DRAWLESS`) by thread ``me`` of ``threads``."""
    meta = np.zeros(N_META, dtype=np.int64)
    meta[M_SP] = -1
    meta[M_THREATS] = int(threats)
    meta[M_DRAWLESS] = int(drawless)
    meta[M_ME] = me
    meta[M_THREADS] = threads
    return meta
