"""Verdict flips: every property that holds (or is reached) somewhere must be able to fail.

Each case explores a small configuration twice, checking one property: as configured, where the
property holds (always, graph) or is reached (sometimes); and with one seeded bug (``model/mutants.py``)
or one switch that takes the behaviour away, where the verdict must flip. A property whose check could
never fail would pass the first half and fail the second.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from hand_built import model

from explore import explore
from explore.trace import replay
from invariants import ALWAYS, PROPERTIES

NO_FAILURES = dict(max_master_crashes=0, max_master_power_losses=0)
CRASH_ONLY = dict(max_master_power_losses=0)


@dataclass(frozen=True)
class Flip:
    prop: str
    knobs: dict[str, Any]
    mutation: str | None = None                                  # the seeded bug that breaks it...
    switch: dict[str, Any] = field(default_factory=dict)         # ...or the knobs that take it away
    before: str = "holds"
    after: str = "violated"
    trace_length: int | None = None                              # the flipped run's shortest trace

    def __str__(self) -> str:
        how = self.mutation or ",".join(f"{k}={v}" for k, v in self.switch.items())
        return f"{self.prop}-{how}"


FLIPS = [
    Flip("acked_message_never_lost", dict(flush_disk_type="SYNC_FLUSH", messages=1),
         mutation="ack_without_flush", trace_length=2),
    Flip("acked_message_never_lost", dict(messages=1, **CRASH_ONLY),
         mutation="crash_loses_page_cache", trace_length=2),
    Flip("consumed_message_never_lost", dict(messages=1, **CRASH_ONLY),
         mutation="crash_loses_page_cache", trace_length=4),
    Flip("consumed_message_never_lost", dict(messages=1, **CRASH_ONLY),
         switch=dict(max_master_power_losses=1), trace_length=4),
    Flip("replicas_agree", dict(messages=2, **NO_FAILURES), mutation="replica_skips_entry", trace_length=5),
    Flip("replicas_agree", dict(messages=2, **CRASH_ONLY), mutation="replica_skips_entry", trace_length=5),
    Flip("replication_can_catch_up", dict(messages=2, **NO_FAILURES),
         mutation="replica_skips_entry", trace_length=1),
    Flip("replication_can_catch_up", dict(messages=1, **CRASH_ONLY),
         switch=dict(max_master_power_losses=1), trace_length=5),
    Flip("committed_offset_never_regresses", dict(messages=1, **NO_FAILURES),
         mutation="commit_on_pull_off_by_one", trace_length=5),
    Flip("committed_offset_never_regresses", dict(messages=2, **NO_FAILURES),
         mutation="commit_on_pull_next_begin", trace_length=6),
    Flip("no_message_skipped", dict(messages=2, **NO_FAILURES),
         mutation="commit_on_pull_next_begin", trace_length=5),
    Flip("slave_serves_pull", dict(messages=1), mutation="slave_refuses_pull",
         before="reached", after="unreached"),
    Flip("offset_committed_to_slave", dict(messages=1), mutation="slave_drops_offset_commits",
         before="reached", after="unreached"),
    Flip("master_recovers", dict(messages=1), mutation="master_never_restarts",
         before="reached", after="unreached"),
    Flip("slave_sync_overwrites_offset", dict(messages=1), switch=dict(sync_offsets_max=True),
         before="reached", after="unreached"),
    Flip("message_redelivered", dict(messages=1), switch=NO_FAILURES, before="reached", after="unreached"),
    Flip("message_redelivered", dict(messages=1, max_consumer_restarts=1, **NO_FAILURES),
         switch=dict(max_consumer_restarts=0), before="reached", after="unreached"),
    # SYNC_MASTER answers SLAVE_NOT_AVAILABLE while no slave is there to copy the message
    Flip("message_acked", dict(messages=1, broker_role="SYNC_MASTER", **NO_FAILURES), switch=dict(slaves=0),
         before="reached", after="unreached"),
    Flip("message_consumed", dict(messages=1, **NO_FAILURES), mutation="application_never_consumes",
         before="reached", after="unreached"),
]


def check_one(prop: str, mutation: str | None = None, **knobs: Any):
    m = model(mutation, **knobs)
    return m, explore(m, PROPERTIES.select([prop]))


def assert_real_witness(m, prop: str, result) -> None:
    """The trace replays through the model, and its end is what the verdict says it is."""
    p = PROPERTIES.get(prop)
    trace = result.property(prop).trace
    assert trace is not None
    steps = trace.steps
    again = replay(m, steps[0].state, [s.action_index for s in steps[1:]])
    assert [s.state for s in again.steps] == [s.state for s in steps]
    last = np.array(steps[-1].state, dtype=np.uint64)
    if p.kind == ALWAYS:
        assert PROPERTIES.state_check(last, m.params) & np.uint64(p.mask)


@pytest.mark.parametrize("flip", FLIPS, ids=str)
def test_verdict_flips(flip: Flip):
    m, before = check_one(flip.prop, None, **flip.knobs)
    assert before.outcome in ("passed", "violated")
    assert before.property(flip.prop).status == flip.before
    if flip.before == "reached":
        assert_real_witness(m, flip.prop, before)
    m2, after = check_one(flip.prop, flip.mutation, **{**flip.knobs, **flip.switch})
    status = after.property(flip.prop).status
    assert status == flip.after
    assert after.outcome == "violated"
    if flip.after == "violated":
        assert_real_witness(m2, flip.prop, after)
        assert len(after.property(flip.prop).trace) == flip.trace_length
    else:
        assert after.property(flip.prop).trace is None


def test_sync_flush_ack_without_flush_trace_is_send_then_power_loss():
    _, r = check_one("acked_message_never_lost", "ack_without_flush", flush_disk_type="SYNC_FLUSH", messages=1)
    trace = r.property("acked_message_never_lost").trace
    assert trace.actions == ["SendMessage(flush=ok)", "MasterPowerLoss()"]
    assert trace.steps[1].outcome == "SEND_OK"
    assert trace.steps[2].view["master.commitlog"] == [] and trace.steps[2].view["slave1.commitlog"] == []


def test_crash_losing_page_cache_trace_consumes_then_crashes():
    _, r = check_one("consumed_message_never_lost", "crash_loses_page_cache", messages=1, **CRASH_ONLY)
    assert r.property("consumed_message_never_lost").trace.actions == [
        "SendMessage()", "Pull(consumer=1, queue=0)", "Consume(consumer=1, queue=0)", "MasterCrash()"]


def test_a_mutation_takes_away_only_its_own_mechanism():
    """A mutation only removes one mechanism: with slave_refuses_pull the other witnesses stay reachable."""
    m = model("slave_refuses_pull", messages=1)
    r = explore(m, PROPERTIES.select(["master_recovers", "offset_committed_to_slave"]))
    assert r.verdicts() == {"offset_committed_to_slave": "reached", "master_recovers": "reached"}
