"""Reading and writing a controller-mode state: packing the field vector into its words and back, the
broker fields, and the epoch-file and SyncStateSet helpers the actions share (each names the 5.3.3 method
it follows)."""
from __future__ import annotations

import numpy as np

from explore.native import kernel
from . import fields as F
from .params import (P_ALL_ACK, P_BROKERS, P_CONFIRM_FROZEN, P_CONFIRM_IGNORES_UNACKED, P_CONFIRM_INIT_NEGATIVE,
                     P_CONFIRM_MAX_NOT_ALLACK, P_QUEUES, P_SSS_UNION, layout_at)

MAX_OFFSET = 1 << 20   # EpochEntry's Long.MAX_VALUE end


@kernel
def unpack(state, params, v):
    """The field vector ``v`` of the packed ``state`` in the configuration's layout (``params``'s layout
    section, :func:`model.controller.params.layout_at`); a field of width 0 reads 0."""
    at = layout_at(params)
    for f in range(F.NFIELDS):
        width = params[at + 3 * f + 2]
        mask = (np.uint64(1) << np.uint64(width)) - np.uint64(1)
        v[f] = np.int64((state[params[at + 3 * f]] >> np.uint64(params[at + 3 * f + 1])) & mask)


@kernel
def pack(v, params, out):
    """Pack ``v`` into ``out``; False when a value does not fit its field's width in this configuration (a
    field the configuration does not use, width 0, must be 0): a model error, never a truncated state."""
    for i in range(len(out)):
        out[i] = 0
    at = layout_at(params)
    for f in range(F.NFIELDS):
        if v[f] < 0 or v[f] >= (np.int64(1) << params[at + 3 * f + 2]):
            return False
        out[params[at + 3 * f]] |= np.uint64(v[f]) << np.uint64(params[at + 3 * f + 1])
    return True


@kernel
def repack(v, w, state, params, out):
    """``out`` = the packed ``state`` (whose field vector is ``v``) with every field where ``w`` differs from
    ``v`` re-encoded: the words :func:`pack` would give for ``w``, at the cost of the fields an action changed
    rather than all of them. 1 when some field changed, 0 when none did, -1 when a changed value does not fit
    its field's width (a model error, as in :func:`pack`)."""
    for i in range(len(out)):
        out[i] = state[i]
    at = layout_at(params)
    changed = 0
    for f in range(F.NFIELDS):
        x = w[f]
        if x == v[f]:
            continue
        width = params[at + 3 * f + 2]
        if x < 0 or x >= (np.int64(1) << width):
            return -1
        shift = np.uint64(params[at + 3 * f + 1])
        mask = ((np.uint64(1) << np.uint64(width)) - np.uint64(1)) << shift
        word = params[at + 3 * f]
        out[word] = (out[word] & ~mask) | (np.uint64(x) << shift)
        changed = 1
    return changed


@kernel(inline=True)
def bg(w, b, off):
    """Field ``off`` of broker ``b``."""
    return w[F.BROKER_BASE + b * F.STRIDE + off]


@kernel(inline=True)
def bs(w, b, off, value):
    w[F.BROKER_BASE + b * F.STRIDE + off] = value


@kernel(inline=True)
def bit(b):
    return np.int64(1) << b


@kernel(inline=True)
def popcount(mask):
    n = 0
    while mask:
        n += mask & 1
        mask >>= 1
    return n


@kernel(inline=True)
def accepts_writes(w, b):
    """A running, unfenced broker in the master role: ``HookUtils#checkBeforePutMessage`` lets puts in."""
    return bg(w, b, F.B_UP) == 1 and bg(w, b, F.B_FENCED) == 0 and bg(w, b, F.B_MASTER) == 1


@kernel(inline=True)
def union_set(w, b, params):
    """``AutoSwitchHAService#getSyncStateSet``: local ∪ remote while synchronizing, else local.

    Version switch ``sss_union_while_synchronizing`` (5.1.1, 2cc899fc): up to 5.1.0 ``getSyncStateSet``
    returns a copy of the one local set, which changes only when the controller's answer is applied
    (``#setSyncStateSet``); a proposal (``notifySyncStateSetChanged``) leaves it as it was. The model still
    records the proposal (``remoteSyncStateSet``, the request ``#doReportSyncStateSetChanged`` sends) and
    its flag, but with the switch off nothing reads them here."""
    if bg(w, b, F.B_SYNCING) and params[P_SSS_UNION] == 1:
        return bg(w, b, F.B_SSS) | bg(w, b, F.B_REMOTE)
    return bg(w, b, F.B_SSS)


