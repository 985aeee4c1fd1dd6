"""The consumer's offset paths on hand-built states: RefreshRoute, Rebalance (computePullFromWhere /
queryConsumerOffset), Consume, ConsumeDropped, PersistAllOffsets and CorrectIllegalOffset with its two
pending-task slots (mechanisms §1, §5, §6, §7.4)."""
from __future__ import annotations

import pytest

from handbuilt import NO_FAILURES, assert_disabled, assert_effect, build, fire, model, run
from model.actions import (ConsumerCrash, Consume, ConsumeDropped, CorrectIllegalOffset, PersistAllOffsets, Pull,
                           Rebalance, RefreshRoute)
from model.events import EV_OFFSET_COMMITTED_TO_SLAVE

M = model(messages=3, **NO_FAILURES)
NOSLAVE = model(messages=3, slaves=0, which_broker_when_consume_slowly=0, **NO_FAILURES)
Q2 = model(messages=4, queues=2, consumers=2, **NO_FAILURES)

REBALANCE, PERSIST = Rebalance(consumer=1), PersistAllOffsets(consumer=1)
CONSUME, CORRECT = Consume(consumer=1, queue=0), CorrectIllegalOffset(consumer=1, queue=0)
CONSUME_DROPPED = ConsumeDropped(consumer=1, queue=0)


def q0(**fields):
    return {f"consumer1.q0.{k}": v for k, v in fields.items()}


UNOWNED = q0(owned=False, offset=None)


def state(m=M, master=(1, 2, 3), slave=(1, 2, 3), **fields):
    base = {"master.commitlog": list(master), "producer.nextMessage": m.config.messages + 1}
    if m.config.slaves:
        base["slave1.commitlog"] = list(slave)
    base.update(fields)
    return build(m, **base)


# --- RefreshRoute ------------------------------------------------------------------------------------------
def test_refresh_drops_a_master_the_name_server_no_longer_lists():
    s = state(**{"nameserver.route": [1]})
    assert_effect(M, s, RefreshRoute(consumer=1), {"consumer1.route": [1]}, outcome="")


def test_refresh_learns_a_registered_master():
    s = state(**{"consumer1.route": [1]})
    assert_effect(M, s, RefreshRoute(consumer=1), {"consumer1.route": [0, 1]})


def test_refresh_without_any_route_keeps_the_old_one():
    """No slaves and no master: the name server has no route; the client keeps its table."""
    assert_disabled(NOSLAVE, state(NOSLAVE, **{"nameserver.route": [], "nameserver.topicRoute": False}),
                    RefreshRoute(consumer=1))


def test_refresh_guards():
    assert_disabled(M, state(), RefreshRoute(consumer=1))
    assert_disabled(M, state(**{"consumer1.up": False, "consumer1.route": [1], **UNOWNED}),
                    RefreshRoute(consumer=1))


# --- Rebalance: computePullFromWhere / queryConsumerOffset (§5, §6.2) --------------------------------------
def test_rebalance_takes_the_stored_offset_and_puts_it_in_memory():
    s = state(**{"master.consumerOffset[0]": 2, **UNOWNED})
    assert_effect(M, s, REBALANCE, q0(owned=True, nextOffset=2, offset=2), outcome="")


def test_rebalance_stored_offset_is_used_as_is_even_beyond_the_max():
    s = state(master=(1,), **{"master.consumerOffset[0]": 3, **UNOWNED})
    assert_effect(M, s, REBALANCE, q0(owned=True, nextOffset=3, offset=3))


def test_rebalance_without_stored_offset_on_a_recent_queue_starts_at_zero():
    """queryConsumerOffset: no entry, min <= 0 and entry 0 not "in disk" -> 0."""
    s = state(master=(1, 2), **UNOWNED)
    assert_effect(M, s, REBALANCE, q0(owned=True, offset=0))   # nextOffset was 0 already


def test_rebalance_without_stored_offset_on_an_empty_queue_starts_at_zero():
    s = state(master=(), **{**UNOWNED, **q0(nextOffset=2)})
    assert_effect(M, s, REBALANCE, q0(owned=True, nextOffset=0, offset=0))


def test_rebalance_query_not_found_takes_the_master_max_offset():
    """Entry 0 lies more than the in-memory window behind: QUERY_NOT_FOUND -> readOffset -1 ->
    CONSUME_FROM_LAST_OFFSET: MQAdminImpl#maxOffset from the master; the memory offset stays absent."""
    s = state(**UNOWNED)
    assert_effect(M, s, REBALANCE, q0(owned=True, nextOffset=3))


def test_rebalance_asks_the_slave_when_the_route_lacks_the_master():
    s = state(**{"consumer1.route": [1], "slave1.consumerOffset[0]": 1,
                 "master.consumerOffset[0]": 3, **UNOWNED})
    assert_effect(M, s, REBALANCE, q0(owned=True, nextOffset=1, offset=1))


