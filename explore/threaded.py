"""The local engine's levels on several threads, with the results of one thread.

A level is expanded in rounds. A round cuts a run of the level's states into contiguous slices, in index
order (the level is sorted by key, so index order is key order); the threads take the slices one by one
from an atomic counter (:func:`expand_slices`). A thread generates and checks a slice's successors (the
shared step, :func:`explore.step.generate`) and looks each one up in the one hash table every thread
shares (:func:`_find_or_file`). A state found nowhere is filed at once: the thread claims the empty slot
it reached (an atomic compare-and-swap, so two threads meeting the same new state agree on which files
it), takes the next index of its block (``BLOCK`` indices taken at once with an atomic add), writes the
state, then publishes the index in the slot (a release store); a thread that meets a claimed slot not yet
published waits the few instructions until it is. The filing thread checks the state (witness candidates
per thread, compared by key). At the end of the round :func:`close_blocks` moves the states after the
unused ends of the threads' last blocks into them, so the stored states have no gaps.

A state's parent is the smallest (source index, action) that reaches it, as when one thread expands the
level in index order: every finder of a state filed in this round lowers its ``best`` (an atomic minimum;
states of earlier rounds were reached from smaller sources already), and the round's parents are read
from ``best`` once the threads are done. Each slice keeps its own counters, coverage tally, transition
witnesses and edges (a new state's index as it was taken), folded in slice order.

At the end of the level, :func:`bucket_level`, :func:`scatter_level` and :func:`sort_bucket` sort it by
key as a sample sort (one key range per thread), and :func:`relink_owner` / :func:`relink_edges` /
:func:`gather` move it into that order, in parallel too. Since every level ends sorted by key and every
choice above follows (level, key, action) order, the states, parents, traces, witnesses and edge lists are
the same for every thread count, and the same as the one-thread kernel's (:mod:`explore.kernel`), which
small levels still use.
"""
from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
from numba import types

from model.native import kernel, scratch

from . import kernel as K
from .funcaddr import ADDRESSES, address_table, function_at
from .atomic import acquire_fence, claim, compare_swap, fetch_add, load_acquire, store_release
from .kernel import HIGH32, LOW32, SCHECK_T, VISITED_T, check_new, home_of, owner_of, state_hash
from .keyorder import settle_ties
from .step import ENABLED, I64_1D, SUCC_T, TCHECK_T, U64_2D, generate, key_less, rows_equal

# per-slice slots of a round (``tio``)
T_TRANS = 0      # transitions generated
T_EDGES = 1      # edges written
T_NLEAF = 2      # states left unexpanded (every watched always property violated)
T_TERMINAL = 3   # index + 1 of the first terminal state of the slice (0: none)
T_ERR_STATE = 4
T_ERR_ACTION = 5
T_ERR_FLAGS = 6
T_POS = 7        # the state being expanded (where an exception in model code was raised)
T_STATUS = 8     # S_STARTED, S_DONE or S_ERROR (0: not taken)
T_SIZE = 9

S_STARTED = 1
S_DONE = 2
S_ERROR = 3

# a claimed slot's index word while its claimer writes the state (one-word states: the whole word; wider
# states: the index half beside the tag)
BUSY_WORD = np.uint64(1 << 63)
BUSY_REF = np.uint64(0xFFFFFFFF)
ACTION_BITS = 16   # ``best``: source index << ACTION_BITS | action

# a thread's block of state indices (``block``): the next one, the end, how many it takes at once. Taking
# BLOCK indices at a time keeps each thread's new rows, parents and slots off the other threads' cache
# lines and takes one atomic add per block, not per state; the unused ends are closed at the round's end
B_NEXT = 0
B_END = 1
B_SIZE = 2
BLOCK = 64

I32_1D = types.int32[::1]