@kernel(inline=True)
def in_sync_replicas(w, b, params):
    """``AutoSwitchHAService#inSyncReplicasNums``: max(|local|, |remote|) while synchronizing; up to 5.1.0
    (switch ``sss_union_while_synchronizing`` off) ``syncStateSet.size()``, the local set's."""
    n = popcount(bg(w, b, F.B_SSS))
    if bg(w, b, F.B_SYNCING) and params[P_SSS_UNION] == 1:
        r = popcount(bg(w, b, F.B_REMOTE))
        if r > n:
            n = r
    return n


@kernel(inline=True)
def connected_to(w, s, m):
    """Slave ``s`` has a live HA connection to master ``m`` (both processes running)."""
    return bg(w, s, F.B_UP) == 1 and bg(w, s, F.B_CONN) == m + 1 and bg(w, m, F.B_UP) == 1


@kernel
def confirm_offset(w, b, params):
    """``CommitLog#getConfirmOffset``: a master with a one-member local set, or with
    allAckInSyncStateSet=false, answers its max offset; otherwise (and on a slave or a fenced broker) the
    stored field.

    Version switch ``confirm_offset_max_when_not_allack`` (5.2.0, 80c0330f): up to 5.1.4 only the
    one-member local set gives the max (5.1.1-5.1.4 ``CommitLog#getConfirmOffset``; 5.0.0-5.1.0
    ``AutoSwitchHAService#getConfirmOffset``, the same rule): with allAck off and a larger set a master's
    confirmOffset is the stored minimum of the acks, as with allAck on.

    Version switch ``confirm_offset_init_only_when_negative`` (5.2.0, 7e4879a3, #7441): 5.3.3 computes the
    stored value at a read only while it is negative (never set: the model's offsets start at 0, so never);
    up to 5.1.4 (``if (this.confirmOffset <= 0)``) a stored 0 is computed again, and stored, at every read
    (:func:`compute_confirm_offset`)."""
    if bg(w, b, F.B_MASTER) == 1 and bg(w, b, F.B_FENCED) == 0:
        if popcount(bg(w, b, F.B_SSS)) == 1 or (params[P_ALL_ACK] == 0 and params[P_CONFIRM_MAX_NOT_ALLACK] == 1):
            return bg(w, b, F.B_LEN)
        if params[P_CONFIRM_INIT_NEGATIVE] == 0 and bg(w, b, F.B_CONFIRM) <= 0:
            bs(w, b, F.B_CONFIRM, compute_confirm_offset(w, b, params))
    return bg(w, b, F.B_CONFIRM)


@kernel
def compute_confirm_offset(w, m, params):
    """``AutoSwitchHAService#computeConfirmOffset``: over the union set, ``getConfirmOffsetDirectly`` when
    a member other than the master has no connection, else the least of the master's max and every
    connected member's ack above 0.

    Two version switches, both 5.1.1; up to 5.1.0 the method is the minimum of the max and the
    ``getSlaveAckOffset()`` of every connection whose slave is in the set:
    ``confirm_offset_frozen_when_member_disconnected`` (7903c704) off: a member without a connection is
    skipped (it is not in ``connectionList``), so confirmOffset can pass it;
    ``confirm_offset_ignores_unacked_connection`` (5dc2e20e) off: a connection's ack counts even when it is
    not above 0 (-1 before its first report, 0 for an empty log). The model keeps offsets from 0: -1 is
    taken as 0, which bounds the dispatch (``reputFromOffset < confirmOffset``) and the expansion test
    (``slaveMaxOffset >= confirmOffset``) as -1 does, at message granularity."""
    members = union_set(w, m, params)
    low = bg(w, m, F.B_LEN)
    for s in range(params[P_BROKERS]):
        if s == m or not members & bit(s):
            continue
        if not connected_to(w, s, m):
            if params[P_CONFIRM_FROZEN] == 0:
                continue
            # getConfirmOffsetDirectly: unchanged (the max with one member)
            if bg(w, m, F.B_MASTER) == 1 and bg(w, m, F.B_FENCED) == 0 and popcount(bg(w, m, F.B_SSS)) == 1:
                return bg(w, m, F.B_LEN)
            return bg(w, m, F.B_CONFIRM)
        ack = bg(w, s, F.B_ACK) - 1
        if params[P_CONFIRM_IGNORES_UNACKED] == 0 and ack < 0:
            ack = 0
        if (ack > 0 or params[P_CONFIRM_IGNORES_UNACKED] == 0) and ack < low:
            low = ack
    return low


