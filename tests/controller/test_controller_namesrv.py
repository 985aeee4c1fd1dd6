"""Name servers in the controller mode (issue 48, item 1; knob ``name_servers``): hand-built states with the
effect the 5.3.3 source gives, field by field (``RouteInfoManager#registerBroker``, ``#unRegisterBroker``,
``#scanNotActiveBroker``, ``#pickupTopicRouteData``, ``MQClientInstance#updateTopicRouteInfoFromNameServer``,
``#findBrokerAddressInPublish``), the pinned configurations, and the shortest SEND_OK from a deposed master
still listed at brokerId 0."""
from __future__ import annotations

import pytest

from model.config import ConfigError
from model.controller import ControllerConfig
from model.controller.model import (ConsumerRouteRefresh, ControllerModel, NsCutOff, NsExpire, NsRegister, NsRestart,
                                    ProducerRouteRefresh, PullMessage, SendMessage, action_table)
from test_controller_actions import build, read, running

NS1 = ControllerConfig(name_servers=1, messages=1)
FAILURES = ControllerConfig(name_servers=1, messages=1, max_namesrv_restarts=1, max_namesrv_cutoffs=1)


def master(b, epoch, **extra):
    """Broker ``b`` running, unfenced, in the master role at master epoch ``epoch``."""
    return running(b, master=1, masterEpoch=epoch, syncStateSet=1 << (b - 1), ctlAlive=1, **extra)


def nameserver(m, state, n=1):
    """Name server ``n``'s fields as the readable state shows them: (master, stateVersion, live)."""
    v = m.view(state)
    return v[f"nameserver{n}.master"], v[f"nameserver{n}.stateVersion"], v[f"nameserver{n}.live"]


# -- the knob ---------------------------------------------------------------------------------------------
def test_knob_defaults_range_and_actions():
    assert (ControllerConfig().name_servers, ControllerConfig().max_namesrv_restarts,
            ControllerConfig().max_namesrv_cutoffs) == (0, 0, 0)
    with pytest.raises(ConfigError, match="name_servers"):
        ControllerConfig(name_servers=3)
    with pytest.raises(ConfigError, match="max_namesrv_restarts.*needs a name server"):
        ControllerConfig(max_namesrv_restarts=1)
    with pytest.raises(ConfigError, match="max_namesrv_cutoffs.*needs a name server"):
        ControllerConfig.from_mapping({"max_namesrv_cutoffs": 1})
    zero = [str(a) for a in action_table(ControllerConfig())]
    two = [str(a) for a in action_table(ControllerConfig(name_servers=2))]
    assert not any(a.startswith(("Ns", "ProducerRoute", "ConsumerRoute")) for a in zero)
    assert [a for a in two if a not in zero] == [
        "NsRegister(broker=1, nameserver=1)", "NsRegister(broker=1, nameserver=2)",
        "NsExpire(broker=1, nameserver=1)", "NsExpire(broker=1, nameserver=2)",
        "NsRegister(broker=2, nameserver=1)", "NsRegister(broker=2, nameserver=2)",
        "NsExpire(broker=2, nameserver=1)", "NsExpire(broker=2, nameserver=2)",
        "ProducerRouteRefresh(nameserver=1)", "ProducerRouteRefresh(nameserver=2)",
        "ConsumerRouteRefresh(nameserver=1)", "ConsumerRouteRefresh(nameserver=2)"]
    assert {a for a in (str(x) for x in action_table(FAILURES))} >= {
        "NsCutOff(broker=1, nameserver=1)", "NsRestart(nameserver=1)"}
    assert "nameserver1.master" not in ControllerConfig().view_kinds()
    kinds = ControllerConfig(name_servers=2).view_kinds()
    assert {k: kinds[k] for k in ("producer.route", "nameserver2.master", "nameserver2.live")} == \
        {"producer.route": "optional", "nameserver2.master": "optional", "nameserver2.live": "ids"}


