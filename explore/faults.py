"""Failure modes: which combinations of failures break each always property, and through which step.

The six failure counters (master crashes, master power losses, slave crashes, slave power losses,
consumer restarts, HA disconnects) are fields of the state, only grow along a run, and their budgets act
only as ``counter < budget`` guards. So the states reachable under budgets ``v`` are exactly the states of
the full-budget space whose counters are ``<= v``, with the same BFS depths, and one exhaustive
exploration with the full budgets answers every smaller budget vector at once:

* per property and counter vector (a *cell* of the budget lattice), the shallowest violating state: the
  first stored index with that cell, since the explorer stores states level by level, each level sorted
  by key (the engines' canonical witness rule);
* per property, action kind and target cell, the shallowest *breaking transition* (source satisfies,
  target violates): sources scanned in stored order (level, then key), actions in index order.

Both passes are compiled and read what :class:`~explore.local.LocalExplorer` keeps with ``exhaustive``:
the stored states and every transition as an edge (the k-th edge of a state is its k-th enabled action).
Minimal combinations and modes are then order-theoretic minima over the (small) lattice, in Python.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

import numpy as np

from invariants.base import ALWAYS, EVENTUALLY, SOMETIMES, PropertySet

from .fairness import action_kind
from .fault_passes import breaking_transitions, check_states
from .local import LocalExplorer
from .run_control import Limits, Listener
from .result import HOLDS, REACHED, CheckResult, Trace
from .trace import replay

#: the failure kinds of a combination in the RocketMQ 4.4 model: JSON key, budget knob, packed field of the
#: counter (another mode's table: its profile, :mod:`explore.fault_profiles`)
FAILURE_KINDS: tuple[tuple[str, str, str], ...] = (
    ("master_crashes", "max_master_crashes", "failures.master_crashes"),
    ("master_power_losses", "max_master_power_losses", "failures.master_power_losses"),
    ("slave_crashes", "max_slave_crashes", "failures.slave_crashes"),
    ("slave_power_losses", "max_slave_power_losses", "failures.slave_power_losses"),
    ("consumer_restarts", "max_consumer_restarts", "failures.consumer_restarts"),
    ("ha_disconnects", "max_ha_disconnects", "failures.ha_disconnects"),
)
COMBINATION_KEYS = tuple(k for k, _, _ in FAILURE_KINDS)
BUDGET_KNOBS = tuple(b for _, b, _ in FAILURE_KINDS)


class Vector(tuple):
    """A count per failure kind: a combination of failures, a cell of the budget lattice. The class says
    whose kinds: this one the 4.4 model's; a mode with other kinds subclasses it with its own table, so a
    vector names its kinds wherever it goes (reports, JSON) and compares as the plain tuple it is."""

    __slots__ = ()
    KINDS: tuple[tuple[str, str, str], ...] = FAILURE_KINDS

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        return tuple(k for k, _, _ in cls.KINDS)

    @classmethod
    def budget_knobs(cls) -> tuple[str, ...]:
        return tuple(b for _, b, _ in cls.KINDS)


# -- the budget lattice ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Lattice:
    """Every counter vector ``<=`` the budgets, numbered in mixed radix (first kind fastest)."""

    budgets: Vector

    @classmethod
    def of(cls, config: Any) -> "Lattice":
        kind = vector_type(config)
        return cls(kind(int(getattr(config, knob)) for knob in kind.budget_knobs()))

    @property
    def size(self) -> int:
        return int(np.prod([b + 1 for b in self.budgets]))

    @property
    def strides(self) -> Vector:
        out, s = [], 1
        for b in self.budgets:
            out.append(s)
            s *= b + 1
        return tuple(out)

    def cell(self, vector: Sequence[int]) -> int:
        return sum(int(c) * s for c, s in zip(vector, self.strides))

    def vector(self, cell: int) -> Vector:
        return type(self.budgets)((cell // s) % (b + 1) for s, b in zip(self.strides, self.budgets))

    def vectors(self) -> list[Vector]:
        """Every vector of the lattice, in a fixed order (by total count, then lexicographically)."""
        ranges = [range(b + 1) for b in self.budgets]
        return sorted(map(type(self.budgets), itertools.product(*ranges)), key=lambda v: (sum(v), v))


def vector_type(config: Any) -> type[Vector]:
    """The :class:`Vector` class of ``config`` (its mode's profile's failure kinds, those of the mechanisms
    ``config`` enables)."""
    from model.modes import mode_of
    return mode_of(config).faults().vector_for(config)


def bounds(cfg: Any) -> dict[str, Any]:
    """What an answer rests on: the mode's counts (4.4: messages, consumers, queues, slaves) and the failure
    budgets (as a ``combination``: the most failures of each kind any run may have)."""
    from model.modes import mode_of
    counts = mode_of(cfg).faults().bound_knobs
    return {**{k: int(getattr(cfg, k)) for k in counts}, "budgets": combination(Lattice.of(cfg).budgets)}


def combination(vector: Vector) -> dict[str, int]:
    """A vector as the JSON ``combination`` (every key of its kinds, zeros included)."""
    return {key: int(c) for key, c in zip(vector.keys(), vector)}


def dominates(a: Sequence[int], b: Sequence[int]) -> bool:
    """``a >= b`` in every failure kind."""
    return all(x >= y for x, y in zip(a, b))


def minimal(vectors: Sequence[Vector]) -> list[Vector]:
    """The vectors of ``vectors`` no other one of them is strictly below, in lattice order."""
    vs = sorted(set(vectors), key=lambda v: (sum(v), v))
    out: list[Vector] = []
    for v in vs:
        if not any(dominates(v, m) for m in out):
            out.append(v)
    return out


def counter_fields(model: Any, lattice: Lattice) -> np.ndarray:
    """Per failure kind, where its counter sits in the packed layout and its lattice stride: rows of
    ``(word, shift, mask, stride)``; a counter whose budget is 0 has no bits (mask 0: it is 0)."""
    from model.modes import mode_of
    slot = mode_of(model.config).faults().counter_slot
    kinds = type(lattice.budgets).KINDS
    fields = np.zeros((len(kinds), 4), dtype=np.int64)
    for i, ((_, _, name), stride) in enumerate(zip(kinds, lattice.strides)):
        s = slot(model, name)
        if s is not None:
            word, shift, width = s
            fields[i] = (word, shift, (1 << width) - 1, stride)
    return fields


def counter_cells(model: Any, states: np.ndarray, lattice: Lattice) -> np.ndarray:
    """The lattice cell of every stored state, read from the counters' bit ranges of the packed layout."""
    cells = np.zeros(len(states), dtype=np.int64)
    for word, shift, mask, stride in counter_fields(model, lattice):
        if mask:
            counts = (states[:, word] >> np.uint64(shift)) & np.uint64(mask)
            cells += counts.astype(np.int64) * stride
    return cells


