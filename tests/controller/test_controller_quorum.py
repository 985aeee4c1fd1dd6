"""A quorum of three controllers (issue 48 item 2; knobs ``controllers`` and ``controller_type``,
model/controller/quorum.py): hand-built states with the effect the 5.3.3 source gives, field by field
(``DLedgerController#appendToDLedgerAndWait``, ``RoleChangeHandler#handle``, ``EventScheduler#appendEvent``,
``ReplicasManager#updateControllerMetadata``, ``RaftBrokerHeartBeatManager#scanNotActiveBroker``), the knobs'
checks, the seeded bug that breaks a property through the quorum, and the same counts on one and two
threads."""
from __future__ import annotations

import pytest

from model.config import ConfigError
from model.controller import ControllerConfig
from model.controller.model import (AlterSyncStateSet, BrokerElect, BrokerRefreshLeader, ControllerDeclareDead,
                                    ControllerElect, ControllerModel, CtlBecomeServing, CtlCommit, CtlFollowLeader,
                                    CtlLeaderElect, CtlNodeCrash, CtlReplicate, CtlReplyTimeout, RegisterBroker,
                                    SyncBrokerMetadata, action_table)
from test_controller_actions import build, running

Q = ControllerConfig(controllers=3, messages=1, max_broker_crashes=0, max_controller_outages=1, max_link_losses=2)
JRAFT = ControllerConfig(controllers=3, controller_type="jraft", messages=1, max_broker_crashes=0,
                         max_controller_outages=1, max_link_losses=2)
CONTROLLER = ("controller.masterBrokerId", "controller.masterEpoch", "controller.syncStateSet",
              "controller.syncStateSetEpoch")
PENDING = ("quorum.pending.event", "quorum.pending.elected", "quorum.pending.holders", "quorum.pending.requester")


def group(leader=1, serving=1, up=0b111, beliefs=(1, 1, 1), addresses=(1, 1), **extra):
    """Controller fields of a three-node group: nodes ``up``, ``leader`` (serving or not), each node's belief
    and each broker's leader address; the one-controller fields up as with three nodes."""
    fields = {"controller_up": 1, "quorum_up": up, "quorum_leader": leader, "quorum_serving": serving}
    fields.update({f"quorum_believedLeader_{c}": b for c, b in enumerate(beliefs)})
    fields.update({f"broker{b + 1}_controllerLeaderAddress": a for b, a in enumerate(addresses)})
    fields.update(extra)
    return fields


def fenced(b, **extra):
    """Broker ``b`` started, fenced, registered (alive in the leader's table)."""
    return running(b, fenced=1, ctlAlive=1, **extra)


def master(b, epoch, **extra):
    return running(b, master=1, masterEpoch=epoch, syncStateSet=1 << (b - 1), ctlAlive=1, **extra)


def pending_elect(elected, holders, requester=0):
    """The request in flight: ``ElectMasterEvent`` electing broker ``elected``, in the logs of ``holders`` (a
    node mask), awaited by broker ``requester`` (0: none)."""
    return {"quorum_pending_event": 1, "quorum_pending_arg": elected - 1, "quorum_pending_holders": holders,
            "quorum_pending_requester": requester}


def fields(m, s, keys):
    v = m.view(s)
    return tuple(v[k] for k in keys)


# -- the knobs ----------------------------------------------------------------------------------------------
def test_knob_defaults_checks_and_actions():
    assert (ControllerConfig().controllers, ControllerConfig().controller_type) == (1, "DLEDGER")
    with pytest.raises(ConfigError, match="controllers.*value 2"):
        ControllerConfig(controllers=2)
    with pytest.raises(ConfigError, match="controller_type.*JRAFT needs --rocketmq-version 5.2.0"):
        ControllerConfig.from_mapping({"controller_type": "jraft", "rocketmq_version": "5.1.4"})
    assert ControllerConfig.from_mapping({"controller_type": "jraft", "rocketmq_version": "5.2.0"}).controller_type \
        == "JRAFT"
    one = [str(a) for a in action_table(ControllerConfig(max_controller_outages=1, max_link_losses=1))]
    assert not any(a.startswith(("Ctl", "BrokerRefreshLeader")) for a in one)
    assert {"ControllerDown()", "ControllerLinkLoss(broker=1)", "AlterSyncStateSetReplyLost(broker=1)"} <= set(one)
    three = [str(a) for a in action_table(Q)]
    assert not {"ControllerDown()", "ControllerLinkLoss(broker=1)", "AlterSyncStateSetReplyLost(broker=1)"} & set(three)
    assert {"CtlLeaderElect(node=3)", "CtlBecomeServing()", "CtlCommit()", "CtlReplicate(node=2)",
            "CtlReplyTimeout()", "BrokerRefreshLeader(broker=2)", "CtlNodeCrash(node=1)",
            "CtlBrokerLinkLoss(broker=1, node=3)", "CtlPeerLinkLoss(node=1, peer=3)"} <= set(three)
    assert "CtlPeerLinkLoss(node=2, peer=1)" not in three
    assert "quorum.leader" not in ControllerConfig().view_kinds()
    assert ControllerConfig(controllers=3).view_kinds()["broker2.controllerLeaderAddress"] == "optional"


