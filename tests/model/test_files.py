"""Commitlog files and retention (mechanisms §2.4, §2.7, §7.2; issue "Model scope, wave 2", item 3)."""
from __future__ import annotations

from handbuilt import NO_FAILURES, assert_disabled, assert_effect, build, fire, model
from model.actions import DeleteExpiredFiles, MasterPushData, Pull, SlaveReportOffset

F2 = model(messages=3, commitlog_file_messages=2, **NO_FAILURES)
R2 = model(messages=3, commitlog_file_messages=2, max_file_deletions=1, **NO_FAILURES)
ALL_SENT = {"master.commitlog": [1, 2, 3], "master.flushed": 3, "producer.nextMessage": 4}


def test_an_empty_slave_is_pushed_from_the_start_of_the_masters_last_file():
    s = build(F2, **ALL_SENT, **{"slave1.haLink": "CONNECTED"})
    s = assert_effect(F2, s, SlaveReportOffset(slave=1), {"slave1.haLink": "STREAMING",
                                                          "slave1.nextTransferFromWhere": 2})
    assert_effect(F2, s, MasterPushData(slave=1), {"slave1.commitlog": [3], "slave1.minOffset": 2,
                                                   "slave1.nextTransferFromWhere": 3})


def test_an_ha_push_never_spans_two_files():
    s = build(F2, **ALL_SENT, **{"slave1.haLink": "STREAMING"})
    s = assert_effect(F2, s, MasterPushData(slave=1), {"slave1.commitlog": [1, 2], "slave1.nextTransferFromWhere": 2})
    assert_effect(F2, s, MasterPushData(slave=1), {"slave1.commitlog": [1, 2, 3], "slave1.nextTransferFromWhere": 3})


def test_delete_expired_files_removes_the_oldest_flushed_file_that_is_not_the_last():
    s = build(R2, **ALL_SENT)
    assert_effect(R2, s, DeleteExpiredFiles(broker=0), {
        "master.commitlog": [3], "master.minOffset": 2, "master.flushed": 1, "history.expired": [1, 2],
        "retention.fileDeletions": 1})
    assert_disabled(R2, build(R2, **{**ALL_SENT, "master.flushed": 1}), DeleteExpiredFiles(broker=0))
    two = build(R2, **{"master.commitlog": [1, 2], "master.flushed": 2, "producer.nextMessage": 3})
    assert_disabled(R2, two, DeleteExpiredFiles(broker=0))        # its only file is the last one
    assert_disabled(R2, build(R2, **ALL_SENT, **{"retention.fileDeletions": 1}), DeleteExpiredFiles(broker=0))


def test_a_pull_below_the_queues_min_offset_is_corrected_to_the_min():
    s = build(R2, **{**ALL_SENT, "master.commitlog": [3], "master.minOffset": 2, "master.flushed": 1,
                     "history.expired": [1, 2], "retention.fileDeletions": 1})
    _, f = fire(R2, s, Pull(consumer=1, queue=0))
    assert R2.describe_outcome(f) == "OFFSET_ILLEGAL from broker 0"
    nxt = assert_effect(R2, s, Pull(consumer=1, queue=0), {"consumer1.q0.dropped": True, "consumer1.q0.nextOffset": 2,
                                                          "consumer1.q0.pendingCorrection": 2})
    assert R2.view(nxt)["consumer1.q0.nextOffset"] == 2     # OFFSET_TOO_SMALL: nextBeginOffset = min


def test_a_slave_report_below_the_masters_min_gets_only_heartbeats():
    """§2.7 0 < X < m: getCommitLogData(X) finds no file, so only header-only heartbeats: no visible step."""
    s = build(R2, **{**ALL_SENT, "master.commitlog": [3], "master.minOffset": 2, "master.flushed": 1,
                     "history.expired": [1, 2], "retention.fileDeletions": 1, "slave1.commitlog": [1],
                     "slave1.haLink": "STREAMING", "slave1.nextTransferFromWhere": 1})
    assert_disabled(R2, s, MasterPushData(slave=1))