# -- the analysis ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Mode:
    """An action kind whose step breaks the property, with a combination minimal for that kind."""

    kind: str
    vector: Vector
    source: int          # stored index of the source of its shallowest breaking transition
    action: int          # action index of that transition


@dataclass
class PropertyFaults:
    """What one exhaustive exploration says about one always property."""

    name: str
    violated_cells: dict[Vector, int] = field(default_factory=dict)       # vector -> shallowest state
    breaking: dict[tuple[str, Vector], tuple[int, int]] = field(default_factory=dict)

    def minimal_combinations(self) -> list[Vector]:
        return minimal(list(self.violated_cells))

    def modes(self) -> list[Mode]:
        """Per action kind, the breaking transitions whose combination is minimal for that kind; in the
        order of their combinations, then kind."""
        by_kind: dict[str, list[Vector]] = {}
        for kind, vector in self.breaking:
            by_kind.setdefault(kind, []).append(vector)
        out = []
        for kind, vectors in by_kind.items():
            for v in minimal(vectors):
                src, act = self.breaking[(kind, v)]
                out.append(Mode(kind, v, src, act))
        return sorted(out, key=lambda m: (sum(m.vector), m.vector, m.kind))

    def breaks(self, kind: str, vector: Vector) -> bool:
        """Does a step of ``kind`` break the property with counters at most ``vector``?"""
        return any(k == kind and dominates(vector, v) for k, v in self.breaking)

    def summary(self) -> "FaultSummary":
        return FaultSummary(self.name, tuple(sorted(self.violated_cells)),
                            tuple(sorted(self.breaking)))


