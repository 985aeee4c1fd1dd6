"""The fields of a model state, as indices into the unpacked field vector.

The kernel works on an ``int64`` vector ``v`` with one slot per field; the constants below are the slot
indices, fixed for every configuration (so the compiled kernel is shared by all configurations). A field
that does not exist in a configuration (slave 3 when ``slaves=1``) has bit width 0 in the layout
(:mod:`model.layout`) and stays 0, so it costs nothing in the packed state.

Indexed families are written ``BASE + i``: slaves ``s`` are 0-based (brokerId ``s + 1``), consumers ``c``
are 0-based (consumer ``c + 1`` in traces), queues ``q`` are queueIds, message ids are 1-based and stored
as bit ``m - 1`` of a message-set mask. A consumer's view of a queue (a "message queue", ``mq``) has
index ``c * MAX_QUEUES + q``. Broker consumer offsets are stored as ``offset + 1`` so that 0 means "no
entry" (``ConsumerOffsetManager#queryOffset`` answers -1).

Value kinds (``KIND_*``) tell the layout how many bits a field needs for a given configuration.
"""
from __future__ import annotations

from dataclasses import dataclass

MAX_SLAVES = 3
MAX_CONSUMERS = 3
MAX_QUEUES = 2
MAX_MESSAGES = 8

# value kinds: how wide a field is, given the configuration
KIND_BOOL = 0        # 0/1
KIND_MSGSET = 1      # a set of message ids, one bit per message
KIND_COUNT = 2       # 0..messages (log lengths, flushed prefix, push2SlaveMaxOffset, transfer position)
KIND_NEXT_MSG = 3    # 1..messages+1
KIND_LINK = 4        # 0..2 HA link state
KIND_WAIT = 5        # 0..2 producer wait state
KIND_QOFF = 6        # 0..queue capacity (a queue offset)
KIND_QOFF1 = 7       # 0..queue capacity+1 (a stored consumer offset + 1; 0 = absent)
KIND_BROKER = 8      # 0..slaves (a brokerId)
KIND_BUDGET = 9      # 0..the budget knob named by the field
KIND_BROKERS = 10    # a set of brokerIds 0..slaves, one bit per broker (a route)
KIND_FILE_OFFSET = 11   # 0..messages with commitlog files (a file start offset); absent with one unbounded file
KIND_EXPIRED = 12    # a set of message ids, only when retention can delete files

# which configuration dimension an indexed family runs over
DIM_ONE = 0
DIM_QUEUE = 1
DIM_SLAVE = 2
DIM_SLAVE_QUEUE = 3
DIM_CONSUMER = 4
DIM_MQ = 5           # consumer x queue
DIM_MESSAGE = 6      # only when queues == 2 (the recorded queue offset of each message)


@dataclass(frozen=True)
class FieldFamily:
    """A named family of fields: ``count`` consecutive slots starting at ``base``."""

    name: str
    base: int
    count: int
    dim: int
    kind: int
    budget_knob: str = ""


FAMILIES: list[FieldFamily] = []


def _family(name: str, dim: int, kind: int, budget_knob: str = "") -> int:
    count = {
        DIM_ONE: 1,
        DIM_QUEUE: MAX_QUEUES,
        DIM_SLAVE: MAX_SLAVES,
        DIM_SLAVE_QUEUE: MAX_SLAVES * MAX_QUEUES,
        DIM_CONSUMER: MAX_CONSUMERS,
        DIM_MQ: MAX_CONSUMERS * MAX_QUEUES,
        DIM_MESSAGE: MAX_MESSAGES,
    }[dim]
    base = FAMILIES[-1].base + FAMILIES[-1].count if FAMILIES else 0
    FAMILIES.append(FieldFamily(name, base, count, dim, kind, budget_knob))
    return base


# --- master (brokerId 0) and what the name server says of it ---------------------------------------
M_UP = _family("master.up", DIM_ONE, KIND_BOOL)
M_LOG = _family("master.commitlog", DIM_ONE, KIND_MSGSET)
M_FLUSHED = _family("master.flushed", DIM_ONE, KIND_COUNT)
M_MIN = _family("master.min_offset", DIM_ONE, KIND_FILE_OFFSET)
P2S = _family("master.push2slave_max_offset", DIM_ONE, KIND_COUNT)
M_OFF_MEM = _family("master.consumer_offset", DIM_QUEUE, KIND_QOFF1)
M_OFF_DISK = _family("master.consumer_offset_json", DIM_QUEUE, KIND_QOFF1)
# the name server's view of the group: the registered brokerIds, and whether the topic's queue data exists
NS_ROUTE = _family("nameserver.route", DIM_ONE, KIND_BROKERS)
NS_TOPIC = _family("nameserver.topic_route", DIM_ONE, KIND_BOOL)

