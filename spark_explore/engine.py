"""Level-synchronous breadth-first exploration on Spark, with the same results as the local engine.

Per level: the frontier (packed states, hash-partitioned by their key columns) is expanded by the
executors in Arrow batches (:mod:`spark_explore.batch`); successors are shuffled by key, sorted, and
removed when already visited by left anti-joins on the key columns against each sorted run of earlier
levels, co-partitioned so the visited data is never shuffled nor collected; the survivors are then
deduplicated within the level (``groupBy`` on the key, keeping the smallest ``(parent key, action)``: the
local engine's canonical parent); the new level is
``localCheckpoint``-ed (cutting lineage), written to the work directory as Parquet, and summarised by one
aggregate (its size and, per watched property bit, the smallest witnessing key). Checkpoints nothing needs
any more are unpersisted at once (:mod:`spark_explore.checkpoints`). The first level with a
witness settles a property, so traces are shortest and identical to the local engine's.

While levels are small the engine expands them in the driver with the local engine's compiled kernel
(no Spark stage latency) and only then hands the levels over to the cluster; the stats say where each
level ran. A run stopped between levels continues with ``resume=True`` from its work directory.
"""
from __future__ import annotations

import copy
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from explore import kernel as K
from explore.coverage import fill_stats, new_tally, note_pruned
from explore.step import tally_size
from explore.local import Limits, LocalExplorer, Progress, peak_rss_bytes, rss_bytes
from explore.result import CheckResult, ModelError, PropertyResult, Stats, UNKNOWN, outcome_of, state_limit_reason
from explore.trace import replay
from explore.tracker import PropertyTracker
from invariants.base import GRAPH, PropertySet

from .checkpoints import FRONTIER, VISITED, WRITE, Checkpoints
from .batch import (KIND_CHILD, KIND_COUNT, KIND_ERROR, KIND_TALLY, KIND_TERMINAL, KIND_WITNESS, KernelRefs,
                    expander, key_columns, parent_columns)
from .errors import SparkRefused, SparkUnavailable, root_cause
from .session import SparkLog, check_java, check_master
from .workdir import KeyWitness, LevelInfo, Meta, WorkDir, run_digest

DRIVER_LEVEL_LIMIT = 20_000   # expand a level in the driver while its frontier is at most this big
GRAPH_NOTE = "the spark engine keeps no state graph; check graph properties with --engine local"


def _u(x: int) -> int:
    """A Spark long (signed) as the packed word (unsigned)."""
    return int(np.int64(x).view(np.uint64))


def _s(x: int) -> int:
    """A packed word as a Spark long."""
    return int(np.uint64(x).view(np.int64))


