"""The executor side: expand one batch of frontier states with the model's compiled kernel.

:func:`expand_batch` runs the one expansion step every engine shares (:func:`explore.step.expand_state`:
the same ``successors`` / ``transition_check`` and the same generation step as the local engine) on every
state of a batch with this engine's insert policy: duplicate successors inside the batch are removed
keeping the canonical parent (smallest parent key, then smallest action), every transition is recorded
with its action when the graph and eventually properties need them, and the batch's terminal state kept
is its smallest by key (a batch is not in key order). It then checks each distinct successor when asked.
:mod:`spark_explore.level_job` runs it in the tasks of each level step.
"""
from __future__ import annotations

import importlib
from collections import namedtuple
from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np
from numba import types

from explore.counters import BATCH_T, MASKS_T
from explore.kernel import SCHECK_T
from explore.step import (I64_1D, ROWS_T, ST_CHUNK, SUCC_T, TCHECK_T, U64_2D, Generator, expand_state, key_less,
                          rows_equal)
from explore.fingerprint import fingerprint_words
from explore.native import kernel

#: where the batch policy files successors: the distinct successors (``child``, each one's ``parent`` row of
#: the batch and ``action``), the open-addressing table over them (``tmask``: its length - 1), and the
#: batch's transitions as rows ``(target words, source words, action)`` when ``edges`` has rows
Batch = namedtuple("Batch", "child parent action table tmask edges")
BATCH_ARG_T = types.Tuple((U64_2D, I64_1D, I64_1D, I64_1D, U64_2D))   # child, parent, action, table, edges


def edge_width(words: int) -> int:
    """Words of a stored transition row: the target's words, the source's, then the action's index (the
    eventually properties' fairness reads it, as the local engine's ``edge_act``)."""
    return 2 * words + 1


@kernel(inline=True)
def batch_home(place, row):
    """``home`` of the batch policy: the row's slot in the batch's table (no tag)."""
    return np.int64(fingerprint_words(row) & place.tmask), np.uint64(0)


@kernel(inline=True)
def insert_in_batch(place, c, states, src, a, row, slot, tag):
    """``insert`` of the batch policy: the transition recorded (with its action, as the local kernels'
    ``edge_act``), the successor added to the batch's distinct ones, or its parent lowered to ``src`` when
    ``src`` has the smaller key."""
    if place.edges.shape[0] > 0:
        w = states.shape[1]
        for k in range(w):
            place.edges[c.edges, k] = row[k]
            place.edges[c.edges, w + k] = states[src, k]
        place.edges[c.edges, 2 * w] = a
        c.edges += 1
    child = place.child
    while True:
        j = place.table[slot]
        if j < 0:
            n = c.children
            for k in range(child.shape[1]):
                child[n, k] = row[k]
            place.parent[n] = src
            place.action[n] = a
            place.table[slot] = n
            c.children = n + 1
            return True
        if rows_equal(child[j], row):
            p = place.parent[j]
            if p != src and key_less(states[src], states[p]):
                place.parent[j] = src
                place.action[j] = a
            return True
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & place.tmask)


@kernel(inline=True)
def smallest_terminal(place, c, states, src):
    """``note_terminal`` of the batch policy: the terminal state of smallest key."""
    t = c.terminal - 1
    if t < 0 or key_less(states[src], states[t]):
        c.terminal = src + 1


BATCH_SIG = types.int64(SUCC_T, SCHECK_T, TCHECK_T, I64_1D, U64_2D, types.Array(MASKS_T, 1, "C"), BATCH_ARG_T,
                        types.uint64[::1], types.UniTuple(I64_1D, 2), types.Array(BATCH_T, 1, "C"), ROWS_T, I64_1D)


@nb.njit(BATCH_SIG, cache=True, nogil=True, _nrt=False)
def expand_batch(succ, scheck, tcheck, params, states, masks, batch, sbits, witnesses, counters, rows, tally):
    """Expand every row of ``states``; returns the number of distinct successors written to ``child``
    (``batch``: the fields of :class:`Batch` but ``tmask``).

    ``masks[0]``: ``state_watch`` says the state bits to check each distinct successor for (into
    ``sbits``), ``trans_watch`` the transition bits whose witnesses (source row, action) go to
    ``witnesses``. ``parent[j]`` is a row index of ``states``. The counters (``counters[0]``, an
    explore.counters.BATCH record) start at zero; on a model error flag, returns -1 with the source row and
    action in them. The coverage ``tally`` is added to, not reset (a partition sums its batches). Unless
    ``edges`` has no rows, every transition is also written to it (``edges`` of the counters say how many):
    the graph properties need them, and recording them here spares a second call of ``successors``."""
    c = counters[0]
    mask = masks[0]
    child, parent, action, table, edges = batch
    table[:] = -1
    witnesses[0][:] = -1
    witnesses[1][:] = -1
    place = Batch(child, parent, action, table, np.uint64(len(table) - 1), edges)
    gen = Generator(succ, tcheck, params, mask.trans_watch, witnesses[0], witnesses[1])
    for i in range(states.shape[0]):
        if expand_state(gen, states, i, rows, c, tally, batch_home, insert_in_batch, smallest_terminal,
                        place) != ST_CHUNK:
            return -1
    n = c.children
    if mask.state_watch:
        for j in range(n):
            sbits[j] = scheck(child[j], params) & mask.state_watch
    else:
        sbits[:n] = 0
    return n


@dataclass(frozen=True)
class KernelRefs:
    """Import paths of a model's compiled functions and its parameter vector: what executors need.

    Compiled functions are shipped by name (module, attribute) rather than pickled, so each Python
    worker imports them from the installed package and loads them from numba's disk cache.
    """

    successors: tuple[str, str]
    state_check: tuple[str, str]
    transition_check: tuple[str, str]
    params: np.ndarray
    words: int
    actions: int

    @staticmethod
    def of(model: Any, properties: Any) -> "KernelRefs":
        def ref(fn: Any) -> tuple[str, str]:
            py = getattr(fn, "py_func", fn)
            return py.__module__, py.__name__
        return KernelRefs(ref(model.successors), ref(properties.state_check), ref(properties.transition_check),
                          np.asarray(model.params, dtype=np.int64), int(model.words), len(model.actions()))

    def load(self) -> tuple[Any, Any, Any]:
        return tuple(getattr(importlib.import_module(m), name)
                     for m, name in (self.successors, self.state_check, self.transition_check))


def key_columns(words: int) -> list[str]:
    return [f"k{i}" for i in range(words)]


def parent_columns(words: int) -> list[str]:
    return [f"p{i}" for i in range(words)]


def arrow_states(rb: Any, words: int) -> np.ndarray:
    """The packed states of an Arrow batch whose first ``words`` columns are the key columns (signed
    longs in Spark, the packed words' bits)."""
    states = np.empty((rb.num_rows, words), dtype=np.uint64)
    for i in range(words):
        states[:, i] = rb.column(i).to_numpy(zero_copy_only=False).view(np.uint64)
    return states


def first_raising(succ: Any, params: np.ndarray, states: np.ndarray, out: np.ndarray,
                  oflags: np.ndarray) -> np.ndarray:
    """The first state of ``states`` whose expansion raises (model code failed inside a batch)."""
    for i in range(states.shape[0]):
        try:
            succ(states[i], params, out, oflags)
        except Exception:
            return states[i]
    return states[0]
