"""The explorer on the controller mode (the ``controller`` preset, RocketMQ 5.3.3), without a browser: the page
shows what that model declares (its fields by actor, its actions, its properties) through the same endpoints
as for 4.4; a controller trace file loads, and a 4.4 one is refused naming both modes."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from cli_driver import invoke  # noqa: E402
from explorer_fixtures import client, controller_session  # noqa: E402

from rmqcheck.explorer.session import join_path  # noqa: E402

#: lost by a failover under the 5.3.3 defaults (SEND_OK after the master's local append): 11 steps
LOST = "acked_message_on_every_later_master"


@pytest.fixture(scope="module")
def api():
    with client(of=controller_session()) as c:
        yield c


@pytest.fixture(scope="module")
def lost_trace(tmp_path_factory):
    """``check --preset controller --json --itf`` of :data:`LOST`: its JSON file (its ITF trace beside it, in
    ``itf/``) and its trace's action labels."""
    path = tmp_path_factory.mktemp("controller") / "check.json"
    invoke("check", "--preset", "controller", "--property", LOST, "--json", str(path), "--itf",
           str(path.parent / "itf"), "--quiet")
    data = json.loads(path.read_text())
    return path, [s["action"] for s in data["properties"][0]["trace"][1:]]


def test_the_model_is_the_controller_modes_fields_by_actor_and_its_properties(api):
    d = api.get("/api/model").json()
    s = controller_session()
    assert d["config"] == s.config.as_dict() and d["config"]["mode"] == "controller"
    view = s.model.view(s.model.initial()[0])
    assert [f for a in d["actors"] for f in a["fields"]] == list(view)
    assert [a["actor"] for a in d["actors"]] == ["controller", "producer", "consumer", "budget", "broker1", "broker2"]
    assert [p["name"] for p in d["properties"]] == [p.name for p in s.properties] and LOST in s.properties.names()


def test_initial_state_and_its_enabled_actions_are_the_models(api):
    d = api.get("/api/path", params={"path": ""}).json()
    s = controller_session()
    root = s.model.initial()[0]
    state = {f["name"]: f["value"] for g in d["state"] for f in g["fields"]}
    assert state == json.loads(json.dumps(s.model.view(root)))   # tuples read back as lists
    assert [a["label"] for a in d["enabled"]] == [str(a) for a, _, _ in s.model.enabled(root)]
    register = next(a for a in d["enabled"] if a["label"] == "RegisterBroker(broker=1)")
    assert register["actor"] == "controller" and register["changes"] == ["broker1.controllerAlive"]
    assert "ReplicasManager#startBasicService" in register["doc"]   # the action's own docstring
    assert {p["name"]: p["value"] for p in d["properties"]}[LOST] == "holds"


def test_a_step_takes_the_action_and_a_bad_label_is_a_clear_400(api):
    d = api.post("/api/step", json={"path": "RegisterBroker(broker=1)",
                                    "action": "BrokerElect(broker=1, elected=1)"}).json()
    state = {f["name"]: f for g in d["state"] for f in g["fields"]}
    assert state["controller.masterBrokerId"]["value"] == 1 and state["controller.masterEpoch"]["value"] == 1
    assert state["broker1.role"] == {"name": "broker1.role", "value": "MASTER", "changed": True}
    assert d["query"] == "RegisterBroker(broker=1);BrokerElect(broker=1,elected=1)"
    bad = api.get("/api/path", params={"path": "MasterCrash()"})
    assert bad.status_code == 400 and "'MasterCrash()' is not an action of this configuration" in bad.json()["error"]
    not_enabled = api.get("/api/path", params={"path": "PullMessage(broker=1)"})
    assert not_enabled.status_code == 400 and "step 1" in not_enabled.json()["error"]
    assert "RegisterBroker(broker=1)" in not_enabled.json()["error"]   # what is enabled there


def test_shortest_path_to_a_controller_property_is_the_checks_counterexample(lost_trace):
    _, labels = lost_trace
    with client(of=controller_session()) as c:
        search = c.post("/api/search", json={"property": LOST})
        assert search.status_code == 202
        deadline = time.monotonic() + 120
        while (done := c.get(f"/api/search/{search.json()['id']}").json())["state"] == "running":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert done["state"] == "done" and done["status"] == "violated", done
        assert done["path"] == labels and f"{len(labels)} steps" in done["message"]
        end = c.get("/api/properties", params={"path": join_path(done["path"])}).json()["properties"]
        assert {p["name"]: p["value"] for p in end}[LOST] == "violated"
        before = c.get("/api/properties", params={"path": join_path(done["path"][:-1])}).json()["properties"]
        assert {p["name"]: p["value"] for p in before}[LOST] == "holds"


