"""The local explorer's rules on toy models with known answers: counts, early stop, violating states
left unexpanded, no properties, limits, model errors and unknown property names.

Counter(limit): ``limit + 1`` states, ``2 * limit`` transitions (``Inc`` up to the limit, ``Reset`` from
every state above 0), depth ``limit``; without ``Reset``, ``limit`` transitions.
"""
from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from explore import Limits, LocalExplorer, explore
from explore.toys.counter import COUNTER_PROPERTIES, Counter
from explore.toys.twophase import TWOPHASE_PROPERTIES, TwoPhase
from invariants import ALWAYS, GRAPH, PROPERTIES, SOMETIMES, UnknownPropertyError
from model import Config, RocketMQModel
from explore.packed import SUCCESSORS_SIG, PackedModel
from tests.tooling.pinned import pinned

NO_PROPERTIES = COUNTER_PROPERTIES.without([ALWAYS, SOMETIMES, GRAPH])


def counts(r) -> tuple[int, int, int]:
    return r.stats.distinct_states, r.stats.transitions, r.stats.depth


# -- golden counts -----------------------------------------------------------------------------------
@pytest.mark.parametrize("limit", [0, 1, 2, 5, 64])
def test_counter_counts(limit):
    r = explore(Counter(limit, k=limit + 1), COUNTER_PROPERTIES)
    assert counts(r) == (limit + 1, 2 * limit, limit)
    # with limit 0 the only state is the top: never_stuck_at_top has no goal to reach
    assert r.outcome == ("violated" if limit == 0 else "passed")
    assert r.stats.levels == [1] * (limit + 1)


@pytest.mark.parametrize("limit", [1, 5])
def test_counter_without_reset_counts(limit):
    r = explore(Counter(limit, k=limit + 1, reset=False), COUNTER_PROPERTIES.select(["below_k"]))
    assert counts(r) == (limit + 1, limit, limit)


@pytest.mark.parametrize("k", [0, 1, 4])
def test_counter_always_violation_is_k_increments(k):
    r = explore(Counter(6, k=k), COUNTER_PROPERTIES)
    p = r.property("below_k")
    assert p.status == "violated" and r.outcome == "violated"
    assert p.trace.actions == ["Inc()"] * k
    assert p.trace.steps[-1].view == {"x": k}


# -- early stop ----------------------------------------------------------------------------------------
def test_exploration_stops_at_the_level_that_decides_the_last_property():
    r = explore(Counter(50, k=3), COUNTER_PROPERTIES.select(["below_k"]))
    # levels 0..3 stored, levels 0..2 expanded: Inc from 0; Inc and Reset from 1 and 2
    assert counts(r) == (4, 5, 3)
    assert r.outcome == "violated"


def test_no_early_stop_while_a_sometimes_property_is_undecided():
    r = explore(Counter(50, k=3), COUNTER_PROPERTIES.select(["below_k", "reaches_top"]))
    # every level is explored; the top, which decides reaches_top, is the last level and is not expanded
    assert counts(r) == (51, 99, 50)
    assert r.verdicts() == {"below_k": "violated", "reaches_top": "reached"}


def test_no_early_stop_with_a_graph_property():
    r = explore(Counter(50, k=3), COUNTER_PROPERTIES.select(["below_k", "can_reset"]))
    assert counts(r) == (51, 100, 50)
    assert r.verdicts() == {"below_k": "violated", "can_reset": "holds"}


def test_early_stop_in_the_default_preset():
    full = pinned("default").distinct_states   # states of the whole default space
    r = explore(RocketMQModel(Config()), PROPERTIES.select(["master_recovers", "acked_message_never_lost"]))
    assert r.verdicts() == {"acked_message_never_lost": "violated", "master_recovers": "reached"}
    assert r.stats.depth == 2 and r.stats.distinct_states < full // 1000


# -- violating states are left unexpanded only when they violate everything checked ------------------
def test_violating_state_is_expanded_while_another_property_needs_it():
    alone = explore(Counter(5, k=3), COUNTER_PROPERTIES.select(["reaches_top"]))
    both = explore(Counter(5, k=3), COUNTER_PROPERTIES.select(["below_k", "reaches_top"]))
    # the top is only reachable through x=3 and x=4, which violate below_k
    assert both.property("reaches_top").status == "reached"
    assert both.property("reaches_top").trace.actions == alone.property("reaches_top").trace.actions
    assert both.property("below_k").trace.actions == ["Inc()"] * 3
    assert counts(both) == counts(alone) == (6, 9, 5)


