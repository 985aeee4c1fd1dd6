"""Typed actions (labels, kernel codes, the fixed table order, ``parse_action``), outcome texts, and the
readable view (names, values, ``encode`` as its exact inverse with errors that name the field)."""
from __future__ import annotations

import pytest

from handbuilt import NO_FAILURES, initial_view, model
from model import Config, parse_action
from model import actions as A
from model.actions import (ACTION_TYPES, FlushCommitLog, MasterCrash, Pull, SendMessage, SlaveReportOffset,
                           actions_for)
from model.declare import declarations
from model.events import (ENABLED, ERR_FIELD_RANGE, ERR_LOG_ORDER, ERROR, EV_SLAVE_SERVED_PULL, NOTE_SHIFT,
                          OUT_COMMITTED, OUT_FOUND, OUT_SEND_OK, describe, note)

BIG = Config.from_mapping(dict(slaves=2, consumers=2, queues=2, messages=3, flush_disk_type="SYNC_FLUSH",
                               broker_role="SYNC_MASTER", max_master_crashes=1, max_master_power_losses=1,
                               max_slave_crashes=1, max_slave_power_losses=1, max_consumer_restarts=1,
                               max_ha_disconnects=1))


def test_every_declared_action_kind_has_its_own_code_from_one_up():
    # one typed class per declaration (model/declare.py), the codes 1..n without a gap or a repeat
    assert [t.declaration for t in ACTION_TYPES] == list(declarations())
    assert sorted(t.kind for t in ACTION_TYPES) == list(range(1, len(ACTION_TYPES) + 1))
    # retention is modelled with one queue: BIG has two
    retention = Config.from_mapping(dict(commitlog_file_messages=1, max_file_deletions=1))
    assert {type(a) for a in actions_for(BIG)} | {type(a) for a in actions_for(retention)} == set(ACTION_TYPES)


def test_each_queue_of_a_consumer_has_pull_consume_consume_dropped_correct_in_that_order():
    labels = [str(a) for a in actions_for(BIG)]
    for c in (1, 2):
        for q in (0, 1):
            i = labels.index(f"Pull(consumer={c}, queue={q})")
            partial = [f"Pull(consumer={c}, queue={q}, batch={k})" for k in range(1, BIG.queue_capacity)]
            assert labels[i:i + 4 + len(partial)] == [f"Pull(consumer={c}, queue={q})", *partial] + [
                f"{kind}(consumer={c}, queue={q})" for kind in ("Consume", "ConsumeDropped", "CorrectIllegalOffset")]
    assert str(A.ConsumeDropped(consumer=2, queue=1)) == "ConsumeDropped(consumer=2, queue=1)"
    assert A.ConsumeDropped(consumer=2, queue=1).code() == (A.ConsumeDropped.kind, 1, 1, 0)


def test_labels_are_the_trace_text():
    assert str(SendMessage()) == "SendMessage()"
    assert str(SendMessage(flush="timeout")) == "SendMessage(flush=timeout)"
    assert str(Pull(consumer=2, queue=1)) == "Pull(consumer=2, queue=1)"
    assert str(FlushCommitLog(broker=0)) == "FlushCommitLog(broker=0)"
    assert str(SlaveReportOffset(slave=3)) == "SlaveReportOffset(slave=3)"
    assert str(MasterCrash()) == "MasterCrash()"


def test_codes_use_zero_based_slaves_and_consumers():
    assert Pull(consumer=2, queue=1).code() == (Pull.kind, 1, 1, 0)
    assert SlaveReportOffset(slave=3).code() == (SlaveReportOffset.kind, 2, 0, 0)
    assert FlushCommitLog(broker=2).code() == (FlushCommitLog.kind, 2, 0, 0)
    assert SendMessage(flush="timeout").code() == (SendMessage.kind, 1, 0, 0)
    assert SendMessage(flush="ok").code() == SendMessage().code() == (SendMessage.kind, 0, 0, 0)


def test_fixed_order_producer_store_ha_metadata_clients_failures():
    labels = [str(a) for a in actions_for(BIG)]
    assert labels[:4] == ["SendMessage(flush=ok)", "SendMessage(flush=timeout)", "SyncMasterAck()",
                          "SyncMasterTimeout()"]
    actors = [a.actor for a in actions_for(BIG)]
    order = ["producer", "store", "ha", "metadata", "client", "failure"]
    assert [order.index(x) for x in actors] == sorted(order.index(x) for x in actors)
    assert len(labels) == len(set(labels))
    assert actions_for(BIG) == actions_for(BIG)


@pytest.mark.parametrize("text", ["Pull(consumer=2, queue=1)", "Pull(consumer=2,queue=1)", " Pull( consumer=2 , queue=1 ) "])
def test_parse_action_ignores_spaces(text):
    assert parse_action(text, BIG) == Pull(consumer=2, queue=1)


def test_parse_action_round_trips_every_label():
    for action in actions_for(BIG):
        assert parse_action(str(action), BIG) == action


@pytest.mark.parametrize("text, message", [
    ("Pull(consumer=3, queue=0)", "not an action of this configuration"),
    ("Teleport()", "not an action of this configuration"),
    ("pull", "not an action label"),
    ("", "not an action label"),
])
def test_parse_action_errors(text, message):
    with pytest.raises(ValueError, match=message):
        parse_action(text, BIG)


