"""The RocketMQ property set: every property of model-scope.md, with its compiled checks.

Property names, kinds and order are part of rmqcheck's interface.
"""
from __future__ import annotations

import inspect

import numba as nb
import numpy as np

from model.events import (EV_MASTER_RECOVERED, EV_OFFSET_COMMITTED_TO_SLAVE, EV_SLAVE_SERVED_PULL,
                          EV_SLAVE_SYNC_LOWERED_OFFSET)
from model.fields import NFIELDS
from model.layout import unpack
from model.native import scratch
from model.packed import STATE_CHECK_SIG, TRANSITION_CHECK_SIG

from . import durability, offsets, replication, witnesses
from .base import ALWAYS, GRAPH, SOMETIMES, Property, PropertySet

B_ACKED = 0
B_CONSUMED = 1
B_REPLICAS = 2
B_REGRESS = 3
B_SKIPPED = 4
B_SLAVE_PULL = 5
B_COMMIT_SLAVE = 6
B_MASTER_RECOVERS = 7
B_SYNC_OVERWRITES = 8
B_REDELIVERED = 9
B_CATCH_UP = 10


@nb.njit(STATE_CHECK_SIG, cache=True, nogil=True, _nrt=False)
def state_check(state, params):
    """Always properties violated, state-observed sometimes properties and graph goals, as bits."""
    v = scratch(NFIELDS)
    unpack(state, params, v)
    bits = 0
    if not durability.acked_message_never_lost(v, params):
        bits |= 1 << B_ACKED
    if not durability.consumed_message_never_lost(v, params):
        bits |= 1 << B_CONSUMED
    if not replication.replicas_agree(v, params):
        bits |= 1 << B_REPLICAS
    if not offsets.committed_offset_never_regresses(v, params):
        bits |= 1 << B_REGRESS
    if not offsets.no_message_skipped(v, params):
        bits |= 1 << B_SKIPPED
    if witnesses.message_redelivered(v, params):
        bits |= 1 << B_REDELIVERED
    if replication.replication_caught_up(v, params):
        bits |= 1 << B_CATCH_UP
    return np.uint64(bits)


@nb.njit(TRANSITION_CHECK_SIG, cache=True, nogil=True, _nrt=False)
def transition_check(source, flags, target, params):
    """Sometimes properties witnessed by the events a transition reports."""
    bits = 0
    if flags & EV_SLAVE_SERVED_PULL:
        bits |= 1 << B_SLAVE_PULL
    if flags & EV_OFFSET_COMMITTED_TO_SLAVE:
        bits |= 1 << B_COMMIT_SLAVE
    if flags & EV_MASTER_RECOVERED:
        bits |= 1 << B_MASTER_RECOVERS
    if flags & EV_SLAVE_SYNC_LOWERED_OFFSET:
        bits |= 1 << B_SYNC_OVERWRITES
    return np.uint64(bits)


def _doc(fn) -> str:
    return inspect.cleandoc(getattr(fn, "py_func", fn).__doc__ or "")


def _summary(doc: str) -> str:
    first = doc.split(". ")[0].split(":")[0]
    return first.rstrip(".") + "."


def _prop(name: str, kind: str, bit: int, fn, summary: str, on_transitions: bool = False) -> Property:
    return Property(name, kind, bit, summary, _doc(fn), on_transitions)


PROPERTIES = PropertySet((
    _prop("acked_message_never_lost", ALWAYS, B_ACKED, durability.acked_message_never_lost,
          "every SEND_OK message is still in some broker's commitlog"),
    _prop("consumed_message_never_lost", ALWAYS, B_CONSUMED, durability.consumed_message_never_lost,
          "every message delivered to a consumer is still stored on some broker"),
    _prop("replicas_agree", ALWAYS, B_REPLICAS, replication.replicas_agree,
          "each slave's commitlog and the master's are prefix-related"),
    _prop("committed_offset_never_regresses", ALWAYS, B_REGRESS, offsets.committed_offset_never_regresses,
          "a restarting consumer never reads an offset below the highest the group committed"),
    _prop("no_message_skipped", ALWAYS, B_SKIPPED, offsets.no_message_skipped,
          "every queue position the committed offset has passed was delivered at least once"),
    _prop("slave_serves_pull", SOMETIMES, B_SLAVE_PULL, witnesses.slave_serves_pull,
          "a slave answers a pull with messages", True),
    _prop("offset_committed_to_slave", SOMETIMES, B_COMMIT_SLAVE, witnesses.offset_committed_to_slave,
          "a consumer offset commit lands on a slave", True),
    _prop("master_recovers", SOMETIMES, B_MASTER_RECOVERS, witnesses.master_recovers,
          "the master restarts after a failure", True),
    _prop("slave_sync_overwrites_offset", SOMETIMES, B_SYNC_OVERWRITES, witnesses.slave_sync_overwrites_offset,
          "a slave's offset sync lowers an offset the slave held", True),
    _prop("message_redelivered", SOMETIMES, B_REDELIVERED, witnesses.message_redelivered,
          "some message is delivered to the application twice"),
    _prop("replication_can_catch_up", GRAPH, B_CATCH_UP, replication.replication_caught_up,
          "from every state, the live slaves can still come to hold exactly the master's log"),
), state_check, transition_check)
