"""The fields of a controller-mode state and their bit layout, per configuration.

The kernel works on an ``int64`` field vector (one slot per field, indices below: the same for every
configuration, sized for the largest one); the packed state is that vector in a few ``uint64`` words, each
field a bit range inside one word. The layout is per configuration (:func:`layout_for`, carried in the
parameter vector: :mod:`model.controller.params`), as the 4.4 mode's is (``model/layout.py``): a field the
configuration cannot use (a broker beyond ``brokers``, queue 1's fields with one queue, the name-server
fields without name servers, a failure budget of 0 ...) gets width 0 and takes no bits, and a field whose
values are bounded by the configuration (a broker id or set, a message id or set, a budget used) gets the
width of that bound. Each field is declared with its width for the largest configuration and a rule
(``rule(cfg, width) -> width``) when the configuration narrows it; a field declared without a rule is
always used at its declared width: a field appended at the end with no rule is simply always used (a
per-broker family takes ``_brokers()`` so that a broker beyond ``brokers`` costs nothing; a family bounded
by a knob, a rule such as ``_name_server``). Packing refuses a value that does not fit its field's width here (a field of
width 0 must be 0): the kernel reports that as a model error, never a truncated state. Up to
``MAX_BROKERS`` = 4 brokers: the broker-id and broker-set fields are declared for 4 and narrowed to
``brokers`` by their rules, so a smaller group pays nothing for the fourth. Brokers ``b`` are 0-based
(controller id ``b + 1``); message ids are 1-based (0 = none); log positions stand for commitlog offsets,
one message each (§9.2 of the mechanisms page: bytes -> messages).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

MAX_BROKERS = 4
MAX_MESSAGES = 3
MAX_EPOCH_ENTRIES = 4

#: a field's rule: its width in a configuration (0: not used there), given the declared (largest) width
Rule = Callable[[Any, int], int]
_FIELDS: list[tuple[str, int, "Rule | None"]] = []


def _field(name: str, width: int, rule: "Rule | None" = None) -> int:
    _FIELDS.append((name, width, rule))
    return len(_FIELDS) - 1


def _family(name: str, count: int, width: int, rule: "Callable[[int], Rule] | None" = None) -> int:
    """``count`` fields ``name[i]``; ``rule(i)`` gives field ``i``'s rule."""
    base = len(_FIELDS)
    for i in range(count):
        _field(f"{name}[{i}]", width, rule(i) if rule else None)
    return base


# -- the rules: each returns the field's width in ``cfg`` (0: the configuration never sets it) -------------
def _ids(cfg: Any, width: int) -> int:
    """A controller id, 0 = none: 0..brokers."""
    return int(cfg.brokers).bit_length()


def _index(cfg: Any, width: int) -> int:
    """A 0-based broker index: 0..brokers - 1."""
    return int(cfg.brokers - 1).bit_length()


def _set(cfg: Any, width: int) -> int:
    """A set of brokers, bit b = controller id b + 1."""
    return int(cfg.brokers)


def _msg(cfg: Any, width: int) -> int:
    """A message id, 0 = none: 0..messages."""
    return int(cfg.messages).bit_length()


def _msgs(cfg: Any, width: int) -> int:
    """A set of message ids, bit m - 1."""
    return int(cfg.messages)


def _budget(knob: str) -> Rule:
    """The failures of a budget used: 0..the budget (0 bits with budget 0)."""
    return lambda cfg, width: int(getattr(cfg, knob)).bit_length()


def _when(test: Callable[[Any], bool], rule: "Rule | None" = None) -> Rule:
    """Used only where ``test(cfg)`` holds (then at ``rule``'s width, else the declared one)."""
    return lambda cfg, width: (rule(cfg, width) if rule else width) if test(cfg) else 0


def _of_broker(b: int, rule: "Rule | None" = None) -> Rule:
    """A field of broker ``b``: used with more than ``b`` brokers."""
    return _when(lambda cfg: b < cfg.brokers, rule)


def _brokers(rule: "Rule | None" = None) -> Callable[[int], Rule]:
    """The family rule of a per-broker family (field i of broker i)."""
    return lambda b: _of_broker(b, rule)