# -- RouteInfoManager#registerBroker: the stateVersion rule (§1.1 step 3, §9.6 of the reading) -------------
def test_a_live_holder_with_a_greater_state_version_rejects_the_newcomer():
    """Broker 1 is listed at brokerId 0 with stateVersion 3 and live; broker 2, master at epoch 2 (a deposed
    master still running with its old epoch), registers brokerId 0: ``oldStateVersion (3) >
    newStateVersion (2)``, so the registration is ignored and broker 2 is removed from ``brokerLiveTable``
    (it was live as a slave). brokerId 0 still names broker 1 at 3."""
    m = ControllerModel(NS1)
    s = build(m, controller_up=1, nameserver_master_0=1, nameserver_stateVersion_0=3, nameserver_live_0=0b11,
              **master(1, 3), **master(2, 2))
    after = m.next_state(s, NsRegister(broker=2, nameserver=1))
    assert nameserver(m, after) == (1, 3, [1])


def test_a_holder_no_longer_live_lets_the_newcomer_take_brokerid_0():
    """The same, but broker 1 has no entry in ``brokerLiveTable`` (``oldBrokerInfo == null``): no rejection,
    ``brokerAddrsMap.put(0, newcomer)`` and its live entry with stateVersion 2. (In the model an unregister
    removes the live entry and the address entries together, so a listed holder is live; the rule reads
    the live table all the same.)"""
    m = ControllerModel(NS1)
    s = build(m, controller_up=1, nameserver_master_0=1, nameserver_stateVersion_0=3, nameserver_live_0=0,
              **master(1, 3), **master(2, 2))
    after = m.next_state(s, NsRegister(broker=2, nameserver=1))
    assert nameserver(m, after) == (2, 2, [2])


def test_an_equal_state_version_lets_the_newcomer_take_brokerid_0():
    """Holder broker 1 live at stateVersion 2, newcomer broker 2 at 2: only a strictly greater version wins,
    so broker 2 is listed (the last registrant)."""
    m = ControllerModel(NS1)
    s = build(m, controller_up=1, nameserver_master_0=1, nameserver_stateVersion_0=2, nameserver_live_0=0b01,
              **master(1, 2), **master(2, 2))
    after = m.next_state(s, NsRegister(broker=2, nameserver=1))
    assert nameserver(m, after) == (2, 2, [1, 2])


def test_a_newer_master_replaces_a_deposed_one():
    """The new master (epoch 3) registers while the deposed one (listed at 2) is still live: listed at 0
    with stateVersion 3; the deposed master's next registration (2 < 3) is then rejected."""
    m = ControllerModel(NS1)
    s = build(m, controller_up=1, nameserver_master_0=2, nameserver_stateVersion_0=2, nameserver_live_0=0b10,
              **master(1, 3), **master(2, 2))
    after = m.next_state(s, NsRegister(broker=1, nameserver=1))
    assert nameserver(m, after) == (1, 3, [1, 2])
    assert nameserver(m, m.next_state(after, NsRegister(broker=2, nameserver=1))) == (1, 3, [1])


def test_a_demoted_master_registering_as_a_slave_leaves_brokerid_0():
    """``brokerAddrsMap.entrySet().removeIf(same address, other id)`` (L273): broker 1, listed at 0, now a
    slave at epoch 2, registers with its controller id: its brokerId-0 entry goes, it stays live."""
    m = ControllerModel(NS1)
    s = build(m, controller_up=1, nameserver_master_0=1, nameserver_stateVersion_0=1, nameserver_live_0=0b01,
              **running(1, masterEpoch=2, ctlAlive=1))
    after = m.next_state(s, NsRegister(broker=1, nameserver=1))
    assert nameserver(m, after) == (None, 0, [1])


