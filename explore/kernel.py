"""The compiled inner loop of the local breadth-first explorer.

The visited set is the store itself: ``states[i]`` (packed words) in discovery order, so each BFS level is
a contiguous index range; ``parent[i]`` / ``via[i]`` are the parent pointer and the action that reached it
(-1 for initial states); ``table`` is an open-addressing hash table (linear probing) over the stored
states, so membership is exact: for one-word states a slot is the pair (state, index + 1) and a lookup
never touches ``states``; for wider states a slot is one word, the fingerprint's upper half beside
``index + 1``, and a tag match is confirmed against ``states``. The table is cut into one region per
thread (``visited.regions``: how many, and the slots of each; one region on one thread): the high half of
a state's hash picks its region, the low bits its home slot there, and probing wraps inside the region;
:mod:`explore.threaded` files new states into any region with atomic claims, and relinks a sorted level
one region per thread when it must look its states up. :func:`expand` runs the model's compiled
``successors`` over a chunk of the current level, checks every new state with the property set's compiled
``state_check`` (and every transition with ``transition_check`` while a transition property is watched)
before it is stored, and records witness candidates per property bit.

Canonical choices make every engine agree on traces, whatever order it expands states in: the parent of a
state is the one with the smallest ``(parent key, action index)`` among the states of the previous level
that reach it, and among the states of a level satisfying a property bit the witness is the one with the
smallest key. A key is the packed words compared as signed 64-bit integers, lexicographically. The local
explorer sorts each completed level by key (:func:`relink_level`), so expanding a level in index order
meets every new state first through its canonical parent and no comparison is needed.

Functions take the model's kernels as first-class function values with fixed signatures, so they are
compiled once and cached on disk for every model.
"""
from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np
from numba import types

from model.fingerprint import fingerprint_words, mix64
from model.native import kernel
from model.packed import STATE_CHECK_SIG

from .prefetch import prefetch
from .step import (ENABLED, ERROR, I64_1D, SUCC_T, TCHECK_T, U64_2D, generate, key_less,  # noqa: F401
                   lowest_bit_index, note_transition_witness, rows_equal)

# io slots
IO_POS = 0          # next state index to expand
IO_HI = 1           # end (exclusive) of the level being expanded
IO_COUNT = 2        # states stored
IO_TRANS = 3        # transitions generated (successor states of expanded states, duplicates included)
IO_CAP = 4          # capacity of the state arrays
IO_TABLE_LIMIT = 5  # states one region of the hash table may hold before the table must grow
IO_MAX_STATES = 6   # the user's state limit
IO_ERR_STATE = 7
IO_ERR_ACTION = 8
IO_ERR_FLAGS = 9
IO_EDGES = 10       # edges stored (graph properties only)
IO_EDGE_CAP = 11
IO_GRAPH = 12       # 1: record edges and goal bits
IO_LEAVES = 13      # 1: states violating every watched always property are not expanded
IO_NLEAF = 14       # states left unexpanded by that rule
IO_TERMINAL_AT = 15  # index + 1 of the first terminal state expanded (0: none yet); levels are expanded in
                     # key order, so it is the smallest key of the shallowest level that has one
IO_FILL_MAX = 16    # states filed in the fullest table region
IO_SIZE = 17

# masks slots
MK_STATE_WATCH = 0  # state_check bits to record witnesses for
MK_TRANS_WATCH = 1  # transition_check bits to record witnesses for
MK_LEAF = 2         # a state with all these bits set is not expanded (when IO_LEAVES)
MK_GOAL = 3         # graph property goal bits, stored per state (when IO_GRAPH)
MK_SIZE = 4

# statuses
ST_CHUNK = 0        # chunk done, level not finished
ST_LEVEL_DONE = 1
ST_NEED_ROOM = 2    # grow the arrays or the table, then call again
ST_LIMIT = 3        # the state limit was reached
ST_ERROR = 4        # the model flagged an error (IO_ERR_*)

SCHECK_T = types.FunctionType(STATE_CHECK_SIG)

#: the visited set and what is kept per state, passed to the kernels as one value (a tuple: no reference
#: counting, no jitclass); ``table`` is replaced when it grows, so the tuple is built again for each call
Visited = namedtuple("Visited", "states parent via table noexp goal edges row_start fill regions")
#: witness candidates per property bit: a state index, or a transition (source index, action)
Witnesses = namedtuple("Witnesses", "state src act")
#: the successor rows of one state and each one's lookup start (slot, tag)
Rows = namedtuple("Rows", "out oflags homes tags")

