"""Scripted scenarios from the mechanisms page, one or more per section (§1-§7, §10): each replays action
labels from the initial state (a step that is not enabled fails the test, naming it and what was enabled)
and checks the resulting state field by field."""
from __future__ import annotations

from handbuilt import model, outcome_of, run, step

CONNECT_AND_REPLICATE = ["SlaveConnect(slave=1)", "SlaveReportOffset(slave=1)", "MasterPushData(slave=1)",
                         "SlaveReportOffset(slave=1)"]


def start(m):
    return m.initial()[0]


# --- §1 name server and registration -----------------------------------------------------------------------
def test_s1_crash_removes_the_master_at_once_and_the_slave_keeps_its_ha_address():
    m = model(messages=1, max_master_crashes=1, max_master_power_losses=0)
    s = run(m, start(m), ["SendMessage()", "MasterCrash()"])
    assert m.view(s)["nameserver.route"] == [1]        # onChannelDestroy
    s = step(m, s, "SlaveRegister(slave=1)")
    v = m.view(s)
    assert (v["slave1.syncMasterAddress"], v["slave1.haMasterAddress"]) == (False, True)
    s = step(m, s, "RefreshRoute(consumer=1)")
    assert m.view(s)["consumer1.route"] == [1]
    s = run(m, s, ["MasterRestart()", "SlaveRegister(slave=1)", "RefreshRoute(consumer=1)"])
    v = m.view(s)
    assert (v["nameserver.route"], v["slave1.syncMasterAddress"], v["consumer1.route"]) == ([0, 1], True, [0, 1])


def test_s1_power_loss_keeps_the_master_registered_until_the_scan_expires_it():
    m = model(messages=1, max_master_crashes=0, max_master_power_losses=1)
    s = run(m, start(m), ["SendMessage()", "MasterPowerLoss()"])
    v = m.view(s)
    assert (v["master.up"], v["nameserver.route"]) == (False, [0, 1])
    labels = [str(a) for a, _, _ in m.enabled(s)]
    assert "SlaveRegister(slave=1)" not in labels       # the reply still carries the dead master's address
    assert "RefreshRoute(consumer=1)" not in labels     # the route still lists it
    s = run(m, s, ["NameServerExpireMaster()", "SlaveRegister(slave=1)", "RefreshRoute(consumer=1)"])
    v = m.view(s)
    assert (v["nameserver.route"], v["slave1.syncMasterAddress"], v["slave1.haMasterAddress"],
            v["consumer1.route"]) == ([1], False, True, [1])


# --- §2 HA: handshake, reports, push, consistency, X > M ---------------------------------------------------
def test_s2_handshake_then_sync_master_ack():
    """§2.2 no report at connect; the master waits for the first report; §3.2 the SYNC_MASTER wait ends
    when push2SlaveMaxOffset reaches the message's end."""
    m = model(messages=1, broker_role="SYNC_MASTER", max_master_crashes=0, max_master_power_losses=0)
    s = run(m, start(m), ["SlaveConnect(slave=1)", "SendMessage()"])
    assert m.view(s)["producer.waitingFor"] == "HA ack (PUT_OK)"
    labels = [str(a) for a, _, _ in m.enabled(s)]
    assert "MasterPushData(slave=1)" not in labels and "SyncMasterAck()" not in labels
    assert "SyncMasterTimeout()" in labels
    s = step(m, s, "SlaveReportOffset(slave=1)")          # first report: 0 -> start of the last file
    v = m.view(s)
    assert (v["slave1.haLink"], v["slave1.nextTransferFromWhere"], v["master.push2SlaveMaxOffset"]) == \
        ("STREAMING", 0, 0)
    s = run(m, s, ["MasterPushData(slave=1)", "SlaveReportOffset(slave=1)"])
    assert m.view(s)["master.push2SlaveMaxOffset"] == 1
    assert outcome_of(m, s, "SyncMasterAck()") == "SEND_OK"
    s = step(m, s, "SyncMasterAck()")
    v = m.view(s)
    assert (v["producer.sendOk"], v["slave1.commitlog"], v["producer.waitingFor"]) == ([1], [1], "none")


