"""What a broker reaches of a group of three controllers (``controllers = 3``; issue 48 item 2): the helpers
:mod:`model.controller.actions` asks before it reads or changes the controller's state, so that with one
controller nothing changes and with three a request goes to the leader address the broker knows and is
answered only by a serving leader. The quorum's own steps (elections, replication, commits, failures) are
in :mod:`model.controller.quorum`; the fields in :mod:`model.controller.fields` (``Q_*``).

Nodes ``c`` are 0-based here (node ``c + 1`` in labels and views), brokers 0-based as everywhere.
"""
from __future__ import annotations

from explore.native import kernel
from . import fields as F
from .params import P_CONTROLLERS
from .state import bg, bit

OK = 1


@kernel(inline=True)
def quorum(params):
    """``controllers = 3``."""
    return params[P_CONTROLLERS] > 1


@kernel(inline=True)
def node_up(w, c):
    return (w[F.Q_UP] >> c) & 1 == 1


@kernel(inline=True)
def broker_link_up(w, b, c):
    """The link between broker ``b`` and controller node ``c`` works (bit ``b * 3 + c`` of the links down)."""
    return (w[F.Q_BLINK] >> (b * F.MAX_CONTROLLERS + c)) & 1 == 0


@kernel(inline=True)
def pair_bit(c, d):
    """The bit of the link between nodes ``c`` and ``d`` (``c != d``): (1,2) 0, (1,3) 1, (2,3) 2."""
    return c + d - 1


@kernel(inline=True)
def peer_link_up(w, c, d):
    return c == d or (w[F.Q_PLINK] >> pair_bit(c, d)) & 1 == 0


@kernel(inline=True)
def leader(w):
    """The leader of the latest term (0-based), -1 when there is none."""
    return w[F.Q_LEADER] - 1


@kernel(inline=True)
def leader_up(w):
    c = leader(w)
    return c >= 0 and node_up(w, c)


@kernel(inline=True)
def reaches_leader(w, b):
    """Broker ``b``'s request is handled: it goes to the broker's ``controllerLeaderAddress`` only
    (``ReplicasManager#registerBrokerToController``, ``#brokerElect``, ``#sendSyncStateSetChanged`` and the
    ``GET_REPLICA_INFO`` poll all use it), that node runs and is reachable, and it is the serving leader:
    ``EventScheduler#appendEvent`` answers CONTROLLER_NOT_LEADER unless ``RoleChangeHandler#isLeaderState``
    (a node that is not the leader, or a leader whose initial entry has not committed yet), and a node that
    still believes it leads a term that is over cannot commit (its request times out). Either is an error
    the broker only logs: no step here."""
    a = w[F.Q_ADDR + b] - 1
    if a < 0 or bg(w, b, F.B_UP) == 0 or not broker_link_up(w, b, a):
        return False
    return a == leader(w) and node_up(w, a) and w[F.Q_SERVING] == 1


@kernel(inline=True)
def heard_by_leader(w, b):
    """Broker ``b``'s heartbeat reaches the leader's heartbeat table: heartbeats go oneway to every
    available controller address (``ReplicasManager#sendHeartbeatToController``), whatever the broker's
    leader address, and the heartbeat manager records them on any node (DLedger,
    ``DefaultBrokerHeartbeatManager#onBrokerHeartbeat``); the model keeps the leader's table only."""
    c = leader(w)
    return c >= 0 and node_up(w, c) and bg(w, b, F.B_UP) == 1 and broker_link_up(w, b, c)


@kernel(inline=True)
def silent_to_leader(w, b):
    """The leader's table stops hearing broker ``b``: its process is down or its link to the leader is cut
    (``DefaultBrokerHeartbeatManager#scanNotActiveBroker``, ``#onBrokerChannelClose``)."""
    return bg(w, b, F.B_UP) == 0 or not broker_link_up(w, b, leader(w))


@kernel(inline=True)
def propose(w, event, arg, requester):
    """``ControllerEventHandler#run`` on the serving leader: the result computed on its state (the caller
    checked it), the event appended to its log (``DLedgerController#appendToDLedgerAndWait``) and held by
    the leader alone; ``requester`` (a broker + 1, 0 for the controller's own election) awaits the reply.
    Not enabled while another request is in flight: the model keeps one (the next waits in the
    ``EventScheduler`` queue), and the committed state cannot change before it commits or is dropped."""
    if w[F.Q_SERVING] == 0 or w[F.Q_PEND_KIND] != 0:
        return 0
    w[F.Q_PEND_KIND] = event
    w[F.Q_PEND_ARG] = arg
    w[F.Q_PEND_HOLDERS] = bit(leader(w))
    w[F.Q_PEND_REQ] = requester
    return OK
