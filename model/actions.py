"""The actions of the model as typed values, and their fixed order for a configuration.

Each action is a small frozen dataclass (``SendMessage()``, ``Pull(consumer=1, queue=0)``) whose text is
its trace label. Its guard and effect live in the compiled kernel (:mod:`model.successors` dispatches on
``kind``); the class docstring names the RocketMQ 4.4 code path it stands for. Brokers are named by
brokerId (master 0, slaves 1..n), consumers from 1, queues by queueId from 0.

Time is abstracted away: every periodic task is an action that may fire whenever it is enabled, and an
action whose firing would change nothing is not enabled (stuttering steps are left out of the graph).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import ClassVar

from .config import Config

# kind codes, shared with the kernel
SEND_MESSAGE = 1
SYNC_MASTER_ACK = 2
SYNC_MASTER_TIMEOUT = 3
FLUSH_COMMITLOG = 4
SLAVE_CONNECT = 5
SLAVE_REPORT_OFFSET = 6
MASTER_PUSH_DATA = 7
HA_DISCONNECT = 8
SLAVE_REGISTER = 9
SLAVE_SYNC_ALL = 10
PERSIST_CONSUMER_OFFSET = 11
NAMESERVER_EXPIRE_MASTER = 12
REFRESH_ROUTE = 13
REBALANCE = 14
PULL = 15
CONSUME = 16
PERSIST_ALL_OFFSETS = 17
CORRECT_ILLEGAL_OFFSET = 18
MASTER_CRASH = 19
MASTER_POWER_LOSS = 20
MASTER_RESTART = 21
SLAVE_CRASH = 22
SLAVE_POWER_LOSS = 23
SLAVE_RESTART = 24
CONSUMER_CRASH = 25
CONSUMER_RESTART = 26
CONSUME_DROPPED = 27


@dataclass(frozen=True)
class Action:
    """Base of every action: ``kind`` selects the kernel code; :meth:`code` gives its arguments."""

    kind: ClassVar[int] = 0
    actor: ClassVar[str] = ""

    @property
    def label(self) -> str:
        args = ", ".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self))
        return f"{type(self).__name__}({args})"

    def __str__(self) -> str:
        return self.label

    def code(self) -> tuple[int, int, int]:
        """``(kind, x, y)`` for the kernel's action table, with 0-based slave and consumer indices."""
        return (self.kind, 0, 0)


# --- producer ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SendMessage(Action):
    """A synchronous send of the producer's next message.

    ``DefaultMQProducerImpl#sendDefaultImpl`` -> ``SendMessageProcessor`` -> ``CommitLog#putMessage``:
    append to the master's commitlog (visible at once to consumers and HA), then ``handleDiskFlush``
    (SYNC_FLUSH: the flush wait, whose outcome ``flush`` is "ok" or "timeout"), then ``handleHA``
    (SYNC_MASTER: SLAVE_NOT_AVAILABLE at once when ``HAService#isSlaveOK`` fails, else the producer waits
    for :class:`SyncMasterAck` or :class:`SyncMasterTimeout`). Nothing is rolled back on any status. A send
    while the master is down fails (its retries go to the same dead master) and the message is given up.
    """

    kind: ClassVar[int] = SEND_MESSAGE
    actor: ClassVar[str] = "producer"
    flush: str = "none"

    @property
    def label(self) -> str:
        return "SendMessage()" if self.flush == "none" else f"SendMessage(flush={self.flush})"

    def code(self) -> tuple[int, int, int]:
        return (self.kind, 1 if self.flush == "timeout" else 0, 0)


@dataclass(frozen=True)
class SyncMasterAck(Action):
    """The SYNC_MASTER wait ends well: ``GroupTransferService#doWaitTransfer`` sees
    ``push2SlaveMaxOffset >= end`` and calls ``wakeupCustomer(true)``; the status stays SEND_OK (or
    FLUSH_DISK_TIMEOUT if the flush had timed out)."""

    kind: ClassVar[int] = SYNC_MASTER_ACK
    actor: ClassVar[str] = "producer"


