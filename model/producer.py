"""The producer's synchronous send and the SYNC_MASTER wait (``CommitLog#putMessage``)."""
from __future__ import annotations


from .declare import FLUSH, action
from explore.native import kernel
from .writes import put
from . import fields as F
from .bits import bit
from .events import (ENABLED, ERR_LOG_ORDER, ERROR, EV_ACKED_WITH_SLAVE_AWAY, OUT_FLUSH_DISK_TIMEOUT, OUT_FLUSH_SLAVE_TIMEOUT,
                     OUT_SEND_FAILED, OUT_SEND_OK, OUT_SLAVE_NOT_AVAILABLE, OUT_WAIT_FOR_SLAVE, NOTE_SHIFT)
from .slots import K_HA_FALLBEHIND, K_MESSAGES, K_QUEUES, K_SLAVES, K_SYNC_FLUSH, K_SYNC_MASTER
from .store import append_ids, flush_commitlog, log_max, queue_max, queue_of


@kernel
def connection_count(v, p):
    """``HAService.connectionCount``: HA connections the master holds, reported or not."""
    n = 0
    for s in range(p[K_SLAVES]):
        if v[F.S_LINK + s] != F.LINK_DOWN:
            n += 1
    return n


@kernel
def slave_ok(w, p):
    """``HAService#isSlaveOK(end)`` right after the append, ``end`` being the master's new max: an HA
    connection exists (reported or not) and the slaves' acknowledged offset ``push2SlaveMaxOffset`` is
    less than ``haSlaveFallbehindMax`` behind ``end`` (``ha_fallbehind_max`` messages; 0 = the 256 MiB
    default, which no run of the model's sizes reaches)."""
    if connection_count(w, p) == 0:
        return False
    limit = p[K_HA_FALLBEHIND]
    return limit == 0 or log_max(w, 0) - w[F.P2S] < limit


@action("SendMessage", kind=1, actor="producer", place=(0, FLUSH),
        phrase="the producer's send is appended to the master's commitlog",
        rocketmq="DefaultMQProducerImpl#sendDefaultImpl")
@kernel
def send_message(v, w, flush_timeout, p):
    """``DefaultMQProducerImpl#sendDefaultImpl`` -> ``CommitLog#putMessage``: append, then
    ``handleDiskFlush`` (SYNC_FLUSH: flushed, or FLUSH_DISK_TIMEOUT when ``flush_timeout``), then
    ``handleHA`` (SYNC_MASTER: SLAVE_NOT_AVAILABLE at once when ``HAService#isSlaveOK`` fails - no HA
    connection, or the slaves ``ha_fallbehind_max`` or more behind - else wait).
    No status removes the appended message. With the master down the send fails and the producer moves on
    (its retries reach the same dead master); that is one transition, not one per flush outcome."""
    if v[F.P_NEXT] > p[K_MESSAGES] or v[F.P_WAIT] != F.WAIT_NONE:
        return 0
    if v[F.M_UP] == 0 and flush_timeout:
        return 0
    m = v[F.P_NEXT]
    put(w, F.P_NEXT, m + 1)
    if v[F.M_UP] == 0:
        return ENABLED | (OUT_SEND_FAILED << NOTE_SHIFT)
    if p[K_QUEUES] > 1:
        # DefaultAppendMessageCallback#doAppend: the queue offset is topicQueueTable's next value
        put(w, F.MSG_QO + m - 1, queue_max(v, 0, queue_of(m, p), p))
    if not append_ids(w, 0, bit(m)):
        return ERROR | (ERR_LOG_ORDER << NOTE_SHIFT)
    status = OUT_SEND_OK
    if p[K_SYNC_FLUSH] != 0:
        if flush_timeout:
            status = OUT_FLUSH_DISK_TIMEOUT
        else:
            flush_commitlog(w, 0)
    if p[K_SYNC_MASTER] != 0:
        if slave_ok(w, p):
            put(w, F.P_WAIT, F.WAIT_HA_PUT_OK if status == OUT_SEND_OK else F.WAIT_HA_FLUSH_TIMEOUT)
            return ENABLED | (OUT_WAIT_FOR_SLAVE << NOTE_SHIFT)
        status = OUT_SLAVE_NOT_AVAILABLE
    if status != OUT_SEND_OK:
        return ENABLED | (status << NOTE_SHIFT)
    put(w, F.P_ACKED, w[F.P_ACKED] | bit(m))
    # availability while no slave is connected (none configured, or crashed, powered off, its HA link
    # down): only an ASYNC_MASTER answers SEND_OK then; a SYNC_MASTER's needs a slave's ack (sync_master_ack)
    away = EV_ACKED_WITH_SLAVE_AWAY if connection_count(w, p) == 0 else 0
    return ENABLED | away | (status << NOTE_SHIFT)


@action("SyncMasterAck", kind=2, actor="producer", place=(1,), when=lambda cfg: cfg.sync_master,
        phrase="the slave's ack releases a SYNC_MASTER send",
        rocketmq="GroupTransferService#doWaitTransfer")
@kernel
def sync_master_ack(v, w, p):
    """``GroupTransferService#doWaitTransfer`` finds ``push2SlaveMaxOffset >= end`` (the message's end is the
    master's max: nothing else is appended while the single producer waits) -> ``wakeupCustomer(true)``."""
    if v[F.P_WAIT] == F.WAIT_NONE or v[F.M_UP] == 0 or v[F.P2S] < log_max(v, 0):
        return 0
    put(w, F.P_WAIT, F.WAIT_NONE)
    if v[F.P_WAIT] == F.WAIT_HA_PUT_OK:
        put(w, F.P_ACKED, w[F.P_ACKED] | bit(v[F.P_NEXT] - 1))
        return ENABLED | (OUT_SEND_OK << NOTE_SHIFT)
    return ENABLED | (OUT_FLUSH_DISK_TIMEOUT << NOTE_SHIFT)


@action("SyncMasterTimeout", kind=3, actor="producer", place=(2,), when=lambda cfg: cfg.sync_master,
        phrase="a SYNC_MASTER send times out waiting for the slave",
        rocketmq="CommitLog#handleHA")
@kernel
def sync_master_timeout(v, w, p):
    """The 5 x 1 000 ms wait ends with ``push2SlaveMaxOffset`` still below the message's end:
    ``CommitLog#handleHA`` reports FLUSH_SLAVE_TIMEOUT."""
    if v[F.P_WAIT] == F.WAIT_NONE or v[F.M_UP] == 0 or v[F.P2S] >= log_max(v, 0):
        return 0
    put(w, F.P_WAIT, F.WAIT_NONE)
    return ENABLED | (OUT_FLUSH_SLAVE_TIMEOUT << NOTE_SHIFT)
