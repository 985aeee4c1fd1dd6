"""FlushCommitLog on hand-built states (mechanisms §3.3, §3.4: ``MappedFileQueue#flush``)."""
from __future__ import annotations

import pytest

from handbuilt import NO_FAILURES, assert_disabled, assert_effect, build, model
from model.actions import FlushCommitLog

M = model(messages=3, slaves=2, **NO_FAILURES)


def test_master_flush_writes_everything_back():
    s = build(M, **{"master.commitlog": [1, 2, 3], "master.flushed": 1, "producer.nextMessage": 4})
    assert_effect(M, s, FlushCommitLog(broker=0), {"master.flushed": 3}, outcome="")


@pytest.mark.parametrize("slave", [1, 2])
def test_slave_flushes_its_ha_appended_data_on_its_own(slave):
    s = build(M, **{"master.commitlog": [1, 2], f"slave{slave}.commitlog": [1, 2], f"slave{slave}.flushed": 0,
                    "producer.nextMessage": 3})
    assert_effect(M, s, FlushCommitLog(broker=slave), {f"slave{slave}.flushed": 2})


def test_flush_is_per_broker():
    s = build(M, **{"master.commitlog": [1], "slave1.commitlog": [1], "slave2.commitlog": [1],
                    "producer.nextMessage": 2})
    for b in range(3):
        nxt = assert_effect(M, s, FlushCommitLog(broker=b),
                            {"master.flushed" if b == 0 else f"slave{b}.flushed": 1})
        assert nxt != s


def test_flush_disabled_when_nothing_is_dirty():
    s = build(M, **{"master.commitlog": [1, 2], "master.flushed": 2, "producer.nextMessage": 3})
    assert_disabled(M, s, FlushCommitLog(broker=0))
    assert_disabled(M, build(M), FlushCommitLog(broker=1))


def test_flush_needs_the_broker_up():
    s = build(M, **{"master.up": False, "master.commitlog": [1], "slave1.up": False, "slave1.commitlog": [1],
                    "producer.nextMessage": 2})
    assert_disabled(M, s, FlushCommitLog(broker=0))
    assert_disabled(M, s, FlushCommitLog(broker=1))


def test_every_broker_has_a_flush_action():
    assert [a for a in M.actions() if isinstance(a, FlushCommitLog)] == \
        [FlushCommitLog(broker=0), FlushCommitLog(broker=1), FlushCommitLog(broker=2)]
