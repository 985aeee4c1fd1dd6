"""replicas_agree and the goal of replication_can_catch_up on hand-built states."""
from __future__ import annotations

import pytest

from hand_built import flagged, model

AGREE = "replicas_agree"
CATCH_UP = "replication_can_catch_up"   # its state bit is the goal: every live slave holds the master's log


# -- replicas_agree ----------------------------------------------------------------------------------
@pytest.mark.parametrize("slave_log, master_log", [
    ([], []),
    ([], [1, 2]),          # a slave not connected yet
    ([1], [1, 2]),         # the slave is behind: a prefix of the master's log
    ([1, 2], [1]),         # the master lost a suffix to a power loss: its log is a prefix of the slave's
    ([1, 2], []),
    ([1, 2], [1, 2]),
])
def test_prefix_related_logs_agree(slave_log, master_log):
    m = model()
    assert not flagged(m, AGREE, {"slave1.commitlog": slave_log, "master.commitlog": master_log})


@pytest.mark.parametrize("slave_log, master_log", [
    ([1], [2]),            # the master re-used offset 0 for message 2 after losing message 1
    ([2], [1]),
    ([1, 2], [2]),
    ([1], [2, 3]),
    ([1, 2], [1, 3]),      # same length, different entry at position 1
    ([1, 3], [1, 2, 3]),   # every slave entry is in the master's log, but not as a prefix
])
def test_diverged_logs_disagree(slave_log, master_log):
    m = model(messages=3)
    assert flagged(m, AGREE, {"slave1.commitlog": slave_log, "master.commitlog": master_log})


def test_a_down_slave_still_must_agree():
    m = model()
    assert flagged(m, AGREE, {"slave1.up": False, "slave1.commitlog": [1], "master.commitlog": [2]})


def test_every_slave_must_agree():
    m = model(slaves=2)
    assert not flagged(m, AGREE, {"slave1.commitlog": [1], "slave2.commitlog": [1, 2],
                                  "master.commitlog": [1, 2]})
    assert flagged(m, AGREE, {"slave1.commitlog": [1], "slave2.commitlog": [2], "master.commitlog": [1, 2]})


# -- replication_can_catch_up: the goal ---------------------------------------------------------------
def test_goal_holds_in_the_initial_state():
    m = model()
    assert flagged(m, CATCH_UP, {})


def test_goal_holds_when_the_live_slave_holds_exactly_the_master_log():
    m = model()
    assert flagged(m, CATCH_UP, {"slave1.commitlog": [1, 2], "master.commitlog": [1, 2]})


@pytest.mark.parametrize("slave_log, master_log", [([1], [1, 2]), ([1, 2], [1]), ([1], [2])])
def test_goal_fails_when_a_live_slave_differs(slave_log, master_log):
    m = model()
    assert not flagged(m, CATCH_UP, {"slave1.commitlog": slave_log, "master.commitlog": master_log})


def test_a_down_slave_does_not_count_for_catch_up():
    m = model()
    assert flagged(m, CATCH_UP, {"slave1.up": False, "slave1.commitlog": [1], "master.commitlog": [1, 2]})
    assert flagged(m, CATCH_UP, {"slave1.up": False, "slave1.commitlog": [1], "master.commitlog": [2]})


def test_a_down_master_still_counts_for_catch_up():
    m = model()
    assert not flagged(m, CATCH_UP, {"master.up": False, "slave1.commitlog": [1], "master.commitlog": [1, 2]})
    assert flagged(m, CATCH_UP, {"master.up": False, "slave1.commitlog": [1, 2], "master.commitlog": [1, 2]})


def test_every_live_slave_must_hold_the_master_log():
    m = model(slaves=2)
    base = {"master.commitlog": [1, 2], "slave1.commitlog": [1, 2], "slave2.commitlog": [1]}
    assert not flagged(m, CATCH_UP, base)
    assert flagged(m, CATCH_UP, {**base, "slave2.up": False})
    assert flagged(m, CATCH_UP, {**base, "slave2.commitlog": [1, 2]})


def test_goal_always_holds_without_slaves():
    m = model(slaves=0, which_broker_when_consume_slowly=0)
    assert flagged(m, CATCH_UP, {"master.commitlog": [1, 2]})
