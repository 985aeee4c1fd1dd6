"""The actions of the controller-mode model: one compiled function each, its docstring naming the 5.3.3
``Class#method`` it stands for (the mechanisms page's section in brackets).

Each function gets the field vector ``w`` (a copy of the state, changed in place), its arguments ``x``,
``y`` (0-based brokers) and the parameter vector, and returns 1 when the action is enabled, 0 when not,
3 (enabled and a model error) when a bound of the model is exceeded. Timers are nondeterministic enabling
conditions (§9.2): "after 10 s without a heartbeat" becomes "may happen once the broker is silent".
"""
from __future__ import annotations

from ..native import kernel
from . import fields as F
from .params import (P_ALL_ACK, P_BROKERS, P_ISR, P_MAX_CRASH, P_MAX_HA, P_MAX_LINK, P_MAX_OUTAGE, P_MAX_POWER, P_MESSAGES,
                     P_MIN_ISR, P_MUTANT, P_UNCLEAN)
from .state import (accepts_writes, bg, bit, bs, compute_confirm_offset, confirm_offset, connected_to,
                    consistent_point, destroy_connections, drop_connection, epoch_append, epoch_entry_at,
                    epoch_truncate_by_epoch, epoch_truncate_by_offset, in_sync_replicas, last_epoch,
                    popcount, propose_sync_state_set, set_sync_state_set, truncate_log, union_set)

OK = 1
ERROR = 3


@kernel(inline=True)
def reaches_controller(w, b):
    return w[F.CTL_UP] == 1 and bg(w, b, F.B_UP) == 1 and bg(w, b, F.B_LINK_DOWN) == 0


# -- role changes (ReplicasManager, §2.2) -----------------------------------------------------------------
@kernel
def change_to_master(w, b, epoch, params):
    """``ReplicasManager#changeToMaster``: the SyncStateSet of the reply; then, unless this broker already
    is master (``changeToMasterWhenLastRoleIsMaster``: epoch entries >= the new epoch replaced by
    (epoch, max), connections kept), ``AutoSwitchHAService#changeToMaster``: skipped when the new epoch is
    below the epoch file's last; else connections destroyed, confirmOffset recomputed, entries >= the new
    epoch removed and (epoch, max) appended (the seeded bug ``epoch_entry_past_max``: (epoch, max + 1)).
    Then the master role, unfenced. Returns False on a model bound."""
    set_sync_state_set(w, b, w[F.CTL_SSS], w[F.CTL_SSS_EPOCH], params)
    same = bg(w, b, F.B_MASTER) == 1 and bg(w, b, F.B_FENCED) == 0
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
        past = 1 if params[P_MUTANT] == 5 else 0   # the seeded bug epoch_entry_past_max
        ok = epoch_append(w, b, epoch, bg(w, b, F.B_LEN) + past)
    bs(w, b, F.B_MASTER, 1)
    bs(w, b, F.B_EPOCH, epoch)
    bs(w, b, F.B_FENCED, 0)
    return ok


@kernel
def change_to_slave(w, b, epoch, params):
    """``ReplicasManager#changeToSlave``: the slave role, the new epoch, unfenced; then
    ``AutoSwitchHAService#changeToSlave`` (skipped when the new epoch is below the epoch file's last):
    connections destroyed, the HA client reopened with no master address (it connects once the name
    server names a master, :func:`ha_connect`)."""
    bs(w, b, F.B_MASTER, 0)
    bs(w, b, F.B_EPOCH, epoch)
    bs(w, b, F.B_FENCED, 0)
    bs(w, b, F.B_PENDING, 0)
    if epoch >= last_epoch(w, b):
        destroy_connections(w, b, params)
        drop_connection(w, b)


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
def elect(w, new_master, params):
    """``ReplicasInfoManager#handleElectMaster``: master := the elected broker, masterEpoch + 1,
    SyncStateSet := {master}, syncStateSetEpoch + 1 (the seeded bug ``election_keeps_epoch`` keeps the
    master epoch)."""
    w[F.CTL_MASTER] = new_master + 1
    if params[P_MUTANT] != 2:
        w[F.CTL_EPOCH] = w[F.CTL_EPOCH] + 1
    w[F.CTL_SSS] = bit(new_master)
    w[F.CTL_SSS_EPOCH] = w[F.CTL_SSS_EPOCH] + 1


