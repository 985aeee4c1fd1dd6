"""The disk under a truncation in the controller mode (issue 48, item 6; knob ``stale_tail``): what
``MappedFileQueue#truncateDirtyFiles`` leaves past the new write position and what ``CommitLog#recoverNormally``
/ ``#recoverAbnormally`` read back (model/controller/disk.py). Hand-built states with the effect the 5.3.3
source gives, field by field."""
from __future__ import annotations

import pytest

from model.config import ConfigError
from model.controller import ControllerConfig
from model.controller.model import (BrokerCrash, BrokerPowerLoss, BrokerRestart, BrokerShutdown, ControllerModel,
                                    HAConnect, PushData, SendMessage, action_table)
from test_controller_actions import build, read, running

ON = dict(stale_tail="ON")


def slave_with_a_tail(m, dispatched=2, confirm=2, **extra):
    """Broker 1 master at epoch 2 with [m1@e1] and epoch file [(1,0), (2,1)]; broker 2, a slave told of
    epoch 2 and not yet connected, with [m1@e1, m2@e1] (m2 never reached broker 1: it was appended while
    broker 2 was master at epoch 1), epoch file [(1,0)], consume queue dispatched to ``dispatched``,
    confirmOffset ``confirm``. Their consistent point (``EpochFileCache#findConsistentPoint``): epoch 1
    starts at 0 on both; it ends at 2 on broker 2 and at 1 on broker 1 -> 1."""
    fields = dict(controller_up=1, controller_masterBrokerId=1, controller_masterEpoch=2,
                  controller_syncStateSet=0b01, controller_syncStateSetEpoch=2,
                  **running(1, master=1, masterEpoch=2, syncStateSet=0b01, syncStateSetEpoch=2, ctlAlive=1,
                            maxOffset=1, flushed=1, confirmOffset=1, dispatched=1, commitlog_msg_0=1,
                            commitlog_epoch_0=1, epochEntries=2, epochFile_epoch_0=1, epochFile_epoch_1=2,
                            epochFile_start_1=1),
                  **running(2, masterEpoch=2, ctlAlive=1, maxOffset=2, flushed=2, confirmOffset=confirm,
                            dispatched=dispatched, commitlog_msg_0=1, commitlog_epoch_0=1, commitlog_msg_1=2,
                            commitlog_epoch_1=1, epochEntries=1, epochFile_epoch_0=1))
    fields.update(extra)
    return build(m, **fields)


def fields_of(m, s, b, *names):
    return {name: read(m, s, f"broker{b}_{name}") for name in names}


LOG = ("maxOffset", "commitlog_msg_0", "commitlog_msg_1", "commitlog_epoch_1", "staleEnd", "staleDispatched",
       "dispatched", "confirmOffset", "flushed", "epochEntries")


def test_knob_default_bad_value_and_actions():
    assert ControllerConfig().stale_tail == "OFF"
    assert ControllerConfig.from_mapping({"stale_tail": "on"}).stale_tail == "ON"
    with pytest.raises(ConfigError, match="stale_tail"):
        ControllerConfig.from_mapping({"stale_tail": "sometimes"})
    off = [str(a) for a in action_table(ControllerConfig())]
    on = [str(a) for a in action_table(ControllerConfig(**ON))]
    assert [a for a in on if a not in off] == ["BrokerShutdown(broker=1)", "BrokerShutdown(broker=2)"]
    assert "broker1.staleTail" not in ControllerConfig().view_kinds()
    assert "broker1.staleTail" in ControllerConfig(**ON).view_kinds()


def test_truncation_off_removes_the_records():
    """``stale_tail`` off (the model as before): the handshake's truncation at 1 clears position 1."""
    m = ControllerModel(ControllerConfig())
    after = m.next_state(slave_with_a_tail(m), HAConnect(slave=2, master=1))
    assert fields_of(m, after, 2, *LOG) == dict(maxOffset=1, commitlog_msg_0=1, commitlog_msg_1=0,
                                                commitlog_epoch_1=0, staleEnd=0, staleDispatched=0, dispatched=1,
                                                confirmOffset=1, flushed=1, epochEntries=1)


def test_truncation_on_moves_only_the_positions():
    """``MappedFileQueue#truncateDirtyFiles`` / ``ConsumeQueue#truncateDirtyLogicFiles``: the write, flushed
    positions, confirmOffset (``CommitLog#truncateDirtyFiles``) and the consume queue's end move to 1; m2's
    bytes stay at position 1 (the stale tail, end 2) and so does its consume-queue entry (stale end 2)."""
    m = ControllerModel(ControllerConfig(**ON))
    after = m.next_state(slave_with_a_tail(m), HAConnect(slave=2, master=1))
    assert fields_of(m, after, 2, *LOG) == dict(maxOffset=1, commitlog_msg_0=1, commitlog_msg_1=2,
                                                commitlog_epoch_1=1, staleEnd=2, staleDispatched=2, dispatched=1,
                                                confirmOffset=1, flushed=1, epochEntries=1)
    view = m.view(after)
    assert view["broker2.commitlog"] == ["1@e1"] and view["broker2.staleTail"] == ["2@e1"]
    assert m.encode(view) == after


