"""Eventually properties (leads-to, ``P ~> Q``) over the stored reachable graph, under fairness, with
lasso counterexamples (docs/liveness.md).

``P ~> Q`` fails exactly when some reachable state where P holds and Q does not starts a fair infinite run
that never meets Q. Such a run ends, for ever, either stuttering in one state where no fair action is
enabled (a terminal state is one), or going round a fair cycle. So, over the states where Q does not hold:

1. *fair end states*: the stuttering ones, and the states of *fair components*: strongly connected
   components (of the edges between not-Q states; a self-loop changes nothing and counts as no step) in
   which every fair action instance is, under weak fairness, taken on some edge inside or disabled in some
   state, or, under strong fairness, taken inside whenever it is enabled in any state; a component that
   fails the strong test loses the states that enable the offending actions and what is left is split
   again (Emerson and Lei's refinement) until the parts are fair or gone;
2. backwards from those, the not-Q states that can reach one without meeting Q;
3. the property fails iff a state where P holds is among them.

The pass uses only the stored graph (state indices, edges in action order) and the action of each edge,
so it gives the same verdict and the same lasso for every thread count. The local engine stores the action
of each edge while it explores when an eventually property is selected (two bytes an edge); a graph
stored without them has them recomputed with the model's compiled successors (the k-th edge of a state is
its k-th enabled action). The P / Q masks of every state are computed on every thread of the run, each
its own range of states. The component searches run on one thread.

The canonical lasso (docs/liveness.md): the smallest violated instance (message id); its trigger is the
smallest state index (BFS level, then key: the stored order) where P holds, Q does not and a fair end is
reachable without Q; the stem is the trigger's canonical shortest path, then the breadth-first shortest
path (edges met in action order) through not-Q states to the first fair end state met. If that state may
stutter, the lasso stutters there; otherwise the cycle starts there and, for the fair actions in index
order that the cycle built so far does not yet satisfy, walks (breadth-first, inside the component) to the
nearest state where the action is disabled (weak fairness only) or from which it stays inside the
component, and takes it; then it walks back to its start (under strong fairness, again while the states
it passed enable an action not yet taken).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from invariants.base import EVENTUALLY, STRONG, Fairness, Property

from .fair_graph import (MAX_INSTANCES, NO_COMPONENT, components, judge_components, label_edges,  # noqa: F401
                         label_states, may_stutter, reach_backwards, shortest_path)
from .fairness import fair_actions
from .result import HOLDS, S_VIOLATED, PropertyResult
from .step import ENABLED

# -- one instance of P ~> Q on a labelled graph -------------------------------------------------------
@dataclass
class Graph:
    """The reachable graph as the pass reads it: CSR successors (``edges[row_start[s]:row_start[s+1]]``,
    in action order), the action of each edge, and which action instances are fair."""

    row_start: np.ndarray
    edges: np.ndarray
    act: np.ndarray
    fair: np.ndarray
    strong: bool = False
    n: int = field(init=False)                  # states
    stutter: np.ndarray = field(init=False)     # per state: a run may stay there for ever (may_stutter)

    def __post_init__(self) -> None:
        self.n = len(self.row_start) - 1
        self.stutter = may_stutter(self.row_start, self.edges, self.act, self.fair, self.n)

    def fair_enabled(self, s: int) -> list[int]:
        """The fair action instances enabled in state ``s``, ascending."""
        lo, hi = self.row_start[s], self.row_start[s + 1]
        return sorted({int(a) for a, d in zip(self.act[lo:hi], self.edges[lo:hi]) if d != s and self.fair[a]})

    def step(self, e: int) -> tuple[int, int]:
        """``(action, destination)`` of edge ``e``."""
        return int(self.act[e]), int(self.edges[e])


@dataclass
class Lasso:
    """A counterexample to ``P ~> Q``: from ``trigger`` (P holds, Q does not) the ``stem`` (steps as
    ``(action, state)``) to the cycle's first state, then the ``cycle`` back to it (empty: stutter there for
    ever)."""

    trigger: int
    stem: list[tuple[int, int]]
    cycle: list[tuple[int, int]]

    @property
    def loop_state(self) -> int:
        return self.stem[-1][1] if self.stem else self.trigger


def fair_ends(g: Graph, not_q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(stutter, fair_comp)`` over the not-Q states: the states that may stutter for ever, and each
    state's fair component number (-1: in none)."""
    alive = not_q.astype(np.uint8)
    fair_comp = np.full(g.n, NO_COMPONENT, np.int32)
    comp = np.empty(g.n, np.int32)
    next_id = 0
    nact = max(int(g.act.max()) + 1 if len(g.act) else 1, len(g.fair))
    while alive.any():
        ncomp = components(g.row_start, g.edges, alive, comp)
        next_id = judge_components(g.row_start, g.edges, g.act, g.fair, comp, ncomp, alive, g.strong, fair_comp,
                                   next_id, nact)
    return g.stutter & not_q.astype(np.uint8), fair_comp


