"""Consumer offsets in the controller mode (``consumer_offsets = on``; issue 48 item 4, the reading in
docs/controller.md, "Consumer offsets"): the group's ``ConsumerOffsetManager`` table on every broker, in
memory and in consumerOffset.json; the consumer's commits (``RemoteBrokerOffsetStore#persistAll``), the
slaves' copy of the master's table (``SlaveSynchronize#syncConsumerOffset``), the brokers' persist, and a
consumer restart that reads the committed offset (``RebalancePushImpl#computePullFromWhereWithException``).

One topic and one consumer group make one ``topic@group`` key; its per-queue map is a field per broker and
queue (:data:`model.controller.fields.OFF_MEM`, ``OFF_JSON``), stored as offset + 1 so that 0 is "no
entry". The consumer's in-memory offset of a queue is its next offset (``consumer.nextOffset``, queue 1's
``consumer.nextOffset1``): the model's consumer consumes what it pulls. With the knob off no action here
is in the table and every field stays 0.

Where the brokers' routes are read (the commit's and the restart's target, the slave's ``masterAddr``),
the name server's brokerId-0 entry is any broker in the master role, as everywhere in this mode
(docs/controller.md, "Abstractions"): a running, unfenced master, possibly a deposed one.
"""
from __future__ import annotations

from ..declare import Arrow, Note
from explore.native import kernel
from . import fields as F
from .declare import BROKER, MASTER, SLAVE, action
from .params import P_BROKERS, P_CONSUMER_OFFSETS, P_MAX_CONSUMER, P_QUEUES
from .state import accepts_writes, bg, record_queue, record_queue_offset

OK = 1
#: ``ResponseCode.QUERY_NOT_FOUND`` of ``ConsumerManageProcessor#queryConsumerOffset``
QUERY_NOT_FOUND = -1


@kernel(inline=True)
def offset_slot(b, q):
    """Broker ``b``'s in-memory entry for queue ``q`` (offset + 1, 0: none)."""
    return F.OFF_MEM + b * F.MAX_QUEUES + q


@kernel(inline=True)
def offset_json_slot(b, q):
    """Broker ``b``'s consumerOffset.json entry for queue ``q`` (offset + 1, 0: none)."""
    return F.OFF_JSON + b * F.MAX_QUEUES + q


@kernel(inline=True)
def consumer_offset_slot(q):
    """The consumer's in-memory offset of queue ``q`` (``RemoteBrokerOffsetStore.offsetTable``)."""
    return F.C_NEXT if q == 0 else F.C_NEXT1


@kernel(inline=True)
def registered(w, b):
    """Broker ``b`` is in the name server's route: running and unfenced (an isolated broker does not
    register, ``BrokerController#start``; a crashed one is removed when its channel closes)."""
    return bg(w, b, F.B_UP) == 1 and bg(w, b, F.B_FENCED) == 0


@kernel
def master_listed(w, params):
    """Some broker is listed at brokerId 0: a running, unfenced broker in the master role."""
    for b in range(params[P_BROKERS]):
        if accepts_writes(w, b):
            return True
    return False


@kernel
def route_target(w, b, params):
    """``MQClientInstance#findBrokerAddressInSubscribe(brokerName, MASTER_ID, false)``: broker ``b`` is the
    master the route lists at brokerId 0, or, when no master is listed, a listed slave (the first map
    entry; the model lets it be any). The commit's target (``RemoteBrokerOffsetStore#updateConsumeOffsetToBroker``)
    and, after a route refresh, the restart's (``#fetchConsumeOffsetFromBroker``)."""
    if accepts_writes(w, b):
        return True
    return registered(w, b) and not master_listed(w, params)


@kernel
def commit_offset(w, b, q, offset):
    """``ConsumerOffsetManager#commitOffset`` on broker ``b``: a plain overwrite (a smaller value only logs
    "[NOTIFYME]update consumer offset less than store"; ``ConsumerManageProcessor#updateConsumerOffset``
    has no role check, so a slave stores it too); records the group's highest committed offset."""
    w[offset_slot(b, q)] = offset + 1
    if offset > w[F.H_HIGH + q]:
        w[F.H_HIGH + q] = offset