def test_rebalance_slave_query_not_found_asks_the_master_after_a_route_refresh():
    """maxOffset asks only the master (findBrokerAddressInPublish), refreshing the route once."""
    s = state(**{"consumer1.route": [1], **UNOWNED})
    assert_effect(M, s, REBALANCE, {"consumer1.route": [0, 1], **q0(owned=True, nextOffset=3)})


def test_rebalance_slave_query_not_found_without_master_is_not_taken():
    """No master anywhere: maxOffset throws -> -1: the queue is not taken this round."""
    s = state(**{"consumer1.route": [1], "nameserver.route": [1], **UNOWNED})
    assert_disabled(M, s, REBALANCE)


def test_rebalance_with_a_dead_admin_broker_is_not_taken():
    """readOffset -2 (connection failure) -> computePullFromWhere -1."""
    s = state(**{"master.up": False, "master.consumerOffset[0]": 2, **UNOWNED})
    assert_disabled(M, s, REBALANCE)


def test_rebalance_keeps_a_dropped_queue_that_is_still_assigned():
    s = state(**q0(dropped=True, nextOffset=0, offset=2, pendingCorrection=0))
    assert_disabled(M, s, REBALANCE)


def test_rebalance_guards():
    assert_disabled(M, state(), REBALANCE)
    assert_disabled(M, state(**{"consumer1.up": False, **UNOWNED}), REBALANCE)


def test_rebalance_gives_up_a_queue_assigned_elsewhere_persisting_its_offset():
    """AllocateMessageQueueAveragely over live consumers: consumer 2 is back, so consumer 1 keeps queue 0
    only; queue 1 is dropped: removeUnnecessaryMessageQueue persists its offset and removes it."""
    s = build(Q2, **{"master.commitlog": [1, 2], "producer.nextMessage": 3, "message2.queueOffset": 0,
                     "consumer1.q1.owned": True, "consumer1.q1.nextOffset": 1, "consumer1.q1.offset": 1,
                     "consumer1.q1.suggestWhichBrokerId": 0,
                     "consumer2.q1.owned": False, "consumer2.q1.offset": None,
                     "consumer2.q0.owned": False, "consumer2.q0.offset": None})
    assert_effect(Q2, s, REBALANCE, {"master.consumerOffset[1]": 1, "history.highestCommitted[1]": 1,
                                     "consumer1.q1.owned": False, "consumer1.q1.nextOffset": 0,
                                     "consumer1.q1.offset": None}, outcome="committed (broker 0)")
    assert_effect(Q2, s, Rebalance(consumer=2), {"consumer2.q1.owned": True, "consumer2.q1.offset": 0})


def test_rebalance_giving_a_queue_away_keeps_its_pending_correction_and_in_flight_messages():
    """§7.4: the OFFSET_ILLEGAL task was scheduled with executeTaskLater and outlives the ProcessQueue; §6.1-6.2:
    the messages the consume service already holds are still consumed - they move from the ProcessQueue's
    inFlight to the queue's droppedInFlight, for ConsumeDropped. The ProcessQueue and the memory offset go
    (persisted first)."""
    s = build(Q2, **{"master.commitlog": [1, 2], "producer.nextMessage": 3, "message2.queueOffset": 0,
                     "consumer1.q1.owned": True, "consumer1.q1.dropped": True, "consumer1.q1.nextOffset": 0,
                     "consumer1.q1.offset": 1, "consumer1.q1.inFlight": [2], "consumer1.q1.queueOffsetMax": 0,
                     "consumer1.q1.pendingCorrection": 0,
                     "consumer2.q1.owned": False, "consumer2.q1.offset": None,
                     "consumer2.q0.owned": False, "consumer2.q0.offset": None})
    nxt = assert_effect(Q2, s, REBALANCE, {"master.consumerOffset[1]": 1, "history.highestCommitted[1]": 1,
                                           "consumer1.q1.owned": False, "consumer1.q1.dropped": False,
                                           "consumer1.q1.offset": None, "consumer1.q1.queueOffsetMax": None,
                                           "consumer1.q1.inFlight": [], "consumer1.q1.droppedInFlight": [2]},
                        outcome="committed (broker 0)")
    assert Q2.view(nxt)["consumer1.q1.pendingCorrection"] == 0
    assert_disabled(Q2, nxt, Consume(consumer=1, queue=1))
    assert_effect(Q2, nxt, ConsumeDropped(consumer=1, queue=1),
                  {"history.delivered": [2], "consumer1.q1.droppedInFlight": []})


def test_rebalance_giving_away_a_queue_with_two_pending_tasks_keeps_both():
    s = build(Q2, **{"master.commitlog": [1, 2], "producer.nextMessage": 3, "message2.queueOffset": 0,
                     "consumer1.q1.owned": True, "consumer1.q1.dropped": True, "consumer1.q1.nextOffset": 0,
                     "consumer1.q1.offset": 1, "consumer1.q1.pendingCorrection": 1,
                     "consumer1.q1.laterCorrection": 0, "consumer1.q1.droppedInFlight": [2],
                     "consumer2.q1.owned": False, "consumer2.q1.offset": None,
                     "consumer2.q0.owned": False, "consumer2.q0.offset": None})
    assert_effect(Q2, s, REBALANCE, {"master.consumerOffset[1]": 1, "history.highestCommitted[1]": 1,
                                     "consumer1.q1.owned": False, "consumer1.q1.dropped": False,
                                     "consumer1.q1.offset": None})


