"""The push consumers (``client/impl/consumer``, ``client/consumer/store/RemoteBrokerOffsetStore``).

Consumer ``c`` holds its cached route (:mod:`model.routes`), and per queue ``q`` (``k = c * MAX_QUEUES + q``):
ownership, the ProcessQueue's dropped flag (set by OFFSET_ILLEGAL: no more pulls, consumption no longer
updates the offset), the pull position ``nextOffset``, the memory offset (``offset + 1``; 0 = no entry), the
messages pulled but not yet consumed, ``queueOffsetMax + 1``, the stored pull suggestion, the pending
OFFSET_ILLEGAL correction tasks (each the ``nextOffset + 1`` it will write; 0 = none; up to two, oldest
first), which live on whatever happens to the queue, and the messages of a ProcessQueue that was dropped
and removed, which the consume service still holds and delivers without updating any offset. A call to a
broker that is down (listed in a stale route) fails like any remoting exception and changes nothing.
"""
from __future__ import annotations


from .declare import BATCH, CONSUMER, QUEUE, Note, action
from explore.native import kernel
from .writes import put
from . import fields as F
from .events import (DISCARD, ENABLED, EV_SLAVE_SERVED_PULL, NOTE_BROKER_SHIFT, NOTE_SHIFT, OUT_COMMITTED,
                     OUT_DELIVERED, OUT_FOUND, OUT_NO_MATCHED_MSG, OUT_NO_NEW_MSG, OUT_OFFSET_ILLEGAL,
                     OUT_ONEWAY_LOST, OUT_PULL_FAILED, PRUNED, PRUNE_REASON_SHIFT,
                     PRUNE_THIRD_CORRECTION)
from .offsets import QUERY_NOT_FOUND, commit_offset, query_consumer_offset
from .routes import admin_broker, publish_broker_listed, refresh_route, subscribe_broker
from .slots import (K_CONSUMERS, K_GROUP_BROKER_ID, K_MAX_CONSUMER_RESTARTS, K_OFFSET_CHECK_IN_SLAVE, K_QUEUES, K_SLAVE_READ,
                    K_SLAVE_READ_IN_SLAVES, K_WHICH_BROKER, SLAVES_READ_AS_MASTER)
from .store import (GET_FOUND, GET_NO_MESSAGE_IN_QUEUE, GET_NOT_THIS_BATCH, GET_OFFSET_OVERFLOW_ONE, get_message,
                    queue_max, up_slot)

# PullMessageProcessor response codes
RESP_SUCCESS = 0
RESP_PULL_NOT_FOUND = 1
RESP_PULL_RETRY_IMMEDIATELY = 2
RESP_PULL_OFFSET_MOVED = 3


@kernel(inline=True)
def mq(c, q):
    return c * F.MAX_QUEUES + q


@kernel(inline=True)
def note(outcome, broker):
    return (outcome | (broker << NOTE_BROKER_SHIFT)) << NOTE_SHIFT


@kernel(inline=True)
def slave_read_enable(b, p):
    """``BrokerConfig#isSlaveReadEnable`` of broker ``b``, as ``PullMessageProcessor#processRequest`` reads
    it on the broker that serves the pull: the master's ``slave_read_enable``; a slave's own value
    (``slave_read_enable_in_slaves``, bit ``b`` of its parameter; the master's when AS_MASTER)."""
    if b == 0 or p[K_SLAVE_READ_IN_SLAVES] == SLAVES_READ_AS_MASTER:
        return p[K_SLAVE_READ] != 0
    return (p[K_SLAVE_READ_IN_SLAVES] >> b) & 1 == 1


@kernel
def increase_only(w, slot, offset):
    """``RemoteBrokerOffsetStore#updateOffset(mq, offset, increaseOnly=true)``: insert if absent, else
    ``MixAll#compareAndIncreaseOnly``."""
    if w[slot] == 0 or offset + 1 > w[slot]:
        put(w, slot, offset + 1)


@kernel
def allocated(v, c, q, p):
    """``AllocateMessageQueueAveragely#allocate`` over the live consumers, ordered by id."""
    live = 0
    index = 0
    for other in range(p[K_CONSUMERS]):
        if v[F.C_UP + other] != 0:
            if other < c:
                index += 1
            live += 1
    queues = p[K_QUEUES]
    if live == 0 or v[F.C_UP + c] == 0:
        return False
    mod = queues % live
    if queues <= live:
        average = 1
    elif mod > 0 and index < mod:
        average = queues // live + 1
    else:
        average = queues // live
    start = index * average if (mod > 0 and index < mod) else index * average + mod
    span = min(average, queues - start)
    for i in range(span):
        if (start + i) % queues == q:
            return True
    return False


