"""Eventually properties on Spark: ``P ~> Q`` under fairness over the transitions stored by partition, with
the local engine's verdicts and canonical lassos (the method and the lasso rule: :mod:`explore.liveness`).

The level jobs stored every transition into a state of partition ``q`` as a ``(target, source, action)``
row (``edges/part-Q/``; the action recorded by :func:`spark_explore.batch.insert_in_batch`). Then, after
the predecessor lists of :func:`spark_explore.reachability.prepare_partition`:

1. **Label** (one job): task ``q`` sends each transition to its source's owner; task ``r`` builds the
   successor lists of its states (in action order) and labels each state: its BFS level, the P / Q
   instance masks of every eventually property, and whether a run may stutter there (no fair action
   instance enabled).
2. **Trim** (one job a step; OWCTY): the candidates are the not-Q states, per property and instance (a
   bit each of one word per state, so every property is trimmed at once); each step removes the
   candidates with no candidate successor or no candidate predecessor, until a step removes nothing or at
   most :data:`CORE_LIMIT` candidates are left. What is left holds every strongly connected component with
   a cycle among not-Q states.
3. **Components** (the driver): the states left, with their successor lists, are gathered; the same
   compiled passes as the local engine (:func:`explore.liveness.fair_ends`: Tarjan, the weak / strong
   fairness test, Emerson and Lei's refinement) find the fair components, written back to the partitions.
4. **Doomed** (one job a step): backwards from the fair end states (stuttering ones and fair components'),
   through not-Q states, per property and instance; each step sends the states newly reached to their predecessors'
   owners.
5. **Trigger** (one job): per instance, the smallest (level, key) state where P holds and a fair end is
   reachable without Q; a property's smallest violated instance is its verdict's.

The lasso is then made in the driver: the stem's first part is the trigger's canonical path
(:meth:`spark_explore.workdir.WorkDir.path`); the breadth-first path from the trigger through not-Q states
to the first fair end met expands states with the model's compiled successors (the k-th enabled action is
the k-th edge, the order the local engine stores them in); the cycle is the local engine's
:func:`explore.liveness.fair_cycle` over the gathered component.

Every step reads and writes files in the work directory (``graph/part-Q/live-*``) under names carrying the
step, so a task Spark runs again rewrites the same bytes; a run stopped during the pass
does it again on ``--resume``, from the stored levels and transitions (as the graph properties' pass).
"""
from __future__ import annotations

import importlib
import shutil
from collections import deque
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator

import numpy as np

from explore.fair_graph import MAX_INSTANCES, label_states
from explore.liveness import Graph, Lasso, LiveVerdict, fair_cycle, fair_ends, result_of
from explore.result import PropertyResult
from explore.step import ENABLED

from .layout import graph_dir, graph_root
from .level_job import _signed, read_frontier
from .reachability import ReachJob, _load, _positions, _save, prepare_partition
from .shards import key_order, rows_by_owner

#: the gathered candidates: trimming goes on while more are left (a driver holds this many states'
#: successor lists at ease), and stops early once a step removes none
CORE_LIMIT = 200_000


@dataclass(frozen=True)
class LiveJob:
    """What every task of the eventually properties' jobs needs. Every property's instances are decided at
    once: property ``k``'s instance ``m`` is bit ``8 k + m`` of a state's word (at most 8 properties of at
    most :data:`MAX_INSTANCES` instances)."""

    base: ReachJob
    masks: tuple[str, str]        # import path of the compiled eventually_masks
    params: np.ndarray
    bits: tuple[int, ...]         # the eventually properties' bits (their P / Q at pq[:, 2k], pq[:, 2k + 1])
    fair: np.ndarray              # per action index, 1 when the action instance is fair
    instances: int = 0            # the instances whose P holds somewhere (a byte per property)
    step: int = 0


def _file(job: LiveJob, q: int, name: str):
    return graph_dir(job.base.root, q) / f"live-{name}.npy"


def _step_file(job: LiveJob, q: int, what: str, step: int):
    return _file(job, q, f"{what}-{step:05d}")