def test_outcome_texts():
    assert describe(0) == ""
    assert describe(ENABLED | (OUT_SEND_OK << NOTE_SHIFT)) == "SEND_OK"
    assert describe(ENABLED | EV_SLAVE_SERVED_PULL | note(OUT_FOUND, 2)) == "FOUND from broker 2"
    assert describe(ENABLED | note(OUT_COMMITTED, 1)) == "committed (broker 1)"
    assert describe(ERROR | (ERR_LOG_ORDER << NOTE_SHIFT)) == \
        "model error: an append would break the increasing order of a commitlog"
    assert describe(ERROR | (ERR_FIELD_RANGE << NOTE_SHIFT)).startswith("model error: ")


# --- the view ----------------------------------------------------------------------------------------------
M = model(**NO_FAILURES)
FULL = model(**{k: v for k, v in BIG.as_dict().items()})


def test_view_names_and_values_of_the_initial_state():
    v = initial_view(M)
    assert v["master.commitlog"] == [] and v["slave1.haLink"] == "DOWN"
    assert v["master.consumerOffset[0]"] is None and v["consumer1.q0.offset"] == 0
    assert "producer.waitingFor" not in v                       # ASYNC_MASTER has no wait state
    assert not any(k.startswith("failures.") for k in v)        # no budgets, no counters
    assert not any(k.startswith("message") and k.endswith("queueOffset") for k in v)   # one queue


def test_view_of_the_biggest_config_lists_every_family():
    v = initial_view(FULL)
    for name in ("producer.waitingFor", "message3.queueOffset", "slave2.consumerOffsetJson[1]",
                 "consumer2.q1.suggestWhichBrokerId", "failures.haDisconnects", "history.highestCommitted[1]"):
        assert name in v
    assert FULL.encode(v) == FULL.initial()[0]


def test_view_pending_correction_per_consumer_queue():
    """The OFFSET_ILLEGAL task's nextOffset (§7.4) is its own field, null when no task is pending; offset 0 is
    a real value, distinct from null."""
    v = initial_view(FULL)
    names = [k for k in v if k.endswith(".pendingCorrection")]
    assert names == [f"consumer{c}.q{q}.pendingCorrection" for c in (1, 2) for q in (0, 1)]
    assert all(v[n] is None for n in names)
    for value in (0, 2):
        assert FULL.view(FULL.encode({**v, "consumer2.q1.pendingCorrection": value}))[
            "consumer2.q1.pendingCorrection"] == value
    with pytest.raises(ValueError, match="state field 'consumer1.q0.pendingCorrection'"):
        M.encode({**initial_view(M), "consumer1.q0.pendingCorrection": -1})


def test_view_later_correction_and_dropped_in_flight_per_consumer_queue():
    """The second OFFSET_ILLEGAL task's nextOffset (null when none; 0 a real value) and the messages of a
    removed ProcessQueue (a set of message ids, empty by default) are their own fields, next to
    pendingCorrection, for every consumer and queue."""
    v = initial_view(FULL)
    for suffix, empty in ((".laterCorrection", None), (".droppedInFlight", [])):
        names = [k for k in v if k.endswith(suffix)]
        assert names == [f"consumer{c}.q{q}{suffix}" for c in (1, 2) for q in (0, 1)]
        assert all(v[n] == empty for n in names)
    keys = list(v)
    assert keys[keys.index("consumer1.q0.pendingCorrection") + 1:][:2] == ["consumer1.q0.laterCorrection",
                                                                           "consumer1.q0.droppedInFlight"]
    for name, value in (("consumer2.q1.laterCorrection", 0), ("consumer2.q1.laterCorrection", 2),
                        ("consumer2.q1.droppedInFlight", [1, 3])):
        assert FULL.view(FULL.encode({**v, name: value}))[name] == value
    for name, bad in (("consumer1.q0.laterCorrection", -1), ("consumer1.q0.droppedInFlight", [0])):
        with pytest.raises(ValueError, match=f"state field '{name}'"):
            M.encode({**initial_view(M), name: bad})


def test_encode_rejects_unknown_missing_and_bad_fields():
    v = initial_view(M)
    with pytest.raises(ValueError, match="unknown state field 'slave2.up'"):
        M.encode({**v, "slave2.up": True})
    missing = dict(v)
    del missing["master.up"]
    with pytest.raises(ValueError, match="state field 'master.up' is missing"):
        M.encode(missing)
    for name, bad in (("master.up", 1), ("master.commitlog", [0]), ("master.commitlog", 3),
                      ("slave1.haLink", "UP"), ("master.flushed", -1), ("consumer1.q0.offset", "0")):
        with pytest.raises(ValueError, match=f"state field '{name}'"):
            M.encode({**v, name: bad})


def test_encode_rejects_values_beyond_the_layout():
    """messages=2: a log holds ids 1..2 and counts fit 2 bits."""
    v = initial_view(M)
    for name, bad in (("master.commitlog", [3]), ("master.flushed", 4), ("producer.nextMessage", 8)):
        with pytest.raises(ValueError, match="does not fit"):
            M.encode({**v, name: bad})
