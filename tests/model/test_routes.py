"""Routes per broker (mechanisms §1, §6.1, §7.1): the name server lists each broker while it is registered,
a client's cached route changes only by a refresh, and every broker lookup reads the cached route."""
from __future__ import annotations

from handbuilt import NO_FAILURES, assert_disabled, assert_effect, build, fire, model, run
from model.actions import (MasterRestart, NameServerExpireSlave, Pull, RefreshRoute, SlaveCrash, SlavePowerLoss,
                           SlaveRestart)

READ = model(messages=2, slave_read_enable=True, group_broker_id=1, max_slave_crashes=1,
             max_slave_power_losses=1, **NO_FAILURES)
TWO = model(messages=2, slaves=2, max_slave_crashes=1, max_slave_power_losses=1, max_master_crashes=1,
            max_master_power_losses=0)
PULL = Pull(consumer=1, queue=0)


def test_a_slave_crash_removes_it_from_the_name_server_at_once():
    s = build(READ)
    nxt, _ = fire(READ, s, SlaveCrash(slave=1))
    v = READ.view(nxt)
    assert v["nameserver.route"] == [0] and v["nameserver.topicRoute"] is True
    assert v["consumer1.route"] == [0, 1]          # the client has not refreshed yet


def test_a_powered_off_slave_stays_listed_until_the_expiry_scan():
    s = build(READ)
    nxt, _ = fire(READ, s, SlavePowerLoss(slave=1))
    assert READ.view(nxt)["nameserver.route"] == [0, 1]
    assert_effect(READ, nxt, NameServerExpireSlave(slave=1), {"nameserver.route": [0]})
    assert_disabled(READ, s, NameServerExpireSlave(slave=1))     # a live slave keeps registering


def test_a_stale_route_sends_the_pull_to_the_dead_slave_and_a_refresh_falls_back_to_the_master():
    """The suggestion names slave 1; while the cached route lists it the pull goes there and fails; after a
    refresh the route lacks brokerId 1 and findBrokerAddressInSubscribe takes the first entry, the master."""
    dead = {"master.commitlog": [1], "slave1.commitlog": [1], "producer.nextMessage": 2, "slave1.up": False,
            "slave1.haMasterAddress": False, "slave1.syncMasterAddress": False, "nameserver.route": [0],
            "consumer1.q0.suggestWhichBrokerId": 1, "failures.slaveCrashes": 1}
    s = build(READ, **dead)
    assert_disabled(READ, s, PULL)      # sent to the dead slave: it fails and changes nothing
    s = assert_effect(READ, s, RefreshRoute(consumer=1), {"consumer1.route": [0]})
    _, f = fire(READ, s, PULL)
    assert READ.describe_outcome(f) == "FOUND from broker 0"


def test_a_restarted_slave_registers_again():
    s = build(READ, **{"slave1.up": False, "slave1.haMasterAddress": False, "slave1.syncMasterAddress": False,
                       "nameserver.route": [0], "failures.slaveCrashes": 1})
    assert_effect(READ, s, SlaveRestart(slave=1), {"slave1.up": True, "slave1.haMasterAddress": True,
                                                   "slave1.syncMasterAddress": True, "nameserver.route": [0, 1]})


def test_the_topic_route_goes_with_the_last_broker_and_only_the_master_brings_it_back():
    """RouteInfoManager#onChannelDestroy removes the queue data with the group's last address; only
    brokerId 0's registration creates it again, so a slave registering alone leaves the topic without a
    route and a refreshing client keeps its old table."""
    s = run(TWO, TWO.initial()[0], ["MasterCrash()", "SlaveCrash(slave=1)"])
    assert TWO.view(s)["nameserver.route"] == [2]
    s, _ = fire(TWO, s, SlavePowerLoss(slave=2))
    s = assert_effect(TWO, s, NameServerExpireSlave(slave=2), {"nameserver.route": [],
                                                               "nameserver.topicRoute": False})
    s = assert_effect(TWO, s, SlaveRestart(slave=1), {"slave1.up": True, "nameserver.route": [1]})
    assert_disabled(TWO, s, RefreshRoute(consumer=1))          # no topic route: the old table stays
    s = assert_effect(TWO, s, MasterRestart(),
                      {"master.up": True, "nameserver.route": [0, 1], "nameserver.topicRoute": True})
    assert_effect(TWO, s, RefreshRoute(consumer=1), {"consumer1.route": [0, 1]})


def test_the_properties_read_the_lowest_registered_broker():
    from invariants.observations import restart_broker
    s = run(TWO, TWO.initial()[0], ["MasterCrash()", "SlaveCrash(slave=1)"])
    assert restart_broker(TWO.unpack_state(s), TWO.params) == 2
