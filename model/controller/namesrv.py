"""Name servers in the controller mode (issue 48 item 1, knob ``name_servers``): brokers register, entries
expire, and the producer and the consumer route by a snapshot of what a name server lists. With
``name_servers = 0`` (the default) none of this exists: no action below is in the table and
:func:`routed` lets a client reach any broker in the master role, the abstraction of the model before.

Read from ``namesrv/.../routeinfo/RouteInfoManager.java`` and the broker and client code at
``rocketmq-all-5.3.3`` (docs/controller.md, "Name servers", cites each method). What is kept of a name
server, per name server ``n`` (:mod:`model.controller.fields`, all 0 without name servers):

- ``nameserver.master[n]``: the broker its ``brokerAddrTable`` lists at brokerId 0 (``MixAll.MASTER_ID``)
  for the one group, + 1 (0: none);
- ``nameserver.stateVersion[n]``: that broker's ``BrokerLiveInfo.dataVersion.stateVersion``, the master
  epoch of its last role change (``ReplicasManager#changeToMaster`` / ``#changeToSlave`` call
  ``TopicConfigManager#getDataVersion().nextVersion(newMasterEpoch)`` before registering);
- ``nameserver.live[n]``: the brokers with a live registration (``brokerLiveTable``), a set.

Abstracted (the simplest reading that keeps what routing reads): one topic whose queue data are always
present while a broker of the group is listed; the entries of slaves (brokerId = controller id) are not kept
apart from ``live`` (in the model an address is listed exactly while it is live: ``#unRegisterBroker``
removes both under one lock, the asynchronous ``BatchUnregistrationService`` gap is left out), so a client's
route is its brokerId-0 entry alone, and a pull that would go to a slave's entry (refused with
``slaveReadEnable=false``, ``PullMessageProcessor#rejectRequest``) is no step; the timers (30 s registration,
5 s scan, 120 s expiry, 30 s client poll) are nondeterministic enabling conditions; an expiry is one step
(``#scanNotActiveBroker`` / ``#onChannelDestroy`` then ``#unRegisterBroker``); each client refresh may read
either name server (``NettyRemotingClient`` keeps one and moves to the next when it fails: a superset);
``BrokerController#handleRegisterBrokerResult`` takes the first non-null reply of its registration to
every name server: here each name server's reply is applied as it comes; the reply's ``masterAddr`` for
``SlaveSynchronize`` is not kept (no consumer offsets here). A slave's HA client connects to the address
the last reply named (``broker.haMasterAddress``, :func:`model.controller.actions.ha_connect`).
"""
from __future__ import annotations

from ..declare import Arg, Note
from explore.native import kernel
from . import fields as F
from .declare import BROKER, action
from .params import P_MAX_NS_CUTOFF, P_MAX_NS_RESTART, P_NAMESRV, P_NAMESRV_EPOCH
from .state import bg, bit

OK = 1

#: the name server an action reads or changes, 1..name_servers (the kernel takes the 0-based index)
NAMESERVER = Arg("nameserver", lambda cfg: range(1, cfg.name_servers + 1), lambda n: n - 1, 1)


def _with_name_servers(cfg) -> bool:
    return cfg.name_servers > 0


# -- what the producer and the consumer read --------------------------------------------------------------
@kernel(inline=True)
def routed(w, route, b, params):
    """The client whose snapshot is field ``route`` sends to / pulls from broker ``b``: with name servers,
    only the broker its route lists at brokerId 0 (``MQClientInstance#findBrokerAddressInPublish`` returns
    ``brokerAddrs.get(MASTER_ID)``; ``#findBrokerAddressInSubscribe`` with the pull suggestion 0, the
    master's; a slave's entry would be refused). Without name servers any broker (the old abstraction:
    the caller then requires the master role)."""
    return params[P_NAMESRV] == 0 or w[route] == b + 1


# -- RouteInfoManager#registerBroker ------------------------------------------------------------------------
@kernel(inline=True)
def rejects(holder_live, holder_version, version):
    """``RouteInfoManager#registerBroker`` (5.3.3 L274-292): another address holding the brokerId wins over
    the newcomer only while it is in ``brokerLiveTable`` and its ``stateVersion`` is strictly greater; equal
    versions, or a holder no longer live, let the newcomer take the id."""
    return holder_live and holder_version > version


