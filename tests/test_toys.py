"""The engine on toy models with exactly known counts (design.md, Testing habits)."""
from __future__ import annotations

import pytest

from explore import Limits, explore
from explore.toys.counter import COUNTER_PROPERTIES, Counter
from explore.toys.twophase import TWOPHASE_PROPERTIES, TwoPhase


@pytest.mark.parametrize("rms, states, transitions, depth", [
    (3, 288, 1145, 10),
    (6, 50816, 402305, 19),
])
def test_twophase_exact_counts(rms, states, transitions, depth):
    r = explore(TwoPhase(rms), TWOPHASE_PROPERTIES.select(["tc_consistent"]))
    assert r.outcome == "passed"
    assert (r.stats.distinct_states, r.stats.transitions, r.stats.depth) == (states, transitions, depth)
    assert r.property("tc_consistent").status == "holds"


def test_twophase_sometimes_all_committed_has_shortest_witness():
    r = explore(TwoPhase(3), TWOPHASE_PROPERTIES)
    p = r.property("all_committed")
    assert p.status == "reached"
    # 3 RMPrepare + 3 TMRcvPrepared + TMCommit + 3 RMRcvCommitMsg
    assert len(p.trace) == 10
    assert p.trace.steps[-1].view["rmState"] == ["committed"] * 3


def test_counter_counts_and_verdicts():
    r = explore(Counter(5), COUNTER_PROPERTIES)
    assert (r.stats.distinct_states, r.stats.transitions, r.stats.depth) == (6, 10, 5)
    assert r.verdicts() == {"below_k": "holds", "reaches_top": "reached", "can_reset": "holds",
                            "never_stuck_at_top": "holds"}
    assert r.property("reaches_top").trace.actions == ["Inc()"] * 5


def test_violating_state_is_not_expanded_with_one_property():
    r = explore(Counter(5, k=3), COUNTER_PROPERTIES.select(["below_k"]))
    assert r.outcome == "violated"
    assert r.property("below_k").trace.actions == ["Inc()"] * 3
    # states 0..3: x = 3 violates and is a leaf, so x = 4 and 5 are never generated
    assert r.stats.distinct_states == 4


def test_graph_property_violation_trace_reaches_a_dead_end():
    r = explore(Counter(4, reset=False), COUNTER_PROPERTIES.select(["can_reset", "never_stuck_at_top"]))
    assert r.property("can_reset").status == "violated"
    assert r.property("can_reset").trace.actions == ["Inc()"]
    assert r.property("never_stuck_at_top").trace.actions == ["Inc()"] * 4


def test_exception_in_model_code_is_a_model_error_with_state_and_action():
    r = explore(Counter(5, raise_at=3), COUNTER_PROPERTIES)
    assert r.outcome == "error"
    assert r.error.action == "Inc()"
    assert r.error.state_view == {"x": 3}
    assert "raised on purpose" in r.error.message
    assert r.error.trace.actions == ["Inc()"] * 3


def test_limits_give_incomplete_never_passed():
    r = explore(TwoPhase(3), TWOPHASE_PROPERTIES.select(["tc_consistent"]), Limits(max_states=100))
    assert r.outcome == "incomplete" and r.stats.distinct_states <= 100
    assert r.property("tc_consistent").status == "unknown"
    r = explore(TwoPhase(3), TWOPHASE_PROPERTIES.select(["tc_consistent"]), Limits(max_depth=4))
    assert r.outcome == "incomplete" and r.stats.depth == 4


def test_toys_and_rocketmq_satisfy_the_model_protocol():
    from explore.protocol import Model
    from model import RocketMQModel
    for model in (TwoPhase(3), Counter(3), RocketMQModel()):
        assert isinstance(model, Model)
        state = tuple(int(x) for x in model.initial_states()[0])
        for action, nxt, flags in model.enabled(state):
            assert model.next_state(state, action) == nxt
        assert model.fingerprint(state) == model.fingerprint(tuple(state))
