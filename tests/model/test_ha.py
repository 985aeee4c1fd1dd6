"""HA replication on hand-built states: SlaveConnect, SlaveReportOffset, MasterPushData, HaDisconnect
(mechanisms §2.2-§2.7)."""
from __future__ import annotations

import pytest

from handbuilt import NO_FAILURES, assert_disabled, assert_effect, build, fire, model
from model.actions import HaDisconnect, MasterPushData, SlaveConnect, SlaveReportOffset

M = model(messages=4, **NO_FAILURES)
TWO = model(messages=3, slaves=2, **NO_FAILURES)
V5 = model(messages=4, validate_slave_ack=True, **NO_FAILURES)
DROPS = model(messages=2, max_ha_disconnects=2, slaves=2, **NO_FAILURES)

CONNECT, REPORT, PUSH = SlaveConnect(slave=1), SlaveReportOffset(slave=1), MasterPushData(slave=1)


def state(m=M, **fields):
    """A state where the master holds ``master.commitlog`` (default [1, 2]) and the producer is past it."""
    fields.setdefault("master.commitlog", [1, 2])
    fields.setdefault("producer.nextMessage", max(fields["master.commitlog"] + [0]) + 1)
    return build(m, **fields)


# --- SlaveConnect ------------------------------------------------------------------------------------------
def test_connect_creates_an_unreported_connection():
    """§2.2: HAClient#connectMaster; no report at connect."""
    assert_effect(M, state(), CONNECT, {"slave1.haLink": "CONNECTED"}, outcome="")


@pytest.mark.parametrize("fields", [
    {"slave1.up": False},
    {"slave1.haMasterAddress": False},
    {"master.up": False},
    {"slave1.haLink": "CONNECTED"},
    {"slave1.haLink": "STREAMING"},
], ids=["slave down", "no HA address", "master down", "connected", "streaming"])
def test_connect_guards(fields):
    assert_disabled(M, state(**fields), CONNECT)


def test_connect_uses_the_ha_address_even_when_the_name_server_lost_the_master():
    """§2.1: the HA address is never cleared; the slave keeps connecting to the last address."""
    s = state(**{"nameserver.route": [1], "slave1.syncMasterAddress": False})
    assert_effect(M, s, CONNECT, {"slave1.haLink": "CONNECTED"})


# --- SlaveReportOffset -------------------------------------------------------------------------------------
def test_first_report_zero_pushes_from_the_start_of_the_last_file():
    """§2.4: a report of 0 starts the push at masterMax - masterMax % 1 GiB, i.e. 0 here."""
    s = state(**{"slave1.haLink": "CONNECTED"})
    assert_effect(M, s, REPORT, {"slave1.haLink": "STREAMING"})
    assert M.view(fire(M, s, REPORT)[0])["slave1.nextTransferFromWhere"] == 0


def test_first_report_starts_at_the_reported_offset_and_raises_push2slave():
    s = state(**{"slave1.haLink": "CONNECTED", "slave1.commitlog": [1]})
    assert_effect(M, s, REPORT, {"slave1.haLink": "STREAMING", "slave1.nextTransferFromWhere": 1,
                                 "master.push2SlaveMaxOffset": 1})


def test_report_beyond_the_master_max_is_adopted_as_is():
    """§2.7 X > M: nextTransferFromWhere := X and push2SlaveMaxOffset := max(prev, X), no validation."""
    s = state(**{"master.commitlog": [1], "slave1.haLink": "CONNECTED", "slave1.commitlog": [1, 2, 3],
                 "producer.nextMessage": 4})
    assert_effect(M, s, REPORT, {"slave1.haLink": "STREAMING", "slave1.nextTransferFromWhere": 3,
                                 "master.push2SlaveMaxOffset": 3})


def test_push2slave_is_a_max_a_lower_report_does_not_lower_it():
    s = state(**{"slave1.haLink": "CONNECTED", "slave1.commitlog": [1], "master.push2SlaveMaxOffset": 2})
    assert_effect(M, s, REPORT, {"slave1.haLink": "STREAMING", "slave1.nextTransferFromWhere": 1})


