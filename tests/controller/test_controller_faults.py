"""``rmqcheck faults`` and ``rmqcheck gate`` on the controller mode: the mode's failure kinds, bounds,
closing changes over its knobs and availability witnesses, numbers pinned from a real run; a gate on
controller baseline entries; bad input."""
from __future__ import annotations

import json

import numpy as np
import pytest
import tomlkit

from cli_driver import assert_bad_input, invoke

from invariants.base import SOMETIMES
from invariants.controller import PROPERTIES
from model.controller import preset
from model.controller.model import ControllerModel
from explore.fault_search import change_costs

#: one message, one broker crash, the 5.3.3 defaults: 12,274 states
SMALL = ("--preset", "controller", "--set", "messages=1")
KINDS = ("broker_crashes", "broker_power_losses", "controller_outages", "link_losses", "ha_disconnects")
ONE_CRASH = dict.fromkeys(KINDS, 0) | {"broker_crashes": 1}
ALL_ACK, ISR_2 = {"all_ack_in_sync_state_set": True}, {"in_sync_replicas": 2}


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """faults on SMALL with the decision table, in this process (one job): its JSON, its console text (on
    stderr, as JSON goes to stdout) and its HTML report."""
    report = tmp_path_factory.mktemp("faults") / "faults.html"
    r = invoke("faults", *SMALL, "--grow", "none", "--table", "--jobs", "1", "--threads", "1", "--json", "-",
               "--traces", "none", "--report", str(report))
    assert r.exit_code == 1, r.stderr   # violated
    return json.loads(r.stdout), r.stderr + report.read_text()


def test_faults_on_the_controller_mode_gives_its_kinds_bounds_and_closing_changes(small):
    doc, _ = small
    assert doc["config"]["mode"] == "controller" and doc["outcome"] == "violated"
    assert {k: doc["stats"][k] for k in ("distinct_states", "transitions", "depth")} == \
        {"distinct_states": 12274, "transitions": 38632, "depth": 31}
    assert doc["bounds"] == {"brokers": 2, "messages": 1, "budgets": dict.fromkeys(KINDS, 0) | {"broker_crashes": 1}}
    assert doc["availability"]["reached"] == ["message_acked", "message_consumed", "message_acked_while_slave_away"]
    assert (doc["sweep"]["sets_tried"], doc["sweep"]["sets_total"]) == (15, 15)   # 4 changes, every set
    got = {p["name"]: (p["status"], [(c["combination"], c["length"]) for c in p["combinations"]],
                       [(m["breaking_action"], m["combination"], m["length"], m["closed_by"]) for m in p["modes"]],
                       p["holds_with"]) for p in doc["properties"] if p["kind"] == "always"}
    # the eventually property: one verdict per budget vector (no crash, one crash), each holds
    [live] = [p for p in doc["properties"] if p["name"] == "master_eventually_elected"]
    assert live["kind"] == "eventually"
    assert [(v["budgets"]["broker_crashes"], v["status"]) for v in live["vectors"]] == [(0, "holds"), (1, "holds")]
    expected = {
        # SEND_OK after the local append: allAck or inSyncReplicas=2 make the put wait for the slave; only
        # allAck keeps a SEND_OK while the slave is away (the set shrinks to the master), inSyncReplicas=2
        # then times out every put: it closes the mode only at that cost (below)
        "acked_message_on_every_later_master": ("violated", [(ONE_CRASH, 11)],
                                                [("SyncBrokerMetadata", ONE_CRASH, 11, [ALL_ACK])],
                                                [ALL_ACK]),
        "queue_offset_names_one_message": ("holds", [], [], []),
        "delivered_message_stays_on_master": ("violated", [(ONE_CRASH, 13)],
                                              [("SyncBrokerMetadata", ONE_CRASH, 13, [])], []),
        "one_master_per_epoch": ("holds", [], [], []),
        "epoch_file_agrees_with_log": ("violated", [(ONE_CRASH, 6)], [("RegisterBroker", ONE_CRASH, 6, [])], []),
    }
    # every always property of the mode is reported; these as pinned (a property added later: its own test)
    assert set(got) == {p.name for p in PROPERTIES.of_kind("always")} >= set(expected)
    assert {name: got[name] for name in expected} == expected
    acked = next(p for p in doc["properties"] if p["name"] == "acked_message_on_every_later_master")
    assert [(c["change"], c["costs"]) for c in acked["holds_at_a_cost"]] == \
        [(ISR_2, ["no SEND_OK while the slave is away (sends are refused then)"])]
    # a meaning is told in the controller's words, read off its own trace
    mode = doc["properties"][0]["modes"][0]
    assert mode["meaning"].startswith("SyncBrokerMetadata: a broker applies the controller's newer role")
    assert mode["trace"][-1]["action"].startswith("SyncBrokerMetadata(")


