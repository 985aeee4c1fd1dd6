"""The fields of a controller-mode state and their fixed bit layout.

The kernel works on an ``int64`` field vector (one slot per field, indices below); the packed state is
that vector in a few ``uint64`` words, each field a bit range inside one word. The layout is fixed for the
largest configuration (3 brokers, 3 messages): a smaller configuration leaves the fields it does not use
at 0. Brokers ``b`` are 0-based (controller id ``b + 1``); message ids are 1-based (0 = none); log
positions stand for commitlog offsets, one message each (§9.2 of the mechanisms page: bytes -> messages).
"""
from __future__ import annotations

import numpy as np

MAX_BROKERS = 3
MAX_MESSAGES = 3
MAX_EPOCH_ENTRIES = 4

_FIELDS: list[tuple[str, int]] = []


def _field(name: str, width: int) -> int:
    _FIELDS.append((name, width))
    return len(_FIELDS) - 1


def _family(name: str, count: int, width: int) -> int:
    base = len(_FIELDS)
    for i in range(count):
        _field(f"{name}[{i}]", width)
    return base


# -- controller (ReplicasInfoManager's SyncStateInfo of the one group, plus availability) ------------------
CTL_UP = _field("controller.up", 1)
CTL_MASTER = _field("controller.masterBrokerId", 2)        # 0 = none, else controller id
CTL_EPOCH = _field("controller.masterEpoch", 3)
CTL_SSS = _field("controller.syncStateSet", 3)             # bit b = controller id b + 1
CTL_SSS_EPOCH = _field("controller.syncStateSetEpoch", 4)
# -- producer and consumer --------------------------------------------------------------------------------
P_NEXT = _field("producer.next", 2)            # index of the message being sent (0-based)
P_WAIT = _field("producer.waiting", 1)         # a put waits in GroupTransferService
P_WAIT_BROKER = _field("producer.waitBroker", 2)
P_WAIT_END = _field("producer.waitEnd", 2)     # the put's end offset
ACKED = _field("producer.sendOk", 3)           # message ids answered SEND_OK, bit m - 1
C_NEXT = _field("consumer.nextOffset", 2)
DELIVERED = _family("consumer.delivered", MAX_MESSAGES, 2)   # per queue offset, the message delivered there
# -- failure budgets used ---------------------------------------------------------------------------------
USED_CRASH = _field("budget.crashes", 2)
USED_POWER = _field("budget.powerLosses", 2)
USED_OUTAGE = _field("budget.controllerOutages", 2)
USED_LINK = _field("budget.linkLosses", 2)
USED_HA = _field("budget.haDisconnects", 2)
GLOBAL_FIELDS = len(_FIELDS)

# -- per broker: offsets within a broker's block ----------------------------------------------------------
_BROKER: list[tuple[str, int]] = [
    ("up", 1), ("fenced", 1), ("master", 1), ("masterEpoch", 3),
    ("syncStateSet", 3), ("syncStateSetEpoch", 4), ("synchronizing", 1), ("remoteSyncStateSet", 3),
    ("alterPending", 1), ("maxOffset", 2), ("flushed", 2), ("confirmOffset", 2),
    ("haMaster", 2), ("slaveAckOffset", 3), ("ctlAlive", 1), ("ctlLinkDown", 1), ("epochEntries", 3),
    ("dispatched", 2),
] + [(f"commitlog.msg[{i}]", 2) for i in range(MAX_MESSAGES)] \
  + [(f"commitlog.epoch[{i}]", 3) for i in range(MAX_MESSAGES)] \
  + [(f"epochFile.epoch[{i}]", 3) for i in range(MAX_EPOCH_ENTRIES)] \
  + [(f"epochFile.start[{i}]", 2) for i in range(MAX_EPOCH_ENTRIES)]
B_UP, B_FENCED, B_MASTER, B_EPOCH, B_SSS, B_SSS_EPOCH, B_SYNCING, B_REMOTE, B_PENDING, B_LEN, B_FLUSHED, \
    B_CONFIRM, B_CONN, B_ACK, B_ALIVE, B_LINK_DOWN, B_EF_N, B_REPUT = range(18)
B_LOG_MSG = 18
B_LOG_EP = B_LOG_MSG + MAX_MESSAGES
B_EF_EP = B_LOG_EP + MAX_MESSAGES
B_EF_START = B_EF_EP + MAX_EPOCH_ENTRIES
STRIDE = len(_BROKER)
BROKER_BASE = GLOBAL_FIELDS
for _b in range(MAX_BROKERS):
    for _name, _width in _BROKER:
        _field(f"broker{_b + 1}.{_name}", _width)
