"""A group of three controllers (issue 48 item 2, knobs ``controllers = 3`` and ``controller_type``): a
leader elected by the nodes' consensus, a request answered only once a majority holds it, leader changes,
late commits and overwrites of an earlier leader's request, brokers sending to the leader address they last
read. With ``controllers = 1`` (the default) no action below is in the table and every ``Q_*`` field stays 0.

Read from ``controller/.../impl/DLedgerController.java``, ``JRaftController.java``, ``ControllerManager.java``
and ``broker/.../controller/ReplicasManager.java`` at ``rocketmq-all-5.3.3`` (notes/controller-cluster-reading.md
§2; docs/controller.md, "A controller quorum"). What is kept (:mod:`model.controller.fields`, ``Q_*``):

- one committed ``ReplicasInfoManager`` state, the ``controller.*`` fields as with one controller: every node
  applies the same log (``DLedgerControllerStateMachine#onApply`` -> ``ReplicasInfoManager#applyEvent``), so
  the serving leader's state is the committed one (a new leader's apply lag after its initial entry commits
  is left out);
- per node: up or down, and the leader it believes (``MemberState#getLeaderAddr``, what
  ``DLedgerController#getControllerMetadata`` answers); the leader of the latest term and whether it
  serves (``RoleChangeHandler#handle``: its initial empty entry committed). Terms are not kept: a node that
  believes a leader other than the latest is stale, and requests sent to it are errors (NOT_LEADER, or a
  timeout on a deposed leader whose appends cannot commit) that the broker only logs;
- at most one request in flight (:func:`model.controller.leader.propose`): its event (``ElectMasterEvent``
  with a broker or none, ``AlterSyncStateSetEvent`` with the set), the nodes whose log holds it, and the broker
  awaiting the reply. Events are deltas applied on the committed state at commit
  (``ReplicasInfoManager#handleElectMaster``: ``updateMasterInfo`` bumps masterEpoch;
  ``#handleAlterSyncStateSet``: ``updateSyncStateSetInfo`` bumps syncStateSetEpoch), and with one in flight
  the committed state at commit is the state the leader computed the result on;
- the heartbeat table of the leader only (the ``broker.controllerAlive`` and ``controller.live.*`` fields):
  the table elections, ``alterSyncStateSet``'s liveness check and the registration reply read. DLedger
  (``DefaultBrokerHeartbeatManager``, per node, in memory): a new leader's table is its own heartbeat view,
  rebuilt at the election from the running brokers that heartbeat and whose link to it works
  (:func:`rebuild_table`; a broker that died less than 10 s before, still in that node's table, is left
  out). JRaft (``RaftBrokerHeartBeatManager``,
  the table replicated through the log): kept as it is at a leader change;
- links: broker to node and node to node, each cut and healed on its own.

Abstracted (the simplest reading, said where it is used): vote timing (a leader change may happen at any
time among nodes that can reach a majority, once the leader is down or has lost its majority:
:func:`ctl_leader_elect`); DLedger's 6 s step-down of a leader without a quorum (a
leader cut off keeps serving reads of the committed state until another is elected: the same answers);
the 5 s / 3 s timeouts (:func:`ctl_reply_timeout` at any time); more than one request in flight (the next
waits in the ``EventScheduler`` queue); the unchecked DLedger response codes that can answer SUCCESS for an
entry that never commits (reading §2.2: rare, left out; the mutant ``reply_before_commit`` shows what it
would break); JRaft computing the result at apply time rather than before the append (with one request in
flight the committed state is the same at both; the table may differ: left out).

Failure budgets, extended per node: a node crash (with its restart) is one unit of
``max_controller_outages``, a cut link (broker-node or node-node) one of ``max_link_losses``.
"""
from __future__ import annotations

from ..declare import Arg, Note
from explore.native import kernel
from . import fields as F
from .actions import ERROR, OK, elect, elect_none, follow_controller, heartbeat_remove, heartbeat_report
from .declare import BROKER, action
from .leader import broker_link_up, leader, node_up, pair_bit, peer_link_up
from .params import P_BROKERS, P_JRAFT, P_MAX_LINK, P_MAX_OUTAGE
from .state import bg, bit, popcount, set_sync_state_set

#: a controller node, 1..controllers (the kernel takes the 0-based index)
NODE = Arg("node", lambda cfg: range(1, cfg.controllers + 1) if cfg.controllers > 1 else range(0),
           lambda n: n - 1, 1)
