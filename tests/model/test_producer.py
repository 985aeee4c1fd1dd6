"""SendMessage, SyncMasterAck and SyncMasterTimeout on hand-built states (mechanisms §3.1-§3.3).

The put path is append -> handleDiskFlush -> handleHA, each with its own wait; handleHA's failure status
replaces an earlier FLUSH_DISK_TIMEOUT; no status removes the appended message.
"""
from __future__ import annotations

import pytest

from handbuilt import NO_FAILURES, assert_disabled, assert_effect, build, fire, model
from model.actions import SendMessage, SyncMasterAck, SyncMasterTimeout

ASYNC = model(**NO_FAILURES)
SYNC_FLUSH = model(flush_disk_type="SYNC_FLUSH", **NO_FAILURES)
SYNC_MASTER = model(broker_role="SYNC_MASTER", **NO_FAILURES)
SYNC_ALL = model(broker_role="SYNC_MASTER", flush_disk_type="SYNC_FLUSH", **NO_FAILURES)

SEND = SendMessage()
SEND_OK_FLUSH = SendMessage(flush="ok")
SEND_TIMEOUT_FLUSH = SendMessage(flush="timeout")


# --- ASYNC_MASTER + ASYNC_FLUSH ---------------------------------------------------------------------------
def test_send_appends_and_acks_without_flushing():
    s = build(ASYNC)
    s = assert_effect(ASYNC, s, SEND, {"master.commitlog": [1], "producer.nextMessage": 2,
                                       "producer.sendOk": [1]}, outcome="SEND_OK")
    assert_effect(ASYNC, s, SEND, {"master.commitlog": [1, 2], "producer.nextMessage": 3,
                                   "producer.sendOk": [1, 2]}, outcome="SEND_OK")


def test_send_disabled_once_every_message_is_sent():
    assert_disabled(ASYNC, build(ASYNC, **{"master.commitlog": [1, 2], "producer.nextMessage": 3}), SEND)


def test_send_to_a_dead_master_fails_and_the_producer_moves_on():
    """The retries reach the same dead master: the message is given up, nothing is stored."""
    s = build(ASYNC, **{"master.up": False})
    assert_effect(ASYNC, s, SEND, {"producer.nextMessage": 2}, outcome="send failed: master down")


def test_send_to_a_dead_master_is_one_transition_under_sync_flush():
    s = build(SYNC_FLUSH, **{"master.up": False})
    assert_effect(SYNC_FLUSH, s, SEND_OK_FLUSH, {"producer.nextMessage": 2}, outcome="send failed: master down")
    assert_disabled(SYNC_FLUSH, s, SEND_TIMEOUT_FLUSH)


def test_send_keeps_unflushed_prefix_as_is():
    s = build(ASYNC, **{"master.commitlog": [1], "master.flushed": 0, "producer.nextMessage": 2,
                        "producer.sendOk": [1]})
    nxt, _ = fire(ASYNC, s, SEND)
    assert ASYNC.view(nxt)["master.flushed"] == 0


# --- SYNC_FLUSH -----------------------------------------------------------------------------------------
def test_sync_flush_ok_flushes_everything_then_acks():
    s = build(SYNC_FLUSH, **{"master.commitlog": [1], "master.flushed": 0, "producer.nextMessage": 2})
    assert_effect(SYNC_FLUSH, s, SEND_OK_FLUSH, {"master.commitlog": [1, 2], "master.flushed": 2,
                                                 "producer.nextMessage": 3, "producer.sendOk": [2]},
                  outcome="SEND_OK")


def test_sync_flush_timeout_keeps_the_message_unflushed_and_unacked():
    """§3.3: on timeout FLUSH_DISK_TIMEOUT; the message is kept (no rollback)."""
    s = build(SYNC_FLUSH)
    assert_effect(SYNC_FLUSH, s, SEND_TIMEOUT_FLUSH, {"master.commitlog": [1], "producer.nextMessage": 2},
                  outcome="FLUSH_DISK_TIMEOUT")


def test_sync_flush_actions_exist_only_under_sync_flush():
    assert SEND_OK_FLUSH in SYNC_FLUSH.actions() and SEND_TIMEOUT_FLUSH in SYNC_FLUSH.actions()
    assert SEND not in SYNC_FLUSH.actions()
    assert SEND in ASYNC.actions() and SEND_OK_FLUSH not in ASYNC.actions()
    assert SyncMasterAck() not in ASYNC.actions() and SyncMasterTimeout() not in ASYNC.actions()


