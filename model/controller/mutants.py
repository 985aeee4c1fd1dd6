"""Seeded bugs of the controller mode, for testing the checker itself: each breaks one mechanism on
purpose, so that a property that holds is shown able to fail (tests/controller/test_controller_pinned.py).

As in the 4.4 mode (:mod:`model.mutants`), a mutation is an alternative kernel function for one or more
actions, declared here with ``@mutant``; a model built with one (``ControllerModel(config,
mutation=NAME)``) puts the mutant's kind code in place of the real action's in its action table, so the
action keeps its label and place and the protocol code (:mod:`model.controller.actions`) has no branch
for it. Each mutant is made of the real action's pieces with one of them changed, or runs the real action
and then changes what it wrote.
"""
from __future__ import annotations

from explore.native import kernel
from . import fields as F
from .actions import (ERROR, OK, asks_election, broker_elect, broker_may_elect, controller_may_elect, dispatch_to,
                      elect, elect_none, elected_by_broker, electable, electable_exists, may_put, put_message,
                      register_broker, sync_broker_metadata)
from .actions import ha_connect
from .actions import follow_controller
from .leader import propose, quorum
from .declare import mutant
from .offsets import consumer_offset_slot, queue_max, route_target
from .params import P_BROKERS, P_MAX_CONSUMER, P_QUEUES
from .state import accepts_writes, bg, bs, epoch_append, last_epoch, truncate_log


# -- elect_outside_sync_state_set: the controller elects any live broker, the SyncStateSet ignored ----------
@kernel(inline=True)
def alive_anywhere(w, params):
    """Some broker is alive in the controller's heartbeat table."""
    for c in range(params[P_BROKERS]):
        if bg(w, c, F.B_ALIVE) == 1:
            return True
    return False


@mutant("elect_outside_sync_state_set", replaces=("BrokerElect",), kind=101)
@kernel
def broker_elect_any_live(w, b, c, p):
    """``DefaultElectPolicy`` ignores the SyncStateSet: a broker's election request elects any live broker."""
    if not asks_election(w, b, p) or not broker_may_elect(w, b, c, bg(w, c, F.B_ALIVE) == 1):
        return 0
    return elected_by_broker(w, b, c, w[F.CTL_EPOCH] + 1, p)


@mutant("elect_outside_sync_state_set", replaces=("ControllerElect",), kind=102)
@kernel
def controller_elect_any_live(w, c, p):
    """``DefaultElectPolicy`` ignores the SyncStateSet: the controller elects any live broker."""
    if not controller_may_elect(w) or bg(w, c, F.B_ALIVE) == 0:
        return 0
    elect(w, c, w[F.CTL_EPOCH] + 1, p)
    return OK


@mutant("elect_outside_sync_state_set", replaces=("ControllerElectNone",), kind=103)
@kernel
def controller_elect_none_unless_any_live(w, p):
    """``DefaultElectPolicy`` ignores the SyncStateSet: no candidate only when no broker is alive."""
    if not controller_may_elect(w) or alive_anywhere(w, p):
        return 0
    elect_none(w, w[F.CTL_EPOCH] + 1, p)
    return OK


# -- election_keeps_epoch: an election does not bump masterEpoch ------------------------------------------
@mutant("election_keeps_epoch", replaces=("BrokerElect",), kind=104)
@kernel
def broker_elect_keeping_epoch(w, b, c, p):
    """``ReplicasInfoManager#electMaster`` keeps the master epoch on a broker's election request."""
    if not asks_election(w, b, p) or not broker_may_elect(w, b, c, electable(w, c, p)):
        return 0
    return elected_by_broker(w, b, c, w[F.CTL_EPOCH], p)


@mutant("election_keeps_epoch", replaces=("ControllerElect",), kind=105)
@kernel
def controller_elect_keeping_epoch(w, c, p):
    """``ReplicasInfoManager#electMaster`` keeps the master epoch on the controller's election."""
    if not controller_may_elect(w) or not electable(w, c, p):
        return 0
    elect(w, c, w[F.CTL_EPOCH], p)
    return OK