def _both(test: Callable[[Any], bool], inner: Rule) -> Rule:
    """``inner`` where ``test(cfg)`` holds, else 0."""
    return lambda cfg, width: inner(cfg, width) if test(cfg) else 0


def _two_queues(cfg: Any) -> bool:
    return cfg.queues > 1


def _offsets_on(cfg: Any) -> bool:
    return cfg.consumer_offsets == "ON"


def _stale_tail(cfg: Any) -> bool:
    return cfg.stale_tail == "ON"


def _quorum(cfg: Any) -> bool:
    return cfg.controllers > 1


def _ranked(cfg: Any) -> bool:
    return cfg.election_ranking == "RANKED"


def _sync_flush(cfg: Any) -> bool:
    return cfg.flush_disk_type == "SYNC_FLUSH"


def _name_servers(cfg: Any) -> bool:
    return cfg.name_servers > 0


# -- controller (ReplicasInfoManager's SyncStateInfo of the one group, plus availability) ------------------
CTL_UP = _field("controller.up", 1)
CTL_MASTER = _field("controller.masterBrokerId", 3, _ids)        # 0 = none, else controller id
CTL_EPOCH = _field("controller.masterEpoch", 3)
CTL_SSS = _field("controller.syncStateSet", 4, _set)             # bit b = controller id b + 1
CTL_SSS_EPOCH = _field("controller.syncStateSetEpoch", 4)
# -- producer and consumer --------------------------------------------------------------------------------
P_NEXT = _field("producer.next", 2, _msg)      # index of the message being sent (0-based; messages: all sent)
P_WAIT = _field("producer.waiting", 1)         # a put waits in GroupTransferService
P_WAIT_BROKER = _field("producer.waitBroker", 2, _index)
P_WAIT_END = _field("producer.waitEnd", 2)     # the put's end offset
ACKED = _field("producer.sendOk", 3, _msgs)    # message ids answered SEND_OK, bit m - 1
C_NEXT = _field("consumer.nextOffset", 2)
# per queue offset, the message delivered there
DELIVERED = _family("consumer.delivered", MAX_MESSAGES, 2, lambda i: _msg)
# -- failure budgets used ---------------------------------------------------------------------------------
USED_CRASH = _field("budget.crashes", 2, _budget("max_broker_crashes"))
USED_POWER = _field("budget.powerLosses", 2, _budget("max_broker_power_losses"))
USED_OUTAGE = _field("budget.controllerOutages", 2, _budget("max_controller_outages"))
USED_LINK = _field("budget.linkLosses", 2, _budget("max_link_losses"))
USED_HA = _field("budget.haDisconnects", 2, _budget("max_ha_disconnects"))
GLOBAL_FIELDS = len(_FIELDS)

# -- per broker: offsets within a broker's block (each field of broker b used with more than b brokers) ----
_BROKER: list[tuple[str, int, "Rule | None"]] = [
    ("up", 1, None), ("fenced", 1, None), ("master", 1, None), ("masterEpoch", 3, None),
    ("syncStateSet", 4, _set), ("syncStateSetEpoch", 4, None), ("synchronizing", 1, None),
    ("remoteSyncStateSet", 4, _set), ("alterPending", 1, None), ("maxOffset", 2, None), ("flushed", 2, None),
    ("confirmOffset", 2, None), ("haMaster", 3, _ids), ("slaveAckOffset", 3, None), ("ctlAlive", 1, None),
    ("ctlLinkDown", 1, None), ("epochEntries", 3, None), ("dispatched", 2, None),
] + [(f"commitlog.msg[{i}]", 2, _msg) for i in range(MAX_MESSAGES)] \
  + [(f"commitlog.epoch[{i}]", 3, None) for i in range(MAX_MESSAGES)] \
  + [(f"epochFile.epoch[{i}]", 3, None) for i in range(MAX_EPOCH_ENTRIES)] \
  + [(f"epochFile.start[{i}]", 2, None) for i in range(MAX_EPOCH_ENTRIES)]