@kernel
def queue_max(w, b, q, params):
    """``DefaultMessageStore#getMaxOffsetInQueue``: 1 + the queueOffset of broker ``b``'s last dispatched
    record of queue ``q`` (its consume queue), 0 when there is none."""
    top = 0
    for i in range(bg(w, b, F.B_REPUT)):
        if record_queue(w, b, i, params) == q:
            top = record_queue_offset(w, b, i, params) + 1
    return top


@kernel
def offset_zero_readable(w, b, q, params):
    """``DefaultMessageStore#checkInMemByConsumeOffset(topic, q, 0, 1)``: broker ``b``'s consume queue ``q``
    has its entry 0 (the page cache is taken as holding it: the simplest reading)."""
    for i in range(bg(w, b, F.B_REPUT)):
        if record_queue(w, b, i, params) == q and record_queue_offset(w, b, i, params) == 0:
            return True
    return False


@kernel
def query_consumer_offset(w, b, q, params):
    """``ConsumerManageProcessor#queryConsumerOffset`` on broker ``b``: the stored offset
    (``ConsumerOffsetManager#queryOffset``); without one, 0 when the queue's min offset is <= 0 (always: no
    retention here) and its entry 0 is in memory; else QUERY_NOT_FOUND."""
    stored = w[offset_slot(b, q)] - 1
    if stored >= 0:
        return stored
    if offset_zero_readable(w, b, q, params):
        return 0
    return QUERY_NOT_FOUND


@kernel
def persist_table(w, b, params):
    """``ConfigManager#persist`` of consumerOffset.json: the file takes the in-memory table."""
    for q in range(params[P_QUEUES]):
        w[offset_json_slot(b, q)] = w[offset_slot(b, q)]


@kernel
def load_table(w, b, params):
    """What a broker process's death does to its table: it lived in memory, and the next process loads
    consumerOffset.json (``ConfigManager#load`` in ``BrokerController#initialize``). Done when the process
    dies rather than when it starts (nothing reads a dead broker's table), so that a dead broker carries
    one value, not two. The file survives a power loss too (``MixAll#string2File`` has no fsync; taken as
    written back, as the epoch file and the checkpoint are)."""
    if params[P_CONSUMER_OFFSETS] == 0:
        return
    for q in range(params[P_QUEUES]):
        w[offset_slot(b, q)] = w[offset_json_slot(b, q)]


@kernel(inline=True)
def note_delivered(w, m, params):
    """The history the offset properties read: message ``m`` was delivered to the application."""
    if params[P_CONSUMER_OFFSETS] == 1 and m > 0:
        w[F.H_DELIVERED] |= 1 << (m - 1)


@action("PersistAllOffsets", kind=40, actor="client", section="pull", place=(BROKER, 40),
        when=lambda cfg: cfg.consumer_offsets == "ON", rocketmq="RemoteBrokerOffsetStore#persistAll",
        phrase="the consumer commits its offsets (persistAll) to the broker its route names",
        drawn=Arrow("consumer", "broker", "commit offsets"))
@kernel
def persist_all_offsets(w, b, params):
    """``MQClientInstance#persistAllConsumerOffset`` (every ``persistConsumerOffsetInterval``, 5 s) ->
    ``RemoteBrokerOffsetStore#persistAll`` -> ``#updateConsumeOffsetToBroker`` for each queue, oneway, to
    ``findBrokerAddressInSubscribe(brokerName, MASTER_ID, false)`` (:func:`route_target`: the master, else a
    slave); the broker stores it (``ConsumerManageProcessor#updateConsumerOffset`` ->
    ``ConsumerOffsetManager#commitOffset``, an overwrite). Both queues in one step; a lost oneway request is
    not modelled (it is a commit that did not happen yet)."""
    if not route_target(w, b, params):
        return 0
    for q in range(params[P_QUEUES]):
        commit_offset(w, b, q, w[consumer_offset_slot(q)])
    return OK


@action("ConsumerCrashRestart", kind=41, actor="failure", section="pull", place=(BROKER, 41),
        when=lambda cfg: cfg.consumer_offsets == "ON" and cfg.max_consumer_restarts > 0,
        rocketmq="RebalancePushImpl#computePullFromWhereWithException",
        phrase="the consumer process is killed and restarts, reading its committed offset from a broker",
        drawn=Arrow("consumer", "broker", "restart: query offset"))