@kernel
def persist_queue_offset(w, c, q, p):
    """``RemoteBrokerOffsetStore#persist(mq)``: a memory offset goes oneway (UPDATE_CONSUMER_OFFSET) to the
    admin broker; one to a dead broker is lost, and "broker not exist" is only logged."""
    k = mq(c, q)
    if w[F.MQ_MEM + k] == 0:
        return 0
    b = admin_broker(w, c, p)
    if b < 0:
        return 0
    if w[up_slot(b)] == 0:
        return note(OUT_ONEWAY_LOST, b)
    return commit_offset(w, b, q, w[F.MQ_MEM + k] - 1, p) | note(OUT_COMMITTED, b)


@kernel
def forget_queue(w, c, q):
    """The ProcessQueue is removed from the table and ``removeOffset(mq)`` drops the memory offset. The pull
    suggestion (``PullAPIWrapper.pullFromWhichNodeTable``) and pending correction tasks stay with the
    client; the messages the consume service already holds are still delivered, as a dropped queue's."""
    k = mq(c, q)
    put(w, F.MQ_ORPHANS + k, w[F.MQ_ORPHANS + k] | w[F.MQ_INFLIGHT + k])
    put(w, F.MQ_INFLIGHT + k, 0)
    put(w, F.MQ_OWNED + k, 0)
    put(w, F.MQ_DROPPED + k, 0)
    put(w, F.MQ_NEXT + k, 0)
    put(w, F.MQ_MEM + k, 0)
    put(w, F.MQ_PQ_MAX + k, 0)


@kernel
def compute_pull_from_where(w, c, q, p):
    """``RebalancePushImpl#computePullFromWhere`` with CONSUME_FROM_LAST_OFFSET.

    ``readOffset(READ_FROM_STORE)``: the admin broker's ``queryConsumerOffset`` (stored value, or 0, or
    QUERY_NOT_FOUND -> -1; a dead broker or "broker not exist" -> -2); a value >= 0 is also put in memory.
    -1 falls back to ``MQAdminImpl#maxOffset``, which asks only the master (``findBrokerAddressInPublish``,
    refreshing the route once if the master is not listed); any failure there, and -2, give -1: the queue
    is not taken this round.
    """
    b = admin_broker(w, c, p)
    read = -2
    if b >= 0 and w[up_slot(b)] != 0:
        read = query_consumer_offset(w, b, q, p)
    if read >= 0:
        put(w, F.MQ_MEM + mq(c, q), read + 1)
        return read
    if read == QUERY_NOT_FOUND:
        if publish_broker_listed(w, c, p) and w[F.M_UP] != 0:
            return queue_max(w, 0, q, p)
    return -1


@action("RefreshRoute", kind=13, actor="client", place=(CONSUMER, 0),
        phrase="a consumer refreshes its route from the name server",
        rocketmq="MQClientInstance#updateTopicRouteInfoFromNameServer")
@kernel
def refresh_route_action(v, w, c, p):
    """The client's periodic route refresh (every ``pollNameServerInterval``):
    ``MQClientInstance#updateTopicRouteInfoFromNameServer`` replaces the broker table by the name server's
    route, which lists each broker only while it is registered."""
    if v[F.C_UP + c] == 0:
        return 0
    refresh_route(w, c, p)
    return ENABLED


@action("Rebalance", kind=14, actor="client", place=(CONSUMER, 1),
        phrase="a consumer rebalances its queues", drawn=Note("consumer", "rebalance"),
        rocketmq="RebalanceImpl#updateProcessQueueTableInRebalance")