def test_the_initial_state_has_node_1_serving_and_known_to_every_broker():
    m = ControllerModel(Q)
    v = m.view(m.initial_states()[0])
    assert (v["quorum.up"], v["quorum.leader"], v["quorum.serving"], v["quorum.node3.believedLeader"],
            v["broker2.controllerLeaderAddress"], v["quorum.pending.event"]) == ([1, 2, 3], 1, True, 1, 1, None)
    one = ControllerModel(ControllerConfig(messages=1))
    assert "quorum.up" not in one.view(one.initial_states()[0])


def test_view_round_trips():
    m = ControllerModel(Q)
    s = build(m, **group(leader=2, serving=0, beliefs=(1, 2, 2), addresses=(1, 2), quorum_peerLinksDown=0b010,
                      quorum_brokerLinksDown=0b100_000), **pending_elect(2, 0b011, 1), **fenced(1), **fenced(2))
    assert m.encode(m.view(s)) == s


# -- a write commits only on a majority --------------------------------------------------------------------
def test_an_election_commits_only_once_a_majority_holds_it():
    """``ControllerEventHandler#run``: broker 1's ``brokerElect`` computed on the leader's state and appended
    (held by node 1 alone); ``appendToDLedgerAndWait`` returns only once a majority holds it: no commit on
    the leader alone; after node 2's copy it commits, every node applies it (masterEpoch 0 -> 1, the set
    {1}, its epoch 1) and the awaiting broker takes the role of the reply."""
    m = ControllerModel(Q)
    s = build(m, **group(), **fenced(1), **fenced(2))
    asked = m.next_state(s, BrokerElect(broker=1, elected=1))
    assert fields(m, asked, PENDING) == ("ELECT", 1, [1], 1)
    assert fields(m, asked, CONTROLLER) == (None, 0, [], 0)
    assert m.next_state(asked, CtlCommit()) is None
    copied = m.next_state(asked, CtlReplicate(node=2))
    assert fields(m, copied, PENDING) == ("ELECT", 1, [1, 2], 1)
    done = m.next_state(copied, CtlCommit())
    assert fields(m, done, CONTROLLER) == (1, 1, [1], 1)
    assert fields(m, done, PENDING) == (None, None, [], None)
    v = m.view(done)
    assert (v["broker1.role"], v["broker1.masterEpoch"], v["broker1.fenced"]) == ("MASTER", 1, False)


def test_one_request_in_flight_and_no_copy_over_a_cut_link_or_to_a_dead_node():
    m = ControllerModel(Q)
    s = build(m, **group(), **fenced(1), **fenced(2), **pending_elect(1, 0b001, 1))
    assert m.next_state(s, BrokerElect(broker=2, elected=2)) is None   # waits in the EventScheduler queue
    cut = build(m, **group(quorum_peerLinksDown=0b010), **fenced(1), **pending_elect(1, 0b001, 1))   # (1,3) cut
    assert m.next_state(cut, CtlReplicate(node=3)) is None
    assert m.next_state(cut, CtlReplicate(node=2)) is not None
    dead = build(m, **group(up=0b101, beliefs=(1, 0, 1)), **fenced(1), **pending_elect(1, 0b001, 1))
    assert m.next_state(dead, CtlReplicate(node=2)) is None


