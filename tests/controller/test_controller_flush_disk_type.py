"""flushDiskType in the controller mode (issue 48, item 5): the put's flush wait, what SEND_OK then means
on a power loss, and that confirmOffset (so what consumers read) does not wait for the flush. Hand-built
states with the effect the 5.3.3 source gives, field by field (``CommitLog#handleDiskFlushAndHA``,
``DefaultFlushManager#handleDiskFlush``, ``GroupCommitService#doCommit``, ``FlushDiskWatcher#run``,
``CommitLog#getConfirmOffset``)."""
from __future__ import annotations

import pytest

from model.config import ConfigError
from model.controller import ControllerConfig
from model.controller.model import (AckWaitDone, AckWaitTimeout, BrokerPowerLoss, ControllerModel, FlushCommitLog,
                                    ReputMessage, SendMessage, action_table)
from test_controller_actions import build, read, running

SYNC = dict(flush_disk_type="SYNC_FLUSH")


def master(b, **extra):
    """Broker ``b`` an unfenced master of epoch 1 with SyncStateSet {b} and epoch entry (1, 0)."""
    fields = dict(master=1, masterEpoch=1, syncStateSet=1 << (b - 1), syncStateSetEpoch=1, epochEntries=1,
                  epochFile_epoch_0=1, ctlAlive=1)
    return running(b, **{**fields, **extra})


def producer_fields(m, s):
    return {k: read(m, s, k) for k in ("producer_next", "producer_waiting", "producer_waitBroker",
                                       "producer_waitEnd", "producer_sendOk", "producer_flushWaiting",
                                       "producer_replicasAcked")}


def test_knob_defaults_and_bad_value():
    assert ControllerConfig().flush_disk_type == "ASYNC_FLUSH"
    assert ControllerConfig.from_mapping({"flushDiskType": "SYNC_FLUSH"}).flush_disk_type == "SYNC_FLUSH"
    with pytest.raises(ConfigError, match="flush_disk_type"):
        ControllerConfig.from_mapping({"flush_disk_type": "SOMETIMES"})


def test_async_flush_answers_at_once_and_leaves_the_new_fields_zero():
    """ASYNC_FLUSH (``DefaultFlushManager#handleDiskFlush``'s else branch: a completed PUT_OK future): SEND_OK
    at the append, nothing flushed, the SYNC_FLUSH fields untouched."""
    m = ControllerModel(ControllerConfig(max_broker_power_losses=1))
    after = m.next_state(build(m, controller_up=1, **master(1)), SendMessage(broker=1))
    assert producer_fields(m, after) == dict(producer_next=1, producer_waiting=0, producer_waitBroker=0,
                                             producer_waitEnd=0, producer_sendOk=0b1, producer_flushWaiting=0,
                                             producer_replicasAcked=0)
    assert read(m, after, "broker1_flushed") == 0
    assert "producer.flushWaiting" not in m.view(after)


def test_sync_flush_put_waits_for_group_commit():
    """SYNC_FLUSH, no replica wait (allAck off, inSyncReplicas 1: ``#handleHA`` completes at once): the put
    is appended and waits on its GroupCommitRequest (end 1); ``GroupCommitService#doCommit`` flushes the
    whole commitlog and completes it -> SEND_OK."""
    m = ControllerModel(ControllerConfig(**SYNC))
    s = build(m, controller_up=1, **master(1))
    put = m.next_state(s, SendMessage(broker=1))
    assert producer_fields(m, put) == dict(producer_next=0, producer_waiting=1, producer_waitBroker=0,
                                           producer_waitEnd=1, producer_sendOk=0, producer_flushWaiting=1,
                                           producer_replicasAcked=1)
    assert read(m, put, "broker1_maxOffset") == 1 and read(m, put, "broker1_flushed") == 0
    assert m.view(put)["producer.flushWaiting"] is True
    flushed = m.next_state(put, FlushCommitLog(broker=1))
    assert read(m, flushed, "broker1_flushed") == 1
    assert producer_fields(m, flushed) == dict(producer_next=1, producer_waiting=0, producer_waitBroker=0,
                                               producer_waitEnd=0, producer_sendOk=0b1, producer_flushWaiting=0,
                                               producer_replicasAcked=0)


def test_sync_flush_confirm_offset_does_not_wait_for_the_flush():
    """``CommitLog#getConfirmOffset`` in controller mode: the max offset on a master with a one-member set,
    never the flushed offset (the SYNC_FLUSH -> flushedWhere bound is outside controller mode only): reput
    dispatches the unflushed, unanswered message."""
    m = ControllerModel(ControllerConfig(**SYNC))
    put = m.next_state(build(m, controller_up=1, **master(1)), SendMessage(broker=1))
    reput = m.next_state(put, ReputMessage(broker=1))
    assert read(m, reput, "broker1_dispatched") == 1 and read(m, reput, "broker1_flushed") == 0


def test_sync_flush_power_loss_before_the_flush_fails_the_put():
    """A power loss before ``GroupCommitService`` flushed: the unflushed message is gone and the waiting put
    dies with the broker (no SEND_OK)."""
    m = ControllerModel(ControllerConfig(max_broker_crashes=0, max_broker_power_losses=1, **SYNC))
    put = m.next_state(build(m, controller_up=1, **master(1)), SendMessage(broker=1))
    lost = m.next_state(put, BrokerPowerLoss(broker=1))
    assert read(m, lost, "broker1_maxOffset") == 0
    assert producer_fields(m, lost) == dict(producer_next=1, producer_waiting=0, producer_waitBroker=0,
                                            producer_waitEnd=0, producer_sendOk=0, producer_flushWaiting=0,
                                            producer_replicasAcked=0)


