"""Failures and restarts on hand-built states: master crash / power loss / restart, slave crash / power
loss / restart, consumer crash / restart (mechanisms §1, §2.1, §3.4, §3.5, §5, §6.1, §10 V3)."""
from __future__ import annotations

import pytest

from handbuilt import assert_disabled, assert_effect, build, fire, model
from model.actions import (ConsumerCrash, ConsumerRestart, MasterCrash, MasterPowerLoss, MasterRestart, SendMessage,
                           SlaveCrash, SlavePowerLoss, SlaveRestart)
from model.events import EV_MASTER_RECOVERED

M = model(messages=3, broker_role="SYNC_MASTER", max_master_crashes=1, max_master_power_losses=1)
Q2 = model(messages=3, queues=2, max_master_crashes=0, max_master_power_losses=1)
V3 = model(messages=3, slaves=2, reverse_offset_sync=True, max_master_crashes=1, max_master_power_losses=0)
SLAVES = model(messages=3, slaves=2, max_slave_crashes=1, max_slave_power_losses=1, max_master_crashes=0,
               max_master_power_losses=0)
CONSUMERS = model(messages=2, consumers=2, queues=2, max_consumer_restarts=1, max_master_crashes=0,
                  max_master_power_losses=0)

BUSY_MASTER = {
    "master.commitlog": [1, 2, 3], "master.flushed": 1, "master.push2SlaveMaxOffset": 2,
    "master.consumerOffset[0]": 2, "master.consumerOffsetJson[0]": 1, "slave1.commitlog": [1, 2],
    "slave1.haLink": "STREAMING", "slave1.nextTransferFromWhere": 2, "producer.nextMessage": 4,
    "producer.waitingFor": "HA ack (PUT_OK)", "producer.sendOk": [1, 2], "history.highestCommitted[0]": 2,
}
MEMORY_LOST = {"master.up": False, "master.push2SlaveMaxOffset": 0, "master.consumerOffset[0]": 1,
               "slave1.haLink": "DOWN", "slave1.nextTransferFromWhere": 0, "producer.waitingFor": "none"}


# --- master ------------------------------------------------------------------------------------------------
def test_master_crash_keeps_the_page_cache_and_loses_memory():
    """§3.4 kill -9: every written byte survives (recovery will find all of it); the offset table falls
    back to the last persist, push2SlaveMaxOffset and the HA connections vanish; §1 the socket close
    removes the master from the name server at once; the waiting producer gets an exception."""
    s = build(M, **BUSY_MASTER)
    assert_effect(M, s, MasterCrash(), {**MEMORY_LOST, "master.flushed": 3, "nameserver.route": [1],
                                        "failures.masterCrashes": 1})


def test_master_power_loss_keeps_the_flushed_prefix():
    """§3.4: only data written back survives; §1 the name server keeps the master until it expires."""
    s = build(M, **BUSY_MASTER)
    assert_effect(M, s, MasterPowerLoss(), {**MEMORY_LOST, "master.commitlog": [1],
                                            "failures.masterPowerLosses": 1})


@pytest.mark.parametrize("action", [MasterCrash(), MasterPowerLoss()])
def test_master_failure_guards(action):
    assert_disabled(M, build(M, **{"master.up": False, "nameserver.route": [1]}), action)
    budget = "failures.masterCrashes" if isinstance(action, MasterCrash) else "failures.masterPowerLosses"
    assert_disabled(M, build(M, **{budget: 1}), action)


def test_master_restart_recovers_and_registers():
    """§3.5 recovery keeps what survived; push2SlaveMaxOffset restarts from 0; registerBrokerAll at start."""
    s = build(M, **{**BUSY_MASTER, **MEMORY_LOST, "master.flushed": 3, "nameserver.route": [1],
                    "failures.masterCrashes": 1})
    nxt = assert_effect(M, s, MasterRestart(), {"master.up": True, "nameserver.route": [0, 1]})
    assert fire(M, s, MasterRestart())[1] & EV_MASTER_RECOVERED
    v = M.view(nxt)
    assert (v["master.commitlog"], v["master.push2SlaveMaxOffset"], v["master.consumerOffset[0]"]) == ([1, 2, 3], 0, 1)


def test_master_restart_after_power_loss_sets_flushed_at_the_end():
    s = build(M, **{"master.up": False, "master.commitlog": [1, 2], "master.flushed": 1,
                    "producer.nextMessage": 3, "failures.masterPowerLosses": 1})
    assert_effect(M, s, MasterRestart(), {"master.up": True, "master.flushed": 2})


def test_master_restart_needs_a_dead_master():
    assert_disabled(M, build(M), MasterRestart())