@dataclass(frozen=True)
class FaultSummary:
    """The picklable outcome of an analysis for one property: the violating cells and breaking pairs."""

    name: str
    violated: tuple[Vector, ...]
    breaking: tuple[tuple[str, Vector], ...]

    @property
    def holds(self) -> bool:
        return not self.violated

    def breaks(self, kind: str, vector: Vector) -> bool:
        return any(k == kind and dominates(vector, v) for k, v in self.breaking)


def reached_witnesses(witnesses: Sequence[Any], bits: np.ndarray, result: CheckResult) -> tuple[str, ...]:
    """The availability witnesses an exploration keeps: the state-observed ``sometimes`` ones some state's
    ``bits`` satisfy, and those it decided itself (:func:`explored_with`) as holding: the ``eventually``
    ones and the ``sometimes`` ones a transition witnesses."""
    held = {p.name for p in result.properties if p.status in (HOLDS, REACHED)}
    return tuple(w.name for w in witnesses
                 if w.kind == SOMETIMES and not w.on_transitions and bool(np.any(bits & np.uint64(w.mask)))
                 or w.name in held and (w.kind == EVENTUALLY or w.on_transitions))


def decided_in_run(witness: Any) -> bool:
    """Whether the exploration itself decides ``witness``: an ``eventually`` one (its pass needs the whole
    graph) or a ``sometimes`` one a transition witnesses (the passes over stored states see no edges)."""
    return witness.kind == EVENTUALLY or witness.kind == SOMETIMES and witness.on_transitions


def explored_with(properties: PropertySet, witnesses: Sequence[Any]) -> PropertySet:
    """What a failure-mode exploration itself checks: only the availability witnesses :func:`decided_in_run`
    (the passes over the stored states check everything else once). The exploration is exhaustive all the
    same: a witness seen early stops nothing."""
    return properties.only([w for w in witnesses if decided_in_run(w)])