@kernel
def electable(w, c, params):
    """``DefaultElectPolicy#tryElect`` over the SyncStateSet, then (``enableElectUncleanMaster``) over all
    registered brokers: only brokers alive in the controller's heartbeat table. The ranking by reported
    (epoch, maxOffset, priority) is abstracted to a choice among them (a superset of the real choices)."""
    if bg(w, c, F.B_ALIVE) == 0:
        return False
    if w[F.CTL_SSS] & bit(c) or params[P_MUTANT] == 1:
        return True
    if params[P_UNCLEAN] == 0:
        return False
    for s in range(params[P_BROKERS]):   # unclean: only when no SyncStateSet member is alive
        if w[F.CTL_SSS] & bit(s) and bg(w, s, F.B_ALIVE) == 1:
            return False
    return True


@kernel(inline=True)
def master_still_alive(w):
    master = w[F.CTL_MASTER] - 1
    return master >= 0 and bg(w, master, F.B_ALIVE) == 1


# -- controller availability (§9.2 C7) --------------------------------------------------------------------
@kernel
def controller_down(w, x, y, params):
    """The controller answers nothing (a DLedger group without a leader; §5.5): no registration,
    heartbeat, election or AlterSyncStateSet until it is back. Its replicated state is kept."""
    if w[F.CTL_UP] == 0 or w[F.USED_OUTAGE] >= params[P_MAX_OUTAGE]:
        return 0
    w[F.CTL_UP] = 0
    w[F.USED_OUTAGE] += 1
    return OK


@kernel
def controller_up(w, x, y, params):
    """The controller answers again, its heartbeat table as it was (the simplest reading of an
    unavailable window; a leader change that resets liveness is not modelled)."""
    if w[F.CTL_UP] == 1:
        return 0
    w[F.CTL_UP] = 1
    return OK


# -- producer (§4.6) --------------------------------------------------------------------------------------
@kernel
def send_message(w, b, y, params):
    """``CommitLog#asyncPutMessage`` on broker ``b`` (the producer's route may still name a deposed
    master: any broker that accepts writes): refused before the append while ``inSyncReplicasNums <
    minInSyncReplicas`` (the producer retries: no change); else the message is appended with the broker's
    master epoch (the seeded bug ``queue_offset_reused`` writes over the last message instead);
    ``#handleHA``: with allAckInSyncStateSet and a union set of more than one member, or without allAck
    and inSyncReplicas >= 2, the put waits (``GroupTransferService``), otherwise SEND_OK at once."""
    m = w[F.P_NEXT]
    if w[F.P_WAIT] == 1 or m >= params[P_MESSAGES] or not accepts_writes(w, b):
        return 0
    if in_sync_replicas(w, b) < params[P_MIN_ISR]:
        return 0
    n = bg(w, b, F.B_LEN)
    if params[P_MUTANT] == 4 and n > 0:
        n -= 1   # the seeded bug queue_offset_reused
    if n >= F.MAX_MESSAGES:
        return ERROR
    bs(w, b, F.B_LOG_MSG + n, m + 1)
    bs(w, b, F.B_LOG_EP + n, bg(w, b, F.B_EPOCH))
    bs(w, b, F.B_LEN, n + 1)
    if (params[P_ALL_ACK] == 1 and popcount(union_set(w, b)) > 1) or (params[P_ALL_ACK] == 0 and params[P_ISR] > 1):
        w[F.P_WAIT] = 1
        w[F.P_WAIT_BROKER] = b
        w[F.P_WAIT_END] = n + 1
    else:
        w[F.ACKED] |= bit(m)
        w[F.P_NEXT] = m + 1
    return OK