def test_rebalance_takes_back_a_queue_whose_correction_is_still_pending():
    """A new ProcessQueue (not dropped, nothing in flight) is created as usual; the old task and the old
    ProcessQueue's messages stay where they are."""
    s = state(**{"master.consumerOffset[0]": 2, **UNOWNED, **q0(droppedInFlight=[1], pendingCorrection=0)})
    assert_effect(M, s, REBALANCE, q0(owned=True, nextOffset=2, offset=2))


def test_initial_rebalance_splits_the_queues():
    v = Q2.view(Q2.initial()[0])
    assert [v[f"consumer{c}.q{q}.owned"] for c in (1, 2) for q in (0, 1)] == [True, False, False, True]


def test_a_lone_consumer_takes_every_queue():
    s = build(Q2, **{"consumer2.up": False, "consumer2.route": [1], "consumer2.q1.owned": False,
                     "consumer2.q1.offset": None})
    assert_effect(Q2, s, REBALANCE, {"consumer1.q1.owned": True, "consumer1.q1.offset": 0})


# --- Consume (§6.1) ----------------------------------------------------------------------------------------
def test_consume_delivers_and_raises_the_memory_offset():
    s = state(**q0(nextOffset=3, offset=0, inFlight=[1, 2, 3], queueOffsetMax=2))
    assert_effect(M, s, CONSUME, {"history.delivered": [1, 2, 3], **q0(offset=3, inFlight=[])},
                  outcome="delivered to the application")


def test_consume_is_increase_only():
    s = state(**{"history.delivered": [1, 2, 3], **q0(nextOffset=3, offset=3, inFlight=[2], queueOffsetMax=1)})
    assert_effect(M, s, CONSUME, {"history.redelivered": True, **q0(inFlight=[])})


def test_consume_inserts_an_absent_offset():
    s = state(**q0(nextOffset=1, offset=None, inFlight=[1], queueOffsetMax=0))
    assert_effect(M, s, CONSUME, {"history.delivered": [1], **q0(offset=1, inFlight=[])})


def test_consume_of_a_dropped_queue_does_not_update_the_offset():
    """§7.4: the dropped ProcessQueue's in-flight consumption no longer updates the offset."""
    s = state(**q0(dropped=True, nextOffset=0, offset=1, inFlight=[2, 3], queueOffsetMax=2))
    assert_effect(M, s, CONSUME, {"history.delivered": [2, 3], **q0(inFlight=[])})


def test_consume_guards():
    assert_disabled(M, state(), CONSUME)
    assert_disabled(M, state(**{"consumer1.up": False, **UNOWNED}), CONSUME)
    assert_disabled(M, state(**UNOWNED), CONSUME)   # nothing in flight
    assert_disabled(M, state(**{"consumer1.up": False, **q0(nextOffset=1, inFlight=[1], queueOffsetMax=0)}),
                    CONSUME)


def test_consume_leaves_a_removed_process_queues_messages_alone():
    """Consume takes only the current ProcessQueue's batch: droppedInFlight is ConsumeDropped's."""
    s = state(**q0(nextOffset=3, offset=2, inFlight=[3], queueOffsetMax=2, droppedInFlight=[1, 2]))
    assert_effect(M, s, CONSUME, {"history.delivered": [3], **q0(offset=3, inFlight=[])})
    assert_disabled(M, state(**q0(nextOffset=3, offset=2, droppedInFlight=[1, 2])), CONSUME)


# --- ConsumeDropped (§6.1-6.2, §7.4) -----------------------------------------------------------------------
def test_consume_dropped_delivers_without_an_offset_update():
    """§6.1-6.2: the queue was given away (or removed by the correction task); the consume service still runs
    the messages it holds, and processConsumeResult skips the offset update of the dropped ProcessQueue."""
    s = state(**{"master.consumerOffset[0]": 0, **UNOWNED, **q0(droppedInFlight=[1, 2])})
    assert_effect(M, s, CONSUME_DROPPED, {"history.delivered": [1, 2], **q0(droppedInFlight=[])},
                  outcome="delivered to the application")


def test_consume_dropped_leaves_the_new_process_queue_alone():
    """The queue was taken back: the new ProcessQueue's offset, batch and queueOffsetMax are its own."""
    s = state(**{"history.delivered": [1], **q0(nextOffset=3, offset=1, inFlight=[2, 3], queueOffsetMax=2,
                                                droppedInFlight=[1])})
    assert_effect(M, s, CONSUME_DROPPED, {"history.redelivered": True, **q0(droppedInFlight=[])})