def test_an_alter_sync_state_set_reply_comes_only_after_commit():
    """``#doReportSyncStateSetChanged``: the proposal {1, 2} accepted on the leader's state goes through the
    log; the broker's set changes only with the SUCCESS reply at commit (syncStateSetEpoch 1 -> 2)."""
    m = ControllerModel(Q)
    s = build(m, **group(), controller_masterBrokerId=1, controller_masterEpoch=1, controller_syncStateSet=0b01,
              controller_syncStateSetEpoch=1,
              **master(1, 1, syncStateSetEpoch=1, synchronizing=1, remoteSyncStateSet=0b11, alterPending=1),
              **running(2, masterEpoch=1, ctlAlive=1))
    sent = m.next_state(s, AlterSyncStateSet(broker=1))
    v = m.view(sent)
    assert (v["quorum.pending.event"], v["quorum.pending.syncStateSet"], v["broker1.alterPending"],
            v["controller.syncStateSetEpoch"]) == ("ALTER", [1, 2], False, 1)
    done = m.next_state(m.next_state(sent, CtlReplicate(node=3)), CtlCommit())
    v = m.view(done)
    assert (v["controller.syncStateSet"], v["controller.syncStateSetEpoch"], v["broker1.syncStateSet"],
            v["broker1.syncStateSetEpoch"]) == ([1, 2], 2, [1, 2], 2)


# -- leader change: late commit, overwrite ------------------------------------------------------------------
def test_a_timed_out_election_commits_late_through_a_new_leader_that_holds_it():
    """Reading §2.5: the entry reached nodes 1 and 2 but the reply timed out (the broker got an error and
    stays fenced); node 1 dies; node 3 lacks the entry and cannot win (its only voter, node 2, holds it);
    node 2 wins, and its initial entry's commit (``RoleChangeHandler#handle``) commits the earlier one:
    ``ElectMasterEvent`` applied (masterEpoch 1) with no reply to anyone."""
    m = ControllerModel(Q)
    s = build(m, **group(), **fenced(1), **fenced(2), **pending_elect(1, 0b011, 1))
    timed_out = m.next_state(s, CtlReplyTimeout())
    assert fields(m, timed_out, PENDING) == ("ELECT", 1, [1, 2], None)
    down = m.next_state(timed_out, CtlNodeCrash(node=1))
    v = m.view(down)
    assert (v["quorum.up"], v["quorum.leader"], v["quorum.serving"], v["budget.controllerOutages"]) == \
        ([2, 3], None, False, 1)
    assert m.next_state(down, CtlLeaderElect(node=3)) is None
    led = m.next_state(down, CtlLeaderElect(node=2))
    v = m.view(led)
    assert (v["quorum.leader"], v["quorum.serving"], v["quorum.node2.believedLeader"],
            v["quorum.node3.believedLeader"]) == (2, False, 2, 2)
    assert fields(m, led, CONTROLLER) == (None, 0, [], 0)   # the serving gap: nothing committed yet
    serving = m.next_state(led, CtlBecomeServing())
    assert fields(m, serving, CONTROLLER) == (1, 1, [1], 1)
    v = m.view(serving)
    assert (v["quorum.serving"], v["quorum.pending.event"], v["broker1.fenced"], v["broker1.masterEpoch"]) == \
        (True, None, True, 0)


def test_an_entry_the_new_leader_lacks_is_overwritten():
    """The entry is on node 1 alone; node 1 dies; node 2 wins with node 3's vote (neither holds it); its
    initial entry's commit overwrites the entry: never applied."""
    m = ControllerModel(Q)
    s = build(m, **group(up=0b110, leader=0, beliefs=(0, 1, 1)), **fenced(1), **fenced(2), **pending_elect(1, 0b001))
    serving = m.next_state(m.next_state(s, CtlLeaderElect(node=2)), CtlBecomeServing())
    assert fields(m, serving, CONTROLLER) == (None, 0, [], 0)
    assert fields(m, serving, PENDING) == (None, None, [], None)
    assert m.view(serving)["quorum.serving"] is True


def test_no_leader_change_while_the_leader_keeps_its_majority():
    m = ControllerModel(Q)
    healthy = build(m, **group(), **fenced(1))
    assert m.next_state(healthy, CtlLeaderElect(node=2)) is None
    one_cut = build(m, **group(quorum_peerLinksDown=0b001), **fenced(1))   # (1,2) cut: 1 still reaches 3
    assert m.next_state(one_cut, CtlLeaderElect(node=2)) is None
    isolated = build(m, **group(quorum_peerLinksDown=0b011), **fenced(1))   # (1,2), (1,3) cut
    after = m.next_state(isolated, CtlLeaderElect(node=3))
    v = m.view(after)   # node 1 does not hear of it: two nodes believe they lead
    assert (v["quorum.leader"], v["quorum.node1.believedLeader"], v["quorum.node2.believedLeader"],
            v["quorum.node3.believedLeader"]) == (3, 1, 3, 3)
    stepped = m.next_state(after, CtlFollowLeader(node=1))   # #sendHeartbeats: no quorum of acks for 6 s
    assert m.view(stepped)["quorum.node1.believedLeader"] is None


