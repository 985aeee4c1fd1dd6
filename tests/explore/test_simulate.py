"""Seeded random simulation: reproducible per seed, finds real violations, never proves anything."""
from __future__ import annotations

import functools

import numpy as np
import pytest

from explore import explore
from explore.simulate import NOT_SHORTEST, WalkLimits, simulate
from explore.toys.counter import COUNTER_PROPERTIES, Counter
from explore.trace import replay
from invariants import ALWAYS, PROPERTIES
from model import Config, RocketMQModel

WALKS = WalkLimits(walks=100, depth=40, seed=0)


@functools.lru_cache(maxsize=None)
def default_model() -> RocketMQModel:
    return RocketMQModel(Config())


def summary(r):
    return (r.outcome, r.stats.distinct_states, r.stats.transitions,
            [(p.name, p.status, [s.state for s in p.trace.steps] if p.trace else None) for p in r.properties])


def test_same_seed_same_walks():
    m = default_model()
    assert summary(simulate(m, PROPERTIES, WALKS)) == summary(simulate(m, PROPERTIES, WALKS))


def test_seed_changes_the_walks():
    m = default_model()
    runs = {str(summary(simulate(m, PROPERTIES, WalkLimits(walks=20, depth=40, seed=s)))) for s in range(3)}
    assert len(runs) > 1


def test_simulation_finds_real_violations_in_the_default_preset():
    m = default_model()
    r = simulate(m, PROPERTIES, WALKS)
    assert r.outcome == "violated"
    violated = [p for p in r.properties if p.status == "violated"]
    assert {"acked_message_never_lost", "consumed_message_never_lost"} <= {p.name for p in violated}
    found = [p.name for p in r.properties if p.trace is not None]
    shortest = explore(m, PROPERTIES.select(found))
    for p in r.properties:
        if p.trace is None:
            continue
        assert p.note == NOT_SHORTEST
        steps = p.trace.steps
        again = replay(m, steps[0].state, [s.action_index for s in steps[1:]])
        assert [s.state for s in again.steps] == [s.state for s in steps]
        assert len(p.trace) >= len(shortest.property(p.name).trace)
        if p.kind == ALWAYS:
            last = np.array(steps[-1].state, dtype=np.uint64)
            assert int(PROPERTIES.state_check(last, m.params)) & PROPERTIES.get(p.name).mask


@pytest.mark.parametrize("knobs", [{}, dict(messages=1, max_master_crashes=0, max_master_power_losses=0)])
def test_simulation_never_claims_holds(knobs):
    m = RocketMQModel(Config.from_mapping(knobs))
    r = simulate(m, PROPERTIES, WalkLimits(walks=30, depth=30, seed=1))
    assert {p.status for p in r.properties} <= {"violated", "reached", "unknown"}
    assert r.property("replication_can_catch_up").status == "unknown"
    assert r.outcome in ("violated", "incomplete")
    if not knobs:
        return
    # everything holds in this space (tests/explore/test_shortest_traces.py): simulation can't say so
    assert {p.status for p in r.properties if p.kind == ALWAYS} == {"unknown"}
    assert r.outcome == "incomplete" and "prove no property" in r.incomplete_reason


def test_simulation_reports_a_model_error():
    r = simulate(Counter(5, raise_at=2), COUNTER_PROPERTIES, WalkLimits(walks=5, depth=10, seed=0))
    assert r.outcome == "error"
    assert r.error.state_view == {"x": 2}
    assert r.error.trace.steps[-1].view == {"x": 2}


def test_simulation_time_limit_is_incomplete():
    r = simulate(Counter(5, k=100), COUNTER_PROPERTIES, WalkLimits(walks=10, depth=5, seed=0, max_seconds=0))
    assert r.outcome == "incomplete" and "time limit" in r.incomplete_reason
