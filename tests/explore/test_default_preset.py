"""The `default` preset (RocketMQ 4.4 defaults, small bounds) checked whole: every property decided, every
violation and every witness a real shortest-looking trace, every sometimes property reached (a never
reached one would flag a vacuous model)."""
from __future__ import annotations

import functools

import numpy as np
import pytest

from explore import explore
from explore.trace import replay
from explore.liveness import lasso_fault
from invariants import ALWAYS, EVENTUALLY, GRAPH, PROPERTIES, SOMETIMES
from model import Config, RocketMQModel, preset
from explore.packed import PackedModel
from tests.tooling.pinned import pinned

pytestmark = pytest.mark.slow

# Golden values of the default space: the pinned table's "default" entry (tests/tooling/pinned.toml, produced by
# exploration; its history says why they moved before).
GOLDEN_COUNTS = pinned("default").counts
GOLDEN_TRACE_LENGTHS = {
    "acked_message_never_lost": 2, "consumed_message_never_lost": 4, "replicas_agree": 7,
    "committed_offset_never_regresses": 5, "no_message_skipped": 7, "slave_serves_pull": 7,
    "offset_committed_to_slave": 3, "master_recovers": 2, "slave_sync_overwrites_offset": 9,
    "message_redelivered": 12, "message_acked": 1, "message_consumed": 3, "replication_can_catch_up": 5,
    # lassos that end stuttering: message 1 acked then lost to the master's power loss; a slave that
    # truncated nothing and cannot get the master's rewritten log
    "acked_message_eventually_consumed": 9, "slaves_eventually_catch_up": 13,
}
# From exploration. Message 2 is pulled with message 1 but lost to a power loss before the flush; the pull at
# 2 gets OFFSET_ILLEGAL and the task removes the ProcessQueue, whose batch the consume service still holds;
# the new ProcessQueue pulls and consumes message 1, then the old batch is delivered: 1 a second time.
# Before the ConsumeDropped change the last three steps were Consume, Pull, Consume: the old batch was
# consumed as the new, never-pulled ProcessQueue's own (sharing its in-flight set), not a 4.4 behaviour.
GOLDEN_REDELIVERY = [
    "SendMessage()", "FlushCommitLog(broker=0)", "SendMessage()", "Pull(consumer=1, queue=0)", "MasterPowerLoss()",
    "MasterRestart()", "Pull(consumer=1, queue=0)", "CorrectIllegalOffset(consumer=1, queue=0)",
    "Rebalance(consumer=1)", "Pull(consumer=1, queue=0)", "Consume(consumer=1, queue=0)",
    "ConsumeDropped(consumer=1, queue=0)"]


@functools.lru_cache(maxsize=None)
def default_run():
    m = RocketMQModel(preset("default"))
    return m, explore(m, PROPERTIES)


class StartingAt(PackedModel):
    """The same model, explored from one given state instead of its initial state."""

    def __init__(self, model: RocketMQModel, state) -> None:
        self.model, self.state = model, state
        self.words, self.params, self.successors = model.words, model.params, model.successors
        self.name = model.name

    def initial_states(self):
        return np.array([self.state], dtype=np.uint64)

    def actions(self):
        return self.model.actions()

    def view(self, state):
        return self.model.view(state)


def test_default_is_the_4_4_defaults():
    assert preset("default") == Config()


def test_every_property_gets_a_verdict():
    _, r = default_run()
    assert r.outcome == "violated" and not r.incomplete_reason and r.error is None
    for p in r.properties:
        assert p.status in {ALWAYS: {"holds", "violated"}, SOMETIMES: {"reached", "unreached"},
                            GRAPH: {"holds", "violated"}, EVENTUALLY: {"holds", "violated"}}[p.kind], p.name
    assert (r.stats.distinct_states, r.stats.transitions, r.stats.depth) == GOLDEN_COUNTS


def test_every_sometimes_property_is_reached():
    _, r = default_run()
    assert {p.name: p.status for p in r.properties if p.kind == SOMETIMES} == {
        p.name: "reached" for p in PROPERTIES.of_kind(SOMETIMES)}


def test_every_violation_and_witness_has_a_real_trace():
    m, r = default_run()
    for p in r.properties:
        decided = p.status in ("violated", "reached")
        assert (p.trace is not None) == decided, p.name
        if not decided:
            continue
        steps = p.trace.steps
        again = replay(m, m.initial()[0], [s.action_index for s in steps[1:]])
        assert [s.state for s in again.steps] == [s.state for s in steps], p.name
        mask = PROPERTIES.get(p.name).mask
        if PROPERTIES.get(p.name).on_transitions:
            before, after = steps[-2].state, steps[-1].state
            out, flags = m.expand(before)
            bits = PROPERTIES.transition_check(np.array(before, dtype=np.uint64), int(flags[steps[-1].action_index]),
                                               np.array(after, dtype=np.uint64), m.params)
            assert int(bits) & mask, p.name
        elif p.kind == EVENTUALLY:   # a lasso: it closes, is fair, and P then never Q along it
            assert lasso_fault(m, PROPERTIES.get(p.name), [s.state for s in steps], [s.action_index for s in steps[1:]],
                               p.loop_start, PROPERTIES.fairness, PROPERTIES.eventually_masks) == "", p.name
        elif p.kind != GRAPH:
            assert int(PROPERTIES.state_check(np.array(steps[-1].state, dtype=np.uint64), m.params)) & mask, p.name
    assert {p.name: len(p.trace) for p in r.properties if p.trace} == GOLDEN_TRACE_LENGTHS


def test_redelivery_witness_finishes_a_removed_process_queues_batch():
    m, r = default_run()
    trace = r.property("message_redelivered").trace
    assert trace.actions == GOLDEN_REDELIVERY
    before, after = m.view(trace.steps[-2].state), m.view(trace.steps[-1].state)
    assert (before["consumer1.q0.droppedInFlight"], before["history.delivered"]) == ([1, 2], [1])
    assert (after["consumer1.q0.droppedInFlight"], after["history.delivered"], after["history.redelivered"]) == \
        ([], [1, 2], True)
    assert after["consumer1.q0.offset"] == before["consumer1.q0.offset"] == 1


def test_catch_up_trace_ends_in_a_state_that_can_never_catch_up():
    m, r = default_run()
    steps = r.property("replication_can_catch_up").trace.steps
    catch_up = PROPERTIES.select(["replication_can_catch_up"])
    # from the end, no state where the live slaves hold the master's log is reachable: the end itself is
    # the shortest counterexample of the graph property started there
    from_end = explore(StartingAt(m, steps[-1].state), catch_up).property("replication_can_catch_up")
    assert from_end.status == "violated" and len(from_end.trace) == 0
    # one step earlier it still could
    from_before = explore(StartingAt(m, steps[-2].state), catch_up).property("replication_can_catch_up")
    assert from_before.status == "holds" or len(from_before.trace) > 0