def test_s2_timeout_when_the_slave_never_reports_and_nothing_is_rolled_back():
    m = model(messages=1, broker_role="SYNC_MASTER", max_master_crashes=0, max_master_power_losses=0)
    s = run(m, start(m), ["SlaveConnect(slave=1)", "SendMessage()"])
    assert outcome_of(m, s, "SyncMasterTimeout()") == "FLUSH_SLAVE_TIMEOUT"
    s = step(m, s, "SyncMasterTimeout()")
    v = m.view(s)
    assert (v["master.commitlog"], v["producer.sendOk"]) == ([1], [])
    s = run(m, s, CONNECT_AND_REPLICATE[1:])              # replication goes on regardless
    assert m.view(s)["slave1.commitlog"] == [1]


def test_s2_slave_ahead_of_a_recovered_master_acks_a_message_it_does_not_hold():
    """§2.7 X > M: the master lost its unflushed tail; the slave's report X exceeds the recovered max and is
    adopted; push2SlaveMaxOffset >= the next message's end acks it at once; then the master pushes its own
    bytes from X and the slave appends them (the header offset equals its max): the logs diverge."""
    m = model(messages=3, broker_role="SYNC_MASTER", max_master_crashes=0, max_master_power_losses=1)
    s = run(m, start(m), ["SlaveConnect(slave=1)", "SlaveReportOffset(slave=1)",
                          "SendMessage()", "MasterPushData(slave=1)", "SlaveReportOffset(slave=1)",
                          "SyncMasterAck()", "FlushCommitLog(broker=0)",
                          "SendMessage()", "MasterPushData(slave=1)", "SlaveReportOffset(slave=1)",
                          "SyncMasterAck()", "MasterPowerLoss()", "MasterRestart()"])
    v = m.view(s)
    assert (v["master.commitlog"], v["slave1.commitlog"], v["master.push2SlaveMaxOffset"]) == ([1], [1, 2], 0)
    assert v["producer.sendOk"] == [1, 2]                # message 2 was SEND_OK; it survives on the slave only
    s = run(m, s, ["SlaveConnect(slave=1)", "SlaveReportOffset(slave=1)"])
    v = m.view(s)
    assert (v["slave1.nextTransferFromWhere"], v["master.push2SlaveMaxOffset"]) == (2, 2)
    s = step(m, s, "SendMessage()")                      # message 3 at offset 1 on the master
    assert outcome_of(m, s, "SyncMasterAck()") == "SEND_OK"
    assert "SyncMasterTimeout()" not in [str(a) for a, _, _ in m.enabled(s)]
    assert "MasterPushData(slave=1)" not in [str(a) for a, _, _ in m.enabled(s)]   # nothing at X = 2 yet
    s = step(m, s, "SyncMasterAck()")
    v = m.view(s)
    assert (v["producer.sendOk"], v["master.commitlog"], v["slave1.commitlog"]) == ([1, 2, 3], [1, 3], [1, 2])


def test_s2_master_push_from_x_appends_the_masters_later_bytes():
    m = model(messages=4, max_master_crashes=0, max_master_power_losses=1)
    s = run(m, start(m), ["SendMessage()", "FlushCommitLog(broker=0)", "SendMessage()",
                          *CONNECT_AND_REPLICATE, "MasterPowerLoss()", "MasterRestart()",
                          "SlaveConnect(slave=1)", "SlaveReportOffset(slave=1)", "SendMessage()"])
    assert m.view(s)["master.commitlog"] == [1, 3]
    assert "MasterPushData(slave=1)" not in [str(a) for a, _, _ in m.enabled(s)]
    s = run(m, s, ["SendMessage()", "MasterPushData(slave=1)"])
    v = m.view(s)
    assert (v["master.commitlog"], v["slave1.commitlog"], v["slave1.nextTransferFromWhere"]) == \
        ([1, 3, 4], [1, 2, 4], 3)


