"""Compiled kernels of the Spark engine's level job: who owns a state, the canonical parent, visited runs.

The visited set is hash-partitioned: a state belongs to partition :func:`owner_of` (its fingerprint, so
the same on every process). Each partition keeps its visited keys as a few sorted runs (arrays of packed
words in :func:`explore.step.key_less` order) that only that partition's task reads, searches and merges;
nothing here depends on which task runs where, or in which order a partition's inputs arrive.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from explore.step import key_less, rows_equal
from model.fingerprint import fingerprint_words

OWNER_SHIFT = np.uint64(33)   # high bits of the fingerprint: independent of the low bits hash tables use


@nb.njit(cache=True, nogil=True)
def owner_of(keys, parts):
    """The partition owning each row of ``keys``."""
    out = np.empty(keys.shape[0], np.int64)
    for i in range(keys.shape[0]):
        out[i] = np.int64((fingerprint_words(keys[i]) >> OWNER_SHIFT) % np.uint64(parts))
    return out


@nb.njit(cache=True, nogil=True)
def group_by_owner(owner, parts):
    """``(order, starts)``: the row indices grouped by owner (stable), owner ``q`` at ``order[starts[q]:
    starts[q + 1]]``."""
    starts = np.zeros(parts + 1, np.int64)
    for q in owner:
        starts[q + 1] += 1
    for q in range(parts):
        starts[q + 1] += starts[q]
    fill = starts[:parts].copy()
    order = np.empty(owner.shape[0], np.int64)
    for i in range(owner.shape[0]):
        q = owner[i]
        order[fill[q]] = i
        fill[q] += 1
    return order, starts


def rows_by_owner(keys: np.ndarray, parts: int) -> list[np.ndarray]:
    """Per partition ``q``, the row indices of ``keys`` it owns, in their order."""
    order, starts = group_by_owner(owner_of(np.ascontiguousarray(keys), parts), parts)
    return [order[starts[q]:starts[q + 1]] for q in range(parts)]


@nb.njit(cache=True, nogil=True)
def _link_less(pa, aa, pb, ab):
    """The canonical parent link order: smaller parent key, then smaller action."""
    if key_less(pa, pb):
        return True
    if key_less(pb, pa):
        return False
    return aa < ab


@nb.njit(cache=True, nogil=True)
def canonical_unique(keys, parents, actions):
    """Row indices of one row per distinct key, each the row with the smallest ``(parent key, action)``:
    the local engine's canonical parent, whatever order the rows come in."""
    n = keys.shape[0]
    size = 16
    while size < 2 * n:
        size *= 2
    mask = np.uint64(size - 1)
    table = np.full(size, -1, np.int64)   # position in ``keep``
    keep = np.empty(n, np.int64)
    m = 0
    for i in range(n):
        slot = np.int64(fingerprint_words(keys[i]) & mask)
        while True:
            k = table[slot]
            if k < 0:
                table[slot] = m
                keep[m] = i
                m += 1
                break
            j = keep[k]
            if rows_equal(keys[j], keys[i]):
                if _link_less(parents[i], actions[i], parents[j], actions[j]):
                    keep[k] = i
                break
            slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
    return keep[:m]


def key_order(keys: np.ndarray) -> np.ndarray:
    """Row indices of ``keys`` in canonical key order (words as signed integers, word 0 first); equal rows
    keep their order."""
    signed = keys.view(np.int64)
    if keys.shape[1] == 1:
        return np.argsort(signed[:, 0], kind="stable")
    return np.lexsort(tuple(signed[:, i] for i in range(keys.shape[1] - 1, -1, -1)))


@nb.njit(cache=True, nogil=True)
def gallop(run, c, j):
    """The first row of the sorted ``run`` at or after ``j`` that is not below ``c``: exponential steps
    from ``j``, then a binary search, so a sorted stream of keys walks a run in ``log`` of each gap."""
    m = run.shape[0]
    lo = j
    hi = j
    step = 1
    while hi < m and key_less(run[hi], c):
        lo = hi + 1
        hi = lo + step
        step *= 2
    if hi > m:
        hi = m
    while lo < hi:
        mid = (lo + hi) >> 1
        if key_less(run[mid], c):
            lo = mid + 1
        else:
            hi = mid
    return lo


@nb.njit(cache=True, nogil=True)
def mark_visited(cands, run, found):
    """Set ``found[i]`` for each row of ``cands`` present in ``run`` (both sorted by key, no duplicates):
    a merge that gallops over the run, so a small level costs about ``len(cands) * log(len(run))``."""
    j = 0
    for i in range(cands.shape[0]):
        j = gallop(run, cands[i], j)
        if j < run.shape[0] and rows_equal(run[j], cands[i]):
            found[i] = True
            j += 1


@nb.njit(cache=True, nogil=True)
def merge_runs(a, b, out):
    """``out`` = the sorted union of the disjoint sorted runs ``a`` and ``b``."""
    i = 0
    j = 0
    k = 0
    while i < a.shape[0] and j < b.shape[0]:
        if key_less(b[j], a[i]):
            out[k] = b[j]
            j += 1
        else:
            out[k] = a[i]
            i += 1
        k += 1
    while i < a.shape[0]:
        out[k] = a[i]
        i += 1
        k += 1
    while j < b.shape[0]:
        out[k] = b[j]
        j += 1
        k += 1