@kernel(inline=True)
def _take_index(states, row, shared, best, slots, round_lo, via_src, slot, fill, rslots, block):
    """The next index of this thread's ``block`` (a new block taken atomically from ``shared[0]`` when it
    is used up) for ``row``, claimed at ``slot``: the state, its ``best`` and its slot written there, its
    region counted in this thread's ``fill``; the caller then publishes it."""
    j = block[B_NEXT]
    if j == block[B_END]:
        j = fetch_add(shared, 0, block[B_SIZE])
        block[B_END] = j + block[B_SIZE]
    block[B_NEXT] = j + 1
    for w in range(len(row)):
        states[j, w] = row[w]
    best[j - round_lo] = via_src
    slots[j - round_lo] = slot
    fill[np.uint64(slot) // rslots] += 1
    return j


@kernel(inline=True)
def _find_or_file(states, table, regions, row, slot, tag, shared, best, slots, round_lo, via_src, fill, block):
    """The index of ``row`` in the visited set, looked up from ``slot`` (its home); a state found nowhere is
    filed as the next index of this thread's ``block`` and returned as ``-1 - index``, its ``best``
    set to ``via_src``, its slot noted in ``slots`` (for the level's sort) and its region counted in this
    thread's ``fill``.

    Inlined: called once per successor, and a call passes each of its nine arrays as seven words on the
    stack; those pushes took about a fifth of the threads' expansion time."""
    rslots = np.uint64(regions[1])
    smask = rslots - np.uint64(1)
    base = np.uint64(slot) & ~smask
    if states.shape[1] == 1:
        key = row[0]
        while True:
            ref = table[2 * slot + 1]
            if ref == 0:
                if not claim(table, 2 * slot + 1, BUSY_WORD):
                    continue   # another thread took the slot first: look at it again
                table[2 * slot] = key
                j = _take_index(states, row, shared, best, slots, round_lo, via_src, slot, fill, rslots, block)
                store_release(table, 2 * slot + 1, np.uint64(j + 1))
                return -1 - j
            while ref == BUSY_WORD:
                ref = load_acquire(table, 2 * slot + 1)
            acquire_fence()   # the key is read after the index word that published it
            if table[2 * slot] == key:
                return np.int64(ref) - 1
            slot = K.next_slot(slot, base, smask)
    while True:
        e = table[slot]   # what it points at is read through it, so after it
        if e == 0:
            if not claim(table, slot, (tag << HIGH32) | BUSY_REF):
                continue
            j = _take_index(states, row, shared, best, slots, round_lo, via_src, slot, fill, rslots, block)
            store_release(table, slot, (tag << HIGH32) | np.uint64(j + 1))
            return -1 - j
        if (e >> HIGH32) == tag:
            while (e & LOW32) == BUSY_REF:
                e = load_acquire(table, slot)
            j = np.int64(e & LOW32) - 1
            if rows_equal(states[j], row):
                return j
        slot = K.next_slot(slot, base, smask)


@kernel(inline=True)
def _lower_best(best, k, via_src):
    """``best[k] = min(best[k], via_src)``, atomically."""
    cur = best[k]
    while via_src < cur:
        old = compare_swap(best, k, cur, via_src)
        if old == cur:
            return
        cur = old


@kernel
def _expand_slice(succ, tcheck, scheck, params, visited, masks, lo, hi, tio, wit_src, wit_act, rows, tally, edges_t,
                  graph, leaves, wit_state, fill, best, slots, round_lo, shared, block):
    """One slice ``[lo, hi)`` of the round: its successors looked up or filed, its edges into ``edges_t``
    (``row_start`` relative to the slice's first edge); returns a kernel status."""
    states = visited.states
    table = visited.table
    regions = visited.regions
    out = rows.out
    oflags = rows.oflags
    nact = len(oflags)
    words = states.shape[1]
    trans_watch = masks[K.MK_TRANS_WATCH]
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
        # start every lookup's cache miss before the first probe (the probes then mostly hit the cache)
        for a in range(nact):
            if oflags[a] & ENABLED:
                slot, tag = home_of(table, regions, out[a], state_hash(out[a]))
                rows.homes[a] = slot
                rows.tags[a] = tag
                K._prefetch_home(table, words, slot)
        for a in range(nact):
            if not oflags[a] & ENABLED:
                continue
            if rows_equal(out[a], states[src]):
                j = np.int64(src)   # a self-loop: no lookup needed
            else:
                via_src = (np.int64(src) << ACTION_BITS) | a
                j = _find_or_file(states, table, regions, out[a], rows.homes[a], rows.tags[a], shared, best, slots,
                                  round_lo, via_src, fill, block)
                if j < 0:
                    j = -1 - j
                    check_new(scheck, params, visited, masks, wit_state, j, graph, leaves)
                elif j >= round_lo:   # filed in this round, perhaps from a later source
                    _lower_best(best, j - round_lo, via_src)
            if graph:
                edges_t[tio[T_EDGES]] = j
                tio[T_EDGES] += 1
    return K.ST_LEVEL_DONE


# the visited set and a thread's rows come field by field: a call then starts in microseconds (a named
# tuple argument is typed in Python, field by field, at every call: a millisecond a round)
VISITED_FIELDS_T = (*VISITED_T.types[:-1], types.int64, types.int64)
EXPAND_SLICES_SIG = types.void(I64_1D, I64_1D, *VISITED_FIELDS_T, types.uint64[::1], I64_1D,
                               types.int64, types.int64[:, ::1], types.int64[:, ::1], types.int64[:, ::1],
                               *K.ROWS_T.types, types.int64[:, ::1], types.int64, I64_1D, types.int64, types.int64,
                               I64_1D, I64_1D, I64_1D, I64_1D, types.int64, I64_1D, I64_1D, I64_1D)


# the model's successors, transition check and state check, in this order in :func:`function_addresses`
_succ_at = function_at(SUCC_T)
_tcheck_at = function_at(TCHECK_T)
_scheck_at = function_at(SCHECK_T)


def function_addresses(successors: Any, transition_check: Any, state_check: Any) -> np.ndarray:
    """The model's functions as :func:`expand_slices` takes them (looked up once, not at every call)."""
    return address_table((successors, SUCC_T), (transition_check, TCHECK_T), (state_check, SCHECK_T))


def visited_fields(visited: K.Visited) -> tuple:
    """``visited`` as the threaded kernels take it: its fields, the regions as two numbers."""
    return (*visited[:-1], *visited.regions)


@nb.njit(EXPAND_SLICES_SIG, cache=True, nogil=True, _nrt=False)
def expand_slices(functions, params, states, parent, via, table, noexp, goal, edges, row_start, table_fill,
                  owners, region_slots, masks, bounds, capacity, tio, wit_src, wit_act, out, oflags, homes, tags, tally,
                  tally_size, edges_t, graph, leaves, wit_state, fill, best, slots, round_lo, shared, block, counter):
    """The round on one thread: slices ``s`` (states ``[bounds[s], bounds[s + 1])``) taken one by one from
    ``counter`` until none is left; a slice writes only its own rows (``tio[s]``, ``tally[s]``, its
    transition witnesses) and its own edges ``[s * capacity, ...)``; ``tio[s, T_STATUS]`` says how far it
    got. ``rows``, ``wit_state``, ``fill`` and ``block`` are this thread's; ``best``, ``slots`` and ``shared``
    (the indices taken) every thread's. The visited set comes as :func:`visited_fields`, ``rows`` as its
    fields, the model's functions as :func:`function_addresses`."""
    succ = _succ_at(functions, 0)
    tcheck = _tcheck_at(functions, ADDRESSES)
    scheck = _scheck_at(functions, 2 * ADDRESSES)
    visited = K.Visited(states, parent, via, table, noexp, goal, edges, row_start, table_fill, (owners, region_slots))
    rows = K.Rows(out, oflags, homes, tags)
    slices = len(bounds) - 1
    while True:
        s = fetch_add(counter, 0, 1)
        if s >= slices:
            return
        tio[s, T_STATUS] = S_STARTED
        status = _expand_slice(succ, tcheck, scheck, params, visited, masks, bounds[s], bounds[s + 1], tio[s],
                               wit_src[s], wit_act[s], rows, tally[s, :tally_size],
                               edges_t[s * capacity:] if graph else edges_t, graph, leaves, wit_state, fill, best,
                               slots, round_lo, shared, block)
        tio[s, T_STATUS] = S_ERROR if status == K.ST_ERROR else S_DONE


@kernel(inline=True)
def _repoint(table, words, slot, j):
    """Point the filled ``slot`` at the state index ``j`` (its key or tag stays)."""
    if words == 1:
        table[2 * slot + 1] = np.uint64(j + 1)
    else:
        table[slot] = (table[slot] & ~LOW32) | np.uint64(j + 1)


@kernel(inline=True)
def _hole_from(blocks, i):
    """The first index from ``i`` on in a hole (the unused end of a thread's last block), or -1."""
    first = -1
    for t in range(blocks.shape[0]):
        if blocks[t, B_END] > i and blocks[t, B_NEXT] < blocks[t, B_END]:
            c = max(blocks[t, B_NEXT], i)
            if first < 0 or c < first:
                first = c
    return first


@kernel(inline=True)
def _kept_from(blocks, i):
    """The first index from ``i`` on outside every hole."""
    moved = True
    while moved:
        moved = False
        for t in range(blocks.shape[0]):
            if blocks[t, B_NEXT] <= i < blocks[t, B_END]:
                i = blocks[t, B_END]
                moved = True
    return i


@kernel(inline=True)
def _moved_to(moves, n, j):
    """Where the state ``j`` went (``moves[0, :n]`` ascending, to ``moves[1, :n]``), or ``j``."""
    left = 0
    right = n
    while left < right:
        mid = (left + right) // 2
        if moves[0, mid] < j:
            left = mid + 1
        else:
            right = mid
    if left < n and moves[0, left] == j:
        return moves[1, left]
    return j


@nb.njit(types.int64(U64_2D, types.uint64[::1], types.uint8[::1], types.uint8[::1], types.int64[:, ::1], types.int64,
                     types.int64, I64_1D, I64_1D, types.int64[:, ::1], types.int64[:, ::1], I64_1D, types.int64[:, ::1],
                     types.int64, types.int64, types.int64), cache=True, nogil=True, _nrt=False)
def close_blocks(states, table, goal, noexp, blocks, count, top, best, slots, moves, wit_thread, edges_t, tio, capacity,
                 graph, leaves):
    """The end of a round that took the indices ``[count, top)`` in blocks: the unused ends of the threads'
    last blocks are holes, so the states after ``top - holes`` move into the holes before it, with
    everything that names them (the table entry, ``best``, ``slots``, the goal and unexpanded flags, the
    threads' witness candidates, the round's edges). Returns the state count (``top - holes``). The level's
    sort puts every state in its place afterwards, so where a state goes here changes no result."""
    words = states.shape[1]
    holes = 0
    for t in range(blocks.shape[0]):
        holes += blocks[t, B_END] - blocks[t, B_NEXT]
    new = top - holes
    n = 0
    m = new
    d = _hole_from(blocks, count)
    while 0 <= d < new:
        m = _kept_from(blocks, m)
        for w in range(words):
            states[d, w] = states[m, w]
        best[d - count] = best[m - count]
        slot = slots[m - count]
        slots[d - count] = slot
        _repoint(table, words, slot, d)
        if graph:
            goal[d] = goal[m]
        if leaves:
            noexp[d] = noexp[m]
        moves[0, n] = m
        moves[1, n] = d
        n += 1
        m += 1
        d = _hole_from(blocks, d + 1)
    if n == 0:
        return new
    for t in range(wit_thread.shape[0]):
        for b in range(64):
            if wit_thread[t, b] >= new:
                wit_thread[t, b] = _moved_to(moves, n, wit_thread[t, b])
    if graph:
        for s in range(tio.shape[0]):
            for e in range(s * capacity, s * capacity + tio[s, T_EDGES]):
                if edges_t[e] >= new:
                    edges_t[e] = _moved_to(moves, n, edges_t[e])
    return new


PAGE_WORDS = 512          # 4 KiB
TOUCH_CHUNK = 256 * PAGE_WORDS   # 1 MiB: what a thread takes at a time of a new table to touch


@nb.njit(types.void(types.uint64[::1], I64_1D), cache=True, nogil=True, _nrt=False)
def touch_pages(table, counter):
    """Write every page of the new, empty ``table`` once (a zero, which it holds), chunk after chunk taken
    from ``counter`` as the thread comes free: the page faults are shared out by how fast each thread
    meets them (they cost more than the refiling on a VM whose host hands the pages out), not by region."""
    n = len(table)
    while True:
        lo = fetch_add(counter, 0, TOUCH_CHUNK)
        if lo >= n:
            return
        for i in range(lo, min(lo + TOUCH_CHUNK, n), PAGE_WORDS):
            table[i] = 0


@nb.njit(types.void(types.int32[::1], I64_1D, I64_1D, I64_1D, I64_1D, types.int64[:, ::1], types.int64, types.int64,
                    types.int64), cache=True, nogil=True, _nrt=False)
def place_edges(edges, edges_t, row_start, bounds, at, tio, capacity, first, step):
    """The round's slices ``first, first + step, ...``: each one's edges (``tio[s, T_EDGES]`` of them, from
    ``edges_t[s * capacity]``) to ``edges[at[s]:]``, and its states' ``row_start`` (relative to the
    slice's first edge) made absolute."""
    for s in range(first, len(at), step):
        n = tio[s, T_EDGES]
        for k in range(n):
            edges[at[s] + k] = np.int32(edges_t[s * capacity + k])
        for i in range(bounds[s], bounds[s + 1]):
            row_start[i] += at[s]


REFILE_BATCH = 64   # states hashed before the region's share of them is filed (their cache misses overlap)


@nb.njit(types.int64(U64_2D, types.int64, types.uint64[::1], types.int64, types.int64, types.int64), cache=True,
         nogil=True, _nrt=False)
def refile_region(states, count, table, owners, region_slots, o):
    """The grown table on threads: file the stored states ``[0, count)`` of region ``o`` (this thread's)
    while the other threads file theirs; returns how many. Each thread reads every state and hashes it, but
    writes only its own region: no two threads write one slot, so no atomic step, and no key compared
    (the states are distinct)."""
    words = states.shape[1]
    regions = (owners, region_slots)
    pick = scratch(REFILE_BATCH)
    homes = scratch(REFILE_BATCH)
    tags = scratch(REFILE_BATCH)
    filed = 0
    for lo in range(0, count, REFILE_BATCH):
        n = 0
        for i in range(lo, min(lo + REFILE_BATCH, count)):
            h = state_hash(states[i])
            if owner_of(h, owners) == o:
                slot, tag = home_of(table, regions, states[i], h)
                K._prefetch_home(table, words, slot)
                pick[n] = i
                homes[n] = slot
                tags[n] = np.int64(tag)
                n += 1
        for k in range(n):
            slot = K.free_slot_from(table, regions, words, homes[k])
            K._put(table, words, slot, np.uint64(tags[k]), pick[k])
        filed += n
    return filed


@nb.njit(types.void(U64_2D, U64_2D, types.int64, types.int64, I32_1D, I64_1D), cache=True, nogil=True, _nrt=False)
def bucket_level(states, splitters, lo, hi, bucket, counts):
    """Sort step 1 for the states ``[lo, hi)`` (one slice of the level; ``bucket`` is the slice's): the key
    range of each state (binary search over ``splitters``), counted per range."""
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
    """Sort step 3: the level-local indices ``segment`` (one key range) in key order, in place. One sort
    by the first word, then each run of states with the same first word by their other words
    (:func:`explore.keyorder.settle_ties`): the first word mostly tells states apart, so this is about one
    sort, not one per word."""
    n = len(segment)
    if n < 2:
        return
    keys = np.empty(n, np.int64)
    for k in range(n):
        keys[k] = np.int64(states[lo + segment[k], 0])
    segment[:] = segment[np.argsort(keys)]
    if states.shape[1] > 1:
        settle_ties(states, lo, segment)


@nb.njit(types.void(U64_2D, types.uint64[::1], types.UniTuple(types.int64, 2), types.int64, I64_1D, types.int64),
         cache=True, nogil=True, _nrt=False)
def relink_owner(states, table, regions, lo, new_pos, o):
    """Point region ``o``'s table entries of the level ``[lo, lo + len(new_pos))`` at their sorted
    positions, looking each state up (each thread hashes every state and relinks those of its region)."""
    words = states.shape[1]
    for i in range(len(new_pos)):
        row = states[lo + i]
        h = state_hash(row)
        if owner_of(h, regions[0]) != o:
            continue
        slot, tag = home_of(table, regions, row, h)
        j, slot, tag = K._probe(states, table, regions, row, slot, tag)
        K._put(table, words, slot, tag, new_pos[i])


@nb.njit(types.void(types.uint64[::1], types.int64, I64_1D, I64_1D, types.int64, types.int64), cache=True, nogil=True,
         _nrt=False)
def relink_slots(table, words, slots, new_pos, k0, k1):
    """Point the table entries of the level's states ``[k0, k1)`` (level-local), filed at ``slots``, at
    their sorted positions ``new_pos``: no lookup, the rounds noted where each one went."""
    for k in range(k0, k1):
        _repoint(table, words, slots[k], new_pos[k])


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