def test_s2_v5_closes_the_connection_on_the_report_beyond_the_master_max():
    m = model(messages=2, validate_slave_ack=True, max_master_crashes=0, max_master_power_losses=1)
    s = run(m, start(m), ["SendMessage()", "FlushCommitLog(broker=0)", "SendMessage()",
                          *CONNECT_AND_REPLICATE, "MasterPowerLoss()", "MasterRestart()", "SlaveConnect(slave=1)"])
    assert outcome_of(m, s, "SlaveReportOffset(slave=1)") == "report beyond master max: connection closed (V5)"
    s = step(m, s, "SlaveReportOffset(slave=1)")
    v = m.view(s)
    assert (v["slave1.haLink"], v["master.push2SlaveMaxOffset"]) == ("DOWN", 0)


# --- §3 put path, flush, crash vs power loss, recovery -----------------------------------------------------
def test_s3_async_flush_power_loss_loses_an_acked_message_crash_does_not():
    m = model(messages=1, max_master_crashes=1, max_master_power_losses=1, slaves=0,
              which_broker_when_consume_slowly=0)
    sent = step(m, start(m), "SendMessage()")
    assert m.view(sent)["producer.sendOk"] == [1]
    crashed = run(m, sent, ["MasterCrash()", "MasterRestart()"])
    v = m.view(crashed)
    assert (v["master.commitlog"], v["master.flushed"]) == ([1], 1)
    lost = run(m, sent, ["MasterPowerLoss()", "MasterRestart()"])
    v = m.view(lost)
    assert (v["master.commitlog"], v["producer.sendOk"]) == ([], [1])
    flushed = run(m, sent, ["FlushCommitLog(broker=0)", "MasterPowerLoss()", "MasterRestart()"])
    assert m.view(flushed)["master.commitlog"] == [1]


def test_s3_sync_flush_acks_only_flushed_messages():
    m = model(messages=2, flush_disk_type="SYNC_FLUSH", max_master_crashes=0, max_master_power_losses=1)
    s = step(m, start(m), "SendMessage(flush=ok)")
    assert outcome_of(m, s, "SendMessage(flush=timeout)") == "FLUSH_DISK_TIMEOUT"
    s = run(m, s, ["SendMessage(flush=timeout)", "MasterPowerLoss()", "MasterRestart()"])
    v = m.view(s)
    assert (v["master.commitlog"], v["producer.sendOk"]) == ([1], [1])


def test_s3_restart_recovers_queue_offsets_from_the_surviving_log():
    """§3.5 step 3: after losing message 2, message 3 takes queue offset 1, where message 2 was. The consumer
    that had pulled message 2 waits at offset 2 (OFFSET_OVERFLOW_ONE: nothing to do), consumes and commits
    2: message 3 is never delivered."""
    m = model(messages=3, max_master_crashes=0, max_master_power_losses=1)
    s = run(m, start(m), ["SendMessage()", "FlushCommitLog(broker=0)", "SendMessage()", "Pull(consumer=1, queue=0)",
                          "MasterPowerLoss()", "MasterRestart()", "SendMessage()"])
    v = m.view(s)
    assert v["master.commitlog"] == [1, 3]
    assert (v["consumer1.q0.inFlight"], v["consumer1.q0.nextOffset"]) == ([1, 2], 2)
    assert "Pull(consumer=1, queue=0)" not in [str(a) for a, _, _ in m.enabled(s)]
    s = run(m, s, ["Consume(consumer=1, queue=0)", "PersistAllOffsets(consumer=1)"])
    v = m.view(s)
    assert (v["master.consumerOffset[0]"], v["history.delivered"]) == (2, [1, 2])
    assert "Pull(consumer=1, queue=0)" not in [str(a) for a, _, _ in m.enabled(s)]   # still at the max