def test_the_controller_faults_json_follows_the_schema(small):
    import jsonschema
    from reports.result_schema import result_schema
    doc, _ = small
    jsonschema.Draft202012Validator(result_schema()).validate(doc)
    broken = json.loads(json.dumps(doc))
    del broken["bounds"]["budgets"]["link_losses"]   # a controller combination names all five kinds
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(result_schema()).validate(broken)


def test_the_decision_table_is_all_ack_by_min_in_sync_replicas(small):
    doc, text = small
    rows = {(r["setting"]["all_ack_in_sync_state_set"], r["setting"]["min_in_sync_replicas"]):
            r["properties"]["acked_message_on_every_later_master"]["status"] for r in doc["table"]}
    assert rows == {(False, 1): "violated", (False, 2): "violated", (True, 1): "holds", (True, 2): "holds"}
    assert "per allAckInSyncStateSet and minInSyncReplicas" in text


def test_nothing_of_the_4_4_model_shows_in_the_controller_output_and_report(small):
    doc, text = small
    for word in ("master crash", "slave1", "consumer restart", "durability setting", "failures.", "4.4 defaults"):
        assert word not in text, word
    assert "1 broker crash" in text and "2 brokers, 1 message" in text
    assert all(set(c["combination"]) == set(KINDS) for p in doc["properties"] for c in p.get("combinations", []))
    assert all(set(v["budgets"]) == set(KINDS) for p in doc["properties"] for v in p.get("vectors", []))


def test_the_availability_witnesses_are_read_off_the_state():
    """The witnesses' bits are set exactly when the producer was told SEND_OK / the consumer was given a
    message; a change that loses one is listed with what it costs, never as closing."""
    from invariants.controller import AVAILABILITY_WITNESSES, PROPERTIES
    model = ControllerModel(preset("controller"))
    view = model.view(tuple(int(w) for w in model.initial_states()[0]))
    bits = {name: np.uint64(1) << np.uint64(w.bit) for name, w in ((w.name, w) for w in AVAILABILITY_WITNESSES)}

    def reached(**changes):
        state = np.array(model.encode({**view, **changes}), dtype=np.uint64)
        found = PROPERTIES.state_check(state, model.params)
        return sorted(n for n, b in bits.items() if found & b)

    assert reached() == []
    assert reached(**{"producer.sendOk": [1]}) == ["message_acked"]
    assert reached(**{"consumer.delivered": [1, 0]}) == ["message_consumed"]
    base = preset("controller")
    both = ("message_acked", "message_consumed")
    assert change_costs(base, ALL_ACK, both, both) == []
    assert change_costs(base, {"min_in_sync_replicas": 2}, both, ("message_consumed",)) == \
        ["no SEND_OK is ever given"]


def _controller_entries(tmp_path, edit=None):
    """The repository baseline's controller entries, alone in a temp copy (``edit``: change it first)."""
    from pathlib import Path
    doc = tomlkit.parse((Path(__file__).resolve().parents[2] / "baseline.toml").read_text())
    doc["configuration"] = [t for t in doc["configuration"] if str(t.get("preset", "")).startswith("controller")]
    assert len(doc["configuration"]) == 3
    if edit is not None:
        edit(doc)
    path = tmp_path / "baseline.toml"
    path.write_text(tomlkit.dumps(doc))
    return path


def test_the_gate_checks_the_controller_baseline_entries(tmp_path):
    path = _controller_entries(tmp_path)
    r = invoke("gate", "--baseline", str(path), "--threads", "1", "--quiet")
    assert r.exit_code == 0, r.stdout + r.stderr
    entries = tomlkit.parse(path.read_text())["configuration"]
    assert f"gate passed: {sum(len(t['expect']) for t in entries)} verdicts in 3 configurations" in r.stdout


