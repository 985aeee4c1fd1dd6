"""The compiled passes of the eventually properties over the stored reachable graph (CSR ``row_start`` /
``edges``, the action of each edge): labelling, the states that may stutter, strongly connected
components and their fairness, backward reachability and shortest paths. :mod:`explore.liveness` decides
the properties with them (its docstring has the method and the canonical lasso rule).

They import only the kernel signatures, so the kernel cache key (:mod:`explore.kernel_cache`) does not cover
the pure-Python decision around them.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from explore.packed import EVENTUALLY_MASKS_SIG

from .step import ENABLED, SUCC_T

NO_COMPONENT = -1
MAX_INSTANCES = 8     # an eventually property ranges over at most 8 instances (messages <= 8)
MASKS_T = types.FunctionType(EVENTUALLY_MASKS_SIG)


# -- the action of every edge, and P / Q of every state ------------------------------------------------
@nb.njit(types.int64(SUCC_T, types.int64[::1], types.uint64[:, ::1], types.int64, types.int64, types.int64[::1],
                     types.int16[::1], types.uint64[:, ::1], types.int64[::1]), cache=True, nogil=True)
def label_edges(succ, params, states, lo, hi, row_start, act, out, oflags):
    """For the states ``[lo, hi)`` of a graph stored without its edges' actions (the Spark engine's, a
    test's): fill ``act[e]`` with the action of every edge (the k-th edge of a state is its k-th enabled
    action). Returns -1, or the first state whose enabled actions do not match its stored edges."""
    for i in range(lo, hi):
        succ(states[i], params, out, oflags)
        e = row_start[i]
        for a in range(len(oflags)):
            if oflags[a] & ENABLED:
                if e >= row_start[i + 1]:
                    return i
                act[e] = a
                e += 1
        if e != row_start[i + 1]:
            return i
    return -1


@nb.njit(types.int64(MASKS_T, types.int64[::1], types.uint64[:, ::1], types.int64, types.int64, types.int64[::1],
                     types.uint8[:, ::1], types.uint64[::1]), cache=True, nogil=True)
def label_states(masks, params, states, lo, hi, bits, pq, buf):
    """For the states ``[lo, hi)``: ``pq[i, 2k]`` / ``pq[i, 2k + 1]``, the P / Q masks of the eventually
    property of bit ``bits[k]`` (at most :data:`MAX_INSTANCES` instances: a byte per state each). Returns -1,
    or the first state whose masks do not fit a byte."""
    for i in range(lo, hi):
        if len(bits):
            masks(states[i], params, buf)
            for k in range(len(bits)):
                if buf[2 * bits[k]] > 255 or buf[2 * bits[k] + 1] > 255:
                    return i
                pq[i, 2 * k] = buf[2 * bits[k]]
                pq[i, 2 * k + 1] = buf[2 * bits[k] + 1]
    return -1


# -- fair end states ----------------------------------------------------------------------------------
@nb.njit(cache=True, nogil=True)
def may_stutter(row_start, edges, act, fair, n):
    """Per state, 1 when no fair action instance is enabled in it (a self-loop is no step): a run may stay
    there for ever."""
    out = np.ones(n, np.uint8)
    for s in range(n):
        for e in range(row_start[s], row_start[s + 1]):
            if edges[e] != s and fair[act[e]]:
                out[s] = 0
                break
    return out


@nb.njit(cache=True, nogil=True)
def components(row_start, edges, alive, comp):
    """Tarjan's strongly connected components (iteratively) of the edges between ``alive`` states, self-
    loops left out: ``comp[s]`` gets its component's number (in order of completion; -1 for a state not
    alive). Returns the number of components."""
    n = len(alive)
    index = np.full(n, -1, np.int32)
    low = np.zeros(n, np.int32)
    onstack = np.zeros(n, np.uint8)
    stack = np.empty(n, np.int32)
    call = np.empty(n, np.int32)
    next_edge = np.empty(n, np.int64)
    counter = 0
    ncomp = 0
    sp = 0
    for s in range(n):
        comp[s] = -1
    for root in range(n):
        if not alive[root] or index[root] >= 0:
            continue
        cp = 0
        call[0] = root
        next_edge[0] = row_start[root]
        index[root] = counter
        low[root] = counter
        counter += 1
        stack[sp] = root
        sp += 1
        onstack[root] = 1
        while cp >= 0:
            v = call[cp]
            e = next_edge[cp]
            if e < row_start[v + 1]:
                next_edge[cp] = e + 1
                w = edges[e]
                if w == v or not alive[w]:
                    continue
                if index[w] < 0:
                    index[w] = counter
                    low[w] = counter
                    counter += 1
                    stack[sp] = w
                    sp += 1
                    onstack[w] = 1
                    cp += 1
                    call[cp] = w
                    next_edge[cp] = row_start[w]
                elif onstack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            if low[v] == index[v]:
                while True:
                    sp -= 1
                    w = stack[sp]
                    onstack[w] = 0
                    comp[w] = ncomp
                    if w == v:
                        break
                ncomp += 1
            cp -= 1
            if cp >= 0:
                u = call[cp]
                if low[v] < low[u]:
                    low[u] = low[v]
    return ncomp


@nb.njit(cache=True, nogil=True)
def judge_components(row_start, edges, act, fair, comp, ncomp, alive, strong, fair_comp, next_id, nact):
    """One round of the fairness test over the components ``comp`` of the ``alive`` states: a fair
    component's states get its number in ``fair_comp`` (from ``next_id`` on) and leave ``alive``; so do the
    states of a one-state component and of a component that fails the weak test; a component that fails
    the strong test loses only its states that enable an offending action (the rest is split again next
    round). Returns the next free component number."""
    n = len(alive)
    # the states of each component, contiguous (a counting sort by component number)
    start = np.zeros(ncomp + 1, np.int64)
    for s in range(n):
        if comp[s] >= 0:
            start[comp[s] + 1] += 1
    for c in range(ncomp):
        start[c + 1] += start[c]
    members = np.empty(start[ncomp], np.int32)
    fill = start[:ncomp].copy()
    for s in range(n):
        c = comp[s]
        if c >= 0:
            members[fill[c]] = s
            fill[c] += 1
    enabled_in = np.zeros(nact, np.int64)     # states of the component enabling the action
    taken = np.zeros(nact, np.uint8)          # an edge inside the component takes it
    stamp = np.full(nact, -1, np.int64)
    touched = np.empty(nact, np.int64)
    bad = np.zeros(nact, np.uint8)
    for c in range(ncomp):
        lo = start[c]
        hi = start[c + 1]
        size = hi - lo
        if size == 1:
            alive[members[lo]] = 0
            continue
        nt = 0
        for j in range(lo, hi):
            s = members[j]
            for e in range(row_start[s], row_start[s + 1]):
                a = act[e]
                d = edges[e]
                if d == s or not fair[a]:
                    continue
                if stamp[a] != s:
                    if stamp[a] < 0:
                        touched[nt] = a
                        nt += 1
                    stamp[a] = s
                    enabled_in[a] += 1
                if comp[d] == c:
                    taken[a] = 1
        unfair = False
        for k in range(nt):
            a = touched[k]
            if not taken[a] and (strong or enabled_in[a] == size):
                bad[a] = 1
                unfair = True
        if not unfair:
            for j in range(lo, hi):
                fair_comp[members[j]] = next_id
                alive[members[j]] = 0
            next_id += 1
        else:
            for j in range(lo, hi):
                s = members[j]
                if not strong:
                    alive[s] = 0
                    continue
                for e in range(row_start[s], row_start[s + 1]):
                    if edges[e] != s and bad[act[e]]:
                        alive[s] = 0
                        break
        for k in range(nt):
            a = touched[k]
            enabled_in[a] = 0
            taken[a] = 0
            stamp[a] = -1
            bad[a] = 0
    return next_id


@nb.njit(cache=True, nogil=True)
def reach_backwards(row_start, edges, allowed, target):
    """Per state, 1 when it is ``allowed`` and reaches a ``target`` state along ``allowed`` states (targets
    are allowed states themselves)."""
    n = len(allowed)
    first = np.zeros(n + 1, np.int64)
    for s in range(n):
        if allowed[s]:
            for e in range(row_start[s], row_start[s + 1]):
                d = edges[e]
                if d != s and allowed[d]:
                    first[d + 1] += 1
    for d in range(n):
        first[d + 1] += first[d]
    preds = np.empty(first[n], np.int32)
    cursor = first[:n].copy()
    for s in range(n):
        if allowed[s]:
            for e in range(row_start[s], row_start[s + 1]):
                d = edges[e]
                if d != s and allowed[d]:
                    preds[cursor[d]] = s
                    cursor[d] += 1
    reach = np.zeros(n, np.uint8)
    queue = np.empty(n, np.int32)
    tail = 0
    for s in range(n):
        if allowed[s] and target[s]:
            reach[s] = 1
            queue[tail] = s
            tail += 1
    head = 0
    while head < tail:
        d = queue[head]
        head += 1
        for k in range(first[d], first[d + 1]):
            s = preds[k]
            if not reach[s]:
                reach[s] = 1
                queue[tail] = s
                tail += 1
    return reach


@nb.njit(cache=True, nogil=True)
def shortest_path(row_start, edges, allowed, start, goal):
    """Breadth-first from ``start`` along ``allowed`` states (successors in edge order) to the first
    ``goal`` state met (``start`` itself when it is one): ``(found, its edge indices in order)``."""
    if goal[start]:
        return True, np.empty(0, np.int64)
    n = len(allowed)
    via = np.full(n, -1, np.int64)      # the edge that reached each state
    queue = np.empty(n, np.int32)
    seen = np.zeros(n, np.uint8)
    seen[start] = 1
    queue[0] = start
    head = 0
    tail = 1
    while head < tail:
        s = queue[head]
        head += 1
        for e in range(row_start[s], row_start[s + 1]):
            d = edges[e]
            if seen[d] or not allowed[d]:
                continue
            seen[d] = 1
            via[d] = e
            if goal[d]:
                length = 0
                x = d
                while x != start:
                    length += 1
                    x = _source(row_start, via[x])
                path = np.empty(length, np.int64)
                x = d
                for k in range(length - 1, -1, -1):
                    path[k] = via[x]
                    x = _source(row_start, via[x])
                return True, path
            queue[tail] = d
            tail += 1
    return False, np.empty(0, np.int64)


@nb.njit(cache=True, nogil=True, inline="always")
def _source(row_start, e):
    """The state whose edge ``e`` is (``row_start`` is sorted)."""
    return np.searchsorted(row_start, e, side="right") - 1