#: the other end of a link between two controller nodes (only node < peer)
PEER = Arg("peer", lambda cfg: range(1, cfg.controllers + 1) if cfg.controllers > 1 else range(0),
           lambda n: n - 1, 2)


def _quorum(cfg) -> bool:
    return cfg.controllers > 1


def _pairs(args) -> bool:
    return args["node"] < args["peer"]


# -- helpers ------------------------------------------------------------------------------------------------
@kernel(inline=True)
def reaches_majority(w, c, holder_ok):
    """Node ``c`` and another running node it reaches make a majority of three; with ``holder_ok`` False the
    other node must not hold the request in flight (a vote needs the candidate's log at least as up to date
    as the voter's: a candidate without the entry wins only votes of nodes without it)."""
    for v in range(F.MAX_CONTROLLERS):
        if v != c and node_up(w, v) and peer_link_up(w, c, v):
            if holder_ok or not (w[F.Q_PEND_HOLDERS] >> v) & 1:
                return True
    return False


@kernel
def apply_pending(w, params):
    """The request in flight commits: every node applies its event to the committed state
    (``ReplicasInfoManager#applyEvent``); a broker still awaiting the reply gets SUCCESS with the result
    (``ReplicasManager#brokerElect`` takes the role it names, ``#doReportSyncStateSetChanged`` the new set).
    Returns OK, or ERROR on a model bound."""
    event, arg, requester = w[F.Q_PEND_KIND], w[F.Q_PEND_ARG], w[F.Q_PEND_REQ] - 1
    ok = True
    if event == F.QUORUM_ELECT:
        elect(w, arg, w[F.CTL_EPOCH] + 1, params)
        if requester >= 0:
            ok = follow_controller(w, requester, params)
    elif event == F.QUORUM_ELECT_NONE:
        elect_none(w, w[F.CTL_EPOCH] + 1, params)
    else:
        w[F.CTL_SSS] = arg
        w[F.CTL_SSS_EPOCH] += 1
        if requester >= 0:
            set_sync_state_set(w, requester, w[F.CTL_SSS], w[F.CTL_SSS_EPOCH], params)
    drop_pending(w)
    return OK if ok else ERROR


@kernel(inline=True)
def drop_pending(w):
    w[F.Q_PEND_KIND] = 0
    w[F.Q_PEND_ARG] = 0
    w[F.Q_PEND_HOLDERS] = 0
    w[F.Q_PEND_REQ] = 0


@kernel
def rebuild_table(w, c, params):
    """DLedger: the new leader ``c``'s heartbeat table is its own (``DefaultBrokerHeartbeatManager``, one
    per node): every running broker whose link to ``c`` works and that heartbeats is in it, with its current
    epoch and max offset; no other broker. An unfenced broker heartbeats every second
    (``ReplicasManager#sendHeartbeatToController`` to every available address); a fenced one once registered
    (the model: alive in the old leader's table), with each retry of ``#startBasicService`` every 5 s."""
    for b in range(params[P_BROKERS]):
        heard = bg(w, b, F.B_UP) == 1 and broker_link_up(w, b, c) and \
            (bg(w, b, F.B_FENCED) == 0 or bg(w, b, F.B_ALIVE) == 1)
        heartbeat_remove(w, b)
        if heard:
            heartbeat_report(w, b, params)


# -- leader election and the serving gap --------------------------------------------------------------------
@action("CtlLeaderElect", kind=70, actor="controller", section="quorum", place=(0, NODE), when=_quorum,
        rocketmq="DLedgerLeaderElector#maintainAsCandidate",
        phrase="a controller node wins a vote and leads a new term",
        drawn=Note("controller", "a node becomes leader"))
