"""The sometimes properties: the action that does the thing reports it, and look-alikes do not.

Four are witnessed by transitions (the kernel's event flags through ``transition_check``); the tests
list every enabled action of a hand-built state that witnesses the property, so a negative case also
shows that no other action reports the event by mistake. message_redelivered is observed on states.
"""
from __future__ import annotations

from hand_built import build, fire, flagged, is_enabled, model, state_bits, witnessing_actions

from invariants import PROPERTIES

SLAVE_PULL = "slave_serves_pull"
COMMIT_SLAVE = "offset_committed_to_slave"
RECOVERS = "master_recovers"
SYNC_LOWERS = "slave_sync_overwrites_offset"
REDELIVERED = "message_redelivered"

PULL = "Pull(consumer=1, queue=0)"
PERSIST_ALL = "PersistAllOffsets(consumer=1)"
SYNC_ALL = "SlaveSyncAll(slave=1)"

BOTH_HOLD_1 = {"master.commitlog": [1], "slave1.commitlog": [1], "producer.nextMessage": 2}
NO_MASTER_ROUTE = {"consumer1.route": [1]}


def test_transition_properties_are_marked_and_the_state_one_is_not():
    for name in (SLAVE_PULL, COMMIT_SLAVE, RECOVERS, SYNC_LOWERS):
        assert PROPERTIES.get(name).on_transitions
    assert not PROPERTIES.get(REDELIVERED).on_transitions


# -- slave_serves_pull -------------------------------------------------------------------------------
def test_pull_routed_to_the_slave_when_the_route_lost_the_master():
    m = model()
    assert witnessing_actions(m, SLAVE_PULL, {**BOTH_HOLD_1, **NO_MASTER_ROUTE}) == [PULL]


def test_pull_routed_to_the_slave_by_a_suggestion():
    m = model()
    assert witnessing_actions(m, SLAVE_PULL, {**BOTH_HOLD_1, "consumer1.q0.suggestWhichBrokerId": 1}) == [PULL]


def test_pull_served_by_the_master_is_no_witness():
    m = model()
    state = build(m, BOTH_HOLD_1)
    assert is_enabled(m, state, PULL)
    assert witnessing_actions(m, SLAVE_PULL, BOTH_HOLD_1) == []


def test_slave_pull_without_messages_is_no_witness():
    m = model()
    # the slave has not replicated message 1 yet: PULL_NOT_FOUND, nothing served (and nothing changes)
    assert witnessing_actions(m, SLAVE_PULL, {**BOTH_HOLD_1, "slave1.commitlog": [], **NO_MASTER_ROUTE}) == []


def test_slave_refusing_pulls_is_no_witness():
    changes = {**BOTH_HOLD_1, **NO_MASTER_ROUTE}
    assert witnessing_actions(model(), SLAVE_PULL, changes) == [PULL]
    assert witnessing_actions(model(mutation="slave_refuses_pull"), SLAVE_PULL, changes) == []


# -- offset_committed_to_slave -----------------------------------------------------------------------
def test_persist_all_lands_on_the_slave_when_the_route_lost_the_master():
    m = model()
    assert witnessing_actions(m, COMMIT_SLAVE, {**NO_MASTER_ROUTE, "consumer1.q0.offset": 1}) == [PERSIST_ALL]


def test_persist_all_to_the_master_is_no_witness():
    m = model()
    state = build(m, {"consumer1.q0.offset": 1})
    assert is_enabled(m, state, PERSIST_ALL)
    assert witnessing_actions(m, COMMIT_SLAVE, {"consumer1.q0.offset": 1}) == []


def test_oneway_commit_to_a_dead_slave_is_no_witness():
    m = model()
    assert witnessing_actions(m, COMMIT_SLAVE, {**NO_MASTER_ROUTE, "consumer1.q0.offset": 1,
                                                "slave1.up": False}) == []


def test_a_commit_the_slave_does_not_store_is_no_witness():
    # the master is gone from the name server: only the slave could take the commit
    changes = {**NO_MASTER_ROUTE, "consumer1.q0.offset": 1, "nameserver.route": [1],
               "master.up": False}
    assert witnessing_actions(model(), COMMIT_SLAVE, changes) == [PERSIST_ALL]
    assert witnessing_actions(model(mutation="slave_drops_offset_commits"), COMMIT_SLAVE, changes) == []


def test_offset_illegal_correction_commits_to_the_slave():
    m = model()
    assert witnessing_actions(m, COMMIT_SLAVE, {**NO_MASTER_ROUTE, "consumer1.q0.dropped": True,
                                                "consumer1.q0.nextOffset": 0, "consumer1.q0.offset": None,
                                                "consumer1.q0.pendingCorrection": 0}) \
        == ["CorrectIllegalOffset(consumer=1, queue=0)"]


def test_offset_illegal_correction_of_a_queue_given_away_commits_to_the_slave():
    """The task outlives the ProcessQueue (§7.4): with no ProcessQueue left it still commits."""
    m = model()
    assert witnessing_actions(m, COMMIT_SLAVE, {**NO_MASTER_ROUTE, "consumer1.q0.owned": False,
                                                "consumer1.q0.offset": None,
                                                "consumer1.q0.pendingCorrection": 1}) \
        == ["CorrectIllegalOffset(consumer=1, queue=0)"]