@kernel(inline=True)
def _acked_by(w, b, members, params):
    """The master ``b`` and every slave of ``members`` connected to it whose ``slaveAckOffset`` has reached
    the waiting put's end: the acks ``GroupTransferService#doWaitTransfer`` counts."""
    acks = 1
    for s in range(params[P_BROKERS]):
        if s != b and members & bit(s) and connected_to(w, s, b) and bg(w, s, F.B_ACK) - 1 >= w[F.P_WAIT_END]:
            acks += 1
    return acks


@kernel
def ack_wait_done(w, x, y, params):
    """``GroupTransferService#doWaitTransfer``: with needAckNums = -1 (allAck) the union set re-read, OK
    when the master and every member connected with ``slaveAckOffset >= end`` make up the whole set; with
    needAckNums = inSyncReplicas >= 2, OK when the master and any connected slaves (in the set or not)
    with ``slaveAckOffset >= end`` number that many -> SEND_OK."""
    if w[F.P_WAIT] == 0:
        return 0
    b = w[F.P_WAIT_BROKER]
    if bg(w, b, F.B_UP) == 0:
        return 0
    if params[P_ALL_ACK] == 0:
        if _acked_by(w, b, bit(params[P_BROKERS]) - 1, params) < params[P_ISR]:
            return 0
    else:
        members = union_set(w, b)
        if popcount(members) > 1 and _acked_by(w, b, members, params) < popcount(members):
            return 0
    m = w[F.P_NEXT]
    w[F.ACKED] |= bit(m)
    w[F.P_NEXT] = m + 1
    w[F.P_WAIT] = 0
    w[F.P_WAIT_BROKER] = 0
    w[F.P_WAIT_END] = 0
    return OK


@kernel
def ack_wait_timeout(w, x, y, params):
    """``GroupTransferService``: no ack by the deadline (``slaveTimeout`` 3 s), or the broker died ->
    FLUSH_SLAVE_TIMEOUT (or a send failure); the message stays appended (no rollback) and the producer,
    not told SEND_OK, goes on with the next message."""
    if w[F.P_WAIT] == 0:
        return 0
    w[F.P_NEXT] += 1
    w[F.P_WAIT] = 0
    w[F.P_WAIT_BROKER] = 0
    w[F.P_WAIT_END] = 0
    return OK


# -- consumer (§4.5, §6.2) --------------------------------------------------------------------------------
@kernel
def pull_message(w, b, y, params):
    """``PullMessageProcessor`` / ``DefaultMessageStore#getMessage`` on a broker in the master role (a
    slave rejects pulls with slaveReadEnable=false): the consume queue holds the commitlog prefix
    :func:`reput_message` dispatched; the message at the consumer's offset is delivered, or an offset past
    the queue's max is corrected to it (``#nextOffsetCorrection``)."""
    if bg(w, b, F.B_UP) == 0 or bg(w, b, F.B_MASTER) == 0 or bg(w, b, F.B_FENCED) == 1:
        return 0
    readable = bg(w, b, F.B_REPUT)
    o = w[F.C_NEXT]
    if o > readable:
        w[F.C_NEXT] = readable
        return OK
    if o == readable:
        return 0
    if w[F.DELIVERED + o] == 0:
        w[F.DELIVERED + o] = bg(w, b, F.B_LOG_MSG + o)
    w[F.C_NEXT] = o + 1
    return OK