B_UP, B_FENCED, B_MASTER, B_EPOCH, B_SSS, B_SSS_EPOCH, B_SYNCING, B_REMOTE, B_PENDING, B_LEN, B_FLUSHED, \
    B_CONFIRM, B_CONN, B_ACK, B_ALIVE, B_LINK_DOWN, B_EF_N, B_REPUT = range(18)
B_LOG_MSG = 18
B_LOG_EP = B_LOG_MSG + MAX_MESSAGES
B_EF_EP = B_LOG_EP + MAX_MESSAGES
B_EF_START = B_EF_EP + MAX_EPOCH_ENTRIES
STRIDE = len(_BROKER)
BROKER_BASE = GLOBAL_FIELDS
for _b in range(MAX_BROKERS):
    for _name, _width, _rule in _BROKER:
        _field(f"broker{_b + 1}.{_name}", _width, _of_broker(_b, _rule))
# -- appended after the brokers' blocks (so every earlier index stays): a put's two futures under
# flushDiskType=SYNC_FLUSH (CommitLog#handleDiskFlushAndHA); both stay 0 (no bits) with ASYNC_FLUSH
# the put's GroupCommitRequest is not yet flushed; the put's replica future completed PUT_OK
P_FLUSH_WAIT = _field("producer.flushWaiting", 1, _when(_sync_flush))
P_REPLICAS_DONE = _field("producer.replicasAcked", 1, _when(_sync_flush))
# -- with queues = 2 only (issue 48 item 3; all 0, no bits, with one queue, where a queue offset is the
# position; but see queueOffset below): each record's queueId and queueOffset (CommitLog#asyncPutMessage
# writes them into the record; a slave copies them), per broker ``b`` at LOG_QUEUE + b * MAX_MESSAGES +
# position; the consumer's second queue
MAX_QUEUES = 2
LOG_QUEUE = len(_FIELDS)
for _b in range(MAX_BROKERS):
    _family(f"broker{_b + 1}.commitlog.queueId", MAX_MESSAGES, 1,
            lambda i, b=_b: _both(_two_queues, _of_broker(b)))
# (queueOffset takes bits with one queue too: a slave's copy (PushData) writes the master's record_queue_offset,
# the position, though with one queue nothing reads the field; the states it tells apart are kept as they were)
LOG_QOFF = len(_FIELDS)
for _b in range(MAX_BROKERS):
    _family(f"broker{_b + 1}.commitlog.queueOffset", MAX_MESSAGES, 2, lambda i, b=_b: _of_broker(b))
C_NEXT1 = _field("consumer.nextOffset1", 2, _when(_two_queues))   # queue 1's next offset (queue 0: C_NEXT)
# queue 1's, per queue offset
DELIVERED1 = _family("consumer.delivered1", MAX_MESSAGES, 2, lambda i: _when(_two_queues, _msg))
# -- with consumer_offsets = on only (issue 48 item 4; all 0, no bits, with it off; model/controller/offsets.py):
# per broker ``b`` and queue ``q`` the group's ConsumerOffsetManager entry, in memory (OFF_MEM + b * MAX_QUEUES
# + q) and in consumerOffset.json (OFF_JSON + ...), each stored as offset + 1 (0: no entry); what the group ever
# committed and consumed (history, for the properties); the consumer restarts used


def _offset_entry(b: int) -> Callable[[int], Rule]:
    return lambda q: _both(lambda cfg: _offsets_on(cfg) and q < cfg.queues, _of_broker(b))


OFF_MEM = len(_FIELDS)
for _b in range(MAX_BROKERS):
    _family(f"broker{_b + 1}.consumerOffset", MAX_QUEUES, 3, _offset_entry(_b))
OFF_JSON = len(_FIELDS)
for _b in range(MAX_BROKERS):
    _family(f"broker{_b + 1}.consumerOffsetJson", MAX_QUEUES, 3, _offset_entry(_b))
H_HIGH = _family("history.highestCommitted", MAX_QUEUES, 2,   # the highest offset the group committed, per queue
                 lambda q: _when(lambda cfg: _offsets_on(cfg) and q < cfg.queues))
