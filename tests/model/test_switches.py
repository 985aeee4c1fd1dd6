"""Each alternative-behaviour switch (mechanisms §10, model-scope "Switches") changes exactly the mechanism
it names: from the same state, the model with the switch off and on differ only in that action.

A switch never changes the packed layout, so one state means the same thing in both models. Each switch
is checked twice: on a hand-built state where it matters (exactly one action differs), and over a sample
of the states reachable in a small configuration with power loss (every differing action is of the
mechanism's kind, and the difference is the one the switch describes).
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

import invariants
from explore import LocalExplorer
from handbuilt import build, model
from model.actions import (CorrectIllegalOffset, MasterRestart, PersistAllOffsets, Pull, Rebalance,
                           SlaveReportOffset, SlaveSyncAll)

BASE = dict(messages=2, max_master_crashes=0, max_master_power_losses=1)

# switch -> the action kinds whose guard/effect the named mechanism is part of
MECHANISM = {
    # V1 ConsumerOffsetManager#commitOffset: commit-on-pull, UPDATE_CONSUMER_OFFSET from persistAll,
    # the OFFSET_ILLEGAL task's persist and a rebalance's removeUnnecessaryMessageQueue persist
    "monotonic_commit": {Pull, PersistAllOffsets, CorrectIllegalOffset, Rebalance},
    "sync_offsets_max": {SlaveSyncAll},              # V2 SlaveSynchronize#syncConsumerOffset
    "reverse_offset_sync": {MasterRestart},          # V3 reverse sync before serving
    "overflow_to_max": {Pull},                       # V4 DefaultMessageStore#getMessage overflow branch
    "validate_slave_ack": {SlaveReportOffset},       # V5 HAConnection.ReadSocketService#processReadEvent
    "offset_check_in_slave": {Pull},                 # V6 nextOffsetCorrection / PULL_OFFSET_MOVED on a slave
}


def pair(switch, **knobs):
    values = {**BASE, **knobs}
    return model(**values), model(**{**values, switch: True})


def outcomes(m, s):
    """``{action: (next state, flags)}`` of every enabled action (disabled ones are absent)."""
    out, flags = m.expand(s)
    return {a: (tuple(int(x) for x in out[i]), int(flags[i])) for i, a in enumerate(m.actions()) if flags[i] & 1}


def differing(off, on, s):
    """The actions whose enabledness, next state or outcome differ between the two models in ``s``."""
    a, b = outcomes(off, s), outcomes(on, s)
    return sorted((str(x) for x in set(a) | set(b) if a.get(x) != b.get(x)))


@pytest.mark.parametrize("switch", sorted(MECHANISM))
def test_a_switch_keeps_the_layout(switch):
    off, on = pair(switch)
    assert off.layout == on.layout and off.actions() == on.actions()
    assert off.initial() == on.initial()


# --- one hand-built state per switch: exactly the named action differs ------------------------------------
def test_v1_monotonic_commit():
    off, on = pair("monotonic_commit")
    s = build(off, **{"master.commitlog": [1, 2], "producer.nextMessage": 3, "master.consumerOffset[0]": 2,
                      "history.highestCommitted[0]": 2, "consumer1.q0.dropped": True,
                      "consumer1.q0.nextOffset": 2, "consumer1.q0.offset": 1})
    assert differing(off, on, s) == ["PersistAllOffsets(consumer=1)"]
    assert off.view(off.next_state(s, PersistAllOffsets(consumer=1)))["master.consumerOffset[0]"] == 1
    assert on.next_state(s, PersistAllOffsets(consumer=1)) is None   # the lower commit is ignored


def test_v2_sync_offsets_max():
    off, on = pair("sync_offsets_max")
    s = build(off, **{"master.consumerOffset[0]": 1, "slave1.consumerOffset[0]": 2,
                      "slave1.consumerOffsetJson[0]": 2})
    assert differing(off, on, s) == ["SlaveSyncAll(slave=1)"]
    assert off.view(off.next_state(s, SlaveSyncAll(slave=1)))["slave1.consumerOffset[0]"] == 1
    assert on.next_state(s, SlaveSyncAll(slave=1)) is None


def test_v3_reverse_offset_sync():
    off, on = pair("reverse_offset_sync")
    s = build(off, **{"master.up": False, "failures.masterPowerLosses": 1, "master.consumerOffset[0]": 0,
                      "master.consumerOffsetJson[0]": 0, "slave1.consumerOffset[0]": 2})
    assert differing(off, on, s) == ["MasterRestart()"]
    assert off.view(off.next_state(s, MasterRestart()))["master.consumerOffset[0]"] == 0
    assert on.view(on.next_state(s, MasterRestart()))["master.consumerOffset[0]"] == 2


def test_v4_overflow_to_max():
    off, on = pair("overflow_to_max")
    s = build(off, **{"master.commitlog": [1], "producer.nextMessage": 3, "consumer1.q0.nextOffset": 2})
    assert differing(off, on, s) == ["Pull(consumer=1, queue=0)"]
    assert off.view(off.next_state(s, Pull()))["consumer1.q0.nextOffset"] == 0
    assert on.view(on.next_state(s, Pull()))["consumer1.q0.nextOffset"] == 1


def test_v5_validate_slave_ack():
    off, on = pair("validate_slave_ack")
    s = build(off, **{"master.commitlog": [1], "producer.nextMessage": 3, "slave1.commitlog": [1, 2],
                      "slave1.haLink": "CONNECTED"})
    assert differing(off, on, s) == ["SlaveReportOffset(slave=1)"]
    assert off.view(off.next_state(s, SlaveReportOffset()))["master.push2SlaveMaxOffset"] == 2
    assert on.view(on.next_state(s, SlaveReportOffset()))["slave1.haLink"] == "DOWN"


def test_v6_offset_check_in_slave():
    off, on = pair("offset_check_in_slave")
    s = build(off, **{"master.commitlog": [1, 2], "producer.nextMessage": 3, "slave1.commitlog": [1],
                      "consumer1.route": [1], "consumer1.q0.nextOffset": 2,
                      "consumer1.q0.offset": 2})
    assert differing(off, on, s) == ["Pull(consumer=1, queue=0)"]
    # off: PULL_RETRY_IMMEDIATELY at the requested offset, which changes nothing here (not a step)
    assert off.next_state(s, Pull()) is None
    t_on = on.next_state(s, Pull())
    assert (on.view(t_on)["consumer1.q0.dropped"], on.view(t_on)["consumer1.q0.nextOffset"]) == (True, 0)


# --- over reachable states: only the mechanism's actions ever differ, in the way the switch says ---------
@functools.lru_cache(maxsize=None)
def reachable_sample(size: int = 3000) -> tuple[tuple[int, ...], ...]:
    """A fixed sample of the states reachable in BASE (whole graph: 122 870 states)."""
    explorer = LocalExplorer(model(**BASE), invariants.PROPERTIES)
    explorer.run()
    states = explorer.stored_states()
    rows = np.random.default_rng(4).choice(len(states), size=min(size, len(states)), replace=False)
    return tuple(tuple(int(x) for x in states[i]) for i in sorted(rows))


def broker_offsets(m, s):
    """Every broker's in-memory offset per queue (None = no entry as -1, for comparisons)."""
    return {k: -1 if x is None else x for k, x in m.view(s).items()
            if k.startswith(("master.", "slave")) and ".consumerOffset[" in k}