@kernel
def reput_message(w, b, y, params):
    """``ReputMessageService#doReput``: dispatch the commitlog to the consume queue up to
    ``getReputEndOffset()`` = ``CommitLog#getConfirmOffset`` (the max on a master with a one-member local set
    or allAck off; the seeded bug ``read_uncommitted`` dispatches to the max, as readUnCommitted=true).
    What is dispatched stays dispatched until a truncation."""
    if bg(w, b, F.B_UP) == 0:
        return 0
    end = confirm_offset(w, b, params)
    if params[P_MUTANT] == 3 or end > bg(w, b, F.B_LEN):
        end = bg(w, b, F.B_LEN)
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
        w[F.P_WAIT] = 0
        w[F.P_WAIT_BROKER] = 0
        w[F.P_WAIT_END] = 0
    destroy_connections(w, b, params)
    drop_connection(w, b)
    for off in (F.B_UP, F.B_FENCED, F.B_MASTER, F.B_EPOCH, F.B_SSS, F.B_SSS_EPOCH, F.B_SYNCING, F.B_REMOTE,
                F.B_PENDING):
        bs(w, b, off, 0)


@kernel
def broker_crash(w, b, y, params):
    """A broker process crash (§5.5): the page cache survives, so the commitlog, the epoch file and the
    checkpoint keep everything written; the controller learns of it by the channel close
    (:func:`controller_declare_dead`)."""
    if bg(w, b, F.B_UP) == 0 or w[F.USED_CRASH] >= params[P_MAX_CRASH]:
        return 0
    w[F.USED_CRASH] += 1
    lose_process(w, b, params)
    return OK


@kernel
def broker_power_loss(w, b, y, params):
    """A power loss (§5.1, §5.5): the commitlog keeps its flushed prefix only; the epoch file and the
    checkpoint are taken as written back (the simplest reading; their own loss is not modelled)."""
    if bg(w, b, F.B_UP) == 0 or w[F.USED_POWER] >= params[P_MAX_POWER]:
        return 0
    w[F.USED_POWER] += 1
    lose_process(w, b, params)
    truncate_log(w, b, bg(w, b, F.B_FLUSHED))
    return OK


@kernel
def broker_restart(w, b, y, params):
    """``BrokerController#recoverAndInitService``: fenced before load (``ReplicasManager#setFenced``), then
    recovery (``CommitLog#recoverAbnormally``: confirmOffset clamped to the recovered max) and the master
    epoch 0 of a new process; the role comes from the controller (:func:`register_broker`). The consume
    queue is taken as rebuilt up to confirmOffset (abnormal recovery re-dispatches only what ends at or
    below it; ``#start`` sets ``reputFromOffset`` to it): the simplest reading."""
    if bg(w, b, F.B_UP) == 1:
        return 0
    bs(w, b, F.B_UP, 1)
    bs(w, b, F.B_FENCED, 1)
    if bg(w, b, F.B_CONFIRM) > bg(w, b, F.B_LEN):
        bs(w, b, F.B_CONFIRM, bg(w, b, F.B_LEN))
    bs(w, b, F.B_REPUT, bg(w, b, F.B_CONFIRM))
    return OK


@kernel
def flush_commitlog(w, b, y, params):
    """``CommitLog.FlushRealTimeService`` (ASYNC_FLUSH): the whole written commitlog reaches the disk."""
    if bg(w, b, F.B_UP) == 0 or bg(w, b, F.B_FLUSHED) == bg(w, b, F.B_LEN):
        return 0
    bs(w, b, F.B_FLUSHED, bg(w, b, F.B_LEN))
    return OK


# -- registration, heartbeats, elections (§1.3-§1.5, §2.1) -------------------------------------------------
@kernel
def register_broker(w, b, y, params):
    """``ReplicasManager#startBasicService`` of a fenced broker: ``#registerBrokerToController`` (ids fixed
    1..n, §9.2) then the start-up heartbeat; the reply names a master only if it is alive in the
    controller's table (``ReplicasInfoManager#registerBroker``), and then the broker takes its role at once
    and is unfenced; otherwise it stays fenced and tries :func:`broker_elect`."""
    if bg(w, b, F.B_FENCED) == 0 or not reaches_controller(w, b):
        return 0
    known = master_still_alive(w)
    bs(w, b, F.B_ALIVE, 1)
    if known:
        if not follow_controller(w, b, params):
            return ERROR
    return OK


