"""The expansion kernels' counters and masks, as named records.

Each is a numpy structured type that numba compiles to a struct: ``io.count += 1`` in a kernel is one
add at a fixed offset, as an int vector indexed by a module constant was, but every field has one name in
every file. A kernel takes a record (``counters[0]``, passed by reference) and writes through it.

Three counter records share the fields the one expansion step (:func:`explore.step.expand_state`) writes
(``trans``, ``edges``, ``terminal``, ``err_state``, ``err_action``, ``err_flags``): the run's, kept by the
visited store (:data:`RUN`); one per slice of a threaded round (:data:`SLICE`, a cache line each, since
the threads write them at every state); one per Spark batch (:data:`BATCH`).
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

#: what the one expansion step counts, in every record: transitions generated (duplicates included),
#: edges written, the index + 1 of the terminal state kept (0: none), and the first model error met
STEP_FIELDS = ("trans", "edges", "terminal", "err_state", "err_action", "err_flags")

#: the run's counters: the step's, and the visited store's own
RUN = np.dtype([(name, np.int64) for name in STEP_FIELDS + (
    "pos",           # the next state index to expand
    "hi",            # end (exclusive) of the level being expanded
    "count",         # states stored
    "cap",           # capacity of the state arrays
    "table_limit",   # states one region of the hash table may hold before the table must grow
    "max_states",    # the user's state limit
    "edge_cap",      # room in the edge list
    "graph",         # 1: record edges and goal bits
    "labels",        # 1: record each edge's action too (the eventually properties' fairness reads them)
    "leaves",        # 1: states violating every watched always property are not expanded
    "nleaf",         # states left unexpanded by that rule
    "fill_max",      # states filed in the fullest table region
)])

SLICE_BYTES = 128   # two cache lines: a slice's counters share none with another slice's
#: a threaded round's slice: the step's counters, and where it got to
SLICE = np.dtype({"names": list(STEP_FIELDS) + ["nleaf", "pos", "status"],
                  "formats": [np.int64] * (len(STEP_FIELDS) + 3), "itemsize": SLICE_BYTES})

#: a Spark batch: the step's counters (``edges``: rows of the batch's transition list), its distinct successors
BATCH = np.dtype([(name, np.int64) for name in STEP_FIELDS + ("children",)])

#: the property bits a kernel acts on: the state bits whose witnesses it records, the transition bits,
#: the bits that leave a state unexpanded when all are set, the graph properties' goal bits
MASKS = np.dtype([(name, np.uint64) for name in ("state_watch", "trans_watch", "leaf", "goal")])

RUN_T = nb.from_dtype(np.dtype((np.record, RUN)))
SLICE_T = nb.from_dtype(np.dtype((np.record, SLICE)))
BATCH_T = nb.from_dtype(np.dtype((np.record, BATCH)))
MASKS_T = nb.from_dtype(np.dtype((np.record, MASKS)))
SLICES_T = types.Array(SLICE_T, 1, "C")


def new(dtype: np.dtype, n: int | None = None) -> np.ndarray:
    """Zeroed counters: one record (a view into a one-element array) or an array of ``n``. Its items are
    ``np.record``: fields read and written by attribute in Python too (pure-Python mode runs the kernels
    as they are)."""
    records = np.zeros(1 if n is None else n, dtype=np.dtype((np.record, dtype)))
    return records[0] if n is None else records

#: a thread's block of state indices in a threaded round: the next one, the end, how many it takes at once
#: (a cache line each: a thread takes from its block at every new state)
BLOCK = np.dtype({"names": ["next", "end", "size"], "formats": [np.int64] * 3, "itemsize": SLICE_BYTES})
BLOCKS_T = types.Array(nb.from_dtype(np.dtype((np.record, BLOCK))), 1, "C")
