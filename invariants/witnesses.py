"""``sometimes`` properties: behaviours the model must be able to show, or it is vacuous.

Most are witnessed by a transition: the kernel reports an event when an action does the thing
(:mod:`model.events`), named by the property's declaration; the generated ``transition_check`` maps
events to property bits. The docstrings below are
the properties' descriptions.
"""
from __future__ import annotations


from explore.native import kernel

from .declare import SOMETIMES, check
from model import fields as F


@check(kind=SOMETIMES, summary="a slave answers a pull with messages", event="EV_SLAVE_SERVED_PULL")
def slave_serves_pull() -> None:
    """A pull is answered FOUND by a slave: the client was routed there by a suggestion or because its
    route no longer listed the master (``findBrokerAddressInSubscribe`` falls back to the first entry), and
    the slave serves even with slaveReadEnable=false."""


@check(kind=SOMETIMES, summary="a consumer offset commit lands on a slave", event="EV_OFFSET_COMMITTED_TO_SLAVE")
def offset_committed_to_slave() -> None:
    """A consumer's offset commit (UPDATE_CONSUMER_OFFSET from ``persistAll``, a rebalance or the
    OFFSET_ILLEGAL correction) is stored by a slave, because the client's route had lost the master."""


@check(kind=SOMETIMES, summary="the master restarts after a failure", event="EV_MASTER_RECOVERED")
def master_recovers() -> None:
    """The master restarts after a crash or a power loss and serves again."""


@check(kind=SOMETIMES, summary="a slave's offset sync lowers an offset the slave held",
       event="EV_SLAVE_SYNC_LOWERED_OFFSET")
def slave_sync_overwrites_offset() -> None:
    """``SlaveSynchronize#syncConsumerOffset`` lowers (or removes) an offset a slave held, replacing it with
    the master's older value."""


@check(kind=SOMETIMES, summary="some message is delivered to the application twice")
@kernel
def message_redelivered(v, p):
    """Some message is delivered to the application a second time (at-least-once in action: a crash, a
    rebalance or an offset moved back made the group consume it again)."""
    return v[F.H_REDELIVERED] != 0


# -- availability: the cluster still gives service -----------------------------------------------------
@check(kind=SOMETIMES, summary="the producer is told SEND_OK for a message")
@kernel
def message_acked(v, p):
    """The producer is told SEND_OK for some message (``SendResult.sendStatus``): the broker accepts
    writes. Under SYNC_MASTER with no slave that has caught up, every send ends SLAVE_NOT_AVAILABLE or
    FLUSH_SLAVE_TIMEOUT instead, so a configuration where this is never reached gives no service, and a
    durability property that holds there holds vacuously."""
    return v[F.P_ACKED] != 0


@check(kind=SOMETIMES, summary="a message is delivered to the application")
@kernel
def message_consumed(v, p):
    """Some message is delivered to a consumer's application (``MessageListenerConcurrently#consumeMessage``
    is called with it): the group receives what was sent. A configuration where this is never reached
    gives no service to consumers."""
    return v[F.H_DELIVERED] != 0


@check(kind=SOMETIMES, summary="the producer is told SEND_OK while the slave is away",
       event="EV_ACKED_WITH_SLAVE_AWAY", faults_only=True)
def message_acked_while_slave_away() -> None:
    """A send is answered SEND_OK at once while the master holds no HA connection (``HAService.connectionCount``
    is 0: the slave crashed or lost power, its link is down, or no slave is configured). Only an
    ASYNC_MASTER does this: a SYNC_MASTER's ``CommitLog#handleHA`` answers SLAVE_NOT_AVAILABLE, so a
    change to SYNC_MASTER closes a failure mode at the price of refusing every send while the slave is
    away. Read by ``rmqcheck faults`` only (a configuration without it is not vacuous: it chose
    durability over availability), so ``check`` does not report it."""


#: the availability witnesses, and what a configuration that loses one has lost: ``rmqcheck faults``
#: counts a change as closing a failure mode only while every one of them the configuration keeps is still
#: kept (a change that loses one buys safety by giving up service). A sometimes witness is kept when it is
#: reached; the eventually one (``acked_message_eventually_consumed``, the delivery guarantee) when it holds
AVAILABILITY: dict[str, str] = {
    "message_acked": "no SEND_OK is ever given",
    "message_consumed": "no message is ever delivered to the application",
    "message_acked_while_slave_away": "no SEND_OK while the slave is away (sends are refused then)",
    "acked_message_eventually_consumed": "an acknowledged message may never be delivered",
}