@kernel
def set_sync_state_set(w, b, members, epoch, params):
    """``ReplicasManager#changeSyncStateSet`` -> ``AutoSwitchHAService#setSyncStateSet``: applied only for
    a greater SyncStateSet epoch; clears the synchronizing flag and recomputes confirmOffset."""
    if epoch <= bg(w, b, F.B_SSS_EPOCH):
        return
    bs(w, b, F.B_SSS, members)
    bs(w, b, F.B_SSS_EPOCH, epoch)
    bs(w, b, F.B_SYNCING, 0)
    bs(w, b, F.B_REMOTE, 0)
    bs(w, b, F.B_CONFIRM, compute_confirm_offset(w, b, params))


@kernel
def propose_sync_state_set(w, m, members):
    """``AutoSwitchHAService#markSynchronizingSyncStateSet`` then ``notifySyncStateSetChanged``: remote :=
    the proposal, synchronizing, and an AlterSyncStateSet request on its way to the controller."""
    bs(w, m, F.B_SYNCING, 1)
    bs(w, m, F.B_REMOTE, members)
    bs(w, m, F.B_PENDING, 1)


@kernel
def drop_connection(w, s):
    """The HA connection of slave ``s`` closes; on the master ``AutoSwitchHAService#removeConnection``
    proposes the local set without ``s`` at once when ``s`` is in it."""
    m = bg(w, s, F.B_CONN) - 1
    bs(w, s, F.B_CONN, 0)
    bs(w, s, F.B_ACK, 0)
    reset_transfer_epoch(w, s)
    if m < 0:
        return
    if bg(w, m, F.B_UP) == 1 and bg(w, m, F.B_MASTER) == 1 and bg(w, m, F.B_SSS) & bit(s):
        propose_sync_state_set(w, m, bg(w, m, F.B_SSS) & ~bit(s))


@kernel
def destroy_connections(w, m, params):
    """``AutoSwitchHAService#destroyConnections``: every slave connected to ``m`` loses its connection."""
    for s in range(params[P_BROKERS]):
        if s != m and bg(w, s, F.B_CONN) == m + 1:
            bs(w, s, F.B_CONN, 0)
            bs(w, s, F.B_ACK, 0)
            reset_transfer_epoch(w, s)


# -- the HA connection's own transfer epoch (issue 48 item 6, reading §6.4) ------------------------------
@kernel(inline=True)
def reset_transfer_epoch(w, s):
    """The connection serving slave ``s`` is gone: a new one starts with no transfer epoch."""
    w[F.HA_TX_EPOCH + s] = 0
    w[F.HA_TX_END + s] = 0


@kernel(inline=True)
def epoch_index(w, b, epoch):
    """``EpochFileCache#getEntry(epoch)``: the index of broker ``b``'s entry with that epoch, or -1."""
    for i in range(bg(w, b, F.B_EF_N)):
        if bg(w, b, F.B_EF_EP + i) == epoch:
            return i
    return -1


@kernel(inline=True)
def change_transfer_epoch_to_next(w, s, m, i):
    """``AutoSwitchHAConnection#changeTransferEpochToNext`` with master ``m``'s entry ``i``: the connection's
    epoch := its epoch, end := its end offset (the next entry's start), -1 (unbounded) when it is the
    master's last epoch at this moment."""
    w[F.HA_TX_EPOCH + s] = bg(w, m, F.B_EF_EP + i)
    if i + 1 >= bg(w, m, F.B_EF_N):
        w[F.HA_TX_END + s] = F.TX_UNBOUNDED
    else:
        w[F.HA_TX_END + s] = bg(w, m, F.B_EF_START + i + 1)


