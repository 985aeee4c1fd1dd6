"""The executor side: expand one batch of frontier states with the model's compiled kernel.

:func:`expand_batch` (compiled: the same ``successors`` / ``state_check`` / ``transition_check`` and the
same generation step, :func:`explore.step.generate`, as the local engine) expands every state of a batch,
removes duplicate successors inside the batch keeping the canonical parent (smallest parent key, then
smallest action), optionally checks each distinct successor and records every transition, keeps per
property bit the smallest witnessing transition and the smallest terminal state (no enabled action) of the batch, and adds to the
coverage tally. :mod:`spark_explore.level_job` runs it in the tasks of each level step.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np
from numba import types

from explore.kernel import SCHECK_T
from explore.step import ENABLED, I64_1D, SUCC_T, TCHECK_T, U64_2D, generate, key_less, rows_equal
from model.fingerprint import fingerprint_words

# io slots of expand_batch
B_TRANSITIONS = 0
B_ERR_STATE = 1
B_ERR_ACTION = 2
B_ERR_FLAGS = 3
B_TERMINAL = 4      # row index + 1 of the batch's smallest terminal state (0: none)
B_EDGES = 5         # rows written to ``edges``
B_SIZE = 6

BATCH_SIG = types.int64(SUCC_T, SCHECK_T, TCHECK_T, I64_1D, U64_2D, types.uint64[::1], U64_2D, I64_1D, I64_1D,
                        types.uint64[::1], I64_1D, I64_1D, I64_1D, I64_1D, U64_2D, I64_1D, I64_1D, U64_2D)


@nb.njit(BATCH_SIG, cache=True, nogil=True, _nrt=False)
def expand_batch(succ, scheck, tcheck, params, states, masks, child, parent, action, sbits, table,
                 tw_src, tw_act, io, out, oflags, tally, edges):
    """Expand every row of ``states``; returns the number of distinct successors written to ``child``.

    ``masks`` = (state bits to check, transition bits to watch). ``parent[j]`` is a row index of
    ``states``. On a model error flag, returns -1 with the source row and action in ``io``. The coverage
    ``tally`` is added to, not reset (a partition sums its batches). Unless ``edges`` has no rows, every
    transition is also written to it as a row ``(target words, source words)`` (``io[B_EDGES]`` rows):
    the graph properties need them, and recording them here spares a second call of ``successors``.
    """
    nact = len(oflags)
    tmask = np.uint64(len(table) - 1)
    table[:] = -1
    tw_src[:] = -1
    tw_act[:] = -1
    trans_watch = masks[1]
    want_edges = edges.shape[0] > 0
    w = states.shape[1]
    n = 0
    e = 0
    for i in range(states.shape[0]):
        enabled = generate(succ, tcheck, params, states, i, out, oflags, trans_watch, tw_src, tw_act, tally)
        if enabled < 0:
            io[B_ERR_STATE] = i
            io[B_ERR_ACTION] = -1 - enabled
            io[B_ERR_FLAGS] = oflags[-1 - enabled]
            return -1
        io[B_TRANSITIONS] += enabled
        if enabled == 0:
            t = io[B_TERMINAL] - 1
            if t < 0 or key_less(states[i], states[t]):
                io[B_TERMINAL] = i + 1
        # this batch's own step: keep one row per distinct successor, with its canonical parent
        for a in range(nact):
            if not oflags[a] & ENABLED:
                continue
            if want_edges:
                for k in range(w):
                    edges[e, k] = out[a, k]
                    edges[e, w + k] = states[i, k]
                e += 1
            slot = np.int64(fingerprint_words(out[a]) & tmask)
            while True:
                j = table[slot]
                if j < 0:
                    for k in range(child.shape[1]):
                        child[n, k] = out[a, k]
                    parent[n] = i
                    action[n] = a
                    table[slot] = n
                    n += 1
                    break
                if rows_equal(child[j], out[a]):
                    p = parent[j]
                    if p != i and key_less(states[i], states[p]):
                        parent[j] = i
                        action[j] = a
                    break
                slot = np.int64((np.uint64(slot) + np.uint64(1)) & tmask)
    io[B_EDGES] = e
    if masks[0]:
        for j in range(n):
            sbits[j] = scheck(child[j], params) & masks[0]
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
