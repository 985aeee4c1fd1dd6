"""The message store of one broker: commitlog, flush, consume queues and ``getMessage``.

Broker ``b`` is the master for ``b == 0`` and slave ``b`` (field index ``b - 1``) otherwise. Offsets are in
messages. A commitlog is the ids it still holds (``commitlog``, in offset order) from its min offset on
(``min_offset``: the start of its oldest retained file), so its max offset (``getMaxPhyOffset``) is the min
plus the entries held. With ``commitlog_file_messages = 0`` it is one unbounded file: the min stays 0.
With files of ``F`` messages, file ``k`` holds offsets ``[kF, (k+1)F)``; ``DeleteExpiredFiles`` removes
the oldest file that is not the last (the min rises by ``F``), and an empty slave's first HA push starts
at the master's last file, so a slave's min can start above 0.
"""
from __future__ import annotations


from .declare import BROKER, Note, action
from .events import ENABLED
from explore.native import kernel
from .writes import put
from . import fields as F
from .bits import bit, count, from_position, highest_id, lowest
from .slots import (K_BACKLOG, K_FILE_MESSAGES, K_MAX_FILE_DELETIONS, K_OFFSET_CHECK_IN_SLAVE,
                     K_OVERFLOW_TO_MAX, K_PULL_BATCH_DISK, K_PULL_BATCH_MEMORY, K_QUEUES)

# DefaultMessageStore#getMessage statuses that the model can reach
GET_FOUND = 0
GET_NO_MESSAGE_IN_QUEUE = 1
GET_OFFSET_TOO_SMALL = 2
GET_OFFSET_OVERFLOW_ONE = 3
GET_OFFSET_OVERFLOW_BADLY = 4
GET_NOT_THIS_BATCH = 5      # not a status: this batch length is not one the pull can return here


@kernel(inline=True)
def log_slot(b):
    return F.M_LOG if b == 0 else F.S_LOG + b - 1


@kernel(inline=True)
def flushed_slot(b):
    return F.M_FLUSHED if b == 0 else F.S_FLUSHED + b - 1


@kernel(inline=True)
def up_slot(b):
    return F.M_UP if b == 0 else F.S_UP + b - 1


@kernel(inline=True)
def min_slot(b):
    return F.M_MIN if b == 0 else F.S_MIN + b - 1


@kernel
def log_max(v, b):
    """``DefaultMessageStore#getMaxPhyOffset`` of broker ``b``, in messages (flushed or not)."""
    return v[min_slot(b)] + count(v[log_slot(b)])


@kernel
def file_start(offset, p):
    """Start offset of the commitlog file holding ``offset`` (``offset - offset % mapedFileSize``); 0 with
    one unbounded file."""
    size = p[K_FILE_MESSAGES]
    return 0 if size == 0 else offset - offset % size


@kernel
def file_end(offset, p):
    """End offset of the commitlog file holding ``offset``: an HA block never spans two files."""
    size = p[K_FILE_MESSAGES]
    return (1 << 30) if size == 0 else file_start(offset, p) + size


@kernel
def entries_between(v, b, start, end):
    """The ids broker ``b`` holds at offsets ``[start, end)`` (within what it holds)."""
    first = v[min_slot(b)]
    return lowest(from_position(v[log_slot(b)], start - first), end - start)


@kernel
def append_ids(w, b, ids):
    """Append the messages ``ids`` to broker ``b``'s commitlog.

    ``CommitLog#putMessage`` on the master, ``CommitLog#appendData`` on a slave. Returns False when an id
    would not come after the current last entry: the increasing order the mask encoding relies on.
    """
    slot = log_slot(b)
    if ids == 0:
        return True
    if w[slot] != 0 and (ids & -ids) <= (1 << (highest_id(w[slot]) - 1)):
        return False
    put(w, slot, w[slot] | ids)
    return True


@kernel
def flush_commitlog(w, b):
    """``MappedFileQueue#flush`` up to the wrote position: everything written so far is on disk."""
    put(w, flushed_slot(b), count(w[log_slot(b)]))


@action("DeleteExpiredFiles", kind=29, actor="store", place=(BROKER, 1),
        phrase="a broker deletes its oldest expired commitlog file (retention)",
        when=lambda cfg: cfg.max_file_deletions > 0, rocketmq="MappedFileQueue#deleteExpiredFileByTime")
