"""The actions of the controller-mode model: one compiled function each, declared with ``@action``
(:mod:`model.controller.declare`), its docstring naming the 5.3.3 ``Class#method`` it stands for (the
mechanisms page's section in brackets).

Each function gets the field vector ``w`` (a copy of the state, changed in place), its declared arguments
(0-based brokers) and the parameter vector, and returns 1 when the action is enabled, 0 when not, 3
(enabled and a model error) when a bound of the model is exceeded. Timers are nondeterministic enabling
conditions (§9.2): "after 10 s without a heartbeat" becomes "may happen once the broker is silent".
"""
from __future__ import annotations

from ..declare import Arrow, Note
from explore.native import kernel
from . import fields as F
from .events import EV_ACKED_WITH_SLAVE_AWAY
from .declare import BROKER, ELECTED, MASTER, SLAVE, action
from .params import (P_ALL_ACK, P_BROKERS, P_CONFIRM_PERSISTED, P_ISR, P_MASTER_TAKES_CONTROLLER_SSS, P_MAX_CRASH,
                     P_MAX_HA, P_MAX_LINK, P_MAX_OUTAGE, P_MAX_POWER, P_MESSAGES, P_MIN_ISR, P_SAME_MASTER_SHORTCUT,
                     P_QUEUES, P_SCAN_INACTIVE_MASTER, P_SYNC_FLUSH, P_UNCLEAN)
from .params import P_PRIORITY, P_RANKED
from .state import next_queue_offset, record_queue, record_queue_offset, set_record_queue
from .offsets import load_table, note_delivered
from .namesrv import routed
from .params import P_NAMESRV
from .disk import drop_stale, overwrite_stale, recover_reading_stale, truncate_dirty_files
from .params import P_STALE_TAIL
from .state import transfer_entry
from .leader import heard_by_leader, leader_up, propose, quorum, reaches_leader, silent_to_leader
from .params import P_JRAFT
from .state import (accepts_writes, bg, bit, bs, compute_confirm_offset, confirm_offset, connected_to,
                    consistent_point, destroy_connections, drop_connection, epoch_append, epoch_entry_at,
                    epoch_truncate_by_epoch, epoch_truncate_by_offset, in_sync_replicas, last_epoch,
                    popcount, propose_sync_state_set, set_sync_state_set, truncate_log, union_set)

OK = 1
ERROR = 3

#: an outcome note for the trace reader, in a fired action's flags above bit 16 (as the 4.4 kernel's
#: model/events.py ``note``): :meth:`model.controller.model.ControllerModel.describe_outcome` reads it
NOTE_SHIFT = 16
OUT_SEND_OK = 1
OUT_SEND_OK_SET_SIZE = 2
OUTCOME_TEXT = {
    OUT_SEND_OK: "SEND_OK",
    OUT_SEND_OK_SET_SIZE: "SEND_OK on the SyncStateSet's size alone (GroupTransferService, 5.3.3), within "
                          "slaveTimeout (3,000 ms) of the append",
}


@kernel(inline=True)
def reaches_controller(w, b, params):
    """Broker ``b``'s request reaches a controller that answers it: the one controller when it is up and the
    broker's link works; with ``controllers = 3`` the serving leader at the broker's leader address
    (:func:`model.controller.leader.reaches_leader`)."""
    if quorum(params):
        return reaches_leader(w, b)
    return w[F.CTL_UP] == 1 and bg(w, b, F.B_UP) == 1 and bg(w, b, F.B_LINK_DOWN) == 0


@kernel(inline=True)
def heard_by_controller(w, b, params):
    """Broker ``b``'s heartbeat reaches the controller's heartbeat table: the one controller's as a request
    does (:func:`reaches_controller`); with ``controllers = 3`` the leader's, whichever address the broker
    knows (:func:`model.controller.leader.heard_by_leader`)."""
    if quorum(params):
        return heard_by_leader(w, b)
    return w[F.CTL_UP] == 1 and bg(w, b, F.B_UP) == 1 and bg(w, b, F.B_LINK_DOWN) == 0


@kernel(inline=True)
def table_up(w, params):
    """The heartbeat table the model keeps is on a running node (the one controller; the leader of three)."""
    if quorum(params):
        return leader_up(w)
    return w[F.CTL_UP] == 1


@kernel(inline=True)
def silent(w, b, params):
    """Broker ``b`` is silent to the controller's table: down, or its link to the controller (with three, to
    the leader) is cut."""
    if quorum(params):
        return silent_to_leader(w, b)
    return bg(w, b, F.B_UP) == 0 or bg(w, b, F.B_LINK_DOWN) == 1


@kernel(inline=True)
def scans_inactive_master(params):
    """The controller re-elects whenever its master is not alive (the 5 s
    ``DLedgerController#scanInactiveMasterAndTriggerReelect``; version switch
    ``controller_scans_inactive_master``). Not with ``controller_type = jraft``: ``JRaftController``'s
    ``startScheduling`` is empty and ``RaftBrokerHeartBeatManager#scanNotActiveBroker`` returns early at
    every run later than ``jRaftScanWaitTimeoutMs`` (1 s) after the node's first heartbeat (5.3.3; fixed
    after it by 8fc57f1468), so only the removal of the master elects (``#onBrokerChannelClose`` ->
    ``ControllerManager#onBrokerInactive``): the path of the switch off."""
    return params[P_SCAN_INACTIVE_MASTER] == 1 and params[P_JRAFT] == 0


# -- role changes (ReplicasManager, §2.2) -----------------------------------------------------------------
@kernel
def change_to_master(w, b, epoch, params):
    """``ReplicasManager#changeToMaster``: the SyncStateSet of the reply; then, unless this broker already
    is master (``changeToMasterWhenLastRoleIsMaster``: epoch entries >= the new epoch replaced by
    (epoch, max), connections kept), ``AutoSwitchHAService#changeToMaster``: skipped when the new epoch is
    below the epoch file's last; else connections destroyed, confirmOffset recomputed, entries >= the new
    epoch removed and (epoch, max) appended. Then the master role, unfenced. Returns False on a model
    bound.

    Two version switches, both 5.1.1. ``change_to_master_uses_controller_sss`` (63a014b8) off: up to 5.1.0
    ``ReplicasManager#changeToMaster`` builds ``newSyncStateSet`` from ``localAddress`` alone and applies it
    with the reply's syncStateSetEpoch (``#changeSyncStateSet``: only for a greater epoch), whatever set the
    controller holds. ``same_master_role_change_shortcut`` (4e0a723d) off: up to 5.1.0 there is no
    ``changeToMasterWhenLastRoleIsMaster``: a broker already master runs the full
    ``AutoSwitchHAService#changeToMaster`` too (its slaves' connections destroyed, confirmOffset
    recomputed)."""
    members = w[F.CTL_SSS] if params[P_MASTER_TAKES_CONTROLLER_SSS] == 1 else bit(b)
    set_sync_state_set(w, b, members, w[F.CTL_SSS_EPOCH], params)
    same = bg(w, b, F.B_MASTER) == 1 and bg(w, b, F.B_FENCED) == 0 and params[P_SAME_MASTER_SHORTCUT] == 1
    ok = True
    if same:
        epoch_truncate_by_epoch(w, b, epoch)
        ok = epoch_append(w, b, epoch, bg(w, b, F.B_LEN))
    elif epoch >= last_epoch(w, b):
        destroy_connections(w, b, params)
        drop_connection(w, b)
        bs(w, b, F.B_CONFIRM, compute_confirm_offset(w, b, params))
        if last_epoch(w, b) >= epoch:
            epoch_truncate_by_epoch(w, b, epoch)
        ok = epoch_append(w, b, epoch, bg(w, b, F.B_LEN))
    bs(w, b, F.B_MASTER, 1)
    bs(w, b, F.B_EPOCH, epoch)
    bs(w, b, F.B_FENCED, 0)
    return ok