@kernel
def ctl_leader_elect(w, c, params):
    """A new term led by node ``c`` (DLedger: ``DLedgerLeaderElector#maintainAsCandidate`` after 6 s without
    the leader's heartbeat, votes by ``#handleVote``; JRaft: its node's election): ``c`` runs, is not the
    leader already, and wins a majority (:func:`reaches_majority`: with a request in flight that ``c``'s log
    lacks, only a voter without it votes for ``c``). ``c`` and every running node it reaches believe ``c``;
    a node it does not reach keeps its belief (an old leader cut off still believes itself: two nodes
    believe they lead, for up to 6 s in DLedger). The new leader serves only once its initial entry commits
    (:func:`ctl_become_serving`). A broker awaiting the old leader's reply gets an error (NOT_LEADER from
    ``handleAppend``, or the 5 s timeout); the entry stays in the logs that hold it. DLedger: the leader's
    heartbeat table is ``c``'s own (:func:`rebuild_table`); JRaft: the replicated table is kept.

    ``c`` stands only when the leader of the latest term is down or has lost its majority (it reaches no
    other running node), so that leader changes come from the failure budgets. Left out: a leader change
    with every node and link working (a long GC pause), and the back-and-forth of a partial partition (a
    node cut from a leader that keeps its majority through the third node wins that node's vote for a
    higher term, DLedger having no pre-vote, and the deposed leader does the same in turn): each such
    change would bump the term without end in the model, and one of them is a leader change the cut of
    the old leader's last link (a second link loss) also reaches."""
    lead = leader(w)
    if not node_up(w, c) or lead == c:
        return 0
    if lead >= 0 and node_up(w, lead) and reaches_majority(w, lead, True):   # the leader keeps its majority
        return 0
    if not reaches_majority(w, c, (w[F.Q_PEND_HOLDERS] >> c) & 1 == 1 or w[F.Q_PEND_KIND] == 0):
        return 0
    w[F.Q_LEADER] = c + 1
    w[F.Q_SERVING] = 0
    w[F.Q_PEND_REQ] = 0
    for v in range(F.MAX_CONTROLLERS):
        if node_up(w, v) and peer_link_up(w, c, v):
            w[F.Q_BELIEF + v] = c + 1
    if params[P_JRAFT] == 0:
        rebuild_table(w, c, params)
    return OK


@action("CtlBecomeServing", kind=71, actor="controller", section="quorum", place=(1,), when=_quorum,
        rocketmq="RoleChangeHandler#handle",
        phrase="the new leader's initial entry commits: it serves, and commits or drops the earlier request",
        drawn=Note("controller", "leader serves"))
@kernel
def ctl_become_serving(w, params):
    """``DLedgerController.RoleChangeHandler#handle``, LEADER: an empty entry appended and awaited
    (``appendToDLedgerAndWait``) until it commits on a majority (the leader and a running node it reaches),
    then ``currentRole = LEADER`` and ``startScheduling``. Committing it commits every earlier entry of the
    leader's log (Raft): a request in flight that the new leader holds commits now, its event applied though
    its requester was answered with an error (a late commit); one it lacks is overwritten on the nodes that
    held it (never applied)."""
    c = leader(w)
    if c < 0 or w[F.Q_SERVING] == 1 or not node_up(w, c) or not reaches_majority(w, c, True):
        return 0
    w[F.Q_SERVING] = 1
    if w[F.Q_PEND_KIND] != 0:
        if (w[F.Q_PEND_HOLDERS] >> c) & 1:
            return apply_pending(w, params)
        drop_pending(w)
    return OK


@action("CtlFollowLeader", kind=72, actor="controller", section="quorum", place=(2, NODE), when=_quorum,
        rocketmq="DLedgerLeaderElector#handleHeartBeat",
        phrase="a controller node learns the current leader (or a deposed leader steps down)",
        drawn=Note("controller", "a node learns the leader"))
@kernel
def ctl_follow_leader(w, c, params):
    """Node ``c`` (not the leader) learns who leads: the leader's heartbeat reaches it
    (``DLedgerLeaderElector#handleHeartBeat``, every 2 s) and its belief becomes the leader; a node that
    still believes itself leader and no longer reaches the leader steps down (``#sendHeartbeats``: no quorum
    of acks for 6 s) and believes none."""
    lead = leader(w)
    if not node_up(w, c) or lead == c:
        return 0
    if lead >= 0 and node_up(w, lead) and peer_link_up(w, c, lead):
        if w[F.Q_BELIEF + c] == lead + 1:
            return 0
        w[F.Q_BELIEF + c] = lead + 1
        return OK
    if w[F.Q_BELIEF + c] != c + 1:
        return 0
    w[F.Q_BELIEF + c] = 0
    return OK


# -- replication, commit, replies ---------------------------------------------------------------------------
@action("CtlReplicate", kind=73, actor="controller", section="quorum", place=(3, NODE), when=_quorum,
        rocketmq="DLedgerEntryPusher#doAppend",
        phrase="the leader copies the request in flight to a follower's log",
        drawn=Note("controller", "entry copied to a node"))
@kernel
def ctl_replicate(w, c, params):
    """``DLedgerEntryPusher#doAppend`` (its ``EntryDispatcher``): the serving leader's entry reaches running node
    ``c``'s log over a working link (the follower acks; the leader learns it in :func:`ctl_commit`)."""
    lead = leader(w)
    if w[F.Q_PEND_KIND] == 0 or w[F.Q_SERVING] == 0 or lead < 0 or not node_up(w, lead):
        return 0
    if (w[F.Q_PEND_HOLDERS] >> c) & 1 or not node_up(w, c) or not peer_link_up(w, c, lead):
        return 0
    w[F.Q_PEND_HOLDERS] |= bit(c)
    return OK