@dataclass(frozen=True)
class SyncMasterTimeout(Action):
    """The SYNC_MASTER wait times out (5 x 1 000 ms without ``push2SlaveMaxOffset`` reaching the message's
    end): ``CommitLog#handleHA`` sets FLUSH_SLAVE_TIMEOUT; the message stays stored."""

    kind: ClassVar[int] = SYNC_MASTER_TIMEOUT
    actor: ClassVar[str] = "producer"


# --- store ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FlushCommitLog(Action):
    """A broker writes its commitlog back to disk (``MappedFileQueue#flush``): ``FlushRealTimeService``
    under ASYNC_FLUSH, or the idle pass of ``GroupCommitService`` under SYNC_FLUSH; a slave flushes its
    HA-appended data on its own schedule. Abstracted as flushing everything written so far."""

    kind: ClassVar[int] = FLUSH_COMMITLOG
    actor: ClassVar[str] = "store"
    broker: int = 0

    def code(self) -> tuple[int, int, int]:
        return (self.kind, self.broker, 0)


# --- HA replication --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _SlaveAction(Action):
    slave: int = 1

    def code(self) -> tuple[int, int, int]:
        return (self.kind, self.slave - 1, 0)


@dataclass(frozen=True)
class SlaveConnect(_SlaveAction):
    """``HAClient#connectMaster``: a slave that knows the master's HA address connects (the master's
    ``AcceptSocketService`` creates an ``HAConnection`` and counts it). No report is sent at connect."""

    kind: ClassVar[int] = SLAVE_CONNECT
    actor: ClassVar[str] = "ha"


@dataclass(frozen=True)
class SlaveReportOffset(_SlaveAction):
    """``HAClient#reportSlaveMaxOffset`` (first report, heartbeat or growth report) handled by
    ``HAConnection.ReadSocketService#processReadEvent``: the report is the slave's commitlog max, taken
    without validation; the first report sets ``slaveRequestOffset`` and the push start (0 -> the start of
    the master's last file, else exactly the reported offset); ``HAService#notifyTransferSome`` raises
    ``push2SlaveMaxOffset`` to at least the report. V5 closes the connection on a report beyond the
    master's max instead."""

    kind: ClassVar[int] = SLAVE_REPORT_OFFSET
    actor: ClassVar[str] = "ha"


@dataclass(frozen=True)
class MasterPushData(_SlaveAction):
    """``HAConnection.WriteSocketService#run`` pushes the master's entries from ``nextTransferFromWhere``
    (or a header-only heartbeat when it has none there); ``HAClient#dispatchReadRequest`` appends them,
    or closes the connection when the header offset differs from a non-empty slave's max."""

    kind: ClassVar[int] = MASTER_PUSH_DATA
    actor: ClassVar[str] = "ha"


@dataclass(frozen=True)
class HaDisconnect(_SlaveAction):
    """The HA connection drops (network trouble, or ``haHousekeepingInterval`` expiring on either side):
    both ``HAClient#closeMaster`` and the master's ``HAConnection`` shut down."""

    kind: ClassVar[int] = HA_DISCONNECT
    actor: ClassVar[str] = "ha"


# --- metadata --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SlaveRegister(_SlaveAction):
    """``BrokerController#registerBrokerAll`` on a slave: the reply carries the master's address only if
    the name server holds a live master; the HA master address is set from a non-null reply and never
    cleared, ``SlaveSynchronize.masterAddr`` is set from every reply, null included."""

    kind: ClassVar[int] = SLAVE_REGISTER
    actor: ClassVar[str] = "metadata"


@dataclass(frozen=True)
class SlaveSyncAll(_SlaveAction):
    """``SlaveSynchronize#syncAll`` -> ``syncConsumerOffset``: fetch the master's whole in-memory offset
    table, ``putAll`` it (the master's per-queue map replaces the slave's for the group's key; an empty
    master table changes nothing), then persist. V2 keeps the per-queue maximum instead."""

    kind: ClassVar[int] = SLAVE_SYNC_ALL
    actor: ClassVar[str] = "metadata"


