"""Level-synchronous breadth-first exploration on Spark, with the same results as the local engine.

Each level is one Spark stage (:mod:`spark_explore.level_job`): the task of a partition files the level's
states the previous step sent it (deduplicated, minus what its visited runs already hold) and at once
expands them with the compiled model kernel, leaving each successor, with its canonical parent, for the
partition owning it as NumPy files in the work directory. Spark schedules the tasks and runs a lost one
again; the model kernel and columnar code do the per-state work, and every file a later level needs is in
the work directory. The driver combines one small summary per task: the level's size, its transitions
and coverage, and per watched property the smallest witnessing key.
The first level with a witness settles a property, so traces are shortest and identical to the local
engine's.

While levels are small the engine expands them in the driver with the local engine's compiled kernel
(no Spark stage latency) and only then hands the levels over to the cluster; the stats say where each
level ran. A run stopped between levels continues with ``resume=True`` from its work directory.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from explore.build import check_result, level_stats
from explore.coverage import new_tally
from explore.step import tally_size
from explore.local import LocalExplorer
from explore.run_control import Limits, Progress, rss_bytes
from explore.result import HOLDS, S_VIOLATED, UNKNOWN, CheckResult, ModelError, PropertyResult, state_limit_reason
from explore.trace import replay
from explore.tracker import PropertyTracker
from invariants.base import PropertySet

from .batch import KernelRefs
from .level_job import (ALL_BITS, LevelJob, check_rows, MapSummary, PartSummary, bucket_owner, drop_buckets, edges_name,
                        run_level_step, write_array, write_run)
from .liveness import decide_eventually_on_spark
from .reachability import ReachJob, cannot_reach_goal_on_spark
from .shards import key_order, rows_by_owner
from .errors import SparkRefused, SparkUnavailable, WorkDirLost, failure_cause
from .session import SparkLog, check_java, check_master
from .signals import StopOnSignals
from .workdir import KeyWitness, LevelFile, LevelInfo, Meta, WorkDir, run_digest

DRIVER_LEVEL_LIMIT = 20_000   # expand a level in the driver while its frontier is at most this big


def _u(x: int) -> int:
    """A Spark long (signed) as the packed word (unsigned)."""
    return int(np.int64(x).view(np.uint64))



class SparkExplorer:
    engine = "spark"
    #: ``on_explored(result, local)``, called when the exploration ends while the work directory is still
    #: open (``local``: the driver's LocalExplorer when every level ran there, else None and the levels are
    #: in the work directory): what :mod:`spark_explore.faults` analyses
    on_explored: Any = None

    def __init__(self, model: Any, properties: PropertySet, limits: Limits = Limits(), listener: Any = None,
                 master: str = "local[*]", partitions: int | None = None, work_dir: str | None = None,
                 resume: bool = False, driver_threshold: int = DRIVER_LEVEL_LIMIT, exhaustive: bool = False) -> None:
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
        self.exhaustive = exhaustive   # the whole reachable space whatever the properties say (explore.faults)
        self.words = int(model.words)

    # -- driver phase -------------------------------------------------------------------------------------
    def _driver_phase(self) -> LocalExplorer:
        local = LocalExplorer(self.model, self.props, self.limits, self.listener, exhaustive=self.exhaustive)
        local.engine = self.engine
        local.start()
        while not local.finished():
            lo, hi = local.frontier()
            if hi - lo > self.driver_threshold:
                break
            local.expand_next_level()
        return local

    def _hand_over(self, local: LocalExplorer) -> Meta:
        """Write the driver's levels and visited runs as the level job would, and turn its witnesses into
        key witnesses."""
        states, parent, via = local.store.states, local.store.parent, local.store.via
        meta = Meta(run_digest(self.model, self.props), self.words, partitions=self.parts)
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
            sbits = np.zeros(hi - lo, dtype=np.uint64)
            check_rows(scheck, params, np.ascontiguousarray(keys), ALL_BITS, sbits)
            self.wd.write_level(level, keys, parents, actions, sbits, self.parts)
            leaves = int(np.count_nonzero(sbits & leaf_mask == leaf_mask)) if leaf_mask else 0
            meta.levels.append(LevelInfo(hi - lo, "driver", local.level_seconds[level], leaves))
        stored = np.ascontiguousarray(states[:local.level_starts[local.level + 1]])
        stored = stored[key_order(stored)]
        with self.wd._writing("the visited runs"):
            meta.runs = [[write_run(self.wd.root, q, 0, local.level, stored[rows])] if len(rows) else []
                         for q, rows in enumerate(rows_by_owner(stored, self.parts))]
            meta.edges = [[] for _ in range(self.parts)]
            if self.tracker.graph:
                self._hand_over_edges(local, meta)
        meta.expanded_levels = local.level
        meta.transitions = int(local.store.io["trans"])
        meta.unexpanded = int(local.store.io["nleaf"])
        meta.tally = [int(x) for x in local.tally]
        terminal = local.terminal_index()
        if terminal >= 0:
            meta.terminal = KeyWitness(local.level_of(terminal), tuple(int(x) for x in states[terminal]))
        for name, w in local.tracker.witness.items():
            src = w.state
            level = local.level_of(src)
            meta.witnesses[name] = KeyWitness(level, tuple(int(x) for x in states[src]), w.action)
        return meta

    def _hand_over_edges(self, local: LocalExplorer, meta: Meta) -> None:
        """The driver's transitions out of each expanded level, as the level job stores them."""
        states, row_start, edges = local.store.states, local.store.row_start, local.store.edges
        for level in range(local.level):
            lo, hi = local.level_starts[level], local.level_starts[level + 1]
            src = np.repeat(np.arange(lo, hi), np.diff(row_start[lo:hi + 1]))
            tgt = edges[row_start[lo]:row_start[hi]].astype(np.int64)
            # the action of each edge: stored when an eventually property is selected (else unused)
            act = (local.store.edge_act[row_start[lo]:row_start[hi]].astype(np.int64) if local.store.labels
                   else np.full(len(tgt), -1, np.int64))
            pairs = np.hstack([states[tgt], states[src], act.view(np.uint64)[:, None]])
            for q, rows in enumerate(rows_by_owner(states[tgt], self.parts)):
                part = pairs[rows]
                meta.edges[q].append(write_array(self.wd.edges_dir(q) / edges_name(level), part[key_order(part)]))

    # -- the run --------------------------------------------------------------------------------------------
    def run(self) -> CheckResult:
        self.t0 = time.perf_counter()
        self.wd = WorkDir(self.work_dir)
        self.tracker = PropertyTracker(self.props)
        self.incomplete = ""
        self.signals: StopOnSignals | None = None
        self.error: ModelError | None = None
        self.graph_witness: dict[str, KeyWitness | None] = {}   # per graph property, once decided
        self.live_results: dict[str, PropertyResult] = {}         # per eventually property, once decided
        try:
            meta = self.wd.load_meta() if self.resume else None
            if meta is not None and meta.digest != run_digest(self.model, self.props):
                raise SparkRefused(f"--work-dir {str(self.wd.root)!r} holds a run of another configuration or "
                                   "property selection; use another directory or drop --resume")
            if meta is None:
                self.parts = self.partitions or max(2, 2 * _default_parallelism_hint(self.master))
                self.wd.reset()
                local = self._driver_phase()
                if local.finished():
                    return self._explored(self._from_local(local), local)
                meta = self._hand_over(local)
                self.meta = meta
                try:
                    self.wd.save_meta(meta)
                except WorkDirLost as exc:
                    self._lost(exc)
                    return self._explored(self._result(), None)
            else:
                self.parts = meta.partitions   # the levels and runs on disk are partitioned so
                self.wd.drop_levels_after(len(meta.levels) - 1)
                self.wd.drop_unrecorded_runs(meta)
            self.meta = meta
            for name, w in meta.witnesses.items():
                self.tracker.undecided.pop(name, None)
                self.tracker.witness[name] = w
            if not meta.finished and not self._all_decided() or self.tracker.graph:
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
        return result

    # -- cluster phase --------------------------------------------------------------------------------------
    def _cluster_phase_or_stop(self) -> None:
        """The cluster phase; a Spark failure or Ctrl-C ends the run as incomplete, resumable from the
        levels already written, with one line saying why (never a Java stack or a py4j traceback)."""
        try:
            self._cluster_phase()
        except KeyboardInterrupt:   # a second signal, or one before the handlers were set
            self.incomplete = f"interrupted ({self._signal() or 'SIGINT'}) " + self._resume_hint()
        except WorkDirLost as exc:
            self._lost(exc)
        except Exception as exc:
            if self.wd.lost:   # a failure while stopping, e.g. a task that found the files of another run
                self._lost(WorkDirLost("the lock of this run's work directory was taken"))
                return
            if self._signal():   # the step's job was cancelled by the signal
                self.incomplete = f"interrupted ({self._signal()}) " + self._resume_hint()
                return
            if not _is_spark_failure(exc):
                raise
            cause = failure_cause(exc, str(self.wd.root))
            self.incomplete = (f"Spark failed at level {self.meta.expanded_levels}: {cause} (Spark's log: "
                               f"{SparkLog.named()}); {self._resume_hint()}")

    def _signal(self) -> str:
        """The signal that asked the cluster phase to stop (``"SIGINT"``, ``"SIGTERM"``), or ""."""
        return self.signals.name if self.signals is not None else ""

    def _lost(self, exc: WorkDirLost) -> None:
        """Another run holds the work directory now: this one has stopped writing there, and reports no
        verdict it would need the directory's files to show."""
        self.incomplete = (f"{exc}; this run stopped at level {self.meta.expanded_levels} and wrote nothing "
                           "more there")

    def _resume_hint(self) -> str:
        """How to continue: the work directory is kept (even a temporary one) for ``--resume``."""
        self.wd.owned = False
        return f"the levels done so far are in {str(self.wd.root)!r}: add --work-dir {self.wd.root} --resume to continue"

    def _cluster_phase(self) -> None:
        self.spark = start_session_cached(self.master, self.parts, None if self.wd.owned else self.wd.root)
        self.refs = KernelRefs.of(self.model, self.props)
        leaf_mask = self.tracker.leaf_mask()
        # set after the session starts: PySpark's own SIGINT handler, set then, calls the JVM from inside
        # the signal handler (spark_explore/signals.py)
        with StopOnSignals(self.spark.sparkContext) as self.signals:
            try:
                self._levels_loop(leaf_mask)
                if self.meta.finished and self.tracker.graph and not self.incomplete and self.error is None:
                    self._graph_phase()
            finally:
                self.wd.save_meta(self.meta)
                self.wd.drop_levels_after(len(self.meta.levels) - 1)
                self.wd.drop_unrecorded_runs(self.meta)

    def _graph_phase(self) -> None:
        """Decide the graph and eventually properties over the stored levels and edges
        (:mod:`spark_explore.reachability`, :mod:`spark_explore.liveness`)."""
        meta = self.meta
        base = ReachJob(str(self.wd.root), self.parts, self.words, len(meta.levels),
                        tuple(tuple(f.name for f in runs) for runs in meta.runs))
        props = self.tracker.graph_props
        if props:
            found = cannot_reach_goal_on_spark(self.spark.sparkContext, base, [p.mask for p in props])
            for p, w in zip(props, found):
                self.graph_witness[p.name] = None if w is None else KeyWitness(w[0], tuple(_u(x) for x in w[1]))
        if self.tracker.eventually:
            def path_to(trigger: tuple[int, tuple[int, ...]]) -> tuple[tuple[int, ...], list[int]]:
                root, actions, _ = self.wd.path(KeyWitness(*trigger))
                return root, actions

            self.live_results = decide_eventually_on_spark(
                self.spark.sparkContext, self.model, self.props, self.tracker.eventually, base, path_to,
                lambda root, actions: replay(self.model, root, actions))

    def _all_decided(self) -> bool:
        """Every property settled and the run not asked to be exhaustive: nothing left to learn."""
        return self.tracker.all_decided() and not self.exhaustive

    def _stop_before(self, level: int) -> bool:
        """Whether the run ends before expanding ``level`` (the space is exhausted, every property is
        settled, or a limit is reached)."""
        meta = self.meta
        if level >= len(meta.levels) or meta.levels[level].size == 0:
            meta.finished = True
            return True
        if self._all_decided():
            return True
        if self._signal():
            self.incomplete = f"interrupted ({self._signal()}) " + self._resume_hint()
            return True
        if self.limits.max_depth is not None and level >= self.limits.max_depth:
            self.incomplete = (f"depth limit {self.limits.max_depth} reached with {meta.levels[level].size} "
                               "states unexpanded")
            return True
        if self.limits.max_seconds is not None and time.perf_counter() - self.t0 > self.limits.max_seconds:
            self.incomplete = f"time limit {self.limits.max_seconds:g} s reached"
            return True
        return False

    def _level_job(self, level: int, leaf_mask: int, sent: MapSummary | None = None) -> LevelJob:
        """The job of step ``level``; ``sent``: the expansion of ``level - 1`` whose exchange files it
        files (their manifest, handed to each partition's task)."""
        undecided = self.tracker.undecided.values()
        inbox: list[list[LevelFile]] = [[] for _ in range(self.parts)]
        for f in sent.sent if sent is not None else ():
            inbox[bucket_owner(f.name)].append(f)
        return LevelJob(self.refs, str(self.wd.root), level, self.parts,
                        self.tracker.state_watch_mask() | leaf_mask | self.tracker.goal_mask(),
                        self.tracker.transition_watch_mask(), leaf_mask,
                        tuple((p.bit, p.mask) for p in undecided if not p.on_transitions),
                        tuple(tuple(f.name for f in runs) for runs in self.meta.runs), self.tracker.graph,
                        inbox=tuple(tuple(files) for files in inbox))

    def _levels_loop(self, leaf_mask: int) -> None:
        """The levels as pipelined steps: step ``L`` files level ``L`` from the successors step ``L - 1``
        left in the work directory and at once expands it (one Spark stage per level). The driver commits
        level ``L`` after step ``L``; an expansion made for a level the run then does not continue from
        (every property settled, a limit) is dropped unused."""
        meta, sc = self.meta, self.spark.sparkContext
        level = meta.expanded_levels
        if self._stop_before(level):
            return
        drop_buckets(self.wd.root)    # anything a stopped run left: every step writes its exchange anew
        t = time.perf_counter()
        _, pending = run_level_step(sc, self._level_job(level, leaf_mask), False, True)
        try:
            while True:
                if self._stop_before(level):
                    break
                if pending.error is not None:
                    key, action, message = pending.error
                    self._model_error(level, tuple(_u(x) for x in key), action, message)
                    break
                expand = self.limits.max_depth is None or level + 1 < self.limits.max_depth
                parts, following = run_level_step(sc, self._level_job(level + 1, leaf_mask, pending), True, expand)
                if not self._commit(level, leaf_mask, pending, parts, t, following):
                    break
                drop_buckets(self.wd.root, level)
                t = time.perf_counter()
                level += 1
                pending = following
        finally:
            if not self.wd.lost:   # the exchange files may be another run's now
                drop_buckets(self.wd.root)
                self.meta.exchange_level, self.meta.exchange = -1, []   # gone: meta.json names no exchange file

    def _commit(self, level: int, leaf_mask: int, expanded: MapSummary, parts: list[PartSummary], t: float,
                following: MapSummary | None = None) -> bool:
        """Record the expansion of ``level`` (free of model errors) and the new level its tasks filed, in
        ``meta.json``, with the manifest of the exchange the expansion of the new level (``following``)
        wrote for the next step; False when the state limit refuses the level. First of all, the fence: a run
        whose lock was taken commits nothing (WorkDirLost)."""
        self.wd.fence()
        meta = self.meta
        size = sum(p.size for p in parts)
        if self.limits.max_states is not None and sum(li.size for li in meta.levels) + size > self.limits.max_states:
            self.incomplete = state_limit_reason(self.limits.max_states)
            return False  # the level is not added (its files are removed): a resumed run expands it again
        if leaf_mask:
            meta.unexpanded += meta.levels[level].leaves
        meta.transitions += expanded.transitions
        meta.expanded_levels = level + 1
        tally = np.asarray(meta.tally or [0] * tally_size(self.refs.actions), dtype=np.int64)
        meta.tally = [int(x) for x in tally + expanded.tally]
        if meta.terminal is None and expanded.terminal is not None:   # the shallowest level with one settles it
            meta.terminal = KeyWitness(level, tuple(_u(x) for x in expanded.terminal))
        self.wd.record_written(level + 1, [p.level_file for p in parts])
        for p in parts:
            written = {f.name: f for f in p.written}
            known = {f.name: f for f in meta.runs[p.q]}
            meta.runs[p.q] = [written.get(name) or known[name] for name in p.runs]
            if p.edges_file is not None:
                meta.edges[p.q].append(p.edges_file)
        meta.levels.append(LevelInfo(size, "cluster", time.perf_counter() - t, sum(p.leaves for p in parts)))
        meta.exchange_level = level + 1 if following is not None else -1
        meta.exchange = sorted(following.sent, key=lambda f: f.name) if following is not None else []

        def witness(prop):
            if prop.on_transitions:
                found = expanded.witnesses.get(prop.bit)
                return None if found is None else KeyWitness(level, tuple(_u(x) for x in found[0]), found[1])
            keys = [p.witnesses[prop.bit] for p in parts if prop.bit in p.witnesses]
            return KeyWitness(level + 1, tuple(_u(x) for x in min(keys))) if keys else None

        for name in self.tracker.settle(witness):
            meta.witnesses[name] = self.tracker.witness[name]
        self.wd.save_meta(meta)
        self.wd.drop_unrecorded_runs(meta)    # runs merged away, now that meta.json no longer names them
        if self.listener is not None:
            distinct = sum(li.size for li in meta.levels)
            self.listener.on_progress(Progress(level, meta.levels[level].size, meta.levels[level].size, distinct,
                                               meta.transitions, time.perf_counter() - self.t0,
                                               len(self.tracker.witness), len(self.tracker.properties), rss_bytes()))
        return True

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
        if self.wd.lost:   # the levels may be another run's now: no trace or count is read back from them
            self.tracker.witness.clear()
            self.graph_witness.clear()
            self.live_results.clear()
            meta.terminal = None
        results = self.tracker.verdicts(complete, self._trace)
        for p in self.tracker.graph_props:
            if not complete or p.name not in self.graph_witness:
                results[p.name] = PropertyResult(p.name, p.kind, UNKNOWN, p.summary,
                                                 note="needs the whole reachable graph")
            elif self.graph_witness[p.name] is None:
                results[p.name] = PropertyResult(p.name, p.kind, HOLDS, p.summary)
            else:
                results[p.name] = PropertyResult(p.name, p.kind, S_VIOLATED, p.summary,
                                                 self._trace(self.graph_witness[p.name]))
        for p in self.tracker.eventually:
            decided = complete and p.name in self.live_results
            results[p.name] = self.live_results[p.name] if decided else PropertyResult(
                p.name, p.kind, UNKNOWN, p.summary, note="needs the whole reachable graph")
        ordered = [results[p.name] for p in self.props]
        levels = [li for li in meta.levels if li.size > 0]
        stats = level_stats([li.size for li in levels], meta.transitions, time.perf_counter() - self.t0,
                            unexpanded=meta.unexpanded, level_engines=[li.engine for li in levels],
                            level_seconds=[round(li.seconds, 6) for li in levels],
                            disk_bytes=sum(p.stat().st_size for p in self.wd.root.rglob("*") if p.is_file()))
        if complete and not meta.finished and meta.expanded_levels < len(meta.levels):
            stats.stop_reason = self.tracker.early_stop_reason(meta.expanded_levels,
                                                               meta.levels[meta.expanded_levels].size)
            stats.stopped_early = stats.stop_reason is not None
        nact = len(self.model.actions())
        tally = np.asarray(meta.tally, dtype=np.int64) if meta.tally else new_tally(nact)
        new_states = np.zeros(nact, np.int64) if self.wd.lost else self.wd.new_states_per_action(len(meta.levels), nact)
        terminal = self._trace(meta.terminal) if meta.terminal is not None else None
        result = check_result(self.engine, self.model, ordered, stats, self.incomplete, self.error, terminal,
                              tally, new_states)
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


def explore_on_spark(model: Any, properties: PropertySet, limits: Limits = Limits(), listener: Any = None, *,
                     master: str = "local[*]", partitions: int | None = None, work_dir: str | None = None,
                     resume: bool = False, driver_threshold: int = DRIVER_LEVEL_LIMIT) -> CheckResult:
    """Explore with the Spark engine; SparkUnavailable / SparkRefused are the user's input errors."""
    return SparkExplorer(model, properties, limits, listener, master, partitions, work_dir, resume,
                         driver_threshold).run()


__all__ = ["explore_on_spark", "SparkExplorer", "SparkUnavailable", "SparkRefused", "stop_sessions"]