def test_the_gate_fails_on_a_controller_verdict_changed_by_hand(tmp_path):
    def flip(doc):
        doc["configuration"][1]["expect"]["acked_message_on_every_later_master"] = "violated"   # allAck: holds
    r = invoke("gate", "--baseline", str(_controller_entries(tmp_path, flip)), "--threads", "1", "--quiet")
    assert r.exit_code == 1, r.stdout + r.stderr
    assert "acked_message_on_every_later_master: expected violated -> got holds" in r.stdout


def test_a_4_4_knob_for_faults_in_controller_mode_is_bad_input(no_exploration):
    assert_bad_input(invoke("faults", "--mode", "controller", "--set", "slaves=1"), "'slaves'", "mode controller")


def test_a_4_4_count_to_grow_in_controller_mode_is_bad_input(no_exploration):
    assert_bad_input(invoke("faults", "--preset", "controller", "--grow", "consumers"), "--grow consumers",
                     "mode controller")


def test_a_4_4_knob_in_a_controller_baseline_entry_is_bad_input(tmp_path, no_exploration):
    path = tmp_path / "b.toml"
    path.write_text('[[configuration]]\nname = "c"\npreset = "controller"\n[configuration.set]\nslaves = 1\n')
    assert_bad_input(invoke("gate", "--baseline", str(path)), "configuration c", "'slaves'", "mode controller")


def test_replay_checks_every_trace_of_a_controller_faults_result(small, tmp_path):
    doc, _ = small
    path = tmp_path / "faults.json"
    path.write_text(json.dumps(doc))
    r = invoke("replay", str(path))
    assert r.exit_code == 0, r.stdout + r.stderr
    assert "replayed 6 of 6 traces (3 mode, 3 combination" in r.stdout
    doc["properties"][0]["modes"][0]["combination"]["broker_crashes"] = 0   # not the trace's failures
    path.write_text(json.dumps(doc))
    r = invoke("replay", str(path))
    assert r.exit_code == 1 and "are not its combination" in r.stdout, r.stdout


def test_config_prints_a_controller_configuration_that_reads_back(tmp_path):
    r = invoke("config", "--preset", "controller-allack", "--set", "messages=1")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1] == 'mode = "controller"' and "all_ack_in_sync_state_set = true" in lines
    path = tmp_path / "c.toml"
    path.write_text(r.stdout)
    assert invoke("config", "--config", str(path)).stdout == r.stdout


def test_the_controller_lattice_matches_check_per_budget_vector():
    """One exploration with a crash and an HA disconnect answers every smaller budget vector: per vector,
    exactly the properties ``check`` finds violated there are those with a reported combination below it,
    with check's shortest counterexample length (the counters are read from the controller's fields)."""
    from explore import explore
    from explore.faults import analyse, dominates
    from invariants.base import ALWAYS
    cfg = preset("controller").with_overrides(["messages=1", "max_ha_disconnects=1"])
    always = PROPERTIES.select([p.name for p in PROPERTIES if p.kind == ALWAYS])
    a = analyse(ControllerModel(cfg), always)
    vectors = a.lattice.vectors()
    assert [tuple(v) for v in vectors] == [(0, 0, 0, 0, 0), (0, 0, 0, 0, 1), (1, 0, 0, 0, 0), (1, 0, 0, 0, 1)]
    for v in vectors:
        result = explore(ControllerModel(type(cfg).from_mapping(dict(zip(v.budget_knobs(), v)), base=cfg)), always)
        checked = {p.name: len(p.trace) for p in result.properties if p.status == "violated"}
        reported = {p.name: a.faults[p.name] for p in always}
        assert set(checked) == {n for n, pf in reported.items()
                                if any(dominates(v, m) for m in pf.minimal_combinations())}, v
        for name, pf in reported.items():
            if v in pf.violated_cells and v in pf.minimal_combinations():
                assert a.depth(pf.violated_cells[v]) == checked[name], (name, v)
    # the HA-disconnect counter is read too: violating states are found in the cell with both failures
    assert sorted(a.faults["acked_message_on_every_later_master"].violated_cells) == [(1, 0, 0, 0, 0), (1, 0, 0, 0, 1)]


def test_a_controller_count_to_grow_in_4_4_is_bad_input(no_exploration):
    assert_bad_input(invoke("faults", "--grow", "brokers"), "--grow brokers", "mode 4.4")


