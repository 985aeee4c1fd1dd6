"""Pull on hand-built states: client routing, ``DefaultMessageStore#getMessage`` statuses and
``nextBeginOffset``, ``PullMessageProcessor`` suggestion and commit-on-pull, and the ``PullCallback``
(mechanisms §7.1-§7.4, §10 V4 and V6)."""
from __future__ import annotations

import pytest

from handbuilt import NO_FAILURES, assert_disabled, assert_effect, build, fire, model
from model.actions import Pull
from model.events import EV_SLAVE_SERVED_PULL

M = model(messages=3, **NO_FAILURES)
TWO = model(messages=3, slaves=2, **NO_FAILURES)
NOSLAVE = model(messages=3, slaves=0, which_broker_when_consume_slowly=0, **NO_FAILURES)
CHECK = model(messages=3, offset_check_in_slave=True, **NO_FAILURES)
V4 = model(messages=3, overflow_to_max=True, **NO_FAILURES)
READ = model(messages=3, slaves=2, slave_read_enable=True, group_broker_id=2,
             which_broker_when_consume_slowly=1, **NO_FAILURES)
Q2 = model(messages=4, queues=2, **NO_FAILURES)
Q2_CHECK = model(messages=4, queues=2, offset_check_in_slave=True, **NO_FAILURES)
SLOW = model(messages=2, queues=2, slave_read_enable=True, group_broker_id=0,
             which_broker_when_consume_slowly=1, consume_slowly_backlog=0, **NO_FAILURES)

PULL = Pull(consumer=1, queue=0)


def state(m=M, master=(1, 2, 3), slave=(1, 2), **fields):
    """Master and slave 1 hold the given logs; consumer 1 owns queue 0 (offset 0, pull position 0)."""
    base = {"master.commitlog": list(master), "producer.nextMessage": m.config.messages + 1}
    if m.config.slaves:
        base["slave1.commitlog"] = list(slave)
    base.update(fields)
    return build(m, **base)


def q0(**fields):
    """Consumer 1's queue-0 fields by short name: ``q0(nextOffset=2)``."""
    return {f"consumer1.q0.{k}": v for k, v in fields.items()}


def offset_illegal(next_offset):
    """The PullCallback's OFFSET_ILLEGAL branch: ``nextOffset := nextBeginOffset``, the ProcessQueue is
    dropped, and the correction task is pending with that ``nextOffset`` (run 10 s later, §7.4)."""
    return q0(nextOffset=next_offset, dropped=True, pendingCorrection=next_offset)


# --- routing (§7.1) ----------------------------------------------------------------------------------------
def test_found_from_the_master_by_default():
    s = state()
    nxt, flags = fire(M, s, PULL)
    assert_effect(M, s, PULL, q0(nextOffset=3, inFlight=[1, 2, 3], queueOffsetMax=2), outcome="FOUND from broker 0")
    assert not flags & EV_SLAVE_SERVED_PULL


def test_route_without_master_falls_back_to_the_lowest_slave():
    """findBrokerAddressInSubscribe: brokerId 0 absent -> the first HashMap entry, slave 1."""
    s = state(TWO, **{"consumer1.route": [1], "slave2.commitlog": [1]})
    assert_effect(TWO, s, PULL, q0(nextOffset=2, inFlight=[1, 2], queueOffsetMax=1), outcome="FOUND from broker 1")
    assert fire(TWO, s, PULL)[1] & EV_SLAVE_SERVED_PULL


@pytest.mark.parametrize("slave", [1, 2])
def test_suggestion_routes_to_exactly_that_slave(slave):
    s = state(TWO, **{"slave2.commitlog": [1], **q0(suggestWhichBrokerId=slave)})
    expected = {1: q0(nextOffset=2, inFlight=[1, 2], queueOffsetMax=1, suggestWhichBrokerId=0),
                2: q0(nextOffset=1, inFlight=[1], queueOffsetMax=0, suggestWhichBrokerId=0)}[slave]
    assert_effect(TWO, s, PULL, expected, outcome=f"FOUND from broker {slave}")


