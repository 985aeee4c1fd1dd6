"""The visited-state store of the local engine: the states a run has found, their parent links, the hash
table over them, the transition edges kept for graph properties, and the kernel's counters.

States are stored in discovery order, so each BFS level is a contiguous index range (see
:mod:`explore.kernel` for the table's layout and the canonical parent rule). The store grows what fills
(the hash table doubles, the edge list grows in place) and says when it cannot; the explorer decides what
that means for the run. The one-thread kernel and the threads' rounds (:mod:`explore.rounds`) take the same
store.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import counters
from . import kernel as K
from .rounds import refile

TABLE_START = 1 << 18   # slots: small enough for the first levels to stay in cache
EDGES_START = 1 << 20   # the edge list's first length (graph properties only); it doubles as it fills


def _region_start(owners: int) -> int:
    """Slots per table region at the start: about ``TABLE_START`` in all, a power of two per region."""
    return max(TABLE_START // (1 << max(owners - 1, 0).bit_length()), 1 << 10)


EDGES_PER_STATE = 6   # about, on the RocketMQ presets: what each edge's action costs a state when kept


def bytes_per_state(words: int, graph: bool, leaves: bool, labels: bool = False) -> int:
    """What one stored state costs, with the hash table just after a doubling (the memory budget's unit)."""
    table = (16 if words == 1 else 8) / K.MAX_LOAD * 2
    return int(8 * words + 4 + 2 + table + (10 if graph else 0) + (1 if leaves else 0)
               + (2 * EDGES_PER_STATE if labels else 0))


def _copied(array: np.ndarray, size: int) -> np.ndarray:
    """A copy of ``array`` grown to ``size`` items (when numpy refuses to resize it in place)."""
    grown = np.empty(size, dtype=array.dtype)
    grown[: len(array)] = array
    return grown


class VisitedStore:
    """Room for ``cap`` states of ``words`` packed words, a hash table cut into ``owners`` regions (one per
    thread), per-state goal and leaf marks and an edge list when ``graph`` / ``leaves`` ask for them, and
    each edge's action when ``labels`` does. Raises MemoryError when the arrays cannot be had."""

    def __init__(self, cap: int, words: int, owners: int, graph: bool, leaves: bool, max_states: int | None,
                 labels: bool = False) -> None:
        self.cap, self.words, self.owners, self.graph, self.leaves = cap, words, owners, graph, leaves
        self.labels = labels
        self.states = np.empty((cap, words), dtype=np.uint64)
        self.parent = np.empty(cap, dtype=np.int32)
        self.via = np.empty(cap, dtype=np.int16)
        self.noexp = np.zeros(cap if leaves else 1, dtype=np.uint8)
        self.goal = np.empty(cap if graph else 1, dtype=np.uint8)
        self.row_start = np.empty(cap + 1 if graph else 1, dtype=np.int64)
        self.edges = np.empty(EDGES_START if graph else 1, dtype=np.int32)
        self.edge_act = np.empty(EDGES_START if labels else 1, dtype=np.int16)   # the action of each edge
        self.region_slots = _region_start(owners)
        self.table = K.new_table(self.region_slots, owners, words)
        self.table_growths = 0   # how many times the table grew (the threads' level sort asks)
        self.fill = np.zeros(owners, dtype=np.int64)
        self.counters = counters.new(counters.RUN, 1)   # the kernels' counters (explore.counters.RUN)
        self.io = self.counters[0]                       # the same record, read and written by name
        io = self.io
        io["cap"] = cap
        io["table_limit"] = int(self.region_slots * K.MAX_LOAD)
        io["max_states"] = max_states if max_states is not None else cap
        io["edge_cap"] = len(self.edges)
        io["graph"] = int(graph)
        io["labels"] = int(labels)
        io["leaves"] = int(leaves)

    @property
    def count(self) -> int:
        """States stored."""
        return int(self.io["count"])

    def kernel_view(self) -> Any:
        """The store as the kernels take it (built anew each time: the table and the edges grow)."""
        return K.Visited(self.states, self.parent, self.via, self.table, self.noexp, self.goal, self.edges,
                         self.edge_act, self.row_start, self.fill, (self.owners, self.region_slots))

    def level_arrays(self) -> list[np.ndarray]:
        """The per-state arrays a level's reordering permutes."""
        return ([self.states, self.parent, self.via] + ([self.noexp] if self.leaves else [])
                + ([self.goal] if self.graph else []))

    def table_full(self, nact: int) -> bool:
        """Whether filing ``nact`` more states could take the fullest table region past its load limit."""
        fill_max = self.count if self.owners == 1 else self.io["fill_max"]   # as the kernel counts
        return fill_max + nact > self.io["table_limit"]

    def grow_table(self, team: Any = None) -> None:
        """Double every region of the hash table and file the stored states again (with a thread team, a
        range of states per thread). Raises MemoryError when the new table cannot be had."""
        self.table = None  # free the old table first: the stored states are the keys
        self.region_slots *= 2
        self.table = K.new_table(self.region_slots, self.owners, self.words)
        self.table_growths += 1
        self.fill[:] = 0
        if self.owners == 1:
            K.rehash(self.states, self.count, self.table, self.fill, 1, self.region_slots)
        else:
            refile(team, self.states, self.count, self.table, self.fill, self.region_slots)
        self.io["table_limit"] = int(self.region_slots * K.MAX_LOAD)
        self.io["fill_max"] = int(self.fill.max())

    def grow_edges(self, n_edges: int) -> None:
        """Grow the edge list to hold ``n_edges`` edges. Raises MemoryError when it cannot.

        In place where it can (``ndarray.resize``: a ``realloc``, which moves a large block's pages rather
        than copying them, and zeroes the new half): a copy into a new list would touch every page of it,
        the stored edges' again, and new pages cost more than the copy on a virtual machine whose host
        hands them out (the stored edges of ``bench-check`` take 400 MiB)."""
        if n_edges <= len(self.edges):
            return
        size = max(2 * len(self.edges), n_edges)
        # resized through the attribute itself: any other reference (a local name too) makes numpy refuse
        try:
            self.edges.resize(size)   # the new part zeroed
        except ValueError:            # another reference to the list: numpy refuses to move it
            self.edges = _copied(self.edges, size)
        if self.labels:
            try:
                self.edge_act.resize(size)
            except ValueError:
                self.edge_act = _copied(self.edge_act, size)
        self.io["edge_cap"] = len(self.edges)

    #: the counters a level changes, which :meth:`rollback` restores
    LEVEL_COUNTERS = ("count", "trans", "edges", "nleaf", "terminal")

    def mark(self) -> np.ndarray:
        """The counters before a level starts."""
        return self.counters.copy()[0]

    def link(self, i: int) -> tuple[int, int]:
        """``(parent index, action)`` of stored state ``i`` (-1, -1 for an initial state)."""
        return int(self.parent[i]), int(self.via[i])

    def new_states(self, lo: int, hi: int, nact: int) -> np.ndarray:
        """How many of the states ``[lo, hi)`` each action reached first (their parent links' actions)."""
        from .coverage import new_states_per_action
        return new_states_per_action(self.via[lo:hi], nact)

    disk_bytes = 0   # what the store keeps on disk

    def close(self) -> None:
        """Free what the store holds outside memory (nothing for the exact store)."""

    def rollback(self, mark: np.ndarray) -> None:
        """Forget the states and edges filed since ``mark`` (their slots in the table stay filed: a level
        the run stopped inside is never looked up again)."""
        for slot in self.LEVEL_COUNTERS:
            self.io[slot] = mark[slot]


class CompactStore(VisitedStore):
    """The compact visited set (:mod:`explore.compact`): fingerprints in a table of one word a slot; the
    parent and action of every state, written to disk level by level (:meth:`retire`); whole states in rows
    whose pages are given back once their level is expanded. One table region (one thread); no edges, no
    goal marks."""

    compact = True

    def __init__(self, cap: int, words: int, leaves: bool, max_states: int | None, links: Any = None) -> None:
        from .compact import LinkFiles, StateRows
        self.cap, self.words, self.owners, self.graph, self.leaves = cap, words, 1, False, leaves
        self.labels = False
        self.rows = StateRows(cap, words)
        self.states = self.rows.array
        self.parent_rows = StateRows(cap, None, np.int32)
        self.via_rows = StateRows(cap, None, np.int16)
        self.parent = self.parent_rows.array
        self.via = self.via_rows.array
        self.links = links if links is not None else LinkFiles()
        self.noexp_rows = StateRows(cap if leaves else 1, None, np.uint8)   # zeroed: a mapping's new pages are
        self.noexp = self.noexp_rows.array
        self.goal = np.empty(1, dtype=np.uint8)
        self.row_start = np.empty(1, dtype=np.int64)
        self.edges = np.empty(1, dtype=np.int32)
        self.edge_act = np.empty(1, dtype=np.int16)
        self.region_slots = TABLE_START
        self.table = np.zeros(self.region_slots, dtype=np.uint64)
        self.table_growths = 0
        self.fill = np.zeros(1, dtype=np.int64)   # fill[0]: the mark of the state whose fingerprint is 0
        self.counters = counters.new(counters.RUN, 1)
        self.io = self.counters[0]
        io = self.io
        io["cap"] = cap
        io["table_limit"] = int(self.region_slots * K.MAX_LOAD)
        io["max_states"] = max_states if max_states is not None else cap
        io["edge_cap"] = 1
        io["leaves"] = int(leaves)
        self.released_to = 0   # rows before this one (past the initial states) have been given back

    def level_arrays(self) -> list[np.ndarray]:
        return [self.states, self.parent, self.via] + ([self.noexp] if self.leaves else [])

    def grow_table(self, team: Any = None) -> None:
        """Double the fingerprint table. Raises MemoryError when the new table cannot be had."""
        from .compact import refile_fingerprints
        grown = np.zeros(2 * len(self.table), dtype=np.uint64)
        refile_fingerprints(self.table, grown)
        self.table = grown
        self.region_slots = len(grown)
        self.table_growths += 1
        self.io["table_limit"] = int(self.region_slots * K.MAX_LOAD)

    def retire(self, keep_from: int, roots: int, done: int) -> None:
        """Once a level is sorted: give back the pages of the states ``[roots, keep_from)`` (the levels
        after the initial states and before the one about to be expanded), write the links of the states
        before ``done`` (every whole level) to disk and give back their pages. OSError when the disk refuses
        them (the links not written stay in memory)."""
        lo = max(roots, self.released_to)
        if keep_from > lo:
            self.rows.release(lo, keep_from)
            if self.leaves:
                self.noexp_rows.release(lo, keep_from)
            self.released_to = keep_from
        written = self.links.rows
        if done > written:
            self.links.append(self.parent[written:done], self.via[written:done])
            self.parent_rows.release(written, done)
            self.via_rows.release(written, done)

    def expanded_to(self, pos: int, roots: int) -> None:
        """The level being expanded is done up to state ``pos``: give back the pages of its rows before it
        (past the initial states; they are read from the level's file if read again,
        :mod:`explore.compact_dir`). ``released_to`` stays on the first row not wholly given back."""
        lo = max(roots, self.released_to)
        if pos > lo:
            self.rows.release(lo, pos)
            from .compact import PAGE
            self.released_to = max(lo, pos * self.rows.row_bytes // PAGE * PAGE // self.rows.row_bytes)

    def link(self, i: int) -> tuple[int, int]:
        """``(parent index, action)`` of state ``i``: from disk once its level is written."""
        if i < self.links.rows:
            return self.links.link(i)
        return int(self.parent[i]), int(self.via[i])

    def new_states(self, lo: int, hi: int, nact: int) -> np.ndarray:
        from .coverage import new_states_per_action
        written = min(max(self.links.rows, lo), hi)
        counts = new_states_per_action(self.via[written:hi], nact)
        for chunk in self.links.actions(lo, written):
            counts += new_states_per_action(chunk, nact)
        return counts

    @property
    def disk_bytes(self) -> int:
        return self.links.nbytes

    def close(self) -> None:
        self.links.close()
