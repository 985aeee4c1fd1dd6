"""Failures and restarts of the brokers, each an action with its own budget.

A process crash (kill -9) keeps every byte written to the mapped files in the OS page cache; a power loss
keeps only the flushed prefix. Either way the broker's memory is gone: its consumer-offset table falls
back to consumerOffset.json (which keeps its last persist; the model assumes the OS wrote it back),
``push2SlaveMaxOffset`` and the HA connections vanish. Restart recovery (``DefaultMessageStore#recover``)
keeps what survived and sets the flushed position at its end; the queues' max offsets follow from the log.
"""
from __future__ import annotations


from .declare import SLAVE, action
from explore.native import kernel
from .writes import put
from . import fields as F
from .bits import bit, count, lowest
from .events import ENABLED, EV_MASTER_RECOVERED
from .ha import close_link
from .offsets import has_group_key, load_offsets, offset_slot
from .routes import nameserver_register, nameserver_remove
from .slots import (K_MAX_MASTER_CRASHES, K_MAX_MASTER_POWER, K_MAX_SLAVE_CRASHES, K_MAX_SLAVE_POWER,
                     K_MESSAGES, K_QUEUES, K_REVERSE_OFFSET_SYNC, K_SLAVES)


@kernel
def forget_lost_queue_offsets(w, p):
    """Keep the state canonical: a message held by no commitlog any more has no recorded queue offset."""
    if p[K_QUEUES] == 1:
        return
    held = w[F.M_LOG]
    for s in range(p[K_SLAVES]):
        held |= w[F.S_LOG + s]
    for m in range(1, p[K_MESSAGES] + 1):
        if held & bit(m) == 0:
            put(w, F.MSG_QO + m - 1, 0)


@kernel
def master_down(w, p):
    """What every master failure loses: the process and all it held in memory."""
    put(w, F.M_UP, 0)
    for s in range(p[K_SLAVES]):
        close_link(w, s)
    put(w, F.P2S, 0)
    put(w, F.P_WAIT, F.WAIT_NONE)       # the waiting producer gets a remoting exception
    load_offsets(w, 0, p)           # what the restart will load from consumerOffset.json


@action("MasterCrash", kind=19, actor="failure", place=(0, 0), when=lambda cfg: cfg.max_master_crashes > 0,
        phrase="the master process is killed (kill -9; the page cache survives)",
        rocketmq="RouteInfoManager#onChannelDestroy")
@kernel
def master_crash(v, w, p):
    """kill -9 of the master: the page cache keeps the whole commitlog (recovery will find all of it); the
    socket close removes the master from the name server at once (``RouteInfoManager#onChannelDestroy``)."""
    if v[F.M_UP] == 0 or v[F.B_MASTER_CRASH] >= p[K_MAX_MASTER_CRASHES]:
        return 0
    master_down(w, p)
    put(w, F.M_FLUSHED, count(w[F.M_LOG]))
    nameserver_remove(w, 0)
    put(w, F.B_MASTER_CRASH, w[F.B_MASTER_CRASH] + 1)
    return ENABLED


@action("MasterPowerLoss", kind=20, actor="failure", place=(0, 1),
        phrase="the master loses power (only its flushed commitlog survives)",
        when=lambda cfg: cfg.max_master_power_losses > 0, rocketmq="MappedFileQueue#flush")
@kernel
def master_power_loss(v, w, p):
    """The master machine loses power: the commitlog keeps the prefix ``MappedFileQueue#flush`` wrote
    (``flushedWhere``); the name server keeps the master until it expires (no socket close reaches it);
    consumerOffset.json keeps its last persist."""
    if v[F.M_UP] == 0 or v[F.B_MASTER_POWER] >= p[K_MAX_MASTER_POWER]:
        return 0
    master_down(w, p)
    put(w, F.M_LOG, lowest(v[F.M_LOG], v[F.M_FLUSHED]))
    forget_lost_queue_offsets(w, p)
    put(w, F.B_MASTER_POWER, w[F.B_MASTER_POWER] + 1)
    return ENABLED


@action("MasterRestart", kind=21, actor="failure", place=(0, 2),
        phrase="the master restarts, recovers its commitlog and loads consumerOffset.json",
        when=lambda cfg: cfg.max_master_crashes > 0 or cfg.max_master_power_losses > 0,
        rocketmq="DefaultMessageStore#recover")