@mutant("election_keeps_epoch", replaces=("ControllerElectNone",), kind=106)
@kernel
def controller_elect_none_keeping_epoch(w, p):
    """``ReplicasInfoManager#electMaster`` keeps the master epoch when it finds no candidate."""
    if not controller_may_elect(w) or electable_exists(w, p):
        return 0
    elect_none(w, w[F.CTL_EPOCH], p)
    return OK


# -- read_uncommitted: consumers read past confirmOffset ---------------------------------------------------
@mutant("read_uncommitted", replaces=("ReputMessage",), kind=107)
@kernel
def reput_to_max(w, b, p):
    """``ReputMessageService`` dispatches up to the max offset, past confirmOffset (readUnCommitted=true)."""
    if bg(w, b, F.B_UP) == 0:
        return 0
    return dispatch_to(w, b, bg(w, b, F.B_LEN))


# -- queue_offset_reused: a put takes the queue offset of the last message --------------------------------
@mutant("queue_offset_reused", replaces=("SendMessage",), kind=108)
@kernel
def send_over_last_message(w, b, p):
    """``CommitLog#asyncPutMessage`` writes the message over the broker's last one (its queue offset)."""
    if not may_put(w, b, p):
        return 0
    n = bg(w, b, F.B_LEN)
    return put_message(w, b, n - 1 if n > 0 else n, p)


# -- epoch_entry_past_max: a new master's epoch entry starts one past its max offset -----------------------
@kernel(inline=True)
def is_writer(w, b):
    """Broker ``b`` is an unfenced master: ``ReplicasManager#changeToMaster`` would keep its connections."""
    return bg(w, b, F.B_MASTER) == 1 and bg(w, b, F.B_FENCED) == 0


@kernel
def entry_past_max(w, b, was_writer, last, f):
    """After a step that may have made ``b`` master: when it took ``AutoSwitchHAService#changeToMaster``'s
    full path (``b`` was no unfenced master, the new epoch not below its epoch file's last), the epoch
    entry of the new epoch starts at max + 1 instead of max (appended now if max alone was not past the
    last entry's start)."""
    epoch = bg(w, b, F.B_EPOCH)
    if f != OK or was_writer or bg(w, b, F.B_MASTER) == 0 or epoch < last:
        return f
    n = bg(w, b, F.B_EF_N)
    if n > 0 and bg(w, b, F.B_EF_EP + n - 1) == epoch:
        bs(w, b, F.B_EF_START + n - 1, bg(w, b, F.B_LEN) + 1)
        return f
    return OK if epoch_append(w, b, epoch, bg(w, b, F.B_LEN) + 1) else ERROR


@mutant("epoch_entry_past_max", replaces=("RegisterBroker",), kind=109)
@kernel
def register_with_entry_past_max(w, b, p):
    """A registration that makes the broker master writes its epoch entry one past its max offset."""
    was, last = is_writer(w, b), last_epoch(w, b)
    return entry_past_max(w, b, was, last, register_broker(w, b, p))


@mutant("epoch_entry_past_max", replaces=("BrokerElect",), kind=110)
@kernel
def broker_elect_with_entry_past_max(w, b, c, p):
    """An election that makes the broker master writes its epoch entry one past its max offset."""
    was, last = is_writer(w, b), last_epoch(w, b)
    return entry_past_max(w, b, was, last, broker_elect(w, b, c, p))


@mutant("epoch_entry_past_max", replaces=("SyncBrokerMetadata",), kind=111)
@kernel
def sync_with_entry_past_max(w, b, p):
    """A metadata poll that makes the broker master writes its epoch entry one past its max offset."""
    was, last = is_writer(w, b), last_epoch(w, b)
    return entry_past_max(w, b, was, last, sync_broker_metadata(w, b, p))


# -- controller_skips_election: the controller never elects when it finds the master inactive -------------
@mutant("controller_skips_election", replaces=("ControllerElect",), kind=112)
@kernel
def controller_never_elects(w, c, p):
    """``ControllerManager#onBrokerInactive`` triggers nothing: no controller-triggered election."""
    return 0


@mutant("controller_skips_election", replaces=("ControllerElectNone",), kind=113)
@kernel
def controller_never_elects_none(w, p):
    """``ControllerManager#onBrokerInactive`` triggers nothing: no controller-triggered election."""
    return 0