@kernel
def transfer_entry(w, s, m, o, body):
    """The epoch entry the header of master ``m``'s next frame to slave ``s`` at offset ``o`` names
    (``AutoSwitchHAConnection.WriteSocketService``): at the first transfer the connection's epoch is set up
    from ``findEpochEntryByOffset(o)`` (``#run``, TRANSFER); a frame with a body (``body``) past the
    epoch's end moves it to ``EpochFileCache#nextEntry`` (``#transferToSlave``; none: nothing sent); the
    header carries ``getEntry(currentTransferEpoch)`` (``#buildTransferHeaderBuffer``). An unbounded
    epoch is never left: after a same-master re-election (``changeToMasterWhenLastRoleIsMaster`` appends
    (E', max), connections kept) data past the new entry's start still goes out under the old epoch.
    Returns the entry's index in ``m``'s epoch file, or -1."""
    if w[F.HA_TX_EPOCH + s] == 0:
        i = epoch_entry_at(w, m, o)
        if i < 0:
            return -1
        change_transfer_epoch_to_next(w, s, m, i)
    while body == 1 and w[F.HA_TX_END + s] != F.TX_UNBOUNDED and o + 1 > w[F.HA_TX_END + s]:
        j = -1
        for k in range(bg(w, m, F.B_EF_N)):   # nextEntry: the first entry with a greater epoch
            if bg(w, m, F.B_EF_EP + k) > w[F.HA_TX_EPOCH + s]:
                j = k
                break
        if j < 0:
            return -1
        change_transfer_epoch_to_next(w, s, m, j)   # (a header-only frame per entry passed: one step here)
    return epoch_index(w, m, w[F.HA_TX_EPOCH + s])


# -- EpochFileCache ---------------------------------------------------------------------------------------
@kernel(inline=True)
def last_epoch(w, b):
    n = bg(w, b, F.B_EF_N)
    return bg(w, b, F.B_EF_EP + n - 1) if n > 0 else 0


@kernel
def epoch_append(w, b, epoch, start):
    """``EpochFileCache#appendEntry``: only with both epoch and start strictly greater than the last
    entry's (the result is ignored by every caller). Returns False when the model's bound of entries is
    exceeded (a model error)."""
    n = bg(w, b, F.B_EF_N)
    if n > 0 and (epoch <= bg(w, b, F.B_EF_EP + n - 1) or start <= bg(w, b, F.B_EF_START + n - 1)):
        return True
    if n >= F.MAX_EPOCH_ENTRIES:
        return False
    bs(w, b, F.B_EF_EP + n, epoch)
    bs(w, b, F.B_EF_START + n, start)
    bs(w, b, F.B_EF_N, n + 1)
    return True


@kernel(inline=True)
def _epoch_truncate_suffix(w, b, column, bound):
    """Remove the epoch file's last entries while their ``column`` (epoch or start offset) is >= ``bound``."""
    n = bg(w, b, F.B_EF_N)
    while n > 0 and bg(w, b, column + n - 1) >= bound:
        n -= 1
        bs(w, b, F.B_EF_EP + n, 0)
        bs(w, b, F.B_EF_START + n, 0)
    bs(w, b, F.B_EF_N, n)


@kernel
def epoch_truncate_by_epoch(w, b, epoch):
    """``EpochFileCache#truncateSuffixByEpoch``: remove entries with epoch >= ``epoch``."""
    _epoch_truncate_suffix(w, b, F.B_EF_EP, epoch)


@kernel
def epoch_truncate_by_offset(w, b, offset):
    """``EpochFileCache#truncateSuffixByOffset``: remove entries with startOffset >= ``offset``."""
    _epoch_truncate_suffix(w, b, F.B_EF_START, offset)


@kernel
def epoch_entry_at(w, b, offset):
    """``EpochFileCache#findEpochEntryByOffset``: the index of the entry with start <= offset < end (the
    next entry's start, the last entry unbounded), or -1."""
    n = bg(w, b, F.B_EF_N)
    for i in range(n - 1, -1, -1):
        if bg(w, b, F.B_EF_START + i) <= offset:
            return i
    return -1


@kernel
def entry_end(w, b, i):
    """An entry's end: the next entry's start; for the last entry the max offset when start <= max
    (``setLastEpochEntryEndOffset``), else unbounded."""
    n = bg(w, b, F.B_EF_N)
    if i + 1 < n:
        return bg(w, b, F.B_EF_START + i + 1)
    if bg(w, b, F.B_EF_START + i) <= bg(w, b, F.B_LEN):
        return bg(w, b, F.B_LEN)
    return MAX_OFFSET


@kernel
def consistent_point(w, s, m):
    """``EpochFileCache#findConsistentPoint``: walk the slave's epochs from the highest down to the first
    one the master has with the same start offset; min of both ends; -1 when none."""
    for i in range(bg(w, s, F.B_EF_N) - 1, -1, -1):
        epoch = bg(w, s, F.B_EF_EP + i)
        start = bg(w, s, F.B_EF_START + i)
        for j in range(bg(w, m, F.B_EF_N)):
            if bg(w, m, F.B_EF_EP + j) == epoch and bg(w, m, F.B_EF_START + j) == start:
                a = entry_end(w, s, i)
                c = entry_end(w, m, j)
                return a if a < c else c
    return -1