VISITED_T = types.NamedTuple((U64_2D, types.int32[::1], types.int16[::1], types.uint64[::1], types.uint8[::1],
                              types.uint8[::1], types.int32[::1], I64_1D, I64_1D, types.UniTuple(types.int64, 2)),
                             Visited)
WITNESSES_T = types.NamedUniTuple(I64_1D, 3, Witnesses)
ROWS_T = types.NamedTuple((U64_2D, I64_1D, I64_1D, types.uint64[::1]), Rows)


LOW32 = np.uint64(0xFFFFFFFF)
HIGH32 = np.uint64(32)
MAX_LOAD = 0.7      # the table grows (doubles) beyond this fill ratio
REHASH_AHEAD = 16   # states between a slot's prefetch and its filing when the table grows


def table_slots(table_len: int, words: int) -> int:
    return table_len // 2 if words == 1 else table_len


def new_table(region_slots: int, owners: int, words: int) -> np.ndarray:
    """An empty hash table of ``owners`` regions of ``region_slots`` slots (a power of two) each; a slot
    is two words (the state, its index + 1) for one-word states, one word otherwise."""
    return np.zeros(region_slots * owners * (2 if words == 1 else 1), dtype=np.uint64)


@kernel(inline=True)
def state_hash(row):
    """The 64-bit hash a row is filed under (one-word states: the mixed word; wider: the fingerprint)."""
    if len(row) == 1:
        return mix64(row[0])
    return fingerprint_words(row)


@kernel(inline=True)
def owner_of(h, owners):
    """The table region (and, with threads, the thread) that owns hash ``h``: its high half, scaled."""
    return np.int64(((h >> HIGH32) * np.uint64(owners)) >> HIGH32)


@kernel(inline=True)
def home_of(table, regions, row, h):
    """``(slot, tag)``: where a lookup of ``row`` (hash ``h``) starts in its owner's region, and its tag.
    ``regions`` is ``(number of regions, slots per region)``, the latter a power of two."""
    rslots = np.uint64(regions[1])
    slot = np.int64(np.uint64(owner_of(h, regions[0])) * rslots + (h & (rslots - np.uint64(1))))
    return slot, (row[0] if len(row) == 1 else h >> HIGH32)


@kernel(inline=True)
def _home(table, regions, row):
    return home_of(table, regions, row, state_hash(row))


@kernel(inline=True)
def _prefetch_home(table, words, slot):
    prefetch(table, 2 * slot if words == 1 else slot)


@kernel(inline=True)
def next_slot(slot, base, smask):
    """The slot after ``slot`` in its region (``base``: the region's first slot; ``smask``: its size - 1)."""
    return np.int64(base | ((np.uint64(slot) + np.uint64(1)) & smask))


@kernel
def _find(states, table, regions, row):
    """``(index, slot, tag)``: the stored index of ``row`` (or -1), the slot where it is or would go, and
    the tag to store there."""
    slot, tag = _home(table, regions, row)
    return _probe(states, table, regions, row, slot, tag)


@kernel
def _probe(states, table, regions, row, slot, tag):
    """Linear probing from ``slot``, wrapping inside its region: ``(index or -1, slot, tag)``."""
    words = len(row)
    smask = np.uint64(regions[1]) - np.uint64(1)
    base = np.uint64(slot) & ~smask
    if words == 1:
        key = row[0]
        while True:
            ref = table[2 * slot + 1]
            if ref == 0:
                return -1, slot, key
            if table[2 * slot] == key:
                return np.int64(ref) - 1, slot, key
            slot = next_slot(slot, base, smask)
    while True:
        e = table[slot]
        if e == 0:
            return -1, slot, tag
        if (e >> HIGH32) == tag:
            j = np.int64(e & LOW32) - 1
            if rows_equal(states[j], row):
                return j, slot, tag
        slot = next_slot(slot, base, smask)


@kernel(inline=True)
def free_slot_from(table, regions, words, slot):
    """The first empty slot at or after ``slot`` in its region (for a state known not to be there)."""
    smask = np.uint64(regions[1]) - np.uint64(1)
    base = np.uint64(slot) & ~smask
    while table[2 * slot + 1 if words == 1 else slot] != 0:
        slot = next_slot(slot, base, smask)
    return slot


@kernel(inline=True)
def _put(table, words, slot, tag, j):
    if words == 1:
        table[2 * slot] = tag
        table[2 * slot + 1] = np.uint64(j + 1)
    else:
        table[slot] = (tag << HIGH32) | np.uint64(j + 1)


