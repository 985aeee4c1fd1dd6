"""Controller-mode actions on hand-built states: the effect each must have, field by field, as the
controller mechanisms page (5.3.3) states it (section in each test's docstring)."""
from __future__ import annotations

import numpy as np

from model.controller import ControllerConfig
from model.controller import fields as F
from model.controller.model import (AckWaitDone, ControllerElect, ControllerElectNone, ControllerModel, HAConnect,
                                    RegisterBroker, SendMessage, SlaveReportOffset)

INDEX = {name: i for i, name in enumerate(F.NAMES)}


def build(model, **fields):
    """A packed state of ``model`` (in its configuration's layout) from ``field name -> value``
    (``broker1_commitlog_msg_0`` for ``broker1.commitlog.msg[0]``); every other field 0."""
    v = np.zeros(F.NFIELDS, dtype=np.int64)
    for key, value in fields.items():
        v[INDEX[_name(key)]] = value
    return tuple(int(x) for x in model.pack_vector(v))


def _name(key: str) -> str:
    for name in F.NAMES:
        if name.replace(".", "_").replace("[", "_").replace("]", "") == key:
            return name
    raise KeyError(key)


def read(model, state, key):
    return int(model.vector(state)[INDEX[_name(key)]])


def running(b, **extra):
    p = f"broker{b}_"
    return {p + "up": 1, **{p + k: v for k, v in extra.items()}}


def test_controller_elects_a_live_sync_state_set_member():
    """§1.5: the master is not alive; the live SyncStateSet member becomes master, masterEpoch + 1,
    SyncStateSet {new master}, syncStateSetEpoch + 1; a live broker outside the set is not electable."""
    m = ControllerModel(ControllerConfig(brokers=3))
    s = build(m, controller_up=1, controller_masterBrokerId=1, controller_masterEpoch=1, controller_syncStateSet=0b011,
              controller_syncStateSetEpoch=2, **running(2, ctlAlive=1), **running(3, ctlAlive=1))
    after = m.next_state(s, ControllerElect(elected=2))
    assert [read(m, after, k) for k in ("controller_masterBrokerId", "controller_masterEpoch",
                                       "controller_syncStateSet", "controller_syncStateSetEpoch")] == [2, 2, 0b010, 3]
    assert m.next_state(s, ControllerElect(elected=3)) is None
    unclean = ControllerModel(ControllerConfig(brokers=3, enable_elect_unclean_master=True))
    assert unclean.next_state(s, ControllerElect(elected=3)) is None   # 2 is alive
    s1 = build(unclean, controller_up=1, controller_masterBrokerId=1, controller_masterEpoch=1, controller_syncStateSet=0b001,
               **running(3, ctlAlive=1))
    assert read(unclean, unclean.next_state(s1, ControllerElect(elected=3)),
                "controller_masterBrokerId") == 3


def test_no_candidate_leaves_no_master_and_keeps_the_set():
    """§1.5: controller-triggered, no candidate: master := none, masterEpoch + 1, SyncStateSet kept."""
    m = ControllerModel()
    s = build(m, controller_up=1, controller_masterBrokerId=1, controller_masterEpoch=1, controller_syncStateSet=0b001,
              controller_syncStateSetEpoch=1, **running(2, ctlAlive=1))
    after = m.next_state(s, ControllerElectNone())
    assert [read(m, after, k) for k in ("controller_masterBrokerId", "controller_masterEpoch",
                                       "controller_syncStateSet")] == [0, 2, 0b001]


def test_handshake_truncates_to_the_consistent_point():
    """§3.2: the newest common epoch (same number and start) is 1; min(local end 2, master end 1) = 1: the
    slave's commitlog and epoch file are cut at offset 1 and the connection is up."""
    m = ControllerModel()
    s = build(m, controller_up=1,
              **running(1, master=1, masterEpoch=2, maxOffset=2, commitlog_msg_0=1, commitlog_epoch_0=1,
                        commitlog_msg_1=3, commitlog_epoch_1=2, epochEntries=2, epochFile_epoch_0=1,
                        epochFile_start_0=0, epochFile_epoch_1=2, epochFile_start_1=1),
              **running(2, masterEpoch=2, maxOffset=2, commitlog_msg_0=1, commitlog_epoch_0=1, commitlog_msg_1=2,
                        commitlog_epoch_1=1, epochEntries=1, epochFile_epoch_0=1, epochFile_start_0=0))
    after = m.next_state(s, HAConnect(slave=2, master=1))
    assert m.view(after)["broker2.commitlog"] == ["1@e1"]
    assert m.view(after)["broker2.epochFile"] == [(1, 0)]
    assert m.view(after)["broker2.haMaster"] == 1