@dataclass(frozen=True)
class PersistConsumerOffset(Action):
    """The broker's periodic ``ConsumerOffsetManager#persist`` (every ``flushConsumerOffsetInterval``):
    consumerOffset.json takes the in-memory table."""

    kind: ClassVar[int] = PERSIST_CONSUMER_OFFSET
    actor: ClassVar[str] = "metadata"
    broker: int = 0

    def code(self) -> tuple[int, int, int]:
        return (self.kind, self.broker, 0)


@dataclass(frozen=True)
class NameServerExpireMaster(Action):
    """``RouteInfoManager#scanNotActiveBroker`` drops a master silent for 120 s (after a power loss no
    socket close tells the name server at once)."""

    kind: ClassVar[int] = NAMESERVER_EXPIRE_MASTER
    actor: ClassVar[str] = "metadata"


# --- clients ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _ConsumerAction(Action):
    consumer: int = 1

    def code(self) -> tuple[int, int, int]:
        return (self.kind, self.consumer - 1, 0)


@dataclass(frozen=True)
class _QueueAction(Action):
    consumer: int = 1
    queue: int = 0

    def code(self) -> tuple[int, int, int]:
        return (self.kind, self.consumer - 1, self.queue)


@dataclass(frozen=True)
class RefreshRoute(_ConsumerAction):
    """``MQClientInstance#updateTopicRouteInfoFromNameServer`` (every ``pollNameServerInterval``): the
    client's broker table is replaced by the name server's route, which lists the master only while it is
    registered."""

    kind: ClassVar[int] = REFRESH_ROUTE
    actor: ClassVar[str] = "client"


@dataclass(frozen=True)
class Rebalance(_ConsumerAction):
    """``RebalanceImpl#updateProcessQueueTableInRebalance`` with ``AllocateMessageQueueAveragely`` over the
    live consumers: queues no longer assigned are dropped (persist + remove offset; messages already in the
    consume service are still delivered, see :class:`ConsumeDropped`); each newly assigned
    queue drops its memory offset and starts at ``RebalancePushImpl#computePullFromWhere`` (broker offset
    via ``queryConsumerOffset``; CONSUME_FROM_LAST_OFFSET when none; not taken on a negative result)."""

    kind: ClassVar[int] = REBALANCE
    actor: ClassVar[str] = "client"


@dataclass(frozen=True)
class Pull(_QueueAction):
    """One pull round trip: ``PullAPIWrapper#pullKernelImpl`` routes by the stored suggestion through
    ``findBrokerAddressInSubscribe``; ``PullMessageProcessor#processRequest`` runs
    ``DefaultMessageStore#getMessage``, sets ``suggestWhichBrokerId``, maps the status and commits the
    client's offset on a master; the ``PullCallback`` of ``DefaultMQPushConsumerImpl#pullMessage`` reacts
    (FOUND / NO_NEW_MSG / NO_MATCHED_MSG / OFFSET_ILLEGAL)."""

    kind: ClassVar[int] = PULL
    actor: ClassVar[str] = "client"


@dataclass(frozen=True)
class Consume(_QueueAction):
    """``ConsumeMessageConcurrentlyService.ConsumeRequest#run``: the application consumes the messages in
    the ProcessQueue (abstracted as one batch); ``processConsumeResult`` then raises the memory offset to
    ``ProcessQueue#removeMessage``'s result (queueOffsetMax + 1), increase-only, unless the ProcessQueue is
    dropped."""

    kind: ClassVar[int] = CONSUME
    actor: ClassVar[str] = "client"


@dataclass(frozen=True)
class ConsumeDropped(_QueueAction):
    """The consume service finishes the messages of a ProcessQueue that was dropped and removed (a
    rebalance gave the queue away, or the OFFSET_ILLEGAL task removed it): ``ConsumeRequest#run`` delivers
    them and ``processConsumeResult`` skips the offset update of a dropped queue."""

    kind: ClassVar[int] = CONSUME_DROPPED
    actor: ClassVar[str] = "client"


