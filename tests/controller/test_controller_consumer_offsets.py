"""Consumer offsets in the controller mode (``consumer_offsets = ON``; model/controller/offsets.py): each
action on hand-built states, its effect field by field as the 5.3.3 source has it (the method in each
test's docstring); the four consumer properties on hand-built states; the knob off changes nothing; the
pinned configurations are the same on one and two threads; each new property is broken by its seeded bug
where it holds; ``faults`` and ``explore`` run on a configuration with the knob on."""
from __future__ import annotations

import json

import numpy as np
import pytest

from cli_driver import invoke
from invariants.controller import PROPERTIES
from model.controller import ControllerConfig, preset
from model.controller.model import (BrokerCrash, ConsumerCrashRestart, ControllerModel, PersistAllOffsets,
                                    PersistConsumerOffset, PullMessage, SlaveSyncAll, action_table)
from model.knobs import ConfigError
from tests.controller.test_controller_actions import build, read, running
from tests.tooling.pinned import explored, load

ON = ControllerConfig(consumer_offsets="ON", max_consumer_restarts=1)
ON_2Q = ControllerConfig(consumer_offsets="ON", max_consumer_restarts=1, queues=2, messages=2)
OFFSET_PROPERTIES = ("consumed_message_never_lost", "committed_offset_never_regresses", "no_message_skipped")


def master(b, **extra):
    """Broker ``b`` running, unfenced, in the master role at epoch 1 (the route lists it at brokerId 0)."""
    return running(b, **{"master": 1, "masterEpoch": 1, **extra})


def slave(b, **extra):
    """Broker ``b`` running, unfenced, a slave since its changeToSlave at epoch 1."""
    return running(b, **{"masterEpoch": 1, **extra})


def violated(model, state):
    """The names of the always properties ``state`` violates."""
    bits = int(PROPERTIES.state_check(np.asarray(state, dtype=np.uint64), model.params))
    return {p.name for p in PROPERTIES.of_kind("always") if bits & p.mask}


# -- the knob -------------------------------------------------------------------------------------------------
def test_off_has_no_offset_action_and_restarts_need_the_knob():
    names = {a.declaration.name for a in action_table(ControllerConfig())}
    assert names.isdisjoint({"PersistAllOffsets", "ConsumerCrashRestart", "SlaveSyncAll", "PersistConsumerOffset"})
    on = {a.declaration.name for a in action_table(ON)}
    assert {"PersistAllOffsets", "ConsumerCrashRestart", "SlaveSyncAll", "PersistConsumerOffset"} <= on
    no_budget = ControllerConfig(consumer_offsets="on")
    assert "ConsumerCrashRestart" not in {a.declaration.name for a in action_table(no_budget)}
    with pytest.raises(ConfigError, match="max_consumer_restarts.*needs consumer_offsets=ON"):
        ControllerConfig(max_consumer_restarts=1)
    assert preset("controller").with_overrides(["consumer_offsets=on"]).consumer_offsets == "ON"


# -- the consumer's commit (RemoteBrokerOffsetStore, ConsumerOffsetManager#commitOffset) -------------------------
def test_commit_overwrites_the_masters_entry_and_keeps_the_highest():
    """``RemoteBrokerOffsetStore#updateConsumeOffsetToBroker`` to the master, ``ConsumerOffsetManager#commitOffset``:
    a plain put, a smaller value too (only a "[NOTIFYME]" warning); the group's highest stays."""
    m = ControllerModel(ON)
    s = build(m, controller_up=1, consumer_nextOffset=1, history_highestCommitted_0=2,
              **master(1, consumerOffset_0=3), **slave(2))
    after = m.next_state(s, PersistAllOffsets(broker=1))
    assert (read(m, after, "broker1_consumerOffset_0"), read(m, after, "history_highestCommitted_0")) == (2, 2)
    assert m.next_state(s, PersistAllOffsets(broker=2)) is None   # a master is listed: not to the slave
    higher = m.next_state(build(m, controller_up=1, consumer_nextOffset=2, **master(1), **slave(2)),
                          PersistAllOffsets(broker=1))
    assert (read(m, higher, "broker1_consumerOffset_0"), read(m, higher, "history_highestCommitted_0")) == (3, 2)