def test_a_slave_takes_its_ha_address_from_the_reply():
    """``RouteInfoManager#registerBroker`` answers a registration with another brokerId with the live brokerId-0
    broker (``masterAddr``, ``haServerAddr``, L386-396); ``BrokerController#handleRegisterBrokerResult``
    points the HA client there (``updateHaMasterAddress``), and ``AutoSwitchHAClient#connectMaster`` connects
    to that address only. A reply naming none leaves the address; ``changeToSlave`` clears it."""
    from model.controller.model import HAConnect
    m = ControllerModel(NS1)
    slave = running(2, masterEpoch=1, ctlAlive=1, epochEntries=1, epochFile_epoch_0=1)
    s = build(m, controller_up=1, nameserver_master_0=1, nameserver_stateVersion_0=1, nameserver_live_0=0b01,
              **master(1, 1, epochEntries=1, epochFile_epoch_0=1), **slave)
    assert m.next_state(s, HAConnect(slave=2, master=1)) is None   # no address yet
    after = m.next_state(s, NsRegister(broker=2, nameserver=1))
    assert m.view(after)["broker2.haMasterAddress"] == 1 and nameserver(m, after) == (1, 1, [1, 2])
    assert m.view(m.next_state(after, HAConnect(slave=2, master=1)))["broker2.haMaster"] == 1
    none = build(m, controller_up=1, broker2_haMasterAddress=1, **slave)   # the name server lists no master
    assert m.view(m.next_state(none, NsRegister(broker=2, nameserver=1)))["broker2.haMasterAddress"] == 1


def test_an_isolated_or_dead_broker_does_not_register():
    """``BrokerController#start`` and the 30 s task skip the registration while isolated
    (``ReplicasManager#setFenced``); a broker that is down sends nothing. A registration that changes
    nothing is no step."""
    m = ControllerModel(NS1)
    fenced = build(m, controller_up=1, **running(1, fenced=1))
    assert m.next_state(fenced, NsRegister(broker=1, nameserver=1)) is None
    down = build(m, controller_up=1, broker1_master=1, broker1_masterEpoch=1)
    assert m.next_state(down, NsRegister(broker=1, nameserver=1)) is None
    same = build(m, controller_up=1, nameserver_master_0=1, nameserver_stateVersion_0=1, nameserver_live_0=0b01,
                 **master(1, 1))
    assert m.next_state(same, NsRegister(broker=1, nameserver=1)) is None


# -- expiry, cut-off, restart (§1.4) -----------------------------------------------------------------------
def test_a_dead_broker_expires_by_address():
    """``#onChannelDestroy`` / ``#scanNotActiveBroker`` then ``#unRegisterBroker``: the live entry and every
    brokerId entry with the broker's address go (``removeIf(value equals brokerAddr)``); a running broker
    does not expire (its registrations keep arriving)."""
    m = ControllerModel(NS1)
    s = build(m, controller_up=1, nameserver_master_0=1, nameserver_stateVersion_0=1, nameserver_live_0=0b11,
              broker1_master=1, broker1_masterEpoch=1, **running(2, masterEpoch=1))
    after = m.next_state(s, NsExpire(broker=1, nameserver=1))
    assert nameserver(m, after) == (None, 0, [2])
    assert m.next_state(s, NsExpire(broker=2, nameserver=1)) is None


def test_a_cut_off_running_broker_expires_within_its_budget():
    m = ControllerModel(FAILURES)
    s = build(m, controller_up=1, nameserver_master_0=1, nameserver_stateVersion_0=1, nameserver_live_0=0b01,
              **master(1, 1))
    after = m.next_state(s, NsCutOff(broker=1, nameserver=1))
    assert nameserver(m, after) == (None, 0, []) and read(m, after, "budget_nameserverCutoffs") == 1
    again = m.next_state(m.next_state(after, NsRegister(broker=1, nameserver=1)), NsCutOff(broker=1, nameserver=1))
    assert again is None   # the budget is spent


def test_a_restarted_name_server_starts_empty():
    """``RouteInfoManager`` keeps its tables in memory only: after a restart they are empty."""
    m = ControllerModel(FAILURES)
    s = build(m, controller_up=1, nameserver_master_0=2, nameserver_stateVersion_0=2, nameserver_live_0=0b11)
    after = m.next_state(s, NsRestart(nameserver=1))
    assert nameserver(m, after) == (None, 0, []) and read(m, after, "budget_nameserverRestarts") == 1