@kernel
def rebalance(v, w, c, p):
    """``RebalanceImpl#updateProcessQueueTableInRebalance`` for consumer ``c``.

    A queue no longer allocated is dropped: ``removeUnnecessaryMessageQueue`` persists its offset and
    removes it. A newly allocated queue gets ``removeDirtyOffset`` then ``computePullFromWhere``; a result
    >= 0 becomes the first ``PullRequest.nextOffset``, a negative one leaves the queue for the next round.
    A ProcessQueue that is dropped but still in the table (a pending OFFSET_ILLEGAL correction) stays.
    """
    if v[F.C_UP + c] == 0:
        return 0
    flags = ENABLED
    for q in range(p[K_QUEUES]):
        k = mq(c, q)
        want = allocated(v, c, q, p)
        if v[F.MQ_OWNED + k] != 0 and not want:
            flags |= persist_queue_offset(w, c, q, p)
            forget_queue(w, c, q)
        elif v[F.MQ_OWNED + k] == 0 and want:
            put(w, F.MQ_MEM + k, 0)
            start = compute_pull_from_where(w, c, q, p)
            if start >= 0:
                put(w, F.MQ_OWNED + k, 1)
                put(w, F.MQ_NEXT + k, start)
    return flags


@action("Pull", kind=15, actor="client", place=(CONSUMER, 2, QUEUE, 0, BATCH),
        phrase="a consumer pulls",
        rocketmq="PullMessageProcessor#processRequest")
@kernel
def pull(v, w, c, q, batch, p):
    """One pull of consumer ``c`` on queue ``q``, from routing to the ``PullCallback``.

    A FOUND pull returns a non-empty prefix of the queue from the pull offset (``getMessage``'s batch
    limits, :func:`model.store.batch_may_end`): ``Pull(consumer=c, queue=q)`` takes all of it (or finds
    nothing), ``Pull(consumer=c, queue=q, batch=k)`` exactly its first ``k`` messages.

    Client: the target is ``findBrokerAddressInSubscribe(suggestion)``; the commit flag is set when the
    memory offset is > 0 and the target is the master. Broker (``PullMessageProcessor#processRequest``):
    ``getMessage``; ``suggestWhichBrokerId`` = slaveReadEnable ? (slow ? whichBrokerWhenConsumeSlowly :
    group brokerId) : 0, with the serving broker's own slaveReadEnable (:func:`slave_read_enable`: a
    master's suggests a slave, a slave's decides whether it suggests itself or another slave again; the
    SLAVE-without-slaveReadEnable PULL_RETRY_IMMEDIATELY code is always overwritten, so such a slave still
    serves, and suggests the master); status -> response code; a PULL_OFFSET_MOVED on a slave
    without offsetCheckInSlave becomes PULL_RETRY_IMMEDIATELY with suggestion = group brokerId; commit on
    pull on the master whatever the status. A parked PULL_NOT_FOUND is answered later without committing
    again, so the round trip is one step. Client again: ``processPullResult`` stores the suggestion, then
    FOUND takes the messages and ``nextBeginOffset``; NO_NEW_MSG / NO_MATCHED_MSG take
    ``nextBeginOffset`` and ``correctTagsOffset`` (increase-only, if the ProcessQueue is empty);
    OFFSET_ILLEGAL takes ``nextBeginOffset`` and drops the ProcessQueue until the correction task runs.
    """
    k = mq(c, q)
    if v[F.C_UP + c] == 0 or v[F.MQ_OWNED + k] == 0 or v[F.MQ_DROPPED + k] != 0:
        return 0
    b = subscribe_broker(w, c, v[F.MQ_SUGGEST + k], p)
    if b < 0 or v[up_slot(b)] == 0:
        if batch > 0:
            return DISCARD      # the lookup's route refresh may have been written: not this variant
        return ENABLED | note(OUT_PULL_FAILED, max(b, 0))
    off = v[F.MQ_NEXT + k]
    memory_offset = v[F.MQ_MEM + k] - 1
    status, next_begin, ids, slow, pq_max = get_message(v, b, q, off, batch, p)
    if status == GET_NOT_THIS_BATCH:
        return DISCARD
    suggestion = 0
    if slave_read_enable(b, p):
        suggestion = p[K_WHICH_BROKER] if slow else p[K_GROUP_BROKER_ID]
    if status == GET_FOUND:
        response = RESP_SUCCESS
    elif status == GET_NO_MESSAGE_IN_QUEUE:
        response = RESP_PULL_OFFSET_MOVED if off != 0 else RESP_PULL_NOT_FOUND
    elif status == GET_OFFSET_OVERFLOW_ONE:
        response = RESP_PULL_NOT_FOUND
    else:
        response = RESP_PULL_OFFSET_MOVED
    if response == RESP_PULL_OFFSET_MOVED and b > 0 and p[K_OFFSET_CHECK_IN_SLAVE] == 0:
        response = RESP_PULL_RETRY_IMMEDIATELY
        suggestion = p[K_GROUP_BROKER_ID]
    flags = ENABLED
    if b == 0 and memory_offset > 0:
        flags |= commit_offset(w, 0, q, memory_offset, p)
    put(w, F.MQ_SUGGEST + k, suggestion)
    put(w, F.MQ_NEXT + k, next_begin)
    if response == RESP_SUCCESS:
        put(w, F.MQ_INFLIGHT + k, w[F.MQ_INFLIGHT + k] | ids)
        if pq_max > w[F.MQ_PQ_MAX + k]:
            put(w, F.MQ_PQ_MAX + k, pq_max)
        if b > 0:
            flags |= EV_SLAVE_SERVED_PULL
        return flags | note(OUT_FOUND, b)
    if response == RESP_PULL_OFFSET_MOVED:
        if v[F.MQ_CORRECTION2 + k] != 0:
            # two correction tasks already wait for this queue: a third one within their 10 s (the queue
            # dropped, given away and taken back twice meanwhile) is beyond the model's bounds, so this
            # one outcome of the pull is left out
            return DISCARD | PRUNED | (PRUNE_THIRD_CORRECTION << PRUNE_REASON_SHIFT)
        put(w, F.MQ_DROPPED + k, 1)
        if w[F.MQ_CORRECTION + k] == 0:
            put(w, F.MQ_CORRECTION + k, next_begin + 1)
        else:
            put(w, F.MQ_CORRECTION2 + k, next_begin + 1)
        return flags | note(OUT_OFFSET_ILLEGAL, b)
    if w[F.MQ_INFLIGHT + k] == 0:
        increase_only(w, F.MQ_MEM + k, next_begin)
    if response == RESP_PULL_NOT_FOUND:
        return flags | note(OUT_NO_NEW_MSG, b)
    return flags | note(OUT_NO_MATCHED_MSG, b)


