"""The election's ranking (issue 48 item 6) on hand-built states, field by field as RocketMQ 5.3.3 reads
(docs/controller.md, "The election's ranking"): ``DefaultElectPolicy``'s comparator (higher reported epoch,
then higher reported max offset, then lower ``brokerElectionPriority``; a full tie to the lowest id), its
candidates (alive in the controller's heartbeat table), and ``DefaultBrokerHeartbeatManager#onBrokerHeartbeat``'s
monotone update and removal. Each test fails if the rule it names is taken out of the kernel."""
from __future__ import annotations

import pytest

from model.controller import ControllerConfig
from model.knobs import ConfigError
from model.controller.model import (BrokerElect, BrokerHeartbeat, ControllerDeclareDead, ControllerElect,
                                    ControllerModel, RegisterBroker)
from model.controller.params import DEFAULT_ELECTION_PRIORITY, P_PRIORITY

from tests.controller.test_controller_actions import build, read, running


def _dead_master_three_brokers(m, entries, sss=0b111, master=1, **extra):
    """3 brokers, the controller up naming ``master`` (controller id) at masterEpoch 3, not alive; the
    SyncStateSet ``sss``; each ``(broker id, epoch, maxOffset)`` of ``entries`` running, alive in the table,
    its entry reporting that epoch and max offset."""
    fields = dict(controller_up=1, controller_masterBrokerId=master, controller_masterEpoch=3,
                  controller_syncStateSet=sss, controller_syncStateSetEpoch=4, **extra)
    for b, epoch, offset in entries:
        fields.update(running(b, ctlAlive=1))
        if m.config.election_ranking == "RANKED":   # FREE: no heartbeat table (its fields take no bits)
            fields[f"controller_live_epoch_{b - 1}"] = epoch
            fields[f"controller_live_maxOffset_{b - 1}"] = offset
    return build(m, **fields)


def _controller_elects(m, s):
    """The brokers ``ControllerElect`` may elect in ``s``."""
    return [c for c in (1, 2, 3) if m.next_state(s, ControllerElect(elected=c)) is not None]


def test_a_higher_max_offset_wins_at_an_equal_epoch():
    """Comparator: same epoch -> ``o2.getMaxOffset() - o1.getMaxOffset()``: (epoch 2, max 1) vs (epoch 2,
    max 2) elects the second (the §9.6 check (E2, 5, MAX) vs (E2, 7, MAX) at model scale), whatever the id."""
    m = ControllerModel(ControllerConfig(brokers=3))
    assert _controller_elects(m, _dead_master_three_brokers(m, [(2, 2, 1), (3, 2, 2)])) == [3]
    assert _controller_elects(m, _dead_master_three_brokers(m, [(2, 2, 2), (3, 2, 1)])) == [2]
    after = m.next_state(_dead_master_three_brokers(m, [(2, 2, 1), (3, 2, 2)]), ControllerElect(elected=3))
    assert [read(m, after, k) for k in ("controller_masterBrokerId", "controller_masterEpoch",
                                       "controller_syncStateSet", "controller_syncStateSetEpoch")] == [3, 4, 0b100, 5]


def test_a_higher_epoch_wins_over_a_longer_log():
    """Comparator: epochs differ -> ``o2.getEpoch() - o1.getEpoch()``, the max offset not read: (epoch 3,
    max 1) vs (epoch 2, max 3) elects the first."""
    m = ControllerModel(ControllerConfig(brokers=3))
    assert _controller_elects(m, _dead_master_three_brokers(m, [(2, 2, 3), (3, 3, 1)])) == [3]
    assert _controller_elects(m, _dead_master_three_brokers(m, [(2, 3, 1), (3, 2, 3)])) == [2]