@kernel
def delete_expired_files(v, w, b, p):
    """``DefaultMessageStore.CleanCommitLogService`` -> ``MappedFileQueue#deleteExpiredFileByTime`` on
    broker ``b``: the oldest commitlog file goes once it is older than ``fileReservedTime`` (72 h), never
    the last file (the loop stops before it). Abstracted as: any broker that runs, whose oldest file is
    not its last, may delete it, within ``max_file_deletions`` for all brokers together. 72 h after it
    was written the file has long been flushed (``flushCommitLogThoroughInterval`` is 10 s), so only a
    flushed file is deleted. The min offset rises to the next file; the consume queues' min offsets
    follow (``CleanConsumeQueueService``, ``ConsumeQueue#correctMinOffset``, which run every 10 s: long
    before the next file expires); the deleted messages are noted as expired for the properties."""
    size = p[K_FILE_MESSAGES]
    first = v[min_slot(b)]
    if v[up_slot(b)] == 0 or v[F.B_FILE_DELETIONS] >= p[K_MAX_FILE_DELETIONS] or size == 0:
        return 0
    if log_max(v, b) <= first + size or v[flushed_slot(b)] < size:
        return 0
    gone = lowest(v[log_slot(b)], size)
    put(w, log_slot(b), v[log_slot(b)] ^ gone)
    put(w, min_slot(b), first + size)
    put(w, flushed_slot(b), v[flushed_slot(b)] - size)
    put(w, F.H_EXPIRED, v[F.H_EXPIRED] | gone)
    put(w, F.B_FILE_DELETIONS, v[F.B_FILE_DELETIONS] + 1)
    return ENABLED


@action("FlushCommitLog", kind=4, actor="store", place=(BROKER,), rocketmq="MappedFileQueue#flush",
        phrase="a broker flushes its commitlog to disk", drawn=Note("broker", "flush commitlog"))
@kernel
def flush_commitlog_action(v, w, b, p):
    """A broker writes its commitlog back to disk (``MappedFileQueue#flush``): ``FlushRealTimeService``
    under ASYNC_FLUSH, or the idle pass of ``GroupCommitService`` under SYNC_FLUSH; a slave flushes its
    HA-appended data on its own schedule. Abstracted as flushing everything written so far; needs the
    broker up (a flush that changes nothing is no transition)."""
    if v[up_slot(b)] == 0:
        return 0
    flush_commitlog(w, b)
    return ENABLED


@kernel
def queue_of(m, p):
    """The queue a message goes to: the producer's round robin starting at queue 0."""
    return (m - 1) % p[K_QUEUES]


@kernel
def consume_queue(v, b, q, p):
    """Broker ``b``'s consume queue ``q`` as ``(min_offset, entries)``; ``entries`` is the set of message ids
    at queue offsets ``min_offset, min_offset + 1, ...`` in log order.

    Reput (``DefaultMessageStore.ReputMessageService#doReput``) dispatches the commitlog in order into
    ``ConsumeQueue#putMessagePositionInfo``, whose rules this fold applies: the first entry of a new queue
    with queue offset > 0 pre-fills blanks and sets the min offset there; an entry below the queue's end is
    ignored ("Build consume queue repeatedly"); one above the end is stored at the end ("[BUG]logic queue
    order maybe wrong"). A message's queue offset is the one the master gave it at put time: with one
    queue that is its commitlog offset in every log holding it (the queue starts at the log's min offset:
    entries whose messages retention deleted are gone with them); with two queues it is recorded per
    message (retention is modelled with one queue only).
    """
    log = v[log_slot(b)]
    queues = p[K_QUEUES]
    if queues == 1:
        return v[min_slot(b)], log
    entries = 0
    min_offset = 0
    end = 0
    created = False
    mask = log
    m = 1
    while mask:
        if mask & 1 and (m - 1) % queues == q:
            qo = v[F.MSG_QO + m - 1]
            if not created:
                created = True
                min_offset = qo
                end = qo + 1
                entries |= bit(m)
            elif qo >= end:
                entries |= bit(m)
                end += 1
        mask >>= 1
        m += 1
    return min_offset, entries


@kernel
def queue_max(v, b, q, p):
    """``ConsumeQueue#getMaxOffsetInQueue``: 0 for a queue that never had an entry; a queue whose entries
    all expired keeps its end."""
    min_offset, entries = consume_queue(v, b, q, p)
    return min_offset + count(entries)


@kernel
def messages_behind(v, b, m):
    """How many messages lie in broker ``b``'s commitlog after message ``m`` (the 40 % rule's distance)."""
    log = v[log_slot(b)]
    return count(log) - count(log & (bit(m) - 1)) - 1


@kernel
def queue_offset_of(v, m, position, p):
    """The queue offset message ``m`` carries (what ``ProcessQueue`` keys it by)."""
    if p[K_QUEUES] == 1:
        return position
    return v[F.MSG_QO + m - 1]


