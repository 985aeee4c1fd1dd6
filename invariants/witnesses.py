"""``sometimes`` properties: behaviours the model must be able to show, or it is vacuous.

Most are witnessed by a transition: the kernel reports an event when an action does the thing
(:mod:`model.events`), named by the property's declaration; the generated ``transition_check`` maps
events to property bits. The docstrings below are
the properties' descriptions.
"""
from __future__ import annotations


from model.native import kernel

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
