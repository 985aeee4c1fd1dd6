"""The local breadth-first explorer: the embedded default engine.

Level by level, every state is checked before it is stored; the first level at which a property is
violated (or reached) gives its shortest trace. A state is left unexpanded when it violates every property
being checked (with one always property, exactly TLC's rule); otherwise it is expanded, so every other
property keeps the verdict and the shortest trace it would have if it were checked alone. Exploration
stops early, at the end of a level, once every property is decided. Limits (states, depth, seconds, memory)
end the run as ``incomplete`` with what was covered, never as a false "passed".

The engine does not print: progress goes to a listener (``reports/`` renders it as a progress bar).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import counters
from . import kernel as K
from . import stop
from .build import check_result, level_stats
from .coverage import new_tally
from .graph import cannot_reach_goal
from .memory import MemoryWatch, available_memory_bytes
from .compact_level import CompactRounds
from .compact_rounds import COMPACT_SLICE_STATES
from .rounds import SLICE_STATES, LevelRounds
from .team import ThreadTeam
from invariants.base import PropertySet
from .run_control import Limits, Listener, Progress, rss_bytes
from .result import HOLDS, S_VIOLATED, UNKNOWN, CheckResult, ModelError, PropertyResult, state_limit_reason
from .tracker import PropertyTracker
from . import compact as C
from .compact import compact_bytes_per_state
from .compact_dir import LevelsOnDisk, WorkDirRefused
from .visited import CompactStore, VisitedStore, bytes_per_state
from .trace import replay

MIN_CHUNK = 256
#: the visited sets a run may ask for: whole states (``exact``) or fingerprints (``compact``, explore/compact.py)
VISITED_MODES = ("exact", "compact")
MIN_CAPACITY = 1024
#: what a level's sort allocates per state beyond the state's words (the order, the new positions, the
#: moved parent, action, leaf and goal columns), for the memory check before it
SORT_BYTES_PER_STATE = 40
#: what the passes over the whole graph at the end (graph properties, eventually properties) allocate at
#: their peak, per state, per stored edge and in all: measured +836 MiB on ``bench`` (16.8M states, 103M
#: edges: 48 B a state and 4 B an edge would say 1.2 GiB) and +79 MiB on ``default``
POST_BYTES_PER_STATE = 48
POST_BYTES_PER_EDGE = 4
POST_BYTES = 64 << 20


@dataclass
class _Witness:
    """Where a property was decided: a state index, or a transition (source index, action)."""

    state: int
    action: int = -1


class LocalExplorer:
    """Exhaustive BFS on one machine over a packed-state model and a property set.

    ``exhaustive=True`` explores the whole reachable space whatever the properties say (no early stop, no
    state left unexpanded) and keeps every transition as an edge (``row_start``/``edges``, the k-th edge
    of a state being its k-th enabled action): what the failure-mode analysis needs."""

    engine = "local"

    def __init__(self, model: Any, properties: PropertySet, limits: Limits = Limits(),
                 listener: Listener | None = None, memory_budget: int | None = None,
                 chunk: int = 4096, exhaustive: bool = False, threads: int = 1,
                 slice_states: int | None = None, parallel_from: int | None = None, visited: str = "exact",
                 work_dir: str | None = None, resume: bool = False) -> None:
        if threads < 1:
            raise ValueError("threads must be at least 1")
        if visited not in VISITED_MODES:
            raise ValueError(f"visited must be one of {', '.join(VISITED_MODES)}")
        self.visited = visited   # what was asked for; ``compact`` says what the run uses (see _classify)
        if (work_dir is not None or resume) and visited != "compact":
            raise WorkDirRefused("--work-dir and --resume hold the levels of the compact visited set: add "
                                 "--compact (the exact store keeps its levels in memory)")
        if resume and work_dir is None:
            raise WorkDirRefused("--resume needs --work-dir DIR (the directory of the run to continue)")
        self.work_dir = work_dir
        self.resume = resume
        self.levels: LevelsOnDisk | None = None   # the compact set's levels on disk (explore/compact_dir.py)
        self.compact = False
        self.visited_note = ""
        self.cgraph = None   # the compact run's graph on disk (explore/compact_graph.py), when it has one
        self.model = model
        self.exhaustive = exhaustive
        self.props = properties
        self.limits = limits
        self.listener = listener
        self.memory_budget = memory_budget
        self.chunk = chunk
        self.nact = len(model.actions())
        self.words = int(model.words)
        self.threads = threads
        self.owners = threads        # one table region per thread
        self.slice_states = slice_states or SLICE_STATES
        self.slice_asked = slice_states
        # smaller levels run on the one-thread kernel (same results; a round's fixed cost is not worth it)
        self.parallel_from = parallel_from if parallel_from is not None else 8 * self.slice_states
        self.team: ThreadTeam | None = None
        self.rounds: LevelRounds | None = None

    # -- setup ------------------------------------------------------------------------------------------
    def _capacity(self) -> int:
        per_state = bytes_per_state(self.words, self.graph, self.leaves, self.labels)
        budget = self.memory_budget if self.memory_budget is not None else int(available_memory_bytes() * 0.7)
        if self.compact:   # the states' rows and links are address space (pages given back level by level)
            from .memory import address_space_limit
            per_state = compact_bytes_per_state(self.words, self.leaves)
            if address_space_limit() is not None:   # the states' rows and the links in memory are mapped
                per_state += 8 * self.words + 6
        if self.threads > 1:   # the rounds' buffers and the threads come first
            if self.compact:
                cost = CompactRounds.team_bytes(self.threads, self.nact, self.words, self.slice_states)
            else:
                cost = LevelRounds.team_bytes(self.threads, self.nact, self.words, self.graph, self.slice_states,
                                              self.labels)
            if cost > budget // 4:   # memory too tight for threads to pay: one thread, the same results
                self.threads = self.owners = 1
            else:
                budget -= cost
        cap = max(budget // per_state, MIN_CAPACITY)
        if self.limits.max_states is not None:
            cap = min(cap, self.limits.max_states + self.nact + 1)
        return int(cap)

    def _allocate(self) -> None:
        """The visited-state store at the budgeted capacity; an allocation the budget did not foresee (another
        process took the memory, an address-space limit fragmented) retries at half the capacity."""
        cap = self._capacity()
        while True:
            try:
                if self.compact:
                    if self.levels is None:
                        self.levels = LevelsOnDisk(self, self.work_dir, self.resume)
                    self.store = CompactStore(cap, self.words, self.leaves, self.limits.max_states,
                                              self.levels.links())
                else:
                    self.store = VisitedStore(cap, self.words, self.owners, self.graph, self.leaves,
                                              self.limits.max_states, self.labels)
                break
            except MemoryError:
                self.store = None
                if cap <= MIN_CAPACITY:
                    raise
                cap = max(cap // 2, MIN_CAPACITY)
        self._allocate_scratch()

    def _allocate_scratch(self) -> None:
        """The expansion's own buffers: property masks, witnesses per property bit, one state's successor
        rows, the coverage tally."""
        w = self.words
        self.masks = counters.new(counters.MASKS, 1)
        self.wit_state = np.full(64, -1, dtype=np.int64)
        self.wit_src = np.full(64, -1, dtype=np.int64)
        self.wit_act = np.full(64, -1, dtype=np.int64)
        self.out = np.zeros((max(self.nact, 1), w), dtype=np.uint64)
        self.oflags = np.zeros(max(self.nact, 1), dtype=np.int64)
        self.homes = np.zeros(max(self.nact, 1), dtype=np.int64)   # scratch: lookup start of each successor
        self.tags = np.zeros(max(self.nact, 1), dtype=np.uint64)
        self.tally = new_tally(self.nact)   # coverage: explore.step's T_* slots

    def _classify(self) -> None:
        self.tracker = PropertyTracker(self.props)
        self.graph = self.tracker.graph
        self.leaves = self.tracker.leaves
        self.graph_props = self.tracker.graph_props
        self.labels = bool(self.tracker.eventually)   # fairness reads each edge's action
        if self.exhaustive:   # every state expanded, every transition kept (explore.faults reads them)
            self.leaves = False
            self.graph = True
        if self.visited == "compact":
            self._choose_compact()

    def _choose_compact(self) -> None:
        """Use the compact visited set (:mod:`explore.compact`) when the run needs no stored edge and no
        old state: else the exact store, and ``visited_note`` says why (never a silent change)."""
        if self.exhaustive:
            self.visited_note = "compact visited set not used: this analysis reads every stored state and edge (exact store)"
            self._no_work_dir()
            return
        if self.graph or self.labels:   # their edges go to disk (explore/compact_graph.py), none in memory
            if self.work_dir is not None or self.resume:
                which = [p.name for p in self.graph_props] + ([p.name for p in self.tracker.eventually]
                                                              if self.labels else [])
                raise WorkDirRefused(f"--work-dir: {', '.join(which)} {'is' if len(which) == 1 else 'are'} decided "
                                     "over the graph on disk, which a work directory does not keep for --resume yet "
                                     "(select the always and sometimes properties with --property)")
            from .compact_graph import CompactGraph
            self.cgraph = CompactGraph(self)
            self.graph = self.labels = False
        self.compact = True
        self.owners = 1   # one table (of fingerprints), whatever the thread count
        if self.slice_asked is None:   # larger slices than the exact store's (levels start rounds as large)
            self.slice_states = COMPACT_SLICE_STATES

    def _no_work_dir(self) -> None:
        """A work directory holds the compact set's levels: refused when the run keeps the exact store."""
        if self.work_dir is not None or self.resume:
            raise WorkDirRefused(f"--work-dir: {self.visited_note.replace('compact visited set not used: ', '')}"
                                 "; the levels on disk are the compact visited set's (select the always and "
                                 "sometimes properties with --property)")

    def _set_masks(self) -> None:
        t = self.tracker
        self.masks["state_watch"] = t.state_watch_mask()
        self.masks["trans_watch"] = t.transition_watch_mask()
        self.masks["leaf"] = t.leaf_mask()
        self.masks["goal"] = t.goal_mask()

    # -- the run ----------------------------------------------------------------------------------------
    def run(self) -> CheckResult:
        self.start()
        try:
            while self.expand_next_level():
                pass
        finally:
            self.close()
        return self.result()

    def close(self) -> None:
        """Stop the worker threads (the explored states stay readable)."""
        if self.team is not None:
            self.team.close()
            self.team = None

    def start(self) -> None:
        """Store and check the initial states (level 0)."""
        self._classify()
        self.watch = MemoryWatch(self.memory_budget)   # before the store: its start is what the run adds to
        self.start_rss = rss_bytes()
        self._allocate()
        self._set_masks()
        if self.cgraph is not None:
            self.cgraph.start()
        if self.threads > 1:
            self.team = ThreadTeam(self.threads)
            rounds = CompactRounds if self.compact else LevelRounds
            self.rounds = rounds(self, self.team, self.slice_states)
        self.t0 = time.perf_counter()
        self.level_starts = [0]
        self.level_seconds: list[float] = []
        self.level = 0
        self.incomplete = ""
        self.error: ModelError | None = None
        initial = np.ascontiguousarray(self.model.initial_states(), dtype=np.uint64)
        if initial.ndim != 2 or initial.shape[1] != self.words:
            raise ValueError(f"initial_states() must be an (n, {self.words}) array")
        if len(initial) > self.store.cap:
            raise ValueError("more initial states than the state capacity")
        if self.resume:   # where the work directory's checkpoint left off (explore/compact_dir.py)
            self.levels.resume(self, _Witness)
            self._set_masks()
            return
        seed = C.seed_compact if self.compact else K.seed
        seed(self.props.state_check, self.model.params, self.store.kernel_view(), self.store.counters, self.masks,
             self.wit_state, initial)
        self.level_starts.append(self.store.count)
        self._sort_level(0, 0, 0)
        if self.cgraph is not None:
            self.cgraph.level_done(0, self.store.count)
        self.level_seconds.append(time.perf_counter() - self.t0)
        self._decide_level()
        if self.compact:
            self._retire()

    def frontier(self) -> tuple[int, int]:
        """Index range of the current level, the next one to expand."""
        return self.level_starts[self.level], self.level_starts[self.level + 1]

    def finished(self) -> bool:
        lo, hi = self.frontier()
        decided = self.tracker.all_decided() and not self.exhaustive
        return hi == lo or decided or bool(self.incomplete) or self.error is not None

    def expand_next_level(self) -> bool:
        """Expand the current level into the next; False once exploration is over (done or stopped)."""
        if self.finished():
            return False
        lo, hi = self.frontier()
        if self.limits.max_depth is not None and self.level >= self.limits.max_depth:
            self.incomplete = f"depth limit {self.limits.max_depth} reached with {hi - lo} states unexpanded"
            return False
        if self.limits.max_seconds is not None and time.perf_counter() - self.t0 > self.limits.max_seconds:
            self.incomplete = f"time limit {self.limits.max_seconds:g} s reached"
            return False
        if stop.requested():
            self.incomplete = stop.requested()
            return False
        if self.memory_full():
            return False
        t = time.perf_counter()
        e0 = int(self.store.io["edges"])
        mark = self._mark()
        try:
            expanded = self._expand_level(self.level, lo, hi)
        except BaseException:   # Ctrl-C outside the engine's own stop handling: the level is forgotten too
            self._rollback(mark)
            raise
        if not expanded:
            self._rollback(mark)
            return False
        self.level_starts.append(self.store.count)
        size = self.store.count - self.level_starts[-2]
        # the level stays unsorted but consistent when memory is short: its witnesses are still shortest
        if size < 2 or not self.memory_full(size * (8 * self.words + SORT_BYTES_PER_STATE),
                                            f"sorting level {self.level + 1}"):
            try:
                self._sort_level(self.level + 1, e0, int(self.store.io["edges"]))
            except MemoryError:
                self.out_of_memory(f"sorting level {self.level + 1}")
        if self.cgraph is not None and not self.incomplete:
            self.cgraph.level_done(self.level_starts[-2], self.level_starts[-1])
        self.level_seconds.append(time.perf_counter() - t)
        self._decide_level()
        self.level += 1
        if self.compact:   # the levels before the new frontier are never read again: their pages go back
            self._retire()
        return True

    def _retire(self) -> None:
        """Compact set: the new frontier written to its level file and read from there, the states of the
        levels before it given back, the links of every whole level written to disk, then the checkpoint
        (explore/compact_dir.py); a disk that refuses them ends the run (incomplete: the traces need the
        links). A level left unsorted (memory short) gets no file and no checkpoint."""
        what = "the parent links"
        try:
            sorted_ = not self.incomplete
            if sorted_:
                what = f"level {self.level}"
                self.levels.finish_level(self)
            what = "the parent links"
            self.store.retire(self.level_starts[self.level], self.level_starts[1], self.level_starts[-1])
            if sorted_:
                what = "the checkpoint"
                self.levels.save(self)
        except OSError as exc:
            where = "--work-dir" if self.work_dir is not None else "TMPDIR"
            self.incomplete = (f"cannot write {what} to {self.levels.root} after level "
                               f"{self.level} ({exc.strerror or exc}); free disk space there or set {where}, "
                               f"or {self.bound_hint()}")

    def _expand_level(self, level: int, lo: int, hi: int) -> bool:
        """Expand the level ``[lo, hi)``, on the threads when it is large enough; False when the run
        stops inside it (a limit, an error: the caller then forgets the partial level)."""
        io = self.store.io
        io["pos"], io["hi"] = lo, hi
        if self.rounds is not None and hi - lo >= self.parallel_from:
            try:
                status = self.rounds.expand(level, lo, hi)
            except Exception as exc:  # an exception raised inside model code
                self._model_exception(int(io["pos"]), exc)
                return False
            return self._after(status)
        chunk = self.chunk
        expand = self.cgraph.expand if self.cgraph is not None else C.expand_compact if self.compact else K.expand
        witnesses = K.Witnesses(self.wit_state, self.wit_src, self.wit_act)
        rows = K.Rows(self.out, self.oflags, self.homes, self.tags)
        while True:
            t_chunk = time.perf_counter()
            try:
                status = expand(self.model.successors, self.props.state_check, self.props.transition_check,
                                self.model.params, self.store.kernel_view(), self.store.counters, self.masks,
                                witnesses, rows, chunk, self.tally)
            except Exception as exc:  # an exception raised inside model code
                self._model_exception(int(io["pos"]), exc)
                return False
            elapsed = time.perf_counter() - t_chunk
            if elapsed > 0:
                chunk = int(min(max(MIN_CHUNK, chunk * 0.25 / max(elapsed, 1e-3)), 1 << 20))
            self.report(level, lo, hi)
            if status == K.ST_NEED_ROOM:
                if not self.make_room():
                    return False
            elif status != K.ST_CHUNK:
                return self._after(status)
            if self.limit_inside_level():
                return False

    def _after(self, status: int) -> bool:
        """What a kernel status that ends (or stops) a level means for the run."""
        if status == K.ST_LEVEL_DONE:
            return True
        if status == K.ST_ERROR:
            self._model_error_flag()
        elif status == K.ST_LIMIT:
            self.incomplete = state_limit_reason(self.limits.max_states)
        return False

    def limit_inside_level(self) -> bool:
        """Whether the time limit or a stop request ends the run inside a level (``incomplete`` says why)."""
        if self.limits.max_seconds is not None and time.perf_counter() - self.t0 > self.limits.max_seconds:
            self.incomplete = f"time limit {self.limits.max_seconds:g} s reached"
            return True
        if stop.requested():  # Ctrl-C or SIGTERM: chunks last ~0.25 s, so the run stops within a second
            self.incomplete = stop.requested()
            return True
        return self.memory_full()

    def memory_full(self, extra: int = 0, what: str = "") -> bool:
        """Whether the process's resident memory (plus ``extra`` bytes about to be allocated for ``what``)
        is past the run's memory budget (:class:`explore.memory.MemoryWatch`); ``incomplete`` then says
        so, with the flags that would bound the run."""
        why = self.watch.over(extra)
        if why is None:
            return False
        doing = f" ({what})" if what else ""
        depth, done = self.completed()
        self.incomplete = (f"memory budget reached{doing} after level {depth} ({done:,} states): {why}; "
                           f"{self.bound_hint()}")
        return True

    def completed(self) -> tuple[int, int]:
        """``(depth, states)`` of the levels stored whole (a level the run stops inside is forgotten)."""
        return len(self.level_starts) - 2, self.level_starts[-1]

    def bound_hint(self) -> str:
        """The flags that bound a run that memory stopped: the states and levels it had completed."""
        depth, done = self.completed()
        return (f"bound the run with --max-states {max(done, 1)} or --max-depth {max(depth, 1)}, or check a "
                "smaller configuration (fewer messages, consumers, slaves or failures: --set)")

    def edge_room(self, n_edges: int) -> bool:
        """Grow the edge list to hold ``n_edges`` edges; False (``incomplete`` says why) when it cannot."""
        have = len(self.store.edges)
        if n_edges > have:   # the new part is zeroed, so resident at once
            extra = (max(2 * have, n_edges) - have) * (4 + (2 if self.labels else 0))
            if self.memory_full(extra, "growing the edge list"):
                return False
        try:
            self.store.grow_edges(n_edges)
        except MemoryError:
            self.out_of_memory("growing the edge list")
            return False
        return True

    def _mark(self) -> tuple[np.ndarray, np.ndarray]:
        """What a level changes in the counters and the tally, before it starts."""
        return self.store.mark(), self.tally.copy()

    def _rollback(self, mark: tuple[np.ndarray, np.ndarray]) -> None:
        """Forget a level the run stopped inside: results cover whole levels only, so they are the same
        whatever order (or thread count) the level's states were expanded in."""
        io, tally = mark
        self.store.rollback(io)
        self.tally[:] = tally
        self.wit_state[:] = -1
        self.wit_src[:] = -1
        self.wit_act[:] = -1
        if self.rounds is not None:
            self.rounds.discard_round()

    def make_room(self) -> bool:
        """Room to expand one more state: its successors' places, table slots and edges; False (and
        ``incomplete`` says why) when there is none."""
        store, io = self.store, self.store.io
        if store.count + self.nact > store.cap:
            if self.limits.max_states is not None and store.cap >= self.limits.max_states:
                self.incomplete = state_limit_reason(self.limits.max_states)
            else:
                self.incomplete = (f"memory budget reached at {store.count:,} states "
                                   f"({store.cap:,} fit in the memory available); {self.bound_hint()}")
            return False
        if store.table_full(self.nact) and not self.grow_table():
            return False
        if self.graph and io["edges"] + self.nact > io["edge_cap"]:
            return self.edge_room(int(io["edges"]) + self.nact)
        return True

    def grow_table(self) -> bool:
        """Double the hash table (on the threads when there are some); False when memory runs out."""
        if self.memory_full(2 * self.store.table.nbytes, "growing the hash table"):   # its pages all written
            return False
        try:
            self.store.grow_table(self.team)
        except MemoryError:
            self.out_of_memory("growing the hash table")
            return False
        return True

    def out_of_memory(self, what: str) -> None:
        from .memory import tightest_limit
        self.incomplete = (f"out of memory {what} at {self.store.count:,} states "
                           f"(tightest memory limit: {tightest_limit().source}); {self.bound_hint()}")

    def report(self, level: int, lo: int, hi: int) -> None:
        """After each chunk (one thread) or round (threads): the pages of the compact set's states expanded
        so far go back, then progress goes to the listener."""
        io = self.store.io
        if self.compact:
            self.store.expanded_to(int(io["pos"]), self.level_starts[1])
        if self.listener is None:
            return
        self.listener.on_progress(Progress(level, hi - lo, int(io["pos"]) - lo, int(io["count"]),
                                           int(io["trans"]), time.perf_counter() - self.t0,
                                           len(self.tracker.witness), len(self.tracker.properties),
                                           self.watch.resident, self.watch.ceiling))

    def _sort_level(self, level: int, e0: int, e1: int) -> None:
        """Reorder a completed level by key (signed, lexicographic): expanding it in index order then meets
        each new state first through its canonical parent (the kernel needs no comparison)."""
        lo, hi = self.level_starts[level], self.level_starts[level + 1]
        if hi - lo < 2:
            return
        if self.rounds is not None and hi - lo >= self.parallel_from:
            new_pos = self.rounds.sort_level(lo, hi, e0, e1)
            moved = (self.wit_state >= lo) & (self.wit_state < hi)
            self.wit_state[moved] = new_pos[self.wit_state[moved] - lo]
            return
        block = self.store.states[lo:hi]
        if self.words == 1:
            order = np.argsort(block[:, 0].view(np.int64), kind="stable")
        else:
            order = np.lexsort(tuple(block[:, i].view(np.int64) for i in reversed(range(self.words))))
        if np.all(order[1:] > order[:-1]):
            return
        # every temporary is allocated before anything moves: a MemoryError leaves the level consistent
        order = order.astype(np.int64)
        sorted_rows = [(a, a[lo:hi][order]) for a in self.store.level_arrays()]
        new_pos = np.empty(hi - lo, dtype=np.int64)
        new_pos[order] = np.arange(lo, hi)
        store = self.store
        if not self.compact:   # the compact table holds no index, and no edges are kept
            K.relink_level(store.states, store.table, (self.owners, store.region_slots), lo, order, store.edges, e0, e1)
        for array, rows in sorted_rows:
            array[lo:hi] = rows
        moved = (self.wit_state >= lo) & (self.wit_state < hi)   # witnesses found in this level
        self.wit_state[moved] = new_pos[self.wit_state[moved] - lo]

    def _decide_level(self) -> None:
        """At the end of a level, settle every property that found a witness in it (a shortest one)."""
        def witness(p) -> _Witness | None:
            if self.wit_state[p.bit] >= 0:
                return _Witness(int(self.wit_state[p.bit]))
            if self.wit_src[p.bit] >= 0:
                return _Witness(int(self.wit_src[p.bit]), int(self.wit_act[p.bit]))
            return None

        self.tracker.settle(witness)
        self.wit_state[:] = -1
        self.wit_src[:] = -1
        self.wit_act[:] = -1
        self._set_masks()

    # -- errors -----------------------------------------------------------------------------------------
    def _model_exception(self, index: int, exc: BaseException) -> None:
        if isinstance(exc, MemoryError):  # the machine ran out, not the model
            self.out_of_memory(f"expanding level {self.level}")
            return
        state = tuple(int(x) for x in self.store.states[index])
        action = "?"
        finder = getattr(self.model, "failing_action", None)
        if finder is not None:
            a = finder(state)
            if a is not None:
                action = str(self.model.actions()[a])
        self.error = ModelError(f"{type(exc).__name__}: {exc}", action, self.model.view(state),
                                self._trace_to(index))

    def _model_error_flag(self) -> None:
        io = self.store.io
        index, a, flags = int(io["err_state"]), int(io["err_action"]), int(io["err_flags"])
        state = tuple(int(x) for x in self.store.states[index])
        message = self.model.describe_outcome(flags) or "model error"
        self.error = ModelError(message, str(self.model.actions()[a]), self.model.view(state),
                                self._trace_to(index))

    # -- results ----------------------------------------------------------------------------------------
    def path(self, index: int) -> tuple[int, list[int]]:
        """``(root index, action indices)`` of the canonical path to stored state ``index``."""
        acts: list[int] = []
        parent, via = self.store.link(index)
        while parent >= 0:
            acts.append(via)
            index = parent
            parent, via = self.store.link(index)
        acts.reverse()
        return index, acts

    def _trace_to(self, index: int, extra_action: int = -1):
        root, acts = self.path(index)
        if extra_action >= 0:
            acts = acts + [extra_action]
        return replay(self.model, self.store.states[root], acts)

    def stored_states(self) -> np.ndarray:
        """Every distinct state explored, in discovery (BFS) order; row ``i`` is state index ``i``."""
        if self.compact:
            raise RuntimeError("the compact visited set keeps no old state: explore with visited='exact'")
        return self.store.states[: self.store.count]

    def level_of(self, index: int) -> int:
        return self._level_of(index)

    def _level_of(self, index: int) -> int:
        import bisect
        return bisect.bisect_right(self.level_starts, index) - 1

    def _graph_verdicts(self, results: dict[str, PropertyResult]) -> None:
        # the run's threads are gone by now (run() closes them first, whatever happens): the predecessor
        # lists are built on a team of their own
        team = None
        if not self.incomplete and self.error is None and self.graph_props and self.threads > 1:
            try:
                team = ThreadTeam(self.threads)
            except RuntimeError:   # no thread to be had (memory short): this thread builds them alone
                pass
        try:
            self._decide_graph_properties(results, team)
        finally:
            if team is not None:
                team.close()

    def _decide_graph_properties(self, results: dict[str, PropertyResult], team: ThreadTeam | None) -> None:
        count = self.store.count
        for k, p in enumerate(self.graph_props):
            if self.incomplete or self.error is not None:
                results[p.name] = PropertyResult(p.name, p.kind, UNKNOWN, p.summary,
                                                 note="needs the whole reachable graph")
                continue
            store = self.store
            bad = cannot_reach_goal(store.row_start, store.edges, int(store.io["edges"]), store.goal, count, k, team)
            witness = -1
            if bad.any():
                first = int(np.argmax(bad))   # no list of every bad state: there may be millions
                level = self._level_of(first)
                lo, hi = self.level_starts[level], self.level_starts[level + 1]
                candidates = lo + np.flatnonzero(bad[lo:hi])
                witness = int(candidates[0])
                for j in candidates[1:]:
                    if K.key_less(self.store.states[int(j)], self.store.states[witness]):
                        witness = int(j)
            if witness >= 0:
                results[p.name] = PropertyResult(p.name, p.kind, S_VIOLATED, p.summary, self._trace_to(witness))
            else:
                results[p.name] = PropertyResult(p.name, p.kind, HOLDS, p.summary)
        if self.tracker.eventually:   # leads-to under fairness, on the same stored edges (explore/liveness.py)
            from .liveness import decide_on_explorer
            results.update(decide_on_explorer(self))

    def _early_stop(self) -> str | None:
        """Why the run ended with states left unexpanded though no limit was hit: every selected property
        was settled (None when the space was exhausted, or when a limit or an error stopped it)."""
        if self.incomplete or self.error is not None:
            return None
        lo, hi = self.frontier()
        return self.tracker.early_stop_reason(self.level, hi - lo)

    def result(self) -> CheckResult:
        count = self.store.count
        complete = not self.incomplete and self.error is None
        results = self.tracker.verdicts(complete, lambda w: self._trace_to(w.state, w.action))
        if complete and (self.graph_props or self.tracker.eventually) and self.cgraph is None:
            need = POST_BYTES + POST_BYTES_PER_STATE * count + POST_BYTES_PER_EDGE * int(self.store.io["edges"])
            self.memory_full(need, "before deciding the graph and eventually properties")   # each unknown then
        if self.cgraph is not None:   # the compact run's graph on disk
            self.cgraph.decide(results)
        if self.graph:
            try:
                self._graph_verdicts(results)
            except MemoryError:
                self.out_of_memory("deciding the graph properties")
                self._graph_verdicts(results)   # incomplete now: each graph property is unknown
        ordered = [results[p.name] for p in self.props]
        levels = [b - a for a, b in zip(self.level_starts, self.level_starts[1:]) if b > a]
        stats = level_stats(levels, self.store.io["trans"], time.perf_counter() - self.t0, self.start_rss,
                            unexpanded=int(self.store.io["nleaf"]), level_engines=[self.engine] * len(levels),
                            level_seconds=[round(x, 6) for x in self.level_seconds[:len(levels)]],
                            stop_reason=self._early_stop())
        stats.stopped_early = stats.stop_reason is not None
        stats.visited = "compact" if self.compact else "exact"
        stats.visited_note = self.visited_note
        if self.compact:
            stats.collision_probability = C.collision_probability(count, self.words)
            stats.exact = self.words <= 1   # one word: the fingerprint is a bijection of the state
        new_states = self.store.new_states(self.level_starts[1], count, self.nact)
        stats.disk_bytes = (self.store.disk_bytes + (self.levels.wd.level_bytes if self.levels is not None else 0)
                            + (self.cgraph.disk_bytes if self.cgraph is not None else 0))
        result = check_result(self.engine, self.model, ordered, stats, self.incomplete, self.error,
                              self.terminal_trace(), self.tally, new_states)
        if self.cgraph is not None:
            self.cgraph.close()
        self.store.close()   # every trace is rebuilt: the links on disk are not needed any more
        if self.levels is not None:   # a given --work-dir is kept (for --resume), a temporary one removed
            if self.incomplete and self.work_dir is not None and not self.error:
                result.incomplete_reason += (f"; the levels done so far are in {str(self.levels.root)!r}: add "
                                             "--resume (with the same --work-dir) to continue")
            self.levels.close()
        return result

    def terminal_index(self) -> int:
        """The canonical terminal state found so far (-1: none): smallest key of the shallowest level."""
        return int(self.store.io["terminal"]) - 1

    def terminal_trace(self):
        index = self.terminal_index()
        return self._trace_to(index) if index >= 0 else None


def explore(model: Any, properties: PropertySet, limits: Limits = Limits(),
            listener: Listener | None = None, **kw: Any) -> CheckResult:
    """Run the local explorer: the embedded default engine."""
    return LocalExplorer(model, properties, limits, listener, **kw).run()