def truncated(dispatched, **knobs):
    m = ControllerModel(ControllerConfig(**ON, **knobs))
    return m, m.next_state(slave_with_a_tail(m, dispatched=dispatched, confirm=1), HAConnect(slave=2, master=1))


def test_crash_then_abnormal_recovery_reads_the_tail_back_and_dispatches_none_of_it():
    """§9.6: truncated at 1 with nothing appended, then a crash: ``#recoverAbnormally`` scans the whole file,
    m2 is valid -> max offset 2 again (the old max); it dispatches only records ending at or below the
    checkpoint's confirmOffset, 1: none of the tail (its consume queue had not dispatched m2 either)."""
    m, s = truncated(dispatched=1)
    s = m.next_state(m.next_state(s, BrokerCrash(broker=2)), BrokerRestart(broker=2))
    assert fields_of(m, s, 2, *LOG) == dict(maxOffset=2, commitlog_msg_0=1, commitlog_msg_1=2,
                                            commitlog_epoch_1=1, staleEnd=0, staleDispatched=0, dispatched=1,
                                            confirmOffset=1, flushed=1, epochEntries=1)
    assert read(m, s, "broker2_fenced") == 1


def test_abnormal_recovery_keeps_the_consume_queues_stale_entries():
    """As above, but the consume queue had dispatched m2 before the truncation: ``ConsumeQueue#recover`` reads
    its entry back and recovery cuts only entries at or past the recovered max (2): m2 is dispatched."""
    m, s = truncated(dispatched=2)
    s = m.next_state(m.next_state(s, BrokerCrash(broker=2)), BrokerRestart(broker=2))
    assert fields_of(m, s, 2, "maxOffset", "dispatched", "confirmOffset", "staleDispatched") == dict(
        maxOffset=2, dispatched=2, confirmOffset=1, staleDispatched=0)


def test_clean_shutdown_then_normal_recovery_dispatches_the_tail():
    """§9.6: truncated at 1, then ``DefaultMessageStore#shutdown`` (dispatch caught up with confirmOffset 1,
    everything written flushed, abort file deleted): ``#recoverNormally`` reads m2 back (max 2) and
    dispatches it (past the consume queue, no confirmOffset check); confirmOffset stays 1."""
    m, s = truncated(dispatched=1)
    down = m.next_state(s, BrokerShutdown(broker=2))
    assert read(m, down, "broker2_cleanShutdown") == 1 and read(m, down, "broker2_up") == 0
    assert read(m, down, "budget_crashes") == 1
    s = m.next_state(down, BrokerRestart(broker=2))
    assert fields_of(m, s, 2, *LOG) == dict(maxOffset=2, commitlog_msg_0=1, commitlog_msg_1=2,
                                            commitlog_epoch_1=1, staleEnd=0, staleDispatched=0, dispatched=2,
                                            confirmOffset=1, flushed=1, epochEntries=1)
    assert read(m, s, "broker2_cleanShutdown") == 0


def test_power_loss_drops_the_tail():
    """The model's under-approximation: a power loss loses the stale tail with the page cache."""
    m, s = truncated(dispatched=2, max_broker_power_losses=1)
    s = m.next_state(m.next_state(s, BrokerPowerLoss(broker=2)), BrokerRestart(broker=2))
    assert fields_of(m, s, 2, "maxOffset", "commitlog_msg_1", "staleEnd", "staleDispatched", "dispatched") == dict(
        maxOffset=1, commitlog_msg_1=0, staleEnd=0, staleDispatched=0, dispatched=1)