def test_no_broker_in_the_route_refreshes_it_once():
    s = state(NOSLAVE, **{"consumer1.route": []})
    assert_effect(NOSLAVE, s, PULL, {"consumer1.route": [0],
                                     **q0(nextOffset=3, inFlight=[1, 2, 3], queueOffsetMax=2)})


def test_broker_not_exist_changes_nothing():
    s = state(NOSLAVE, **{"consumer1.route": [], "nameserver.route": [], "nameserver.topicRoute": False})
    assert_disabled(NOSLAVE, s, PULL)


def test_pull_from_a_dead_broker_keeps_the_suggestion():
    """§7.1: a pull that throws leaves the suggestion unchanged (retried after 3 000)."""
    assert_disabled(M, state(**{"master.up": False}), PULL)
    assert_disabled(TWO, state(TWO, **{"slave2.up": False, **q0(suggestWhichBrokerId=2)}), PULL)


@pytest.mark.parametrize("fields", [
    {"consumer1.up": False, **q0(owned=False, offset=None)},
    q0(owned=False, offset=None),
    q0(dropped=True),
], ids=["consumer down", "queue not owned", "ProcessQueue dropped"])
def test_pull_guards(fields):
    assert_disabled(M, state(**fields), PULL)


# --- commit on pull (§7.3) ---------------------------------------------------------------------------------
def test_commit_on_pull_to_the_master_when_memory_offset_is_positive():
    s = state(**q0(nextOffset=1, offset=1))
    assert_effect(M, s, PULL, {"master.consumerOffset[0]": 1, "history.highestCommitted[0]": 1,
                               **q0(nextOffset=3, inFlight=[2, 3], queueOffsetMax=2)})


def test_commit_on_pull_whatever_the_status():
    s = state(**q0(nextOffset=3, offset=3))
    assert_effect(M, s, PULL, {"master.consumerOffset[0]": 3, "history.highestCommitted[0]": 3},
                  outcome="NO_NEW_MSG from broker 0")


def test_commit_on_pull_is_a_plain_overwrite():
    """§5 commitOffset: a smaller value overwrites (only a log line)."""
    s = state(**{"master.consumerOffset[0]": 3, "history.highestCommitted[0]": 3, **q0(nextOffset=1, offset=1)})
    assert_effect(M, s, PULL, {"master.consumerOffset[0]": 1, **q0(nextOffset=3, inFlight=[2, 3], queueOffsetMax=2)})


@pytest.mark.parametrize("offset", [None, 0])
def test_no_commit_flag_unless_memory_offset_is_positive(offset):
    s = state(**q0(offset=offset))
    nxt, _ = fire(M, s, PULL)
    assert M.view(nxt)["master.consumerOffset[0]"] is None


def test_no_commit_when_the_target_is_a_slave():
    """PullAPIWrapper clears the commit flag for a slave; a slave never commits on pull (role check)."""
    s = state(**{"consumer1.route": [1], **q0(nextOffset=1, offset=1)})
    assert_effect(M, s, PULL, q0(nextOffset=2, inFlight=[2], queueOffsetMax=1), outcome="FOUND from broker 1")


# --- getMessage statuses on the master: corr(x) = x (§7.2) -------------------------------------------------
def test_found_returns_every_entry_from_off_to_the_end():
    s = state(**q0(nextOffset=1, offset=1))
    nxt, _ = fire(M, s, PULL)
    v = M.view(nxt)
    assert (v["consumer1.q0.inFlight"], v["consumer1.q0.nextOffset"], v["consumer1.q0.queueOffsetMax"]) == \
        ([2, 3], 3, 2)


def test_found_keeps_messages_already_in_flight_and_the_pq_max():
    s = state(**{"master.commitlog": [1, 2, 3], **q0(nextOffset=1, inFlight=[1], queueOffsetMax=0)})
    assert_effect(M, s, PULL, q0(nextOffset=3, inFlight=[1, 2, 3], queueOffsetMax=2))