@pytest.mark.parametrize("delivered, expected", [
    ([], {"history.delivered": [1, 2]}),
    ([2], {"history.delivered": [1, 2], "history.redelivered": True}),
    ([1, 2], {"history.redelivered": True}),
    ([3], {"history.delivered": [1, 2, 3]}),
], ids=["first delivery", "partly delivered", "all delivered", "others delivered"])
def test_consume_dropped_marks_a_redelivery_exactly_when_a_message_was_delivered_before(delivered, expected):
    s = state(**{"history.delivered": delivered, **UNOWNED, **q0(droppedInFlight=[1, 2])})
    assert_effect(M, s, CONSUME_DROPPED, {**expected, **q0(droppedInFlight=[])})


@pytest.mark.parametrize("fields", [
    {},
    q0(nextOffset=1, inFlight=[1], queueOffsetMax=0),
    {**UNOWNED},
    {"consumer1.up": False, "consumer1.route": [1], **UNOWNED, **q0(droppedInFlight=[1])},
], ids=["nothing held", "only the current ProcessQueue's batch", "not owned", "consumer down"])
def test_consume_dropped_guards(fields):
    assert_disabled(M, state(**fields), CONSUME_DROPPED)


# --- PersistAllOffsets (§6.1) ------------------------------------------------------------------------------
def test_persist_all_goes_to_the_master_when_the_route_lists_it():
    s = state(**q0(offset=2))
    nxt, flags = fire(M, s, PERSIST)
    assert not flags & EV_OFFSET_COMMITTED_TO_SLAVE
    assert_effect(M, s, PERSIST, {"master.consumerOffset[0]": 2, "history.highestCommitted[0]": 2},
                  outcome="committed (broker 0)")


def test_persist_all_goes_to_the_lowest_slave_otherwise():
    s = state(**{"consumer1.route": [1], **q0(offset=2)})
    assert_effect(M, s, PERSIST, {"slave1.consumerOffset[0]": 2, "history.highestCommitted[0]": 2},
                  outcome="committed (broker 1)")
    assert fire(M, s, PERSIST)[1] & EV_OFFSET_COMMITTED_TO_SLAVE


def test_persist_all_is_a_plain_overwrite():
    s = state(**{"master.consumerOffset[0]": 3, "history.highestCommitted[0]": 3, **q0(offset=1)})
    assert_effect(M, s, PERSIST, {"master.consumerOffset[0]": 1})


def test_persist_all_oneway_to_a_dead_broker_is_lost():
    s = state(**{"master.up": False, **q0(offset=2)})
    assert_disabled(M, s, PERSIST)   # the oneway changes nothing anywhere


def test_persist_all_without_route_refreshes_once():
    s = state(NOSLAVE, **{"consumer1.route": [], **q0(offset=2)})
    assert_effect(NOSLAVE, s, PERSIST, {"consumer1.route": [0], "master.consumerOffset[0]": 2,
                                        "history.highestCommitted[0]": 2})


def test_persist_all_includes_a_dropped_queue_still_in_the_table():
    s = state(**q0(dropped=True, offset=2))
    assert_effect(M, s, PERSIST, {"master.consumerOffset[0]": 2, "history.highestCommitted[0]": 2})


def test_persist_all_every_owned_queue():
    s = build(Q2, **{"consumer2.up": False, "consumer2.route": [1], "consumer2.q1.owned": False,
                     "consumer2.q1.offset": None, "consumer1.q1.owned": True, "consumer1.q1.offset": 1,
                     "consumer1.q0.offset": 2})
    assert_effect(Q2, s, PERSIST, {"master.consumerOffset[0]": 2, "master.consumerOffset[1]": 1,
                                   "history.highestCommitted[0]": 2, "history.highestCommitted[1]": 1})


def test_persist_all_guards():
    assert_disabled(M, state(**q0(offset=None)), PERSIST)
    assert_disabled(M, state(**{"consumer1.up": False, **UNOWNED}), PERSIST)
    assert_disabled(M, state(**{"master.consumerOffset[0]": 0}), PERSIST)   # same value: no change


# --- CorrectIllegalOffset (§7.4) ---------------------------------------------------------------------------
def test_correction_overwrites_persists_and_drops_the_queue():
    """updateOffset(mq, nextOffset, increaseOnly=false), persist (a plain overwrite on the broker: the
    committed offset may go down), then removeProcessQueue; the task is done."""
    s = state(**{"master.consumerOffset[0]": 3, "history.highestCommitted[0]": 3,
                 **q0(dropped=True, nextOffset=0, offset=3, pendingCorrection=0)})
    assert_effect(M, s, CORRECT, {"master.consumerOffset[0]": 0,
                                  **q0(owned=False, dropped=False, offset=None, pendingCorrection=None)},
                  outcome="committed (broker 0)")


def test_correction_upward():
    s = state(**q0(dropped=True, nextOffset=2, offset=0, pendingCorrection=2))
    assert_effect(M, s, CORRECT, {"master.consumerOffset[0]": 2, "history.highestCommitted[0]": 2,
                                  **q0(owned=False, dropped=False, nextOffset=0, offset=None,
                                       pendingCorrection=None)})