# -- NOT_LEADER and the leader address ----------------------------------------------------------------------
def test_a_request_to_a_node_that_is_not_the_serving_leader_is_an_error():
    """``EventScheduler#appendEvent``: CONTROLLER_NOT_LEADER unless ``isLeaderState()``. Broker 1's leader
    address names node 2, a follower: its AlterSyncStateSet is answered with an error (the proposal
    dropped, nothing in the log), its registration, election request and poll get nothing; the same at
    the leader before its initial entry commits."""
    m = ControllerModel(Q)
    master1 = master(1, 1, syncStateSetEpoch=1, synchronizing=1, remoteSyncStateSet=0b11, alterPending=1)
    committed = dict(controller_masterBrokerId=1, controller_masterEpoch=1, controller_syncStateSet=0b01,
                     controller_syncStateSetEpoch=1)
    for where in (group(addresses=(2, 1)), group(serving=0)):
        s = build(m, **where, **committed, **master1, **running(2, masterEpoch=1, ctlAlive=1))
        after = m.next_state(s, AlterSyncStateSet(broker=1))
        v = m.view(after)
        assert (v["broker1.alterPending"], v["quorum.pending.event"], v["controller.syncStateSetEpoch"]) == \
            (False, None, 1)
        f = build(m, **where, **fenced(1), **fenced(2))
        assert m.next_state(f, BrokerElect(broker=1, elected=1)) is None
        assert m.next_state(f, RegisterBroker(broker=1)) is None
    slave = build(m, **group(addresses=(1, 2)), **committed, **master(1, 1), **running(2, ctlAlive=1))
    assert m.next_state(slave, SyncBrokerMetadata(broker=2)) is None
    assert m.next_state(build(m, **group(), **committed, **master(1, 1), **running(2, ctlAlive=1)),
                        SyncBrokerMetadata(broker=2)) is not None


def test_a_broker_takes_the_belief_of_the_first_node_it_reaches():
    """``ReplicasManager#updateControllerMetadata``: the first available address with a non-empty
    ``controllerLeaderAddress``. Node 1 (deposed, cut from the others) still believes itself: a broker that
    reaches it takes node 1, stale; a broker cut from node 1 takes node 2's belief, the leader 3."""
    m = ControllerModel(Q)
    base = group(leader=3, beliefs=(1, 3, 3), addresses=(2, 2), quorum_peerLinksDown=0b011)
    s = build(m, **base, **fenced(1), **fenced(2))
    assert m.view(m.next_state(s, BrokerRefreshLeader(broker=1)))["broker1.controllerLeaderAddress"] == 1
    cut = build(m, **{**base, "quorum_brokerLinksDown": 0b001}, **fenced(1), **fenced(2))   # broker 1 - node 1
    assert m.view(m.next_state(cut, BrokerRefreshLeader(broker=1)))["broker1.controllerLeaderAddress"] == 3
    unknown = build(m, **group(beliefs=(0, 0, 0), addresses=(2, 2)), **fenced(1))
    assert m.next_state(unknown, BrokerRefreshLeader(broker=1)) is None


# -- DLedger and JRaft ------------------------------------------------------------------------------------
def test_jraft_has_no_expiry_scan_and_elects_only_when_it_finds_the_master_gone():
    """``RaftBrokerHeartBeatManager#scanNotActiveBroker`` returns early in 5.3.3 and ``JRaftController`` has
    no inactive-master scan: the master's removal is the election's own step (``#onBrokerChannelClose`` ->
    ``ControllerManager#onBrokerInactive``), and a master already gone from the table is never re-elected
    away by the controller. DLedger: the scan removes it, and the 5 s scan elects while it is not alive."""
    dledger, jraft = ControllerModel(Q), ControllerModel(JRAFT)
    committed = dict(controller_masterBrokerId=1, controller_masterEpoch=1, controller_syncStateSet=0b11,
                     controller_syncStateSetEpoch=2)
    dead = build(dledger, **group(), **committed, broker1_ctlAlive=1, **running(2, masterEpoch=1, ctlAlive=1))
    assert dledger.next_state(dead, ControllerDeclareDead(broker=1)) is not None
    assert jraft.next_state(dead, ControllerDeclareDead(broker=1)) is None
    elected = jraft.next_state(dead, ControllerElect(elected=2))
    v = jraft.view(elected)
    assert (v["broker1.controllerAlive"], v["quorum.pending.event"], v["quorum.pending.elected"]) == \
        (False, "ELECT", 2)
    gone = build(dledger, **group(), **committed, **running(2, masterEpoch=1, ctlAlive=1))
    assert dledger.next_state(gone, ControllerElect(elected=2)) is not None
    assert jraft.next_state(gone, ControllerElect(elected=2)) is None


