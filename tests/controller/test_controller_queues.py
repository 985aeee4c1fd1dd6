"""Queue offsets in the controller mode (issue 48, item 3; knob ``queues``): with two queues a queue offset
is no longer a commitlog position. Hand-built states with the effect the 5.3.3 source gives, field by field
(``CommitLog#asyncPutMessage`` / ``ConsumeQueue#assignQueueOffset``, ``ConsumeQueueStore#recoverOffsetTable``
and ``#compensateForHA``, ``HAClientReader#processReadResult``, ``DefaultMessageStore#getMessage``)."""
from __future__ import annotations

import numpy as np
import pytest

from invariants.controller.durability import delivered_message_stays_on_master, queue_offset_names_one_message
from model.config import ConfigError
from model.controller import ControllerConfig
from model.controller import fields as F
from model.controller.model import (BrokerPowerLoss, ControllerModel, PullMessage, PullMessageQueue1, PushData,
                                    SendMessage, action_table)
from test_controller_actions import running

Q2 = ControllerConfig(queues=2, messages=3)


def master(b, **extra):
    fields = dict(master=1, masterEpoch=1, syncStateSet=1 << (b - 1), syncStateSetEpoch=1, epochEntries=1,
                  epochFile_epoch_0=1, ctlAlive=1)
    return running(b, **{**fields, **extra})


def build(model, records=None, **fields):
    """As test_controller_actions.build, plus ``records = {broker: [(msg, epoch, queueId, queueOffset), ...]}``
    (the commitlog from position 0, its max offset set to its length)."""
    from test_controller_actions import INDEX, _name
    v = np.zeros(F.NFIELDS, dtype=np.int64)
    for key, value in fields.items():
        v[INDEX[_name(key)]] = value
    for b, log in (records or {}).items():
        base = F.BROKER_BASE + (b - 1) * F.STRIDE
        v[base + F.B_LEN] = len(log)
        for i, (m, e, q, o) in enumerate(log):
            v[base + F.B_LOG_MSG + i], v[base + F.B_LOG_EP + i] = m, e
            v[F.LOG_QUEUE + (b - 1) * F.MAX_MESSAGES + i], v[F.LOG_QOFF + (b - 1) * F.MAX_MESSAGES + i] = q, o
    return tuple(int(x) for x in model.pack_vector(v))


def queue_offsets(m, s, b):
    return [tuple(x) for x in m.view(s)[f"broker{b}.queueOffsets"]]


def test_knob_default_range_and_actions():
    assert ControllerConfig().queues == 1
    with pytest.raises(ConfigError, match="queues"):
        ControllerConfig(queues=3)
    one = [str(a) for a in action_table(ControllerConfig())]
    two = [str(a) for a in action_table(ControllerConfig(queues=2))]
    assert not any(a.startswith("PullMessageQueue1") for a in one)
    assert [a for a in two if a not in one] == ["PullMessageQueue1(broker=1)", "PullMessageQueue1(broker=2)"]
    assert "broker1.queueOffsets" not in ControllerConfig().view_kinds()
    assert "broker1.queueOffsets" in ControllerConfig(queues=2).view_kinds()


def test_put_assigns_the_queues_next_offset_from_the_last_record_of_that_queue():
    """``ConsumeQueue#assignQueueOffset``: message m goes to queue (m - 1) mod 2 at that queue's next offset,
    1 + the queueOffset of the queue's last record (``topicQueueTable``, §3.1-§3.3), written into the record.
    Broker 1 holds message 1 in queue 0 at offset 0: message 2 (queue 1) gets offset 0 at position 1, and
    then message 3 (queue 0) offset 1 at position 2."""
    m = ControllerModel(Q2)
    s = build(m, {1: [(1, 1, 0, 0)]}, controller_up=1, producer_next=1, producer_sendOk=0b1, **master(1))
    two = m.next_state(s, SendMessage(broker=1))
    assert queue_offsets(m, two, 1) == [(0, 0), (1, 0)]
    three = m.next_state(two, SendMessage(broker=1))
    assert queue_offsets(m, three, 1) == [(0, 0), (1, 0), (0, 1)]
    assert m.view(three)["broker1.commitlog"] == ["1@e1", "2@e1", "3@e1"]


def test_rebuild_counts_records_past_confirm_offset():
    """``#compensateForHA`` (§9.6 of the reading): queue 0's consume queue ends at offset 1 (one record
    dispatched) but the commitlog holds, undispatched past confirmOffset, queue 0's records at offsets 1 and
    2 written by an earlier master: the next offset of queue 0 is 3, not the consume queue's 1. Without those
    records, 1. Read through ``next_queue_offset``, the table the next put of the queue takes."""
    from model.controller.params import build_params
    from model.controller.state import next_queue_offset
    params = build_params(Q2, [])
    v = np.zeros(F.NFIELDS, dtype=np.int64)
    base = F.BROKER_BASE
    v[base + F.B_LEN], v[base + F.B_REPUT], v[base + F.B_CONFIRM] = 3, 1, 1
    for i, o in enumerate((0, 1, 2)):
        v[base + F.B_LOG_MSG + i] = i + 1
        v[F.LOG_QUEUE + i], v[F.LOG_QOFF + i] = 0, o
    assert next_queue_offset(v, 0, 0, params) == 3
    assert next_queue_offset(v, 0, 1, params) == 0
    v[base + F.B_LEN] = 1
    assert next_queue_offset(v, 0, 0, params) == 1


