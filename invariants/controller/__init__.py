"""The controller mode's properties (``--mode controller``): the claims of the mechanisms page's §9.5,
each a compiled predicate over the field vector of :mod:`model.controller.fields`.

A property observes the cluster as a RocketMQ user would: the controller's current master, the brokers
that accept writes, the messages the producer was told SEND_OK and the message the consumer was given at
each queue offset. It reads fields only, never the model's routing code, so a bug in an action cannot
make a property agree with it.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from model.controller import fields as F
from model.controller.fields import NFIELDS
from model.controller.params import P_BROKERS, P_MESSAGES
from model.native import kernel, scratch
from model.packed import EVENTUALLY_MASKS_SIG, STATE_CHECK_SIG, TRANSITION_CHECK_SIG

from ..base import ALWAYS, EVENTUALLY, SOMETIMES, Property, PropertySet


@kernel(inline=True)
def _g(v, b, off):
    return v[F.BROKER_BASE + b * F.STRIDE + off]


@kernel(inline=True)
def _writer(v, b):
    return _g(v, b, F.B_UP) == 1 and _g(v, b, F.B_FENCED) == 0 and _g(v, b, F.B_MASTER) == 1


@kernel
def _current_master(v):
    """The controller's master once it has taken the role (running, master, at the controller's epoch),
    else -1."""
    b = v[F.CTL_MASTER] - 1
    if b >= 0 and _writer(v, b) and _g(v, b, F.B_EPOCH) == v[F.CTL_EPOCH]:
        return b
    return -1


@kernel
def acked_message_on_every_later_master(v, p):
    """Every message the producer was told SEND_OK is in the commitlog of the master the controller has
    now (once that broker has taken the role). With allAckInSyncStateSet=true a put answers SEND_OK only
    when every SyncStateSet member has it and only members can be elected; with the 5.3.3 default (false)
    SEND_OK follows the master's local append, so a failover can lose it."""
    b = _current_master(v)
    if b < 0:
        return True
    for m in range(p[P_MESSAGES]):
        if v[F.ACKED] >> m & 1:
            found = False
            for i in range(_g(v, b, F.B_LEN)):
                if _g(v, b, F.B_LOG_MSG + i) == m + 1:
                    found = True
            if not found:
                return False
    return True


@kernel
def queue_offset_names_one_message(v, p):
    """No broker that serves pulls (a running master) offers, at a queue offset where the consumer was
    already given a message, a different message: a (queue, queueOffset) pair names one message for
    every consumer, whichever master it pulls from and whenever. Readable means dispatched to the consume
    queue (``ReputMessageService``, which stops at ``CommitLog#getConfirmOffset``)."""
    for b in range(p[P_BROKERS]):
        if not _writer(v, b):
            continue
        for i in range(_g(v, b, F.B_REPUT)):
            d = v[F.DELIVERED + i]
            if d != 0 and _g(v, b, F.B_LOG_MSG + i) != d:
                return False
    return True


@kernel
def delivered_message_stays_on_master(v, p):
    """Every message the consumer was given is still, at its queue offset, in the commitlog of the
    controller's current master: a delivered message never disappears from the master's log."""
    b = _current_master(v)
    if b < 0:
        return True
    for i in range(p[P_MESSAGES]):
        d = v[F.DELIVERED + i]
        if d != 0 and (i >= _g(v, b, F.B_LEN) or _g(v, b, F.B_LOG_MSG + i) != d):
            return False
    return True


@kernel
def one_master_per_epoch(v, p):
    """At most one broker per master epoch accepts writes: no two running, unfenced brokers in the
    master role hold the same master epoch (a deposed master with an older epoch may still accept
    writes: controller mode has no write lease, §1.8)."""
    for b in range(p[P_BROKERS]):
        for c in range(b + 1, p[P_BROKERS]):
            if _writer(v, b) and _writer(v, c) and _g(v, b, F.B_EPOCH) == _g(v, c, F.B_EPOCH):
                return False
    return True


@kernel
def epoch_file_agrees_with_log(v, p):
    """Every running broker's epoch file agrees with its commitlog on the epochs both contain: when the
    file has an entry for the epoch a message was written in, that entry's range (its start up to the
    next entry's start) covers the message's offset (``EpochFileCache#findEpochEntryByOffset`` then finds
    the right epoch for it, as the handshake's ``findConsistentPoint`` and the master's push rely on)."""
    for b in range(p[P_BROKERS]):
        if _g(v, b, F.B_UP) == 0:
            continue
        n = _g(v, b, F.B_EF_N)
        for i in range(_g(v, b, F.B_LEN)):
            e = _g(v, b, F.B_LOG_EP + i)
            for j in range(n):
                if _g(v, b, F.B_EF_EP + j) != e:
                    continue
                if i < _g(v, b, F.B_EF_START + j) or (j + 1 < n and i >= _g(v, b, F.B_EF_START + j + 1)):
                    return False
    return True


