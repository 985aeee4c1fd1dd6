"""Pinned state-space sizes of one small configuration per mechanism: the ``mechanism`` group of the pinned
table (tests/tooling/pinned.toml), PRODUCED BY EXPLORATION (``python -m tests.tooling.pinned --update``).

A change of reachable behaviour that moves no verdict still moves these numbers: e.g. turning the
consume-queue fold's end test ``qo >= end`` into ``qo > end`` (model/store.py) shrinks
``consume-queues-two-queues`` from 89,853 to 33,917 states. A commit that moves one must say why.
"""
from __future__ import annotations

import pytest

import invariants
from explore import explore
from handbuilt import build, model
from tests.tooling.pinned import group

NO_MASTER_FAILURES = dict(max_master_crashes=0, max_master_power_losses=0)

MECHANISMS = {e.name: e for e in group("mechanism")}

_results: dict[str, object] = {}


def result(name: str):
    if name not in _results:
        _results[name] = explore(model(**MECHANISMS[name].knobs), invariants.PROPERTIES)
    return _results[name]


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_pinned_counts_per_mechanism(name):
    r = result(name)
    assert r.error is None and not r.incomplete_reason
    assert (r.stats.distinct_states, r.stats.transitions, r.stats.depth) == MECHANISMS[name].counts
    assert {p.name: p.status for p in r.properties} == MECHANISMS[name].verdicts


# --- the slow-read path (issue item 8) -----------------------------------------------------------------
def test_a_partial_pull_makes_the_master_suggest_the_slave_with_4_4_defaults():
    """slaveReadEnable=true, group brokerId 0 (4.4's default), whichBrokerWhenConsumeSlowly=1, one queue, no
    master failure: a pull cut before an entry that has more than ``consume_slowly_backlog`` messages
    behind it is slow (4.4 judges the last entry scanned, mechanisms §7.2), the master suggests slave 1,
    and the slave serves the next pull."""
    r = result("pull-batches-slow-read")
    assert r.property("slave_serves_pull").status == "reached"
    trace = r.property("slave_serves_pull").trace
    assert any(", batch=" in a for a in trace.actions)       # a partial pull left messages behind
    assert trace.steps[-1].outcome == "FOUND from broker 1"


def test_the_default_backlog_never_fires_on_three_messages_in_one_queue():
    """With backlog 1 a slow pull needs two messages behind the first entry a cut batch leaves out, so three
    messages in one queue never make one: the graph is the one where the slow suggestion is the master's.
    (Before the 4.4 rule on cut batches, judging the last message returned, this configuration reached the
    slave.)"""
    backlog_1 = MECHANISMS["pull-batches-slow-read-backlog-1"]
    assert backlog_1.knobs == {k: v for k, v in MECHANISMS["pull-batches-slow-read"].knobs.items()
                               if k != "consume_slowly_backlog"}
    r = result("pull-batches-slow-read-backlog-1")
    assert r.property("slave_serves_pull").status == "unreached"
    master = explore(model(**{**backlog_1.knobs, "which_broker_when_consume_slowly": 0}), invariants.PROPERTIES)
    assert (master.stats.distinct_states, master.stats.transitions, master.stats.depth) == backlog_1.counts


def test_which_broker_when_consume_slowly_changes_the_graph():
    knobs = MECHANISMS["pull-batches-slow-read"].knobs
    master_again = explore(model(**{**knobs, "which_broker_when_consume_slowly": 0}), invariants.PROPERTIES)
    assert master_again.property("slave_serves_pull").status == "unreached"
    assert master_again.stats.distinct_states != result("pull-batches-slow-read").stats.distinct_states


def _pull_batches(**knobs) -> list[str]:
    """The Pull variants enabled when consumer 1 pulls from offset 0 of a master holding [1, 2, 3]."""
    m = model(messages=3, **NO_MASTER_FAILURES, **knobs)
    s = build(m, **{"master.commitlog": [1, 2, 3], "slave1.commitlog": [1, 2, 3], "producer.nextMessage": 4})
    return sorted(str(a) for a, _, _ in m.enabled(s) if str(a).startswith("Pull("))


def test_a_found_pull_returns_any_prefix_within_the_count_limits():
    """``getMessage`` takes the first message always, then each next one unless the count limit of that
    message's kind is reached; 0 = no count limit (the byte limits can end a batch anywhere)."""
    every = ["Pull(consumer=1, queue=0)", "Pull(consumer=1, queue=0, batch=1)", "Pull(consumer=1, queue=0, batch=2)"]
    assert _pull_batches() == every
    assert _pull_batches(pull_batch_in_memory=1) == ["Pull(consumer=1, queue=0, batch=1)"]
    # backlog 0: messages 1 and 2 are "in disk" (something lies after them), 3 is in memory: the in-disk
    # limit 2 lets message 2 in, the in-memory limit 1 stops before message 3
    assert _pull_batches(pull_batch_in_memory=1, pull_batch_in_disk=2, consume_slowly_backlog=0) == every[1:]
    assert _pull_batches(pull_batch_in_disk=1, consume_slowly_backlog=0) == every[1:2]


# --- slaveReadEnable per broker (issue 44) ---------------------------------------------------------------
def _alike(name: str) -> dict:
    """The entry's knobs with every broker's slaveReadEnable the master's (slave_read_enable_in_slaves left
    at AS_MASTER): the one value the model had before it was per broker."""
    knobs = MECHANISMS[name].knobs
    assert knobs["slave_read_enable_in_slaves"] != "AS_MASTER"
    return {k: v for k, v in knobs.items() if k != "slave_read_enable_in_slaves"}


def test_the_file_pair_redelivers_where_brokers_alike_do_not():
    """A master with slaveReadEnable=true and a slave file without it (RocketMQ's default), the group reading
    from slave 1, one master power loss: the slave serves a pull but sends the consumer back to the master
    (PullMessageProcessor#processRequest reads the slave's own slaveReadEnable), which lost the message and
    answers OFFSET_ILLEGAL; the correction rewinds the offset and the slave delivers the message again.
    With slaveReadEnable=true on the slave too, the consumer stays on the slave and nothing is redelivered."""
    r = result("slave-read-master-only")
    redelivered = r.property("message_redelivered")
    assert redelivered.status == "reached"
    outcomes = [step.outcome for step in redelivered.trace.steps]
    served = outcomes.index("FOUND from broker 1")
    assert "OFFSET_ILLEGAL from broker 0" in outcomes[served:]
    alike = explore(model(**_alike("slave-read-master-only")), invariants.PROPERTIES)
    assert alike.property("message_redelivered").status == "unreached"
    assert alike.stats.distinct_states < r.stats.distinct_states


def test_a_slave_with_slave_read_enable_beside_a_master_without_it_changes_the_graph():
    """The reverse pair: the master never suggests a slave, but once the consumer reaches slave 1 (the master
    crashed and left the route) the slave's own slaveReadEnable=true keeps suggesting it (the group's
    brokerId) where a slave alike the master would send it back: the graph grows (the pull itself is
    tests/model/test_client_pull.py's)."""
    r = result("slave-read-slaves-only")
    alike = explore(model(**_alike("slave-read-slaves-only")), invariants.PROPERTIES)
    assert (alike.stats.distinct_states, alike.stats.transitions) != (r.stats.distinct_states, r.stats.transitions)
    assert alike.stats.distinct_states < r.stats.distinct_states