def test_correction_to_a_slave_when_the_route_lacks_the_master():
    s = state(**{"consumer1.route": [1], **q0(dropped=True, nextOffset=1, offset=0, pendingCorrection=1)})
    assert_effect(M, s, CORRECT, {"slave1.consumerOffset[0]": 1, "history.highestCommitted[0]": 1,
                                  **q0(owned=False, dropped=False, nextOffset=0, offset=None,
                                       pendingCorrection=None)},
                  outcome="committed (broker 1)")


def test_correction_with_a_dead_admin_broker_still_drops_the_queue():
    """The oneway is lost; the ProcessQueue and memory offset go; its in-flight message stays with the consume
    service (delivered later by ConsumeDropped, without an offset update)."""
    s = state(**{"master.up": False, **q0(dropped=True, nextOffset=1, offset=2, inFlight=[3], queueOffsetMax=2,
                                          pendingCorrection=1)})
    nxt = assert_effect(M, s, CORRECT, q0(owned=False, dropped=False, nextOffset=0, offset=None, inFlight=[],
                                          queueOffsetMax=None, pendingCorrection=None, droppedInFlight=[3]),
                        outcome="oneway to a dead broker lost (broker 0)")
    assert_disabled(M, nxt, CONSUME)
    assert_effect(M, nxt, CONSUME_DROPPED, {"history.delivered": [3], **q0(droppedInFlight=[])})


def test_correction_keeps_the_pull_suggestion():
    s = state(**q0(dropped=True, nextOffset=1, offset=1, suggestWhichBrokerId=1, pendingCorrection=1))
    nxt, _ = fire(M, s, CORRECT)
    assert M.view(nxt)["consumer1.q0.suggestWhichBrokerId"] == 1


def test_correction_without_a_process_queue_commits_and_leaves_no_memory_offset():
    """The queue was given away since: the task still writes and persists its nextOffset (to the admin broker
    of this client's route), and removeProcessQueue finds nothing - the memory entry is dropped at once."""
    s = state(**{"master.consumerOffset[0]": 3, "history.highestCommitted[0]": 3,
                 **UNOWNED, **q0(pendingCorrection=1)})
    assert_effect(M, s, CORRECT, {"master.consumerOffset[0]": 1, **q0(pendingCorrection=None)},
                  outcome="committed (broker 0)")


def test_correction_without_a_process_queue_keeps_the_orphan_messages():
    s = state(**{"consumer1.route": [1], **UNOWNED, **q0(droppedInFlight=[2], pendingCorrection=2)})
    assert_effect(M, s, CORRECT, {"slave1.consumerOffset[0]": 2, "history.highestCommitted[0]": 2,
                                  **q0(pendingCorrection=None)}, outcome="committed (broker 1)")


def test_correction_removes_a_new_process_queue_taken_since():
    """removeProcessQueue(mq) removes whatever ProcessQueue the table holds: a new one taken after a
    rebalance gave the queue away and back is removed too (persisting the task's value, not its offset)."""
    s = state(**q0(owned=True, dropped=False, nextOffset=3, offset=2, inFlight=[3], queueOffsetMax=2,
                   pendingCorrection=1))
    nxt = assert_effect(M, s, CORRECT, {"master.consumerOffset[0]": 1, "history.highestCommitted[0]": 1,
                                        **q0(owned=False, nextOffset=0, offset=None, inFlight=[],
                                             queueOffsetMax=None, pendingCorrection=None, droppedInFlight=[3])})
    assert_effect(M, nxt, CONSUME_DROPPED, {"history.delivered": [3], **q0(droppedInFlight=[])})   # no offset


@pytest.mark.parametrize("fields", [
    q0(nextOffset=1, offset=1),
    q0(dropped=True, nextOffset=1, offset=1),
    {**UNOWNED},
    {**UNOWNED, **q0(droppedInFlight=[1])},
    {"consumer1.up": False, **UNOWNED, **q0(pendingCorrection=1)},
], ids=["nothing pending", "dropped, nothing pending", "not owned", "orphans only", "consumer down"])
def test_correction_guards(fields):
    assert_disabled(M, state(**fields), CORRECT)


# --- the OFFSET_ILLEGAL task outlives a rebalance that gives the queue away (§7.4) -------------------------
LATE = model(messages=2, consumers=2, max_consumer_restarts=1, **NO_FAILURES)
CRASH = model(messages=3, max_consumer_restarts=1, **NO_FAILURES)
LATE2 = model(messages=2, consumers=2, max_consumer_restarts=2, **NO_FAILURES)


def handed_over(m, **fields):
    """Consumer 1 is back and the group committed 2; consumer 2 still owns queue 0."""
    base = {"master.commitlog": [1, 2], "producer.nextMessage": 3, "master.consumerOffset[0]": 2,
            "history.highestCommitted[0]": 2, "failures.consumerRestarts": 1,
            "consumer1.q0.owned": False, "consumer1.q0.offset": None, "consumer2.q0.owned": True}
    return build(m, **{**base, **fields})


