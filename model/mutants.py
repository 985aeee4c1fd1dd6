"""Seeded bugs for testing the checker itself: each breaks one mechanism on purpose.

A property that holds (or a behaviour that is reached) proves something only if the check can fail: the
tests build a model with one of these mutations and expect the verdict to flip. They are not user knobs; a
model gets one through ``RocketMQModel(config, mutation=NAME)``.

A mutation is an alternative kernel function for one or more actions, declared here with ``@mutant``; the
model built with it puts the mutant's kind code in place of the real action's in its action table, so the
action keeps its label and place and the protocol code has no branch for it. Each mutant runs the real
action, then breaks one thing in the successor it wrote (or, for a slave refusing pulls and a master that
never restarts, takes the step away).
"""
from __future__ import annotations

from .bits import count, lowest
from .client import correct_illegal_offset, mq, note, persist_all_offsets, pull, rebalance
from .declare import mutant
from .events import (DISCARD, ENABLED, EV_OFFSET_COMMITTED_TO_SLAVE, NOTE_BROKER_SHIFT, NOTE_SHIFT, OUT_FOUND,
                     OUT_NO_MATCHED_MSG, OUT_NO_NEW_MSG, OUT_OFFSET_ILLEGAL, OUT_PULL_FAILED)
from .failures import forget_lost_queue_offsets, master_crash
from .ha import append_block, block_to_push
from explore.native import kernel
from .offsets import commit_offset, offset_slot
from .slots import K_QUEUES, K_SLAVES, K_SYNC_FLUSH
from .producer import send_message
from .store import entries_between
from .writes import put
from . import fields as F


@kernel(inline=True)
def served_by(flags):
    """The brokerId that answered a pull (its outcome note), or -1 when no broker answered it."""
    outcome = (flags >> NOTE_SHIFT) & 0xFF
    answered = outcome == OUT_FOUND or outcome == OUT_NO_NEW_MSG or outcome == OUT_NO_MATCHED_MSG or \
        outcome == OUT_OFFSET_ILLEGAL
    if not flags & ENABLED or not answered:
        return -1
    return (flags >> (NOTE_SHIFT + NOTE_BROKER_SHIFT)) & 0xFF


@mutant("ack_without_flush", replaces=("SendMessage",), kind=101)
@kernel
def send_acked_without_flush(v, w, flush_timeout, p):
    """SYNC_FLUSH: a send reports SEND_OK without flushing."""
    f = send_message(v, w, flush_timeout, p)
    if p[K_SYNC_FLUSH] != 0:
        put(w, F.M_FLUSHED, v[F.M_FLUSHED])
    return f


@mutant("replica_skips_entry", replaces=("MasterPushData",), kind=102)
@kernel
def push_skipping_first_entry(v, w, s, p):
    """The master's push leaves out the first entry it should send."""
    done, flags, position, end = block_to_push(v, w, s, p)
    if done:
        return flags
    block = entries_between(v, 0, position, end)
    return append_block(v, w, s, position, end, block & (block - 1), p)


@mutant("crash_loses_page_cache", replaces=("MasterCrash",), kind=103)
@kernel
def crash_losing_page_cache(v, w, p):
    """A master process crash loses unflushed data, like a power loss."""
    f = master_crash(v, w, p)
    if f & ENABLED:
        put(w, F.M_LOG, lowest(v[F.M_LOG], v[F.M_FLUSHED]))
        forget_lost_queue_offsets(w, p)
        put(w, F.M_FLUSHED, count(w[F.M_LOG]))
    return f


@kernel
def recommit_on_pull(v, w, q, offset, p):
    """Commit-on-pull again with ``offset`` instead of what the real pull committed."""
    put(w, offset_slot(0, q), v[offset_slot(0, q)])
    put(w, F.H_HIGH + q, v[F.H_HIGH + q])
    return commit_offset(w, 0, q, offset, p)


@mutant("commit_on_pull_off_by_one", replaces=("Pull",), kind=104)
@kernel
def pull_committing_one_less(v, w, c, q, batch, p):
    """Commit-on-pull stores the client's offset minus one."""
    f = pull(v, w, c, q, batch, p)
    memory_offset = v[F.MQ_MEM + mq(c, q)] - 1
    if served_by(f) == 0 and memory_offset > 0:
        f |= recommit_on_pull(v, w, q, memory_offset - 1, p)
    return f


