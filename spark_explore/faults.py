"""Step 1 of ``rmqcheck faults`` on the Spark engine: one exhaustive exploration with the full budgets, and
per always property its violating cells and breaking transitions, with the same canonical witnesses as
:class:`explore.faults.FaultAnalysis` on the local engine.

The Spark engine keeps no edges, so the analysis is one more pass over the stored levels
(:func:`explore.fault_passes.batch_faults`): every state is checked, and every state that satisfies some
property is expanded again and its successors checked. Each batch keeps, per (property, cell), its
canonically first violating state and, per (property, action kind, target cell), its first breaking
transition, in the order (level, key as signed words, action); Spark reduces the batches by the same
order (``min`` of a struct), so the answer is the local engine's: the shallowest level, then the smallest
key, then the smallest action. When every level ran in the driver (small spaces) the same pass runs there
over the driver's stored states. Traces are replayed before the work directory is closed.
"""
from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from explore.fairness import action_kind
from explore.fault_passes import batch_faults
from explore.faults import Lattice, PropertyFaults, counter_fields, decided_in_run, explored_with
from explore.local import LocalExplorer
from explore.run_control import Limits
from explore.result import HOLDS, REACHED, CheckResult, Trace
from explore.trace import replay
from invariants.base import ALWAYS, SOMETIMES, PropertySet

from .batch import KernelRefs, arrow_states, key_columns
from .engine import DRIVER_LEVEL_LIMIT, SparkExplorer, _is_spark_failure, _u, start_session_cached
from .errors import root_cause
from .session import SparkLog
from .workdir import KeyWitness

VIOLATION, BREAKING = 0, 1   # the ``tag`` of a pass row