def test_a_full_tie_goes_to_the_lowest_id():
    """Equal epoch, max offset and priority: the ``TreeSet`` keeps the first inserted, brokers inserted in
    ascending id order (``HashSet<Long>``): ids {2, 3} -> 2."""
    m = ControllerModel(ControllerConfig(brokers=3))
    assert _controller_elects(m, _dead_master_three_brokers(m, [(2, 2, 1), (3, 2, 1)])) == [2]
    assert _controller_elects(m, _dead_master_three_brokers(m, [(1, 2, 1), (3, 2, 1)], sss=0b111, master=2)) == [1]


def test_a_lower_election_priority_breaks_an_equal_epoch_and_offset():
    """Comparator: equal epoch and max offset -> ``o1.getElectionPriority() - o2.getElectionPriority()``:
    the lower ``brokerElectionPriority`` wins, before the id (all at the default: the lowest id)."""
    m = ControllerModel(ControllerConfig(brokers=3))
    assert [int(m.params[P_PRIORITY + b]) for b in range(3)] == [DEFAULT_ELECTION_PRIORITY] * 3
    s = _dead_master_three_brokers(m, [(2, 2, 1), (3, 2, 1)])
    m.params[P_PRIORITY + 2] = 5   # broker 3 configured brokerElectionPriority=5
    assert _controller_elects(m, s) == [3]
    # the max offset still comes first
    assert _controller_elects(m, _dead_master_three_brokers(m, [(2, 2, 2), (3, 2, 1)])) == [2]


def _ranked(priority):
    """3 brokers with ``broker_election_priority = priority`` (the knob: one value per broker; a parameter, not
    state: every priority's model packs a state alike)."""
    return ControllerModel(ControllerConfig.from_mapping({"brokers": 3, "broker_election_priority": priority}))


def test_the_priority_knob_breaks_a_tie_of_epoch_and_offset_both_ways():
    """``broker_election_priority``, each broker's ``brokerElectionPriority`` in controller-id order: brokers 2
    and 3 report (epoch 2, max 1); the lower value wins either way round, the id only when they are equal."""
    tie = _dead_master_three_brokers(_ranked("2147483647"), [(2, 2, 1), (3, 2, 1)])
    assert _controller_elects(_ranked("9-5-7"), tie) == [2]
    assert _controller_elects(_ranked("9-7-5"), tie) == [3]
    assert _controller_elects(_ranked("9-6-6"), tie) == [2]        # equal: the lower id
    assert _controller_elects(_ranked("0-2147483647-0"), tie) == [3]
    # a broker's own request elects the same winner (ReplicasInfoManager#electMaster, no designateElect)
    asking = _dead_master_three_brokers(_ranked("2147483647"), [(2, 2, 1), (3, 2, 1)], sss=0b110, master=0, broker2_fenced=1)
    assert [c for c in (2, 3) if _ranked("9-7-5").next_state(asking, BrokerElect(broker=2, elected=c))] == [3]


def test_the_priority_never_outranks_a_higher_offset_or_epoch():
    """The comparator reads the priority only when epoch and max offset are equal: broker 2 with priority 1
    against broker 3 at 2147483647 still loses to a higher max offset, and to a higher epoch with a shorter
    log."""
    m = _ranked("2147483647-1-2147483647")
    assert _controller_elects(m, _dead_master_three_brokers(_ranked("2147483647"), [(2, 2, 1), (3, 2, 2)])) == [3]
    assert _controller_elects(m, _dead_master_three_brokers(_ranked("2147483647"), [(2, 2, 3), (3, 3, 1)])) == [3]
    assert _controller_elects(m, _dead_master_three_brokers(_ranked("2147483647"), [(2, 2, 2), (3, 2, 2)])) == [2]   # a tie: priority


def test_the_priority_knob_fills_the_kernel_parameters():
    """One value for every broker, or one per broker; the default is RocketMQ's Integer.MAX_VALUE."""
    assert list(ControllerModel(ControllerConfig(brokers=3)).params[P_PRIORITY:P_PRIORITY + 3]) == \
        [DEFAULT_ELECTION_PRIORITY] * 3
    assert list(_ranked("4").params[P_PRIORITY:P_PRIORITY + 3]) == [4, 4, 4]
    assert list(_ranked("1-2-2").params[P_PRIORITY:P_PRIORITY + 3]) == [1, 2, 2]