def test_a_controller_trace_loads_from_json_and_itf_and_a_44_one_is_refused_naming_both_modes(api, lost_trace):
    path, labels = lost_trace
    loaded = api.post("/api/trace", json={"name": "check.json", "text": path.read_text()})
    assert loaded.status_code == 200, loaded.text
    assert loaded.json()["traces"] == [{"name": LOST, "path": labels, "loop_start": None, "status": "violated"}]
    itf = path.parent / "itf" / f"{LOST}.itf.json"
    from_itf = api.post("/api/trace", json={"name": itf.name, "text": itf.read_text()})
    assert from_itf.status_code == 200, from_itf.text
    assert [t["path"] for t in from_itf.json()["traces"]] == [labels]
    from model import preset

    from reports.json_report import version
    old = {"tool": "rmqcheck", "version": version(), "config": preset("default").as_dict(),
           "properties": [{"name": "master_recovers", "trace": []}]}
    refused = api.post("/api/trace", json={"name": "44.json", "text": json.dumps(old)})
    assert refused.status_code == 400
    assert refused.json()["error"] == ("44.json: a trace of model mode 4.4, and this explorer runs mode controller; "
                                       "start 'rmqcheck explore --trace FILE' to explore its own")


def test_a_trace_file_alone_explores_its_own_mode(lost_trace):
    """``explore --trace FILE`` without knobs reads the configuration the file names, controller included."""
    from rmqcheck.explorer.command import _configuration

    cfg, _ = _configuration(None, None, (), str(lost_trace[0]))
    assert cfg == controller_session().config


def test_a_44_knob_in_controller_mode_is_one_line_naming_the_knob_and_the_mode():
    bad = invoke("explore", "--mode", "controller", "--set", "slaves=2")
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1
    assert "knob 'slaves' belongs to mode 4.4, not to mode controller" in bad.stderr


def test_the_sequence_diagram_has_the_controller_modes_lifelines_and_messages_on_them():
    from reports.sequence import Mark, Message, diagram

    s = controller_session()
    walk = s.path(["RegisterBroker(broker=1)", "BrokerElect(broker=1, elected=1)", "RegisterBroker(broker=2)",
                   "BrokerCrash(broker=1)", "ControllerDeclareDead(broker=1)", "ControllerElectNone()"])
    d = diagram(walk.trace)
    assert d.actors == ["producer", "broker1", "broker2", "controller", "consumer"]   # no lifeline for budget
    first = [row.events[0] for row in d.rows]
    assert [(e.sender, e.receiver) for e in first[:3]] == [("broker1", "controller"), ("broker1", "controller"),
                                                            ("broker2", "controller")]
    assert all(isinstance(e, Message) for e in first[:3])
    assert [(e.actor, e.kind) for e in first[3:]] == [("broker1", "down"), ("controller", "note"),
                                                      ("controller", "note")]
    assert all(isinstance(e, Mark) for e in first[3:])

def test_sync_flush_put_waits_for_the_flush_in_the_explorer():
    """Issue 48 item 5: with flushDiskType=SYNC_FLUSH the page shows the put's flush wait
    (``producer.flushWaiting``) and FlushCommitLog answers it SEND_OK (``GroupCommitService#doCommit``)."""
    from model.controller import preset
    from model.controller.config import ControllerConfig
    from rmqcheck.explorer.session import Session

    cfg = ControllerConfig.from_mapping({"flush_disk_type": "SYNC_FLUSH", "messages": 1}, base=preset("controller"))
    with client(of=Session(cfg)) as c:
        path = ["RegisterBroker(broker=1)", "BrokerElect(broker=1, elected=1)", "SendMessage(broker=1)"]
        d = c.get("/api/path", params={"path": join_path(path)}).json()
        state = {f["name"]: f["value"] for g in d["state"] for f in g["fields"]}
        assert state["producer.flushWaiting"] is True and state["producer.sendOk"] == []
        assert "FlushCommitLog(broker=1)" in [a["label"] for a in d["enabled"]]
        d = c.post("/api/step", json={"path": join_path(path), "action": "FlushCommitLog(broker=1)"}).json()
        state = {f["name"]: f["value"] for g in d["state"] for f in g["fields"]}
        assert state["producer.flushWaiting"] is False and state["producer.sendOk"] == [1]


def test_two_queues_pull_by_queue_offset_in_the_explorer():
    """Issue 48 item 3: with queues = 2 the page shows each record's (queueId, queueOffset) and the consumer's
    second queue, and PullMessageQueue1 delivers message 2 at queue 1's offset 0 (commitlog position 1)."""
    from model.controller import preset
    from model.controller.config import ControllerConfig
    from rmqcheck.explorer.session import Session

    cfg = ControllerConfig.from_mapping({"queues": 2, "max_broker_crashes": 0}, base=preset("controller"))
    with client(of=Session(cfg)) as c:
        path = ["RegisterBroker(broker=1)", "BrokerElect(broker=1, elected=1)", "SendMessage(broker=1)",
                "SendMessage(broker=1)", "ReputMessage(broker=1)"]
        d = c.post("/api/step", json={"path": join_path(path), "action": "PullMessageQueue1(broker=1)"}).json()
        state = {f["name"]: f["value"] for g in d["state"] for f in g["fields"]}
        assert state["broker1.queueOffsets"] == [[0, 0], [1, 0]]
        assert state["consumer.delivered1"] == [2, 0] and state["consumer.nextOffset1"] == 1