def test_sync_flush_timeout_is_flush_disk_timeout():
    """``FlushDiskWatcher#run``: the flush not done by syncFlushTimeout -> FLUSH_DISK_TIMEOUT: not SEND_OK,
    the message stays appended, the producer goes on."""
    m = ControllerModel(ControllerConfig(**SYNC))
    assert any(isinstance(a, AckWaitTimeout) for a in action_table(m.config))
    put = m.next_state(build(m, controller_up=1, **master(1)), SendMessage(broker=1))
    out = m.next_state(put, AckWaitTimeout())
    assert read(m, out, "broker1_maxOffset") == 1
    assert producer_fields(m, out)["producer_sendOk"] == 0 and read(m, out, "producer_next") == 1


def test_sync_flush_with_all_ack_needs_both_futures():
    """allAck with a two-member set and SYNC_FLUSH (``thenCombine`` of the flush and replica futures): the
    slave's ack completes the replica future only (the flush is pending); the flush then answers SEND_OK.
    In the other order the flush completes first and the ack answers."""
    m = ControllerModel(ControllerConfig(all_ack_in_sync_state_set=True, **SYNC))
    s = build(m, controller_up=1, controller_masterBrokerId=1, controller_masterEpoch=1,
              **master(1, syncStateSet=0b11),
              **running(2, masterEpoch=1, haMaster=1, slaveAckOffset=1, ctlAlive=1))
    put = m.next_state(s, SendMessage(broker=1))
    assert producer_fields(m, put)["producer_flushWaiting"] == 1
    assert producer_fields(m, put)["producer_replicasAcked"] == 0
    assert m.next_state(put, AckWaitDone()) is None            # the slave has not acked offset 1 yet
    acked = build(m, **{**_fields(m, put), "broker2_slaveAckOffset": 2, "broker2_maxOffset": 1,
                     "broker2_commitlog_msg_0": 1, "broker2_commitlog_epoch_0": 1})
    replicas = m.next_state(acked, AckWaitDone())
    assert producer_fields(m, replicas)["producer_replicasAcked"] == 1
    assert producer_fields(m, replicas)["producer_sendOk"] == 0 and read(m, replicas, "producer_waiting") == 1
    assert m.next_state(replicas, AckWaitDone()) is None        # the replica future completes once
    done = m.next_state(replicas, FlushCommitLog(broker=1))
    assert producer_fields(m, done)["producer_sendOk"] == 0b1 and read(m, done, "producer_waiting") == 0
    flushed_first = m.next_state(acked, FlushCommitLog(broker=1))
    assert producer_fields(m, flushed_first)["producer_flushWaiting"] == 0
    assert read(m, flushed_first, "producer_waiting") == 1
    done2 = m.next_state(flushed_first, AckWaitDone())
    assert producer_fields(m, done2)["producer_sendOk"] == 0b1 and read(m, done2, "producer_waiting") == 0


def test_a_slave_flush_does_not_answer_the_put():
    """``GroupCommitService#doCommit`` on a slave flushes the slave's commitlog; the put waits on the master's
    GroupCommitRequest."""
    m = ControllerModel(ControllerConfig(**SYNC))
    s = build(m, controller_up=1, **master(1),
              **running(2, masterEpoch=1, haMaster=1, maxOffset=1, commitlog_msg_0=2, commitlog_epoch_0=1))
    put = m.next_state(s, SendMessage(broker=1))
    slave_flush = m.next_state(put, FlushCommitLog(broker=2))
    assert read(m, slave_flush, "broker2_flushed") == 1
    assert read(m, slave_flush, "producer_flushWaiting") == 1 and read(m, slave_flush, "producer_waiting") == 1


def test_view_round_trips_with_sync_flush():
    m = ControllerModel(ControllerConfig(**SYNC))
    put = m.next_state(build(m, controller_up=1, **master(1)), SendMessage(broker=1))
    assert m.encode(m.view(put)) == put
    assert set(m.config.view_kinds()) == set(m.view(put))


def _fields(m, state):
    """Every non-zero field of ``state`` as ``build`` keywords."""
    from model.controller import fields as F
    v = m.vector(state)
    key = lambda name: name.replace(".", "_").replace("[", "_").replace("]", "")  # noqa: E731
    return {key(name): int(v[i]) for i, name in enumerate(F.NAMES) if v[i]}


def test_sync_flush_is_what_keeps_acked_messages_over_a_power_loss():
    """With allAck, a master power loss loses a SEND_OK message under ASYNC_FLUSH (ctl-power-loss) and not
    under SYNC_FLUSH (the reply waited for the flush); the consumer may still read an unflushed message
    (confirmOffset does not wait for the flush), so delivered_message_stays_on_master fails either way."""
    from tests.tooling.pinned import load
    table = load(mode="controller")
    assert table["ctl-power-loss"].verdicts["acked_message_on_every_later_master"] == "violated"
    sync = table["ctl-sync-flush-power-loss"]
    assert sync.config().flush_disk_type == "SYNC_FLUSH"
    assert sync.verdicts["acked_message_on_every_later_master"] == "holds"
    assert sync.verdicts["delivered_message_stays_on_master"] == "violated"


@pytest.mark.parametrize("threads", [2, 3])
def test_threads_give_the_same_result(threads):
    """The pinned counts and every verdict (one thread's, tests/controller/test_controller_pinned.py) on more."""
    from tests.tooling.pinned import explored, load

    entry = load(mode="controller")["ctl-sync-flush-power-loss"]
    assert explored(entry, threads=threads) == entry