# --- §4 slave sync -----------------------------------------------------------------------------------------
SYNC_LOWERS = ["SendMessage()", "Pull(consumer=1, queue=0)", "Consume(consumer=1, queue=0)",
               "PersistAllOffsets(consumer=1)", "SlaveSyncAll(slave=1)", "MasterCrash()", "MasterRestart()",
               "ConsumerCrash(consumer=1)", "ConsumerRestart(consumer=1)", "Rebalance(consumer=1)",
               "PersistAllOffsets(consumer=1)"]


def test_s4_sync_replaces_the_slave_offset_with_a_lower_one():
    """§4: putAll with no check. The master crashed before persisting (§5), so it restarts with an empty
    table: the first sync changes nothing; a restarted consumer then commits 0 to the master (queryConsumerOffset
    answers 0 for a recent queue) and the next sync lowers the slave from 1 to 0."""
    m = model(messages=1, max_master_crashes=1, max_master_power_losses=0, max_consumer_restarts=1)
    s = run(m, start(m), SYNC_LOWERS[:5])
    assert (m.view(s)["master.consumerOffset[0]"], m.view(s)["slave1.consumerOffset[0]"]) == (1, 1)
    s = run(m, s, SYNC_LOWERS[5:7])
    v = m.view(s)
    assert (v["master.consumerOffset[0]"], v["slave1.consumerOffset[0]"], v["slave1.consumerOffsetJson[0]"]) == \
        (None, 1, 1)
    # the master's table is empty: syncConsumerOffset leaves the slave as it was (and persists the same)
    assert "SlaveSyncAll(slave=1)" not in [str(a) for a, _, _ in m.enabled(s)]
    s = run(m, s, SYNC_LOWERS[7:])
    assert m.view(s)["master.consumerOffset[0]"] == 0
    s = step(m, s, "SlaveSyncAll(slave=1)")
    v = m.view(s)
    assert (v["slave1.consumerOffset[0]"], v["slave1.consumerOffsetJson[0]"]) == (0, 0)


def test_s4_v2_sync_keeps_the_maximum():
    m = model(messages=1, sync_offsets_max=True, max_master_crashes=1, max_master_power_losses=0,
              max_consumer_restarts=1)
    s = run(m, start(m), SYNC_LOWERS)
    assert "SlaveSyncAll(slave=1)" not in [str(a) for a, _, _ in m.enabled(s)]   # it would change nothing
    assert m.view(s)["slave1.consumerOffset[0]"] == 1


# --- §5 broker ConsumerOffsetManager -----------------------------------------------------------------------
def test_s5_commits_live_in_memory_until_persisted():
    m = model(messages=2, max_master_crashes=1, max_master_power_losses=0)
    s = run(m, start(m), ["SendMessage()", "Pull(consumer=1, queue=0)", "Consume(consumer=1, queue=0)",
                          "PersistAllOffsets(consumer=1)", "PersistConsumerOffset(broker=0)",
                          "SendMessage()", "Pull(consumer=1, queue=0)", "Consume(consumer=1, queue=0)",
                          "PersistAllOffsets(consumer=1)"])
    v = m.view(s)
    assert (v["master.consumerOffset[0]"], v["master.consumerOffsetJson[0]"]) == (2, 1)
    s = run(m, s, ["MasterCrash()", "MasterRestart()"])
    assert m.view(s)["master.consumerOffset[0]"] == 1          # the commit since the last persist is gone


