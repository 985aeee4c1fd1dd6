"""Failure modes (issue "Failure modes") against independent answers.

* Minimal combinations: for each configuration, ``check`` is run with the budgets set to every vector of
  the lattice; the vectors it finds a property violated in must be exactly those dominating a reported
  minimal combination, each reported combination must be violated with the reported shortest length, and
  lowering any one of its counts must make the property hold.
* Modes: each trace replays through the model, ends with the mode's action kind, the state before
  satisfies the property and the one after violates it, and the counters there equal the combination.
* Breaking transitions: on a small configuration, the whole graph built in Python (every edge) gives the
  shallowest breaking transition per (property, action kind, target counters), by the canonical rule.
"""
from __future__ import annotations

import functools

import pytest

from reachable_graph import ReachableGraph, key

from explore import explore
from explore.faults import (COMBINATION_KEYS, Lattice, analyse, dominates, iter_vectors_below, minimal)
from explore.trace import replay
from invariants import ALWAYS, PROPERTIES
from model import Config, RocketMQModel, preset
from explore.fault_meanings import action_kind, change_text, deciding_changes, meaning
from model.fault_profile import ROCKETMQ_44

ALWAYS_PROPS = PROPERTIES.select([p.name for p in PROPERTIES if p.kind == ALWAYS])

#: the issue's three configurations, small (messages=1) so the whole lattice of checks stays fast
CONFIGS = {
    "async-default": ("default", ("messages=1",)),
    "sync-master-power-losses": ("sync-master", ("messages=1", "max_master_crashes=0",
                                                 "max_master_power_losses=2", "max_slave_power_losses=1")),
    "read-from-slave": ("read-from-slave", ("messages=1",)),
}
#: the failure counters as the readable state names them (absent when the budget is 0)
VIEW_COUNTERS = ("failures.masterCrashes", "failures.masterPowerLosses", "failures.slaveCrashes",
                 "failures.slavePowerLosses", "failures.consumerRestarts", "failures.haDisconnects")


def config(name: str) -> Config:
    base, sets = CONFIGS[name]
    return preset(base).with_overrides(list(sets))


@functools.lru_cache(maxsize=None)
def analysis(name: str):
    return analyse(RocketMQModel(config(name)), PROPERTIES)


@functools.lru_cache(maxsize=None)
def lattice_checks(name: str) -> dict[tuple[int, ...], dict[str, int]]:
    """Per budget vector: property -> shortest counterexample length, for the violated ones (by ``check``)."""
    cfg = config(name)
    out = {}
    for v in Lattice.of(cfg).vectors():
        budgets = {knob: c for knob, c in zip(
            ("max_master_crashes", "max_master_power_losses", "max_slave_crashes", "max_slave_power_losses",
             "max_consumer_restarts", "max_ha_disconnects"), v)}
        result = explore(RocketMQModel(Config.from_mapping(budgets, base=cfg)), ALWAYS_PROPS)
        assert result.outcome in ("passed", "violated")
        out[v] = {p.name: len(p.trace) for p in result.properties if p.status == "violated"}
    return out


def counters(view: dict) -> tuple[int, ...]:
    return tuple(int(view.get(name, 0)) for name in VIEW_COUNTERS)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_minimal_combinations_match_check_over_the_lattice(name):
    a = analysis(name)
    checks = lattice_checks(name)
    assert a.lattice.size <= 64
    some_violation = False
    for p in ALWAYS_PROPS:
        pf = a.faults[p.name]
        reported = pf.minimal_combinations()
        violated = {v for v, props in checks.items() if p.name in props}
        some_violation |= bool(violated)
        # every violating vector dominates a reported combination, and only those violate
        assert violated == {v for v in checks if any(dominates(v, m) for m in reported)}, p.name
        assert reported == minimal(list(violated))
        for v in reported:
            state = pf.violated_cells[v]
            assert checks[v][p.name] == a.depth(state), (p.name, v)
            assert len(a.trace_to(state)) == checks[v][p.name]
            for lower in iter_vectors_below(v):
                assert p.name not in checks[lower], (p.name, v, lower)
    assert some_violation


