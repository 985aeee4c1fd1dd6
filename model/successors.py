"""The kernel entry point: all successors of one packed state, one slot per action of the table.

``successors(state, params, out, flags)`` unpacks ``state`` once, then for each action ``a`` of the
configuration's action table copies the field vector, applies the action (guard and effect), packs the
result into ``out[a]`` and sets ``flags[a]`` (:mod:`model.events`): 0 when the action is disabled or would
change nothing. It has one fixed signature for every configuration (:data:`SUCCESSORS_SIG`), so the
engines call it as a compiled function pointer and numba caches it on disk once.
"""
from __future__ import annotations

import numba as nb

from . import actions as A
from . import client, failures, ha, metadata, producer
from .events import DISCARD, ENABLED, ERR_FIELD_RANGE, ERR_WRITE_WHEN_DISABLED, ERROR, NOTE_SHIFT
from .fields import NFIELDS
from .layout import repack, unpack
from .native import kernel, scratch
from .writes import DIRTY_COUNT, WORK_SIZE
from .packed import SUCCESSORS_SIG
from .params import ACTION_STRIDE, K_ACTIONS_AT, K_STRICT
from .store import flush_commitlog, up_slot



@kernel
def flush_action(v, w, b, p):
    """``FlushCommitLog(broker=b)``: needs the broker up and something unflushed."""
    if v[up_slot(b)] == 0:
        return 0
    flush_commitlog(w, b)
    return ENABLED


@kernel(inline=True)
def apply(kind, x, y, v, w, p):
    """Fire one action on field vector ``w`` (a copy of ``v``); returns its flags."""
    if kind == A.PULL:
        return client.pull(v, w, x, y, p)
    if kind == A.CONSUME:
        return client.consume(v, w, x, y, p)
    if kind == A.CONSUME_DROPPED:
        return client.consume_dropped(v, w, x, y, p)
    if kind == A.SEND_MESSAGE:
        return producer.send_message(v, w, x, p)
    if kind == A.MASTER_PUSH_DATA:
        return ha.master_push_data(v, w, x, p)
    if kind == A.SLAVE_REPORT_OFFSET:
        return ha.slave_report_offset(v, w, x, p)
    if kind == A.FLUSH_COMMITLOG:
        return flush_action(v, w, x, p)
    if kind == A.PERSIST_ALL_OFFSETS:
        return client.persist_all_offsets(v, w, x, p)
    if kind == A.PERSIST_CONSUMER_OFFSET:
        return metadata.persist_consumer_offset(v, w, x, p)
    if kind == A.SLAVE_SYNC_ALL:
        return metadata.slave_sync_all(v, w, x, p)
    if kind == A.SLAVE_REGISTER:
        return metadata.slave_register(v, w, x, p)
    if kind == A.SLAVE_CONNECT:
        return ha.slave_connect(v, w, x, p)
    if kind == A.REFRESH_ROUTE:
        return client.refresh_route_action(v, w, x, p)
    if kind == A.REBALANCE:
        return client.rebalance(v, w, x, p)
    if kind == A.CORRECT_ILLEGAL_OFFSET:
        return client.correct_illegal_offset(v, w, x, y, p)
    if kind == A.SYNC_MASTER_ACK:
        return producer.sync_master_ack(v, w, p)
    if kind == A.SYNC_MASTER_TIMEOUT:
        return producer.sync_master_timeout(v, w, p)
    if kind == A.HA_DISCONNECT:
        return ha.ha_disconnect(v, w, x, p)
    if kind == A.NAMESERVER_EXPIRE_MASTER:
        return metadata.nameserver_expire_master(v, w, p)
    if kind == A.MASTER_CRASH:
        return failures.master_crash(v, w, p)
    if kind == A.MASTER_POWER_LOSS:
        return failures.master_power_loss(v, w, p)
    if kind == A.MASTER_RESTART:
        return failures.master_restart(v, w, p)
    if kind == A.SLAVE_CRASH:
        return failures.slave_crash(v, w, x, p)
    if kind == A.SLAVE_POWER_LOSS:
        return failures.slave_power_loss(v, w, x, p)
    if kind == A.SLAVE_RESTART:
        return failures.slave_restart(v, w, x, p)
    if kind == A.CONSUMER_CRASH:
        return client.consumer_crash(v, w, x, p)
    if kind == A.CONSUMER_RESTART:
        return client.consumer_restart(v, w, x, p)
    return 0


@nb.njit(SUCCESSORS_SIG, cache=True, nogil=True, _nrt=False)
def successors(state, params, out, flags):
    """Fill ``out[a]`` / ``flags[a]`` for every action ``a``; returns the number of actions."""
    at = params[K_ACTIONS_AT]
    n = params[at]
    strict = params[K_STRICT] != 0
    v = scratch(NFIELDS)
    w = scratch(WORK_SIZE)
    unpack(state, params, v)
    for i in range(NFIELDS):  # an explicit loop: numba's slice assignment is much slower
        w[i] = v[i]
    w[DIRTY_COUNT] = 0
    # each action writes its successor into w (model.writes.put notes the fields); repack encodes them
    # and puts w back to v for the next action
    for a in range(n):
        base = at + 1 + ACTION_STRIDE * a
        f = apply(params[base], params[base + 1], params[base + 2], v, w, params)
        if f == 0 and w[DIRTY_COUNT] != 0:
            repack(v, w, state, params, out[a])
            if strict:
                f = ERROR | (ERR_WRITE_WHEN_DISABLED << NOTE_SHIFT)
        elif f != 0:
            changed = repack(v, w, state, params, out[a])
            if f & ERROR:
                pass
            elif f & DISCARD:
                f = 0
            elif changed < 0:
                f = ERROR | (ERR_FIELD_RANGE << NOTE_SHIFT)
            elif changed == 0:
                f = 0   # the action would change nothing: no transition
        flags[a] = f
    return n