def test_s5_a_slave_stores_commits_too():
    """UPDATE_CONSUMER_OFFSET has no role check; the client sends it to the slave when its route lacks the
    master (§6.1 findBrokerAddressInAdmin)."""
    m = model(messages=1, max_master_crashes=1, max_master_power_losses=0)
    s = run(m, start(m), ["SendMessage()", *CONNECT_AND_REPLICATE, "MasterCrash()", "RefreshRoute(consumer=1)",
                          "Pull(consumer=1, queue=0)", "Consume(consumer=1, queue=0)"])
    assert outcome_of(m, s, "PersistAllOffsets(consumer=1)") == "committed (broker 1)"
    s = step(m, s, "PersistAllOffsets(consumer=1)")
    assert m.view(s)["slave1.consumerOffset[0]"] == 1


# --- §6 client offset store, rebalance, start position ----------------------------------------------------
def test_s6_a_restarted_consumer_with_no_stored_offset_starts_at_the_max_and_skips():
    """§5 queryConsumerOffset: no entry and entry 0 "in disk" -> QUERY_NOT_FOUND; §6.2
    CONSUME_FROM_LAST_OFFSET starts at maxOffset: messages 1..3 are never delivered."""
    m = model(messages=3, max_master_crashes=0, max_master_power_losses=0, max_consumer_restarts=1)
    s = run(m, start(m), ["ConsumerCrash(consumer=1)", "SendMessage()", "SendMessage()", "SendMessage()",
                          "ConsumerRestart(consumer=1)", "Rebalance(consumer=1)"])
    v = m.view(s)
    assert (v["consumer1.q0.owned"], v["consumer1.q0.nextOffset"], v["consumer1.q0.offset"]) == (True, 3, None)
    s = step(m, s, "Pull(consumer=1, queue=0)")           # NO_NEW_MSG; correctTagsOffset puts 3 in memory
    s = step(m, s, "PersistAllOffsets(consumer=1)")
    v = m.view(s)
    assert (v["master.consumerOffset[0]"], v["history.delivered"]) == (3, [])


def test_s6_a_restarted_consumer_resumes_from_the_stored_offset():
    m = model(messages=2, max_master_crashes=0, max_master_power_losses=0, max_consumer_restarts=1)
    s = run(m, start(m), ["SendMessage()", "Pull(consumer=1, queue=0)", "Consume(consumer=1, queue=0)",
                          "PersistAllOffsets(consumer=1)", "ConsumerCrash(consumer=1)", "SendMessage()",
                          "ConsumerRestart(consumer=1)", "Rebalance(consumer=1)"])
    v = m.view(s)
    assert (v["consumer1.q0.nextOffset"], v["consumer1.q0.offset"]) == (1, 1)
    s = run(m, s, ["Pull(consumer=1, queue=0)", "Consume(consumer=1, queue=0)"])
    v = m.view(s)
    assert (v["history.delivered"], v["history.redelivered"]) == ([1, 2], False)


def test_s6_unpersisted_progress_is_redelivered_after_a_consumer_restart():
    m = model(messages=1, max_master_crashes=0, max_master_power_losses=0, max_consumer_restarts=1)
    s = run(m, start(m), ["SendMessage()", "Pull(consumer=1, queue=0)", "Consume(consumer=1, queue=0)",
                          "ConsumerCrash(consumer=1)", "ConsumerRestart(consumer=1)", "Rebalance(consumer=1)",
                          "Pull(consumer=1, queue=0)", "Consume(consumer=1, queue=0)"])
    assert m.view(s)["history.redelivered"] is True


# --- §7 pull routing and offset correction -----------------------------------------------------------------
def test_s7_after_a_master_crash_the_consumer_pulls_from_the_slave():
    """§7.1: the stale route still lists the master (the pull fails); after a refresh the lowest slave is
    the first entry; §7.3 it serves even with slaveReadEnable=false; no commit on pull to a slave."""
    m = model(messages=1, max_master_crashes=1, max_master_power_losses=0)
    s = run(m, start(m), ["SendMessage()", *CONNECT_AND_REPLICATE, "MasterCrash()"])
    assert "Pull(consumer=1, queue=0)" not in [str(a) for a, _, _ in m.enabled(s)]
    s = step(m, s, "RefreshRoute(consumer=1)")
    assert outcome_of(m, s, "Pull(consumer=1, queue=0)") == "FOUND from broker 1"
    s = step(m, s, "Pull(consumer=1, queue=0)")
    v = m.view(s)
    assert (v["consumer1.q0.inFlight"], v["consumer1.q0.suggestWhichBrokerId"], v["slave1.consumerOffset[0]"]) == \
        ([1], 0, None)


