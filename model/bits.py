"""Message-set masks: a log, an acknowledged set or a delivered set as one bit per message id.

A commitlog is a strictly increasing sequence of message ids: the producer sends ids in order, a master
only appends or loses a suffix, and a slave only appends what the master holds after its own max
(``HAClient#dispatchReadRequest``). So the set of ids fixes the sequence, and bit ``m - 1`` of a mask says
whether message ``m`` is present. The kernel checks the increasing order on every append
(:func:`model.store.append_ids`) and reports a model error if it ever breaks.
"""
from __future__ import annotations

from explore.native import kernel


@kernel(inline=True)
def bit(m):
    """The mask of message id ``m`` (1-based)."""
    return 1 << (m - 1)


@kernel
def count(mask):
    """Number of messages in a mask (the log length, in messages)."""
    c = 0
    while mask:
        mask &= mask - 1
        c += 1
    return c


@kernel
def lowest(mask, k):
    """The ``k`` lowest ids of ``mask``: the first ``k`` entries of the log."""
    out = 0
    while k > 0 and mask:
        low = mask & -mask
        out |= low
        mask ^= low
        k -= 1
    return out


@kernel
def id_at(mask, position):
    """The message id at 0-based ``position`` of the log, or 0 if the log is shorter."""
    m = 1
    p = 0
    while mask:
        if mask & 1:
            if p == position:
                return m
            p += 1
        mask >>= 1
        m += 1
    return 0


@kernel
def highest_id(mask):
    """The last message id of the log, or 0 for an empty log."""
    m = 0
    while mask:
        mask >>= 1
        m += 1
    return m


@kernel
def from_position(mask, position):
    """The entries of the log from 0-based ``position`` to its end."""
    return mask ^ lowest(mask, position)


@kernel
def prefix_related(a, b):
    """True when one log is a prefix of the other."""
    na = count(a)
    nb_ = count(b)
    if na <= nb_:
        return lowest(b, na) == a
    return lowest(a, nb_) == b