def test_an_append_overwrites_the_first_stale_record_only():
    """Truncated at 0 with [m1@e1, m2@e1] left behind; the master's m3@e2 pushed at position 0 overwrites
    m1 only (equal record sizes): m2 stays stale at position 1, and a restart reads [m3, m2] back."""
    m = ControllerModel(ControllerConfig(**ON))
    s = build(m, controller_up=1, controller_masterBrokerId=1, controller_masterEpoch=2, controller_syncStateSet=0b01,
              controller_syncStateSetEpoch=2,
              **running(1, master=1, masterEpoch=2, syncStateSet=0b01, syncStateSetEpoch=2, ctlAlive=1,
                        maxOffset=1, commitlog_msg_0=3, commitlog_epoch_0=2, epochEntries=1, epochFile_epoch_0=2),
              **running(2, masterEpoch=2, ctlAlive=1, haMaster=1, slaveAckOffset=1, maxOffset=0, staleEnd=2,
                        commitlog_msg_0=1, commitlog_epoch_0=1, commitlog_msg_1=2, commitlog_epoch_1=1))
    s = m.next_state(s, PushData(slave=2))
    assert m.view(s)["broker2.commitlog"] == ["3@e2"] and m.view(s)["broker2.staleTail"] == ["2@e1"]
    s = m.next_state(m.next_state(s, BrokerCrash(broker=2)), BrokerRestart(broker=2))
    assert m.view(s)["broker2.commitlog"] == ["3@e2", "2@e1"]
    # the append that reaches the stale end leaves no tail
    m1 = ControllerModel(ControllerConfig(**ON, messages=3))
    s = build(m1, controller_up=1, controller_masterBrokerId=1, controller_masterEpoch=1, controller_syncStateSet=0b01,
              controller_syncStateSetEpoch=1,
              **running(1, master=1, masterEpoch=1, syncStateSet=0b01, syncStateSetEpoch=1, ctlAlive=1,
                        maxOffset=0, staleEnd=1, commitlog_msg_0=2, commitlog_epoch_0=1, epochEntries=1,
                        epochFile_epoch_0=1))
    s = m1.next_state(s, SendMessage(broker=1))
    assert m1.view(s)["broker1.commitlog"] == ["1@e1"] and m1.view(s)["broker1.staleTail"] == []


@pytest.mark.parametrize("threads", [2])
def test_threads_give_the_same_result(threads):
    """The pinned counts and every verdict (one thread's, tests/controller/test_controller_pinned.py) on more."""
    from tests.tooling.pinned import explored, load

    entry = load(mode="controller")["ctl-stale-tail"]
    assert explored(entry, threads=threads) == entry


# -- the violations the stale tail adds (docs/controller.md, "The disk under a truncation") -----------------
#: controller-allack, 3 messages, 3 process stops: broker 1 (master, epoch 1) has m1 on both brokers and m2
#: on itself only (its put waiting for broker 2's ack) when it crashes; broker 2 is elected (epoch 2);
#: broker 1 restarts, registers as a slave and its handshake truncates it to 1 (m2 left on disk)
PREFIX = ("RegisterBroker(broker=1)", "BrokerElect(broker=1, elected=1)", "RegisterBroker(broker=2)",
          "HAConnect(slave=2, master=1)", "SlaveReportOffset(slave=2)", "AlterSyncStateSet(broker=1)",
          "SendMessage(broker=1)", "PushData(slave=2)", "SlaveReportOffset(slave=2)", "AckWaitDone()",
          "SendMessage(broker=1)", "BrokerCrash(broker=1)", "ControllerDeclareDead(broker=1)",
          "BrokerRestart(broker=1)", "ControllerElect(elected=2)", "RegisterBroker(broker=1)",
          "SyncBrokerMetadata(broker=2)", "HAConnect(slave=1, master=2)")
BOUNDS = ["max_broker_crashes=3", "messages=3"]
#: the shortest continuation of PREFIX after which the property is violated with stale_tail=on and not
#: with off taking the same steps (:func:`first_added_violations`)
ADDED = {
    "epoch_file_agrees_with_log": ("SlaveReportOffset(slave=1)", "PushHeartbeat(slave=1)", "BrokerCrash(broker=1)",
                                   "BrokerRestart(broker=1)"),
    "queue_offset_names_one_message": (
        "SlaveReportOffset(slave=1)", "SendMessage(broker=2)", "BrokerCrash(broker=1)", "BrokerRestart(broker=1)",
        "ReputMessage(broker=2)", "PullMessage(broker=2)", "PullMessage(broker=2)", "AlterSyncStateSet(broker=2)",
        "BrokerCrash(broker=2)", "ControllerDeclareDead(broker=2)", "BrokerElect(broker=1, elected=1)",
        "ReputMessage(broker=1)"),
    "acked_message_on_every_later_master": (
        "SlaveReportOffset(slave=1)", "PushHeartbeat(slave=1)", "SendMessage(broker=2)", "BrokerCrash(broker=1)",
        "BrokerRestart(broker=1)", "RegisterBroker(broker=1)", "HAConnect(slave=1, master=2)",
        "SlaveReportOffset(slave=1)", "AckWaitDone()", "AlterSyncStateSet(broker=2)", "BrokerCrash(broker=2)",
        "ControllerDeclareDead(broker=2)", "ControllerElect(elected=1)", "SyncBrokerMetadata(broker=1)"),
    "delivered_message_stays_on_master": (
        "SlaveReportOffset(slave=1)", "PushHeartbeat(slave=1)", "SendMessage(broker=2)", "BrokerCrash(broker=1)",
        "BrokerRestart(broker=1)", "RegisterBroker(broker=1)", "HAConnect(slave=1, master=2)",
        "SlaveReportOffset(slave=1)", "AlterSyncStateSet(broker=2)", "ReputMessage(broker=2)",
        "PullMessage(broker=2)", "PullMessage(broker=2)", "BrokerCrash(broker=2)",
        "ControllerDeclareDead(broker=2)", "ControllerElect(elected=1)", "SyncBrokerMetadata(broker=1)"),
}