@kernel
def change_to_slave(w, b, epoch, params):
    """``ReplicasManager#changeToSlave``: the slave role, the new epoch, unfenced; then
    ``AutoSwitchHAService#changeToSlave`` (skipped when the new epoch is below the epoch file's last):
    connections destroyed, the HA client reopened with no master address (``updateHaMasterAddress(null)``;
    it connects once a name server's registration reply names a master, :func:`ha_connect`; the model has no
    ``changeToSlaveWhenMasterNotChange``, which keeps the address)."""
    bs(w, b, F.B_MASTER, 0)
    bs(w, b, F.B_EPOCH, epoch)
    bs(w, b, F.B_FENCED, 0)
    bs(w, b, F.B_PENDING, 0)
    if epoch >= last_epoch(w, b):
        destroy_connections(w, b, params)
        drop_connection(w, b)
        w[F.HA_ADDR + b] = 0   # haClient.updateHaMasterAddress(null): only a name server's reply sets it again


@kernel
def follow_controller(w, b, params):
    """Act on the controller's (masterBrokerId, masterEpoch) as a reply names them: changeToMaster when
    this broker is the master, changeToSlave when another is (``ReplicasManager#changeBrokerRole``)."""
    master = w[F.CTL_MASTER] - 1
    if master == b:
        return change_to_master(w, b, w[F.CTL_EPOCH], params)
    change_to_slave(w, b, w[F.CTL_EPOCH], params)
    return True


@kernel
def elect(w, new_master, epoch, params):
    """``ReplicasInfoManager#handleElectMaster``: master := the elected broker, masterEpoch := ``epoch``
    (the controller's + 1), SyncStateSet := {master}, syncStateSetEpoch + 1."""
    w[F.CTL_MASTER] = new_master + 1
    w[F.CTL_EPOCH] = epoch
    w[F.CTL_SSS] = bit(new_master)
    w[F.CTL_SSS_EPOCH] = w[F.CTL_SSS_EPOCH] + 1
    forget_unread_entries(w, params)


@kernel
def candidate(w, c, params):
    """``DefaultElectPolicy#elect``'s candidates: ``#tryElect`` over the SyncStateSet, then
    (``enableElectUncleanMaster``) over all registered brokers, each filtered by ``validPredicate``: alive
    in the controller's heartbeat table (``DefaultBrokerHeartbeatManager#isBrokerActive``)."""
    if bg(w, c, F.B_ALIVE) == 0:
        return False
    if w[F.CTL_SSS] & bit(c):
        return True
    if params[P_UNCLEAN] == 0:
        return False
    for s in range(params[P_BROKERS]):   # unclean: only when no SyncStateSet member is alive
        if w[F.CTL_SSS] & bit(s) and bg(w, s, F.B_ALIVE) == 1:
            return False
    return True


# -- the election's ranking (issue 48 item 6) -------------------------------------------------------------
@kernel(inline=True)
def ranks_before(w, c, d, params):
    """``DefaultElectPolicy``'s comparator: ``c`` before ``d`` when its heartbeat-table entry reports a higher
    epoch, or the same epoch and a higher max offset, or both equal and a lower ``brokerElectionPriority``.
    Elements comparing equal are one in the ``TreeSet``: the first inserted stays, and brokers are inserted
    in the ``HashSet<Long>`` order of their ids (ascending for small ids), so the lower id wins a full tie
    (the caller keeps the lower id). The ``(int)`` cast of a max-offset difference of 2^31 bytes or more
    cannot occur at model scale."""
    ec, ed = w[F.HB_EPOCH + c], w[F.HB_EPOCH + d]
    if ec != ed:
        return ec > ed
    oc, od = w[F.HB_MAX + c], w[F.HB_MAX + d]
    if oc != od:
        return oc > od
    return params[P_PRIORITY + c] < params[P_PRIORITY + d]


@kernel
def ranked_winner(w, params):
    """``DefaultElectPolicy#tryElect``'s ``TreeSet<BrokerLiveInfo>(comparator).first()`` over the
    candidates (:func:`candidate`): the broker :func:`ranks_before` every other one, the lowest id on a full
    tie; -1 when there is none."""
    best = -1
    for c in range(params[P_BROKERS]):
        if candidate(w, c, params) and (best < 0 or ranks_before(w, c, best, params)):
            best = c
    return best


@kernel
def electable(w, c, params):
    """``c`` is the broker an election elects (``DefaultElectPolicy#elect``): a candidate and, with
    ``election_ranking = ranked`` (5.3.3), the ranking's winner (:func:`ranked_winner`); with ``free`` any
    candidate (a superset of the real choices)."""
    if not candidate(w, c, params):
        return False
    return params[P_RANKED] == 0 or ranked_winner(w, params) == c


@kernel
def heartbeat_report(w, b, params):
    """``DefaultBrokerHeartbeatManager#onBrokerHeartbeat`` for broker ``b``'s heartbeat
    (``ReplicasManager#sendHeartbeatToController``: epoch = the epoch file's last epoch,
    ``AutoSwitchHAService#getLastEpoch``; maxOffset = ``getMaxPhyOffset``): no entry -> a new one with those
    values; an entry -> updated only for a higher epoch, or the same epoch and a higher max offset (the
    priority, a constant of the broker's configuration here, is overwritten every time). Returns True when
    the table changed. With ``election_ranking = free`` only the entry's existence is kept."""
    created = bg(w, b, F.B_ALIVE) == 0
    bs(w, b, F.B_ALIVE, 1)
    if params[P_RANKED] == 0 or not entry_read(w, b, params):   # never read: see forget_unread_entries
        return created
    e, o = last_epoch(w, b), bg(w, b, F.B_LEN)
    pe, po = w[F.HB_EPOCH + b], w[F.HB_MAX + b]
    if created or e > pe or (e == pe and o > po):
        changed = created or e != pe or o != po
        w[F.HB_EPOCH + b] = e
        w[F.HB_MAX + b] = o
        return changed
    return False


@kernel(inline=True)
def entry_read(w, b, params):
    """Whether a later election may read broker ``b``'s entry values (:func:`forget_unread_entries`): not
    while ``b`` is the controller's master; with 2 brokers, not while the controller names any master, nor,
    while it names none, for a broker outside the SyncStateSet (without ``enableElectUncleanMaster``)."""
    if params[P_BROKERS] > 2:
        return w[F.CTL_MASTER] != b + 1
    if w[F.CTL_MASTER] == 0:
        return params[P_UNCLEAN] == 1 or (w[F.CTL_SSS] & bit(b)) != 0
    return False


@kernel(inline=True)
def forget_unread_entries(w, params):
    """The model's reduction of the heartbeat table (no RocketMQ counterpart; the verdicts and the elections
    are those of the full table): entry values no later election reads are kept at 0 (:func:`entry_read`).
    The ranking reads values only among two or more candidates. An election runs only while the master is
    not alive (MASTER_STILL_EXIST otherwise, ``ReplicasInfoManager#electMaster``), i.e. after its entry was
    removed, and the master changes only by an election: the master's values are never read (a master cut
    off and back keeps its role, its new entry's values unread too). With 2 brokers a named master leaves one
    candidate at most, so no values are read while it is named. ``ElectMasterEvent(false)`` (no master)
    needs every candidate not alive, entries removed; while there is no master the SyncStateSet cannot
    change (``#alterSyncStateSet`` needs the master), so with 2 brokers a broker outside it is no candidate
    until an election names a master, after which none is read again (with ``enableElectUncleanMaster`` no
    broker was alive). With 3 or more brokers every non-master's values are kept."""
    for b in range(params[P_BROKERS]):
        if not entry_read(w, b, params):
            w[F.HB_EPOCH + b] = 0
            w[F.HB_MAX + b] = 0


@kernel(inline=True)
def heartbeat_remove(w, b):
    """The broker's entry leaves the heartbeat table (``DefaultBrokerHeartbeatManager#scanNotActiveBroker``,
    ``#onBrokerChannelClose``): its reported values go with it."""
    bs(w, b, F.B_ALIVE, 0)
    w[F.HB_EPOCH + b] = 0
    w[F.HB_MAX + b] = 0


@kernel(inline=True)
def master_still_alive(w):
    master = w[F.CTL_MASTER] - 1
    return master >= 0 and bg(w, master, F.B_ALIVE) == 1


@kernel(inline=True)
def controller_may_elect(w):
    """``ControllerManager#onBrokerInactive`` / the inactive-master scan: the controller is up and names a
    master that is no longer alive in its heartbeat table."""
    return w[F.CTL_UP] == 1 and w[F.CTL_MASTER] != 0 and not master_still_alive(w)


