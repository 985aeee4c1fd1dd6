"""Durability: what the producer was told and what the consumers saw must still be stored somewhere."""
from __future__ import annotations


from explore.native import kernel

from .declare import ALWAYS, EVENTUALLY, check
from model import fields as F
from model.slots import K_SLAVES


@kernel
def stored_anywhere(v, p):
    """Every message id held by the master's or any slave's commitlog (page cache or disk, up or down)."""
    held = v[F.M_LOG]
    for s in range(p[K_SLAVES]):
        held |= v[F.S_LOG + s]
    return held


@kernel
def kept_or_expired(v, p):
    """What a durability property accepts as not lost: stored somewhere, or removed by retention
    (``DeleteExpiredFiles``). Deletion is by age (``fileReservedTime``): the copy one broker expired is as
    old on every other broker, so a message retention removed anywhere is gone by design, not lost."""
    return stored_anywhere(v, p) | v[F.H_EXPIRED]


@check(kind=ALWAYS, summary="every SEND_OK message is still in some broker's commitlog",
       reads=r"\.commitlog$|^producer\.sendOk$")
@kernel
def acked_message_never_lost(v, p):
    """Every message the producer was told SEND_OK for is still in the commitlog of the master or of some
    slave - counting what survived on disk or in the page cache after the failures so far. Under
    ASYNC_FLUSH and ASYNC_MASTER, SEND_OK only means "appended to the master's page cache", so a master
    power loss before the flush and before a slave copied the message breaks it. A message that retention
    deleted (``DeleteExpiredFiles``) is not counted: deletion by age is by design."""
    return v[F.P_ACKED] & ~kept_or_expired(v, p) == 0


@check(kind=ALWAYS, summary="every message delivered to a consumer is still stored on some broker",
       reads=r"\.commitlog$|^history\.delivered$")
@kernel
def consumed_message_never_lost(v, p):
    """Every message already delivered to a consumer's application is still stored on some broker. A
    consumer reads the master's page cache, so it can see a message that a power loss then erases
    everywhere: the application acted on a message the cluster no longer has. A message retention deleted
    is not counted."""
    return v[F.H_DELIVERED] & ~kept_or_expired(v, p) == 0


@kernel
def consumed_or_expired(v, p):
    """Q of ``acked_message_eventually_consumed``: the messages delivered to a consumer's application, and
    those retention removed from every broker (``DeleteExpiredFiles`` on each copy) before anyone did."""
    return v[F.H_DELIVERED] | (v[F.H_EXPIRED] & ~stored_anywhere(v, p))


@check(kind=EVENTUALLY, summary="every SEND_OK message is eventually delivered to the application",
       leads_to=consumed_or_expired, over="messages")
@kernel
def acked_message_eventually_consumed(v, p):
    """At-least-once delivery, as RocketMQ sells it: every message the producer was told SEND_OK for is,
    sooner or later, delivered to a consumer's application (``ConsumeMessageConcurrentlyService`` hands it
    to the listener), on every fair run: the periodic tasks (flush, HA push, route refresh, rebalance,
    pull, consume, offset persist, restarts) keep running, while crashes, power losses, HA disconnects and
    deletions happen at most as often as their budgets allow and need not happen at all. A message that
    retention removed from every broker before anyone consumed it is not asked for. It fails when a
    SEND_OK message is lost (a power loss before flush and replication) or when consumers can stay stuck
    for ever without ever pulling it (the counterexample is a lasso: a path and a cycle repeated for
    ever, along which the message is never delivered). Ranges over messages: checked for each one."""
    return v[F.P_ACKED]