def test_a_slave_copies_the_masters_queue_offsets():
    """``HAClientReader#processReadResult`` appends the master's bytes: the record's queueId and queueOffset
    are the master's (queue 1, offset 0 at position 0), whatever the slave's own table says."""
    m = ControllerModel(Q2)
    s = build(m, {1: [(2, 1, 1, 0)]}, controller_up=1, **master(1),
              **running(2, masterEpoch=1, haMaster=1, slaveAckOffset=1, ctlAlive=1))
    after = m.next_state(s, PushData(slave=2))
    assert queue_offsets(m, after, 2) == [(1, 0)]


def test_pulls_go_by_queue_offset_not_position():
    """``DefaultMessageStore#getMessage`` on queue 1: its consume queue holds the dispatched record of queue 1
    (message 2 at position 1, queue offset 0); the consumer's offset 0 of queue 1 gets message 2. Queue 0's
    pull gets message 1; an offset past a queue's max is corrected to it."""
    m = ControllerModel(Q2)
    s = build(m, {1: [(1, 1, 0, 0), (2, 1, 1, 0)]}, controller_up=1, **master(1, dispatched=2))
    q1 = m.next_state(s, PullMessageQueue1(broker=1))
    assert m.view(q1)["consumer.delivered1"] == [2, 0, 0] and m.view(q1)["consumer.nextOffset1"] == 1
    assert m.next_state(q1, PullMessageQueue1(broker=1)) is None    # at queue 1's max
    q0 = m.next_state(s, PullMessage(broker=1))
    assert m.view(q0)["consumer.delivered"] == [1, 0, 0] and m.view(q0)["consumer.nextOffset"] == 1
    past = build(m, {1: [(1, 1, 0, 0), (2, 1, 1, 0)]}, controller_up=1, consumer_nextOffset1=2,
                 **master(1, dispatched=2))
    assert m.view(m.next_state(past, PullMessageQueue1(broker=1)))["consumer.nextOffset1"] == 1


def test_truncation_drops_the_records_queue_offsets():
    """``truncateDirtyFiles`` (a slave's handshake, here a power loss keeping the flushed prefix): the cut
    records' queueId and queueOffset go with them."""
    m = ControllerModel(ControllerConfig(queues=2, messages=3, max_broker_crashes=0, max_broker_power_losses=1))
    s = build(m, {1: [(1, 1, 0, 0), (2, 1, 1, 0)]}, controller_up=1, **master(1, flushed=1))
    after = m.next_state(s, BrokerPowerLoss(broker=1))
    assert queue_offsets(m, after, 1) == [(0, 0)]
    v = m.vector(after)
    assert v[F.LOG_QUEUE + 1] == 0 and v[F.LOG_QOFF + 1] == 0


def test_a_reused_queue_offset_is_a_violation_a_moved_position_is_not():
    """queue_offset_names_one_message with two queues: the consumer got message 1 at (queue 0, offset 0); a
    master offering message 3 at (queue 0, offset 0), at position 1, violates it; one offering message 1 at
    (queue 0, offset 0) from position 1 does not. delivered_message_stays_on_master looks the message up by
    (queue, offset) on the current master."""
    from model.controller.params import build_params
    params = build_params(Q2, [])

    def vec(log):
        m = ControllerModel(Q2)
        s = build(m, {2: log}, controller_up=1, controller_masterBrokerId=2, controller_masterEpoch=1,
                  consumer_delivered_0=1, **master(2, dispatched=len(log)))
        return m.vector(s)

    reused = vec([(2, 1, 1, 0), (3, 1, 0, 0)])
    assert not queue_offset_names_one_message(reused, params)
    assert not delivered_message_stays_on_master(reused, params)
    moved = vec([(2, 1, 1, 0), (1, 1, 0, 0)])
    assert queue_offset_names_one_message(moved, params)
    assert delivered_message_stays_on_master(moved, params)


def test_view_round_trips_with_two_queues():
    m = ControllerModel(Q2)
    s = build(m, {1: [(1, 1, 0, 0), (2, 1, 1, 0)]}, controller_up=1, consumer_nextOffset1=1, consumer_delivered1_0=2,
              **master(1, dispatched=2))
    assert m.encode(m.view(s)) == s
    assert set(m.config.view_kinds()) == set(m.view(s))


def test_one_message_on_two_queues_is_the_one_queue_space():
    """Message 1 goes to queue 0 at offset 0 = position 0 on every broker: the same space as one queue."""
    from tests.tooling.pinned import load
    table = load(mode="controller")
    assert table["ctl-queues-2"].config().queues == 2
    assert table["ctl-controller"].verdicts["queue_offset_names_one_message"] == "violated"
    # two messages on two queues: no queue offset can be reused (one message per queue) ...
    assert table["ctl-queues-2"].verdicts["queue_offset_names_one_message"] == "holds"
    # ... three: messages 1 and 3 share queue 0, and a failover re-assigns its offset
    assert table["ctl-queues-2-three-messages"].verdicts["queue_offset_names_one_message"] == "violated"


@pytest.mark.parametrize("threads", [2, 3])
def test_threads_give_the_same_result(threads):
    """The pinned counts and every verdict (one thread's, tests/controller/test_controller_pinned.py) on more."""
    from tests.tooling.pinned import explored, load

    entry = load(mode="controller")["ctl-queues-2"]
    assert explored(entry, threads=threads) == entry
