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
one region per thread when it must look its states up. :func:`expand` runs the one expansion step every engine shares (:func:`explore.step.expand_state`:
successors generated, every transition checked with ``transition_check`` while a transition property is
watched) over a chunk of the current level with this module's insert policy (:func:`insert_first_found`):
each new state is checked with the property set's compiled ``state_check`` before it is stored, and witness
candidates are recorded per property bit. The counters it keeps are the visited store's record
(:data:`explore.counters.RUN`).

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

from explore.fingerprint import fingerprint_words, mix64
from explore.native import kernel
from explore.packed import STATE_CHECK_SIG

from .counters import MASKS_T, RUN_T
from .prefetch import prefetch
from .step import (ENABLED, ERROR, I64_1D, ROWS_T, ST_CHUNK, ST_ERROR, ST_LEVEL_DONE, ST_LIMIT,  # noqa: F401
                   ST_NEED_ROOM, SUCC_T, TCHECK_T, U64_2D, Generator, Rows, expand_state, first_terminal, key_less,
                   lowest_bit_index, note_transition_witness, rows_equal)

SCHECK_T = types.FunctionType(STATE_CHECK_SIG)

#: the visited set and what is kept per state, passed to the kernels as one value (a tuple: no reference
#: counting, no jitclass); ``table`` is replaced when it grows, so the tuple is built again for each call
Visited = namedtuple("Visited", "states parent via table noexp goal edges edge_act row_start fill regions")
#: witness candidates per property bit: a state index, or a transition (source index, action)
Witnesses = namedtuple("Witnesses", "state src act")
#: where the one-thread insert policy files states: the visited set, what checks a new state and where its
#: witness candidates go, the edge list (``visited.edges``) and each edge's action (``visited.edge_act``),
#: whether edges, their actions and leaves are kept
FirstFinder = namedtuple("FirstFinder", "scheck params visited masks wit_state edges edge_act graph labels leaves")

VISITED_T = types.NamedTuple((U64_2D, types.int32[::1], types.int16[::1], types.uint64[::1], types.uint8[::1],
                              types.uint8[::1], types.int32[::1], types.int16[::1], I64_1D, I64_1D,
                              types.UniTuple(types.int64, 2)),
                             Visited)