@action("CtlCommit", kind=74, actor="controller", section="quorum", place=(4,), when=_quorum,
        rocketmq="DLedgerController#appendToDLedgerAndWait",
        phrase="a majority holds the request: it commits, and an awaited reply is SUCCESS",
        drawn=Note("controller", "entry committed"))
@kernel
def ctl_commit(w, params):
    """``DLedgerController#appendToDLedgerAndWait`` returning true
    (``DLedgerEntryPusher.QuorumAckChecker#doWork``): the serving leader sees a majority (itself and one
    more) holding the entry; it commits, every node applies it (:func:`apply_pending`), and
    ``appendToDLedgerAndWait`` returns true, so ``ControllerRequestProcessor`` answers the awaiting broker
    the precomputed result."""
    lead = leader(w)
    if w[F.Q_PEND_KIND] == 0 or w[F.Q_SERVING] == 0 or lead < 0 or not node_up(w, lead):
        return 0
    if popcount(w[F.Q_PEND_HOLDERS]) < 2:
        return 0
    return apply_pending(w, params)


@action("CtlReplyTimeout", kind=75, actor="controller", section="quorum", place=(5,), when=_quorum,
        rocketmq="DLedgerController#appendToDLedgerAndWait",
        phrase="the request's reply is an error (timeout); its entry may still commit",
        drawn=Note("controller", "request timed out"))
@kernel
def ctl_reply_timeout(w, params):
    """``DLedgerController#appendToDLedgerAndWait``: ``dLedgerFuture.get(5, SECONDS)`` times out (or the
    broker's own 3 s RPC timeout), the future is cancelled and the broker gets an error, which it only
    logs; the entry stays in the logs that hold it and may still commit (:func:`ctl_commit`,
    :func:`ctl_become_serving`)."""
    if w[F.Q_PEND_REQ] == 0:
        return 0
    w[F.Q_PEND_REQ] = 0
    return OK


@action("BrokerRefreshLeader", kind=76, actor="controller", section="quorum", place=(6, BROKER), when=_quorum,
        rocketmq="ReplicasManager#updateControllerMetadata",
        phrase="a broker reads the controller leader's address from the first node it reaches",
        drawn=Note("broker", "controller leader address refreshed"))
@kernel
def broker_refresh_leader(w, b, params):
    """``ReplicasManager#updateControllerMetadata`` (every 10 s, ``syncControllerMetadataPeriod``): for each
    available controller address in order (``availableControllerAddresses``, the nodes the broker reaches:
    ``#scanAvailableControllerAddresses``), ``CONTROLLER_GET_METADATA_INFO``; the first non-empty
    ``controllerLeaderAddress`` is taken: that node's belief (``DLedgerController#getControllerMetadata``:
    ``MemberState#getLeaderAddr``), which may name a deposed leader. A broker keeps its address across a
    restart (its start-up refreshes are this step)."""
    if bg(w, b, F.B_UP) == 0:
        return 0
    for c in range(F.MAX_CONTROLLERS):
        if node_up(w, c) and broker_link_up(w, b, c) and w[F.Q_BELIEF + c] != 0:
            if w[F.Q_ADDR + b] == w[F.Q_BELIEF + c]:
                return 0
            w[F.Q_ADDR + b] = w[F.Q_BELIEF + c]
            return OK
    return 0


# -- failures ------------------------------------------------------------------------------------------------
@action("CtlNodeCrash", kind=77, actor="failure", section="quorum", place=(7, NODE),
        when=lambda cfg: cfg.controllers > 1 and cfg.max_controller_outages > 0,
        rocketmq="ControllerManager#shutdown", phrase="a controller node's process dies",
        drawn=Note("controller", "a node crashes"))
@kernel
def ctl_node_crash(w, c, params):
    """A controller node's process dies (``ControllerManager#shutdown`` never runs; one unit of
    ``max_controller_outages``): its log is on disk (DLedger's
    store, JRaft's log), its memory gone. A leader's death leaves no leader until an election; a broker
    awaiting its reply gets an error (the channel closes)."""
    if not node_up(w, c) or w[F.USED_OUTAGE] >= params[P_MAX_OUTAGE]:
        return 0
    w[F.USED_OUTAGE] += 1
    w[F.Q_UP] &= ~bit(c)
    w[F.Q_BELIEF + c] = 0
    if leader(w) == c:
        w[F.Q_LEADER] = 0
        w[F.Q_SERVING] = 0
        w[F.Q_PEND_REQ] = 0
    return OK


