"""What a consumer (re)starting now would observe of the cluster: the RocketMQ facts the offset properties
are stated over, read from the state's fields.

These are the properties' own reading of 4.4, written apart from the actions' routing and store code
(:mod:`model.client`, :mod:`model.offsets`, :mod:`model.store`) on purpose: a property that called the
model's helpers would move with any bug in them, and check the model against itself. Tests compare the
two readings on random walks (tests/invariants/test_observations.py).
"""
from __future__ import annotations

from model import fields as F
from model.bits import bit, count
from explore.native import kernel
from model.slots import K_BACKLOG, K_MESSAGES, K_QUEUES, K_SLAVES

NO_BROKER = -1
NOT_FOUND = -1      # ConsumerManageProcessor's QUERY_NOT_FOUND


@kernel
def restart_broker(v, p):
    """The brokerId a consumer starting now asks for its offset: its fresh route is the name server's (the
    registered brokers; none when the topic has no queue data left), and
    ``MQClientInstance#findBrokerAddressInAdmin`` takes the lowest listed id (the master, else the lowest
    slave); -1 when the route lists none."""
    if v[F.NS_TOPIC] == 0:
        return NO_BROKER
    route = v[F.NS_ROUTE]
    for b in range(p[K_SLAVES] + 1):
        if route >> b & 1:
            return b
    return NO_BROKER


@kernel
def broker_up(v, b):
    """Whether broker ``b``'s process runs."""
    return v[F.M_UP] != 0 if b == 0 else v[F.S_UP + b - 1] != 0


@kernel
def queue_entries(v, b, q, p):
    """Broker ``b``'s consume queue ``q`` as ``(min offset, message ids in queue order)``: the messages of
    queue ``q`` in its commitlog, in log order, as ``ConsumeQueue#putMessagePositionInfo`` files them (the
    first entry fixes the min offset at its queue offset; later ones below the queue's end are dropped as
    repeats). With one queue a message's queue offset is its commitlog offset: the queue starts at the
    log's min offset (what retention deleted left the queue with it)."""
    log = v[F.M_LOG] if b == 0 else v[F.S_LOG + b - 1]
    queues = p[K_QUEUES]
    if queues == 1:
        return (v[F.M_MIN] if b == 0 else v[F.S_MIN + b - 1]), log
    ids = 0
    lowest = -1
    end = 0
    for m in range(1, p[K_MESSAGES] + 1):
        if log & bit(m) == 0 or (m - 1) % queues != q:
            continue
        at = v[F.MSG_QO + m - 1]
        if lowest < 0:
            lowest = at
            end = at
        if at >= end:
            ids |= bit(m)
            end += 1
    return max(lowest, 0), ids


@kernel
def committed_offset(v, b, q, p):
    """``ConsumerManageProcessor#queryConsumerOffset`` on broker ``b``: the stored offset; without one, 0
    when queue ``q`` starts at 0 and its first entry is still in memory (``checkInDiskByConsumeOffset``:
    no more than ``consume_slowly_backlog`` messages follow it in the commitlog), else -1."""
    stored = v[F.M_OFF_MEM + q] if b == 0 else v[F.S_OFF_MEM + (b - 1) * F.MAX_QUEUES + q]
    if stored != 0:
        return stored - 1
    first_offset, ids = queue_entries(v, b, q, p)
    if first_offset > 0:
        return NOT_FOUND
    if ids == 0:
        return 0
    log = v[F.M_LOG] if b == 0 else v[F.S_LOG + b - 1]
    first = ids & -ids
    behind = count(log & ~(first | (first - 1)))
    return NOT_FOUND if behind > p[K_BACKLOG] else 0