def test_no_message_in_queue_at_offset_zero_is_no_new_msg():
    """max == 0, off == 0: PULL_NOT_FOUND -> NO_NEW_MSG; correctTagsOffset puts 0 in memory if absent."""
    s = state(master=(), slave=(), **q0(offset=None))
    assert_effect(M, s, PULL, q0(offset=0), outcome="NO_NEW_MSG from broker 0")
    assert_disabled(M, state(master=(), slave=()), PULL)   # offset already 0: nothing changes


def test_no_message_in_queue_at_a_positive_offset_is_offset_illegal():
    """max == 0, off != 0: PULL_OFFSET_MOVED with corr(0) = 0 -> OFFSET_ILLEGAL, ProcessQueue dropped."""
    s = state(master=(), slave=(), **q0(nextOffset=2, offset=2))
    assert_effect(M, s, PULL, {"master.consumerOffset[0]": 2, "history.highestCommitted[0]": 2,
                               **offset_illegal(0)}, outcome="OFFSET_ILLEGAL from broker 0")


def test_offset_overflow_one_is_no_new_msg_and_keeps_off():
    s = state(**q0(nextOffset=3, offset=None))
    assert_effect(M, s, PULL, q0(offset=3), outcome="NO_NEW_MSG from broker 0")


def test_no_new_msg_with_messages_in_flight_leaves_the_offset():
    """correctTagsOffset updates only when the ProcessQueue is empty."""
    s = state(**q0(nextOffset=3, offset=None, inFlight=[3], queueOffsetMax=2))
    assert_disabled(M, s, PULL)


def test_no_new_msg_offset_update_is_increase_only():
    s = state(master=(1,), slave=(1,), **q0(nextOffset=1, offset=None))
    assert_effect(M, s, PULL, q0(offset=1))
    s = state(master=(1,), slave=(1,), **{"master.consumerOffset[0]": 2, "history.highestCommitted[0]": 2,
                                          **q0(nextOffset=1, offset=2)})
    assert_disabled(M, s, PULL)   # commits 2 again (no change); the memory offset stays 2


def test_offset_overflow_badly_with_min_zero_corrects_to_zero():
    s = state(master=(1,), slave=(1,), **q0(nextOffset=3))
    assert_effect(M, s, PULL, offset_illegal(0), outcome="OFFSET_ILLEGAL from broker 0")


def test_v4_corrects_an_overflow_to_max_whatever_the_min():
    s = state(V4, master=(1,), slave=(1,), **q0(nextOffset=3))
    assert_effect(V4, s, PULL, offset_illegal(1), outcome="OFFSET_ILLEGAL from broker 0")


def q2_state(m, **fields):
    """Two queues; queue 0 of the master and slave holds only message 3 at queue offset 1 (min 1)."""
    base = {"master.commitlog": [3], "slave1.commitlog": [3], "message3.queueOffset": 1,
            "producer.nextMessage": 5}
    base.update(fields)
    return build(m, **base)


def test_offset_too_small_corrects_to_min():
    s = q2_state(Q2)
    assert_effect(Q2, s, PULL, offset_illegal(1), outcome="OFFSET_ILLEGAL from broker 0")


def test_offset_overflow_badly_with_min_above_zero_corrects_to_max():
    s = q2_state(Q2, **q0(nextOffset=3))   # off 3 > max 2, min 1
    assert_effect(Q2, s, PULL, offset_illegal(2), outcome="OFFSET_ILLEGAL from broker 0")


def test_found_above_min_returns_the_queue_offsets_of_the_messages():
    s = q2_state(Q2, **q0(nextOffset=1))
    assert_effect(Q2, s, PULL, q0(nextOffset=2, inFlight=[3], queueOffsetMax=1))


# --- getMessage on a slave: corr(x) = off unless offsetCheckInSlave (§7.2, §7.3, V6) -------------------------
SLAVE_ROUTE = {"consumer1.route": [1]}