# --- SYNC_MASTER ----------------------------------------------------------------------------------------
def test_sync_master_without_ha_connection_is_slave_not_available_at_once():
    """§3.2: isSlaveOK fails (connectionCount == 0): SLAVE_NOT_AVAILABLE, no wait, message stored."""
    s = build(SYNC_MASTER)
    assert_effect(SYNC_MASTER, s, SEND, {"master.commitlog": [1], "producer.nextMessage": 2},
                  outcome="SLAVE_NOT_AVAILABLE")


@pytest.mark.parametrize("link", ["CONNECTED", "STREAMING"])
def test_sync_master_with_a_connection_waits(link):
    """§2.2: a connection that has not reported yet is counted by isSlaveOK too."""
    s = build(SYNC_MASTER, **{"slave1.haLink": link})
    assert_effect(SYNC_MASTER, s, SEND, {"master.commitlog": [1], "producer.nextMessage": 2,
                                         "producer.waitingFor": "HA ack (PUT_OK)"},
                  outcome="stored; producer waits for a slave")


def test_sync_master_waiting_producer_sends_nothing_else():
    s = build(SYNC_MASTER, **{"slave1.haLink": "STREAMING", "master.commitlog": [1], "producer.nextMessage": 2,
                              "producer.waitingFor": "HA ack (PUT_OK)"})
    assert_disabled(SYNC_MASTER, s, SEND)


def test_sync_all_flush_timeout_then_wait_keeps_flush_disk_timeout():
    s = build(SYNC_ALL, **{"slave1.haLink": "STREAMING"})
    assert_effect(SYNC_ALL, s, SEND_TIMEOUT_FLUSH, {"master.commitlog": [1], "producer.nextMessage": 2,
                                                    "producer.waitingFor": "HA ack (FLUSH_DISK_TIMEOUT)"},
                  outcome="stored; producer waits for a slave")


def test_sync_all_flush_timeout_then_no_slave_is_slave_not_available():
    """§3.1: handleHA's SLAVE_NOT_AVAILABLE replaces the earlier FLUSH_DISK_TIMEOUT."""
    s = build(SYNC_ALL)
    assert_effect(SYNC_ALL, s, SEND_TIMEOUT_FLUSH, {"master.commitlog": [1], "producer.nextMessage": 2},
                  outcome="SLAVE_NOT_AVAILABLE")


def test_sync_all_flush_happens_before_the_ha_check():
    """§3.1 order: handleDiskFlush (flushed) runs before handleHA fails with SLAVE_NOT_AVAILABLE."""
    s = build(SYNC_ALL)
    assert_effect(SYNC_ALL, s, SEND_OK_FLUSH, {"master.commitlog": [1], "master.flushed": 1,
                                               "producer.nextMessage": 2}, outcome="SLAVE_NOT_AVAILABLE")


def test_sync_all_flush_ok_then_wait():
    s = build(SYNC_ALL, **{"slave1.haLink": "CONNECTED"})
    assert_effect(SYNC_ALL, s, SEND_OK_FLUSH, {"master.commitlog": [1], "master.flushed": 1,
                                               "producer.nextMessage": 2,
                                               "producer.waitingFor": "HA ack (PUT_OK)"})


# --- the SYNC_MASTER wait: ack vs timeout ---------------------------------------------------------------
def waiting(m, wait="HA ack (PUT_OK)", p2s=0, **extra):
    fields = {"slave1.haLink": "STREAMING", "master.commitlog": [1], "producer.nextMessage": 2,
              "producer.waitingFor": wait, "master.push2SlaveMaxOffset": p2s}
    fields.update(extra)
    return build(m, **fields)


def test_ack_when_push2slave_reaches_the_end():
    s = waiting(SYNC_MASTER, p2s=1)
    assert_effect(SYNC_MASTER, s, SyncMasterAck(), {"producer.waitingFor": "none", "producer.sendOk": [1]},
                  outcome="SEND_OK")
    assert_disabled(SYNC_MASTER, s, SyncMasterTimeout())


def test_ack_after_flush_timeout_reports_flush_disk_timeout():
    """§3.1: on HA success handleHA leaves the earlier FLUSH_DISK_TIMEOUT as it was."""
    s = waiting(SYNC_ALL, wait="HA ack (FLUSH_DISK_TIMEOUT)", p2s=1)
    assert_effect(SYNC_ALL, s, SyncMasterAck(), {"producer.waitingFor": "none"}, outcome="FLUSH_DISK_TIMEOUT")