@kernel
def consumer_restart(w, b, params):
    """The consumer process is killed (its offsets not yet committed are lost: no ``persistAll`` at a
    kill -9) and starts again; rebalance gives it the queues and
    ``RebalancePushImpl#computePullFromWhereWithException`` (``CONSUME_FROM_LAST_OFFSET``, the default) reads
    each queue's offset with ``RemoteBrokerOffsetStore#readOffset(READ_FROM_STORE)`` ->
    ``#fetchConsumeOffsetFromBroker``: the master only, else after a route refresh any listed broker
    (:func:`route_target`, broker ``b``), answered by :func:`query_consumer_offset`. Found: the consumer
    starts there. QUERY_NOT_FOUND: ``MQAdminImpl#maxOffset`` asks the master
    (``findBrokerAddressInPublish``, brokerId 0 only) for the consume queue's max and starts there; with no
    master listed that throws and the queue is not taken this round (the step is not enabled: the consumer
    restarts later). The crash and the start are one step: while it is down the consumer does nothing, and
    its death changes no broker. Budget ``max_consumer_restarts``."""
    if w[F.USED_CONSUMER] >= params[P_MAX_CONSUMER] or not route_target(w, b, params):
        return 0
    for q in range(params[P_QUEUES]):
        read = query_consumer_offset(w, b, q, params)
        if read < 0:
            if not accepts_writes(w, b):
                return 0
            read = queue_max(w, b, q, params)
        w[consumer_offset_slot(q)] = read
    w[F.USED_CONSUMER] += 1
    return OK


@action("SlaveSyncAll", kind=42, actor="ha", section="broker", place=(SLAVE, 40, MASTER),
        when=lambda cfg: cfg.consumer_offsets == "ON", only=lambda args: args["slave"] != args["master"],
        rocketmq="SlaveSynchronize#syncConsumerOffset",
        phrase="a slave's syncAll copies the master's consumer offsets over its own",
        drawn=(Arrow("slave", "master", "sync offsets"), Arrow("master", "slave", "offset table", reply=True)))
@kernel
def slave_sync_all(w, s, m, params):
    """``SlaveSynchronize#syncAll`` -> ``SlaveSynchronize#syncConsumerOffset`` on slave ``s`` (the task
    ``ReplicasManager#handleSlaveSynchronize`` schedules in the full ``changeToSlave`` path, every 3 s once
    10 s passed; cancelled by ``changeToMaster``): ``masterAddr`` is the master the controller or a name
    server reply named, any broker in the master role here (a deposed one too), never ``s`` itself;
    ``getAllConsumerOffset`` from it (no role check on the answering broker), then
    ``getOffsetTable().putAll(...)``: the master's map replaces the slave's for the group's key (a queue the
    master has no entry for loses the slave's; a master without the key leaves the slave's map), and
    ``ConsumerOffsetManager#persist``."""
    if s == m or not registered(w, s) or bg(w, s, F.B_MASTER) == 1 or bg(w, s, F.B_EPOCH) == 0:
        return 0
    if not accepts_writes(w, m):
        return 0
    has_key = False
    for q in range(params[P_QUEUES]):
        if w[offset_slot(m, q)] != 0:
            has_key = True
    if has_key:
        for q in range(params[P_QUEUES]):
            w[offset_slot(s, q)] = w[offset_slot(m, q)]
    persist_table(w, s, params)
    return OK


@action("PersistConsumerOffset", kind=43, actor="store", section="broker", place=(BROKER, 41),
        when=lambda cfg: cfg.consumer_offsets == "ON", rocketmq="ConsumerOffsetManager#persist",
        phrase="a broker writes consumerOffset.json", drawn=Note("broker", "persist offsets"))
@kernel
def persist_consumer_offset(w, b, params):
    """``ConsumerOffsetManager#persist`` (``ConfigManager#persist``), every ``flushConsumerOffsetInterval``
    (5 s) on a running broker, master or slave: consumerOffset.json takes the in-memory table."""
    if bg(w, b, F.B_UP) == 0:
        return 0
    persist_table(w, b, params)
    return OK