def models(base="controller-allack", bounds=BOUNDS):
    from model.controller import preset
    return tuple(ControllerModel(preset(base).with_overrides(bounds + [f"stale_tail={v}"])) for v in ("on", "off"))


def violated(model, state, name):
    import numpy as np

    from invariants.controller import PROPERTIES
    mask = next(p.mask for p in PROPERTIES if p.name == name)
    return bool(int(PROPERTIES.state_check(np.asarray(state, dtype=np.uint64), model.params)) & mask)


def replay(model, labels, state=None, skip=False):
    """The state ``labels`` lead to from ``state`` (default: the initial one); every step must be enabled,
    unless ``skip`` (the off model's shadow: a step it cannot take leaves its state as it was)."""
    state = state if state is not None else model.initial()[0]
    for label in labels:
        nxt = model.next_state(state, model.parse_action(label))
        assert nxt is not None or skip, label
        state = nxt if nxt is not None else state
    return state


def first_added_violations(on, off, root, names):
    """Breadth first over (on state, off state) pairs from ``root``: per property, the shortest step list
    after which ``on`` violates it and ``off``, having taken the same steps, does not. ``off`` takes each
    step of ``on`` it can and stays where it cannot; a clean shutdown is not searched (``off`` has none), so
    the two states differ only by what the stale records changed."""
    from collections import deque
    acts = on.actions()
    index = {str(a): i for i, a in enumerate(off.actions())}
    same = [index.get(str(a), -1) for a in acts]
    parent, queue, found = {root: None}, deque([root]), {}
    while queue and len(found) < len(names):
        pair = queue.popleft()
        s, o = pair
        for name in names:
            if name not in found and violated(on, s, name) and not violated(off, o, name):
                path, p = [], pair
                while parent[p] is not None:
                    p, label = parent[p]
                    path.append(label)
                found[name] = tuple(reversed(path))
        out, flags = on.expand(s)
        oout, oflags = off.expand(o)
        for a, j in enumerate(same):
            if j < 0 or not flags[a] & 1 or flags[a] & 2:
                continue
            ok = oflags[j] & 1 and not oflags[j] & 2
            nxt = (tuple(int(x) for x in out[a]), tuple(int(x) for x in oout[j]) if ok else o)
            if nxt not in parent:
                parent[nxt] = (pair, str(acts[a]))
                queue.append(nxt)
    return found


@pytest.mark.parametrize("name", sorted(ADDED))
def test_the_violation_appears_with_stale_tail_on_and_not_with_off(name):
    """The same steps on both models: with ``on`` the property is violated at the end; ``off``, taking each
    step it can (its state lacks the stale records), ends where it holds."""
    on, off = models()
    s, o = replay(on, PREFIX), replay(off, PREFIX)
    s, o = replay(on, ADDED[name], s), replay(off, ADDED[name], o, skip=True)
    assert violated(on, s, name) and not violated(off, o, name)


def test_the_added_violations_are_the_shortest_after_the_prefix():
    """The product search from PREFIX (about 72,000 pairs) finds exactly the continuations of ADDED."""
    on, off = models()
    root = (replay(on, PREFIX), replay(off, PREFIX))
    assert first_added_violations(on, off, root, sorted(ADDED)) == ADDED


def test_a_clean_shutdown_is_a_failure_never_fair():
    """``BrokerShutdown`` is among the mode's failures (model/modes.py): a fair run need not shut a broker
    down, and ``master_eventually_elected`` holds on the small stale-tail space (as with crashes alone)."""
    from explore.fairness import fair_actions
    from invariants.base import Fairness
    from tests.tooling.pinned import load

    actions = ControllerModel(ControllerConfig(**ON)).actions()
    fair = dict(zip(map(str, actions), fair_actions(actions, Fairness())))
    assert fair["BrokerShutdown(broker=1)"] == 0 and fair["BrokerRestart(broker=1)"] == 1
    assert load(mode="controller")["ctl-stale-tail"].verdicts["master_eventually_elected"] == "holds"
