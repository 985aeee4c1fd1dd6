"""The compiled part of the compact set's graph on disk (:mod:`explore.compact_graph` explains the whole):
the one-thread expansion that records every transition as ``(successor fingerprint, action)``, the
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

from explore.native import kernel

from .compact import _file, compact_home
from .kernel import EXPAND_SIG, SCHECK_T, _goal_bits, state_hash
from .prefetch import prefetch
from .step import I64_1D, ST_CHUNK, ST_LEVEL_DONE, ST_NEED_ROOM, U64_2D, Generator, expand_state, first_terminal, \
    rows_equal

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


@nb.njit(types.int64(types.uint64[::1], types.int32[::1], I64_1D, types.uint64[::1], types.int32[::1]), cache=True,
         nogil=True, _nrt=False)
def resolve(table, slot_index, zero, fps, out):
    """``out[k]``: the index of the state whose fingerprint is ``fps[k]`` (:func:`index_slots` filled the
    slots). Returns -1, or the first ``k`` whose fingerprint is not in the table."""
    smask = np.uint64(len(table) - 1)
    n = len(fps)
    for k in range(min(AHEAD, n)):
        prefetch(table, np.int64(fps[k] & smask))
    for k in range(n):
        if k + AHEAD < n:
            prefetch(table, np.int64(fps[k + AHEAD] & smask))
        fp = fps[k]
        if fp == 0:
            if zero[0] < 0:
                return k
            out[k] = np.int32(zero[0])
            continue
        slot = fp & smask
        while True:
            e = table[slot]
            if e == fp:
                break
            if e == 0:
                return k
            slot = (slot + np.uint64(1)) & smask
        out[k] = slot_index[slot]
    return -1
