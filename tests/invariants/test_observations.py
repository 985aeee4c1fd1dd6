"""The properties' own reading of what a restarting consumer observes (:mod:`invariants.observations`)
agrees with the model's routing and store code on random walks, though written apart from it."""
from __future__ import annotations

import random

import numpy as np
import pytest

from invariants import observations as O
from model import Config, RocketMQModel
from model import fields as F
from model.offsets import query_consumer_offset
from model.routes import admin_broker
from model.writes import WORK_SIZE
from model.store import consume_queue, up_slot


def _walk_states(m: RocketMQModel, rng: random.Random, steps: int):
    s = m.initial()[0]
    yield s
    for _ in range(steps):
        enabled = m.enabled(s)
        if not enabled:
            return
        s = rng.choice(enabled)[1]
        yield s


def fresh_consumer_admin_broker(v, p):
    """The model's own lookup (``model.routes.admin_broker``) for consumer 1 with an empty table, as at a
    start: the route is fetched, then the lowest listed broker taken."""
    w = np.zeros(WORK_SIZE, dtype=np.int64)
    w[:F.NFIELDS] = v
    w[F.C_ROUTE] = 0
    return admin_broker(w, 0, p)


@pytest.mark.parametrize("seed", range(6))
def test_observations_agree_with_the_model_on_random_walks(seed):
    rng = random.Random(seed)
    slaves = rng.randint(0, 2)
    knobs = dict(slaves=slaves, consumers=2, queues=rng.randint(1, 2), messages=rng.randint(2, 4),
                 max_master_crashes=1, max_master_power_losses=rng.randint(0, 2), max_slave_power_losses=1,
                 max_slave_crashes=rng.randint(0, 1),
                 which_broker_when_consume_slowly=0, consume_slowly_backlog=rng.randint(0, 2))
    m = RocketMQModel(Config.from_mapping(knobs))
    p = m.params
    for s in _walk_states(m, rng, 80):
        v = m.unpack_state(s)
        assert O.restart_broker(v, p) == fresh_consumer_admin_broker(v, p)
        for b in range(slaves + 1):
            assert O.broker_up(v, b) == (v[up_slot(b)] != 0)
            for q in range(m.config.queues):
                assert O.queue_entries(v, b, q, p) == consume_queue(v, b, q, p)
                assert O.committed_offset(v, b, q, p) == query_consumer_offset(v, b, q, p)


def test_a_young_queue_reads_zero_and_a_queue_whose_first_message_is_on_disk_reads_not_found():
    m = RocketMQModel(Config.from_mapping(dict(messages=3, slaves=0, which_broker_when_consume_slowly=0,
                                               consume_slowly_backlog=1)))
    v = np.array(m.started_vector())
    assert O.committed_offset(v, 0, 0, m.params) == 0           # empty queue
    v[F.M_LOG] = 0b011                                           # one message follows the first: in memory
    assert O.committed_offset(v, 0, 0, m.params) == 0
    v[F.M_LOG] = 0b111                                           # two follow it: beyond the backlog
    assert O.committed_offset(v, 0, 0, m.params) == O.NOT_FOUND
    v[F.M_OFF_MEM] = 3                                           # a stored offset 2 wins
    assert O.committed_offset(v, 0, 0, m.params) == 2