@kernel
def in_disk(v, b, m, p):
    """``DefaultMessageStore#checkInDiskByCommitOffset`` for message ``m`` of broker ``b``'s commitlog: the
    40 % rule, as "more than ``consume_slowly_backlog`` messages lie after it in the log"."""
    return messages_behind(v, b, m) > p[K_BACKLOG]


@kernel
def batch_may_end(v, b, ids, k, p):
    """Whether a pull may return exactly the first ``k`` of ``ids`` (``DefaultMessageStore#getMessage``'s
    loop with ``isTheBatchFull``): it takes the first message always, and each next one unless the count
    limit of that message's kind (in disk or in memory) is already reached; a limit of 0 never binds. Any
    batch may also end early on the byte limits, message sizes being abstract."""
    mask = ids
    taken = 0
    m = 1
    while mask and taken < k:
        if mask & 1:
            if taken > 0:
                limit = p[K_PULL_BATCH_DISK] if in_disk(v, b, m, p) else p[K_PULL_BATCH_MEMORY]
                if limit != 0 and taken >= limit:
                    return False
            taken += 1
        mask >>= 1
        m += 1
    return True


@kernel
def get_message(v, b, q, off, batch, p):
    """``DefaultMessageStore#getMessage`` on broker ``b``: ``(status, next_begin, ids, slow, pq_max)``.

    A FOUND pull returns a non-empty prefix of the entries from ``off`` on: ``batch`` is the number of
    messages taken when fewer than all (0 = all of them); GET_NOT_THIS_BATCH says that this length is not
    one the pull can return here (the count limits of :func:`batch_may_end`), or that the pull does not
    find messages at all while a partial batch was asked for. ``slow`` is ``suggestPullingFromSlave``: the
    40 % rule on the last consume-queue entry scanned (``maxPhyOffsetPulling``), which is the last message
    returned when the batch took every entry, and the first one not returned when ``isTheBatchFull`` cut
    it (4.4 sets ``maxPhyOffsetPulling`` before that test breaks the loop; 5.0 later moved it after).
    ``pq_max`` is one past the highest queue offset returned. ``nextOffsetCorrection`` keeps ``off`` on a
    slave unless ``offsetCheckInSlave``; V4 corrects an overflow to the max whatever the min.
    """
    correct = b == 0 or p[K_OFFSET_CHECK_IN_SLAVE] != 0
    min_offset, entries = consume_queue(v, b, q, p)
    max_offset = min_offset + count(entries)
    if batch > 0 and (off < min_offset or off >= max_offset):
        return GET_NOT_THIS_BATCH, off, 0, False, 0
    if max_offset == 0:
        return GET_NO_MESSAGE_IN_QUEUE, (0 if correct else off), 0, False, 0
    if off < min_offset:
        return GET_OFFSET_TOO_SMALL, (min_offset if correct else off), 0, False, 0
    if off == max_offset:
        return GET_OFFSET_OVERFLOW_ONE, off, 0, False, 0
    if off > max_offset:
        target = max_offset if (min_offset > 0 or p[K_OVERFLOW_TO_MAX] != 0) else 0
        return GET_OFFSET_OVERFLOW_BADLY, (target if correct else off), 0, False, 0
    ids = from_position(entries, off - min_offset)
    available = count(ids)
    taken = available if batch == 0 else batch
    if taken > available or (batch > 0 and taken == available) or not batch_may_end(v, b, ids, taken, p):
        return GET_NOT_THIS_BATCH, off, 0, False, 0
    scanned = ids
    ids = lowest(ids, taken)
    if taken < available:
        # Cut by isTheBatchFull: getMessage set maxPhyOffsetPulling from the next entry before breaking.
        scanned = lowest(scanned, taken + 1)
    slow = in_disk(v, b, highest_id(scanned), p)
    pq_max = 0
    position = off
    mask = ids
    m = 1
    while mask:
        if mask & 1:
            qo = queue_offset_of(v, m, position, p) + 1
            if qo > pq_max:
                pq_max = qo
            position += 1
        mask >>= 1
        m += 1
    return GET_FOUND, off + taken, ids, slow, pq_max


@kernel
def entry_zero_in_disk(v, b, q, p):
    """``DefaultMessageStore#checkInDiskByConsumeOffset(topic, q, 0)``: the entry at queue offset 0 exists
    and its message lies beyond the in-memory window (the 40 % rule) behind the commitlog max."""
    min_offset, entries = consume_queue(v, b, q, p)
    if entries == 0 or min_offset > 0:
        return False
    first = entries & -entries
    return in_disk(v, b, highest_id(first), p)