@dataclass(frozen=True)
class PersistAllOffsets(_ConsumerAction):
    """``MQClientInstance#persistAllConsumerOffset`` -> ``RemoteBrokerOffsetStore#persistAll``: each memory
    offset goes oneway (UPDATE_CONSUMER_OFFSET) to ``findBrokerAddressInAdmin``'s broker, the master if the
    client's route lists it, else the lowest slave; a oneway to a dead broker is lost."""

    kind: ClassVar[int] = PERSIST_ALL_OFFSETS
    actor: ClassVar[str] = "client"


@dataclass(frozen=True)
class CorrectIllegalOffset(_QueueAction):
    """The task the OFFSET_ILLEGAL branch of the ``PullCallback`` schedules 10 s later, which runs whatever
    happened to the queue meanwhile (tasks of the same queue run oldest first; the model holds two, and a
    pull that would answer a third OFFSET_ILLEGAL on the queue within their 10 s is left out):
    ``updateOffset(mq, nextOffset, false)`` (not monotonic),
    ``persist(mq)``, then ``RebalanceImpl#removeProcessQueue`` (persist again, remove the memory offset and
    the queue's ProcessQueue, even one a rebalance created since); the queue is taken anew at the next
    rebalance."""

    kind: ClassVar[int] = CORRECT_ILLEGAL_OFFSET
    actor: ClassVar[str] = "client"


# --- failures --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MasterCrash(Action):
    """The master process is killed (kill -9): the page cache keeps its commitlog, memory is lost (offset
    table since the last persist, ``push2SlaveMaxOffset``, HA connections); the name server drops it at
    once (``RouteInfoManager#onChannelDestroy``); a producer waiting for a slave gets an exception."""

    kind: ClassVar[int] = MASTER_CRASH
    actor: ClassVar[str] = "failure"


@dataclass(frozen=True)
class MasterPowerLoss(Action):
    """The master machine loses power: only the flushed commitlog prefix survives; the name server keeps
    it registered until :class:`NameServerExpireMaster`. consumerOffset.json keeps its last persist."""

    kind: ClassVar[int] = MASTER_POWER_LOSS
    actor: ClassVar[str] = "failure"


@dataclass(frozen=True)
class MasterRestart(Action):
    """``BrokerStartup``: ``DefaultMessageStore#load``/``#recover`` (queue max offsets from what survived),
    ``ConsumerOffsetManager#load`` (consumerOffset.json), ``push2SlaveMaxOffset`` from 0, and
    ``registerBrokerAll`` at start. V3 adopts a live slave's offset table before serving."""

    kind: ClassVar[int] = MASTER_RESTART
    actor: ClassVar[str] = "failure"


@dataclass(frozen=True)
class SlaveCrash(_SlaveAction):
    """A slave process is killed: its page cache keeps the commitlog; its memory (offset table since the
    last persist, the master addresses it learned, its HA connection) is lost."""

    kind: ClassVar[int] = SLAVE_CRASH
    actor: ClassVar[str] = "failure"


@dataclass(frozen=True)
class SlavePowerLoss(_SlaveAction):
    """A slave machine loses power: only its flushed commitlog prefix survives."""

    kind: ClassVar[int] = SLAVE_POWER_LOSS
    actor: ClassVar[str] = "failure"


@dataclass(frozen=True)
class SlaveRestart(_SlaveAction):
    """A slave restarts: recovery keeps what survived, consumerOffset.json is loaded, and the registration
    at start gives it the master's address if the name server holds a live master."""

    kind: ClassVar[int] = SLAVE_RESTART
    actor: ClassVar[str] = "failure"


@dataclass(frozen=True)
class ConsumerCrash(_ConsumerAction):
    """A consumer process is killed: its memory offsets, ProcessQueues, pull suggestions and route are
    lost (``RemoteBrokerOffsetStore#load`` is a no-op, nothing survives a restart)."""

    kind: ClassVar[int] = CONSUMER_CRASH
    actor: ClassVar[str] = "failure"


