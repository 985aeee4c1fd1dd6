"""Loading trace files into the explorer (``POST /api/trace``, ``explore --trace``): the JSON of ``check``,
``simulate`` and ``faults``, ITF, a liveness cycle's ``loop_start``, and the files it must refuse."""
from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from cli_driver import invoke  # noqa: E402
from explorer_fixtures import PROPERTY, client  # noqa: E402

TWO = ("--property", PROPERTY, "--property", "master_recovers")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A check result and its ITF traces, a simulate result, and a check result of another configuration."""
    d = tmp_path_factory.mktemp("traces")
    invoke("check", "--preset", "default", *TWO, "--json", str(d / "check.json"), "--itf", str(d / "itf"),
           "--quiet")
    invoke("simulate", "--preset", "default", "--walks", "3", "--depth", "8", "--seed", "1", "--json",
           str(d / "simulate.json"), "--quiet")
    invoke("check", "--preset", "default", "--set", "messages=1", "--property", "master_recovers", "--json",
           str(d / "other.json"), "--quiet")
    return d


@pytest.fixture(scope="module")
def api():
    with client() as c:
        yield c


def load(api, name: str, data) -> object:
    text = data if isinstance(data, str) else json.dumps(data)
    return api.post("/api/trace", json={"name": name, "text": text})


def actions(trace_steps) -> list[str]:
    return [s["action"] for s in trace_steps[1:]]


def test_a_check_result_loads_every_trace_as_a_path(api, files):
    data = json.loads((files / "check.json").read_text())
    answer = load(api, "check.json", data)
    assert answer.status_code == 200, answer.text
    loaded = {t["name"]: t for t in answer.json()["traces"]}
    expected = {p["name"]: actions(p["trace"]) for p in data["properties"] if "trace" in p}
    assert {n: t["path"] for n, t in loaded.items()} == expected and PROPERTY in expected
    assert all(t["loop_start"] is None for t in loaded.values())
    assert loaded[PROPERTY]["status"] == "violated"
    # the loaded traces are offered to a page opened later
    assert [t["name"] for t in api.get("/api/model").json()["traces"]][:len(loaded)] == list(loaded)


def test_an_itf_trace_loads_as_the_same_path(api, files):
    check = {p["name"]: p for p in json.loads((files / "check.json").read_text())["properties"]}
    itf = json.loads((files / "itf" / f"{PROPERTY}.itf.json").read_text())
    answer = load(api, f"{PROPERTY}.itf.json", itf).json()["traces"]
    assert answer == [{"name": PROPERTY, "path": actions(check[PROPERTY]["trace"]), "loop_start": None,
                       "status": "violated"}]


def test_simulate_and_faults_results_load(api, files):
    sim = json.loads((files / "simulate.json").read_text())
    loaded = load(api, "simulate.json", sim).json()["traces"]
    assert [t["path"] for t in loaded] == [actions(p["trace"]) for p in sim["properties"] if "trace" in p]
    assert loaded, "three walks of eight steps reach some property"
    check = json.loads((files / "check.json").read_text())
    p = next(p for p in check["properties"] if p["name"] == PROPERTY)
    faults = {"tool": "rmqcheck", "version": check["version"], "command": "faults", "config": check["config"],
              "properties": [
        {"name": PROPERTY, "status": "violated", "modes": [{"combination": {}, "trace": p["trace"]}]}]}
    assert load(api, "faults.json", faults).json()["traces"] == [
        {"name": f"{PROPERTY}: mode 1", "path": actions(p["trace"]), "loop_start": None, "status": "violated"}]


def test_a_liveness_cycle_is_kept(api, files):
    data = json.loads((files / "check.json").read_text())
    for p in data["properties"]:
        p.pop("explanation", None)
        if p["name"] == PROPERTY:
            p["loop_start"] = 2
    loaded = {t["name"]: t for t in load(api, "lasso.json", data).json()["traces"]}
    assert loaded[PROPERTY]["loop_start"] == 2 and loaded["master_recovers"]["loop_start"] is None
    itf = json.loads((files / "itf" / f"{PROPERTY}.itf.json").read_text())
    itf["loop"] = 1
    assert load(api, "lasso.itf.json", itf).json()["traces"][0]["loop_start"] == 1


def edited(files, change) -> dict:
    data = copy.deepcopy(json.loads((files / "check.json").read_text()))
    change(next(p for p in data["properties"] if p["name"] == PROPERTY))
    return data


def refused(response, *words: str) -> None:
    assert response.status_code == 400, response.text
    message = response.json()["error"]
    for word in words:
        assert word in message, (word, message)


def test_files_the_explorer_cannot_show_are_refused_with_the_reason(api, files):
    refused(load(api, "other.json", (files / "other.json").read_text()), "another configuration", "messages")
    refused(load(api, "x.json", "{not json"), "not valid JSON")
    refused(load(api, "x.json", [1]), "JSON object")
    ours = {k: json.loads((files / "check.json").read_text())[k] for k in ("tool", "version")}
    refused(load(api, "x.json", {"config": {}}), "not a result of rmqcheck")
    refused(load(api, "x.json", {**ours, "config": {}}), "'properties'")
    refused(load(api, "x.json", {**ours, "config": {"nonsense": 1}, "properties": []}), "unknown knob 'nonsense'")
    refused(load(api, "x.json", {**ours, "config": json.loads((files / "check.json").read_text())["config"],
                                 "properties": [{"name": PROPERTY, "status": "holds"}]}), "holds no trace")
    refused(load(api, "x.json", {**ours, "model": "rocketmq-9", "config": {}}), "its model is 'rocketmq-9'")


@pytest.mark.parametrize("change, words", [
    (lambda p: p["trace"][3]["state"].update({"master.up": False}), ("step 3", "master.up")),
    (lambda p: p["trace"][2].update({"action": "MasterRestart()"}), ("step 2", "not enabled")),
    (lambda p: p["trace"][2].update({"action": "Nonsense()"}), ("step 2", "Nonsense()")),
    (lambda p: p["trace"][1].pop("state"), ("step 1", "'state'")),
    (lambda p: p.update({"loop_start": 99}), ("loop_start 99",)),
    (lambda p: p.update({"loop_start": "2"}), ("loop_start '2'",)),
])
def test_a_trace_edited_by_hand_is_refused_at_its_step(api, files, change, words):
    refused(load(api, "edited.json", edited(files, change)), PROPERTY, *words)


def test_a_bad_itf_state_is_refused(api, files):
    itf = json.loads((files / "itf" / f"{PROPERTY}.itf.json").read_text())
    itf["states"][1]["master"]["commitlog"] = {"#unserializable": "x"}   # a value rmqcheck never writes
    refused(load(api, "bad.itf.json", itf), "state 1", "ITF value")
    del itf["states"][1]["#meta"]
    refused(load(api, "bad.itf.json", itf), "state 1", "'#meta'")


@pytest.mark.parametrize("knobs", [("queues=2",), ("max_file_deletions=1", "commitlog_file_messages=2",
                                                    "broker_role=SYNC_MASTER", "slaves=2", "consumers=2")])
def test_itf_states_read_back_as_the_views_written(knobs):
    """reports/itf.py's reader is the inverse of its writer on every field kind (indexed fields, null, id
    lists, words), along a walk through every enabled action's successor."""
    from model import preset
    from reports.itf import field_kinds, variables, view_of_state
    from rmqcheck.explorer.session import Session

    cfg = preset("default").with_overrides(list(knobs))
    s = Session(cfg)
    kinds = field_kinds(cfg.as_dict())   # sets as #set, optional values as sets of at most one element
    state = s.model.initial()[0]
    seen = 0
    for _ in range(6):
        nexts = [n for _, n, flags in s.model.enabled(state) if not flags & 2]
        for n in nexts:
            view = s.model.view(n)
            assert view_of_state(json.loads(json.dumps(variables(view, kinds))), kinds) == view
            seen += 1
        state = nexts[-1]
    assert seen > 10
