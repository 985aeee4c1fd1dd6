"""What ``rmqcheck faults`` computes, from one exhaustive exploration and a sweep of small ones.

1. :func:`explore.faults.analyse` on the configuration with its full budgets: minimal combinations and
   modes of every always property, with traces.
2. The graph property is not monotone in the budgets, so it is checked once per budget vector of the
   lattice (a sweep task each).
3. What closes a mode: the configuration with one change (4.4: a durability setting, a V1-V6 switch, one
   slave more or less; controller mode: allAckInSyncStateSet, minInSyncReplicas, inSyncReplicas,
   enableElectUncleanMaster) is analysed; a mode is closed by the change when its action kind no longer breaks the
   property under its combination there. Then sets of changes, singles first, until every violated
   property holds under some set of the current size, or ``max_configs`` explorations were run.

A change buys nothing when it closes a mode by giving up service: under SYNC_MASTER with no slave, no
SEND_OK is ever given, so no acknowledged message can be lost. Every exploration therefore also records
which availability witnesses (:data:`invariants.witnesses.AVAILABILITY`, in every mode) it keeps: a
``sometimes`` one (``message_acked``, ``message_consumed``) where it is reached, the ``eventually`` one
(4.4: ``acked_message_eventually_consumed``, under the run's fairness) where it holds. A change closes a
mode, and a set is one the property "holds with", only while it keeps every witness the configuration
itself keeps, and does not remove a slave. The others are listed apart with what they cost.

Every task is a function of a configuration (of any model mode: :mod:`explore.fault_profiles` says what
the search needs of a mode) and returns small picklable values, so the sweep runs
them in a process pool or as Spark tasks (:func:`rmqcheck.engines.sweep_runner`) and the results (in task
order) depend neither on ``--jobs`` nor on the engine. Step 1 runs on the engine ``check --engine`` would
use: :func:`explore.faults.analyse`, or the registered engine's own analysis (``analyser``: same answers).
"""
from __future__ import annotations

import itertools
from functools import partial
from dataclasses import dataclass, field
from typing import Any, Callable

from invariants.base import ALWAYS, EVENTUALLY, GRAPH, Fairness, PropertySet
from model.modes import mode_of

from . import stop
from .fault_meanings import meaning
from .fault_profiles import changed
from .faults import FaultAnalysis, FaultSummary, Lattice, Vector, analyse, bounds, combination, minimal
from .local import LocalExplorer
from .memory import available_memory_bytes
from .result import ERROR, INCOMPLETE, PASSED, VIOLATED, CheckResult, Trace
from .run_control import DEFAULT_MAX_CONFIGS, Limits
from .sweep import SweepPool, Task


Change = dict[str, Any]


def setting_changes(cfg: Any) -> list[Change]:
    """The single changes sets are built from: each of the mode's settings to its other values (4.4: the
    durability settings, then each V1-V6 switch flipped)."""
    return mode_of(cfg).faults().setting_changes(cfg)


def single_changes(cfg: Any) -> list[Change]:
    """Every single change a mode can be closed by: the settings, then (4.4) one slave fewer and one more."""
    return mode_of(cfg).faults().single_changes(cfg)


def change_label(change: Change) -> str:
    """A change as the user types it: ``flush_disk_type=SYNC_FLUSH, monotonic_commit=true``."""
    return ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in change.items())


def availability_witnesses(cfg: Any = None) -> list[Any]:
    """The availability witnesses a closing change must keep, as properties, of ``cfg``'s mode (4.4 when
    None)."""
    from model.modes import DEFAULT_MODE, get_mode
    mode = mode_of(cfg) if cfg is not None else get_mode(DEFAULT_MODE)
    return mode.faults().witnesses()


def change_costs(base: Any, change: Change, base_reached: tuple[str, ...],
                 reached: tuple[str, ...]) -> list[str]:
    """What ``change`` gives up: each availability witness ``base`` reaches that the changed configuration
    no longer does, and (4.4) a slave it removes (a mode closed by removing the replica is closed
    vacuously)."""
    profile = mode_of(base).faults()
    lost = profile.availability()
    return [lost[n] for n in base_reached if n not in reached] + profile.structural_cost(base, change)


