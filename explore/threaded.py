"""The local engine's levels on several threads, with the results of one thread.

A level is expanded in rounds. A round cuts a run of the level's states into contiguous slices, in index
order (the level is sorted by key, so index order is key order); the threads take the slices one by one
from an atomic counter. Its phases, each one parallel, with a barrier between them:

A. :func:`expand_slices`: a thread generates and checks a slice's successors (the shared step,
   :func:`explore.step.generate`) and looks each one up, first among the slice's own candidates, then in
   the visited set, which nothing writes during the phase. A successor found in neither is a
   *candidate*, written to the slice's own buffer with its hash, its source and action, and its owner:
   the table region (one per thread) its hash falls in.
B. :func:`dedup_owner`: each owner goes through the candidates it owns, slice after slice, each slice's in
   order, and keeps the first of each distinct state: the one with the smallest (source index, action),
   which is the canonical parent, exactly as when one thread expands the level in index order.
C. :func:`place_owner`: once every owner's count of new states is known, owner ``o`` stores its states
   at its own range of indices, files them in its own table region (regions are disjoint, so no locks),
   and checks them (witness candidates per owner, compared by key).
D. :func:`resolve_edges` (graph properties only): each slice's edges go to their place in the edge list,
   a candidate's placeholder replaced by the index its owner gave it.

At the end of the level, :func:`bucket_level`, :func:`scatter_level` and :func:`sort_bucket` sort it by
key as a sample sort (one key range per thread), and :func:`relink_owner` / :func:`relink_edges` /
:func:`gather` move it into that order, in parallel too. Since every level ends sorted by key and every
choice above follows (level, key, action) order, the states, parents, traces, witnesses and edge lists are
the same for every thread count, and the same as the one-thread kernel's (:mod:`explore.kernel`), which
small levels still use.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from model.native import kernel

from . import kernel as K
from .atomic import claim, fetch_add
from .kernel import HIGH32, REHASH_AHEAD, ROWS_T, SCHECK_T, VISITED_T, check_new, home_of, owner_of, state_hash
from .step import ENABLED, I64_1D, SUCC_T, TCHECK_T, U64_2D, generate, key_less, rows_equal

# per-thread slots of a round (``tio``)
T_NCAND = 0      # candidates written
T_TRANS = 1      # transitions generated
T_EDGES = 2      # edges written
T_NLEAF = 3      # states left unexpanded (every watched always property violated)
T_TERMINAL = 4   # index + 1 of the first terminal state of the slice (0: none)
T_ERR_STATE = 5
T_ERR_ACTION = 6
T_ERR_FLAGS = 7
T_POS = 8        # the state being expanded (where an exception in model code was raised)
T_STATUS = 9     # S_STARTED, S_DONE or S_ERROR (0: not taken)
T_SIZE = 10

S_STARTED = 1
S_DONE = 2
S_ERROR = 3

I32_1D = types.int32[::1]
I16_1D = types.int16[::1]

@kernel(inline=True)
def _local_slot(local, h):
    # the hash's middle bits: its low bits choose the table slot, its high bits the owner
    return np.int64((h >> np.uint64(20)) & np.uint64(len(local) - 1))


@kernel
def _emitted(local, cand_h, cand_rows, h, row):
    """The candidate ``c`` this thread already made of ``row`` in this round, or -1: a duplicate found
    here never reaches its owner (its first candidate, with a smaller (source, action), stands for it)."""
    slot = _local_slot(local, h)
    mask = len(local) - 1
    while True:
        r = local[slot] - 1
        if r < 0:
            return np.int64(-1)
        if cand_h[r] == h and rows_equal(cand_rows[r], row):
            return r
        slot = (slot + 1) & mask


@kernel
def _remember(local, lfill, h, c):
    """Note candidate ``c`` in the thread's set while it is at most half full (later ones are only
    deduplicated by their owner); returns the new fill."""
    if 2 * (lfill + 1) > len(local):
        return lfill
    slot = _local_slot(local, h)
    mask = len(local) - 1
    while local[slot] != 0:
        slot = (slot + 1) & mask
    local[slot] = c + 1
    return lfill + 1


@kernel
def _expand_slice(succ, tcheck, params, visited, masks, lo, hi, c0, cand_rows, cand_h, cand_slot, cand_src,
                  cand_act, cand_owner, cand_rank, tio, owner_count, wit_src, wit_act, rows, hashes, tally, edges_t,
                  graph, leaves, local):
    """Phase A for the slice ``[lo, hi)``: candidates from ``c0`` on, edges into ``edges_t`` (a candidate
    as ``-1 - c``), ``row_start`` relative to the slice's first edge; returns a kernel status."""
    states = visited.states
    table = visited.table
    regions = visited.regions
    out = rows.out
    oflags = rows.oflags
    nact = len(oflags)
    words = states.shape[1]
    trans_watch = masks[K.MK_TRANS_WATCH]
    for i in range(len(local)):
        local[i] = 0
    lfill = 0
    for src in range(lo, hi):
        tio[T_POS] = src
        if graph:
            visited.row_start[src] = tio[T_EDGES]
        if leaves and visited.noexp[src] != 0:
            tio[T_NLEAF] += 1
            continue
        enabled = generate(succ, tcheck, params, states, src, out, oflags, trans_watch, wit_src, wit_act, tally)
        if enabled < 0:
            tio[T_ERR_STATE] = src
            tio[T_ERR_ACTION] = -1 - enabled
            tio[T_ERR_FLAGS] = oflags[-1 - enabled]
            return K.ST_ERROR
        tio[T_TRANS] += enabled
        if enabled == 0 and tio[T_TERMINAL] == 0:
            tio[T_TERMINAL] = src + 1
        for a in range(nact):
            if oflags[a] & ENABLED:
                h = state_hash(out[a])
                slot, tag = home_of(table, regions, out[a], h)
                hashes[a] = h
                rows.homes[a] = slot
                rows.tags[a] = tag
                K._prefetch_home(table, words, slot)
        for a in range(nact):
            if not oflags[a] & ENABLED:
                continue
            if rows_equal(out[a], states[src]):
                j = np.int64(src)
            else:
                # a candidate of this slice already (not in the visited set, then): its placeholder, and no
                # lookup in the table (BFS meets most new states from several sources of the same level)
                r = _emitted(local, cand_h, cand_rows, hashes[a], out[a])
                j = -1 - r
                slot = rows.homes[a]
                if r < 0:
                    j, slot, _ = K._probe(states, table, regions, out[a], rows.homes[a], rows.tags[a])
                if j == -1 and r < 0:
                    c = c0 + tio[T_NCAND]
                    tio[T_NCAND] += 1
                    for w in range(words):
                        cand_rows[c, w] = out[a, w]
                    cand_h[c] = hashes[a]
                    cand_slot[c] = slot   # where its lookup ended: phase C files it there or after
                    cand_src[c] = src
                    cand_act[c] = a
                    o = owner_of(hashes[a], regions[0])
                    cand_owner[c] = o
                    cand_rank[c] = owner_count[o]   # its place among this thread's candidates of owner o
                    owner_count[o] += 1
                    j = -1 - c
                    lfill = _remember(local, lfill, hashes[a], c)
            if graph:
                edges_t[tio[T_EDGES]] = j
                tio[T_EDGES] += 1
    return K.ST_LEVEL_DONE