def leads_to_violation(g: Graph, p: np.ndarray, q: np.ndarray) -> tuple[Lasso | None, bool]:
    """Check ``P ~> Q`` (boolean arrays over the states): ``(lasso, vacuous)``; the lasso is None when the
    property holds, ``vacuous`` when P holds nowhere."""
    if not p.any():
        return None, True
    not_q = (~q).astype(np.uint8)
    stutter, fair_comp = fair_ends(g, not_q)
    end = stutter | (fair_comp >= 0)
    doomed = reach_backwards(g.row_start, g.edges, not_q, end.astype(np.uint8))
    triggers = np.flatnonzero(p & doomed.astype(bool))
    if len(triggers) == 0:
        return None, False
    t = int(triggers[0])
    _, path = shortest_path(g.row_start, g.edges, not_q, t, end.astype(np.uint8))
    stem = [g.step(int(e)) for e in path]
    loop = stem[-1][1] if stem else t
    cycle = [] if stutter[loop] else fair_cycle(g, fair_comp == fair_comp[loop], loop)
    return Lasso(t, stem, cycle), False


def fair_cycle(g: Graph, inside: np.ndarray, start: int) -> list[tuple[int, int]]:
    """A fair cycle from ``start`` through the fair component ``inside`` (the rule of the module docstring),
    as ``(action, state)`` steps ending at ``start``."""
    allowed = inside.astype(np.uint8)
    members = np.flatnonzero(inside)
    lo, hi = g.row_start[members], g.row_start[members + 1]
    sizes = hi - lo
    edge_ids = np.repeat(lo - np.cumsum(np.concatenate(([0], sizes[:-1]))), sizes) + np.arange(sizes.sum())
    src = np.repeat(members, sizes)
    dst = g.edges[edge_ids]
    acts = g.act[edge_ids]
    real = dst != src
    steps: list[tuple[int, int]] = []
    visited = {start}
    taken: set[int] = set()
    cur = start

    def unsatisfied() -> int | None:
        if g.strong:
            need = {a for s in visited for a in g.fair_enabled(s)} - taken
        else:
            need = set(g.fair_enabled(start)) - taken
            need = {a for a in need if all(a in g.fair_enabled(s) for s in visited)}
        return min(need) if need else None

    def walk(goal: np.ndarray) -> None:
        nonlocal cur
        found, path = shortest_path(g.row_start, g.edges, allowed, cur, goal.astype(np.uint8))
        if not found:
            raise AssertionError("the fair component is not strongly connected")
        for e in path:
            a, d = g.step(int(e))
            steps.append((a, d))
            visited.add(d)
            cur = d

    def take(a: int) -> None:
        nonlocal cur
        for e in range(g.row_start[cur], g.row_start[cur + 1]):
            if g.act[e] == a and inside[g.edges[e]] and g.edges[e] != cur:
                steps.append(g.step(e))
                taken.add(a)
                cur = int(g.edges[e])
                visited.add(cur)
                return
        raise AssertionError("no edge inside the component takes the action")

    while True:
        a = unsatisfied()
        if a is None:
            if cur == start and steps:
                return steps
            at_start = np.zeros(g.n, bool)
            at_start[start] = True
            walk(at_start)
            if unsatisfied() is None:
                return steps
            continue
        sel = real & (acts == a)
        internal = np.zeros(g.n, bool)
        internal[src[sel & inside[dst]]] = True
        goal = internal
        if not g.strong:
            enabled = np.zeros(g.n, bool)
            enabled[src[sel]] = True
            goal = internal | (inside & ~enabled)
        walk(goal)
        if a in g.fair_enabled(cur):
            take(a)