@action("Consume", kind=16, actor="client", place=(CONSUMER, 2, QUEUE, 1),
        phrase="the consumer consumes a pulled message",
        rocketmq="ConsumeMessageConcurrentlyService#processConsumeResult")
@kernel
def consume(v, w, c, q, p):
    """``ConsumeMessageConcurrentlyService.ConsumeRequest#run``: the application consumes the ProcessQueue's
    messages (one batch), then ``ConsumeMessageConcurrentlyService#processConsumeResult`` raises the
    memory offset to ``ProcessQueue#removeMessage``'s result, ``queueOffsetMax + 1``, increase-only -
    unless the ProcessQueue is dropped, whose in-flight consumption no longer updates the offset."""
    k = mq(c, q)
    if v[F.C_UP + c] == 0 or v[F.MQ_INFLIGHT + k] == 0:
        return 0
    deliver(v, w, v[F.MQ_INFLIGHT + k])
    put(w, F.MQ_INFLIGHT + k, 0)
    if v[F.MQ_DROPPED + k] == 0:
        increase_only(w, F.MQ_MEM + k, v[F.MQ_PQ_MAX + k])
    return ENABLED | note(OUT_DELIVERED, 0)


@kernel
def deliver(v, w, ids):
    """The application receives ``ids``; the history notes first and repeated deliveries."""
    if ids & v[F.H_DELIVERED]:
        put(w, F.H_REDELIVERED, 1)
    put(w, F.H_DELIVERED, v[F.H_DELIVERED] | ids)


@action("ConsumeDropped", kind=27, actor="client", place=(CONSUMER, 2, QUEUE, 2),
        phrase="the consumer consumes a message of a dropped ProcessQueue",
        rocketmq="ConsumeMessageConcurrentlyService.ConsumeRequest#run")
@kernel
def consume_dropped(v, w, c, q, p):
    """``ConsumeMessageConcurrentlyService.ConsumeRequest#run`` finishing messages of a ProcessQueue that
    was dropped and removed (a rebalance gave the queue away, or the OFFSET_ILLEGAL task removed it): the
    application gets them, and ``processConsumeResult`` skips the offset update of a dropped queue."""
    k = mq(c, q)
    if v[F.C_UP + c] == 0 or v[F.MQ_ORPHANS + k] == 0:
        return 0
    deliver(v, w, v[F.MQ_ORPHANS + k])
    put(w, F.MQ_ORPHANS + k, 0)
    return ENABLED | note(OUT_DELIVERED, 0)


