"""The version switches of the 4.x line (model/versions_44.py) in the kernel, on hand-built states: each
changes exactly the action its RocketMQ commit changed, in the way the commit's rule says, and the
4.4.0 setting (the knob's default) keeps the 4.4.0 rule.

``overflow_to_max`` (4.9.4) is the alternative behaviour V4 of the mechanisms page: its kernel branch is
tested in tests/model/test_switches.py (``test_v4_overflow_to_max``).
"""
from __future__ import annotations

import pytest

from handbuilt import build, model
from model.actions import Pull, SlaveReportOffset
from test_switches import differing

#: one slave, a master power loss: a slave's log can run past the master's
HA = dict(messages=2, max_master_crashes=0, max_master_power_losses=1)
#: two slaves, slave reads from slave 1: a suggestion can name a slave the route does not list
READ = dict(slaves=2, slave_read_enable=True, group_broker_id=1, messages=1, max_master_crashes=0,
            max_master_power_losses=0)


def pair(switch, knobs):
    return model(**knobs), model(**knobs, **{switch: True})


@pytest.fixture(scope="module")
def ha():
    return pair("ha_close_on_ack_beyond_master_max", HA)


def slave_ahead(m, link):
    """The slave holds message 2 that the master lost (its log runs past the master's max)."""
    return build(m, **{"master.commitlog": [1], "producer.nextMessage": 3, "slave1.commitlog": [1, 2],
                       "slave1.haLink": link, "slave1.nextTransferFromWhere": 2})


def test_ha_close_on_ack_beyond_master_max_closes_on_a_later_report(ha):
    """4.9.3 ``processReadEvent``: ``else if (slaveAckOffset > getMaxPhyOffset()) return false`` - on a
    streaming connection the report beyond the master's max closes it and ``push2SlaveMaxOffset`` stays."""
    off, on = ha
    s = slave_ahead(off, "STREAMING")
    assert differing(off, on, s) == ["SlaveReportOffset(slave=1)"]
    before = off.view(off.next_state(s, SlaveReportOffset()))
    assert (before["slave1.haLink"], before["master.push2SlaveMaxOffset"]) == ("STREAMING", 2)
    after = on.view(on.next_state(s, SlaveReportOffset()))
    assert (after["slave1.haLink"], after["master.push2SlaveMaxOffset"]) == ("DOWN", 0)


def test_ha_close_on_ack_beyond_master_max_takes_the_first_report_unchecked(ha):
    """The branch is the ``else`` of ``if (slaveRequestOffset < 0)``: a connection's first report (the link
    connected, nothing streamed yet) still raises ``push2SlaveMaxOffset`` past the master's max."""
    off, on = ha
    s = slave_ahead(off, "CONNECTED")
    assert differing(off, on, s) == []
    after = on.view(on.next_state(s, SlaveReportOffset()))
    assert (after["slave1.haLink"], after["master.push2SlaveMaxOffset"]) == ("STREAMING", 2)


def test_ha_close_on_ack_beyond_master_max_leaves_a_report_within_the_master(ha):
    off, on = ha
    s = build(off, **{"master.commitlog": [1, 2], "producer.nextMessage": 3, "slave1.commitlog": [1],
                      "slave1.haLink": "STREAMING", "slave1.nextTransferFromWhere": 1})
    assert differing(off, on, s) == []


@pytest.fixture(scope="module")
def read():
    return pair("subscribe_try_next_slave_id", READ)


def missing_slave_1(m, **fields):
    """The master suggested slave 1, which the consumer's route no longer lists; slave 2 is listed."""
    return build(m, **{"master.commitlog": [1], "producer.nextMessage": 2, "consumer1.route": [0, 2],
                       "consumer1.q0.suggestWhichBrokerId": 1, **fields})


def test_subscribe_try_next_slave_id_pulls_from_the_next_slave(read):
    """4.8.0 ``findBrokerAddressInSubscribe``: ``if (!found && slave) brokerAddr = map.get(brokerId + 1)``.
    4.4.0 takes the first entry, the master, and gets message 1; from 4.8.0 the pull goes to slave 2,
    whose log is empty (no message; a slave does not correct the offset: not a step)."""
    off, on = read
    s = missing_slave_1(off)
    assert differing(off, on, s) == ["Pull(consumer=1, queue=0)"]
    assert off.view(off.next_state(s, Pull()))["consumer1.q0.inFlight"] == [1]
    assert on.next_state(s, Pull()) is None
    # with message 1 on slave 2 as well, both find it, each from its own broker
    t = missing_slave_1(off, **{"slave2.commitlog": [1]})
    assert off.describe_outcome(off.expand(t)[1][list(off.actions()).index(Pull())]) == "FOUND from broker 0"
    assert on.describe_outcome(on.expand(t)[1][list(on.actions()).index(Pull())]) == "FOUND from broker 2"


def test_subscribe_try_next_slave_id_keeps_the_master_suggestion_and_a_listed_slave(read):
    """A suggestion of the master (brokerId 0: not a slave) or of a listed slave is looked up as before;
    and with neither the slave nor the next one listed, the first entry is taken as in 4.4.0."""
    off, on = read
    for fields in ({"consumer1.q0.suggestWhichBrokerId": 0},
                   {"consumer1.route": [0, 1, 2]},
                   {"consumer1.route": [0], "consumer1.q0.suggestWhichBrokerId": 1}):
        assert differing(off, on, missing_slave_1(off, **fields)) == [], fields