def test_correction_still_runs_after_a_rebalance_gave_the_queue_away():
    """Consumer 2 owns queue 0 with a pending correction to 0; consumer 1 is back, so consumer 2's rebalance
    gives the queue up (persisting 2) but keeps the task. The task then still commits 0 to the master, and
    consumer 1, taking the queue, starts from 0 (mechanisms §7.4: executeTaskLater runs whatever happened)."""
    s = handed_over(LATE, **{"consumer2.q0.dropped": True, "consumer2.q0.nextOffset": 0, "consumer2.q0.offset": 2,
                             "consumer2.q0.pendingCorrection": 0})
    s = assert_effect(LATE, s, Rebalance(consumer=2), {"consumer2.q0.owned": False, "consumer2.q0.dropped": False,
                                                       "consumer2.q0.offset": None}, outcome="committed (broker 0)")
    assert LATE.view(s)["consumer2.q0.pendingCorrection"] == 0
    s = assert_effect(LATE, s, CorrectIllegalOffset(consumer=2, queue=0),
                      {"master.consumerOffset[0]": 0, "consumer2.q0.pendingCorrection": None},
                      outcome="committed (broker 0)")
    assert_effect(LATE, s, Rebalance(consumer=1), {"consumer1.q0.owned": True, "consumer1.q0.offset": 0})


def test_correction_removes_the_process_queue_taken_back_since():
    """Consumer 2 gives the queue away with its task pending, consumer 1 crashes, consumer 2 takes the queue
    back (a new ProcessQueue at the committed 2) - and the old task removes that new ProcessQueue."""
    s = handed_over(LATE2, **{"consumer2.q0.dropped": True, "consumer2.q0.nextOffset": 0, "consumer2.q0.offset": 2,
                              "consumer2.q0.pendingCorrection": 0})
    s = LATE2.next_state(s, Rebalance(consumer=2))
    s = LATE2.next_state(s, ConsumerCrash(consumer=1))
    s = assert_effect(LATE2, s, Rebalance(consumer=2), {"consumer2.q0.owned": True, "consumer2.q0.nextOffset": 2,
                                                        "consumer2.q0.offset": 2})
    assert_effect(LATE2, s, CorrectIllegalOffset(consumer=2, queue=0),
                  {"master.consumerOffset[0]": 0, "consumer2.q0.owned": False, "consumer2.q0.nextOffset": 0,
                   "consumer2.q0.offset": None, "consumer2.q0.pendingCorrection": None},
                  outcome="committed (broker 0)")


def test_in_flight_consumption_of_a_queue_given_away_still_delivers():
    """§6.1/§6.2: a rebalance that gives a queue away only marks its ProcessQueue dropped; the consumption
    already running delivers its messages (ConsumeDropped) without an offset update, and the new owner,
    starting from the committed offset, delivers them again."""
    s = handed_over(LATE, **{"master.consumerOffset[0]": 0, "history.highestCommitted[0]": 0,
                             "consumer2.q0.nextOffset": 2, "consumer2.q0.offset": 0, "consumer2.q0.inFlight": [1, 2],
                             "consumer2.q0.queueOffsetMax": 1})
    s = assert_effect(LATE, s, Rebalance(consumer=2), {"consumer2.q0.owned": False, "consumer2.q0.nextOffset": 0,
                                                       "consumer2.q0.offset": None, "consumer2.q0.inFlight": [],
                                                       "consumer2.q0.queueOffsetMax": None,
                                                       "consumer2.q0.droppedInFlight": [1, 2]})
    assert_disabled(LATE, s, Consume(consumer=2, queue=0))
    s = assert_effect(LATE, s, ConsumeDropped(consumer=2, queue=0), {"history.delivered": [1, 2],
                                                                    "consumer2.q0.droppedInFlight": []},
                      outcome="delivered to the application")
    s = run(LATE, s, ["Rebalance(consumer=1)", "Pull(consumer=1, queue=0)", "Consume(consumer=1, queue=0)"])
    assert LATE.view(s)["history.redelivered"] is True


# --- a removed ProcessQueue's messages next to a new ProcessQueue (§6.1, §7.4) -------------------------------
# Were strict xfails while the orphans shared the new ProcessQueue's in-flight set; the model change that
# gave them their own droppedInFlight set and the ConsumeDropped action fixed both.
PULL = Pull(consumer=1, queue=0)


def retaken_with_orphans():
    """Consumer 1 gave queue 0 away with messages 1 and 2 still in the consume service, then took it back: no
    offset is stored and entry 0 lies "in disk", so the new ProcessQueue starts at the master's max offset 3
    with no memory offset. The new ProcessQueue itself holds nothing."""
    s = state(**{**UNOWNED, **q0(droppedInFlight=[1, 2])})
    return assert_effect(M, s, REBALANCE, q0(owned=True, nextOffset=3))


