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

from collections import namedtuple
from typing import Any

import numba as nb
import numpy as np
from numba import types

from explore.native import kernel, scratch

from . import kernel as K
from .funcaddr import ADDRESSES, address_table, function_at
from .atomic import acquire_fence, claim, compare_swap, fetch_add, load_acquire, store_release
from .counters import BLOCKS_T, SLICES_T
from .kernel import HIGH32, LOW32, SCHECK_T, check_new, home_of, owner_of, state_hash
from .keyorder import settle_ties
from .step import (I64_1D, ROWS_T, ST_CHUNK, ST_ERROR, ST_LEVEL_DONE, SUCC_T, TCHECK_T, U64_2D, Generator, Rows,
                   key_less, rows_equal)

# a slice's ``status`` (0: not taken)
S_STARTED = 1
S_DONE = 2
S_ERROR = 3

# a claimed slot's index word while its claimer writes the state (one-word states: the whole word; wider
# states: the index half beside the tag)
BUSY_WORD = np.uint64(1 << 63)
BUSY_REF = np.uint64(0xFFFFFFFF)
ACTION_BITS = 16   # ``best``: source index << ACTION_BITS | action

# a thread's block of state indices (``block``, an explore.counters.BLOCK record). Taking BLOCK indices at
# a time keeps each thread's new rows, parents and slots off the other threads' cache lines and takes one
# atomic add per block, not per state; the unused ends are closed at the round's end
BLOCK = 64

I32_1D = types.int32[::1]


@kernel(inline=True)
def _take_index(place, row, via_src, slot):
    """The next index of this thread's block (``place.block``; a new block taken atomically from
    ``place.shared[0]`` when it is used up) for ``row``, claimed at ``slot``: the state, its ``best`` and its
    slot written there, its region counted in this thread's ``fill``; the caller then publishes it."""
    block = place.block
    j = block.next
    if j == block.end:
        j = fetch_add(place.shared, 0, block.size)
        block.end = j + block.size
    block.next = j + 1
    states = place.visited.states
    for w in range(len(row)):
        states[j, w] = row[w]
    place.best[j - place.round_lo] = via_src
    place.slots[j - place.round_lo] = slot
    place.fill[np.uint64(slot) // np.uint64(place.visited.regions[1])] += 1
    return j


@kernel(inline=True)
def _find_or_file(place, row, slot, tag, via_src):
    """The index of ``row`` in the visited set (``place``: the threads' policy's), looked up from ``slot``
    (its home); a state found nowhere is filed as the next index of this thread's block and returned as
    ``-1 - index``, its ``best`` set to ``via_src``, its slot noted in ``slots`` (for the level's sort) and
    its region counted in this thread's ``fill``.

    Inlined: called once per successor, and a call passes each of its nine arrays as seven words on the
    stack; those pushes took about a fifth of the threads' expansion time."""
    states = place.visited.states
    table = place.visited.table
    rslots = np.uint64(place.visited.regions[1])
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
                j = _take_index(place, row, via_src, slot)
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
            j = _take_index(place, row, via_src, slot)
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


#: where the threads' insert policy files states: the one-thread policy's fields (explore.kernel.FirstFinder,
#: ``edges`` the slice's own), then what the round shares (``best``, ``slots``, ``round_lo``, ``shared``) and
#: what is this thread's (``fill``, ``block``)
Shared = namedtuple("Shared", "scheck params visited masks wit_state edges edge_act graph labels leaves best slots "
                              "round_lo shared fill block")


@kernel(inline=True)
def insert_shared(place, c, states, src, a, row, slot, tag):
    """``insert`` of the threads' policy: look the successor up in the shared table, filing it when it is
    new (:func:`_find_or_file`; the filing thread checks it); a state filed in this round keeps the
    smallest (source, action) that reaches it. Never stops: a round has room for all it may file."""
    if rows_equal(row, states[src]):
        j = np.int64(src)   # a self-loop: no lookup needed
    else:
        via_src = (np.int64(src) << ACTION_BITS) | a
        j = _find_or_file(place, row, slot, tag, via_src)
        if j < 0:
            j = -1 - j
            check_new(place, j)
        elif j >= place.round_lo:   # filed in this round, perhaps from a later source
            _lower_best(place.best, j - place.round_lo, via_src)
    K.record_edge(place, c, j, a)
    return True


#: what a round shares among its threads: the slices (``bounds``), each slice's edge room (``capacity``),
#: transition witnesses, tally, edges and their actions (from ``s * capacity``), and the filing state
#: (``best``, ``slots``, ``round_lo``: the first index filed this round, ``shared``: the next index), whether
#: edges, their actions and leaves are kept
Round = namedtuple("Round", "bounds capacity wit_src wit_act tallies tally_size edges edge_act best slots round_lo "
                            "shared graph labels leaves")
@kernel(inline=True)
def _round(r):
    """The :class:`Round` of its fields (as the entry points take it: a plain tuple)."""
    return Round(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14])