def test_no_common_epoch_closes_the_handshake():
    """§3.2: findConsistentPoint -1: the connection closes, nothing changes (not a transition)."""
    m = ControllerModel()
    s = build(m, controller_up=1,
              **running(1, master=1, masterEpoch=2, maxOffset=1, commitlog_msg_0=1, commitlog_epoch_0=2,
                        epochEntries=1, epochFile_epoch_0=2, epochFile_start_0=0),
              **running(2, masterEpoch=2, maxOffset=1, commitlog_msg_0=2, commitlog_epoch_0=1, epochEntries=1,
                        epochFile_epoch_0=1, epochFile_start_0=0))
    assert m.next_state(s, HAConnect(slave=2, master=1)) is None


def test_restart_as_master_at_the_same_epoch_moves_the_epoch_entry():
    """§5.3: the controller never noticed the crash; the registration names the broker master at the same
    epoch; changeToMaster removes that epoch's entry and appends (epoch, max): (1, 0) -> (1, 1)."""
    m = ControllerModel()
    s = build(m, controller_up=1, controller_masterBrokerId=1, controller_masterEpoch=1, controller_syncStateSet=0b001,
              controller_syncStateSetEpoch=1,
              **running(1, fenced=1, ctlAlive=1, maxOffset=1, commitlog_msg_0=1, commitlog_epoch_0=1,
                        epochEntries=1, epochFile_epoch_0=1, epochFile_start_0=0))
    after = m.next_state(s, RegisterBroker(broker=1))
    view = m.view(after)
    assert (view["broker1.role"], view["broker1.fenced"], view["broker1.masterEpoch"]) == ("MASTER", False, 1)
    assert view["broker1.epochFile"] == [(1, 1)]


def test_an_expansion_replaces_the_remote_set():
    """§4.2 (``markSynchronizingSyncStateSet`` clears remote): with local {2} and a pending {1, 2}, a report
    from slave 3 proposes local + {3} = {2, 3}, and broker 1 leaves the union."""
    m = ControllerModel(ControllerConfig(brokers=3, all_ack_in_sync_state_set=True))
    s = build(m, controller_up=1,
              **running(2, master=1, masterEpoch=1, syncStateSet=0b010, syncStateSetEpoch=1, synchronizing=1,
                        remoteSyncStateSet=0b011, epochEntries=1, epochFile_epoch_0=1),
              **running(3, masterEpoch=1, haMaster=2))
    after = m.next_state(s, SlaveReportOffset(slave=3))
    view = m.view(after)
    assert view["broker2.remoteSyncStateSet"] == [2, 3] and view["broker2.alterPending"]
    assert view["broker3.slaveAckOffset"] == 0


def test_min_in_sync_replicas_refuses_the_put_before_the_append():
    """§4.6: inSyncReplicasNums (1) < minInSyncReplicas (2): IN_SYNC_REPLICAS_NOT_ENOUGH, nothing appended;
    while a proposal is pending, max(|local|, |remote|) counts."""
    m = ControllerModel(ControllerConfig(min_in_sync_replicas=2))
    s = build(m, controller_up=1, **running(1, master=1, masterEpoch=1, syncStateSet=0b01, syncStateSetEpoch=1))
    assert m.next_state(s, SendMessage(broker=1)) is None
    pending = build(m, controller_up=1, **running(1, master=1, masterEpoch=1, syncStateSet=0b01, synchronizing=1,
                                              remoteSyncStateSet=0b11))
    assert m.view(m.next_state(pending, SendMessage(broker=1)))["broker1.commitlog"] == ["1@e1"]


def _outcome(m, state, action):
    out, flags = m.expand(state)
    return m.describe_outcome(int(flags[list(m.actions()).index(action)]))


def test_a_waiting_put_completed_by_a_set_of_one_says_so_and_its_deadline():
    """§4.6 (``GroupTransferService#doWaitTransfer``, allAck): a put waiting on master 2 completes when the set
    it re-reads has one member, with no ack read; the trace says so, and that it needs slaveTimeout (3,000 ms)
    from the append. With every member's ack it is a plain SEND_OK."""
    m = ControllerModel(ControllerConfig(all_ack_in_sync_state_set=True))
    put = dict(producer_waiting=1, producer_waitBroker=1, producer_waitEnd=1)
    alone = build(m, **put, **running(2, master=1, syncStateSet=0b10, masterEpoch=2, commitlog_msg_0=1, maxOffset=1))
    assert _outcome(m, alone, AckWaitDone()) == ("SEND_OK on the SyncStateSet's size alone (GroupTransferService, "
                                                  "5.3.3), within slaveTimeout (3,000 ms) of the append")
    acked = build(m, **put, **running(2, master=1, syncStateSet=0b11, masterEpoch=2, commitlog_msg_0=1, maxOffset=1),
                  **running(1, haMaster=2, slaveAckOffset=2, commitlog_msg_0=1, maxOffset=1))
    assert _outcome(m, acked, AckWaitDone()) == "SEND_OK"
    assert read(m, m.next_state(acked, AckWaitDone()), "producer_sendOk") == 1