@kernel
def broker_elect(w, b, c, params):
    """``ReplicasManager#brokerElect`` by broker ``b`` (fenced at start-up, or its poll saw a higher epoch
    and no master), answered by ``ReplicasInfoManager#electMaster``: the first election of the group
    (masterEpoch 0) makes ``b`` master unchecked; later ones elect ``c`` among the electable brokers (none
    while the old master is alive: MASTER_STILL_EXIST); ``b`` takes the role of the reply."""
    if not reaches_controller(w, b) or bg(w, b, F.B_ALIVE) == 0:
        return 0
    if not (bg(w, b, F.B_FENCED) == 1 or (w[F.CTL_MASTER] == 0 and w[F.CTL_EPOCH] > bg(w, b, F.B_EPOCH))):
        return 0
    if w[F.CTL_EPOCH] == 0:
        if c != b:
            return 0
    elif master_still_alive(w) or not electable(w, c, params):
        return 0
    elect(w, c, params)
    if not follow_controller(w, b, params):
        return ERROR
    return OK


@kernel
def controller_elect(w, c, y, params):
    """``ControllerManager#triggerElectMaster`` (after ``#onBrokerInactive`` or
    ``DLedgerController#scanInactiveMasterAndTriggerReelect``): the master is not alive, ``c`` is
    electable -> ``c`` is the new master (it learns so by :func:`sync_broker_metadata`). The seeded bug
    ``controller_skips_election`` never triggers it (nor :func:`controller_elect_none`)."""
    if w[F.CTL_UP] == 0 or w[F.CTL_MASTER] == 0 or master_still_alive(w) or not electable(w, c, params):
        return 0
    if params[P_MUTANT] == 6:   # the seeded bug controller_skips_election
        return 0
    elect(w, c, params)
    return OK


@kernel
def controller_elect_none(w, x, y, params):
    """``ReplicasInfoManager#electMaster``, controller-triggered, no candidate: ``ElectMasterEvent(false)``
    -> no master, masterEpoch + 1, the SyncStateSet kept (the seeded bug ``election_keeps_epoch`` keeps
    the epoch)."""
    if w[F.CTL_UP] == 0 or w[F.CTL_MASTER] == 0 or master_still_alive(w) or params[P_MUTANT] == 6:
        return 0
    for c in range(params[P_BROKERS]):
        if electable(w, c, params):
            return 0
    w[F.CTL_MASTER] = 0
    if params[P_MUTANT] != 2:
        w[F.CTL_EPOCH] += 1
    return OK


@kernel
def controller_declare_dead(w, b, y, params):
    """``DefaultBrokerHeartbeatManager#onBrokerChannelClose`` (a crash) or ``#scanNotActiveBroker`` (10 s
    without a heartbeat: power loss or a lost link) removes ``b``. A fenced broker sends no scheduled
    heartbeat, but it retries its start, with a heartbeat, every 5 s, within the 10 s timeout: it stays."""
    if w[F.CTL_UP] == 0 or bg(w, b, F.B_ALIVE) == 0:
        return 0
    if bg(w, b, F.B_UP) == 1 and bg(w, b, F.B_LINK_DOWN) == 0:
        return 0
    bs(w, b, F.B_ALIVE, 0)
    return OK


@kernel
def broker_heartbeat(w, b, y, params):
    """``ReplicasManager#sendHeartbeatToController`` (skipped while isolated): ``b`` is alive again in the
    controller's table."""
    if bg(w, b, F.B_FENCED) == 1 or bg(w, b, F.B_ALIVE) == 1 or not reaches_controller(w, b):
        return 0
    bs(w, b, F.B_ALIVE, 1)
    return OK