class SparkExplorer:
    engine = "spark"
    #: ``on_explored(result, local)``, called when the exploration ends while the work directory is still
    #: open (``local``: the driver's LocalExplorer when every level ran there, else None and the levels are
    #: in the work directory): what :mod:`spark_explore.faults` analyses
    on_explored: Any = None

    def __init__(self, model: Any, properties: PropertySet, limits: Limits = Limits(), listener: Any = None,
                 master: str = "local[*]", partitions: int | None = None, work_dir: str | None = None,
                 resume: bool = False, driver_threshold: int = DRIVER_LEVEL_LIMIT) -> None:
        graph = [p for p in properties if p.kind == GRAPH]
        self.dropped_graph = []
        if graph:
            if len(properties) < len(properties.names_in_order):
                raise SparkRefused(f"property '{graph[0].name}' needs the whole reachable graph, which the "
                                   "spark engine does not keep; check it with --engine local")
            self.dropped_graph = graph
            properties = properties.without([GRAPH])
        if resume and not work_dir:
            raise SparkRefused("--resume needs the --work-dir of the run to continue")
        if partitions is not None and partitions < 1:
            raise SparkRefused(f"--partitions {partitions}: must be >= 1")
        # fail fast on a machine without Java or a master nobody answers, even if every level of this
        # run turns out small enough for the driver
        check_java()
        check_master(master)
        self.model = model
        self.props = properties
        self.limits = limits
        self.listener = listener
        self.master = master
        self.partitions = partitions
        self.work_dir = work_dir
        self.resume = resume
        self.driver_threshold = driver_threshold
        self.words = int(model.words)
        self.keys = key_columns(self.words)
        self.pcols = parent_columns(self.words)

    # -- driver phase -------------------------------------------------------------------------------------
    def _driver_phase(self) -> LocalExplorer:
        local = LocalExplorer(self.model, self.props, self.limits, self.listener)
        local.engine = self.engine
        local.start()
        while not local.finished():
            lo, hi = local.frontier()
            if hi - lo > self.driver_threshold:
                break
            local.expand_next_level()
        return local

    def _hand_over(self, local: LocalExplorer) -> Meta:
        """Write the driver's levels as Parquet and turn its witnesses into key witnesses."""
        states, parent, via = local.states, local.parent, local.via
        meta = Meta(run_digest(self.model, self.props), self.words)
        scheck, params = self.props.state_check, self.model.params
        leaf_mask = np.uint64(self.tracker.leaf_mask())
        for level in range(local.level + 1):
            lo, hi = local.level_starts[level], local.level_starts[level + 1]
            keys = states[lo:hi]
            if level == 0:
                parents = np.zeros_like(keys)
                actions = np.full(hi - lo, -1, dtype=np.int64)
            else:
                parents = states[parent[lo:hi].astype(np.int64)]
                actions = via[lo:hi].astype(np.int64)
            sbits = np.array([scheck(keys[i], params) for i in range(hi - lo)], dtype=np.uint64)
            self.wd.write_level(level, keys, parents, actions, sbits)
            leaves = int(np.count_nonzero(sbits & leaf_mask == leaf_mask)) if leaf_mask else 0
            meta.levels.append(LevelInfo(hi - lo, "driver", local.level_seconds[level], leaves))
        meta.expanded_levels = local.level
        meta.transitions = int(local.io[K.IO_TRANS])
        meta.unexpanded = int(local.io[K.IO_NLEAF])
        meta.tally = [int(x) for x in local.tally]
        terminal = local.terminal_index()
        if terminal >= 0:
            meta.terminal = KeyWitness(local.level_of(terminal), tuple(int(x) for x in states[terminal]))
        for name, w in local.tracker.witness.items():
            src = w.state
            level = local.level_of(src)
            meta.witnesses[name] = KeyWitness(level, tuple(int(x) for x in states[src]), w.action)
        return meta

    # -- the run --------------------------------------------------------------------------------------------
    def run(self) -> CheckResult:
        self.t0 = time.perf_counter()
        self.wd = WorkDir(self.work_dir)
        self.tracker = PropertyTracker(self.props)
        self.incomplete = ""
        self.error: ModelError | None = None
        try:
            meta = self.wd.load_meta() if self.resume else None
            if meta is not None and meta.digest != run_digest(self.model, self.props):
                raise SparkRefused(f"--work-dir {str(self.wd.root)!r} holds a run of another configuration or "
                                   "property selection; use another directory or drop --resume")
            if meta is None:
                self.wd.reset()
                local = self._driver_phase()
                if local.finished():
                    return self._explored(self._from_local(local), local)
                meta = self._hand_over(local)
                self.wd.save_meta(meta)
            else:
                self.wd.drop_levels_after(len(meta.levels) - 1)
            self.meta = meta
            for name, w in meta.witnesses.items():
                self.tracker.undecided.pop(name, None)
                self.tracker.witness[name] = w
            if not meta.finished and not self.tracker.all_decided():
                self._cluster_phase_or_stop()
            return self._explored(self._result(), None)
        finally:
            self.wd.close()

    def _explored(self, result: CheckResult, local: LocalExplorer | None) -> CheckResult:
        if self.on_explored is not None:
            self.on_explored(result, local)
        return result

    def _from_local(self, local: LocalExplorer) -> CheckResult:
        result = local.result()
        result.engine = self.engine
        result.stats.level_engines = ["driver"] * len(result.stats.levels)
        self._note_dropped(result)
        return result

    def _note_dropped(self, result: CheckResult) -> None:
        for p in self.dropped_graph:
            result.properties.append(PropertyResult(p.name, p.kind, UNKNOWN, p.summary, note=GRAPH_NOTE))

    # -- cluster phase --------------------------------------------------------------------------------------
    def _cluster_phase_or_stop(self) -> None:
        """The cluster phase; a Spark failure or Ctrl-C ends the run as incomplete, resumable from the
        levels already written, with one line saying why (never a Java stack or a py4j traceback)."""
        try:
            self._cluster_phase()
        except KeyboardInterrupt:
            self.incomplete = "interrupted (SIGINT) " + self._resume_hint()
        except Exception as exc:
            if not _is_spark_failure(exc):
                raise
            self.incomplete = (f"Spark failed at level {self.meta.expanded_levels}: {root_cause(exc)} (Spark's "
                               f"log: {SparkLog.named()}); {self._resume_hint()}")

    def _resume_hint(self) -> str:
        """How to continue: the work directory is kept (even a temporary one) for ``--resume``."""
        self.wd.owned = False
        return f"the levels done so far are in {str(self.wd.root)!r}: add --work-dir {self.wd.root} --resume to continue"

    def _cluster_phase(self) -> None:
        from pyspark.sql import functions as F

        self.F = F
        parts = self.partitions or max(2, 2 * _default_parallelism_hint(self.master))
        self.spark = start_session_cached(self.master, parts, None if self.wd.owned else self.wd.root)
        self.parts = parts
        meta = self.meta
        self.refs = KernelRefs.of(self.model, self.props)
        self.ckpt = Checkpoints()
        # every level so far, in one co-partitioned, checkpointed DataFrame (keys, sbits, level): the first
        # run of the visited set, and the source of the first cluster level's frontier
        stored = self.spark.read.parquet(str(self.wd.levels_dir)).select(*self.keys, "sbits", "level")
        first, rid = self.ckpt.checkpoint(stored.repartition(parts, *self.keys).sortWithinPartitions(*self.keys),
                                          VISITED, FRONTIER)
        self.visited = [(first, sum(li.size for li in meta.levels), rid)]
        level = meta.expanded_levels
        self.level_frames: dict[int, tuple[Any, int]] = {level: (first.filter(F.col("level") == level), rid)}
        # levels are written to the work directory by one background thread, in order, each followed by
        # the meta.json that describes it: the next level's job does not wait for the previous write
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rmqcheck-level-writer")
        self.writing: list[tuple[Future, int]] = []   # writes not yet seen done, and the level each holds
        leaf_mask = self.tracker.leaf_mask()
        try:
            self._levels_loop(leaf_mask)
        finally:
            self.writer.shutdown(wait=True)
            self.ckpt.release_all()   # after the writes: an unpersisted local checkpoint cannot be recomputed
        for future, _ in self.writing:
            future.result()  # surface a failed write
        self.wd.save_meta(meta)

    def _levels_loop(self, leaf_mask: int) -> None:
        meta = self.meta
        while True:
            level = meta.expanded_levels
            if level >= len(meta.levels) or meta.levels[level].size == 0:
                meta.finished = True
                break
            if self.tracker.all_decided():
                break
            if self.limits.max_depth is not None and level >= self.limits.max_depth:
                self.incomplete = (f"depth limit {self.limits.max_depth} reached with {meta.levels[level].size} "
                                   "states unexpanded")
                break
            if self.limits.max_seconds is not None and time.perf_counter() - self.t0 > self.limits.max_seconds:
                self.incomplete = f"time limit {self.limits.max_seconds:g} s reached"
                break
            if not self._expand_cluster_level(level, leaf_mask):
                break

    def _frontier(self, level: int, leaf_mask: int):
        F = self.F
        df = self.level_frames[level][0]
        if leaf_mask:
            df = df.filter((F.col("sbits").bitwiseAND(F.lit(_s(leaf_mask)))) != F.lit(_s(leaf_mask)))
        return df.select(*self.keys)

    def _expand_cluster_level(self, level: int, leaf_mask: int) -> bool:
        """One level on the cluster: one job computes and checkpoints the new level (with its summary
        observed on the way), a second writes it to the work directory."""
        from pyspark.sql import Observation

        F, meta, keys, pcols = self.F, self.meta, self.keys, self.pcols
        t = time.perf_counter()
        if leaf_mask:
            meta.unexpanded += meta.levels[level].leaves
        state_mask = self.tracker.state_watch_mask() | leaf_mask
        trans_mask = self.tracker.transition_watch_mask()
        watched_t = [p for p in self.tracker.undecided.values() if p.on_transitions]
        watched_s = [p for p in self.tracker.undecided.values() if not p.on_transitions]
        kind = F.col("kind")
        on_expand = Observation(f"expand-{level}")
        expand_metrics = [F.sum(F.when(kind == KIND_COUNT, F.col("count")).otherwise(0)).alias("transitions"),
                          F.min(F.when(kind == KIND_ERROR, F.struct(*pcols, "action", "message"))).alias("error"),
                          F.min(F.when(kind == KIND_TERMINAL, F.struct(*pcols))).alias("terminal"),
                          # one row per partition and non-zero tally slot: a short list
                          F.collect_list(F.when(kind == KIND_TALLY, F.struct("tbit", "count"))).alias("tally")]
        for p in watched_t:
            expand_metrics.append(F.min(F.when((kind == KIND_WITNESS) & (F.col("tbit") == p.bit),
                                               F.struct(*pcols, "action"))).alias(f"t{p.bit}"))
        expanded = (self._frontier(level, leaf_mask)
                    .mapInArrow(expander(self.refs, state_mask, trans_mask), _spark_schema(self.words))
                    .observe(on_expand, *expand_metrics))
        children = expanded.filter(kind == KIND_CHILD).select(*keys, *pcols, "action", "sbits")
        # every successor row is sorted by key once; the sort-merge anti-joins against the visited runs (each
        # kept partitioned and sorted by key, so no visited row is shuffled or collected) keep that order, and
        # only then are the survivors grouped by key (keeping the canonical parent): the aggregate, which
        # Spark cannot hash on a struct minimum, sees only the rows of new states, already sorted
        fresh = children.repartition(self.parts, *keys).sortWithinPartitions(*keys)
        for frame, _, _ in self.visited:
            fresh = fresh.join(frame.select(*keys), on=keys, how="left_anti")
        new = (fresh.groupBy(*keys)
               .agg(F.min(F.struct(*pcols, "action")).alias("par"), F.first("sbits").alias("sbits"))
               .select(*keys, *[F.col(f"par.{c}").alias(c) for c in pcols], F.col("par.action").alias("action"),
                       "sbits").sortWithinPartitions(*keys))
        on_level = Observation(f"level-{level + 1}")
        level_metrics = [F.count(F.lit(1)).alias("n")]
        if leaf_mask:
            is_leaf = (F.col("sbits").bitwiseAND(F.lit(_s(leaf_mask)))) == F.lit(_s(leaf_mask))
            level_metrics.append(F.sum(F.when(is_leaf, 1).otherwise(0)).alias("leaves"))
        for p in watched_s:
            hit = F.col("sbits").bitwiseAND(F.lit(_s(p.mask))) != 0
            level_metrics.append(F.min(F.when(hit, F.struct(*keys))).alias(f"s{p.bit}"))
        self._release_written()
        new, rid = self.ckpt.checkpoint(new.observe(on_level, *level_metrics), VISITED, FRONTIER, WRITE)
        em, lm = on_expand.get, on_level.get
        if em["error"] is not None:
            e = em["error"]
            self._model_error(level, tuple(_u(e[c]) for c in pcols), int(e["action"]), e["message"])
            return False
        size = int(lm["n"])
        transitions = int(em["transitions"] or 0)
        if self.limits.max_states is not None and sum(li.size for li in meta.levels) + size > self.limits.max_states:
            self.incomplete = state_limit_reason(self.limits.max_states)
            if leaf_mask:
                meta.unexpanded -= meta.levels[level].leaves
            return False  # the level is not added: a resumed run expands it again
        meta.transitions += transitions
        meta.expanded_levels = level + 1
        self._add_tally(em["tally"])
        if meta.terminal is None and em["terminal"] is not None:   # the shallowest level with one settles it
            meta.terminal = KeyWitness(level, tuple(_u(em["terminal"][c]) for c in pcols))
        if size:
            self._store_visited(new, size, rid)
            self.level_frames[level + 1] = (new.select(*keys, "sbits"), rid)
        else:
            self.ckpt.release(rid, VISITED)
            self.ckpt.release(rid, FRONTIER)
        self.ckpt.release(self.level_frames.pop(level)[1], FRONTIER)
        leaves = int(lm["leaves"] or 0) if leaf_mask else 0
        meta.levels.append(LevelInfo(size, "cluster", time.perf_counter() - t, leaves))

        def witness(p):
            row = (em if p.on_transitions else lm).get(f"{'t' if p.on_transitions else 's'}{p.bit}")
            if row is None:
                return None
            if p.on_transitions:
                return KeyWitness(level, tuple(_u(row[c]) for c in pcols), int(row["action"]))
            return KeyWitness(level + 1, tuple(_u(row[c]) for c in keys))

        for name in self.tracker.settle(witness):
            meta.witnesses[name] = self.tracker.witness[name]
        future = self.writer.submit(self._write_level, new if size else None, level + 1, copy.deepcopy(meta))
        self.writing.append((future, rid))
        if self.listener is not None:
            distinct = sum(li.size for li in meta.levels)
            self.listener.on_progress(Progress(level, meta.levels[level].size, meta.levels[level].size, distinct,
                                               meta.transitions, time.perf_counter() - self.t0,
                                               len(self.tracker.witness), len(self.tracker.properties), rss_bytes()))
        return True

    def _add_tally(self, rows: list[Any]) -> None:
        tally = self.meta.tally or [0] * tally_size(self.refs.actions)
        for row in rows:
            tally[int(row["tbit"])] += int(row["count"])
        self.meta.tally = tally

    def _store_visited(self, frame: Any, size: int, rid: int) -> None:
        """Add a level to the visited set, kept as a few sorted runs (like an LSM tree): whenever the newest
        run is at least half the size of the one before, the two are merged (keys only). Each candidate then
        passes through a logarithmic number of anti-joins instead of one per level."""
        visited, keys = self.visited, self.keys
        visited.append((frame, size, rid))
        while len(visited) >= 2 and 2 * visited[-1][1] >= visited[-2][1]:
            (b, nb, rb), (a, na, ra) = visited.pop(), visited.pop()
            merged = a.select(*keys).union(b.select(*keys)).sortWithinPartitions(*keys)
            merged, rm = self.ckpt.checkpoint(merged, VISITED)
            self.ckpt.release(ra, VISITED)
            self.ckpt.release(rb, VISITED)
            visited.append((merged, na + nb, rm))

    def _release_written(self) -> None:
        """Release the levels the background writer has finished with; a failed write surfaces here."""
        still = []
        for future, rid in self.writing:
            if future.done():   # asked once: a write may finish while this loop runs
                future.result()
                self.ckpt.release(rid, WRITE)
            else:
                still.append((future, rid))
        self.writing = still

    def _write_level(self, frame: Any, level: int, meta: Meta) -> None:
        """Background: the level's Parquet table, then the meta.json that counts it as done."""
        if frame is not None:
            frame.write.mode("overwrite").parquet(str(self.wd.level_dir(level)))
            self.wd.record_level(level)
        self.wd.save_meta(meta)

    def _model_error(self, level: int, key: tuple[int, ...], action: int, message: str) -> None:
        state = key
        if action < 0:
            finder = getattr(self.model, "failing_action", None)
            action = finder(state) if finder is not None else -1
            action = -1 if action is None else action
        label = str(self.model.actions()[action]) if action >= 0 else "?"
        if message.startswith("flags="):
            message = self.model.describe_outcome(int(message[6:])) or "model error"
        self.error = ModelError(message, label, self.model.view(state), self._trace(KeyWitness(level, key)))

    # -- results ------------------------------------------------------------------------------------------
    def _trace(self, w: KeyWitness):
        root, actions, states = self.wd.path(w)
        if w.action >= 0:
            actions = actions + [w.action]
            return replay(self.model, root, actions, states + [self._successor(w)])
        return replay(self.model, root, actions, states)

    def _successor(self, w: KeyWitness) -> tuple[int, ...]:
        out, flags = self.model.expand(w.key)
        return tuple(int(x) for x in out[w.action])

    def _result(self) -> CheckResult:
        meta = self.meta
        complete = not self.incomplete and self.error is None
        results = self.tracker.verdicts(complete, self._trace)
        ordered = [results[p.name] for p in self.props]
        levels = [li for li in meta.levels if li.size > 0]
        seconds = time.perf_counter() - self.t0
        distinct = sum(li.size for li in levels)
        stats = Stats(distinct_states=distinct, transitions=meta.transitions, depth=max(len(levels) - 1, 0),
                      seconds=seconds, states_per_second=distinct / seconds if seconds > 0 else 0.0,
                      peak_rss_bytes=peak_rss_bytes(), levels=[li.size for li in levels],
                      unexpanded=meta.unexpanded, level_engines=[li.engine for li in levels],
                      level_seconds=[round(li.seconds, 6) for li in levels])
        if complete and not meta.finished and meta.expanded_levels < len(meta.levels):
            stats.stop_reason = self.tracker.early_stop_reason(meta.expanded_levels,
                                                               meta.levels[meta.expanded_levels].size)
            stats.stopped_early = stats.stop_reason is not None
        nact = len(self.model.actions())
        tally = np.asarray(meta.tally, dtype=np.int64) if meta.tally else new_tally(nact)
        fill_stats(stats, self.model.actions(), tally, self.wd.new_states_per_action(len(meta.levels), nact))
        note_pruned(ordered, stats)
        config = getattr(getattr(self.model, "config", None), "as_dict", lambda: {})()
        terminal = self._trace(meta.terminal) if meta.terminal is not None else None
        result = CheckResult(self.engine, outcome_of(ordered, self.incomplete, self.error), stats, ordered, config,
                             getattr(self.model, "name", ""), self.incomplete, self.error, terminal)
        self._note_dropped(result)
        return result


