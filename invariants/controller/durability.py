"""Durability claims of the controller mode (the mechanisms page's §9.5): what the producer was told
SEND_OK and what the consumer was given stay on the master the controller elects."""
from __future__ import annotations

from model.controller import fields as F
from model.controller.params import P_BROKERS, P_MESSAGES
from model.controller.params import P_QUEUES
from model.controller.state import record_queue, record_queue_offset
from explore.native import kernel

from .declare import check
from .observations import current_master, field, writer
from ..base import ALWAYS


@check(kind=ALWAYS, summary="every SEND_OK message is in the commitlog of the controller's current master",
       reads=r"producer\.sendOk|controller\.master|\.commitlog$|\.role$|\.masterEpoch$")
@kernel
def acked_message_on_every_later_master(v, p):
    """Every message the producer was told SEND_OK is in the commitlog of the master the controller has
    now (once that broker has taken the role). With allAckInSyncStateSet=true a put answers SEND_OK only
    when every SyncStateSet member has it and only members can be elected; with the 5.3.3 default (false)
    SEND_OK follows the master's local append, so a failover can lose it."""
    b = current_master(v)
    if b < 0:
        return True
    for m in range(p[P_MESSAGES]):
        if v[F.ACKED] >> m & 1:
            found = False
            for i in range(field(v, b, F.B_LEN)):
                if field(v, b, F.B_LOG_MSG + i) == m + 1:
                    found = True
            if not found:
                return False
    return True


@check(kind=ALWAYS, summary="no master offers a different message at a queue offset already delivered",
       reads=r"consumer\.delivered|\.dispatched$|\.commitlog$|\.role$|\.queueOffsets$")
@kernel
def queue_offset_names_one_message(v, p):
    """No broker that serves pulls (a running master) offers, at a queue offset where the consumer was
    already given a message, a different message: a (queue, queueOffset) pair names one message for
    every consumer, whichever master it pulls from and whenever. Readable means dispatched to the consume
    queue (``ReputMessageService``, which stops at ``CommitLog#getConfirmOffset``). With two queues, each
    dispatched record's (queueId, queueOffset) against what the consumer was given there."""
    if p[P_QUEUES] > 1:
        return _queue_offsets_name_one_message(v, p)
    for b in range(p[P_BROKERS]):
        if not writer(v, b):
            continue
        for i in range(field(v, b, F.B_REPUT)):
            d = v[F.DELIVERED + i]
            if d != 0 and field(v, b, F.B_LOG_MSG + i) != d:
                return False
    return True


@check(kind=ALWAYS, summary="every delivered message stays at its offset in the current master's commitlog",
       reads=r"consumer\.delivered|controller\.master|\.commitlog$|\.role$|\.queueOffsets$")
@kernel
def delivered_message_stays_on_master(v, p):
    """Every message the consumer was given is still, at its queue offset, in the commitlog of the
    controller's current master: a delivered message never disappears from the master's log. With two
    queues: a record of the master with that queueId and queueOffset holds it."""
    b = current_master(v)
    if b < 0:
        return True
    if p[P_QUEUES] > 1:
        return _delivered_on(v, b, p)
    for i in range(p[P_MESSAGES]):
        d = v[F.DELIVERED + i]
        if d != 0 and (i >= field(v, b, F.B_LEN) or field(v, b, F.B_LOG_MSG + i) != d):
            return False
    return True


@kernel(inline=True)
def _delivered_at(v, q, o):
    """What the consumer was given at queue ``q``'s offset ``o`` (0: nothing)."""
    return v[F.DELIVERED + o] if q == 0 else v[F.DELIVERED1 + o]


@kernel
def _queue_offsets_name_one_message(v, p):
    """:func:`queue_offset_names_one_message` with two queues."""
    for b in range(p[P_BROKERS]):
        if not writer(v, b):
            continue
        for i in range(field(v, b, F.B_REPUT)):
            d = _delivered_at(v, record_queue(v, b, i, p), record_queue_offset(v, b, i, p))
            if d != 0 and field(v, b, F.B_LOG_MSG + i) != d:
                return False
    return True


@kernel
def _delivered_on(v, b, p):
    """:func:`delivered_message_stays_on_master` with two queues, on master ``b``."""
    for q in range(p[P_QUEUES]):
        for o in range(p[P_MESSAGES]):
            d = _delivered_at(v, q, o)
            if d == 0:
                continue
            found = False
            for i in range(field(v, b, F.B_LEN)):
                if record_queue(v, b, i, p) == q and record_queue_offset(v, b, i, p) == o \
                        and field(v, b, F.B_LOG_MSG + i) == d:
                    found = True
            if not found:
                return False
    return True