def test_the_priority_knob_reads_strictly():
    """Whole numbers 0..2147483647 (no sign: '-' joins the brokers' values), as many as brokers or one;
    alike values are one value; the RocketMQ name is an alias (``--set brokerElectionPriority=...``)."""
    cfg = ControllerConfig.from_mapping
    assert cfg({"brokers": 3, "broker_election_priority": "01-2-2"}).broker_election_priority == "1-2-2"
    assert cfg({"broker_election_priority": "7-7"}).broker_election_priority == "7"
    assert cfg({"broker_election_priority": 3}).election_priorities() == (3, 3)
    assert cfg({"brokerElectionPriority": "2-1"}).election_priorities() == (2, 1)
    assert cfg({}).short() == "controller mode, RocketMQ 5.3.3 defaults"
    assert cfg({"broker_election_priority": "2147483647-2147483647"}).short() == \
        "controller mode, RocketMQ 5.3.3 defaults"
    assert cfg({"broker_election_priority": "2-1"}).short() == \
        "controller mode, RocketMQ 5.3.3, broker_election_priority=2-1"
    for bad, words in (("1-2-3", ("3 brokers' values", "brokers=2")), ("-1", ("'-1'", "0..2147483647")),
                       ("2147483648", ("2147483648",)), (-3, ("-3",)), (True, ("True",)), ("1--2", ("'1--2'",)),
                       ("", ("''",)), ("x", ("'x'",))):
        with pytest.raises(ConfigError) as e:
            cfg({"broker_election_priority": bad})
        text = str(e.value)
        assert "\n" not in text and "'broker_election_priority'" in text and all(w in text for w in words), text
    # a broker added (faults --grow brokers) has RocketMQ's default, as a broker whose file sets none; fewer
    # brokers than values, or more values given than brokers, is bad input
    assert cfg({"brokers": 3}, base=cfg({"broker_election_priority": "1-2"})).broker_election_priority == \
        "1-2-2147483647"
    with pytest.raises(ConfigError) as e:
        cfg({"brokers": 2}, base=cfg({"brokers": 3, "broker_election_priority": "1-2-3"}))
    assert "3 brokers' values, but brokers=2" in str(e.value)
    with pytest.raises(ConfigError) as e:
        cfg({"brokers": 3, "broker_election_priority": "1-2"})
    assert "2 brokers' values, but brokers=3" in str(e.value)
    with pytest.raises(ConfigError):
        cfg({"broker_election_priority": "1", "brokerElectionPriority": "2"})   # one knob named twice


def test_only_live_candidates_are_ranked():
    """``validPredicate``: a broker not alive in the table is not ranked, whatever its values; without
    ``enableElectUncleanMaster`` only SyncStateSet members are."""
    m = ControllerModel(ControllerConfig(brokers=3))
    assert _controller_elects(m, _dead_master_three_brokers(m, [(2, 2, 1)], controller_live_epoch_2=3,
                                                            controller_live_maxOffset_2=3, **running(3))) == [2]
    assert _controller_elects(m, _dead_master_three_brokers(m, [(2, 2, 1), (3, 3, 3)], sss=0b011)) == [2]


def test_a_broker_request_elects_the_ranked_winner_not_itself():
    """``ReplicasInfoManager#electMaster`` on a broker's request (no ``designateElect``): the policy's
    winner, not the requester. No master named (after ``ElectMasterEvent(false)``), broker 2 fenced and
    asking, broker 3 ahead: the reply makes 3 master and 2 its slave."""
    m = ControllerModel(ControllerConfig(brokers=3))
    s = _dead_master_three_brokers(m, [(2, 2, 1), (3, 2, 2)], sss=0b110, master=0, broker2_fenced=1)
    assert m.next_state(s, BrokerElect(broker=2, elected=2)) is None
    after = m.next_state(s, BrokerElect(broker=2, elected=3))
    assert after is not None
    assert [read(m, after, k) for k in ("controller_masterBrokerId", "broker2_master", "broker2_fenced")] == [3, 0, 0]