def test_orphans_consumed_under_a_new_empty_process_queue_update_no_offset():
    """The orphans' ConsumeRequest holds the old, dropped ProcessQueue: processConsumeResult updates no offset,
    so nothing reaches the broker either; the new ProcessQueue has no batch to consume."""
    s = retaken_with_orphans()
    assert_disabled(M, s, CONSUME)
    s = assert_effect(M, s, CONSUME_DROPPED, {"history.delivered": [1, 2], **q0(droppedInFlight=[])})
    assert M.view(s)["consumer1.q0.offset"] is None
    assert_disabled(M, s, PERSIST)   # no memory offset: persistAll sends nothing


def test_no_new_msg_on_a_new_process_queue_ignores_the_orphans():
    """correctTagsOffset tests the NEW ProcessQueue's msgCount, which is 0: NO_NEW_MSG puts nextOffset 3 in
    memory although the old ProcessQueue's messages are still being consumed."""
    s = retaken_with_orphans()
    assert_effect(M, s, PULL, q0(offset=3), outcome="NO_NEW_MSG from broker 0")


def test_found_on_a_new_process_queue_keeps_the_orphans_apart():
    """The new ProcessQueue's FOUND batch and its offset update are its own; the orphans are delivered apart."""
    s = build(M, **{"master.commitlog": [1, 2], "slave1.commitlog": [1, 2], "producer.nextMessage": 3,
                    **UNOWNED, **q0(droppedInFlight=[1])})
    s = assert_effect(M, s, REBALANCE, q0(owned=True, offset=0))
    s = assert_effect(M, s, PULL, q0(nextOffset=2, inFlight=[1, 2], queueOffsetMax=1),
                      outcome="FOUND from broker 0")
    s = assert_effect(M, s, CONSUME, {"history.delivered": [1, 2], **q0(offset=2, inFlight=[])})
    assert_effect(M, s, CONSUME_DROPPED, {"history.redelivered": True, **q0(droppedInFlight=[])})


# --- two pending OFFSET_ILLEGAL tasks per queue, oldest first (§7.4) ------------------------------------------
# test_a_second_offset_illegal_does_not_cancel_the_first_task was a strict xfail while the model had one slot.
def test_a_first_offset_illegal_fills_pending_correction_only():
    s = state(master=(1,), slave=(1,), **q0(nextOffset=3, offset=None))
    assert_effect(M, s, PULL, q0(nextOffset=0, dropped=True, pendingCorrection=0),
                  outcome="OFFSET_ILLEGAL from broker 0")


def test_a_second_offset_illegal_does_not_cancel_the_first_task():
    """A second OFFSET_ILLEGAL on a ProcessQueue taken back while the first task is still pending schedules a
    second task; both run, the older first (same 10 s delay), so the broker briefly holds the first value."""
    s = state(master=(1,), slave=(1,), **q0(nextOffset=3, offset=None, pendingCorrection=2))
    s = assert_effect(M, s, PULL, q0(nextOffset=0, dropped=True, laterCorrection=0),
                      outcome="OFFSET_ILLEGAL from broker 0")
    s = assert_effect(M, s, CORRECT, {"master.consumerOffset[0]": 2, "history.highestCommitted[0]": 2,
                                      **q0(owned=False, dropped=False, pendingCorrection=0,
                                           laterCorrection=None)}, outcome="committed (broker 0)")
    s = assert_effect(M, s, CORRECT, {"master.consumerOffset[0]": 0, **q0(pendingCorrection=None)},
                      outcome="committed (broker 0)")
    assert_disabled(M, s, CORRECT)


def test_the_older_task_removes_the_new_dropped_process_queue_and_the_later_one_finds_none():
    """removeProcessQueue in the older task removes the ProcessQueue the second OFFSET_ILLEGAL dropped (its
    batch goes to droppedInFlight); the later task then only writes and persists its own nextOffset."""
    s = state(**{"consumer1.route": [1],
                 **q0(dropped=True, nextOffset=1, offset=2, inFlight=[2], queueOffsetMax=1, pendingCorrection=3,
                      laterCorrection=1)})
    s = assert_effect(M, s, CORRECT, {"slave1.consumerOffset[0]": 3, "history.highestCommitted[0]": 3,
                                      **q0(owned=False, dropped=False, nextOffset=0, offset=None, inFlight=[],
                                           queueOffsetMax=None, pendingCorrection=1, laterCorrection=None,
                                           droppedInFlight=[2])}, outcome="committed (broker 1)")
    assert_effect(M, s, CORRECT, {"slave1.consumerOffset[0]": 1, **q0(pendingCorrection=None)},
                  outcome="committed (broker 1)")