def test_restart_recomputes_queue_offsets_from_what_survived():
    """§3.5 step 3: recoverTopicQueueTable; the next message put to a queue gets the recovered max."""
    s = build(Q2, **{"master.commitlog": [1, 2, 3], "master.flushed": 1, "producer.nextMessage": 4,
                     "message3.queueOffset": 1, "slave1.commitlog": [1, 2]})
    s = assert_effect(Q2, s, MasterPowerLoss(), {"master.up": False, "master.commitlog": [1],
                                                 "message3.queueOffset": 0, "failures.masterPowerLosses": 1})
    s = assert_effect(Q2, s, MasterRestart(), {"master.up": True})
    q2_more = model(messages=5, queues=2, max_master_crashes=0, max_master_power_losses=1)
    t = build(q2_more, **{"master.commitlog": [1], "master.flushed": 1, "producer.nextMessage": 5,
                          "slave1.commitlog": [1, 2, 3], "message3.queueOffset": 1,
                          "failures.masterPowerLosses": 1})
    # message 5 goes to queue 0, whose recovered max is 1 (message 1): queue offset 1, like lost message 3
    assert_effect(q2_more, t, SendMessage(), {"master.commitlog": [1, 5], "producer.nextMessage": 6,
                                              "producer.sendOk": [5], "message5.queueOffset": 1})


def test_v3_restart_adopts_the_lowest_live_slave_table_holding_the_group():
    s = build(V3, **{"master.up": False, "nameserver.route": [1], "failures.masterCrashes": 1,
                     "master.consumerOffset[0]": 1, "master.consumerOffsetJson[0]": 1,
                     "slave1.up": False, "slave1.consumerOffset[0]": 3, "slave1.consumerOffsetJson[0]": 3,
                     "slave1.haMasterAddress": False, "slave1.syncMasterAddress": False,
                     "slave2.consumerOffset[0]": 2, "master.commitlog": [1, 2], "master.flushed": 2,
                     "producer.nextMessage": 3})
    assert_effect(V3, s, MasterRestart(), {"master.up": True, "nameserver.route": [0, 1],
                                           "master.consumerOffset[0]": 2})


def test_v3_restart_without_a_slave_table_loads_its_own_file():
    s = build(V3, **{"master.up": False, "nameserver.route": [1], "failures.masterCrashes": 1,
                     "master.consumerOffset[0]": 1, "master.consumerOffsetJson[0]": 1})
    assert_effect(V3, s, MasterRestart(), {"master.up": True, "nameserver.route": [0, 1]})


# --- slaves ------------------------------------------------------------------------------------------------
BUSY_SLAVE = {
    "master.commitlog": [1, 2, 3], "producer.nextMessage": 4, "slave2.commitlog": [1, 2, 3], "slave2.flushed": 1,
    "slave2.haLink": "STREAMING", "slave2.nextTransferFromWhere": 3, "master.push2SlaveMaxOffset": 3,
    "slave2.consumerOffset[0]": 2, "slave2.consumerOffsetJson[0]": 1,
}
SLAVE_MEMORY_LOST = {"slave2.up": False, "slave2.haLink": "DOWN", "slave2.nextTransferFromWhere": 0,
                     "slave2.consumerOffset[0]": 1, "slave2.haMasterAddress": False,
                     "slave2.syncMasterAddress": False}


def test_slave_crash_keeps_its_page_cache():
    s = build(SLAVES, **BUSY_SLAVE)
    assert_effect(SLAVES, s, SlaveCrash(slave=2), {**SLAVE_MEMORY_LOST, "slave2.flushed": 3,
                                                   "nameserver.route": [0, 1],   # onChannelDestroy
                                                   "failures.slaveCrashes": 1})


def test_slave_power_loss_keeps_its_flushed_prefix():
    """push2SlaveMaxOffset is the master's: it keeps the slave's earlier report."""
    s = build(SLAVES, **BUSY_SLAVE)
    assert_effect(SLAVES, s, SlavePowerLoss(slave=2), {**SLAVE_MEMORY_LOST, "slave2.commitlog": [1],
                                                       "failures.slavePowerLosses": 1})


@pytest.mark.parametrize("action, budget", [(SlaveCrash(slave=1), "failures.slaveCrashes"),
                                            (SlavePowerLoss(slave=1), "failures.slavePowerLosses")])
def test_slave_failure_guards(action, budget):
    assert_disabled(SLAVES, build(SLAVES, **{budget: 1}), action)
    assert_disabled(SLAVES, build(SLAVES, **{"slave1.up": False, "slave1.haMasterAddress": False,
                                             "slave1.syncMasterAddress": False}), action)


@pytest.mark.parametrize("registered", [True, False])
def test_slave_restart_registers_and_learns_the_master_if_live(registered):
    s = build(SLAVES, **{**BUSY_SLAVE, **SLAVE_MEMORY_LOST, "slave2.commitlog": [1, 2], "slave2.flushed": 1,
                         "nameserver.route": [0, 1] if registered else [1], "failures.slaveCrashes": 1})
    expected = {"slave2.up": True, "slave2.flushed": 2,
                "nameserver.route": [0, 1, 2] if registered else [1, 2]}   # its registration lists it again
    if registered:
        expected.update({"slave2.haMasterAddress": True, "slave2.syncMasterAddress": True})
    assert_effect(SLAVES, s, SlaveRestart(slave=2), expected)