@kernel
def register(w, b, n, params):
    """Broker ``b``'s registration reaches name server ``n`` (``RouteInfoManager#registerBroker``), with the
    brokerId of its role (``BrokerConfig.brokerId``: ``MixAll.MASTER_ID`` after ``changeToMaster``, its
    controller id after ``changeToSlave``) and its topic-config ``DataVersion.stateVersion``, its master
    epoch. In order: the same address under another id is removed (``removeIf``, L273: a master that
    registers as a slave leaves brokerId 0); a brokerId-0 registration against another, live holder with a
    greater stateVersion is rejected and the newcomer removed from ``brokerLiveTable`` (:func:`rejects`);
    otherwise the newcomer takes the id and its live entry (L300, L366). The reply to a registration with
    another brokerId names the brokerId-0 broker when it is live (``masterAddr``, ``haServerAddr``, L386-396);
    ``BrokerController#handleRegisterBrokerResult`` then points the HA client there
    (``updateHaMasterAddress``: a reply naming none leaves the address as it was).

    Version switch ``namesrv_epoch_fences_master`` (5.1.1, 20dc5c96, #6316) off: up to 5.1.0
    ``ReplicasManager#changeToMaster`` / ``#changeToSlave`` do not call ``nextVersion(newMasterEpoch)``, so
    every registration carries stateVersion 0 and the rule never rejects: the last brokerId-0 registration
    wins."""
    live = w[F.NS_LIVE + n]
    holder = w[F.NS_MASTER + n] - 1
    if bg(w, b, F.B_MASTER) == 0:
        if holder == b:
            w[F.NS_MASTER + n] = 0
            w[F.NS_VERSION + n] = 0
            holder = -1
        w[F.NS_LIVE + n] = live | bit(b)
        if holder >= 0 and live & bit(holder):   # the reply names the brokerId-0 broker (L386-396)
            w[F.HA_ADDR + b] = holder + 1
        return
    version = bg(w, b, F.B_EPOCH) if params[P_NAMESRV_EPOCH] == 1 else 0
    if holder >= 0 and holder != b and rejects((live & bit(holder)) != 0, w[F.NS_VERSION + n], version):
        w[F.NS_LIVE + n] = live & ~bit(b)
        return
    w[F.NS_MASTER + n] = b + 1
    w[F.NS_VERSION + n] = version
    w[F.NS_LIVE + n] = live | bit(b)


@kernel
def unregister(w, b, n):
    """``RouteInfoManager#unRegisterBroker``: broker ``b``'s live entry and every brokerId entry with its
    address (``removeIf(item -> item.getValue().equals(brokerAddr))``, L601) are removed."""
    w[F.NS_LIVE + n] = w[F.NS_LIVE + n] & ~bit(b)
    if w[F.NS_MASTER + n] == b + 1:
        w[F.NS_MASTER + n] = 0
        w[F.NS_VERSION + n] = 0


@action("NsRegister", kind=60, actor="namesrv", section="namesrv", place=(BROKER, 0, NAMESERVER),
        when=_with_name_servers, rocketmq="RouteInfoManager#registerBroker",
        phrase="a broker registers with a name server (brokerId 0 for the master role, its stateVersion)")
@kernel
def ns_register(w, b, n, params):
    """``BrokerController#registerBrokerAll`` -> ``RouteInfoManager#registerBroker`` (:func:`register`): a
    running broker that is not isolated (``ReplicasManager#setFenced``: fenced from start until
    ``startBasicService`` succeeds) registers every 30 s (``registerNameServerPeriod``, ``forceRegister``)
    and at each role change (``ReplicasManager#registerBrokerWhenRoleChange``); a registration that changes
    nothing is no step."""
    if bg(w, b, F.B_UP) == 0 or bg(w, b, F.B_FENCED) == 1:
        return 0
    register(w, b, n, params)
    return OK


@action("NsExpire", kind=61, actor="namesrv", section="namesrv", place=(BROKER, 1, NAMESERVER),
        when=_with_name_servers, rocketmq="RouteInfoManager#onChannelDestroy",
        phrase="a name server drops a dead broker's entries", drawn=Note("nameserver", "{broker} expired"))
@kernel
def ns_expire(w, b, n, params):
    """``RouteInfoManager#onChannelDestroy`` (a crashed broker's channel closes at once) or
    ``#scanNotActiveBroker`` (a broker that lost power: 120 s, ``DEFAULT_BROKER_CHANNEL_EXPIRED_TIME``,
    without a registration, scanned every 5 s), then ``#unRegisterBroker`` (:func:`unregister`): a broker
    that is down leaves name server ``n``."""
    if bg(w, b, F.B_UP) == 1 or not w[F.NS_LIVE + n] & bit(b):
        return 0
    unregister(w, b, n)
    return OK


