"""committed_offset_never_regresses and no_message_skipped on hand-built states.

Both read the offset a consumer (re)starting now would be told: ``queryConsumerOffset`` on the master if
the name server lists it, else on slave 1.
"""
from __future__ import annotations

from hand_built import flagged, model

REGRESS = "committed_offset_never_regresses"
SKIPPED = "no_message_skipped"

LOG_12 = {"master.commitlog": [1, 2], "producer.nextMessage": 3}


# -- committed_offset_never_regresses ----------------------------------------------------------------
def test_master_offset_below_the_highest_committed_regresses():
    m = model()
    assert flagged(m, REGRESS, {**LOG_12, "master.consumerOffset[0]": 1, "history.highestCommitted[0]": 2})


def test_master_offset_at_or_above_the_highest_committed_holds():
    m = model()
    assert not flagged(m, REGRESS, {**LOG_12, "master.consumerOffset[0]": 2, "history.highestCommitted[0]": 2})
    assert not flagged(m, REGRESS, {**LOG_12, "master.consumerOffset[0]": 2, "history.highestCommitted[0]": 1})


def test_only_the_in_memory_table_is_read_not_consumer_offset_json():
    m = model()
    assert flagged(m, REGRESS, {**LOG_12, "master.consumerOffset[0]": 1, "master.consumerOffsetJson[0]": 2,
                                "history.highestCommitted[0]": 2})


def test_young_queue_without_an_entry_reads_zero():
    m = model()
    # no stored offset and entry 0 still in memory: queryConsumerOffset answers 0
    assert flagged(m, REGRESS, {"master.commitlog": [1], "producer.nextMessage": 2,
                                "master.consumerOffset[0]": None, "history.highestCommitted[0]": 1})


def test_query_not_found_makes_no_claim():
    m = model(messages=3)
    # entry 0 lies more than consume_slowly_backlog=1 messages behind the max: "in disk", QUERY_NOT_FOUND
    assert not flagged(m, REGRESS, {"master.commitlog": [1, 2, 3], "producer.nextMessage": 4,
                                    "master.consumerOffset[0]": None, "history.highestCommitted[0]": 2})
    # one message less and entry 0 is back in the in-memory window: the query answers 0, below 2
    assert flagged(m, REGRESS, {"master.commitlog": [1, 2], "producer.nextMessage": 3,
                                "master.consumerOffset[0]": None, "history.highestCommitted[0]": 2})


def test_a_down_master_still_registered_gives_no_offset_to_compare():
    m = model()
    # a power loss: the name server keeps the dead master until it expires
    assert not flagged(m, REGRESS, {**LOG_12, "master.up": False, "nameserver.route": [0, 1],
                                    "master.consumerOffset[0]": 0, "history.highestCommitted[0]": 2})


def test_without_a_registered_master_the_slave_is_read():
    m = model()
    unregistered = {**LOG_12, "master.up": False, "nameserver.route": [1],
                    "slave1.commitlog": [1, 2], "history.highestCommitted[0]": 2}
    assert flagged(m, REGRESS, {**unregistered, "slave1.consumerOffset[0]": 1, "master.consumerOffset[0]": 2})
    assert not flagged(m, REGRESS, {**unregistered, "slave1.consumerOffset[0]": 2,
                                    "master.consumerOffset[0]": 0})


def test_a_live_master_the_name_server_dropped_is_not_read():
    m = model()
    # the route a fresh consumer fetches lists no master, even though the master process is up
    assert not flagged(m, REGRESS, {**LOG_12, "nameserver.route": [1], "master.consumerOffset[0]": 0,
                                    "slave1.consumerOffset[0]": 2, "history.highestCommitted[0]": 2})


def test_a_down_slave_gives_no_offset_to_compare():
    m = model()
    assert not flagged(m, REGRESS, {**LOG_12, "master.up": False, "nameserver.route": [1],
                                    "slave1.up": False, "slave1.consumerOffset[0]": 0,
                                    "history.highestCommitted[0]": 2})


def test_no_broker_at_all_gives_no_offset_to_compare():
    m = model(slaves=0, which_broker_when_consume_slowly=0)
    assert not flagged(m, REGRESS, {**LOG_12, "master.up": False, "nameserver.route": [],
                                    "nameserver.topicRoute": False, "master.consumerOffset[0]": 0, "history.highestCommitted[0]": 2})


