"""acked_message_never_lost and consumed_message_never_lost on hand-built states."""
from __future__ import annotations

from hand_built import flagged, model

ACKED = "acked_message_never_lost"
CONSUMED = "consumed_message_never_lost"


# -- acked_message_never_lost ------------------------------------------------------------------------
def test_acked_message_in_the_master_page_cache_is_not_lost():
    m = model()
    assert not flagged(m, ACKED, {"producer.sendOk": [1], "master.commitlog": [1], "master.flushed": 0})


def test_acked_message_held_only_by_a_slave_is_not_lost():
    m = model()
    assert not flagged(m, ACKED, {"producer.sendOk": [1], "master.commitlog": [], "slave1.commitlog": [1]})


def test_acked_message_held_only_by_the_second_slave_is_not_lost():
    m = model(slaves=2)
    assert not flagged(m, ACKED, {"producer.sendOk": [1], "slave2.commitlog": [1]})
    assert flagged(m, ACKED, {"producer.sendOk": [1], "slave2.commitlog": []})


def test_brokers_that_are_down_still_hold_what_survived():
    m = model()
    assert not flagged(m, ACKED, {"producer.sendOk": [1], "master.up": False, "master.commitlog": [1]})
    assert not flagged(m, ACKED, {"producer.sendOk": [1], "master.commitlog": [], "slave1.up": False,
                                  "slave1.commitlog": [1]})


def test_acked_message_held_by_no_broker_is_lost():
    m = model()
    assert flagged(m, ACKED, {"producer.sendOk": [1], "producer.nextMessage": 2, "master.commitlog": []})


def test_one_lost_ack_among_several_is_a_violation():
    m = model()
    # a power loss kept [1]; message 2 was SEND_OK too
    assert flagged(m, ACKED, {"producer.sendOk": [1, 2], "producer.nextMessage": 3,
                              "master.commitlog": [1], "slave1.commitlog": [1]})


def test_master_reusing_an_offset_for_another_message_loses_the_acked_one():
    m = model()
    assert flagged(m, ACKED, {"producer.sendOk": [1, 2], "producer.nextMessage": 3, "master.commitlog": [2]})


def test_a_lost_message_never_acked_makes_no_claim():
    m = model()
    # message 1 was appended, got e.g. FLUSH_SLAVE_TIMEOUT, then lost: the producer was never told SEND_OK
    assert not flagged(m, ACKED, {"producer.sendOk": [], "producer.nextMessage": 2, "master.commitlog": []})
    assert not flagged(m, ACKED, {"producer.sendOk": [2], "producer.nextMessage": 3, "master.commitlog": [2]})


# -- consumed_message_never_lost ---------------------------------------------------------------------
def test_delivered_message_still_in_the_master_log_is_not_lost():
    m = model()
    assert not flagged(m, CONSUMED, {"history.delivered": [1], "master.commitlog": [1]})


def test_delivered_message_kept_only_by_a_slave_is_not_lost():
    m = model()
    assert not flagged(m, CONSUMED, {"history.delivered": [1], "master.commitlog": [],
                                     "slave1.commitlog": [1]})


def test_delivered_message_stored_nowhere_is_lost():
    m = model()
    assert flagged(m, CONSUMED, {"history.delivered": [1], "master.commitlog": []})
    assert flagged(m, CONSUMED, {"history.delivered": [1, 2], "master.commitlog": [2]})


def test_pulled_but_not_yet_consumed_message_makes_no_claim():
    m = model()
    assert not flagged(m, CONSUMED, {"consumer1.q0.inFlight": [1], "history.delivered": [],
                                     "master.commitlog": []})
    # nor one a removed ProcessQueue handed to the consume service (ConsumeDropped not yet run)
    assert not flagged(m, CONSUMED, {"consumer1.q0.owned": False, "consumer1.q0.offset": None,
                                     "consumer1.q0.droppedInFlight": [1], "history.delivered": [],
                                     "master.commitlog": []})


def test_the_two_durability_properties_are_independent():
    m = model()
    # consumed but never acked (e.g. FLUSH_DISK_TIMEOUT), then lost: only the consumed claim breaks
    changes = {"history.delivered": [1], "producer.sendOk": [], "master.commitlog": []}
    assert flagged(m, CONSUMED, changes) and not flagged(m, ACKED, changes)
    changes = {"history.delivered": [], "producer.sendOk": [1], "master.commitlog": []}
    assert flagged(m, ACKED, changes) and not flagged(m, CONSUMED, changes)
