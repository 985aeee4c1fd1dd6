"""The controller mode's packed layout is per configuration (model/controller/fields.py ``layout_for``): a
field the configuration cannot use takes no bits, bounded fields take the bits of their bound, a value that
does not fit is refused, and up to 4 brokers cost the smaller groups nothing."""
from __future__ import annotations

import numpy as np
import pytest

from model.controller import ControllerConfig
from model.controller import fields as F
from model.controller.model import ControllerElect, ControllerModel
from model.knobs import ConfigError
from tests.controller.test_controller_actions import build, read, running


def width(cfg, name):
    return int(F.layout_for(cfg).width[F.NAMES.index(name)])


def test_unused_fields_take_no_bits():
    plain = ControllerConfig()
    assert all(width(plain, n) == 0 for n in F.NAMES if n.startswith(("broker3.", "broker4.", "nameserver",
                                                                       "history.", "consumer.delivered1")))
    assert width(plain, "producer.flushWaiting") == 0 and width(plain, "budget.powerLosses") == 0
    assert width(plain, "controller.live.epoch[1]") == 3 and width(plain, "controller.live.epoch[2]") == 0
    assert width(ControllerConfig(election_ranking="FREE"), "controller.live.epoch[0]") == 0
    assert width(ControllerConfig(stale_tail="ON"), "broker2.staleEnd") == 2
    assert width(ControllerConfig(flush_disk_type="SYNC_FLUSH"), "producer.flushWaiting") == 1


def test_bounded_fields_take_the_bits_of_their_bound():
    assert [width(ControllerConfig(brokers=b, in_sync_replicas=1), "controller.masterBrokerId")
            for b in (2, 3, 4)] == [2, 2, 3]
    assert [width(ControllerConfig(brokers=b), "controller.syncStateSet") for b in (2, 3, 4)] == [2, 3, 4]
    assert [width(ControllerConfig(messages=n), "producer.sendOk") for n in (1, 2, 3)] == [1, 2, 3]
    assert [width(ControllerConfig(messages=n), "broker1.commitlog.msg[0]") for n in (1, 2, 3)] == [1, 2, 2]
    assert width(ControllerConfig(max_broker_crashes=2), "budget.crashes") == 2


def test_a_value_that_does_not_fit_is_refused():
    m = ControllerModel(ControllerConfig())
    v = np.zeros(F.NFIELDS, dtype=np.int64)
    v[F.NAMES.index("broker3.up")] = 1   # no third broker: width 0
    with pytest.raises(ValueError, match="does not fit"):
        m.pack_vector(v)
    v[:] = 0
    v[F.USED_CRASH] = 2                  # budget 1: one bit
    with pytest.raises(ValueError, match="does not fit"):
        m.pack_vector(v)


def test_a_smaller_group_pays_nothing_for_the_fourth_broker():
    """The presets keep 201 bits in 4 words (7 words for every configuration before the per-configuration
    layout); 3 brokers 5 words, 4 brokers 6."""
    assert (F.layout_for(ControllerConfig()).bits, F.layout_for(ControllerConfig()).words) == (201, 4)
    assert F.layout_for(ControllerConfig(brokers=3, messages=1)).words == 5
    assert F.layout_for(ControllerConfig(brokers=4, messages=1)).words == 6


def test_four_brokers_the_controller_elects_the_fourth():
    """§1.5 with 4 brokers: the master (1) is not alive, broker 4 the only live SyncStateSet member: elected,
    controller id 4 in masterBrokerId, SyncStateSet {4}."""
    m = ControllerModel(ControllerConfig(brokers=4))
    s = build(m, controller_up=1, controller_masterBrokerId=1, controller_masterEpoch=1,
              controller_syncStateSet=0b1001, controller_syncStateSetEpoch=1, **running(4, ctlAlive=1),
              **running(3, ctlAlive=1))
    after = m.next_state(s, ControllerElect(elected=4))
    assert [read(m, after, k) for k in ("controller_masterBrokerId", "controller_masterEpoch",
                                       "controller_syncStateSet")] == [4, 2, 0b1000]
    assert m.next_state(s, ControllerElect(elected=3)) is None   # alive, not in the set


def test_brokers_range():
    assert ControllerConfig(brokers=4, min_in_sync_replicas=4).brokers == 4
    with pytest.raises(ConfigError, match="brokers"):
        ControllerConfig(brokers=5)