@kernel
def sync_broker_metadata(w, b, y, params):
    """``ReplicasManager#schedulingSyncBrokerMetadata`` (the 5 s ``GET_REPLICA_INFO`` poll; a
    ``NOTIFY_BROKER_ROLE_CHANGED`` has the same effect, earlier): a higher epoch with a master -> that
    role; an equal epoch on the master -> ``changeSyncStateSet`` (applied for a greater set epoch). A
    higher epoch without a master is :func:`broker_elect`."""
    if bg(w, b, F.B_FENCED) == 1 or not reaches_controller(w, b):
        return 0
    if w[F.CTL_EPOCH] > bg(w, b, F.B_EPOCH) and w[F.CTL_MASTER] != 0:
        if not follow_controller(w, b, params):
            return ERROR
        return OK
    if w[F.CTL_EPOCH] == bg(w, b, F.B_EPOCH) and bg(w, b, F.B_MASTER) == 1 and w[F.CTL_MASTER] == b + 1:
        set_sync_state_set(w, b, w[F.CTL_SSS], w[F.CTL_SSS_EPOCH], params)
        return OK
    return 0


@kernel
def link_loss(w, b, y, params):
    """The broker-controller link breaks (§5.5): the broker keeps its role and serves clients (no write
    lease, §1.8); the controller will miss its heartbeats."""
    if bg(w, b, F.B_LINK_DOWN) == 1 or w[F.USED_LINK] >= params[P_MAX_LINK]:
        return 0
    bs(w, b, F.B_LINK_DOWN, 1)
    w[F.USED_LINK] += 1
    return OK


@kernel
def link_heal(w, b, y, params):
    """The broker-controller link is back."""
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


@kernel
def alter_sync_state_set(w, m, y, params):
    """``ReplicasManager#doReportSyncStateSetChanged``: the pending proposal reaches the controller; if
    accepted (``AlterSyncStateSetEvent``, syncStateSetEpoch + 1) the reply applies it
    (``#changeSyncStateSet``); a rejection or an unreachable controller is only logged (the broker stays
    synchronizing with remote = its proposal)."""
    if bg(w, m, F.B_PENDING) == 0 or bg(w, m, F.B_UP) == 0:
        return 0
    bs(w, m, F.B_PENDING, 0)
    if reaches_controller(w, m) and alter_accepted(w, m, params):
        w[F.CTL_SSS] = bg(w, m, F.B_REMOTE)
        w[F.CTL_SSS_EPOCH] += 1
        set_sync_state_set(w, m, w[F.CTL_SSS], w[F.CTL_SSS_EPOCH], params)
    return OK


@kernel
def alter_sync_state_set_reply_lost(w, m, y, params):
    """As :func:`alter_sync_state_set`, accepted by the controller, but the reply is lost (an RPC timeout):
    the broker keeps its old local set until a poll brings the greater set epoch."""
    if bg(w, m, F.B_PENDING) == 0 or bg(w, m, F.B_UP) == 0:
        return 0
    if not (reaches_controller(w, m) and alter_accepted(w, m, params)):
        return 0
    bs(w, m, F.B_PENDING, 0)
    w[F.CTL_SSS] = bg(w, m, F.B_REMOTE)
    w[F.CTL_SSS_EPOCH] += 1
    return OK


@kernel
def check_sync_state_set(w, m, y, params):
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
@kernel
def ha_connect(w, s, m, params):
    """``AutoSwitchHAClient#connectMaster`` + the handshake + ``#doTruncate``: slave ``s`` connects to the
    broker the name server names as master (any broker in the master role: the name server may still hold
    a deposed one, §2.4); with an empty epoch file it reports 0; else ``findConsistentPoint`` (-1: the
    connection closes, nothing changes), ``truncateFiles`` and ``truncateSuffixByOffset`` at that point.
    (A consistent point beyond the slave's own max, §9.6, is capped at it: not modelled.)"""
    if s == m or bg(w, s, F.B_UP) == 0 or bg(w, s, F.B_FENCED) == 1 or bg(w, s, F.B_MASTER) == 1:
        return 0
    if bg(w, s, F.B_EPOCH) == 0 or bg(w, s, F.B_CONN) != 0 or not accepts_writes(w, m):
        return 0
    if bg(w, s, F.B_EF_N) > 0:
        t = consistent_point(w, s, m)
        if t < 0:
            return 0
        if t > bg(w, s, F.B_LEN):
            t = bg(w, s, F.B_LEN)
        truncate_log(w, s, t)
        epoch_truncate_by_offset(w, s, t)
    bs(w, s, F.B_CONN, m + 1)
    bs(w, s, F.B_ACK, 0)
    return OK