@dataclass(frozen=True)
class ConsumerRestart(_ConsumerAction):
    """A crashed consumer starts again: it fetches the route from the name server; its queues come back
    through :class:`Rebalance`."""

    kind: ClassVar[int] = CONSUMER_RESTART
    actor: ClassVar[str] = "failure"


ACTION_TYPES: tuple[type[Action], ...] = (
    SendMessage, SyncMasterAck, SyncMasterTimeout, FlushCommitLog, SlaveConnect, SlaveReportOffset,
    MasterPushData, HaDisconnect, SlaveRegister, SlaveSyncAll, PersistConsumerOffset,
    NameServerExpireMaster, RefreshRoute, Rebalance, Pull, Consume, ConsumeDropped, PersistAllOffsets,
    CorrectIllegalOffset, MasterCrash, MasterPowerLoss, MasterRestart, SlaveCrash, SlavePowerLoss,
    SlaveRestart, ConsumerCrash, ConsumerRestart,
)


def actions_for(cfg: Config) -> tuple[Action, ...]:
    """Every action of a configuration, in the fixed order used by the kernel and the traces."""
    acts: list[Action] = []
    slaves = range(1, cfg.slaves + 1)
    consumers = range(1, cfg.consumers + 1)
    # producer
    if cfg.sync_flush:
        acts += [SendMessage(flush="ok"), SendMessage(flush="timeout")]
    else:
        acts.append(SendMessage())
    if cfg.sync_master:
        acts += [SyncMasterAck(), SyncMasterTimeout()]
    # store
    acts += [FlushCommitLog(broker=b) for b in range(cfg.slaves + 1)]
    # HA
    for s in slaves:
        acts += [SlaveConnect(slave=s), SlaveReportOffset(slave=s), MasterPushData(slave=s)]
        if cfg.max_ha_disconnects:
            acts.append(HaDisconnect(slave=s))
    # metadata
    for s in slaves:
        acts += [SlaveRegister(slave=s), SlaveSyncAll(slave=s)]
    acts += [PersistConsumerOffset(broker=b) for b in range(cfg.slaves + 1)]
    if cfg.max_master_power_losses:
        acts.append(NameServerExpireMaster())
    # clients
    for c in consumers:
        acts += [RefreshRoute(consumer=c), Rebalance(consumer=c)]
        for q in range(cfg.queues):
            acts += [Pull(consumer=c, queue=q), Consume(consumer=c, queue=q),
                     ConsumeDropped(consumer=c, queue=q), CorrectIllegalOffset(consumer=c, queue=q)]
        acts.append(PersistAllOffsets(consumer=c))
    # failures
    if cfg.max_master_crashes:
        acts.append(MasterCrash())
    if cfg.max_master_power_losses:
        acts.append(MasterPowerLoss())
    if cfg.max_master_crashes or cfg.max_master_power_losses:
        acts.append(MasterRestart())
    for s in slaves:
        if cfg.max_slave_crashes:
            acts.append(SlaveCrash(slave=s))
        if cfg.max_slave_power_losses:
            acts.append(SlavePowerLoss(slave=s))
        if cfg.max_slave_crashes or cfg.max_slave_power_losses:
            acts.append(SlaveRestart(slave=s))
    if cfg.max_consumer_restarts:
        for c in consumers:
            acts += [ConsumerCrash(consumer=c), ConsumerRestart(consumer=c)]
    return tuple(acts)


_LABEL = re.compile(r"^\s*([A-Za-z]+)\s*\((.*)\)\s*$")


def parse_action(text: str, cfg: Config) -> Action:
    """The action of ``cfg`` whose label is ``text`` (spaces ignored); ValueError if there is none."""
    wanted = re.sub(r"\s+", "", text)
    for action in actions_for(cfg):
        if re.sub(r"\s+", "", action.label) == wanted:
            return action
    if not _LABEL.match(text or ""):
        raise ValueError(f"{text!r} is not an action label such as 'Pull(consumer=1, queue=0)'")
    raise ValueError(f"{text!r} is not an action of this configuration")
