"""The compiled passes of the failure-mode analysis (:mod:`explore.faults`) over a finished exhaustive
exploration's stored states and edges. They take the model's compiled ``successors`` and the properties'
``state_check`` as first-class function values, like the explorer's kernel, and import nothing but the
kernel signatures, so the kernel cache key (:mod:`model.kernel_cache`) does not cover the pure-Python
analysis around them.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from model.packed import STATE_CHECK_SIG, SUCCESSORS_SIG

SUCC_T = types.FunctionType(SUCCESSORS_SIG)
SCHECK_T = types.FunctionType(STATE_CHECK_SIG)
U64_2D = types.uint64[:, ::1]
I64_1D = types.int64[::1]


@nb.njit(types.void(SCHECK_T, I64_1D, U64_2D, types.int64, types.uint64[::1]), cache=True, nogil=True)
def check_states(scheck, params, states, count, bits):
    """``bits[i]`` = the property bits of stored state ``i``."""
    for i in range(count):
        bits[i] = scheck(states[i], params)


BREAKING_SIG = types.void(SUCC_T, I64_1D, U64_2D, types.int64, types.uint64[::1], I64_1D, I64_1D,
                          types.int32[::1], I64_1D, I64_1D, U64_2D, I64_1D,
                          types.int64[:, :, ::1], types.int64[:, :, ::1])


@nb.njit(BREAKING_SIG, cache=True, nogil=True)
def breaking_transitions(succ, params, states, count, bits, cells, row_start, edges, prop_bits, kind_of,
                         out, oflags, best_src, best_act):
    """Per (property ``p`` of ``prop_bits``, action kind, target cell): the first breaking transition in
    (source index, action index) order, into ``best_src[p, kind, cell]`` / ``best_act`` (-1: none).

    Sources are visited in stored order (level, then key), so the first one found is the canonical
    shallowest. The successors of a source are generated only when one of its edges breaks a property,
    to learn which action each edge is."""
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