# message ids ever delivered, bit m - 1
H_DELIVERED = _field("history.delivered", MAX_MESSAGES, _when(_offsets_on, _msgs))
USED_CONSUMER = _field("budget.consumerRestarts", 2, _budget("max_consumer_restarts"))
# -- with name_servers >= 1 only (issue 48 item 1, model/controller/namesrv.py; all 0, no bits, without): per
# name server n, RouteInfoManager's tables for the one group reduced to the brokerId-0 entry (the broker listed
# there + 1, 0 = none), the stateVersion of that broker's live registration, and the brokers with a live
# registration (brokerLiveTable; bit b = controller id b + 1); each client's route snapshot (the broker its
# route lists at brokerId 0 + 1, 0 = none); the name-server failure budgets used
MAX_NAMESRV = 2


def _name_server(rule: "Rule | None" = None) -> Callable[[int], Rule]:
    return lambda n: _when(lambda cfg: n < cfg.name_servers, rule)


NS_MASTER = _family("nameserver.master", MAX_NAMESRV, 3, _name_server(_ids))
NS_VERSION = _family("nameserver.stateVersion", MAX_NAMESRV, 3, _name_server())
NS_LIVE = _family("nameserver.live", MAX_NAMESRV, 4, _name_server(_set))
P_ROUTE = _field("producer.route", 3, _when(_name_servers, _ids))
C_ROUTE = _field("consumer.route", 3, _when(_name_servers, _ids))
USED_NS_RESTART = _field("budget.nameserverRestarts", 2, _budget("max_namesrv_restarts"))
USED_NS_CUTOFF = _field("budget.nameserverCutoffs", 2, _budget("max_namesrv_cutoffs"))
# the HA address a slave's HA client connects to (AutoSwitchHAClient.masterHaAddress), + 1, 0 = none: set from
# a name server's registration reply (BrokerController#handleRegisterBrokerResult), cleared by changeToSlave
# and a process restart; per broker b at HA_ADDR + b
HA_ADDR = len(_FIELDS)
for _b in range(MAX_BROKERS):
    _field(f"broker{_b + 1}.haMasterAddress", 3, _both(_name_servers, _of_broker(_b, _ids)))
# -- with stale_tail = on only (issue 48 item 6, model/controller/disk.py; all 0, no bits, otherwise): per
# broker ``b`` at STALE_END + b the end of the stale records past its write position (positions [maxOffset,
# staleEnd) of its commitlog arrays keep what a truncation left there; 0: none), at CLEAN + b whether its last
# stop was a clean shutdown (DefaultMessageStore#shutdown deleted the abort file: normal recovery at the
# restart), at STALE_CQ + b the end of the consume queue's stale entries
STALE_END = len(_FIELDS)
for _b in range(MAX_BROKERS):
    _field(f"broker{_b + 1}.staleEnd", 2, _both(_stale_tail, _of_broker(_b)))
CLEAN = len(_FIELDS)
for _b in range(MAX_BROKERS):
    _field(f"broker{_b + 1}.cleanShutdown", 1, _both(_stale_tail, _of_broker(_b)))
STALE_CQ = len(_FIELDS)   # the consume queue's stale entries' end (ConsumeQueue#truncateDirtyLogicFiles too
for _b in range(MAX_BROKERS):   # moves positions only): what the consume queue had dispatched before the truncation
    _field(f"broker{_b + 1}.staleDispatched", 2, _both(_stale_tail, _of_broker(_b)))
