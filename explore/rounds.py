"""Driving :mod:`explore.threaded` for the local explorer: a level in rounds, then its sort.

The explorer owns the visited set; a :class:`LevelRounds` owns the per-slice buffers of a round and a
:class:`explore.team.ThreadTeam` that runs one call per thread (the kernels release the GIL, so the
threads run at once). Each round is sized so that its states fit whatever they file (at most ``nact``
successors each); the threads file new states straight into the shared visited set, and what else a round
adds (parents, counters, witnesses, coverage tally, edges) is folded in by the main thread once it ends,
in slice order.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import counters
from . import kernel as K
from . import threaded as P
from .coverage import new_tally
from .team import ThreadTeam

SLICE_STATES = 4096      # states per slice; a round has SLICES_PER_THREAD slices per thread, so a thread
SLICES_PER_THREAD = 4    # that meets cheaper states takes another slice: tens of milliseconds a round
SAMPLES_PER_RANGE = 256  # sort splitters are drawn from this many level states per thread
ROUND_LOAD = 0.9         # the table's fullest region after a round, at worst (it grows beyond K.MAX_LOAD)
PAD = 16                 # int64 slots between two threads' rows of small per-thread arrays (128 bytes)
THREAD_ADDRESS_SPACE = 72 << 20   # a thread's stack (8 MiB) and glibc malloc arena (64 MiB), reserved


def refile(team: ThreadTeam, states: np.ndarray, count: int, table: np.ndarray, fill: np.ndarray,
           region_slots: int) -> None:
    """File the first ``count`` stored states into the grown, empty ``table`` (``len(fill)`` regions of
    ``region_slots`` slots, one per thread); ``fill`` gets each region's count."""
    owners = len(fill)
    counter = np.zeros(PAD, dtype=np.int64)
    team.run(lambda t: P.touch_pages(table, counter))   # first, so each thread's filing meets no page fault
    fill[:] = team.run(lambda o: P.refile_region(states, count, table, owners, region_slots, o), owners)


