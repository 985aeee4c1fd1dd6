"""The HA connection's own transfer epoch (issue 48 item 6, reading §6.4) on hand-built states, as RocketMQ
5.3.3 reads (``AutoSwitchHAConnection#changeTransferEpochToNext``, ``WriteSocketService#transferToSlave``,
``AutoSwitchHAClient`` appending an epoch entry only from a header): a connection whose epoch was the last
when taken keeps it across a same-master re-election."""
from __future__ import annotations

from model.controller import ControllerConfig
from model.controller.model import ControllerModel, PushData, SendMessage, SyncBrokerMetadata

from tests.controller.test_controller_actions import build, running
from tests.controller.test_controller_election_ranking import _fields_of


def _connected_pair(m, tx_epoch, tx_end):
    """2 brokers: broker 1 master at masterEpoch 1 (epoch file [(1, 0)], one message), the controller naming
    it at masterEpoch 2 (a same-master re-election, e.g. after no candidate); broker 2 its slave, caught up,
    connected and reported, its connection's transfer epoch ``(tx_epoch, tx_end)`` (7: unbounded)."""
    log = dict(maxOffset=1, commitlog_msg_0=1, commitlog_epoch_0=1, epochEntries=1, epochFile_epoch_0=1,
               epochFile_start_0=0, ctlAlive=1, masterEpoch=1, syncStateSet=0b001, syncStateSetEpoch=1)
    return build(m, controller_up=1, controller_masterBrokerId=1, controller_masterEpoch=2,
                 controller_syncStateSet=0b001, controller_syncStateSetEpoch=1, producer_next=1,
                 producer_sendOk=0b1, **running(1, master=1, **log), **running(2, haMaster=1, slaveAckOffset=2, **log),
                 ha_transferEpoch_1=tx_epoch, ha_transferEpochEnd_1=tx_end)


def test_a_same_master_re_election_leaves_the_connection_on_its_old_epoch():
    """``changeToMasterWhenLastRoleIsMaster`` appends (2, 1) and keeps the connection, whose transfer epoch
    (1, -1) was the last when taken (``changeTransferEpochToNext``) and is never left: the next message
    (epoch 2, offset 1) goes out under epoch 1's header, which the slave's ``appendEntry`` ignores, so its
    epoch file says the message is epoch 1's. A connection set up after the re-election labels it (2, 1)."""
    m = ControllerModel(ControllerConfig())
    s = m.next_state(_connected_pair(m, 1, 7), SyncBrokerMetadata(broker=1))
    assert m.view(s)["broker1.epochFile"] == [(1, 0), (2, 1)] and m.view(s)["broker2.haMaster"] == 1
    s = m.next_state(s, SendMessage(broker=1))
    s = m.next_state(s, PushData(slave=2))
    v = m.view(s)
    assert v["broker2.commitlog"] == ["1@e1", "2@e2"] and v["broker2.epochFile"] == [(1, 0)]
    assert (v["broker2.haTransferEpoch"], v["broker2.haTransferEpochEnd"]) == (1, -1)
    fresh = m.next_state(m.next_state(m.next_state(_connected_pair(m, 0, 0), SyncBrokerMetadata(broker=1)),
                                      SendMessage(broker=1)), PushData(slave=2))
    assert m.view(fresh)["broker2.epochFile"] == [(1, 0), (2, 1)]
    assert (m.view(fresh)["broker2.haTransferEpoch"], m.view(fresh)["broker2.haTransferEpochEnd"]) == (2, -1)


def test_a_bounded_transfer_epoch_moves_to_the_next_entry_at_its_end():
    """A connection taken in an epoch that was not the last has that entry's end; data past it moves the
    connection to ``nextEntry`` (``#transferToSlave``), here the new last epoch: unbounded, header (2, 1)."""
    m = ControllerModel(ControllerConfig())
    s = m.next_state(m.next_state(_connected_pair(m, 0, 0), SyncBrokerMetadata(broker=1)), SendMessage(broker=1))
    bounded = build(m, **{**dict(_fields_of(m, s)), "ha_transferEpoch_1": 1, "ha_transferEpochEnd_1": 1})
    v = m.view(m.next_state(bounded, PushData(slave=2)))
    assert v["broker2.epochFile"] == [(1, 0), (2, 1)]
    assert (v["broker2.haTransferEpoch"], v["broker2.haTransferEpochEnd"]) == (2, -1)