def test_a_new_dledger_leader_reads_its_own_heartbeats_and_a_jraft_leader_the_replicated_table():
    """Broker 2 runs but its link to node 2 is cut, broker 1 is down but still in the old leader's table.
    Node 1 dies and node 2 leads: DLedger's table is node 2's own view (``DefaultBrokerHeartbeatManager``,
    per node): neither broker; JRaft's is the replicated ``RaftReplicasInfoManager`` table: both."""
    s = build(ControllerModel(Q), **group(quorum_brokerLinksDown=0b010 << 3), **running(2, masterEpoch=1, ctlAlive=1),
              broker1_ctlAlive=1, budget_controllerOutages=0)
    for model, alive in ((ControllerModel(Q), [False, False]), (ControllerModel(JRAFT), [True, True])):
        after = model.next_state(model.next_state(s, CtlNodeCrash(node=1)), CtlLeaderElect(node=2))
        v = model.view(after)
        assert [v["broker1.controllerAlive"], v["broker2.controllerAlive"]] == alive


# -- what the checker finds ---------------------------------------------------------------------------------
def test_an_election_answered_before_commit_gives_two_masters_in_one_epoch():
    """Seeded bug ``reply_before_commit``: broker 1 takes the master role from a reply sent before a majority
    holds the entry; node 1 dies, node 2 leads without it (overwritten), and broker 2's own first election
    commits masterEpoch 1 too. Without the bug the property holds in the same configuration (pinned
    ``ctl-quorum``)."""
    from explore.local import explore
    from invariants.controller import PROPERTIES
    from tests.tooling.pinned import load
    entry = load(mode="controller")["mutant-reply-before-commit"]
    r = explore(ControllerModel(entry.config(), mutation=entry.mutation), PROPERTIES, threads=1)
    trace = r.property("one_master_per_epoch")
    assert trace.status == "violated"
    labels = [str(a) for a in trace.trace.actions]
    assert "CtlNodeCrash(node=1)" in labels and "CtlBecomeServing()" in labels
    healthy = explore(ControllerModel(entry.config()), PROPERTIES, threads=1)
    assert healthy.property("one_master_per_epoch").status == "holds"


@pytest.mark.parametrize("name", ["ctl-quorum", "ctl-quorum-jraft"])
def test_one_and_two_threads_give_the_same_counts_and_verdicts(name):
    from explore.local import explore
    from invariants.controller import PROPERTIES
    from tests.tooling.pinned import load
    entry = load(mode="controller")[name]
    one = explore(ControllerModel(entry.config()), PROPERTIES, threads=1)
    two = explore(ControllerModel(entry.config()), PROPERTIES, threads=2)
    assert (one.stats.distinct_states, one.stats.transitions, one.stats.depth) == entry.counts
    assert (two.stats.distinct_states, two.stats.transitions, two.stats.depth) == entry.counts
    assert [(p.name, p.status) for p in one.properties] == [(p.name, p.status) for p in two.properties]


def test_a_reply_awaited_by_a_broker_that_died_reaches_no_one():
    """The requester crashes before the commit: the entry still commits (the controller's state changes),
    but the dead process takes no role from it (a restarted broker is a new process that never sent it)."""
    from model.controller.model import BrokerCrash
    m = ControllerModel(ControllerConfig(controllers=3, messages=1))
    s = build(m, **group(), **fenced(1), **fenced(2), **pending_elect(1, 0b011, 1))
    crashed = m.next_state(s, BrokerCrash(broker=1))
    assert m.view(crashed)["quorum.pending.requester"] is None
    done = m.next_state(crashed, CtlCommit())
    v = m.view(done)
    assert (v["controller.masterBrokerId"], v["broker1.up"], v["broker1.role"], v["broker1.masterEpoch"]) == \
        (1, False, "SLAVE", 0)