@kernel
def slave_report(w, s, y, params):
    """``AutoSwitchHAClient#reportSlaveMaxOffset`` (when grown, or the 5 s heartbeat report) read by the
    master's ``HAServerReader``: ``slaveAckOffset`` := the report; ``maybeExpandInSyncStateSet`` (report >=
    confirmOffset and >= the start of the master's last epoch: propose local + {s}); then
    ``updateConfirmOffsetWhenSlaveAck`` for a member of the local set."""
    m = bg(w, s, F.B_CONN) - 1
    if m < 0 or not connected_to(w, s, m) or bg(w, s, F.B_ACK) == bg(w, s, F.B_LEN) + 1:
        return 0
    report = bg(w, s, F.B_LEN)
    bs(w, s, F.B_ACK, report + 1)
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


@kernel
def push_data(w, s, y, params):
    """``AutoSwitchHAConnection.WriteSocketService#transferToSlave`` then the slave's
    ``HAClientReader#processReadResult``: one message from the slave's max (after its first report); the
    header's epoch entry (``findEpochEntryByOffset``) appended to the slave's epoch file before the data
    (``appendEntry``: ignored unless greater), then
    ``confirmOffset := min(header's, own max)``."""
    m = bg(w, s, F.B_CONN) - 1
    if m < 0 or not connected_to(w, s, m) or bg(w, s, F.B_ACK) == 0:
        return 0
    o = bg(w, s, F.B_LEN)
    if o >= bg(w, m, F.B_LEN):
        return 0
    i = epoch_entry_at(w, m, o)
    if i < 0:
        return 0
    if not epoch_append(w, s, bg(w, m, F.B_EF_EP + i), bg(w, m, F.B_EF_START + i)):
        return ERROR
    bs(w, s, F.B_LOG_MSG + o, bg(w, m, F.B_LOG_MSG + o))
    bs(w, s, F.B_LOG_EP + o, bg(w, m, F.B_LOG_EP + o))
    bs(w, s, F.B_LEN, o + 1)
    c = confirm_offset(w, m, params)
    bs(w, s, F.B_CONFIRM, c if c < o + 1 else o + 1)
    return OK


@kernel
def push_heartbeat(w, s, y, params):
    """``WriteSocketService#sendHeartbeatIfNeeded``: a header-only frame when nothing is left to send; the
    slave records its epoch entry and takes ``min(confirmOffset, own max)``."""
    m = bg(w, s, F.B_CONN) - 1
    if m < 0 or not connected_to(w, s, m) or bg(w, s, F.B_ACK) == 0:
        return 0
    o = bg(w, s, F.B_LEN)
    if o != bg(w, m, F.B_LEN):
        return 0
    i = epoch_entry_at(w, m, o)
    if i >= 0:
        if not epoch_append(w, s, bg(w, m, F.B_EF_EP + i), bg(w, m, F.B_EF_START + i)):
            return ERROR
    c = confirm_offset(w, m, params)
    bs(w, s, F.B_CONFIRM, c if c < o else o)
    return OK


@kernel
def ha_disconnect(w, s, y, params):
    """``AutoSwitchHAClient#closeMaster`` / the master's housekeeping (20 s without reads): the connection
    closes; the master proposes the set without ``s`` (``AutoSwitchHAService#removeConnection``)."""
    if bg(w, s, F.B_CONN) == 0 or w[F.USED_HA] >= params[P_MAX_HA]:
        return 0
    w[F.USED_HA] += 1
    drop_connection(w, s)
    return OK