#: a thread's own: its successor rows (explore.step.Rows), state witness candidates, region fills, and which
#: thread it is (its block)
Thread = namedtuple("Thread", "rows wit_state fill index")


@kernel
def _expand_slice(gen, visited, masks, rnd, thread, blocks, s, c):
    """The round's slice ``s``: each state one expansion step with the threads' policy, counted in its
    counters ``c`` (its edges into its own part of ``rnd.edges``, ``row_start`` relative to its first
    edge); returns a status."""
    graph = rnd.graph != 0
    labels = rnd.labels != 0
    place = Shared(gen.scheck, gen.params, visited, masks, thread.wit_state,
                   rnd.edges[s * rnd.capacity:] if graph else rnd.edges,
                   rnd.edge_act[s * rnd.capacity:] if labels else rnd.edge_act, graph, labels, rnd.leaves != 0,
                   rnd.best, rnd.slots, rnd.round_lo, rnd.shared, thread.fill, blocks[thread.index])
    step = Generator(gen.succ, gen.tcheck, gen.params, masks.trans_watch, rnd.wit_src[s], rnd.wit_act[s])
    tally = rnd.tallies[s, :rnd.tally_size]
    for src in range(rnd.bounds[s], rnd.bounds[s + 1]):
        c.pos = src
        status = K.expand_stored(step, thread.rows, c, tally, insert_shared, place, src)
        if status != ST_CHUNK:
            return status
    return ST_LEVEL_DONE


# the model's functions as the threads take them: with the scheck beside them (explore.step.Generator has the
# per-slice witnesses, which a thread does not know until it takes a slice)
ThreadGen = namedtuple("ThreadGen", "succ tcheck scheck params")

# the arguments come as plain tuples of arrays and numbers, which numba types in C at every call (a named
# tuple is typed in Python, field by field: a millisecond a round); the kernel names them again
VISITED_FIELDS_T = types.Tuple((*K.VISITED_T.types[:-1], types.int64, types.int64))
ROUND_T = types.Tuple((I64_1D, types.int64, types.int64[:, ::1], types.int64[:, ::1], types.int64[:, ::1],
                       types.int64, I64_1D, types.int16[::1], I64_1D, I64_1D, types.int64, I64_1D, types.int64,
                       types.int64, types.int64))
