"""Consumer offsets in the controller mode: the 4.4 mode's four consumer properties
(:mod:`invariants.offsets`, :mod:`invariants.durability`), same names and same meanings, over the
controller mode's fields (``consumer_offsets = on``; docs/controller.md, "Consumer offsets").

They apply only with ``consumer_offsets = on``. With it off no offset is committed and nothing here has
anything to check: the always properties hold (as the 4.4 mode's slave properties do with no slave) and
the eventually property's trigger never occurs ("holds vacuously: its trigger never occurs").

What a consumer (re)starting now would be told is read here from the fields, apart from the model's own
routing and store code (:mod:`model.controller.offsets`): the brokers it may ask are those a route lists at
brokerId 0 (a running, unfenced broker in the master role; a deposed one still counts, as the name
server may still list it), or, when none is, every listed broker (a running, unfenced slave). Each of them
is checked: the route the consumer refreshes may name any.
"""
from __future__ import annotations

from model.controller import fields as F
from model.controller.params import P_BROKERS, P_CONSUMER_OFFSETS, P_MESSAGES, P_QUEUES
from explore.native import kernel

from .declare import check
from .observations import field, writer
from ..base import ALWAYS, EVENTUALLY

NOT_FOUND = -1   # ConsumerManageProcessor's QUERY_NOT_FOUND


@kernel
def asked_at_restart(v, b, p):
    """Broker ``b`` may be the one a consumer starting now asks for its offset
    (``RemoteBrokerOffsetStore#fetchConsumeOffsetFromBroker``): a master the route lists, or, with no
    master listed, any listed broker."""
    if writer(v, b):
        return True
    if field(v, b, F.B_UP) == 0 or field(v, b, F.B_FENCED) == 1:
        return False
    for c in range(p[P_BROKERS]):
        if writer(v, c):
            return False
    return True


@kernel(inline=True)
def record_at(v, b, i, p):
    """(queueId, queueOffset) of broker ``b``'s record at position ``i`` (one queue: 0, the position)."""
    if p[P_QUEUES] == 1:
        return 0, i
    return v[F.LOG_QUEUE + b * F.MAX_MESSAGES + i], v[F.LOG_QOFF + b * F.MAX_MESSAGES + i]


@kernel
def committed_offset(v, b, q, p):
    """``ConsumerManageProcessor#queryConsumerOffset`` on broker ``b``: its stored offset of queue ``q``;
    without one, 0 when its consume queue ``q`` has entry 0 (dispatched), else QUERY_NOT_FOUND."""
    stored = v[F.OFF_MEM + b * F.MAX_QUEUES + q]
    if stored != 0:
        return stored - 1
    for i in range(field(v, b, F.B_REPUT)):
        rq, ro = record_at(v, b, i, p)
        if rq == q and ro == 0:
            return 0
    return NOT_FOUND


@kernel
def stored_anywhere(v, p):
    """The message ids in some broker's commitlog (running or not: its page cache or disk)."""
    held = 0
    for b in range(p[P_BROKERS]):
        for i in range(field(v, b, F.B_LEN)):
            m = field(v, b, F.B_LOG_MSG + i)
            if m > 0:
                held |= 1 << (m - 1)
    return held


@check(kind=ALWAYS, summary="every message delivered to a consumer is still stored on some broker",
       reads=r"\.commitlog$|^history\.delivered$")
@kernel
def consumed_message_never_lost(v, p):
    """Every message already delivered to a consumer's application is still stored on some broker (in the
    commitlog of any broker, running or not). A consumer reads up to the master's confirmOffset, so it can
    see a message that a failover and the truncation of the old master (or a power loss) then erase
    everywhere: the application acted on a message the cluster no longer has. Only with
    consumer_offsets=on."""
    if p[P_CONSUMER_OFFSETS] == 0:
        return True
    return v[F.H_DELIVERED] & ~stored_anywhere(v, p) == 0


@check(kind=ALWAYS, summary="a restarting consumer never reads an offset below the highest the group committed",
       reads=r"consumerOffset\[|^history\.highestCommitted|\.up$|\.fenced$|\.role$|\.dispatched$")