def test_slave_restart_needs_a_dead_slave():
    assert_disabled(SLAVES, build(SLAVES), SlaveRestart(slave=1))


def test_slave_power_loss_forgets_queue_offsets_of_messages_held_nowhere():
    m = model(messages=3, queues=2, max_slave_power_losses=1, max_master_crashes=0, max_master_power_losses=1)
    s = build(m, **{"master.up": False, "master.commitlog": [1], "slave1.commitlog": [1, 2, 3],
                    "slave1.flushed": 1, "producer.nextMessage": 4, "message3.queueOffset": 1,
                    "failures.masterPowerLosses": 1})
    assert_effect(m, s, SlavePowerLoss(slave=1), {"slave1.up": False, "slave1.commitlog": [1],
                                                  "message3.queueOffset": 0,
                                                  "slave1.haMasterAddress": False,
                                                  "slave1.syncMasterAddress": False,
                                                  "failures.slavePowerLosses": 1})


# --- consumers ---------------------------------------------------------------------------------------------
def test_consumer_crash_loses_everything_in_memory():
    """§6.1: RemoteBrokerOffsetStore#load is a no-op; ProcessQueues, suggestions and route are gone."""
    s = build(CONSUMERS, **{"master.commitlog": [1, 2], "producer.nextMessage": 3,
                            "consumer2.q1.nextOffset": 1, "consumer2.q1.offset": 1, "consumer2.q1.inFlight": [2],
                            "consumer2.q1.queueOffsetMax": 0, "consumer2.q1.suggestWhichBrokerId": 1})
    assert_effect(CONSUMERS, s, ConsumerCrash(consumer=2), {
        "consumer2.up": False, "consumer2.route": [], "consumer2.q1.owned": False,
        "consumer2.q1.nextOffset": 0, "consumer2.q1.offset": None, "consumer2.q1.inFlight": [],
        "consumer2.q1.queueOffsetMax": None, "consumer2.q1.suggestWhichBrokerId": 0,
        "failures.consumerRestarts": 1})


def test_consumer_crash_loses_pending_corrections_and_orphan_messages():
    """The OFFSET_ILLEGAL tasks (executeTaskLater) and the consume service's threads die with the process: both
    corrections pending on an owned, dropped queue, one on a queue given away, and the messages of a removed
    ProcessQueue, are all gone."""
    s = build(CONSUMERS, **{"master.commitlog": [1, 2], "producer.nextMessage": 3,
                            "consumer2.q1.dropped": True, "consumer2.q1.offset": 1,
                            "consumer2.q1.pendingCorrection": 1, "consumer2.q1.laterCorrection": 0,
                            "consumer2.q0.droppedInFlight": [1], "consumer2.q0.pendingCorrection": 1})
    assert_effect(CONSUMERS, s, ConsumerCrash(consumer=2), {
        "consumer2.up": False, "consumer2.route": [], "consumer2.q1.owned": False,
        "consumer2.q1.dropped": False, "consumer2.q1.offset": None, "consumer2.q1.pendingCorrection": None,
        "consumer2.q1.laterCorrection": None, "consumer2.q0.droppedInFlight": [],
        "consumer2.q0.pendingCorrection": None, "failures.consumerRestarts": 1})


def test_consumer_crash_guards():
    assert_disabled(CONSUMERS, build(CONSUMERS, **{"failures.consumerRestarts": 1}), ConsumerCrash(consumer=1))
    down = {"consumer1.up": False, "consumer1.route": [1], "consumer1.q0.owned": False,
            "consumer1.q0.offset": None}
    assert_disabled(CONSUMERS, build(CONSUMERS, **down), ConsumerCrash(consumer=1))


@pytest.mark.parametrize("registered", [True, False])
def test_consumer_restart_fetches_the_route(registered):
    down = {"consumer1.up": False, "consumer1.route": [], "consumer1.q0.owned": False,
            "consumer1.q0.offset": None, "failures.consumerRestarts": 1,
            "nameserver.route": [0, 1] if registered else [1]}
    expected = {"consumer1.up": True, "consumer1.route": [0, 1] if registered else [1]}
    assert_effect(CONSUMERS, build(CONSUMERS, **down), ConsumerRestart(consumer=1), expected)


def test_consumer_restart_needs_a_dead_consumer():
    assert_disabled(CONSUMERS, build(CONSUMERS), ConsumerRestart(consumer=1))


def test_failure_actions_exist_only_with_a_budget():
    none = model(max_master_crashes=0, max_master_power_losses=0)
    kinds = {type(a).__name__ for a in none.actions()}
    assert not kinds & {"MasterCrash", "MasterPowerLoss", "MasterRestart", "SlaveCrash", "SlavePowerLoss",
                        "SlaveRestart", "ConsumerCrash", "ConsumerRestart", "HaDisconnect",
                        "NameServerExpireMaster"}
    crash_only = {type(a).__name__ for a in model(max_master_power_losses=0).actions()}
    assert {"MasterCrash", "MasterRestart"} <= crash_only and "MasterPowerLoss" not in crash_only