DEDUP_SIG = types.int64(types.int64, types.int64, I64_1D, U64_2D, types.uint64[::1], I32_1D, I64_1D, I64_1D,
                        I64_1D, types.int64)


EXPAND_SLICES_SIG = types.void(SUCC_T, TCHECK_T, I64_1D, VISITED_T, types.uint64[::1], I64_1D, types.int64, U64_2D,
                               types.uint64[::1], I64_1D, I32_1D, I16_1D, I32_1D, I32_1D, types.int64[:, ::1],
                               types.int64[:, ::1], types.int64[:, ::1], types.int64[:, ::1], ROWS_T,
                               types.uint64[::1], types.int64[:, ::1], types.int64, I64_1D, types.int64, types.int64,
                               I64_1D, I64_1D)


@nb.njit(EXPAND_SLICES_SIG, cache=True, nogil=True, _nrt=False)
def expand_slices(succ, tcheck, params, visited, masks, bounds, capacity, cand_rows, cand_h, cand_slot, cand_src,
                  cand_act, cand_owner, cand_rank, tio, owner_count, wit_src, wit_act, rows, hashes, tally, tally_size,
                  edges_t, graph, leaves, local, counter):
    """Phase A on one thread: slices ``s`` (states ``[bounds[s], bounds[s + 1])``) taken one by one from
    ``counter`` until none is left; each writes only its own rows (``tio[s]``, ``owner_count[s]``,
    ``tally[s]``, its witnesses) and its own candidates ``[s * capacity, ...)``; ``tio[s, T_STATUS]`` says
    how far it got. ``rows``, ``hashes`` and ``local`` are this thread's scratch."""
    slices = len(bounds) - 1
    while True:
        s = fetch_add(counter, 0, 1)
        if s >= slices:
            return
        tio[s, T_STATUS] = S_STARTED
        status = _expand_slice(succ, tcheck, params, visited, masks, bounds[s], bounds[s + 1], s * capacity,
                               cand_rows, cand_h, cand_slot, cand_src, cand_act, cand_owner, cand_rank, tio[s],
                               owner_count[s], wit_src[s], wit_act[s], rows, hashes, tally[s, :tally_size],
                               edges_t[s * capacity:] if graph else edges_t, graph, leaves, local)
        tio[s, T_STATUS] = S_ERROR if status == K.ST_ERROR else S_DONE


