"""The compact visited set (:mod:`explore.compact`) on several threads, with the results of one thread.

The threaded rounds of the exact store (:mod:`explore.threaded`) file a new state at once, from any thread,
and keep its smallest parent by looking its index up in the table; the compact table holds fingerprints
only, no index, so a round here files nothing while the threads run. A round cuts a run of the level's
states (sorted by key, so index order is key order) into slices and goes in three steps:

1. **expand** (:func:`buffer_slices`, every thread, slices taken from an atomic counter): each state is
   the one expansion step (:func:`explore.step.expand_state`) with a policy that only *reads* the table:
   a successor whose fingerprint is there already (filed in an earlier level or round) or a self-loop is
   dropped, any other goes to the slice's buffer with its source, action, fingerprint and home slot.
   Transitions are generated, checked, counted and tallied here, per slice, as the exact rounds do;
2. **file** (:func:`file_buffered`, one thread): the slices' buffers in slice order, each in its own order,
   which is the order one thread meets these successors in (by source index, then action): the first
   finder files the state (its fingerprint in the table, its row, parent and action at the next index), a
   later finder finds it. What step 1 dropped one thread would have found too, so the same states get the
   same indices and the same (canonical) parents as on one thread; the state limit stops the round where
   it would stop one thread;
3. **check** (:func:`check_filed`, every thread, one range of the new states each): each new state checked
   (:func:`explore.kernel.check_new`), witness candidates per thread, merged by key as one thread keeps
   them (the smallest key per property bit), its leaf mark set.

The kernels and their buffers' layout are here; the level loop that drives them is
:class:`explore.compact_level.CompactRounds` (a module of its own, so that this one, which the kernel cache
reads, imports nothing of the pure-Python level machinery).

Step 2 is the one serial part: one probe and one row copy per successor not seen before the round (most
successors are dropped in step 1, on the threads).
"""
from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np
from numba import types

from explore.native import kernel

from . import kernel as K
from . import threaded as P
from .atomic import fetch_add
from .compact import CompactFinder
from .counters import SLICES_T
from .funcaddr import ADDRESSES
from .kernel import check_new, state_hash
from .prefetch import prefetch
from .step import (I64_1D, ROWS_T, ST_CHUNK, ST_ERROR, ST_LEVEL_DONE, ST_LIMIT, ST_NEED_ROOM, U64_2D, Generator,
                   expand_state, first_terminal, rows_equal)

S_FULL = 4         # a slice's ``status``: its buffer filled up before its states were all expanded
#: a slice's buffer room, per state of the slice (at least one state's successors): most successors are
#: found in the table and dropped, so a slice seldom fills it; one that does ends the round early
BUFFER_PER_STATE = 4
#: states per slice: the compact rounds' buffers hold a few successors a state, not ``nact``, so slices are
#: larger than the exact store's (fewer rounds, fewer waits for the slowest thread)
COMPACT_SLICE_STATES = 16384
ROUND_LOAD = 0.9   # the table's load after a round, at worst (it grows beyond explore.kernel.MAX_LOAD)
AHEAD = 8          # step 2 fetches the table line of the successor this many places ahead

#: where step 1's policy looks successors up and what it writes: the table and the fingerprint-0 mark (read
#: only), the round's buffers (rows, ``source << 16 | action``, fingerprints, home slots) from ``base``
Buffered = namedtuple("Buffered", "table zero rows link fps slots base")


@kernel(inline=True)
def buffered_home(place, row):
    """``home`` of step 1: the fingerprint's home slot (its line fetched) and the fingerprint."""
    table = place.table
    h = state_hash(row)
    slot = np.int64(h & np.uint64(len(table) - 1))
    prefetch(table, slot)
    return slot, h


@kernel(inline=True)
def _seen(table, zero, slot, fp):
    """Whether fingerprint ``fp`` is in the table, looked up from ``slot``."""
    if fp == 0:
        return zero[0] != 0
    smask = np.uint64(len(table) - 1)
    while True:
        e = table[slot]
        if e == 0:
            return False
        if e == fp:
            return True
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & smask)


@kernel(inline=True)
def insert_buffered(place, c, states, src, a, row, slot, tag):
    """``insert`` of step 1: a successor not in the table (as it was when the round began) and not a
    self-loop goes to the slice's buffer (``c.edges``: how many it holds)."""
    if rows_equal(row, states[src]):
        return True
    if _seen(place.table, place.zero, slot, tag):
        return True
    k = place.base + c.edges
    for w in range(len(row)):
        place.rows[k, w] = row[w]
    place.link[k] = (np.int64(src) << P.ACTION_BITS) | a
    place.fps[k] = tag
    place.slots[k] = slot
    c.edges += 1
    return True


#: a round as its kernels take it: the slices (``bounds``), each slice's buffer room (``capacity``), the
#: transition witnesses and tallies per slice, the buffers, whether leaves are kept
CRound = namedtuple("CRound", "bounds capacity wit_src wit_act tallies tally_size rows link fps slots leaves")
CROUND_T = types.Tuple((I64_1D, types.int64, types.int64[:, ::1], types.int64[:, ::1], types.int64[:, ::1],
                        types.int64, U64_2D, I64_1D, types.uint64[::1], I64_1D, types.int64))
#: the visited set as step 1 reads it: (states, table, fingerprint-0 mark, leaf marks)
SEEN_T = types.Tuple((U64_2D, types.uint64[::1], I64_1D, types.uint8[::1]))