# -- sweep tasks (module level: they run in worker processes) -----------------------------------------------
@dataclass(frozen=True)
class ConfigFaults:
    """A sweep task's answer for one configuration: per always property, its violating cells and
    breaking (kind, cell) pairs; ``incomplete`` when a limit stopped the exploration."""

    summaries: tuple[FaultSummary, ...]
    incomplete: str = ""
    error: str = ""
    reached: tuple[str, ...] = ()     # the availability witnesses the configuration reaches

    def get(self, name: str) -> FaultSummary | None:
        for s in self.summaries:
            if s.name == name:
                return s
        return None


def faults_task(cfg: Any, names: tuple[str, ...], limits: Limits, memory: int, modes: bool,
                threads: int = 1, witnesses: tuple[str, ...] | None = None,
                fairness: Fairness = Fairness()) -> ConfigFaults:
    """The always properties ``names`` of ``cfg``, and which of the availability ``witnesses`` (names; None:
    all of its mode's) it keeps, an eventually one decided under ``fairness``."""
    mode = mode_of(cfg)
    props = mode.properties().select(list(names)).with_fairness(fairness)
    kept = [w for w in availability_witnesses(cfg) if witnesses is None or w.name in witnesses]
    a = FaultAnalysis(mode.model(cfg), props, limits, None, memory, modes, threads, witnesses=kept).run()
    r = a.result
    if r.error is not None:
        return ConfigFaults((), "", r.error.message)
    return ConfigFaults(tuple(a.summaries()), r.incomplete_reason, reached=a.reached)


def graph_task(cfg: Any, name: str, limits: Limits, memory: int, threads: int = 1,
               fairness: Fairness = Fairness()) -> CheckResult:
    """One budget vector's exploration for a graph or eventually property (neither is monotone in the
    budgets); ``fairness``: an eventually property's."""
    mode = mode_of(cfg)
    return LocalExplorer(mode.model(cfg), mode.properties().select([name]).with_fairness(fairness), limits, None,
                         memory, threads=threads).run()


# -- the report ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CostlyChange:
    """A change (or set) that closes a mode or makes a property hold, but only at a cost."""

    change: Change
    costs: tuple[str, ...]


@dataclass
class ModeReport:
    kind: str
    vector: Vector
    trace: Trace
    meaning: str
    closed_by: list[Change] = field(default_factory=list)
    closed_at_a_cost: list[CostlyChange] = field(default_factory=list)


@dataclass
class CombinationReport:
    vector: Vector
    trace: Trace


@dataclass
class NextBound:
    """One always property at the next bound (``--grow``): its status there, and how its minimal
    combinations and modes differ from those at the bound asked for (new ones with their traces)."""

    status: str
    combinations: list[CombinationReport] = field(default_factory=list)   # new minimal combinations
    modes: list[ModeReport] = field(default_factory=list)                 # new modes
    gone_combinations: list[Vector] = field(default_factory=list)
    gone_modes: list[tuple[str, Vector]] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return not (self.combinations or self.modes or self.gone_combinations or self.gone_modes)


@dataclass
class AlwaysReport:
    name: str
    summary: str
    status: str
    combinations: list[CombinationReport] = field(default_factory=list)
    modes: list[ModeReport] = field(default_factory=list)
    holds_with: list[Change] = field(default_factory=list)
    holds_at_a_cost: list[CostlyChange] = field(default_factory=list)
    kind: str = ALWAYS
    at_next_bound: NextBound | None = None


@dataclass
class VectorReport:
    vector: Vector
    status: str
    trace: Trace | None = None
    loop_start: int | None = None   # an eventually property's lasso: the step its cycle repeats from


@dataclass
class GraphReport:
    name: str
    summary: str
    vectors: list[VectorReport] = field(default_factory=list)
    kind: str = GRAPH

    @property
    def status(self) -> str:
        if any(v.status == "violated" for v in self.vectors):
            return "violated"
        if all(v.status == "holds" for v in self.vectors) and self.vectors:
            return "holds"
        return "unknown"