def check_difference(switch, off, on, s, action):
    """The switch's documented effect, where the two models disagree on ``action`` in ``s``."""
    v = off.view(s)
    after_off = off.next_state(s, action) or s   # a disabled action leaves the state as it was
    after_on = on.next_state(s, action) or s
    w_off, w_on = off.view(after_off), on.view(after_on)
    if switch in ("monotonic_commit", "sync_offsets_max"):
        # a commit below the stored value is ignored / a sync keeps the larger value: never lower
        low, high = broker_offsets(off, after_off), broker_offsets(on, after_on)
        assert all(low[k] <= high[k] for k in low) and low != high
    elif switch == "reverse_offset_sync":
        assert v["slave1.consumerOffset[0]"] is not None
        assert w_on["master.consumerOffset[0]"] == v["slave1.consumerOffset[0]"] != w_off["master.consumerOffset[0]"]
    elif switch == "overflow_to_max":
        assert w_off["consumer1.q0.nextOffset"] == 0
        assert w_on["consumer1.q0.nextOffset"] == len(v["master.commitlog"]) > 0
        assert w_on["consumer1.q0.dropped"] and w_off["consumer1.q0.dropped"]
    elif switch == "validate_slave_ack":
        assert len(v["slave1.commitlog"]) > len(v["master.commitlog"])
        assert w_on["slave1.haLink"] == "DOWN" and w_off["slave1.haLink"] == "STREAMING"
        assert w_on["master.push2SlaveMaxOffset"] == v["master.push2SlaveMaxOffset"]
    elif switch == "offset_check_in_slave":
        target = v["consumer1.q0.suggestWhichBrokerId"] or v["consumer1.route"][0]
        assert target == 1
        assert w_on["consumer1.q0.dropped"] and not w_off["consumer1.q0.dropped"]


@pytest.mark.parametrize("switch", sorted(MECHANISM))
def test_switch_changes_only_its_mechanism_on_reachable_states(switch):
    off, on = pair(switch)
    allowed = MECHANISM[switch]
    seen = set()
    for s in reachable_sample():
        a, b = outcomes(off, s), outcomes(on, s)
        for action in set(a) | set(b):
            if a.get(action) != b.get(action):
                assert type(action) in allowed, f"{switch} changed {action} in {off.view(s)}"
                seen.add(type(action))
                check_difference(switch, off, on, s, action)
    assert seen, f"{switch} made no difference on any sampled state: the sample is vacuous"