@nb.njit(DEDUP_SIG, cache=True, nogil=True, _nrt=False)
def dedup_owner(o, capacity, ncand, cand_rows, cand_h, cand_owner, seen, visit_res, new_ref, ref0):
    """Phase B for owner ``o``: thread ``t``'s candidates are ``[t * capacity, t * capacity + ncand[t])``.
    The first of each distinct state gets the next owner-local number (``new_ref[ref0 + k]`` is its
    candidate); the number of the owner's ``v``-th candidate, in the order visited, goes to
    ``visit_res[ref0 + v]`` (the owner's own section: owners never write the same cache line). ``seen`` is
    an empty scratch set, a power of two at least twice the owner's candidates long, of one word per
    entry (half the memory to clear and to cache of two): candidate + 1 in its low half, number in its
    high half. Returns the number of new states."""
    mask = np.uint64(len(seen) - 1)
    n_new = 0
    v = ref0
    for t in range(len(ncand)):
        for c in range(t * capacity, t * capacity + ncand[t]):
            if cand_owner[c] != o:
                continue
            h = cand_h[c]
            slot = np.int64(h & mask)
            while True:
                e = seen[slot]
                if e == 0:
                    seen[slot] = (n_new << 32) | (c + 1)
                    visit_res[v] = n_new
                    new_ref[ref0 + n_new] = c
                    n_new += 1
                    break
                r = (e & 0xFFFFFFFF) - 1
                if cand_h[r] == h and rows_equal(cand_rows[r], cand_rows[c]):
                    visit_res[v] = e >> 32
                    break
                slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
            v += 1
    return n_new


PLACE_SIG = types.void(SCHECK_T, I64_1D, VISITED_T, types.uint64[::1], I64_1D, types.int64, types.int64, I64_1D,
                       types.int64, types.int64, U64_2D, types.uint64[::1], I64_1D, I32_1D, I16_1D, types.int64,
                       types.int64, types.int64)