def test_every_queue_is_compared():
    m = model(queues=2)
    both = {"master.commitlog": [1, 2], "producer.nextMessage": 3, "message1.queueOffset": 0,
            "message2.queueOffset": 0, "master.consumerOffset[0]": 1, "history.highestCommitted[0]": 1}
    assert not flagged(m, REGRESS, {**both, "master.consumerOffset[1]": 1, "history.highestCommitted[1]": 1})
    assert flagged(m, REGRESS, {**both, "master.consumerOffset[1]": 0, "history.highestCommitted[1]": 1})


# -- no_message_skipped ------------------------------------------------------------------------------
def test_offset_past_an_undelivered_message_skips_it():
    m = model()
    assert flagged(m, SKIPPED, {**LOG_12, "master.consumerOffset[0]": 1, "history.delivered": []})
    assert flagged(m, SKIPPED, {**LOG_12, "master.consumerOffset[0]": 2, "history.delivered": [1]})
    assert flagged(m, SKIPPED, {**LOG_12, "master.consumerOffset[0]": 2, "history.delivered": [2]})


def test_offset_past_only_delivered_messages_holds():
    m = model()
    assert not flagged(m, SKIPPED, {**LOG_12, "master.consumerOffset[0]": 1, "history.delivered": [1]})
    assert not flagged(m, SKIPPED, {**LOG_12, "master.consumerOffset[0]": 2, "history.delivered": [1, 2]})
    assert not flagged(m, SKIPPED, {**LOG_12, "master.consumerOffset[0]": 0, "history.delivered": []})


def test_positions_are_those_of_the_broker_asked():
    m = model()
    # after a power loss the master re-used queue offset 0 for message 2: offset 1 now passes message 2
    reused = {"master.commitlog": [2], "producer.nextMessage": 3, "master.consumerOffset[0]": 1,
              "history.delivered": [1]}
    assert flagged(m, SKIPPED, reused)
    # the same offset read from a slave that still holds [1, 2] passes message 1 only
    assert not flagged(m, SKIPPED, {**reused, "master.up": False, "nameserver.route": [1],
                                    "slave1.commitlog": [1, 2], "slave1.consumerOffset[0]": 1})


def test_no_stored_offset_makes_no_claim():
    m = model(messages=3)
    log = {"master.commitlog": [1, 2, 3], "producer.nextMessage": 4, "history.delivered": []}
    assert not flagged(m, SKIPPED, {**log, "master.consumerOffset[0]": None})   # QUERY_NOT_FOUND
    assert flagged(m, SKIPPED, {**log, "master.consumerOffset[0]": 1})


def test_a_down_broker_makes_no_claim():
    m = model()
    assert not flagged(m, SKIPPED, {**LOG_12, "master.up": False, "master.consumerOffset[0]": 2})
    assert not flagged(m, SKIPPED, {**LOG_12, "master.up": False, "nameserver.route": [1],
                                    "slave1.up": False, "slave1.commitlog": [1, 2],
                                    "slave1.consumerOffset[0]": 2})


def test_a_slave_offset_past_undelivered_messages_skips_them():
    m = model()
    assert flagged(m, SKIPPED, {**LOG_12, "master.up": False, "nameserver.route": [1],
                                "slave1.commitlog": [1, 2], "slave1.consumerOffset[0]": 1,
                                "history.delivered": []})


def test_each_queue_is_judged_by_its_own_positions():
    m = model(queues=2)
    # message 1 -> queue 0, message 2 -> queue 1, each at queue offset 0
    two = {"master.commitlog": [1, 2], "producer.nextMessage": 3, "message1.queueOffset": 0,
           "message2.queueOffset": 0}
    assert flagged(m, SKIPPED, {**two, "master.consumerOffset[1]": 1, "history.delivered": [1]})
    assert not flagged(m, SKIPPED, {**two, "master.consumerOffset[1]": 1, "history.delivered": [2]})
    assert not flagged(m, SKIPPED, {**two, "master.consumerOffset[0]": 1, "history.delivered": [1]})