@pytest.mark.parametrize("names", [["acked_message_never_lost"], ["replicas_agree", "no_message_skipped"]])
def test_no_state_is_reached_through_a_state_violating_every_checked_property(names):
    m = RocketMQModel(Config())
    explorer = LocalExplorer(m, PROPERTIES.select(names))
    r = explorer.run()
    assert r.outcome == "violated"
    stored = explorer.stored_states()
    all_bits = sum(PROPERTIES.get(n).mask for n in names)
    parents = {int(explorer.store.parent[i]) for i in range(len(stored)) if explorer.store.parent[i] >= 0}
    for i in parents:
        assert int(PROPERTIES.state_check(stored[i], m.params)) & all_bits != all_bits
    # (in the local engine such states only ever lie on the last level: it stops once all are violated)


def test_a_property_keeps_its_trace_when_checked_with_others():
    m = RocketMQModel(Config.from_mapping(dict(messages=1)))
    together = explore(m, PROPERTIES)
    for p in together.properties:
        alone = explore(m, PROPERTIES.select([p.name])).property(p.name)
        assert alone.status == p.status
        assert (alone.trace.actions if alone.trace else None) == (p.trace.actions if p.trace else None)


# -- no properties at all ------------------------------------------------------------------------------
def test_zero_properties_explores_everything():
    assert len(NO_PROPERTIES) == 0
    r = explore(Counter(5, k=0), NO_PROPERTIES)
    assert r.outcome == "passed" and r.properties == []
    assert counts(r) == (6, 10, 5)
    r = explore(TwoPhase(3), TWOPHASE_PROPERTIES.without([ALWAYS, SOMETIMES]))
    assert counts(r) == (288, 1145, 10)


def test_zero_properties_on_rocketmq_gives_the_full_space():
    m = RocketMQModel(Config.from_mapping(dict(messages=1, max_master_crashes=0, max_master_power_losses=0)))
    none = explore(m, PROPERTIES.without([ALWAYS, SOMETIMES, GRAPH]))
    every = explore(m, PROPERTIES)
    assert counts(none) == counts(every) == (351, 1188, 13)


# -- limits: incomplete, never passed --------------------------------------------------------------------
TC = TWOPHASE_PROPERTIES.select(["tc_consistent"])


def test_state_limit_exactly_the_space_completes_one_less_is_incomplete():
    full = explore(TwoPhase(3), TC, Limits(max_states=288))
    assert full.outcome == "passed" and full.stats.levels[-1] == 2
    r = explore(TwoPhase(3), TC, Limits(max_states=287))
    # the run forgets the level it stopped inside (the last one, of 2 states): whole levels only
    assert r.outcome == "incomplete" and r.stats.distinct_states == 286 and r.above_state_limit()
    assert "state limit 287" in r.incomplete_reason
    assert r.property("tc_consistent").status == "unknown"


def test_depth_limit_one_past_the_depth_completes():
    assert explore(TwoPhase(3), TC, Limits(max_depth=11)).outcome == "passed"
    r = explore(TwoPhase(3), TC, Limits(max_depth=10))
    # the last level is stored but not expanded: nothing proves it has no new successors
    assert r.outcome == "incomplete" and r.stats.depth == 10 and r.stats.distinct_states == 288
    assert "depth limit 10" in r.incomplete_reason


def test_time_limit_inside_a_level():
    r = explore(TwoPhase(6), TC, Limits(max_seconds=0), chunk=256)
    assert r.outcome == "incomplete" and "time limit" in r.incomplete_reason
    assert r.stats.distinct_states < 50816
    assert r.property("tc_consistent").status == "unknown"


def test_time_limit_holds_across_small_levels():
    # 3001 levels of one state each: about half a second of per-level overhead, far above 10 ms
    r = explore(Counter(3000, k=10**9), COUNTER_PROPERTIES.select(["below_k"]), Limits(max_seconds=0.01))
    assert r.outcome == "incomplete"


def test_memory_budget_gives_incomplete():
    r = explore(TwoPhase(6), TC, memory_budget=1)
    assert r.outcome == "incomplete" and "memory budget" in r.incomplete_reason
    assert r.stats.distinct_states <= 1024 < 50816


def test_every_undecided_kind_is_unknown_under_a_limit():
    r = explore(Counter(20, k=100), COUNTER_PROPERTIES, Limits(max_depth=5))
    assert r.outcome == "incomplete"
    assert r.verdicts() == {"below_k": "unknown", "reaches_top": "unknown", "can_reset": "unknown",
                            "never_stuck_at_top": "unknown"}


def test_what_was_decided_before_a_limit_stays_decided():
    r = explore(Counter(20, k=2), COUNTER_PROPERTIES, Limits(max_depth=5))
    assert r.property("below_k").status == "violated" and r.outcome == "violated"
    r = explore(TwoPhase(3), TWOPHASE_PROPERTIES, Limits(max_depth=10))
    assert r.property("all_committed").status == "reached" and len(r.property("all_committed").trace) == 10
    assert r.property("tc_consistent").status == "unknown"
    assert r.outcome == "incomplete"


