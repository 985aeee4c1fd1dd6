"""The compiled part of the compact set's graph on disk (:mod:`explore.compact_graph` explains the whole):
the one-thread expansion and the threaded rounds' step 1 (:mod:`explore.compact_rounds`) that record every
transition as ``(successor fingerprint, action)``, the
per-state labels (fingerprint, goal bits) of a sorted level, and the resolution of the recorded
fingerprints to state indices through the fingerprint table.

A kernel module: it imports only kernel modules, so the kernel cache key (:mod:`explore.kernel_cache`)
does not cover the pure-Python module that drives it.
"""
from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np
from numba import types

from explore.native import kernel, scratch

from . import threaded as P
from .atomic import fetch_add
from .compact import _file, compact_home
from .compact_rounds import CROUND_T, S_FULL, SEEN_T, CRound, buffered_home, insert_buffered
from .counters import SLICES_T
from .funcaddr import ADDRESSES
from .kernel import EXPAND_SIG, MASKS_ARG_T, SCHECK_T, _goal_bits, state_hash
from .prefetch import prefetch
from .step import (I64_1D, ROWS_T, ST_CHUNK, ST_ERROR, ST_LEVEL_DONE, ST_NEED_ROOM, U64_2D, Generator, expand_state,
                   first_terminal, rows_equal)

#: the compact policy's place (:data:`explore.compact.CompactFinder`'s fields) and where the transitions of
#: the states expanded go: each one's successor fingerprint (``efps``) and action (``eact``), ``ecount[0]``
#: of them so far
RecordingFinder = namedtuple("RecordingFinder",
                             "scheck params visited masks wit_state graph leaves zero efps eact ecount")

#: the transition buffers of a call: successor fingerprints, actions, each expanded state's transitions
#: (``degree[k]``: the ``k``-th state of the call), and how many transitions the buffers hold (``count[0]``)
EDGE_BUF_T = types.Tuple((types.uint64[::1], types.int16[::1], types.uint16[::1], I64_1D))


@kernel(inline=True)
def insert_recording(place, io, states, src, a, row, slot, tag):
    """``insert`` of the recording policy: the transition is written (its successor's fingerprint ``tag``
    and action ``a``, a self-loop too: the exact store keeps it as an edge), then the state is filed as
    :func:`explore.compact.insert_compact` files it. False when the state limit is met."""
    k = place.ecount[0]
    place.efps[k] = tag
    place.eact[k] = np.int16(a)
    place.ecount[0] = k + 1
    if rows_equal(row, states[src]):
        return True
    return _file(place, io, row, src, a, slot, tag) >= 0


@nb.njit(types.int64(EXPAND_SIG.args[0], EXPAND_SIG.args[1], EXPAND_SIG.args[2], EXPAND_SIG.args[3],
                     EXPAND_SIG.args[4], EXPAND_SIG.args[5], EXPAND_SIG.args[6], EXPAND_SIG.args[7],
                     EXPAND_SIG.args[8], types.int64, I64_1D, EDGE_BUF_T), cache=True, nogil=True, _nrt=False)
def expand_compact_recording(succ, scheck, tcheck, params, visited, counters, masks, witnesses, rows, chunk, tally,
                             ebuf):
    """:func:`explore.compact.expand_compact` that also records every transition of the states it expands
    in ``ebuf`` (from empty: ``ebuf[3][0]`` is 0 on entry); it returns ``ST_CHUNK`` before a state whose
    transitions might not fit, or when ``ebuf``'s degrees are full (the caller writes the buffers out and
    calls again)."""
    io = counters[0]
    mask = masks[0]
    efps, eact, degree, ecount = ebuf
    place = RecordingFinder(scheck, params, visited, mask, witnesses.state, False, io.leaves != 0, visited.fill,
                            efps, eact, ecount)
    gen = Generator(succ, tcheck, params, mask.trans_watch, witnesses.src, witnesses.act)
    nact = len(rows.oflags)
    hi = io.hi
    first = io.pos
    end = min(hi, io.pos + chunk, io.pos + len(degree))
    while io.pos < end:
        if io.count + nact > io.cap or io.count + nact > io.table_limit:
            return ST_NEED_ROOM
        if ecount[0] + nact > len(efps):
            return ST_CHUNK
        src = io.pos
        before = ecount[0]
        if place.leaves and visited.noexp[src] != 0:
            io.nleaf += 1
        else:
            status = expand_state(gen, visited.states, src, rows, io, tally, compact_home, insert_recording,
                                  first_terminal, place)
            if status != ST_CHUNK:
                return status
        degree[src - first] = np.uint16(ecount[0] - before)
        io.pos += 1
    return ST_LEVEL_DONE if io.pos >= hi else ST_CHUNK