@kernel
def master_eventually_elected(v, p):
    """After a master failure, while the controller can still elect from the SyncStateSet, some broker
    becomes master again. P: the broker the controller names master has crashed or lost power, the
    controller is up, and another member of the controller's SyncStateSet is running and reaches it (its
    link is up). Q: a broker is master at the controller's master epoch and accepts writes. In 5.3.3 the
    controller finds the master inactive (``DefaultBrokerHeartbeatManager``), and
    ``ControllerManager#triggerElectMaster`` / ``ElectMasterEventHandler`` have
    ``ReplicasInfoManager#electMaster`` pick a live SyncStateSet member with ``DefaultElectPolicy``; the
    member learns its new role (``ReplicasManager#changeToMaster``) on its next metadata poll. Checked on
    fair runs: the controller's and brokers' periodic work (heartbeats, the inactive-broker scan, the
    election, the metadata poll, restarts) keeps happening, while crashes, power losses, controller
    outages, link losses, HA disconnects and lost replies need never happen."""
    m = v[F.CTL_MASTER] - 1
    if v[F.CTL_EPOCH] < 1 or m < 0 or _g(v, m, F.B_UP) == 1 or v[F.CTL_UP] == 0:
        return 0
    for b in range(p[P_BROKERS]):
        if b != m and v[F.CTL_SSS] >> b & 1 and _g(v, b, F.B_UP) == 1 and _g(v, b, F.B_LINK_DOWN) == 0:
            return 1
    return 0


@kernel
def master_serving(v, p):
    """Q of ``master_eventually_elected``: a broker is master at the controller's master epoch and accepts
    writes."""
    return 1 if _current_master(v) >= 0 else 0


@kernel
def _unpack(state, v):
    for f in range(F.NFIELDS):
        mask = (np.uint64(1) << np.uint64(F.WIDTH[f])) - np.uint64(1)
        v[f] = np.int64((state[F.WORD[f]] >> np.uint64(F.SHIFT[f])) & mask)


@nb.njit(STATE_CHECK_SIG, cache=True, nogil=True, _nrt=False)
def state_check(state, params):
    """Bits 0-4: an always property violated; bit 5: a new master was elected after a failover; bits 6-7:
    the availability witnesses."""
    v = scratch(NFIELDS)
    _unpack(state, v)
    bits = np.uint64(0)
    if not acked_message_on_every_later_master(v, params):
        bits |= np.uint64(1)
    if not queue_offset_names_one_message(v, params):
        bits |= np.uint64(2)
    if not delivered_message_stays_on_master(v, params):
        bits |= np.uint64(4)
    if not one_master_per_epoch(v, params):
        bits |= np.uint64(8)
    if not epoch_file_agrees_with_log(v, params):
        bits |= np.uint64(16)
    if v[F.CTL_EPOCH] >= 2 and v[F.CTL_MASTER] != 0:
        bits |= np.uint64(32)
    if v[F.ACKED] != 0:          # availability witnesses (AVAILABILITY_WITNESSES below)
        bits |= np.uint64(64)
    if v[F.DELIVERED] != 0:
        bits |= np.uint64(128)
    return bits


@nb.njit(TRANSITION_CHECK_SIG, cache=True, nogil=True, _nrt=False)
def transition_check(source, flags, target, params):
    return np.uint64(0)


#: the bit of the eventually property (its P mask is ``out[2 * bit]``, its Q mask ``out[2 * bit + 1]``), after
#: the availability witnesses' 6-7
ELECTED_BIT = 8


@nb.njit(EVENTUALLY_MASKS_SIG, cache=True, nogil=True, _nrt=False)
def eventually_masks(state, params, out):
    """P and Q of ``master_eventually_elected`` (one instance: mask bit 0)."""
    v = scratch(NFIELDS)
    _unpack(state, v)
    out[2 * ELECTED_BIT] = np.uint64(master_eventually_elected(v, params))
    out[2 * ELECTED_BIT + 1] = np.uint64(master_serving(v, params))


def _doc(fn) -> str:
    return " ".join((fn.__doc__ or "").split())


_ALWAYS = (
    ("acked_message_on_every_later_master", acked_message_on_every_later_master,
     "every SEND_OK message is in the commitlog of the controller's current master"),
    ("queue_offset_names_one_message", queue_offset_names_one_message,
     "no master offers a different message at a queue offset already delivered"),
    ("delivered_message_stays_on_master", delivered_message_stays_on_master,
     "every delivered message stays at its offset in the current master's commitlog"),
    ("one_master_per_epoch", one_master_per_epoch,
     "at most one broker per master epoch accepts writes"),
    ("epoch_file_agrees_with_log", epoch_file_agrees_with_log,
     "each running broker's epoch file covers its messages with the entries of their epochs"),
)

PROPERTIES = PropertySet(
    tuple(Property(name, ALWAYS, bit, summary, _doc(fn)) for bit, (name, fn, summary) in enumerate(_ALWAYS))
    + (Property("new_master_elected", SOMETIMES, 5,
                "the controller elects a master after a failover (masterEpoch >= 2)",
                "A witness that failover happens in the explored space: some state has a master at master "
                "epoch 2 or more."),
       Property("master_eventually_elected", EVENTUALLY, ELECTED_BIT,
                "after a master failure, with a live SyncStateSet member and the controller reachable, "
                "some broker becomes master", _doc(master_eventually_elected))),
    state_check, transition_check, eventually_masks=eventually_masks)

#: the availability witnesses of ``rmqcheck faults`` (bits 6-7 of ``state_check``, not checked by ``check``):
#: a change that closes a failure mode counts only while the configuration still reaches each of them
AVAILABILITY_WITNESSES = (
    Property("message_acked", SOMETIMES, 6, "the producer is told SEND_OK for a message",
             "The producer is told SEND_OK for some message: the group accepts writes. With "
             "minInSyncReplicas above the brokers that can be in sync, every put is refused "
             "(IN_SYNC_REPLICAS_NOT_ENOUGH), and a durability property that holds there holds vacuously."),
    Property("message_consumed", SOMETIMES, 7, "a message is delivered to the application",
             "The consumer is given some message (a pull is answered FOUND): the group receives what was sent."),
)