@kernel(inline=True)
def master_found_inactive(w, params):
    """The controller is up and finds its master silent (:func:`controller_declare_dead`'s condition for the
    master): the master is alive in its table, but its process is down or its link is lost."""
    master = w[F.CTL_MASTER] - 1
    if not table_up(w, params) or master < 0 or bg(w, master, F.B_ALIVE) == 0:
        return False
    return silent(w, master, params)


@kernel(inline=True)
def controller_election_due(w, params):
    """When the controller elects on its own. 5.3.3: :func:`controller_may_elect`, whenever its master is
    not alive (``ControllerManager#onBrokerInactive`` and the 5 s
    ``DLedgerController#scanInactiveMasterAndTriggerReelect``).

    Version switch ``controller_scans_inactive_master`` (5.1.1, 1e2a3012) off: up to 5.1.0 there is no
    scan; only ``ControllerManager#onBrokerInactive`` elects, for the master, once per removal: the
    heartbeat manager (``DefaultBrokerHeartbeatManager#scanNotActiveBroker``, ``#onBrokerChannelClose``)
    removes the broker and submits the notification to its executor; the handler, on the leader, asks
    ``electMaster`` and awaits it; a failure is only logged. The model makes removal and election one step:
    the master is declared dead here (not by ControllerDeclareDead) and elected away at once, so the
    controller never elects later (a broker's own request still may). Steps between the removal and the
    election are left out: an under-approximation of 5.1.0's interleavings, the simplest reading without
    a pending-election field."""
    if scans_inactive_master(params):
        return controller_may_elect(w)
    if not master_found_inactive(w, params):
        return False
    heartbeat_remove(w, w[F.CTL_MASTER] - 1)
    return True


@kernel(inline=True)
def electable_exists(w, params):
    """Some broker is a candidate (:func:`candidate`), so an election elects one (:func:`electable`)."""
    for c in range(params[P_BROKERS]):
        if candidate(w, c, params):
            return True
    return False


@kernel(inline=True)
def elect_none(w, epoch, params):
    """``ElectMasterEvent(false)``: no master, masterEpoch := ``epoch`` (the controller's + 1), the
    SyncStateSet kept."""
    w[F.CTL_MASTER] = 0
    w[F.CTL_EPOCH] = epoch
    forget_unread_entries(w, params)


@kernel(inline=True)
def asks_election(w, b, params):
    """Broker ``b`` calls ``ReplicasManager#brokerElect``: it reaches the controller and is alive there, and
    is fenced (at start-up) or its poll saw a higher epoch and no master."""
    if not reaches_controller(w, b, params) or bg(w, b, F.B_ALIVE) == 0:
        return False
    return bg(w, b, F.B_FENCED) == 1 or (w[F.CTL_MASTER] == 0 and w[F.CTL_EPOCH] > bg(w, b, F.B_EPOCH))


@kernel(inline=True)
def broker_may_elect(w, b, c, c_electable):
    """``ReplicasInfoManager#electMaster`` for broker ``b``'s request: the group's first election
    (masterEpoch 0) elects ``b`` itself, unchecked; a later one elects ``c`` only while the old master is
    not alive (else MASTER_STILL_EXIST) and ``c`` is electable (``c_electable``)."""
    if w[F.CTL_EPOCH] == 0:
        return c == b
    return not master_still_alive(w) and c_electable


@kernel
def elected_by_broker(w, b, c, epoch, params):
    """The election of ``c`` at master epoch ``epoch``, answered to broker ``b``, which takes the role of
    the reply."""
    elect(w, c, epoch, params)
    if not follow_controller(w, b, params):
        return ERROR
    return OK


# -- controller availability (§9.2 C7) --------------------------------------------------------------------
@action("ControllerDown", kind=0, actor="failure", section="outage", place=(0,),
        when=lambda cfg: cfg.max_controller_outages > 0 and cfg.controllers == 1, rocketmq="EventScheduler#appendEvent",
        phrase="the controller stops answering", drawn=Note("controller", "down: answers nothing"))
@kernel
def controller_down(w, params):
    """The controller answers nothing (a DLedger group without a leader, so ``EventScheduler#appendEvent``
    answers CONTROLLER_NOT_LEADER; §5.5): no registration,
    heartbeat, election or AlterSyncStateSet until it is back. Its replicated state is kept."""
    if w[F.CTL_UP] == 0 or w[F.USED_OUTAGE] >= params[P_MAX_OUTAGE]:
        return 0
    w[F.CTL_UP] = 0
    w[F.USED_OUTAGE] += 1
    return OK


@action("ControllerUp", kind=1, actor="failure", section="outage", place=(1,),
        when=lambda cfg: cfg.max_controller_outages > 0 and cfg.controllers == 1, rocketmq="RoleChangeHandler#handle",
        phrase="the controller answers again", drawn=Note("controller", "up: answers again"))
@kernel
def controller_up(w, params):
    """The controller answers again (``RoleChangeHandler#handle``: a leader again), its heartbeat table as
    it was (the simplest reading of an unavailable window; a leader change that resets liveness is not
    modelled)."""
    if w[F.CTL_UP] == 1:
        return 0
    w[F.CTL_UP] = 1
    return OK


# -- producer (§4.6) --------------------------------------------------------------------------------------
@kernel(inline=True)
def may_put(w, b, params):
    """A put reaches ``CommitLog#asyncPutMessage`` on broker ``b`` and is not refused: no put is waiting,
    a message is left to send, ``b`` accepts writes and ``inSyncReplicasNums >= minInSyncReplicas``; with
    name servers, the producer's route lists ``b`` at brokerId 0 (:func:`model.controller.namesrv.routed`)."""
    if w[F.P_WAIT] == 1 or w[F.P_NEXT] >= params[P_MESSAGES] or not accepts_writes(w, b):
        return False
    if not routed(w, F.P_ROUTE, b, params):
        return False
    return in_sync_replicas(w, b, params) >= params[P_MIN_ISR]


@action("SendMessage", kind=2, actor="producer", section="send", place=(BROKER,),
        rocketmq="CommitLog#asyncPutMessage",
        phrase="the producer's put is appended by a master (CommitLog#asyncPutMessage)")
@kernel
def send_message(w, b, params):
    """``CommitLog#asyncPutMessage`` on broker ``b`` (the producer's route may still name a deposed
    master: without name servers any broker that accepts writes, with them the one its route snapshot lists
    at brokerId 0, :mod:`model.controller.namesrv`): refused before the append while ``inSyncReplicasNums <
    minInSyncReplicas`` (the producer retries: no change); else the message is appended with the broker's
    master epoch; ``#handleHA``: with allAckInSyncStateSet and a union set of more than one member, or
    without allAck and inSyncReplicas >= 2, the put waits (``GroupTransferService``), otherwise SEND_OK at
    once."""
    if not may_put(w, b, params):
        return 0
    return put_message(w, b, bg(w, b, F.B_LEN), params)


@kernel
def put_message(w, b, n, params):
    """The producer's next message appended at commitlog position ``n`` of broker ``b`` with its master
    epoch, then ``CommitLog#handleHA``: wait, or SEND_OK at once (:func:`send_message`); with
    flushDiskType=SYNC_FLUSH the reply also waits for the flush (:func:`wait_for_flush`)."""
    m = w[F.P_NEXT]
    if n >= F.MAX_MESSAGES:
        return ERROR
    if params[P_QUEUES] > 1:   # ConsumeQueue#assignQueueOffset: queue (m - 1) mod queues, its next offset
        set_record_queue(w, b, n, m % params[P_QUEUES], next_queue_offset(w, b, m % params[P_QUEUES], params))
    bs(w, b, F.B_LOG_MSG + n, m + 1)
    bs(w, b, F.B_LOG_EP + n, bg(w, b, F.B_EPOCH))
    bs(w, b, F.B_LEN, n + 1)
    overwrite_stale(w, b)   # stale_tail: the append replaced the first stale record (model/controller/disk.py)
    replicas = (params[P_ALL_ACK] == 1 and popcount(union_set(w, b, params)) > 1) or \
        (params[P_ALL_ACK] == 0 and params[P_ISR] > 1)
    if replicas:
        w[F.P_WAIT] = 1
        w[F.P_WAIT_BROKER] = b
        w[F.P_WAIT_END] = n + 1
    elif params[P_SYNC_FLUSH] == 0:
        w[F.ACKED] |= bit(m)
        w[F.P_NEXT] = m + 1
    if params[P_SYNC_FLUSH] == 1:
        wait_for_flush(w, b, n + 1)
    if not replicas and in_sync_replicas(w, b, params) <= 1:   # taken with the master alone, no replica awaited
        return OK | EV_ACKED_WITH_SLAVE_AWAY
    return OK


