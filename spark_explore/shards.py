"""Compiled kernels of the Spark engine's level job: who owns a state, the canonical parent, visited runs.

The visited set is hash-partitioned: a state belongs to partition :func:`owner_of` (its fingerprint, so
the same on every process). Each partition keeps its visited keys as a few sorted runs (arrays of packed
words in :func:`explore.step.key_less` order) that only that partition's task reads, searches and merges;
nothing here depends on which task runs where, or in which order a partition's inputs arrive.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from explore.keyorder import settle_ties
from explore.step import key_less, rows_equal
from explore.fingerprint import fingerprint_words

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


UNIQUE_CHUNK = 1 << 14   # rows per bucket of unique_by_owner: a bucket's rows and table stay in L2 cache
SUB_SHIFT = np.uint64(20)  # the fingerprint bits that cut an owner's rows into buckets (slots use the lowest)


@nb.njit(cache=True, nogil=True)
def _copy_row(src, i, dst, j):
    for x in range(src.shape[1]):
        dst[j, x] = src[i, x]


@nb.njit(cache=True, nogil=True)
def _unique_bucket(fp, keys, parents, actions, lo, hi, tfp, tpos):
    """Keep one row per distinct key of rows ``[lo, hi)``, the one with the smallest (parent key, action),
    moved to the front of the range in first-occurrence order; returns how many. ``tfp``/``tpos``: a
    scratch table (fingerprint, row) of a power-of-two size at least twice the rows."""
    mask = np.uint64(len(tfp) - 1)
    tpos[:] = -1
    m = lo
    for i in range(lo, hi):
        f = fp[i]
        slot = np.int64(f & mask)
        while True:
            k = tpos[slot]
            if k < 0:
                tpos[slot] = m
                tfp[slot] = f
                if m != i:
                    fp[m] = f
                    _copy_row(keys, i, keys, m)
                    _copy_row(parents, i, parents, m)
                    actions[m] = actions[i]
                m += 1
                break
            if tfp[slot] == f and rows_equal(keys[k], keys[i]):
                if _link_less(parents[i], actions[i], parents[k], actions[k]):
                    _copy_row(parents, i, parents, k)
                    actions[k] = actions[i]
                break
            slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
    return m - lo


@nb.njit(cache=True, nogil=True)
def unique_by_owner(keys, parents, actions, parts, chunk):
    """One row per distinct key, each with the smallest ``(parent key, action)`` among its rows (the local
    engine's canonical parent, whatever order the rows come in), grouped by owner partition: returns
    ``(keys, parents, actions, starts)``, owner ``q``'s rows at ``[starts[q], starts[q + 1])``.

    Cache-conscious: the rows are first copied into buckets of about ``chunk`` rows (by owner, then by
    fingerprint bits), then each bucket is deduplicated with a small table, so the random accesses stay
    in a core's cache (a table over all the rows missed it at every probe: 2-3x slower, measured)."""
    n, w = keys.shape
    per_owner = (n + parts - 1) // parts
    bits = 0
    while (chunk << bits) < per_owner and bits < 12:
        bits += 1
    subs = 1 << bits
    sub_mask = np.uint64(subs - 1)
    nbk = parts * subs
    bounds = np.zeros(nbk + 1, np.int64)
    fp0 = np.empty(n, np.uint64)
    bucket = np.empty(n, np.int64)
    for i in range(n):
        f = fingerprint_words(keys[i])
        fp0[i] = f
        b = np.int64((f >> OWNER_SHIFT) % np.uint64(parts)) * subs + np.int64((f >> SUB_SHIFT) & sub_mask)
        bucket[i] = b
        bounds[b + 1] += 1
    for b in range(nbk):
        bounds[b + 1] += bounds[b]
    fill = bounds[:nbk].copy()
    fp = np.empty(n, np.uint64)
    ks = np.empty((n, w), np.uint64)
    ps = np.empty((n, w), np.uint64)
    acts = np.empty(n, actions.dtype)
    for i in range(n):   # stable: a bucket keeps the rows' arrival order
        j = fill[bucket[i]]
        fill[bucket[i]] += 1
        fp[j] = fp0[i]
        _copy_row(keys, i, ks, j)
        _copy_row(parents, i, ps, j)
        acts[j] = actions[i]
    size = 16
    for b in range(nbk):
        while size < 2 * (bounds[b + 1] - bounds[b]):
            size *= 2
    tfp = np.empty(size, np.uint64)
    tpos = np.empty(size, np.int64)
    starts = np.zeros(parts + 1, np.int64)
    m = 0
    for b in range(nbk):
        lo, hi = bounds[b], bounds[b + 1]
        size = 16
        while size < 2 * (hi - lo):
            size *= 2
        kept = _unique_bucket(fp, ks, ps, acts, lo, hi, tfp[:size], tpos[:size])
        for i in range(lo, lo + kept):   # close the gaps the buckets' duplicates left
            if m != i:
                _copy_row(ks, i, ks, m)
                _copy_row(ps, i, ps, m)
                acts[m] = acts[i]
            m += 1
        starts[b // subs + 1] = m
    return ks[:m], ps[:m], acts[:m], starts


def key_order(keys: np.ndarray) -> np.ndarray:
    """Row indices of ``keys`` in canonical key order (words as signed integers, word 0 first); equal rows
    keep their order. Sorted by word 0, then each run of equal first words by the rest (3x faster than
    ``np.lexsort`` on two-word states, measured)."""
    signed = keys.view(np.int64)
    if keys.shape[1] == 1:
        return np.argsort(signed[:, 0], kind="stable")
    order = np.argsort(signed[:, 0])
    settle_ties(np.ascontiguousarray(keys), 0, order)
    return order


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