# -- appended after the brokers' blocks (so every earlier index stays): a put's two futures under
# flushDiskType=SYNC_FLUSH (CommitLog#handleDiskFlushAndHA); both stay 0 with ASYNC_FLUSH
P_FLUSH_WAIT = _field("producer.flushWaiting", 1)      # the put's GroupCommitRequest is not yet flushed
P_REPLICAS_DONE = _field("producer.replicasAcked", 1)  # the put's replica future completed PUT_OK
# -- with queues = 2 only (issue 48 item 3; all 0 with one queue, where a queue offset is the position):
# each record's queueId and queueOffset (CommitLog#asyncPutMessage writes them into the record; a slave
# copies them), per broker ``b`` at LOG_QUEUE + b * MAX_MESSAGES + position; the consumer's second queue
MAX_QUEUES = 2
LOG_QUEUE = len(_FIELDS)
for _b in range(MAX_BROKERS):
    _family(f"broker{_b + 1}.commitlog.queueId", MAX_MESSAGES, 1)
LOG_QOFF = len(_FIELDS)
for _b in range(MAX_BROKERS):
    _family(f"broker{_b + 1}.commitlog.queueOffset", MAX_MESSAGES, 2)
C_NEXT1 = _field("consumer.nextOffset1", 2)                    # queue 1's next offset (queue 0: C_NEXT)
DELIVERED1 = _family("consumer.delivered1", MAX_MESSAGES, 2)   # queue 1's, per queue offset
# -- with consumer_offsets = on only (issue 48 item 4; all 0 with it off; model/controller/offsets.py): per
# broker ``b`` and queue ``q`` the group's ConsumerOffsetManager entry, in memory (OFF_MEM + b * MAX_QUEUES + q)
# and in consumerOffset.json (OFF_JSON + ...), each stored as offset + 1 (0: no entry); what the group ever
# committed and consumed (history, for the properties); the consumer restarts used
OFF_MEM = len(_FIELDS)
for _b in range(MAX_BROKERS):
    _family(f"broker{_b + 1}.consumerOffset", MAX_QUEUES, 3)
OFF_JSON = len(_FIELDS)
for _b in range(MAX_BROKERS):
    _family(f"broker{_b + 1}.consumerOffsetJson", MAX_QUEUES, 3)
H_HIGH = _family("history.highestCommitted", MAX_QUEUES, 2)   # the highest offset the group committed, per queue
H_DELIVERED = _field("history.delivered", MAX_MESSAGES)        # message ids ever delivered, bit m - 1
USED_CONSUMER = _field("budget.consumerRestarts", 2)
# -- with name_servers >= 1 only (issue 48 item 1, model/controller/namesrv.py; all 0 without): per name
# server n, RouteInfoManager's tables for the one group reduced to the brokerId-0 entry (the broker listed
# there + 1, 0 = none), the stateVersion of that broker's live registration, and the brokers with a live
# registration (brokerLiveTable; bit b = controller id b + 1); each client's route snapshot (the broker its
# route lists at brokerId 0 + 1, 0 = none); the name-server failure budgets used
MAX_NAMESRV = 2
NS_MASTER = _family("nameserver.master", MAX_NAMESRV, 2)
NS_VERSION = _family("nameserver.stateVersion", MAX_NAMESRV, 3)
NS_LIVE = _family("nameserver.live", MAX_NAMESRV, 3)
P_ROUTE = _field("producer.route", 2)
C_ROUTE = _field("consumer.route", 2)
USED_NS_RESTART = _field("budget.nameserverRestarts", 2)
USED_NS_CUTOFF = _field("budget.nameserverCutoffs", 2)
# the HA address a slave's HA client connects to (AutoSwitchHAClient.masterHaAddress), + 1, 0 = none: set from
# a name server's registration reply (BrokerController#handleRegisterBrokerResult), cleared by changeToSlave
# and a process restart; per broker b at HA_ADDR + b
HA_ADDR = len(_FIELDS)
for _b in range(MAX_BROKERS):
    _field(f"broker{_b + 1}.haMasterAddress", 2)