@nb.njit(PLACE_SIG, cache=True, nogil=True, _nrt=False)
def place_owner(scheck, params, visited, masks, wit_state, o, base, new_ref, ref0, n_new, cand_rows, cand_h,
                cand_slot, cand_src, cand_act, graph, leaves, regrown):
    """Phase C for owner ``o``: its ``n_new`` states at ``[base, base + n_new)``, filed in its region and
    checked (witness candidates into this owner's ``wit_state``). A new state is in no slot, so it goes
    to the first empty one from where its phase-A lookup ended (from its home when the table was
    ``regrown`` since): the slots before stay taken."""
    states = visited.states
    table = visited.table
    regions = visited.regions
    words = states.shape[1]
    ahead = 8
    for k in range(n_new):
        if k + ahead < n_new and not regrown:
            K._prefetch_home(table, words, cand_slot[new_ref[ref0 + k + ahead]])
        c = new_ref[ref0 + k]
        j = base + k
        for w in range(words):
            states[j, w] = cand_rows[c, w]
        visited.parent[j] = cand_src[c]
        visited.via[j] = cand_act[c]
        slot, tag = home_of(table, regions, states[j], cand_h[c])
        if not regrown:
            slot = cand_slot[c]
        K._put(table, words, K.free_slot_from(table, regions, words, slot), tag, j)
        check_new(scheck, params, visited, masks, wit_state, j, graph, leaves)
    visited.fill[o] += n_new


@nb.njit(types.void(I64_1D, types.int64, types.int64, types.int32[::1], types.int64, I32_1D, I32_1D, I64_1D,
                    I64_1D, I64_1D, I64_1D, types.int64, types.int64), cache=True, nogil=True, _nrt=False)
def resolve_edges(edges_t, e_from, n_edges, edges, e_base, cand_owner, cand_rank, visit_res, visit_from, owner_base,
                  row_start, lo, hi):
    """Phase D for one thread: its ``n_edges`` edges (from ``edges_t[e_from]``) to ``edges[e_base:]``, each
    candidate placeholder replaced by its state's index (owner ``o`` visited this thread's candidates from
    ``visit_res[visit_from[o]]`` on, in order); its states' ``row_start`` made absolute."""
    for k in range(n_edges):
        e = edges_t[e_from + k]
        if e < 0:
            c = -1 - e
            o = cand_owner[c]
            e = owner_base[o] + visit_res[visit_from[o] + cand_rank[c]]
        edges[e_base + k] = e
    for src in range(lo, hi):
        row_start[src] += e_base


@nb.njit(types.void(U64_2D, types.int64, types.int64, types.uint64[::1], types.int64, types.int64, I64_1D),
         cache=True, nogil=True, _nrt=False)
def refile_range(states, lo, hi, table, owners, region_slots, fill):
    """The grown table on threads: file the stored states ``[lo, hi)`` (this thread's range) while the other
    threads file theirs. A slot is taken by one atomic claim of its index word, so no two states take the
    same one; no thread compares keys meanwhile (the states are distinct), so a key written just after its
    claim is never read early. Each region's count goes to this thread's own row ``fill``."""
    words = states.shape[1]
    regions = (owners, region_slots)
    smask = np.uint64(region_slots - 1)
    for i in range(lo, hi):
        if i + REHASH_AHEAD < hi:   # start a later state's cache miss now (hashing it twice costs less)
            ahead = states[i + REHASH_AHEAD]
            K._prefetch_home(table, words, home_of(table, regions, ahead, state_hash(ahead))[0])
        h = state_hash(states[i])
        slot, tag = home_of(table, regions, states[i], h)
        base = np.uint64(slot) & ~smask
        ref = np.uint64(i + 1)
        if words == 1:
            while not claim(table, 2 * slot + 1, ref):
                slot = np.int64(base | ((np.uint64(slot) + np.uint64(1)) & smask))
            table[2 * slot] = tag
        else:
            entry = (tag << HIGH32) | ref
            while not claim(table, slot, entry):
                slot = np.int64(base | ((np.uint64(slot) + np.uint64(1)) & smask))
        fill[owner_of(h, owners)] += 1


@nb.njit(types.void(U64_2D, U64_2D, types.int64, types.int64, I32_1D, I64_1D, types.int8[::1], types.int64),
         cache=True, nogil=True, _nrt=False)
def bucket_level(states, splitters, lo, hi, bucket, counts, own, owners):
    """Sort step 1 for the states ``[lo, hi)`` (one slice of the level; ``bucket`` and ``own`` are the
    slice's): the key range of each state (binary search over ``splitters``), counted per range, and its
    owner region."""
    nb_ = splitters.shape[0]
    for i in range(lo, hi):
        row = states[i]
        left = 0
        right = nb_
        while left < right:           # first splitter greater than the row
            mid = (left + right) // 2
            if key_less(row, splitters[mid]):
                right = mid
            else:
                left = mid + 1
        bucket[i - lo] = left
        counts[left] += 1
        own[i - lo] = owner_of(state_hash(row), owners)


