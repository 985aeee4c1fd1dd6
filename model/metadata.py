"""Broker metadata: registration with the name server, slave offset sync and offset persistence."""
from __future__ import annotations


from .declare import BROKER, SLAVE, Arrow, Note, action
from explore.native import kernel
from .writes import put
from . import fields as F
from .events import ENABLED, EV_SLAVE_SYNC_LOWERED_OFFSET
from .offsets import has_group_key, offset_slot, persist_offsets
from .slots import K_QUEUES, K_SYNC_OFFSETS_MAX
from .routes import nameserver_remove, nameserver_register
from .store import up_slot


@action("SlaveRegister", kind=9, actor="metadata", place=(0, SLAVE, 0),
        phrase="the slave registers with the name server and learns the master's address",
        rocketmq="BrokerController#registerBrokerAll")
@kernel
def slave_register(v, w, s, p):
    """``BrokerController#registerBrokerAll`` -> ``doRegisterBrokerAll`` on slave ``s``.

    ``RouteInfoManager#registerBroker`` answers with the master's addresses only while the master is in
    ``brokerLiveTable``. ``HAClient.masterAddress`` is updated from a non-null ``haServerAddr`` and never
    cleared; ``SlaveSynchronize.masterAddr`` takes every reply's ``masterAddr``, null included.
    """
    if v[F.S_UP + s] == 0:
        return 0
    master_listed = v[F.NS_ROUTE] & 1
    if master_listed != 0:
        put(w, F.S_HA_ADDR + s, 1)
    put(w, F.S_SYNC_ADDR + s, master_listed)
    nameserver_register(w, s + 1)
    return ENABLED


@action("SlaveSyncAll", kind=10, actor="metadata", place=(0, SLAVE, 1), rocketmq="SlaveSynchronize#syncAll",
        phrase="the slave's syncAll copies the master's consumer offsets over its own",
        drawn=(Arrow("slave", "master", "sync offsets"), Arrow("master", "slave", "offset table", reply=True)))
@kernel
def slave_sync_all(v, w, s, p):
    """``SlaveSynchronize#syncAll`` -> ``syncConsumerOffset`` on slave ``s``.

    Needs ``masterAddr`` and a live master (otherwise the call fails and is only logged). The master's whole
    in-memory table is fetched and ``putAll``: for the group's key the master's per-queue map replaces the
    slave's (queues only the slave had disappear); an empty master table leaves the slave as it was; no
    version, merge or monotonicity check. V2 keeps each queue's maximum instead. Then ``persist``.
    """
    b = s + 1
    if v[F.S_UP + s] == 0 or v[F.S_SYNC_ADDR + s] == 0 or v[F.M_UP] == 0:
        return 0
    events = 0
    if has_group_key(v, 0, p):
        for q in range(p[K_QUEUES]):
            master_value = v[offset_slot(0, q)]
            slave_value = v[offset_slot(b, q)]
            new = master_value
            if p[K_SYNC_OFFSETS_MAX] != 0 and slave_value > master_value:
                new = slave_value
            if new < slave_value:
                events |= EV_SLAVE_SYNC_LOWERED_OFFSET
            put(w, offset_slot(b, q), new)
    persist_offsets(w, b, p)
    return ENABLED | events


@action("PersistConsumerOffset", kind=11, actor="metadata", place=(1, BROKER),
        phrase="a broker writes consumerOffset.json", drawn=Note("broker", "persist offsets"),
        rocketmq="ConsumerOffsetManager#persist")
@kernel
def persist_consumer_offset(v, w, b, p):
    """The broker's scheduled ``ConsumerOffsetManager#persist`` (every 5 s, every role)."""
    if v[up_slot(b)] == 0:
        return 0
    persist_offsets(w, b, p)
    return ENABLED


@action("NameServerExpireMaster", kind=12, actor="metadata", place=(2,),
        phrase="the name server drops the master from the route", drawn=Note("nameserver", "expires the master"),
        when=lambda cfg: cfg.max_master_power_losses > 0, rocketmq="RouteInfoManager#scanNotActiveBroker")
@kernel
def nameserver_expire_master(v, w, p):
    """``RouteInfoManager#scanNotActiveBroker`` removes a master silent for 120 s (``BROKER_CHANNEL_EXPIRED_TIME``)."""
    if v[F.NS_ROUTE] & 1 == 0 or v[F.M_UP] != 0:
        return 0
    nameserver_remove(w, 0)
    return ENABLED


@action("NameServerExpireSlave", kind=28, actor="metadata", place=(3, SLAVE),
        phrase="the name server drops a powered-off slave from the route",
        drawn=Note("nameserver", "expires {slave}"),
        when=lambda cfg: cfg.max_slave_power_losses > 0, rocketmq="RouteInfoManager#scanNotActiveBroker")
@kernel
def nameserver_expire_slave(v, w, s, p):
    """``RouteInfoManager#scanNotActiveBroker`` removes slave ``s`` once it has been silent for 120 s (a
    power loss: no socket close told the name server); the topic's queue data goes with the last broker."""
    b = s + 1
    if v[F.NS_ROUTE] & (1 << b) == 0 or v[F.S_UP + s] != 0:
        return 0
    nameserver_remove(w, b)
    return ENABLED