@kernel
def committed_offset_never_regresses(v, p):
    """The committed offset a consumer (re)starting now would read - ``queryConsumerOffset`` on the broker
    its fresh route points to: a master the name server lists, else a listed slave - never falls below
    the highest offset the group had already committed for that queue. When it is lower, the group
    consumes again what it had acknowledged; the controller mode gets there when a broker restarts with
    an old consumerOffset.json, when a new master's table is its last ``SlaveSynchronize`` copy, older than
    the commits the old master took, or when a pull corrects an offset past a new master's max down to it.
    A broker that answers QUERY_NOT_FOUND gives no offset to compare. Only with consumer_offsets=on."""
    if p[P_CONSUMER_OFFSETS] == 0:
        return True
    for b in range(p[P_BROKERS]):
        if not asked_at_restart(v, b, p):
            continue
        for q in range(p[P_QUEUES]):
            read = committed_offset(v, b, q, p)
            if read >= 0 and read < v[F.H_HIGH + q]:
                return False
    return True


@check(kind=ALWAYS, summary="every queue position the committed offset has passed was delivered at least once",
       reads=r"consumerOffset\[|^history\.delivered$|\.commitlog$|\.dispatched$|\.queueOffsets$|\.role$")
@kernel
def no_message_skipped(v, p):
    """At-least-once delivery: once the group's committed offset has passed a position of the queue, the
    message at that position has been delivered at least once. The group's committed offset is what a
    consumer (re)starting now would be told (``queryConsumerOffset`` on a master the name server lists,
    else on a listed slave: the stored offset, or 0 for a queue whose entry 0 is readable), and the
    positions are those of that broker's consume queue (its dispatched records, by queue offset). It
    breaks when the offset points past messages nobody consumed, e.g. an offset committed on the old
    master while a failover made the new master give those queue offsets to other messages. A broker
    without an offset for the group (QUERY_NOT_FOUND) makes no claim. Only with consumer_offsets=on."""
    if p[P_CONSUMER_OFFSETS] == 0:
        return True
    for b in range(p[P_BROKERS]):
        if not asked_at_restart(v, b, p):
            continue
        for q in range(p[P_QUEUES]):
            start = committed_offset(v, b, q, p)
            for i in range(field(v, b, F.B_REPUT)):
                rq, ro = record_at(v, b, i, p)
                m = field(v, b, F.B_LOG_MSG + i)
                if rq == q and ro < start and m > 0 and not v[F.H_DELIVERED] >> (m - 1) & 1:
                    return False
    return True


@kernel
def delivered(v, p):
    """Q of ``acked_message_eventually_consumed``: the messages delivered to the application."""
    return v[F.H_DELIVERED]


@check(kind=EVENTUALLY, summary="every SEND_OK message is eventually delivered to the application",
       leads_to=delivered, over="messages")
@kernel
def acked_message_eventually_consumed(v, p):
    """At-least-once delivery, as RocketMQ sells it: every message the producer was told SEND_OK for is,
    sooner or later, delivered to the consumer's application, on every fair run: the periodic tasks
    (reput, HA push, heartbeats, elections, metadata polls, pulls, offset commits and syncs, restarts of
    brokers) keep running, while crashes, power losses, outages, lost links and replies, HA disconnects and
    consumer restarts happen at most as often as their budgets allow and need not happen at all. It fails
    when a SEND_OK message is lost (a failover to a broker that never had it), or when the consumer's
    offset passes it without delivering it (a committed offset beyond what a new master gave that queue
    offset to), or when the consumer can stay stuck for ever without pulling it (the counterexample is a
    lasso: a path and a cycle repeated for ever, along which the message is never delivered). Ranges over
    messages: checked for each one. Only with consumer_offsets=on (off: its trigger never occurs)."""
    if p[P_CONSUMER_OFFSETS] == 0:
        return 0
    return v[F.ACKED] & ((1 << p[P_MESSAGES]) - 1)
