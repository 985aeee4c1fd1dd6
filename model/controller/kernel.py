"""The controller-mode successor kernel: every action of the configuration's table on one state.

Same fixed signature as the 4.4 kernel (:data:`model.packed.SUCCESSORS_SIG`), so every engine runs it
unchanged. The state is unpacked once into a field vector on the stack; each action works on a copy and
is packed into its row; an action that would leave the state as it was is no transition.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from ..native import kernel, scratch
from ..packed import SUCCESSORS_SIG
from . import actions as A
from . import fields as F
from .fields import NFIELDS
from .params import ACTION_STRIDE, P_ACTIONS

KINDS = (
    "ControllerDown", "ControllerUp", "SendMessage", "AckWaitDone", "AckWaitTimeout", "PullMessage",
    "BrokerCrash", "BrokerPowerLoss", "BrokerRestart", "FlushCommitLog", "RegisterBroker", "BrokerElect",
    "ControllerElect", "ControllerElectNone", "ControllerDeclareDead", "BrokerHeartbeat",
    "SyncBrokerMetadata", "ControllerLinkLoss", "ControllerLinkHeal", "AlterSyncStateSet",
    "AlterSyncStateSetReplyLost", "CheckSyncStateSet", "HAConnect", "SlaveReportOffset", "PushData",
    "PushHeartbeat", "HADisconnect", "ReputMessage",
)
KIND = {name: i for i, name in enumerate(KINDS)}


@kernel
def apply(kind, x, y, w, params):
    if kind == 0:
        return A.controller_down(w, x, y, params)
    if kind == 1:
        return A.controller_up(w, x, y, params)
    if kind == 2:
        return A.send_message(w, x, y, params)
    if kind == 3:
        return A.ack_wait_done(w, x, y, params)
    if kind == 4:
        return A.ack_wait_timeout(w, x, y, params)
    if kind == 5:
        return A.pull_message(w, x, y, params)
    if kind == 6:
        return A.broker_crash(w, x, y, params)
    if kind == 7:
        return A.broker_power_loss(w, x, y, params)
    if kind == 8:
        return A.broker_restart(w, x, y, params)
    if kind == 9:
        return A.flush_commitlog(w, x, y, params)
    if kind == 10:
        return A.register_broker(w, x, y, params)
    if kind == 11:
        return A.broker_elect(w, x, y, params)
    if kind == 12:
        return A.controller_elect(w, x, y, params)
    if kind == 13:
        return A.controller_elect_none(w, x, y, params)
    if kind == 14:
        return A.controller_declare_dead(w, x, y, params)
    if kind == 15:
        return A.broker_heartbeat(w, x, y, params)
    if kind == 16:
        return A.sync_broker_metadata(w, x, y, params)
    if kind == 17:
        return A.link_loss(w, x, y, params)
    if kind == 18:
        return A.link_heal(w, x, y, params)
    if kind == 19:
        return A.alter_sync_state_set(w, x, y, params)
    if kind == 20:
        return A.alter_sync_state_set_reply_lost(w, x, y, params)
    if kind == 21:
        return A.check_sync_state_set(w, x, y, params)
    if kind == 22:
        return A.ha_connect(w, x, y, params)
    if kind == 23:
        return A.slave_report(w, x, y, params)
    if kind == 24:
        return A.push_data(w, x, y, params)
    if kind == 25:
        return A.push_heartbeat(w, x, y, params)
    if kind == 26:
        return A.ha_disconnect(w, x, y, params)
    if kind == 27:
        return A.reput_message(w, x, y, params)
    return 0


@kernel
def unpack(state, v):
    for f in range(F.NFIELDS):
        mask = (np.uint64(1) << np.uint64(F.WIDTH[f])) - np.uint64(1)
        v[f] = np.int64((state[F.WORD[f]] >> np.uint64(F.SHIFT[f])) & mask)


@kernel
def pack(v, out):
    """Pack ``v`` into ``out``; False when a value does not fit its field (a model error)."""
    for i in range(len(out)):
        out[i] = 0
    for f in range(F.NFIELDS):
        if v[f] < 0 or v[f] >= (np.int64(1) << F.WIDTH[f]):
            return False
        out[F.WORD[f]] |= np.uint64(v[f]) << np.uint64(F.SHIFT[f])
    return True


@nb.njit(SUCCESSORS_SIG, cache=True, nogil=True, _nrt=False)
def successors(state, params, out, flags):
    """Fill ``out[a]`` / ``flags[a]`` for every action ``a`` of the table; returns their number."""
    n = params[P_ACTIONS]
    v = scratch(NFIELDS)
    w = scratch(NFIELDS)
    unpack(state, v)
    for a in range(n):
        base = P_ACTIONS + 1 + ACTION_STRIDE * a
        for i in range(F.NFIELDS):
            w[i] = v[i]
        f = apply(params[base], params[base + 1], params[base + 2], w, params)
        if f == 0:
            flags[a] = 0
            continue
        if not pack(w, out[a]):
            flags[a] = 3
            continue
        same = True
        for i in range(len(out[a])):
            if out[a, i] != state[i]:
                same = False
        flags[a] = 0 if same and f == 1 else f
    return n