@nb.njit(types.void(I32_1D, types.int64, I64_1D, I64_1D), cache=True, nogil=True, _nrt=False)
def scatter_level(bucket, first, cursor, order):
    """Sort step 2 for one slice (level-local indices from ``first``): each state's index to its range's
    next place (``cursor`` per range, advanced)."""
    for k in range(len(bucket)):
        b = bucket[k]
        order[cursor[b]] = first + k
        cursor[b] += 1


@nb.njit(types.void(U64_2D, types.int64, I64_1D), cache=True, nogil=True)
def sort_bucket(states, lo, segment):
    """Sort step 3: the level-local indices ``segment`` (one key range) in key order, in place: a sort by
    each word, last word first, every pass after the first stable (words compare as signed integers)."""
    n = len(segment)
    if n < 2:
        return
    keys = np.empty(n, np.int64)
    last = states.shape[1] - 1
    for w in range(last, -1, -1):
        for k in range(n):
            keys[k] = np.int64(states[lo + segment[k], w])
        # the first pass has no order to keep; each later one keeps the order of the words after it
        perm = np.argsort(keys) if w == last else np.argsort(keys, kind="mergesort")
        segment[:] = segment[perm]


@nb.njit(types.void(U64_2D, types.uint64[::1], types.UniTuple(types.int64, 2), types.int64, types.int8[::1],
                    I64_1D, types.int64), cache=True, nogil=True, _nrt=False)
def relink_owner(states, table, regions, lo, own, new_pos, o):
    """Point region ``o``'s table entries of the level ``[lo, lo + len(own))`` at their sorted positions."""
    words = states.shape[1]
    for i in range(len(own)):
        if own[i] != o:
            continue
        j, slot, tag = K._find(states, table, regions, states[lo + i])
        K._put(table, words, slot, tag, new_pos[i])


@nb.njit(types.void(types.int32[::1], types.int64, types.int64, types.int64, types.int64, I64_1D), cache=True,
         nogil=True, _nrt=False)
def relink_edges(edges, e0, e1, lo, hi, new_pos):
    """The edges ``edges[e0:e1]`` that reach the level ``[lo, hi)`` point at its sorted positions."""
    for e in range(e0, e1):
        d = np.int64(edges[e])
        if lo <= d < hi:
            edges[e] = new_pos[d - lo]


@nb.njit(types.void(I64_1D, types.int64, types.int64, types.int64, I64_1D), cache=True, nogil=True, _nrt=False)
def invert_order(order, lo, k0, k1, new_pos):
    """``new_pos[order[k]] = lo + k`` for ``k`` in ``[k0, k1)``: where each state of the level goes."""
    for k in range(k0, k1):
        new_pos[order[k]] = lo + k


@nb.njit(cache=True, nogil=True)
def gather(array, lo, order, k0, k1, out):
    """``out[k] = array[lo + order[k]]`` for ``k`` in ``[k0, k1)`` (rows or scalars)."""
    for k in range(k0, k1):
        out[k] = array[lo + order[k]]


@nb.njit(cache=True, nogil=True)
def put_back(array, lo, moved, k0, k1):
    """``array[lo + k] = moved[k]`` for ``k`` in ``[k0, k1)``."""
    for k in range(k0, k1):
        array[lo + k] = moved[k]


@nb.njit(types.void(U64_2D, I64_1D, I64_1D), cache=True, nogil=True, _nrt=False)
def merge_state_witnesses(states, wit_state, candidates):
    """Per property bit, the smallest key among ``wit_state`` and the candidates (rows of 64, one per
    owner, flattened), into ``wit_state``."""
    for k in range(len(candidates)):
        j = candidates[k]
        b = k % 64
        if j < 0:
            continue
        cur = wit_state[b]
        if cur < 0 or key_less(states[j], states[cur]):
            wit_state[b] = j
