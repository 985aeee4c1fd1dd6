"""The message store of one broker: commitlog, flush, consume queues and ``getMessage``.

Broker ``b`` is the master for ``b == 0`` and slave ``b`` (field index ``b - 1``) otherwise. Offsets are in
messages. Commitlog files are never deleted within the model's bounds (``fileReservedTime`` is 72 h), so
every commitlog starts at 0, its last file starts at 0, and consume queues keep their minimum unless the
first entry a queue ever got had a queue offset above 0.
"""
from __future__ import annotations


from .declare import BROKER, action
from .events import ENABLED
from .native import kernel
from .writes import put
from . import fields as F
from .bits import bit, count, from_position, highest_id
from .params import K_BACKLOG, K_OFFSET_CHECK_IN_SLAVE, K_OVERFLOW_TO_MAX, K_QUEUES

# DefaultMessageStore#getMessage statuses that the model can reach
GET_FOUND = 0
GET_NO_MESSAGE_IN_QUEUE = 1
GET_OFFSET_TOO_SMALL = 2
GET_OFFSET_OVERFLOW_ONE = 3
GET_OFFSET_OVERFLOW_BADLY = 4


@kernel(inline=True)
def log_slot(b):
    return F.M_LOG if b == 0 else F.S_LOG + b - 1


@kernel(inline=True)
def flushed_slot(b):
    return F.M_FLUSHED if b == 0 else F.S_FLUSHED + b - 1


@kernel(inline=True)
def up_slot(b):
    return F.M_UP if b == 0 else F.S_UP + b - 1


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


@action("FlushCommitLog", kind=4, actor="store", place=(BROKER,), rocketmq="MappedFileQueue#flush")
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
    queue that is its position in every log holding it; with two queues it is recorded per message.
    """
    log = v[log_slot(b)]
    queues = p[K_QUEUES]
    if queues == 1:
        return 0, log
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
    """``ConsumeQueue#getMaxOffsetInQueue``: 0 for a queue with no entries."""
    min_offset, entries = consume_queue(v, b, q, p)
    if entries == 0:
        return 0
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
def get_message(v, b, q, off, p):
    """``DefaultMessageStore#getMessage`` on broker ``b``: ``(status, next_begin, ids, slow, pq_max)``.

    ``ids`` are the messages returned (every entry from ``off`` to the queue's end: the per-pull limits of
    32 in memory / 8 on disk exceed the model's messages), ``slow`` is ``suggestPullingFromSlave`` (the
    40 % rule, as "more than ``consume_slowly_backlog`` messages after the last one returned"), and
    ``pq_max`` is one past the highest queue offset returned. ``nextOffsetCorrection`` keeps ``off`` on a
    slave unless ``offsetCheckInSlave``; V4 corrects an overflow to the max whatever the min.
    """
    correct = b == 0 or p[K_OFFSET_CHECK_IN_SLAVE] != 0
    min_offset, entries = consume_queue(v, b, q, p)
    max_offset = min_offset + count(entries) if entries else 0
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
    last = highest_id(ids)
    slow = messages_behind(v, b, last) > p[K_BACKLOG]
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
    return GET_FOUND, max_offset, ids, slow, pq_max


@kernel
def entry_zero_in_disk(v, b, q, p):
    """``DefaultMessageStore#checkInDiskByConsumeOffset(topic, q, 0)``: the entry at queue offset 0 exists
    and its message lies beyond the in-memory window (the 40 % rule) behind the commitlog max."""
    min_offset, entries = consume_queue(v, b, q, p)
    if entries == 0 or min_offset > 0:
        return False
    first = entries & -entries
    return messages_behind(v, b, highest_id(first)) > p[K_BACKLOG]