@kernel(inline=True)
def put_new(table, regions, fill, io, words, slot, tag, j):
    """File a new state ``j`` at ``slot`` and count it in its region (``io[IO_FILL_MAX]``: the fullest)."""
    _put(table, words, slot, tag, j)
    if regions[0] > 1:   # one region holds every state: its fill is the state count
        o = np.int64(np.uint64(slot) // np.uint64(regions[1]))
        fill[o] += 1
        if fill[o] > io[IO_FILL_MAX]:
            io[IO_FILL_MAX] = fill[o]


@nb.njit(types.int64(U64_2D, types.int64, types.uint64[::1], I64_1D, types.int64, types.int64), cache=True,
         nogil=True, _nrt=False)
def rehash(states, count, table, fill, owners, region_slots):
    """Insert the first ``count`` stored states into an empty ``table`` of ``owners`` regions, counting them
    in ``fill``; returns how many it inserted. (On threads, :func:`explore.threaded.refile_region` does it.)"""
    words = states.shape[1]
    regions = (owners, region_slots)
    for i in range(count):
        if i + REHASH_AHEAD < count:   # start a later state's cache miss now (hashing it twice costs less)
            ahead = states[i + REHASH_AHEAD]
            _prefetch_home(table, words, home_of(table, regions, ahead, state_hash(ahead))[0])
        h = state_hash(states[i])
        slot, tag = home_of(table, regions, states[i], h)
        _, slot, tag = _probe(states, table, regions, states[i], slot, tag)
        _put(table, words, slot, tag, i)
        fill[owner_of(h, owners)] += 1
    return count


@nb.njit(types.void(U64_2D, types.uint64[::1], types.UniTuple(types.int64, 2), types.int64, I64_1D,
                    types.int32[::1], types.int64, types.int64), cache=True, nogil=True)
def relink_level(states, table, regions, lo, order, edges, e0, e1):
    """Before the level ``[lo, lo + len(order))`` is reordered by key (new position ``lo + k`` takes the
    state at ``lo + order[k]``), point its hash-table entries and the edges ``edges[e0:e1]`` that reach it
    at the new positions. The caller then permutes the per-state arrays."""
    n = len(order)
    new_pos = np.empty(n, np.int64)
    for k in range(n):
        new_pos[order[k]] = lo + k
    words = states.shape[1]
    for i in range(n):
        _, slot, tag = _find(states, table, regions, states[lo + i])
        _put(table, words, slot, tag, new_pos[i])
    for e in range(e0, e1):
        d = np.int64(edges[e])
        if lo <= d < lo + n:
            edges[e] = new_pos[d - lo]


@kernel
def _note_state_witness(wit_state, states, j, hits):
    while hits:
        b = lowest_bit_index(hits)
        cur = wit_state[b]
        if cur < 0 or key_less(states[j], states[cur]):
            wit_state[b] = j
        hits &= hits - np.uint64(1)


@kernel(inline=True)
def _goal_bits(m, goal_mask):
    """Compact the goal bits of ``m`` (positions of ``goal_mask``) into a small integer."""
    out = 0
    k = 0
    mask = goal_mask
    while mask:
        low = mask & (~mask + np.uint64(1))
        if m & low:
            out |= 1 << k
        k += 1
        mask ^= low
    return out


@kernel
def _store_new(scheck, params, visited, io, masks, wit_state, row, slot, tag, src, a):
    """Store a new state at the next index, check it, and record what its check says."""
    states = visited.states
    j = io[IO_COUNT]
    for i in range(len(row)):
        states[j, i] = row[i]
    visited.parent[j] = src
    visited.via[j] = a
    put_new(visited.table, visited.regions, visited.fill, io, states.shape[1], slot, tag, j)
    io[IO_COUNT] = j + 1
    check_new(scheck, params, visited, masks, wit_state, j, io[IO_GRAPH] != 0, io[IO_LEAVES] != 0)
    return j


@kernel(inline=True)
def check_new(scheck, params, visited, masks, wit_state, j, graph, leaves):
    """Check the new stored state ``j``: witness candidates, its goal bits, whether it is left unexpanded."""
    state_watch = masks[MK_STATE_WATCH]
    leaf_mask = masks[MK_LEAF]
    goal_mask = masks[MK_GOAL]
    if state_watch | leaf_mask | goal_mask:
        m = scheck(visited.states[j], params)
        hits = m & state_watch
        if hits:
            _note_state_witness(wit_state, visited.states, j, hits)
        if graph:
            visited.goal[j] = _goal_bits(m, goal_mask)
        if leaves and leaf_mask != 0 and (m & leaf_mask) == leaf_mask:
            visited.noexp[j] = 1


SEED_SIG = types.int64(SCHECK_T, I64_1D, VISITED_T, I64_1D, types.uint64[::1], I64_1D, U64_2D)


@nb.njit(SEED_SIG, cache=True, nogil=True, _nrt=False)
def seed(scheck, params, visited, io, masks, wit_state, initial):
    """Store and check the initial states (level 0); returns how many were new."""
    added = 0
    for i in range(initial.shape[0]):
        j, slot, tag = _find(visited.states, visited.table, visited.regions, initial[i])
        if j >= 0:
            continue
        _store_new(scheck, params, visited, io, masks, wit_state, initial[i], slot, tag, -1, -1)
        added += 1
    return added


EXPAND_SIG = types.int64(SUCC_T, SCHECK_T, TCHECK_T, I64_1D, VISITED_T, I64_1D, types.uint64[::1], WITNESSES_T,
                         ROWS_T, types.int64, I64_1D)


@nb.njit(EXPAND_SIG, cache=True, nogil=True, _nrt=False)
def expand(succ, scheck, tcheck, params, visited, io, masks, witnesses, rows, chunk, tally):
    """Expand up to ``chunk`` states of the current level ``[io[IO_POS], io[IO_HI])``; returns a status.

    Each state's successors come from the shared step (:func:`explore.step.generate`, which adds to the
    coverage ``tally``); inserting them into the visited set is this function's own step."""
    states = visited.states
    table = visited.table
    regions = visited.regions
    out = rows.out
    oflags = rows.oflags
    nact = len(oflags)
    words = states.shape[1]
    hi = io[IO_HI]
    end = min(hi, io[IO_POS] + chunk)
    graph = io[IO_GRAPH] != 0
    leaves = io[IO_LEAVES] != 0
    while io[IO_POS] < end:
        src = io[IO_POS]
        fill_max = io[IO_COUNT] if regions[0] == 1 else io[IO_FILL_MAX]
        if (io[IO_COUNT] + nact > io[IO_CAP] or fill_max + nact > io[IO_TABLE_LIMIT]
                or (graph and io[IO_EDGES] + nact > io[IO_EDGE_CAP])):
            return ST_NEED_ROOM
        if graph:
            visited.row_start[src] = io[IO_EDGES]
        if leaves and visited.noexp[src] != 0:
            io[IO_NLEAF] += 1
            io[IO_POS] = src + 1
            continue
        enabled = generate(succ, tcheck, params, states, src, out, oflags, masks[MK_TRANS_WATCH],
                           witnesses.src, witnesses.act, tally)
        if enabled < 0:
            io[IO_ERR_STATE] = src
            io[IO_ERR_ACTION] = -1 - enabled
            io[IO_ERR_FLAGS] = oflags[-1 - enabled]
            return ST_ERROR
        io[IO_TRANS] += enabled   # with the whole state, like the tally (a state limit may stop it midway)
        if enabled == 0 and io[IO_TERMINAL_AT] == 0:
            io[IO_TERMINAL_AT] = src + 1
        # start every lookup's cache miss before the first probe (the probes then mostly hit the cache)
        for a in range(nact):
            if oflags[a] & ENABLED:
                slot, tag = _home(table, regions, out[a])
                rows.homes[a] = slot
                rows.tags[a] = tag
                _prefetch_home(table, words, slot)
        for a in range(nact):
            if not oflags[a] & ENABLED:
                continue
            if rows_equal(out[a], states[src]):
                j = src  # a self-loop: no lookup needed
            else:
                j, slot, tag = _probe(states, table, regions, out[a], rows.homes[a], rows.tags[a])
                if j < 0:
                    if io[IO_COUNT] >= io[IO_MAX_STATES]:
                        return ST_LIMIT
                    j = _store_new(scheck, params, visited, io, masks, witnesses.state, out[a], slot, tag,
                                   src, a)
            if graph:
                visited.edges[io[IO_EDGES]] = j
                io[IO_EDGES] += 1
        io[IO_POS] = src + 1
    if graph and io[IO_POS] == hi:
        visited.row_start[hi] = io[IO_EDGES]
    return ST_LEVEL_DONE if io[IO_POS] >= hi else ST_CHUNK