_SESSIONS: dict[str, Any] = {}


def _is_spark_failure(exc: BaseException) -> bool:
    """An error of Spark or of the JVM connection (not one of rmqcheck's own)."""
    from py4j.protocol import Py4JError
    from pyspark.errors import PySparkException
    return isinstance(exc, (Py4JError, PySparkException, ConnectionError))


def start_session_cached(master: str, partitions: int, log_dir: Any = None):
    """One session per master per process: starting the JVM is the slow part."""
    from .session import start_session
    spark = _SESSIONS.get(master)
    if spark is not None and spark.sparkContext._jsc is not None:
        spark.conf.set("spark.sql.shuffle.partitions", str(partitions))
        return spark
    stop_sessions()
    spark = start_session(master, partitions, log_dir=log_dir)
    _SESSIONS[master] = spark
    return spark


def stop_sessions() -> None:
    for spark in _SESSIONS.values():
        spark.stop()
    _SESSIONS.clear()


def _default_parallelism_hint(master: str) -> int:
    import os
    if master.startswith("local[") and master.endswith("]"):
        n = master[6:-1]
        if n.isdigit():
            return int(n)
    return os.cpu_count() or 2


def _spark_schema(words: int):
    from pyspark.sql.types import ByteType, IntegerType, LongType, StringType, StructField, StructType
    fields = [StructField("kind", ByteType())]
    fields += [StructField(c, LongType()) for c in key_columns(words)]
    fields += [StructField(c, LongType()) for c in parent_columns(words)]
    fields += [StructField("action", IntegerType()), StructField("sbits", LongType()),
               StructField("count", LongType()), StructField("tbit", IntegerType()),
               StructField("message", StringType())]
    return StructType(fields)


def explore_on_spark(model: Any, properties: PropertySet, limits: Limits = Limits(), listener: Any = None, *,
                     master: str = "local[*]", partitions: int | None = None, work_dir: str | None = None,
                     resume: bool = False, driver_threshold: int = DRIVER_LEVEL_LIMIT) -> CheckResult:
    """Explore with the Spark engine; SparkUnavailable / SparkRefused are the user's input errors."""
    return SparkExplorer(model, properties, limits, listener, master, partitions, work_dir, resume,
                         driver_threshold).run()


__all__ = ["explore_on_spark", "SparkExplorer", "SparkUnavailable", "SparkRefused", "stop_sessions"]
