"""Broker metadata on hand-built states: SlaveRegister, SlaveSyncAll, PersistConsumerOffset and
NameServerExpireMaster (mechanisms §1, §2.1, §4, §5)."""
from __future__ import annotations

import pytest

from handbuilt import NO_FAILURES, assert_disabled, assert_effect, build, fire, model
from model.actions import NameServerExpireMaster, PersistConsumerOffset, SlaveRegister, SlaveSyncAll
from model.events import EV_SLAVE_SYNC_LOWERED_OFFSET

M = model(**NO_FAILURES)
Q2 = model(messages=4, queues=2, **NO_FAILURES)          # offsets 0..2 per queue
Q2_MAX = model(messages=4, queues=2, sync_offsets_max=True, **NO_FAILURES)
POWER = model(max_master_crashes=0, max_master_power_losses=1)

REGISTER, SYNC = SlaveRegister(slave=1), SlaveSyncAll(slave=1)


# --- SlaveRegister -----------------------------------------------------------------------------------------
def test_register_learns_both_master_addresses_from_a_live_master():
    s = build(M, **{"slave1.haMasterAddress": False, "slave1.syncMasterAddress": False})
    assert_effect(M, s, REGISTER, {"slave1.haMasterAddress": True, "slave1.syncMasterAddress": True})


def test_register_without_a_registered_master_loses_only_the_sync_address():
    """§1/§4: the reply's masterAddr is null -> SlaveSynchronize.masterAddr := null; §2.1: the HA address
    is updated only from a non-null haServerAddr, never cleared."""
    s = build(M, **{"nameserver.route": [1]})
    assert_effect(M, s, REGISTER, {"slave1.syncMasterAddress": False})


def test_register_learns_the_addresses_of_a_dead_but_still_registered_master():
    """§1: only brokerLiveTable counts; a master that lost power stays there until it expires."""
    s = build(POWER, **{"master.up": False, "slave1.haMasterAddress": False, "slave1.syncMasterAddress": False})
    assert_effect(POWER, s, REGISTER, {"slave1.haMasterAddress": True, "slave1.syncMasterAddress": True})


def test_register_guards():
    assert_disabled(M, build(M), REGISTER)  # nothing would change
    assert_disabled(M, build(M, **{"slave1.up": False, "slave1.haMasterAddress": False}), REGISTER)
    gone = build(M, **{"nameserver.route": [1], "slave1.haMasterAddress": False,
                       "slave1.syncMasterAddress": False})
    assert_disabled(M, gone, REGISTER)


# --- SlaveSyncAll ------------------------------------------------------------------------------------------
def offsets(m, master=(None, None), slave=(None, None), slave_json=None, **extra):
    fields = {}
    for q in range(m.config.queues):
        fields[f"master.consumerOffset[{q}]"] = master[q]
        fields[f"slave1.consumerOffset[{q}]"] = slave[q]
        fields[f"slave1.consumerOffsetJson[{q}]"] = (slave if slave_json is None else slave_json)[q]
    fields.update(extra)
    return build(m, **fields)


def test_sync_replaces_the_slave_map_by_the_masters_for_the_key():
    """§4: putAll per topic@group key: queues present only on the slave disappear; no max, no check;
    then persist."""
    s = offsets(Q2, master=(1, None), slave=(2, 1))
    assert_effect(Q2, s, SYNC, {"slave1.consumerOffset[0]": 1, "slave1.consumerOffset[1]": None,
                                "slave1.consumerOffsetJson[0]": 1, "slave1.consumerOffsetJson[1]": None})
    assert fire(Q2, s, SYNC)[1] & EV_SLAVE_SYNC_LOWERED_OFFSET


def test_sync_raises_too():
    s = offsets(Q2, master=(2, 2), slave=(1, None))
    _, flags = fire(Q2, s, SYNC)
    assert not flags & EV_SLAVE_SYNC_LOWERED_OFFSET
    assert_effect(Q2, s, SYNC, {"slave1.consumerOffset[0]": 2, "slave1.consumerOffset[1]": 2,
                                "slave1.consumerOffsetJson[0]": 2, "slave1.consumerOffsetJson[1]": 2})


