"""The availability witnesses of ``rmqcheck faults`` in controller mode: a change that closes a failure
mode counts only while the configuration still reaches each of them. ``check`` does not report them
(``faults_only``); they keep their bits of the compiled checks."""
from __future__ import annotations

from model.controller import fields as F
from explore.native import kernel

from .declare import check
from ..base import SOMETIMES


@check(kind=SOMETIMES, summary="the producer is told SEND_OK for a message", faults_only=True)
@kernel
def message_acked(v, p):
    """The producer is told SEND_OK for some message: the group accepts writes. With minInSyncReplicas
    above the brokers that can be in sync, every put is refused (IN_SYNC_REPLICAS_NOT_ENOUGH), and a
    durability property that holds there holds vacuously."""
    return v[F.ACKED] != 0


@check(kind=SOMETIMES, summary="a message is delivered to the application", faults_only=True)
@kernel
def message_consumed(v, p):
    """The consumer is given some message (a pull is answered FOUND): the group receives what was sent."""
    return v[F.DELIVERED] != 0


@check(kind=SOMETIMES, summary="the producer is told SEND_OK while the slave is away", event="EV_ACKED_WITH_SLAVE_AWAY",
       faults_only=True)
def message_acked_while_slave_away() -> None:
    """A put is taken and answered SEND_OK at once while its master is alone in its SyncStateSet
    (``inSyncReplicasNums`` 1: the other brokers crashed, lost their link, or fell out of the set;
    ``CommitLog#handleHA`` with allAckInSyncStateSet off and inSyncReplicas 1, or a one-member set).
    minInSyncReplicas above 1 refuses such a put (IN_SYNC_REPLICAS_NOT_ENOUGH), so a change to it closes a
    failure mode at the price of refusing writes while a broker is away. A put taken with the set whole
    and completed by ``GroupTransferService`` after the set shrank to one member is not counted here: it
    is the availability of the moment the put was taken."""