def test_a_send_ok_while_the_slave_is_away_is_what_min_in_sync_replicas_gives_up():
    """Availability weighed per failure, in controller mode: with allAckInSyncStateSet (and minInSyncReplicas
    1) a put is still taken and answered SEND_OK once the slave is away and the set has shrunk to the master;
    minInSyncReplicas=2 refuses it then (IN_SYNC_REPLICAS_NOT_ENOUGH), inSyncReplicas=2 without allAck waits
    for an ack that does not come. Direct explorations of the faults-only witness, and the cost it names."""
    from explore.local import explore
    from invariants.controller import AVAILABILITY_WITNESSES
    away = PROPERTIES.only([w for w in AVAILABILITY_WITNESSES if w.name == "message_acked_while_slave_away"])
    base = preset("controller-allack").with_overrides(["messages=1"])

    def verdict(*sets: str) -> str:
        r = explore(ControllerModel(base.with_overrides(list(sets))), away)
        return r.verdicts()["message_acked_while_slave_away"]

    assert "message_acked_while_slave_away" not in PROPERTIES.names()
    assert verdict() == "reached"
    assert verdict("min_in_sync_replicas=2") == "unreached"
    assert verdict("all_ack_in_sync_state_set=false", "in_sync_replicas=2") == "unreached"
    kept = ("message_acked", "message_consumed", "message_acked_while_slave_away")
    assert change_costs(base, {"min_in_sync_replicas": 2}, kept, kept[:2]) == \
        ["no SEND_OK while the slave is away (sends are refused then)"]


@pytest.mark.parametrize("knobs", [("name_servers=1", "max_broker_crashes=0", "max_link_losses=1"),
                                   ("stale_tail=ON", "max_broker_crashes=1")], ids=["name-servers", "stale-tail"])
def test_faults_on_the_newer_mechanisms_gives_checks_verdicts(knobs):
    """faults on a configuration with a name server, or with the stale tail: each property's status is what
    ``check`` gives on the same configuration (the sweep's full budgets are that configuration)."""
    sets = [a for k in knobs for a in ("--set", k)]
    f = invoke("faults", *SMALL, *sets, "--grow", "none", "--jobs", "1", "--threads", "1", "--json", "-",
               "--traces", "none")
    c = invoke("check", *SMALL, *sets, "--threads", "1", "--json", "-", "--quiet")
    assert f.exit_code in (0, 1) and c.exit_code in (0, 1), f.stderr + c.stderr
    faults, check = json.loads(f.stdout), json.loads(c.stdout)
    assert all(faults["config"][k.split("=")[0]] == check["config"][k.split("=")[0]] for k in knobs)
    statuses = {p["name"]: p["status"] for p in check["properties"]}
    assert {p["name"]: p["status"] for p in faults["properties"]} == \
        {n: s for n, s in statuses.items() if n in {p["name"] for p in faults["properties"]}}
    sometimes = {p.name for p in PROPERTIES if p.kind == SOMETIMES}   # reachability: not faults' to sweep
    assert set(statuses) - sometimes == {p["name"] for p in faults["properties"]}


#: consumer offsets and a name server, with one consumer restart and one broker channel expired on the name
#: server, nothing else failing: every property holds, so faults sweeps the eventually property per vector
WITH_MECHANISMS = ("--preset", "controller", "--set", "messages=1", "--set", "max_broker_crashes=0",
                   "--set", "consumer_offsets=ON", "--set", "max_consumer_restarts=1", "--set", "name_servers=1",
                   "--set", "max_namesrv_cutoffs=1")
NEW_KINDS = ("consumer_restarts", "namesrv_restarts", "namesrv_cutoffs")


def test_faults_varies_the_budgets_of_the_mechanisms_a_configuration_enables():
    """consumer_offsets=ON adds consumer restarts to the failure kinds, name_servers >= 1 name-server
    restarts and broker channels expired on a name server (RouteInfoManager#scanNotActiveBroker), whatever
    their budgets; the combinations and budget vectors name them, in RocketMQ's words."""
    r = invoke("faults", *WITH_MECHANISMS, "--property", "committed_offset_never_regresses",
               "--property", "acked_message_eventually_consumed", "--grow", "none", "--jobs", "1", "--threads", "1",
               "--json", "-", "--traces", "none")
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["bounds"]["budgets"] == dict.fromkeys(KINDS + NEW_KINDS, 0) | {"consumer_restarts": 1,
                                                                           "namesrv_cutoffs": 1}
    [live] = [p for p in doc["properties"] if p["name"] == "acked_message_eventually_consumed"]
    assert [(v["budgets"]["consumer_restarts"], v["budgets"]["namesrv_cutoffs"], v["status"]) for v in live["vectors"]] \
        == [(0, 0, "holds"), (0, 1, "holds"), (1, 0, "holds"), (1, 1, "holds")]
    assert all(set(v["budgets"]) == set(KINDS + NEW_KINDS) for v in live["vectors"])
    assert "1 consumer restart + 1 broker channel expired on a name server" in r.stderr
    import jsonschema
    from reports.result_schema import result_schema
    jsonschema.Draft202012Validator(result_schema()).validate(doc)