class SparkFaultAnalysis:
    """:class:`explore.faults.FaultAnalysis`'s answers (``result``, ``complete``, ``faults``, ``trace_to``)
    from an exploration on the Spark engine. A witness is named by a handle: a stored index of the driver's
    explorer, or ``(level, key)`` of a level in the work directory."""

    def __init__(self, model: Any, properties: PropertySet, limits: Limits = Limits(), listener: Any = None,
                 master: str = "local[*]", partitions: int | None = None,
                 driver_threshold: int = DRIVER_LEVEL_LIMIT, witnesses: Any = ()) -> None:
        self.model = model
        self.properties = [p for p in properties if p.kind == ALWAYS]
        # the sometimes availability witnesses ride along as extra rows of the pass: a "violating" state of
        # one is a state that satisfies it (its bit is set), so it is reached when it has any row; the
        # eventually ones and the ones a transition witnesses are decided by the exploration (as locally:
        # explore.faults.explored_with)
        self.witnesses = [w for w in witnesses if w.kind == SOMETIMES and not w.on_transitions]
        self.kept = [w for w in witnesses if decided_in_run(w)]
        self.order = [w.name for w in witnesses]
        self.reached: tuple[str, ...] = ()
        self.state_check_set = properties
        self.lattice = Lattice.of(model.config)
        actions = model.actions()
        self.kinds = sorted({action_kind(a) for a in actions})     # as the local analysis names them
        self.kind_of = np.array([self.kinds.index(action_kind(a)) for a in actions], dtype=np.int64)
        self.prop_bits = np.array([p.bit for p in self.properties + self.witnesses], dtype=np.int64)
        self.cfield = counter_fields(model, self.lattice)
        # the exploration checks nothing itself but the eventually witnesses (so it never stops early): the
        # pass checks every state once
        self.explorer = SparkExplorer(model, explored_with(properties, self.kept), limits, listener, master,
                                      partitions, driver_threshold=driver_threshold, exhaustive=True)
        self.explorer.on_explored = self._analyse
        self.result: CheckResult | None = None
        self.faults: dict[str, PropertyFaults] = {}
        self.traces: dict[tuple[Any, int], Trace] = {}

    @property
    def complete(self) -> bool:
        return self.result is not None and not self.result.incomplete_reason and self.result.error is None

    def run(self) -> "SparkFaultAnalysis":
        self.result = self.explorer.run()
        return self

    def trace_to(self, handle: Any, action: int = -1) -> Trace:
        """The canonical BFS path to the witness ``handle`` (then ``action``), replayed through the model."""
        return self.traces[(handle, action)]

    # -- the pass ---------------------------------------------------------------------------------------
    def _analyse(self, result: CheckResult, local: LocalExplorer | None) -> None:
        self.result = result
        self.faults = {p.name: PropertyFaults(p.name) for p in self.properties}
        if result.error is not None:
            return
        try:
            violated, breaking = self._in_driver(local) if local is not None else self._on_cluster()
        except KeyboardInterrupt:
            result.incomplete_reason = "interrupted (SIGINT) during the failure-mode pass over the levels"
            return
        except Exception as exc:
            if not _is_spark_failure(exc):
                raise
            result.incomplete_reason = (f"Spark failed in the failure-mode pass over the levels: {root_cause(exc)} "
                                        f"(Spark's log: {SparkLog.named()})")
            return
        keep_breaking = not result.incomplete_reason   # as the local analysis: modes only of a full space
        first = len(self.properties)
        held = {p.name for p in result.properties if p.status in (HOLDS, REACHED)} & {w.name for w in self.kept}
        reached = {w.name for i, w in enumerate(self.witnesses, first) if any(q == i for q, _ in violated)}
        self.reached = tuple(n for n in self.order if n in reached or n in held)
        for pi, p in enumerate(self.properties):
            pf = self.faults[p.name]
            for (q, cell), handle in sorted(violated.items()):
                if q == pi:
                    pf.violated_cells[self.lattice.vector(cell)] = handle
            if keep_breaking:
                for (q, kind, cell), witness in sorted(breaking.items()):
                    if q == pi:
                        pf.breaking[(self.kinds[kind], self.lattice.vector(cell))] = witness
        self._replay_traces(local)

    def _batch(self, states: np.ndarray, levels: np.ndarray, succ: Any, scheck: Any, params: np.ndarray):
        shape = (len(self.prop_bits), len(self.kinds), self.lattice.size)
        vbest = np.full(shape[::2], -1, dtype=np.int64)
        bbest = np.full(shape, -1, dtype=np.int64)
        bact = np.full(shape, -1, dtype=np.int64)
        nact = max(len(self.kind_of), 1)
        out = np.zeros((nact, states.shape[1]), dtype=np.uint64)
        oflags = np.zeros(nact, dtype=np.int64)
        batch_faults(succ, scheck, params, states, levels, self.prop_bits, self.kind_of, self.cfield, vbest,
                     (bbest, bact), (out, oflags))
        return vbest, bbest, bact

    def _in_driver(self, local: LocalExplorer) -> tuple[dict, dict]:
        """Every level ran in the driver: the pass over its stored states; witnesses are stored indices."""
        states = np.ascontiguousarray(local.stored_states())
        starts = local.level_starts
        levels = np.repeat(np.arange(len(starts) - 1, dtype=np.int64), np.diff(starts))[: len(states)]
        vbest, bbest, bact = self._batch(states, levels, self.model.successors, self.state_check_set.state_check,
                                         np.asarray(self.model.params, dtype=np.int64))
        violated = {(int(p), int(c)): int(vbest[p, c]) for p, c in zip(*np.nonzero(vbest >= 0))}
        breaking = {(int(p), int(k), int(c)): (int(bbest[p, k, c]), int(bact[p, k, c]))
                    for p, k, c in zip(*np.nonzero(bbest >= 0))}
        return violated, breaking

    def _on_cluster(self) -> tuple[dict, dict]:
        """The levels are in the work directory: the pass as Spark tasks, reduced by ``min``."""
        from pyspark.sql import functions as F

        ex = self.explorer
        keys = key_columns(int(self.model.words))
        parts = ex.partitions or max(2, 2 * _parallelism(ex.master))
        spark = start_session_cached(ex.master, parts)
        refs = KernelRefs.of(self.model, self.state_check_set)
        stored = spark.read.parquet(str(ex.wd.levels_dir)).select(*keys, F.col("level").cast("long"))
        rows = (stored.repartition(parts)
                .mapInArrow(_pass(self, refs), _pass_schema(len(keys)))
                .groupBy("tag", "p", "kind", "cell")
                .agg(F.min(F.struct("level", *keys, "action")).alias("w"))
                .collect())
        violated: dict = {}
        breaking: dict = {}
        for r in rows:
            w = r["w"]
            handle = (int(w["level"]), tuple(_u(w[k]) for k in keys))
            if r["tag"] == VIOLATION:
                violated[(int(r["p"]), int(r["cell"]))] = handle
            else:
                breaking[(int(r["p"]), int(r["kind"]), int(r["cell"]))] = (handle, int(w["action"]))
        return violated, breaking

    # -- traces -----------------------------------------------------------------------------------------
    def _replay_traces(self, local: LocalExplorer | None) -> None:
        """The traces FaultSearch reports (each minimal combination's and each mode's), while the levels
        are still at hand."""
        wanted = []
        for pf in self.faults.values():
            wanted += [(pf.violated_cells[v], -1) for v in pf.minimal_combinations()]
            wanted += [(m.source, m.action) for m in pf.modes()]
        for handle, action in wanted:
            if local is not None:
                root, actions = local.path(handle)
                trace = replay(self.model, local.store.states[root], actions + ([action] if action >= 0 else []))
            else:
                level, key = handle
                trace = self.explorer._trace(KeyWitness(level, key, action))
            self.traces[(handle, action)] = trace