def _packed(pq: np.ndarray, col: int) -> np.ndarray:
    """Per state, property ``k``'s byte of column ``2 k + col`` (0: P, 1: Q) at bits ``8 k``.. ."""
    out = np.zeros(len(pq), np.uint64)
    for k in range(pq.shape[1] // 2):
        out |= pq[:, 2 * k + col].astype(np.uint64) << np.uint64(8 * k)
    return out


def _edge_ids(start: np.ndarray, sel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(edges, owners)``: the indices of the CSR entries of the states ``sel``, and each one's state."""
    lo, hi = start[sel], start[sel + 1]
    sizes = hi - lo
    ids = np.repeat(lo - np.cumsum(sizes) + sizes, sizes) + np.arange(sizes.sum())
    return ids.astype(np.int64), np.repeat(sel, sizes)


def _send(keys: np.ndarray, values: np.ndarray, parts: int, tag: int = 0) -> Iterator[tuple[int, Any]]:
    """``(owner, (tag, rows))`` of ``(key words, value)`` rows, one group per owner partition."""
    rows = np.hstack([keys, values.astype(np.uint64)[:, None]])
    for r, idx in enumerate(rows_by_owner(np.ascontiguousarray(keys), parts)):
        if len(idx):
            yield r, (tag, rows[idx])


def _arrivals(job: LiveJob, r: int, items: list[Any], n: int, tag: int = 0) -> np.ndarray:
    """Per state of ``r``, the OR of the values sent to it with ``tag``."""
    w = job.base.words
    rows = [v for _, (t, v) in items if t == tag]
    rows = np.concatenate(rows) if rows else np.empty((0, w + 1), np.uint64)
    rows = rows[key_order(np.ascontiguousarray(rows[:, :w]))]
    got = np.zeros(n, np.uint64)
    states = _load(graph_dir(job.base.root, r) / "states.npy")
    np.bitwise_or.at(got, _positions(np.ascontiguousarray(rows[:, :w]), states), rows[:, w])
    return got


def _not_q(job: LiveJob, q: int) -> np.ndarray:
    """Per state of ``q``, the instances (of those whose P holds somewhere) whose Q does not hold."""
    return ~_packed(_load(_file(job, q, "pq")), 1) & np.uint64(job.instances)


def _read(job: LiveJob, q: int, what: str, step: int) -> np.ndarray:
    return np.asarray(_load(_step_file(job, q, what, step)))


# -- 1. label ---------------------------------------------------------------------------------------------
def send_transitions(job: LiveJob, q: int) -> Iterator[tuple[int, np.ndarray]]:
    """Map: every transition into ``q`` as a ``(source, action, target)`` row, to its source's owner."""
    d = graph_dir(job.base.root, q)
    states, start = _load(d / "states.npy"), _load(d / "pred_start.npy")
    src = np.asarray(_load(d / "pred_src.npy"))
    act = np.asarray(_load(d / "pred_act.npy")).astype(np.int64)
    target = np.repeat(np.arange(len(states)), np.diff(start))
    rows = np.hstack([src, act.view(np.uint64)[:, None], states[target]])
    for r, idx in enumerate(rows_by_owner(np.ascontiguousarray(src), job.base.parts)):
        if len(idx):
            yield r, rows[idx]


def label_partition(job: LiveJob, r: int, items: Any) -> Iterator[list[int]]:
    """Reduce: the successor lists of ``r``'s states in action order, and each state's level, P / Q masks and
    whether a run may stutter there; returns, per property, the instances whose P holds in ``r``."""
    w, base = job.base.words, job.base
    d = graph_dir(base.root, r)
    rows = [v for _, v in items]
    rows = np.concatenate(rows) if rows else np.empty((0, 2 * w + 1), np.uint64)
    rows = rows[key_order(np.ascontiguousarray(rows[:, :w + 1]))]     # by source, then action
    states = np.array(_load(d / "states.npy"))   # writable: the compiled labelling takes no read-only array
    n = len(states)
    src = _positions(np.ascontiguousarray(rows[:, :w]), states)
    start = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=start[1:])
    act = rows[:, w].astype(np.int64)
    real = (rows[:, w + 1:] != rows[:, :w]).any(axis=1)      # a self-loop is no step
    stutter = np.ones(n, np.uint8)
    stutter[src[real & (job.fair[act] != 0)]] = 0
    level = np.zeros(n, np.int32)
    for lv in range(base.levels):
        keys, _ = read_frontier(base.root, lv, r, w)
        level[_positions(keys, states)] = lv
    masks = getattr(importlib.import_module(job.masks[0]), job.masks[1])
    pq = np.zeros((n, 2 * len(job.bits)), np.uint8)
    wide = label_states(masks, job.params, states, 0, n, np.asarray(job.bits, np.int64), pq, np.zeros(128, np.uint64))
    if wide >= 0:
        raise RuntimeError(f"an eventually property has more than {MAX_INSTANCES} instances")
    for name, arr in (("succ_start", start), ("succ_dst", rows[:, w + 1:]), ("succ_act", act.astype(np.int16)),
                      ("level", level), ("stutter", stutter), ("pq", pq)):
        _save(_file(job, r, name), arr)
    yield [int(np.bitwise_or.reduce(pq[:, 2 * k])) if n else 0 for k in range(len(job.bits))]


# -- 2. trim ----------------------------------------------------------------------------------------------
def trim_send(job: LiveJob, q: int) -> Iterator[tuple[int, Any]]:
    """Map: each candidate tells its predecessors' owners "a candidate successor" (tag 0) and its
    successors' owners "a candidate predecessor" (tag 1), for its instances."""
    d = graph_dir(job.base.root, q)
    states = _load(d / "states.npy")
    if job.step == 0:
        _save(_step_file(job, q, "alive", 0), _not_q(job, q))
    alive = _read(job, q, "alive", job.step)
    live = np.flatnonzero(alive)
    ids, owner = _edge_ids(np.asarray(_load(d / "pred_start.npy")), live)
    pred = np.asarray(_load(d / "pred_src.npy"))[ids]
    keep = (pred != states[owner]).any(axis=1)
    yield from _send(pred[keep], alive[owner[keep]], job.base.parts, 0)
    ids, owner = _edge_ids(np.asarray(_load(_file(job, q, "succ_start"))), live)
    succ = np.asarray(_load(_file(job, q, "succ_dst")))[ids]
    keep = (succ != states[owner]).any(axis=1)
    yield from _send(succ[keep], alive[owner[keep]], job.base.parts, 1)


def trim_receive(job: LiveJob, r: int, items: Any) -> Iterator[tuple[int, int]]:
    """Reduce: a candidate stays for the instances it has both a candidate successor and predecessor in;
    returns how many states lost an instance, and how many candidates are left."""
    items = list(items)
    alive = _read(job, r, "alive", job.step)
    new = alive & _arrivals(job, r, items, len(alive), 0) & _arrivals(job, r, items, len(alive), 1)
    _save(_step_file(job, r, "alive", job.step + 1), new)
    yield int(np.count_nonzero(new != alive)), int(np.count_nonzero(new))


def core_partition(job: LiveJob, q: int) -> Iterator[tuple[Any, ...]]:
    """The candidates left in ``q``: rows, keys, levels, instances, and their successor lists."""
    alive = _read(job, q, "alive", job.step)
    live = np.flatnonzero(alive)
    start = np.asarray(_load(_file(job, q, "succ_start")))
    ids, _ = _edge_ids(start, live)
    yield (q, live, np.asarray(_load(graph_dir(job.base.root, q) / "states.npy"))[live],
           np.asarray(_load(_file(job, q, "level")))[live], alive[live], start[live + 1] - start[live],
           np.asarray(_load(_file(job, q, "succ_act")))[ids], np.asarray(_load(_file(job, q, "succ_dst")))[ids])


# -- 3. components (driver) -------------------------------------------------------------------------------
@dataclass
class Core:
    """The trimmed candidates as one graph (index order: (level, key)), plus a last state standing for
    every state outside it; ``fair_comp[b]``: per state, its fair component for instance bit ``b`` (-1:
    none)."""

    graph: Graph
    keys: list[tuple[int, ...]]
    where: list[tuple[int, int]]          # (partition, row) of each state
    fair_comp: dict[int, np.ndarray]

    @staticmethod
    def of(parts: list[tuple[Any, ...]], fair: np.ndarray, strong: bool, instances: int) -> "Core":
        entries = []
        for q, rows, keys, levels, alive, counts, acts, dsts in parts:
            at = 0
            for i in range(len(rows)):
                c = int(counts[i])
                entries.append((int(levels[i]), _signed(keys[i]), q, int(rows[i]), int(alive[i]),
                                acts[at:at + c], dsts[at:at + c]))
                at += c
        entries.sort(key=lambda e: e[:2])
        n = len(entries)
        index = {e[1]: i for i, e in enumerate(entries)}
        row_start = np.zeros(n + 2, np.int64)
        row_start[1:n + 1] = np.cumsum([len(e[5]) for e in entries])
        row_start[n + 1] = row_start[n]
        edges = np.array([index.get(_signed(d), n) for e in entries for d in e[6]], np.int32)
        act = (np.concatenate([e[5] for e in entries]) if n else np.empty(0)).astype(np.int16)
        g = Graph(row_start, edges, act, fair, strong=strong)
        alive = np.array([e[4] for e in entries] + [0], np.uint64)
        fair_comp = {b: fair_ends(g, ((alive >> np.uint64(b)) & np.uint64(1)).astype(np.uint8))[1]
                     for b in range(64) if instances >> b & 1}
        return Core(g, [tuple(int(x) for x in np.asarray(e[1], np.int64).view(np.uint64)) for e in entries],
                    [(e[2], e[3]) for e in entries], fair_comp)

    def ends_by_partition(self, parts: int) -> list[np.ndarray]:
        """Per partition, ``(row, instances)`` of its states in a fair component."""
        got: list[list[tuple[int, int]]] = [[] for _ in range(parts)]
        for i, (q, row) in enumerate(self.where):
            bits = sum(1 << m for m, fc in self.fair_comp.items() if fc[i] >= 0)
            if bits:
                got[q].append((row, bits))
        return [np.array(g, np.uint64).reshape(-1, 2) for g in got]


# -- 4. doomed --------------------------------------------------------------------------------------------
def doom_send(job: LiveJob, q: int) -> Iterator[tuple[int, Any]]:
    """Map: the states of ``q`` doomed in the last step (at first, the fair end states) tell their
    predecessors' owners, for those instances."""
    d = graph_dir(job.base.root, q)
    states = _load(d / "states.npy")
    if job.step == 0:
        doomed = np.where(np.asarray(_load(_file(job, q, "stutter"))) != 0, _not_q(job, q), np.uint64(0))
        ends = np.asarray(_load(_file(job, q, "ends")))
        np.bitwise_or.at(doomed, ends[:, 0].astype(np.int64), ends[:, 1])
        _save(_step_file(job, q, "doomed", 0), doomed)
        delta = doomed
    else:
        delta = _read(job, q, "delta", job.step)
    new = np.flatnonzero(delta)
    ids, owner = _edge_ids(np.asarray(_load(d / "pred_start.npy")), new)
    pred = np.asarray(_load(d / "pred_src.npy"))[ids]
    keep = (pred != states[owner]).any(axis=1)
    yield from _send(pred[keep], delta[owner[keep]], job.base.parts)


def doom_receive(job: LiveJob, r: int, items: Any) -> Iterator[tuple[int, int]]:
    """Reduce: the not-Q instances of ``r``'s states newly doomed; returns how many states got one."""
    doomed = _read(job, r, "doomed", job.step)
    new = _arrivals(job, r, list(items), len(doomed)) & _not_q(job, r) & ~doomed
    _save(_step_file(job, r, "doomed", job.step + 1), doomed | new)
    _save(_step_file(job, r, "delta", job.step + 1), new)
    yield int(np.count_nonzero(new)), 0


# -- 5. trigger -------------------------------------------------------------------------------------------
def trigger_partition(job: LiveJob, q: int) -> Iterator[dict[int, tuple[int, tuple[int, ...]]]]:
    """Per violated instance bit, the smallest (level, signed key) of ``q`` where P holds and the state is
    doomed."""
    viol = _packed(_load(_file(job, q, "pq")), 0) & _read(job, q, "doomed", job.step)
    level = np.asarray(_load(_file(job, q, "level")))
    states = _load(graph_dir(job.base.root, q) / "states.npy")
    found = {}
    for b in range(64):
        rows = np.flatnonzero((viol >> np.uint64(b)) & np.uint64(1))
        if len(rows):
            i = rows[np.argmin(level[rows])]   # rows are in key order: the first of the lowest level
            found[b] = (int(level[i]), _signed(states[i]))
    yield found


# -- the driver side --------------------------------------------------------------------------------------
def _steps(sc: Any, job: LiveJob, what: str, send: Callable, receive: Callable, enough: int = -1) -> int:
    """Run ``send`` / ``receive`` steps until one changes nothing (or leaves at most ``enough`` states);
    returns the number of the step whose files hold the result."""
    nodes = sc.parallelize(range(job.base.parts), job.base.parts)
    step = 0
    while True:
        j = replace(job, step=step)
        sc.setJobDescription(f"rmqcheck eventually: {what}, step {step}")
        got = (nodes.mapPartitionsWithIndex(lambda q, _, j=j: send(j, q))
               .partitionBy(job.base.parts, lambda r: r)
               .mapPartitionsWithIndex(lambda r, items, j=j: receive(j, r, items))
               .collect())
        step += 1
        for q in range(job.base.parts):   # superseded by the step just done
            for name in ("alive", "doomed", "delta"):
                _step_file(job, q, name, step - 1).unlink(missing_ok=True)
        if sum(c for c, _ in got) == 0 or sum(left for _, left in got) <= enough:
            return step


class SparkLiveness:
    """Decides the eventually properties of a finished Spark run over its work directory."""

    def __init__(self, sc: Any, model: Any, props: Any, eventually: list[Any], base: ReachJob, path_to: Callable,
                 trace_of: Callable, core_limit: int | None = None) -> None:
        """``props``: the run's PropertySet (fairness, compiled masks), ``eventually``: its eventually
        properties; ``path_to((level, key))`` gives ``(root, actions)`` of a stored state's canonical path
        and ``trace_of(root, actions)`` the replayed trace."""
        from explore.fairness import fair_actions
        from invariants.base import STRONG
        if len(eventually) > 8:
            raise ValueError("the Spark engine decides at most 8 eventually properties in one run")
        self.sc, self.model, self.props, self.base = sc, model, props, base
        self.path_to, self.trace_of = path_to, trace_of
        self.fairness = props.fairness
        self.strong = self.fairness.mode == STRONG
        self.fair = fair_actions(model.actions(), self.fairness)
        self.core_limit = CORE_LIMIT if core_limit is None else core_limit
        py = getattr(props.eventually_masks, "py_func", props.eventually_masks)
        self.eventually = eventually
        self.job = LiveJob(base, (py.__module__, py.__name__), np.asarray(model.params, np.int64),
                           tuple(p.bit for p in self.eventually), self.fair)
        self.nodes = sc.parallelize(range(base.parts), base.parts)

    def decide(self) -> dict[str, PropertyResult]:
        sc, parts, job, base = self.sc, self.base.parts, self.job, self.base   # the tasks' closures take no self
        sc.setJobDescription("rmqcheck eventually: predecessor lists")
        self.nodes.mapPartitionsWithIndex(lambda q, _: prepare_partition(base, q)).collect()
        sc.setJobDescription("rmqcheck eventually: successor lists and labels")
        found = (self.nodes.mapPartitionsWithIndex(lambda q, _: send_transitions(job, q))
                 .partitionBy(parts, lambda r: r)
                 .mapPartitionsWithIndex(lambda r, items: label_partition(job, r, items)).collect())
        instances = 0
        for f in found:
            for k, p_bits in enumerate(f):
                instances |= p_bits << (8 * k)
        job = self.job = replace(job, instances=instances)
        best, core = self._triggers(job) if instances else ({}, None)
        results = {}
        for k, p in enumerate(self.eventually):
            if not instances >> (8 * k) & 0xFF:
                verdict = LiveVerdict(vacuous=True)
            else:
                violated = [b for b in best if 8 * k <= b < 8 * k + 8]
                verdict = LiveVerdict()
                if violated:
                    b = min(violated)
                    level, key = best[b]
                    verdict = LiveVerdict(b - 8 * k, self._lasso(p.bit, core, b, level, tuple(_u(x) for x in key)))
            results[p.name] = result_of(p, verdict, self.fairness, self.path_to, self.trace_of, self.model)
        return results

    def _triggers(self, job: LiveJob) -> tuple[dict[int, tuple[int, tuple[int, ...]]], "Core"]:
        """Per violated instance bit, its trigger (level, signed key); and the gathered core."""
        sc, parts = self.sc, self.base.parts
        last = _steps(sc, job, "trimming", trim_send, trim_receive, self.core_limit)
        sc.setJobDescription("rmqcheck eventually: components")
        core = Core.of(self.nodes.mapPartitionsWithIndex(lambda q, _, j=replace(job, step=last): core_partition(j, q))
                       .collect(), self.fair, self.strong, job.instances)
        for q, ends in enumerate(core.ends_by_partition(parts)):
            _save(_file(job, q, "ends"), ends)
        last = _steps(sc, job, "doomed states", doom_send, doom_receive)
        sc.setJobDescription("rmqcheck eventually: triggers")
        best: dict[int, tuple[int, tuple[int, ...]]] = {}
        found = self.nodes.mapPartitionsWithIndex(lambda q, _, j=replace(job, step=last): trigger_partition(j, q))
        for f in found.collect():
            for b, w in f.items():
                best[b] = min(best.get(b, w), w)
        return best, core

    def _lasso(self, bit: int, core: Core, b: int, level: int, trigger: tuple[int, ...]) -> Lasso:
        """The canonical lasso of instance bit ``b`` (of the property of ``bit``) from its trigger (module
        docstring): the breadth-first path through not-Q states to the first fair end, then the fair cycle
        through its component (none: it stutters)."""
        fc = core.fair_comp[b]
        m = b % 8
        where = {key: i for i, key in enumerate(core.keys)}
        masks, params = self.props.eventually_masks, self.model.params
        buf = np.zeros(128, np.uint64)
        expanded: dict[tuple[int, ...], list[tuple[int, tuple[int, ...]]]] = {}

        def steps(s):
            if s not in expanded:
                out, flags = self.model.expand(s)
                expanded[s] = [(a, tuple(int(x) for x in out[a])) for a in range(len(flags)) if flags[a] & ENABLED]
            return expanded[s]

        def stutters(s):
            return not any(self.fair[a] and d != s for a, d in steps(s))

        def not_q(s):
            masks(np.asarray(s, np.uint64), params, buf)
            return not int(buf[2 * bit + 1]) >> m & 1

        def end(s):
            return stutters(s) or (s in where and fc[where[s]] >= 0)

        stem: list[tuple[int, tuple[int, ...]]] = []
        if not end(trigger):
            via = {trigger: None}
            queue = deque([trigger])
            goal = None
            while queue and goal is None:
                s = queue.popleft()
                for a, d in steps(s):
                    if d in via or not not_q(d):
                        continue
                    via[d] = (s, a)
                    if end(d):
                        goal = d
                        break
                    queue.append(d)
            if goal is None:
                raise AssertionError("no fair end is reachable from the trigger through not-Q states")
            while via[goal] is not None:
                s, a = via[goal]
                stem.append((a, goal))
                goal = s
            stem.reverse()
        loop = stem[-1][1] if stem else trigger
        cycle = []
        if not stutters(loop):
            i = where[loop]
            cycle = [(a, core.keys[d]) for a, d in fair_cycle(core.graph, fc == fc[i], i)]
        return Lasso((level, trigger), stem, cycle)


def _u(x: int) -> int:
    return int(np.int64(x).view(np.uint64))


def decide_eventually_on_spark(sc: Any, model: Any, props: Any, eventually: list[Any], base: ReachJob,
                               path_to: Callable, trace_of: Callable, core_limit: int | None = None
                               ) -> dict[str, PropertyResult]:
    """The verdicts of the ``eventually`` properties over the work directory ``base.root`` (its ``graph/``
    files are removed once decided)."""
    results = SparkLiveness(sc, model, props, eventually, base, path_to, trace_of, core_limit).decide()
    shutil.rmtree(graph_root(base.root), ignore_errors=True)
    return results