class FaultAnalysis:
    """One exhaustive exploration with the full budgets, and what it says per always property; and which
    of ``witnesses`` (state-observed sometimes properties: the availability witnesses) it reaches."""

    def __init__(self, model: Any, properties: PropertySet, limits: Limits = Limits(),
                 listener: Listener | None = None, memory_budget: int | None = None,
                 modes: bool = True, threads: int = 1, witnesses: Sequence[Any] = ()) -> None:
        self.model = model
        self.modes = modes     # False: only the violating cells (the breaking-transition pass is skipped)
        self.properties = [p for p in properties if p.kind == ALWAYS]
        self.witnesses = tuple(witnesses)
        self.reached: tuple[str, ...] = ()
        self.lattice = Lattice.of(model.config)
        # the exploration checks nothing itself but the eventually witnesses: the passes below evaluate
        # every state once
        self.explorer = LocalExplorer(model, explored_with(properties, self.witnesses), limits, listener,
                                      memory_budget, exhaustive=True, threads=threads)
        self.state_check = properties.state_check
        self.result: CheckResult | None = None
        self.faults: dict[str, PropertyFaults] = {}

    @property
    def complete(self) -> bool:
        return self.result is not None and not self.result.incomplete_reason and self.result.error is None

    def run(self) -> "FaultAnalysis":
        ex = self.explorer
        ex.start()
        try:
            while ex.expand_next_level():
                pass
        except KeyboardInterrupt:   # Ctrl-C: what was explored is still analysed, as incomplete
            ex.incomplete = "interrupted (Ctrl-C)"
        finally:
            ex.close()
        self.result = ex.result()
        if self.result.error is not None:
            return self
        states = ex.stored_states()
        count = len(states)
        bits = np.zeros(count, dtype=np.uint64)
        check_states(self.state_check, self.model.params, states, count, bits)
        cells = counter_cells(self.model, states, self.lattice)
        self.reached = reached_witnesses(self.witnesses, bits[:count], self.result)
        self._violations(bits, cells)
        if self.modes and self.properties and not self.result.incomplete_reason:
            self._breaking(states, count, bits, cells)
        return self

    def _violations(self, bits: np.ndarray, cells: np.ndarray) -> None:
        for p in self.properties:
            pf = self.faults[p.name] = PropertyFaults(p.name)
            where = np.flatnonzero(bits & np.uint64(p.mask))
            if len(where) == 0:
                continue
            found, first = np.unique(cells[where], return_index=True)
            for c, i in zip(found, first):
                pf.violated_cells[self.lattice.vector(int(c))] = int(where[i])

    def _breaking(self, states: np.ndarray, count: int, bits: np.ndarray, cells: np.ndarray) -> None:
        ex = self.explorer
        actions = self.model.actions()
        kinds = sorted({action_kind(a) for a in actions})
        kind_of = np.array([kinds.index(action_kind(a)) for a in actions], dtype=np.int64)
        prop_bits = np.array([p.bit for p in self.properties], dtype=np.int64)
        shape = (len(self.properties), len(kinds), self.lattice.size)
        best_src = np.full(shape, -1, dtype=np.int64)
        best_act = np.full(shape, -1, dtype=np.int64)
        out = np.zeros((max(len(actions), 1), self.model.words), dtype=np.uint64)
        oflags = np.zeros(max(len(actions), 1), dtype=np.int64)
        breaking_transitions(self.model.successors, self.model.params, states, count, bits, cells,
                             (ex.store.row_start, ex.store.edges), prop_bits, kind_of, (out, oflags),
                             (best_src, best_act))
        for pi, p in enumerate(self.properties):
            pf = self.faults[p.name]
            for ki, c in zip(*np.nonzero(best_src[pi] >= 0)):
                pf.breaking[(kinds[ki], self.lattice.vector(int(c)))] = (int(best_src[pi, ki, c]),
                                                                         int(best_act[pi, ki, c]))

    # -- traces -----------------------------------------------------------------------------------------
    def trace_to(self, index: int, action: int = -1) -> Trace:
        """The canonical BFS path to stored state ``index`` (then ``action``), replayed through the model."""
        root, actions = self.explorer.path(index)
        if action >= 0:
            actions.append(action)
        return replay(self.model, self.explorer.store.states[root], actions)

    def depth(self, index: int) -> int:
        return self.explorer.level_of(index)

    def summaries(self) -> list[FaultSummary]:
        return [self.faults[p.name].summary() for p in self.properties]


def analyse(model: Any, properties: PropertySet, limits: Limits = Limits(),
            listener: Listener | None = None, memory_budget: int | None = None, threads: int = 1,
            witnesses: Sequence[Any] = ()) -> FaultAnalysis:
    """Explore ``model`` exhaustively with its full budgets and analyse every always property (and which
    of ``witnesses`` it reaches)."""
    return FaultAnalysis(model, properties, limits, listener, memory_budget, threads=threads,
                         witnesses=witnesses).run()


def iter_vectors_below(vector: Vector) -> Iterator[Vector]:
    """The vectors one below ``vector`` in exactly one kind."""
    for i, c in enumerate(vector):
        if c > 0:
            yield type(vector)(x - 1 if j == i else x for j, x in enumerate(vector))