# -- master_recovers ---------------------------------------------------------------------------------
CRASHED = {"master.up": False, "nameserver.route": [1], "failures.masterCrashes": 1}


def test_master_restart_after_a_failure_is_the_only_witness():
    m = model()
    assert len(m.enabled(build(m, CRASHED))) > 1
    assert witnessing_actions(m, RECOVERS, CRASHED) == ["MasterRestart()"]


def test_a_live_master_gives_no_witness():
    assert witnessing_actions(model(), RECOVERS, {"master.commitlog": [1], "producer.nextMessage": 2}) == []


def test_a_master_that_never_restarts_gives_no_witness():
    m = model(mutation="master_never_restarts")
    assert not is_enabled(m, build(m, CRASHED), "MasterRestart()")
    assert witnessing_actions(m, RECOVERS, CRASHED) == []


# -- slave_sync_overwrites_offset --------------------------------------------------------------------
def test_sync_lowering_the_slave_offset_is_a_witness():
    m = model()
    assert witnessing_actions(m, SYNC_LOWERS, {"master.consumerOffset[0]": 0,
                                               "slave1.consumerOffset[0]": 1}) == [SYNC_ALL]


def test_sync_raising_or_keeping_the_slave_offset_is_no_witness():
    m = model()
    for slave_value in (0, 1, None):
        changes = {"master.consumerOffset[0]": 1, "slave1.consumerOffset[0]": slave_value}
        assert witnessing_actions(m, SYNC_LOWERS, changes) == [], slave_value


def test_sync_from_a_master_without_the_group_key_is_no_witness():
    m = model()
    assert witnessing_actions(m, SYNC_LOWERS, {"master.consumerOffset[0]": None,
                                               "slave1.consumerOffset[0]": 1}) == []


def test_sync_removing_a_queue_only_the_slave_had_is_a_witness():
    m = model(queues=2)
    assert witnessing_actions(m, SYNC_LOWERS, {"master.consumerOffset[0]": 1, "master.consumerOffset[1]": None,
                                               "slave1.consumerOffset[0]": 1, "slave1.consumerOffset[1]": 1}) \
        == [SYNC_ALL]


def test_max_merging_sync_never_lowers():
    m = model(sync_offsets_max=True)
    changes = {"master.consumerOffset[0]": 0, "slave1.consumerOffset[0]": 1}
    assert witnessing_actions(m, SYNC_LOWERS, changes) == []
    target, _ = fire(m, build(m, changes), SYNC_ALL)
    assert m.view(target)["slave1.consumerOffset[0]"] == 1


# -- message_redelivered (observed on states) --------------------------------------------------------
def test_redelivered_history_satisfies_the_property():
    m = model()
    assert flagged(m, REDELIVERED, {"history.delivered": [1], "history.redelivered": True})
    assert not flagged(m, REDELIVERED, {"history.delivered": [1], "history.redelivered": False})


def test_consuming_a_message_a_second_time_is_a_redelivery():
    m = model()
    mask = PROPERTIES.get(REDELIVERED).mask
    base = {"master.commitlog": [1], "producer.nextMessage": 2, "consumer1.q0.nextOffset": 1,
            "consumer1.q0.inFlight": [1], "consumer1.q0.queueOffsetMax": 0}
    again, _ = fire(m, build(m, {**base, "history.delivered": [1]}), "Consume(consumer=1, queue=0)")
    first, _ = fire(m, build(m, {**base, "history.delivered": []}), "Consume(consumer=1, queue=0)")
    assert state_bits(m, again) & mask
    assert not state_bits(m, first) & mask


# -- the availability witnesses: message_acked and message_consumed ----------------------------------
def test_a_send_ok_witnesses_message_acked_and_a_refused_send_does_not():
    m = model(broker_role="SYNC_MASTER")
    mask = PROPERTIES.get("message_acked").mask
    assert not PROPERTIES.get("message_acked").on_transitions
    assert flagged(m, "message_acked", {**BOTH_HOLD_1, "producer.sendOk": [1]})
    assert not flagged(m, "message_acked", {**BOTH_HOLD_1, "producer.sendOk": []})
    # a SYNC_MASTER without a slave connected appends the message but answers SLAVE_NOT_AVAILABLE
    after, _ = fire(m, build(m, {}), "SendMessage()")
    assert not state_bits(m, after) & mask
    assert m.view(after)["master.commitlog"] == [1]


def test_a_delivery_witnesses_message_consumed_and_a_pull_alone_does_not():
    m = model()
    mask = PROPERTIES.get("message_consumed").mask
    base = {"master.commitlog": [1], "producer.nextMessage": 2, "consumer1.q0.nextOffset": 1,
            "consumer1.q0.inFlight": [1], "consumer1.q0.queueOffsetMax": 0}
    pulled = build(m, base)
    assert not state_bits(m, pulled) & mask
    consumed, _ = fire(m, pulled, "Consume(consumer=1, queue=0)")
    assert state_bits(m, consumed) & mask