@action("CtlNodeRestart", kind=78, actor="failure", section="quorum", place=(8, NODE),
        when=lambda cfg: cfg.controllers > 1 and cfg.max_controller_outages > 0,
        rocketmq="ControllerManager#start", phrase="a controller node restarts, a follower that knows no leader",
        drawn=Note("controller", "a node restarts"))
@kernel
def ctl_node_restart(w, c, params):
    """``ControllerManager#start`` on a node that died: it replays its log (the committed state is the
    group's) and starts as a follower that believes no leader; its own heartbeat table starts empty."""
    if node_up(w, c):
        return 0
    w[F.Q_UP] |= bit(c)
    return OK


@action("CtlBrokerLinkLoss", kind=79, actor="failure", section="quorum", place=(9, BROKER, NODE),
        when=lambda cfg: cfg.controllers > 1 and cfg.max_link_losses > 0,
        rocketmq="ReplicasManager#scanAvailableControllerAddresses",
        phrase="a broker's link to one controller node breaks", drawn=Note("broker", "link to a controller node lost"))
@kernel
def ctl_broker_link_loss(w, b, c, params):
    """The link between broker ``b`` and node ``c`` breaks (``ReplicasManager#scanAvailableControllerAddresses`` finds
    ``c`` unreachable; one unit of ``max_link_losses``): ``c`` drops
    out of the broker's ``availableControllerAddresses`` and hears none of its heartbeats; requests the
    broker sends there fail."""
    if not broker_link_up(w, b, c) or w[F.USED_LINK] >= params[P_MAX_LINK]:
        return 0
    w[F.USED_LINK] += 1
    w[F.Q_BLINK] |= bit(b * F.MAX_CONTROLLERS + c)
    return OK


@action("CtlBrokerLinkHeal", kind=80, actor="failure", section="quorum", place=(10, BROKER, NODE),
        when=lambda cfg: cfg.controllers > 1 and cfg.max_link_losses > 0,
        rocketmq="ReplicasManager#scanAvailableControllerAddresses",
        phrase="a broker's link to a controller node heals", drawn=Note("broker", "link to a controller node back"))
@kernel
def ctl_broker_link_heal(w, b, c, params):
    """The link between broker ``b`` and node ``c`` works again (``ReplicasManager#scanAvailableControllerAddresses``
    finds ``c`` again)."""
    if broker_link_up(w, b, c):
        return 0
    w[F.Q_BLINK] &= ~bit(b * F.MAX_CONTROLLERS + c)
    return OK


@action("CtlPeerLinkLoss", kind=81, actor="failure", section="quorum", place=(11, NODE, PEER),
        when=lambda cfg: cfg.controllers > 1 and cfg.max_link_losses > 0, only=_pairs,
        rocketmq="DLedgerRpcNettyService#heartBeat", phrase="the link between two controller nodes breaks",
        drawn=Note("controller", "link between two nodes lost"))
@kernel
def ctl_peer_link_loss(w, c, d, params):
    """The link between nodes ``c`` and ``d`` breaks (their ``DLedgerRpcNettyService#heartBeat``, vote and push calls
    fail; one unit of ``max_link_losses``): no votes, entries or
    leader heartbeats pass it."""
    if not peer_link_up(w, c, d) or w[F.USED_LINK] >= params[P_MAX_LINK]:
        return 0
    w[F.USED_LINK] += 1
    w[F.Q_PLINK] |= bit(pair_bit(c, d))
    return OK


@action("CtlPeerLinkHeal", kind=82, actor="failure", section="quorum", place=(12, NODE, PEER),
        when=lambda cfg: cfg.controllers > 1 and cfg.max_link_losses > 0, only=_pairs,
        rocketmq="DLedgerRpcNettyService#heartBeat", phrase="the link between two controller nodes heals",
        drawn=Note("controller", "link between two nodes back"))
@kernel
def ctl_peer_link_heal(w, c, d, params):
    """The link between nodes ``c`` and ``d`` works again (``DLedgerRpcNettyService#heartBeat``, vote and push
    calls go through)."""
    if peer_link_up(w, c, d):
        return 0
    w[F.Q_PLINK] &= ~bit(pair_bit(c, d))
    return OK