@nb.njit(types.void(SCHECK_T, I64_1D, U64_2D, types.uint64, types.uint64[::1], types.uint8[::1]), cache=True,
         nogil=True, _nrt=False)
def label_level(scheck, params, states, goal_mask, fps, goal):
    """For the rows ``states`` (a sorted level): ``fps[k]``, the fingerprint each is filed under, and, when
    ``goal_mask`` is set, ``goal[k]``, its goal bits as the exact store keeps them
    (:func:`explore.kernel.check_new`)."""
    for k in range(states.shape[0]):
        fps[k] = state_hash(states[k])
        if goal_mask != 0:
            goal[k] = _goal_bits(scheck(states[k], params), goal_mask)


AHEAD = 8   # the table line of the fingerprint this many places ahead is fetched


@nb.njit(types.int64(types.uint64[::1], types.int32[::1], I64_1D, types.uint64[::1], types.int64), cache=True,
         nogil=True, _nrt=False)
def index_slots(table, slot_index, zero, fps, base):
    """State ``base + k`` has fingerprint ``fps[k]``: ``slot_index[s] = base + k`` at the table slot ``s``
    holding it (``zero[0]`` for fingerprint 0, which has no slot). Returns -1, or the first ``k`` whose
    fingerprint is not in the table."""
    smask = np.uint64(len(table) - 1)
    n = len(fps)
    for k in range(min(AHEAD, n)):
        prefetch(table, np.int64(fps[k] & smask))
    for k in range(n):
        if k + AHEAD < n:
            prefetch(table, np.int64(fps[k + AHEAD] & smask))
        fp = fps[k]
        if fp == 0:
            zero[0] = base + k
            continue
        slot = fp & smask
        while True:
            e = table[slot]
            if e == fp:
                break
            if e == 0:
                return k
            slot = (slot + np.uint64(1)) & smask
        slot_index[slot] = np.int32(base + k)
    return -1


#: :func:`resolve`'s pipeline: the table line of the fingerprint ``FAR`` places ahead is fetched, the one
#: ``NEAR`` places ahead probed (its slot's index fetched), the current one's index read
FAR = 16
NEAR = 8
RING = 16   # slots probed and not yet read (a power of two above NEAR)


@nb.njit(types.int64(types.uint64[::1], types.int32[::1], I64_1D, types.uint64[::1], types.int32[::1]), cache=True,
         nogil=True, _nrt=False)
def resolve(table, slot_index, zero, fps, out):
    """``out[k]``: the index of the state whose fingerprint is ``fps[k]`` (:func:`index_slots` filled the
    slots), two cache misses a transition overlapped in a pipeline (:data:`FAR`, :data:`NEAR`). Returns -1,
    or the first ``k`` whose fingerprint is not in the table."""
    smask = np.uint64(len(table) - 1)
    n = len(fps)
    ring = scratch(16)
    for k in range(-FAR, n):
        a = k + FAR
        if 0 <= a < n:
            prefetch(table, np.int64(fps[a] & smask))
        b = k + NEAR
        if 0 <= b < n:
            fp = fps[b]
            if fp == 0:
                ring[b & (RING - 1)] = -1
            else:
                slot = fp & smask
                while True:
                    e = table[slot]
                    if e == fp:
                        break
                    if e == 0:
                        return b
                    slot = (slot + np.uint64(1)) & smask
                ring[b & (RING - 1)] = np.int64(slot)
                prefetch(slot_index, np.int64(slot))
        if k >= 0:
            at = ring[k & (RING - 1)]
            if at < 0:
                if zero[0] < 0:
                    return k
                out[k] = np.int32(zero[0])
            else:
                out[k] = slot_index[at]
    return -1