def test_slave_serves_found_even_without_slave_read_enable():
    """§7.3 step 2: the PULL_RETRY_IMMEDIATELY of a slave without slaveReadEnable is always overwritten."""
    s = state(**SLAVE_ROUTE)
    assert not M.config.slave_read_enable
    assert_effect(M, s, PULL, q0(nextOffset=2, inFlight=[1, 2], queueOffsetMax=1), outcome="FOUND from broker 1")


def test_slave_no_message_in_queue_at_zero_is_no_new_msg():
    s = state(slave=(), **SLAVE_ROUTE, **q0(offset=None))
    assert_effect(M, s, PULL, q0(offset=0), outcome="NO_NEW_MSG from broker 1")


def test_slave_offset_moved_becomes_retry_immediately_at_the_requested_offset():
    """§7.3: a slave without offsetCheckInSlave answers PULL_RETRY_IMMEDIATELY, nextBeginOffset = off,
    suggestion = the group's brokerId."""
    s = state(slave=(), **SLAVE_ROUTE, **q0(nextOffset=2, offset=None))
    assert_effect(M, s, PULL, q0(offset=2), outcome="NO_MATCHED_MSG from broker 1")
    s = state(slave=(1,), **SLAVE_ROUTE, **q0(nextOffset=3, offset=None))
    assert_effect(M, s, PULL, q0(offset=3), outcome="NO_MATCHED_MSG from broker 1")


def test_slave_retry_immediately_suggests_the_group_broker_id():
    s = state(READ, slave=(), **{"slave2.commitlog": [], **q0(nextOffset=2, offset=None, suggestWhichBrokerId=1)})
    assert_effect(READ, s, PULL, q0(offset=2, suggestWhichBrokerId=2), outcome="NO_MATCHED_MSG from broker 1")


def test_slave_too_small_is_retry_immediately():
    s = q2_state(Q2, **SLAVE_ROUTE, **q0(offset=None))
    assert_effect(Q2, s, PULL, q0(offset=0), outcome="NO_MATCHED_MSG from broker 1")


def test_v6_slave_corrects_like_a_master():
    s = state(CHECK, slave=(1,), **SLAVE_ROUTE, **q0(nextOffset=3))
    assert_effect(CHECK, s, PULL, offset_illegal(0), outcome="OFFSET_ILLEGAL from broker 1")
    s = q2_state(Q2_CHECK, **SLAVE_ROUTE)
    assert_effect(Q2_CHECK, s, PULL, offset_illegal(1), outcome="OFFSET_ILLEGAL from broker 1")
    s = state(CHECK, slave=(), **SLAVE_ROUTE, **q0(nextOffset=2))
    assert_effect(CHECK, s, PULL, offset_illegal(0), outcome="OFFSET_ILLEGAL from broker 1")


def test_slave_overflow_one_keeps_off():
    s = state(slave=(1, 2), **SLAVE_ROUTE, **q0(nextOffset=2, offset=None))
    assert_effect(M, s, PULL, q0(offset=2), outcome="NO_NEW_MSG from broker 1")


# --- suggestWhichBrokerId (§7.3) ---------------------------------------------------------------------------
def test_suggestion_is_zero_without_slave_read_enable():
    s = state(TWO, **{"slave2.commitlog": [1], **q0(suggestWhichBrokerId=2)})
    nxt, _ = fire(TWO, s, PULL)
    assert TWO.view(nxt)["consumer1.q0.suggestWhichBrokerId"] == 0


def test_suggestion_is_the_group_broker_id_when_not_slow():
    s = state(READ, **{"slave2.commitlog": [1]})
    assert_effect(READ, s, PULL, q0(nextOffset=3, inFlight=[1, 2, 3], queueOffsetMax=2, suggestWhichBrokerId=2))


def test_suggestion_on_a_no_new_msg_is_the_group_broker_id():
    s = state(READ, **{"master.consumerOffset[0]": 3, "history.highestCommitted[0]": 3, **q0(nextOffset=3, offset=3)})
    assert_effect(READ, s, PULL, q0(suggestWhichBrokerId=2), outcome="NO_NEW_MSG from broker 0")


