"""Routes: the name server's view of the broker group and each client's cached copy.

The name server (``RouteInfoManager``) lists every registered brokerId of the group (``nameserver.route``,
one bit per brokerId) and holds the topic's queue data (``nameserver.topic_route``), which only the master's
registration creates (``RouteInfoManager#registerBroker``) and which goes when the group has no broker left
(``RouteInfoManager#onChannelDestroy``); without it the topic has no route at all. A client's
``brokerAddrTable`` entry for the group (``consumer.route``) is the route it last fetched: it changes only by
a route refresh, so it can list a broker that died or lack one that came back. Every broker lookup of a
client reads that cached route, ids in ascending order (``HashMap`` iteration over small ``Long`` keys).
"""
from __future__ import annotations

from explore.native import kernel
from .slots import K_SUBSCRIBE_TRY_NEXT_SLAVE_ID
from .writes import put
from . import fields as F


@kernel(inline=True)
def listed(route, b):
    """Whether brokerId ``b`` is in the route mask ``route``."""
    return (route >> b) & 1 != 0


@kernel
def lowest_listed(route):
    """The lowest brokerId of a route mask (the first ``HashMap`` entry), -1 for an empty route."""
    b = 0
    while route:
        if route & 1:
            return b
        route >>= 1
        b += 1
    return -1


@kernel
def nameserver_register(w, b):
    """``RouteInfoManager#registerBroker`` of brokerId ``b``: listed again; the master's registration also
    (re)creates the topic's queue data."""
    put(w, F.NS_ROUTE, w[F.NS_ROUTE] | (1 << b))
    if b == 0:
        put(w, F.NS_TOPIC, 1)


@kernel
def nameserver_remove(w, b):
    """``RouteInfoManager#onChannelDestroy`` / ``#scanNotActiveBroker`` removing brokerId ``b``; the topic's
    queue data goes with the group's last broker."""
    put(w, F.NS_ROUTE, w[F.NS_ROUTE] & ~(1 << b))
    if w[F.NS_ROUTE] == 0:
        put(w, F.NS_TOPIC, 0)


@kernel
def refresh_route(w, c, p):
    """``MQClientInstance#updateTopicRouteInfoFromNameServer``: the group's broker table becomes the name
    server's route; when the topic has no route (no queue data) the client keeps its old table."""
    if w[F.NS_TOPIC] != 0:
        put(w, F.C_ROUTE + c, w[F.NS_ROUTE])


@kernel
def find_listed(w, c, wanted, p, next_slave):
    """The lookup both broker searches share: brokerId ``wanted`` if the group's table lists it (-1: no
    preference), else (``next_slave``, a slave id wanted) brokerId ``wanted + 1`` if listed, else the first
    entry (the lowest listed id); when the table is empty the route is refreshed once and the lookup
    repeated; -1 is "broker not exist"."""
    for attempt in range(2):
        route = w[F.C_ROUTE + c]
        if wanted >= 0 and listed(route, wanted):
            return wanted
        if next_slave and wanted > 0 and listed(route, wanted + 1):
            return wanted + 1
        b = lowest_listed(route)
        if b >= 0:
            return b
        if attempt == 0:
            refresh_route(w, c, p)
    return -1


@kernel
def admin_broker(w, c, p):
    """``MQClientInstance#findBrokerAddressInAdmin`` (offset fetch and commit): the first entry of the
    group's table (the master if listed, else the lowest slave); if none, refresh the route once and look
    again; -1 is "broker not exist"."""
    return find_listed(w, c, -1, p, False)


@kernel
def subscribe_broker(w, c, suggestion, p):
    """``MQClientInstance#findBrokerAddressInSubscribe(brokerName, suggestion, false)`` as
    ``PullAPIWrapper#pullKernelImpl`` calls it: exactly the suggested brokerId if listed, else the first
    entry (the lowest listed id), refreshing an empty table once.

    Version switch ``subscribe_try_next_slave_id`` (RocketMQ 4.8.0, #2165): a suggested slave id that is
    not listed is followed by ``brokerId + 1`` before the first entry (``if (!found && slave)``)."""
    return find_listed(w, c, suggestion, p, p[K_SUBSCRIBE_TRY_NEXT_SLAVE_ID] != 0)


@kernel
def publish_broker_listed(w, c, p):
    """``MQClientInstance#findBrokerAddressInPublish`` (brokerId 0 only), as ``MQAdminImpl#maxOffset`` calls
    it: whether the master is in the table, after one route refresh if it is not."""
    if not listed(w[F.C_ROUTE + c], 0):
        refresh_route(w, c, p)
    return listed(w[F.C_ROUTE + c], 0)
