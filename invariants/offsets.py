"""Consumer offsets: what a consumer (re)starting now would be told, against what the group achieved."""
from __future__ import annotations


from model.native import kernel
from model import fields as F
from model.bits import lowest
from model.client import fresh_admin_broker
from model.offsets import query_consumer_offset
from model.params import K_QUEUES
from model.store import consume_queue, up_slot


@kernel
def committed_offset_never_regresses(v, p):
    """The committed offset a consumer (re)starting now would read - ``queryConsumerOffset`` on the broker
    its fresh route points to: the master if the name server lists it, else slave 1 - never falls below
    the highest offset the group had already committed for that queue. When the offset a restart reads is
    lower, the group consumes again what it had acknowledged; 4.4 gets there when a master restarts with
    an old consumerOffset.json, when the slave that took commits meanwhile is overwritten by
    ``SlaveSynchronize``, or when an OFFSET_ILLEGAL correction moves the offset back. A broker that is down
    or answers QUERY_NOT_FOUND gives no offset to compare."""
    b = fresh_admin_broker(v, p)
    if b < 0 or v[up_slot(b)] == 0:
        return True
    for q in range(p[K_QUEUES]):
        read = query_consumer_offset(v, b, q, p)
        if read >= 0 and read < v[F.H_HIGH + q]:
            return False
    return True


@kernel
def no_message_skipped(v, p):
    """At-least-once delivery: once the group's committed offset has passed a position of the queue, the
    message at that position has been delivered at least once. The group's committed offset is what a
    consumer (re)starting now would be told (``queryConsumerOffset`` on the master if the name server
    lists it, else on slave 1: the stored offset, or 0 for a young queue), and the positions are those of
    that broker's queue. It breaks when the offset points past messages nobody consumed, e.g. an offset
    kept while a power loss made the master re-use those queue offsets for new messages. A broker without
    an offset for the group (QUERY_NOT_FOUND) makes no claim: the consumer then starts at the queue's end
    by design (CONSUME_FROM_LAST_OFFSET)."""
    b = fresh_admin_broker(v, p)
    if b < 0 or v[up_slot(b)] == 0:
        return True
    for q in range(p[K_QUEUES]):
        start = query_consumer_offset(v, b, q, p)
        if start < 0:
            continue
        min_offset, entries = consume_queue(v, b, q, p)
        passed = lowest(entries, max(start - min_offset, 0))
        if passed & ~v[F.H_DELIVERED] != 0:
            return False
    return True
