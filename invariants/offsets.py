"""Consumer offsets: what a consumer (re)starting now would be told, against what the group achieved."""
from __future__ import annotations


from model import fields as F
from model.bits import count, lowest
from explore.native import kernel
from model.slots import K_QUEUES

from .declare import ALWAYS, EVENTUALLY, check
from .observations import broker_up, committed_offset, queue_entries, restart_broker


@check(kind=ALWAYS, summary="a restarting consumer never reads an offset below the highest the group committed",
       reads=r"consumerOffset\[|^history\.highestCommitted|^nameserver\.|\.up$|\.route$")
@kernel
def committed_offset_never_regresses(v, p):
    """The committed offset a consumer (re)starting now would read - ``queryConsumerOffset`` on the broker
    its fresh route points to: the master if the name server lists it, else slave 1 - never falls below
    the highest offset the group had already committed for that queue. When the offset a restart reads is
    lower, the group consumes again what it had acknowledged; 4.4 gets there when a master restarts with
    an old consumerOffset.json, when the slave that took commits meanwhile is overwritten by
    ``SlaveSynchronize``, or when an OFFSET_ILLEGAL correction moves the offset back. A broker that is down
    or answers QUERY_NOT_FOUND gives no offset to compare."""
    b = restart_broker(v, p)
    if b < 0 or not broker_up(v, b):
        return True
    for q in range(p[K_QUEUES]):
        read = committed_offset(v, b, q, p)
        if read >= 0 and read < v[F.H_HIGH + q]:
            return False
    return True


@check(kind=ALWAYS, summary="every queue position the committed offset has passed was delivered at least once",
       reads=r"consumerOffset\[|^history\.delivered$|^history\.highestCommitted|\.commitlog$")
@kernel
def no_message_skipped(v, p):
    """At-least-once delivery: once the group's committed offset has passed a position of the queue, the
    message at that position has been delivered at least once. The group's committed offset is what a
    consumer (re)starting now would be told (``queryConsumerOffset`` on the master if the name server
    lists it, else on slave 1: the stored offset, or 0 for a young queue), and the positions are those of
    that broker's queue. It breaks when the offset points past messages nobody consumed, e.g. an offset
    kept while a power loss made the master re-use those queue offsets for new messages. A broker without
    an offset for the group (QUERY_NOT_FOUND) makes no claim: the consumer then starts at the queue's end
    by design (CONSUME_FROM_LAST_OFFSET), and so does a message retention deleted before anyone consumed
    it (deletion by age is by design)."""
    b = restart_broker(v, p)
    if b < 0 or not broker_up(v, b):
        return True
    for q in range(p[K_QUEUES]):
        start = committed_offset(v, b, q, p)
        if start < 0:
            continue
        first_offset, entries = queue_entries(v, b, q, p)
        passed = lowest(entries, max(start - first_offset, 0))
        if passed & ~(v[F.H_DELIVERED] | v[F.H_EXPIRED]) != 0:
            return False
    return True


@kernel
def consumption_complete(v, p):
    """Q of ``consumption_eventually_completes``: on the broker a consumer (re)starting now asks for its
    offset, which must be up, every queue's committed offset has reached that queue's max offset (a
    broker answering QUERY_NOT_FOUND sends a restarting consumer to the queue's end: nothing is left)."""
    b = restart_broker(v, p)
    if b < 0 or not broker_up(v, b):
        return 0
    for q in range(p[K_QUEUES]):
        read = committed_offset(v, b, q, p)
        if read < 0:
            continue
        first_offset, entries = queue_entries(v, b, q, p)
        if read < first_offset + count(entries):
            return 0
    return 1


@check(kind=EVENTUALLY, summary="infinitely often every queue's committed offset reaches its max offset",
       leads_to=consumption_complete)
@kernel
def consumption_eventually_completes(v, p):
    """No consumer is stuck for ever: on every fair run, infinitely often the committed offset of every
    queue - as a consumer (re)starting now would read it with ``queryConsumerOffset`` from the broker its
    fresh route names (the master if the name server lists it, else the lowest slave) - has reached that
    queue's max offset on that broker, which is up. A consumer that pulls, consumes and persists its
    offsets gets there; one that an OFFSET_ILLEGAL correction, a stale route or an offset above a restarted
    master's max offset keeps from ever committing the end breaks it (the counterexample is a lasso, the
    cycle the consumer is stuck in)."""
    return 1