def test_ack_when_push2slave_is_beyond_the_master_max():
    """§2.7 X > M: an unvalidated report above the master's max satisfies the wait at once."""
    s = waiting(SYNC_MASTER, p2s=2)
    assert_effect(SYNC_MASTER, s, SyncMasterAck(), {"producer.waitingFor": "none", "producer.sendOk": [1]})


def test_ack_does_not_need_a_live_connection():
    """GroupTransferService only compares push2SlaveMaxOffset with the end."""
    s = waiting(SYNC_MASTER, p2s=1, **{"slave1.haLink": "DOWN"})
    assert_effect(SYNC_MASTER, s, SyncMasterAck(), {"producer.waitingFor": "none", "producer.sendOk": [1]})


def test_timeout_when_push2slave_is_below_the_end():
    s = waiting(SYNC_MASTER, p2s=0)
    assert_effect(SYNC_MASTER, s, SyncMasterTimeout(), {"producer.waitingFor": "none"},
                  outcome="FLUSH_SLAVE_TIMEOUT")
    assert_disabled(SYNC_MASTER, s, SyncMasterAck())


def test_timeout_after_flush_timeout_is_flush_slave_timeout():
    s = waiting(SYNC_ALL, wait="HA ack (FLUSH_DISK_TIMEOUT)", p2s=0)
    assert_effect(SYNC_ALL, s, SyncMasterTimeout(), {"producer.waitingFor": "none"},
                  outcome="FLUSH_SLAVE_TIMEOUT")


def test_timeout_keeps_the_message():
    s = waiting(SYNC_MASTER, p2s=1, **{"master.commitlog": [1, 2], "producer.nextMessage": 3,
                                       "producer.sendOk": [1]})
    nxt = assert_effect(SYNC_MASTER, s, SyncMasterTimeout(), {"producer.waitingFor": "none"})
    assert SYNC_MASTER.view(nxt)["master.commitlog"] == [1, 2]


@pytest.mark.parametrize("action", [SyncMasterAck(), SyncMasterTimeout()])
def test_wait_actions_need_a_waiting_producer_and_a_live_master(action):
    p2s = 1 if isinstance(action, SyncMasterAck) else 0
    assert_disabled(SYNC_MASTER, build(SYNC_MASTER, **{"master.commitlog": [1], "producer.nextMessage": 2,
                                                       "master.push2SlaveMaxOffset": p2s}), action)
    assert_disabled(SYNC_MASTER, waiting(SYNC_MASTER, p2s=p2s, **{"master.up": False}), action)


# --- queue offsets with two queues ------------------------------------------------------------------------
def test_two_queues_round_robin_and_queue_offsets():
    """DefaultAppendMessageCallback#doAppend: the queue offset is the queue's next value (§3.5 step 3)."""
    m = model(queues=2, messages=3, **NO_FAILURES)
    s = build(m)
    s = assert_effect(m, s, SEND, {"master.commitlog": [1], "producer.nextMessage": 2, "producer.sendOk": [1]})
    s = assert_effect(m, s, SEND, {"master.commitlog": [1, 2], "producer.nextMessage": 3,
                                   "producer.sendOk": [1, 2]})
    assert_effect(m, s, SEND, {"master.commitlog": [1, 2, 3], "producer.nextMessage": 4,
                               "producer.sendOk": [1, 2, 3], "message3.queueOffset": 1})


# --- HAService#isSlaveOK's fall-behind threshold (ha_fallbehind_max) ---------------------------------------
@pytest.mark.parametrize("limit, waits", [(0, True), (1, False), (2, False), (3, True)])
def test_a_send_too_far_ahead_of_push2slave_max_offset_gets_slave_not_available(limit, waits):
    """``end - push2SlaveMaxOffset < haSlaveFallbehindMax``: message 2 ends at 2, the slaves acknowledged 0."""
    m = model(broker_role="SYNC_MASTER", ha_fallbehind_max=limit, **NO_FAILURES)
    s = build(m, **{"master.commitlog": [1], "producer.nextMessage": 2, "slave1.haLink": "CONNECTED"})
    if waits:
        assert_effect(m, s, SEND, {"master.commitlog": [1, 2], "producer.nextMessage": 3,
                                   "producer.waitingFor": "HA ack (PUT_OK)"}, outcome="stored; producer waits for a slave")
    else:
        assert_effect(m, s, SEND, {"master.commitlog": [1, 2], "producer.nextMessage": 3},
                      outcome="SLAVE_NOT_AVAILABLE")