@action("NsCutOff", kind=62, actor="failure", section="namesrv", place=(BROKER, 2, NAMESERVER),
        when=lambda cfg: cfg.max_namesrv_cutoffs > 0, rocketmq="RouteInfoManager#scanNotActiveBroker",
        phrase="a running broker's entry expires on a name server it cannot reach",
        drawn=Note("nameserver", "{broker} expired: cut off"))
@kernel
def ns_cut_off(w, b, n, params):
    """``RouteInfoManager#scanNotActiveBroker``: a running broker whose registrations have not reached name
    server ``n`` for 120 s (a partition between them) is unregistered (:func:`unregister`); it registers
    again once they do (:func:`ns_register`). One unit of ``max_namesrv_cutoffs``."""
    if bg(w, b, F.B_UP) == 0 or not w[F.NS_LIVE + n] & bit(b) or w[F.USED_NS_CUTOFF] >= params[P_MAX_NS_CUTOFF]:
        return 0
    w[F.USED_NS_CUTOFF] += 1
    unregister(w, b, n)
    return OK


@action("NsRestart", kind=63, actor="failure", section="namesrv", place=(4, 2, NAMESERVER),
        when=lambda cfg: cfg.max_namesrv_restarts > 0, rocketmq="NamesrvController#initialize",
        phrase="a name server restarts with empty tables", drawn=Note("nameserver", "restart: tables empty"))
@kernel
def ns_restart(w, n, params):
    """A name server process restarts (``NamesrvController#initialize``): ``RouteInfoManager`` keeps its
    tables in memory only, so it starts empty until the brokers' next registrations. One unit of
    ``max_namesrv_restarts``."""
    if w[F.USED_NS_RESTART] >= params[P_MAX_NS_RESTART] or (w[F.NS_LIVE + n] == 0 and w[F.NS_MASTER + n] == 0):
        return 0
    w[F.USED_NS_RESTART] += 1
    w[F.NS_MASTER + n] = 0
    w[F.NS_VERSION + n] = 0
    w[F.NS_LIVE + n] = 0
    return OK


# -- MQClientInstance#updateTopicRouteInfoFromNameServer ----------------------------------------------------
@kernel(inline=True)
def refresh(w, route, n):
    """``MQClientInstance#updateTopicRouteInfoFromNameServer`` from name server ``n``
    (``RouteInfoManager#pickupTopicRouteData``: no liveness filter): the snapshot's brokerAddrs map is
    replaced whole (``brokerAddrTable.put``), so the route lists at brokerId 0 what ``n`` lists there, or
    none; when ``n`` lists no broker of the group, the topic is not found (``TOPIC_NOT_EXIST``) and the
    snapshot is kept as it was."""
    if w[F.NS_LIVE + n] == 0 and w[F.NS_MASTER + n] == 0:
        return 0
    w[route] = w[F.NS_MASTER + n]
    return OK


@action("ProducerRouteRefresh", kind=64, actor="producer", section="namesrv", place=(4, 0, NAMESERVER),
        when=_with_name_servers, rocketmq="MQClientInstance#updateTopicRouteInfoFromNameServer",
        phrase="the producer refreshes its route from a name server")
@kernel
def producer_route_refresh(w, n, params):
    """The producer's ``MQClientInstance#updateTopicRouteInfoFromNameServer`` (every 30 s,
    ``pollNameServerInterval``, and after a failed send; :func:`refresh`); ``topicRouteData2TopicPublishInfo``
    keeps the group's queues only with a brokerId-0 entry, which ``findBrokerAddressInPublish`` then names."""
    return refresh(w, F.P_ROUTE, n)


@action("ConsumerRouteRefresh", kind=65, actor="client", section="namesrv", place=(4, 1, NAMESERVER),
        when=_with_name_servers, rocketmq="MQClientInstance#updateTopicRouteInfoFromNameServer",
        phrase="the consumer refreshes its route from a name server")
@kernel
def consumer_route_refresh(w, n, params):
    """The consumer's ``MQClientInstance#updateTopicRouteInfoFromNameServer`` (every 30 s; :func:`refresh`);
    ``PullAPIWrapper#pullKernelImpl`` then pulls from the brokerId-0 entry
    (``findBrokerAddressInSubscribe``)."""
    return refresh(w, F.C_ROUTE, n)