@dataclass
class FaultsReport:
    config: dict[str, Any]
    outcome: str
    properties: list[Any]
    configurations: int
    jobs: int
    stopped: str | None
    stats: Any = None
    incomplete_reason: str = ""
    error: str = ""
    lattice: Lattice | None = None
    unsettled: list[str] = field(default_factory=list)
    sweep_engine: str = "local"     # where the sweeps ran: "local" processes, or the sweep runner's engine
    engine: str = "local"           # the engine of the exhaustive exploration (step 1)
    reached: tuple[str, ...] = ()   # the availability witnesses the configuration reaches (step 1)
    bounds: dict[str, Any] = field(default_factory=dict)
    sets_tried: int = 0             # sets of setting changes the "holds with" search explored...
    sets_total: int = 0             # ...of every set it would explore without --max-configs
    next_bound: dict[str, Any] | None = None   # --grow: what grew, the bounds there, the exploration's cost
    table: list[TableRow] | None = None        # --table: per durability setting, what breaks each property
    fairness: Fairness | None = None           # what the eventually properties were decided under


@dataclass(frozen=True)
class TableRow:
    """A row of the decision table: a durability setting, and per property its minimal violating
    combinations (empty: holds within the bounds; None: not settled, ``why`` says why)."""

    setting: Change
    cells: dict[str, list[Vector] | None]
    reached: tuple[str, ...] = ()
    why: str = ""
    moves: dict[str, str] = field(default_factory=dict)   # property -> its verdict at the next bound, where it differs


@dataclass(frozen=True)
class StepOne:
    """What the report keeps of the exhaustive exploration once its answers are read."""

    result: CheckResult
    complete: bool