def test_with_no_master_listed_the_commit_goes_to_a_slave():
    """``findBrokerAddressInSubscribe(name, MASTER_ID, false)``: no brokerId 0 in the route, the first entry (a
    slave); ``ConsumerManageProcessor#updateConsumerOffset`` has no role check, the slave stores it."""
    m = ControllerModel(ON)
    s = build(m, controller_up=1, consumer_nextOffset=1, **slave(2))
    after = m.next_state(s, PersistAllOffsets(broker=2))
    assert read(m, after, "broker2_consumerOffset_0") == 2
    assert m.next_state(build(m, controller_up=1, consumer_nextOffset=1, **slave(2, fenced=1)),
                        PersistAllOffsets(broker=2)) is None   # a fenced (unregistered) broker is in no route


# -- SlaveSynchronize#syncConsumerOffset ----------------------------------------------------------------------
def test_slave_sync_replaces_the_groups_map_and_persists():
    """``SlaveSynchronize#syncConsumerOffset``: ``getOffsetTable().putAll(master's)``: the group's key maps to
    the master's map, so a lower master value lowers the slave's and a queue the master lacks disappears;
    then ``ConsumerOffsetManager#persist``."""
    m = ControllerModel(ON_2Q)
    s = build(m, controller_up=1, **master(1, consumerOffset_0=2), **slave(2, consumerOffset_0=3, consumerOffset_1=2))
    after = m.next_state(s, SlaveSyncAll(slave=2, master=1))
    assert [read(m, after, f"broker2_{k}") for k in ("consumerOffset_0", "consumerOffset_1", "consumerOffsetJson_0",
                                                     "consumerOffsetJson_1")] == [2, 0, 2, 0]


def test_slave_sync_from_a_master_without_the_group_keeps_the_slaves_map():
    """``ConcurrentMap#putAll`` of a table without the group's key leaves the slave's entry; the persist runs."""
    m = ControllerModel(ON)
    s = build(m, controller_up=1, **master(1), **slave(2, consumerOffset_0=3))
    after = m.next_state(s, SlaveSyncAll(slave=2, master=1))
    assert (read(m, after, "broker2_consumerOffset_0"), read(m, after, "broker2_consumerOffsetJson_0")) == (3, 3)


def test_only_a_slave_that_went_through_change_to_slave_syncs_from_a_listed_master():
    """``ReplicasManager#handleSlaveSynchronize`` schedules the task in ``changeToSlave`` and cancels it in
    ``changeToMaster``; ``masterAddr`` is a broker listed at brokerId 0, never the slave itself."""
    m = ControllerModel(ON)
    base = dict(controller_up=1, **master(1, consumerOffset_0=2))
    for who in (running(2, masterEpoch=1, fenced=1), running(2), master(2, masterEpoch=2)):
        assert m.next_state(build(m, **base, **who), SlaveSyncAll(slave=2, master=1)) is None
    assert m.next_state(build(m, controller_up=1, **running(1, masterEpoch=1, consumerOffset_0=2), **slave(2)),
                        SlaveSyncAll(slave=2, master=1)) is None   # broker 1 is no master


# -- ConsumerOffsetManager#persist, a process death, the pull's history ---------------------------------------
def test_persist_writes_the_table_and_a_process_death_loads_the_file():
    """``ConfigManager#persist`` writes consumerOffset.json; a new process loads it (``ConfigManager#load``):
    the commits after the last persist are gone."""
    m = ControllerModel(ON)
    s = build(m, controller_up=1, **master(1, consumerOffset_0=3, consumerOffsetJson_0=2), **slave(2))
    persisted = m.next_state(s, PersistConsumerOffset(broker=1))
    assert read(m, persisted, "broker1_consumerOffsetJson_0") == 3
    crashed = m.next_state(s, BrokerCrash(broker=1))
    assert (read(m, crashed, "broker1_consumerOffset_0"), read(m, crashed, "broker1_up")) == (2, 0)
    off = ControllerModel(ControllerConfig())   # with the knob off there is no table: its fields take no bits
    assert off.layout.slot("broker1.consumerOffset[0]")[2] == 0 and m.layout.slot("broker1.consumerOffset[0]")[2] > 0