@kernel(inline=True)
def wait_for_flush(w, b, end):
    """``CommitLog#handleDiskFlushAndHA`` with flushDiskType=SYNC_FLUSH: ``DefaultFlushManager#handleDiskFlush``
    hands a ``GroupCommitRequest(wroteOffset + wroteBytes)`` to ``GroupCommitService`` (the producer's
    ``waitStoreMsgOK`` is true by default), and the reply combines its flush future with the replica future
    (``thenCombine``): the put waits on broker ``b`` until both complete. The replica future is complete at
    once unless the put already waits for acks (``#handleHA`` with needAckNums <= 1, or allAck with a
    one-member set, which the model answers at once as with ASYNC_FLUSH)."""
    if w[F.P_WAIT] == 0:
        w[F.P_REPLICAS_DONE] = 1
    w[F.P_WAIT] = 1
    w[F.P_WAIT_BROKER] = b
    w[F.P_WAIT_END] = end
    w[F.P_FLUSH_WAIT] = 1


@kernel(inline=True)
def answer_put(w):
    """The waiting put's futures both complete PUT_OK: SEND_OK, the producer goes on."""
    m = w[F.P_NEXT]
    w[F.ACKED] |= bit(m)
    w[F.P_NEXT] = m + 1
    end_wait(w)


@kernel(inline=True)
def end_wait(w):
    """No put waits any more (its futures dropped with it)."""
    w[F.P_WAIT] = 0
    w[F.P_WAIT_BROKER] = 0
    w[F.P_WAIT_END] = 0
    w[F.P_FLUSH_WAIT] = 0
    w[F.P_REPLICAS_DONE] = 0


@kernel(inline=True)
def _acked_by(w, b, members, params):
    """The master ``b`` and every slave of ``members`` connected to it whose ``slaveAckOffset`` has reached
    the waiting put's end: the acks ``GroupTransferService#doWaitTransfer`` counts."""
    acks = 1
    for s in range(params[P_BROKERS]):
        if s != b and members & bit(s) and connected_to(w, s, b) and bg(w, s, F.B_ACK) - 1 >= w[F.P_WAIT_END]:
            acks += 1
    return acks


@action("AckWaitDone", kind=3, actor="producer", section="ack", place=(0,),
        when=lambda cfg: cfg.all_ack_in_sync_state_set or cfg.in_sync_replicas > 1,
        rocketmq="GroupTransferService#doWaitTransfer",
        phrase="the waiting put is answered SEND_OK (GroupTransferService)")
@kernel
def ack_wait_done(w, params):
    """``GroupTransferService#doWaitTransfer``: with needAckNums = -1 (allAck) the union set re-read, OK
    when the master and every member connected with ``slaveAckOffset >= end`` make up the whole set; with
    needAckNums = inSyncReplicas >= 2, OK when the master and any connected slaves (in the set or not)
    with ``slaveAckOffset >= end`` number that many -> SEND_OK. With flushDiskType=SYNC_FLUSH the replica
    future completes here and SEND_OK waits for the flush too (``CommitLog#handleDiskFlushAndHA``).

    The request (``CommitLog#handleHA``) holds only its end offset and a deadline, ``slaveTimeout`` (3 s)
    after the append; no role change fails or re-checks it (docs/controller.md, "A finding"). A set of one
    member completes it with no ack read (``syncStateSet.size() <= 1``): the trace says so at this step,
    with the deadline the completion needs."""
    if w[F.P_WAIT] == 0 or w[F.P_REPLICAS_DONE] == 1:
        return 0
    b = w[F.P_WAIT_BROKER]
    if bg(w, b, F.B_UP) == 0:
        return 0
    if params[P_ALL_ACK] == 0 and _acked_by(w, b, bit(params[P_BROKERS]) - 1, params) < params[P_ISR]:
        return 0
    outcome = OUT_SEND_OK
    if params[P_ALL_ACK] == 1:
        members = union_set(w, b, params)
        if popcount(members) > 1 and _acked_by(w, b, members, params) < popcount(members):
            return 0
        if popcount(members) <= 1:   # syncStateSet.size() <= 1: "Only master", no ack read
            outcome = OUT_SEND_OK_SET_SIZE
    if w[F.P_FLUSH_WAIT] == 1:   # the replica future is done; SEND_OK waits for the flush
        w[F.P_REPLICAS_DONE] = 1
        return OK
    answer_put(w)
    return OK | (outcome << NOTE_SHIFT)


@action("AckWaitTimeout", kind=4, actor="producer", section="ack", place=(1,),
        when=lambda cfg: cfg.all_ack_in_sync_state_set or cfg.in_sync_replicas > 1
        or cfg.flush_disk_type == "SYNC_FLUSH",
        rocketmq="GroupTransferService#doWaitTransfer", phrase="the waiting put ends FLUSH_SLAVE_TIMEOUT")
@kernel
def ack_wait_timeout(w, params):
    """``GroupTransferService#doWaitTransfer``: no ack by the deadline (``slaveTimeout`` 3 s), or the broker died ->
    FLUSH_SLAVE_TIMEOUT (or a send failure); the message stays appended (no rollback) and the producer,
    not told SEND_OK, goes on with the next message. With flushDiskType=SYNC_FLUSH also
    ``FlushDiskWatcher#run``: the flush not done by ``syncFlushTimeout`` (5 s) -> FLUSH_DISK_TIMEOUT, the
    same for the producer (a slow disk: a nondeterministic timeout here)."""
    if w[F.P_WAIT] == 0:
        return 0
    w[F.P_NEXT] += 1
    end_wait(w)
    return OK


# -- consumer (§4.5, §6.2) --------------------------------------------------------------------------------
@action("PullMessage", kind=5, actor="client", section="pull", place=(BROKER,),
        rocketmq="DefaultMessageStore#getMessage", phrase="the consumer pulls the message at its offset from a master")
@kernel
def pull_message(w, b, params):
    """``PullMessageProcessor`` / ``DefaultMessageStore#getMessage`` on a broker in the master role (a
    slave rejects pulls with slaveReadEnable=false; with name servers, the one the consumer's route lists at
    brokerId 0): the consume queue holds the commitlog prefix
    :func:`reput_message` dispatched; the message at the consumer's offset is delivered, or an offset past
    the queue's max is corrected to it (``#nextOffsetCorrection``)."""
    if bg(w, b, F.B_UP) == 0 or bg(w, b, F.B_MASTER) == 0 or bg(w, b, F.B_FENCED) == 1:
        return 0
    if not routed(w, F.C_ROUTE, b, params):   # with name servers: the consumer's route lists b at brokerId 0
        return 0
    if params[P_QUEUES] > 1:
        return pull_queue(w, b, 0, F.C_NEXT, F.DELIVERED, params)
    readable = bg(w, b, F.B_REPUT)
    o = w[F.C_NEXT]
    if o > readable:
        w[F.C_NEXT] = readable
        return OK
    if o == readable:
        return 0
    if w[F.DELIVERED + o] == 0:
        w[F.DELIVERED + o] = bg(w, b, F.B_LOG_MSG + o)
    note_delivered(w, bg(w, b, F.B_LOG_MSG + o), params)
    w[F.C_NEXT] = o + 1
    return OK


@action("ReputMessage", kind=27, actor="store", section="broker", place=(BROKER, 4),
        rocketmq="ReputMessageService#doReput",
        phrase="a broker dispatches its commitlog to the consume queue up to confirmOffset",
        drawn=Note("broker", "reput up to confirmOffset"))