@mutant("commit_on_pull_next_begin", replaces=("Pull",), kind=105)
@kernel
def pull_committing_next_begin(v, w, c, q, batch, p):
    """Commit-on-pull stores the end of what this pull returns (FOUND) instead of the client's offset."""
    f = pull(v, w, c, q, batch, p)
    if served_by(f) == 0 and v[F.MQ_MEM + mq(c, q)] - 1 > 0 and (f >> NOTE_SHIFT) & 0xFF == OUT_FOUND:
        f |= recommit_on_pull(v, w, q, w[F.MQ_NEXT + mq(c, q)], p)
    return f


@mutant("slave_refuses_pull", replaces=("Pull",), kind=106)
@kernel
def pull_refused_by_slaves(v, w, c, q, batch, p):
    """A slave answers every pull with an error: the pull fails and changes nothing but the route the
    lookup refreshed."""
    f = pull(v, w, c, q, batch, p)
    b = served_by(f)
    if b <= 0:
        return f
    for i in range(F.NFIELDS):
        if i != F.C_ROUTE + c and w[i] != v[i]:
            put(w, i, v[i])
    if batch > 0:
        return DISCARD
    return ENABLED | note(OUT_PULL_FAILED, b)


@kernel
def drop_slave_commits(v, w, f, p):
    """Undo every offset a slave stored during the step, and the event that noted it."""
    if not f & EV_OFFSET_COMMITTED_TO_SLAVE:
        return f
    for s in range(p[K_SLAVES]):
        for q in range(p[K_QUEUES]):
            put(w, offset_slot(s + 1, q), v[offset_slot(s + 1, q)])
    return f & ~EV_OFFSET_COMMITTED_TO_SLAVE


@mutant("slave_drops_offset_commits", replaces=("PersistAllOffsets",), kind=107)
@kernel
def persist_all_lost_on_slaves(v, w, c, p):
    """A slave never stores a client's offset commit (``UPDATE_CONSUMER_OFFSET``)."""
    return drop_slave_commits(v, w, persist_all_offsets(v, w, c, p), p)


@mutant("slave_drops_offset_commits", replaces=("Rebalance",), kind=108)
@kernel
def rebalance_commit_lost_on_slaves(v, w, c, p):
    """A slave never stores a client's offset commit (``UPDATE_CONSUMER_OFFSET``)."""
    return drop_slave_commits(v, w, rebalance(v, w, c, p), p)


@mutant("slave_drops_offset_commits", replaces=("CorrectIllegalOffset",), kind=109)
@kernel
def correction_lost_on_slaves(v, w, c, q, p):
    """A slave never stores a client's offset commit (``UPDATE_CONSUMER_OFFSET``)."""
    return drop_slave_commits(v, w, correct_illegal_offset(v, w, c, q, p), p)


@mutant("master_never_restarts", replaces=("MasterRestart",), kind=110)
@kernel
def master_staying_down(v, w, p):
    """The master stays down after a failure."""
    return 0


@mutant("application_never_consumes", replaces=("Consume",), kind=111)
@kernel
def consume_never_delivering(v, w, c, q, p):
    """The application is never handed a pulled message (a listener that never runs)."""
    return 0


@mutant("application_never_consumes", replaces=("ConsumeDropped",), kind=112)
@kernel
def consume_dropped_never_delivering(v, w, c, q, p):
    """The application is never handed a pulled message (a listener that never runs)."""
    return 0


@mutant("consumer_stops_after_route_change", replaces=("Pull",), kind=113)
@kernel
def pull_only_while_route_lists_master(v, w, c, q, batch, p):
    """A consumer whose cached route no longer lists the master stops pulling: it never fails over to a
    slave (``PullAPIWrapper#recalculatePullFromWhichNode`` would send it there)."""
    if v[F.C_ROUTE + c] & 1 == 0:
        return 0
    return pull(v, w, c, q, batch, p)
