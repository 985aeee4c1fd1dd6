"""The eventually pass (explore/liveness.py) against a reference written plainly with networkx, on random
labelled graphs with random P, Q, enabledness and fair actions, under weak and strong fairness, with
unfair actions and without fairness: the same verdict, and every lasso the pass reports is valid (it
follows labelled edges from the trigger, P holds at the trigger, Q never from there on, it closes, and its
cycle is fair)."""
from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from explore.liveness import Graph, leads_to_violation

CASES = 240


def random_graph(rng: np.random.Generator):
    """States 0..n-1 (all reachable from 0), each action instance enabled with some probability and going to
    a random state (sometimes itself: a self-loop, which is no step); edges in action order."""
    n = int(rng.integers(1, 11))
    nact = int(rng.integers(1, 5))
    p_enabled = rng.uniform(0.2, 0.8)
    succ = []
    for s in range(n):
        row = []
        for a in range(nact):
            if rng.random() < p_enabled:
                row.append((a, int(rng.integers(n))))
        succ.append(row)
    # keep what state 0 reaches, renumbered breadth-first
    order, seen = [0], {0}
    for s in order:
        for _, d in succ[s]:
            if d not in seen:
                seen.add(d)
                order.append(d)
    new = {s: i for i, s in enumerate(order)}
    rows = [[(a, new[d]) for a, d in succ[s]] for s in order]
    row_start = np.zeros(len(rows) + 1, np.int64)
    row_start[1:] = np.cumsum([len(r) for r in rows])
    edges = np.array([d for r in rows for _, d in r], np.int32)
    act = np.array([a for r in rows for a, _ in r], np.int16)
    return rows, row_start, edges, act, nact


def enabled(rows, s, fair):
    return {a for a, d in rows[s] if d != s and fair[a]}


def reference(rows, p, q, fair, strong: bool) -> bool:
    """Whether ``P ~> Q`` is violated: some P and not-Q state reaches, through not-Q states, a state that may
    stutter for ever or a fair strongly connected part of the not-Q states."""
    n = len(rows)
    not_q = [s for s in range(n) if not q[s]]
    g = nx.DiGraph()
    g.add_nodes_from(not_q)
    g.add_edges_from((s, d) for s in not_q for _, d in rows[s] if d != s and not q[d])
    ends = {s for s in not_q if not enabled(rows, s, fair)}

    def fair_parts(states):
        for comp in nx.strongly_connected_components(g.subgraph(states)):
            if len(comp) < 2:
                continue
            inside = {a for s in comp for a, d in rows[s] if d != s and d in comp and fair[a]}
            somewhere = set().union(*(enabled(rows, s, fair) for s in comp))
            everywhere = set.intersection(*(enabled(rows, s, fair) for s in comp))
            bad = (somewhere if strong else everywhere) - inside
            if not bad:
                yield comp
            elif strong:
                yield from fair_parts({s for s in comp if not enabled(rows, s, fair) & bad})

    for comp in fair_parts(set(not_q)):
        ends |= comp
    return any(p[s] and not q[s] and (s in ends or nx.descendants(g, s) & ends) for s in range(n))


def check_lasso(rows, p, q, fair, strong, lasso) -> None:
    t = lasso.trigger
    assert p[t] and not q[t]
    walk = [t]
    for a, d in lasso.stem + lasso.cycle:
        assert (a, d) in rows[walk[-1]], "the lasso follows a labelled edge"
        assert d != walk[-1], "a self-loop is no step"
        walk.append(d)
    assert not any(q[s] for s in walk), "Q never holds after the trigger"
    loop = lasso.loop_state
    assert walk[len(lasso.stem)] == loop
    if not lasso.cycle:
        assert not enabled(rows, loop, fair), "a state the run stutters in for ever enables no fair action"
        return
    assert walk[-1] == loop, "the cycle closes"
    states = walk[len(lasso.stem):]
    taken = {a for a, _ in lasso.cycle}
    if strong:
        assert set().union(*(enabled(rows, s, fair) for s in states)) <= taken
    else:
        assert set.intersection(*(enabled(rows, s, fair) for s in states)) <= taken


@pytest.mark.parametrize("mode", ["weak", "strong", "unfair", "none"])
def test_pass_agrees_with_reference(mode):
    rng = np.random.Generator(np.random.PCG64(["weak", "strong", "unfair", "none"].index(mode)))
    violated = 0
    for _ in range(CASES):
        rows, row_start, edges, act, nact = random_graph(rng)
        n = len(rows)
        fair = np.ones(nact, np.uint8)
        if mode == "unfair":
            fair = (rng.random(nact) < 0.6).astype(np.uint8)
        elif mode == "none":
            fair[:] = 0
        strong = mode == "strong"
        p = rng.random(n) < 0.4
        q = rng.random(n) < 0.4
        g = Graph(row_start, edges, act, fair, strong=strong)
        lasso, vacuous = leads_to_violation(g, p, q)
        expected = reference(rows, p, q, fair, strong)
        assert (lasso is not None) == expected, (rows, p, q, fair)
        assert vacuous == (not p.any())
        if lasso is not None:
            violated += 1
            check_lasso(rows, p, q, fair, strong, lasso)
            assert lasso.trigger == min(s for s in range(n) if p[s] and not q[s]
                                        and reference(rows, [x == s for x in range(n)], q, fair, strong))
    # both verdicts well represented
    assert CASES // 5 < violated < CASES * 4 // 5


def test_a_trigger_that_never_occurs_holds_vacuously_and_says_so():
    from explore.liveness import LiveVerdict, decide, result_of
    from invariants import PROPERTIES, Fairness
    rows, row_start, edges, act, nact = random_graph(np.random.Generator(np.random.PCG64(7)))
    g = Graph(row_start, edges, act, np.ones(nact, np.uint8))
    n = len(rows)
    verdict = decide(g, np.zeros(n, np.uint8), np.zeros(n, np.uint8))
    assert verdict == LiveVerdict(vacuous=True)
    prop = PROPERTIES.get("acked_message_eventually_consumed")
    r = result_of(prop, verdict, Fairness(), None, None, None)
    assert r.status == "holds" and "vacuously" in r.note
    # a trigger that occurs where the goal holds too is no vacuous verdict
    verdict = decide(g, np.ones(n, np.uint8), np.ones(n, np.uint8))
    assert verdict == LiveVerdict() and result_of(prop, verdict, Fairness(), None, None, None).note == ""