@kernel
def reput_message(w, b, params):
    """``ReputMessageService#doReput``: dispatch the commitlog to the consume queue up to
    ``getReputEndOffset()`` = ``CommitLog#getConfirmOffset`` (the max on a master with a one-member local set
    or allAck off). What is dispatched stays dispatched until a truncation."""
    if bg(w, b, F.B_UP) == 0:
        return 0
    end = confirm_offset(w, b, params)
    return dispatch_to(w, b, end if end < bg(w, b, F.B_LEN) else bg(w, b, F.B_LEN))


@kernel(inline=True)
def dispatch_to(w, b, end):
    """The consume queue of broker ``b`` dispatched up to ``end``, when that is further."""
    if end <= bg(w, b, F.B_REPUT):
        return 0
    bs(w, b, F.B_REPUT, end)
    return OK


# -- broker failures and restart (§5) ---------------------------------------------------------------------
@kernel
def lose_process(w, b, params):
    """What every process death drops: roles, sets, connections (slaves of ``b`` lose theirs; ``b``'s own
    connection closes at its master, which proposes the set without ``b``). A put waiting in ``b``'s
    ``GroupTransferService`` dies with it: the producer gets an error (not SEND_OK) and goes on."""
    if w[F.P_WAIT] == 1 and w[F.P_WAIT_BROKER] == b:
        w[F.P_NEXT] += 1
        end_wait(w)
    destroy_connections(w, b, params)
    drop_connection(w, b)
    load_table(w, b, params)   # consumer offsets (consumer_offsets = on): the table dies with the process
    w[F.HA_ADDR + b] = 0   # a new process's HA client has no master address (name servers only)
    if w[F.Q_PEND_REQ] == b + 1:   # controllers = 3: a reply to the dead process reaches no one (quorum.py)
        w[F.Q_PEND_REQ] = 0
    for off in (F.B_UP, F.B_FENCED, F.B_MASTER, F.B_EPOCH, F.B_SSS, F.B_SSS_EPOCH, F.B_SYNCING, F.B_REMOTE,
                F.B_PENDING):
        bs(w, b, off, 0)


@action("BrokerCrash", kind=6, actor="failure", section="broker", place=(BROKER, 0),
        when=lambda cfg: cfg.max_broker_crashes > 0, rocketmq="BrokerHousekeepingService#onChannelClose",
        phrase="a broker process crashes (its page cache survives)")
@kernel
def broker_crash(w, b, params):
    """A broker process crash (§5.5): the page cache survives, so the commitlog, the epoch file and the
    checkpoint keep everything written; the controller learns of it by the channel close
    (``BrokerHousekeepingService#onChannelClose``, :func:`controller_declare_dead`)."""
    if bg(w, b, F.B_UP) == 0 or w[F.USED_CRASH] >= params[P_MAX_CRASH]:
        return 0
    w[F.USED_CRASH] += 1
    lose_process(w, b, params)
    return OK


@action("BrokerPowerLoss", kind=7, actor="failure", section="broker", place=(BROKER, 1),
        when=lambda cfg: cfg.max_broker_power_losses > 0, rocketmq="MappedFileQueue#flush",
        phrase="a broker loses power (its unflushed tail is lost)")
@kernel
def broker_power_loss(w, b, params):
    """A power loss (§5.1, §5.5): the commitlog keeps its flushed prefix only (what
    ``MappedFileQueue#flush`` wrote); the epoch file and the checkpoint are taken as written back (the
    simplest reading; their own loss is not modelled)."""
    if bg(w, b, F.B_UP) == 0 or w[F.USED_POWER] >= params[P_MAX_POWER]:
        return 0
    w[F.USED_POWER] += 1
    lose_process(w, b, params)
    drop_stale(w, b)   # stale_tail: the stale records go with the page cache (model/controller/disk.py)
    truncate_log(w, b, bg(w, b, F.B_FLUSHED))
    return OK


@action("BrokerRestart", kind=8, actor="failure", section="broker", place=(BROKER, 3),
        when=lambda cfg: cfg.max_broker_crashes > 0 or cfg.max_broker_power_losses > 0,
        rocketmq="BrokerController#recoverAndInitService", phrase="a broker restarts, fenced, with master epoch 0")
@kernel
def broker_restart(w, b, params):
    """``BrokerController#recoverAndInitService``: fenced before load (``ReplicasManager#setFenced``), then
    recovery (``CommitLog#recoverAbnormally``: confirmOffset clamped to the recovered max) and the master
    epoch 0 of a new process; the role comes from the controller (:func:`register_broker`). The consume
    queue is taken as rebuilt up to confirmOffset (abnormal recovery re-dispatches only what ends at or
    below it; ``#start`` sets ``reputFromOffset`` to it): the simplest reading.

    Version switch ``confirm_offset_persisted_and_bounds_recovery`` (5.1.1, b410557e and 41e9b8cf) off: up
    to 5.1.0 confirmOffset lives only in ``AutoSwitchHAService`` (-1 in a new process, taken as 0: no
    dispatch bound is lower) and ``CommitLog#recoverAbnormally`` dispatches every valid message
    (``onCommitLogDispatch`` unless duplicationEnable): the consume queue ends where the commitlog does."""
    if bg(w, b, F.B_UP) == 1:
        return 0
    bs(w, b, F.B_UP, 1)
    bs(w, b, F.B_FENCED, 1)
    if params[P_STALE_TAIL] == 1:   # the stale records read back; normal or abnormal recovery (disk.py)
        recover_reading_stale(w, b, params)
        return OK
    if params[P_CONFIRM_PERSISTED] == 0:
        bs(w, b, F.B_CONFIRM, 0)
        bs(w, b, F.B_REPUT, bg(w, b, F.B_LEN))
        return OK
    if bg(w, b, F.B_CONFIRM) > bg(w, b, F.B_LEN):
        bs(w, b, F.B_CONFIRM, bg(w, b, F.B_LEN))
    bs(w, b, F.B_REPUT, bg(w, b, F.B_CONFIRM))
    return OK


@action("FlushCommitLog", kind=9, actor="store", section="broker", place=(BROKER, 2),
        when=lambda cfg: cfg.max_broker_power_losses > 0 or cfg.flush_disk_type == "SYNC_FLUSH",
        rocketmq="CommitLog.FlushRealTimeService#run",
        phrase="a broker flushes its commitlog", drawn=Note("broker", "flush commitlog"))
@kernel
def flush_commitlog(w, b, params):
    """``CommitLog.FlushRealTimeService#run`` (ASYNC_FLUSH): the whole written commitlog reaches the disk.
    With SYNC_FLUSH it is ``CommitLog.GroupCommitService#doCommit`` (every <= 10 ms, on masters and slaves
    alike, with or without a request; ``mappedFileQueue.flush(0)`` writes everything written): a waiting put
    on ``b`` whose end is now flushed has its flush future completed PUT_OK, and is answered SEND_OK when
    its replica future already is (``CommitLog#handleDiskFlushAndHA``)."""
    if bg(w, b, F.B_UP) == 0 or bg(w, b, F.B_FLUSHED) == bg(w, b, F.B_LEN):
        return 0
    bs(w, b, F.B_FLUSHED, bg(w, b, F.B_LEN))
    if w[F.P_FLUSH_WAIT] == 1 and w[F.P_WAIT_BROKER] == b and bg(w, b, F.B_FLUSHED) >= w[F.P_WAIT_END]:
        w[F.P_FLUSH_WAIT] = 0
        if w[F.P_REPLICAS_DONE] == 1:
            answer_put(w)
    return OK


# -- registration, heartbeats, elections (§1.3-§1.5, §2.1) -------------------------------------------------
@action("RegisterBroker", kind=10, actor="controller", section="broker", place=(BROKER, 5),
        rocketmq="ReplicasManager#startBasicService",
        phrase="a started broker registers with the controller and takes the role its reply names")
@kernel
def register_broker(w, b, params):
    """``ReplicasManager#startBasicService`` of a fenced broker: ``#registerBrokerToController`` (ids fixed
    1..n, §9.2) then the start-up heartbeat; the reply names a master only if it is alive in the
    controller's table (``ReplicasInfoManager#registerBroker``), and then the broker takes its role at once
    and is unfenced; otherwise it stays fenced and tries :func:`broker_elect`."""
    if bg(w, b, F.B_FENCED) == 0 or not reaches_controller(w, b, params):
        return 0
    known = master_still_alive(w)
    heartbeat_report(w, b, params)
    if known:
        if not follow_controller(w, b, params):
            return ERROR
    return OK