def test_a_consumer_restart_is_a_minimal_combination_where_it_breaks_a_property():
    """The seeded bug restart_from_queue_start (a restarted consumer reads queue offset 0, not its committed
    offset) breaks committed_offset_never_regresses with one consumer restart and nothing else: the
    combination names it, and the vectors keep their kinds through a pickle (the sweeps' worker processes)."""
    import pickle

    from explore.faults import analyse, combination
    from reports.faults import combination_text
    cfg = preset("controller").with_overrides(["messages=1", "max_broker_crashes=0", "consumer_offsets=ON",
                                               "max_consumer_restarts=1"])
    prop = PROPERTIES.select(["committed_offset_never_regresses"])
    a = analyse(ControllerModel(cfg, mutation="restart_from_queue_start"), prop)
    [minimal] = a.faults["committed_offset_never_regresses"].minimal_combinations()
    assert combination(minimal) == dict.fromkeys(KINDS, 0) | {"consumer_restarts": 1}
    assert combination_text(minimal) == "1 consumer restart"
    assert pickle.loads(pickle.dumps(minimal)).keys() == minimal.keys()
    # the same configuration without consumer offsets keeps the five kinds
    off = analyse(ControllerModel(preset("controller").with_overrides(["messages=1", "max_broker_crashes=0"])), prop)
    assert off.lattice.budgets.keys() == KINDS


def test_replay_checks_the_name_server_counts_of_a_combination(tmp_path):
    """A faults result with name servers: each combination names the name-server kinds, replay compares
    them with the trace's own counters (budget.nameserverRestarts...), and a wrong count fails it."""
    path = tmp_path / "faults.json"
    r = invoke("faults", "--preset", "controller", "--set", "messages=1", "--set", "name_servers=1",
               "--set", "max_namesrv_restarts=1", "--property", "acked_message_on_every_later_master",
               "--grow", "none", "--max-configs", "1", "--jobs", "1", "--threads", "1", "--json", str(path),
               "--traces", "none")
    assert r.exit_code == 1, r.stderr
    doc = json.loads(path.read_text())
    [combo] = doc["properties"][0]["combinations"]
    assert combo["combination"] == dict.fromkeys(KINDS + ("namesrv_restarts", "namesrv_cutoffs"), 0) | \
        {"broker_crashes": 1}
    r = invoke("replay", str(path))
    assert r.exit_code == 0, r.stdout + r.stderr
    combo["combination"]["namesrv_restarts"] = 1   # not the trace's failures
    path.write_text(json.dumps(doc))
    r = invoke("replay", str(path))
    assert r.exit_code == 1 and "are not its combination" in r.stdout, r.stdout


def test_replay_of_a_controller_faults_result_with_budget_vector_lassos(tmp_path):
    """An eventually property's budget vectors carry lassos; replay runs each under its vector's budgets,
    named by the controller's failure kinds (it read them with the 4.4 mode's names and refused the file)."""
    path = tmp_path / "faults.json"
    r = invoke("faults", *SMALL, "--set", "consumer_offsets=ON", "--set", "max_consumer_restarts=1",
               "--property", "acked_message_eventually_consumed", "--grow", "none", "--jobs", "1", "--threads", "1",
               "--json", str(path), "--traces", "none")
    assert r.exit_code == 1, r.stderr
    traced = [v for v in json.loads(path.read_text())["properties"][0]["vectors"] if "trace" in v]
    assert [v["budgets"]["broker_crashes"] for v in traced] == [1, 1]
    r = invoke("replay", str(path))
    assert r.exit_code == 0, r.stderr
    assert "replayed 2 of 2 traces (0 mode, 0 combination, 2 budget-vector, 0 next-bound traces)" in r.stdout + r.stderr