def test_the_free_reading_elects_any_candidate():
    """``election_ranking=free`` (the model before issue 48): every live candidate may be elected."""
    m = ControllerModel(ControllerConfig(brokers=3, election_ranking="FREE"))
    assert _controller_elects(m, _dead_master_three_brokers(m, [(2, 2, 1), (3, 3, 3)])) == [2, 3]


def _reporting_slave(m, entry_epoch, entry_offset, log_epochs, alive=1):
    """3 brokers, master 1 named and alive; broker 2 a running slave whose commitlog holds one message
    per epoch of ``log_epochs`` and whose epoch file has one entry per distinct epoch, alive (or not) in the
    table with the entry ``(entry_epoch, entry_offset)``."""
    fields = dict(controller_up=1, controller_masterBrokerId=1, controller_masterEpoch=3,
                  controller_syncStateSet=0b011, controller_syncStateSetEpoch=2,
                  **running(1, ctlAlive=1, master=1, masterEpoch=3),
                  **running(2, ctlAlive=alive, masterEpoch=3, maxOffset=len(log_epochs)),
                  controller_live_epoch_1=entry_epoch, controller_live_maxOffset_1=entry_offset)
    starts = {}
    for i, e in enumerate(log_epochs):
        fields[f"broker2_commitlog_msg_{i}"] = i + 1
        fields[f"broker2_commitlog_epoch_{i}"] = e
        starts.setdefault(e, i)
    for j, (e, start) in enumerate(sorted(starts.items())):
        fields[f"broker2_epochFile_epoch_{j}"] = e
        fields[f"broker2_epochFile_start_{j}"] = start
    fields["broker2_epochEntries"] = len(starts)
    return build(m, **fields)


def _entry(m, s):
    return read(m, s, "controller_live_epoch_1"), read(m, s, "controller_live_maxOffset_1")


def test_a_heartbeat_updates_the_entry_only_upwards():
    """``onBrokerHeartbeat``: an existing entry takes the report only for a higher epoch, or the same epoch
    and a higher max offset; a broker whose log shrank keeps its old, larger entry (no heartbeat changes
    anything, so none is enabled)."""
    m = ControllerModel(ControllerConfig(brokers=3))
    grown = m.next_state(_reporting_slave(m, 2, 1, [2, 2]), BrokerHeartbeat(broker=2))
    assert grown is not None and _entry(m, grown) == (2, 2)
    assert m.next_state(_reporting_slave(m, 2, 3, [2, 2]), BrokerHeartbeat(broker=2)) is None   # shrank: kept
    assert m.next_state(_reporting_slave(m, 3, 0, [2, 2]), BrokerHeartbeat(broker=2)) is None   # lower epoch: kept
    newer = m.next_state(_reporting_slave(m, 2, 3, [2, 3]), BrokerHeartbeat(broker=2))           # higher epoch
    assert newer is not None and _entry(m, newer) == (3, 2)


