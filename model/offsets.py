"""The broker-side consumer-offset table (``broker/offset/ConsumerOffsetManager``).

One topic and one consumer group make one ``topic@group`` key; its per-queue map is a field per queue,
stored as ``offset + 1`` so that 0 means "no entry". The in-memory table and consumerOffset.json are
separate fields: only ``persist`` copies one to the other, and a restart loads the file.
"""
from __future__ import annotations


from explore.native import kernel
from .writes import put
from . import fields as F
from .events import EV_OFFSET_COMMITTED_TO_SLAVE
from .slots import K_MONOTONIC_COMMIT, K_QUEUES
from .store import entry_zero_in_disk, consume_queue

QUERY_NOT_FOUND = -1


@kernel(inline=True)
def offset_slot(b, q):
    """Slot of broker ``b``'s in-memory offset for queue ``q``."""
    return F.M_OFF_MEM + q if b == 0 else F.S_OFF_MEM + (b - 1) * F.MAX_QUEUES + q


@kernel(inline=True)
def offset_json_slot(b, q):
    """Slot of broker ``b``'s consumerOffset.json entry for queue ``q``."""
    return F.M_OFF_DISK + q if b == 0 else F.S_OFF_DISK + (b - 1) * F.MAX_QUEUES + q


@kernel
def commit_offset(w, b, q, offset, p):
    """``ConsumerOffsetManager#commitOffset``: a plain overwrite, whatever the stored value (a smaller one
    only logs "[NOTIFYME]update consumer offset less than store"); V1 ignores a smaller commit. Callers are
    UPDATE_CONSUMER_OFFSET (no role check: a slave stores commits too) and commit-on-pull. Also records
    the highest offset the group ever committed, for ``committed_offset_never_regresses``."""
    slot = offset_slot(b, q)
    stored = offset + 1
    if not (p[K_MONOTONIC_COMMIT] != 0 and w[slot] > stored):
        put(w, slot, stored)
    if offset > w[F.H_HIGH + q]:
        put(w, F.H_HIGH + q, offset)
    return EV_OFFSET_COMMITTED_TO_SLAVE if b > 0 else 0


@kernel
def query_consumer_offset(v, b, q, p):
    """``ConsumerManageProcessor#queryConsumerOffset`` on broker ``b``: the stored offset if any; else 0 when
    the queue's min offset is <= 0 and its entry 0 is not "in disk"; else QUERY_NOT_FOUND (-1)."""
    stored = v[offset_slot(b, q)] - 1
    if stored >= 0:
        return stored
    min_offset, entries = consume_queue(v, b, q, p)
    if min_offset <= 0 and not entry_zero_in_disk(v, b, q, p):
        return 0
    return QUERY_NOT_FOUND


@kernel
def has_group_key(v, b, p):
    """Whether broker ``b``'s in-memory table holds the group's ``topic@group`` key at all."""
    for q in range(p[K_QUEUES]):
        if v[offset_slot(b, q)] != 0:
            return True
    return False


@kernel
def persist_offsets(w, b, p):
    """``ConfigManager#persist`` of consumerOffset.json: the file takes the in-memory table."""
    for q in range(p[K_QUEUES]):
        put(w, offset_json_slot(b, q), w[offset_slot(b, q)])


@kernel
def load_offsets(w, b, p):
    """``ConfigManager#load`` at start: the in-memory table is what consumerOffset.json holds."""
    for q in range(p[K_QUEUES]):
        put(w, offset_slot(b, q), w[offset_json_slot(b, q)])
