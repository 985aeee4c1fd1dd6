"""Driving :mod:`explore.threaded`'s phases for the local explorer: a level in rounds, then its sort.

The explorer owns the visited set; a :class:`LevelRounds` owns the per-slice buffers of a round and a
:class:`ThreadTeam` that runs one call per thread (the kernels release the GIL, so the threads run at
once). Everything a round adds to the explorer (its states, counters, witnesses, coverage tally, edges)
is folded in by the main thread between phases, in slice order.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any, Callable

import numpy as np

from . import kernel as K
from . import threaded as P
from .coverage import new_tally

SLICE_STATES = 4096      # states per slice; a round has SLICES_PER_THREAD slices per thread, so a thread
SLICES_PER_THREAD = 4    # that meets cheaper states takes another slice: tens of milliseconds a round
SAMPLES_PER_RANGE = 256  # sort splitters are drawn from this many level states per thread
LOCAL_SLOTS = 1 << 16     # a thread's set of its round's candidates: 512 KiB, in its core's L2 cache
PAD = 16                 # int64 slots between two threads' rows of small per-thread arrays (128 bytes)
THREAD_ADDRESS_SPACE = 72 << 20   # a thread's stack (8 MiB) and glibc malloc arena (64 MiB), reserved


class ThreadTeam:
    """``threads`` worker threads; :meth:`run` calls ``fn(i)`` for each ``i < n`` and waits for all."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self.failed = -1
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="rmqcheck-level")

    def run(self, fn: Callable[[int], Any], n: int | None = None) -> list[Any]:
        """Results in index order. The first exception in index order is raised once every call has
        returned (so no call is still writing when the caller goes on); ``failed`` is its index."""
        futures = [self.pool.submit(fn, i) for i in range(self.threads if n is None else n)]
        try:
            wait(futures)
        except BaseException:   # Ctrl-C while waiting: let the calls finish (they are short) first
            wait(futures)
            raise
        for i, f in enumerate(futures):
            exc = f.exception()
            if exc is not None:
                self.failed = i
                raise exc
        return [f.result() for f in futures]

    def close(self) -> None:
        self.pool.shutdown(wait=True)