# -- the search ------------------------------------------------------------------------------------------
@dataclass
class FaultSearch:
    """``rmqcheck faults`` for one configuration."""

    config: Any
    properties: PropertySet
    limits: Limits = Limits()
    jobs: int = 1
    max_configs: int = DEFAULT_MAX_CONFIGS
    listener: Any = None
    on_progress: Callable[[str], None] | None = None
    threads: int = 1          # of each sweep exploration (jobs times threads: at most the usable cores)
    step1_threads: int = 1    # of the one exploration of step 1, which runs alone
    sweeper: Any = None     # runs the sweeps (``run(tasks)``): default a SweepPool of ``jobs`` processes
    analyser: Any = None    # step 1, ``analyse``'s signature: default the local engine's
    progress: Any = None    # per phase: ``exploring(text)`` (a listener context), ``sweep(text, labels)``
    grow: str = "messages"  # the count one more of which step 1 is repeated with (``none``: not repeated)
    table: bool = False     # also the decision table: one analysis per durability setting

    def run(self) -> FaultsReport:
        self.always = [p for p in self.properties if p.kind == ALWAYS]
        self.graph = [p for p in self.properties if p.kind in (GRAPH, EVENTUALLY)]   # one verdict per vector
        self.configurations = 0     # explorations the sweeps ran
        self.closing = 0            # of which for the closing search (bounded by max_configs)
        self.stopped: str | None = None
        self.unsettled: list[str] = []   # closing explorations that settled nothing (a limit, an error)
        self.interrupted = False
        self.failure = ""           # why the sweep runner itself failed (e.g. Spark), if it did
        if self.sweeper is None:
            self.sweeper = SweepPool(self.jobs)
        # each concurrent exploration of a sweep gets its share of this machine's memory
        self.memory = int(available_memory_bytes() * 0.7 / max(self.sweeper.jobs, 1))
        self.lattice = Lattice.of(self.config)
        reports: dict[str, Any] = {}
        analysis = None
        self.profile = mode_of(self.config).faults()
        self.witnesses = self.profile.witnesses()
        self.reached: tuple[str, ...] = ()
        self.sets_tried = self.sets_total = 0
        self.next_bound: dict[str, Any] | None = None
        self.rows: list[TableRow] | None = None
        if self.always:
            analysis = self._step1(self.config, "step 1: every state with the full budgets", self.witnesses)
            self.interrupted |= bool(stop.requested())
            self.reached = analysis.reached
            if analysis.result.error is not None:
                return self._report([], ERROR, analysis, error=analysis.result.error.message)
            for p in self.always:
                reports[p.name] = self._always_report(p, analysis)
            analysis = StepOne(analysis.result, analysis.complete)   # its stored states are no longer needed
            if analysis.complete and self.grow != "none":
                self._next_bound([reports[p.name] for p in self.always])
        complete = analysis is None or analysis.complete
        broken = [reports[p.name] for p in self.always if reports[p.name].modes]
        with self.sweeper as self.pool:
            if self.table and self.always and not self.interrupted:
                self.rows = self._decision_table()
            if complete and self.graph and not self.interrupted:
                for p in self.graph:
                    reports[p.name] = self._graph_report(p)
            if complete and broken and not self.interrupted:
                self._close([reports[p.name] for p in self.always])
        ordered = [reports[p.name] for p in self.properties if p.name in reports]
        return self._report(ordered, self._outcome(ordered, analysis), analysis)

    def _say(self, text: str) -> None:
        if self.on_progress is not None:
            self.on_progress(text)

    def _step1(self, cfg: Any, text: str, witnesses: list[Any]) -> Any:
        """The one exhaustive exploration with the full budgets of ``cfg``, analysed, with which of
        ``witnesses`` it keeps."""
        step1 = self.analyser or partial(analyse, threads=self.step1_threads)
        names = [p.name for p in self.always]
        model = mode_of(cfg).model(cfg)
        if self.progress is None:
            self._say(text)
            return step1(model, self.properties.select(names), self.limits, self.listener, witnesses=witnesses)
        with self.progress.exploring(text) as listener:
            return step1(model, self.properties.select(names), self.limits, listener, witnesses=witnesses)

    def _faults_task(self, cfg: Any, names: tuple[str, ...], modes: bool) -> Task:
        """A sweep task analysing ``cfg``: the always properties ``names``, and the availability witnesses
        a change could lose: every sometimes one, and an eventually one only where step 1 found the
        configuration keeping it (elsewhere no change can lose it, and its pass would cost for nothing)."""
        keep = tuple(w.name for w in self.witnesses if w.kind != EVENTUALLY or w.name in self.reached)
        return Task(faults_task, (cfg, names, self.limits, self.memory, modes, self.threads, keep,
                                  self.properties.fairness))

    def _report(self, ordered: list[Any], outcome: str, analysis: FaultAnalysis | None,
                error: str = "") -> FaultsReport:
        result = analysis.result if analysis is not None else None
        reason = result.incomplete_reason if result is not None else ""
        if self.interrupted and not reason:
            reason = self._stop_reason()
        from model.versions import config_dict
        return FaultsReport(config_dict(self.config), outcome, ordered, self.configurations, self.sweeper.jobs,
                            self.stopped, result.stats if result is not None else None, reason, error, self.lattice,
                            self.unsettled, self.sweeper.engine,
                            result.engine if result is not None else self.sweeper.engine, self.reached,
                            bounds(self.config), self.sets_tried, self.sets_total, self.next_bound,
                            self.rows, self.properties.fairness)

    def _stop_reason(self) -> str:
        return self.failure or "interrupted (Ctrl-C)"

    def _outcome(self, ordered: list[Any], analysis: FaultAnalysis | None) -> str:
        """violated / passed as the modes and vectors say; incomplete whenever the exhaustive exploration
        was cut short (its minimal combinations are then not established) or Ctrl-C stopped a sweep."""
        if self.interrupted or (analysis is not None and not analysis.complete):
            return INCOMPLETE
        violated = any(isinstance(r, AlwaysReport) and r.status == "violated" for r in ordered)
        violated |= any(isinstance(r, GraphReport) and r.status == "violated" for r in ordered)
        if violated:
            return VIOLATED
        unknown = any(isinstance(r, GraphReport) and r.status == "unknown" for r in ordered)
        return INCOMPLETE if unknown else PASSED

    # -- step 1: one exhaustive exploration --------------------------------------------------------------
    def _always_report(self, p: Any, a: Any) -> AlwaysReport:
        pf = a.faults[p.name]
        status = "violated" if pf.violated_cells else ("holds" if a.complete else "unknown")
        rep = AlwaysReport(p.name, p.summary, status)
        for v in pf.minimal_combinations():
            rep.combinations.append(CombinationReport(v, a.trace_to(pf.violated_cells[v])))
        for m in pf.modes():
            trace = a.trace_to(m.source, m.action)
            rep.modes.append(ModeReport(m.kind, m.vector, trace, meaning(p.name, trace, self.profile)))
        return rep

    # -- the decision table: per durability setting, the smallest failure combinations breaking each -----
    def _decision_table(self) -> list[TableRow]:
        """One analysis (violating cells only) per pair of the mode's two table settings (4.4:
        ``broker_role`` x ``flush_disk_type``), the rest of the configuration as given, run as one sweep.
        The liveness properties (kind ``eventually``) will be columns too once the analysis checks them;
        today the columns are the always properties."""
        names = tuple(p.name for p in self.always)
        settings = self.profile.table_settings(self.config)
        configs = [changed(self.config, c) for c in settings]
        grown = self._grown_count()   # each row again at the next bound, to mark the verdicts that move there
        larger = [changed(cfg, {self.grow: grown}) for cfg in configs] if grown is not None else []
        if None in larger:
            grown = None
        labels = [change_label(c) for c in settings]
        tasks = [self._faults_task(cfg, names, False) for cfg in configs]
        if grown is not None:
            labels += [f"{label}, {self.grow}={grown}" for label in labels]
            tasks += [self._faults_task(cfg, names, False) for cfg in larger]
        sweep = self._sweep(tasks, f"decision table: one exploration {self.profile.table_title}"
                            + (f", and each at {self.grow}={grown}" if grown is not None else ""), labels)
        rows = []
        for i, setting in enumerate(settings):
            r = sweep.results[i]
            there = sweep.results[len(settings) + i] if grown is not None else None
            cells: dict[str, Any] = {}
            moves: dict[str, str] = {}
            for name in names:
                s = _settled(r, name)
                cells[name] = None if s is None else minimal(list(s.violated))
                t = _settled(there, name)
                if s is not None and t is not None and bool(s.violated) != bool(t.violated):
                    moves[name] = "violated" if t.violated else "holds"
            why = "" if r is None else (r.incomplete or r.error)
            rows.append(TableRow(setting, cells, tuple(r.reached) if r is not None else (), why, moves))
        return rows

    def _grown_count(self) -> int | None:
        """The grown count the next bound was explored at (``--grow``), None when it was not."""
        nb = self.next_bound or {}
        return nb["bounds"][self.grow] if "bounds" in nb and not nb.get("skipped") else None

    # -- the next bound: step 1 again with one more message (consumer, slave) -----------------------------
    def _next_bound(self, reports: list[AlwaysReport]) -> None:
        """Step 1 once more with ``grow`` one higher (same budgets, within the same limits), and per always
        property what changed: new and vanished minimal combinations and modes."""
        count = int(getattr(self.config, self.grow)) + 1
        grown = changed(self.config, {self.grow: count})
        self.next_bound = {"grow": self.grow}
        if grown is None:
            self.next_bound["skipped"] = f"{self.grow}={count} is beyond the model's range"
            return
        # (what it keeps is not read there: no eventually witness is decided)
        a = self._step1(grown, f"next bound: every state with {self.grow}={count}",
                        [w for w in self.witnesses if w.kind != EVENTUALLY])
        r = a.result
        self.next_bound.update(bounds=bounds(grown), distinct_states=r.stats.distinct_states,
                               transitions=r.stats.transitions, depth=r.stats.depth, seconds=r.stats.seconds)
        if r.error is not None or not a.complete:
            self.next_bound["skipped"] = r.error.message if r.error is not None else r.incomplete_reason
            return
        for rep in reports:
            there = self._always_report(self.properties.get(rep.name), a)
            nb = NextBound(there.status)
            here_combos = {c.vector for c in rep.combinations}
            there_combos = {c.vector for c in there.combinations}
            here_modes = {(m.kind, m.vector) for m in rep.modes}
            nb.combinations = [c for c in there.combinations if c.vector not in here_combos]
            nb.modes = [m for m in there.modes if (m.kind, m.vector) not in here_modes]
            nb.gone_combinations = [c.vector for c in rep.combinations if c.vector not in there_combos]
            nb.gone_modes = [(m.kind, m.vector) for m in rep.modes
                             if (m.kind, m.vector) not in {(x.kind, x.vector) for x in there.modes}]
            rep.at_next_bound = nb

    # -- step 2: the graph property per budget vector ----------------------------------------------------
    def _graph_report(self, p: Any) -> GraphReport:
        vectors = self.lattice.vectors()
        tasks = [Task(graph_task, (self._with_budgets(v), p.name, self.limits, self.memory, self.threads,
                                   self.properties.fairness)) for v in vectors]
        self._say(f"{p.name}: one exploration per budget vector ({len(tasks)})")
        sweep = self._sweep(tasks, f"step 2: {p.name} per budget vector",
                            [", ".join(f"{k}={c}" for k, c in zip(v.budget_knobs(), v) if c) or "no failure"
                             for v in vectors])
        rep = GraphReport(p.name, p.summary, kind=p.kind)
        for v, r in zip(vectors, sweep.results):
            if r is None or r.outcome in (INCOMPLETE, ERROR):
                rep.vectors.append(VectorReport(v, "unknown"))
                continue
            pr = r.property(p.name)
            rep.vectors.append(VectorReport(v, pr.status, pr.trace, pr.loop_start))
        return rep

    def _with_budgets(self, vector: Vector) -> Any:
        return type(self.config).from_mapping(dict(zip(vector.budget_knobs(), vector)), base=self.config)

    def _sweep(self, tasks: list[Task], phase: str, labels: list[str], closing: bool = False):
        """Run ``tasks`` (one exploration each, named by ``labels``), reporting each as it finishes."""
        done = self.progress.sweep(phase, labels) if self.progress is not None else None
        sweep = self.pool.run(tasks, done, stop_between=True)
        self.configurations += sweep.finished
        self.closing += sweep.finished if closing else 0
        self.interrupted |= sweep.interrupted
        self.failure = self.failure or sweep.failure
        return sweep

    # -- step 3: what closes each mode, and which switch sets make the property hold ---------------------
    def _close(self, reports: list[AlwaysReport]) -> None:
        names = tuple(r.name for r in reports)
        singles = [(c, changed(self.config, c)) for c in self.profile.single_changes(self.config)]
        singles = [(c, cfg) for c, cfg in singles if cfg is not None]
        if len(singles) > self.max_configs:
            self.stopped = f"--max-configs {self.max_configs} reached within the single changes"
            singles = singles[: self.max_configs]
        self._say(f"closing: {len(singles)} single changes")
        sweep = self._sweep([self._faults_task(cfg, names, True) for _, cfg in singles],
                            "step 3: what closes each mode, one change at a time",
                            [change_label(c) for c, _ in singles], True)
        answers = {_key(c): r for (c, _), r in zip(singles, sweep.results) if r is not None}
        for c, _ in singles:
            self._note_unsettled(c, answers.get(_key(c)))
        for rep in reports:
            for mode in rep.modes:
                for c, _ in singles:
                    r = answers.get(_key(c))
                    s = r.get(rep.name) if r is not None and not r.incomplete and not r.error else None
                    if s is None or s.breaks(mode.kind, mode.vector):
                        continue
                    costs = change_costs(self.config, c, self.reached, r.reached)
                    if costs:
                        mode.closed_at_a_cost.append(CostlyChange(self.profile.labelled(c), tuple(costs)))
                    else:
                        mode.closed_by.append(self.profile.labelled(c))
        if sweep.interrupted:
            self.stopped = self._stop_reason()
            return
        self._holds_with(reports, answers)

    def _note_unsettled(self, change: Change, r: ConfigFaults | None) -> None:
        """A closing exploration a limit or a model error cut short settles nothing: say which."""
        if r is not None and (r.incomplete or r.error):
            text = ", ".join(f"{k}={v}" for k, v in change.items())
            self.unsettled.append(f"{text}: {r.incomplete or 'model error: ' + r.error}")

    def _holds_with(self, reports: list[AlwaysReport], answers: dict[tuple, ConfigFaults]) -> None:
        settings = self.profile.setting_changes(self.config)
        names = tuple(r.name for r in reports)
        holding: dict[str, list[tuple[int, ...]]] = {r.name: [] for r in reports}
        costly: dict[str, list[tuple[tuple[int, ...], tuple[str, ...]]]] = {r.name: [] for r in reports}
        open_names = {r.name for r in reports if r.status == "violated"}

        def record(idx: tuple[int, ...], r: ConfigFaults | None) -> None:
            if r is None or r.incomplete or r.error:
                return
            costs = tuple(change_costs(self.config, _merged(settings, idx), self.reached, r.reached))
            for name in open_names:
                s = r.get(name)
                if s is not None and s.holds:
                    (costly[name].append((idx, costs)) if costs else holding[name].append(idx))

        for i, c in enumerate(settings):
            record((i,), answers.get(_key(c)))
        self.sets_tried = sum(1 for c in settings if _key(c) in answers)
        self.sets_total = sum(len(_sets(settings, n)) for n in range(1, len(settings) + 1))
        size = 1
        while True:
            open_names -= {n for n in open_names if holding[n]}
            size += 1
            if not open_names or size > len(settings):
                break
            candidates = _sets(settings, size)
            room = self.max_configs - self.closing
            if room <= 0:
                self.stopped = self.stopped or (f"--max-configs {self.max_configs} reached before sets of {size} changes "
                                f"({len(candidates)} to try)")
                break
            batch = candidates[:room]
            configs = [_combined(self.config, settings, idx) for idx in batch]
            self._say(f"closing: {len(batch)} sets of {size} changes")
            kept = [(idx, cfg) for idx, cfg in zip(batch, configs) if cfg is not None]
            sweep = self._sweep([self._faults_task(cfg, names, False) for _, cfg in kept],
                                f"step 4: sets of {size} changes a property holds with",
                                [change_label(_merged(settings, idx)) for idx, _ in kept], True)
            self.sets_tried += len(batch)
            results = iter(sweep.results)
            for idx, cfg in zip(batch, configs):
                if cfg is not None:
                    r = next(results)
                    record(idx, r)
                    self._note_unsettled(_merged(settings, idx), r)
            if sweep.interrupted:
                self.stopped = self._stop_reason()
                break
            if len(batch) < len(candidates):
                self.stopped = (f"--max-configs {self.max_configs} reached within sets of {size} changes "
                                f"({len(batch)} of {len(candidates)} tried)")
                open_names -= {n for n in open_names if holding[n]}
                break
        for rep in reports:
            smallest = min((len(h) for h in holding[rep.name]), default=0)
            for idx in sorted(h for h in holding[rep.name] if len(h) == smallest):
                rep.holds_with.append(self.profile.labelled(_merged(settings, idx)))
            # the costly sets no larger than the smallest clean one (all the smallest, when none is clean)
            cheapest = smallest or min((len(i) for i, _ in costly[rep.name]), default=0)
            for idx, costs in sorted(costly[rep.name]):
                if len(idx) <= cheapest:
                    rep.holds_at_a_cost.append(CostlyChange(self.profile.labelled(_merged(settings, idx)), costs))


def _settled(r: ConfigFaults | None, name: str) -> Any:
    """A sweep result's analysis of property ``name``, None where the exploration settled nothing."""
    return r.get(name) if r is not None and not r.incomplete and not r.error else None


def _merged(settings: list[Change], idx: tuple[int, ...]) -> Change:
    merged: Change = {}
    for i in idx:
        merged.update(settings[i])
    return merged


def _sets(settings: list[Change], size: int) -> list[tuple[int, ...]]:
    """The sets of ``size`` of the single changes that set each knob at most once (indices, in order)."""
    return [idx for idx in itertools.combinations(range(len(settings)), size)
            if len({k for i in idx for k in settings[i]}) == sum(len(settings[i]) for i in idx)]


def _key(change: Change) -> tuple:
    return tuple(sorted(change.items()))


def _combined(cfg: Any, settings: list[Change], idx: tuple[int, ...]) -> Any:
    return changed(cfg, _merged(settings, idx))