def test_s7_offset_illegal_after_a_power_loss_moves_the_committed_offset_back():
    """§7.2 OFFSET_OVERFLOW_BADLY with min 0 -> nextBeginOffset 0; §7.4 the OFFSET_ILLEGAL task overwrites
    the memory offset (not increase-only), persists it (the broker's commitOffset is a plain overwrite) and
    drops the queue; the next rebalance takes 0 and message 1 is delivered again."""
    m = model(messages=2, max_master_crashes=0, max_master_power_losses=1, slaves=0,
              which_broker_when_consume_slowly=0)
    s = run(m, start(m), ["SendMessage()", "FlushCommitLog(broker=0)", "SendMessage()",
                          "Pull(consumer=1, queue=0)", "Consume(consumer=1, queue=0)",
                          "PersistAllOffsets(consumer=1)", "PersistConsumerOffset(broker=0)",
                          "MasterPowerLoss()", "MasterRestart()"])
    v = m.view(s)
    assert (v["master.commitlog"], v["master.consumerOffset[0]"], v["consumer1.q0.nextOffset"]) == ([1], 2, 2)
    assert outcome_of(m, s, "Pull(consumer=1, queue=0)") == "OFFSET_ILLEGAL from broker 0"
    s = step(m, s, "Pull(consumer=1, queue=0)")
    v = m.view(s)
    assert (v["consumer1.q0.dropped"], v["consumer1.q0.nextOffset"]) == (True, 0)
    s = step(m, s, "CorrectIllegalOffset(consumer=1, queue=0)")
    v = m.view(s)
    assert (v["master.consumerOffset[0]"], v["consumer1.q0.owned"], v["history.highestCommitted[0]"]) == \
        (0, False, 2)
    s = run(m, s, ["Rebalance(consumer=1)", "Pull(consumer=1, queue=0)", "Consume(consumer=1, queue=0)"])
    v = m.view(s)
    assert (v["consumer1.q0.offset"], v["history.redelivered"]) == (1, True)


def test_s7_v4_corrects_the_overflow_to_the_max_instead():
    m = model(messages=2, overflow_to_max=True, max_master_crashes=0, max_master_power_losses=1, slaves=0,
              which_broker_when_consume_slowly=0)
    s = run(m, start(m), ["SendMessage()", "FlushCommitLog(broker=0)", "SendMessage()",
                          "Pull(consumer=1, queue=0)", "Consume(consumer=1, queue=0)",
                          "PersistAllOffsets(consumer=1)", "PersistConsumerOffset(broker=0)",
                          "MasterPowerLoss()", "MasterRestart()", "Pull(consumer=1, queue=0)",
                          "CorrectIllegalOffset(consumer=1, queue=0)"])
    assert m.view(s)["master.consumerOffset[0]"] == 1


def test_s7_slave_read_enable_routes_the_next_pull_to_the_group_broker():
    m = model(messages=2, slave_read_enable=True, group_broker_id=1, max_master_crashes=0,
              max_master_power_losses=0)
    s = run(m, start(m), ["SendMessage()", "Pull(consumer=1, queue=0)"])
    assert m.view(s)["consumer1.q0.suggestWhichBrokerId"] == 1
    s = run(m, s, ["SendMessage()", "SlaveConnect(slave=1)", "SlaveReportOffset(slave=1)",
                   "MasterPushData(slave=1)"])
    assert outcome_of(m, s, "Pull(consumer=1, queue=0)") == "FOUND from broker 1"