def test_rocketmq_limit_never_passes():
    m = RocketMQModel(Config.from_mapping(dict(messages=1, max_master_crashes=0, max_master_power_losses=0)))
    r = explore(m, PROPERTIES.select(["acked_message_never_lost", "replication_can_catch_up"]),
                Limits(max_states=100))
    assert r.outcome == "incomplete"
    assert r.verdicts() == {"acked_message_never_lost": "unknown", "replication_can_catch_up": "unknown"}


# -- model errors ----------------------------------------------------------------------------------------
def test_exception_at_the_initial_state_has_an_empty_trace():
    r = explore(Counter(5, raise_at=0), COUNTER_PROPERTIES)
    assert r.outcome == "error"
    assert r.error.action == "Inc()" and r.error.state_view == {"x": 0}
    assert r.error.trace.actions == []


def test_error_outranks_a_violation_and_leaves_the_rest_unknown():
    r = explore(Counter(5, k=1, raise_at=3), COUNTER_PROPERTIES)
    assert r.outcome == "error"
    assert r.property("below_k").status == "violated"
    assert r.property("can_reset").status == "unknown"
    assert r.property("reaches_top").status == "unknown"


@nb.njit(SUCCESSORS_SIG, nogil=True)
def _flagging_successors(state, params, out, flags):
    """Inc up to params[0]; at params[1] the kernel flags a model error (code 7) instead of raising."""
    x = state[0]
    flags[0] = 0
    if x == np.uint64(params[1]):
        flags[0] = 2 | (7 << 16)
    elif x < np.uint64(params[0]):
        out[0, 0] = x + np.uint64(1)
        flags[0] = 1
    return 1


class FlaggingCounter(PackedModel):
    """A counter whose kernel reports a model error through the flags, the way the RocketMQ kernel does."""

    name = "flagging-counter"
    words = 1

    def __init__(self, limit: int, error_at: int) -> None:
        self.params = np.array([limit, error_at], dtype=np.int64)
        self.successors = _flagging_successors

    def initial_states(self):
        return np.zeros((1, 1), dtype=np.uint64)

    def actions(self):
        return ("Inc()",)

    def view(self, state):
        return {"x": int(state[0])}

    def describe_outcome(self, flags: int) -> str:
        return f"model error: code {(flags >> 16) & 0xFF}" if flags & 2 else ""


def test_error_flagged_by_the_kernel_is_a_model_error_with_state_and_action():
    r = explore(FlaggingCounter(10, 4), COUNTER_PROPERTIES.select(["reaches_top"]))
    assert r.outcome == "error"
    assert r.error.message == "model error: code 7"
    assert r.error.action == "Inc()" and r.error.state_view == {"x": 4}
    assert r.error.trace.actions == ["Inc()"] * 4
    assert r.property("reaches_top").status == "unknown"


# -- unknown property names ------------------------------------------------------------------------------
def test_unknown_property_name_lists_the_known_ones():
    with pytest.raises(UnknownPropertyError) as info:
        PROPERTIES.select(["acked_message_never_lost", "nope"])
    message = str(info.value)
    assert "'nope'" in message
    for name in PROPERTIES.names():
        assert name in message
    assert isinstance(info.value, ValueError)


def test_unknown_property_name_in_a_subset_still_lists_every_known_one():
    subset = PROPERTIES.select(["master_recovers"])
    with pytest.raises(UnknownPropertyError) as info:
        subset.get("acked_message_never_lost_typo")
    assert all(name in str(info.value) for name in PROPERTIES.names())


def test_property_names_kinds_and_order_are_the_interface():
    assert [(p.name, p.kind) for p in PROPERTIES] == [
        ("acked_message_never_lost", "always"), ("consumed_message_never_lost", "always"),
        ("replicas_agree", "always"), ("committed_offset_never_regresses", "always"),
        ("no_message_skipped", "always"), ("slave_serves_pull", "sometimes"),
        ("offset_committed_to_slave", "sometimes"), ("master_recovers", "sometimes"),
        ("slave_sync_overwrites_offset", "sometimes"), ("message_redelivered", "sometimes"),
        ("message_acked", "sometimes"), ("message_consumed", "sometimes"), ("replication_can_catch_up", "graph"),
        ("acked_message_eventually_consumed", "eventually"), ("slaves_eventually_catch_up", "eventually"),
        ("consumption_eventually_completes", "eventually")]
    assert len({p.bit for p in PROPERTIES}) == len(PROPERTIES)       # one bit each
    assert all(p.doc for p in PROPERTIES)