def test_consumer_offsets_are_stepped_in_the_explorer():
    """Issue 48 item 4: with consumer_offsets = ON the page shows each broker's offset table, and a commit
    (PersistAllOffsets) stores the consumer's offset on the master and raises the group's highest."""
    from model.controller import preset
    from model.controller.config import ControllerConfig
    from rmqcheck.explorer.session import Session

    cfg = ControllerConfig.from_mapping({"consumer_offsets": "ON", "max_broker_crashes": 0, "messages": 1},
                                        base=preset("controller"))
    with client(of=Session(cfg)) as c:
        path = ["RegisterBroker(broker=1)", "BrokerElect(broker=1, elected=1)", "SendMessage(broker=1)",
                "ReputMessage(broker=1)", "PullMessage(broker=1)"]
        d = c.post("/api/step", json={"path": join_path(path), "action": "PersistAllOffsets(broker=1)"}).json()
        state = {f["name"]: f["value"] for g in d["state"] for f in g["fields"]}
        assert state["broker1.consumerOffset[0]"] == 1 and state["broker1.consumerOffsetJson[0]"] is None
        assert state["history.highestCommitted[0]"] == 1 and state["history.delivered"] == [1]


def _walk(c, prefixes):
    """Step from the initial state taking, for each prefix, the first enabled action whose label starts
    with it; returns the last step's fields by name and the labels taken."""
    path, d = [], c.get("/api/path", params={"path": ""}).json()
    for prefix in prefixes:
        label = next(a["label"] for a in d["enabled"] if a["label"].startswith(prefix))
        d = c.post("/api/step", json={"path": join_path(path), "action": label}).json()
        path.append(label)
    return {f["name"]: f["value"] for g in d["state"] for f in g["fields"]}, path


def test_name_servers_are_stepped_in_the_explorer():
    """With name_servers = 1 the page shows the name server's table: a master's registration lists it at
    brokerId 0, and the producer's route refresh copies that into its snapshot."""
    from model.controller import preset
    from model.controller.config import ControllerConfig
    from rmqcheck.explorer.session import Session

    cfg = ControllerConfig.from_mapping({"name_servers": 1, "max_broker_crashes": 0, "messages": 1},
                                        base=preset("controller"))
    with client(of=Session(cfg)) as c:
        before, _ = _walk(c, ["RegisterBroker(broker=1)", "BrokerElect(broker=1"])
        assert before["nameserver1.master"] is None and before["producer.route"] is None
        after, path = _walk(c, ["RegisterBroker(broker=1)", "BrokerElect(broker=1", "NsRegister(broker=1",
                                "ProducerRouteRefresh("])
        assert after["nameserver1.master"] == 1 and after["producer.route"] == 1, path


def test_the_stale_tail_is_stepped_in_the_explorer():
    """With stale_tail = ON a clean shutdown is an action of the page, and it leaves the broker down with
    its last stop recorded as clean (normal recovery at the restart)."""
    from model.controller import preset
    from model.controller.config import ControllerConfig
    from rmqcheck.explorer.session import Session

    cfg = ControllerConfig.from_mapping({"stale_tail": "ON", "max_broker_crashes": 1, "messages": 1},
                                        base=preset("controller"))
    with client(of=Session(cfg)) as c:
        state, path = _walk(c, ["RegisterBroker(broker=1)", "BrokerElect(broker=1", "BrokerShutdown(broker=1"])
        assert state["broker1.up"] is False and state["broker1.cleanShutdown"] is True, path


def test_the_controller_quorum_is_stepped_in_the_explorer():
    """With controllers = 3 a broker's election is a request in flight until a majority holds it: the page
    shows it pending after BrokerElect (no master yet), and applied once a second node holds it and it commits
    (CtlReplicate, CtlCommit: the controller's master set, nothing pending)."""
    from model.controller import preset
    from model.controller.config import ControllerConfig
    from rmqcheck.explorer.session import Session

    cfg = ControllerConfig.from_mapping({"controllers": 3, "max_broker_crashes": 0, "messages": 1},
                                        base=preset("controller"))
    with client(of=Session(cfg)) as c:
        steps = ["RegisterBroker(broker=1)", "BrokerElect(broker=1, elected=1)"]
        pending, _ = _walk(c, steps)
        assert pending["quorum.pending.event"] == "ELECT" and pending["controller.masterBrokerId"] is None
        held, path = _walk(c, steps + ["CtlReplicate(", "CtlCommit("])
        assert held["quorum.pending.event"] is None and held["controller.masterBrokerId"] == 1, path