def test_suggestion_is_which_broker_when_the_pull_is_slow():
    """The 40 % rule as "more than consume_slowly_backlog messages after the last entry scanned": with two
    queues, a pull of queue 0 returns all of it, [1], and message 2 (queue 1) lies after it."""
    s = build(SLOW, **{"master.commitlog": [1, 2], "producer.nextMessage": 3})
    assert_effect(SLOW, s, PULL, q0(nextOffset=1, inFlight=[1], queueOffsetMax=0, suggestWhichBrokerId=1))
    # queue 1's last message is the log's last: not slow, so the group's brokerId (0)
    s = build(SLOW, **{"master.commitlog": [1, 2], "producer.nextMessage": 3, **q0(suggestWhichBrokerId=1)})
    nxt, _ = fire(SLOW, s, Pull(consumer=1, queue=1))
    assert SLOW.view(nxt)["consumer1.q1.suggestWhichBrokerId"] == 0


# --- slaveReadEnable per broker: the serving broker's own value (§7.3; issue 44) ----------------------------
#: the common file pair: a master with slaveReadEnable=true, a slave file without it (RocketMQ's default)
PAIR = model(messages=3, slave_read_enable=True, slave_read_enable_in_slaves=False, group_broker_id=1, **NO_FAILURES)
ALIKE = model(messages=3, slave_read_enable=True, group_broker_id=1, **NO_FAILURES)
SLAVES_ONLY = model(messages=3, slave_read_enable_in_slaves=True, group_broker_id=1, **NO_FAILURES)


def test_the_master_suggests_by_its_own_slave_read_enable():
    """``PullMessageProcessor#processRequest`` on the master reads the master's slaveReadEnable: with it the
    group's brokerId (1), whatever the slaves' files say; without it the master (0)."""
    for m, suggested in ((PAIR, 1), (ALIKE, 1), (SLAVES_ONLY, 0)):
        s = state(m, **q0(suggestWhichBrokerId=0))
        assert_effect(m, s, PULL, q0(nextOffset=3, inFlight=[1, 2, 3], queueOffsetMax=2,
                                     **({"suggestWhichBrokerId": suggested} if suggested else {})),
                      outcome="FOUND from broker 0")


def test_a_slave_without_slave_read_enable_serves_and_sends_the_consumer_back_to_the_master():
    """On the slave its own slaveReadEnable decides: the slave of the file pair (false) still answers FOUND
    (its PULL_RETRY_IMMEDIATELY is overwritten by the status switch) but suggests the master, so the next
    pull goes to broker 0; where every broker has slaveReadEnable=true the slave suggests itself again."""
    pair = assert_effect(PAIR, state(PAIR, **q0(suggestWhichBrokerId=1)), PULL,
                         q0(nextOffset=2, inFlight=[1, 2], queueOffsetMax=1, suggestWhichBrokerId=0),
                         outcome="FOUND from broker 1")
    assert_effect(ALIKE, state(ALIKE, **q0(suggestWhichBrokerId=1)), PULL,
                  q0(nextOffset=2, inFlight=[1, 2], queueOffsetMax=1), outcome="FOUND from broker 1")
    # the pair's next pull (after consuming) goes to the master, which takes the commit on pull
    consumed = build(PAIR, PAIR.view(pair), **q0(inFlight=[], offset=2))
    assert_effect(PAIR, consumed, PULL, {**q0(nextOffset=3, inFlight=[3], queueOffsetMax=2, suggestWhichBrokerId=1),
                                         "master.consumerOffset[0]": 2, "history.highestCommitted[0]": 2},
                  outcome="FOUND from broker 0")


def test_a_slave_with_slave_read_enable_keeps_the_consumer_where_the_master_has_none():
    """The reverse pair: the master without slaveReadEnable suggests itself, but a slave that serves a pull
    (the route lists no master) and has slaveReadEnable=true suggests the group's brokerId, its own id."""
    s = state(SLAVES_ONLY, **{"consumer1.route": [1]})
    assert_effect(SLAVES_ONLY, s, PULL, q0(nextOffset=2, inFlight=[1, 2], queueOffsetMax=1, suggestWhichBrokerId=1),
                  outcome="FOUND from broker 1")
    s = state(M, **{"consumer1.route": [1]})
    assert_effect(M, s, PULL, q0(nextOffset=2, inFlight=[1, 2], queueOffsetMax=1), outcome="FOUND from broker 1")