def test_a_pull_records_the_delivery_only_with_the_knob_on():
    on, off = ControllerModel(ON), ControllerModel(ControllerConfig())
    s = {m: build(m, controller_up=1, **master(1, maxOffset=1, dispatched=1, commitlog_msg_0=1, commitlog_epoch_0=1))
         for m in (on, off)}
    assert read(on, on.next_state(s[on], PullMessage(broker=1)), "history_delivered") == 0b1
    assert read(off, off.next_state(s[off], PullMessage(broker=1)), "history_delivered") == 0


# -- the consumer's restart (RebalancePushImpl#computePullFromWhereWithException) -------------------------------
def test_a_restart_reads_the_committed_offset_from_the_master():
    """``RemoteBrokerOffsetStore#fetchConsumeOffsetFromBroker`` (master only): the stored offset; the consumer
    starts there and the budget is spent."""
    m = ControllerModel(ON)
    s = build(m, controller_up=1, consumer_nextOffset=2, **master(1, consumerOffset_0=2, maxOffset=2, dispatched=2),
              **slave(2, consumerOffset_0=3))
    after = m.next_state(s, ConsumerCrashRestart(broker=1))
    assert (read(m, after, "consumer_nextOffset"), read(m, after, "budget_consumerRestarts")) == (1, 1)
    assert m.next_state(s, ConsumerCrashRestart(broker=2)) is None    # a master is listed: not the slave
    assert m.next_state(after, ConsumerCrashRestart(broker=1)) is None  # max_consumer_restarts = 1


def test_without_an_entry_a_restart_starts_at_zero_or_at_the_queue_max():
    """``ConsumerManageProcessor#queryConsumerOffset``: no entry, min offset <= 0 and entry 0 in memory -> 0;
    otherwise QUERY_NOT_FOUND and ``MQAdminImpl#maxOffset`` (the master's consume queue max)."""
    m = ControllerModel(ON)
    log = dict(maxOffset=1, dispatched=1, commitlog_msg_0=1, commitlog_epoch_0=1)
    zero = m.next_state(build(m, controller_up=1, consumer_nextOffset=1, **master(1, **log)),
                        ConsumerCrashRestart(broker=1))
    assert read(m, zero, "consumer_nextOffset") == 0
    two = ControllerModel(ON_2Q)
    # queue 0's only dispatched record has queue offset 1 (no entry 0): QUERY_NOT_FOUND, start at the max, 2
    s = build(two, controller_up=1, **master(1, **log), broker1_commitlog_queueOffset_0=1)
    assert read(two, two.next_state(s, ConsumerCrashRestart(broker=1)), "consumer_nextOffset") == 2


def test_with_no_master_listed_a_restart_reads_a_slave_and_cannot_ask_for_the_max():
    """After a route refresh ``findBrokerAddressInSubscribe(name, MASTER_ID, false)`` gives a slave; its stored
    offset is used; QUERY_NOT_FOUND needs ``maxOffset`` from brokerId 0 (``findBrokerAddressInPublish``),
    absent: an exception, the queue is not taken this round."""
    m = ControllerModel(ON)
    after = m.next_state(build(m, controller_up=1, **slave(2, consumerOffset_0=2)), ConsumerCrashRestart(broker=2))
    assert read(m, after, "consumer_nextOffset") == 1
    assert m.next_state(build(m, controller_up=1, **slave(2)), ConsumerCrashRestart(broker=2)) is None


# -- the properties on hand-built states ------------------------------------------------------------------------
def test_the_properties_on_hand_built_states():
    m = ControllerModel(ON)
    log = dict(maxOffset=1, dispatched=1, commitlog_msg_0=1, commitlog_epoch_0=1)
    # the master answers 0 (its stored offset) below the group's highest, 1: a regression
    regressed = build(m, controller_up=1, history_highestCommitted_0=1, history_delivered=1,
                      **master(1, consumerOffset_0=1, **log))
    assert violated(m, regressed) == {"committed_offset_never_regresses"}
    # QUERY_NOT_FOUND (nothing dispatched, no entry) makes no claim
    assert violated(m, build(m, controller_up=1, history_highestCommitted_0=1, history_delivered=1,
                             **master(1, maxOffset=1, commitlog_msg_0=1, commitlog_epoch_0=1))) == set()
    # committed past message 1, never delivered: skipped
    assert violated(m, build(m, controller_up=1, history_highestCommitted_0=1,
                             **master(1, consumerOffset_0=2, **log))) == {"no_message_skipped"}
    # delivered, then gone from every commitlog
    lost = build(m, controller_up=1, history_delivered=0b10, **master(1, **log))
    assert violated(m, lost) == {"consumed_message_never_lost"}
    # with the knob off none of them has anything to check
    off = ControllerModel(ControllerConfig())   # (nor any history: its fields take no bits with the knob off)
    assert violated(off, build(off, controller_up=1, **master(1, **log))) == set()
    assert not any(off.layout.slot(name)[2] for name in ("history.highestCommitted[0]", "history.delivered"))