def test_growth_report_raises_push2slave():
    """§2.3 reportSlaveMaxOffsetPlus: the slave's max grew beyond what was reported."""
    s = state(**{"slave1.haLink": "STREAMING", "slave1.commitlog": [1, 2], "slave1.nextTransferFromWhere": 2,
                 "master.push2SlaveMaxOffset": 1})
    assert_effect(M, s, REPORT, {"master.push2SlaveMaxOffset": 2})


def test_a_report_changing_nothing_is_omitted():
    s = state(**{"slave1.haLink": "STREAMING", "slave1.commitlog": [1, 2], "slave1.nextTransferFromWhere": 2,
                 "master.push2SlaveMaxOffset": 2})
    assert_disabled(M, s, REPORT)


def test_report_needs_a_connection():
    assert_disabled(M, state(**{"slave1.commitlog": [1, 2]}), REPORT)


def test_push2slave_is_one_value_shared_by_all_slaves():
    """§2.3: a single maximum over all connections."""
    s = state(TWO, **{"slave1.haLink": "STREAMING", "slave1.commitlog": [1, 2], "slave1.nextTransferFromWhere": 2,
                      "master.push2SlaveMaxOffset": 2, "slave2.haLink": "CONNECTED", "slave2.commitlog": [1]})
    assert_effect(TWO, s, SlaveReportOffset(slave=2), {"slave2.haLink": "STREAMING",
                                                       "slave2.nextTransferFromWhere": 1})
    s = state(TWO, **{"slave2.haLink": "CONNECTED", "slave2.commitlog": [1, 2]})
    assert_effect(TWO, s, SlaveReportOffset(slave=2), {"slave2.haLink": "STREAMING",
                                                       "slave2.nextTransferFromWhere": 2,
                                                       "master.push2SlaveMaxOffset": 2})


def test_v5_closes_on_a_report_beyond_the_master_max_without_notifying():
    s = state(V5, **{"master.commitlog": [1], "slave1.haLink": "CONNECTED", "slave1.commitlog": [1, 2, 3],
                     "producer.nextMessage": 4})
    assert_effect(V5, s, REPORT, {"slave1.haLink": "DOWN"},
                  outcome="report beyond master max: connection closed (V5)")
    s = state(V5, **{"master.commitlog": [1], "slave1.haLink": "STREAMING", "slave1.commitlog": [1, 2],
                     "slave1.nextTransferFromWhere": 2, "producer.nextMessage": 3})
    assert_effect(V5, s, REPORT, {"slave1.haLink": "DOWN", "slave1.nextTransferFromWhere": 0})


def test_v5_accepts_reports_up_to_the_master_max():
    s = state(V5, **{"slave1.haLink": "CONNECTED", "slave1.commitlog": [1, 2]})
    assert_effect(V5, s, REPORT, {"slave1.haLink": "STREAMING", "slave1.nextTransferFromWhere": 2,
                                  "master.push2SlaveMaxOffset": 2})


# --- MasterPushData ----------------------------------------------------------------------------------------
def test_push_sends_everything_from_the_transfer_position():
    s = state(**{"slave1.haLink": "STREAMING"})
    assert_effect(M, s, PUSH, {"slave1.commitlog": [1, 2], "slave1.nextTransferFromWhere": 2}, outcome="")


def test_push_includes_unflushed_data_and_does_not_flush_the_slave():
    """§2.4: the body reaches the read (wrote) position, unflushed data included."""
    s = state(**{"master.commitlog": [1, 2, 3], "master.flushed": 1, "slave1.haLink": "STREAMING",
                 "slave1.commitlog": [1], "slave1.nextTransferFromWhere": 1})
    assert_effect(M, s, PUSH, {"slave1.commitlog": [1, 2, 3], "slave1.nextTransferFromWhere": 3})