@pytest.mark.parametrize("name", list(CONFIGS))
def test_every_mode_trace_breaks_the_property_in_its_last_step(name):
    a = analysis(name)
    model = a.model
    modes = 0
    for p in ALWAYS_PROPS:
        pf = a.faults[p.name]
        for m in pf.modes():
            modes += 1
            trace = a.trace_to(m.source, m.action)
            again = replay(model, trace.steps[0].state, [s.action_index for s in trace.steps[1:]])
            assert [s.state for s in again.steps] == [s.state for s in trace.steps]
            last, before = trace.steps[-1], trace.steps[-2]
            assert action_kind(last.action) == m.kind
            assert not PROPERTIES.state_check(_array(before.state), model.params) & p.mask
            assert PROPERTIES.state_check(_array(last.state), model.params) & p.mask
            assert counters(last.view) == m.vector
            assert len(trace) == a.depth(m.source) + 1
            # the mode's combination is minimal for its kind: no breaking step of that kind below it
            for other in pf.breaking:
                if other[0] == m.kind and other[1] != m.vector:
                    assert not dominates(m.vector, other[1])
    assert modes > 0


def _array(state):
    import numpy as np
    return np.asarray(state, dtype=np.uint64)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_meanings_are_read_off_the_mode_trace(name):
    a = analysis(name)
    for p in ALWAYS_PROPS:
        for m in a.faults[p.name].modes():
            trace = a.trace_to(m.source, m.action)
            text = meaning(p.name, trace, ROCKETMQ_44)
            assert text.startswith(f"{m.kind}: {ROCKETMQ_44.phrases[m.kind]}")
            last = trace.steps[-1]
            for field, before, after in deciding_changes(p.name, trace, ROCKETMQ_44):
                assert last.changes[field] == [before, after]
                assert change_text(field, before, after) in text


def test_breaking_transitions_match_every_edge_of_the_whole_graph():
    """The compiled pass against a brute-force scan of every edge, with the canonical rule."""
    cfg = Config.from_mapping(dict(messages=1, max_master_power_losses=0))
    model = RocketMQModel(cfg)
    a = analyse(model, PROPERTIES)
    g = ReachableGraph.build(model)
    actions = model.actions()
    bits = {s: int(PROPERTIES.state_check(_array(s), model.params)) for s in g.graph.nodes}
    lattice = Lattice.of(cfg)
    expected: dict[tuple[str, str, tuple[int, ...]], tuple] = {}
    for e in g.edges:
        for p in ALWAYS_PROPS:
            if bits[e.source] & p.mask or not bits[e.target] & p.mask:
                continue
            k = (p.name, type(actions[e.action]).__name__, counters(model.view(e.target)))
            rank = (g.distance[e.source], key(e.source), e.action)
            if k not in expected or rank < expected[k]:
                expected[k] = rank
    got = {}
    for p in ALWAYS_PROPS:
        for (kind, v), (src, act) in a.faults[p.name].breaking.items():
            s = tuple(int(x) for x in a.explorer.store.states[src])
            got[(p.name, kind, v)] = (a.depth(src), key(s), act)
    assert got == expected
    assert expected, "the configuration must have breaking transitions"
    assert lattice.size == 2


def test_lattice_numbering_round_trips():
    lat = Lattice((1, 2, 0, 1, 0, 3))
    assert lat.size == 2 * 3 * 2 * 4
    cells = {lat.cell(v) for v in lat.vectors()}
    assert cells == set(range(lat.size))
    for v in lat.vectors():
        assert lat.vector(lat.cell(v)) == v
    assert len(COMBINATION_KEYS) == 6
    assert minimal([(1, 0), (0, 1), (1, 1), (2, 0)]) == [(0, 1), (1, 0)]


@pytest.mark.parametrize("knobs, mutation, prop, combination", [
    # a replication bug breaks replicas_agree with no failure at all: the zero vector is minimal
    (dict(messages=2, max_master_crashes=0, max_master_power_losses=0), "replica_skips_entry", "replicas_agree",
     (0, 0, 0, 0, 0, 0)),
    # SEND_OK before the flush under SYNC_FLUSH: one master power loss loses an acknowledged message
    (dict(messages=1, flush_disk_type="SYNC_FLUSH", max_master_crashes=0), "ack_without_flush",
     "acked_message_never_lost", (0, 1, 0, 0, 0, 0)),
])
def test_a_seeded_bug_shows_as_a_minimal_combination_and_mode(knobs, mutation, prop, combination):
    cfg = Config.from_mapping(knobs)
    clean = analyse(RocketMQModel(cfg), PROPERTIES.select([prop]))
    assert clean.faults[prop].violated_cells == {} and clean.faults[prop].modes() == []
    bug = analyse(RocketMQModel(cfg, mutation=mutation), PROPERTIES.select([prop]))
    pf = bug.faults[prop]
    assert pf.minimal_combinations() == [combination]
    modes = pf.modes()
    assert modes and all(m.vector == combination for m in modes)
    for m in modes:
        trace = bug.trace_to(m.source, m.action)
        assert PROPERTIES.state_check(_array(trace.steps[-1].state), bug.model.params) & PROPERTIES.get(prop).mask