#: two slaves whose files disagree: slave 1 with slaveReadEnable=true, slave 2 without (RocketMQ's default)
MIXED = model(messages=3, slaves=2, slave_read_enable=True, slave_read_enable_in_slaves="TRUE-FALSE",
              group_broker_id=1, **NO_FAILURES)


def test_each_slave_suggests_by_its_own_slave_read_enable():
    """Per broker, as ``PullMessageProcessor#processRequest`` reads it on the broker that serves: slave 1
    (true) keeps the consumer on itself, slave 2 (false) serves the pull and sends it back to the master;
    the model held one value for every slave and refused this file set."""
    s = state(MIXED, **{"slave2.commitlog": [1, 2], **q0(suggestWhichBrokerId=1)})
    assert_effect(MIXED, s, PULL, q0(nextOffset=2, inFlight=[1, 2], queueOffsetMax=1), outcome="FOUND from broker 1")
    s = state(MIXED, **{"slave2.commitlog": [1, 2], **q0(suggestWhichBrokerId=2)})
    assert_effect(MIXED, s, PULL, q0(nextOffset=2, inFlight=[1, 2], queueOffsetMax=1, suggestWhichBrokerId=0),
                  outcome="FOUND from broker 2")


CUT = model(messages=3, slave_read_enable=True, group_broker_id=0, which_broker_when_consume_slowly=1,
            consume_slowly_backlog=0, **NO_FAILURES)


def test_a_cut_batch_judges_the_first_entry_left_out():
    """4.4's ``getMessage`` sets ``maxPhyOffsetPulling`` from an entry before ``isTheBatchFull`` breaks
    on it, so a cut batch's 40 % rule reads the first message *not* returned (mechanisms §7.2: "the last
    entry scanned"). Master [1, 2], backlog 0: ``Pull(batch=1)`` returns [1] and scans 2, behind which
    nothing lies: not slow, so the group's brokerId 0 (5.0's rule, the last message returned, says 1)."""
    s = state(CUT, master=(1, 2), **{"producer.nextMessage": 3, **q0(suggestWhichBrokerId=1)})
    assert_effect(CUT, s, Pull(consumer=1, queue=0, batch=1),
                  q0(nextOffset=1, inFlight=[1], queueOffsetMax=0, suggestWhichBrokerId=0))


def test_a_cut_batch_is_slow_when_messages_lie_after_the_entry_left_out():
    """The contrast: master [1, 2, 3], backlog 0. A batch cut after 1 scans 2, with 3 behind it: slow
    (slave 1). A batch cut after 2 scans 3, the last: not slow. The whole queue ends on 3: not slow."""
    s = state(CUT, **q0(suggestWhichBrokerId=0))
    one, _ = fire(CUT, s, Pull(consumer=1, queue=0, batch=1))
    two, _ = fire(CUT, s, Pull(consumer=1, queue=0, batch=2))
    whole, _ = fire(CUT, s, PULL)
    suggested = [CUT.view(n)["consumer1.q0.suggestWhichBrokerId"] for n in (one, two, whole)]
    assert suggested == [1, 0, 0]


def test_single_queue_pull_is_never_slow():
    """An uncut pull returns every entry to the queue's end, so with one queue nothing lies after the last one."""
    m = model(messages=3, slave_read_enable=True, group_broker_id=0, which_broker_when_consume_slowly=1,
              consume_slowly_backlog=0, **NO_FAILURES)
    s = state(m, **q0(suggestWhichBrokerId=0))
    nxt, _ = fire(m, s, PULL)
    assert m.view(nxt)["consumer1.q0.suggestWhichBrokerId"] == 0