def _pass(analysis: SparkFaultAnalysis, refs: KernelRefs):
    """The function ``mapInArrow`` runs on each partition of the stored levels (small picklable values
    only: the kernels are loaded by name in the executor)."""
    prop_bits, kind_of, cfield = analysis.prop_bits, analysis.kind_of, analysis.cfield
    shape = (len(analysis.prop_bits), len(analysis.kinds), analysis.lattice.size)

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa
        succ, scheck, _ = refs.load()
        w = refs.words
        schema = _arrow_schema(w)
        nact = max(refs.actions, 1)
        out = np.zeros((nact, w), dtype=np.uint64)
        oflags = np.zeros(nact, dtype=np.int64)
        for rb in batches:
            n = rb.num_rows
            if n == 0:
                continue
            states = arrow_states(rb, w)
            levels = rb.column(w).to_numpy(zero_copy_only=False).astype(np.int64)
            vbest = np.full(shape[::2], -1, dtype=np.int64)
            bbest = np.full(shape, -1, dtype=np.int64)
            bact = np.full(shape, -1, dtype=np.int64)
            batch_faults(succ, scheck, refs.params, states, levels, prop_bits, kind_of, cfield, vbest,
                         (bbest, bact), (out, oflags))
            vp, vc = np.nonzero(vbest >= 0)
            bp, bk, bc = np.nonzero(bbest >= 0)
            rows = np.concatenate([vbest[vp, vc], bbest[bp, bk, bc]])
            m = len(rows)
            cols = {"tag": np.concatenate([np.full(len(vp), VIOLATION), np.full(len(bp), BREAKING)]).astype(np.int8),
                    "p": np.concatenate([vp, bp]).astype(np.int32),
                    "kind": np.concatenate([np.zeros(len(vp), dtype=np.int64), bk]).astype(np.int32),
                    "cell": np.concatenate([vc, bc]).astype(np.int64),
                    "level": levels[rows],
                    "action": np.concatenate([np.full(len(vp), -1), bact[bp, bk, bc]]).astype(np.int32)}
            for i in range(w):
                cols[f"k{i}"] = states[rows, i].view(np.int64)
            if m:
                yield pa.RecordBatch.from_arrays([pa.array(cols[f.name], type=f.type) for f in schema],
                                                 schema=schema)

    return run


def _arrow_schema(words: int) -> Any:
    import pyarrow as pa
    fields = [pa.field("tag", pa.int8()), pa.field("p", pa.int32()), pa.field("kind", pa.int32()),
              pa.field("cell", pa.int64()), pa.field("level", pa.int64())]
    fields += [pa.field(c, pa.int64()) for c in key_columns(words)]
    fields.append(pa.field("action", pa.int32()))
    return pa.schema(fields)


def _pass_schema(words: int) -> Any:
    from pyspark.sql.types import ByteType, IntegerType, LongType, StructField, StructType
    fields = [StructField("tag", ByteType()), StructField("p", IntegerType()), StructField("kind", IntegerType()),
              StructField("cell", LongType()), StructField("level", LongType())]
    fields += [StructField(c, LongType()) for c in key_columns(words)]
    fields.append(StructField("action", IntegerType()))
    return StructType(fields)


def _parallelism(master: str) -> int:
    from .sweep import task_slots
    return task_slots(master)


def analyse_on_spark(model: Any, properties: PropertySet, limits: Limits = Limits(), listener: Any = None, *,
                     master: str = "local[*]", partitions: int | None = None,
                     driver_threshold: int = DRIVER_LEVEL_LIMIT, witnesses: Any = ()) -> SparkFaultAnalysis:
    """Explore ``model`` exhaustively on the Spark engine with its full budgets and analyse every always
    property, and which of ``witnesses`` it reaches (the Spark counterpart of :func:`explore.faults.analyse`)."""
    return SparkFaultAnalysis(model, properties, limits, listener, master, partitions, driver_threshold,
                              witnesses).run()