# -- the threaded rounds (explore/compact_rounds.py's step 1, recording) ---------------------------------
#: step 1's place (:data:`explore.compact_rounds.Buffered`'s fields) and where slice ``s`` records its
#: transitions: from ``ebase`` in ``efps`` / ``eact``, ``ecount[s]`` of them so far, at most ``ecap``
RecordingBuffered = namedtuple("RecordingBuffered", "table zero rows link fps slots base efps eact ecount s ebase ecap")
#: a round's transition buffers: successor fingerprints and actions (``ecap`` per slice), the round's states'
#: transition counts (``degree[src - bounds[0]]``), the transitions each slice holds, ``ecap``
ROUND_EDGES_T = types.Tuple((types.uint64[::1], types.int16[::1], types.uint16[::1], I64_1D, types.int64))


@kernel(inline=True)
def insert_buffered_recording(place, c, states, src, a, row, slot, tag):
    """``insert`` of step 1, recording: the transition is written to the slice's own buffer, then the
    successor is buffered as :func:`explore.compact_rounds.insert_buffered` does."""
    k = place.ebase + place.ecount[place.s]
    place.efps[k] = tag
    place.eact[k] = np.int16(a)
    place.ecount[place.s] += 1
    return insert_buffered(place, c, states, src, a, row, slot, tag)


@kernel
def _record_slice(gen, seen, masks, rnd, rows, s, c, rec):
    states, table, zero, noexp = seen
    efps, eact, degree, ecount, ecap = rec
    place = RecordingBuffered(table, zero, rnd.rows, rnd.link, rnd.fps, rnd.slots, s * rnd.capacity, efps, eact,
                              ecount, s, s * ecap, ecap)
    step = Generator(gen.succ, gen.tcheck, gen.params, masks.trans_watch, rnd.wit_src[s], rnd.wit_act[s])
    tally = rnd.tallies[s, :rnd.tally_size]
    leaves = rnd.leaves != 0
    nact = len(rows.oflags)
    first = rnd.bounds[0]
    for src in range(rnd.bounds[s], rnd.bounds[s + 1]):
        c.pos = src
        before = ecount[s]
        if leaves and noexp[src] != 0:
            c.nleaf += 1
            degree[src - first] = 0
            continue
        # the buffers may not hold this state's successors or transitions: stop before it
        if c.edges + nact > rnd.capacity or ecount[s] + nact > ecap:
            return ST_NEED_ROOM
        status = expand_state(step, states, src, rows, c, tally, buffered_home, insert_buffered_recording,
                              first_terminal, place)
        if status != ST_CHUNK:
            return status
        degree[src - first] = np.uint16(ecount[s] - before)
    return ST_LEVEL_DONE


@nb.njit(types.void(I64_1D, I64_1D, SEEN_T, MASKS_ARG_T, CROUND_T, SLICES_T, ROWS_T, I64_1D, ROUND_EDGES_T),
         cache=True, nogil=True, _nrt=False)
def buffer_slices_recording(functions, params, seen, masks, round_t, slices, rows, counter, rec):
    """:func:`explore.compact_rounds.buffer_slices` that also records every transition of the slices' states
    (``rec``: :data:`ROUND_EDGES_T`, its counts zero on entry); a slice whose transition buffer may not hold
    the next state's stops there as a full successor buffer stops it (``S_FULL``)."""
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
        status = _record_slice(gen, seen, masks[0], rnd, rows, s, c, rec)
        c.status = P.S_ERROR if status == ST_ERROR else S_FULL if status == ST_NEED_ROOM else P.S_DONE