def test_a_new_entry_takes_the_report_and_removal_clears_it():
    """No entry (removed by ``#scanNotActiveBroker`` / ``#onBrokerChannelClose``): the next heartbeat makes
    one with the report, even below the removed entry's values; ``ControllerDeclareDead`` removes the
    entry with its values; a fenced broker's registration reports too (``ReplicasManager#startBasicService``
    heartbeats before ``#brokerElect``)."""
    m = ControllerModel(ControllerConfig(brokers=3))
    made = m.next_state(_reporting_slave(m, 0, 0, [2], alive=0), BrokerHeartbeat(broker=2))
    assert made is not None and read(m, made, "broker2_ctlAlive") == 1 and _entry(m, made) == (2, 1)
    cut = build(m, **{**dict(_fields_of(m, _reporting_slave(m, 2, 1, [2]))), "broker2_ctlLinkDown": 1})
    gone = m.next_state(cut, ControllerDeclareDead(broker=2))
    assert read(m, gone, "broker2_ctlAlive") == 0 and _entry(m, gone) == (0, 0)
    fenced = build(m, **{**dict(_fields_of(m, _reporting_slave(m, 0, 0, [2, 2], alive=0))), "broker2_fenced": 1})
    registered = m.next_state(fenced, RegisterBroker(broker=2))
    assert read(m, registered, "broker2_ctlAlive") == 1 and _entry(m, registered) == (2, 2)


def _fields_of(m, state):
    """``state``'s non-zero fields as ``build`` takes them."""
    from model.controller import fields as F
    v = m.vector(state)
    return [(name.replace(".", "_").replace("[", "_").replace("]", ""), int(v[i]))
            for i, name in enumerate(F.NAMES) if v[i]]


def test_values_no_election_reads_stay_zero():
    """The model's reduction (``forget_unread_entries``): the named master's entry values are not kept (an
    election runs only after its entry is removed), nor, with 2 brokers, anyone's while a master is named;
    a 3-broker slave's are."""
    m = ControllerModel(ControllerConfig(brokers=3))
    s = _reporting_slave(m, 0, 0, [2], alive=1)
    master = build(m, **{**dict(_fields_of(m, s)), "broker1_maxOffset": 2, "broker1_epochEntries": 1,
                      "broker1_epochFile_epoch_0": 3, "broker1_ctlAlive": 1})
    assert m.next_state(master, BrokerHeartbeat(broker=1)) is None
    assert m.next_state(s, BrokerHeartbeat(broker=2)) is not None
    two = ControllerModel(ControllerConfig(brokers=2))
    assert two.next_state(_reporting_slave(two, 0, 0, [2], alive=1), BrokerHeartbeat(broker=2)) is None


def _masters_by_epoch(cfg):
    """How many reachable states have each (controller's master, masterEpoch), exploring ``cfg`` whole."""
    import collections

    from explore.local import LocalExplorer
    from invariants.controller import PROPERTIES
    from model.controller import fields as F

    m = ControllerModel(cfg)
    ex = LocalExplorer(m, PROPERTIES.only([]), exhaustive=True)
    ex.start()
    while ex.expand_next_level():
        pass
    ex.close()
    return collections.Counter((int(v[F.CTL_MASTER]), int(v[F.CTL_EPOCH]))
                               for v in (m.vector(s) for s in ex.stored_states()))


def test_unequal_priorities_mirror_the_state_space():
    """The pinned entry ctl-election-priority (2 brokers, two crashes: both may restart and be ranked
    against each other, reporting the same epoch and max offset): with broker 2 before broker 1 the
    reachable states are those of the default (every broker equal: the lower id first) with the two brokers
    swapped, so the counts are the same and the elections at each epoch change sides: at masterEpoch 3 the
    tie-broken elections now make broker 2 master where the default makes broker 1."""
    from tests.tooling.pinned import load
    entry = load(mode="controller")["ctl-election-priority"]
    cfg = entry.config()
    assert cfg.election_priorities() == (2, 1)
    default = ControllerConfig.from_mapping({"broker_election_priority": DEFAULT_ELECTION_PRIORITY}, base=cfg)
    swapped, alike = _masters_by_epoch(cfg), _masters_by_epoch(default)
    assert sum(swapped.values()) == sum(alike.values()) == entry.distinct_states
    assert swapped == {(3 - m if m else 0, e): n for (m, e), n in alike.items()}
    assert alike[(1, 3)] > alike[(2, 3)]   # the tie-break shows: not symmetric by itself
