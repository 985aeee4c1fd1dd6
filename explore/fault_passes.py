"""The compiled passes of the failure-mode analysis (:mod:`explore.faults`) over a finished exhaustive
exploration's stored states and edges. They take the model's compiled ``successors`` and the properties'
``state_check`` as first-class function values, like the explorer's kernel, and import nothing but the
kernel signatures, so the kernel cache key (:mod:`explore.kernel_cache`) does not cover the pure-Python
analysis around them.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from explore.packed import STATE_CHECK_SIG, SUCCESSORS_SIG

SUCC_T = types.FunctionType(SUCCESSORS_SIG)
SCHECK_T = types.FunctionType(STATE_CHECK_SIG)
U64_2D = types.uint64[:, ::1]
I64_1D = types.int64[::1]


@nb.njit(types.void(SCHECK_T, I64_1D, U64_2D, types.int64, types.uint64[::1]), cache=True, nogil=True)
def check_states(scheck, params, states, count, bits):
    """``bits[i]`` = the property bits of stored state ``i``."""
    for i in range(count):
        bits[i] = scheck(states[i], params)


ROWS_T = types.Tuple((U64_2D, I64_1D))                                 # out, oflags: one state's successors
BEST_T = types.UniTuple(types.int64[:, :, ::1], 2)                     # per (property, kind, cell): source, action
BREAKING_SIG = types.void(SUCC_T, I64_1D, U64_2D, types.int64, types.uint64[::1], I64_1D,
                          types.Tuple((I64_1D, types.int32[::1])), I64_1D, I64_1D, ROWS_T, BEST_T)


@nb.njit(BREAKING_SIG, cache=True, nogil=True)
def breaking_transitions(succ, params, states, count, bits, cells, graph, prop_bits, kind_of, rows, best):
    """Per (property ``p`` of ``prop_bits``, action kind, target cell): the first breaking transition in
    (source index, action index) order, into ``best_src[p, kind, cell]`` / ``best_act`` (-1: none), where
    ``best`` = (best_src, best_act), ``graph`` = (row_start, edges) and ``rows`` = (out, oflags).

    Sources are visited in stored order (level, then key), so the first one found is the canonical
    shallowest. The successors of a source are generated only when one of its edges breaks a property,
    to learn which action each edge is."""
    row_start, edges = graph
    out, oflags = rows
    best_src, best_act = best
    nact = len(oflags)
    always = np.uint64(0)
    for p in range(len(prop_bits)):
        always |= np.uint64(1) << np.uint64(prop_bits[p])
    for src in range(count):
        ok = ~bits[src] & always
        if ok == 0:
            continue
        expanded = False
        k = 0
        a = -1
        for e in range(row_start[src], row_start[src + 1]):
            # the e-th edge is the k-th enabled action: advance ``a`` alongside when known
            t = np.int64(edges[e])
            hits = bits[t] & ok
            if hits != 0 and not expanded:
                succ(states[src], params, out, oflags)
                expanded = True
                a = -1
                j = 0
                for b in range(nact):   # find the action of edge number k
                    if oflags[b] & 1:
                        if j == k:
                            a = b
                            break
                        j += 1
            elif expanded:
                b = a + 1
                while b < nact and not oflags[b] & 1:
                    b += 1
                a = b
            if hits != 0:
                c = cells[t]
                kind = kind_of[a]
                for p in range(len(prop_bits)):
                    if hits & (np.uint64(1) << np.uint64(prop_bits[p])):
                        if best_src[p, kind, c] < 0:
                            best_src[p, kind, c] = src
                            best_act[p, kind, c] = a
            k += 1


# -- one pass over a batch of states, for engines that keep no edges (the Spark engine) -------------------
@nb.njit(inline="always")
def _cell(state, cfield):
    """The lattice cell of ``state``: its failure counters (``cfield`` rows: word, shift, mask, stride)."""
    c = np.int64(0)
    for f in range(cfield.shape[0]):
        if cfield[f, 2] != 0:
            count = (state[cfield[f, 0]] >> np.uint64(cfield[f, 1])) & np.uint64(cfield[f, 2])
            c += np.int64(count) * cfield[f, 3]
    return c


@nb.njit(inline="always")
def _earlier(levels, states, i, ai, j, aj):
    """``(level, key, action)`` of row ``i`` before that of row ``j``: the canonical order of witnesses
    (shallowest level, then smallest key as signed words, then smallest action)."""
    if levels[i] != levels[j]:
        return levels[i] < levels[j]
    for w in range(states.shape[1]):
        x = np.int64(states[i, w])
        y = np.int64(states[j, w])
        if x != y:
            return x < y
    return ai < aj


BATCH_FAULTS_SIG = types.void(SUCC_T, SCHECK_T, I64_1D, U64_2D, I64_1D, I64_1D, I64_1D, types.int64[:, ::1],
                              types.int64[:, ::1], BEST_T, ROWS_T)


@nb.njit(BATCH_FAULTS_SIG, cache=True, nogil=True)
def batch_faults(succ, scheck, params, states, levels, prop_bits, kind_of, cfield, vbest, best, rows):
    """Both passes over a batch of stored states (rows of any levels, in any order), without edges
    (``best`` = (bbest, bact), ``rows`` = (out, oflags): one state's successors).

    ``vbest[p, cell]``: the row of the canonically first state violating property ``p`` in ``cell``;
    ``bbest[p, kind, cell]`` / ``bact``: the canonically first breaking transition (row, action) of that
    action kind into ``cell``, found by expanding every source that satisfies some property and checking
    each successor (a successor's bits are a function of the state: the ones stored for it). Entries are
    -1 where none; entries already set are only replaced by earlier ones, so batches can be reduced by the
    same order (``levels[row]``, then key, then action) wherever they ran."""
    bbest, bact = best
    out, oflags = rows
    nact = len(oflags)
    always = np.uint64(0)
    for p in range(len(prop_bits)):
        always |= np.uint64(1) << np.uint64(prop_bits[p])
    for i in range(states.shape[0]):
        bits = scheck(states[i], params)
        bad = bits & always
        if bad != 0:
            c = _cell(states[i], cfield)
            for p in range(len(prop_bits)):
                if bad & (np.uint64(1) << np.uint64(prop_bits[p])):
                    j = vbest[p, c]
                    if j < 0 or _earlier(levels, states, i, 0, j, 0):
                        vbest[p, c] = i
        ok = ~bits & always
        if ok == 0:
            continue
        succ(states[i], params, out, oflags)
        for a in range(nact):
            if not oflags[a] & 1:
                continue
            hits = scheck(out[a], params) & ok
            if hits == 0:
                continue
            c = _cell(out[a], cfield)
            kind = kind_of[a]
            for p in range(len(prop_bits)):
                if hits & (np.uint64(1) << np.uint64(prop_bits[p])):
                    j = bbest[p, kind, c]
                    if j < 0 or _earlier(levels, states, i, a, j, bact[p, kind, c]):
                        bbest[p, kind, c] = i
                        bact[p, kind, c] = a