# -- the properties of a run ---------------------------------------------------------------------------
@dataclass
class LiveVerdict:
    """An eventually property's verdict on the graph: the lasso of its smallest violated instance."""

    instance: int = -1
    lasso: Lasso | None = None
    vacuous: bool = False


def decide(g: Graph, p_masks: np.ndarray, q_masks: np.ndarray) -> LiveVerdict:
    """``P(m) ~> Q(m)`` for every instance bit ``m`` set in some P mask, smallest first; stops at the first
    violated one."""
    instances = int(np.bitwise_or.reduce(p_masks)) if len(p_masks) else 0
    if instances == 0:
        return LiveVerdict(vacuous=True)
    for m in range(MAX_INSTANCES):
        if not instances >> m & 1:
            continue
        bit = p_masks.dtype.type(1 << m)
        lasso, _ = leads_to_violation(g, (p_masks & bit) != 0, (q_masks & bit) != 0)
        if lasso is not None:
            return LiveVerdict(m, lasso)
    return LiveVerdict()


def label_graph(model: Any, props: list[Property], eventually_masks: Any, states: np.ndarray,
                row_start: np.ndarray, threads: int = 1,
                act: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(act, pq)``: the action of every edge (``act`` when the engine stored them, else recomputed by
    :func:`label_edges`) and the P / Q masks of every state (:func:`label_states`), the states cut into
    ``threads`` ranges labelled at once (each writes only its own states and edges)."""
    from concurrent.futures import ThreadPoolExecutor
    count = len(states)
    nact = len(model.actions())
    known = act is not None
    act = act[:int(row_start[count])] if known else np.zeros(int(row_start[count]), np.int16)
    bits = np.array([p.bit for p in props], np.int64)
    pq = np.zeros((count, 2 * len(props)), np.uint8)
    threads = max(1, min(threads, count // 4096 or 1))

    def label(t: int) -> tuple[int, int]:
        lo, hi = count * t // threads, count * (t + 1) // threads
        unmatched = -1
        if not known:
            out = np.zeros((max(nact, 1), states.shape[1]), np.uint64)
            oflags = np.zeros(max(nact, 1), np.int64)
            unmatched = label_edges(model.successors, model.params, states, lo, hi, row_start, act, out, oflags)
        return unmatched, label_states(eventually_masks, model.params, states, lo, hi, bits, pq,
                                       np.zeros(128, np.uint64))

    if threads == 1:
        found = [label(0)]
    else:
        with ThreadPoolExecutor(threads) as pool:
            found = list(pool.map(label, range(threads)))
    unmatched, wide = max(u for u, _ in found), max(w for _, w in found)
    if unmatched >= 0:
        raise RuntimeError(f"state {unmatched}: its enabled actions do not match its stored edges")
    if wide >= 0:
        raise RuntimeError(f"state {wide}: an eventually property has more than {MAX_INSTANCES} instances")
    return act, pq


def decide_properties(model: Any, props: list[Property], fairness: Fairness, eventually_masks: Any,
                      states: np.ndarray, row_start: np.ndarray, edges: np.ndarray,
                      path_to: Callable[[int], tuple[int, list[int]]], trace_of: Callable[..., Any],
                      threads: int = 1, edge_act: np.ndarray | None = None) -> dict[str, PropertyResult]:
    """Verdicts of the eventually properties ``props`` over the stored graph (``states``, CSR
    ``row_start`` / ``edges``, and the action of each edge when stored: ``edge_act``): ``path_to(i)`` gives
    ``(root, actions)`` of state ``i``'s canonical path and ``trace_of(root, actions)`` the replayed trace;
    the states are labelled on ``threads`` threads."""
    count = len(states)
    act, pq = label_graph(model, props, eventually_masks, states, row_start, threads, edge_act)
    g = Graph(row_start[:count + 1], edges[:int(row_start[count])], act, fair_actions(model.actions(), fairness),
              strong=fairness.mode == STRONG)
    results = {}
    for k, p in enumerate(props):
        verdict = decide(g, pq[:, 2 * k], pq[:, 2 * k + 1])
        results[p.name] = result_of(p, verdict, fairness, path_to, trace_of, model)
    return results


def result_of(p: Property, verdict: LiveVerdict, fairness: Fairness, path_to, trace_of, model) -> PropertyResult:
    """The :class:`PropertyResult` of a verdict: a violated one carries the lasso's trace and ``loop_start``."""
    assert p.kind == EVENTUALLY
    if verdict.lasso is None:
        note = "holds vacuously: its trigger never occurs" if verdict.vacuous else ""
        return PropertyResult(p.name, p.kind, HOLDS, p.summary, note=note, fairness=fairness)
    lasso = verdict.lasso
    root, actions = path_to(lasso.trigger)
    trigger_at = len(actions)
    actions = actions + [a for a, _ in lasso.stem]
    loop_start = len(actions)
    actions += [a for a, _ in lasso.cycle]
    trace = trace_of(root, actions)
    which = f"{p.instance_name(verdict.instance)}: " if p.instance_name(verdict.instance) else ""
    repeat = (f"the cycle of steps {loop_start + 1}-{len(actions)} repeats for ever" if lasso.cycle
              else f"the run stays at step {loop_start} for ever")
    note = f"{which}triggered at step {trigger_at}, never followed by its goal; {repeat} ({fairness.describe()})"
    return PropertyResult(p.name, p.kind, S_VIOLATED, p.summary, trace, note=note, loop_start=loop_start,
                          fairness=fairness)


def decide_on_explorer(explorer: Any) -> dict[str, PropertyResult]:
    """The local engine's eventually verdicts, from its stored graph once exploration is over (unknown when
    it stopped early or failed: the pass needs the whole reachable graph)."""
    from .trace import replay
    from .result import UNKNOWN
    props = explorer.tracker.eventually
    if explorer.incomplete or explorer.error is not None:
        return {p.name: PropertyResult(p.name, p.kind, UNKNOWN, p.summary, note="needs the whole reachable graph")
                for p in props}
    store = explorer.store
    states = store.states[:store.count]
    return decide_properties(explorer.model, props, explorer.props.fairness, explorer.props.eventually_masks,
                             states, store.row_start, store.edges, explorer.path,
                             lambda root, actions: replay(explorer.model, states[root], actions), explorer.threads,
                             store.edge_act if store.labels else None)


def lasso_fault(model: Any, prop: Property, states: list[tuple[int, ...]], actions: list[int], loop_start: int,
                fairness: Fairness, eventually_masks: Any) -> str:
    """Why the lasso through ``states`` (``actions[i]`` leads from ``states[i]`` to ``states[i + 1]``), repeating
    from ``loop_start``, is no counterexample to ``prop`` under ``fairness`` ("" when it is one): it must
    close (its last state is the state at ``loop_start``), some instance's P must hold at a step after which
    its Q never holds, and its cycle must be fair (a stuttering end: no fair action enabled there)."""
    last = len(states) - 1
    if not 0 <= loop_start <= last or states[loop_start] != states[last]:
        return f"the last state is not the state of step {loop_start}: the cycle does not close"
    masks = np.zeros(128, np.uint64)
    p_at, q_at = [], []
    for s in states:
        eventually_masks(np.asarray(s, dtype=np.uint64), model.params, masks)
        p_at.append(int(masks[2 * prop.bit]))
        q_at.append(int(masks[2 * prop.bit + 1]))
    # an instance whose P holds at some step from which on (through the cycle) its Q never holds
    never_q = ~0
    shown = 0
    for i in range(last, -1, -1):
        never_q &= ~q_at[i]
        shown |= p_at[i] & never_q
    if not shown:
        return "no step is followed, for ever, by states where the goal does not hold"
    fair = fair_actions(model.actions(), fairness)
    cycle = range(loop_start, last + 1) if loop_start < last else range(last, last + 1)
    enabled = []
    for i in cycle:
        state = np.asarray(states[i], dtype=np.uint64)
        out, flags = model.expand(tuple(states[i]))
        enabled.append({a for a in range(len(fair)) if fair[a] and flags[a] & ENABLED
                        and not np.array_equal(np.asarray(out[a], dtype=np.uint64), state)})
    taken = {actions[i] for i in range(loop_start, last)}
    names = model.actions()
    if loop_start == last:
        unfair = enabled[0]
        why = "the run stays in a state where {} is enabled"
    elif fairness.mode == STRONG:
        unfair = set().union(*enabled) - taken
        why = "{} is enabled on the cycle but never taken"
    else:
        unfair = set.intersection(*enabled) - taken
        why = "{} is enabled in every state of the cycle but never taken"
    if unfair:
        return "the cycle is not fair: " + why.format(names[min(unfair)])
    return ""