@action("BrokerElect", kind=11, actor="controller", section="broker", place=(BROKER, 6, ELECTED),
        rocketmq="ReplicasManager#brokerElect", phrase="a broker asks the controller to elect a master")
@kernel
def broker_elect(w, b, c, params):
    """``ReplicasManager#brokerElect`` by broker ``b`` (fenced at start-up, or its poll saw a higher epoch
    and no master), answered by ``ReplicasInfoManager#electMaster``: the first election of the group
    (masterEpoch 0) makes ``b`` master unchecked; later ones elect ``c`` among the electable brokers (none
    while the old master is alive: MASTER_STILL_EXIST); ``b`` takes the role of the reply."""
    if not asks_election(w, b, params) or not broker_may_elect(w, b, c, electable(w, c, params)):
        return 0
    if quorum(params):   # controllers = 3: the ElectMasterEvent goes through the log (model/controller/quorum.py)
        return propose(w, F.QUORUM_ELECT, c, b + 1)
    return elected_by_broker(w, b, c, w[F.CTL_EPOCH] + 1, params)


@action("ControllerElect", kind=12, actor="controller", section="election", place=(0, ELECTED),
        rocketmq="ControllerManager#triggerElectMaster",
        phrase="the controller elects a new master after the old one was declared dead")
@kernel
def controller_elect(w, c, params):
    """``ControllerManager#triggerElectMaster`` (after ``#onBrokerInactive`` or
    ``DLedgerController#scanInactiveMasterAndTriggerReelect``): the master is not alive, ``c`` is
    electable -> ``c`` is the new master (it learns so by :func:`sync_broker_metadata`)."""
    if not controller_election_due(w, params) or not electable(w, c, params):
        return 0
    if quorum(params):   # controllers = 3: the ElectMasterEvent goes through the log (model/controller/quorum.py)
        return propose(w, F.QUORUM_ELECT, c, 0)
    elect(w, c, w[F.CTL_EPOCH] + 1, params)
    return OK


@action("ControllerElectNone", kind=13, actor="controller", section="election", place=(1,),
        rocketmq="ReplicasInfoManager#electMaster",
        phrase="the controller finds no electable broker: no master, epoch + 1",
        drawn=Note("controller", "elect: no candidate, no master"))
@kernel
def controller_elect_none(w, params):
    """``ReplicasInfoManager#electMaster``, controller-triggered, no candidate: ``ElectMasterEvent(false)``
    -> no master, masterEpoch + 1, the SyncStateSet kept."""
    if not controller_election_due(w, params) or electable_exists(w, params):
        return 0
    if quorum(params):   # controllers = 3: ElectMasterEvent(false) goes through the log (model/controller/quorum.py)
        return propose(w, F.QUORUM_ELECT_NONE, 0, 0)
    elect_none(w, w[F.CTL_EPOCH] + 1, params)
    return OK


@action("ControllerDeclareDead", kind=14, actor="controller", section="broker", place=(BROKER, 7),
        rocketmq="DefaultBrokerHeartbeatManager#onBrokerChannelClose",
        phrase="the controller's heartbeat table drops a crashed or cut-off broker",
        drawn=Note("controller", "{broker} not alive"))
@kernel
def controller_declare_dead(w, b, params):
    """``DefaultBrokerHeartbeatManager#onBrokerChannelClose`` (a crash) or ``#scanNotActiveBroker`` (10 s
    without a heartbeat: power loss or a lost link) removes ``b``. A fenced broker sends no scheduled
    heartbeat, but it retries its start, with a heartbeat, every 5 s, within the 10 s timeout: it stays.
    With ``controller_scans_inactive_master`` off (up to 5.1.0) the master's removal is the election's own
    step (:func:`controller_election_due`)."""
    if not table_up(w, params) or bg(w, b, F.B_ALIVE) == 0:
        return 0
    if not scans_inactive_master(params) and w[F.CTL_MASTER] == b + 1:
        return 0
    if not silent(w, b, params):
        return 0
    heartbeat_remove(w, b)
    return OK


@action("BrokerHeartbeat", kind=15, actor="controller", section="broker", place=(BROKER, 8),
        rocketmq="ReplicasManager#sendHeartbeatToController",
        phrase="a running broker heartbeats the controller: alive again, or a newer epoch or max offset in its entry",
        drawn=Arrow("broker", "controller", "heartbeat"))
@kernel
def broker_heartbeat(w, b, params):
    """``ReplicasManager#sendHeartbeatToController`` (skipped while isolated), every
    ``brokerHeartbeatInterval`` (1 s): ``b`` is alive again in the controller's table, or its entry takes the
    reported (epoch, maxOffset) where :func:`heartbeat_report` updates it; enabled only when the table
    changes."""
    if bg(w, b, F.B_FENCED) == 1 or not heard_by_controller(w, b, params):
        return 0
    if not heartbeat_report(w, b, params):
        return 0
    return OK


@action("SyncBrokerMetadata", kind=16, actor="controller", section="broker", place=(BROKER, 9),
        rocketmq="ReplicasManager#schedulingSyncBrokerMetadata",
        phrase="a broker applies the controller's newer role (changeToMaster / changeToSlave)")
@kernel
def sync_broker_metadata(w, b, params):
    """``ReplicasManager#schedulingSyncBrokerMetadata`` (the 5 s ``GET_REPLICA_INFO`` poll; a
    ``NOTIFY_BROKER_ROLE_CHANGED`` has the same effect, earlier): a higher epoch with a master -> that
    role; an equal epoch on the master -> ``changeSyncStateSet`` (applied for a greater set epoch). A
    higher epoch without a master is :func:`broker_elect`."""
    if bg(w, b, F.B_FENCED) == 1 or not reaches_controller(w, b, params):
        return 0
    if w[F.CTL_EPOCH] > bg(w, b, F.B_EPOCH) and w[F.CTL_MASTER] != 0:
        if not follow_controller(w, b, params):
            return ERROR
        return OK
    if w[F.CTL_EPOCH] == bg(w, b, F.B_EPOCH) and bg(w, b, F.B_MASTER) == 1 and w[F.CTL_MASTER] == b + 1:
        set_sync_state_set(w, b, w[F.CTL_SSS], w[F.CTL_SSS_EPOCH], params)
        return OK
    return 0


@action("ControllerLinkLoss", kind=17, actor="failure", section="broker", place=(BROKER, 10),
        when=lambda cfg: cfg.max_link_losses > 0 and cfg.controllers == 1,
        rocketmq="DefaultBrokerHeartbeatManager#scanNotActiveBroker",
        phrase="a broker loses its link to the controller", drawn=Note("broker", "link to controller lost"))
@kernel
def link_loss(w, b, params):
    """The broker-controller link breaks (§5.5): the broker keeps its role and serves clients (no write
    lease, §1.8); the controller will miss its heartbeats (``DefaultBrokerHeartbeatManager#scanNotActiveBroker``
    finds it silent)."""
    if bg(w, b, F.B_LINK_DOWN) == 1 or w[F.USED_LINK] >= params[P_MAX_LINK]:
        return 0
    bs(w, b, F.B_LINK_DOWN, 1)
    w[F.USED_LINK] += 1
    return OK


@action("ControllerLinkHeal", kind=18, actor="failure", section="broker", place=(BROKER, 11),
        when=lambda cfg: cfg.max_link_losses > 0 and cfg.controllers == 1,
        rocketmq="ReplicasManager#sendHeartbeatToController",
        phrase="a broker's link to the controller heals", drawn=Note("broker", "link to controller back"))
@kernel
def link_heal(w, b, params):
    """The broker-controller link is back: its next ``ReplicasManager#sendHeartbeatToController`` reaches
    the controller."""
    if bg(w, b, F.B_LINK_DOWN) == 0:
        return 0
    bs(w, b, F.B_LINK_DOWN, 0)
    return OK