def refile(team: ThreadTeam, states: np.ndarray, count: int, table: np.ndarray, fill: np.ndarray,
           region_slots: int) -> None:
    """File the first ``count`` stored states into the grown, empty ``table`` (``len(fill)`` regions of
    ``region_slots`` slots), a range of them on each thread; ``fill`` gets each region's count."""
    T, owners = team.threads, len(fill)
    cut = [count * t // T for t in range(T + 1)]
    counts = np.zeros((T, owners + PAD), dtype=np.int64)   # each thread's counts on lines of their own
    team.run(lambda t: P.refile_range(states, cut[t], cut[t + 1], table, owners, region_slots, counts[t, :owners]))
    fill[:] = counts[:, :owners].sum(axis=0)


def _pow2_at_least(n: int) -> int:
    return 1 << max(int(n) - 1, 1).bit_length()


class LevelRounds:
    """The threaded expansion and sort of the local explorer's levels (``explorer.threads`` > 1)."""

    def __init__(self, explorer: Any, team: ThreadTeam, slice_states: int = SLICE_STATES) -> None:
        self.ex = explorer
        self.team = team
        self.T = team.threads                # owners: table regions, one per thread
        self.S = SLICES_PER_THREAD * self.T  # slices of a round, handed to the threads as they come free
        self.slice = slice_states
        nact, words = max(explorer.nact, 1), explorer.words
        self.C = slice_states * nact   # a slice's candidates, at most
        n = self.S * self.C
        self.cand_rows = np.empty((n, words), dtype=np.uint64)
        self.cand_h = np.empty(n, dtype=np.uint64)
        self.cand_slot = np.empty(n, dtype=np.int64)
        self.cand_src = np.empty(n, dtype=np.int32)
        self.cand_act = np.empty(n, dtype=np.int16)
        self.cand_owner = np.empty(n, dtype=np.int32)
        self.cand_rank = np.empty(n, dtype=np.int32)
        self.visit_res = np.empty(n, dtype=np.int64)
        self.new_ref = np.empty(n, dtype=np.int64)
        self.edges_t = np.empty(n if explorer.graph else 1, dtype=np.int64)
        # each slice's hot counters on cache lines of their own (a shared line costs more than the work)
        self.tio = np.zeros((self.S, P.T_SIZE + PAD), dtype=np.int64)
        self.owner_counts = np.zeros((self.S, self.T + PAD), dtype=np.int64)
        self.owner_count = self.owner_counts[:, :self.T]
        self.wit_src = np.full((self.S, 64), -1, dtype=np.int64)
        self.wit_act = np.full((self.S, 64), -1, dtype=np.int64)
        self.wit_owner = np.full((self.T, 64), -1, dtype=np.int64)   # state witnesses per owner, this level
        size = len(new_tally(explorer.nact))
        self.tallies = np.zeros((self.S, size + PAD), dtype=np.int64)
        self.tally = self.tallies[:, :size]
        # each thread's scratch
        self.rows = [K.Rows(np.zeros((nact + PAD, words), dtype=np.uint64)[:nact],
                            np.zeros(nact + PAD, dtype=np.int64)[:nact], np.zeros(nact + PAD, dtype=np.int64)[:nact],
                            np.zeros(nact + PAD, dtype=np.uint64)[:nact]) for _ in range(self.T)]
        self.hashes = np.zeros((self.T, nact + PAD), dtype=np.uint64)
        self.local = np.zeros((self.T, LOCAL_SLOTS + PAD), dtype=np.int64)   # a slice's emitted set
        self.seen = [np.zeros(0, dtype=np.int64) for _ in range(self.T)]       # each owner's scratch set

    @staticmethod
    def team_bytes(threads: int, nact: int, words: int, graph: bool, slice_states: int = SLICE_STATES) -> int:
        """What :class:`LevelRounds` allocates, and the address space each worker thread reserves (its
        stack, its malloc arena), for the explorer's memory budget."""
        per_candidate = 8 * words + 8 + 8 + 4 + 2 + 4 + 4 + 8 + 8 + (8 if graph else 0)
        slices = SLICES_PER_THREAD * threads
        return (slices * slice_states * max(nact, 1) * per_candidate
                + threads * (8 * LOCAL_SLOTS + THREAD_ADDRESS_SPACE))

    # -- expansion ---------------------------------------------------------------------------------------
    def expand(self, level: int, lo: int, hi: int) -> int:
        """Expand the level ``[lo, hi)`` round by round; returns a kernel status (``ST_LEVEL_DONE``, or
        why it stopped). Between rounds the explorer reports progress and checks its limits."""
        ex = self.ex
        pos = lo
        while pos < hi:
            n = min(hi - pos, self.S * self.slice)
            bounds = [pos + n * t // self.S for t in range(self.S + 1)]
            status = self._round(bounds)
            if status != K.ST_LEVEL_DONE:
                return status
            pos += n
            ex.io[K.IO_POS] = pos
            ex._report(level, lo, hi)
            if pos < hi and ex._limit_inside_level():
                return K.ST_CHUNK
        self._end_level(hi)
        return K.ST_LEVEL_DONE

    def _round(self, bounds: list[int]) -> int:
        ex = self.ex
        self.tio[:] = 0
        self.owner_counts[:] = 0
        visited = ex._visited()
        status = self._expand_slices(visited, bounds)
        if status != K.ST_LEVEL_DONE:
            return status
        n_new, ref0 = self._dedup()
        count, total = int(ex.io[K.IO_COUNT]), int(n_new.sum())
        table = ex.table
        status = ex._room_for(count + total, int((ex.fill + n_new).max()))
        if status != K.ST_LEVEL_DONE:
            return status
        regrown = int(ex.table is not table)
        visited = ex._visited()
        owner_base = count + np.concatenate(([0], np.cumsum(n_new)[:-1])).astype(np.int64)
        graph, leaves = int(ex.graph), int(ex.leaves)
        self.team.run(lambda o: P.place_owner(
            ex.props.state_check, ex.model.params, visited, ex.masks, self.wit_owner[o], o, int(owner_base[o]),
            self.new_ref, int(ref0[o]), int(n_new[o]), self.cand_rows, self.cand_h, self.cand_slot, self.cand_src,
            self.cand_act, graph, leaves, regrown))
        ex.io[K.IO_COUNT] = count + total
        ex.io[K.IO_FILL_MAX] = int(ex.fill.max())
        if ex.graph and not self._place_edges(bounds, owner_base):
            return K.ST_NEED_ROOM
        self._fold_counters()
        return K.ST_LEVEL_DONE

    def _expand_slices(self, visited: Any, bounds: list[int]) -> int:
        ex = self.ex
        graph, leaves = int(ex.graph), int(ex.leaves)
        bounds_a = np.array(bounds, dtype=np.int64)
        counter = np.zeros(PAD, dtype=np.int64)   # the next slice to take

        def phase_a(i: int) -> None:
            P.expand_slices(ex.model.successors, ex.props.transition_check, ex.model.params, visited, ex.masks,
                            bounds_a, self.C, self.cand_rows, self.cand_h, self.cand_slot, self.cand_src,
                            self.cand_act, self.cand_owner, self.cand_rank, self.tio, self.owner_counts, self.wit_src,
                            self.wit_act, self.rows[i], self.hashes[i], self.tallies, self.tally.shape[1],
                            self.edges_t, graph, leaves, self.local[i, :LOCAL_SLOTS], counter)
        try:
            self.team.run(phase_a)
        except Exception:   # raised inside model code: report the first slice that failed, as one thread would
            started = np.flatnonzero(self.tio[:, P.T_STATUS] == P.S_STARTED)
            errors = np.flatnonzero(self.tio[:, P.T_STATUS] == P.S_ERROR)
            if len(errors) and (not len(started) or errors[0] < started[0]):
                return self._model_error(int(errors[0]))
            ex.io[K.IO_POS] = self.tio[started[0], P.T_POS]
            raise
        errors = np.flatnonzero(self.tio[:, P.T_STATUS] == P.S_ERROR)
        if len(errors):   # the first in index order: the one a single thread would meet
            return self._model_error(int(errors[0]))
        return K.ST_LEVEL_DONE

    def _model_error(self, s: int) -> int:
        io = self.ex.io
        io[K.IO_ERR_STATE] = self.tio[s, P.T_ERR_STATE]
        io[K.IO_ERR_ACTION] = self.tio[s, P.T_ERR_ACTION]
        io[K.IO_ERR_FLAGS] = self.tio[s, P.T_ERR_FLAGS]
        return K.ST_ERROR

    def _dedup(self) -> tuple[np.ndarray, np.ndarray]:
        """Phase B: ``(new states per owner, each owner's first place in new_ref)``."""
        per_owner = self.owner_count.sum(axis=0)
        ref0 = np.concatenate(([0], np.cumsum(per_owner)[:-1])).astype(np.int64)
        ncand = np.ascontiguousarray(self.tio[:, P.T_NCAND])

        sizes = [_pow2_at_least(2 * c + 2) for c in per_owner]
        for o, size in enumerate(sizes):   # kept from round to round: no page faults, no unmapping
            if len(self.seen[o]) < size:
                self.seen[o] = np.zeros(size, dtype=np.int64)

        def phase_b(o: int) -> int:
            seen = self.seen[o][:sizes[o]]
            seen[:] = 0
            return P.dedup_owner(o, self.C, ncand, self.cand_rows, self.cand_h, self.cand_owner, seen,
                                 self.visit_res, self.new_ref, int(ref0[o]))
        self.ref0 = ref0
        return np.array(self.team.run(phase_b), dtype=np.int64), ref0

    def _place_edges(self, bounds: list[int], owner_base: np.ndarray) -> bool:
        """Phase D: the round's edges after the edges already stored."""
        ex = self.ex
        n_edges = self.tio[:, P.T_EDGES]
        start = int(ex.io[K.IO_EDGES])
        if not ex._edge_room(start + int(n_edges.sum())):
            return False
        e_base = start + np.concatenate(([0], np.cumsum(n_edges)[:-1]))
        # where owner o's visits of thread t's candidates start: after its own earlier threads'
        visit_from = (self.ref0 + np.cumsum(self.owner_count, axis=0) - self.owner_count).astype(np.int64)
        self.team.run(lambda t: P.resolve_edges(self.edges_t, t * self.C, int(n_edges[t]), ex.edges, int(e_base[t]),
                                                self.cand_owner, self.cand_rank, self.visit_res, visit_from[t],
                                                owner_base, ex.row_start, bounds[t], bounds[t + 1]), self.S)
        ex.io[K.IO_EDGES] = start + int(n_edges.sum())
        return True

    def _fold_counters(self) -> None:
        """The round's transitions, unexpanded states, terminal state, tally and transition witnesses,
        folded into the explorer in thread order (thread order is index order, which is key order)."""
        ex, io, tio = self.ex, self.ex.io, self.tio
        io[K.IO_TRANS] += int(tio[:, P.T_TRANS].sum())
        io[K.IO_NLEAF] += int(tio[:, P.T_NLEAF].sum())
        if io[K.IO_TERMINAL_AT] == 0:
            found = np.flatnonzero(tio[:, P.T_TERMINAL])
            if len(found):
                io[K.IO_TERMINAL_AT] = tio[found[0], P.T_TERMINAL]
        ex.tally += self.tally.sum(axis=0)
        self.tally[:] = 0
        for t in range(self.S):
            take = (ex.wit_src < 0) & (self.wit_src[t] >= 0)
            ex.wit_src[take] = self.wit_src[t][take]
            ex.wit_act[take] = self.wit_act[t][take]
        self.wit_src[:] = -1
        self.wit_act[:] = -1

    def _end_level(self, hi: int) -> None:
        ex = self.ex
        P.merge_state_witnesses(ex.states, ex.wit_state, self.wit_owner.ravel())
        self.wit_owner[:] = -1
        if ex.graph:
            ex.row_start[hi] = ex.io[K.IO_EDGES]

    def discard_round(self) -> None:
        """Forget what a stopped level left in the buffers."""
        self.wit_owner[:] = -1
        self.wit_src[:] = -1
        self.wit_act[:] = -1
        self.tally[:] = 0

    # -- the level's sort --------------------------------------------------------------------------------
    def sort_level(self, lo: int, hi: int, e0: int, e1: int) -> np.ndarray:
        """Sort the completed level ``[lo, hi)`` by key (a sample sort, one key range per thread) and
        relink the table and the edges ``[e0, e1)``; returns the new position of each old one (level-local
        to absolute). Every temporary is allocated before anything moves: a MemoryError leaves the level
        consistent."""
        ex, T = self.ex, self.T
        n = hi - lo
        states = ex.states
        m = min(n, SAMPLES_PER_RANGE * T)
        sample = states[lo + (np.arange(m) * n) // m]
        ordered = sample[np.lexsort(tuple(sample[:, i].view(np.int64) for i in reversed(range(ex.words))))]
        splitters = np.ascontiguousarray(ordered[(np.arange(1, T) * m) // T])
        cut = [lo + n * t // T for t in range(T + 1)]
        bucket = np.empty(n, dtype=np.int32)
        own = np.empty(n, dtype=np.int8)
        # each thread's counts and cursors on cache lines of their own: they change at every state
        padded = np.zeros((2, T, T + PAD), dtype=np.int64)
        counts, cursor = padded[0, :, :T], padded[1]
        self.team.run(lambda t: P.bucket_level(states, splitters, cut[t], cut[t + 1], bucket[cut[t] - lo:cut[t + 1] - lo],
                                               counts[t], own[cut[t] - lo:cut[t + 1] - lo], ex.owners))
        sizes = counts.sum(axis=0)
        start = np.concatenate(([0], np.cumsum(sizes)))
        cursor[:, :T] = start[:-1] + np.cumsum(counts, axis=0) - counts
        order = np.empty(n, dtype=np.int64)
        self.team.run(lambda t: P.scatter_level(bucket[cut[t] - lo:cut[t + 1] - lo], cut[t] - lo, cursor[t], order))
        del bucket
        self.team.run(lambda b: P.sort_bucket(states, lo, order[start[b]:start[b + 1]]))
        part = [n * t // T for t in range(T + 1)]   # output ranges, one per thread
        new_pos = np.empty(n, dtype=np.int64)
        self.team.run(lambda t: P.invert_order(order, lo, part[t], part[t + 1], new_pos))
        arrays = ex._level_arrays()
        moved = [np.empty_like(a[lo:hi]) for a in arrays]
        regions = (ex.owners, ex.region_slots)
        self.team.run(lambda o: P.relink_owner(states, ex.table, regions, lo, own, new_pos, o))
        if e1 > e0:
            self.team.run(lambda t: P.relink_edges(ex.edges, e0 + (e1 - e0) * t // T, e0 + (e1 - e0) * (t + 1) // T,
                                                   lo, hi, new_pos))
        for array, out in zip(arrays, moved):
            self.team.run(lambda t: P.gather(array, lo, order, part[t], part[t + 1], out))
            self.team.run(lambda t: P.put_back(array, lo, out, part[t], part[t + 1]))
        return new_pos