def test_a_third_offset_illegal_is_left_out_while_two_tasks_are_pending():
    """A third OFFSET_ILLEGAL within the two tasks' 10 s is beyond the model's bounds: only that outcome of
    the pull is left out; a pull answering FOUND or NO_NEW_MSG still happens."""
    one = q0(nextOffset=3, offset=None, pendingCorrection=2)
    assert_effect(M, state(**one), PULL, q0(offset=3), outcome="NO_NEW_MSG from broker 0")
    two = q0(nextOffset=3, offset=None, pendingCorrection=2, laterCorrection=0)
    assert_effect(M, state(**two), PULL, q0(offset=3), outcome="NO_NEW_MSG from broker 0")
    # the queue lost its messages (a power loss): offset 3 is now illegal, a third task would be needed
    assert_disabled(M, state(master=(1,), slave=(1,), **two), PULL)
    s = state(**q0(nextOffset=0, offset=0, pendingCorrection=2, laterCorrection=0))
    assert_effect(M, s, PULL, q0(nextOffset=3, inFlight=[1, 2, 3], queueOffsetMax=2),
                  outcome="FOUND from broker 0")


def test_consumer_crash_clears_both_tasks_and_the_dropped_messages():
    """executeTaskLater's tasks and the consume service's threads die with the process."""
    s = state(CRASH, **q0(dropped=True, nextOffset=0, offset=1, inFlight=[3], queueOffsetMax=2,
                          pendingCorrection=1, laterCorrection=0, droppedInFlight=[1, 2]))
    assert_effect(CRASH, s, ConsumerCrash(consumer=1), {
        "consumer1.up": False, "consumer1.route": [], "failures.consumerRestarts": 1,
        **q0(owned=False, dropped=False, offset=None, inFlight=[], queueOffsetMax=None, pendingCorrection=None,
             laterCorrection=None, droppedInFlight=[])})


def test_two_tasks_from_the_initial_state():
    """Found by breadth-first search for a state with two pending tasks (the shortest path, 13 steps):
    consumer 2 takes queue 0 while consumer 1 is down, consumes message 1 (memory offset 1) and loses it to a
    master power loss; its pull at 1 gets OFFSET_ILLEGAL (committing 1 on the way), task one (to 0) waits.
    Consumer 1 comes back and consumer 2 gives the queue away (persisting 1); consumer 1 dies again before
    its rebalance, consumer 2 takes the queue back at the stored 1, and OFFSET_ILLEGAL again: task two."""
    m = model(messages=1, consumers=2, max_consumer_restarts=2, max_master_crashes=0, max_master_power_losses=1)
    s = run(m, m.initial()[0], [
        "SendMessage()", "ConsumerCrash(consumer=1)", "Rebalance(consumer=2)", "Pull(consumer=2, queue=0)",
        "Consume(consumer=2, queue=0)", "MasterPowerLoss()", "MasterRestart()", "Pull(consumer=2, queue=0)",
        "ConsumerRestart(consumer=1)", "Rebalance(consumer=2)", "ConsumerCrash(consumer=1)",
        "Rebalance(consumer=2)"])
    v = m.view(s)
    assert (v["consumer2.q0.owned"], v["consumer2.q0.nextOffset"], v["consumer2.q0.pendingCorrection"],
            v["master.consumerOffset[0]"]) == (True, 1, 0, 1)
    labels = ["Pull(consumer=2, queue=0)", "CorrectIllegalOffset(consumer=2, queue=0)",
              "CorrectIllegalOffset(consumer=2, queue=0)"]
    after = []
    for label in labels:
        s = run(m, s, [label])
        v = m.view(s)
        after.append((v["consumer2.q0.dropped"], v["consumer2.q0.pendingCorrection"],
                      v["consumer2.q0.laterCorrection"], v["master.consumerOffset[0]"]))
    assert after == [(True, 0, 0, 1), (False, 0, None, 0), (False, None, None, 0)]


# --- over every reachable state of a small configuration -------------------------------------------------------
def reachable(m):
    """Every state reachable from the initial one (plain breadth-first search over ``enabled``)."""
    seen, frontier = {m.initial()[0]}, [m.initial()[0]]
    while frontier:
        frontier = [t for s in frontier for _, t, _ in m.enabled(s) if not (t in seen or seen.add(t))]
    return seen


def test_a_removed_process_queues_messages_never_sit_in_a_process_queue():
    """Two consumers, one restart: queues are given away with messages in flight. In every reachable state only
    an owned queue has an in-flight batch; the given-away batches are in droppedInFlight, and only
    ConsumeDropped delivers them."""
    m = model(messages=1, consumers=2, max_consumer_restarts=1, **NO_FAILURES)
    keys = [(f"consumer{c}.q0", c) for c in (1, 2)]
    orphans = 0
    for s in reachable(m):
        v = m.view(s)
        for k, c in keys:
            assert v[f"{k}.owned"] or not v[f"{k}.inFlight"], v
            labels = {str(a) for a, _, _ in m.enabled(s)}
            assert (f"ConsumeDropped(consumer={c}, queue=0)" in labels) == bool(v[f"{k}.droppedInFlight"]
                                                                              and v[f"consumer{c}.up"]), v
            orphans += bool(v[f"{k}.droppedInFlight"])
    assert orphans > 0