def test_push_does_not_report():
    """The open loop: pushing moves nextTransferFromWhere; push2SlaveMaxOffset waits for a report."""
    s = state(**{"slave1.haLink": "STREAMING"})
    nxt, _ = fire(M, s, PUSH)
    assert M.view(nxt)["master.push2SlaveMaxOffset"] == 0


def test_push_needs_the_first_report():
    """§2.2: WriteSocketService sends neither data nor heartbeats while slaveRequestOffset == -1."""
    assert_disabled(M, state(**{"slave1.haLink": "CONNECTED"}), PUSH)
    assert_disabled(M, state(), PUSH)


def test_mismatch_closes_the_connection():
    """§2.5: a non-empty slave whose max differs from the header offset closes (closeMaster)."""
    s = state(**{"slave1.haLink": "STREAMING", "slave1.commitlog": [1, 2], "slave1.nextTransferFromWhere": 1})
    assert_effect(M, s, PUSH, {"slave1.haLink": "DOWN", "slave1.nextTransferFromWhere": 0},
                  outcome="offset mismatch: slave closes the connection")


def test_mismatch_on_a_header_only_heartbeat_closes_too():
    """§2.5: heartbeats pass through the same check (the master has nothing at offset 3 here)."""
    s = state(**{"slave1.haLink": "STREAMING", "slave1.commitlog": [1], "slave1.nextTransferFromWhere": 3})
    assert_effect(M, s, PUSH, {"slave1.haLink": "DOWN", "slave1.nextTransferFromWhere": 0})


def test_empty_slave_accepts_any_offset():
    """§2.5: slavePhyOffset == 0 accepts any header offset; the block lands at the slave's start."""
    s = state(**{"slave1.haLink": "STREAMING", "slave1.nextTransferFromWhere": 1})
    assert_effect(M, s, PUSH, {"slave1.commitlog": [2], "slave1.nextTransferFromWhere": 2})


def test_heartbeat_when_the_master_has_nothing_at_x_changes_nothing():
    """§2.7 X > M: header-only heartbeats carrying X, accepted by the slave: no visible step."""
    s = state(**{"master.commitlog": [1], "slave1.haLink": "STREAMING", "slave1.commitlog": [1, 2],
                 "slave1.nextTransferFromWhere": 2, "master.push2SlaveMaxOffset": 2, "producer.nextMessage": 3})
    assert_disabled(M, s, PUSH)
    caught_up = state(**{"slave1.haLink": "STREAMING", "slave1.commitlog": [1, 2],
                         "slave1.nextTransferFromWhere": 2})
    assert_disabled(M, caught_up, PUSH)


def test_master_log_past_x_is_pushed_from_x():
    """§2.7 X > M: once the master's log extends past X it pushes its own bytes from X on."""
    s = state(**{"master.commitlog": [1, 3, 4], "slave1.haLink": "STREAMING", "slave1.commitlog": [1, 2],
                 "slave1.nextTransferFromWhere": 2, "master.push2SlaveMaxOffset": 2})
    assert_effect(M, s, PUSH, {"slave1.commitlog": [1, 2, 4], "slave1.nextTransferFromWhere": 3})


# --- HaDisconnect ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("link", ["CONNECTED", "STREAMING"])
def test_disconnect_closes_both_ends_and_spends_budget(link):
    s = state(DROPS, **{"slave2.haLink": link, "slave2.commitlog": [1], "slave2.nextTransferFromWhere":
                        1 if link == "STREAMING" else 0, "master.push2SlaveMaxOffset": 1})
    expected = {"slave2.haLink": "DOWN", "failures.haDisconnects": 1}
    if link == "STREAMING":
        expected["slave2.nextTransferFromWhere"] = 0
    assert_effect(DROPS, s, HaDisconnect(slave=2), expected)


def test_disconnect_guards():
    assert_disabled(DROPS, state(DROPS), HaDisconnect(slave=1))
    spent = state(DROPS, **{"slave1.haLink": "STREAMING", "failures.haDisconnects": 2})
    assert_disabled(DROPS, spent, HaDisconnect(slave=1))
    assert not any(isinstance(a, HaDisconnect) for a in M.actions())