# -- consumer offsets (consumer_offsets = on; model/controller/offsets.py) --------------------------------
@mutant("restart_from_queue_start", replaces=("ConsumerCrashRestart",), kind=114)
@kernel
def restart_at_zero(w, b, p):
    """A restarted consumer ignores its committed offset and starts every queue at 0 (as if
    ``computePullFromWhereWithException`` took ``CONSUME_FROM_FIRST_OFFSET``'s "not found" branch)."""
    if w[F.USED_CONSUMER] >= p[P_MAX_CONSUMER] or not route_target(w, b, p):
        return 0
    for q in range(p[P_QUEUES]):
        w[consumer_offset_slot(q)] = 0
    w[F.USED_CONSUMER] += 1
    return OK


@mutant("restart_from_queue_max", replaces=("ConsumerCrashRestart",), kind=115)
@kernel
def restart_at_max(w, b, p):
    """A restarted consumer ignores its committed offset and starts every queue at the master's consume
    queue max (``MQAdminImpl#maxOffset``, the QUERY_NOT_FOUND branch, taken whatever the broker answers)."""
    if w[F.USED_CONSUMER] >= p[P_MAX_CONSUMER] or not accepts_writes(w, b):
        return 0
    for q in range(p[P_QUEUES]):
        w[consumer_offset_slot(q)] = queue_max(w, b, q, p)
    w[F.USED_CONSUMER] += 1
    return OK


@mutant("truncate_master_at_connect", replaces=("HAConnect",), kind=116)
@kernel
def ha_connect_truncating_master(w, s, m, p):
    """``AutoSwitchHAClient#doTruncate`` on the wrong side: a slave's connection truncates the master's
    commitlog to the slave's max offset (and then the slave's, as the real handshake does)."""
    f = ha_connect(w, s, m, p)
    if f == OK:
        truncate_log(w, m, bg(w, s, F.B_LEN))
    return f


@mutant("consumer_never_pulls", replaces=("PullMessage", "PullMessageQueue1"), kind=117)
@kernel
def pull_nothing(w, b, p):
    """``PullMessageProcessor`` answers every pull PULL_NOT_FOUND: the consumer never gets a message."""
    return 0


# -- reply_before_commit: the controller quorum answers an election before a majority holds it -----------------
@mutant("reply_before_commit", replaces=("BrokerElect",), kind=118)
@kernel
def broker_elect_answered_at_append(w, b, c, p):
    """With ``controllers = 3``: the leader answers a broker's election SUCCESS as soon as the entry is in its
    own log, before a majority holds it, as DLedger's unchecked response codes could (reading §2.2,
    ``appendToDLedgerAndWait`` treats a ``dLedgerFuture`` completed with WAIT_QUORUM_ACK_TIMEOUT or
    TERM_CHANGED as success): the broker takes the role of the precomputed result, while the entry may
    still be overwritten by a new leader that lacks it. With one controller: the real action."""
    if not asks_election(w, b, p) or not broker_may_elect(w, b, c, electable(w, c, p)):
        return 0
    if not quorum(p):
        return elected_by_broker(w, b, c, w[F.CTL_EPOCH] + 1, p)
    if propose(w, F.QUORUM_ELECT, c, 0) == 0:
        return 0
    saved = (w[F.CTL_MASTER], w[F.CTL_EPOCH], w[F.CTL_SSS], w[F.CTL_SSS_EPOCH])
    hb_epoch = (w[F.HB_EPOCH], w[F.HB_EPOCH + 1], w[F.HB_EPOCH + 2])
    hb_max = (w[F.HB_MAX], w[F.HB_MAX + 1], w[F.HB_MAX + 2])
    elect(w, c, w[F.CTL_EPOCH] + 1, p)   # the precomputed result, as the reply carries it
    ok = follow_controller(w, b, p)
    w[F.CTL_MASTER], w[F.CTL_EPOCH], w[F.CTL_SSS], w[F.CTL_SSS_EPOCH] = saved
    for i in range(3):
        w[F.HB_EPOCH + i] = hb_epoch[i]
        w[F.HB_MAX + i] = hb_max[i]
    return OK if ok else ERROR