def test_sync_with_an_empty_master_table_changes_nothing_but_persists():
    """§4: an empty master table leaves the slave's table as it was; persist still runs."""
    s = offsets(Q2, master=(None, None), slave=(2, 1), slave_json=(None, 0))
    assert_effect(Q2, s, SYNC, {"slave1.consumerOffsetJson[0]": 2, "slave1.consumerOffsetJson[1]": 1})
    assert_disabled(Q2, offsets(Q2, master=(None, None), slave=(2, 1)), SYNC)


def test_sync_one_queue():
    s = offsets(M, master=(0,), slave=(2,))
    assert_effect(M, s, SYNC, {"slave1.consumerOffset[0]": 0, "slave1.consumerOffsetJson[0]": 0})


def test_sync_v2_keeps_the_per_queue_maximum():
    """§10 V2: each entry becomes max(local, master); a queue only the slave has stays."""
    s = offsets(Q2_MAX, master=(1, None), slave=(2, 1), slave_json=(None, None))
    assert_effect(Q2_MAX, s, SYNC, {"slave1.consumerOffsetJson[0]": 2, "slave1.consumerOffsetJson[1]": 1})
    assert not fire(Q2_MAX, s, SYNC)[1] & EV_SLAVE_SYNC_LOWERED_OFFSET
    s = offsets(Q2_MAX, master=(2, 0), slave=(1, None))
    assert_effect(Q2_MAX, s, SYNC, {"slave1.consumerOffset[0]": 2, "slave1.consumerOffset[1]": 0,
                                    "slave1.consumerOffsetJson[0]": 2, "slave1.consumerOffsetJson[1]": 0})


@pytest.mark.parametrize("fields", [
    {"slave1.up": False},
    {"slave1.syncMasterAddress": False},
    {"master.up": False},
], ids=["slave down", "masterAddr null", "master down"])
def test_sync_guards(fields):
    s = offsets(M, master=(1,), slave=(0,), **fields)
    assert_disabled(M, s, SYNC)


# --- PersistConsumerOffset ---------------------------------------------------------------------------------
@pytest.mark.parametrize("broker", [0, 1])
def test_persist_writes_the_in_memory_table(broker):
    name = "master" if broker == 0 else "slave1"
    s = build(Q2, **{f"{name}.consumerOffset[0]": 2, f"{name}.consumerOffset[1]": None,
                     f"{name}.consumerOffsetJson[0]": 1, f"{name}.consumerOffsetJson[1]": 0})
    assert_effect(Q2, s, PersistConsumerOffset(broker=broker),
                  {f"{name}.consumerOffsetJson[0]": 2, f"{name}.consumerOffsetJson[1]": None})


def test_persist_guards():
    s = build(M, **{"master.consumerOffset[0]": 1, "master.up": False,
                    "slave1.consumerOffset[0]": 1, "slave1.up": False})
    assert_disabled(M, s, PersistConsumerOffset(broker=0))
    assert_disabled(M, s, PersistConsumerOffset(broker=1))
    assert_disabled(M, build(M), PersistConsumerOffset(broker=0))


# --- NameServerExpireMaster --------------------------------------------------------------------------------
def test_name_server_expires_a_silent_master():
    s = build(POWER, **{"master.up": False})
    assert_effect(POWER, s, NameServerExpireMaster(), {"nameserver.route": [1]})


def test_name_server_expiry_guards():
    assert_disabled(POWER, build(POWER), NameServerExpireMaster())
    assert_disabled(POWER, build(POWER, **{"master.up": False, "nameserver.route": [1]}),
                    NameServerExpireMaster())
    # only a power loss leaves a dead master registered (a crash closes the channel at once)
    assert NameServerExpireMaster() not in model(max_master_power_losses=0).actions()
