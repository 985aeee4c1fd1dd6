"""The graph and eventually properties over the compact visited set (``check --compact``): the reachable
graph written to disk during the search, resolved to state indices after it, and decided by the exact
store's passes.

The compact table holds fingerprints only (no state index) and the compact search keeps no old state, so
what the passes over the whole graph read is written while the search has it:

- every transition of every state expanded, in the order the exact store keeps its edges (source index,
  then action; self-loops too): the successor's fingerprint and the action, and per state the number of
  its transitions (:func:`explore.compact_graph_kernels.expand_compact_recording`, on one thread; on
  several, each slice of a round records its states' transitions in a buffer of its own, written out in
  slice order: :mod:`explore.compact_graph_kernels`);
- per state, once its level is sorted (so its index is final) and while its row is still in memory: the
  fingerprint it is filed under, its goal bits (the graph property ``replication_can_catch_up``) and the
  P / Q masks of the eventually properties' instances (:func:`explore.fair_graph.label_states`).

They go, level by level, to files in the run's temporary directory beside the parent links
(:class:`explore.compact.LinkFiles`). When the search has explored the whole space, the fingerprints are
resolved to state indices through the fingerprint table itself: a slot-to-index array beside the table
(4 bytes a slot) is filled from the states' fingerprints, then every transition's fingerprint is looked up
(in chunks, the indices written to a file); the table and that array are then freed, and the passes read
the CSR graph (``row_start``, ``edges``, the actions) and the labels as memory-mapped files: the graph
property's backward reachability (:func:`explore.graph.cannot_reach_goal`) and the eventually properties'
pass (:func:`explore.liveness.decide`), unchanged. Every level is sorted by key, so a state's index order
within its level is its key order: the smallest key of the shallowest level (the canonical witness) is the
smallest index, and traces are rebuilt from the parent links on disk and replayed, as for the safety
properties.

A fingerprint collision (two states, one fingerprint: the compact set's guarantee in docs/engines.md) files
one state for both, and every transition to either resolves to the one filed: the graph is the one the
compact search explored, never a crash.

Memory: the passes hold, besides the mapped graph, the exact store's per-state arrays (Tarjan's stacks,
the predecessor lists). When the run heads for more than the run's memory budget can hold for them, or more
edges than the disk has room for, the graph and eventually properties are refused as soon as the forecast
(or the states found so far) says so: the search goes on for the other properties, and those are unknown,
saying the memory or disk they would need.
"""
from __future__ import annotations

import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from . import compact as C
from . import compact_graph_kernels as G
from .compact_rounds import S_FULL
from .fair_graph import label_states
from .result import HOLDS, S_VIOLATED, UNKNOWN, PropertyResult

EDGE_BUFFER = 1 << 21     # transitions a call of the recording kernel may write before they go to disk
DEGREE_BUFFER = 1 << 18   # states a call may expand
#: a threaded round's slice records this many transitions a state at most (at least one state's); a slice
#: that fills its buffer ends the round early, as a full successor buffer does (explore/compact_rounds.py)
ROUND_EDGES_PER_STATE = 8
CHUNK = 1 << 22           # fingerprints resolved (and labels written) at a time
#: what the passes hold per state and per edge besides the search's structures (freed by then): the exact
#: store's passes (explore/local.py POST_BYTES_*), plus the mapped CSR (row start 8 bytes a state, index
#: and action 6 bytes an edge) and the labels
PASS_BYTES = 64 << 20
PASS_BYTES_PER_STATE = 48 + 8 + 3
PASS_BYTES_PER_EDGE = 4 + 6
#: the resolution's peak per state: the fingerprint table (16 bytes a state after a doubling) and its
#: slot-to-index array (8)
RESOLVE_BYTES_PER_STATE = 24
#: disk per state (degree, fingerprint, goal bits, row start) and per edge (fingerprint, action, index)
DISK_PER_STATE = 2 + 8 + 1 + 8
DISK_PER_EDGE = 8 + 2 + 4


