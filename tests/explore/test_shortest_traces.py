"""The explorer against an independent reference: the whole reachable graph built in Python.

For tiny RocketMQ configurations the reference (``reachable_graph.py``) gives the counts, each property's
verdict from the graph itself, the shortest distance to a witness (networkx) and the canonical trace the
kernel's rules must produce. The explorer must match all of it, whether it checks every property at once
(the whole graph is explored) or one at a time (early stop, violating states left unexpanded).

The eventually properties, in the default selection too, are compared with a reference of their own
(test_liveness_reference.py: networkx components and a direct fairness check on random labelled graphs);
here they only ride along in the whole-graph run.
"""
from __future__ import annotations

import functools
from typing import Any

import networkx as nx
import numpy as np
import pytest

from reachable_graph import ReachableGraph

from explore import explore
from explore.trace import replay
from invariants import ALWAYS, EVENTUALLY, GRAPH, PROPERTIES
from model import RocketMQModel
from tests.tooling.pinned import group


#: the properties the reference graph decides: every kind but eventually
DECIDED = [p.name for p in PROPERTIES if p.kind != EVENTUALLY]

#: the pinned table's reference group (tests/tooling/pinned.toml), by the name without its "reference-" prefix
CONFIGS = {e.name.removeprefix("reference-"): e for e in group("reference")}


@functools.lru_cache(maxsize=None)
def reference(name: str) -> tuple[RocketMQModel, ReachableGraph]:
    m = RocketMQModel(CONFIGS[name].config(), mutation=CONFIGS[name].mutation)
    return m, ReachableGraph.build(m)


@functools.lru_cache(maxsize=None)
def checked(name: str, prop: str | None = None):
    m, _ = reference(name)
    return explore(m, PROPERTIES.select([prop]) if prop else PROPERTIES)


@functools.lru_cache(maxsize=None)
def bits_of(name: str) -> dict[tuple[int, ...], int]:
    return reference(name)[1].state_bits(PROPERTIES)


def expected(name: str, prop: str) -> tuple[str, list[int] | None, Any]:
    """``(status, canonical action indices, end of the witness)`` of ``prop`` according to the graph."""
    _, g = reference(name)
    p = PROPERTIES.get(prop)
    bits = bits_of(name)
    marked = {s for s, b in bits.items() if b & p.mask}
    if p.kind == GRAPH:
        witness = g.first_state_witness(g.cannot_reach(marked))
        return ("violated", g.canonical_path(witness), witness) if witness else ("holds", None, None)
    if p.on_transitions:
        edge = g.first_transition_witness([e for e in g.edges if g.transition_bits(PROPERTIES, e) & p.mask])
        if edge is None:
            return "unreached", None, None
        return "reached", g.canonical_path(edge.source) + [edge.action], edge
    witness = g.first_state_witness(marked)
    if witness is None:
        return ("holds" if p.kind == ALWAYS else "unreached"), None, None
    return ("violated" if p.kind == ALWAYS else "reached"), g.canonical_path(witness), witness


@pytest.mark.parametrize("name", CONFIGS)
def test_golden_counts_match_the_reference_graph(name):
    _, g = reference(name)
    r = checked(name)
    golden = CONFIGS[name].counts
    assert (g.distinct, g.transitions, g.depth) == golden
    assert (r.stats.distinct_states, r.stats.transitions, r.stats.depth) == golden
    assert sum(r.stats.levels) == g.distinct
    assert r.stats.levels == [sum(1 for d in g.distance.values() if d == level) for level in range(g.depth + 1)]


@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize("prop", DECIDED)
def test_verdict_and_shortest_trace_match_the_reference(name, prop):
    m, g = reference(name)
    status, actions, end = expected(name, prop)
    for r in (checked(name), checked(name, prop)):
        result = r.property(prop)
        assert result.status == status
        if actions is None:
            assert result.trace is None
            continue
        trace = result.trace
        assert [s.action_index for s in trace.steps[1:]] == actions
        # the trace is a real path: replaying its actions gives the same states
        again = replay(m, g.root, actions, expected=[s.state for s in trace.steps[1:]])
        assert [s.state for s in again.steps] == [s.state for s in trace.steps]
        assert trace.steps[0].state == g.root
        if PROPERTIES.get(prop).on_transitions:
            assert len(trace) == nx.shortest_path_length(g.graph, g.root, end.source) + 1
            assert trace.steps[-2].state == end.source and trace.steps[-1].state == end.target
        else:
            assert len(trace) == nx.shortest_path_length(g.graph, g.root, end)
            assert trace.steps[-1].state == end


@pytest.mark.parametrize("name", ["master-power-loss", "replica-skips-entry"])
def test_graph_violation_ends_where_no_catch_up_is_reachable_at_minimum_depth(name):
    m, g = reference(name)
    r = checked(name)
    trace = r.property("replication_can_catch_up").trace
    goals = {s for s, b in bits_of(name).items() if b & PROPERTIES.get("replication_can_catch_up").mask}
    stuck = g.cannot_reach(goals)
    end = trace.steps[-1].state
    assert end in stuck
    assert not nx.descendants(g.graph, end) & goals and end not in goals
    assert len(trace) == min(g.distance[s] for s in stuck)
    # every state before the end can still catch up: the trace stops at the first dead end
    assert all(s.state not in stuck for s in trace.steps[:-1])


def test_every_reference_config_exercises_a_violation_or_a_witness():
    """The comparison above is not vacuous: across the configs, every property is decided both ways."""
    seen: dict[str, set[str]] = {p: set() for p in DECIDED}
    for name in CONFIGS:
        for p in checked(name).properties:
            if p.name in seen:
                seen[p.name].add(p.status)
    for prop, statuses in seen.items():
        kind = PROPERTIES.get(prop).kind
        both = {"holds", "violated"} if kind in (ALWAYS, GRAPH) else {"reached", "unreached"}
        assert statuses == both, (prop, statuses)


def test_always_witness_violates_and_no_shallower_state_does():
    m, g = reference("master-power-loss")
    bits = bits_of("master-power-loss")
    for prop in ("acked_message_never_lost", "consumed_message_never_lost", "committed_offset_never_regresses"):
        mask = PROPERTIES.get(prop).mask
        trace = checked("master-power-loss").property(prop).trace
        last = np.array(trace.steps[-1].state, dtype=np.uint64)
        assert int(PROPERTIES.state_check(last, m.params)) & mask
        assert not any(bits[s] & mask for s, d in g.distance.items() if d < len(trace))