@kernel
def _buffer_slice(gen, seen, masks, rnd, rows, s, c):
    states, table, zero, noexp = seen
    place = Buffered(table, zero, rnd.rows, rnd.link, rnd.fps, rnd.slots, s * rnd.capacity)
    step = Generator(gen.succ, gen.tcheck, gen.params, masks.trans_watch, rnd.wit_src[s], rnd.wit_act[s])
    tally = rnd.tallies[s, :rnd.tally_size]
    leaves = rnd.leaves != 0
    nact = len(rows.oflags)
    for src in range(rnd.bounds[s], rnd.bounds[s + 1]):
        c.pos = src
        if leaves and noexp[src] != 0:
            c.nleaf += 1
            continue
        if c.edges + nact > rnd.capacity:   # the buffer may not hold this state's successors: stop before it
            return ST_NEED_ROOM
        status = expand_state(step, states, src, rows, c, tally, buffered_home, insert_buffered, first_terminal,
                              place)
        if status != ST_CHUNK:
            return status
    return ST_LEVEL_DONE


@nb.njit(types.void(I64_1D, I64_1D, SEEN_T, K.MASKS_ARG_T, CROUND_T, SLICES_T, ROWS_T, I64_1D), cache=True,
         nogil=True, _nrt=False)
def buffer_slices(functions, params, seen, masks, round_t, slices, rows, counter):
    """Step 1 on one thread: slices taken one by one from ``counter`` until none is left; a slice writes
    only its own counters (``slices[s]``: ``status`` says how far it got, ``edges`` how many successors
    it buffered), tally, transition witnesses and part of the buffers (from ``s * capacity``)."""
    gen = P.ThreadGen(P._succ_at(functions, 0), P._tcheck_at(functions, ADDRESSES),
                      P._scheck_at(functions, 2 * ADDRESSES), params)
    r = round_t
    rnd = CRound(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10])
    while True:
        s = fetch_add(counter, 0, 1)
        if s >= len(rnd.bounds) - 1:
            return
        c = slices[s]
        c.status = P.S_STARTED
        status = _buffer_slice(gen, seen, masks[0], rnd, rows, s, c)
        c.status = P.S_ERROR if status == ST_ERROR else S_FULL if status == ST_NEED_ROOM else P.S_DONE


#: the visited set as step 2 writes it: (states, parent, via, table, fingerprint-0 mark)
FILED_T = types.Tuple((U64_2D, types.int32[::1], types.int16[::1], types.uint64[::1], I64_1D))


@nb.njit(types.int64(FILED_T, K.RUN_COUNTERS_T, CROUND_T, SLICES_T, types.int64), cache=True, nogil=True,
         _nrt=False)
def file_buffered(filed, counters_, round_t, slices, last):
    """Step 2: the buffers of slices ``[0, last]`` in slice order, each successor filed at the next index
    when its fingerprint is new; returns ``ST_LEVEL_DONE``, or ``ST_LIMIT`` when the state limit stops it
    (the states filed so far stay counted: the explorer forgets the level)."""
    states, parent, via, table, zero = filed
    io = counters_[0]
    r = round_t
    rnd = CRound(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10])
    smask = np.uint64(len(table) - 1)
    words = states.shape[1]
    amask = np.int64((1 << P.ACTION_BITS) - 1)
    for s in range(last + 1):
        k0 = s * rnd.capacity
        k1 = k0 + slices[s].edges
        for k in range(k0, min(k0 + AHEAD, k1)):
            prefetch(table, rnd.slots[k])
        for k in range(k0, k1):
            if k + AHEAD < k1:
                prefetch(table, rnd.slots[k + AHEAD])
            fp = rnd.fps[k]
            if fp == 0:
                if zero[0] != 0:
                    continue
                if io.count >= io.max_states:
                    return ST_LIMIT
                zero[0] = 1
            else:
                slot = np.uint64(rnd.slots[k])
                found = False
                while True:
                    e = table[slot]
                    if e == 0:
                        break
                    if e == fp:
                        found = True
                        break
                    slot = (slot + np.uint64(1)) & smask
                if found:
                    continue
                if io.count >= io.max_states:
                    return ST_LIMIT
                table[slot] = fp
            j = io.count
            for w in range(words):
                states[j, w] = rnd.rows[k, w]
            link = rnd.link[k]
            parent[j] = np.int32(link >> P.ACTION_BITS)
            via[j] = np.int16(link & amask)
            io.count = j + 1
    return ST_LEVEL_DONE


#: what step 3 reads and writes: the stored states, the leaf marks (and an unused goal column)
CheckView = namedtuple("CheckView", "states noexp goal")


@nb.njit(types.void(I64_1D, I64_1D, U64_2D, types.uint8[::1], K.MASKS_ARG_T, I64_1D, types.int64, types.int64,
                    types.int64), cache=True, nogil=True, _nrt=False)
def check_filed(functions, params, states, noexp, masks, wit_state, leaves, lo, hi):
    """Step 3 for the new states ``[lo, hi)``: each one checked, its witness candidates into this thread's
    ``wit_state`` (the smallest key per property bit), its leaf mark set."""
    scheck = P._scheck_at(functions, 2 * ADDRESSES)
    view = CheckView(states, noexp, noexp)
    place = CompactFinder(scheck, params, view, masks[0], wit_state, False, leaves != 0, wit_state)
    for j in range(lo, hi):
        check_new(place, j)