# -- the controller's heartbeat table (issue 48 item 6, election_ranking = ranked; all 0, no bits, with free):
# per broker the (epoch, maxOffset) of its BrokerLiveInfo (DefaultBrokerHeartbeatManager#onBrokerHeartbeat),
# read by DefaultElectPolicy's ranking; the entry exists while broker.ctlAlive is 1 (0, 0 otherwise)
HB_EPOCH = _family("controller.live.epoch", MAX_BROKERS, 3, lambda b: _both(_ranked, _of_broker(b)))
HB_MAX = _family("controller.live.maxOffset", MAX_BROKERS, 2, lambda b: _both(_ranked, _of_broker(b)))
# -- the HA connection's own transfer epoch (issue 48 item 6, reading §6.4): per slave, the master's
# AutoSwitchHAConnection serving it: currentTransferEpoch (0 = not set up: before the first transfer) and
# currentTransferEpochEndOffset (TX_UNBOUNDED for -1, "Long.max": the epoch was the last when taken)
TX_UNBOUNDED = 7
HA_TX_EPOCH = _family("ha.transferEpoch", MAX_BROKERS, 3, _brokers())
HA_TX_END = _family("ha.transferEpochEnd", MAX_BROKERS, 3, _brokers())
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
Q_UP = _field("quorum.up", MAX_CONTROLLERS, _when(_quorum))
Q_LEADER = _field("quorum.leader", 2, _when(_quorum))
Q_SERVING = _field("quorum.serving", 1, _when(_quorum))
Q_BELIEF = _family("quorum.believedLeader", MAX_CONTROLLERS, 2, lambda c: _when(_quorum))
Q_ADDR = len(_FIELDS)
for _b in range(MAX_BROKERS):
    _field(f"broker{_b + 1}.controllerLeaderAddress", 2, _when(_quorum, _of_broker(_b)))
Q_BLINK = _field("quorum.brokerLinksDown", MAX_BROKERS * MAX_CONTROLLERS,
                 _when(_quorum, lambda cfg, width: cfg.brokers * MAX_CONTROLLERS))
Q_PLINK = _field("quorum.peerLinksDown", 3, _when(_quorum))
Q_PEND_KIND = _field("quorum.pending.event", 2, _when(_quorum))
Q_PEND_ARG = _field("quorum.pending.arg", MAX_BROKERS, _when(_quorum, _set))   # an id (0-based) or a set: fits
Q_PEND_HOLDERS = _field("quorum.pending.holders", MAX_CONTROLLERS, _when(_quorum))
Q_PEND_REQ = _field("quorum.pending.requester", 3, _when(_quorum, _ids))
NFIELDS = len(_FIELDS)
NAMES = tuple(name for name, _, _ in _FIELDS)
#: each field's width in the largest configuration (what the field vector's values are sized for)
MAX_WIDTH = tuple(width for _, width, _ in _FIELDS)


def widths(cfg: Any) -> list[int]:
    """Every field's width in ``cfg`` (0: not used there): its rule's, never above the declared width; a
    field without a rule is always used at its declared width (so a field appended here with no rule costs
    its bits in every configuration until a rule says otherwise)."""
    out = []
    for name, width, rule in _FIELDS:
        w = width if rule is None else rule(cfg, width)
        if not 0 <= w <= width:
            raise AssertionError(f"field {name}: width {w} in this configuration, declared {width}")
        out.append(w)
    return out


@dataclass(frozen=True)
class Layout:
    """The packed layout of one configuration: per field its word, shift and width (0: not used, word and
    shift 0), and the number of ``uint64`` words a state takes."""

    word: np.ndarray
    shift: np.ndarray
    width: np.ndarray
    words: int

    @property
    def bits(self) -> int:
        return int(self.width.sum())

    def slot(self, name: str) -> tuple[int, int, int]:
        """``(word, shift, width)`` of the field named ``name``."""
        i = NAMES.index(name)
        return int(self.word[i]), int(self.shift[i]), int(self.width[i])

    def encode(self) -> np.ndarray:
        """The layout section of the parameter vector: ``(word, shift, width)`` per field, in field order."""
        return np.stack([self.word, self.shift, self.width], axis=1).reshape(-1).astype(np.int64)


def layout_for(cfg: Any) -> Layout:
    """The layout of ``cfg``: the used fields, widest first (then in field order), each in the first word
    with room for it (fields never straddle words); first-fit decreasing keeps the words few."""
    width = widths(cfg)
    word = [0] * NFIELDS
    shift = [0] * NFIELDS
    used: list[int] = []
    for f in sorted((f for f in range(NFIELDS) if width[f]), key=lambda f: (-width[f], f)):
        k = next((k for k, u in enumerate(used) if u + width[f] <= 64), len(used))
        if k == len(used):
            used.append(0)
        word[f], shift[f] = k, used[k]
        used[k] += width[f]
    as_array = lambda xs: np.array(xs, dtype=np.int64)  # noqa: E731
    return Layout(as_array(word), as_array(shift), as_array(width), max(len(used), 1))