class LevelRounds:
    """The threaded expansion and sort of the local explorer's levels (``explorer.threads`` > 1)."""

    def __init__(self, explorer: Any, team: ThreadTeam, slice_states: int = SLICE_STATES) -> None:
        self.ex = explorer
        self.team = team
        self.T = team.threads                # threads, and table regions (sorting relinks one per thread)
        self.S = SLICES_PER_THREAD * self.T  # slices of a round, handed to the threads as they come free
        self.slice = slice_states
        nact = max(explorer.nact, 1)
        self.C = slice_states * nact   # a slice's edges (and new states), at most
        n = self.S * self.C + self.T * P.BLOCK    # a round's new states at most, and its threads' holes
        self.best = np.empty(n, dtype=np.int64)   # each new state's smallest (source << 16 | action)
        self.slots = np.empty(n, dtype=np.int64)  # each new state's table slot
        self.blocks = counters.new(counters.BLOCK, self.T)       # each thread's block of state indices
        self.moves = np.empty((2, self.T * P.BLOCK), dtype=np.int64)   # states moved into the holes
        # the slots of the level being filed (from ``filed[0]``, ``filed[1]`` states, in the table of growth
        # ``filed[2]``): its sort then relinks the table without looking the states up, unless the table
        # grew meanwhile (a count, not the table itself: holding the old table would keep it in memory)
        self.level_slots = np.empty(0, dtype=np.int64)
        self.filed: tuple[int, int, int] = (-1, 0, -1)
        self.edges_t = np.empty(n if explorer.graph else 1, dtype=np.int64)
        self.edge_act_t = np.empty(n if explorer.labels else 1, dtype=np.int16)   # each edge's action
        self.scratch(nact)
        self.fills = np.zeros((self.T, explorer.owners + PAD), dtype=np.int64)   # states filed per table region
        self.shared = np.zeros(PAD, dtype=np.int64)   # the state count, taken from by every thread
        self.functions = P.function_addresses(explorer.model.successors, explorer.props.transition_check,
                                              explorer.props.state_check)

    def scratch(self, nact: int) -> None:
        """A round's per-slice counters, witnesses and coverage tallies, and each thread's scratch rows and
        state witnesses (the compact rounds' are the same)."""
        # each slice's hot counters on cache lines of their own (a shared line costs more than the work)
        self.slices = counters.new(counters.SLICE, self.S)
        self.wit_src = np.full((self.S, 64), -1, dtype=np.int64)
        self.wit_act = np.full((self.S, 64), -1, dtype=np.int64)
        size = len(new_tally(self.ex.nact))
        self.tallies = np.zeros((self.S, size + PAD), dtype=np.int64)
        self.tally = self.tallies[:, :size]
        # each thread's own: scratch rows and state witnesses of the level
        self.rows = [P.Rows(np.zeros((nact + PAD, self.ex.words), dtype=np.uint64)[:nact],
                            np.zeros(nact + PAD, dtype=np.int64)[:nact], np.zeros(nact + PAD, dtype=np.int64)[:nact],
                            np.zeros(nact + PAD, dtype=np.uint64)[:nact]) for _ in range(self.T)]
        self.wit_thread = np.full((self.T, 64 + PAD), -1, dtype=np.int64)

    @staticmethod
    def team_bytes(threads: int, nact: int, words: int, graph: bool, slice_states: int = SLICE_STATES,
                   labels: bool = False) -> int:
        """What :class:`LevelRounds` allocates, and the address space each worker thread reserves (its
        stack, its malloc arena), for the explorer's memory budget."""
        per_successor = 16 + (8 if graph else 0) + (2 if labels else 0)
        slices = SLICES_PER_THREAD * threads
        return ((slices * slice_states * max(nact, 1) + threads * P.BLOCK) * per_successor
                + threads * (THREAD_ADDRESS_SPACE + 16 * P.BLOCK))

    # -- expansion ---------------------------------------------------------------------------------------
    def expand(self, level: int, lo: int, hi: int) -> int:
        """Expand the level ``[lo, hi)`` round by round; returns a kernel status (``ST_LEVEL_DONE``, or
        why it stopped). Between rounds the explorer reports progress and checks its limits."""
        ex = self.ex
        self.filed = (ex.store.count, 0, ex.store.table_growths)
        pos = lo
        while pos < hi:
            n = self._room(min(hi - pos, self.S * self.slice))
            if n == 0:
                return K.ST_NEED_ROOM
            bounds = [pos + n * t // self.S for t in range(self.S + 1)]
            status = self._round(bounds)
            if status != K.ST_LEVEL_DONE:
                return status
            pos += n
            ex.store.io["pos"] = pos
            ex.report(level, lo, hi)
            if pos < hi and ex.limit_inside_level():
                return K.ST_CHUNK
        self._end_level(hi)
        return K.ST_LEVEL_DONE

    def _room(self, want: int) -> int:
        """How many states the next round may expand, up to ``want``: each files at most ``nact`` states
        and edges, so as many as fit, whatever they file. The table grows when its fullest region is past
        ``MAX_LOAD``, as on one thread, or when a round's worst case would take it past ``ROUND_LOAD``
        (most rounds file far fewer states than that). 0 when nothing fits (``incomplete`` says why)."""
        ex, io, nact = self.ex, self.ex.store.io, max(self.ex.nact, 1)
        while True:
            fit_states = (ex.store.cap - int(io["count"])) // nact
            fit_table = (int(ex.store.region_slots * ROUND_LOAD) - int(io["fill_max"])) // nact
            if io["fill_max"] <= io["table_limit"] and fit_table >= min(want, fit_states, self.T * self.slice):
                break
            if not ex.grow_table():
                return 0
        n = min(want, fit_states, fit_table)
        if n == 0:
            ex.make_room()   # fails, saying why: the state limit or the memory budget
            return 0
        if ex.graph and not ex.edge_room(int(io["edges"]) + n * nact):
            return 0
        return n

    def _round(self, bounds: list[int]) -> int:
        ex = self.ex
        self.slices[:] = 0
        count = ex.store.count
        self.shared[0] = count
        self.blocks["next"] = self.blocks["end"] = 0
        # blocks leave up to BLOCK unused indices per thread until the round's end: only when they fit
        fits = count + (bounds[-1] - bounds[0]) * max(ex.nact, 1) + self.T * P.BLOCK <= ex.store.cap
        self.blocks["size"] = P.BLOCK if fits else 1
        round_ = tuple(P.Round(np.array(bounds, dtype=np.int64), self.C, self.wit_src, self.wit_act, self.tallies,
                               self.tally.shape[1], self.edges_t, self.edge_act_t, self.best, self.slots, count,
                               self.shared, int(ex.graph), int(ex.labels), int(ex.leaves)))
        status = self._expand_slices(ex.store.kernel_view(), round_)
        new = int(self.shared[0])
        store = ex.store
        if status == K.ST_LEVEL_DONE:
            new = P.close_blocks((store.states, store.table, store.goal, store.noexp), round_, self.slices, self.blocks,
                                 new, self.moves, self.wit_thread)
        store.io["count"] = new
        store.fill += self.fills[:, :ex.owners].sum(axis=0)   # filed even when the round stopped: the table holds them
        self.fills[:] = 0
        store.io["fill_max"] = int(store.fill.max())
        if status != K.ST_LEVEL_DONE:
            return status
        best = self.best[:new - count]
        ex.store.parent[count:new] = best >> P.ACTION_BITS
        ex.store.via[count:new] = best & ((1 << P.ACTION_BITS) - 1)
        self._note_slots(count, new)
        if ex.limits.max_states is not None and new > ex.limits.max_states:
            return K.ST_LIMIT
        if ex.graph:
            self._place_edges(bounds)
        self._fold_counters()
        return K.ST_LEVEL_DONE

    def _note_slots(self, count: int, new: int) -> None:
        level_lo, n, growths = self.filed
        if growths != self.ex.store.table_growths:   # grown since: the slots noted are stale
            return
        if len(self.level_slots) < new - level_lo:
            try:
                grown = np.empty(max(2 * len(self.level_slots), new - level_lo), dtype=np.int64)
            except MemoryError:   # the sort will look the states up instead
                self.filed = (level_lo, n, -1)
                return
            grown[:n] = self.level_slots[:n]
            self.level_slots = grown
        self.level_slots[count - level_lo:new - level_lo] = self.slots[:new - count]
        self.filed = (level_lo, new - level_lo, growths)

    def _expand_slices(self, visited: Any, round_: tuple) -> int:
        ex = self.ex
        counter = np.zeros(PAD, dtype=np.int64)   # the next slice to take
        fields = P.visited_fields(visited)

        def expand_on(i: int) -> None:
            thread = (*self.rows[i], self.wit_thread[i, :64], self.fills[i, :ex.owners], i)
            P.expand_slices(self.functions, ex.model.params, fields, ex.masks, round_, self.slices, thread,
                            self.blocks, counter)
        try:
            self.team.run(expand_on)
        except Exception:   # raised inside model code: report the first slice that failed, as one thread would
            started = np.flatnonzero(self.slices["status"] == P.S_STARTED)
            errors = np.flatnonzero(self.slices["status"] == P.S_ERROR)
            if len(errors) and (not len(started) or errors[0] < started[0]):
                return self._model_error(int(errors[0]))
            ex.store.io["pos"] = self.slices[started[0]]["pos"]
            raise
        errors = np.flatnonzero(self.slices["status"] == P.S_ERROR)
        if len(errors):   # the first in index order: the one a single thread would meet
            return self._model_error(int(errors[0]))
        return K.ST_LEVEL_DONE

    def _model_error(self, s: int) -> int:
        io, c = self.ex.store.io, self.slices[s]
        io["err_state"], io["err_action"], io["err_flags"] = c["err_state"], c["err_action"], c["err_flags"]
        return K.ST_ERROR

    def _place_edges(self, bounds: list[int]) -> None:
        """The round's edges after the edges already stored, slice after slice (room was made before), the
        slices shared out among the threads."""
        ex = self.ex
        counts = self.slices["edges"]
        at = int(ex.store.io["edges"]) + np.concatenate(([0], np.cumsum(counts[:-1])))
        bounds_a = np.array(bounds, dtype=np.int64)
        store = ex.store
        self.team.run(lambda t: P.place_edges((store.edges, store.edge_act), (self.edges_t, self.edge_act_t),
                                              store.row_start, bounds_a, at, self.slices, self.C, int(ex.labels), t,
                                              self.T))
        ex.store.io["edges"] = int(at[-1] + counts[-1])

    def _fold_counters(self) -> None:
        """The round's transitions, unexpanded states, terminal state, tally and transition witnesses,
        folded into the explorer in slice order (slice order is index order, which is key order)."""
        ex, io, slices = self.ex, self.ex.store.io, self.slices
        io["trans"] += int(slices["trans"].sum())
        io["nleaf"] += int(slices["nleaf"].sum())
        if io["terminal"] == 0:
            found = np.flatnonzero(slices["terminal"])
            if len(found):
                io["terminal"] = slices[found[0]]["terminal"]
        ex.tally += self.tally.sum(axis=0)
        self.tally[:] = 0
        found = self.wit_src >= 0
        first = found.argmax(axis=0)   # per property bit, the first slice with a witness
        bits = np.flatnonzero((ex.wit_src < 0) & found.any(axis=0))
        ex.wit_src[bits] = self.wit_src[first[bits], bits]
        ex.wit_act[bits] = self.wit_act[first[bits], bits]
        self.wit_src[:] = -1
        self.wit_act[:] = -1

    def _end_level(self, hi: int) -> None:
        ex = self.ex
        P.merge_state_witnesses(ex.store.states, ex.wit_state, np.ascontiguousarray(self.wit_thread[:, :64]).ravel())
        self.wit_thread[:] = -1
        if ex.graph:
            ex.store.row_start[hi] = ex.store.io["edges"]

    def discard_round(self) -> None:
        """Forget what a stopped level left in the buffers."""
        self.wit_thread[:] = -1
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
        states = ex.store.states
        m = min(n, SAMPLES_PER_RANGE * T)
        sample = states[lo + (np.arange(m) * n) // m]
        ordered = sample[np.lexsort(tuple(sample[:, i].view(np.int64) for i in reversed(range(ex.words))))]
        splitters = np.ascontiguousarray(ordered[(np.arange(1, T) * m) // T])
        cut = [lo + n * t // T for t in range(T + 1)]
        bucket = np.empty(n, dtype=np.int32)
        # each thread's counts and cursors on cache lines of their own: they change at every state
        padded = np.zeros((2, T, T + PAD), dtype=np.int64)
        counts, cursor = padded[0, :, :T], padded[1]
        self.team.run(lambda t: P.bucket_level(states, splitters, cut[t], cut[t + 1], bucket[cut[t] - lo:cut[t + 1] - lo],
                                               counts[t]))
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
        arrays = ex.store.level_arrays()
        moved = [np.empty_like(a[lo:hi]) for a in arrays]
        level_lo, filed, growths = self.filed
        if ex.compact:   # the fingerprint table holds no index: nothing to relink
            pass
        elif level_lo == lo and filed == n and growths == ex.store.table_growths:   # every slot known: no lookups
            slots = self.level_slots
            self.team.run(lambda t: P.relink_slots(ex.store.table, ex.words, slots, new_pos, part[t], part[t + 1]))
        else:
            regions = (ex.owners, ex.store.region_slots)
            self.team.run(lambda o: P.relink_owner(states, ex.store.table, regions, lo, new_pos, o))
        self.filed = (-1, 0, -1)
        if e1 > e0:
            edges = ex.store.edges
            self.team.run(lambda t: P.relink_edges(edges, e0 + (e1 - e0) * t // T, e0 + (e1 - e0) * (t + 1) // T,
                                                   lo, hi, new_pos))
        for array, out in zip(arrays, moved):
            self.team.run(lambda t: P.gather(array, lo, order, part[t], part[t + 1], out))
            self.team.run(lambda t: P.put_back(array, lo, out, part[t], part[t + 1]))
        return new_pos