# -- clients (§1.5, §1.6) ------------------------------------------------------------------------------------
def test_a_route_refresh_copies_brokerid_0_or_keeps_the_snapshot_when_the_topic_is_gone():
    """``#pickupTopicRouteData`` has no liveness filter and the client replaces its brokerAddrs map whole: the
    route names what the name server lists at 0, or none when only a slave is listed; when no broker of
    the group is listed the topic is not found and the snapshot stays."""
    m = ControllerModel(NS1)
    listed = build(m, controller_up=1, nameserver_master_0=2, nameserver_stateVersion_0=1, nameserver_live_0=0b10,
                   producer_route=1)
    assert m.view(m.next_state(listed, ProducerRouteRefresh(nameserver=1)))["producer.route"] == 2
    assert m.view(m.next_state(listed, ConsumerRouteRefresh(nameserver=1)))["consumer.route"] == 2
    slave_only = build(m, controller_up=1, nameserver_live_0=0b01, producer_route=2)
    assert m.view(m.next_state(slave_only, ProducerRouteRefresh(nameserver=1)))["producer.route"] is None
    empty = build(m, controller_up=1, producer_route=2)
    assert m.next_state(empty, ProducerRouteRefresh(nameserver=1)) is None


def test_the_producer_sends_to_the_broker_its_route_lists_even_a_deposed_master():
    """``findBrokerAddressInPublish`` returns the route's brokerId-0 address: broker 2 (deposed, still in
    the master role at epoch 1) takes the put while the controller's master is broker 1; broker 1 gets no
    put until the producer's route names it. Without a route no put is sent."""
    m = ControllerModel(NS1)
    fields = dict(controller_up=1, controller_masterBrokerId=1, controller_masterEpoch=2,
                  **master(1, 2), **master(2, 1))
    s = build(m, producer_route=2, **fields)
    after = m.next_state(s, SendMessage(broker=2))
    assert m.view(after)["broker2.commitlog"] == ["1@e1"] and m.view(after)["producer.sendOk"] == [1]
    assert m.next_state(s, SendMessage(broker=1)) is None
    assert m.next_state(build(m, **fields), SendMessage(broker=1)) is None
    assert m.next_state(build(m, producer_route=1, **fields), SendMessage(broker=1)) is not None
    # without name servers any broker in the master role takes it (the old abstraction)
    plain = ControllerModel(ControllerConfig(messages=1))
    assert plain.next_state(build(plain, **fields), SendMessage(broker=1)) is not None


def test_the_consumer_pulls_from_the_broker_its_route_lists():
    m = ControllerModel(NS1)
    fields = dict(controller_up=1, broker1_commitlog_msg_0=1, broker1_commitlog_epoch_0=1,
                  **master(1, 1, maxOffset=1, dispatched=1))
    assert m.next_state(build(m, **fields), PullMessage(broker=1)) is None
    after = m.next_state(build(m, consumer_route=1, **fields), PullMessage(broker=1))
    assert m.view(after)["consumer.delivered"] == [1]


def test_view_round_trips_with_two_name_servers():
    m = ControllerModel(ControllerConfig(name_servers=2, messages=1))
    s = build(m, controller_up=1, nameserver_master_1=2, nameserver_stateVersion_1=3, nameserver_live_1=0b11,
              nameserver_live_0=0b01, producer_route=2, consumer_route=1, **master(2, 3))
    assert m.encode(m.view(s)) == s
    assert set(m.config.view_kinds()) == set(m.view(s))


# -- explored ---------------------------------------------------------------------------------------------
def test_no_verdict_moves_through_the_name_server_at_these_bounds():
    """Routing by a name server only narrows which broker a client reaches (every other step is the
    model's without it), so no property can fail only through it. Measured: each pinned name-server
    configuration has the verdicts of the same configuration without name servers (explored here), with
    more states (the tables and the routes)."""
    import dataclasses

    from explore import explore
    from invariants.controller import PROPERTIES
    from tests.tooling.pinned import load
    table = load(mode="controller")
    for name in ("ctl-namesrv-1", "ctl-namesrv-1-link-loss", "ctl-namesrv-2-no-failures", "ctl-namesrv-failures"):
        entry = table[name]
        assert entry.config().name_servers >= 1, name
        plain = dataclasses.replace(entry.config(), name_servers=0, max_namesrv_restarts=0, max_namesrv_cutoffs=0)
        r = explore(ControllerModel(plain), PROPERTIES, threads=1)
        assert {p.name: p.status for p in r.properties} == entry.verdicts, name
        assert r.stats.distinct_states < entry.distinct_states, name