WITNESSES_T = types.NamedUniTuple(I64_1D, 3, Witnesses)
RUN_COUNTERS_T = types.Array(RUN_T, 1, "C")    # the run's counters (explore.counters.RUN), one record
MASKS_ARG_T = types.Array(MASKS_T, 1, "C")     # the property masks (explore.counters.MASKS), one record


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
    """File a new state ``j`` at ``slot`` and count it in its region (``io.fill_max``: the fullest)."""
    _put(table, words, slot, tag, j)
    if regions[0] > 1:   # one region holds every state: its fill is the state count
        o = np.int64(np.uint64(slot) // np.uint64(regions[1]))
        fill[o] += 1
        if fill[o] > io.fill_max:
            io.fill_max = fill[o]


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
def _store_new(place, io, row, slot, tag, src, a):
    """Store a new state at the next index, check it, and record what its check says."""
    visited = place.visited
    states = visited.states
    j = io.count
    for i in range(len(row)):
        states[j, i] = row[i]
    visited.parent[j] = src
    visited.via[j] = a
    put_new(visited.table, visited.regions, visited.fill, io, states.shape[1], slot, tag, j)
    io.count = j + 1
    check_new(place, j)
    return j


@kernel(inline=True)
def check_new(place, j):
    """Check the new stored state ``j`` (``place``: an insert policy's): witness candidates, its goal bits,
    whether it is left unexpanded."""
    masks = place.masks
    visited = place.visited
    if masks.state_watch | masks.leaf | masks.goal:
        m = place.scheck(visited.states[j], place.params)
        hits = m & masks.state_watch
        if hits:
            _note_state_witness(place.wit_state, visited.states, j, hits)
        if place.graph:
            visited.goal[j] = _goal_bits(m, masks.goal)
        if place.leaves and masks.leaf != 0 and (m & masks.leaf) == masks.leaf:
            visited.noexp[j] = 1


@kernel(inline=True)
def visited_home(place, row):
    """``home`` of the local policies: the row's home slot in the visited set's table, its line fetched."""
    table = place.visited.table
    slot, tag = _home(table, place.visited.regions, row)
    _prefetch_home(table, len(row), slot)
    return slot, tag


@kernel(inline=True)
def record_edge(place, c, j, a):
    """The next edge of the state being expanded goes to ``j`` by action ``a`` (``c.edges``: edges written
    so far; the action is kept when ``place.labels``: the eventually properties' fairness reads it)."""
    if place.graph:
        place.edges[c.edges] = j
        if place.labels:
            place.edge_act[c.edges] = a
        c.edges += 1


@kernel(inline=True)
def insert_first_found(place, io, states, src, a, row, slot, tag):
    """``insert`` of the one-thread policy: look the successor up from its home and file it there when it
    is new. A level is expanded in key order, so its first finder is its canonical parent. False when the
    state limit is met."""
    if rows_equal(row, states[src]):
        j = src   # a self-loop: no lookup needed
    else:
        visited = place.visited
        j, slot, tag = _probe(states, visited.table, visited.regions, row, slot, tag)
        if j < 0:
            if io.count >= io.max_states:
                return False
            j = _store_new(place, io, row, slot, tag, src, a)
    record_edge(place, io, j, a)
    return True


@kernel(inline=True)
def expand_stored(gen, rows, c, tally, insert, place, src):
    """:func:`explore.step.expand_state` for the stored state ``src`` with a local policy: its edges' start
    noted, and a state marked to stay unexpanded counted instead (``c.nleaf``)."""
    visited = place.visited
    if place.graph:
        visited.row_start[src] = c.edges
    if place.leaves and visited.noexp[src] != 0:
        c.nleaf += 1
        return ST_CHUNK
    return expand_state(gen, visited.states, src, rows, c, tally, visited_home, insert, first_terminal, place)


SEED_SIG = types.int64(SCHECK_T, I64_1D, VISITED_T, RUN_COUNTERS_T, MASKS_ARG_T, I64_1D, U64_2D)


@nb.njit(SEED_SIG, cache=True, nogil=True, _nrt=False)
def seed(scheck, params, visited, counters, masks, wit_state, initial):
    """Store and check the initial states (level 0); returns how many were new."""
    io = counters[0]
    place = FirstFinder(scheck, params, visited, masks[0], wit_state, visited.edges, visited.edge_act, io.graph != 0,
                        io.labels != 0, io.leaves != 0)
    added = 0
    for i in range(initial.shape[0]):
        j, slot, tag = _find(visited.states, visited.table, visited.regions, initial[i])
        if j >= 0:
            continue
        _store_new(place, io, initial[i], slot, tag, -1, -1)
        added += 1
    return added


EXPAND_SIG = types.int64(SUCC_T, SCHECK_T, TCHECK_T, I64_1D, VISITED_T, RUN_COUNTERS_T, MASKS_ARG_T, WITNESSES_T,
                         ROWS_T, types.int64, I64_1D)


@nb.njit(EXPAND_SIG, cache=True, nogil=True, _nrt=False)
def expand(succ, scheck, tcheck, params, visited, counters, masks, witnesses, rows, chunk, tally):
    """Expand up to ``chunk`` states of the current level ``[io.pos, io.hi)`` (``io``: the run's counters,
    ``counters[0]``); returns a status. Each state is the one expansion step
    (:func:`explore.step.expand_state`) with the one-thread policy (:func:`insert_first_found`)."""
    io = counters[0]
    mask = masks[0]
    place = FirstFinder(scheck, params, visited, mask, witnesses.state, visited.edges, visited.edge_act, io.graph != 0,
                        io.labels != 0, io.leaves != 0)
    gen = Generator(succ, tcheck, params, mask.trans_watch, witnesses.src, witnesses.act)
    nact = len(rows.oflags)
    hi = io.hi
    end = min(hi, io.pos + chunk)
    while io.pos < end:
        fill_max = io.count if visited.regions[0] == 1 else io.fill_max
        if (io.count + nact > io.cap or fill_max + nact > io.table_limit
                or (place.graph and io.edges + nact > io.edge_cap)):
            return ST_NEED_ROOM
        status = expand_stored(gen, rows, io, tally, insert_first_found, place, io.pos)
        if status != ST_CHUNK:
            return status
        io.pos += 1
    if place.graph and io.pos == hi:
        visited.row_start[hi] = io.edges
    return ST_LEVEL_DONE if io.pos >= hi else ST_CHUNK