# -- SyncStateSet maintenance (§1.6, §4.2-§4.4) -----------------------------------------------------------
@kernel
def alter_accepted(w, m, params):
    """``ReplicasInfoManager#alterSyncStateSet``'s checks, in order: a changed set, the current master,
    its master epoch and set epoch, every member alive, the master a member."""
    proposal = bg(w, m, F.B_REMOTE)
    if proposal == w[F.CTL_SSS] or w[F.CTL_MASTER] != m + 1 or bg(w, m, F.B_EPOCH) != w[F.CTL_EPOCH]:
        return False
    if bg(w, m, F.B_SSS_EPOCH) != w[F.CTL_SSS_EPOCH] or not proposal & bit(m):
        return False
    for s in range(params[P_BROKERS]):
        if proposal & bit(s) and bg(w, s, F.B_ALIVE) == 0:
            return False
    return True


@action("AlterSyncStateSet", kind=19, actor="controller", section="broker", place=(BROKER, 12),
        rocketmq="ReplicasManager#doReportSyncStateSetChanged",
        phrase="the controller applies the master's SyncStateSet change")
@kernel
def alter_sync_state_set(w, m, params):
    """``ReplicasManager#doReportSyncStateSetChanged``: the pending proposal reaches the controller; if
    accepted (``AlterSyncStateSetEvent``, syncStateSetEpoch + 1) the reply applies it
    (``#changeSyncStateSet``); a rejection or an unreachable controller is only logged (the broker stays
    synchronizing with remote = its proposal)."""
    if bg(w, m, F.B_PENDING) == 0 or bg(w, m, F.B_UP) == 0:
        return 0
    bs(w, m, F.B_PENDING, 0)
    if reaches_controller(w, m, params) and alter_accepted(w, m, params):
        if quorum(params):   # controllers = 3: the AlterSyncStateSetEvent goes through the log (quorum.py)
            return propose(w, F.QUORUM_ALTER, bg(w, m, F.B_REMOTE), m + 1)
        w[F.CTL_SSS] = bg(w, m, F.B_REMOTE)
        w[F.CTL_SSS_EPOCH] += 1
        set_sync_state_set(w, m, w[F.CTL_SSS], w[F.CTL_SSS_EPOCH], params)
    return OK


@action("AlterSyncStateSetReplyLost", kind=20, actor="controller", section="broker", place=(BROKER, 13),
        when=lambda cfg: cfg.controllers == 1, rocketmq="ReplicasManager#doReportSyncStateSetChanged",
        phrase="the controller applies the SyncStateSet change, its reply is lost")
@kernel
def alter_sync_state_set_reply_lost(w, m, params):
    """As :func:`alter_sync_state_set` (``ReplicasManager#doReportSyncStateSetChanged``), accepted by the
    controller, but the reply is lost (an RPC timeout): the broker keeps its old local set until a poll
    brings the greater set epoch."""
    if bg(w, m, F.B_PENDING) == 0 or bg(w, m, F.B_UP) == 0:
        return 0
    if not (reaches_controller(w, m, params) and alter_accepted(w, m, params)):
        return 0
    bs(w, m, F.B_PENDING, 0)
    w[F.CTL_SSS] = bg(w, m, F.B_REMOTE)
    w[F.CTL_SSS_EPOCH] += 1
    return OK


@action("CheckSyncStateSet", kind=21, actor="controller", section="broker", place=(BROKER, 14),
        rocketmq="ReplicasManager#checkSyncStateSetAndDoReport",
        phrase="the master proposes to shrink the SyncStateSet", drawn=Note("broker", "propose SyncStateSet shrink"))
@kernel
def check_sync_state_set(w, m, params):
    """``ReplicasManager#checkSyncStateSetAndDoReport`` -> ``AutoSwitchHAService#maybeShrinkSyncStateSet``:
    from the local set, drop members not caught up for ``haMaxTimeSlaveNotCatchup`` (abstracted: not
    connected, or acked below the master's max), add the master, propose if it differs."""
    if not accepts_writes(w, m):
        return 0
    local = bg(w, m, F.B_SSS)
    new = local | bit(m)
    for s in range(params[P_BROKERS]):
        if s != m and local & bit(s):
            if not connected_to(w, s, m) or bg(w, s, F.B_ACK) - 1 < bg(w, m, F.B_LEN):
                new &= ~bit(s)
    if new == local:
        return 0
    propose_sync_state_set(w, m, new)
    return OK


# -- HA replication (§3) ----------------------------------------------------------------------------------
@action("HAConnect", kind=22, actor="ha", section="broker", place=(SLAVE, 15, MASTER),
        only=lambda args: args["slave"] != args["master"], rocketmq="AutoSwitchHAClient#connectMaster",
        phrase="a slave connects to a master and truncates to the consistent point",
        drawn=Arrow("slave", "master", "HA connect, truncate"))
@kernel
def ha_connect(w, s, m, params):
    """``AutoSwitchHAClient#connectMaster`` + the handshake + ``#doTruncate``: slave ``s`` connects to the
    broker the name server names as master (without name servers any broker in the master role: the name
    server may still hold a deposed one, §2.4; with them the address its registration reply named,
    ``BrokerController#handleRegisterBrokerResult``, :mod:`model.controller.namesrv`); with an empty epoch file it reports 0; else ``findConsistentPoint`` (-1: the
    connection closes, nothing changes), ``truncateFiles`` and ``truncateSuffixByOffset`` at that point.
    (A consistent point beyond the slave's own max, §9.6, is capped at it: not modelled.)"""
    if s == m or bg(w, s, F.B_UP) == 0 or bg(w, s, F.B_FENCED) == 1 or bg(w, s, F.B_MASTER) == 1:
        return 0
    if bg(w, s, F.B_EPOCH) == 0 or bg(w, s, F.B_CONN) != 0 or not accepts_writes(w, m):
        return 0
    if params[P_NAMESRV] > 0 and w[F.HA_ADDR + s] != m + 1:   # with name servers: the replied HA address
        return 0
    if bg(w, s, F.B_EF_N) > 0:
        t = consistent_point(w, s, m)
        if t < 0:
            return 0
        if t > bg(w, s, F.B_LEN):
            t = bg(w, s, F.B_LEN)
        truncate_dirty_files(w, s, t, params)
        epoch_truncate_by_offset(w, s, t)
    bs(w, s, F.B_CONN, m + 1)
    bs(w, s, F.B_ACK, 0)
    return OK


@action("SlaveReportOffset", kind=23, actor="ha", section="broker", place=(SLAVE, 16),
        rocketmq="AutoSwitchHAClient#reportSlaveMaxOffset",
        phrase="a slave reports its offset; the master may expand the SyncStateSet")
@kernel
def slave_report(w, s, params):
    """``AutoSwitchHAClient#reportSlaveMaxOffset`` (when grown, or the 5 s heartbeat report) read by the
    master's ``HAServerReader``: ``slaveAckOffset`` := the report; ``maybeExpandInSyncStateSet`` (report >=
    confirmOffset and >= the start of the master's last epoch: propose local + {s}); then
    ``updateConfirmOffsetWhenSlaveAck`` for a member of the local set. The first report also sets up the
    connection's transfer epoch (``AutoSwitchHAConnection.WriteSocketService#run``, TRANSFER: as soon as
    ``slaveRequestOffset`` is known, ``findEpochEntryByOffset`` then ``changeTransferEpochToNext``; the
    write thread's next loop, taken as the same step)."""
    m = bg(w, s, F.B_CONN) - 1
    if m < 0 or not connected_to(w, s, m) or bg(w, s, F.B_ACK) == bg(w, s, F.B_LEN) + 1:
        return 0
    report = bg(w, s, F.B_LEN)
    bs(w, s, F.B_ACK, report + 1)
    if w[F.HA_TX_EPOCH + s] == 0:   # the write thread's next loop sets the transfer epoch up (reading §6.4)
        transfer_entry(w, s, m, report, 0)
    if bg(w, m, F.B_MASTER) == 0:
        return OK
    local = bg(w, m, F.B_SSS)
    n = bg(w, m, F.B_EF_N)
    last_start = bg(w, m, F.B_EF_START + n - 1) if n > 0 else 0
    if not local & bit(s) and report >= confirm_offset(w, m, params) and report >= last_start:
        propose_sync_state_set(w, m, local | bit(s))
    if local & bit(s):
        bs(w, m, F.B_CONFIRM, compute_confirm_offset(w, m, params))
    return OK