def test_shortest_send_ok_from_a_deposed_master_still_listed():
    """ctl-namesrv-1-link-loss: broker 2 (or 1), master, registers with the name server; broker 1 registers as
    a slave, the reply names broker 2, and it connects there; broker 2 loses its controller link; the producer's
    route lists broker 2; the controller elects broker 1; the producer's put goes to broker 2, still listed at
    brokerId 0, which answers SEND_OK; broker 1 takes the role without the message (14 steps; 11 without a
    name server, where the put and the HA connection may reach any master-role broker)."""
    from explore import explore
    from invariants.controller import PROPERTIES
    from tests.tooling.pinned import load
    entry = load(mode="controller")["ctl-namesrv-1-link-loss"]
    model = ControllerModel(entry.config())
    r = explore(model, PROPERTIES.select(["acked_message_on_every_later_master"]), threads=1)
    trace = r.property("acked_message_on_every_later_master").trace
    labels = [str(a) for a in trace.actions]
    # the two brokers are symmetric: which of the two mirror-image shortest traces is reported depends on the
    # order of the states within a level (sorted by their packed words, so by the layout)
    m, s = (2, 1) if labels[0] == "RegisterBroker(broker=2)" else (1, 2)
    assert labels == [
        f"RegisterBroker(broker={m})", f"BrokerElect(broker={m}, elected={m})", f"NsRegister(broker={m}, nameserver=1)",
        f"RegisterBroker(broker={s})", f"NsRegister(broker={s}, nameserver=1)", f"HAConnect(slave={s}, master={m})",
        f"SlaveReportOffset(slave={s})", f"AlterSyncStateSetReplyLost(broker={m})", f"ControllerLinkLoss(broker={m})",
        f"ControllerDeclareDead(broker={m})", "ProducerRouteRefresh(nameserver=1)", f"ControllerElect(elected={s})",
        f"SendMessage(broker={m})", f"SyncBrokerMetadata(broker={s})"]
    assert trace.steps[labels.index(f"NsRegister(broker={s}, nameserver=1)") + 1].view[f"broker{s}.haMasterAddress"] == m
    send = trace.steps[labels.index(f"SendMessage(broker={m})") + 1].view
    assert send["producer.route"] == m and send["nameserver1.master"] == m and send["producer.sendOk"] == [1]
    assert send["controller.masterBrokerId"] == s and send[f"broker{m}.role"] == "MASTER"
    assert trace.steps[-1].view[f"broker{s}.commitlog"] == []


def test_the_deposed_master_trace_draws_the_name_server():
    from explore import explore
    from invariants.controller import PROPERTIES
    from reports.sequence import Message, diagram
    from tests.tooling.pinned import load
    model = ControllerModel(load(mode="controller")["ctl-namesrv-1-link-loss"].config())
    r = explore(model, PROPERTIES.select(["acked_message_on_every_later_master"]), threads=1)
    d = diagram(r.property("acked_message_on_every_later_master").trace)
    assert d.actors == ["producer", "broker1", "broker2", "controller", "nameserver1", "consumer"]
    labels = {(e.sender, e.receiver, e.label) for row in d.rows for e in row.events if isinstance(e, Message)}
    # the deposed master is broker 2 or broker 1 (the mirror-image trace: test above)
    m, s = ("broker2", "broker1") if ("broker2", "nameserver1", "register brokerId 0, stateVersion 1") in labels \
        else ("broker1", "broker2")
    assert (m, "nameserver1", "register brokerId 0, stateVersion 1") in labels
    assert ("nameserver1", m, "listed at 0") in labels
    assert ("nameserver1", s, f"ok, master {m}") in labels
    assert ("nameserver1", "producer", f"brokerId 0: {m}") in labels


@pytest.mark.parametrize("threads", [2, 3])
def test_threads_give_the_same_result(threads):
    """The pinned counts and every verdict (one thread's, tests/controller/test_controller_pinned.py) on more."""
    from tests.tooling.pinned import explored, load

    entry = load(mode="controller")["ctl-namesrv-1-link-loss"]
    assert explored(entry, threads=threads) == entry