# -- pinned configurations, threads, seeded bugs ------------------------------------------------------------------
TABLE = load(mode="controller")
ON_ENTRIES = [e for e in TABLE.values() if e.knobs.get("consumer_offsets") == "ON" and not e.mutation]

#: seeded bug -> the property it breaks where ctl-offsets-no-failures has it hold
FLIPS = {
    "mutant-restart-from-queue-start": "committed_offset_never_regresses",
    "mutant-restart-from-queue-max": "no_message_skipped",
    "mutant-truncate-master-at-connect": "consumed_message_never_lost",
    "mutant-consumer-never-pulls": "acked_message_eventually_consumed",
}


@pytest.mark.parametrize("mutant", sorted(FLIPS))
def test_each_offset_property_is_flipped_by_a_seeded_bug(mutant):
    healthy, bug = TABLE["ctl-offsets-no-failures"], TABLE[mutant]
    assert (bug.preset, bug.knobs) == (healthy.preset, healthy.knobs)
    assert all(healthy.verdicts[p] == "holds" for p in (*OFFSET_PROPERTIES, "acked_message_eventually_consumed"))
    assert bug.verdicts[FLIPS[mutant]] == "violated"


def test_the_pinned_configurations_with_the_knob_on_break_what_the_reading_says():
    crash = TABLE["ctl-offsets-crash"].verdicts
    # a commit after the master's last persist dies with it: the restarted master answers an older offset
    assert crash["committed_offset_never_regresses"] == "violated"
    assert crash["consumed_message_never_lost"] == "violated"
    # with allAck a SEND_OK message survives and is eventually consumed; a consumed one can still vanish
    allack = TABLE["ctl-offsets-allack"].verdicts
    assert (allack["acked_message_eventually_consumed"], allack["consumed_message_never_lost"]) == ("holds", "violated")


@pytest.mark.parametrize("name", [e.name for e in ON_ENTRIES if e.distinct_states < 300_000])
def test_one_and_two_threads_give_the_pinned_numbers(name):
    entry = TABLE[name]
    for threads in (1, 2):
        now = explored(entry, threads=threads)
        assert (now.counts, now.verdicts) == (entry.counts, entry.verdicts), threads


# -- commands ------------------------------------------------------------------------------------------------------
SMALL = ("--preset", "controller", "--set", "consumer_offsets=on", "--set", "messages=1",
         "--set", "max_consumer_restarts=1")


def test_check_explains_an_offset_violation():
    r = invoke("check", *SMALL, "--property", "committed_offset_never_regresses", "--json", "-", "--traces", "violated")
    assert r.exit_code == 1, r.stderr
    doc = json.loads(r.stdout)
    [p] = doc["properties"]
    assert p["status"] == "violated" and [s["action"] for s in p["trace"]][-1].startswith("ReputMessage(")
    assert any("below the 1 the group had committed" in c["text"] for c in p["explanation"]["conditions"])


def test_faults_runs_with_the_knob_on():
    """Without broker failures (one consumer restart, fixed: not a failure kind ``faults`` varies) the four
    properties hold, and faults says so for each."""
    r = invoke("faults", *SMALL, "--set", "max_broker_crashes=0", "--grow", "none", "--jobs", "1", "--threads", "1",
               "--json", "-", "--traces", "none", *(a for p in OFFSET_PROPERTIES for a in ("--property", p)))
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert {p["name"]: p["status"] for p in doc["properties"]} == dict.fromkeys(OFFSET_PROPERTIES, "holds")
    assert doc["config"]["consumer_offsets"] == "ON" and doc["config"]["max_consumer_restarts"] == 1