@kernel
def truncate_log(w, b, offset):
    """``DefaultMessageStore#truncateFiles`` -> ``truncateDirtyFiles``: nothing when offset >= max; else the
    commitlog and the consume queue end at ``offset`` (flushed position and confirmOffset lowered to it)."""
    if offset >= bg(w, b, F.B_LEN):
        return
    for i in range(offset, bg(w, b, F.B_LEN)):
        bs(w, b, F.B_LOG_MSG + i, 0)
        bs(w, b, F.B_LOG_EP + i, 0)
        set_record_queue(w, b, i, 0, 0)
    lower_positions(w, b, offset)


@kernel(inline=True)
def lower_positions(w, b, offset):
    """What ``DefaultMessageStore#truncateDirtyFiles`` moves, the records' bytes aside: the write position
    (max offset) to ``offset``; the consume queue's end, the flushed position and confirmOffset lowered to it
    when above."""
    bs(w, b, F.B_LEN, offset)
    if bg(w, b, F.B_REPUT) > offset:   # consume queues truncated too; reput restarts at min(old, offset)
        bs(w, b, F.B_REPUT, offset)
    if bg(w, b, F.B_FLUSHED) > offset:
        bs(w, b, F.B_FLUSHED, offset)
    if bg(w, b, F.B_CONFIRM) > offset:
        bs(w, b, F.B_CONFIRM, offset)


# -- queue offsets (queues = 2; issue 48 item 3) ----------------------------------------------------------
@kernel(inline=True)
def record_queue(w, b, i, params):
    """The queueId of broker ``b``'s record at position ``i`` (0 with one queue)."""
    if params[P_QUEUES] == 1:
        return 0
    return w[F.LOG_QUEUE + b * F.MAX_MESSAGES + i]


@kernel(inline=True)
def record_queue_offset(w, b, i, params):
    """The queueOffset written in broker ``b``'s record at position ``i``: with one queue the position
    itself (every master assigns its topicQueueTable value, which is its max offset then: see
    :func:`next_queue_offset`)."""
    if params[P_QUEUES] == 1:
        return i
    return w[F.LOG_QOFF + b * F.MAX_MESSAGES + i]


@kernel(inline=True)
def set_record_queue(w, b, i, q, offset):
    w[F.LOG_QUEUE + b * F.MAX_MESSAGES + i] = q
    w[F.LOG_QOFF + b * F.MAX_MESSAGES + i] = offset


@kernel
def next_queue_offset(w, b, q, params):
    """Queue ``q``'s next offset in master ``b``'s ``topicQueueTable`` (``QueueOffsetOperator#getQueueOffset``,
    0 when absent): 1 + the queueOffset of the last record of ``q`` in ``b``'s commitlog, else 0.

    Derived, not stored: ``DefaultMessageStore#recoverTopicQueueTable`` ->
    ``ConsumeQueueStore#recoverOffsetTable`` sets each queue's next offset to its consume queue's max (1 + the
    last dispatched record's queueOffset) and then ``#compensateForHA`` overwrites it with 1 + the queueOffset
    of the last record of that queue in (confirmOffset, max] ("last record wins"); it runs at recovery
    (``#recover``), in ``#truncateDirtyFiles`` and in ``AutoSwitchHAService#changeToMaster`` after dispatch
    reached confirmOffset, so the consume queue and the scan cover the whole commitlog and the result is the
    last record of ``q``; each put (``ConsumeQueue#assignQueueOffset``, ``QueueOffsetOperator#increaseQueueOffset``)
    then keeps it so, and the same-master shortcut (``#changeToMasterWhenLastRoleIsMaster``, no rebuild) keeps a
    table that is already that. A slave's table (not advanced by replication) is never read before a rebuild.
    Simplest reading where the source leaves a gap: a role change whose ``AutoSwitchHAService#changeToMaster``
    is skipped (new epoch below the epoch file's last) is taken as rebuilt too."""
    for i in range(bg(w, b, F.B_LEN) - 1, -1, -1):
        if record_queue(w, b, i, params) == q:
            return record_queue_offset(w, b, i, params) + 1
    return 0