def human(n: float) -> str:
    from .memory import human as h
    return h(int(n))


class CompactGraph:
    """The graph of a compact run on disk, for its graph and eventually properties (module docstring)."""

    def __init__(self, explorer: Any) -> None:
        self.ex = explorer
        t = explorer.tracker
        self.props = list(t.graph_props) + list(t.eventually)
        self.goal_mask = np.uint64(t.goal_mask())
        self.eventually = list(t.eventually)
        self.bits = np.array([p.bit for p in self.eventually], np.int64)
        self.refused = ""          # why the properties are not decided (then nothing more is recorded)
        self.files: dict[str, Any] = {}
        self.dir = ""
        self.written = 0           # bytes written to disk, in all (the peak: nothing is removed before the end)
        self.edges = 0             # transitions recorded
        self.states = 0            # states labelled
        self.expanded = 0          # states whose transitions are recorded
        self.efps = np.empty(EDGE_BUFFER, np.uint64)
        self.eact = np.empty(EDGE_BUFFER, np.int16)
        self.degree = np.empty(DEGREE_BUFFER, np.uint16)
        self.ecount = np.zeros(1, np.int64)
        self.pq_width = 2 * len(self.eventually)
        self._round: tuple | None = None

    # -- during the search --------------------------------------------------------------------------------
    def _open(self) -> None:
        self.dir = self.ex.store.links.dir
        for name in ("edge_fp", "edge_act", "degree", "fp", "goal", "pq"):
            self.files[name] = open(os.path.join(self.dir, name), "w+b")

    def _write(self, name: str, array: np.ndarray) -> None:
        data = np.ascontiguousarray(array)
        if data.nbytes:
            self.files[name].write(memoryview(data.reshape(-1)).cast("B"))
        self.written += data.nbytes

    def _refuse(self, why: str) -> None:
        self.refused = why
        for f in self.files.values():
            f.close()
        for name in self.files:
            try:
                os.unlink(os.path.join(self.dir, name))
            except OSError:
                pass
        self.files = {}

    def _disk_error(self, exc: OSError) -> None:
        self._refuse(f"cannot write the graph to {self.dir} ({exc.strerror or exc}); free disk space there or "
                     "set TMPDIR")

    def expand(self, succ, scheck, tcheck, params, visited, counters, masks, witnesses, rows, chunk, tally) -> int:
        """:func:`explore.compact.expand_compact`'s call, recording the transitions of the states expanded
        (after a refusal, the plain compact kernel)."""
        if self.refused:
            return C.expand_compact(succ, scheck, tcheck, params, visited, counters, masks, witnesses, rows, chunk,
                                    tally)
        io = counters[0]
        first = int(io["pos"])
        self.ecount[0] = 0
        status = G.expand_compact_recording(succ, scheck, tcheck, params, visited, counters, masks, witnesses, rows,
                                            chunk, tally, (self.efps, self.eact, self.degree, self.ecount))
        done = int(io["pos"]) - first
        n = int(self.ecount[0])
        try:
            self._write("edge_fp", self.efps[:n])
            self._write("edge_act", self.eact[:n])
            self._write("degree", self.degree[:done])
        except OSError as exc:
            self._disk_error(exc)
        self.edges += n
        self.expanded += done
        return status

    # -- the threaded rounds (explore/compact_level.py) ------------------------------------------------
    def recording(self) -> bool:
        """Whether the rounds record transitions (not after a refusal)."""
        return not self.refused

    def round_buffers(self, slices: int, slice_states: int, nact: int) -> tuple:
        """The transition buffers of a round of ``slices`` slices of up to ``slice_states`` states
        (:data:`explore.compact_graph_kernels.ROUND_EDGES_T`; allocated once, counts zeroed)."""
        ecap = max(slice_states * ROUND_EDGES_PER_STATE, nact)
        if self._round is None or len(self._round[3]) != slices or self._round[4] != ecap:
            self._round = (np.empty(slices * ecap, np.uint64), np.empty(slices * ecap, np.int16),
                           np.empty(slices * slice_states, np.uint16), np.zeros(slices, np.int64), ecap)
        self._round[3][:] = 0
        return self._round

    @staticmethod
    def expand_slices(*args: Any) -> None:
        """Step 1 of a round on one thread, recording (:func:`explore.compact_graph_kernels.buffer_slices_recording`)."""
        G.buffer_slices_recording(*args)

    def record_round(self, bounds: list[int], slices: np.ndarray, last: int) -> None:
        """The transitions the round over ``bounds`` recorded, slice by slice in slice order up to slice
        ``last`` (which may have stopped at its ``pos``, a full buffer): to disk."""
        if self.refused:
            return
        efps, eact, degree, ecount, ecap = self._round
        first = bounds[0]
        try:
            for s in range(last + 1):
                n = int(ecount[s])
                end = bounds[s + 1] if slices[s]["status"] != S_FULL else int(slices[s]["pos"])
                self._write("edge_fp", efps[s * ecap:s * ecap + n])
                self._write("edge_act", eact[s * ecap:s * ecap + n])
                self._write("degree", degree[bounds[s] - first:end - first])
                self.edges += n
                self.expanded += end - bounds[s]
        except OSError as exc:
            self._disk_error(exc)

    def start(self) -> None:
        """The run's files, once the store (and its links' directory) exists."""
        self._open()

    def level_done(self, lo: int, hi: int) -> None:
        """The sorted level ``[lo, hi)`` (its rows still in memory): each state's fingerprint, goal bits and
        P / Q masks to disk; then whether the passes will fit (:meth:`_fits`)."""
        if self.refused:
            return
        ex = self.ex
        states = ex.store.states
        try:
            for a in range(lo, hi, CHUNK):
                b = min(hi, a + CHUNK)
                rows = states[a:b]
                fps = np.empty(b - a, np.uint64)
                goal = np.zeros(b - a, np.uint8)
                G.label_level(ex.props.state_check, ex.model.params, rows, self.goal_mask, fps, goal)
                self._write("fp", fps)
                self._write("goal", goal)
                if self.pq_width:
                    pq = np.zeros((b - a, self.pq_width), np.uint8)
                    wide = label_states(ex.props.eventually_masks, ex.model.params, rows, 0, b - a, self.bits, pq,
                                        np.zeros(128, np.uint64))
                    if wide >= 0:
                        raise RuntimeError(f"state {a + wide}: an eventually property has more than 8 instances")
                    self._write("pq", pq)
                self.states += b - a
        except OSError as exc:
            self._disk_error(exc)
            return
        self._fits(hi)

    def _fits(self, count: int) -> None:
        """Refuse the properties as soon as the states found so far (and their transitions) need more memory
        for the passes than the run's budget, or more disk than is free where the graph goes. Not on the
        forecast of the run's size (:mod:`explore.forecast`): it overshoots where the levels grow unevenly
        (218 million states forecast for the 80,384 of ``ctl-power-loss``), and a refusal loses verdicts."""
        ex = self.ex
        n = count
        e = self.edges / max(self.expanded, 1) * n   # the last level's transitions, at the mean so far
        memory = max(PASS_BYTES + PASS_BYTES_PER_STATE * n + PASS_BYTES_PER_EDGE * e, RESOLVE_BYTES_PER_STATE * n)
        how = f"{count:,} states found so far"
        names = ", ".join(p.name for p in self.props)
        if memory > ex.watch.budget:
            self._refuse_now(f"not decided: over the compact run's graph on disk, {names} would need at least "
                         f"{human(memory)} of memory ({how}, about {e:,.0f} transitions); the run may hold "
                         f"{human(ex.watch.budget)} ({ex.watch.source}); use --property to select the "
                         f"always and sometimes properties, or a smaller configuration")
            return
        disk = DISK_PER_STATE * n + DISK_PER_EDGE * e
        try:
            free = shutil.disk_usage(self.dir).free + self.written
        except OSError:
            return
        if disk > free:
            self._refuse_now(f"not decided: the compact run's graph would need at least {human(disk)} of disk "
                         f"in {self.dir} ({how}), which has {human(free)}; free disk space there or set TMPDIR")

    def _refuse_now(self, why: str) -> None:
        """Refuse during the run, and say so at once on stderr (``rmqcheck: note: ...``, as the forecast of the
        run's size is said: :class:`explore.forecast.SizeWarning`'s ``say``), the search going on."""
        self._refuse(why)
        say = getattr(self.ex.listener, "say", None)
        if callable(say):
            say(f"note: {why}; the search goes on for the other properties")

    @property
    def disk_bytes(self) -> int:
        return self.written

    # -- after the search ---------------------------------------------------------------------------------
    def decide(self, results: dict[str, PropertyResult]) -> None:
        """The verdicts of the graph and eventually properties (unknown when the run is incomplete, or the
        graph was refused: the note says why)."""
        ex = self.ex
        if ex.incomplete or ex.error is not None or self.refused:
            note = self.refused or "needs the whole reachable graph"
            for p in self.props:
                results[p.name] = PropertyResult(p.name, p.kind, UNKNOWN, p.summary, note=note)
            return
        count = ex.store.count
        if self.states != count or self.expanded != count:
            raise RuntimeError(f"the compact graph on disk holds {self.states:,} labelled and {self.expanded:,} "
                               f"expanded states of {count:,}")
        need = PASS_BYTES + PASS_BYTES_PER_STATE * count + PASS_BYTES_PER_EDGE * self.edges
        if ex.memory_full(need, "before deciding the graph and eventually properties"):
            self._refuse(ex.incomplete)
            ex.incomplete = ""   # the search was whole: only these properties are not decided
            self.decide(results)
            return
        for f in self.files.values():
            f.flush()
        try:
            row_start, edges = self._csr(count)
            goal = self._map("goal", np.uint8, (count,))
            self._graph_properties(results, row_start, edges, goal, count)
            if self.eventually:
                self._eventually(results, row_start, edges, count)
        except MemoryError:   # an allocation the budget did not foresee failed: these properties only
            from .memory import tightest_limit
            self._refuse(f"out of memory deciding them at {count:,} states (tightest memory limit: "
                         f"{tightest_limit().source})")
            self.decide(results)

    def _map(self, name: str, dtype: Any, shape: tuple[int, ...]) -> np.ndarray:
        """File ``name`` as an array (a writable shared mapping: the passes' compiled kernels take it as they
        take the exact store's arrays)."""
        if int(np.prod(shape)) == 0:
            return np.zeros(shape, dtype)
        return np.asarray(np.memmap(os.path.join(self.dir, name), dtype=dtype, mode="r+", shape=shape))

    def _csr(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """``(row_start, edges)``: the transitions' fingerprints resolved to state indices (module
        docstring), the fingerprint table freed after."""
        store = self.ex.store
        table = store.table
        slot_index = np.empty(len(table), np.int32)
        zero = np.full(1, -1, np.int64)
        for a in range(0, count, CHUNK):
            b = min(count, a + CHUNK)
            fps = self._read("fp", np.uint64, a, b)
            if G.index_slots(table, slot_index, zero, fps, a) >= 0:
                raise RuntimeError("a stored state's fingerprint is not in the compact table")
        edges = self._create("edges", np.int32, self.edges)
        threads = max(1, self.ex.threads)
        pool = ThreadPoolExecutor(threads) if threads > 1 else None
        try:
            for a in range(0, self.edges, CHUNK):
                b = min(self.edges, a + CHUNK)
                fps = self._read("edge_fp", np.uint64, a, b)
                cut = [(b - a) * t // threads for t in range(threads + 1)]

                def part(t: int) -> int:   # one range of the chunk per thread (the kernel drops the GIL)
                    return G.resolve(table, slot_index, zero, fps[cut[t]:cut[t + 1]], edges[a + cut[t]:a + cut[t + 1]])
                found = [part(0)] if pool is None else list(pool.map(part, range(threads)))
                if max(found) >= 0:
                    raise RuntimeError("a transition's fingerprint is not in the compact table")
        finally:
            if pool is not None:
                pool.shutdown()
        del slot_index
        store.table = np.zeros(1, np.uint64)   # the search is over: nothing looks a fingerprint up again
        row_start = self._create("row_start", np.int64, count + 1)
        row_start[0] = 0
        total = 0
        for a in range(0, count, CHUNK):
            b = min(count, a + CHUNK)
            d = self._read("degree", np.uint16, a, b).astype(np.int64)
            np.cumsum(d, out=row_start[a + 1:b + 1])
            row_start[a + 1:b + 1] += total
            total = int(row_start[b])
        if total != self.edges:
            raise RuntimeError(f"the compact graph's degrees add up to {total:,} of {self.edges:,} transitions")
        return row_start, edges

    def _read(self, name: str, dtype: Any, a: int, b: int) -> np.ndarray:
        """Items ``[a, b)`` of file ``name``."""
        out = np.empty(b - a, dtype)
        size = out.itemsize
        if os.preadv(self.files[name].fileno(), [memoryview(out).cast("B")], a * size) != (b - a) * size:
            raise RuntimeError(f"{name}: short read")
        return out

    def _create(self, name: str, dtype: Any, n: int) -> np.ndarray:
        """A new file of ``n`` items of ``dtype``, mapped."""
        path = os.path.join(self.dir, name)
        with open(path, "w+b") as f:
            f.truncate(max(n, 1) * np.dtype(dtype).itemsize)
        self.written += n * np.dtype(dtype).itemsize
        return np.asarray(np.memmap(path, dtype=dtype, mode="r+", shape=(max(n, 1),)))[:n]

    def _graph_properties(self, results, row_start, edges, goal, count) -> None:
        from .graph import cannot_reach_goal
        ex = self.ex
        for k, p in enumerate(ex.graph_props):
            bad = cannot_reach_goal(row_start, edges, self.edges, goal, count, k)
            if bad.any():
                # every level is sorted by key: the smallest index of the shallowest level is its smallest key
                witness = int(np.argmax(bad))
                results[p.name] = PropertyResult(p.name, p.kind, S_VIOLATED, p.summary, ex._trace_to(witness))
            else:
                results[p.name] = PropertyResult(p.name, p.kind, HOLDS, p.summary)

    def _eventually(self, results, row_start, edges, count) -> None:
        from invariants.base import STRONG
        from .fairness import fair_actions
        from .liveness import Graph, decide, result_of
        from .trace import replay
        ex = self.ex
        act = self._map("edge_act", np.int16, (self.edges,))
        pq = self._map("pq", np.uint8, (count, self.pq_width))
        fairness = ex.props.fairness
        g = Graph(row_start, edges, act, fair_actions(ex.model.actions(), fairness), strong=fairness.mode == STRONG)
        states = ex.store.states   # the initial states' rows are kept: every trace starts at one

        def trace_of(root: int, actions: list[int]) -> Any:
            return replay(ex.model, states[root], actions)

        for k, p in enumerate(self.eventually):
            verdict = decide(g, pq[:, 2 * k], pq[:, 2 * k + 1])
            results[p.name] = result_of(p, verdict, fairness, ex.path, trace_of, ex.model)

    def close(self) -> None:
        """Close the files (the directory goes with the parent links')."""
        for f in self.files.values():
            f.close()
        self.files = {}