# --- slaves ------------------------------------------------------------------------------------------
S_UP = _family("slave.up", DIM_SLAVE, KIND_BOOL)
S_LOG = _family("slave.commitlog", DIM_SLAVE, KIND_MSGSET)
S_FLUSHED = _family("slave.flushed", DIM_SLAVE, KIND_COUNT)
S_MIN = _family("slave.min_offset", DIM_SLAVE, KIND_FILE_OFFSET)
S_LINK = _family("slave.ha_link", DIM_SLAVE, KIND_LINK)
S_TRANSFER = _family("slave.next_transfer_from_where", DIM_SLAVE, KIND_COUNT)
S_HA_ADDR = _family("slave.ha_master_address", DIM_SLAVE, KIND_BOOL)
S_SYNC_ADDR = _family("slave.sync_master_address", DIM_SLAVE, KIND_BOOL)
S_OFF_MEM = _family("slave.consumer_offset", DIM_SLAVE_QUEUE, KIND_QOFF1)
S_OFF_DISK = _family("slave.consumer_offset_json", DIM_SLAVE_QUEUE, KIND_QOFF1)

# --- producer ----------------------------------------------------------------------------------------
P_NEXT = _family("producer.next_message", DIM_ONE, KIND_NEXT_MSG)
P_WAIT = _family("producer.waiting", DIM_ONE, KIND_WAIT)
P_ACKED = _family("producer.send_ok", DIM_ONE, KIND_MSGSET)
MSG_QO = _family("message.queue_offset", DIM_MESSAGE, KIND_QOFF)

# --- consumers -----------------------------------------------------------------------------------------
C_UP = _family("consumer.up", DIM_CONSUMER, KIND_BOOL)
C_ROUTE = _family("consumer.route", DIM_CONSUMER, KIND_BROKERS)
MQ_OWNED = _family("consumer.queue.owned", DIM_MQ, KIND_BOOL)
MQ_DROPPED = _family("consumer.queue.dropped", DIM_MQ, KIND_BOOL)
MQ_NEXT = _family("consumer.queue.next_offset", DIM_MQ, KIND_QOFF)
MQ_MEM = _family("consumer.queue.offset", DIM_MQ, KIND_QOFF1)
MQ_INFLIGHT = _family("consumer.queue.in_flight", DIM_MQ, KIND_MSGSET)
MQ_PQ_MAX = _family("consumer.queue.queue_offset_max", DIM_MQ, KIND_QOFF)
MQ_SUGGEST = _family("consumer.queue.suggest_broker_id", DIM_MQ, KIND_BROKER)
MQ_CORRECTION = _family("consumer.queue.pending_correction", DIM_MQ, KIND_QOFF1)
MQ_CORRECTION2 = _family("consumer.queue.later_correction", DIM_MQ, KIND_QOFF1)
MQ_ORPHANS = _family("consumer.queue.dropped_in_flight", DIM_MQ, KIND_MSGSET)

# --- history kept for the properties ---------------------------------------------------------------
H_DELIVERED = _family("history.delivered", DIM_ONE, KIND_MSGSET)
H_REDELIVERED = _family("history.redelivered", DIM_ONE, KIND_BOOL)
H_HIGH = _family("history.highest_committed", DIM_QUEUE, KIND_QOFF)
H_EXPIRED = _family("history.expired", DIM_ONE, KIND_EXPIRED)

# --- failure budgets used so far -------------------------------------------------------------------
B_MASTER_CRASH = _family("failures.master_crashes", DIM_ONE, KIND_BUDGET, "max_master_crashes")
B_MASTER_POWER = _family("failures.master_power_losses", DIM_ONE, KIND_BUDGET, "max_master_power_losses")
B_SLAVE_CRASH = _family("failures.slave_crashes", DIM_ONE, KIND_BUDGET, "max_slave_crashes")
B_SLAVE_POWER = _family("failures.slave_power_losses", DIM_ONE, KIND_BUDGET, "max_slave_power_losses")
B_CONSUMER_RESTART = _family("failures.consumer_restarts", DIM_ONE, KIND_BUDGET, "max_consumer_restarts")
B_HA_DISCONNECT = _family("failures.ha_disconnects", DIM_ONE, KIND_BUDGET, "max_ha_disconnects")
# not a failure: the bound on CleanCommitLogService's file deletions
B_FILE_DELETIONS = _family("retention.file_deletions", DIM_ONE, KIND_BUDGET, "max_file_deletions")

NFIELDS = FAMILIES[-1].base + FAMILIES[-1].count

# HA link states (HAClient / HAConnection as both sides see them)
LINK_DOWN = 0        # no connection
LINK_CONNECTED = 1   # connected, the slave has not reported yet (slaveRequestOffset == -1)
LINK_STREAMING = 2   # reported; the master pushes from nextTransferFromWhere

# producer wait states (a SYNC_MASTER send blocked in CommitLog#handleHA)
WAIT_NONE = 0
WAIT_HA_PUT_OK = 1          # flush was fine: SEND_OK if the slave acks
WAIT_HA_FLUSH_TIMEOUT = 2   # flush timed out: FLUSH_DISK_TIMEOUT stays whatever the slave does