@action("PushData", kind=24, actor="ha", section="broker", place=(SLAVE, 17),
        rocketmq="AutoSwitchHAConnection.WriteSocketService#transferToSlave",
        phrase="the master pushes one message to a slave")
@kernel
def push_data(w, s, params):
    """``AutoSwitchHAConnection.WriteSocketService#transferToSlave`` then the slave's
    ``HAClientReader#processReadResult``: one message from the slave's max (after its first report); the
    header's epoch entry, that of the connection's own transfer epoch (:func:`transfer_entry`, reading
    §6.4), appended to the slave's epoch file before the data (``appendEntry``: ignored unless greater; the
    client's ``currentReceivedEpoch`` check only skips what it would ignore), then
    ``confirmOffset := min(header's, own max)``."""
    m = bg(w, s, F.B_CONN) - 1
    if m < 0 or not connected_to(w, s, m) or bg(w, s, F.B_ACK) == 0:
        return 0
    o = bg(w, s, F.B_LEN)
    if o >= bg(w, m, F.B_LEN):
        return 0
    i = transfer_entry(w, s, m, o, 1)   # the connection's own transfer epoch (reading §6.4)
    if i < 0:
        return 0
    if not epoch_append(w, s, bg(w, m, F.B_EF_EP + i), bg(w, m, F.B_EF_START + i)):
        return ERROR
    bs(w, s, F.B_LOG_MSG + o, bg(w, m, F.B_LOG_MSG + o))
    bs(w, s, F.B_LOG_EP + o, bg(w, m, F.B_LOG_EP + o))
    set_record_queue(w, s, o, record_queue(w, m, o, params), record_queue_offset(w, m, o, params))
    bs(w, s, F.B_LEN, o + 1)
    overwrite_stale(w, s)   # stale_tail: the append replaced the first stale record (model/controller/disk.py)
    c = confirm_offset(w, m, params)
    bs(w, s, F.B_CONFIRM, c if c < o + 1 else o + 1)
    return OK


@action("PushHeartbeat", kind=25, actor="ha", section="broker", place=(SLAVE, 18),
        rocketmq="WriteSocketService#sendHeartbeatIfNeeded",
        phrase="the master sends a slave a header-only frame (its confirmOffset)")
@kernel
def push_heartbeat(w, s, params):
    """``WriteSocketService#sendHeartbeatIfNeeded``: a header-only frame when nothing is left to send; the
    slave records its epoch entry (the connection's transfer epoch's, :func:`transfer_entry`) and takes
    ``min(confirmOffset, own max)``."""
    m = bg(w, s, F.B_CONN) - 1
    if m < 0 or not connected_to(w, s, m) or bg(w, s, F.B_ACK) == 0:
        return 0
    o = bg(w, s, F.B_LEN)
    if o != bg(w, m, F.B_LEN):
        return 0
    i = transfer_entry(w, s, m, o, 0)   # the connection's own transfer epoch (reading §6.4)
    if i >= 0:
        if not epoch_append(w, s, bg(w, m, F.B_EF_EP + i), bg(w, m, F.B_EF_START + i)):
            return ERROR
    c = confirm_offset(w, m, params)
    bs(w, s, F.B_CONFIRM, c if c < o else o)
    return OK


@action("HADisconnect", kind=26, actor="failure", section="broker", place=(SLAVE, 19),
        when=lambda cfg: cfg.max_ha_disconnects > 0, rocketmq="AutoSwitchHAClient#closeMaster",
        phrase="an HA connection closes", drawn=Note("slave", "HA connection closed"))
@kernel
def ha_disconnect(w, s, params):
    """``AutoSwitchHAClient#closeMaster`` / the master's housekeeping (20 s without reads): the connection
    closes; the master proposes the set without ``s`` (``AutoSwitchHAService#removeConnection``)."""
    if bg(w, s, F.B_CONN) == 0 or w[F.USED_HA] >= params[P_MAX_HA]:
        return 0
    w[F.USED_HA] += 1
    drop_connection(w, s)
    return OK


# -- queue offsets (queues = 2; issue 48 item 3) ----------------------------------------------------------
@kernel
def pull_queue(w, b, q, next_field, delivered, params):
    """``DefaultMessageStore#getMessage`` for queue ``q`` on a serving master ``b``: its consume queue holds
    the dispatched records of ``q`` by their queueOffset (``ConsumeQueue#putMessagePositionInfo``), its max
    offset 1 + the last one's; an offset past the max is corrected to it (``#nextOffsetCorrection``), the
    message at the consumer's offset is delivered. An offset below the max that no dispatched record of
    ``q`` has (a hole the consume queue fills with blanks) delivers nothing here: the simplest reading."""
    top = 0
    for i in range(bg(w, b, F.B_REPUT)):
        if record_queue(w, b, i, params) == q:
            top = record_queue_offset(w, b, i, params) + 1
    o = w[next_field]
    if o > top:
        w[next_field] = top
        return OK
    if o == top:
        return 0
    found = 0
    for i in range(bg(w, b, F.B_REPUT)):
        if record_queue(w, b, i, params) == q and record_queue_offset(w, b, i, params) == o:
            found = bg(w, b, F.B_LOG_MSG + i)
    if found == 0:
        return 0
    if w[delivered + o] == 0:
        w[delivered + o] = found
    note_delivered(w, found, params)
    w[next_field] = o + 1
    return OK


@action("PullMessageQueue1", kind=28, actor="client", section="pull", place=(BROKER, 1),
        when=lambda cfg: cfg.queues > 1, rocketmq="DefaultMessageStore#getMessage",
        phrase="the consumer pulls queue 1's message at its offset from a master")
@kernel
def pull_message_queue1(w, b, params):
    """As :func:`pull_message`, for queueId 1 (``PullMessageProcessor`` / ``DefaultMessageStore#getMessage``
    with the one push consumer holding both queues after rebalance): :func:`pull_queue`."""
    if bg(w, b, F.B_UP) == 0 or bg(w, b, F.B_MASTER) == 0 or bg(w, b, F.B_FENCED) == 1:
        return 0
    if not routed(w, F.C_ROUTE, b, params):   # with name servers: the consumer's route lists b at brokerId 0
        return 0
    return pull_queue(w, b, 1, F.C_NEXT1, F.DELIVERED1, params)


# -- the disk under a truncation (stale_tail = on; issue 48 item 6, model/controller/disk.py) ---------------
@action("BrokerShutdown", kind=50, actor="failure", section="broker", place=(BROKER, 30),
        when=lambda cfg: cfg.stale_tail == "ON" and cfg.max_broker_crashes > 0,
        rocketmq="DefaultMessageStore#shutdown",
        phrase="a broker shuts down cleanly (its restart recovers normally)",
        drawn=Note("broker", "clean shutdown"))
@kernel
def broker_shutdown(w, b, params):
    """``BrokerController#shutdown`` -> ``DefaultMessageStore#shutdown`` (with ``stale_tail`` on; it spends
    one of the ``max_broker_crashes`` process stops): ``ReputMessageService#shutdown`` lets dispatch reach
    ``CommitLog#getConfirmOffset`` (it waits up to 5 s), ``CommitLog#shutdown``'s flush service flushes
    everything written, and the abort file is deleted (``dispatchBehindBytes() == 0``), so the next
    restart runs ``CommitLog#recoverNormally`` (:func:`model.controller.disk.recover_reading_stale`). The
    process's roles, sets and connections go as in a crash (:func:`lose_process`)."""
    if bg(w, b, F.B_UP) == 0 or w[F.USED_CRASH] >= params[P_MAX_CRASH]:
        return 0
    w[F.USED_CRASH] += 1
    end = confirm_offset(w, b, params)
    dispatch_to(w, b, end if end < bg(w, b, F.B_LEN) else bg(w, b, F.B_LEN))
    bs(w, b, F.B_FLUSHED, bg(w, b, F.B_LEN))
    lose_process(w, b, params)
    w[F.CLEAN + b] = 1
    return OK