@kernel
def master_restart(v, w, p):
    """The master starts again (``BrokerStartup``): ``DefaultMessageStore#recover``, consumerOffset.json loaded,
    ``push2SlaveMaxOffset`` from 0, and ``registerBrokerAll`` at start. V3 (reverse sync) first adopts the
    offset table of the lowest live slave that holds the group's key - the mechanisms page does not define an
    offset data version, so "a version at least the master's" is read as "the slave holds the group's offsets at
    all"."""
    if v[F.M_UP] != 0:
        return 0
    put(w, F.M_UP, 1)
    put(w, F.M_FLUSHED, count(v[F.M_LOG]))
    nameserver_register(w, 0)
    if p[K_REVERSE_OFFSET_SYNC] != 0:
        for s in range(p[K_SLAVES]):
            if v[F.S_UP + s] != 0 and has_group_key(v, s + 1, p):
                for q in range(p[K_QUEUES]):
                    put(w, offset_slot(0, q), v[offset_slot(s + 1, q)])
                break
    return ENABLED | EV_MASTER_RECOVERED


@kernel
def slave_down(w, s, p):
    """What every slave failure loses: its process memory, including the master addresses it learned."""
    put(w, F.S_UP + s, 0)
    close_link(w, s)
    load_offsets(w, s + 1, p)
    put(w, F.S_HA_ADDR + s, 0)
    put(w, F.S_SYNC_ADDR + s, 0)


@action("SlaveCrash", kind=22, actor="failure", place=(1, SLAVE, 0), when=lambda cfg: cfg.max_slave_crashes > 0,
        phrase="a slave process is killed (kill -9)",
        rocketmq="ConsumerOffsetManager#persist")
@kernel
def slave_crash(v, w, s, p):
    """kill -9 of slave ``s``: the page cache keeps its commitlog; its memory (the offset table since the
    last ``ConsumerOffsetManager#persist``, the master addresses it learned, its HA connection) is lost; the
    socket close removes it from the name server at once (``RouteInfoManager#onChannelDestroy``)."""
    if v[F.S_UP + s] == 0 or v[F.B_SLAVE_CRASH] >= p[K_MAX_SLAVE_CRASHES]:
        return 0
    slave_down(w, s, p)
    put(w, F.S_FLUSHED + s, count(v[F.S_LOG + s]))
    nameserver_remove(w, s + 1)
    put(w, F.B_SLAVE_CRASH, w[F.B_SLAVE_CRASH] + 1)
    return ENABLED


@action("SlavePowerLoss", kind=23, actor="failure", place=(1, SLAVE, 1),
        phrase="a slave loses power (only its flushed commitlog survives)",
        when=lambda cfg: cfg.max_slave_power_losses > 0, rocketmq="MappedFileQueue#flush")
@kernel
def slave_power_loss(v, w, s, p):
    """Slave ``s``'s machine loses power: its commitlog keeps the prefix ``MappedFileQueue#flush`` wrote; the
    name server keeps listing it until the expiry scan (``NameServerExpireSlave``)."""
    if v[F.S_UP + s] == 0 or v[F.B_SLAVE_POWER] >= p[K_MAX_SLAVE_POWER]:
        return 0
    slave_down(w, s, p)
    put(w, F.S_LOG + s, lowest(v[F.S_LOG + s], v[F.S_FLUSHED + s]))
    forget_lost_queue_offsets(w, p)
    put(w, F.B_SLAVE_POWER, w[F.B_SLAVE_POWER] + 1)
    return ENABLED


@action("SlaveRestart", kind=24, actor="failure", place=(1, SLAVE, 2),
        phrase="a slave restarts and recovers its commitlog",
        when=lambda cfg: cfg.max_slave_crashes > 0 or cfg.max_slave_power_losses > 0,
        rocketmq="DefaultMessageStore#recover")
@kernel
def slave_restart(v, w, s, p):
    """Slave ``s`` starts again: ``DefaultMessageStore#recover``, consumerOffset.json loaded, and the
    registration at start (``BrokerController#registerBrokerAll``) lists it with the name server again and
    gives both master addresses if the name server holds a live master."""
    if v[F.S_UP + s] != 0:
        return 0
    put(w, F.S_UP + s, 1)
    put(w, F.S_FLUSHED + s, count(v[F.S_LOG + s]))
    master_listed = v[F.NS_ROUTE] & 1
    put(w, F.S_HA_ADDR + s, master_listed)
    put(w, F.S_SYNC_ADDR + s, master_listed)
    nameserver_register(w, s + 1)
    return ENABLED
