"""The executor side: expand one Arrow batch of frontier states with the model's compiled kernel.

No per-state calls cross between Python and the JVM: Spark hands each Python worker whole Arrow record
batches of packed states; :func:`expand_batch` (compiled, the same ``successors`` / ``state_check`` /
``transition_check`` and the same generation step, :func:`explore.step.generate`, as the local engine)
expands them all, removes duplicate successors inside the
batch keeping the canonical parent (smallest parent key, then smallest action), checks each distinct
successor, and keeps per property bit the smallest witnessing transition, and the smallest terminal state
(no enabled action) of the batch. The rows go back as one Arrow batch: ``kind`` 0 = a successor (key,
parent key, action, check bits), 1 = the batch's transition count, 2 = a transition witness (parent key =
source, action, bit), 3 = a model error (source key, action, message), 4 = the batch's smallest terminal
state (parent key = that state); and once per partition, 5 = one non-zero slot of the partition's
coverage tally (:mod:`explore.step`'s ``T_*`` slots: ``tbit`` = slot, ``count``).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Iterator

import numba as nb
import numpy as np
from numba import types

from explore.kernel import SCHECK_T
from explore.step import ENABLED, I64_1D, SUCC_T, TCHECK_T, U64_2D, generate, key_less, rows_equal, tally_size
from model.fingerprint import fingerprint_words

KIND_CHILD = 0
KIND_COUNT = 1
KIND_WITNESS = 2
KIND_ERROR = 3
KIND_TERMINAL = 4
KIND_TALLY = 5

# io slots of expand_batch
B_TRANSITIONS = 0
B_ERR_STATE = 1
B_ERR_ACTION = 2
B_ERR_FLAGS = 3
B_TERMINAL = 4      # row index + 1 of the batch's smallest terminal state (0: none)
B_SIZE = 5

BATCH_SIG = types.int64(SUCC_T, SCHECK_T, TCHECK_T, I64_1D, U64_2D, types.uint64[::1], U64_2D, I64_1D, I64_1D,
                        types.uint64[::1], I64_1D, I64_1D, I64_1D, I64_1D, U64_2D, I64_1D, I64_1D)


@nb.njit(BATCH_SIG, cache=True, nogil=True, _nrt=False)
def expand_batch(succ, scheck, tcheck, params, states, masks, child, parent, action, sbits, table,
                 tw_src, tw_act, io, out, oflags, tally):
    """Expand every row of ``states``; returns the number of distinct successors written to ``child``.

    ``masks`` = (state bits to check, transition bits to watch). ``parent[j]`` is a row index of
    ``states``. On a model error flag, returns -1 with the source row and action in ``io``. The coverage
    ``tally`` is added to, not reset (a partition sums its batches).
    """
    nact = len(oflags)
    tmask = np.uint64(len(table) - 1)
    table[:] = -1
    tw_src[:] = -1
    tw_act[:] = -1
    trans_watch = masks[1]
    n = 0
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


def expanded_schema(words: int) -> Any:
    import pyarrow as pa
    fields = [pa.field("kind", pa.int8())]
    fields += [pa.field(c, pa.int64()) for c in key_columns(words)]
    fields += [pa.field(c, pa.int64()) for c in parent_columns(words)]
    fields += [pa.field("action", pa.int32()), pa.field("sbits", pa.int64()), pa.field("count", pa.int64()),
               pa.field("tbit", pa.int32()), pa.field("message", pa.string())]
    return pa.schema(fields)


def arrow_states(rb: Any, words: int) -> np.ndarray:
    """The packed states of an Arrow batch whose first ``words`` columns are the key columns (signed
    longs in Spark, the packed words' bits)."""
    states = np.empty((rb.num_rows, words), dtype=np.uint64)
    for i in range(words):
        states[:, i] = rb.column(i).to_numpy(zero_copy_only=False).view(np.uint64)
    return states


def expander(refs: KernelRefs, state_mask: int, transition_mask: int):
    """The function Spark's ``mapInArrow`` runs on each partition of the frontier."""

    def expand_partition(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa
        succ, scheck, tcheck = refs.load()
        w, nact = refs.words, max(refs.actions, 1)
        schema = expanded_schema(w)
        masks = np.array([state_mask, transition_mask], dtype=np.uint64)
        out = np.zeros((nact, w), dtype=np.uint64)
        oflags = np.zeros(nact, dtype=np.int64)
        tw_src = np.full(64, -1, dtype=np.int64)
        tw_act = np.full(64, -1, dtype=np.int64)
        tally = np.zeros(tally_size(nact), dtype=np.int64)
        for rb in batches:
            n = rb.num_rows
            if n == 0:
                continue
            states = arrow_states(rb, w)
            cap = n * nact
            child = np.empty((max(cap, 1), w), dtype=np.uint64)
            parent = np.empty(max(cap, 1), dtype=np.int64)
            action = np.empty(max(cap, 1), dtype=np.int64)
            sbits = np.empty(max(cap, 1), dtype=np.uint64)
            table = np.empty(1 << max(int(2 * cap).bit_length(), 4), dtype=np.int64)
            io = np.zeros(B_SIZE, dtype=np.int64)
            try:
                m = expand_batch(succ, scheck, tcheck, refs.params, states, masks, child, parent, action,
                                 sbits, table, tw_src, tw_act, io, out, oflags, tally)
            except Exception as exc:  # model code raised: report the first state of the batch that raises
                yield _error_batch(schema, w, _first_raising(succ, refs.params, states, out, oflags), -1,
                                   f"{type(exc).__name__}: {exc}")
                return
            if m < 0:
                yield _error_batch(schema, w, states[io[B_ERR_STATE]], int(io[B_ERR_ACTION]),
                                   f"flags={int(io[B_ERR_FLAGS])}")
                return
            cols: dict[str, Any] = {"kind": np.zeros(m, dtype=np.int8)}
            for i in range(w):
                cols[f"k{i}"] = child[:m, i].view(np.int64)
                cols[f"p{i}"] = states[parent[:m], i].view(np.int64)
            cols["action"] = action[:m].astype(np.int32)
            cols["sbits"] = sbits[:m].view(np.int64)
            cols["count"] = np.zeros(m, dtype=np.int64)
            cols["tbit"] = np.zeros(m, dtype=np.int32)
            yield pa.RecordBatch.from_arrays([pa.array(cols[f.name]) if f.name != "message"
                                              else pa.nulls(m, pa.string()) for f in schema], schema=schema)
            yield _summary_batch(schema, w, states, int(io[B_TRANSITIONS]), tw_src, tw_act,
                                 int(io[B_TERMINAL]) - 1)
        if tally.any():
            yield _rows(schema, w, [{"kind": KIND_TALLY, "tbit": int(slot), "count": int(tally[slot])}
                                    for slot in np.flatnonzero(tally)])

    return expand_partition


def _first_raising(succ: Any, params: np.ndarray, states: np.ndarray, out: np.ndarray,
                   oflags: np.ndarray) -> np.ndarray:
    for i in range(states.shape[0]):
        try:
            succ(states[i], params, out, oflags)
        except Exception:
            return states[i]
    return states[0]


def _rows(schema: Any, w: int, rows: list[dict[str, Any]]) -> Any:
    import pyarrow as pa
    arrays = []
    for f in schema:
        default = None if f.name == "message" else 0
        arrays.append(pa.array([r.get(f.name, default) for r in rows], type=f.type))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _summary_batch(schema: Any, w: int, states: np.ndarray, transitions: int, tw_src: np.ndarray,
                   tw_act: np.ndarray, terminal: int) -> Any:
    rows = [{"kind": KIND_COUNT, "count": transitions}]
    if terminal >= 0:
        rows.append({"kind": KIND_TERMINAL, **{f"p{i}": int(states[terminal, i].view(np.int64)) for i in range(w)}})
    for b in range(64):
        if tw_src[b] >= 0:
            row = {"kind": KIND_WITNESS, "action": int(tw_act[b]), "tbit": b}
            for i in range(w):
                row[f"p{i}"] = int(states[tw_src[b], i].view(np.int64))
            rows.append(row)
    return _rows(schema, w, rows)


def _error_batch(schema: Any, w: int, state: np.ndarray, action: int, message: str) -> Any:
    row: dict[str, Any] = {"kind": KIND_ERROR, "action": action, "message": message}
    for i in range(w):
        row[f"p{i}"] = int(np.asarray(state[i], dtype=np.uint64).view(np.int64))
    return _rows(schema, w, [row])