THREAD_T = types.Tuple((*ROWS_T.types, I64_1D, I64_1D, types.int64))
EXPAND_SLICES_SIG = types.void(I64_1D, I64_1D, VISITED_FIELDS_T, K.MASKS_ARG_T, ROUND_T, SLICES_T, THREAD_T,
                               BLOCKS_T, I64_1D)


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
def expand_slices(functions, params, visited_t, masks, round_t, slices, thread_t, blocks, counter):
    """The round on one thread: slices ``s`` (states ``[bounds[s], bounds[s + 1])``) taken one by one from
    ``counter`` until none is left; a slice writes only its own counters (``slices[s]``, an
    explore.counters.SLICE record whose ``status`` says how far it got), tally, transition witnesses and
    edges. The visited set comes as :func:`visited_fields`, the round as the fields of :class:`Round`, this
    thread as those of :class:`Thread` (its rows as their fields), the model's functions as
    :func:`function_addresses`."""
    gen = ThreadGen(_succ_at(functions, 0), _tcheck_at(functions, ADDRESSES), _scheck_at(functions, 2 * ADDRESSES),
                    params)
    v = visited_t
    visited = K.Visited(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], (v[10], v[11]))
    rnd = _round(round_t)
    t = thread_t
    thread = Thread(Rows(t[0], t[1], t[2], t[3]), t[4], t[5], t[6])
    while True:
        s = fetch_add(counter, 0, 1)
        if s >= len(rnd.bounds) - 1:
            return
        c = slices[s]
        c.status = S_STARTED
        status = _expand_slice(gen, visited, masks[0], rnd, thread, blocks, s, c)
        c.status = S_ERROR if status == ST_ERROR else S_DONE


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
        if blocks[t].end > i and blocks[t].next < blocks[t].end:
            c = max(blocks[t].next, i)
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
            if blocks[t].next <= i < blocks[t].end:
                i = blocks[t].end
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


STORED_T = types.Tuple((U64_2D, types.uint64[::1], types.uint8[::1], types.uint8[::1]))  # states table goal noexp


@nb.njit(types.int64(STORED_T, ROUND_T, SLICES_T, BLOCKS_T, types.int64, types.int64[:, ::1], types.int64[:, ::1]),
         cache=True, nogil=True, _nrt=False)
def close_blocks(stored, round_t, slices, blocks, top, moves, wit_thread):
    """The end of a round (the fields of :class:`Round`) that took the indices ``[round_lo, top)`` in
    blocks: the unused ends of the threads' last blocks are holes, so the states after ``top - holes`` move
    into the holes before it, with everything that names them (the table entry, ``best``, ``slots``, the
    goal and unexpanded flags of ``stored`` = (states, table, goal, noexp), the threads' witness
    candidates, the round's edges). Returns the state count (``top - holes``). The level's sort puts every
    state in its place afterwards, so where a state goes here changes no result."""
    states, table, goal, noexp = stored
    rnd = _round(round_t)
    best = rnd.best
    slots = rnd.slots
    count = rnd.round_lo
    edges_t = rnd.edges
    words = states.shape[1]
    holes = 0
    for t in range(blocks.shape[0]):
        holes += blocks[t].end - blocks[t].next
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
        if rnd.graph:
            goal[d] = goal[m]
        if rnd.leaves:
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
    if rnd.graph:
        for s in range(len(slices)):
            for e in range(s * rnd.capacity, s * rnd.capacity + slices[s].edges):
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


EDGE_LISTS_T = types.Tuple((types.int32[::1], types.int16[::1]))   # the stored edges and their actions
ROUND_EDGES_T = types.Tuple((I64_1D, types.int16[::1]))           # a round's, per slice


@nb.njit(types.void(EDGE_LISTS_T, ROUND_EDGES_T, I64_1D, I64_1D, I64_1D, SLICES_T, types.int64, types.int64,
                    types.int64, types.int64), cache=True, nogil=True, _nrt=False)
def place_edges(stored, round_edges, row_start, bounds, at, slices, capacity, labels, first, step):
    """The round's slices ``first, first + step, ...``: each one's edges (``slices[s].edges`` of them, from
    ``s * capacity`` of ``round_edges`` = (edges, actions)) to ``stored`` = (edges, actions) from ``at[s]``
    (the actions only when ``labels``), and its states' ``row_start`` (relative to the slice's first edge)
    made absolute."""
    edges, edge_act = stored
    edges_t, edge_act_t = round_edges
    for s in range(first, len(at), step):
        n = slices[s].edges
        for k in range(n):
            edges[at[s] + k] = np.int32(edges_t[s * capacity + k])
            if labels:
                edge_act[at[s] + k] = edge_act_t[s * capacity + k]
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
