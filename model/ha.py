"""HA replication between the master and each slave (``store/ha``: ``HAClient``, ``HAConnection``).

The link of slave ``s`` is one field seen from both sides: down, connected (the master waits for the
first report, ``slaveRequestOffset == -1``), or streaming (the master pushes from
``nextTransferFromWhere``). A push moves every entry the master has from the transfer position to the end
of that commitlog file: a block is up to 32 KiB, far more than the model's messages, but never spans two
files.
"""
from __future__ import annotations


from .declare import SLAVE, Arrow, Note, action
from explore.native import kernel
from .writes import put
from . import fields as F
from .events import ENABLED, ERR_LOG_ORDER, ERROR, NOTE_SHIFT, OUT_MISMATCH_CLOSE, OUT_REPORT_REJECTED
from .slots import K_HA_CLOSE_ON_ACK_BEYOND_MASTER_MAX, K_MAX_HA_DISCONNECTS, K_VALIDATE_SLAVE_ACK
from .store import append_ids, entries_between, file_end, file_start, log_max


@kernel
def close_link(w, s):
    """Both ends of slave ``s``'s HA connection shut down (``HAClient#closeMaster``, ``HAConnection#close``)."""
    put(w, F.S_LINK + s, F.LINK_DOWN)
    put(w, F.S_TRANSFER + s, 0)


@action("SlaveConnect", kind=5, actor="ha", place=(SLAVE, 0), rocketmq="HAClient#connectMaster",
        phrase="the slave opens its HA connection to the master", drawn=Arrow("slave", "master", "HA connect"))
@kernel
def slave_connect(v, w, s, p):
    """``HAClient#connectMaster``: needs the master's HA address and a master process listening on it."""
    if v[F.S_UP + s] == 0 or v[F.S_HA_ADDR + s] == 0 or v[F.M_UP] == 0 or v[F.S_LINK + s] != F.LINK_DOWN:
        return 0
    put(w, F.S_LINK + s, F.LINK_CONNECTED)
    return ENABLED


@action("SlaveReportOffset", kind=6, actor="ha", place=(SLAVE, 1),
        phrase="the slave reports its commitlog max offset to the master",
        rocketmq="HAClient#reportSlaveMaxOffset")
@kernel
def slave_report_offset(v, w, s, p):
    """``HAClient#reportSlaveMaxOffset`` -> ``HAConnection.ReadSocketService#processReadEvent``.

    The report is the slave's commitlog max (``getMaxPhyOffset``, flushed or not), taken without checking
    it against the master's range. The first report starts streaming at the reported offset, or at the
    start of the master's last commitlog file (``masterMax - masterMax % mapedFileSize``) when it is 0.
    ``HAService#notifyTransferSome`` raises the one shared ``push2SlaveMaxOffset``. V5 closes the connection on a report beyond the
    master's max, without notifying. A repeated report of the same value changes nothing and is omitted.

    Version switch ``ha_close_on_ack_beyond_master_max`` (RocketMQ 4.9.3, #3015): a report beyond the
    master's max that is not the connection's first (``slaveRequestOffset >= 0``: the link is streaming)
    closes the connection (``processReadEvent`` returns false before ``notifyTransferSome``); the first
    report is still taken unchecked, as in 4.4.0.
    """
    link = v[F.S_LINK + s]
    if link == F.LINK_DOWN:
        return 0
    reported = log_max(v, s + 1)
    if reported > log_max(v, 0) and (p[K_VALIDATE_SLAVE_ACK] != 0 or (
            p[K_HA_CLOSE_ON_ACK_BEYOND_MASTER_MAX] != 0 and link == F.LINK_STREAMING)):
        close_link(w, s)
        return ENABLED | (OUT_REPORT_REJECTED << NOTE_SHIFT)
    if link == F.LINK_CONNECTED:
        put(w, F.S_LINK + s, F.LINK_STREAMING)
        put(w, F.S_TRANSFER + s, reported if reported != 0 else file_start(log_max(v, 0), p))
    if reported > v[F.P2S]:
        put(w, F.P2S, reported)
    return ENABLED


@action("MasterPushData", kind=7, actor="ha", place=(SLAVE, 2),
        phrase="the master pushes commitlog data to the slave",
        rocketmq="HAConnection.WriteSocketService#run")
@kernel
def master_push_data(v, w, s, p):
    """``HAConnection.WriteSocketService#run`` + ``HAClient#dispatchReadRequest``.

    The master sends its entries from ``nextTransferFromWhere`` to its max or to the end of the file
    holding the position, whichever comes first (``getCommitLogData`` reads one mapped file; the open
    loop: the position only advances by what was sent), or a header-only heartbeat carrying the position
    when it has nothing there (beyond its max, or below its min offset: ``findMappedFileByOffset`` finds no
    file). The slave checks the header offset against its own max: a non-empty slave whose max differs
    closes the connection ("master pushed offset not equal the max phy offset in slave"); an empty slave
    accepts any offset. A heartbeat that passes the check changes nothing and is omitted.
    """
    done, flags, position, end = block_to_push(v, w, s, p)
    if done:
        return flags
    return append_block(v, w, s, position, end, entries_between(v, 0, position, end), p)


@kernel
def block_to_push(v, w, s, p):
    """Where the next block of slave ``s``'s connection starts and ends: ``(done, flags, position, end)``,
    ``done`` when the step ends without a block - the link is not streaming, the slave closed it on an
    offset mismatch (``flags`` says so), or the master has nothing at the position (a heartbeat)."""
    if v[F.S_LINK + s] != F.LINK_STREAMING:
        return True, 0, 0, 0
    slave_max = log_max(v, s + 1)
    position = v[F.S_TRANSFER + s]
    if slave_max != 0 and slave_max != position:
        close_link(w, s)
        return True, ENABLED | (OUT_MISMATCH_CLOSE << NOTE_SHIFT), 0, 0
    master_max = log_max(v, 0)
    if position >= master_max or position < v[F.M_MIN]:
        return True, 0, 0, 0
    return False, 0, position, min(master_max, file_end(position, p))


@kernel
def append_block(v, w, s, position, end, block, p):
    """``HAClient#dispatchReadRequest`` appending ``block`` (the master's entries at ``[position, end)``)."""
    if log_max(v, s + 1) == 0:
        # an empty slave takes any offset: CommitLog#appendData creates its first file at the start of the
        # file holding the position and appends at that file's write position, its start
        put(w, F.S_MIN + s, file_start(position, p))
    if not append_ids(w, s + 1, block):
        return ERROR | (ERR_LOG_ORDER << NOTE_SHIFT)
    put(w, F.S_TRANSFER + s, end)
    return ENABLED


@action("HaDisconnect", kind=8, actor="ha", place=(SLAVE, 3), when=lambda cfg: cfg.max_ha_disconnects > 0,
        phrase="the HA connection drops", drawn=Note("slave", "HA link drops"),
        rocketmq="HAClient#closeMaster")
@kernel
def ha_disconnect(v, w, s, p):
    """The HA connection drops (a network fault, or ``haHousekeepingInterval`` (20 s) expiring on either
    side): both ``HAClient#closeMaster`` and the master's ``HAConnection`` shut down."""
    if v[F.S_LINK + s] == F.LINK_DOWN or v[F.B_HA_DISCONNECT] >= p[K_MAX_HA_DISCONNECTS]:
        return 0
    close_link(w, s)
    put(w, F.B_HA_DISCONNECT, w[F.B_HA_DISCONNECT] + 1)
    return ENABLED