# -- with stale_tail = on only (issue 48 item 6, model/controller/disk.py; all 0 otherwise): per broker ``b``
# at STALE_END + b the end of the stale records past its write position (positions [maxOffset, staleEnd) of
# its commitlog arrays keep what a truncation left there; 0: none), at CLEAN + b whether its last stop was
# a clean shutdown (DefaultMessageStore#shutdown deleted the abort file: normal recovery at the restart), at
# STALE_CQ + b the end of the consume queue's stale entries
STALE_END = len(_FIELDS)
for _b in range(MAX_BROKERS):
    _field(f"broker{_b + 1}.staleEnd", 2)
CLEAN = len(_FIELDS)
for _b in range(MAX_BROKERS):
    _field(f"broker{_b + 1}.cleanShutdown", 1)
STALE_CQ = len(_FIELDS)   # the consume queue's stale entries' end (ConsumeQueue#truncateDirtyLogicFiles too
for _b in range(MAX_BROKERS):   # moves positions only): what the consume queue had dispatched before the truncation
    _field(f"broker{_b + 1}.staleDispatched", 2)
# -- the controller's heartbeat table (issue 48 item 6, election_ranking = ranked; all 0 with free): per
# broker the (epoch, maxOffset) of its BrokerLiveInfo (DefaultBrokerHeartbeatManager#onBrokerHeartbeat), read
# by DefaultElectPolicy's ranking; the entry exists while broker.ctlAlive is 1 (0, 0 otherwise)
HB_EPOCH = _family("controller.live.epoch", MAX_BROKERS, 3)
HB_MAX = _family("controller.live.maxOffset", MAX_BROKERS, 2)
# -- the HA connection's own transfer epoch (issue 48 item 6, reading §6.4): per slave, the master's
# AutoSwitchHAConnection serving it: currentTransferEpoch (0 = not set up: before the first transfer) and
# currentTransferEpochEndOffset (TX_UNBOUNDED for -1, "Long.max": the epoch was the last when taken)
TX_UNBOUNDED = 7
HA_TX_EPOCH = _family("ha.transferEpoch", MAX_BROKERS, 3)
HA_TX_END = _family("ha.transferEpochEnd", MAX_BROKERS, 3)
# -- with controllers = 3 only (issue 48 item 2, model/controller/quorum.py; all 0 with one controller, whose
# committed ReplicasInfoManager state is the controller.* fields above, as it stays with three): the nodes
# that run (bit c: controller node c + 1), the leader of the latest term + 1 (0: none), whether it serves
# (RoleChangeHandler#handle's initial entry committed), the leader each node believes (+1, 0: none), each
# broker's controllerLeaderAddress (+1), the links down (broker b to node c: bit b * 3 + c; node pairs
# (1,2), (1,3), (2,3): bits 0, 1, 2), and the one request in flight: its event (QUORUM_ELECT, ..._NONE,
# ..._ALTER), argument (the elected broker, or the new SyncStateSet), the nodes whose log holds it, and the
# broker awaiting its reply + 1 (0: none, or already answered with an error)
MAX_CONTROLLERS = 3
QUORUM_ELECT, QUORUM_ELECT_NONE, QUORUM_ALTER = 1, 2, 3
Q_UP = _field("quorum.up", MAX_CONTROLLERS)
Q_LEADER = _field("quorum.leader", 2)
Q_SERVING = _field("quorum.serving", 1)
Q_BELIEF = _family("quorum.believedLeader", MAX_CONTROLLERS, 2)
Q_ADDR = len(_FIELDS)
for _b in range(MAX_BROKERS):
    _field(f"broker{_b + 1}.controllerLeaderAddress", 2)
Q_BLINK = _field("quorum.brokerLinksDown", MAX_BROKERS * MAX_CONTROLLERS)
Q_PLINK = _field("quorum.peerLinksDown", 3)
Q_PEND_KIND = _field("quorum.pending.event", 2)
Q_PEND_ARG = _field("quorum.pending.arg", 3)
Q_PEND_HOLDERS = _field("quorum.pending.holders", MAX_CONTROLLERS)
Q_PEND_REQ = _field("quorum.pending.requester", 2)
NFIELDS = len(_FIELDS)
NAMES = tuple(name for name, _ in _FIELDS)


def _layout() -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    word, used = 0, 0
    words, shifts, widths = [], [], []
    for _, width in _FIELDS:
        if used + width > 64:
            word, used = word + 1, 0
        words.append(word)
        shifts.append(used)
        widths.append(width)
        used += width
    return (np.array(words, dtype=np.int64), np.array(shifts, dtype=np.int64),
            np.array(widths, dtype=np.int64), word + 1)


WORD, SHIFT, WIDTH, WORDS = _layout()