@action("PersistAllOffsets", kind=17, actor="client", place=(CONSUMER, 3),
        phrase="the consumer commits its offsets (persistAll) to the broker its route names",
        rocketmq="MQClientInstance#persistAllConsumerOffset")
@kernel
def persist_all_offsets(v, w, c, p):
    """``MQClientInstance#persistAllConsumerOffset`` -> ``RemoteBrokerOffsetStore#persistAll`` over the
    queues in the ProcessQueue table."""
    if v[F.C_UP + c] == 0:
        return 0
    flags = ENABLED
    for q in range(p[K_QUEUES]):
        if v[F.MQ_OWNED + mq(c, q)] != 0:
            flags |= persist_queue_offset(w, c, q, p)
    return flags


@action("CorrectIllegalOffset", kind=18, actor="client", place=(CONSUMER, 2, QUEUE, 3),
        phrase="the delayed OFFSET_ILLEGAL fix commits the broker's offset",
        rocketmq="RebalanceImpl#removeProcessQueue")
@kernel
def correct_illegal_offset(v, w, c, q, p):
    """The OFFSET_ILLEGAL task, 10 s after the pull, which runs whatever happened to the queue meanwhile:
    ``updateOffset(mq, nextOffset, false)`` (not monotonic), ``persist(mq)``, then
    ``RebalanceImpl#removeProcessQueue``: if the queue has a ProcessQueue (the dropped one, or a new one
    taken since), it is removed through ``removeUnnecessaryMessageQueue`` (persist again - the same value -
    and remove the memory offset). Without one, the memory entry only lingers until the next
    ``persistAll`` drops it unsent, so it is dropped at once."""
    k = mq(c, q)
    if v[F.C_UP + c] == 0 or v[F.MQ_CORRECTION + k] == 0:
        return 0
    put(w, F.MQ_CORRECTION + k, v[F.MQ_CORRECTION2 + k])   # the older task runs first
    put(w, F.MQ_CORRECTION2 + k, 0)
    put(w, F.MQ_MEM + k, v[F.MQ_CORRECTION + k])
    flags = ENABLED | persist_queue_offset(w, c, q, p)
    forget_queue(w, c, q)
    return flags


@action("ConsumerCrash", kind=25, actor="failure", place=(2, CONSUMER, 0),
        phrase="a consumer process is killed",
        when=lambda cfg: cfg.max_consumer_restarts > 0, rocketmq="RemoteBrokerOffsetStore#load")
@kernel
def consumer_crash(v, w, c, p):
    """A consumer process is killed: its memory offsets, ProcessQueues, pull suggestions and route are
    lost (``RemoteBrokerOffsetStore#load`` is a no-op, nothing survives a restart)."""
    if v[F.C_UP + c] == 0 or v[F.B_CONSUMER_RESTART] >= p[K_MAX_CONSUMER_RESTARTS]:
        return 0
    put(w, F.C_UP + c, 0)
    put(w, F.C_ROUTE + c, 0)
    for q in range(p[K_QUEUES]):
        forget_queue(w, c, q)
        k = mq(c, q)
        put(w, F.MQ_SUGGEST + k, 0)
        put(w, F.MQ_ORPHANS + k, 0)
        put(w, F.MQ_CORRECTION + k, 0)
        put(w, F.MQ_CORRECTION2 + k, 0)
    put(w, F.B_CONSUMER_RESTART, w[F.B_CONSUMER_RESTART] + 1)
    return ENABLED


@action("ConsumerRestart", kind=26, actor="failure", place=(2, CONSUMER, 1),
        phrase="a consumer restarts and reads its committed offset",
        when=lambda cfg: cfg.max_consumer_restarts > 0,
        rocketmq="MQClientInstance#updateTopicRouteInfoFromNameServer")
@kernel
def consumer_restart(v, w, c, p):
    """A crashed consumer starts: it fetches the route from the name server
    (``MQClientInstance#updateTopicRouteInfoFromNameServer``); its queues come back through ``Rebalance``."""
    if v[F.C_UP + c] != 0:
        return 0
    put(w, F.C_UP + c, 1)
    refresh_route(w, c, p)
    return ENABLED

